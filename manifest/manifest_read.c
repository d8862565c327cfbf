/* manifest/manifest_read.c: read a manifest (YAML or JSON) back into a
 * struct manifest, strictly; see manifest.h.  Never reads the machine. */
#include "manifest/manifest.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "manifest/node.h"

int sp_read_stream(FILE *fp, size_t max, char **buf, size_t *len)
{
    size_t cap = 65536, n = 0;
    char *b = malloc(cap + 1);
    if (b == NULL)
        return -1;
    for (;;) {
        if (n == cap) {
            if (cap >= max + 1) {
                free(b);
                errno = EFBIG;
                return -1;
            }
            cap = cap * 2 > max + 1 ? max + 1 : cap * 2;
            char *nb = realloc(b, cap + 1);
            if (nb == NULL) {
                free(b);
                errno = ENOMEM;
                return -1;
            }
            b = nb;
        }
        size_t got = fread(b + n, 1, cap - n, fp);
        n += got;
        if (got == 0) {
            if (ferror(fp)) {
                int saved = errno ? errno : EIO;
                free(b);
                errno = saved;
                return -1;
            }
            break;
        }
    }
    if (n > max) {
        free(b);
        errno = EFBIG;
        return -1;
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return 0;
}

static int where(const struct sp_node *n, const char *name, struct sp_error *e,
                 const char *what, const char *key)
{
    if (n && n->line)
        return sp_fail(e, SP_EXIT_INPUT, "%s:%zu:%zu: %s%s%s", name, n->line,
                       n->column, what, key ? " " : "", key ? key : "");
    return sp_fail(e, SP_EXIT_INPUT, "%s: %s%s%s", name, what, key ? " " : "",
                   key ? key : "");
}

static int string_field(const struct sp_node *doc, const char *key, char **out,
                        const char *name, struct sp_error *e)
{
    const struct sp_node *n = sp_node_get(doc, key, NULL);
    if (n == NULL)
        return where(doc, name, e, "missing key", key);
    if (n->kind != SP_NODE_SCALAR || n->json_literal)
        return where(n, name, e, "expected a string for", key);
    if (out && (*out = strdup(n->value)) == NULL)
        return sp_fail(e, SP_EXIT_INPUT, "%s: out of memory", name);
    return 0;
}

/* S for a one-line message: printable ASCII kept, anything else '?', cut
 * to 60 bytes with "..." (the text comes from the file). */
static const char *key_shown(const char *s, char out[64])
{
    size_t i = 0;
    for (; s[i] && i < 60; i++)
        out[i] = (s[i] >= 0x20 && s[i] <= 0x7e) ? s[i] : '?';
    if (s[i])
        out[i - 3] = out[i - 2] = out[i - 1] = '.';
    out[i] = '\0';
    return out;
}

/* 1 when S is "sha256:" and 64 lowercase hex digits. */
static int stack_id_shape(const char *s)
{
    if (strncmp(s, "sha256:", 7) != 0)
        return 0;
    s += 7;
    size_t n = strspn(s, "0123456789abcdef");
    return n == 64 && s[n] == '\0';
}

/* 1 when S is "YYYY-MM-DDTHH:MM:SSZ" (RFC 3339 section 5.6, UTC, no
 * fraction) naming a real time: month 1-12, the day within the month (leap
 * years by the Gregorian rule), hour 0-23, minute 0-59, second 0-60 (a
 * leap second, as RFC 3339 allows). */
static int rfc3339_utc(const char *s)
{
    static const char shape[] = "dddd-dd-ddTdd:dd:ddZ";
    for (size_t i = 0; i < sizeof shape - 1; i++)
        if (shape[i] == 'd' ? !(s[i] >= '0' && s[i] <= '9') : s[i] != shape[i])
            return 0;
    if (s[sizeof shape - 1] != '\0')
        return 0;
    int y = atoi(s), mo = atoi(s + 5), d = atoi(s + 8);
    int h = atoi(s + 11), mi = atoi(s + 14), sec = atoi(s + 17);
    static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    if (mo < 1 || mo > 12 || d < 1)
        return 0;
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (d > days[mo - 1] + (mo == 2 && leap))
        return 0;
    return h <= 23 && mi <= 59 && sec <= 60;
}

/* "NAME:LINE:COL: WHAT" at the key I of mapping MAP, or "NAME: WHAT" when
 * the parser gave no position (JSON). */
static int key_fail(const struct sp_node *map, size_t i, const char *name,
                    struct sp_error *e, const char *what)
{
    if (map->key_lines[i])
        return sp_fail(e, SP_EXIT_INPUT, "%s:%zu:%zu: %s", name, map->key_lines[i],
                       map->key_columns[i], what);
    return sp_fail(e, SP_EXIT_INPUT, "%s: %s", name, what);
}

/* Step 1: DOC is a mapping of known keys only. */
static int check_top(const struct sp_node *doc, const char *name, struct sp_error *e)
{
    static const char *const known[] = {
        "schema", "tool", "created", "subject", "stack_id", "facts", "evidence", "warnings",
    };
    char what[SP_ERROR_MSG_MAX];
    if (doc->kind != SP_NODE_MAP)
        return where(doc, name, e, "a manifest must be a mapping", NULL);
    for (size_t i = 0; i < doc->count; i++) {
        size_t k = 0;
        while (k < sizeof known / sizeof *known && strcmp(known[k], doc->keys[i]) != 0)
            k++;
        if (k == sizeof known / sizeof *known) {
            snprintf(what, sizeof what, "unknown key '%s'", doc->keys[i]);
            return key_fail(doc, i, name, e, what);
        }
    }
    return 0;
}

/* Step 2: schema, tool, created, subject and stack_id (into STACK_ID, the
 * caller frees), each a string of the right shape. */
static int read_header(const struct sp_node *doc, const char *name, struct manifest *m,
                       char **stack_id, struct sp_error *e)
{
    char *schema = NULL, shown[64];
    int r = -1;
    if (string_field(doc, "schema", &schema, name, e) != 0)
        return -1;
    if (strcmp(schema, SP_MANIFEST_SCHEMA_V1) == 0)
        where(sp_node_get(doc, "schema", NULL), name, e,
              SP_MANIFEST_SCHEMA_V1 " has the old stack_id definition; probe again, "
              "or rewrite a test fixture with the source tree's tests/restamp", name);
    else if (strcmp(schema, SP_MANIFEST_SCHEMA) != 0)
        where(sp_node_get(doc, "schema", NULL), name, e, "unsupported schema",
              key_shown(schema, shown));
    else if (string_field(doc, "tool", &m->tool, name, e) != 0 ||
             string_field(doc, "created", &m->created, name, e) != 0 ||
             string_field(doc, "subject", &m->subject, name, e) != 0 ||
             string_field(doc, "stack_id", stack_id, name, e) != 0)
        ;
    else if (!stack_id_shape(*stack_id))
        where(sp_node_get(doc, "stack_id", NULL), name, e,
              "stack_id is not \"sha256:\" and 64 lowercase hex digits", NULL);
    else if (!rfc3339_utc(m->created))
        where(sp_node_get(doc, "created", NULL), name, e,
              "created is not an RFC 3339 UTC time YYYY-MM-DDTHH:MM:SSZ", NULL);
    else
        r = 0;
    free(schema);
    return r;
}

/* The evidence mapping's keys sorted, to find each fact's evidence in
 * O(log n) whatever order the document has; BAD marks entries that could
 * not be attached to their fact (reported by check_evidence). */
struct ev_entry {
    const char *key;
    size_t at;                 /* index in the evidence mapping */
};

struct ev_index {
    const struct sp_node *ev;  /* the evidence mapping, or NULL */
    struct ev_entry *sorted;
    unsigned char *bad;
};

static int ev_cmp(const void *a, const void *b)
{
    return strcmp(((const struct ev_entry *)a)->key, ((const struct ev_entry *)b)->key);
}

/* Step 3: index the evidence mapping EV (NULL when absent; when it is not
 * a mapping, nothing is indexed). */
static int ev_index_build(struct ev_index *x, const struct sp_node *ev, const char *name,
                          struct sp_error *e)
{
    memset(x, 0, sizeof *x);
    x->ev = ev;
    if (ev == NULL || ev->kind != SP_NODE_MAP || ev->count == 0)
        return 0;               /* not a mapping: check_evidence says so, after the facts */
    x->sorted = malloc(ev->count * sizeof *x->sorted);
    x->bad = calloc(ev->count, 1);
    if (x->sorted == NULL || x->bad == NULL)
        return sp_fail(e, SP_EXIT_INPUT, "%s: out of memory", name);
    int ordered = 1;
    for (size_t i = 0; i < ev->count; i++) {
        x->sorted[i] = (struct ev_entry){ ev->keys[i], i };
        ordered = ordered && (i == 0 || strcmp(ev->keys[i - 1], ev->keys[i]) < 0);
    }
    if (!ordered)                       /* a manifest stackprint wrote is sorted */
        qsort(x->sorted, ev->count, sizeof *x->sorted, ev_cmp);
    return 0;
}

/* The evidence entry for fact KEY, or NULL. */
static const struct ev_entry *ev_find(const struct ev_index *x, const char *key)
{
    if (x->sorted == NULL)
        return NULL;
    struct ev_entry want = { key, 0 };
    return bsearch(&want, x->sorted, x->ev->count, sizeof *x->sorted, ev_cmp);
}

static void ev_index_free(struct ev_index *x)
{
    free(x->sorted);
    free(x->bad);
}

/* Step 4: every fact, once, with its evidence when that is a string (else
 * check_evidence reports it, after every fact is read). */
static int read_facts(const struct sp_node *doc, const char *name, struct manifest *m,
                      struct ev_index *x, struct sp_error *e)
{
    const struct sp_node *facts = sp_node_get(doc, "facts", NULL);
    char what[SP_ERROR_MSG_MAX], shown[64];
    if (facts == NULL || facts->kind != SP_NODE_MAP)
        return where(facts ? facts : doc, name, e,
                     facts ? "facts must be a mapping" : "missing key facts", NULL);
    for (size_t i = 0; i < facts->count; i++) {
        const struct sp_node *v = facts->items[i];
        if (!fact_key_valid(facts->keys[i])) {
            snprintf(what, sizeof what, "fact key '%s' is not 1 to %d bytes "
                     "of a-z A-Z 0-9 . _ + : - starting with a-z",
                     key_shown(facts->keys[i], shown), SP_FACT_KEY_MAX);
            return key_fail(facts, i, name, e, what);
        }
        if (v->kind != SP_NODE_SCALAR || v->json_literal)
            return where(v, name, e, "fact value must be a string:", facts->keys[i]);
        const struct ev_entry *ev = ev_find(x, facts->keys[i]);
        const struct sp_node *en = ev ? x->ev->items[ev->at] : NULL;
        const char *evidence = en && en->kind == SP_NODE_SCALAR && !en->json_literal
                               ? en->value : NULL;
        if (evidence && factset_set(&m->facts, facts->keys[i], v->value, evidence) == 0)
            continue;
        if (factset_set(&m->facts, facts->keys[i], v->value, NULL) != 0)
            return where(v, name, e, errno == E2BIG ? "fact too long:" : "empty or invalid fact:",
                         facts->keys[i]);
        if (evidence)
            x->bad[ev->at] = 1;         /* the fact is good: its evidence is not */
    }
    return 0;
}

/* Step 5: the evidence is a mapping, and each entry, in document order, a
 * string, for a fact, attached. */
static int check_evidence(const struct ev_index *x, const char *name, const struct manifest *m,
                          struct sp_error *e)
{
    const struct sp_node *ev = x->ev;
    char shown[64];
    if (ev != NULL && ev->kind != SP_NODE_MAP)
        return where(ev, name, e, "evidence must be a mapping", NULL);
    for (size_t i = 0; ev && i < ev->count; i++) {
        if (ev->items[i]->kind != SP_NODE_SCALAR || ev->items[i]->json_literal)
            return where(ev->items[i], name, e, "evidence must be a string:", ev->keys[i]);
        if (factset_get(&m->facts, ev->keys[i]) == NULL)
            return where(ev->items[i], name, e, "evidence for no fact:",
                         key_shown(ev->keys[i], shown));
        if (x->bad[i])
            return where(ev->items[i], name, e, "bad evidence for", ev->keys[i]);
    }
    return 0;
}

/* Step 6: the warnings list, each a string. */
static int read_warnings(const struct sp_node *doc, const char *name, struct manifest *m,
                         struct sp_error *e)
{
    const struct sp_node *w = sp_node_get(doc, "warnings", NULL);
    if (w == NULL)
        return 0;
    if (w->kind != SP_NODE_SEQ)
        return where(w, name, e, "warnings must be a list", NULL);
    for (size_t i = 0; i < w->count; i++) {
        if (w->items[i]->kind != SP_NODE_SCALAR || w->items[i]->json_literal)
            return where(w->items[i], name, e, "a warning must be a string", NULL);
        factset_warn(&m->facts, "%s", w->items[i]->value);
    }
    return 0;
}

/* Step 7, last, so that a malformed document gets its own message first:
 * the stack id the document states is the one its facts give. */
static int check_stack_id(struct manifest *m, const char *stated, const char *name,
                          struct sp_error *e)
{
    if (factset_stack_id(&m->facts, m->stack_id) != 0)
        return sp_fail(e, SP_EXIT_INPUT, "%s: sha256 failed", name);
    if (strcmp(m->stack_id, stated) != 0)
        return sp_fail(e, SP_EXIT_INPUT,
                       "%s: stack_id does not match the facts (edited after probing?)", name);
    return 0;
}

int manifest_parse(const char *buf, size_t len, const char *name,
                   struct manifest *m, struct sp_error *e)
{
    struct sp_node *doc = sp_node_parse(buf, len, name, e);
    struct ev_index x = { 0 };
    char *stack_id = NULL;
    int r = -1;

    manifest_init(m);
    if (doc == NULL)
        return -1;
    if (check_top(doc, name, e) == 0 &&
        read_header(doc, name, m, &stack_id, e) == 0 &&
        ev_index_build(&x, sp_node_get(doc, "evidence", NULL), name, e) == 0 &&
        read_facts(doc, name, m, &x, e) == 0 &&
        check_evidence(&x, name, m, e) == 0 &&
        read_warnings(doc, name, m, e) == 0 &&
        check_stack_id(m, stack_id, name, e) == 0)
        r = 0;
    ev_index_free(&x);
    free(stack_id);
    sp_node_free(doc);
    if (r != 0)
        manifest_free(m);
    return r;
}

int sp_read_file(const char *path, size_t max, const char *what, char **buf,
                 size_t *len, struct sp_error *e)
{
    if (strcmp(path, "-") == 0) {
        if (sp_read_stream(stdin, max, buf, len) != 0)
            return errno == EFBIG
                ? sp_fail(e, SP_EXIT_INPUT, "<stdin>: larger than the %s size limit (%zu bytes)", what, max)
                : sp_fail(e, SP_EXIT_INPUT, "<stdin>: %s", strerror(errno));
        return 0;
    }
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    struct stat st;
    if (fd < 0)
        return sp_fail(e, SP_EXIT_INPUT, "%s: %s", path, strerror(errno));
    if (fstat(fd, &st) != 0) {
        int saved = errno;
        close(fd);
        return sp_fail(e, SP_EXIT_INPUT, "%s: %s", path, strerror(saved));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return sp_fail(e, SP_EXIT_INPUT, "%s: not a regular file", path);
    }
    if (st.st_size < 0 || (unsigned long long)st.st_size > max) {
        close(fd);
        return sp_fail(e, SP_EXIT_INPUT, "%s: larger than the %s size limit (%zu bytes)",
                       path, what, max);
    }
    size_t cap = (size_t)st.st_size, n = 0;
    char *b = malloc(cap + 1);
    if (b == NULL) {
        close(fd);
        return sp_fail(e, SP_EXIT_INPUT, "%s: %s", path, strerror(ENOMEM));
    }
    for (;;) {
        char extra;
        ssize_t got = n < cap ? read(fd, b + n, cap - n) : read(fd, &extra, 1);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            int saved = errno;
            close(fd);
            OPENSSL_cleanse(b, cap);
            free(b);
            return sp_fail(e, SP_EXIT_INPUT, "%s: %s", path, strerror(saved));
        }
        if (got == 0)
            break;
        if (n == cap) {
            close(fd);
            OPENSSL_cleanse(b, cap);
            free(b);
            return sp_fail(e, SP_EXIT_INPUT, "%s: grew while being read", path);
        }
        n += (size_t)got;
    }
    close(fd);
    b[n] = '\0';
    *buf = b;
    *len = n;
    return 0;
}

int manifest_load(const char *path, struct manifest *m, struct sp_error *e)
{
    char *buf;
    size_t len;
    manifest_init(m);
    if (sp_read_file(path, SP_MANIFEST_MAX_BYTES, "manifest", &buf, &len, e) != 0)
        return -1;
    int r = manifest_parse(buf, len, strcmp(path, "-") == 0 ? "<stdin>" : path, m, e);
    free(buf);
    return r;
}
