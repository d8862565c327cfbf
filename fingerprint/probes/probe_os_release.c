/* fingerprint/probes/probe_os_release.c: host.os.* from os-release(5):
 * /etc/os-release, else (when it does not exist) /usr/lib/os-release.
 * Reads nothing else.
 * Parsed line by line with explicit lengths (a NUL byte never ends a line
 * early), as systemd's parser reads it: leading whitespace skipped, '#'
 * comments, KEY=VALUE with the value bare, "double-quoted" (\ escapes) or
 * 'single-quoted'.  Must not: record a value it could not read whole (a NUL
 * byte, an unbalanced quote): a warning naming file:line instead. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fingerprint/probes/probe.h"

#define OS_RELEASE_FILE_MAX (64u * 1024)   /* bytes of an os-release file */

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Unquote VALUE (LEN bytes, no NUL inside) into OUT (at least LEN + 1
 * bytes): "..." with \ escaping one of "\$`, '...' as is, or a bare word
 * (os-release(5), shell-compatible assignments).  Returns NULL when fine,
 * else why the value cannot be read. */
static const char *unquote(const char *v, size_t len, char *out)
{
    size_t w = 0;
    if (len == 0 || (v[0] != '"' && v[0] != '\'')) {
        memcpy(out, v, len);
        out[len] = '\0';
        return NULL;
    }
    char q = v[0];
    size_t i = 1;
    for (; i < len && v[i] != q; i++) {
        if (q == '"' && v[i] == '\\' && i + 1 < len && strchr("\"\\$`", v[i + 1]))
            i++;
        out[w++] = v[i];
    }
    out[w] = '\0';
    if (i >= len)
        return "unbalanced quote";
    for (i++; i < len; i++)
        if (!is_blank(v[i]))
            return "text after the closing quote";
    return NULL;
}

int probe_os_release(struct probe_ctx *ctx, struct sp_error *e)
{
    static const char *const paths[] = { "/etc/os-release", "/usr/lib/os-release" };
    static const struct { const char *var, *key; } fields[] = {
        { "ID", "host.os.id" },
        { "VERSION_ID", "host.os.version_id" },
        { "PRETTY_NAME", "host.os.pretty_name" },
    };
    char *buf = NULL;
    size_t len;
    const char *path = NULL;
    int err = 0;

    /* os-release(5): /usr/lib/os-release only when /etc/os-release does not
     * exist; one that exists but cannot be read (too big, content not kept
     * from an image, a dangling link's error) is a warning, never a silent
     * second choice */
    for (size_t i = 0; i < 2 && path == NULL; i++) {
        if (root_read_file(ctx->root, paths[i], OS_RELEASE_FILE_MAX, &buf, &len) == 0)
            path = paths[i];
        else if (i == 0 && (err = errno) != ENOENT)
            break;
    }
    if (path == NULL) {
        probe_warn_errno(ctx, "host.os", paths[0], err);
        return 0;
    }
    char *value = malloc(len + 1);
    if (value == NULL) {
        free(buf);
        return sp_fail(e, SP_EXIT_INPUT, "os-release: out of memory");
    }
    int rc = 0;
    size_t lineno = 0;
    for (const char *p = buf, *end = buf + len; p < end && rc == 0;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *eol = nl ? nl : end;
        const char *line = p;
        p = nl ? nl + 1 : end;
        lineno++;
        while (line < eol && is_blank(*line))
            line++;
        if (line == eol || *line == '#')
            continue;
        const char *eq = memchr(line, '=', (size_t)(eol - line));
        if (eq == NULL)
            continue;
        size_t kl = (size_t)(eq - line);
        while (kl > 0 && is_blank(line[kl - 1]))
            kl--;
        size_t f = 0;
        for (; f < sizeof fields / sizeof *fields; f++)
            if (strlen(fields[f].var) == kl && memcmp(line, fields[f].var, kl) == 0)
                break;
        if (f == sizeof fields / sizeof *fields)
            continue;
        const char *v = eq + 1;
        size_t vl = (size_t)(eol - v);
        while (vl > 0 && is_blank(*v)) {
            v++;
            vl--;
        }
        while (vl > 0 && is_blank(v[vl - 1]))
            vl--;
        const char *why = memchr(v, '\0', vl) ? "NUL byte in the value"
                        : unquote(v, vl, value);
        if (why) {
            factset_warn(ctx->facts, "%s: %s:%zu: %s: %s; not recorded", fields[f].key,
                         path, lineno, fields[f].var, why);
            continue;
        }
        if (value[0] && probe_set(ctx, fields[f].key, value, path) != 0)
            rc = sp_fail(e, SP_EXIT_INPUT, "os-release: out of memory");
    }
    free(value);
    free(buf);
    return rc;
}
