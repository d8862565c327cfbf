/* tests/unit/test_strbuf.c: the bounded string builder (common/strbuf.h). */
#include "tests/unit/testlib.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"

static void lists_and_format(void **state)
{
    struct sp_strbuf sb;
    sp_strbuf_init(&sb, 100);
    assert_string_equal(sp_strbuf_str(&sb), "");
    assert_int_equal(sp_strbuf_item(&sb, ", ", "a"), 0);
    assert_int_equal(sp_strbuf_item(&sb, ", ", "b"), 0);
    assert_int_equal(sp_strbuf_addf(&sb, " (%d)", 42), 0);
    assert_string_equal(sp_strbuf_str(&sb), "a, b (42)");
    char *s = sp_strbuf_take(&sb);
    assert_string_equal(s, "a, b (42)");
    free(s);
    /* taken: empty again, and an empty take is "" */
    s = sp_strbuf_take(&sb);
    assert_string_equal(s, "");
    free(s);
    sp_strbuf_free(&sb);
}

/* the bound: an append that would cross it adds nothing (no cut element)
 * and every later one is refused too */
static void bound(void **state)
{
    struct sp_strbuf sb;
    sp_strbuf_init(&sb, 8);
    assert_int_equal(sp_strbuf_item(&sb, ",", "abc"), 0);
    assert_int_equal(sp_strbuf_item(&sb, ",", "def"), 0);    /* "abc,def": 7 */
    errno = 0;
    assert_int_equal(sp_strbuf_item(&sb, ",", "g"), -1);     /* 9 > 8 */
    assert_int_equal(errno, E2BIG);
    assert_true(sp_strbuf_over(&sb));
    assert_string_equal(sp_strbuf_str(&sb), "abc,def");
    assert_int_equal(sp_strbuf_add(&sb, "x"), -1);           /* would fit, still refused */
    assert_int_equal(sp_strbuf_addf(&sb, "%s", "x"), -1);
    assert_string_equal(sp_strbuf_str(&sb), "abc,def");
    sp_strbuf_free(&sb);
    assert_false(sp_strbuf_over(&sb));
    /* exactly the bound fits */
    assert_int_equal(sp_strbuf_add(&sb, "12345678"), 0);
    assert_int_equal(sp_strbuf_addn(&sb, "", 0), 0);
    assert_int_equal(sp_strbuf_add(&sb, "9"), -1);
    sp_strbuf_free(&sb);
}

/* many appends: the text is every element once, in order (the builder
 * appends in place; a strcat loop would rescan the text each time) */
static void many(void **state)
{
    struct sp_strbuf sb;
    sp_strbuf_init(&sb, 1u << 24);
    for (int i = 0; i < 200000; i++) {
        char v[16];
        snprintf(v, sizeof v, "%d", i);
        assert_int_equal(sp_strbuf_item(&sb, ",", v), 0);
    }
    const char *s = sp_strbuf_str(&sb);
    assert_int_equal(strncmp(s, "0,1,2,", 6), 0);
    assert_string_equal(s + sb.len - 7, ",199999");
    assert_int_equal(strlen(s), sb.len);
    assert_true(sb.cap <= 2 * sb.len + 64);
    sp_strbuf_free(&sb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lists_and_format),
        cmocka_unit_test(bound),
        cmocka_unit_test(many),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
