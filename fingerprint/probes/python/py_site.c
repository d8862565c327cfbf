/* fingerprint/probes/python/py_site.c: sys.path as CPython builds it at
 * start-up, read through the root: $PYTHONPATH, the stdlib and
 * lib-dynload, then what Lib/site.py adds: venv() (PEP 405: the venv's
 * site-packages, the base's too when include-system-site-packages),
 * addusersitepackages(), getsitepackages() with addsitedir() honouring .pth
 * files (site module docs: one folder a line, "import" lines and comments
 * skipped; from 3.13 a UTF-8 BOM is skipped and hidden .pth files are not
 * read), and Debian's patched getsitepackages() (dist-packages) when the
 * stdlib's site.py names dist-packages.  See the sys.path docs ("The
 * initialization of the sys.path module search path") and the site module
 * docs.
 * Also where `import NAME` finds a package folder (py_find_package). */
#include "fingerprint/probes/python/py_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int have_dir(const struct py_interp *pi, const char *path)
{
    for (size_t i = 0; i < pi->ndirs; i++)
        if (strcmp(pi->dirs[i], path) == 0)
            return 1;
    return 0;
}

/* Append folder PATH (normalised) if it exists and is new.  Returns 1 if
 * added, 0 if not, -1 on ENOMEM. */
static int add_dir(struct probe_ctx *ctx, int flags, struct py_interp *pi,
                   const char *path)
{
    char p[SP_ROOT_PATH_MAX];
    if (py_copy(p, sizeof p, path) != 0 || p[0] != '/')
        return 0;
    py_normpath(p);
    if (have_dir(pi, p) || !root_is_dir(ctx->root, p))
        return 0;
    if (pi->ndirs >= PY_SYS_PATH_MAX) {
        py_warn(ctx, flags, "python: %s: more than %d sys.path folders; the rest not read",
              p, PY_SYS_PATH_MAX);
        return 0;
    }
    size_t i = pi->ndirs;
    if ((pi->dirs[i] = strdup(p)) == NULL)
        return -1;
    pi->names[i] = NULL;
    pi->nnames[i] = 0;
    pi->ndirs++;
    char **names;
    size_t n;
    if (root_list_dir(ctx->root, p, &names, &n) == 0) {
        pi->names[i] = names;
        pi->nnames[i] = n;
    } else if (errno == ENOMEM) {
        return -1;
    } else {
        py_warn_errno(ctx, flags, "python", p, errno);
    }
    return 1;
}

/* One .pth file (site.addpackage): lines that are not comments, not blank
 * and do not start with "import " / "import\t" name folders relative to
 * SITEDIR; those that exist are appended. */
static int add_pth(struct probe_ctx *ctx, int flags, struct py_interp *pi,
                   const char *sitedir, const char *name)
{
    char path[SP_ROOT_PATH_MAX];
    if (sp_path_join(path, sizeof path, sitedir, name) != 0)
        return 0;
    char *buf;
    int got = py_read_text(ctx, flags, path, PY_PTH_FILE_MAX, &buf);
    if (got <= 0)
        return got;
    char *p = buf;
    if (pi->minor >= 13 && (unsigned char)p[0] == 0xef &&
        (unsigned char)p[1] == 0xbb && (unsigned char)p[2] == 0xbf)
        p += 3;   /* 3.13 reads .pth files as utf-8-sig */
    int lines = 0, rc = 0;
    while (*p && rc >= 0) {
        char *line = p;
        size_t n = strcspn(p, "\r\n");
        p += n;
        if (*p == '\r' && p[1] == '\n')
            p++;
        if (*p)
            *p++ = '\0';
        else
            line[n] = '\0';
        if (line[0] == '#')
            continue;
        size_t k = strlen(line);
        while (k > 0 && isspace((unsigned char)line[k - 1]))
            line[--k] = '\0';
        if (k == 0)
            continue;
        if (strncmp(line, "import ", 7) == 0 || strncmp(line, "import\t", 7) == 0)
            continue;
        if (++lines > PY_PTH_LINES_MAX) {
            py_warn(ctx, flags, "python: %s: more than %d folder lines; the rest not read",
                  path, PY_PTH_LINES_MAX);
            break;
        }
        char dir[SP_ROOT_PATH_MAX];
        if (line[0] == '/') {
            if (py_copy(dir, sizeof dir, line) != 0)
                continue;
        } else if (sp_path_join(dir, sizeof dir, sitedir, line) != 0) {
            continue;
        }
        rc = add_dir(ctx, flags, pi, dir);
    }
    free(buf);
    return rc < 0 ? -1 : 0;
}

/* site.addsitedir: the folder, then its .pth files in sorted order. */
int py_site_addsitedir(struct probe_ctx *ctx, int flags, struct py_interp *pi,
                        const char *path)
{
    int added = add_dir(ctx, flags, pi, path);
    if (added <= 0)
        return added;
    size_t i = pi->ndirs - 1;
    char *dir = pi->dirs[i];
    char **names = pi->names[i];
    size_t n = pi->nnames[i], files = 0;
    for (size_t k = 0; k < n; k++) {
        const char *name = names[k];
        size_t l = strlen(name);
        if (l < 4 || strcmp(name + l - 4, ".pth") != 0)
            continue;
        if (pi->minor >= 13 && name[0] == '.')
            continue;
        if (++files > PY_PTH_FILES_MAX) {
            py_warn(ctx, flags, "python: %s: more than %d .pth files; the rest not read",
                  dir, PY_PTH_FILES_MAX);
            break;
        }
        if (add_pth(ctx, flags, pi, dir, name) != 0)
            return -1;
    }
    return 1;
}

/* site.getsitepackages([PREFIX]) for this interpreter, added in order. */
static int add_site_packages(struct probe_ctx *ctx, int flags, struct py_interp *pi,
                             const char *prefix, int virtual_env)
{
    char p[SP_ROOT_PATH_MAX];
    int m = pi->minor;
    if (pi->debian) {
        /* Debian's patched site.py (python3.X package, debian/patches). */
        if (virtual_env) {
            snprintf(p, sizeof p, "%s/lib/python3.%d/site-packages", prefix, m);
            if (py_site_addsitedir(ctx, flags, pi, p) < 0)
                return -1;
        }
        snprintf(p, sizeof p, "%s/local/lib/python3.%d/dist-packages", prefix, m);
        if (py_site_addsitedir(ctx, flags, pi, p) < 0)
            return -1;
        snprintf(p, sizeof p, "%s/lib/python3/dist-packages", prefix);
        if (py_site_addsitedir(ctx, flags, pi, p) < 0)
            return -1;
        snprintf(p, sizeof p, "%s/lib/python3.%d/dist-packages", prefix, m);
        return py_site_addsitedir(ctx, flags, pi, p) < 0 ? -1 : 0;
    }
    /* Upstream: {platlibdir}/python3.X/site-packages, then lib/ when the
     * platlibdir is not lib (lib64 builds, e.g. Fedora). */
    snprintf(p, sizeof p, "%s/%s/python3.%d/site-packages", prefix, pi->libdir, m);
    if (py_site_addsitedir(ctx, flags, pi, p) < 0)
        return -1;
    if (strcmp(pi->libdir, "lib") != 0) {
        snprintf(p, sizeof p, "%s/lib/python3.%d/site-packages", prefix, m);
        if (py_site_addsitedir(ctx, flags, pi, p) < 0)
            return -1;
    }
    return 0;
}


/* Does the file at PATH hold NEEDLE (at most MAX bytes read)?  Used for:
 * does the stdlib's site.py know dist-packages (Debian's patch)? */
struct find_ctx {
    const char *needle;
    size_t nl;
    char tail[64];
    size_t tl;
    int found;
};

static int find_cb(void *vctx, const char *chunk, size_t n)
{
    struct find_ctx *f = vctx;
    char edge[128];
    size_t take = n < f->nl ? n : f->nl;
    memcpy(edge, f->tail, f->tl);
    memcpy(edge + f->tl, chunk, take);
    if (memmem(edge, f->tl + take, f->needle, f->nl) || memmem(chunk, n, f->needle, f->nl)) {
        f->found = 1;
        return 1;
    }
    f->tl = n < f->nl ? n : f->nl - 1;
    memcpy(f->tail, chunk + n - f->tl, f->tl);
    return 0;
}

static int file_contains(struct root *r, const char *path, const char *needle, uint64_t max)
{
    struct find_ctx f = { .needle = needle, .nl = strlen(needle) };
    if (root_scan_file(r, path, max, find_cb, &f) != 0)
        return 0;
    return f.found;
}
/* $PYTHONPATH's absolute folders, first in sys.path (the live workload
 * only; the sys.path docs). */
static int add_pythonpath(struct probe_ctx *ctx, int flags, struct py_interp *pi)
{
    const char *pp = probe_getenv(ctx, "PYTHONPATH");
    while (pp && *pp) {
        size_t n = strcspn(pp, ":");
        char d[SP_ROOT_PATH_MAX];
        if (n > 0 && n < sizeof d && pp[0] == '/') {
            memcpy(d, pp, n);
            d[n] = '\0';
            if (add_dir(ctx, flags, pi, d) < 0)
                return -1;
        }
        pp += n;
        if (*pp == ':')
            pp++;
    }
    return 0;
}

/* site.addusersitepackages: USER_BASE/lib/python3.X/site-packages, USER_BASE
 * being $PYTHONUSERBASE or ~/.local, unless $PYTHONNOUSERSITE is set (the
 * live workload only). */
static int add_user_site(struct probe_ctx *ctx, int flags, struct py_interp *pi)
{
    const char *nouser = probe_getenv(ctx, "PYTHONNOUSERSITE");
    const char *ubase = probe_getenv(ctx, "PYTHONUSERBASE");
    const char *homeenv = probe_getenv(ctx, "HOME");
    char ub[SP_ROOT_PATH_MAX] = "", d[SP_ROOT_PATH_MAX];
    if (ubase && ubase[0] == '/')
        snprintf(ub, sizeof ub, "%s", ubase);
    else if (homeenv && homeenv[0] == '/')
        snprintf(ub, sizeof ub, "%s/.local", homeenv);
    if ((nouser && *nouser) || ub[0] == '\0')
        return 0;
    snprintf(d, sizeof d, "%s/lib/python3.%d/site-packages", ub, pi->minor);
    return py_site_addsitedir(ctx, flags, pi, d) < 0 ? -1 : 0;
}

int py_sys_path_build(struct probe_ctx *ctx, int flags, struct py_interp *pi)
{
    char sitepy[SP_ROOT_PATH_MAX], d[SP_ROOT_PATH_MAX];
    if (sp_path_join(sitepy, sizeof sitepy, pi->stdlib, "site.py") == 0)
        pi->debian = file_contains(ctx->root, sitepy, "dist-packages", 1u << 20);

    /* sys.path: $PYTHONPATH, the stdlib, then what site.py adds. */
    int workload_live = (flags & PY_WORKLOAD) && ctx->root->live;
    if (workload_live && add_pythonpath(ctx, flags, pi) < 0)
        return -1;
    if (add_dir(ctx, flags, pi, pi->stdlib) < 0)
        return -1;
    if (sp_path_join(d, sizeof d, pi->stdlib, "lib-dynload") == 0 && add_dir(ctx, flags, pi, d) < 0)
        return -1;
    if (pi->venv) {
        if (add_site_packages(ctx, flags, pi, pi->prefix, 1) < 0)
            return -1;
        if (pi->system_site && add_site_packages(ctx, flags, pi, pi->base, 1) < 0)
            return -1;
        return 0;
    }
    if (workload_live && add_user_site(ctx, flags, pi) < 0)
        return -1;
    return add_site_packages(ctx, flags, pi, pi->base, 0) < 0 ? -1 : 0;
}

int py_find_package(struct probe_ctx *ctx, const struct py_interp *pi,
                    const char *name, char *out, size_t outsz)
{
    for (size_t i = 0; i < pi->ndirs; i++) {
        char pkg[SP_ROOT_PATH_MAX], init[SP_ROOT_PATH_MAX];
        int listed = 0;
        for (size_t k = 0; k < pi->nnames[i] && !listed; k++)
            listed = strcmp(pi->names[i][k], name) == 0;
        if (!listed || sp_path_join(pkg, sizeof pkg, pi->dirs[i], name) != 0 ||
            sp_path_join(init, sizeof init, pkg, "__init__.py") != 0 || !py_is_file(ctx->root, init))
            continue;
        snprintf(out, outsz, "%s", pkg);
        return 0;
    }
    return 1;
}

