/* fingerprint/root/image_source.c: where an image's blobs are and which image
 * to read.  Sources: an OCI image layout directory or tar archive
 * (image-layout.md: oci-layout, index.json, blobs/<alg>/<hex>), and a
 * `docker save` tarball (manifest.json; the newer form also carries an OCI
 * layout, which is then preferred because its index names the real manifest
 * digest).  Selection by tag (org.opencontainers.image.ref.name,
 * io.containerd.image.name, RepoTags) and platform.  The small JSON blobs
 * (indexes, manifests, configs) are read whole, bounded, and verified here;
 * layers are only located (image_blob.c reads them).
 * Must not: extract anything, follow a name outside the source, or trust a
 * digest it has not computed.
 */
#include "common/array.h"
#include "fingerprint/root/image_impl.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <linux/openat2.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "common/file.h"
#include "manifest/node.h"

#define MT_OCI_INDEX "application/vnd.oci.image.index.v1+json"
#define MT_OCI_MANIFEST "application/vnd.oci.image.manifest.v1+json"
#define MT_DOCKER_LIST "application/vnd.docker.distribution.manifest.list.v2+json"
#define MT_DOCKER_MANIFEST "application/vnd.docker.distribution.manifest.v2+json"
#define MT_DOCKER_CONFIG "application/vnd.docker.container.image.v1+json"
#define MT_DOCKER_LAYER "application/vnd.docker.image.rootfs.diff.tar.gzip"
#define STORE_LINK_HOPS 8

enum member_type { M_FILE, M_DIR, M_LINK, M_HARDLINK, M_OTHER };

struct archive_member {
    char *name;          /* normalised: no "./", no trailing slash */
    char *link;          /* M_LINK: target as written; M_HARDLINK: normalised */
    enum member_type type;
    uint64_t offset, size;
    size_t pos;          /* order in the archive */
};

void image_sha256_digest(const void *buf, size_t len, char out[SP_DIGEST_LEN + 1])
{
    if (sp_sha256_digest(buf, len, out) != 0)
        out[0] = '\0';
}

/* ---- the store ---- */

/* IN without leading "./" and trailing slashes into OUT; -1 when it does
 * not fit (never a cut name: that would name another member). */
static int strip_name(const char *in, char *out, size_t outsz)
{
    while (in[0] == '.' && in[1] == '/')
        for (in += 2; *in == '/'; in++)
            ;
    if (strlen(in) >= outsz)
        return -1;
    snprintf(out, outsz, "%s", in);
    size_t n = strlen(out);
    while (n > 0 && out[n - 1] == '/')
        out[--n] = '\0';
    return 0;
}

static int cmp_member(const void *a, const void *b)
{
    const struct archive_member *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

/* A new member at the end of S's list (zeroed but for POS), or NULL with
 * E set at the members bound or out of memory.  *CAP: slots allocated. */
static struct archive_member *member_new(struct image_store *s, size_t *cap,
                                         const struct image_limits *l, struct sp_error *e)
{
    if (s->nmembers >= l->members_max) {
        sp_fail(e, SP_EXIT_INPUT, "%s: more than %zu members", s->path, l->members_max);
        return NULL;
    }
    if (SP_ARRAY_RESERVE(s->members, *cap, s->nmembers + 1) != 0) {
        sp_fail(e, SP_EXIT_INPUT, "%s: out of memory", s->path);
        return NULL;
    }
    struct archive_member *m = &s->members[s->nmembers];
    memset(m, 0, sizeof *m);
    m->pos = s->nmembers;
    return m;
}

/* Member M's name, type, link and data region from tar entry ENT (A has
 * just read its header).  -1 with E set. */
static int member_fill(struct image_store *s, struct archive *a, struct archive_entry *ent,
                       struct archive_member *m, struct sp_error *e)
{
    char name[SP_ROOT_PATH_MAX];
    strip_name(archive_entry_pathname(ent), name, sizeof name);   /* fits: measured before */
    m->name = strdup(name);
    s->nmembers++;
    if (m->name == NULL)
        return sp_fail(e, SP_EXIT_INPUT, "%s: out of memory", s->path);
    const char *hl = archive_entry_hardlink(ent);
    mode_t ft = archive_entry_filetype(ent);
    if (hl) {
        if (strip_name(hl, name, sizeof name) != 0)
            return sp_fail(e, SP_EXIT_INPUT, "%s: member %.200s: hard link target longer "
                           "than %d bytes", s->path, m->name, SP_ROOT_PATH_MAX - 1);
        m->type = M_HARDLINK;
        m->link = strdup(name);
    } else if (ft == AE_IFLNK) {
        m->type = M_LINK;
        m->link = strdup(archive_entry_symlink(ent) ? archive_entry_symlink(ent) : "");
    } else if (ft == AE_IFDIR) {
        m->type = M_DIR;
    } else if (ft == AE_IFREG && archive_entry_sparse_count(ent) == 0) {
        m->type = M_FILE;
        /* the tar reader has consumed the header(s): the data starts here */
        m->offset = (uint64_t)archive_filter_bytes(a, 0);
        m->size = archive_entry_size_is_set(ent) ? (uint64_t)archive_entry_size(ent) : 0;
    } else {
        m->type = M_OTHER;
    }
    if ((m->type == M_LINK || m->type == M_HARDLINK) && m->link == NULL)
        return sp_fail(e, SP_EXIT_INPUT, "%s: out of memory", s->path);
    return 0;
}

/* Sort S's members by name; later members win, as tar extraction does:
 * keep the last of equal names. */
static void members_sort(struct image_store *s)
{
    if (s->nmembers < 2)
        return;
    qsort(s->members, s->nmembers, sizeof *s->members, cmp_member);
    size_t w = 0;
    for (size_t i = 0; i < s->nmembers; i++) {
        if (i + 1 < s->nmembers && strcmp(s->members[i].name, s->members[i + 1].name) == 0) {
            free(s->members[i].name);
            free(s->members[i].link);
            continue;
        }
        s->members[w++] = s->members[i];
    }
    s->nmembers = w;
}

/* Index the tar S->fd once with libarchive: each member's name, type,
 * link, and where its data lies, sorted by name. */
static int index_tar(struct image_store *s, const struct image_limits *l, struct sp_error *e)
{
    struct archive *a = archive_read_new();
    struct archive_entry *ent;
    size_t cap = 0;
    int r, rc = -1;
    if (a == NULL)
        return sp_fail(e, SP_EXIT_INPUT, "%s: out of memory", s->path);
    archive_read_support_format_tar(a);
    if (archive_read_open_fd(a, s->fd, 1 << 16) != ARCHIVE_OK) {
        sp_fail(e, SP_EXIT_INPUT, "%s: not an OCI layout, OCI archive or docker-save "
                "tarball (%s; compressed archives are not read: decompress first)",
                s->path, archive_error_string(a));
        goto out;
    }
    while ((r = archive_read_next_header(a, &ent)) == ARCHIVE_OK || r == ARCHIVE_WARN) {
        const char *raw = archive_entry_pathname(ent);
        if (raw == NULL) {
            sp_fail(e, SP_EXIT_INPUT, "%s: a member has no usable name", s->path);
            goto out;
        }
        if (strlen(raw) >= SP_ROOT_PATH_MAX) {
            sp_fail(e, SP_EXIT_INPUT, "%s: a member name is longer than %d bytes", s->path,
                    SP_ROOT_PATH_MAX - 1);
            goto out;
        }
        struct archive_member *m = member_new(s, &cap, l, e);
        if (m == NULL || member_fill(s, a, ent, m, e) != 0)
            goto out;
    }
    if (r != ARCHIVE_EOF) {
        sp_fail(e, SP_EXIT_INPUT, "%s: not an OCI layout, OCI archive or docker-save "
                "tarball (%s)", s->path, archive_error_string(a));
        goto out;
    }
    members_sort(s);
    rc = 0;
out:
    archive_read_free(a);
    return rc;
}

int image_store_open(const char *path, const struct image_limits *l, struct image_store *s,
               struct sp_error *e)
{
    struct stat st;
    memset(s, 0, sizeof *s);
    s->fd = -1;
    s->path = path;
    s->json_total_max = l->json_total_max;
    if (stat(path, &st) != 0)
        return sp_fail(e, SP_EXIT_INPUT, "%s: %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode)) {
        s->fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (s->fd < 0)
            return sp_fail(e, SP_EXIT_INPUT, "%s: %s", path, strerror(errno));
        return 0;
    }
    if (!S_ISREG(st.st_mode))
        return sp_fail(e, SP_EXIT_INPUT, "%s: not a directory or a regular file", path);
    s->is_tar = 1;
    s->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (s->fd < 0)
        return sp_fail(e, SP_EXIT_INPUT, "%s: %s", path, strerror(errno));
    if (index_tar(s, l, e) != 0) {
        image_store_close(s);
        return -1;
    }
    return 0;
}

void image_store_close(struct image_store *s)
{
    for (size_t i = 0; i < s->nmembers; i++) {
        free(s->members[i].name);
        free(s->members[i].link);
    }
    free(s->members);
    s->members = NULL;
    s->nmembers = 0;
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
}

/* Resolve "DIR/TARGET" of a symlink inside the store; ".." stops at the top. */
static int join_link(const char *member, const char *target, char *out, size_t outsz)
{
    char buf[SP_ROOT_PATH_MAX * 2];
    if (target[0] == '/')
        snprintf(buf, sizeof buf, "%s", target);
    else {
        const char *slash = strrchr(member, '/');
        snprintf(buf, sizeof buf, "%.*s/%s", slash ? (int)(slash - member) : 0, member, target);
    }
    size_t o = 0;
    char *save = NULL;
    out[0] = '\0';
    for (char *c = strtok_r(buf, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
        if (strcmp(c, ".") == 0)
            continue;
        if (strcmp(c, "..") == 0) {
            char *up = strrchr(out, '/');
            o = up ? (size_t)(up - out) : 0;
            out[o] = '\0';
            continue;
        }
        size_t cl = strlen(c);
        if (o + cl + 2 > outsz)
            return -1;
        if (o)
            out[o++] = '/';
        memcpy(out + o, c, cl + 1);
        o += cl;
    }
    return 0;
}

int image_store_find(struct image_store *s, const char *name, struct blob_ref *out)
{
    if (!s->is_tar) {
        struct open_how how = {
            .flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC,
            .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
        };
        /* the descriptor is owned by the caller through out->fd */
        long fd = syscall(SYS_openat2, s->fd, name, &how, sizeof how);
        struct stat st;
        if (fd < 0)
            return -1;
        if (fstat((int)fd, &st) != 0 || !S_ISREG(st.st_mode)) {
            close((int)fd);
            errno = EINVAL;
            return -1;
        }
        out->fd = (int)fd;
        out->offset = 0;
        out->size = (uint64_t)st.st_size;
        return 0;
    }
    char cur[SP_ROOT_PATH_MAX], next[SP_ROOT_PATH_MAX];
    if (strip_name(name, cur, sizeof cur) != 0) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (int hops = 0; hops <= STORE_LINK_HOPS; hops++) {
        struct archive_member *m = NULL;
        size_t lo = 0, hi = s->nmembers;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            int c = strcmp(s->members[mid].name, cur);
            if (c == 0) {
                m = &s->members[mid];
                break;
            }
            if (c < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (m == NULL) {
            errno = ENOENT;
            return -1;
        }
        switch (m->type) {
        case M_FILE:
            out->fd = dup(s->fd);
            if (out->fd < 0)
                return -1;
            out->offset = m->offset;
            out->size = m->size;
            return 0;
        case M_HARDLINK:
            snprintf(next, sizeof next, "%s", m->link);
            break;
        case M_LINK:
            if (join_link(m->name, m->link, next, sizeof next) != 0) {
                errno = ENAMETOOLONG;
                return -1;
            }
            break;
        default:
            errno = EINVAL;
            return -1;
        }
        memcpy(cur, next, sizeof cur);
    }
    errno = ELOOP;
    return -1;
}

int image_store_read(struct image_store *s, const char *name, uint64_t max,
                     char **buf, size_t *len, struct sp_error *e)
{
    struct blob_ref b;
    if (image_store_find(s, name, &b) != 0)
        return sp_fail(e, SP_EXIT_INPUT, "%s: %s: %s", s->path, name,
                       errno == ENOENT ? "missing" : strerror(errno));
    if (b.size > max) {
        close(b.fd);
        return sp_fail(e, SP_EXIT_INPUT, "%s: %s: larger than %llu bytes", s->path, name,
                       (unsigned long long)max);
    }
    /* every index, manifest and config read to choose the image counts:
     * the work stays linear in what the source holds, however its
     * documents name each other */
    if (b.size > s->json_total_max - s->json_read) {
        close(b.fd);
        return sp_fail(e, SP_EXIT_INPUT, "%s: more than %llu bytes of index, manifest and "
                       "config JSON read (at %s)", s->path,
                       (unsigned long long)s->json_total_max, name);
    }
    s->json_read += b.size;
    char *d = malloc(b.size + 1);
    if (d == NULL) {
        close(b.fd);
        return sp_fail(e, SP_EXIT_INPUT, "%s: out of memory", s->path);
    }
    if (sp_pread_full(b.fd, d, b.size, b.offset) != 0) {
        int err = errno;
        free(d);
        close(b.fd);
        return sp_fail(e, SP_EXIT_INPUT, "%s: %s: %s", s->path, name,
                       err == ENODATA ? "truncated" : strerror(err));
    }
    close(b.fd);
    d[b.size] = '\0';
    *buf = d;
    *len = b.size;
    return 0;
}

/* ---- JSON helpers over sp_node ---- */

static const char *str_at(const struct sp_node *n, const char *key)
{
    return sp_node_str(n, key);
}

struct desc {
    const char *media, *digest;
    int64_t size;
    const char *ref, *ref2;       /* ref.name and io.containerd.image.name */
    const char *os, *arch, *variant;
};

/* Parse an OCI descriptor (descriptor.md): mediaType, digest, size. */
static int parse_desc(const struct sp_node *n, const char *file, struct desc *d,
                      struct sp_error *e)
{
    memset(d, 0, sizeof *d);
    if (n == NULL || n->kind != SP_NODE_MAP)
        return sp_fail(e, SP_EXIT_INPUT, "%s:%zu: a descriptor is not an object", file,
                       n ? n->line : 0);
    d->media = str_at(n, "mediaType");
    d->digest = str_at(n, "digest");
    const struct sp_node *sz = sp_node_get(n, "size", NULL);
    if (d->digest == NULL)
        return sp_fail(e, SP_EXIT_INPUT, "%s:%zu: descriptor without a digest", file, n->line);
    if (!sp_digest_valid(d->digest))
        return sp_fail(e, SP_EXIT_INPUT, "%s:%zu: digest '%.80s' is not sha256:<64 hex> "
                       "(only sha256 is read)", file, n->line, d->digest);
    char *end;
    errno = 0;
    long long v = sz && sz->kind == SP_NODE_SCALAR && !sz->quoted ? strtoll(sz->value, &end, 10) : -1;
    if (sz == NULL || sz->kind != SP_NODE_SCALAR || sz->quoted || errno || *end || v < 0)
        return sp_fail(e, SP_EXIT_INPUT, "%s:%zu: descriptor %s has no valid size", file,
                       n->line, d->digest);
    d->size = v;
    const struct sp_node *ann = sp_node_get(n, "annotations", NULL);
    if (ann && ann->kind == SP_NODE_MAP) {
        d->ref = str_at(ann, "org.opencontainers.image.ref.name");
        d->ref2 = str_at(ann, "io.containerd.image.name");
        if (d->ref == NULL) {
            d->ref = d->ref2;
            d->ref2 = NULL;
        }
    }
    const struct sp_node *pl = sp_node_get(n, "platform", NULL);
    if (pl && pl->kind == SP_NODE_MAP) {
        d->os = str_at(pl, "os");
        d->arch = str_at(pl, "architecture");
        d->variant = str_at(pl, "variant");
    }
    return 0;
}

/* Read blob DIGEST (OCI layout), check its size and sha256, parse it. */
static struct sp_node *read_blob_json(struct image_store *s, const char *digest, int64_t size,
                                      const struct image_limits *l, char **raw, size_t *rawlen,
                                      struct sp_error *e)
{
    char name[128], got[SP_DIGEST_LEN + 1];
    snprintf(name, sizeof name, "blobs/sha256/%s", digest + 7);
    char *buf;
    size_t len;
    if (size >= 0 && (uint64_t)size > l->json_max) {
        sp_fail(e, SP_EXIT_INPUT, "%s: %s: larger than %llu bytes", s->path, name,
                (unsigned long long)l->json_max);
        return NULL;
    }
    if (image_store_read(s, name, l->json_max, &buf, &len, e) != 0)
        return NULL;
    image_sha256_digest(buf, len, got);
    if (size >= 0 && (uint64_t)size != len) {
        sp_fail(e, SP_EXIT_VERIFY, "%s: %s: %zu bytes, its descriptor says %lld", s->path,
                name, len, (long long)size);
        free(buf);
        return NULL;
    }
    if (strcmp(got, digest) != 0) {
        sp_fail(e, SP_EXIT_VERIFY, "%s: %s: sha256 is %s, its descriptor says %s", s->path,
                name, got, digest);
        free(buf);
        return NULL;
    }
    struct sp_node *n = sp_node_parse(buf, len, name, e);
    if (n && n->kind != SP_NODE_MAP) {
        sp_fail(e, SP_EXIT_INPUT, "%s: %s: not a JSON object", s->path, name);
        sp_node_free(n);
        n = NULL;
    }
    if (raw && n) {
        *raw = buf;
        *rawlen = len;
    } else {
        free(buf);
    }
    return n;
}

/* ---- selection ---- */

struct cand {
    char digest[SP_DIGEST_LEN + 1];
    const char *media;            /* MT_OCI_MANIFEST or MT_DOCKER_MANIFEST (static) */
    int64_t size;
    char *ref, *ref2, *os, *arch, *variant;
};

struct cands {
    struct cand *v;
    size_t n, cap;
};

static void cands_free(struct cands *c)
{
    for (size_t i = 0; i < c->n; i++) {
        free(c->v[i].ref);
        free(c->v[i].ref2);
        free(c->v[i].os);
        free(c->v[i].arch);
        free(c->v[i].variant);
    }
    free(c->v);
}

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

static int cands_add(struct cands *c, const struct desc *d, const char *ref, const char *ref2)
{
    if (SP_ARRAY_RESERVE(c->v, c->cap, c->n + 1) != 0)
        return -1;
    struct cand *x = &c->v[c->n++];
    memset(x, 0, sizeof *x);
    snprintf(x->digest, sizeof x->digest, "%s", d->digest);
    x->media = strcmp(d->media, MT_OCI_MANIFEST) == 0 ? MT_OCI_MANIFEST : MT_DOCKER_MANIFEST;
    x->size = d->size;
    x->ref = dup_or_null(ref);
    x->ref2 = dup_or_null(ref2);
    x->os = dup_or_null(d->os);
    x->arch = dup_or_null(d->arch);
    x->variant = dup_or_null(d->variant);
    return 0;
}

static int is_index_type(const char *mt)
{
    return mt && (strcmp(mt, MT_OCI_INDEX) == 0 || strcmp(mt, MT_DOCKER_LIST) == 0);
}

static int is_manifest_type(const char *mt)
{
    return mt && (strcmp(mt, MT_OCI_MANIFEST) == 0 || strcmp(mt, MT_DOCKER_MANIFEST) == 0);
}

/* Refuse a document that could be read as more than one kind: an index
 * (WANT_INDEX) with a manifest's "config" or "layers", a manifest with an
 * index's "manifests", either with schema 1's "fsLayers", or a "mediaType"
 * of another kind or other than its descriptor's DESC_MEDIA (NULL: none).
 * OCI image-spec v1.1 manifest.md and image-index.md ("mediaType" names the
 * document's own kind), read strictly as skopeo reads them: a document
 * that two readers could take for different kinds is refused. */
static int unambiguous(struct image_store *s, const struct sp_node *doc, const char *file,
                       int want_index, const char *desc_media, struct sp_error *e)
{
    const char *kind = want_index ? "image index" : "image manifest";
    int index_fields = sp_node_get(doc, "manifests", NULL) != NULL;
    int manifest_fields = sp_node_get(doc, "config", NULL) != NULL ||
                          sp_node_get(doc, "layers", NULL) != NULL;
    if ((want_index ? manifest_fields : index_fields) || sp_node_get(doc, "fsLayers", NULL))
        return sp_fail(e, SP_EXIT_INPUT, "%s: %s: ambiguous document: an %s with the fields "
                       "of %s", s->path, file, kind,
                       sp_node_get(doc, "fsLayers", NULL) ? "a schema 1 manifest"
                       : want_index ? "an image manifest" : "an image index");
    const struct sp_node *mn = sp_node_get(doc, "mediaType", NULL);
    if (mn == NULL)
        return 0;
    const char *mt = str_at(doc, "mediaType");
    if (mt == NULL || !(want_index ? is_index_type(mt) : is_manifest_type(mt)))
        return sp_fail(e, SP_EXIT_INPUT, "%s: %s: ambiguous document: an %s whose mediaType "
                       "is '%.100s'", s->path, file, kind, mt ? mt : "not a string");
    if (desc_media && strcmp(mt, desc_media) != 0)
        return sp_fail(e, SP_EXIT_INPUT, "%s: %s: ambiguous document: mediaType '%s', its "
                       "descriptor says '%s'", s->path, file, mt, desc_media);
    return 0;
}

/* The top of an index: an object, schemaVersion 2, a "manifests" array
 * (image-index.md), unambiguous.  Returns the array, or NULL with E set. */
static const struct sp_node *index_manifests(struct image_store *s, const struct sp_node *idx,
                                             const char *file, const char *desc_media,
                                             struct sp_error *e)
{
    if (idx->kind != SP_NODE_MAP) {
        sp_fail(e, SP_EXIT_INPUT, "%s: %s: not a JSON object", s->path, file);
        return NULL;
    }
    const struct sp_node *sv = sp_node_get(idx, "schemaVersion", NULL);
    if (sv == NULL || sv->kind != SP_NODE_SCALAR || sv->quoted || strcmp(sv->value, "2") != 0) {
        sp_fail(e, SP_EXIT_INPUT, "%s: %s: schemaVersion is not 2", s->path, file);
        return NULL;
    }
    const struct sp_node *ms = sp_node_get(idx, "manifests", NULL);
    if (ms == NULL || ms->kind != SP_NODE_SEQ) {
        sp_fail(e, SP_EXIT_INPUT, "%s: %s: no \"manifests\" array", s->path, file);
        return NULL;
    }
    if (unambiguous(s, idx, file, 1, desc_media, e) != 0)
        return NULL;
    return ms;
}

/* Collect the image manifests an index names (image-index.md), following
 * nested indexes; REF is inherited from the parent entry.  *SEEN counts the
 * descriptors of every index visited, bounded by l->descriptors_max. */
static int collect(struct image_store *s, const struct sp_node *idx, const char *file,
                   const char *desc_media, const char *ref, const char *ref2, int depth,
                   const struct image_limits *l, size_t *seen, struct cands *out,
                   struct sp_error *e)
{
    const struct sp_node *ms = index_manifests(s, idx, file, desc_media, e);
    if (ms == NULL)
        return -1;
    if (ms->count > l->descriptors_max - *seen)
        return sp_fail(e, SP_EXIT_INPUT, "%s: %s: more than %zu descriptors in the image "
                       "indexes", s->path, file, l->descriptors_max);
    *seen += ms->count;
    for (size_t i = 0; i < ms->count; i++) {
        struct desc d;
        if (parse_desc(ms->items[i], file, &d, e) != 0)
            return -1;
        const char *r = d.ref ? d.ref : ref, *r2 = d.ref ? d.ref2 : ref2;
        if (is_index_type(d.media)) {
            if (depth + 1 >= SP_IMAGE_INDEX_DEPTH_MAX)
                return sp_fail(e, SP_EXIT_INPUT, "%s: %s: indexes nested deeper than %d",
                               s->path, file, SP_IMAGE_INDEX_DEPTH_MAX);
            struct sp_node *sub = read_blob_json(s, d.digest, d.size, l, NULL, NULL, e);
            if (sub == NULL)
                return -1;
            int rc = collect(s, sub, d.digest, d.media, r, r2, depth + 1, l, seen, out, e);
            sp_node_free(sub);
            if (rc != 0)
                return -1;
        } else if (is_manifest_type(d.media)) {
            if (d.os && strcmp(d.os, "unknown") == 0)
                continue;           /* attestation manifests (buildx) */
            if (cands_add(out, &d, r, r2) != 0)
                return sp_fail(e, SP_EXIT_INPUT, "%s: out of memory", s->path);
        }
    }
    return 0;
}

/* Does REF (a ref name, containerd name or RepoTag) name TAG? */
static int tag_matches(const char *ref, const char *tag)
{
    if (ref == NULL)
        return 0;
    if (strcmp(ref, tag) == 0)
        return 1;
    char buf[SP_ROOT_PATH_MAX];
    /* a cut name could equal another ref: compare only whole names */
    int n = snprintf(buf, sizeof buf, "docker.io/%s", tag);
    if (n > 0 && (size_t)n < sizeof buf && strcmp(ref, buf) == 0)
        return 1;
    n = snprintf(buf, sizeof buf, "docker.io/library/%s", tag);
    if (n > 0 && (size_t)n < sizeof buf && strcmp(ref, buf) == 0)
        return 1;
    if (strpbrk(tag, ":/@") == NULL) {
        const char *slash = strrchr(ref, '/');
        const char *colon = strrchr(slash ? slash : ref, ':');
        if (colon && strcmp(colon + 1, tag) == 0)
            return 1;
    }
    return 0;
}

struct platform {
    char os[64], arch[64], variant[64];
};

static const char *go_arch(const char *machine)
{
    static const struct { const char *m, *g; } map[] = {
        { "x86_64", "amd64" }, { "aarch64", "arm64" }, { "armv7l", "arm" },
        { "i686", "386" }, { "i386", "386" }, { "ppc64le", "ppc64le" },
        { "s390x", "s390x" }, { "riscv64", "riscv64" },
    };
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (strcmp(machine, map[i].m) == 0)
            return map[i].g;
    return machine;
}

static int parse_platform(const char *s, struct platform *p, struct sp_error *e)
{
    memset(p, 0, sizeof *p);
    if (s == NULL) {
        struct utsname u;
        snprintf(p->os, sizeof p->os, "linux");
        if (uname(&u) == 0)
            snprintf(p->arch, sizeof p->arch, "%.63s", go_arch(u.machine));
        return 0;
    }
    const char *a = strchr(s, '/');
    const char *v = a ? strchr(a + 1, '/') : NULL;
    if (a == NULL || a == s || a[1] == '\0' || a[1] == '/' || (v && (v[1] == '\0' || strchr(v + 1, '/'))) ||
        (size_t)(a - s) >= sizeof p->os || strlen(a + 1) >= sizeof p->arch)
        return sp_fail(e, SP_EXIT_USAGE, "probe: platform '%s' is not os/arch[/variant]", s);
    snprintf(p->os, sizeof p->os, "%.*s", (int)(a - s), s);
    snprintf(p->arch, sizeof p->arch, "%.*s", (int)(v ? v - a - 1 : (long)strlen(a + 1)), a + 1);
    if (v)
        snprintf(p->variant, sizeof p->variant, "%s", v + 1);
    return 0;
}

int image_check_platform(const char *platform, struct sp_error *e)
{
    struct platform p;
    return platform ? parse_platform(platform, &p, e) : 0;
}

static int platform_matches(const struct platform *p, const char *os, const char *arch,
                            const char *variant)
{
    if (os == NULL || arch == NULL)
        return 0;
    if (strcmp(p->os, os) != 0 || strcmp(p->arch, arch) != 0)
        return 0;
    return p->variant[0] == '\0' || (variant && strcmp(p->variant, variant) == 0);
}

static void list_refs(const struct cands *c, char *out, size_t outsz)
{
    size_t o = 0;
    out[0] = '\0';
    for (size_t i = 0; i < c->n && o + 1 < outsz; i++) {
        int n = snprintf(out + o, outsz - o, "%s%s", o ? ", " : "",
                         c->v[i].ref ? c->v[i].ref : "(untagged)");
        if (n < 0)
            break;
        o += (size_t)n < outsz - o ? (size_t)n : outsz - o - 1;
    }
}

static void describe_platform(const struct cand *c, char *out, size_t outsz)
{
    snprintf(out, outsz, "%s/%s%s%s", c->os ? c->os : "?", c->arch ? c->arch : "?",
             c->variant ? "/" : "", c->variant ? c->variant : "");
}

/* Narrow C to one candidate by TAG and platform P; *WHICH is its index. */
static int choose(struct image_store *s, const char *file, struct cands *c, const char *tag,
                  const struct platform *p, int explicit_platform, size_t *which,
                  struct sp_error *e)
{
    char list[512];
    size_t total = c->n;
    if (c->n == 0)
        return sp_fail(e, SP_EXIT_INPUT, "%s: %s: no images", s->path, file);
    if (tag) {
        size_t w = 0;
        for (size_t i = 0; i < c->n; i++) {
            if (tag_matches(c->v[i].ref, tag) || tag_matches(c->v[i].ref2, tag)) {
                struct cand t = c->v[w];
                c->v[w++] = c->v[i];
                c->v[i] = t;
            }
        }
        if (w == 0) {
            list_refs(c, list, sizeof list);
            return sp_fail(e, SP_EXIT_INPUT, "%s: no image tagged '%s' (tags: %s)", s->path,
                           tag, list);
        }
        for (size_t i = w; i < c->n; i++) {
            free(c->v[i].ref2);
            free(c->v[i].ref);
            free(c->v[i].os);
            free(c->v[i].arch);
            free(c->v[i].variant);
        }
        c->n = w;
    }
    *which = 0;
    if (c->n > 1 || (explicit_platform && c->v[0].os)) {
        /* an entry without a platform in its descriptor may be any: it
         * stays a candidate */
        size_t match = 0, found = 0, known = 0;
        for (size_t i = 0; i < c->n; i++) {
            known += c->v[i].os != NULL;
            if (c->v[i].os == NULL ||
                platform_matches(p, c->v[i].os, c->v[i].arch, c->v[i].variant)) {
                if (found++ == 0)
                    match = i;
            }
        }
        if (found == 0) {
            size_t o = 0;
            list[0] = '\0';
            for (size_t i = 0; i < c->n && o + 64 < sizeof list; i++) {
                char pl[200];
                describe_platform(&c->v[i], pl, sizeof pl);
                o += (size_t)snprintf(list + o, sizeof list - o, "%s%.60s", o ? ", " : "", pl);
            }
            return sp_fail(e, SP_EXIT_INPUT, "%s: no image for platform %s/%s%s%s (have: %s)",
                           s->path, p->os, p->arch, p->variant[0] ? "/" : "", p->variant, list);
        }
        if (found > 1) {
            list_refs(c, list, sizeof list);
            return sp_fail(e, SP_EXIT_INPUT, "%s: %zu images match%s; name one with :TAG "
                           "(tags: %s)", s->path, found, known ? " the platform" : "", list);
        }
        *which = match;
    }
    (void)total;
    return 0;
}

/* ---- plan ---- */

static enum layer_compression layer_comp(const char *mt)
{
    if (mt == NULL)
        return COMP_SNIFF;
    size_t n = strlen(mt);
    if ((n > 5 && strcmp(mt + n - 5, "+gzip") == 0) || (n > 9 && strcmp(mt + n - 9, ".tar.gzip") == 0))
        return COMP_GZIP;
    if (n > 5 && strcmp(mt + n - 5, "+zstd") == 0)
        return COMP_ZSTD;
    if (n > 4 && strcmp(mt + n - 4, ".tar") == 0)
        return COMP_NONE;
    return COMP_SNIFF - 1;      /* unknown */
}

/* Parse config.md's fields we need: os, architecture, variant and
 * rootfs.diff_ids, into PLAN (layers already allocated, NL of them). */
static int parse_config(struct image_store *s, const char *file, const struct sp_node *cfg,
                        struct image_plan *plan, struct sp_error *e)
{
    const char *os = str_at(cfg, "os"), *arch = str_at(cfg, "architecture");
    if (os == NULL || arch == NULL)
        return sp_fail(e, SP_EXIT_INPUT, "%s: %s: config without os and architecture", s->path,
                       file);
    plan->os = strdup(os);
    plan->architecture = strdup(arch);
    plan->variant = dup_or_null(str_at(cfg, "variant"));
    const struct sp_node *rootfs = sp_node_get(cfg, "rootfs", NULL);
    const struct sp_node *ids = rootfs ? sp_node_get(rootfs, "diff_ids", NULL) : NULL;
    if (rootfs == NULL || rootfs->kind != SP_NODE_MAP || str_at(rootfs, "type") == NULL ||
        strcmp(str_at(rootfs, "type"), "layers") != 0 || ids == NULL || ids->kind != SP_NODE_SEQ)
        return sp_fail(e, SP_EXIT_INPUT, "%s: %s: config without rootfs.type \"layers\" and "
                       "rootfs.diff_ids", s->path, file);
    if (ids->count != plan->nlayers)
        return sp_fail(e, SP_EXIT_INPUT, "%s: %s: config lists %zu diff_ids for %zu layers",
                       s->path, file, ids->count, plan->nlayers);
    for (size_t i = 0; i < ids->count; i++) {
        const struct sp_node *d = ids->items[i];
        if (d->kind != SP_NODE_SCALAR || !d->quoted || !sp_digest_valid(d->value))
            return sp_fail(e, SP_EXIT_INPUT, "%s:%zu: %s: diff_id %zu is not sha256:<64 hex>",
                           file, d->line, s->path, i);
        snprintf(plan->layers[i].want_diff_id, sizeof plan->layers[i].want_diff_id, "%s",
                 d->value);
    }
    if (plan->os == NULL || plan->architecture == NULL)
        return sp_fail(e, SP_EXIT_INPUT, "%s: out of memory", s->path);
    return 0;
}

static int alloc_layers(struct image_plan *plan, size_t n, const struct image_limits *l,
                        const char *path, struct sp_error *e)
{
    if (n > l->layers_max)
        return sp_fail(e, SP_EXIT_INPUT, "%s: %zu layers, more than %zu", path, n, l->layers_max);
    plan->layers = calloc(n ? n : 1, sizeof *plan->layers);
    if (plan->layers == NULL)
        return sp_fail(e, SP_EXIT_INPUT, "%s: out of memory", path);
    plan->nlayers = n;
    for (size_t i = 0; i < n; i++) {
        plan->layers[i].index = i;
        plan->layers[i].blob.fd = -1;
        plan->layers[i].want_size = -1;
    }
    return 0;
}

/* *MALFORMED is set to 1 when index.json itself is not an image index
 * (unparsable, or no "manifests" array: what Docker 25.0.0 and 25.0.1 wrote
 * into `docker save` archives), before anything else is read. */
/* The layers of manifest MFILE (descriptors LAYERS; DIGEST names the
 * manifest in messages) located in the layout, into PLAN. */
static int oci_layers(struct image_store *s, const struct sp_node *layers, const char *mfile,
                      const char *digest, const struct image_limits *l,
                      struct image_plan *plan, struct sp_error *e)
{
    if (alloc_layers(plan, layers->count, l, s->path, e) != 0)
        return -1;
    for (size_t i = 0; i < layers->count; i++) {
        struct desc ld;
        struct image_layer *ly = &plan->layers[i];
        if (parse_desc(layers->items[i], mfile, &ld, e) != 0)
            return -1;
        ly->comp = layer_comp(ld.media);
        if ((int)ly->comp < 0)
            return sp_fail(e, SP_EXIT_INPUT, "%s: %s: layer %zu has media type '%.100s', not "
                           "a tar (uncompressed, gzip or zstd)", s->path, mfile, i, ld.media);
        snprintf(ly->want_digest, sizeof ly->want_digest, "%s", ld.digest);
        ly->want_size = ld.size;
        if (asprintf(&ly->name, "blobs/sha256/%s", ld.digest + 7) < 0) {
            ly->name = NULL;
            return sp_fail(e, SP_EXIT_INPUT, "%s: out of memory", s->path);
        }
        if (image_store_find(s, ly->name, &ly->blob) != 0)
            return sp_fail(e, SP_EXIT_INPUT, "%s: %s: %s (layer %zu of manifest %s)", s->path,
                           ly->name, errno == ENOENT ? "missing" : strerror(errno), i, digest);
    }
    return 0;
}

/* The image manifest CH names (image-spec manifest.md), parsed into *MAN
 * (the caller frees it, also on error): verified, its config descriptor
 * into *CD (borrowed from *MAN), its layers into PLAN.  -1 with E set. */
static int oci_manifest(struct image_store *s, const struct cand *ch,
                        const struct image_limits *l, struct image_plan *plan,
                        struct sp_node **man_out, struct desc *cd, struct sp_error *e)
{
    struct sp_node *man = *man_out = read_blob_json(s, ch->digest, ch->size, l, NULL, NULL, e);
    if (man == NULL)
        return -1;
    char mfile[128];
    snprintf(mfile, sizeof mfile, "blobs/sha256/%s", ch->digest + 7);
    if (unambiguous(s, man, mfile, 0, ch->media, e) != 0)
        return -1;
    const struct sp_node *sv = sp_node_get(man, "schemaVersion", NULL);
    const struct sp_node *layers = sp_node_get(man, "layers", NULL);
    if (sv == NULL || sv->kind != SP_NODE_SCALAR || sv->quoted || strcmp(sv->value, "2") != 0 ||
        layers == NULL || layers->kind != SP_NODE_SEQ)
        return sp_fail(e, SP_EXIT_INPUT, "%s: %s: not an image manifest (schemaVersion 2, "
                       "layers)", s->path, mfile);
    if (parse_desc(sp_node_get(man, "config", NULL), mfile, cd, e) != 0)
        return -1;
    snprintf(plan->config_digest, sizeof plan->config_digest, "%s", cd->digest);
    return oci_layers(s, layers, mfile, ch->digest, l, plan, e);
}

/* The config CD names (image-spec config.md) into PLAN; its platform
 * checked when the user named one. */
static int oci_config(struct image_store *s, const struct desc *cd, const struct platform *p,
                      int explicit_platform, const struct image_limits *l,
                      struct image_plan *plan, struct sp_error *e)
{
    struct sp_node *cfg = read_blob_json(s, cd->digest, cd->size, l, NULL, NULL, e);
    if (cfg == NULL)
        return -1;
    char cfile[128];
    snprintf(cfile, sizeof cfile, "blobs/sha256/%s", cd->digest + 7);
    int rc = parse_config(s, cfile, cfg, plan, e);
    sp_node_free(cfg);
    if (rc == 0 && explicit_platform &&
        !platform_matches(p, plan->os, plan->architecture, plan->variant))
        rc = sp_fail(e, SP_EXIT_INPUT, "%s: the image is %s/%s, not the platform asked for "
                     "(%s/%s%s%s)", s->path, plan->os, plan->architecture, p->os, p->arch,
                     p->variant[0] ? "/" : "", p->variant);
    return rc;
}

/* An OCI image layout (image-layout.md, image-index.md): choose the image
 * from index.json (and the indexes it names) by TAG and platform P, and
 * read its manifest and config into PLAN.  *MALFORMED is set when
 * index.json itself cannot be read as an index. */
static int plan_oci(struct image_store *s, const char *tag, const struct platform *p,
                    int explicit_platform, const struct image_limits *l,
                    struct image_plan *plan, int *malformed, struct sp_error *e)
{
    char *buf = NULL;
    size_t len;
    struct cands c = { 0 };
    struct sp_node *idx = NULL, *man = NULL;
    int rc = -1;
    size_t which, seen = 0;

    *malformed = 0;
    if (image_store_read(s, "index.json", l->json_max, &buf, &len, e) != 0)
        return -1;
    idx = sp_node_parse(buf, len, "index.json", e);
    free(buf);
    if (idx == NULL || index_manifests(s, idx, "index.json", NULL, e) == NULL) {
        *malformed = 1;
        goto out;
    }
    if (collect(s, idx, "index.json", NULL, NULL, NULL, 0, l, &seen, &c, e) != 0 ||
        choose(s, "index.json", &c, tag, p, explicit_platform, &which, e) != 0)
        goto out;
    const struct cand *ch = &c.v[which];
    if (c.n > 1) {
        char pl[200], note[512];
        describe_platform(ch, pl, sizeof pl);
        snprintf(note, sizeof note, "%zu of %zu: %s%s%s, manifest %s", which + 1, c.n, pl,
                 ch->ref ? ", tag " : "", ch->ref ? ch->ref : "", ch->digest);
        plan->choice = strdup(note);
    }
    plan->ref = dup_or_null(ch->ref);
    plan->manifest_source = "oci-index";
    plan->evidence = strdup("index.json");
    snprintf(plan->manifest_digest, sizeof plan->manifest_digest, "%s", ch->digest);
    struct desc cd;
    if (oci_manifest(s, ch, l, plan, &man, &cd, e) == 0 &&
        oci_config(s, &cd, p, explicit_platform, l, plan, e) == 0)
        rc = 0;
out:
    sp_node_free(idx);
    sp_node_free(man);
    cands_free(&c);
    return rc;
}

/* The 64 hex of a content-addressed name ("<hex>.json", "blobs/sha256/<hex>"),
 * or NULL. */
static const char *hex_of_name(const char *name, char out[SP_SHA256_HEX_LEN + 1])
{
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    size_t n = strspn(base, "0123456789abcdef");
    if (n != 64)
        return NULL;
    if (base[64] != '\0' && strcmp(base + 64, ".json") != 0)
        return NULL;
    memcpy(out, base, 64);
    out[64] = '\0';
    return out;
}

static int safe_member_name(const char *n)
{
    char tmp[SP_ROOT_PATH_MAX];
    const char *why;
    /* the default name bound whatever the caller's limits: itree_normalise
     * reads only name_max */
    const struct image_limits l = { .name_max = SP_IMAGE_NAME_MAX };
    return n && itree_normalise(n, &l, tmp, sizeof tmp, &why) == 0 && tmp[0];
}

/* Build the manifest a registry would hold for a docker-save image the way
 * containers/image does (skopeo inspect --raw docker-archive:...): Docker
 * schema 2, layers by diff_id with the stored layer's size.  Not the
 * registry's digest: that depends on how the registry compresses. */
static int synthesise_manifest(struct image_plan *plan, uint64_t config_size,
                               struct sp_error *e, const char *path)
{
    json_t *m = json_object(), *cfg = json_object(), *ls = json_array();
    int rc = -1;
    if (m == NULL || cfg == NULL || ls == NULL)
        goto out;
    json_object_set_new(m, "schemaVersion", json_integer(2));
    json_object_set_new(m, "mediaType", json_string(MT_DOCKER_MANIFEST));
    json_object_set_new(cfg, "mediaType", json_string(MT_DOCKER_CONFIG));
    json_object_set_new(cfg, "size", json_integer((json_int_t)config_size));
    json_object_set_new(cfg, "digest", json_string(plan->config_digest));
    json_object_set(m, "config", cfg);
    for (size_t i = 0; i < plan->nlayers; i++) {
        json_t *d = json_object();
        if (d == NULL)
            goto out;
        json_object_set_new(d, "mediaType", json_string(MT_DOCKER_LAYER));
        json_object_set_new(d, "size", json_integer((json_int_t)plan->layers[i].blob.size));
        json_object_set_new(d, "digest", json_string(plan->layers[i].want_diff_id));
        json_array_append_new(ls, d);
    }
    json_object_set(m, "layers", ls);
    char *text = json_dumps(m, JSON_COMPACT | JSON_PRESERVE_ORDER);
    if (text == NULL)
        goto out;
    image_sha256_digest(text, strlen(text), plan->manifest_digest);
    free(text);
    rc = 0;
out:
    json_decref(m);
    json_decref(cfg);
    json_decref(ls);
    if (rc)
        sp_fail(e, SP_EXIT_INPUT, "%s: out of memory", path);
    return rc;
}

/* The RepoTags entry of manifest.json entry ENT that TAG names, or NULL. */
static const char *entry_tag(const struct sp_node *ent, const char *tag)
{
    const struct sp_node *tags = sp_node_get(ent, "RepoTags", NULL);
    if (tags == NULL || tags->kind != SP_NODE_SEQ)
        return NULL;
    for (size_t t = 0; t < tags->count; t++)
        if (tags->items[t]->kind == SP_NODE_SCALAR && tags->items[t]->quoted &&
            tag_matches(tags->items[t]->value, tag))
            return tags->items[t]->value;
    return NULL;
}

/* manifest.json of a `docker save` archive, parsed: a non-empty array of at
 * most L->descriptors_max entries.  NULL with E set. */
static struct sp_node *docker_manifest(struct image_store *s, const struct image_limits *l,
                                       struct sp_error *e)
{
    const char *F = "manifest.json";
    char *buf = NULL;
    size_t len;
    if (image_store_read(s, F, l->json_max, &buf, &len, e) != 0)
        return NULL;
    struct sp_node *doc = sp_node_parse(buf, len, F, e);
    free(buf);
    if (doc == NULL)
        return NULL;
    if (doc->kind != SP_NODE_SEQ)
        sp_fail(e, SP_EXIT_INPUT, "%s: %s: not a JSON array", s->path, F);
    else if (doc->count == 0)
        sp_fail(e, SP_EXIT_INPUT, "%s: %s: no images", s->path, F);
    else if (doc->count > l->descriptors_max)
        sp_fail(e, SP_EXIT_INPUT, "%s: %s: more than %zu entries", s->path, F,
                l->descriptors_max);
    else
        return doc;
    sp_node_free(doc);
    return NULL;
}

/* The entry of manifest.json chosen so far. */
struct docker_pick {
    size_t chosen;                /* index into manifest.json */
    const char *ref;              /* its tag, or NULL (borrowed from the document) */
    size_t matches;               /* entries TAG names (all entries when no TAG) */
    char alltags[512];            /* every tag, for messages (cut when long) */
};

/* Scan entry ENT's RepoTags: its first tag (*FIRST), the one TAG names
 * (*HIT), every tag appended to K->alltags. */
static void docker_entry_tags(const struct sp_node *ent, const char *tag, struct docker_pick *k,
                              size_t *o, const char **first, const char **hit)
{
    const struct sp_node *tags = sp_node_get(ent, "RepoTags", NULL);
    *first = *hit = NULL;
    if (tags == NULL || tags->kind != SP_NODE_SEQ)
        return;
    for (size_t t = 0; t < tags->count; t++) {
        const struct sp_node *tv = tags->items[t];
        if (tv->kind != SP_NODE_SCALAR || !tv->quoted)
            continue;
        if (*first == NULL)
            *first = tv->value;
        if (tag && *hit == NULL && tag_matches(tv->value, tag))
            *hit = tv->value;
        if (*o + 1 < sizeof k->alltags) {
            int n = snprintf(k->alltags + *o, sizeof k->alltags - *o, "%s%s", *o ? ", " : "",
                             tv->value);
            if (n > 0)
                *o += (size_t)n < sizeof k->alltags - *o ? (size_t)n : sizeof k->alltags - *o - 1;
        }
    }
}

/* The candidates: entries whose RepoTags match TAG (all when no TAG); the
 * first of them into K.  -1 with E set for an entry that is not an object
 * or a TAG no entry has. */
static int docker_by_tag(struct image_store *s, const struct sp_node *doc, const char *tag,
                         struct docker_pick *k, struct sp_error *e)
{
    size_t o = 0;
    k->chosen = (size_t)-1;
    k->ref = NULL;
    k->matches = 0;
    k->alltags[0] = '\0';
    for (size_t i = 0; i < doc->count; i++) {
        const struct sp_node *ent = doc->items[i];
        if (ent->kind != SP_NODE_MAP)
            return sp_fail(e, SP_EXIT_INPUT, "manifest.json:%zu: %s: an entry is not an object",
                           ent->line, s->path);
        const char *first, *hit;
        docker_entry_tags(ent, tag, k, &o, &first, &hit);
        if ((tag == NULL || hit != NULL) && k->matches++ == 0) {
            k->chosen = i;
            k->ref = tag ? hit : first;
        }
    }
    if (tag && k->matches == 0)
        return sp_fail(e, SP_EXIT_INPUT, "%s: no image tagged '%s' (tags: %s)", s->path, tag,
                       k->alltags[0] ? k->alltags : "none");
    return 0;
}

/* Several candidates: the one whose config is for platform P (reading each
 * candidate's config), into K, and the note of the choice into PLAN.  -1
 * with E set when none or several match. */
static int docker_by_platform(struct image_store *s, const struct sp_node *doc, const char *tag,
                              const struct platform *p, const struct image_limits *l,
                              struct docker_pick *k, struct image_plan *plan, struct sp_error *e)
{
    size_t found = 0, pick = 0;
    for (size_t i = 0; i < doc->count; i++) {
        const char *cf = str_at(doc->items[i], "Config");
        if (cf == NULL || !safe_member_name(cf) || (tag && !entry_tag(doc->items[i], tag)))
            continue;
        char *buf;
        size_t len;
        if (image_store_read(s, cf, l->json_max, &buf, &len, e) != 0)
            return -1;
        struct sp_node *c = sp_node_parse(buf, len, cf, e);
        free(buf);
        if (c == NULL)
            return -1;
        if (platform_matches(p, str_at(c, "os"), str_at(c, "architecture"), str_at(c, "variant")))
            if (found++ == 0)
                pick = i;
        sp_node_free(c);
    }
    if (found != 1)
        return sp_fail(e, SP_EXIT_INPUT, "%s: %zu images %s platform %s/%s; name one with :TAG "
                       "(tags: %s)", s->path, found, found ? "match" : "for", p->os, p->arch,
                       k->alltags[0] ? k->alltags : "none");
    k->chosen = pick;
    const struct sp_node *tags = sp_node_get(doc->items[pick], "RepoTags", NULL);
    k->ref = tag ? entry_tag(doc->items[pick], tag)
           : tags && tags->kind == SP_NODE_SEQ && tags->count &&
             tags->items[0]->kind == SP_NODE_SCALAR ? tags->items[0]->value : NULL;
    char note[256];
    snprintf(note, sizeof note, "%zu of %zu entries of manifest.json: %s/%s", pick + 1,
             doc->count, p->os, p->arch);
    plan->choice = strdup(note);
    return 0;
}

/* The config blob CONFIG: its sha256 into PLAN (checked against the hex
 * its name holds, when it holds one), its size into *SIZE, parsed into
 * *CFG.  -1 with E set. */
static int docker_config(struct image_store *s, const char *config, const struct image_limits *l,
                         struct image_plan *plan, uint64_t *size, struct sp_node **cfg,
                         struct sp_error *e)
{
    char *buf;
    size_t len;
    char hex[SP_SHA256_HEX_LEN + 1];
    if (image_store_read(s, config, l->json_max, &buf, &len, e) != 0)
        return -1;
    image_sha256_digest(buf, len, plan->config_digest);
    if (hex_of_name(config, hex) && strcmp(plan->config_digest + 7, hex) != 0) {
        free(buf);
        return sp_fail(e, SP_EXIT_VERIFY, "%s: %s: sha256 is %s, its name says sha256:%s",
                       s->path, config, plan->config_digest, hex);
    }
    *size = len;
    *cfg = sp_node_parse(buf, len, config, e);
    free(buf);
    if (*cfg == NULL)
        return -1;
    if ((*cfg)->kind != SP_NODE_MAP)
        return sp_fail(e, SP_EXIT_INPUT, "%s: %s: not a JSON object", s->path, config);
    return 0;
}

/* The layers LAYERS (member names) located in the archive, into PLAN. */
static int docker_layers(struct image_store *s, const struct sp_node *layers,
                         const struct image_limits *l, struct image_plan *plan,
                         struct sp_error *e)
{
    const char *F = "manifest.json";
    char hex[SP_SHA256_HEX_LEN + 1];
    if (alloc_layers(plan, layers->count, l, s->path, e) != 0)
        return -1;
    for (size_t i = 0; i < layers->count; i++) {
        const struct sp_node *ln = layers->items[i];
        struct image_layer *ly = &plan->layers[i];
        if (ln->kind != SP_NODE_SCALAR || !ln->quoted || !safe_member_name(ln->value))
            return sp_fail(e, SP_EXIT_INPUT, "%s:%zu: %s: layer %zu is not a relative name "
                           "inside the archive", F, ln->line, s->path, i);
        /* the whole name is looked up (safe_member_name bounds it) */
        if ((ly->name = strdup(ln->value)) == NULL)
            return sp_fail(e, SP_EXIT_INPUT, "%s: out of memory", s->path);
        ly->comp = COMP_SNIFF;
        if (strncmp(ln->value, "blobs/sha256/", 13) == 0 && hex_of_name(ln->value, hex))
            snprintf(ly->want_digest, sizeof ly->want_digest, "sha256:%s", hex);
        if (image_store_find(s, ly->name, &ly->blob) != 0)
            return sp_fail(e, SP_EXIT_INPUT, "%s: %s: %s (layer %zu of %s)", s->path, ly->name,
                           errno == ENOENT ? "missing" : strerror(errno), i, F);
    }
    return 0;
}

/* The chosen entry ENT: its config and layers into PLAN, its platform
 * checked when the user named one, its manifest synthesised. */
static int docker_entry(struct image_store *s, const struct sp_node *ent, const char *ref,
                        const struct platform *p, int explicit_platform,
                        const struct image_limits *l, struct image_plan *plan,
                        struct sp_error *e)
{
    const char *F = "manifest.json";
    const char *config = str_at(ent, "Config");
    const struct sp_node *layers = sp_node_get(ent, "Layers", NULL);
    if (config == NULL || layers == NULL || layers->kind != SP_NODE_SEQ)
        return sp_fail(e, SP_EXIT_INPUT, "%s:%zu: %s: entry without Config and Layers", F,
                       ent->line, s->path);
    if (!safe_member_name(config))
        return sp_fail(e, SP_EXIT_INPUT, "%s: %s: Config '%.100s' is not a relative name "
                       "inside the archive", s->path, F, config);
    plan->ref = dup_or_null(ref);
    plan->manifest_source = "docker-archive";
    plan->evidence = strdup("manifest.json (synthesised)");
    struct sp_node *cfg = NULL;
    uint64_t config_size = 0;
    int rc = -1;
    if (docker_config(s, config, l, plan, &config_size, &cfg, e) != 0 ||
        docker_layers(s, layers, l, plan, e) != 0 ||
        parse_config(s, config, cfg, plan, e) != 0)
        goto out;
    if (explicit_platform && !platform_matches(p, plan->os, plan->architecture, plan->variant)) {
        sp_fail(e, SP_EXIT_INPUT, "%s: the image is %s/%s, not the platform asked for (%s/%s)",
                s->path, plan->os, plan->architecture, p->os, p->arch);
        goto out;
    }
    rc = synthesise_manifest(plan, config_size, e, s->path);
out:
    sp_node_free(cfg);
    return rc;
}

/* A `docker save` archive read through its manifest.json (Docker's image
 * save format): choose the entry by TAG, then by platform P when several
 * remain, and read it into PLAN. */
static int plan_docker(struct image_store *s, const char *tag, const struct platform *p,
                       int explicit_platform, const struct image_limits *l,
                       struct image_plan *plan, struct sp_error *e)
{
    struct sp_node *doc = docker_manifest(s, l, e);
    if (doc == NULL)
        return -1;
    struct docker_pick k;
    int rc = -1;
    if (docker_by_tag(s, doc, tag, &k, e) == 0 &&
        (k.matches <= 1 || docker_by_platform(s, doc, tag, p, l, &k, plan, e) == 0))
        rc = docker_entry(s, doc->items[k.chosen], k.ref, p, explicit_platform, l, plan, e);
    sp_node_free(doc);
    return rc;
}

int image_plan_open(struct image_store *s, const char *tag, const char *platform,
               int explicit_platform, const struct image_limits *l,
               struct image_plan *plan, struct sp_error *e)
{
    struct platform p;
    struct blob_ref b;
    memset(plan, 0, sizeof *plan);
    if (parse_platform(platform, &p, e) != 0)
        return -1;
    int has_index = image_store_find(s, "index.json", &b) == 0;
    if (has_index)
        close(b.fd);
    if (has_index) {
        char *lay;
        size_t len;
        if (image_store_read(s, "oci-layout", 4096, &lay, &len, e) != 0)
            return -1;
        json_error_t je;
        json_t *j = json_loadb(lay, len, JSON_REJECT_DUPLICATES, &je);
        const char *v = json_string_value(json_object_get(j, "imageLayoutVersion"));
        int ok = v && strncmp(v, "1.", 2) == 0;
        json_decref(j);
        free(lay);
        if (!ok)
            return sp_fail(e, SP_EXIT_INPUT, "%s: oci-layout: imageLayoutVersion is not 1.x",
                           s->path);
        int malformed;
        if (plan_oci(s, tag, &p, explicit_platform, l, plan, &malformed, e) == 0)
            return 0;
        /* a `docker save` archive whose OCI index is broken (Docker 25.0.0
         * and 25.0.1 wrote "manifests": null) is read through its
         * manifest.json, as docker load and skopeo's docker-archive
         * transport read it, and says so */
        if (!malformed || image_store_find(s, "manifest.json", &b) != 0)
            return -1;
        close(b.fd);
        char why[SP_ERROR_MSG_MAX];
        snprintf(why, sizeof why, "%s", e->msg);
        image_plan_free(plan);
        if (plan_docker(s, tag, &p, explicit_platform, l, plan, e) != 0)
            return -1;
        if (asprintf(&plan->warning, "image: the OCI index is malformed (%s); read through "
                     "manifest.json instead", why) < 0) {
            plan->warning = NULL;
            return sp_fail(e, SP_EXIT_INPUT, "%s: out of memory", s->path);
        }
        return 0;
    }
    if (image_store_find(s, "manifest.json", &b) == 0) {
        close(b.fd);
        return plan_docker(s, tag, &p, explicit_platform, l, plan, e);
    }
    return sp_fail(e, SP_EXIT_INPUT, "%s: neither index.json (OCI layout) nor manifest.json "
                   "(docker save) found", s->path);
}

void image_plan_free(struct image_plan *plan)
{
    free(plan->ref);
    free(plan->choice);
    free(plan->evidence);
    free(plan->os);
    free(plan->architecture);
    free(plan->variant);
    free(plan->warning);
    for (size_t i = 0; i < plan->nlayers; i++) {
        if (plan->layers[i].blob.fd >= 0)
            close(plan->layers[i].blob.fd);
        free(plan->layers[i].name);
        itree_free(plan->layers[i].delta);
    }
    free(plan->layers);
    memset(plan, 0, sizeof *plan);
}
