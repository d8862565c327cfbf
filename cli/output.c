/* cli/output.c: printing errors and writing output files atomically. */
#include "cli/commands.h"

#include <dirent.h>
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

/* Write BUF to a new temporary file "PATH.tmp.<pid>.XXXXXX" in PATH's
 * folder (the pid lets a later run find what a killed one left: see
 * remove_stale), fsync it, and return its malloc'd name; NULL with E set,
 * nothing left behind, on failure. */
static char *write_temp(const char *path, const char *buf, size_t len, struct sp_error *e)
{
    char *tmp = NULL;
    if (asprintf(&tmp, "%s.tmp.%ld.XXXXXX", path, (long)getpid()) < 0) {
        sp_fail(e, SP_EXIT_INPUT, "%s: %s", path, strerror(ENOMEM));
        return NULL;
    }
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int saved = errno;
        free(tmp);
        sp_fail(e, SP_EXIT_INPUT, "%s: %s", path, strerror(saved));
        return NULL;
    }
    mode_t um = umask(0);
    umask(um);
    if (fchmod(fd, 0644 & ~um) != 0 || write_all(fd, buf, len) != 0 || fsync(fd) != 0 ||
        close(fd) != 0) {
        int saved = errno;
        close(fd);
        unlink(tmp);
        free(tmp);
        sp_fail(e, SP_EXIT_INPUT, "%s: %s", path, strerror(saved));
        return NULL;
    }
    return tmp;
}

/* Write PATH's new content to a temporary file, then rename it over PATH;
 * on any failure the temporary file is removed and PATH is untouched. */
static int replace_file(const char *path, const char *buf, size_t len, struct sp_error *e)
{
    char *tmp = write_temp(path, buf, len, e);
    if (tmp == NULL)
        return -1;
    if (rename(tmp, path) != 0) {
        int saved = errno;
        unlink(tmp);
        free(tmp);
        return sp_fail(e, SP_EXIT_INPUT, "%s: %s", path, strerror(saved));
    }
    free(tmp);
    return 0;
}

/* For each "PATH.tmp.<pid>.XXXXXX" left by a process that no longer runs
 * (a SIGKILL between writing and renaming): KEEP(tmp, ARG) true renames it
 * over PATH (finishing that run's work), else it is removed.  Temporaries
 * of running processes (another stackprint writing PATH now) are left. */
static void remove_stale(const char *path, int (*keep)(const char *tmp, void *arg), void *arg)
{
    char *copy = strdup(path);
    if (copy == NULL)
        return;
    char *slash = strrchr(copy, '/');
    const char *dir = slash == NULL ? "." : slash == copy ? "/" : (*slash = '\0', copy);
    const char *base = slash ? slash + 1 : copy;
    size_t bl = strlen(base);
    DIR *d = opendir(dir);
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL) {
        const char *n = de->d_name;
        if (strncmp(n, base, bl) != 0 || strncmp(n + bl, ".tmp.", 5) != 0)
            continue;
        char *end = NULL;
        errno = 0;
        long pid = strtol(n + bl + 5, &end, 10);
        if (errno || end == n + bl + 5 || pid <= 0 || *end != '.' || strlen(end + 1) != 6)
            continue;
        if (pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        char *tmp = NULL;
        if (asprintf(&tmp, "%s/%s", dir, n) < 0)
            break;
        if (!(keep && keep(tmp, arg) && rename(tmp, path) == 0))
            unlink(tmp);
        free(tmp);
    }
    if (d)
        closedir(d);
    free(copy);
}

/* Block the signals that end the process (SIGKILL cannot be), so that an
 * interrupted write never leaves a temporary file; OLD gets the mask. */
static void block_signals(sigset_t *old)
{
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    sigaddset(&block, SIGQUIT);
    sigprocmask(SIG_BLOCK, &block, old);
}

/* Open the existing non-regular PATH (a device, a FIFO) for writing in
 * place, without waiting: a FIFO that no process reads is refused (ENXIO)
 * rather than waited on forever; then writes block as usual. */
static int open_in_place(const char *path, struct sp_error *e)
{
    int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return sp_fail(e, SP_EXIT_INPUT, "%s: %s", path, errno == ENXIO
                       ? "a FIFO no process is reading; not written" : strerror(errno));
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
        int saved = errno;
        close(fd);
        return sp_fail(e, SP_EXIT_INPUT, "%s: %s", path, strerror(saved));
    }
    return fd;
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
        int fd = open_in_place(path, e);
        if (fd < 0)
            return -1;
        if (write_all(fd, buf, len) != 0) {
            int saved = errno;
            close(fd);
            return sp_fail(e, SP_EXIT_INPUT, "%s: %s", path, strerror(saved));
        }
        if (close(fd) != 0)
            return sp_fail(e, SP_EXIT_INPUT, "%s: %s", path, strerror(errno));
        return 0;
    }
    sigset_t old;
    block_signals(&old);
    remove_stale(path, NULL, NULL);
    int rc = replace_file(path, buf, len, e);
    sigprocmask(SIG_SETMASK, &old, NULL);
    return rc;
}

int sp_write_pair(const char *path, const char *buf, size_t len, const char *path2,
                  const char *buf2, size_t len2, int (*finish)(const char *tmp2, void *arg),
                  void *arg, struct sp_error *e)
{
    struct stat st;
    for (int i = 0; i < 2; i++) {
        const char *p = i ? path2 : path;
        if (stat(p, &st) == 0 && !S_ISREG(st.st_mode))
            return sp_fail(e, SP_EXIT_INPUT, "%s: not a regular file", p);
    }
    sigset_t old;
    block_signals(&old);
    /* what a killed run left: its second file is renamed into place when it
     * belongs to the first file as it is now (FINISH), else removed */
    remove_stale(path, NULL, NULL);
    remove_stale(path2, finish, arg);
    int rc = -1;
    char *t1 = write_temp(path, buf, len, e), *t2 = t1 ? write_temp(path2, buf2, len2, e) : NULL;
    if (t1 && t2) {
        if (rename(t1, path) != 0)
            sp_fail(e, SP_EXIT_INPUT, "%s: %s", path, strerror(errno));
        else if (rename(t2, path2) != 0)
            sp_fail(e, SP_EXIT_INPUT, "%s: %s", path2, strerror(errno));
        else
            rc = 0;
    }
    if (rc != 0) {
        if (t1)
            unlink(t1);
        if (t2)
            unlink(t2);
    }
    free(t1);
    free(t2);
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
