/* fingerprint/root/image_keep.c: which files of an image keep their content.
 * The probes read a few kinds of file (os-release, dpkg and rpm databases,
 * Python metadata, interpreter binaries for their version string, torch and
 * Neuron markers, CUDA and EFA version files); everything else keeps only
 * its name, type, mode and size.  The rules are the patterns each probe
 * declares in its row of the probe table (fingerprint/probes/probes.c),
 * whose union the caller passes in struct image_limits.keep; this file
 * holds no list of its own.  image_keep() must not read anything: a pure
 * function of the path.  A probe names paths, not entries:
 * image_keep_aliases() walks the merged tree through its symlinks and lists
 * the files a kept path reaches only through a link (`etc -> usr/share/etc` holding os-release), whose
 * layers image_root.c then reads once more for their content. */
#include "common/array.h"
#include "fingerprint/root/image_impl.h"

#include <stdlib.h>
#include <string.h>

/* PAT against S: '*' matches any run of bytes but '/', every other byte
 * itself (fnmatch(3) with FNM_PATHNAME for these patterns, without its
 * locale work: this runs once per tar entry). */
static int glob(const char *p, const char *s)
{
    const char *star = NULL, *from = NULL;
    while (*s) {
        if (*p == '*') {
            star = p++;
            from = s;
        } else if (*p == *s) {
            p++;
            s++;
        } else if (star && *from != '/') {
            p = star + 1;
            s = ++from;
        } else {
            return 0;
        }
    }
    while (*p == '*')
        p++;
    return *p == '\0';
}

static size_t components(const char *s)
{
    size_t n = 1;
    for (; *s; s++)
        n += *s == '/';
    return n;
}

uint64_t image_keep(const char *path, const struct image_limits *l)
{
    /* tails[k]: the last k components of PATH (NULL when it has fewer),
     * found once: this runs once per tar entry */
    const char *tails[SP_IMAGE_KEEP_TAIL_MAX + 1] = { NULL };
    size_t k = 0;
    const char *p = path + strlen(path);
    tails[0] = p;
    while (k < SP_IMAGE_KEEP_TAIL_MAX) {
        while (p > path && p[-1] != '/')
            p--;
        tails[++k] = p;
        if (p == path)
            break;
        p--;
    }
    for (const char *const *pat = l->keep; pat && *pat; pat++) {
        if ((*pat)[0] == '/') {
            if (glob(*pat + 1, path))
                return l->keep_file_max;
            continue;
        }
        size_t n = components(*pat);
        if (n <= SP_IMAGE_KEEP_TAIL_MAX && tails[n] && glob(*pat, tails[n]))
            return l->keep_file_max;
    }
    return 0;
}

/* ---- paths reached through symlinks ---- */

/* 1 when some whole-path pattern of L has more components than directory
 * PATH and its first ones match PATH: a kept file may lie below it. */
static int anchored_below(const char *path, const struct image_limits *l)
{
    size_t k = components(path);
    char pre[SP_IMAGE_KEEP_PATTERN_MAX + 1];
    for (const char *const *p = l->keep; p && *p; p++) {
        if ((*p)[0] != '/')
            continue;
        const char *a = *p + 1, *q = a;
        for (size_t c = 0; *q; q++)
            if (*q == '/' && ++c == k)
                break;
        if (*q != '/' || (size_t)(q - a) >= sizeof pre)
            continue;
        memcpy(pre, a, (size_t)(q - a));
        pre[q - a] = '\0';
        if (glob(pre, path))
            return 1;
    }
    return 0;
}

struct walk {
    struct itree *t;
    const struct image_limits *l;
    uint64_t visits, visits_max;
    int cut;
    int below_max;                /* directory levels below a symlink worth walking */
    struct keep_want *v;
    size_t n, cap;
    struct itree_resolved rs;
    char lp[SP_ROOT_PATH_MAX + 1];   /* the path a probe would name */
    char cp[SP_ROOT_PATH_MAX + 1];   /* where the entry is (its own path) */
};

static int want(struct walk *w, const struct inode *f)
{
    if (f->type != IN_FILE || f->size == 0 || f->layer == 0 || f->kept >= f->size ||
        f->kept >= w->l->keep_file_max || image_keep(w->lp, w->l) == 0)
        return 0;
    const char *tar = f->via ? itree_via_tar(w->t, w->cp) : w->cp;
    if (tar == NULL)
        return 0;
    if (SP_ARRAY_RESERVE(w->v, w->cap, w->n + 1) != 0)
        return -1;
    struct keep_want *k = &w->v[w->n];
    k->path = strdup(tar);
    k->canon = strdup(w->cp);
    k->layer = f->layer - 1;
    w->n++;
    if (k->path == NULL || k->canon == NULL)
        return -1;
    return 0;
}

static int walk_dir(struct walk *w, const struct inode *dir, size_t ll, size_t cl, int below,
                    int hops);

/* LINK sits at W->lp / W->cp (lengths LL, CL): what it reaches, under the
 * logical path. */
static int follow(struct walk *w, size_t ll, size_t cl, int hops)
{
    if (itree_resolve(w->t, w->cp, 1, &w->rs) != 0)
        return 0;                 /* dangling, a loop: nothing reached */
    const struct inode *to = w->rs.stack[w->rs.depth - 1];
    if (to->type != IN_FILE && to->type != IN_DIR)
        return 0;
    if (to->type == IN_DIR && !(w->below_max >= 0 || anchored_below(w->lp, w->l)))
        return 0;
    char *saved = strdup(w->cp);
    if (saved == NULL)
        return -1;
    size_t o = 0;
    for (size_t i = 1; i < w->rs.depth; i++) {
        size_t nl = strlen(w->rs.stack[i]->name);
        if (o + 1 + nl > SP_ROOT_PATH_MAX) {
            free(saved);
            return 0;
        }
        if (o)
            w->cp[o++] = '/';
        memcpy(w->cp + o, w->rs.stack[i]->name, nl);
        o += nl;
    }
    w->cp[o] = '\0';
    int rc = to->type == IN_FILE ? want(w, to) : walk_dir(w, to, ll, o, 0, hops + 1);
    memcpy(w->cp, saved, cl + 1);
    free(saved);
    return rc;
}

/* The kids of DIR, whose paths are W->lp (LL bytes) and W->cp (CL bytes).
 * BELOW: DIR's levels below the nearest symlink followed, -1 before any. */
static int walk_dir(struct walk *w, const struct inode *dir, size_t ll, size_t cl, int below,
                    int hops)
{
    for (uint32_t i = 0; i < dir->cap; i++) {
        const struct inode *k = dir->kids[i];
        if (k == NULL || k->type == IN_GONE)
            continue;
        if (++w->visits > w->visits_max) {
            w->cut = 1;
            return 0;
        }
        size_t nl = strlen(k->name);
        if (ll + 1 + nl > SP_ROOT_PATH_MAX || cl + 1 + nl > SP_ROOT_PATH_MAX)
            continue;
        size_t l2 = ll, c2 = cl;
        if (l2)
            w->lp[l2++] = '/';
        if (c2)
            w->cp[c2++] = '/';
        memcpy(w->lp + l2, k->name, nl + 1);
        memcpy(w->cp + c2, k->name, nl + 1);
        l2 += nl;
        c2 += nl;
        int rc = 0;
        if (k->type == IN_FILE && (below >= 0 || k->via))
            rc = want(w, k);
        else if (k->type == IN_DIR &&
                 (below < 0 || below + 1 <= w->below_max || anchored_below(w->lp, w->l)))
            rc = walk_dir(w, k, l2, c2, below < 0 ? -1 : below + 1, hops);
        else if (k->type == IN_LINK && hops < SP_IMAGE_LINKS_MAX)
            rc = follow(w, l2, c2, hops);
        w->lp[ll] = '\0';
        w->cp[cl] = '\0';
        if (rc != 0 || w->cut)
            return rc;
    }
    return 0;
}

static int cmp_want(const void *a, const void *b)
{
    const struct keep_want *x = a, *y = b;
    if (x->layer != y->layer)
        return x->layer < y->layer ? -1 : 1;
    int c = strcmp(x->path, y->path);
    return c ? c : strcmp(x->canon, y->canon);
}

void image_keep_wants_free(struct keep_want *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i].path);
        free(v[i].canon);
    }
    free(v);
}

int image_keep_aliases(struct itree *t, const struct image_limits *l,
                       struct keep_want **out, size_t *n, int *cut)
{
    struct walk *w = calloc(1, sizeof *w);
    if (w == NULL)
        return -1;
    w->t = t;
    w->l = l;
    w->visits_max = SP_IMAGE_ENTRIES_MAX;
    /* a suffix pattern of N components sees a symlink's own name for files
     * up to N - 1 levels below it: walk directories up to N - 2 below */
    size_t most = 1;
    for (const char *const *p = l->keep; p && *p; p++)
        if ((*p)[0] != '/' && components(*p) > most && components(*p) <= SP_IMAGE_KEEP_TAIL_MAX)
            most = components(*p);
    w->below_max = (int)most - 2;
    int rc = walk_dir(w, &t->root, 0, 0, -1, 0);
    if (rc != 0) {
        image_keep_wants_free(w->v, w->n);
        free(w);
        return -1;
    }
    size_t k = 0;
    if (w->n > 1) {
        qsort(w->v, w->n, sizeof *w->v, cmp_want);
        for (size_t i = 0; i < w->n; i++) {
            if (k && cmp_want(&w->v[k - 1], &w->v[i]) == 0) {
                free(w->v[i].path);
                free(w->v[i].canon);
                continue;
            }
            w->v[k++] = w->v[i];
        }
    } else {
        k = w->n;
    }
    *out = w->v;
    *n = k;
    *cut = w->cut;
    free(w);
    return 0;
}
