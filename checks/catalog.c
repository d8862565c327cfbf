/* checks/catalog.c: loading the Neuron release catalog and matching
 * versions against it; see catalog.h.  Reads only the catalog file. */
#include "checks/catalog.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "manifest/facts.h"
#include "manifest/manifest.h"

int catalog_is_document(const struct sp_node *doc)
{
    return sp_node_get(doc, "catalog", NULL) != NULL;
}

static void free_strings(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

void catalog_free(struct catalog *c)
{
    if (c->builtin) {
        memset(c, 0, sizeof *c);
        return;
    }
    for (size_t r = 0; r < c->nreleases; r++) {
        struct catalog_release *rel = &c->releases[r];
        for (size_t p = 0; p < rel->npackages; p++) {
            struct catalog_package *pk = &rel->packages[p];
            free(pk->name);
            free(pk->pep503);
            free(pk->version);
            free_strings(pk->instances, pk->ninstances);
            free_strings(pk->pythons, pk->npythons);
        }
        free(rel->packages);
        free(rel->release);
    }
    free(c->releases);
    free(c->source);
    free(c->names);
    free(c->pep503_names);
    memset(c, 0, sizeof *c);
}

static int nomem(struct sp_error *e, const char *name)
{
    return sp_fail(e, SP_EXIT_INPUT, "%s: out of memory", name);
}

/* The non-empty text of KEY in MAP, copied into *OUT (the caller's). */
static int text_copy(const struct sp_node *map, const char *key, char **out,
                     const char *name, struct sp_error *e)
{
    const char *text;
    if (sp_node_text(map, key, SP_NODE_NONEMPTY, &text, name, e) != 0)
        return -1;
    *out = strdup(text);
    return *out ? 0 : nomem(e, name);
}

/* Split LIST ("trn1,inf2" or "-" for none) at commas into *OUT (*COUNT). */
static int comma_list(const char *list, char ***out, size_t *count)
{
    *out = NULL;
    *count = 0;
    if (strcmp(list, "-") == 0)
        return 0;
    size_t n = 1;
    for (const char *q = list; *q; q++)
        n += *q == ',';
    char **v = calloc(n, sizeof *v);
    if (v == NULL)
        return -1;
    const char *q = list;
    for (size_t i = 0; i < n; i++) {
        size_t l = strcspn(q, ",");
        if (l == 0 || (v[i] = strndup(q, l)) == NULL) {
            free_strings(v, i);
            errno = l == 0 ? EINVAL : ENOMEM;
            return -1;
        }
        q += l + (q[l] == ',');
    }
    *out = v;
    *count = n;
    return 0;
}

/* Fill PK from one package line of the catalog:
 * "NAME VERSION INSTANCES PYTHONS", single spaces, the lists comma-separated
 * or "-" when empty.  0, or -1 with errno EINVAL (malformed) or ENOMEM. */
static int package_line(const char *line, struct catalog_package *pk)
{
    const char *f[4];
    size_t len[4];
    const char *q = line;
    for (int i = 0; i < 4; i++) {
        len[i] = strcspn(q, " ");
        f[i] = q;
        if (len[i] == 0 || (i < 3 && q[len[i]] != ' ') || (i == 3 && q[len[i]] != '\0')) {
            errno = EINVAL;
            return -1;
        }
        q += len[i] + (i < 3);
    }
    char lists[2][SP_FACT_VALUE_MAX];
    if (len[2] >= sizeof lists[0] || len[3] >= sizeof lists[1]) {
        errno = EINVAL;
        return -1;
    }
    memcpy(lists[0], f[2], len[2]);
    lists[0][len[2]] = '\0';
    memcpy(lists[1], f[3], len[3]);
    lists[1][len[3]] = '\0';
    if ((pk->name = strndup(f[0], len[0])) == NULL ||
        (pk->version = strndup(f[1], len[1])) == NULL) {
        errno = ENOMEM;
        return -1;
    }
    if (comma_list(lists[0], &pk->instances, &pk->ninstances) != 0 ||
        comma_list(lists[1], &pk->pythons, &pk->npythons) != 0)
        return -1;
    return 0;
}

static int by_text(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The sorted, unique names of C's packages (PEP 503 form when PEP503). */
static int name_index(struct catalog *c, int pep503, const char ***out, size_t *nout)
{
    size_t n = 0, total = 0;
    for (size_t r = 0; r < c->nreleases; r++)
        total += c->releases[r].npackages;
    const char **v = calloc(total ? total : 1, sizeof *v);
    if (v == NULL)
        return -1;
    for (size_t r = 0; r < c->nreleases; r++)
        for (size_t p = 0; p < c->releases[r].npackages; p++)
            v[n++] = pep503 ? c->releases[r].packages[p].pep503 : c->releases[r].packages[p].name;
    qsort(v, n, sizeof *v, by_text);
    size_t w = 0;
    for (size_t i = 0; i < n; i++)
        if (w == 0 || strcmp(v[w - 1], v[i]) != 0)
            v[w++] = v[i];
    *out = v;
    *nout = w;
    return 0;
}

int catalog_has_name(const struct catalog *c, const char *name, int pep503)
{
    const char **v = pep503 ? c->pep503_names : c->names;
    size_t lo = 0, hi = pep503 ? c->npep503_names : c->nnames;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int d = strcmp(v[mid], name);
        if (d == 0)
            return 1;
        if (d < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

/* "2", "2.16", "2.16.1": digits separated by single dots. */
static int dotted_number(const char *s)
{
    int digits = 0;
    for (; *s; s++) {
        if (*s >= '0' && *s <= '9')
            digits = 1;
        else if (*s == '.' && digits)
            digits = 0;
        else
            return 0;
    }
    return digits;
}

/* One line of a release's packages into PK: 0, or -1 with E set. */
static int package_from_node(const struct sp_node *pn, struct catalog_package *pk,
                             const char *name, struct sp_error *e)
{
    char norm[SP_FACT_KEY_MAX];
    if (pn->kind != SP_NODE_SCALAR)
        return sp_node_fail(e, name, pn, "a package must be a string \"NAME VERSION INSTANCES PYTHONS\"");
    if (package_line(pn->value, pk) != 0)
        return errno == ENOMEM ? nomem(e, name)
            : sp_node_fail(e, name, pn, "a package must be \"NAME VERSION INSTANCES PYTHONS\" "
                           "(single spaces; lists comma-separated, - for none)");
    if (fact_name_pep503(pk->name, norm, sizeof norm) != 0)
        return sp_node_fail(e, name, pn, "package name too long");
    return (pk->pep503 = strdup(norm)) ? 0 : nomem(e, name);
}

/* Release R of C from RN: its number (dotted, not listed before) and its
 * packages.  0, or -1 with E set. */
static int release_from_node(const struct sp_node *rn, struct catalog *c, size_t r,
                             const char *name, struct sp_error *e)
{
    static const char *const rel_keys[] = { "release", "packages", NULL };
    struct catalog_release *rel = &c->releases[r];
    if (rn->kind != SP_NODE_MAP)
        return sp_node_fail(e, name, rn, "a release must be a mapping");
    if (sp_node_known_keys(rn, rel_keys, "a release", name, e) != 0 ||
        text_copy(rn, "release", &rel->release, name, e) != 0)
        return -1;
    if (!dotted_number(rel->release))
        return sp_node_fail(e, name, sp_node_get(rn, "release", NULL),
                            "a release must be dotted numbers such as 2.16.1");
    for (size_t k = 0; k < r; k++)
        if (strcmp(c->releases[k].release, rel->release) == 0)
            return sp_node_fail(e, name, sp_node_get(rn, "release", NULL), "release listed twice");
    const struct sp_node *pkgs = sp_node_get(rn, "packages", NULL);
    if (pkgs == NULL || pkgs->kind != SP_NODE_SEQ)
        return sp_node_fail(e, name, pkgs ? pkgs : rn, "packages must be a list");
    rel->packages = calloc(pkgs->count ? pkgs->count : 1, sizeof *rel->packages);
    if (rel->packages == NULL)
        return nomem(e, name);
    for (size_t p = 0; p < pkgs->count; p++) {
        rel->npackages++;
        if (package_from_node(pkgs->items[p], &rel->packages[p], name, e) != 0)
            return -1;
    }
    return 0;
}

int catalog_from_node(const struct sp_node *doc, const char *name,
                      struct catalog *c, struct sp_error *e)
{
    static const char *const top_keys[] = { "catalog", "source", "releases", NULL };
    memset(c, 0, sizeof *c);
    if (doc->kind != SP_NODE_MAP)
        return sp_node_fail(e, name, doc, "a catalog must be a mapping");
    if (sp_node_known_keys(doc, top_keys, "a catalog", name, e) != 0 ||
        text_copy(doc, "source", &c->source, name, e) != 0)
        goto fail;
    const struct sp_node *rels = sp_node_get(doc, "releases", NULL);
    if (rels == NULL || rels->kind != SP_NODE_SEQ || rels->count == 0) {
        sp_node_fail(e, name, rels ? rels : doc, "releases must be a non-empty list");
        goto fail;
    }
    c->releases = calloc(rels->count, sizeof *c->releases);
    if (c->releases == NULL)
        goto nomem;
    for (size_t r = 0; r < rels->count; r++) {
        c->nreleases++;
        if (release_from_node(rels->items[r], c, r, name, e) != 0)
            goto fail;
    }
    if (name_index(c, 0, &c->names, &c->nnames) != 0 ||
        name_index(c, 1, &c->pep503_names, &c->npep503_names) != 0)
        goto nomem;
    return 0;
nomem:
    nomem(e, name);
fail:
    catalog_free(c);
    return -1;
}

int catalog_load(const char *path, struct catalog *c, struct sp_error *e)
{
    char *buf;
    size_t len;
    memset(c, 0, sizeof *c);
    if (sp_read_file(path, SP_CATALOG_MAX_BYTES, "catalog", &buf, &len, e) != 0)
        return -1;
    struct sp_node *doc = sp_node_parse(buf, len, path, e);
    free(buf);
    if (doc == NULL)
        return -1;
    int r = catalog_from_node(doc, path, c, e);
    sp_node_free(doc);
    return r;
}

/* Length of S up to (not including) a PEP 440 local label. */
static size_t public_len(const char *s)
{
    return strcspn(s, "+");
}

const char *catalog_upstream(const char *found, size_t *len)
{
    const char *f = found, *colon = strchr(found, ':');
    if (colon)
        f = colon + 1;
    const char *dash = strrchr(f, '-');
    size_t n = dash ? (size_t)(dash - f) : strlen(f);
    /* the yum spelling's "_HASH": the last '_', then hex digits to the end */
    for (size_t u = n; u-- > 0;) {
        if (f[u] != '_')
            continue;
        size_t h = u + 1;
        while (h < n && ((f[h] >= '0' && f[h] <= '9') || (f[h] >= 'a' && f[h] <= 'f')))
            h++;
        if (h == n && h > u + 1 && u > 0)
            n = u;
        break;
    }
    *len = n;
    return f;
}

int catalog_version_matches(const char *listed, const char *found, char scheme)
{
    size_t ll = strlen(listed), fl = strlen(found);
    const char *f = found;
    if (scheme == 'p') {
        ll = public_len(listed);
        fl = public_len(found);
    } else if (scheme == 'd') {
        f = catalog_upstream(found, &fl);
    }
    /* component-wise, "x" in LISTED matching any one component */
    size_t i = 0, j = 0;
    while (i < ll && j < fl) {
        size_t a = i, b = j;
        while (a < ll && listed[a] != '.')
            a++;
        while (b < fl && f[b] != '.')
            b++;
        int wild = a - i == 1 && listed[i] == 'x';
        if (!wild && (a - i != b - j || strncmp(listed + i, f + j, a - i) != 0))
            return 0;
        i = a + (a < ll);
        j = b + (b < fl);
        if ((a < ll) != (b < fl))
            return 0;
    }
    return i >= ll && j >= fl;
}
