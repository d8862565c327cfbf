/* fingerprint/probes/python/py_getpath.c: which interpreter a path names
 * and where its environment is, as CPython's Modules/getpath.py computes
 * sys.prefix and sys.base_prefix at start-up, read through the root
 * without running anything: the executable's links resolved; pyvenv.cfg
 * next to the unresolved executable or one folder up (PEP 405: `home`,
 * `include-system-site-packages`, `version`); the stdlib landmark
 * (lib/python3.X/os.py, os.pyc, or lib/python3X.zip) in the folder of the
 * resolved executable (or the venv's `home`) or the one above it, never
 * higher: a stdlib further up belongs to another interpreter.  A Python 2
 * interpreter, or a file that is no Python at all, is refused with a
 * warning.  The sys.path it then builds is py_site.c's. */
#include "fingerprint/probes/python/py_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* "python3.11" -> 11; "python3.12t" -> 12; else -1. */
static int minor_from_name(const char *name)
{
    if (strncmp(name, "python3.", 8) != 0 || !isdigit((unsigned char)name[8]))
        return -1;
    long v = strtol(name + 8, NULL, 10);
    return v >= 0 && v < 1000 ? (int)v : -1;
}

/* pyvenv.cfg next to the unresolved executable or one folder up
 * (site.venv()).  Returns 1 when one applies, 0 when none, -1 ENOMEM. */
static int read_venv_cfg(struct probe_ctx *ctx, int flags, struct py_interp *pi,
                         char *home, size_t homesz)
{
    char exe_dir[SP_ROOT_PATH_MAX], site_prefix[SP_ROOT_PATH_MAX], cfg[SP_ROOT_PATH_MAX];
    py_dirname(pi->exe, exe_dir, sizeof exe_dir);
    py_dirname(exe_dir, site_prefix, sizeof site_prefix);
    const char *cands[2] = { exe_dir, site_prefix };
    home[0] = '\0';
    for (int i = 0; i < 2; i++) {
        if (sp_path_join(cfg, sizeof cfg, cands[i], "pyvenv.cfg") != 0 || !py_is_file(ctx->root, cfg))
            continue;
        py_copy(pi->venv_cfg, sizeof pi->venv_cfg, cfg);
        py_copy(pi->prefix, sizeof pi->prefix, site_prefix);
        pi->venv = 1;
        pi->system_site = 1;   /* site.py's default when the key is absent */
        char *buf;
        int got = py_read_text(ctx, flags, cfg, PY_SMALL_FILE_MAX, &buf);
        if (got <= 0)
            return got < 0 ? -1 : 1;
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
    if (py_is_file(r, p))
        return 1;
    snprintf(p, sizeof p, "%s/%s/python3.%d/os.pyc", d, libdir, minor);
    if (py_is_file(r, p))
        return 1;
    snprintf(p, sizeof p, "%s/%s/python3%d.zip", d, libdir, minor);
    return py_is_file(r, p);
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
    if (py_copy(cands[0], sizeof cands[0], start) != 0)
        return 1;
    py_dirname(cands[0], cands[1], sizeof cands[1]);
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
                if (sp_path_join(ld, sizeof ld, d, libdirs[l]) != 0 ||
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
                    py_warn(ctx, flags, "python: %s: several lib/python3.X folders and no "
                          "version in the interpreter's name; environment not read", ld);
                    return 2;
                }
                minor = found;
            }
            if (minor >= 0 && has_landmark(ctx->root, d, libdirs[l], minor) &&
                snprintf(pi->stdlib, sizeof pi->stdlib, "%s/%s/python3.%d",
                         strcmp(d, "/") ? d : "", libdirs[l], minor) < (int)sizeof pi->stdlib) {
                pi->minor = minor;
                py_copy(pi->base, sizeof pi->base, d);
                snprintf(pi->libdir, sizeof pi->libdir, "%s", libdirs[l]);
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
    if (py_copy(cands[0], sizeof cands[0], start) != 0)
        return 0;
    py_dirname(cands[0], cands[1], sizeof cands[1]);
    for (int c = 0; c < 2; c++)
        for (int m = 0; m <= 7; m++) {
            char p[SP_ROOT_PATH_MAX], rel[32];
            snprintf(rel, sizeof rel, "lib/python2.%d/os.py", m);
            if (sp_path_join(p, sizeof p, cands[c], rel) == 0 && py_is_file(ctx->root, p))
                return 1;
            snprintf(rel, sizeof rel, "lib/python2.%d/os.pyc", m);
            if (sp_path_join(p, sizeof p, cands[c], rel) == 0 && py_is_file(ctx->root, p))
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
    py_copy(pi->base, sizeof pi->base, pi->prefix);
    snprintf(pi->libdir, sizeof pi->libdir, "lib");
    pi->stdlib[0] = '\0';
    char up[SP_ROOT_PATH_MAX];
    py_dirname(start, up, sizeof up);
    py_warn(ctx, flags, "python: %s: its base interpreter's stdlib (lib/python3.X/os.py, "
          "os.pyc or python3X.zip) is not in %s or %s; only the venv's own %s is read, "
          "Python 3.%d from %s", pi->exe, start, up, site, minor,
          from_name ? "the interpreter's name" : pi->venv_cfg);
    return py_site_addsitedir(ctx, flags, pi, site) < 0 ? -1 : 0;
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
    py_dists_free(pi);
}

/* The first step of py_interp_open: EXE made pi->exe (absolute,
 * normalised), a regular file, its links resolved into pi->real.  0, 1
 * when not usable (warned), -1 on ENOMEM. */
static int resolve_exe(struct probe_ctx *ctx, int flags, struct py_interp *pi,
                       const char *exe)
{
    if (exe[0] != '/' || py_copy(pi->exe, sizeof pi->exe, exe) != 0) {
        py_warn(ctx, flags, "python: %s: not an absolute path inside the root", exe);
        return 1;
    }
    py_normpath(pi->exe);
    struct root_stat st;
    if (root_stat(ctx->root, pi->exe, 1, &st) != 0) {
        py_warn_errno(ctx, flags, "python", pi->exe, errno);
        return 1;
    }
    if (st.type != ROOT_T_FILE) {
        py_warn(ctx, flags, "python: %s: not a regular file", pi->exe);
        return 1;
    }
    char *real = NULL;
    if (root_realpath(ctx->root, pi->exe, &real) != 0) {
        if (errno == ENOMEM)
            return -1;
        py_warn_errno(ctx, flags, "python", pi->exe, errno);
        return 1;
    }
    py_copy(pi->real, sizeof pi->real, real);
    free(real);
    return 0;
}

/* pyvenv.cfg, 3.X from the names, then the stdlib: from the venv's `home`
 * when it names one (else, or when that holds no stdlib, beside the
 * resolved binary).  MAJOR: name_major() of the resolved name.  START gets
 * the folder searched last.  Returns find_stdlib's 0, 1 or 2, or -1 on
 * ENOMEM. */
static int locate_stdlib(struct probe_ctx *ctx, int flags, struct py_interp *pi, int major,
                         char *start, size_t startsz)
{
    char home[SP_ROOT_PATH_MAX];
    if (read_venv_cfg(ctx, flags, pi, home, sizeof home) < 0)
        return -1;
    pi->minor = minor_from_name(py_basename(pi->real));
    if (pi->minor < 0)
        pi->minor = minor_from_name(py_basename(pi->exe));
    int from_home = pi->venv && home[0] == '/';
    if (from_home)
        py_copy(start, startsz, home);
    else
        py_dirname(pi->real, start, startsz);
    py_normpath(start);
    int sflags = major == 0 ? flags | PY_QUIET : flags;
    int found = find_stdlib(ctx, from_home ? PY_QUIET : sflags, pi, start);
    if (found != 0 && from_home) {
        /* `home` names the base's bin folder; if it no longer holds the
         * base, look beside the resolved binary instead */
        py_dirname(pi->real, start, startsz);
        found = find_stdlib(ctx, sflags, pi, start);
    }
    return found;
}

/* No stdlib found from START (FOUND: find_stdlib's 1, or 2 when
 * ambiguous, already warned): say why the environment is not read, and
 * clear pi->real when EXE is no Python 3 interpreter at all.  Returns 1. */
static int stdlib_missing(struct probe_ctx *ctx, int flags, struct py_interp *pi, int major,
                          int found, const char *start)
{
    char up[SP_ROOT_PATH_MAX];
    py_dirname(start, up, sizeof up);
    if (major != 3 && has_py2_stdlib(ctx, start)) {
        py_warn(ctx, flags, "python: %s: a Python 2 interpreter (resolves to %s; "
                "lib/python2.X beside it); Python 2 is not supported; environment not "
                "read", pi->exe, pi->real);
        pi->real[0] = '\0';
    } else if (major == 0) {
        py_warn(ctx, flags, "python: %s: not a Python 3 interpreter (resolves to %s: not "
                "named python3*, and no lib/python3.X/os.py in %s or %s); environment "
                "not read", pi->exe, pi->real, start, up);
        pi->real[0] = '\0';
    } else if (found == 1) {
        py_warn(ctx, flags, "python: %s: no lib/python3.X/os.py found in %s or %s; "
                "environment not read", pi->exe, start, up);
    }
    return 1;
}

/* An interpreter whose name says nothing (MAJOR 0) with a stdlib beside
 * it: a Python 3 only when a 3.X.N version string is in the binary.  0
 * when it is, 1 when not (warned, pi->real cleared), -1 on ENOMEM. */
static int confirm_python3(struct probe_ctx *ctx, int flags, struct py_interp *pi)
{
    char version[64], ev[SP_ROOT_PATH_MAX + 64];
    int s = py_scan_file_version(ctx, pi->real, pi->minor, version, sizeof version,
                                 ev, sizeof ev);
    if (s > 0)
        return 0;
    if (s < 0 && errno == ENOMEM)
        return -1;
    py_warn(ctx, flags, "python: %s: not a Python 3 interpreter (resolves to %s: not "
            "named python3*, and %s); environment not read", pi->exe, pi->real,
            s < 0 ? "unreadable" : "no Python 3 version string in it");
    pi->real[0] = '\0';
    return 1;
}

int py_interp_open(struct probe_ctx *ctx, const char *exe, const char *how,
                   int flags, struct py_interp *pi)
{
    memset(pi, 0, sizeof *pi);
    pi->minor = -1;
    snprintf(pi->how, sizeof pi->how, "%s", how);
    int rc = resolve_exe(ctx, flags, pi, exe);
    if (rc != 0)
        return rc;
    /* Is it a Python 3 interpreter at all?  Its resolved name says so
     * (python3.X), or, for any other name, a 3.X.N version string in it. */
    int major = name_major(py_basename(pi->real));
    if (major == 2) {
        py_warn(ctx, flags, "python: %s: a Python 2 interpreter (resolves to %s); Python 2 "
                "is not supported; environment not read", pi->exe, pi->real);
        pi->real[0] = '\0';
        return 1;
    }
    char start[SP_ROOT_PATH_MAX];
    int found = locate_stdlib(ctx, flags, pi, major, start, sizeof start);
    if (found < 0)
        return -1;
    if (found == 1 && pi->venv) {
        int own = venv_own_site(ctx, flags, pi, start);
        if (own <= 0)
            return own;
    }
    if (found != 0)
        return stdlib_missing(ctx, flags, pi, major, found, start);
    if (major == 0 && (rc = confirm_python3(ctx, flags, pi)) != 0)
        return rc;
    if (!pi->venv)
        py_copy(pi->prefix, sizeof pi->prefix, pi->base);
    return py_sys_path_build(ctx, flags, pi);
}
