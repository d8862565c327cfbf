/* common/file.c: bounded reading of a whole file; see file.h. */
#include "common/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>

/* Free B (CAP bytes), wiped first when EXACT; keep errno; -1. */
static int drop(char *b, size_t cap, int exact, int err)
{
    if (exact && b)
        OPENSSL_cleanse(b, cap);
    free(b);
    errno = err;
    return -1;
}

/* Make room for more bytes in *B (*CAP of them, all used): double, at
 * most MAX + 1 (one byte past MAX tells a file that is too long). */
static int grow(char **b, size_t *cap, size_t max)
{
    if (*cap > max)
        return -1;                       /* errno set by the caller: EFBIG */
    size_t ncap = *cap > (max + 1) / 2 ? max + 1 : *cap * 2;
    char *nb = realloc(*b, ncap + 1);
    if (nb == NULL)
        return -1;
    *b = nb;
    *cap = ncap;
    return 0;
}

int sp_read_fd(int fd, size_t max, size_t size, int exact, char **buf, size_t *len)
{
    size_t cap = exact ? size : size < max ? size + 1 : max + 1;
    if (exact && size > max)
        return drop(NULL, 0, 0, EFBIG);
    if (!exact && cap < 4096)
        cap = max + 1 < 4096 ? max + 1 : 4096;
    char *b = malloc(cap + 1);
    size_t n = 0;
    if (b == NULL)
        return drop(NULL, 0, 0, ENOMEM);
    for (;;) {
        char extra;
        if (n == cap && !exact && grow(&b, &cap, max) != 0)
            return drop(b, cap, 0, cap > max ? EFBIG : ENOMEM);
        /* EXACT: one more read of one byte must meet the end */
        ssize_t got = n < cap ? read(fd, b + n, cap - n) : read(fd, &extra, 1);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return drop(b, cap, exact, errno);
        if (got == 0)
            break;
        if (n == cap)
            return drop(b, cap, exact, EFBIG);
        n += (size_t)got;
    }
    if (n > max)
        return drop(b, cap, exact, EFBIG);
    b[n] = '\0';
    *buf = b;
    *len = n;
    return 0;
}

int sp_pread_full(int fd, void *buf, size_t size, uint64_t offset)
{
    size_t n = 0;
    while (n < size) {
        ssize_t got = pread(fd, (char *)buf + n, size - n, (off_t)(offset + n));
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            errno = got < 0 ? errno : ENODATA;
            return -1;
        }
        n += (size_t)got;
    }
    return 0;
}

int sp_read_file(const char *path, size_t max, const char *what, char **buf,
                 size_t *len, struct sp_error *e)
{
    int is_stdin = strcmp(path, "-") == 0;
    const char *shown = is_stdin ? "<stdin>" : path;
    int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    struct stat st;
    if (fd < 0)
        return sp_fail(e, SP_EXIT_INPUT, "%s: %s", shown, strerror(errno));
    int rc = -1, err = 0;
    if (!is_stdin && fstat(fd, &st) != 0)
        err = errno;
    else if (!is_stdin && !S_ISREG(st.st_mode))
        sp_fail(e, SP_EXIT_INPUT, "%s: not a regular file", shown);
    else if (!is_stdin && (st.st_size < 0 || (unsigned long long)st.st_size > max))
        err = EFBIG;
    else if ((rc = sp_read_fd(fd, max, is_stdin ? 0 : (size_t)st.st_size, !is_stdin,
                              buf, len)) != 0)
        err = errno;
    if (!is_stdin)
        close(fd);
    if (err == EFBIG && !is_stdin && (unsigned long long)st.st_size <= max)
        return sp_fail(e, SP_EXIT_INPUT, "%s: grew while being read", shown);
    if (err == EFBIG)
        return sp_fail(e, SP_EXIT_INPUT, "%s: larger than the %s size limit (%zu bytes)",
                       shown, what, max);
    if (err)
        return sp_fail(e, SP_EXIT_INPUT, "%s: %s", shown, strerror(err));
    return rc;
}
