/* tests/unit/test_manifest.c: manifest rendering and strict reading.
 * Round trips YAML and JSON through manifest_parse; every strictness rule of
 * manifest/node.c gives its error with file:line:column. */
#include "testlib.h"

#include "manifest/manifest.h"
#include "manifest/node.h"

static void build(struct manifest *m)
{
    manifest_init(m);
    m->tool = strdup("stackprint 0.1.0");
    m->created = strdup("2026-11-29T08:00:00Z");
    m->subject = strdup("root:/x");
    factset_set(&m->facts, "pip.torch", "2.9.0", "/site/torch-2.9.0.dist-info/METADATA");
    factset_set(&m->facts, "deb.yes", "yes", NULL);         /* YAML 1.1 would retype */
    factset_set(&m->facts, "host.os.version_id", "1.0", NULL);
    factset_set(&m->facts, "odd", "a\xff\"b\\c\n", NULL);
    factset_warn(&m->facts, "w: one");
    assert_int_equal(manifest_finish(m), 0);
}

static void round_trip(enum manifest_format f)
{
    struct manifest a, b;
    struct sp_error e = { 0 };
    char *buf, *buf2;
    size_t len, len2;
    build(&a);
    assert_int_equal(manifest_render(&a, f, &buf, &len, &e), 0);
    assert_int_equal(manifest_parse(buf, len, "m", &b, &e), 0);
    assert_int_equal(b.facts.count, a.facts.count);
    for (size_t i = 0; i < a.facts.count; i++) {
        assert_string_equal(a.facts.facts[i].key, b.facts.facts[i].key);
        assert_string_equal(a.facts.facts[i].value, b.facts.facts[i].value);
    }
    assert_fact(&b.facts, "odd", "a\\xff\"b\\c\n");
    assert_string_equal(factset_find(&b.facts, "pip.torch")->evidence,
                        "/site/torch-2.9.0.dist-info/METADATA");
    assert_string_equal(b.stack_id, a.stack_id);
    assert_int_equal(b.facts.nwarnings, 1);
    /* rendering what was read gives the same bytes: the writer is canonical */
    assert_int_equal(manifest_render(&b, f, &buf2, &len2, &e), 0);
    assert_int_equal(len, len2);
    assert_memory_equal(buf, buf2, len);
    free(buf);
    free(buf2);
    manifest_free(&a);
    manifest_free(&b);
}

static void yaml_round_trip(void **state) { round_trip(MANIFEST_YAML); }
static void json_round_trip(void **state) { round_trip(MANIFEST_JSON); }

static void yaml_quotes_every_value(void **state)
{
    struct manifest a;
    struct sp_error e = { 0 };
    char *buf;
    size_t len;
    build(&a);
    assert_int_equal(manifest_render(&a, MANIFEST_YAML, &buf, &len, &e), 0);
    assert_non_null(strstr(buf, "deb.yes: \"yes\"\n"));
    assert_non_null(strstr(buf, "host.os.version_id: \"1.0\"\n"));
    free(buf);
    manifest_free(&a);
}

static void expect_error(const char *doc, const char *msg)
{
    struct manifest m;
    struct sp_error e = { 0 };
    assert_int_equal(manifest_parse(doc, strlen(doc), "f.yaml", &m, &e), -1);
    assert_int_equal(e.exit_code, SP_EXIT_INPUT);
    if (strcmp(e.msg, msg) != 0)
        fail_msg("got \"%s\", expected \"%s\"", e.msg, msg);
}

#define HEAD "schema: stackprint/manifest/v1\ntool: t\ncreated: c\nsubject: s\nstack_id: x\n"

static void strict_errors(void **state)
{
    expect_error(HEAD "facts: {a: \"1\"}\nfacts: {}\n", "f.yaml:7:1: duplicate key 'facts'");
    expect_error(HEAD "facts: {a: &x \"1\", b: *x}\n", "f.yaml:6:12: anchors are not allowed");
    expect_error(HEAD "facts: {}\n---\nschema: x\n", "f.yaml:7:1: more than one document");
    expect_error(HEAD "facts: {}\nextra: 1\n", "f.yaml:7:1: unknown key 'extra'");
    expect_error(HEAD "facts: {a: [1]}\n", "f.yaml:6:12: fact value must be a string: a");
    expect_error("schema: other/v9\n", "f.yaml:1:9: unsupported schema other/v9");
    expect_error(HEAD "facts: {a: !!binary aGk=}\n",
                 "f.yaml:6:12: tag tag:yaml.org,2002:binary is not allowed");
    expect_error("", "f.yaml:1:1: empty document");
    expect_error("{\"schema\": 1,}", "f.yaml:1:14: string or '}' expected near '}'");
    expect_error("a: [\n", "f.yaml:2:1: did not find expected node content");
}

static void depth_bound(void **state)
{
    char doc[256];
    struct sp_error e = { 0 };
    /* SP_NODE_DEPTH_MAX nested sequences parse; one more does not */
    for (int extra = 0; extra <= 1; extra++) {
        int n = SP_NODE_DEPTH_MAX + extra, w = 0;
        for (int i = 0; i < n; i++)
            doc[w++] = '[';
        for (int i = 0; i < n; i++)
            doc[w++] = ']';
        doc[w] = '\0';
        struct sp_node *t = sp_node_parse(doc + 0, (size_t)w, "d", &e);
        if (extra == 0) {
            assert_non_null(t);
            sp_node_free(t);
        } else {
            assert_null(t);
        }
    }
    /* the same in YAML flow style, parsed by libyaml */
    int n = SP_NODE_DEPTH_MAX + 1, w = 0;
    doc[w++] = 'a';
    doc[w++] = ':';
    doc[w++] = ' ';
    for (int i = 0; i < n; i++)
        doc[w++] = '[';
    for (int i = 0; i < n; i++)
        doc[w++] = ']';
    doc[w] = '\0';
    struct sp_node *t = sp_node_parse(doc, (size_t)w, "d.yaml", &e);
    assert_null(t);
    assert_non_null(strstr(e.msg, "nesting deeper than"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(yaml_round_trip),
        cmocka_unit_test(json_round_trip),
        cmocka_unit_test(yaml_quotes_every_value),
        cmocka_unit_test(strict_errors),
        cmocka_unit_test(depth_bound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
