/* fingerprint/probes/python/py_dists.c: the distributions installed in a
 * sys.path, as importlib.metadata finds them (MetadataPathFinder,
 * PathDistribution): every *.dist-info and *.egg-info entry of every
 * sys.path folder (and the EGG-INFO of an .egg folder), its METADATA, else
 * PKG-INFO, else the egg-info file itself (the core metadata spec, read by
 * py_metadata.c); the first distribution of a name in sys.path order wins,
 * names compared after PEP 503 normalisation. */
#include "common/array.h"
#include "fingerprint/probes/python/py_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A distribution read, before the first of each name is chosen: its fact
 * key (KEYPREFIX + PEP 503 name), what py_interp keeps of it, and its
 * place in reading order. */
struct dist {
    char *key;
    struct py_dist d;
    size_t seq;
};

static int cmp_dist(const void *a, const void *b)
{
    const struct dist *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    if (c)
        return c;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* "foo_bar-1.0.dist-info" -> name "foo_bar", version "1.0" */
static void split_entry(const char *entry, char *name, size_t nsz, char *version, size_t vsz)
{
    const char *dot = strrchr(entry, '.');
    size_t stem = dot ? (size_t)(dot - entry) : strlen(entry);
    size_t nl = strcspn(entry, "-");
    if (nl > stem)
        nl = stem;
    snprintf(name, nsz, "%.*s", (int)nl, entry);
    version[0] = '\0';
    if (nl < stem) {
        const char *v = entry + nl + 1;
        size_t vl = stem - nl - 1;
        size_t dash = strcspn(v, "-");
        if (dash < vl)
            vl = dash;
        snprintf(version, vsz, "%.*s", (int)vl, v);
    }
}

static int same_version_text(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char x = *a == '_' ? '-' : (char)tolower((unsigned char)*a);
        char y = *b == '_' ? '-' : (char)tolower((unsigned char)*b);
        if (x != y)
            return 0;
    }
    return *a == *b;
}

/* Names that cannot make a key: empty, or with spaces / control bytes. */
static int usable_name(const char *s)
{
    if (*s == '\0')
        return 0;
    for (; *s; s++)
        if ((unsigned char)*s <= ' ' || *s == 0x7f || *s == '/')
            return 0;
    return 1;
}

/* Where the headers of the entry at PATH are (importlib.metadata's
 * PathDistribution.read_text): a folder's METADATA, else its PKG-INFO;
 * an egg-info file itself.  Reads them into M and sets META (and FOLDER to
 * PATH for a folder).  1 read, 0 not (warned), -1 on ENOMEM. */
static int open_metadata(struct probe_ctx *ctx, int flags, const char *path,
                         char *meta, size_t metasz, int *folder, struct py_metadata *m)
{
    struct root_stat st;
    if (root_stat(ctx->root, path, 1, &st) != 0) {
        py_warn_errno(ctx, flags, "pip", path, errno);
        return 0;
    }
    *folder = st.type == ROOT_T_DIR;
    if (st.type == ROOT_T_FILE) {
        py_copy(meta, metasz, path);
        if (py_metadata_read(ctx->root, meta, 0, m) == 0)
            return 1;
        if (errno == ENOMEM)
            return -1;
        py_warn_errno(ctx, flags, "pip", meta, errno);
        return 0;
    }
    if (st.type != ROOT_T_DIR) {
        py_warn(ctx, flags, "pip: %s: not a file or folder", path);
        return 0;
    }
    static const char *const files[] = { "METADATA", "PKG-INFO" };
    for (int i = 0; i < 2; i++) {
        if (sp_path_join(meta, metasz, path, files[i]) != 0)
            break;
        if (py_metadata_read(ctx->root, meta, 0, m) == 0)
            return 1;
        if (errno == ENOMEM)
            return -1;
        if (errno != ENOENT) {
            py_warn_errno(ctx, flags, "pip", meta, errno);
            return 0;
        }
    }
    py_warn(ctx, flags, "pip: %s: no METADATA or PKG-INFO; not recorded", path);
    return 0;
}

/* The headers M of META make a fact: Name and Version present, usable,
 * short enough; KEY (KEYPREFIX + the PEP 503 name, KEYSZ bytes) and NORM
 * set.  1 usable, 0 not (warned). */
static int usable_metadata(struct probe_ctx *ctx, int flags, const char *meta,
                           const struct py_metadata *m, const char *keyprefix,
                           char *key, size_t keysz, char *norm, size_t normsz)
{
    if (m->binary) {
        py_warn(ctx, flags, "pip: %s: binary data (NUL bytes) in the headers; not recorded", meta);
        return 0;
    }
    if (m->truncated)
        py_warn(ctx, flags, "pip: %s: headers longer than %u bytes; only those read",
                meta, PY_METADATA_HEADER_MAX);
    if (m->too_long) {
        py_warn(ctx, flags, "pip: %s: Name or Version longer than %d bytes; not recorded",
                meta, PY_FIELD_MAX);
        return 0;
    }
    if (m->name[0] == '\0' || m->version[0] == '\0') {
        py_warn(ctx, flags, "pip: %s: no %s header; not recorded", meta,
                m->name[0] ? "Version" : "Name");
        return 0;
    }
    if (!usable_name(m->name)) {
        py_warn(ctx, flags, "pip: %s: Name \"%s\" cannot be a key; not recorded", meta, m->name);
        return 0;
    }
    if (fact_name_pep503(m->name, norm, normsz) != 0 ||
        snprintf(key, keysz, "%s%s", keyprefix, norm) >= (int)keysz) {
        py_warn(ctx, flags, "pip: %s: Name too long for a key; not recorded", meta);
        return 0;
    }
    if (!fact_key_valid(key)) {
        py_warn(ctx, flags, "pip: %s: Name \"%s\" has bytes outside the fact-key alphabet; "
                "not recorded", meta, m->name);
        return 0;
    }
    if (m->not_utf8)
        py_warn(ctx, flags, "%s: %s: bytes that are not UTF-8 in the headers (escaped as \\xNN)",
                key, meta);
    return 1;
}

/* The entry's name ("foo_bar-1.0.dist-info") against its METADATA: a
 * warning when the name or the version differ (METADATA is authoritative,
 * as importlib.metadata reads it). */
static void compare_entry_name(struct probe_ctx *ctx, int flags, const char *entry,
                               const char *path, const char *key, const char *norm,
                               const struct py_metadata *m)
{
    char dname[PY_FIELD_MAX], dversion[PY_FIELD_MAX], dnorm[PY_FIELD_MAX];
    split_entry(entry, dname, sizeof dname, dversion, sizeof dversion);
    if (fact_name_pep503(dname, dnorm, sizeof dnorm) == 0 && strcmp(dnorm, norm) != 0)
        py_warn(ctx, flags, "%s: %s: folder name says \"%s\" but METADATA says \"%s\"; "
                "METADATA is authoritative", key, path, dname, m->name);
    else if (dversion[0] && !same_version_text(dversion, m->version))
        py_warn(ctx, flags, "%s: %s: folder name says version \"%s\" but METADATA says "
                "\"%s\"; METADATA is authoritative", key, path, dversion, m->version);
}

/* Free the strings of one kept distribution. */
static void py_dist_clear(struct py_dist *d)
{
    free(d->name);
    free(d->version);
    free(d->metadata);
    free(d->folder);
}

static void dist_free(struct dist *d)
{
    free(d->key);
    py_dist_clear(&d->d);
}

/* The distributions read so far, in reading order. */
struct dists {
    struct dist *v;
    size_t n, cap;
};

/* Append a distribution to DS.  0, or -1 on ENOMEM. */
static int dist_push(struct dists *ds, const char *key, const char *norm, const char *version,
                     const char *meta, const char *folder, size_t dirindex)
{
    if (SP_ARRAY_RESERVE(ds->v, ds->cap, ds->n + 1) != 0)
        return -1;
    struct dist *d = &ds->v[ds->n];
    memset(d, 0, sizeof *d);
    d->key = strdup(key);
    d->d.name = strdup(norm);
    d->d.version = strdup(version);
    d->d.metadata = strdup(meta);
    d->d.folder = folder ? strdup(folder) : NULL;
    d->d.dir = dirindex;
    d->seq = ds->n;
    if (!d->key || !d->d.name || !d->d.version || !d->d.metadata || (folder && !d->d.folder)) {
        dist_free(d);
        return -1;
    }
    ds->n++;
    return 0;
}

/* Read one distribution entry ENTRY of sys.path folder DIR (index
 * DIRINDEX; EGG_DIR_CHILD: the EGG-INFO of an .egg folder) into DS.
 * Returns 0 (recorded or warned), or -1 on ENOMEM. */
static int read_dist(struct probe_ctx *ctx, int flags, const char *dir, const char *entry,
                     int egg_dir_child, size_t dirindex, struct dists *ds, const char *keyprefix)
{
    char path[SP_ROOT_PATH_MAX], meta[SP_ROOT_PATH_MAX];
    if (sp_path_join(path, sizeof path, dir, entry) != 0)
        return 0;
    struct py_metadata m;
    int folder = 0;
    int got = open_metadata(ctx, flags, path, meta, sizeof meta, &folder, &m);
    if (got <= 0)
        return got;
    char norm[PY_FIELD_MAX], key[SP_FACT_KEY_MAX + 1];
    if (!usable_metadata(ctx, flags, meta, &m, keyprefix, key, sizeof key, norm, sizeof norm))
        return 0;
    if (!egg_dir_child)
        compare_entry_name(ctx, flags, entry, path, key, norm, &m);
    return dist_push(ds, key, norm, m.version, meta, folder ? path : NULL, dirindex);
}

/* Every distribution entry of PI's sys.path into DS, in sys.path order
 * (inside one folder, byte order of the names); at most PY_DISTS_MAX.
 * 0, or -1 on ENOMEM. */
static int read_all(struct probe_ctx *ctx, const struct py_interp *pi, const char *keyprefix,
                    int flags, struct dists *ds)
{
    for (size_t i = 0; i < pi->ndirs; i++) {
        const char *dir = pi->dirs[i];
        int egg = py_ends_with_ci(dir, ".egg");
        for (size_t k = 0; k < pi->nnames[i]; k++) {
            const char *entry = pi->names[i][k];
            int child = egg && strcasecmp(entry, "EGG-INFO") == 0;
            if (!child && !py_ends_with_ci(entry, ".dist-info") &&
                !py_ends_with_ci(entry, ".egg-info"))
                continue;
            if (ds->n >= PY_DISTS_MAX) {
                py_warn(ctx, flags, "pip: %s: more than %d distributions; the rest not read",
                        dir, PY_DISTS_MAX);
                return 0;
            }
            if (read_dist(ctx, flags, dir, entry, child, i, ds, keyprefix) != 0)
                return -1;
        }
    }
    return 0;
}

/* V[I] is shadowed by an earlier distribution of its key: only a
 * same-folder twin with another version is odd (warned). */
static void shadowed(struct probe_ctx *ctx, int flags, const struct py_interp *pi,
                     const struct dist *v, size_t i)
{
    size_t first = i;
    while (first > 0 && strcmp(v[first - 1].key, v[i].key) == 0)
        first--;
    if (v[i].d.dir == v[first].d.dir && strcmp(v[i].d.version, v[first].d.version) != 0)
        py_warn(ctx, flags, "%s: %s: two distributions in one folder (%s %s, %s %s); "
                "importlib.metadata takes the first in directory order, recorded is "
                "the first in byte order", v[i].key, pi->dirs[v[i].d.dir],
                v[first].d.metadata, v[first].d.version, v[i].d.metadata, v[i].d.version);
}

/* Hand the first distribution of each key in the sorted V[0..N) to PI
 * (pi->dists, replacing earlier ones); the rest stay in V.  0, or -1 on
 * ENOMEM. */
static int keep_first(struct py_interp *pi, struct dist *v, size_t n)
{
    py_dists_free(pi);
    if (n == 0)
        return 0;
    if ((pi->dists = calloc(n, sizeof *pi->dists)) == NULL)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && strcmp(v[i].key, v[i - 1].key) == 0)
            continue;
        pi->dists[pi->ndists++] = v[i].d;   /* moved: PI owns it now */
        memset(&v[i].d, 0, sizeof v[i].d);
    }
    return 0;
}

long py_dists_record(struct probe_ctx *ctx, struct py_interp *pi,
                     const char *keyprefix, int flags)
{
    struct dists ds = { 0 };
    long rc = read_all(ctx, pi, keyprefix, flags, &ds);
    if (rc == 0 && ds.n > 1)
        qsort(ds.v, ds.n, sizeof *ds.v, cmp_dist);
    long recorded = 0;
    for (size_t i = 0; i < ds.n && rc == 0; i++) {
        if (i > 0 && strcmp(ds.v[i].key, ds.v[i - 1].key) == 0)
            shadowed(ctx, flags, pi, ds.v, i);
        else if (probe_set(ctx, ds.v[i].key, ds.v[i].d.version, ds.v[i].d.metadata) != 0)
            rc = -1;
        else
            recorded++;
    }
    if (rc == 0 && keep_first(pi, ds.v, ds.n) != 0)
        rc = -1;
    for (size_t i = 0; i < ds.n; i++)
        dist_free(&ds.v[i]);
    free(ds.v);
    return rc < 0 ? -1 : recorded;
}

const struct py_dist *py_dist_find(const struct py_interp *pi, const char *name)
{
    for (size_t i = 0; i < pi->ndists; i++)
        if (strcmp(pi->dists[i].name, name) == 0)
            return &pi->dists[i];
    return NULL;
}

void py_dists_free(struct py_interp *pi)
{
    for (size_t i = 0; i < pi->ndists; i++)
        py_dist_clear(&pi->dists[i]);
    free(pi->dists);
    pi->dists = NULL;
    pi->ndists = 0;
}
