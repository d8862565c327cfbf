/* fingerprint/image_tree.c: the tree of an image's entries as the layers
 * describe them (names, types, modes, sizes; content only of kept files),
 * one delta per layer and the merge of deltas in order (OCI image-spec
 * layer.md: whiteouts ".wh.NAME" and opaque ".wh..wh..opq" hide entries of
 * LOWER layers only).  Never reads a file; itree_resolve() is the one
 * place that follows symlinks (for image_root.c and image_keep.c).
 *
 * A directory's children sit in an open-addressing hash table; a removed
 * child stays as a tombstone of type IN_GONE (its content freed) so the
 * table never needs deletion.
 */
#include "image_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t name_hash(const char *s)
{
    uint32_t h = 2166136261u;          /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

struct content_hdr {
    uint64_t refs;
};

char *image_content_alloc(uint64_t len)
{
    struct content_hdr *h = malloc(sizeof *h + len + 1);
    if (h == NULL)
        return NULL;
    h->refs = 1;
    return (char *)(h + 1);
}

char *image_content_ref(char *data)
{
    if (data)
        ((struct content_hdr *)data - 1)->refs++;
    return data;
}

void image_content_unref(char *data)
{
    if (data && --((struct content_hdr *)data - 1)->refs == 0)
        free((struct content_hdr *)data - 1);
}

static void inode_clear(struct inode *n);

static void inode_free(struct inode *n)
{
    if (n == NULL)
        return;
    inode_clear(n);
    free(n->name);
    free(n);
}

/* Free everything N holds but its name: it becomes IN_GONE. */
static void inode_clear(struct inode *n)
{
    for (uint32_t i = 0; i < n->cap; i++)
        inode_free(n->kids[i]);
    free(n->kids);
    for (uint32_t i = 0; i < n->nwh; i++)
        free(n->wh[i]);
    free(n->wh);
    image_content_unref(n->data);
    free(n->link);
    n->kids = NULL;
    n->wh = NULL;
    n->data = n->link = NULL;
    n->nkids = n->cap = n->nwh = n->capwh = 0;
    n->kept = n->size = 0;
    n->opaque = n->explicit_dir = n->beneath = 0;
    n->layer = 0;
    n->type = IN_GONE;
}

struct inode *itree_kid(const struct inode *dir, const char *name)
{
    if (dir->cap == 0)
        return NULL;
    uint32_t m = dir->cap - 1;
    for (uint32_t i = name_hash(name) & m;; i = (i + 1) & m) {
        struct inode *k = dir->kids[i];
        if (k == NULL)
            return NULL;
        if (strcmp(k->name, name) == 0)
            return k;
    }
}

static int kids_grow(struct inode *dir)
{
    uint32_t ncap = dir->cap ? dir->cap * 2 : 8;
    struct inode **nk = calloc(ncap, sizeof *nk);
    if (nk == NULL)
        return -1;
    for (uint32_t i = 0; i < dir->cap; i++) {
        struct inode *k = dir->kids[i];
        if (k == NULL)
            continue;
        uint32_t j = name_hash(k->name) & (ncap - 1);
        while (nk[j])
            j = (j + 1) & (ncap - 1);
        nk[j] = k;
    }
    free(dir->kids);
    dir->kids = nk;
    dir->cap = ncap;
    return 0;
}

/* The child NAME of DIR, created as a tombstone when absent (counted in
 * T's entries).  NULL with errno. */
static struct inode *kid_slot(struct itree *t, struct inode *dir, const char *name)
{
    struct inode *k = itree_kid(dir, name);
    if (k)
        return k;
    if (t->entries >= t->limits->entries_max) {
        errno = E2BIG;
        return NULL;
    }
    if ((uint64_t)(dir->nkids + 1) * 2 > dir->cap && kids_grow(dir) != 0)
        return NULL;
    k = calloc(1, sizeof *k);
    if (k == NULL || (k->name = strdup(name)) == NULL) {
        free(k);
        errno = ENOMEM;
        return NULL;
    }
    uint32_t m = dir->cap - 1, i = name_hash(name) & m;
    while (dir->kids[i])
        i = (i + 1) & m;
    dir->kids[i] = k;
    dir->nkids++;
    t->entries++;
    return k;
}

/* Put NODE (whose name DIR does not hold) into DIR's table.  -1 on ENOMEM. */
static int kid_insert(struct inode *dir, struct inode *node)
{
    if ((uint64_t)(dir->nkids + 1) * 2 > dir->cap && kids_grow(dir) != 0)
        return -1;
    uint32_t m = dir->cap - 1, i = name_hash(node->name) & m;
    while (dir->kids[i])
        i = (i + 1) & m;
    dir->kids[i] = node;
    dir->nkids++;
    return 0;
}

/* The table slot holding NAME in DIR, or NULL. */
static struct inode **kid_ref(struct inode *dir, const char *name)
{
    if (dir->cap == 0)
        return NULL;
    uint32_t m = dir->cap - 1;
    for (uint32_t i = name_hash(name) & m;; i = (i + 1) & m) {
        if (dir->kids[i] == NULL)
            return NULL;
        if (strcmp(dir->kids[i]->name, name) == 0)
            return &dir->kids[i];
    }
}

struct itree *itree_new(const struct image_limits *l)
{
    struct itree *t = calloc(1, sizeof *t);
    if (t == NULL)
        return NULL;
    t->root.type = IN_DIR;
    t->root.mode = 0755;
    t->limits = l;
    return t;
}

void itree_free(struct itree *t)
{
    if (t == NULL)
        return;
    inode_clear(&t->root);
    for (size_t i = 0; i < t->npending; i++)
        free(t->pending[i]);
    free(t->pending);
    free(t);
}

int itree_normalise(const char *name, const struct image_limits *l, char *out,
                    size_t outsz, const char **why)
{
    size_t n = strlen(name);
    if (n > l->name_max || n >= outsz) {
        *why = "name longer than the limit";
        return -1;
    }
    if (name[0] == '/') {
        *why = "absolute entry name";
        return -1;
    }
    size_t o = 0;
    const char *p = name;
    while (*p) {
        size_t c = strcspn(p, "/");
        if (c == 2 && p[0] == '.' && p[1] == '.') {
            *why = "entry name with a '..' component";
            return -1;
        }
        if (c > 0 && !(c == 1 && p[0] == '.')) {
            if (o)
                out[o++] = '/';
            memcpy(out + o, p, c);
            o += c;
        }
        p += c;
        while (*p == '/')
            p++;
    }
    out[o] = '\0';
    return 0;
}

/* Walk PATH from T's root creating directories; returns the parent
 * directory node and points *BASE at the last component.  PATH is
 * normalised and non-empty.  NULL with errno. */
static struct inode *walk_parent(struct itree *t, const char *path, char *buf,
                                 size_t bufsz, const char **base)
{
    struct inode *dir = &t->root;
    snprintf(buf, bufsz, "%s", path);
    char *p = buf;
    for (;;) {
        char *slash = strchr(p, '/');
        if (slash == NULL)
            break;
        *slash = '\0';
        struct inode *k = kid_slot(t, dir, p);
        if (k == NULL)
            return NULL;
        if (k->type == IN_GONE) {
            k->type = IN_DIR;           /* an implicit parent */
            k->mode = 0755;
        } else if (k->type != IN_DIR) {
            /* a symlink, file or hard link of this layer: a runtime would
             * write through the link (or fail), never turn it into a
             * directory */
            errno = ENOTDIR;
            return NULL;
        }
        if (!k->explicit_dir)
            k->beneath = 1;
        dir = k;
        p = slash + 1;
    }
    *base = p;
    return dir;
}

struct inode *itree_add(struct itree *t, const char *path, enum inode_type type)
{
    char buf[SP_ROOT_PATH_MAX + 1];
    const char *base;
    if (path[0] == '\0')
        return type == IN_DIR ? &t->root : (errno = EINVAL, NULL);
    struct inode *dir = walk_parent(t, path, buf, sizeof buf, &base);
    if (dir == NULL)
        return NULL;
    struct inode *k = kid_slot(t, dir, base);
    if (k == NULL)
        return NULL;
    if (!(type == IN_DIR && k->type == IN_DIR)) {
        inode_clear(k);               /* a later entry replaces an earlier one */
        k->type = (uint8_t)type;
    }
    if (type == IN_DIR)
        k->explicit_dir = 1;
    return k;
}

int itree_whiteout(struct itree *t, const char *dirpath, const char *name)
{
    /* DIRPATH is a parent here, as in a runtime: made implicitly, never
     * replacing what the layer put there */
    char buf[SP_ROOT_PATH_MAX + 3], probe[SP_ROOT_PATH_MAX + 3];
    const char *base;
    struct inode *dir = &t->root;
    if (dirpath[0]) {
        if (snprintf(probe, sizeof probe, "%s/x", dirpath) >= (int)sizeof probe) {
            errno = ENAMETOOLONG;
            return -1;
        }
        if ((dir = walk_parent(t, probe, buf, sizeof buf, &base)) == NULL)
            return -1;
    }
    if (name == NULL) {
        dir->opaque = 1;
        return 0;
    }
    if (t->entries >= t->limits->entries_max) {
        errno = E2BIG;
        return -1;
    }
    if (dir->nwh == dir->capwh) {
        uint32_t nc = dir->capwh ? dir->capwh * 2 : 4;
        char **nw = realloc(dir->wh, nc * sizeof *nw);
        if (nw == NULL)
            return -1;
        dir->wh = nw;
        dir->capwh = nc;
    }
    if ((dir->wh[dir->nwh] = strdup(name)) == NULL)
        return -1;
    dir->nwh++;
    t->entries++;
    return 0;
}

struct inode *itree_lookup(struct itree *t, const char *path)
{
    struct inode *n = &t->root;
    const char *p = path;
    char comp[SP_ROOT_PATH_MAX];
    while (*p) {
        size_t c = strcspn(p, "/");
        if (c >= sizeof comp || n->type != IN_DIR)
            return NULL;
        memcpy(comp, p, c);
        comp[c] = '\0';
        n = itree_kid(n, comp);
        if (n == NULL || n->type == IN_GONE)
            return NULL;
        p += c;
        while (*p == '/')
            p++;
    }
    return n;
}

int itree_resolve(struct itree *t, const char *path, int follow, struct itree_resolved *rs)
{
    static __thread char bufs[2][SP_ROOT_PATH_MAX * 2 + 2];
    int which = 0, links = 0;
    if (root_check_path(path) != 0)
        return -1;
    snprintf(bufs[0], sizeof bufs[0], "%s", path);
    const char *p = bufs[0];
    rs->stack[0] = &t->root;
    rs->depth = 1;
    for (;;) {
        while (*p == '/')
            p++;
        if (*p == '\0')
            break;
        size_t cl = strcspn(p, "/");
        char comp[SP_ROOT_PATH_MAX];
        if (cl >= sizeof comp) {
            errno = ENAMETOOLONG;
            return -1;
        }
        memcpy(comp, p, cl);
        comp[cl] = '\0';
        p += cl;
        const char *after = p;
        while (*after == '/')
            after++;
        int last = *after == '\0';
        int trailing = last && *p == '/';
        if (strcmp(comp, ".") == 0)
            continue;
        if (strcmp(comp, "..") == 0) {
            if (rs->depth > 1)
                rs->depth--;
            continue;
        }
        struct inode *dir = rs->stack[rs->depth - 1];
        if (dir->type != IN_DIR) {
            errno = ENOTDIR;
            return -1;
        }
        struct inode *k = itree_kid(dir, comp);
        if (k == NULL || k->type == IN_GONE) {
            errno = ENOENT;
            return -1;
        }
        if (k->type == IN_LINK && (!last || follow || trailing)) {
            if (++links > SP_IMAGE_LINKS_MAX) {
                errno = ELOOP;
                return -1;
            }
            char *nb = bufs[!which];
            int n = snprintf(nb, sizeof bufs[0], "%s/%s", k->link, after);
            if (n < 0 || (size_t)n >= sizeof bufs[0]) {
                errno = ENAMETOOLONG;
                return -1;
            }
            if (k->link[0] == '/')
                rs->depth = 1;
            which = !which;
            p = nb;
            continue;
        }
        if (rs->depth >= SP_IMAGE_RESOLVE_DEPTH_MAX) {
            errno = ENAMETOOLONG;
            return -1;
        }
        rs->stack[rs->depth++] = k;
    }
    return 0;
}

int itree_pending(struct itree *t, const char *path)
{
    if (t->npending == t->cappending) {
        size_t nc = t->cappending ? t->cappending * 2 : 8;
        char **np = realloc(t->pending, nc * sizeof *np);
        if (np == NULL)
            return -1;
        t->pending = np;
        t->cappending = nc;
    }
    if ((t->pending[t->npending] = strdup(path)) == NULL)
        return -1;
    t->npending++;
    return 0;
}

int itree_set_data(struct itree *t, struct inode *n, char *data, uint64_t len)
{
    if (t->kept_bytes + len > t->limits->keep_total_max) {
        errno = E2BIG;
        return -1;
    }
    image_content_unref(n->data);
    n->data = data;
    n->kept = len;
    t->kept_bytes += len;
    return 0;
}

/* N (a hard link) becomes regular file SRC, sharing its content. */
static void link_file(struct inode *n, const struct inode *src)
{
    n->type = IN_FILE;
    n->mode = src->mode;
    n->size = src->size;
    n->data = image_content_ref(src->data);
    n->kept = src->kept;
}

int itree_hardlink(struct itree *t, const char *path, const char *target)
{
    struct inode *src = itree_lookup(t, target);
    if (src == NULL || src->type == IN_HARDLINK) {
        /* not in this layer (or a link to one that is not): a lower layer's */
        char *d = strdup(src ? src->link : target);
        if (d == NULL)
            return -1;
        struct inode *n = itree_add(t, path, IN_HARDLINK);
        if (n == NULL) {
            free(d);
            return -1;
        }
        n->link = d;
        return itree_pending(t, path);
    }
    if (src->type != IN_FILE && src->type != IN_LINK) {
        errno = EINVAL;
        return -1;
    }
    if (strcmp(path, target) == 0)
        return 0;
    /* take what is needed first: adding PATH may replace an ancestor of TARGET */
    struct inode copy = { .type = src->type, .mode = src->mode, .size = src->size,
                          .kept = src->kept, .data = image_content_ref(src->data) };
    if (src->link && (copy.link = strdup(src->link)) == NULL) {
        image_content_unref(copy.data);
        return -1;
    }
    struct inode *n = itree_add(t, path, (enum inode_type)copy.type);
    if (n == NULL) {
        image_content_unref(copy.data);
        free(copy.link);
        return -1;
    }
    n->mode = copy.mode;
    n->size = copy.size;
    n->link = copy.link;
    n->data = copy.data;
    n->kept = copy.kept;
    return 0;
}

/* Move everything of delta node SRC into merged node DST (not dirs). */
static void move_node(struct inode *dst, struct inode *src)
{
    inode_clear(dst);
    dst->type = src->type;
    dst->mode = src->mode;
    dst->size = src->size;
    dst->data = src->data;
    dst->kept = src->kept;
    dst->link = src->link;
    dst->layer = src->layer;
    src->data = src->link = NULL;
    src->kept = 0;
}

/* PATH (of DST, "" for the root; PATH_MAX + 1 bytes, extended and restored
 * while recursing) names the directory in messages. */
static int merge_dir(struct itree *mt, struct inode *dst, struct inode *src,
                     struct sp_error *e, const char *layer_name, char *path)
{
    if (src->opaque)
        for (uint32_t i = 0; i < dst->cap; i++)
            if (dst->kids[i])
                inode_clear(dst->kids[i]);
    for (uint32_t i = 0; i < src->nwh; i++) {
        struct inode *k = itree_kid(dst, src->wh[i]);
        if (k)
            inode_clear(k);
    }
    for (uint32_t i = 0; i < src->cap; i++) {
        struct inode *c = src->kids[i];
        if (c == NULL || c->type == IN_GONE)
            continue;
        struct inode **slot = kid_ref(dst, c->name);
        if (slot == NULL || (*slot)->type == IN_GONE) {
            /* nothing below holds this name: the whole subtree moves over
             * as it is (whiteouts inside it have nothing to hide) */
            if (slot) {
                inode_free(*slot);
                *slot = c;
            } else if (kid_insert(dst, c) != 0) {
                return sp_fail(e, SP_EXIT_INPUT, "%s: out of memory", layer_name);
            }
            src->kids[i] = NULL;      /* SRC is only freed from here on */
            continue;
        }
        struct inode *d = *slot;
        if (c->type == IN_DIR) {
            size_t pl = strlen(path);
            if (pl + 1 + strlen(c->name) > SP_ROOT_PATH_MAX)
                return sp_fail(e, SP_EXIT_INPUT, "%s: a path longer than %d bytes",
                               layer_name, SP_ROOT_PATH_MAX);
            snprintf(path + pl, SP_ROOT_PATH_MAX + 1 - pl, "%s%s", pl ? "/" : "", c->name);
            if (d->type != IN_DIR) {
                /* an entry for the directory itself replaces the lower
                 * non-directory (a runtime removes it first); an entry
                 * or whiteout put beneath it first would be written
                 * through the lower symlink (or fail on a file): refused
                 * rather than describing a tree no runtime builds */
                if (c->beneath)
                    return sp_fail(e, SP_EXIT_INPUT, "%s: /%s is a %s in a lower layer and "
                                   "this layer puts entries or whiteouts beneath it; images "
                                   "that write through a symlink are refused", layer_name,
                                   path, d->type == IN_LINK ? "symlink" : "non-directory");
                inode_clear(d);
                d->type = IN_DIR;
            }
            d->mode = c->mode;
            if (merge_dir(mt, d, c, e, layer_name, path) != 0)
                return -1;
            path[pl] = '\0';
        } else {
            move_node(d, c);
        }
    }
    return 0;
}

int itree_merge(struct itree *merged, struct itree *delta, const char *layer_name,
                struct sp_error *e)
{
    /* Hard links to files of lower layers, resolved before this layer's
     * own entries land (tar order: the target existed when the link was
     * written). */
    for (size_t i = 0; i < delta->npending; i++) {
        struct inode *n = itree_lookup(delta, delta->pending[i]);
        if (n == NULL || n->type != IN_HARDLINK)
            continue;            /* replaced later in the same layer */
        struct inode *src = itree_lookup(merged, n->link);
        if (src && src->type == IN_LINK) {
            char *to = strdup(src->link);
            if (to == NULL)
                return sp_fail(e, SP_EXIT_INPUT, "%s: out of memory", layer_name);
            free(n->link);
            n->link = to;
            n->type = IN_LINK;
            n->mode = src->mode;
            n->size = src->size;
            continue;
        }
        if (src == NULL || src->type != IN_FILE)
            return sp_fail(e, SP_EXIT_INPUT, "%s: hard link %s points to %s, which is %s",
                           layer_name, delta->pending[i], n->link,
                           src ? "not a regular file" : "missing");
        free(n->link);
        n->link = NULL;
        link_file(n, src);
    }
    /* every node of the merged tree comes from some delta: the deltas'
     * entries summed bound it */
    if (merged->entries + delta->entries > merged->limits->entries_max)
        return sp_fail(e, SP_EXIT_INPUT, "%s: more than %llu entries in the image",
                       layer_name, (unsigned long long)merged->limits->entries_max);
    merged->entries += delta->entries;
    merged->kept_bytes += delta->kept_bytes;
    if (merged->kept_bytes > merged->limits->keep_total_max)
        return sp_fail(e, SP_EXIT_INPUT, "%s: content kept past the limit of %llu bytes",
                       layer_name, (unsigned long long)merged->limits->keep_total_max);
    delta->kept_bytes = 0;
    char path[SP_ROOT_PATH_MAX + 1] = "";
    return merge_dir(merged, &merged->root, &delta->root, e, layer_name, path);
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int itree_kids_sorted(const struct inode *n, char ***names, size_t *count)
{
    size_t k = 0;
    char **v = calloc(n->nkids + 1, sizeof *v);
    if (v == NULL)
        return -1;
    for (uint32_t i = 0; i < n->cap; i++) {
        struct inode *c = n->kids[i];
        if (c == NULL || c->type == IN_GONE)
            continue;
        if (k >= SP_ROOT_DIR_ENTRIES_MAX) {
            root_names_free(v, k);
            errno = E2BIG;
            return -1;
        }
        if ((v[k] = strdup(c->name)) == NULL) {
            root_names_free(v, k);
            errno = ENOMEM;
            return -1;
        }
        k++;
    }
    if (k > 1)
        qsort(v, k, sizeof *v, cmp_names);
    *names = v;
    *count = k;
    return 0;
}
