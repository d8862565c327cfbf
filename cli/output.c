/* cli/output.c: printing errors and writing output files atomically. */
#include "commands.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "manifest/facts.h"

int sp_error_print(const struct sp_error *e)
{
    /* One line, always: bytes that are not UTF-8 become \xNN (as in
     * manifests), and so do control characters, such as a newline in a
     * file name, which would otherwise split the message. */
    char *text = sp_utf8_sanitize(e->msg, strlen(e->msg));
    fputs("stackprint: ", stderr);
    for (const unsigned char *p = (const unsigned char *)(text ? text : e->msg); *p; p++) {
        if (*p < 0x20 || *p == 0x7f)
            fprintf(stderr, "\\x%02x", *p);
        else
            fputc(*p, stderr);
    }
    fputc('\n', stderr);
    free(text);
    return e->exit_code ? e->exit_code : SP_EXIT_INPUT;
}

int sp_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "stackprint %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (see 'stackprint %s --help')\n", cmd);
    return SP_EXIT_USAGE;
}

static int write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Write PATH's new content to PATH.tmp.XXXXXX in the same folder, fsync
 * it, and rename it over PATH; on any failure the temporary file is removed
 * and PATH is untouched. */
static int replace_file(const char *path, const char *buf, size_t len, struct sp_error *e)
{
    size_t pl = strlen(path);
    char *tmp = malloc(pl + 16);
    if (tmp == NULL)
        return sp_fail(e, SP_EXIT_INPUT, "%s: %s", path, strerror(ENOMEM));
    snprintf(tmp, pl + 16, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int saved = errno;
        free(tmp);
        return sp_fail(e, SP_EXIT_INPUT, "%s: %s", path, strerror(saved));
    }
    mode_t um = umask(0);
    umask(um);
    if (fchmod(fd, 0644 & ~um) != 0 || write_all(fd, buf, len) != 0 || fsync(fd) != 0) {
        int saved = errno;
        close(fd);
        unlink(tmp);
        free(tmp);
        return sp_fail(e, SP_EXIT_INPUT, "%s: %s", path, strerror(saved));
    }
    if (close(fd) != 0 || rename(tmp, path) != 0) {
        int saved = errno;
        unlink(tmp);
        free(tmp);
        return sp_fail(e, SP_EXIT_INPUT, "%s: %s", path, strerror(saved));
    }
    free(tmp);
    return 0;
}

int sp_write_output(const char *path, const char *buf, size_t len, struct sp_error *e)
{
    if (path == NULL || strcmp(path, "-") == 0) {
        if (fwrite(buf, 1, len, stdout) != len || fflush(stdout) != 0 || ferror(stdout))
            return sp_fail(e, SP_EXIT_INPUT, "stdout: %s", strerror(errno ? errno : EIO));
        return 0;
    }
    /* An existing path that is not a regular file (/dev/null, /dev/stdout,
     * a FIFO a consumer reads) is written in place: renaming over it would
     * replace the device or the pipe with a file. */
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        if (S_ISDIR(st.st_mode))
            return sp_fail(e, SP_EXIT_INPUT, "%s: is a directory", path);
        int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
            return sp_fail(e, SP_EXIT_INPUT, "%s: %s", path, strerror(errno));
        if (write_all(fd, buf, len) != 0) {
            int saved = errno;
            close(fd);
            return sp_fail(e, SP_EXIT_INPUT, "%s: %s", path, strerror(saved));
        }
        if (close(fd) != 0)
            return sp_fail(e, SP_EXIT_INPUT, "%s: %s", path, strerror(errno));
        return 0;
    }
    /* Signals that end the process wait until the temporary file is
     * renamed or removed, so an interrupted write never leaves one behind. */
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    sigaddset(&block, SIGQUIT);
    sigprocmask(SIG_BLOCK, &block, &old);
    int rc = replace_file(path, buf, len, e);
    sigprocmask(SIG_SETMASK, &old, NULL);
    return rc;
}

int sp_same_file(const char *a, const char *b)
{
    if (a == NULL || b == NULL || strcmp(a, "-") == 0 || strcmp(b, "-") == 0)
        return 0;
    struct stat sa, sb;
    int ha = stat(a, &sa) == 0, hb = stat(b, &sb) == 0;
    if (ha && hb)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    return !ha && !hb && strcmp(a, b) == 0;
}

int sp_inside_dir(const char *path, const char *dir)
{
    if (path == NULL || dir == NULL || strcmp(path, "-") == 0)
        return 0;
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return 0;
    char *rdir = realpath(dir, NULL), *copy = strdup(path), *rparent = NULL;
    int inside = 0;
    if (rdir && copy) {
        char *slash = strrchr(copy, '/');
        const char *parent = slash == NULL ? "." : slash == copy ? "/" : (*slash = '\0', copy);
        rparent = realpath(parent, NULL);
        size_t dl = strlen(rdir);
        inside = rparent && strncmp(rparent, rdir, dl) == 0 &&
                 (rparent[dl] == '\0' || rparent[dl] == '/' || strcmp(rdir, "/") == 0);
    }
    free(rdir);
    free(copy);
    free(rparent);
    return inside;
}

int sp_write_exclusive(const char *path, const char *buf, size_t len,
                       unsigned mode, struct sp_error *e)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
    if (fd < 0)
        return sp_fail(e, SP_EXIT_INPUT, "%s: %s", path,
                       errno == EEXIST ? "exists; not overwritten" : strerror(errno));
    if (fchmod(fd, mode) != 0 || write_all(fd, buf, len) != 0 || fsync(fd) != 0) {
        int saved = errno;
        close(fd);
        unlink(path);
        return sp_fail(e, SP_EXIT_INPUT, "%s: %s", path, strerror(saved));
    }
    if (close(fd) != 0) {
        int saved = errno;
        unlink(path);
        return sp_fail(e, SP_EXIT_INPUT, "%s: %s", path, strerror(saved));
    }
    return 0;
}
