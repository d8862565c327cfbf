/* tests/unit/test_junit.c: JUnit reports (junit/junit.c) and the
 * test-result statement (junit/testresult.c).  Expected outputs follow the
 * rules junit.h states (properties first in a suite, indentation copied
 * from the neighbours, ours replaced, the rest kept); the real producers
 * and the independent oracles (xmllint, xml.etree, openssl) are in
 * tests/sh/attach_junit.sh and tests/sh/attest_openssl.sh. */
#include "tests/unit/testlib.h"

#include <jansson.h>
#include <openssl/evp.h>

#include "junit/junit.h"
#include "junit/testresult.h"
#include "manifest/dsse.h"
#include "manifest/keys.h"

static const struct junit_property two[] = {
    { "stackprint.stack_id", "sha256:ab" },
    { "stackprint.fact.pip.torch", "2.9.0" },
};

static char *attach_ok(const char *in, const struct junit_property *p, size_t n)
{
    char *out = NULL;
    size_t len = 0;
    struct sp_error e = { 0 };
    if (junit_attach(in, strlen(in), "r.xml", p, n, &out, &len, &e) != 0)
        fail_msg("attach failed: %s", e.msg);
    assert_int_equal(strlen(out), len);
    return out;
}

static void attach_err(const char *in, const char *want)
{
    char *out = NULL;
    size_t len = 0;
    struct sp_error e = { 0 };
    assert_int_equal(junit_attach(in, strlen(in), "r.xml", two, 2, &out, &len, &e), -1);
    assert_int_equal(e.exit_code, SP_EXIT_INPUT);
    assert_string_equal(e.msg, want);
    assert_null(out);
}

/* A compact report: <properties> becomes the suite's first child, no
 * whitespace is invented, no declaration is added, every other byte is
 * the report's. */
static void test_attach_compact(void **state)
{
    (void)state;
    char *out = attach_ok("<testsuite name=\"s\"><testcase name=\"t\"/></testsuite>", two, 2);
    assert_string_equal(out,
        "<testsuite name=\"s\"><properties>"
        "<property name=\"stackprint.stack_id\" value=\"sha256:ab\"/>"
        "<property name=\"stackprint.fact.pip.torch\" value=\"2.9.0\"/>"
        "</properties><testcase name=\"t\"/></testsuite>");
    free(out);
}

/* An indented report: new lines indented like their neighbours; an
 * existing <properties> keeps its own and gets ours after them. */
static void test_attach_indented(void **state)
{
    (void)state;
    char *out = attach_ok(
        "<?xml version=\"1.0\"?>\n"
        "<testsuites>\n"
        "  <testsuite name=\"a\">\n"
        "    <testcase name=\"t\"/>\n"
        "  </testsuite>\n"
        "  <testsuite name=\"b\">\n"
        "    <properties>\n"
        "      <property name=\"mine\" value=\"1\"/>\n"
        "      <property name=\"stackprint.old\" value=\"x\"/>\n"
        "    </properties>\n"
        "  </testsuite>\n"
        "</testsuites>\n", two, 1);
    assert_string_equal(out,
        "<?xml version=\"1.0\"?>\n"
        "<testsuites>\n"
        "  <testsuite name=\"a\">\n"
        "    <properties>\n"
        "      <property name=\"stackprint.stack_id\" value=\"sha256:ab\"/>\n"
        "    </properties>\n"
        "    <testcase name=\"t\"/>\n"
        "  </testsuite>\n"
        "  <testsuite name=\"b\">\n"
        "    <properties>\n"
        "      <property name=\"mine\" value=\"1\"/>\n"
        "      <property name=\"stackprint.stack_id\" value=\"sha256:ab\"/>\n"
        "    </properties>\n"
        "  </testsuite>\n"
        "</testsuites>\n");
    free(out);
}

/* Attaching again gives the same bytes; attaching other properties
 * replaces ours and only ours. */
static void test_attach_again(void **state)
{
    (void)state;
    const char *inputs[] = {
        "<testsuite><testcase name=\"t\"/></testsuite>",
        "<testsuite>\n\t<testcase name=\"t\"/>\n</testsuite>\n",
        "<testsuites>\n <testsuite>\n  <properties/>\n </testsuite>\n <testsuite/>\n</testsuites>",
        "<r><testsuite><testsuite><properties><property name=\"k\" value=\"v\"/>"
        "</properties></testsuite></testsuite></r>",
    };
    for (size_t i = 0; i < sizeof inputs / sizeof *inputs; i++) {
        char *once = attach_ok(inputs[i], two, 2);
        char *twice = attach_ok(once, two, 2);
        assert_string_equal(once, twice);
        char *one = attach_ok(inputs[i], two, 1);
        char *back = attach_ok(one, two, 2);
        assert_string_equal(back, once);
        free(once);
        free(twice);
        free(one);
        free(back);
    }
}

/* Values are escaped as XML requires; control characters XML 1.0 does not
 * allow become the text \xNN. */
static void test_attach_escapes(void **state)
{
    (void)state;
    const struct junit_property p[] = { { "stackprint.x", "a<b>&\"c\x01\x7f\td" } };
    char *out = attach_ok("<testsuite/>", p, 1);
    assert_string_equal(out, "<testsuite><properties><property name=\"stackprint.x\" "
                             "value=\"a&lt;b&gt;&amp;&quot;c\\x01\\x7f&#9;d\"/></properties>"
                             "</testsuite>");
    free(out);
}

/* Every byte not ours is kept as written: single quotes, blanks inside
 * tags, comments, an end tag with a blank, a property written in full. */
static void test_attach_bytes_kept(void **state)
{
    (void)state;
    const struct junit_property p[] = { { "stackprint.n", "1" } };
    char *out = attach_ok("<testsuite name='s' ><properties >"
                          "<!-- c --><property name='k' value='v' />"
                          "<property name='stackprint.old' value='x'></property >"
                          "</properties ><testcase name = 't' /></testsuite >", p, 1);
    assert_string_equal(out, "<testsuite name='s' ><properties >"
                             "<!-- c --><property name='k' value='v' />"
                             "<property name=\"stackprint.n\" value=\"1\"/>"
                             "</properties ><testcase name = 't' /></testsuite >");
    free(out);
}

/* In a report that is not UTF-8, non-ASCII values are character
 * references (the report's own bytes stay in its encoding). */
static void test_attach_latin1(void **state)
{
    (void)state;
    const struct junit_property p[] = { { "stackprint.x", "caf\xc3\xa9 \xe2\x82\xac" } };
    char *out = attach_ok("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>"
                          "<testsuite name=\"\xe9\"/>", p, 1);
    assert_string_equal(out, "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>"
                             "<testsuite name=\"\xe9\"><properties><property name=\"stackprint.x\" "
                             "value=\"caf&#xE9; &#x20AC;\"/></properties></testsuite>");
    free(out);
    out = attach_ok("<testsuite/>", p, 1);
    assert_non_null(strstr(out, "value=\"caf\xc3\xa9 \xe2\x82\xac\""));
    free(out);
}

static void test_attach_errors(void **state)
{
    (void)state;
    attach_err("plain text", "r.xml:1:1: not well-formed XML: Start tag expected, '<' not found");
    attach_err("<testsuite>\n<testcase>\n</testsuite>",
               "r.xml:3:13: not well-formed XML: Opening and ending tag mismatch: "
               "testcase line 2 and testsuite");
    /* refused where the parser stands inside the declaration, past its
     * name, before any entity is declared */
    attach_err("<!DOCTYPE x [<!ENTITY a \"b\">]><testsuite>&a;</testsuite>",
               "r.xml:1:13: a DOCTYPE declaration is refused (entities are never expanded, "
               "DTDs never loaded)");
    attach_err("<?xml version=\"1.0\"?><!DOCTYPE x SYSTEM \"http://127.0.0.1:9/x.dtd\"><testsuite/>",
               "r.xml:1:67: a DOCTYPE declaration is refused (entities are never expanded, "
               "DTDs never loaded)");
    attach_err("<testsuites><suite/></testsuites>",
               "r.xml: no <testsuite> element (not a JUnit XML report)");
    attach_err("", "r.xml:1:1: not well-formed XML: Document is empty");
    attach_err("\xff\xfe<\0t\0/\0>\0",
               "r.xml: UTF-16, UTF-32 and EBCDIC reports are not read (write it as UTF-8)");
}

static void test_summarize(void **state)
{
    (void)state;
    const char *r =
        "<testsuites><testsuite>"
        "<testcase classname=\"m\" name=\"ok\"/>"
        "<testcase classname=\"m\" name=\"bad\"><failure/></testcase>"
        "<testcase name=\"err\"><error/></testcase>"
        "<testcase classname=\"\" name=\"skip\"><skipped/></testcase>"
        "<testcase name=\"both\"><skipped/><failure/></testcase>"
        "<testsuite><testcase classname=\"n.C\" name=\"deep\"><system-out>x</system-out>"
        "</testcase></testsuite>"
        "</testsuite></testsuites>";
    struct junit_summary s;
    struct sp_error e = { 0 };
    assert_int_equal(junit_summarize(r, strlen(r), "r.xml", &s, &e), 0);
    assert_int_equal(s.nsuites, 2);
    assert_int_equal(s.npassed, 2);
    assert_string_equal(s.passed[0], "m::ok");
    assert_string_equal(s.passed[1], "n.C::deep");
    assert_int_equal(s.nfailed, 3);
    assert_string_equal(s.failed[0], "m::bad");
    assert_string_equal(s.failed[1], "err");
    assert_string_equal(s.failed[2], "both");
    assert_int_equal(s.nskipped, 1);
    junit_summary_free(&s);
}

static EVP_PKEY *key(int private)
{
    EVP_PKEY *k = NULL;
    struct sp_error e = { 0 };
    int r = private ? sp_key_load_private("tests/fixtures/sign/ed25519.key", &k, &e)
                    : sp_key_load_public("tests/fixtures/sign/ed25519.pub", &k, &e);
    if (r != 0)
        fail_msg("key: %s", e.msg);
    return k;
}

/* The statement's fields, then a signed round trip through
 * sp_verify_statement and the configuration check. */
static void test_statement(void **state)
{
    (void)state;
    const char *rep = "<testsuite><testcase name=\"a\"/><testcase name=\"b\"><skipped/>"
                      "</testcase></testsuite>";
    const char *man = "{\"schema\": \"...\"}\n", *other = "schema: x\n";
    struct junit_summary s;
    struct sp_error e = { 0 };
    assert_int_equal(junit_summarize(rep, strlen(rep), "r.xml", &s, &e), 0);
    struct testresult_input in = {
        .report_name = "r.xml", .report = rep, .report_len = strlen(rep), .summary = &s,
        .manifest_name = "m.json", .manifest = man, .manifest_len = strlen(man),
        .stack_id = "sha256:00",
    };
    char *stmt = NULL, hex[65];
    size_t len = 0;
    assert_int_equal(testresult_statement(&in, &stmt, &len, &e), 0);
    json_t *j = json_loadb(stmt, len, 0, NULL);
    assert_non_null(j);
    assert_string_equal(json_string_value(json_object_get(j, "predicateType")),
                        "https://in-toto.io/attestation/test-result/v0.1");
    json_t *p = json_object_get(j, "predicate");
    assert_string_equal(json_string_value(json_object_get(p, "result")), "PASSED");
    assert_null(json_object_get(p, "url"));
    assert_int_equal(json_array_size(json_object_get(p, "passedTests")), 1);
    assert_int_equal(json_array_size(json_object_get(p, "failedTests")), 0);
    json_t *cfg = json_object_get(p, "configuration");
    assert_int_equal(json_array_size(cfg), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(cfg, 0), "mediaType")),
                        "application/json");
    json_t *sub = json_array_get(json_object_get(j, "subject"), 0);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(sub, "annotations"),
                                                        "skippedTests")), 1);
    json_decref(j);

    EVP_PKEY *priv = key(1), *pub = key(0);
    char *env = NULL;
    size_t envlen = 0;
    assert_int_equal(dsse_envelope_sign(DSSE_PAYLOAD_TYPE, (const unsigned char *)stmt, len,
                                        priv, &env, &envlen, &e), 0);
    struct sp_verified v;
    assert_int_equal(sp_verify_statement(env, envlen, "e.json", rep, strlen(rep), "r.xml",
                                         SP_TESTRESULT_PREDICATE_TYPE, pub, &v, &e), 0);
    assert_string_equal(v.subject_name, "r.xml");
    assert_int_equal(sp_sha256_hex(man, strlen(man), hex), 0);
    assert_int_equal(testresult_has_configuration(v.statement, hex), 1);
    assert_int_equal(sp_sha256_hex(other, strlen(other), hex), 0);
    assert_int_equal(testresult_has_configuration(v.statement, hex), 0);
    sp_verified_free(&v);
    /* the manifest predicate is not accepted for it, nor it for a manifest */
    assert_int_equal(sp_verify_manifest(env, envlen, "e.json", rep, strlen(rep), "r.xml",
                                        pub, &v, &e), -1);
    assert_int_equal(e.exit_code, SP_EXIT_VERIFY);
    assert_non_null(strstr(e.msg, "statement check failed: predicateType"));
    free(env);
    free(stmt);
    junit_summary_free(&s);
    EVP_PKEY_free(priv);
    EVP_PKEY_free(pub);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_attach_compact),
        cmocka_unit_test(test_attach_indented),
        cmocka_unit_test(test_attach_again),
        cmocka_unit_test(test_attach_escapes),
        cmocka_unit_test(test_attach_bytes_kept),
        cmocka_unit_test(test_attach_latin1),
        cmocka_unit_test(test_attach_errors),
        cmocka_unit_test(test_summarize),
        cmocka_unit_test(test_statement),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
