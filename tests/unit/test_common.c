/* tests/unit/test_common.c: the ground floor in common/ that every layer
 * uses: digests (common/digest.h) against the FIPS 180-4 / NIST example
 * values, and the one shape check of "sha256:<hex>"; bounded reading
 * (common/file.h) at and past its bounds; UTF-8 (common/utf8.h) against
 * RFC 3629's rules: overlongs, surrogates and code points past U+10FFFF are
 * invalid; path joining (common/path.h); growing arrays (common/array.h):
 * items kept, capacity doubling, overflow refused without touching the array. */
#include "tests/unit/testlib.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "common/array.h"
#include "common/digest.h"
#include "common/file.h"
#include "common/path.h"
#include "common/utf8.h"

/* SHA-256 of "" and of "abc": the NIST CSRC example values (FIPS 180-4). */
#define SHA_EMPTY "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
#define SHA_ABC   "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"

static void digest_known_values(void **state)
{
    (void)state;
    char hex[SP_SHA256_HEX_LEN + 1], dg[SP_DIGEST_LEN + 1];
    assert_int_equal(sp_sha256_hex("", 0, hex), 0);
    assert_string_equal(hex, SHA_EMPTY);
    assert_int_equal(sp_sha256_hex("abc", 3, hex), 0);
    assert_string_equal(hex, SHA_ABC);
    assert_int_equal(sp_sha256_digest("abc", 3, dg), 0);
    assert_string_equal(dg, "sha256:" SHA_ABC);
    assert_int_equal(strlen(dg), SP_DIGEST_LEN);

    unsigned char md[SP_SHA256_BYTES];
    for (size_t i = 0; i < sizeof md; i++)
        md[i] = (unsigned char)(i * 8 + 1);
    sp_digest_format(md, dg);
    assert_string_equal(dg, "sha256:0109111921293139414951596169717981899199a1a9b1b9c1c9d1d9e1e9f1f9");
}

static void digest_shapes(void **state)
{
    (void)state;
    assert_true(sp_sha256_hex_valid(SHA_ABC));
    assert_true(sp_digest_valid("sha256:" SHA_ABC));
    assert_false(sp_sha256_hex_valid(NULL));
    assert_false(sp_digest_valid(NULL));
    assert_false(sp_sha256_hex_valid(""));
    assert_false(sp_sha256_hex_valid(SHA_ABC "0"));                 /* 65 digits */
    assert_false(sp_sha256_hex_valid(SHA_ABC + 1));                  /* 63 digits */
    assert_false(sp_sha256_hex_valid("BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD"));
    assert_false(sp_sha256_hex_valid("g" SHA_ABC + 2));              /* 'g' + 63 digits */
    assert_false(sp_digest_valid(SHA_ABC));                          /* no prefix */
    assert_false(sp_digest_valid("sha512:" SHA_ABC));
    assert_false(sp_digest_valid("SHA256:" SHA_ABC));
    assert_false(sp_digest_valid("sha256:" SHA_ABC " "));
    assert_false(sp_digest_valid("sha256:"));
}

/* A pipe holding N bytes of 'x' (written before reading: N is small). */
static int pipe_of(size_t n)
{
    int p[2];
    char b[8192];
    assert_int_equal(pipe(p), 0);
    assert_true(n <= sizeof b);
    memset(b, 'x', n);
    assert_int_equal(write(p[1], b, n), (ssize_t)n);
    close(p[1]);
    return p[0];
}

static void read_fd_bounds(void **state)
{
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    /* grow mode, size unknown: up to MAX is read whole, NUL-ended */
    int fd = pipe_of(5000);
    assert_int_equal(sp_read_fd(fd, 5000, 0, 0, &buf, &len), 0);
    assert_int_equal(len, 5000);
    assert_int_equal(buf[4999], 'x');
    assert_int_equal(buf[5000], '\0');
    free(buf);
    close(fd);
    /* one byte past MAX is refused */
    fd = pipe_of(5001);
    errno = 0;
    assert_int_equal(sp_read_fd(fd, 5000, 0, 0, &buf, &len), -1);
    assert_int_equal(errno, EFBIG);
    close(fd);
    /* exact mode: more than SIZE is refused (the file grew) */
    fd = pipe_of(11);
    errno = 0;
    assert_int_equal(sp_read_fd(fd, 100, 10, 1, &buf, &len), -1);
    assert_int_equal(errno, EFBIG);
    close(fd);
    fd = pipe_of(10);
    assert_int_equal(sp_read_fd(fd, 100, 10, 1, &buf, &len), 0);
    assert_int_equal(len, 10);
    free(buf);
    close(fd);
    /* empty */
    fd = pipe_of(0);
    assert_int_equal(sp_read_fd(fd, 100, 0, 0, &buf, &len), 0);
    assert_int_equal(len, 0);
    assert_string_equal(buf, "");
    free(buf);
    close(fd);
    /* a /proc file: st_size 0, yet it has content */
    fd = open("/proc/self/status", O_RDONLY);
    assert_true(fd >= 0);
    assert_int_equal(sp_read_fd(fd, 1 << 20, 0, 0, &buf, &len), 0);
    assert_true(len > 0 && strncmp(buf, "Name:", 5) == 0);
    free(buf);
    close(fd);
}

static void pread_region(void **state)
{
    (void)state;
    char path[] = "/tmp/sp-test-common-XXXXXX", buf[8];
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    unlink(path);
    assert_int_equal(write(fd, "0123456789", 10), 10);
    assert_int_equal(sp_pread_full(fd, buf, 4, 3), 0);
    assert_memory_equal(buf, "3456", 4);
    assert_int_equal(sp_pread_full(fd, buf, 0, 10), 0);
    errno = 0;
    assert_int_equal(sp_pread_full(fd, buf, 4, 8), -1);           /* 2 bytes left */
    assert_int_equal(errno, ENODATA);
    close(fd);
}

static void read_file_messages(void **state)
{
    (void)state;
    struct sp_error e = { 0 };
    char *buf = NULL;
    size_t len = 0;
    assert_int_equal(sp_read_file("tests/unit/test_common.c", 1u << 20, "test", &buf, &len, &e), 0);
    assert_true(len > 100 && buf[len] == '\0');
    free(buf);
    assert_int_equal(sp_read_file("tests/unit/test_common.c", 100, "test", &buf, &len, &e), -1);
    assert_int_equal(e.exit_code, SP_EXIT_INPUT);
    assert_string_equal(e.msg, "tests/unit/test_common.c: larger than the test size limit (100 bytes)");
    assert_int_equal(sp_read_file("tests/unit", 100, "test", &buf, &len, &e), -1);
    assert_string_equal(e.msg, "tests/unit: not a regular file");
    assert_int_equal(sp_read_file("tests/unit/no-such-file", 100, "test", &buf, &len, &e), -1);
    assert_string_equal(e.msg, "tests/unit/no-such-file: No such file or directory");
}

static void utf8_rules(void **state)
{
    (void)state;
    static const struct { const char *in; size_t len; int valid; const char *out; } cases[] = {
        { "plain", 5, 1, "plain" },
        { "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 14, 1,
          "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80" },
        { "\xc0\x80", 2, 0, "\\xc0\\x80" },                     /* overlong NUL */
        { "\xe0\x80\xaf", 3, 0, "\\xe0\\x80\\xaf" },            /* overlong '/' */
        { "\xed\xa0\x80", 3, 0, "\\xed\\xa0\\x80" },            /* surrogate U+D800 */
        { "\xf4\x90\x80\x80", 4, 0, "\\xf4\\x90\\x80\\x80" },   /* U+110000 */
        { "a\xe2\x82", 3, 0, "a\\xe2\\x82" },                    /* cut short */
        { "a\0b", 3, 0, "a\\x00b" },                             /* NUL */
        { "\xff", 1, 0, "\\xff" },
        { "", 0, 1, "" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *got = sp_utf8_sanitize(cases[i].in, cases[i].len);
        assert_non_null(got);
        if (strcmp(got, cases[i].out) != 0)
            fail_msg("case %zu: got \"%s\", expected \"%s\"", i, got, cases[i].out);
        free(got);
        if (sp_utf8_valid(cases[i].in, cases[i].len) != cases[i].valid)
            fail_msg("case %zu: sp_utf8_valid is not %d", i, cases[i].valid);
    }
}

static void path_join(void **state)
{
    (void)state;
    static const char *const cases[][3] = {
        { "a", "b", "a/b" }, { "a/", "b", "a/b" }, { "a//", "//b", "a/b" },
        { "/", "x", "/x" }, { "", "x", "/x" }, { "/r", "", "/r/" },
    };
    char out[16];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        assert_int_equal(sp_path_join(out, sizeof out, cases[i][0], cases[i][1]), 0);
        assert_string_equal(out, cases[i][2]);
    }
    errno = 0;
    assert_int_equal(sp_path_join(out, 8, "abcd", "efg"), -1);        /* "abcd/efg" is 8 + NUL */
    assert_int_equal(errno, ENAMETOOLONG);
    assert_int_equal(sp_path_join(out, 9, "abcd", "efg"), 0);
    assert_string_equal(out, "abcd/efg");
}

static void array_reserve(void **state)
{
    (void)state;
    int *v = NULL;
    size_t n = 0, cap = 0;
    for (int i = 0; i < 1000; i++) {
        assert_int_equal(SP_ARRAY_RESERVE(v, cap, n + 1), 0);
        assert_true(cap >= n + 1);
        v[n++] = i;
    }
    for (int i = 0; i < 1000; i++)
        assert_int_equal(v[i], i);
    assert_int_equal(cap, 1024);          /* 16 doubled six times */
    size_t before = cap;
    int *was = v;
    assert_int_equal(SP_ARRAY_RESERVE(v, cap, 10), 0);      /* room already */
    assert_ptr_equal(v, was);
    errno = 0;
    assert_int_equal(sp_array_reserve(&v, &cap, ((size_t)-1) / 2, sizeof *v), -1);
    assert_int_equal(errno, ENOMEM);
    assert_ptr_equal(v, was);
    assert_int_equal(cap, before);
    assert_int_equal(sp_array_reserve(&v, &cap, (size_t)-1, 1), -1);
    assert_int_equal(cap, before);
    free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(digest_known_values),
        cmocka_unit_test(digest_shapes),
        cmocka_unit_test(read_fd_bounds),
        cmocka_unit_test(pread_region),
        cmocka_unit_test(read_file_messages),
        cmocka_unit_test(utf8_rules),
        cmocka_unit_test(path_join),
        cmocka_unit_test(array_reserve),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
