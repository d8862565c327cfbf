/* fingerprint/root/image_tree.c: the tree of an image's entries as the layers
 * describe them (names, types, modes, sizes; content only of kept files),
 * one delta per layer and the merge of deltas in order (OCI image-spec
 * layer.md: whiteouts ".wh.NAME" and opaque ".wh..wh..opq" hide entries of
 * LOWER layers only; an entry beneath a lower layer's symlink lands where
 * the link leads, as umoci and docker apply layers).  Never reads a file;
 * itree_resolve() is the one place that follows symlinks (for the merge,
 * image_root.c and image_keep.c).
 *
 * A directory's children sit in an open-addressing hash table; a removed
 * child stays as a tombstone of type IN_GONE (its content freed) so the
 * table never needs deletion.
 */
#include "common/array.h"
#include "fingerprint/root/image_impl.h"

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
    n->opaque = n->explicit_dir = n->beneath = n->via = 0;
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
    for (size_t i = 0; i < t->nvia; i++) {
        free(t->via[i].canon);
        free(t->via[i].tar);
    }
    free(t->via);
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
    rs->link_gen = 0;
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
            if (k->gen > rs->link_gen)
                rs->link_gen = k->gen;
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
    if (SP_ARRAY_RESERVE(t->pending, t->cappending, t->npending + 1) != 0)
        return -1;
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

/* One layer's merge.  Phase 1 lays the delta over the merged tree; a
 * delta directory beneath a lower layer's symlink is set aside, and phase 2
 * merges it into the directory the link resolves to, as a runtime writes
 * through the link.  Whatever this layer itself made or replaced (gen) must
 * not be on that way nor be met again there: the result would then depend
 * on the order of the tar, which the delta no longer has, so it is refused. */
struct deferred {
    char *link;                   /* merged path of the lower symlink */
    char *tar;                    /* tar path of SUB */
    struct inode *sub;            /* the delta directory, detached (owned) */
};

struct merge_ctx {
    struct itree *mt;
    const char *layer;
    uint32_t gen;
    int phase2;
    struct sp_error *e;
    struct deferred *dv;
    size_t nd, capd;
    struct itree_resolved rs;
    char path[SP_ROOT_PATH_MAX + 1];    /* merged path of the directory merged */
    char tar[SP_ROOT_PATH_MAX + 1];     /* the same directory's path in the tar */
};

/* Append "/NAME" to BUF (SP_ROOT_PATH_MAX + 1 bytes); the old length, or
 * -1 when it does not fit. */
static long push(char *buf, const char *name)
{
    size_t l = strlen(buf), nl = strlen(name);
    if (l + 1 + nl > SP_ROOT_PATH_MAX)
        return -1;
    if (l)
        buf[l] = '/';
    memcpy(buf + l + (l ? 1 : 0), name, nl + 1);
    return (long)l;
}

static int too_long(struct merge_ctx *m)
{
    return sp_fail(m->e, SP_EXIT_INPUT, "%s: a path longer than %d bytes", m->layer,
                   SP_ROOT_PATH_MAX);
}

static int order_dependent(struct merge_ctx *m, const char *what)
{
    return sp_fail(m->e, SP_EXIT_INPUT, "%s: /%s: %s through a symlink of a lower layer and "
                   "changed by this layer too: the result depends on the order of the tar; "
                   "refused", m->layer, m->tar, what);
}

/* Did this layer make or replace N or anything below it? */
static int touched(const struct inode *n, uint32_t gen)
{
    if (n->gen == gen)
        return 1;
    for (uint32_t i = 0; i < n->cap; i++)
        if (n->kids[i] && n->kids[i]->type != IN_GONE && touched(n->kids[i], gen))
            return 1;
    return 0;
}

/* Phase 2: N (moved to m->path, from m->tar) and the files below it were
 * written through a symlink: note where their entries are.  -1 with E set. */
static int note_via(struct merge_ctx *m, struct inode *n)
{
    if (n->type == IN_FILE) {
        struct itree *t = m->mt;
        if (SP_ARRAY_RESERVE(t->via, t->capvia, t->nvia + 1) != 0)
            return sp_fail(m->e, SP_EXIT_INPUT, "%s: out of memory", m->layer);
        char *c = strdup(m->path), *tp = strdup(m->tar);
        if (c == NULL || tp == NULL) {
            free(c);
            free(tp);
            return sp_fail(m->e, SP_EXIT_INPUT, "%s: out of memory", m->layer);
        }
        t->via[t->nvia++] = (struct itree_via){ c, tp };
        n->via = 1;
        return 0;
    }
    for (uint32_t i = 0; i < n->cap; i++) {
        struct inode *k = n->kids[i];
        if (k == NULL || k->type == IN_GONE)
            continue;
        long pl = push(m->path, k->name), tl = push(m->tar, k->name);
        int rc = pl < 0 || tl < 0 ? too_long(m) : note_via(m, k);
        if (pl >= 0)
            m->path[pl] = '\0';
        if (tl >= 0)
            m->tar[tl] = '\0';
        if (rc != 0)
            return -1;
    }
    return 0;
}

static int defer(struct merge_ctx *m, struct inode *sub)
{
    if (SP_ARRAY_RESERVE(m->dv, m->capd, m->nd + 1) != 0)
        return -1;
    struct deferred *d = &m->dv[m->nd++];
    d->link = strdup(m->path);
    d->tar = strdup(m->tar);
    d->sub = sub;
    return d->link && d->tar ? 0 : -1;
}

/* Remove lower node K (a whiteout or an opaque directory's child). */
static int hide(struct merge_ctx *m, struct inode *k)
{
    if (m->phase2 && touched(k, m->gen))
        return order_dependent(m, "a whiteout applied");
    inode_clear(k);
    return 0;
}

static int merge_dir(struct merge_ctx *m, struct inode *dst, struct inode *src)
{
    if (src->opaque)
        for (uint32_t i = 0; i < dst->cap; i++)
            if (dst->kids[i] && dst->kids[i]->type != IN_GONE && hide(m, dst->kids[i]) != 0)
                return -1;
    for (uint32_t i = 0; i < src->nwh; i++) {
        struct inode *k = itree_kid(dst, src->wh[i]);
        if (k && k->type != IN_GONE && hide(m, k) != 0)
            return -1;
    }
    for (uint32_t i = 0; i < src->cap; i++) {
        struct inode *c = src->kids[i];
        if (c == NULL || c->type == IN_GONE)
            continue;
        long pl = push(m->path, c->name), tl = push(m->tar, c->name);
        if (pl < 0 || tl < 0)
            return too_long(m);
        int rc = 0;
        struct inode **slot = kid_ref(dst, c->name);
        if (slot == NULL || (*slot)->type == IN_GONE) {
            /* nothing below holds this name: the whole subtree moves over
             * as it is (whiteouts inside it have nothing to hide) */
            if (m->phase2 && note_via(m, c) != 0)
                return -1;
            c->gen = m->gen;
            if (slot) {
                inode_free(*slot);
                *slot = c;
            } else if (kid_insert(dst, c) != 0) {
                return sp_fail(m->e, SP_EXIT_INPUT, "%s: out of memory", m->layer);
            }
            src->kids[i] = NULL;      /* SRC is only freed from here on */
        } else if (m->phase2 && (*slot)->gen == m->gen) {
            return order_dependent(m, "written");
        } else if (c->type == IN_DIR) {
            struct inode *d = *slot;
            if (d->type == IN_DIR) {
                d->mode = c->mode;
                rc = merge_dir(m, d, c);
            } else if (c->beneath && d->type == IN_LINK && !c->explicit_dir) {
                /* entries beneath a lower symlink: phase 2 */
                if (defer(m, c) != 0)
                    return sp_fail(m->e, SP_EXIT_INPUT, "%s: out of memory", m->layer);
                src->kids[i] = NULL;
            } else if (c->beneath) {
                /* beneath a lower file (a runtime fails), or beneath a
                 * symlink that the layer then replaces by a directory */
                return sp_fail(m->e, SP_EXIT_INPUT, "%s: /%s is a %s in a lower layer and "
                               "this layer puts entries or whiteouts beneath it%s; refused",
                               m->layer, m->path,
                               d->type == IN_LINK ? "symlink" : "non-directory",
                               d->type == IN_LINK ? " before its own entry for it" : "");
            } else {
                /* the layer's own entry for the directory replaces the
                 * lower non-directory (a runtime removes it first) */
                inode_clear(d);
                d->type = IN_DIR;
                d->gen = m->gen;
                d->mode = c->mode;
                rc = merge_dir(m, d, c);
            }
        } else {
            if (m->phase2 && note_via(m, c) != 0)
                return -1;
            uint8_t via = c->via;
            move_node(*slot, c);
            (*slot)->gen = m->gen;
            (*slot)->via = via;
        }
        m->path[pl] = '\0';
        m->tar[tl] = '\0';
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* Phase 2 for D: resolve its link in the merged tree and merge into the
 * directory it names. */
static int merge_deferred(struct merge_ctx *m, struct deferred *d)
{
    snprintf(m->tar, sizeof m->tar, "%s", d->tar);
    if (itree_resolve(m->mt, d->link, 1, &m->rs) != 0)
        return sp_fail(m->e, SP_EXIT_INPUT, "%s: /%s: this layer writes beneath /%s, a "
                       "symlink of a lower layer that does not resolve in the image (%s); "
                       "refused", m->layer, d->tar, d->link, strerror(errno));
    struct inode *to = m->rs.stack[m->rs.depth - 1];
    if (to->type != IN_DIR)
        return sp_fail(m->e, SP_EXIT_INPUT, "%s: /%s: this layer writes beneath /%s, a "
                       "symlink of a lower layer to a non-directory; refused", m->layer,
                       d->tar, d->link);
    if (m->rs.link_gen == m->gen)
        return order_dependent(m, "written");
    m->path[0] = '\0';
    for (size_t i = 1; i < m->rs.depth; i++) {
        if (m->rs.stack[i]->gen == m->gen)
            return order_dependent(m, "written");
        if (push(m->path, m->rs.stack[i]->name) < 0)
            return too_long(m);
    }
    m->phase2 = 1;
    return merge_dir(m, to, d->sub);
}

int itree_merge(struct itree *merged, struct itree *delta, size_t index,
                const char *layer_name, struct sp_error *e)
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
    struct merge_ctx *m = calloc(1, sizeof *m);
    if (m == NULL)
        return sp_fail(e, SP_EXIT_INPUT, "%s: out of memory", layer_name);
    m->mt = merged;
    m->layer = layer_name;
    m->gen = (uint32_t)index + 1;
    m->e = e;
    int rc = merge_dir(m, &merged->root, &delta->root);
    /* phase 2 may set more aside (a link below a link): to the end */
    for (size_t i = 0; i < m->nd; i++) {
        if (rc == 0)
            rc = merge_deferred(m, &m->dv[i]);
        inode_free(m->dv[i].sub);
        free(m->dv[i].link);
        free(m->dv[i].tar);
    }
    free(m->dv);
    free(m);
    return rc;
}

const char *itree_via_tar(const struct itree *t, const char *canon)
{
    for (size_t i = t->nvia; i-- > 0;)
        if (strcmp(t->via[i].canon, canon) == 0)
            return t->via[i].tar;
    return NULL;
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
