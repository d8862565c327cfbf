/* tests/unit/test_release.c: the release catalog (checks/catalog.h): version
 * matching, the shipped catalog's names, and the catalog reader's errors.
 * The release inference cases themselves are data, facts in and derived
 * facts out: tests/data/release.test, run by tests/unit/test_cases.c. */
#include "tests/unit/testlib.h"

#include "checks/catalog.h"

static struct catalog cat;

static int setup(void **state)
{
    struct sp_error e = { 0 };
    if (catalog_load("policies/neuron/catalog.yaml", &cat, &e) != 0) {
        fprintf(stderr, "%s\n", e.msg);
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    catalog_free(&cat);
    return 0;
}

static void version_matching(void **state)
{
    assert_true(catalog_version_matches("2.12.54.0", "2.12.54.0+f631c2365", 'p'));
    assert_true(catalog_version_matches("1.13.1+torchneurond", "1.13.1", 'p'));
    assert_false(catalog_version_matches("2.12.54.0", "2.12.54", 'p'));
    assert_true(catalog_version_matches("2.19.5.0", "2.19.5.0-5856c0b42", 'd'));
    assert_true(catalog_version_matches("2.19.5.0", "1:2.19.5.0-1", 'd'));
    assert_false(catalog_version_matches("2.19.5.0", "2.19.5.1-1", 'd'));
    assert_true(catalog_version_matches("14.09.x", "14.09.3", 'n'));
    assert_false(catalog_version_matches("14.09.x", "14.10.3", 'n'));
    assert_false(catalog_version_matches("2.1", "2.1.0", 'n'));
    /* Neuron's yum spelling: the build hash after '_' in the rpm VERSION */
    assert_true(catalog_version_matches("2.21.41.0", "2.21.41.0_fb1705f5f-1", 'd'));
    assert_true(catalog_version_matches("2.21.41.0", "1:2.21.41.0_fb1705f5f-1", 'd'));
    assert_true(catalog_version_matches("2.21.46.0", "2.21.46.0_69b77134b-1.amzn2023", 'd'));
    assert_false(catalog_version_matches("2.21.41.0", "2.21.41.1_fb1705f5f-1", 'd'));
    /* only '_' and hex digits to the end is a hash */
    assert_false(catalog_version_matches("2.21.41.0", "2.21.41.0_rc1-1", 'd'));
    assert_false(catalog_version_matches("2.21.41.0", "2.21.41.0_-1", 'd'));
    size_t n;
    const char *u = catalog_upstream("3:2.21.41.0_fb1705f5f-1", &n);
    assert_int_equal(n, 9);
    assert_memory_equal(u, "2.21.41.0", 9);
    u = catalog_upstream("_abc", &n);
    assert_int_equal(n, 4);
    u = catalog_upstream("", &n);
    assert_int_equal(n, 0);
}

static void names(void **state)
{
    /* the table spells neuronx_distributed; pip facts carry the PEP 503 form */
    assert_true(catalog_has_name(&cat, "neuronx_distributed", 0));
    assert_false(catalog_has_name(&cat, "neuronx-distributed", 0));
    assert_true(catalog_has_name(&cat, "neuronx-distributed", 1));
    assert_false(catalog_has_name(&cat, "neuronx_distributed", 1));
    assert_true(catalog_has_name(&cat, "aws-neuronx-dkms", 0));
    assert_false(catalog_has_name(&cat, "", 0));
    assert_false(catalog_has_name(&cat, "zzz", 1));
    assert_false(catalog_has_name(&cat, "aaa", 1));
    for (size_t i = 1; i < cat.nnames; i++)          /* sorted, unique */
        assert_true(strcmp(cat.names[i - 1], cat.names[i]) < 0);
    for (size_t i = 0; i < cat.nnames; i++)
        assert_true(catalog_has_name(&cat, cat.names[i], 0));
}

static void catalog_errors(void **state)
{
    static const struct { const char *doc, *msg; } cases[] = {
        { "catalog: x\nsource: s\nreleases: []\n", "c:3:11: releases must be a non-empty list" },
        { "catalog: x\nsource: s\nreleases:\n  - release: banana\n    packages: []\n",
          "c:4:14: a release must be dotted numbers such as 2.16.1" },
        { "catalog: x\nsource: s\nreleases:\n  - release: \"2.0\"\n    packages: []\n"
          "  - release: \"2.0\"\n    packages: []\n", "c:6:14: release listed twice" },
        { "catalog: x\nsource: s\nreleases:\n  - release: \"1\"\n    bogus: 1\n",
          "c:5:5: unknown key 'bogus'" },
        { "catalog: x\nsource: s\nreleases:\n  - release: \"1\"\n    packages:\n      - {name: a}\n",
          "c:6:9: a package must be a string \"NAME VERSION INSTANCES PYTHONS\"" },
        { "catalog: x\nsource: s\nreleases:\n  - release: \"1\"\n    packages:\n      - \"a 1.0 trn1\"\n",
          "c:6:9: a package must be \"NAME VERSION INSTANCES PYTHONS\" (single spaces; "
          "lists comma-separated, - for none)" },
        { "catalog: x\nsource: s\nreleases:\n  - release: \"1\"\n    packages:\n      - \"a 1.0 trn1,,inf2 -\"\n",
          "c:6:9: a package must be \"NAME VERSION INSTANCES PYTHONS\" (single spaces; "
          "lists comma-separated, - for none)" },
        { "catalog: x\nsource: s\nreleases:\n  - release: \"1\"\n    packages:\n      - \"a  1.0 - -\"\n",
          "c:6:9: a package must be \"NAME VERSION INSTANCES PYTHONS\" (single spaces; "
          "lists comma-separated, - for none)" },
        /* a JSON catalog: numbers and null are not strings (2.16 would be
         * read as jansson's "2.1600000000000001") */
        { "{\"catalog\": \"x\", \"source\": \"s\", \"releases\": [{\"release\": 2.16}]}",
          "c: expected a non-empty string" },
        { "{\"catalog\": \"x\", \"source\": null, \"releases\": []}",
          "c: expected a non-empty string" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct sp_error e = { 0 };
        struct catalog c;
        struct sp_node *doc = sp_node_parse(cases[i].doc, strlen(cases[i].doc), "c", &e);
        assert_non_null(doc);
        assert_int_equal(catalog_from_node(doc, "c", &c, &e), -1);
        if (strcmp(e.msg, cases[i].msg) != 0)
            fail_msg("got \"%s\", expected \"%s\"", e.msg, cases[i].msg);
        sp_node_free(doc);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(version_matching),
        cmocka_unit_test(names),
        cmocka_unit_test(catalog_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
