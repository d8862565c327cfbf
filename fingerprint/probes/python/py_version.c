/* fingerprint/probes/python/py_version.c: the interpreter's full version
 * (sys.version_info as "3.X.Y[aN|bN|rcN]") without running it, from the
 * files that record it: pyvenv.cfg's `version` or virtualenv's
 * `version_info` (PEP 405), conda-meta's python-X.Y.Z-<build>.json, the
 * PY_VERSION define of include/python3.X/patchlevel.h (CPython's
 * Include/patchlevel.h), else the PY_VERSION string compiled into the
 * binary or libpython3.X.so.  Version text follows CPython's
 * sys.version_info release levels (alpha a, beta b, candidate rc). */
#include "fingerprint/probes/python/py_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
int py_scan_file_version(struct probe_ctx *ctx, const char *path, int minor,
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

/* One search for the full version: where the answer goes, and the files
 * tried so far (for the warning when none answers). */
struct vsearch {
    struct probe_ctx *ctx;
    const struct py_interp *pi;
    int flags;
    char *out, *evidence;
    size_t outsz, evsz;
    char tried[2048];
    size_t tl;
};

/* Append to the files tried; text that does not fit is not counted. */
static void tried(struct vsearch *vs, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tried(struct vsearch *vs, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(vs->tried + vs->tl, sizeof vs->tried - vs->tl, fmt, ap);
    va_end(ap);
    if (n > 0 && (size_t)n < sizeof vs->tried - vs->tl)
        vs->tl += (size_t)n;
}

/* pyvenv.cfg's `version` / `version_info` (PEP 405; virtualenv, uv).
 * 1 found, 0 not. */
static int from_venv_cfg(struct vsearch *vs)
{
    const struct py_interp *pi = vs->pi;
    if (!pi->venv || pi->venv_version[0] == '\0')
        return 0;
    char v[64];
    venv_version_normalise(pi->venv_version, v, sizeof v);
    if (version_ok(v, pi->minor)) {
        snprintf(vs->out, vs->outsz, "%s", v);
        snprintf(vs->evidence, vs->evsz, "%s: version %s", pi->venv_cfg, pi->venv_version);
        return 1;
    }
    py_warn(vs->ctx, vs->flags, "python.version: %s: version \"%s\" does not match "
            "lib/python3.%d; not used", pi->venv_cfg, pi->venv_version, pi->minor);
    tried(vs, "%s", pi->venv_cfg);
    return 0;
}

/* conda: BASE/conda-meta/python-3.X.Y-<build>.json.  1 found, 0 not. */
static int from_conda(struct vsearch *vs)
{
    const struct py_interp *pi = vs->pi;
    char cm[SP_ROOT_PATH_MAX];
    char **names;
    size_t n;
    if (sp_path_join(cm, sizeof cm, pi->base, "conda-meta") != 0 ||
        root_list_dir(vs->ctx->root, cm, &names, &n) != 0)
        return 0;
    int found = 0;
    for (size_t i = 0; i < n && !found; i++) {
        const char *nm = names[i];
        if (strncmp(nm, "python-", 7) != 0 || !isdigit((unsigned char)nm[7]) ||
            !py_ends_with_ci(nm, ".json"))
            continue;
        size_t vl = strcspn(nm + 7, "-");
        char v[64];
        if (vl >= sizeof v || nm[7 + vl] != '-')
            continue;
        snprintf(v, sizeof v, "%.*s", (int)vl, nm + 7);
        if (version_ok(v, pi->minor)) {
            snprintf(vs->out, vs->outsz, "%s", v);
            snprintf(vs->evidence, vs->evsz, "%s/%s", cm, nm);
            found = 1;
        }
    }
    root_names_free(names, n);
    if (!found)
        tried(vs, "%s%s", vs->tl ? ", " : "", cm);
    return found;
}

/* BASE/include/python3.X/patchlevel.h: the header the interpreter was
 * built from (pyenv, conda and source builds install it; Debian with
 * python3.X-dev, whose version dpkg pins to the interpreter's).  1 found,
 * 0 not. */
static int from_patchlevel(struct vsearch *vs)
{
    const struct py_interp *pi = vs->pi;
    char ph[SP_ROOT_PATH_MAX], rel[64];
    snprintf(rel, sizeof rel, "include/python3.%d/patchlevel.h", pi->minor);
    if (sp_path_join(ph, sizeof ph, pi->base, rel) != 0)
        return 0;
    char *buf;
    size_t len;
    if (root_read_file(vs->ctx->root, ph, PY_PATCHLEVEL_MAX, &buf, &len) == 0) {
        const char *d = strstr(buf, "#define PY_VERSION ");
        char v[64];
        if (d && sscanf(d + 19, " \"%63[^\"]\"", v) == 1 && version_ok(v, pi->minor)) {
            snprintf(vs->out, vs->outsz, "%s", v);
            snprintf(vs->evidence, vs->evsz, "%s: PY_VERSION", ph);
            free(buf);
            return 1;
        }
        free(buf);
        tried(vs, "%s%s", vs->tl ? ", " : "", ph);
    } else if (errno != ENOENT) {
        /* there but unreadable (content not kept from an image, too
         * big): said, before the next source is tried */
        py_warn_errno(vs->ctx, vs->flags, "python.version", ph, errno);
        tried(vs, "%s%s", vs->tl ? ", " : "", ph);
    }
    return 0;
}

/* The PY_VERSION string in BASE/LIBDIR/libpython3.X*.so* (each resolved
 * library once).  1 found, 0 not. */
static int from_libpython(struct vsearch *vs)
{
    const struct py_interp *pi = vs->pi;
    char ld[SP_ROOT_PATH_MAX], prefix_name[32];
    char **names;
    size_t n;
    snprintf(prefix_name, sizeof prefix_name, "libpython3.%d", pi->minor);
    if (sp_path_join(ld, sizeof ld, pi->base, pi->libdir) != 0 ||
        root_list_dir(vs->ctx->root, ld, &names, &n) != 0)
        return 0;
    char last_real[SP_ROOT_PATH_MAX] = "";
    int found = 0;
    for (size_t i = 0; i < n && !found; i++) {
        const char *nm = names[i];
        size_t pl = strlen(prefix_name);
        if (strncmp(nm, prefix_name, pl) != 0 || strstr(nm + pl, ".so") == NULL ||
            isdigit((unsigned char)nm[pl]))
            continue;
        char lib[SP_ROOT_PATH_MAX];
        char *lr = NULL;
        if (sp_path_join(lib, sizeof lib, ld, nm) != 0 ||
            root_realpath(vs->ctx->root, lib, &lr) != 0)
            continue;
        int same = strcmp(lr, last_real) == 0;
        snprintf(last_real, sizeof last_real, "%s", lr);
        free(lr);
        if (same)
            continue;
        int rc = py_scan_file_version(vs->ctx, lib, pi->minor, vs->out, vs->outsz,
                                      vs->evidence, vs->evsz);
        if (rc > 0)
            found = 1;
        else
            tried(vs, ", %s%s", lib, rc < 0 ? " (unreadable)" : "");
    }
    root_names_free(names, n);
    return found;
}

int py_interp_version(struct probe_ctx *ctx, const struct py_interp *pi, int flags,
                      char *out, size_t outsz, char *evidence, size_t evsz)
{
    struct vsearch vs = { .ctx = ctx, .pi = pi, .flags = flags, .out = out, .outsz = outsz,
                          .evidence = evidence, .evsz = evsz };
    if (from_venv_cfg(&vs) || from_conda(&vs) || from_patchlevel(&vs))
        return 0;
    /* the PY_VERSION string in the binary, then in libpython */
    int rc = py_scan_file_version(ctx, pi->real, pi->minor, out, outsz, evidence, evsz);
    if (rc > 0)
        return 0;
    tried(&vs, "%s%s%s", vs.tl ? ", " : "", pi->real, rc < 0 ? " (unreadable)" : "");
    if (from_libpython(&vs))
        return 0;
    py_warn(ctx, flags, "python.version: %s: no full 3.%d.N version found (tried %s); "
            "not recorded", pi->exe, pi->minor, vs.tried);
    return 1;
}
