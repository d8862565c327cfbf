/* fingerprint/probes/python/py_dists.c: the distributions installed in a
 * sys.path, as importlib.metadata finds them (MetadataPathFinder,
 * PathDistribution): every *.dist-info and *.egg-info entry of every
 * sys.path folder (and the EGG-INFO of an .egg folder), its METADATA, else
 * PKG-INFO, else the egg-info file itself (the core metadata spec, read by
 * py_metadata.c); the first distribution of a name in sys.path order wins,
 * names compared after PEP 503 normalisation. */
#include "fingerprint/probes/python/py_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct dist {
    char *key, *version, *evidence;
    size_t dir, seq;
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

/* Read one distribution entry; append to V.  Returns 0 or -1 ENOMEM. */
static int read_dist(struct probe_ctx *ctx, int flags, const char *dir, const char *entry,
                     int egg_dir_child, size_t dirindex, struct dist **v, size_t *n,
                     size_t *cap, const char *keyprefix)
{
    char path[SP_ROOT_PATH_MAX], meta[SP_ROOT_PATH_MAX];
    if (sp_path_join(path, sizeof path, dir, entry) != 0)
        return 0;
    struct root_stat st;
    if (root_stat(ctx->root, path, 1, &st) != 0) {
        py_warn_errno(ctx, flags, "pip", path, errno);
        return 0;
    }
    struct py_metadata m;
    int got = 0;
    if (st.type == ROOT_T_DIR) {
        static const char *const files[] = { "METADATA", "PKG-INFO" };
        for (int i = 0; i < 2 && !got; i++) {
            if (sp_path_join(meta, sizeof meta, path, files[i]) != 0)
                break;
            if (py_metadata_read(ctx->root, meta, 0, &m) == 0) {
                got = 1;
            } else if (errno == ENOMEM) {
                return -1;
            } else if (errno != ENOENT) {
                py_warn_errno(ctx, flags, "pip", meta, errno);
                return 0;
            }
        }
        if (!got) {
            py_warn(ctx, flags, "pip: %s: no METADATA or PKG-INFO; not recorded", path);
            return 0;
        }
    } else if (st.type == ROOT_T_FILE) {
        py_copy(meta, sizeof meta, path);
        if (py_metadata_read(ctx->root, meta, 0, &m) != 0) {
            if (errno == ENOMEM)
                return -1;
            py_warn_errno(ctx, flags, "pip", meta, errno);
            return 0;
        }
    } else {
        py_warn(ctx, flags, "pip: %s: not a file or folder", path);
        return 0;
    }
    if (m.binary) {
        py_warn(ctx, flags, "pip: %s: binary data (NUL bytes) in the headers; not recorded", meta);
        return 0;
    }
    if (m.truncated)
        py_warn(ctx, flags, "pip: %s: headers longer than %u bytes; only those read",
              meta, PY_METADATA_HEADER_MAX);
    if (m.too_long) {
        py_warn(ctx, flags, "pip: %s: Name or Version longer than %d bytes; not recorded",
              meta, PY_FIELD_MAX);
        return 0;
    }
    if (m.name[0] == '\0' || m.version[0] == '\0') {
        py_warn(ctx, flags, "pip: %s: no %s header; not recorded", meta,
              m.name[0] ? "Version" : "Name");
        return 0;
    }
    if (!usable_name(m.name)) {
        py_warn(ctx, flags, "pip: %s: Name \"%s\" cannot be a key; not recorded", meta, m.name);
        return 0;
    }
    char norm[PY_FIELD_MAX], key[SP_FACT_KEY_MAX + 1];
    if (fact_name_pep503(m.name, norm, sizeof norm) != 0 ||
        snprintf(key, sizeof key, "%s%s", keyprefix, norm) >= (int)sizeof key) {
        py_warn(ctx, flags, "pip: %s: Name too long for a key; not recorded", meta);
        return 0;
    }
    if (!fact_key_valid(key)) {
        py_warn(ctx, flags, "pip: %s: Name \"%s\" has bytes outside the fact-key alphabet; "
              "not recorded", meta, m.name);
        return 0;
    }
    if (m.not_utf8)
        py_warn(ctx, flags, "%s: %s: bytes that are not UTF-8 in the headers (escaped as \\xNN)",
              key, meta);
    if (!egg_dir_child) {
        char dname[PY_FIELD_MAX], dversion[PY_FIELD_MAX], dnorm[PY_FIELD_MAX];
        split_entry(entry, dname, sizeof dname, dversion, sizeof dversion);
        if (fact_name_pep503(dname, dnorm, sizeof dnorm) == 0 && strcmp(dnorm, norm) != 0)
            py_warn(ctx, flags, "%s: %s: folder name says \"%s\" but METADATA says \"%s\"; "
                  "METADATA is authoritative", key, path, dname, m.name);
        else if (dversion[0] && !same_version_text(dversion, m.version))
            py_warn(ctx, flags, "%s: %s: folder name says version \"%s\" but METADATA says "
                  "\"%s\"; METADATA is authoritative", key, path, dversion, m.version);
    }
    if (*n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 128;
        struct dist *nv = realloc(*v, ncap * sizeof *nv);
        if (nv == NULL)
            return -1;
        *v = nv;
        *cap = ncap;
    }
    struct dist *d = &(*v)[*n];
    d->key = strdup(key);
    d->version = strdup(m.version);
    d->evidence = strdup(meta);
    d->dir = dirindex;
    d->seq = *n;
    if (!d->key || !d->version || !d->evidence) {
        free(d->key);
        free(d->version);
        free(d->evidence);
        return -1;
    }
    (*n)++;
    return 0;
}

long py_dists_record(struct probe_ctx *ctx, const struct py_interp *pi,
                     const char *keyprefix, int flags)
{
    struct dist *v = NULL;
    size_t n = 0, cap = 0;
    long rc = 0;
    int full = 0;
    for (size_t i = 0; i < pi->ndirs && !full && rc == 0; i++) {
        const char *dir = pi->dirs[i];
        int egg = py_ends_with_ci(dir, ".egg");
        for (size_t k = 0; k < pi->nnames[i] && rc == 0; k++) {
            const char *entry = pi->names[i][k];
            int child = egg && strcasecmp(entry, "EGG-INFO") == 0;
            if (!child && !py_ends_with_ci(entry, ".dist-info") && !py_ends_with_ci(entry, ".egg-info"))
                continue;
            if (n >= PY_DISTS_MAX) {
                py_warn(ctx, flags, "pip: %s: more than %d distributions; the rest not read",
                      dir, PY_DISTS_MAX);
                full = 1;
                break;
            }
            if (read_dist(ctx, flags, dir, entry, child, i, &v, &n, &cap, keyprefix) != 0)
                rc = -1;
        }
    }
    if (rc == 0 && n > 1)
        qsort(v, n, sizeof *v, cmp_dist);
    long recorded = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (i > 0 && strcmp(v[i].key, v[i - 1].key) == 0) {
            /* shadowed; only a same-folder twin with another version is odd */
            size_t first = i;
            while (first > 0 && strcmp(v[first - 1].key, v[i].key) == 0)
                first--;
            if (v[i].dir == v[first].dir && strcmp(v[i].version, v[first].version) != 0)
                py_warn(ctx, flags, "%s: %s: two distributions in one folder (%s %s, %s %s); "
                      "importlib.metadata takes the first in directory order, recorded is "
                      "the first in byte order", v[i].key, pi->dirs[v[i].dir],
                      v[first].evidence, v[first].version, v[i].evidence, v[i].version);
            continue;
        }
        if (probe_set(ctx, v[i].key, v[i].version, v[i].evidence) != 0)
            rc = -1;
        else
            recorded++;
    }
    for (size_t i = 0; i < n; i++) {
        free(v[i].key);
        free(v[i].version);
        free(v[i].evidence);
    }
    free(v);
    return rc < 0 ? -1 : recorded;
}

