/* manifest/manifest_read.c: read a manifest (YAML or JSON) back into a
 * struct manifest, strictly; see manifest.h.  Never reads the machine. */
#include "manifest/manifest.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/digest.h"
#include "manifest/node.h"

static int where(const struct sp_node *n, const char *name, struct sp_error *e,
                 const char *what, const char *key)
{
    return sp_node_fail(e, name, n, "%s%s%s", what, key ? " " : "", key ? key : "");
}

static int string_field(const struct sp_node *doc, const char *key, char **out,
                        const char *name, struct sp_error *e)
{
    const char *text;
    if (sp_node_text(doc, key, 0, &text, name, e) != 0)
        return -1;
    if (out && (*out = strdup(text)) == NULL)
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

int manifest_parse(const char *buf, size_t len, const char *name,
                   struct manifest *m, struct sp_error *e)
{
    static const char *const known[] = {
        "schema", "tool", "created", "subject", "stack_id", "facts", "evidence", "warnings", NULL,
    };
    struct sp_node *doc = sp_node_parse(buf, len, name, e);
    char *schema = NULL, *stack_id = NULL;
    int r = -1;

    manifest_init(m);
    if (doc == NULL)
        return -1;
    if (doc->kind != SP_NODE_MAP) {
        where(doc, name, e, "a manifest must be a mapping", NULL);
        goto out;
    }
    if (sp_node_known_keys(doc, known, "a manifest", name, e) != 0)
        goto out;
    if (string_field(doc, "schema", &schema, name, e) != 0)
        goto out;
    if (strcmp(schema, SP_MANIFEST_SCHEMA_V1) == 0) {
        where(sp_node_get(doc, "schema", NULL), name, e,
              SP_MANIFEST_SCHEMA_V1 " has the old stack_id definition; probe again, "
              "or rewrite a test fixture with the source tree's tests/restamp", name);
        goto out;
    }
    if (strcmp(schema, SP_MANIFEST_SCHEMA) != 0) {
        char shown[64];
        where(sp_node_get(doc, "schema", NULL), name, e, "unsupported schema",
              key_shown(schema, shown));
        goto out;
    }
    if (string_field(doc, "tool", &m->tool, name, e) != 0 ||
        string_field(doc, "created", &m->created, name, e) != 0 ||
        string_field(doc, "subject", &m->subject, name, e) != 0 ||
        string_field(doc, "stack_id", &stack_id, name, e) != 0)
        goto out;
    if (!sp_digest_valid(stack_id)) {
        where(sp_node_get(doc, "stack_id", NULL), name, e,
              "stack_id is not \"sha256:\" and 64 lowercase hex digits", NULL);
        goto out;
    }
    if (!rfc3339_utc(m->created)) {
        where(sp_node_get(doc, "created", NULL), name, e,
              "created is not an RFC 3339 UTC time YYYY-MM-DDTHH:MM:SSZ", NULL);
        goto out;
    }

    const struct sp_node *facts = sp_node_get(doc, "facts", NULL);
    if (facts == NULL || facts->kind != SP_NODE_MAP) {
        where(facts ? facts : doc, name, e, facts ? "facts must be a mapping" : "missing key facts", NULL);
        goto out;
    }
    for (size_t i = 0; i < facts->count; i++) {
        const struct sp_node *v = facts->items[i];
        if (!fact_key_valid(facts->keys[i])) {
            char shown[64];
            if (facts->key_lines[i])
                sp_fail(e, SP_EXIT_INPUT, "%s:%zu:%zu: fact key '%s' is not 1 to %d bytes "
                        "of a-z A-Z 0-9 . _ + : - starting with a-z", name,
                        facts->key_lines[i], facts->key_columns[i],
                        key_shown(facts->keys[i], shown), SP_FACT_KEY_MAX);
            else
                sp_fail(e, SP_EXIT_INPUT, "%s: fact key '%s' is not 1 to %d bytes "
                        "of a-z A-Z 0-9 . _ + : - starting with a-z", name,
                        key_shown(facts->keys[i], shown), SP_FACT_KEY_MAX);
            goto out;
        }
        if (v->kind != SP_NODE_SCALAR || v->json_literal) {
            where(v, name, e, "fact value must be a string:", facts->keys[i]);
            goto out;
        }
        if (factset_set(&m->facts, facts->keys[i], v->value, NULL) != 0) {
            where(v, name, e, errno == E2BIG ? "fact too long:" : "empty or invalid fact:",
                  facts->keys[i]);
            goto out;
        }
    }
    const struct sp_node *ev = sp_node_get(doc, "evidence", NULL);
    if (ev != NULL) {
        if (ev->kind != SP_NODE_MAP) {
            where(ev, name, e, "evidence must be a mapping", NULL);
            goto out;
        }
        for (size_t i = 0; i < ev->count; i++) {
            const char *val = factset_get(&m->facts, ev->keys[i]);
            if (ev->items[i]->kind != SP_NODE_SCALAR || ev->items[i]->json_literal) {
                where(ev->items[i], name, e, "evidence must be a string:", ev->keys[i]);
                goto out;
            }
            if (val == NULL) {
                char shown[64];
                where(ev->items[i], name, e, "evidence for no fact:",
                      key_shown(ev->keys[i], shown));
                goto out;
            }
            char *copy = strdup(val);
            int bad = copy == NULL ||
                      factset_set(&m->facts, ev->keys[i], copy, ev->items[i]->value) != 0;
            free(copy);
            if (bad) {
                where(ev->items[i], name, e, "bad evidence for", ev->keys[i]);
                goto out;
            }
        }
    }
    const struct sp_node *w = sp_node_get(doc, "warnings", NULL);
    if (w != NULL) {
        if (w->kind != SP_NODE_SEQ) {
            where(w, name, e, "warnings must be a list", NULL);
            goto out;
        }
        for (size_t i = 0; i < w->count; i++) {
            if (w->items[i]->kind != SP_NODE_SCALAR || w->items[i]->json_literal) {
                where(w->items[i], name, e, "a warning must be a string", NULL);
                goto out;
            }
            factset_warn(&m->facts, "%s", w->items[i]->value);
        }
    }
    /* last, so that a malformed document gets its own message first */
    if (factset_stack_id(&m->facts, m->stack_id) != 0) {
        sp_fail(e, SP_EXIT_INPUT, "%s: sha256 failed", name);
        goto out;
    }
    if (strcmp(m->stack_id, stack_id) != 0) {
        sp_fail(e, SP_EXIT_INPUT, "%s: stack_id does not match the facts (edited after probing?)",
                name);
        goto out;
    }
    r = 0;
out:
    free(schema);
    free(stack_id);
    sp_node_free(doc);
    if (r != 0)
        manifest_free(m);
    return r;
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
