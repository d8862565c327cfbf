/* tests/unit/test_manifest.c: manifest rendering and strict reading.
 * Round trips YAML and JSON through manifest_parse; every strictness rule of
 * manifest/node.c gives its error with file:line:column. */
#include "tests/unit/testlib.h"

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

#define ZERO64 "0000000000000000000000000000000000000000000000000000000000000000"
#define HEAD "schema: stackprint/manifest/v2\ntool: t\ncreated: \"2026-11-29T08:00:00Z\"\n" \
             "subject: s\nstack_id: \"sha256:" ZERO64 "\"\n"

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

#define EMPTY_ID "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
#define JHEAD(created) "{\"schema\": \"stackprint/manifest/v2\", \"tool\": \"t\", " \
    "\"created\": " created ", \"subject\": \"s\", \"stack_id\": \"sha256:" ZERO64 "\", "

/* JSON numbers, true, false and null are never read as text: jansson would
 * give 2.3 as "2.2999999999999998" */
static void json_scalars_refused(void **state)
{
    expect_error(JHEAD("\"2026-11-29T08:00:00Z\"") "\"facts\": {\"pip.torch\": 2.3}}",
                 "f.yaml: fact value must be a string: pip.torch");
    expect_error(JHEAD("\"2026-11-29T08:00:00Z\"") "\"facts\": {\"a\": 7}}",
                 "f.yaml: fact value must be a string: a");
    expect_error(JHEAD("\"2026-11-29T08:00:00Z\"") "\"facts\": {\"a\": true}}",
                 "f.yaml: fact value must be a string: a");
    expect_error(JHEAD("\"2026-11-29T08:00:00Z\"") "\"facts\": {\"a\": false}}",
                 "f.yaml: fact value must be a string: a");
    expect_error(JHEAD("\"2026-11-29T08:00:00Z\"") "\"facts\": {\"a\": null}}",
                 "f.yaml: fact value must be a string: a");
    expect_error(JHEAD("5") "\"facts\": {}}", "f.yaml: expected a string for created");
    expect_error(JHEAD("\"2026-11-29T08:00:00Z\"") "\"facts\": {\"a\": \"1\"}, "
                 "\"evidence\": {\"a\": 1}}", "f.yaml: evidence must be a string: a");
    expect_error(JHEAD("\"2026-11-29T08:00:00Z\"") "\"facts\": {}, \"warnings\": [null]}",
                 "f.yaml: a warning must be a string");
    /* a YAML plain scalar is text as written: 2.3 stays "2.3" (the stack id
     * is `printf '9:pip.torch,3:2.3,' | sha256sum`) */
    static const char plain[] = "schema: stackprint/manifest/v2\ntool: t\n"
        "created: \"2026-11-29T08:00:00Z\"\nsubject: s\nstack_id: \"sha256:"
        "0bc2418603643f57b7fb5dc5af0913fe4acb726588bb93e637583e657e947bd2\"\n"
        "facts:\n  pip.torch: 2.3\n";
    struct manifest m;
    struct sp_error e = { 0 };
    if (manifest_parse(plain, strlen(plain), "f.yaml", &m, &e) != 0)
        fail_msg("%s", e.msg);
    assert_string_equal(factset_get(&m.facts, "pip.torch"), "2.3");
    manifest_free(&m);
}

static void accepts(const char *doc)
{
    struct manifest m;
    struct sp_error e = { 0 };
    if (manifest_parse(doc, strlen(doc), "f.yaml", &m, &e) != 0)
        fail_msg("refused: %s\n%s", e.msg, doc);
    manifest_free(&m);
}

#define HDR(created, id) "schema: stackprint/manifest/v2\ntool: t\ncreated: \"" created \
    "\"\nsubject: s\nstack_id: \"" id "\"\n"

/* stack_id: "sha256:" + 64 lowercase hex equal to the facts' stack id (the
 * sha256 of the empty string, e3b0..., for no facts or volatile ones only);
 * created: RFC 3339 UTC YYYY-MM-DDTHH:MM:SSZ naming a real time */
static void header_checks(void **state)
{
    accepts(HDR("2026-11-29T08:00:00Z", "sha256:" EMPTY_ID) "facts: {}\n");
    accepts(HDR("2026-11-29T08:00:00Z", "sha256:" EMPTY_ID) "facts: {host.hostname: \"n\"}\n");
    accepts(HDR("2028-02-29T23:59:60Z", "sha256:" EMPTY_ID) "facts: {}\n");
    accepts(HDR("2000-02-29T00:00:00Z", "sha256:" EMPTY_ID) "facts: {}\n");
    expect_error(HDR("2026-11-29T08:00:00Z", "sha256:" ZERO64) "facts: {a: \"1\"}\n",
                 "f.yaml: stack_id does not match the facts (edited after probing?)");
    expect_error(HDR("2026-11-29T08:00:00Z", "sha256:" EMPTY_ID) "facts: {a: \"1\"}\n",
                 "f.yaml: stack_id does not match the facts (edited after probing?)");
    static const char *const bad_ids[] = {
        "md5:zz", "sha256:", "sha256:E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855",
        "sha256:" EMPTY_ID "0", "sha512:" EMPTY_ID, " sha256:" EMPTY_ID,
    };
    for (size_t i = 0; i < sizeof bad_ids / sizeof *bad_ids; i++) {
        char doc[512];
        snprintf(doc, sizeof doc, HDR("2026-11-29T08:00:00Z", "%s") "facts: {}\n", bad_ids[i]);
        expect_error(doc, "f.yaml:5:11: stack_id is not \"sha256:\" and 64 lowercase hex digits");
    }
    static const char *const bad_times[] = {
        "yesterday", "2026-11-29", "2026-11-29T08:00:00", "2026-11-29T08:00:00+00:00",
        "2026-11-29T08:00:00.5Z", "2026-11-29 08:00:00Z", "2026-11-29t08:00:00z",
        "2026-13-01T00:00:00Z", "2026-00-01T00:00:00Z", "2026-02-29T00:00:00Z",
        "1900-02-29T00:00:00Z", "2026-04-31T00:00:00Z", "2026-11-00T00:00:00Z",
        "2026-11-29T24:00:00Z", "2026-11-29T08:60:00Z", "2026-11-29T08:00:61Z",
        "10000-01-01T00:00:00Z", "2026-11-29T08:00:00Z ",
    };
    for (size_t i = 0; i < sizeof bad_times / sizeof *bad_times; i++) {
        char doc[512];
        snprintf(doc, sizeof doc, HDR("%s", "sha256:" EMPTY_ID) "facts: {}\n", bad_times[i]);
        expect_error(doc, "f.yaml:3:10: created is not an RFC 3339 UTC time YYYY-MM-DDTHH:MM:SSZ");
    }
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

/* Evidence is found for its fact whatever order the evidence mapping has
 * (a manifest written by hand or by another tool need not be sorted), and
 * every fact error is reported before any evidence error, in document
 * order (stackprint-manifest(5)). */
static void evidence_any_order(void **state)
{
    struct factset fs;
    char id[72], doc[3 * SP_FACT_VALUE_MAX];
    factset_init(&fs);
    assert_int_equal(factset_set(&fs, "a", "1", NULL), 0);
    assert_int_equal(factset_set(&fs, "b", "2", NULL), 0);
    assert_int_equal(factset_set(&fs, "c", "3", NULL), 0);
    assert_int_equal(factset_stack_id(&fs, id), 0);
    factset_free(&fs);
    snprintf(doc, sizeof doc, HDR("2026-11-29T08:00:00Z", "%s")
             "facts: {a: \"1\", b: \"2\", c: \"3\"}\nevidence: {c: ec, a: ea}\n", id);
    struct manifest m;
    struct sp_error e = { 0 };
    if (manifest_parse(doc, strlen(doc), "f.yaml", &m, &e) != 0)
        fail_msg("%s", e.msg);
    assert_string_equal(factset_find(&m.facts, "a")->evidence, "ea");
    assert_null(factset_find(&m.facts, "b")->evidence);
    assert_string_equal(factset_find(&m.facts, "c")->evidence, "ec");
    manifest_free(&m);

    expect_error(HEAD "evidence: [x]\nfacts: {a: [1]}\n", "f.yaml:7:12: fact value must be a string: a");
    expect_error(HEAD "evidence: [x]\nfacts: {a: \"1\"}\n", "f.yaml:6:11: evidence must be a mapping");
    char big[SP_FACT_VALUE_MAX + 2];
    memset(big, 'e', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    snprintf(doc, sizeof doc, HEAD "evidence: {a: %s}\nfacts: {a: \"1\", b: [1]}\n", big);
    expect_error(doc, "f.yaml:7:20: fact value must be a string: b");
    snprintf(doc, sizeof doc, HEAD "evidence: {b: x, a: %s, z: y}\nfacts: {a: \"1\", b: \"2\"}\n", big);
    expect_error(doc, "f.yaml:6:21: bad evidence for a");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(yaml_round_trip),
        cmocka_unit_test(json_round_trip),
        cmocka_unit_test(yaml_quotes_every_value),
        cmocka_unit_test(strict_errors),
        cmocka_unit_test(json_scalars_refused),
        cmocka_unit_test(header_checks),
        cmocka_unit_test(depth_bound),
        cmocka_unit_test(evidence_any_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
