/* tests/unit/test_json_writer.c: the streaming writer of the exports
 * (export/json_writer.h) against jansson's json_dumps(JSON_INDENT(2) |
 * JSON_PRESERVE_ORDER), the judge: the same document built as a jansson
 * tree must give the same bytes (plus the writer's one trailing newline),
 * for every single byte and for random documents whose strings mix plain
 * ASCII, the characters JSON escapes, control bytes and multi-byte UTF-8.
 * Invalid UTF-8, which json_string refuses, must fail the writer too. */
#include "tests/unit/testlib.h"

#include <jansson.h>

#include "export/json_writer.h"

/* The writer's document and jansson's dump of TREE (reference taken). */
static void same_as_jansson(struct sp_jw *w, json_t *tree, const char *what)
{
    char *got = NULL, *want = json_dumps(tree, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    size_t len = 0;
    struct sp_error e = { 0 };
    json_decref(tree);
    assert_non_null(want);
    if (sp_jw_finish(w, &got, &len, &e) != 0)
        fail_msg("%s: the writer failed: %s", what, e.msg);
    size_t n = strlen(want);
    if (len != n + 1 || memcmp(got, want, n) != 0 || got[n] != '\n')
        fail_msg("%s: writer\n%s\njansson\n%s", what, got, want);
    free(got);
    free(want);
}

static void every_byte(void **state)
{
    (void)state;
    for (int c = 1; c < 256; c++) {
        char s[4] = { 'a', (char)c, 'z', '\0' };
        struct sp_jw w;
        sp_jw_init(&w, 0);
        sp_jw_open(&w, NULL, '{');
        sp_jw_string(&w, "k", s);
        sp_jw_close(&w, '}');
        json_t *str = json_string(s);
        if (str == NULL) {          /* not UTF-8 alone: the writer refuses it too */
            char *out = NULL;
            size_t len = 0;
            struct sp_error e = { 0 };
            assert_int_equal(sp_jw_finish(&w, &out, &len, &e), -1);
            assert_int_equal(e.exit_code, SP_EXIT_INPUT);
            assert_string_equal(e.msg, "export: a string is not UTF-8");
            continue;
        }
        json_t *tree = json_object();
        json_object_set_new(tree, "k", str);
        char what[32];
        snprintf(what, sizeof what, "byte 0x%02x", c);
        same_as_jansson(&w, tree, what);
    }
}

/* A small deterministic generator (xorshift64), so a failure repeats. */
static unsigned long long rng = 0x9e3779b97f4a7c15ull;
static unsigned pick(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}

static void random_string(char *s, size_t cap)
{
    static const char *const parts[] = {
        "a", "Z", "0", " ", "/", "\"", "\\", "\n", "\t", "\x01", "\x1f", "\x7f",
        "\xc3\xa9", "\xe4\xb8\xad", "\xf0\x9f\x98\x80", "\xe2\x80\xa8", "pkg:pypi/torch@2.9.0",
    };
    size_t n = 0, parts_n = pick(6);
    s[0] = '\0';
    for (size_t i = 0; i < parts_n; i++) {
        const char *p = parts[pick(sizeof parts / sizeof *parts)];
        if (n + strlen(p) + 1 > cap)
            break;
        memcpy(s + n, p, strlen(p) + 1);
        n += strlen(p);
    }
}

/* Add a random value (as KEY of an object, or an item when KEY is NULL)
 * to both PARENT (jansson) and W, at most DEPTH levels down. */
static void random_value(struct sp_jw *w, json_t *parent, const char *key, int depth)
{
    char s[64];
    json_t *v;
    unsigned kind = pick(depth > 0 ? 5 : 3);
    if (kind == 0) {
        random_string(s, sizeof s);
        sp_jw_string(w, key, s);
        v = json_string(s);
    } else if (kind == 1) {
        int n = (int)pick(1000);
        snprintf(s, sizeof s, "%d", n);
        sp_jw_literal(w, key, s);
        v = json_integer(n);
    } else if (kind == 2) {
        int t = (int)pick(2);
        sp_jw_literal(w, key, t ? "true" : "false");
        v = json_boolean(t);
    } else {
        int obj = kind == 3;
        sp_jw_open(w, key, obj ? '{' : '[');
        v = obj ? json_object() : json_array();
        unsigned n = pick(4);
        for (unsigned i = 0; i < n; i++) {
            char k[16];
            snprintf(k, sizeof k, "k%u", i);
            random_value(w, v, obj ? k : NULL, depth - 1);
        }
        sp_jw_close(w, obj ? '}' : ']');
    }
    if (key)
        json_object_set_new(parent, key, v);
    else
        json_array_append_new(parent, v);
}

static void random_documents(void **state)
{
    (void)state;
    for (int d = 0; d < 2000; d++) {
        struct sp_jw w;
        sp_jw_init(&w, (size_t)pick(3) * 16);   /* small buffers: growth is exercised */
        json_t *tree = json_object();
        sp_jw_open(&w, NULL, '{');
        unsigned n = pick(5);
        for (unsigned i = 0; i < n; i++) {
            char k[16];
            snprintf(k, sizeof k, "m%u", i);
            random_value(&w, tree, k, 4);
        }
        sp_jw_close(&w, '}');
        char what[32];
        snprintf(what, sizeof what, "document %d", d);
        same_as_jansson(&w, tree, what);
    }
}

static void misuse_fails(void **state)
{
    (void)state;
    struct sp_jw w;
    char *out = NULL;
    size_t len = 0;
    struct sp_error e = { 0 };

    sp_jw_init(&w, 0);
    sp_jw_open(&w, NULL, '{');          /* left open */
    assert_int_equal(sp_jw_finish(&w, &out, &len, &e), -1);

    sp_jw_init(&w, 0);
    sp_jw_close(&w, '}');               /* nothing open */
    assert_int_equal(sp_jw_finish(&w, &out, &len, &e), -1);

    sp_jw_init(&w, 0);
    for (int i = 0; i <= SP_JW_DEPTH_MAX; i++)   /* one level too deep */
        sp_jw_open(&w, NULL, '[');
    for (int i = 0; i <= SP_JW_DEPTH_MAX; i++)
        sp_jw_close(&w, ']');
    assert_int_equal(sp_jw_finish(&w, &out, &len, &e), -1);

    sp_jw_init(&w, 0);
    for (int i = 0; i < SP_JW_DEPTH_MAX; i++)    /* exactly the bound: fine */
        sp_jw_open(&w, NULL, '[');
    for (int i = 0; i < SP_JW_DEPTH_MAX; i++)
        sp_jw_close(&w, ']');
    assert_int_equal(sp_jw_finish(&w, &out, &len, &e), 0);
    free(out);

    sp_jw_init(&w, 0);
    sp_jw_open(&w, NULL, '{');
    sp_jw_string(&w, "k", NULL);        /* json_pack refuses a NULL string too */
    sp_jw_close(&w, '}');
    assert_int_equal(sp_jw_finish(&w, &out, &len, &e), -1);
    assert_int_equal(e.exit_code, SP_EXIT_INPUT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_byte),
        cmocka_unit_test(random_documents),
        cmocka_unit_test(misuse_fails),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
