/* fingerprint/probes/python/py_workload.c: which interpreter the workload
 * runs, as stackprint-probe(1) "PYTHON" says: `--python` (a pyenv shim
 * resolved), $VIRTUAL_ENV/bin/python3 (PEP 405's activate script sets it),
 * the first python3 on $PATH with pyenv shims resolved in the order pyenv's
 * README gives ("Choosing the Python Version": $PYENV_VERSION, a
 * .python-version in $PWD or above, $PYENV_ROOT/version, else "system",
 * the next python3 on $PATH), else the standard bin folders.  The
 * environment is read on the live host only.  Also the slug that names
 * another environment's facts (py_slug). */
#include "fingerprint/probes/python/py_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    int have_pwd = pwd && pwd[0] == '/' && py_copy(dir, sizeof dir, pwd) == 0;
    if (have_pwd)
        py_normpath(dir);
    for (int up = 0; have_pwd && up < PY_UPWARD_MAX + 16; up++) {
        if (sp_path_join(file, sizeof file, dir, ".python-version") == 0 && py_is_file(ctx->root, file))
            goto read;
        if (strcmp(dir, "/") == 0)
            break;
        char parent[SP_ROOT_PATH_MAX];
        py_dirname(dir, parent, sizeof parent);
        py_copy(dir, sizeof dir, parent);
    }
    if (sp_path_join(file, sizeof file, pyroot, "version") != 0 || !py_is_file(ctx->root, file)) {
        snprintf(out, outsz, "system");
        snprintf(from, fromsz, "pyenv's default");
        return 0;
    }
read: {
        char *buf = py_read_small(ctx->root, file, PY_SMALL_FILE_MAX);
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
        py_warn(ctx, flags, "python: %s: a pyenv shim, but PYENV_ROOT is unknown", cand);
        return 1;
    }
    char versions[1024], from[SP_ROOT_PATH_MAX + 32];
    int rc = pyenv_versions(ctx, pyroot, versions, sizeof versions, from, sizeof from);
    if (rc < 0)
        return -1;
    if (rc > 0) {
        py_warn(ctx, flags, "python: %s: a pyenv shim whose version file cannot be read", cand);
        return 1;
    }
    char *save = NULL;
    for (char *word = strtok_r(versions, " ", &save); word; word = strtok_r(NULL, " ", &save)) {
        if (strcmp(word, "system") == 0) {
            int s = search_path(ctx, flags, path_env, 1, exe, exesz, how, howsz);
            if (s <= 0)
                return s;
            py_warn(ctx, flags, "python: %s: pyenv version \"system\" (from %s), but no "
                  "other python3 on $PATH", cand, from);
            continue;
        }
        char vexe[SP_ROOT_PATH_MAX];
        if (strchr(word, '/') != NULL ||
            snprintf(vexe, sizeof vexe, "%s/versions/%s/bin/python3", pyroot, word) >=
                (int)sizeof vexe)
            continue;
        if (is_exec(ctx->root, vexe)) {
            py_copy(exe, exesz, vexe);
            if (snprintf(how, howsz, "%s the pyenv shim %s; pyenv version %s from %s",
                         what, cand, word, from) >= (int)howsz)
                how[howsz - 1] = '\0';
            return 0;
        }
        py_warn(ctx, flags, "python: %s: pyenv version %s (from %s) is not installed",
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
        if (!ok || sp_path_join(cand, sizeof cand, dir, "python3") != 0 || !is_exec(ctx->root, cand))
            continue;
        char pyroot[SP_ROOT_PATH_MAX];
        if (!is_pyenv_shim(ctx->root, cand, pyroot, sizeof pyroot)) {
            py_copy(exe, exesz, cand);
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
            py_warn(ctx, flags, "python: %s: $VIRTUAL_ENV names a folder without "
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
    py_warn(ctx, flags, "python: no python3 found (%s/usr/local/bin, /usr/bin, /bin)",
          ctx->root->live ? "$PATH, " : "");
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

void py_workload_set(struct probe_ctx *ctx, struct py_interp *pi)
{
    py_workload_release(ctx);
    ctx->python_env = pi;
}

void py_workload_release(struct probe_ctx *ctx)
{
    if (ctx->python_env == NULL)
        return;
    py_interp_free(ctx->python_env);
    free(ctx->python_env);
    ctx->python_env = NULL;
}
