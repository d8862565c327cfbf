/* tests/unit/test_imds.c: the imds probe's failure paths that need no HTTP
 * server: off unless asked, endpoint syntax, a refused connection, and a
 * listener that accepts no request (the timeout).  The HTTP exchanges (token,
 * 404, oversized answers, silence after accept) are in tests/sh/imds.sh
 * against tests/imds_server.py.  Only 127.0.0.1 is ever contacted. */
#include "tests/unit/sysprobe_fixture.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>

static int listener(int *port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t al = sizeof a;
    assert_true(fd >= 0);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(fd, 4), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &al), 0);
    *port = ntohs(a.sin_port);
    return fd;
}

static void off_by_default(void **state)
{
    struct pt t;
    pt_fixture(&t, "container-bare");
    t.ctx.imds_endpoint = "127.0.0.1:1";
    pt_run(&t, probe_imds);
    assert_int_equal(t.fs.count + t.fs.nwarnings, 0);
    pt_close(&t);
}

static void endpoints(void **state)
{
    static const char *const bad[] = {
        "localhost:80", "169.254.169.254", "127.0.0.1:", ":80", "127.0.0.1:http",
        "[::1]80", "127.0.0.1:80:80", "300.1.1.1:80",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct pt t;
        pt_fixture(&t, "container-bare");
        t.ctx.imds = 1;
        t.ctx.imds_endpoint = bad[i];
        pt_run(&t, probe_imds);
        assert_int_equal(t.fs.count, 0);
        assert_warning(&t.fs, "is not a numeric HOST:PORT; not queried");
        pt_close(&t);
    }
}

static void refused_and_silent(void **state)
{
    int port;
    char ep[64];
    struct pt t;
    /* nothing listens on a port just closed: refused at once */
    int fd = listener(&port);
    close(fd);
    snprintf(ep, sizeof ep, "127.0.0.1:%d", port);
    pt_fixture(&t, "container-bare");
    t.ctx.imds = 1;
    t.ctx.imds_endpoint = ep;
    pt_run(&t, probe_imds);
    assert_int_equal(t.fs.count, 0);
    assert_warning(&t.fs, "/latest/api/token: Connection refused");
    assert_warning(&t.fs, "not necessarily root:");
    pt_close(&t);

    /* a listener that never accepts: connect completes, no answer comes */
    fd = listener(&port);
    snprintf(ep, sizeof ep, "127.0.0.1:%d", port);
    pt_fixture(&t, "container-bare");
    t.ctx.imds = 1;
    t.ctx.imds_endpoint = ep;
    t.ctx.imds_timeout_ms = 200;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    pt_run(&t, probe_imds);
    clock_gettime(CLOCK_MONOTONIC, &b);
    long ms = (b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000;
    assert_true(ms >= 190 && ms < 2000);
    assert_warning(&t.fs, "/latest/api/token: timed out");
    assert_int_equal(t.fs.count, 0);
    pt_close(&t);
    close(fd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(off_by_default),
        cmocka_unit_test(endpoints),
        cmocka_unit_test(refused_and_silent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
