/* fingerprint/root/root.c: backend-independent helpers over struct root_ops. */
#include "fingerprint/root/root.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int root_read_file(struct root *r, const char *path, size_t max, char **buf, size_t *len)
{
    return r->ops->read_file(r, path, max, buf, len);
}

int root_list_dir(struct root *r, const char *path, char ***names, size_t *n)
{
    return r->ops->list_dir(r, path, names, n);
}

int root_read_link(struct root *r, const char *path, char **target)
{
    return r->ops->read_link(r, path, target);
}

int root_stat(struct root *r, const char *path, int follow, struct root_stat *st)
{
    return r->ops->stat(r, path, follow, st);
}

int root_realpath(struct root *r, const char *path, char **out)
{
    return r->ops->realpath(r, path, out);
}

int root_scan_file(struct root *r, const char *path, uint64_t max,
                   int (*cb)(void *ctx, const char *chunk, size_t n), void *ctx)
{
    return r->ops->scan_file(r, path, max, cb, ctx);
}

void root_close(struct root *r)
{
    if (r)
        r->ops->close(r);
}

void root_names_free(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

int root_exists(struct root *r, const char *path)
{
    struct root_stat st;
    return root_stat(r, path, 1, &st) == 0;
}

int root_is_dir(struct root *r, const char *path)
{
    struct root_stat st;
    return root_stat(r, path, 1, &st) == 0 && st.type == ROOT_T_DIR;
}

int root_read_line(struct root *r, const char *path, char *out, size_t outsz)
{
    char *buf;
    size_t len;
    if (root_read_file(r, path, 64 * 1024, &buf, &len) != 0)
        return -1;
    char *p = buf;
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
        p++;
    size_t n = strcspn(p, "\n");
    while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r'))
        n--;
    if (n == 0) {
        free(buf);
        errno = ENODATA;
        return -1;
    }
    if (n >= outsz)
        n = outsz - 1;
    memcpy(out, p, n);
    out[n] = '\0';
    free(buf);
    return 0;
}

char *root_host_path(struct root *r, const char *path)
{
    if (r->host_path == NULL) {
        errno = ENOTSUP;
        return NULL;
    }
    char *out = malloc(SP_ROOT_PATH_MAX);
    if (out == NULL)
        return NULL;
    if (sp_path_join(out, SP_ROOT_PATH_MAX, r->host_path, path) != 0) {
        free(out);
        return NULL;
    }
    return out;
}

int root_check_path(const char *path)
{
    if (path == NULL || path[0] == '\0') {
        errno = ENOENT;
        return -1;
    }
    if (strlen(path) >= SP_ROOT_PATH_MAX) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}
