/* fingerprint/root/image_keep.c: which files of an image keep their content.
 * The probes read a few kinds of file (os-release, dpkg and rpm databases,
 * Python metadata, interpreter binaries for their version string, torch and
 * Neuron markers, CUDA and EFA version files); everything else keeps only
 * its name, type, mode and size.  The rules are patterns, generous on
 * purpose so that a probe reading one more file of the same kind still
 * finds it.  image_keep() must not read anything: a pure function of the
 * path.  A probe names paths, not entries: image_keep_aliases() walks the
 * merged tree through its symlinks and lists the files a kept path reaches
 * only through a link (`etc -> usr/share/etc` holding os-release), whose
 * layers image_root.c then reads once more for their content. */
#include "fingerprint/root/image_impl.h"

#include <stdlib.h>
#include <string.h>

/* Patterns over the whole path (no leading slash); '*' does not cross '/'. */
static const char *const anchored[] = {
    ".dockerenv", "run/.containerenv",
    "etc/os-release", "usr/lib/os-release", "etc/*-release", "etc/*_version",
    "etc/hostname", "etc/environment", "etc/hosts", "etc/resolv.conf",
    "var/lib/dpkg/status", "var/lib/dpkg/status.d/*",
    "var/lib/rpm/*", "usr/lib/sysimage/rpm/*",
    "opt/aws/neuron/*", "opt/aws/neuron/*/*.txt", "opt/aws/neuron/*/*.json",
    "opt/aws/neuron/*/version*",
    "usr/local/cuda*/version.json", "usr/local/cuda*/version.txt",
    "usr/local/cuda*/include/cuda.h",
    "opt/amazon/efa_installed_packages", "opt/amazon/efa/*/version*",
    "var/lib/dkms/*/*/source/dkms.conf", "usr/src/*/dkms.conf",
    "proc/driver/nvidia/version",
};

/* Patterns over the last components of the path (as many as the pattern
 * has), anywhere in the tree.  RECORD and installed-files.txt are left
 * out on purpose: they list every file (megabytes for torch) and no probe
 * reads them. */
static const char *const suffix[] = {
    "*.dist-info/METADATA", "*.dist-info/entry_points.txt", "*.dist-info/INSTALLER",
    "*.dist-info/direct_url.json", "*.dist-info/top_level.txt", "*.dist-info/WHEEL",
    "*.dist-info/REQUESTED",
    "*.egg-info", "*.egg-info/PKG-INFO", "*.egg-info/entry_points.txt",
    "*.egg-info/requires.txt", "*.egg-info/top_level.txt",
    "pyvenv.cfg", "conda-meta/*.json", "conda-meta/history",
    "bin/python*", "bin/pypy*", "sbin/python*", "libpython*.so*", "patchlevel.h",
    "_sysconfigdata*.py", "python*/site.py", ".pyenv/version", ".python-version",
    "torch/version.py", "torch/_version.py",
    "*-packages/torch*/*.py", "*-packages/torch*/*.json", "*-packages/torch*/*.txt",
    "*-packages/*neuron*/*.py", "*-packages/*neuron*/*.json", "*-packages/*neuron*/*.txt",
    "*-packages/jax*/version.py", "*-packages/nki*/*.py",
    "*-packages/*.pth",
    "MODULE_*/compile_flags.json",     /* the Neuron compile cache's flags */
};

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

#define TAIL_MAX 4      /* components in the longest suffix pattern */

uint64_t image_keep(const char *path, const struct image_limits *l)
{
    /* tails[k]: the last k components of PATH (NULL when it has fewer) */
    const char *tails[TAIL_MAX + 1] = { NULL };
    size_t k = 0;
    const char *p = path + strlen(path);
    tails[0] = p;
    while (k < TAIL_MAX) {
        while (p > path && p[-1] != '/')
            p--;
        tails[++k] = p;
        if (p == path)
            break;
        p--;
    }
    for (size_t i = 0; i < sizeof anchored / sizeof *anchored; i++)
        if (glob(anchored[i], path))
            return l->keep_file_max;
    for (size_t i = 0; i < sizeof suffix / sizeof *suffix; i++) {
        size_t n = components(suffix[i]);
        if (n <= TAIL_MAX && tails[n] && glob(suffix[i], tails[n]))
            return l->keep_file_max;
    }
    return 0;
}

/* ---- paths reached through symlinks ---- */

/* 1 when some anchored pattern has more components than directory PATH
 * and its first ones match PATH: a kept file may lie below it. */
static int anchored_below(const char *path)
{
    size_t k = components(path);
    char pre[128];
    for (size_t i = 0; i < sizeof anchored / sizeof *anchored; i++) {
        const char *a = anchored[i], *q = a;
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
    if (w->n == w->cap) {
        size_t nc = w->cap ? w->cap * 2 : 8;
        struct keep_want *nv = realloc(w->v, nc * sizeof *nv);
        if (nv == NULL)
            return -1;
        w->v = nv;
        w->cap = nc;
    }
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
    if (to->type == IN_DIR && !(w->below_max >= 0 || anchored_below(w->lp)))
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
                 (below < 0 || below + 1 <= w->below_max || anchored_below(w->lp)))
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
    for (size_t i = 0; i < sizeof suffix / sizeof *suffix; i++)
        if (components(suffix[i]) > most)
            most = components(suffix[i]);
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
