/* fingerprint/probes/python/py_util.c: the small helpers the files of
 * fingerprint/probes/python/ share (py_internal.h): warnings that honour
 * PY_QUIET, lexical path handling as os.path does it, small reads through
 * the root. */
#include "fingerprint/probes/python/py_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void py_warn(struct probe_ctx *ctx, int flags, const char *fmt, ...)
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

void py_warn_errno(struct probe_ctx *ctx, int flags, const char *what,
                   const char *path, int err)
{
    if (!(flags & PY_QUIET))
        probe_warn_errno(ctx, what, path, err);
}

int py_copy(char *out, size_t outsz, const char *s)
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
void py_normpath(char *p)
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
void py_dirname(const char *p, char *out, size_t outsz)
{
    const char *slash = strrchr(p, '/');
    size_t n = slash ? (size_t)(slash - p) : 0;
    if (n == 0) {
        snprintf(out, outsz, "/");
        return;
    }
    snprintf(out, outsz, "%.*s", (int)n, p);
}

const char *py_basename(const char *p)
{
    const char *slash = strrchr(p, '/');
    return slash ? slash + 1 : p;
}

int py_is_file(struct root *r, const char *path)
{
    struct root_stat st;
    return root_stat(r, path, 1, &st) == 0 && st.type == ROOT_T_FILE;
}

int py_ends_with_ci(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcasecmp(s + n - m, suffix) == 0;
}

/* Read a small text file; NULL with errno on failure. */
char *py_read_small(struct root *r, const char *path, size_t max)
{
    char *buf;
    size_t len;
    if (root_read_file(r, path, max, &buf, &len) != 0)
        return NULL;
    return buf;
}

int py_read_text(struct probe_ctx *ctx, int flags, const char *path, size_t max, char **buf)
{
    if ((*buf = py_read_small(ctx->root, path, max)) != NULL)
        return 1;
    if (errno == ENOMEM)
        return -1;
    py_warn_errno(ctx, flags, "python", path, errno);
    return 0;
}
