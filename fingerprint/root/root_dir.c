/* fingerprint/root/root_dir.c: the directory root backends, "/" (live host) and
 * `--root DIR` (a copied tree).  Every path is resolved with openat2(2) and
 * RESOLVE_IN_ROOT, so ".." and absolute symlinks stay inside the root the
 * way they would after chroot(2); nothing outside DIR is ever opened.
 * Needs Linux 5.6 or later (openat2); older kernels get ENOSYS. */
#include "fingerprint/root/root.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/array.h"
#include "common/file.h"

struct dir_impl {
    int dirfd;          /* O_PATH descriptor of the root directory */
    char *real;         /* realpath of the root, no trailing slash ("" for /) */
};

static int open_in(struct root *r, const char *path, int flags)
{
    struct dir_impl *d = r->impl;
    struct open_how how = {
        .flags = (uint64_t)(flags | O_CLOEXEC),
        .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
    };
    if (root_check_path(path) != 0)
        return -1;
    for (int tries = 0; tries < 8; tries++) {
        long fd = syscall(SYS_openat2, d->dirfd, path, &how, sizeof how);
        if (fd >= 0)
            return (int)fd;
        if (errno != EAGAIN && errno != EINTR)
            return -1;
    }
    return -1;
}

/* Open the regular file at PATH for reading.  The path is first opened
 * O_PATH and checked, so a device node is never opened for reading (opening
 * some devices has side effects) and a FIFO is refused without blocking; the
 * second open is O_NONBLOCK as well, in case the tree changed in between,
 * and must be the same inode.  Returns the descriptor, or -1 with errno
 * (EISDIR, EINVAL for anything not a regular file). */
static int open_regular(struct root *r, const char *path, struct stat *st)
{
    int pfd = open_in(r, path, O_PATH);
    struct stat pst;
    if (pfd < 0)
        return -1;
    if (fstat(pfd, &pst) != 0) {
        int saved = errno;
        close(pfd);
        errno = saved;
        return -1;
    }
    close(pfd);
    if (!S_ISREG(pst.st_mode)) {
        errno = S_ISDIR(pst.st_mode) ? EISDIR : EINVAL;
        return -1;
    }
    int fd = open_in(r, path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return -1;
    if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode) || st->st_ino != pst.st_ino ||
        st->st_dev != pst.st_dev) {
        close(fd);
        errno = EINVAL;
        return -1;
    }
    return fd;
}

static int dir_read_file(struct root *r, const char *path, size_t max,
                         char **buf, size_t *len)
{
    struct stat st;
    int fd = open_regular(r, path, &st);
    if (fd < 0)
        return -1;
    int rc = sp_read_fd(fd, max, (size_t)st.st_size, 0, buf, len), saved = errno;
    close(fd);
    errno = saved;
    return rc;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int dir_list_dir(struct root *r, const char *path, char ***names, size_t *count)
{
    int fd = open_in(r, path, O_RDONLY | O_DIRECTORY | O_NONBLOCK);
    if (fd < 0)
        return -1;
    DIR *dir = fdopendir(fd);
    if (dir == NULL) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    char **v = NULL;
    size_t n = 0, cap = 0;
    struct dirent *de;
    int err = 0;
    errno = 0;
    while ((de = readdir(dir)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        if (n >= SP_ROOT_DIR_ENTRIES_MAX) {
            err = E2BIG;
            break;
        }
        if (SP_ARRAY_RESERVE(v, cap, n + 1) != 0) {
            err = ENOMEM;
            break;
        }
        if ((v[n] = strdup(de->d_name)) == NULL) {
            err = ENOMEM;
            break;
        }
        n++;
        errno = 0;
    }
    if (!err && errno)
        err = errno;
    closedir(dir);
    if (err) {
        root_names_free(v, n);
        errno = err;
        return -1;
    }
    if (n > 1)
        qsort(v, n, sizeof *v, cmp_names);
    *names = v;
    *count = n;
    return 0;
}

static int dir_read_link(struct root *r, const char *path, char **target)
{
    int fd = open_in(r, path, O_PATH | O_NOFOLLOW);
    if (fd < 0)
        return -1;
    char buf[SP_ROOT_PATH_MAX];
    ssize_t n = readlinkat(fd, "", buf, sizeof buf - 1);
    int saved = errno;
    close(fd);
    if (n < 0) {
        errno = saved == ENOENT ? EINVAL : saved;
        return -1;
    }
    if ((size_t)n >= sizeof buf - 1) {
        errno = ENAMETOOLONG;           /* the target may have been cut */
        return -1;
    }
    buf[n] = '\0';
    if ((*target = strdup(buf)) == NULL)
        return -1;
    return 0;
}

static int dir_stat(struct root *r, const char *path, int follow, struct root_stat *out)
{
    int fd = open_in(r, path, O_PATH | (follow ? 0 : O_NOFOLLOW));
    struct stat st;
    if (fd < 0)
        return -1;
    int rc = fstat(fd, &st);
    int saved = errno;
    close(fd);
    if (rc != 0) {
        errno = saved;
        return -1;
    }
    out->type = S_ISREG(st.st_mode) ? ROOT_T_FILE : S_ISDIR(st.st_mode) ? ROOT_T_DIR
              : S_ISLNK(st.st_mode) ? ROOT_T_LINK : ROOT_T_OTHER;
    out->size = (uint64_t)st.st_size;
    out->mode = st.st_mode & 07777;
    return 0;
}

static int dir_realpath(struct root *r, const char *path, char **out)
{
    struct dir_impl *d = r->impl;
    int fd = open_in(r, path, O_PATH);
    if (fd < 0)
        return -1;
    char proc[64], buf[SP_ROOT_PATH_MAX];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(proc, buf, sizeof buf - 1);
    int saved = errno;
    close(fd);
    if (n < 0) {
        errno = saved;
        return -1;
    }
    buf[n] = '\0';
    size_t rl = strlen(d->real);
    if (strncmp(buf, d->real, rl) != 0 || (buf[rl] != '/' && buf[rl] != '\0')) {
        errno = EXDEV;    /* cannot happen with RESOLVE_IN_ROOT; refuse anyway */
        return -1;
    }
    *out = strdup(buf[rl] ? buf + rl : "/");
    return *out ? 0 : -1;
}

static int dir_scan_file(struct root *r, const char *path, uint64_t max,
                         int (*cb)(void *, const char *, size_t), void *ctx)
{
    struct stat st;
    int fd = open_regular(r, path, &st);
    if (fd < 0)
        return -1;
    enum { CHUNK = 1 << 20 };
    char *b = malloc(CHUNK);
    uint64_t total = 0;
    int rc = 0;
    if (b == NULL) {
        close(fd);
        return -1;
    }
    while (total < max) {
        size_t want = max - total < CHUNK ? (size_t)(max - total) : CHUNK;
        ssize_t got = read(fd, b, want);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            rc = -1;
            break;
        }
        if (got == 0 || cb(ctx, b, (size_t)got) != 0)
            break;
        total += (uint64_t)got;
    }
    int saved = errno;
    free(b);
    close(fd);
    errno = saved;
    return rc;
}

static void dir_close(struct root *r)
{
    struct dir_impl *d = r->impl;
    if (d) {
        close(d->dirfd);
        free(d->real);
        free(d);
    }
    free(r->subject);
    free(r->host_path);
    free(r);
}

static const struct root_ops dir_ops = {
    .read_file = dir_read_file,
    .list_dir = dir_list_dir,
    .read_link = dir_read_link,
    .stat = dir_stat,
    .realpath = dir_realpath,
    .scan_file = dir_scan_file,
    .close = dir_close,
};

static struct root *open_dir_root(const char *dir, enum root_kind kind)
{
    struct root *r = calloc(1, sizeof *r);
    struct dir_impl *d = calloc(1, sizeof *d);
    char *real = realpath(dir, NULL);
    if (r == NULL || d == NULL || real == NULL)
        goto fail;
    d->dirfd = open(real, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (d->dirfd < 0)
        goto fail;
    if (strcmp(real, "/") == 0)
        real[0] = '\0';
    d->real = real;
    r->ops = &dir_ops;
    r->kind = kind;
    r->live = kind == ROOT_HOST;
    r->impl = d;
    r->host_path = strdup(real[0] ? real : "/");
    size_t sl = strlen(real) + 8;
    r->subject = malloc(sl);
    if (r->host_path == NULL || r->subject == NULL) {
        dir_close(r);
        return NULL;
    }
    if (kind == ROOT_HOST)
        snprintf(r->subject, sl, "host:/");
    else
        snprintf(r->subject, sl, "root:%s", real[0] ? real : "/");
    /* The root itself must be readable, through openat2: a root that cannot
     * be listed (EACCES), or a kernel without openat2 (ENOSYS), would give
     * a manifest of warnings and no facts. */
    int fd = open_in(r, "/", O_RDONLY | O_DIRECTORY | O_NONBLOCK);
    if (fd < 0) {
        int saved = errno;
        dir_close(r);
        errno = saved;
        return NULL;
    }
    close(fd);
    return r;
fail: {
        int saved = errno;
        if (d && d->dirfd > 0)
            close(d->dirfd);
        free(real);
        free(d);
        free(r);
        errno = saved;
        return NULL;
    }
}

struct root *root_open_host(void)
{
    return open_dir_root("/", ROOT_HOST);
}

struct root *root_open_dir(const char *dir)
{
    struct stat st;
    if (stat(dir, &st) != 0)
        return NULL;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return NULL;
    }
    return open_dir_root(dir, ROOT_DIR);
}
