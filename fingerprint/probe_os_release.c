/* fingerprint/probe_os_release.c: host.os.* from os-release(5):
 * /etc/os-release, else /usr/lib/os-release.  Reads nothing else. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"

/* Unquote an os-release value in place: "..." with \ escapes, '...' as is,
 * or a bare word (os-release(5), shell-compatible assignments). */
static void unquote(char *v)
{
    size_t n = strlen(v);
    if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
        char q = v[0];
        char *w = v;
        for (size_t i = 1; i < n - 1; i++) {
            if (q == '"' && v[i] == '\\' && i + 1 < n - 1 && strchr("\"\\$`", v[i + 1]))
                i++;
            *w++ = v[i];
        }
        *w = '\0';
    }
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

    for (size_t i = 0; i < 2 && path == NULL; i++) {
        if (root_read_file(ctx->root, paths[i], 64 * 1024, &buf, &len) == 0)
            path = paths[i];
        else if (i == 0)
            err = errno;
    }
    if (path == NULL) {
        probe_warn_errno(ctx, "host.os", paths[0], err);
        return 0;
    }
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
        char *eq = strchr(line, '=');
        if (eq == NULL || line[0] == '#')
            continue;
        *eq = '\0';
        char *value = eq + 1;
        size_t vl = strlen(value);
        while (vl > 0 && (value[vl - 1] == '\r' || value[vl - 1] == ' '))
            value[--vl] = '\0';
        unquote(value);
        for (size_t f = 0; f < sizeof fields / sizeof *fields; f++)
            if (strcmp(line, fields[f].var) == 0 && value[0] &&
                probe_set(ctx, fields[f].key, value, path) != 0) {
                free(buf);
                return sp_fail(e, SP_EXIT_INPUT, "os-release: out of memory");
            }
    }
    free(buf);
    return 0;
}
