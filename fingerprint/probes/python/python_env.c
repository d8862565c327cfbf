/* fingerprint/probes/python/python_env.c: a Python interpreter and its environment, read
 * through the root only (see python_env.h for what it mirrors).  It never
 * runs the interpreter, never reads a METADATA body, and records what it
 * could not decide as a warning. */
#include "fingerprint/probes/python/python_env.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------- small helpers ---------- */

#define PY_WARN_DEDUP_WINDOW 256   /* recent warnings a new one is compared with */

static void pwarn(struct probe_ctx *ctx, int flags, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void pwarn(struct probe_ctx *ctx, int flags, const char *fmt, ...)
{
    if (flags & PY_QUIET)
        return;
    /* one warning per text: the same interpreter is opened as the workload
     * and as an environment, and a venv's base again for each venv.  Only
     * the latest PY_WARN_DEDUP_WINDOW warnings are compared, so that a
     * flood of warnings stays linear. */
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    size_t n = ctx->facts->nwarnings;
    for (size_t i = n > PY_WARN_DEDUP_WINDOW ? n - PY_WARN_DEDUP_WINDOW : 0; i < n; i++)
        if (strcmp(ctx->facts->warnings[i], text) == 0)
            return;
    factset_warn(ctx->facts, "%s", text);
}

static void pwarn_errno(struct probe_ctx *ctx, int flags, const char *what,
                        const char *path, int err)
{
    if (!(flags & PY_QUIET))
        probe_warn_errno(ctx, what, path, err);
}

static int copy(char *out, size_t outsz, const char *s)
{
    size_t n = strlen(s);
    if (n >= outsz) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(out, s, n + 1);
    return 0;
}

/* Lexical normalisation of an absolute path (os.path.normpath): no "//",
 * no ".", ".." removes the previous component (never above "/"). */
static void normpath(char *p)
{
    char *w = p;
    const char *r = p;
    while (*r) {
        while (*r == '/')
            r++;
        const char *s = r;
        while (*r && *r != '/')
            r++;
        size_t n = (size_t)(r - s);
        if (n == 0 || (n == 1 && s[0] == '.'))
            continue;
        if (n == 2 && s[0] == '.' && s[1] == '.') {
            while (w > p && *--w != '/')
                ;
            continue;
        }
        *w++ = '/';
        memmove(w, s, n);
        w += n;
    }
    if (w == p)
        *w++ = '/';
    *w = '\0';
}

/* dirname of absolute P into OUT ("/" for "/x" and "/"). */
static void dirname_of(const char *p, char *out, size_t outsz)
{
    const char *slash = strrchr(p, '/');
    size_t n = slash ? (size_t)(slash - p) : 0;
    if (n == 0) {
        snprintf(out, outsz, "/");
        return;
    }
    snprintf(out, outsz, "%.*s", (int)n, p);
}

static const char *basename_of(const char *p)
{
    const char *slash = strrchr(p, '/');
    return slash ? slash + 1 : p;
}

static int join(char *out, size_t outsz, const char *a, const char *b)
{
    return sp_path_join(out, outsz, a, b);
}

static int is_file(struct root *r, const char *path)
{
    struct root_stat st;
    return root_stat(r, path, 1, &st) == 0 && st.type == ROOT_T_FILE;
}

static int ends_with_ci(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcasecmp(s + n - m, suffix) == 0;
}

/* "python3.11" -> 11; "python3.12t" -> 12; else -1. */
static int minor_from_name(const char *name)
{
    if (strncmp(name, "python3.", 8) != 0 || !isdigit((unsigned char)name[8]))
        return -1;
    long v = strtol(name + 8, NULL, 10);
    return v >= 0 && v < 1000 ? (int)v : -1;
}

/* ---------- small files ---------- */

/* Read a small text file; NULL with errno on failure. */
static char *read_small(struct root *r, const char *path, size_t max)
{
    char *buf;
    size_t len;
    if (root_read_file(r, path, max, &buf, &len) != 0)
        return NULL;
    return buf;
}

/* ---------- sys.path assembly ---------- */

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
    if (copy(p, sizeof p, path) != 0 || p[0] != '/')
        return 0;
    normpath(p);
    if (have_dir(pi, p) || !root_is_dir(ctx->root, p))
        return 0;
    if (pi->ndirs >= PY_SYS_PATH_MAX) {
        pwarn(ctx, flags, "python: %s: more than %d sys.path folders; the rest not read",
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
        pwarn_errno(ctx, flags, "python", p, errno);
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
    if (join(path, sizeof path, sitedir, name) != 0)
        return 0;
    char *buf = read_small(ctx->root, path, PY_PTH_FILE_MAX);
    if (buf == NULL) {
        if (errno == ENOMEM)
            return -1;
        pwarn_errno(ctx, flags, "python", path, errno);
        return 0;
    }
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
            pwarn(ctx, flags, "python: %s: more than %d folder lines; the rest not read",
                  path, PY_PTH_LINES_MAX);
            break;
        }
        char dir[SP_ROOT_PATH_MAX];
        if (line[0] == '/') {
            if (copy(dir, sizeof dir, line) != 0)
                continue;
        } else if (join(dir, sizeof dir, sitedir, line) != 0) {
            continue;
        }
        rc = add_dir(ctx, flags, pi, dir);
    }
    free(buf);
    return rc < 0 ? -1 : 0;
}

/* site.addsitedir: the folder, then its .pth files in sorted order. */
static int add_site_dir(struct probe_ctx *ctx, int flags, struct py_interp *pi,
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
            pwarn(ctx, flags, "python: %s: more than %d .pth files; the rest not read",
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
            if (add_site_dir(ctx, flags, pi, p) < 0)
                return -1;
        }
        snprintf(p, sizeof p, "%s/local/lib/python3.%d/dist-packages", prefix, m);
        if (add_site_dir(ctx, flags, pi, p) < 0)
            return -1;
        snprintf(p, sizeof p, "%s/lib/python3/dist-packages", prefix);
        if (add_site_dir(ctx, flags, pi, p) < 0)
            return -1;
        snprintf(p, sizeof p, "%s/lib/python3.%d/dist-packages", prefix, m);
        return add_site_dir(ctx, flags, pi, p) < 0 ? -1 : 0;
    }
    /* Upstream: {platlibdir}/python3.X/site-packages, then lib/ when the
     * platlibdir is not lib (lib64 builds, e.g. Fedora). */
    snprintf(p, sizeof p, "%s/%s/python3.%d/site-packages", prefix, pi->libdir, m);
    if (add_site_dir(ctx, flags, pi, p) < 0)
        return -1;
    if (strcmp(pi->libdir, "lib") != 0) {
        snprintf(p, sizeof p, "%s/lib/python3.%d/site-packages", prefix, m);
        if (add_site_dir(ctx, flags, pi, p) < 0)
            return -1;
    }
    return 0;
}

/* ---------- opening an interpreter ---------- */

/* pyvenv.cfg next to the unresolved executable or one folder up
 * (site.venv()).  Returns 1 when one applies, 0 when none, -1 ENOMEM. */
static int read_venv_cfg(struct probe_ctx *ctx, int flags, struct py_interp *pi,
                         char *home, size_t homesz)
{
    char exe_dir[SP_ROOT_PATH_MAX], site_prefix[SP_ROOT_PATH_MAX], cfg[SP_ROOT_PATH_MAX];
    dirname_of(pi->exe, exe_dir, sizeof exe_dir);
    dirname_of(exe_dir, site_prefix, sizeof site_prefix);
    const char *cands[2] = { exe_dir, site_prefix };
    home[0] = '\0';
    for (int i = 0; i < 2; i++) {
        if (join(cfg, sizeof cfg, cands[i], "pyvenv.cfg") != 0 || !is_file(ctx->root, cfg))
            continue;
        copy(pi->venv_cfg, sizeof pi->venv_cfg, cfg);
        copy(pi->prefix, sizeof pi->prefix, site_prefix);
        pi->venv = 1;
        pi->system_site = 1;   /* site.py's default when the key is absent */
        char *buf = read_small(ctx->root, cfg, PY_SMALL_FILE_MAX);
        if (buf == NULL) {
            if (errno == ENOMEM)
                return -1;
            pwarn_errno(ctx, flags, "python", cfg, errno);
            return 1;
        }
        for (char *save = NULL, *line = strtok_r(buf, "\n", &save); line;
             line = strtok_r(NULL, "\n", &save)) {
            char *eq = strchr(line, '=');
            if (eq == NULL)
                continue;
            *eq = '\0';
            char *k = line, *v = eq + 1;
            while (isspace((unsigned char)*k))
                k++;
            while (isspace((unsigned char)*v))
                v++;
            for (char *e = k + strlen(k); e > k && isspace((unsigned char)e[-1]);)
                *--e = '\0';
            for (char *e = v + strlen(v); e > v && isspace((unsigned char)e[-1]);)
                *--e = '\0';
            for (char *c = k; *c; c++)
                *c = (char)tolower((unsigned char)*c);
            if (strcmp(k, "include-system-site-packages") == 0)
                pi->system_site = strcasecmp(v, "true") == 0;
            else if (strcmp(k, "home") == 0)
                snprintf(home, homesz, "%s", v);
            else if ((strcmp(k, "version") == 0 || strcmp(k, "version_info") == 0) &&
                     (pi->venv_version[0] == '\0' || strcmp(k, "version") == 0))
                snprintf(pi->venv_version, sizeof pi->venv_version, "%s", v);
        }
        free(buf);
        return 1;
    }
    return 0;
}

/* CPython's prefix landmarks (Modules/getpath.py): the stdlib's os.py, its
 * os.pyc (a stdlib shipped compiled only), or the zipped stdlib
 * LIBDIR/python3X.zip (ZIP_LANDMARK), any of the three. */
static int has_landmark(struct root *r, const char *dir, const char *libdir, int minor)
{
    char p[SP_ROOT_PATH_MAX];
    const char *d = strcmp(dir, "/") ? dir : "";
    snprintf(p, sizeof p, "%s/%s/python3.%d/os.py", d, libdir, minor);
    if (is_file(r, p))
        return 1;
    snprintf(p, sizeof p, "%s/%s/python3.%d/os.pyc", d, libdir, minor);
    if (is_file(r, p))
        return 1;
    snprintf(p, sizeof p, "%s/%s/python3%d.zip", d, libdir, minor);
    return is_file(r, p);
}

/* The minor version a stdlib entry of LIBDIR names: "python3.X" (a
 * folder) or "python3X.zip"; -1 for anything else. */
static int minor_from_libdir_entry(const char *name)
{
    if (strncmp(name, "python3.", 8) == 0)
        return name[8 + strspn(name + 8, "0123456789")] == '\0' ? minor_from_name(name) : -1;
    if (strncmp(name, "python3", 7) != 0 || !isdigit((unsigned char)name[7]))
        return -1;
    size_t d = strspn(name + 7, "0123456789");
    if (d > 3 || strcmp(name + 7 + d, ".zip") != 0)
        return -1;
    return (int)strtol(name + 7, NULL, 10);
}

/* The stdlib landmark search of getpath.py (has_landmark), limited to the interpreter's
 * own prefix candidates: START (the folder of the resolved executable, or
 * a venv's `home`) and the folder above it, so PREFIX/bin/python3.X finds
 * PREFIX/lib/python3.X.  It never climbs further: a stdlib higher up
 * belongs to another interpreter (/usr/bin/ls must not find /usr's).
 * Fills pi->base, pi->libdir, pi->stdlib and (when unknown) pi->minor.
 * Returns 0, 1 when not found (not warned: the caller knows why it
 * looked), 2 when ambiguous (warned unless FLAGS has PY_QUIET). */
static int find_stdlib(struct probe_ctx *ctx, int flags, struct py_interp *pi,
                       const char *start)
{
    static const char *const libdirs[] = { "lib", "lib64" };
    char cands[2][SP_ROOT_PATH_MAX];
    if (copy(cands[0], sizeof cands[0], start) != 0)
        return 1;
    dirname_of(cands[0], cands[1], sizeof cands[1]);
    int ncands = strcmp(cands[0], cands[1]) == 0 ? 1 : 2;
    for (int c = 0; c < ncands; c++) {
        const char *d = cands[c];
        for (int l = 0; l < 2; l++) {
            int minor = pi->minor;
            if (minor < 0) {
                /* Which python3.X under D/lib has the landmark? */
                char ld[SP_ROOT_PATH_MAX];
                char **names;
                size_t n;
                if (join(ld, sizeof ld, d, libdirs[l]) != 0 ||
                    root_list_dir(ctx->root, ld, &names, &n) != 0)
                    continue;
                int found = -1, several = 0;
                for (size_t i = 0; i < n; i++) {
                    int m = minor_from_libdir_entry(names[i]);
                    if (m >= 0 && has_landmark(ctx->root, d, libdirs[l], m)) {
                        several |= found >= 0 && found != m;
                        found = m;
                    }
                }
                root_names_free(names, n);
                if (several) {
                    pwarn(ctx, flags, "python: %s: several lib/python3.X folders and no "
                          "version in the interpreter's name; environment not read", ld);
                    return 2;
                }
                minor = found;
            }
            if (minor >= 0 && has_landmark(ctx->root, d, libdirs[l], minor)) {
                pi->minor = minor;
                copy(pi->base, sizeof pi->base, d);
                snprintf(pi->libdir, sizeof pi->libdir, "%s", libdirs[l]);
                snprintf(pi->stdlib, sizeof pi->stdlib, "%s/%s/python3.%d",
                         strcmp(d, "/") ? d : "", libdirs[l], minor);
                return 0;
            }
        }
    }
    return 1;
}

/* Is there a Python 2 stdlib (lib/python2.X/os.py or os.pyc) in START or
 * the folder above it (find_stdlib's candidates)? */
static int has_py2_stdlib(struct probe_ctx *ctx, const char *start)
{
    char cands[2][SP_ROOT_PATH_MAX];
    if (copy(cands[0], sizeof cands[0], start) != 0)
        return 0;
    dirname_of(cands[0], cands[1], sizeof cands[1]);
    for (int c = 0; c < 2; c++)
        for (int m = 0; m <= 7; m++) {
            char p[SP_ROOT_PATH_MAX], rel[32];
            snprintf(rel, sizeof rel, "lib/python2.%d/os.py", m);
            if (join(p, sizeof p, cands[c], rel) == 0 && is_file(ctx->root, p))
                return 1;
            snprintf(rel, sizeof rel, "lib/python2.%d/os.pyc", m);
            if (join(p, sizeof p, cands[c], rel) == 0 && is_file(ctx->root, p))
                return 1;
        }
    return 0;
}

/* What the resolved executable's name says about its major version: 3 for
 * "python3", "python3.X" with optional ABI letters (t, d, m, u:
 * "python3.13t"); 2 for "python2", "python2.X"; 1 for "python" (either);
 * 0 for anything else. */
static int name_major(const char *name)
{
    if (strncmp(name, "python", 6) != 0)
        return 0;
    const char *s = name + 6;
    if (*s == '\0')
        return 1;
    int major = *s == '3' ? 3 : *s == '2' ? 2 : 0;
    if (major == 0)
        return 0;
    s++;
    if (*s == '.') {
        s++;
        size_t d = strspn(s, "0123456789");
        if (d == 0)
            return 0;
        s += d;
    }
    size_t abi = strspn(s, "tdmu");
    return s[abi] == '\0' && abi <= 3 ? major : 0;
}

/* Does the stdlib's site.py know dist-packages (Debian's patch)? */
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

static int scan_file_version(struct probe_ctx *ctx, const char *path, int minor,
                             char *out, size_t outsz, char *evidence, size_t evsz);

/* A venv whose base interpreter's stdlib cannot be found (the base was
 * removed, or lives where the venv's `home` no longer points): the venv's
 * own site-packages are still certain (PREFIX/lib/python3.X/site-packages,
 * site.venv()), with X from the interpreter's name or from pyvenv.cfg's
 * version / version_info.  Lists them, with one warning; the base's
 * packages are not read.  0 when done, 1 when the venv's own folder is not
 * there either (the caller warns as for any interpreter), -1 on ENOMEM. */
static int venv_own_site(struct probe_ctx *ctx, int flags, struct py_interp *pi,
                         const char *start)
{
    int minor = pi->minor, major = 0, m = -1, from_name = pi->minor >= 0;
    if (minor < 0 && sscanf(pi->venv_version, "%d.%d", &major, &m) == 2 && major == 3 &&
        m >= 0 && m < 1000)
        minor = m;
    char site[SP_ROOT_PATH_MAX];
    if (minor < 0 || snprintf(site, sizeof site, "%s/lib/python3.%d/site-packages",
                              strcmp(pi->prefix, "/") ? pi->prefix : "", minor) >=
                         (int)sizeof site ||
        !root_is_dir(ctx->root, site))
        return 1;
    pi->minor = minor;
    copy(pi->base, sizeof pi->base, pi->prefix);
    snprintf(pi->libdir, sizeof pi->libdir, "lib");
    pi->stdlib[0] = '\0';
    char up[SP_ROOT_PATH_MAX];
    dirname_of(start, up, sizeof up);
    pwarn(ctx, flags, "python: %s: its base interpreter's stdlib (lib/python3.X/os.py, "
          "os.pyc or python3X.zip) is not in %s or %s; only the venv's own %s is read, "
          "Python 3.%d from %s", pi->exe, start, up, site, minor,
          from_name ? "the interpreter's name" : pi->venv_cfg);
    return add_site_dir(ctx, flags, pi, site) < 0 ? -1 : 0;
}

void py_interp_free(struct py_interp *pi)
{
    for (size_t i = 0; i < pi->ndirs; i++) {
        free(pi->dirs[i]);
        root_names_free(pi->names[i], pi->nnames[i]);
        pi->dirs[i] = NULL;
        pi->names[i] = NULL;
    }
    pi->ndirs = 0;
}

int py_interp_open(struct probe_ctx *ctx, const char *exe, const char *how,
                   int flags, struct py_interp *pi)
{
    struct root *r = ctx->root;
    memset(pi, 0, sizeof *pi);
    pi->minor = -1;
    snprintf(pi->how, sizeof pi->how, "%s", how);
    if (exe[0] != '/' || copy(pi->exe, sizeof pi->exe, exe) != 0) {
        pwarn(ctx, flags, "python: %s: not an absolute path inside the root", exe);
        return 1;
    }
    normpath(pi->exe);
    struct root_stat st;
    if (root_stat(r, pi->exe, 1, &st) != 0) {
        pwarn_errno(ctx, flags, "python", pi->exe, errno);
        return 1;
    }
    if (st.type != ROOT_T_FILE) {
        pwarn(ctx, flags, "python: %s: not a regular file", pi->exe);
        return 1;
    }
    char *real = NULL;
    if (root_realpath(r, pi->exe, &real) != 0) {
        if (errno == ENOMEM)
            return -1;
        pwarn_errno(ctx, flags, "python", pi->exe, errno);
        return 1;
    }
    copy(pi->real, sizeof pi->real, real);
    free(real);

    /* Is it a Python 3 interpreter at all?  Its resolved name says so
     * (python3.X), or, for any other name, a 3.X.N version string in it. */
    int major = name_major(basename_of(pi->real));
    if (major == 2) {
        pwarn(ctx, flags, "python: %s: a Python 2 interpreter (resolves to %s); Python 2 "
              "is not supported; environment not read", pi->exe, pi->real);
        pi->real[0] = '\0';
        return 1;
    }

    char home[SP_ROOT_PATH_MAX];
    int v = read_venv_cfg(ctx, flags, pi, home, sizeof home);
    if (v < 0)
        return -1;
    pi->minor = minor_from_name(basename_of(pi->real));
    if (pi->minor < 0)
        pi->minor = minor_from_name(basename_of(pi->exe));

    char start[SP_ROOT_PATH_MAX];
    if (pi->venv && home[0] == '/')
        copy(start, sizeof start, home);
    else
        dirname_of(pi->real, start, sizeof start);
    normpath(start);
    int sflags = major == 0 ? flags | PY_QUIET : flags;
    int found = find_stdlib(ctx, pi->venv && home[0] == '/' ? PY_QUIET : sflags, pi, start);
    if (found != 0 && pi->venv && home[0] == '/') {
        /* `home` names the base's bin folder; if it no longer holds the
         * base, look beside the resolved binary instead */
        dirname_of(pi->real, start, sizeof start);
        found = find_stdlib(ctx, sflags, pi, start);
    }
    if (found == 1 && pi->venv && major != 2) {
        int own = venv_own_site(ctx, flags, pi, start);
        if (own <= 0)
            return own;
    }
    if (found != 0) {
        char up[SP_ROOT_PATH_MAX];
        dirname_of(start, up, sizeof up);
        if (major != 3 && has_py2_stdlib(ctx, start)) {
            pwarn(ctx, flags, "python: %s: a Python 2 interpreter (resolves to %s; "
                  "lib/python2.X beside it); Python 2 is not supported; environment not "
                  "read", pi->exe, pi->real);
            pi->real[0] = '\0';
        } else if (major == 0) {
            pwarn(ctx, flags, "python: %s: not a Python 3 interpreter (resolves to %s: not "
                  "named python3*, and no lib/python3.X/os.py in %s or %s); environment "
                  "not read", pi->exe, pi->real, start, up);
            pi->real[0] = '\0';
        } else if (found == 1) {
            pwarn(ctx, flags, "python: %s: no lib/python3.X/os.py found in %s or %s; "
                  "environment not read", pi->exe, start, up);
        }
        return 1;
    }
    if (major == 0) {
        char version[64], ev[SP_ROOT_PATH_MAX + 64];
        int s = scan_file_version(ctx, pi->real, pi->minor, version, sizeof version,
                                  ev, sizeof ev);
        if (s <= 0) {
            if (s < 0 && errno == ENOMEM)
                return -1;
            pwarn(ctx, flags, "python: %s: not a Python 3 interpreter (resolves to %s: not "
                  "named python3*, and %s); environment not read", pi->exe, pi->real,
                  s < 0 ? "unreadable" : "no Python 3 version string in it");
            pi->real[0] = '\0';
            return 1;
        }
    }
    if (!pi->venv)
        copy(pi->prefix, sizeof pi->prefix, pi->base);

    char sitepy[SP_ROOT_PATH_MAX];
    if (join(sitepy, sizeof sitepy, pi->stdlib, "site.py") == 0)
        pi->debian = file_contains(r, sitepy, "dist-packages", 1u << 20);

    /* sys.path: $PYTHONPATH, the stdlib, then what site.py adds. */
    int workload_live = (flags & PY_WORKLOAD) && r->live;
    if (workload_live) {
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
    }
    char d[SP_ROOT_PATH_MAX];
    if (add_dir(ctx, flags, pi, pi->stdlib) < 0)
        return -1;
    if (join(d, sizeof d, pi->stdlib, "lib-dynload") == 0 && add_dir(ctx, flags, pi, d) < 0)
        return -1;

    if (pi->venv) {
        if (add_site_packages(ctx, flags, pi, pi->prefix, 1) < 0)
            return -1;
        if (pi->system_site && add_site_packages(ctx, flags, pi, pi->base, 1) < 0)
            return -1;
        return 0;
    }
    if (workload_live) {
        const char *nouser = probe_getenv(ctx, "PYTHONNOUSERSITE");
        const char *ubase = probe_getenv(ctx, "PYTHONUSERBASE");
        const char *homeenv = probe_getenv(ctx, "HOME");
        char ub[SP_ROOT_PATH_MAX] = "";
        if (ubase && ubase[0] == '/')
            snprintf(ub, sizeof ub, "%s", ubase);
        else if (homeenv && homeenv[0] == '/')
            snprintf(ub, sizeof ub, "%s/.local", homeenv);
        if (!(nouser && *nouser) && ub[0]) {
            snprintf(d, sizeof d, "%s/lib/python3.%d/site-packages", ub, pi->minor);
            if (add_site_dir(ctx, flags, pi, d) < 0)
                return -1;
        }
    }
    return add_site_packages(ctx, flags, pi, pi->base, 0) < 0 ? -1 : 0;
}

/* ---------- choosing the workload interpreter ---------- */

/* Is the file at PATH a pyenv shim (a script that mentions pyenv)?  When it
 * is, and the shim names PYENV_ROOT, copy that into ROOTOUT. */
static int is_pyenv_shim(struct root *r, const char *path, char *rootout, size_t rsz)
{
    char *buf;
    size_t len;
    struct root_stat st;
    rootout[0] = '\0';
    if (root_stat(r, path, 1, &st) != 0 || st.size > PY_SMALL_FILE_MAX)
        return 0;   /* a shim is a small script; an interpreter binary is not */
    if (root_read_file(r, path, PY_SMALL_FILE_MAX, &buf, &len) != 0)
        return 0;
    int shim = len > 2 && buf[0] == '#' && buf[1] == '!' && memchr(buf, '\0', len) == NULL &&
               strstr(buf, "pyenv") != NULL;
    const char *x = shim ? strstr(buf, "export PYENV_ROOT=\"") : NULL;
    if (x) {
        x += strlen("export PYENV_ROOT=\"");
        size_t n = strcspn(x, "\"\n");
        if (x[n] == '"' && n < rsz && x[0] == '/')
            snprintf(rootout, rsz, "%.*s", (int)n, x);
    }
    free(buf);
    return shim;
}

/* The versions pyenv would use, as one string of words, and where from:
 * $PYENV_VERSION, a .python-version in $PWD or above, $PYENV_ROOT/version,
 * else "system". */
static int pyenv_versions(struct probe_ctx *ctx, const char *pyroot, char *out,
                          size_t outsz, char *from, size_t fromsz)
{
    const char *env = probe_getenv(ctx, "PYENV_VERSION");
    if (env && *env) {
        snprintf(out, outsz, "%s", env);
        for (char *c = out; *c; c++)
            if (*c == ':')
                *c = ' ';
        snprintf(from, fromsz, "$PYENV_VERSION");
        return 0;
    }
    char dir[SP_ROOT_PATH_MAX], file[SP_ROOT_PATH_MAX];
    const char *pwd = probe_getenv(ctx, "PWD");
    int have_pwd = pwd && pwd[0] == '/' && copy(dir, sizeof dir, pwd) == 0;
    if (have_pwd)
        normpath(dir);
    for (int up = 0; have_pwd && up < PY_UPWARD_MAX + 16; up++) {
        if (join(file, sizeof file, dir, ".python-version") == 0 && is_file(ctx->root, file))
            goto read;
        if (strcmp(dir, "/") == 0)
            break;
        char parent[SP_ROOT_PATH_MAX];
        dirname_of(dir, parent, sizeof parent);
        copy(dir, sizeof dir, parent);
    }
    if (join(file, sizeof file, pyroot, "version") != 0 || !is_file(ctx->root, file)) {
        snprintf(out, outsz, "system");
        snprintf(from, fromsz, "pyenv's default");
        return 0;
    }
read: {
        char *buf = read_small(ctx->root, file, PY_SMALL_FILE_MAX);
        if (buf == NULL)
            return errno == ENOMEM ? -1 : 1;
        /* words, comments from '#' to the end of the line */
        out[0] = '\0';
        size_t w = 0;
        for (char *save = NULL, *line = strtok_r(buf, "\n", &save); line;
             line = strtok_r(NULL, "\n", &save)) {
            char *hash = strchr(line, '#');
            if (hash)
                *hash = '\0';
            for (char *s2 = NULL, *word = strtok_r(line, " \t\r", &s2); word;
                 word = strtok_r(NULL, " \t\r", &s2)) {
                int n = snprintf(out + w, outsz - w, "%s%s", w ? " " : "", word);
                if (n < 0 || (size_t)n >= outsz - w)
                    break;
                w += (size_t)n;
            }
        }
        free(buf);
        snprintf(from, fromsz, "%s", file);
        if (w == 0) {
            snprintf(out, outsz, "system");
        }
        return 0;
    }
}

/* Is PATH an executable regular file (links followed)? */
static int is_exec(struct root *r, const char *path)
{
    struct root_stat st;
    return root_stat(r, path, 1, &st) == 0 && st.type == ROOT_T_FILE && (st.mode & 0111);
}

static int search_path(struct probe_ctx *ctx, int flags, const char *path_env, int skip_shims,
                       char *exe, size_t exesz, char *how, size_t howsz);

/* The interpreter the pyenv shim CAND would run (PYROOT: the PYENV_ROOT the
 * shim exports, or ""): $PYENV_ROOT/versions/<v>/bin/python3 for the first
 * installed <v> of pyenv_versions(), "system" meaning the next python3 on
 * PATH_ENV after the shims.  WHAT starts the evidence.  Returns 0 with EXE
 * and HOW filled, 1 when it cannot be resolved (warned), -1 ENOMEM. */
static int resolve_shim(struct probe_ctx *ctx, int flags, const char *cand, char *pyroot,
                        size_t rootsz, const char *path_env, const char *what,
                        char *exe, size_t exesz, char *how, size_t howsz)
{
    const char *envroot = probe_getenv(ctx, "PYENV_ROOT");
    const char *homeenv = probe_getenv(ctx, "HOME");
    if (pyroot[0] != '\0')
        ;   /* the shim exports its own PYENV_ROOT, which wins */
    else if (envroot && envroot[0] == '/')
        snprintf(pyroot, rootsz, "%s", envroot);
    else if (homeenv && homeenv[0] == '/')
        snprintf(pyroot, rootsz, "%s/.pyenv", homeenv);
    if (pyroot[0] == '\0') {
        pwarn(ctx, flags, "python: %s: a pyenv shim, but PYENV_ROOT is unknown", cand);
        return 1;
    }
    char versions[1024], from[SP_ROOT_PATH_MAX + 32];
    int rc = pyenv_versions(ctx, pyroot, versions, sizeof versions, from, sizeof from);
    if (rc < 0)
        return -1;
    if (rc > 0) {
        pwarn(ctx, flags, "python: %s: a pyenv shim whose version file cannot be read", cand);
        return 1;
    }
    char *save = NULL;
    for (char *word = strtok_r(versions, " ", &save); word; word = strtok_r(NULL, " ", &save)) {
        if (strcmp(word, "system") == 0) {
            int s = search_path(ctx, flags, path_env, 1, exe, exesz, how, howsz);
            if (s <= 0)
                return s;
            pwarn(ctx, flags, "python: %s: pyenv version \"system\" (from %s), but no "
                  "other python3 on $PATH", cand, from);
            continue;
        }
        char vexe[SP_ROOT_PATH_MAX];
        if (strchr(word, '/') != NULL ||
            snprintf(vexe, sizeof vexe, "%s/versions/%s/bin/python3", pyroot, word) >=
                (int)sizeof vexe)
            continue;
        if (is_exec(ctx->root, vexe)) {
            copy(exe, exesz, vexe);
            if (snprintf(how, howsz, "%s the pyenv shim %s; pyenv version %s from %s",
                         what, cand, word, from) >= (int)howsz)
                how[howsz - 1] = '\0';
            return 0;
        }
        pwarn(ctx, flags, "python: %s: pyenv version %s (from %s) is not installed",
              vexe, word, from);
    }
    return 1;
}

/* Search $PATH for python3, resolving pyenv shims.  SKIP_SHIMS: pyenv said
 * "system", so shims folders are passed over.  Returns 0 with EXE and HOW
 * filled, 1 when not found, -1 ENOMEM. */
static int search_path(struct probe_ctx *ctx, int flags, const char *path_env, int skip_shims,
                       char *exe, size_t exesz, char *how, size_t howsz)
{
    const char *p = path_env;
    for (int entries = 0; p && *p && entries < PY_PATH_ENTRIES_MAX; entries++) {
        size_t n = strcspn(p, ":");
        char dir[SP_ROOT_PATH_MAX], cand[SP_ROOT_PATH_MAX];
        int ok = n > 0 && n < sizeof dir && p[0] == '/';
        if (ok) {
            memcpy(dir, p, n);
            dir[n] = '\0';
        }
        p += n;
        if (*p == ':')
            p++;
        if (!ok || join(cand, sizeof cand, dir, "python3") != 0 || !is_exec(ctx->root, cand))
            continue;
        char pyroot[SP_ROOT_PATH_MAX];
        if (!is_pyenv_shim(ctx->root, cand, pyroot, sizeof pyroot)) {
            copy(exe, exesz, cand);
            snprintf(how, howsz, "first python3 on $PATH%s", skip_shims ?
                     " after the pyenv shims (pyenv version \"system\")" : "");
            return 0;
        }
        if (skip_shims)
            continue;
        int rc = resolve_shim(ctx, flags, cand, pyroot, sizeof pyroot, path_env,
                              "first python3 on $PATH is", exe, exesz, how, howsz);
        if (rc <= 0)
            return rc;
    }
    return 1;
}

int py_choose_workload(struct probe_ctx *ctx, int flags, struct py_interp *pi)
{
    static const char *const std_bins[] = {
        "/usr/local/bin/python3", "/usr/bin/python3", "/bin/python3",
    };
    char exe[SP_ROOT_PATH_MAX], how[1024];
    flags |= PY_WORKLOAD;
    memset(pi, 0, sizeof *pi);
    if (ctx->python) {
        /* `--python $(which python3)` on a pyenv machine names the shim */
        char pyroot[SP_ROOT_PATH_MAX];
        if (ctx->python[0] == '/' && is_pyenv_shim(ctx->root, ctx->python, pyroot, sizeof pyroot)) {
            int rc = resolve_shim(ctx, flags, ctx->python, pyroot, sizeof pyroot,
                                  probe_getenv(ctx, "PATH"), "--python names", exe, sizeof exe,
                                  how, sizeof how);
            if (rc < 0)
                return -1;
            if (rc == 0)
                return py_interp_open(ctx, exe, how, flags, pi);
        }
        snprintf(how, sizeof how, "--python %s", ctx->python);
        return py_interp_open(ctx, ctx->python, how, flags, pi);
    }
    if (ctx->root->live) {
        const char *venv = probe_getenv(ctx, "VIRTUAL_ENV");
        if (venv && venv[0] == '/') {
            snprintf(exe, sizeof exe, "%s/bin/python3", venv);
            if (root_exists(ctx->root, exe)) {
                snprintf(how, sizeof how, "$VIRTUAL_ENV=%s", venv);
                return py_interp_open(ctx, exe, how, flags, pi);
            }
            pwarn(ctx, flags, "python: %s: $VIRTUAL_ENV names a folder without "
                  "bin/python3; looking on $PATH", exe);
        }
        const char *path = probe_getenv(ctx, "PATH");
        int rc = search_path(ctx, flags, path, 0, exe, sizeof exe, how, sizeof how);
        if (rc < 0)
            return -1;
        if (rc == 0)
            return py_interp_open(ctx, exe, how, flags, pi);
    }
    for (size_t i = 0; i < sizeof std_bins / sizeof *std_bins; i++) {
        if (!root_exists(ctx->root, std_bins[i]))
            continue;
        snprintf(how, sizeof how, "first of /usr/local/bin/python3, /usr/bin/python3, "
                 "/bin/python3%s", ctx->root->live ? " (none on $PATH)" : "");
        return py_interp_open(ctx, std_bins[i], how, flags, pi);
    }
    pwarn(ctx, flags, "python: no python3 found (%s/usr/local/bin, /usr/bin, /bin)",
          ctx->root->live ? "$PATH, " : "");
    return 1;
}

/* ---------- the full version ---------- */

/* Parse "N[aN|bN|rcN][+]" at S (at most LEN bytes).  Returns the token
 * length (after the "3.M." needle) when it ends in a NUL inside the buffer,
 * 0 when it does not match, -1 when the buffer ends first. */
static long version_tail(const char *s, size_t len)
{
    size_t i = 0, d = 0;
    while (i < len && isdigit((unsigned char)s[i]) && d < 4) {
        i++;
        d++;
    }
    if (i == len)
        return -1;
    if (d == 0)
        return 0;
    const char *pre[] = { "rc", "a", "b" };
    for (int k = 0; k < 3; k++) {
        size_t pl = strlen(pre[k]);
        if (len - i >= pl && memcmp(s + i, pre[k], pl) == 0) {
            size_t j = i + pl, dd = 0;
            while (j < len && isdigit((unsigned char)s[j]) && dd < 4) {
                j++;
                dd++;
            }
            if (j == len)
                return -1;
            if (dd > 0)
                i = j;
            break;
        }
    }
    if (i < len && s[i] == '+')
        i++;
    if (i == len)
        return -1;
    return s[i] == '\0' ? (long)i : 0;
}

/* First acceptable match starting in [FROM, TO) of BUF; -1 if none.  A
 * match whose end lies beyond LEN is not accepted (the caller sees it
 * again with more bytes). */
static long scan_range(const char *buf, size_t len, size_t from, size_t to, int minor,
                       char *out, size_t outsz)
{
    char needle[16];
    int nl = snprintf(needle, sizeof needle, "3.%d.", minor);
    if (from < 1)
        from = 1;
    size_t pos = from;
    while (pos < to && pos < len) {
        const char *hit = memmem(buf + pos, len - pos, needle, (size_t)nl);
        if (hit == NULL)
            return -1;
        size_t at = (size_t)(hit - buf);
        if (at >= to)
            return -1;
        unsigned char prev = (unsigned char)buf[at - 1];
        if (prev == '\0' || prev == '/' || prev == '-') {
            long t = version_tail(hit + nl, len - at - (size_t)nl);
            if (t > 0) {
                snprintf(out, outsz, "%.*s", (int)(nl + t), hit);
                return (long)at;
            }
        }
        pos = at + 1;
    }
    return -1;
}

long py_version_scan_buffer(const char *buf, size_t len, int minor, char *out, size_t outsz)
{
    return scan_range(buf, len, 1, len, minor, out, outsz);
}

struct vscan {
    int minor;
    char tail[64];
    size_t tl;
    uint64_t offset;       /* file offset of the current chunk */
    long long found_at;
    char found[32];
};

static int vscan_cb(void *vctx, const char *chunk, size_t n)
{
    struct vscan *v = vctx;
    if (v->tl > 0) {
        char edge[128];
        size_t take = n < 64 ? n : 64;
        memcpy(edge, v->tail, v->tl);
        memcpy(edge + v->tl, chunk, take);
        long at = scan_range(edge, v->tl + take, 1, v->tl + 1, v->minor, v->found,
                             sizeof v->found);
        if (at >= 0) {
            v->found_at = (long long)(v->offset - v->tl + (uint64_t)at);
            return 1;
        }
    }
    long at = scan_range(chunk, n, 1, n, v->minor, v->found, sizeof v->found);
    if (at >= 0) {
        v->found_at = (long long)(v->offset + (uint64_t)at);
        return 1;
    }
    v->tl = n < sizeof v->tail ? n : sizeof v->tail;
    memcpy(v->tail, chunk + n - v->tl, v->tl);
    v->offset += n;
    return 0;
}

/* Scan one file; 1 found (OUT, EVIDENCE), 0 not found, -1 unreadable. */
static int scan_file_version(struct probe_ctx *ctx, const char *path, int minor,
                             char *out, size_t outsz, char *evidence, size_t evsz)
{
    struct vscan v = { .minor = minor, .found_at = -1 };
    if (root_scan_file(ctx->root, path, PY_VERSION_SCAN_MAX, vscan_cb, &v) != 0)
        return -1;
    if (v.found_at < 0)
        return 0;
    snprintf(out, outsz, "%s", v.found);
    snprintf(evidence, evsz, "%s: version string at byte %lld", path, v.found_at);
    return 1;
}

/* A full version "3.M.N[...]" for this interpreter? */
static int version_ok(const char *s, int minor)
{
    char needle[16];
    int nl = snprintf(needle, sizeof needle, "3.%d.", minor);
    if (strncmp(s, needle, (size_t)nl) != 0)
        return 0;
    size_t len = strlen(s);
    char tmp[80];
    if (len + 1 > sizeof tmp)
        return 0;
    memcpy(tmp, s, len + 1);   /* version_tail wants a NUL after the token */
    return version_tail(tmp + nl, len + 1 - (size_t)nl) == (long)(len - (size_t)nl);
}

/* virtualenv's version_info "3.11.7.final.0" -> "3.11.7";
 * "3.12.0.candidate.1" -> "3.12.0rc1"; uv's "3.12.1" stays. */
static void venv_version_normalise(const char *in, char *out, size_t outsz)
{
    int a, b, c, serial;
    char level[16];
    if (sscanf(in, "%d.%d.%d.%15[a-z].%d", &a, &b, &c, level, &serial) == 5) {
        const char *tag = strcmp(level, "alpha") == 0 ? "a" :
                          strcmp(level, "beta") == 0 ? "b" :
                          strcmp(level, "candidate") == 0 ? "rc" : NULL;
        if (strcmp(level, "final") == 0)
            snprintf(out, outsz, "%d.%d.%d", a, b, c);
        else if (tag)
            snprintf(out, outsz, "%d.%d.%d%s%d", a, b, c, tag, serial);
        else
            snprintf(out, outsz, "%s", in);
        return;
    }
    snprintf(out, outsz, "%s", in);
}

int py_interp_version(struct probe_ctx *ctx, const struct py_interp *pi, int flags,
                      char *out, size_t outsz, char *evidence, size_t evsz)
{
    char tried[2048] = "";
    size_t tl = 0;
#define TRIED(...) do { int n_ = snprintf(tried + tl, sizeof tried - tl, __VA_ARGS__); \
        if (n_ > 0 && (size_t)n_ < sizeof tried - tl) tl += (size_t)n_; } while (0)

    if (pi->venv && pi->venv_version[0]) {
        char v[64];
        venv_version_normalise(pi->venv_version, v, sizeof v);
        if (version_ok(v, pi->minor)) {
            snprintf(out, outsz, "%s", v);
            snprintf(evidence, evsz, "%s: version %s", pi->venv_cfg, pi->venv_version);
            return 0;
        }
        pwarn(ctx, flags, "python.version: %s: version \"%s\" does not match lib/python3.%d; "
              "not used", pi->venv_cfg, pi->venv_version, pi->minor);
        TRIED("%s", pi->venv_cfg);
    }
    /* conda: <base>/conda-meta/python-3.X.Y-<build>.json */
    char cm[SP_ROOT_PATH_MAX];
    char **names;
    size_t n;
    if (join(cm, sizeof cm, pi->base, "conda-meta") == 0 &&
        root_list_dir(ctx->root, cm, &names, &n) == 0) {
        int found = 0;
        for (size_t i = 0; i < n && !found; i++) {
            const char *nm = names[i];
            if (strncmp(nm, "python-", 7) != 0 || !isdigit((unsigned char)nm[7]) ||
                !ends_with_ci(nm, ".json"))
                continue;
            size_t vl = strcspn(nm + 7, "-");
            char v[64];
            if (vl >= sizeof v || nm[7 + vl] != '-')
                continue;
            snprintf(v, sizeof v, "%.*s", (int)vl, nm + 7);
            if (version_ok(v, pi->minor)) {
                snprintf(out, outsz, "%s", v);
                snprintf(evidence, evsz, "%s/%s", cm, nm);
                found = 1;
            }
        }
        root_names_free(names, n);
        if (found)
            return 0;
        TRIED("%s%s", tl ? ", " : "", cm);
    }
    /* <base>/include/python3.X/patchlevel.h: the header the interpreter was
     * built from (pyenv, conda and source builds install it; Debian with
     * python3.X-dev, whose version dpkg pins to the interpreter's) */
    char ph[SP_ROOT_PATH_MAX], rel[64];
    snprintf(rel, sizeof rel, "include/python3.%d/patchlevel.h", pi->minor);
    if (join(ph, sizeof ph, pi->base, rel) == 0) {
        char *buf;
        size_t len;
        if (root_read_file(ctx->root, ph, PY_PATCHLEVEL_MAX, &buf, &len) == 0) {
            const char *d = strstr(buf, "#define PY_VERSION ");
            char v[64];
            if (d && sscanf(d + 19, " \"%63[^\"]\"", v) == 1 && version_ok(v, pi->minor)) {
                snprintf(out, outsz, "%s", v);
                snprintf(evidence, evsz, "%s: PY_VERSION", ph);
                free(buf);
                return 0;
            }
            free(buf);
            TRIED("%s%s", tl ? ", " : "", ph);
        } else if (errno != ENOENT) {
            /* there but unreadable (content not kept from an image, too
             * big): said, before the next source is tried */
            pwarn_errno(ctx, flags, "python.version", ph, errno);
            TRIED("%s%s", tl ? ", " : "", ph);
        }
    }
    /* the PY_VERSION string in the binary, then in libpython */
    int rc = scan_file_version(ctx, pi->real, pi->minor, out, outsz, evidence, evsz);
    if (rc > 0)
        return 0;
    TRIED("%s%s%s", tl ? ", " : "", pi->real, rc < 0 ? " (unreadable)" : "");
    char ld[SP_ROOT_PATH_MAX], prefix_name[32];
    snprintf(prefix_name, sizeof prefix_name, "libpython3.%d", pi->minor);
    if (join(ld, sizeof ld, pi->base, pi->libdir) == 0 &&
        root_list_dir(ctx->root, ld, &names, &n) == 0) {
        char last_real[SP_ROOT_PATH_MAX] = "";
        for (size_t i = 0; i < n; i++) {
            const char *nm = names[i];
            size_t pl = strlen(prefix_name);
            if (strncmp(nm, prefix_name, pl) != 0 || strstr(nm + pl, ".so") == NULL ||
                isdigit((unsigned char)nm[pl]))
                continue;
            char lib[SP_ROOT_PATH_MAX];
            char *lr = NULL;
            if (join(lib, sizeof lib, ld, nm) != 0 || root_realpath(ctx->root, lib, &lr) != 0)
                continue;
            int same = strcmp(lr, last_real) == 0;
            snprintf(last_real, sizeof last_real, "%s", lr);
            free(lr);
            if (same)
                continue;
            rc = scan_file_version(ctx, lib, pi->minor, out, outsz, evidence, evsz);
            if (rc > 0) {
                root_names_free(names, n);
                return 0;
            }
            TRIED(", %s%s", lib, rc < 0 ? " (unreadable)" : "");
        }
        root_names_free(names, n);
    }
    pwarn(ctx, flags, "python.version: %s: no full 3.%d.N version found (tried %s); "
          "not recorded", pi->exe, pi->minor, tried);
#undef TRIED
    return 1;
}

/* ---------- METADATA headers ---------- */

struct hdr_read {
    char *buf;        /* the header bytes read, line ends made "\n" */
    size_t len, cap;
    uint64_t raw;     /* bytes of the file seen */
    int cr;           /* the last byte read was a CR (a "\n" may follow) */
    int done;         /* saw the blank line */
    int over;         /* crossed PY_METADATA_HEADER_MAX */
};

/* Offset just past the header block's last line (before the blank line) in
 * B[0..N), whose line ends are all "\n", or -1 when no blank line yet.
 * FROM: bytes before it were searched already. */
static long header_end(const char *b, size_t n, size_t from)
{
    if (n >= 1 && b[0] == '\n')
        return 0;   /* the first line is blank: no headers */
    size_t i = from ? from - 1 : 0;
    while (i + 1 < n) {
        const char *nl = memchr(b + i, '\n', n - 1 - i);
        if (nl == NULL)
            break;
        i = (size_t)(nl - b);
        if (b[i + 1] == '\n')
            return (long)i + 1;
        i++;
    }
    return -1;
}

/* Collect the header block.  Line ends are read as Python reads METADATA
 * (importlib.metadata opens it as text with universal newlines, and the
 * email parser splits on the same): "\r\n", "\r" and "\n" each end one
 * line, and are stored as "\n", the CR state carried across chunks. */
static int hdr_cb(void *vctx, const char *chunk, size_t n)
{
    struct hdr_read *h = vctx;
    size_t old = h->len;
    h->raw += n;
    size_t want = old + (n < PY_METADATA_HEADER_MAX - old ? n : PY_METADATA_HEADER_MAX - old);
    if (want + 1 > h->cap) {
        size_t ncap = h->cap ? h->cap : 8192;
        while (ncap < want + 1)
            ncap *= 2;
        char *nb = realloc(h->buf, ncap);
        if (nb == NULL)
            return -1;
        h->buf = nb;
        h->cap = ncap;
    }
    size_t i = 0;
    while (i < n) {
        char c = chunk[i];
        if (c == '\n' && h->cr) {       /* the LF of a CRLF: already stored */
            h->cr = 0;
            i++;
            continue;
        }
        if (h->len >= PY_METADATA_HEADER_MAX)
            break;
        h->cr = c == '\r';
        h->buf[h->len++] = h->cr ? '\n' : c;
        i++;
    }
    h->buf[h->len] = '\0';
    long end = header_end(h->buf, h->len, old);
    if (end >= 0) {
        h->len = (size_t)end;
        h->buf[h->len] = '\0';
        h->done = 1;
        return 1;
    }
    if (i < n) {
        h->over = 1;
        return 1;
    }
    return 0;
}

void py_metadata_free(struct py_metadata *m)
{
    for (size_t i = 0; i < m->nrequires; i++)
        free(m->requires[i]);
    m->nrequires = 0;
}

/* Is the NUL-terminated S valid UTF-8?  ASCII is answered without a copy. */
static int valid_utf8(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p && *p < 0x80)
        p++;
    if (*p == '\0')
        return 1;
    size_t n = strlen(s);
    char *san = sp_utf8_sanitize(s, n);
    if (san == NULL)
        return 1;
    int ok = strlen(san) == n;
    free(san);
    return ok;
}

/* Is LINE (LEN bytes) a header line "Name: value"?  Python's feedparser
 * takes printable ASCII other than ':' up to the colon. */
static int header_name_len(const char *line, size_t len)
{
    size_t i = 0;
    while (i < len && line[i] != ':' && (unsigned char)line[i] > 32 && (unsigned char)line[i] < 127)
        i++;
    return i > 0 && i < len && line[i] == ':' ? (int)i : -1;
}

static void set_field(char *dst, const char *v, size_t vl, int *too_long)
{
    if (dst[0] != '\0')
        return;   /* first occurrence wins (Message.get) */
    while (vl > 0 && isspace((unsigned char)*v)) {
        v++;
        vl--;
    }
    while (vl > 0 && isspace((unsigned char)v[vl - 1]))
        vl--;
    if (vl >= PY_FIELD_MAX) {
        *too_long = 1;
        return;
    }
    memcpy(dst, v, vl);
    dst[vl] = '\0';
}

int py_metadata_read(struct root *r, const char *path, int want_requires,
                     struct py_metadata *m)
{
    struct hdr_read h = { 0 };
    memset(m, 0, sizeof *m);
    /* Most header blocks fit in the first PY_METADATA_FIRST_READ bytes:
     * read those, and only when the blank line is not among them (and the
     * file goes on) read again up to PY_METADATA_HEADER_MAX. */
    uint64_t max = PY_METADATA_FIRST_READ;
    for (int pass = 0; pass < 2; pass++) {
        if (root_scan_file(r, path, max, hdr_cb, &h) != 0) {
            int saved = errno;
            free(h.buf);
            errno = saved;
            return -1;
        }
        if (h.done || h.over || h.raw < max)
            break;
        h.len = 0;
        h.raw = 0;
        h.cr = 0;
        max = (uint64_t)PY_METADATA_HEADER_MAX + 1;
    }
    if (h.buf == NULL) {
        return 0;   /* empty file: no headers */
    }
    m->truncated = h.over;
    m->binary = memchr(h.buf, '\0', h.len) != NULL;
    if (m->binary) {
        free(h.buf);
        return 0;
    }
    /* Walk header lines: a line starting with space or tab continues the
     * previous header; a line that is not a header ends the block. */
    char *p = h.buf, *end = h.buf + h.len;
    char *cur = NULL;          /* value of the header being folded */
    size_t curlen = 0;
    enum { F_NONE, F_NAME, F_VERSION, F_REQ } field = F_NONE;
    char *req = NULL;
    size_t reqlen = 0;
    int rc = 0;
    for (;;) {
        char *line = p;
        char *nl = p < end ? memchr(p, '\n', (size_t)(end - p)) : NULL;
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        int last = p >= end;
        if (len > 0 && line[len - 1] == '\r')
            len--;
        int cont = !last && len > 0 && (line[0] == ' ' || line[0] == '\t');
        if (!cont && field != F_NONE) {
            /* finish the previous header */
            if (field == F_NAME)
                set_field(m->name, cur, curlen, &m->too_long);
            else if (field == F_VERSION)
                set_field(m->version, cur, curlen, &m->too_long);
            else if (field == F_REQ && req && m->nrequires < PY_REQUIRES_MAX) {
                char *s = strndup(req, reqlen);
                if (s == NULL) {
                    rc = -1;
                    break;
                }
                m->requires[m->nrequires++] = s;
            }
            free(req);
            req = NULL;
            field = F_NONE;
        }
        if (last)
            break;
        if (cont) {
            if (field == F_REQ) {
                char *nr = realloc(req, reqlen + len + 1);
                if (nr == NULL) {
                    rc = -1;
                    break;
                }
                req = nr;
                memcpy(req + reqlen, line, len);
                reqlen += len;
            }
            /* Name and Version are single words: a folded one keeps its
             * first line only */
        } else {
            int hn = header_name_len(line, len);
            if (hn < 0)
                break;   /* not a header: the body starts here */
            cur = line + hn + 1;
            curlen = len - (size_t)hn - 1;
            if ((size_t)hn == 4 && strncasecmp(line, "Name", 4) == 0)
                field = F_NAME;
            else if ((size_t)hn == 7 && strncasecmp(line, "Version", 7) == 0)
                field = F_VERSION;
            else if (want_requires && (size_t)hn == 13 &&
                     strncasecmp(line, "Requires-Dist", 13) == 0) {
                field = F_REQ;
                if ((req = strndup(cur, curlen)) == NULL) {
                    rc = -1;
                    break;
                }
                reqlen = curlen;
            }
        }
        if (nl == NULL)
            p = end;
        else
            p = nl + 1;
    }
    free(req);
    free(h.buf);
    m->not_utf8 = !valid_utf8(m->name) || !valid_utf8(m->version);
    if (rc != 0) {
        py_metadata_free(m);
        errno = ENOMEM;
    }
    return rc;
}

/* ---------- distributions ---------- */

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
    if (join(path, sizeof path, dir, entry) != 0)
        return 0;
    struct root_stat st;
    if (root_stat(ctx->root, path, 1, &st) != 0) {
        pwarn_errno(ctx, flags, "pip", path, errno);
        return 0;
    }
    struct py_metadata m;
    int got = 0;
    if (st.type == ROOT_T_DIR) {
        static const char *const files[] = { "METADATA", "PKG-INFO" };
        for (int i = 0; i < 2 && !got; i++) {
            if (join(meta, sizeof meta, path, files[i]) != 0)
                break;
            if (py_metadata_read(ctx->root, meta, 0, &m) == 0) {
                got = 1;
            } else if (errno == ENOMEM) {
                return -1;
            } else if (errno != ENOENT) {
                pwarn_errno(ctx, flags, "pip", meta, errno);
                return 0;
            }
        }
        if (!got) {
            pwarn(ctx, flags, "pip: %s: no METADATA or PKG-INFO; not recorded", path);
            return 0;
        }
    } else if (st.type == ROOT_T_FILE) {
        copy(meta, sizeof meta, path);
        if (py_metadata_read(ctx->root, meta, 0, &m) != 0) {
            if (errno == ENOMEM)
                return -1;
            pwarn_errno(ctx, flags, "pip", meta, errno);
            return 0;
        }
    } else {
        pwarn(ctx, flags, "pip: %s: not a file or folder", path);
        return 0;
    }
    if (m.binary) {
        pwarn(ctx, flags, "pip: %s: binary data (NUL bytes) in the headers; not recorded", meta);
        return 0;
    }
    if (m.truncated)
        pwarn(ctx, flags, "pip: %s: headers longer than %u bytes; only those read",
              meta, PY_METADATA_HEADER_MAX);
    if (m.too_long) {
        pwarn(ctx, flags, "pip: %s: Name or Version longer than %d bytes; not recorded",
              meta, PY_FIELD_MAX);
        return 0;
    }
    if (m.name[0] == '\0' || m.version[0] == '\0') {
        pwarn(ctx, flags, "pip: %s: no %s header; not recorded", meta,
              m.name[0] ? "Version" : "Name");
        return 0;
    }
    if (!usable_name(m.name)) {
        pwarn(ctx, flags, "pip: %s: Name \"%s\" cannot be a key; not recorded", meta, m.name);
        return 0;
    }
    char norm[PY_FIELD_MAX], key[SP_FACT_KEY_MAX + 1];
    if (fact_name_pep503(m.name, norm, sizeof norm) != 0 ||
        snprintf(key, sizeof key, "%s%s", keyprefix, norm) >= (int)sizeof key) {
        pwarn(ctx, flags, "pip: %s: Name too long for a key; not recorded", meta);
        return 0;
    }
    if (!fact_key_valid(key)) {
        pwarn(ctx, flags, "pip: %s: Name \"%s\" has bytes outside the fact-key alphabet; "
              "not recorded", meta, m.name);
        return 0;
    }
    if (m.not_utf8)
        pwarn(ctx, flags, "%s: %s: bytes that are not UTF-8 in the headers (escaped as \\xNN)",
              key, meta);
    if (!egg_dir_child) {
        char dname[PY_FIELD_MAX], dversion[PY_FIELD_MAX], dnorm[PY_FIELD_MAX];
        split_entry(entry, dname, sizeof dname, dversion, sizeof dversion);
        if (fact_name_pep503(dname, dnorm, sizeof dnorm) == 0 && strcmp(dnorm, norm) != 0)
            pwarn(ctx, flags, "%s: %s: folder name says \"%s\" but METADATA says \"%s\"; "
                  "METADATA is authoritative", key, path, dname, m.name);
        else if (dversion[0] && !same_version_text(dversion, m.version))
            pwarn(ctx, flags, "%s: %s: folder name says version \"%s\" but METADATA says "
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
        int egg = ends_with_ci(dir, ".egg");
        for (size_t k = 0; k < pi->nnames[i] && rc == 0; k++) {
            const char *entry = pi->names[i][k];
            int child = egg && strcasecmp(entry, "EGG-INFO") == 0;
            if (!child && !ends_with_ci(entry, ".dist-info") && !ends_with_ci(entry, ".egg-info"))
                continue;
            if (n >= PY_DISTS_MAX) {
                pwarn(ctx, flags, "pip: %s: more than %d distributions; the rest not read",
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
                pwarn(ctx, flags, "%s: %s: two distributions in one folder (%s %s, %s %s); "
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

/* ---------- packages and slugs ---------- */

int py_find_package(struct probe_ctx *ctx, const struct py_interp *pi,
                    const char *name, char *out, size_t outsz)
{
    for (size_t i = 0; i < pi->ndirs; i++) {
        char pkg[SP_ROOT_PATH_MAX], init[SP_ROOT_PATH_MAX];
        int listed = 0;
        for (size_t k = 0; k < pi->nnames[i] && !listed; k++)
            listed = strcmp(pi->names[i][k], name) == 0;
        if (!listed || join(pkg, sizeof pkg, pi->dirs[i], name) != 0 ||
            join(init, sizeof init, pkg, "__init__.py") != 0 || !is_file(ctx->root, init))
            continue;
        snprintf(out, outsz, "%s", pkg);
        return 0;
    }
    return 1;
}

int py_slug(const char *path, char *out, size_t outsz)
{
    while (*path == '/')
        path++;
    size_t n = strlen(path);
    while (n > 0 && path[n - 1] == '/')
        n--;
    if (n == 0 || n >= outsz)
        return -1;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)tolower((unsigned char)path[i]);
        out[i] = (char)((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ? c : '_');
    }
    out[n] = '\0';
    return 0;
}
