/* tests/unit/test_node.c: node.h's toolkit, the one way every strict
 * reader (manifests, policies, the release catalog, DSSE envelopes, OCI
 * image JSON) reports a fault: the position error, the unknown-key check,
 * the text getters.  The same document is read as YAML (with positions)
 * and as JSON (without), so both message shapes are pinned here. */
#include "tests/unit/testlib.h"

#include "manifest/node.h"

static struct sp_node *parse(const char *doc)
{
    struct sp_error e = { 0 };
    struct sp_node *n = sp_node_parse(doc, strlen(doc), "f", &e);
    if (n == NULL)
        fail_msg("parse: %s", e.msg);
    return n;
}

#define YAML_DOC "a: x\nb: [1]\nc: \"\"\nd: {k: v}\nzz: 1\n"
#define JSON_DOC "{\"a\": \"x\", \"b\": [1], \"c\": \"\", \"d\": {\"k\": \"v\"}, " \
                 "\"zz\": 1, \"n\": 2.5, \"t\": true, \"u\": null}"

static void known_keys(void **state)
{
    (void)state;
    static const char *const known[] = { "a", "b", "c", "d", NULL };
    static const char *const all[] = { "a", "b", "c", "d", "zz", "n", "t", "u", NULL };
    struct sp_error e = { 0 };
    struct sp_node *y = parse(YAML_DOC), *j = parse(JSON_DOC);
    assert_int_equal(sp_node_known_keys(y, known, "a thing", "f", &e), -1);
    assert_int_equal(e.exit_code, SP_EXIT_INPUT);
    assert_string_equal(e.msg, "f:5:1: unknown key 'zz' in a thing (expected a, b, c, d)");
    assert_int_equal(sp_node_known_keys(j, known, "a thing", "f", &e), -1);
    assert_string_equal(e.msg, "f: unknown key 'zz' in a thing (expected a, b, c, d)");
    assert_int_equal(sp_node_known_keys(j, all, "a thing", "f", &e), 0);
    sp_node_free(y);
    sp_node_free(j);
}

static void texts(void **state)
{
    (void)state;
    struct sp_error e = { 0 };
    const char *t = NULL;
    struct sp_node *y = parse(YAML_DOC), *j = parse(JSON_DOC);
    assert_int_equal(sp_node_text(y, "a", 0, &t, "f", &e), 0);
    assert_string_equal(t, "x");
    assert_int_equal(sp_node_text(y, "q", SP_NODE_OPTIONAL, &t, "f", &e), 0);
    assert_null(t);
    static const struct { int json; const char *key; unsigned flags; const char *msg; } bad[] = {
        { 0, "q", 0, "f:1:1: missing key 'q'" },
        { 0, "b", 0, "f:2:4: b must be a text, not a list" },
        { 0, "d", 0, "f:4:4: d must be a text, not a mapping" },
        { 0, "c", SP_NODE_NONEMPTY, "f:3:4: c must not be empty" },
        { 1, "q", 0, "f: missing key 'q'" },
        { 1, "zz", 0, "f: zz must be a text, not a number" },
        { 1, "n", 0, "f: n must be a text, not a number" },
        { 1, "t", 0, "f: t must be a text, not true" },
        { 1, "u", 0, "f: u must be a text, not null" },
        { 1, "c", SP_NODE_NONEMPTY, "f: c must not be empty" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        if (sp_node_text(bad[i].json ? j : y, bad[i].key, bad[i].flags, &t, "f", &e) != -1)
            fail_msg("case %zu: accepted", i);
        if (strcmp(e.msg, bad[i].msg) != 0)
            fail_msg("case %zu: got \"%s\", expected \"%s\"", i, e.msg, bad[i].msg);
    }
    /* sp_node_str: a string written as one, or NULL */
    assert_string_equal(sp_node_str(j, "a"), "x");
    assert_null(sp_node_str(j, "zz"));
    assert_null(sp_node_str(j, "b"));
    assert_null(sp_node_str(j, "missing"));
    assert_null(sp_node_str(y, "a"));               /* a plain YAML scalar is not quoted */
    assert_string_equal(sp_node_str(y, "c"), "");
    sp_node_free(y);
    sp_node_free(j);
}

static void position_errors(void **state)
{
    (void)state;
    struct sp_error e = { 0 };
    struct sp_node *y = parse(YAML_DOC);
    assert_int_equal(sp_node_fail(&e, "f", sp_node_get(y, "d", NULL), "bad %s", "d"), -1);
    assert_string_equal(e.msg, "f:4:4: bad d");
    assert_int_equal(sp_node_fail_key(&e, "f", y, 4, "bad key %d", 5), -1);
    assert_string_equal(e.msg, "f:5:1: bad key 5");
    assert_int_equal(sp_node_fail(&e, "f", NULL, "no node"), -1);
    assert_string_equal(e.msg, "f: no node");
    assert_int_equal(e.exit_code, SP_EXIT_INPUT);
    sp_node_free(y);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(known_keys),
        cmocka_unit_test(texts),
        cmocka_unit_test(position_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
