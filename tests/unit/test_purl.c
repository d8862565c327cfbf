/* tests/unit/test_purl.c: the purl builder (export/purl.h) against the
 * Package URL specification's own test data (tests/fixtures/purl/, copied
 * unchanged from package-url/purl-spec): every "build" case must give
 * exactly its expected_output, and every case marked expected_failure must
 * be refused.  The cases were written by the specification's authors, not
 * here, so they are the oracle.  The types whose normalisation the builder
 * knows (pypi, deb, rpm, generic) are run; a build case of any other type
 * is run only when it is an expected failure of the generic rules. */
#include "tests/unit/testlib.h"

#include <jansson.h>

#include "export/purl.h"

static const char *const files[] = {
    "tests/fixtures/purl/specification-test.json",
    "tests/fixtures/purl/pypi-test.json",
    "tests/fixtures/purl/deb-test.json",
    "tests/fixtures/purl/rpm-test.json",
};

static const char *str_or_null(json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static void spec_build_cases(void **state)
{
    (void)state;
    int run = 0;
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
        json_error_t je;
        json_t *doc = json_load_file(files[f], 0, &je);
        if (doc == NULL)
            fail_msg("%s: %s", files[f], je.text);
        json_t *tests = json_object_get(doc, "tests"), *t;
        size_t i;
        json_array_foreach(tests, i, t) {
            if (strcmp(str_or_null(t, "test_type") ? str_or_null(t, "test_type") : "", "build") != 0)
                continue;
            json_t *in = json_object_get(t, "input");
            int fail = json_is_true(json_object_get(t, "expected_failure"));
            const char *type = str_or_null(in, "type");
            int known = type && (strcmp(type, "pypi") == 0 || strcmp(type, "deb") == 0 ||
                                 strcmp(type, "rpm") == 0 || strcmp(type, "generic") == 0);
            if (!known && !fail)
                continue;
            struct sp_purl p = {
                .type = type, .namespace_ = str_or_null(in, "namespace"),
                .name = str_or_null(in, "name"), .version = str_or_null(in, "version"),
                .subpath = str_or_null(in, "subpath"),
            };
            json_t *q = json_object_get(in, "qualifiers"), *v;
            const char *k;
            json_object_foreach(q, k, v) {
                if (p.nqualifiers < SP_PURL_QUALIFIERS_MAX) {
                    p.qualifiers[p.nqualifiers].key = k;
                    p.qualifiers[p.nqualifiers++].value = json_string_value(v);
                }
            }
            char *got = NULL;
            struct sp_error e = { 0 };
            int rc = sp_purl_build(&p, &got, &e);
            const char *want = str_or_null(t, "expected_output");
            if (fail && rc == 0)
                fail_msg("%s: \"%s\": built %s, the specification expects a failure",
                         files[f], str_or_null(t, "description"), got);
            if (!fail && rc != 0)
                fail_msg("%s: \"%s\": %s", files[f], str_or_null(t, "description"), e.msg);
            if (!fail && strcmp(got, want) != 0)
                fail_msg("%s: \"%s\": built %s, want %s", files[f],
                         str_or_null(t, "description"), got, want);
            free(got);
            run++;
        }
        json_decref(doc);
    }
    assert_true(run >= 15);   /* the four files hold 17 build cases */
}

/* What stackprint itself writes, hand-checked against the rules quoted in
 * export/purl.h: a deb epoch keeps its ':' (not encoded), '+' is %2B, an
 * rpm epoch is a qualifier, a pypi local label's '+' is %2B. */
static void stackprint_shapes(void **state)
{
    (void)state;
    struct {
        struct sp_purl p;
        const char *want;
    } cases[] = {
        { { .type = "pypi", .name = "torch_neuronx", .version = "2.11.3.0.19138+4dee388.dev" },
          "pkg:pypi/torch-neuronx@2.11.3.0.19138%2B4dee388.dev" },
        { { .type = "deb", .namespace_ = "Ubuntu", .name = "aws-neuronx-dkms",
            .version = "2.30.2.0-1b6ca1f8a",
            .qualifiers = { { "distro", "ubuntu-22.04" }, { "arch", "amd64" } }, .nqualifiers = 2 },
          "pkg:deb/ubuntu/aws-neuronx-dkms@2.30.2.0-1b6ca1f8a?arch=amd64&distro=ubuntu-22.04" },
        { { .type = "rpm", .namespace_ = "amzn", .name = "aws-neuronx-runtime-lib",
            .version = "2.21.41.0_fb1705f5f-1",
            .qualifiers = { { "epoch", "1" }, { "distro", "amzn-2023" }, { "arch", "" } },
            .nqualifiers = 3 },
          "pkg:rpm/amzn/aws-neuronx-runtime-lib@2.21.41.0_fb1705f5f-1?distro=amzn-2023&epoch=1" },
        { { .type = "deb", .namespace_ = "debian", .name = "libc6", .version = "2.36-9+deb12u10" },
          "pkg:deb/debian/libc6@2.36-9%2Bdeb12u10" },
        { { .type = "generic", .name = "a b/c", .version = "1 0" },
          "pkg:generic/a%20b%2Fc@1%200" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *got = NULL;
        struct sp_error e = { 0 };
        if (sp_purl_build(&cases[i].p, &got, &e) != 0)
            fail_msg("case %zu: %s", i, e.msg);
        assert_string_equal(got, cases[i].want);
        free(got);
    }
}

static void refusals(void **state)
{
    (void)state;
    struct sp_purl bad[] = {
        { .name = "x" },
        { .type = "1x", .name = "x" },
        { .type = "pypi" },
        { .type = "pypi", .name = "/" },
        { .type = "deb", .name = "curl" },
        { .type = "pypi", .namespace_ = "x", .name = "y" },
        { .type = "generic", .name = "x", .qualifiers = { { "in production", "true" } }, .nqualifiers = 1 },
        { .type = "generic", .name = "x", .qualifiers = { { "a", "1" }, { "A", "2" } }, .nqualifiers = 2 },
        { .type = "generic", .name = "x", .nqualifiers = SP_PURL_QUALIFIERS_MAX + 1 },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *got = NULL;
        struct sp_error e = { 0 };
        if (sp_purl_build(&bad[i], &got, &e) == 0)
            fail_msg("case %zu: built %s, expected a refusal", i, got);
        assert_int_equal(e.exit_code, SP_EXIT_INPUT);
        assert_non_null(strstr(e.msg, "purl: "));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(spec_build_cases),
        cmocka_unit_test(stackprint_shapes),
        cmocka_unit_test(refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
