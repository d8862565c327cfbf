/* tests/unit/test_root.c: the directory root backend (fingerprint/root/root_dir.c)
 * and the helpers of fingerprint/root/root.c.  Each test builds its own tree under
 * $TMPDIR and plants the traps a copied tree can hold: ".." and absolute
 * symlinks aiming at this machine's files, symlink loops, a FIFO, a file
 * just past a read bound, a folder with more names than list_dir returns.
 * The expected answers are what chroot(2) semantics say, checked against
 * files this test wrote with different content from the host's. */
#include "tests/unit/testlib.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fingerprint/root/root.h"

static char top[512];

static void put(const char *rel, const char *content)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", top, rel);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(content, f);
    fclose(f);
}

static void dir(const char *rel)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", top, rel);
    assert_int_equal(mkdir(p, 0755), 0);
}

static void sym(const char *target, const char *rel)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", top, rel);
    assert_int_equal(symlink(target, p), 0);
}

static int setup(void **state)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(top, sizeof top, "%s/rootXXXXXX", tmp && *tmp ? tmp : "/tmp");
    assert_non_null(mkdtemp(top));
    dir("etc");
    dir("a");
    dir("a/b");
    put("etc/os-release", "ID=inside\n");
    put("etc/hostname", "  inside-host \t\n second line\n");
    put("a/b/file", "in b\n");
    put("empty", "");
    put("blank", " \n\t\n");
    sym("/etc/os-release", "abs");                 /* absolute: inside the root */
    sym("../../../../../../../../etc/os-release", "a/b/climb");
    sym("/etc/passwd", "host-only");               /* exists on the host, not here */
    sym("loop1", "loop2");
    sym("loop2", "loop1");
    sym("self", "self");
    sym("/a/b", "dirlink");
    char p[1024];
    snprintf(p, sizeof p, "%s/fifo", top);
    assert_int_equal(mkfifo(p, 0644), 0);
    sym("/fifo", "fifolink");
    *state = root_open_dir(top);
    assert_non_null(*state);
    return 0;
}

static int teardown(void **state)
{
    root_close(*state);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
    return system(cmd) == 0 ? 0 : -1;
}

static void read_ok(struct root *r, const char *path, const char *want)
{
    char *buf = NULL;
    size_t len = 0;
    if (root_read_file(r, path, 1 << 20, &buf, &len) != 0)
        fail_msg("reading %s: %s", path, strerror(errno));
    assert_string_equal(buf, want);
    assert_int_equal(len, strlen(want));
    free(buf);
}

static void read_fails(struct root *r, const char *path, int err)
{
    char *buf = NULL;
    size_t len;
    errno = 0;
    if (root_read_file(r, path, 1 << 20, &buf, &len) == 0) {
        free(buf);
        fail_msg("reading %s succeeded, expected %s", path, strerror(err));
    }
    if (errno != err)
        fail_msg("reading %s: %s, expected %s", path, strerror(errno), strerror(err));
}

static void dotdot_stays_inside(void **state)
{
    struct root *r = *state;
    read_ok(r, "/../../../../etc/os-release", "ID=inside\n");
    read_ok(r, "/a/b/../../etc/os-release", "ID=inside\n");
    read_ok(r, "/a/b/climb", "ID=inside\n");       /* relative link climbing out */
    read_ok(r, "etc/os-release", "ID=inside\n");   /* relative paths are from the root */
}

static void absolute_links_stay_inside(void **state)
{
    struct root *r = *state;
    read_ok(r, "/abs", "ID=inside\n");
    read_ok(r, "/dirlink/file", "in b\n");
    /* /etc/passwd exists on every host; inside the root it does not */
    read_fails(r, "/host-only", ENOENT);
    read_fails(r, "/etc/passwd", ENOENT);
    char *real = NULL;
    assert_int_equal(root_realpath(r, "/dirlink/../b/file", &real), 0);
    assert_string_equal(real, "/a/b/file");
    free(real);
    assert_int_equal(root_realpath(r, "/a/b/climb", &real), 0);
    assert_string_equal(real, "/etc/os-release");
    free(real);
    assert_int_equal(root_realpath(r, "/", &real), 0);
    assert_string_equal(real, "/");
    free(real);
}

static void loops_give_eloop(void **state)
{
    struct root *r = *state;
    struct root_stat st;
    read_fails(r, "/loop1", ELOOP);
    read_fails(r, "/self", ELOOP);
    errno = 0;
    assert_int_equal(root_stat(r, "/loop1", 1, &st), -1);
    assert_int_equal(errno, ELOOP);
    char **names;
    size_t n;
    errno = 0;
    assert_int_equal(root_list_dir(r, "/self", &names, &n), -1);
    assert_int_equal(errno, ELOOP);
    /* not following the final link: it is a link */
    assert_int_equal(root_stat(r, "/loop1", 0, &st), 0);
    assert_int_equal(st.type, ROOT_T_LINK);
    assert_int_equal(root_exists(r, "/loop1"), 0);
}

static void fifo_refused_without_hanging(void **state)
{
    struct root *r = *state;
    /* a blocking open of a FIFO with no writer would hang: the alarm turns
     * a hang into a failure instead of a stuck test run */
    alarm(10);
    read_fails(r, "/fifo", EINVAL);
    read_fails(r, "/fifolink", EINVAL);
    char line[64];
    errno = 0;
    assert_int_equal(root_read_line(r, "/fifo", line, sizeof line), -1);
    assert_int_equal(errno, EINVAL);
    alarm(0);
    struct root_stat st;
    assert_int_equal(root_stat(r, "/fifo", 1, &st), 0);
    assert_int_equal(st.type, ROOT_T_OTHER);
}

static int count_chunks(void *ctx, const char *chunk, size_t n)
{
    (void)chunk;
    *(size_t *)ctx += n;
    return 0;
}

static int stop_at_once(void *ctx, const char *chunk, size_t n)
{
    (void)chunk;
    *(size_t *)ctx += n;
    return 1;
}

static void reads_are_bounded(void **state)
{
    struct root *r = *state;
    char big[10001];
    memset(big, 'x', 10000);
    big[10000] = '\0';
    put("big", big);
    char *buf = NULL;
    size_t len = 0;
    /* exactly at the bound: read; one byte past: EFBIG */
    assert_int_equal(root_read_file(r, "/big", 10000, &buf, &len), 0);
    assert_int_equal(len, 10000);
    assert_int_equal(buf[len], '\0');
    free(buf);
    errno = 0;
    assert_int_equal(root_read_file(r, "/big", 9999, &buf, &len), -1);
    assert_int_equal(errno, EFBIG);
    errno = 0;
    assert_int_equal(root_read_file(r, "/big", 10, &buf, &len), -1);
    assert_int_equal(errno, EFBIG);
    /* scan_file reads at most MAX bytes */
    size_t seen = 0;
    assert_int_equal(root_scan_file(r, "/big", 4000, count_chunks, &seen), 0);
    assert_int_equal(seen, 4000);
    seen = 0;
    assert_int_equal(root_scan_file(r, "/big", 1 << 20, count_chunks, &seen), 0);
    assert_int_equal(seen, 10000);
    seen = 0;
    assert_int_equal(root_scan_file(r, "/big", 1 << 20, stop_at_once, &seen), 0);
    assert_int_equal(seen, 10000);           /* one chunk holds it all, then stop */
    errno = 0;
    assert_int_equal(root_scan_file(r, "/fifo", 100, count_chunks, &seen), -1);
    assert_int_equal(errno, EINVAL);
    /* a folder is not a file */
    read_fails(r, "/a", EISDIR);
    /* the empty file reads as "" */
    read_ok(r, "/empty", "");
}

static void read_line_trims(void **state)
{
    struct root *r = *state;
    char line[64];
    assert_int_equal(root_read_line(r, "/etc/hostname", line, sizeof line), 0);
    assert_string_equal(line, "inside-host");
    assert_int_equal(root_read_line(r, "/etc/hostname", line, 5), 0);
    assert_string_equal(line, "insi");
    errno = 0;
    assert_int_equal(root_read_line(r, "/empty", line, sizeof line), -1);
    assert_int_equal(errno, ENODATA);
    errno = 0;
    assert_int_equal(root_read_line(r, "/blank", line, sizeof line), -1);
    assert_int_equal(errno, ENODATA);
}

static void list_dir_sorted(void **state)
{
    struct root *r = *state;
    static const char *const names[] = { "zeta", "Alpha", "beta", "_x", "a.b", "a-b", "\xc3\xa9t\xc3\xa9" };
    dir("list");
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char rel[64];
        snprintf(rel, sizeof rel, "list/%s", names[i]);
        put(rel, "");
    }
    char **got;
    size_t n;
    assert_int_equal(root_list_dir(r, "/list", &got, &n), 0);
    assert_int_equal(n, sizeof names / sizeof *names);
    for (size_t i = 1; i < n; i++)
        if (strcmp(got[i - 1], got[i]) >= 0)
            fail_msg("not sorted bytewise: %s before %s", got[i - 1], got[i]);
    assert_string_equal(got[0], "Alpha");     /* uppercase sorts first in bytes */
    assert_string_equal(got[n - 1], "\xc3\xa9t\xc3\xa9");
    root_names_free(got, n);
    /* through an absolute link, and the errors */
    assert_int_equal(root_list_dir(r, "/dirlink", &got, &n), 0);
    assert_int_equal(n, 2);
    assert_string_equal(got[0], "climb");
    assert_string_equal(got[1], "file");
    root_names_free(got, n);
    errno = 0;
    assert_int_equal(root_list_dir(r, "/etc/os-release", &got, &n), -1);
    assert_int_equal(errno, ENOTDIR);
    errno = 0;
    assert_int_equal(root_list_dir(r, "/nowhere", &got, &n), -1);
    assert_int_equal(errno, ENOENT);
}

static void list_dir_bound(void **state)
{
    struct root *r = *state;
    char p[1024];
    dir("many");
    /* one name past SP_ROOT_DIR_ENTRIES_MAX: refused with E2BIG */
    for (int i = 0; i <= SP_ROOT_DIR_ENTRIES_MAX; i++) {
        snprintf(p, sizeof p, "%s/many/%d", top, i);
        int fd = open(p, O_CREAT | O_WRONLY, 0644);
        assert_true(fd >= 0);
        close(fd);
    }
    char **got;
    size_t n;
    errno = 0;
    assert_int_equal(root_list_dir(r, "/many", &got, &n), -1);
    assert_int_equal(errno, E2BIG);
    snprintf(p, sizeof p, "%s/many/0", top);
    assert_int_equal(unlink(p), 0);
    assert_int_equal(root_list_dir(r, "/many", &got, &n), 0);
    assert_int_equal(n, SP_ROOT_DIR_ENTRIES_MAX);
    root_names_free(got, n);
}

static void links_and_stat(void **state)
{
    struct root *r = *state;
    char *target = NULL;
    assert_int_equal(root_read_link(r, "/abs", &target), 0);
    assert_string_equal(target, "/etc/os-release");   /* as written in the link */
    free(target);
    errno = 0;
    assert_int_equal(root_read_link(r, "/etc/os-release", &target), -1);
    assert_int_equal(errno, EINVAL);
    struct root_stat st;
    assert_int_equal(root_stat(r, "/abs", 0, &st), 0);
    assert_int_equal(st.type, ROOT_T_LINK);
    assert_int_equal(root_stat(r, "/abs", 1, &st), 0);
    assert_int_equal(st.type, ROOT_T_FILE);
    assert_int_equal(st.size, strlen("ID=inside\n"));
    assert_int_equal(root_is_dir(r, "/dirlink"), 1);
    assert_int_equal(root_is_dir(r, "/abs"), 0);
    assert_int_equal(root_exists(r, "/host-only"), 0);
    errno = 0;
    assert_int_equal(root_stat(r, "", 1, &st), -1);
    assert_int_equal(errno, ENOENT);
}

static void host_path_and_open(void **state)
{
    struct root *r = *state;
    char *hp = root_host_path(r, "/sys/bus/pci");
    assert_non_null(hp);
    char want[1024];
    char *real = realpath(top, NULL);
    snprintf(want, sizeof want, "%s/sys/bus/pci", real);
    assert_string_equal(hp, want);
    free(hp);
    free(real);
    assert_int_equal(r->live, 0);
    assert_int_equal(strncmp(r->subject, "root:/", 6), 0);
    char p[1024];
    snprintf(p, sizeof p, "%s/etc/os-release", top);
    errno = 0;
    assert_null(root_open_dir(p));
    assert_int_equal(errno, ENOTDIR);
    snprintf(p, sizeof p, "%s/nowhere", top);
    errno = 0;
    assert_null(root_open_dir(p));
    assert_int_equal(errno, ENOENT);
    char out[8];
    errno = 0;
    assert_int_equal(sp_path_join(out, sizeof out, "/abc", "defgh"), -1);
    assert_int_equal(errno, ENAMETOOLONG);
    char jp[32];
    assert_int_equal(sp_path_join(jp, sizeof jp, "/a//", "//b"), 0);
    assert_string_equal(jp, "/a/b");
}

static void live_host(void **state)
{
    (void)state;
    struct root *h = root_open_host();
    assert_non_null(h);
    assert_int_equal(h->live, 1);
    assert_string_equal(h->subject, "host:/");
    /* /proc/self is an ordinary symlink, not a magic link: readable */
    char *buf = NULL;
    size_t len;
    assert_int_equal(root_read_file(h, "/proc/self/status", 1 << 20, &buf, &len), 0);
    assert_non_null(strstr(buf, "Name:"));
    free(buf);
    /* a character device is refused, never opened for reading (/dev/zero
     * would fill any buffer) */
    errno = 0;
    assert_int_equal(root_read_file(h, "/dev/zero", 100, &buf, &len), -1);
    assert_int_equal(errno, EINVAL);
    char *real = NULL;
    assert_int_equal(root_realpath(h, "/etc/../etc", &real), 0);
    assert_string_equal(real, "/etc");
    free(real);
    root_close(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(dotdot_stays_inside, setup, teardown),
        cmocka_unit_test_setup_teardown(absolute_links_stay_inside, setup, teardown),
        cmocka_unit_test_setup_teardown(loops_give_eloop, setup, teardown),
        cmocka_unit_test_setup_teardown(fifo_refused_without_hanging, setup, teardown),
        cmocka_unit_test_setup_teardown(reads_are_bounded, setup, teardown),
        cmocka_unit_test_setup_teardown(read_line_trims, setup, teardown),
        cmocka_unit_test_setup_teardown(list_dir_sorted, setup, teardown),
        cmocka_unit_test_setup_teardown(list_dir_bound, setup, teardown),
        cmocka_unit_test_setup_teardown(links_and_stat, setup, teardown),
        cmocka_unit_test_setup_teardown(host_path_and_open, setup, teardown),
        cmocka_unit_test(live_host),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
