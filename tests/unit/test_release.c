/* tests/unit/test_release.c: Neuron SDK release inference against the
 * shipped catalog.  Expected releases come from the SDK's own table
 * (policies/neuron/n2-manifest.json, read with Python's json: e.g.
 * aws-neuronx-runtime-lib 2.19.5.0 is listed by 2.16.0 and 2.16.1 only) and
 * from the public reports the shipped policies cite. */
#include "tests/unit/testlib.h"

#include "checks/catalog.h"
#include "checks/release.h"

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

static void infer(struct factset *fs, const char *const *kv)
{
    struct sp_error e = { 0 };
    factset_init(fs);
    for (; *kv; kv += 2)
        assert_int_equal(factset_set(fs, kv[0], kv[1], NULL), 0);
    assert_int_equal(release_infer(&cat, fs, &e), 0);
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

/* From the release table: collectives 2.19.7.0, dkms 2.15.9.0, oci-hook 2.2.45.0,
 * runtime-lib 2.19.5.0, tools 2.16.1.0: both 2.16.0 and 2.16.1 list all of
 * them (they differ only in neuronx-cc), so the release is the 2.16 line. */
static void release_2_16(void **state)
{
    static const char *const kv[] = {
        "deb.aws-neuronx-collectives", "2.19.7.0-a1b2c3d4e",
        "deb.aws-neuronx-dkms", "2.15.9.0",
        "deb.aws-neuronx-oci-hook", "2.2.45.0-f00",
        "deb.aws-neuronx-runtime-lib", "2.19.5.0-5856c0b42",
        "deb.aws-neuronx-tools", "2.16.1.0",
        "deb.libc6", "2.36-9+deb12u13", NULL,
    };
    struct factset fs;
    infer(&fs, kv);
    assert_fact(&fs, "neuron.sdk.release", "2.16");
    assert_fact(&fs, "neuron.sdk.candidates", "2.16.0,2.16.1");
    assert_fact(&fs, "neuron.sdk.driver_release", "2.16.0,2.16.1,2.17.0");
    assert_no_fact(&fs, "neuron.sdk.odd");
    assert_no_fact(&fs, "neuron.sdk.release_of.deb.libc6");
    factset_free(&fs);
}

/* From the release table: torch-neuronx 2.1.2.2.2.0 and torch-xla 2.1.3 are 2.19.x;
 * libneuronxla 2.0.4115.0 is 2.20.0 only: mixed, libneuronxla odd. */
static void mixed_libneuronxla(void **state)
{
    static const char *const kv[] = {
        "pip.torch-neuronx", "2.1.2.2.2.0",
        "pip.libneuronxla", "2.0.4115.0",
        "pip.torch-xla", "2.1.3", NULL,
    };
    struct factset fs;
    infer(&fs, kv);
    assert_fact(&fs, "neuron.sdk.release", "mixed");
    assert_fact(&fs, "neuron.sdk.nearest", "2.19.1");
    assert_fact(&fs, "neuron.sdk.odd", "pip.libneuronxla");
    assert_fact(&fs, "neuron.sdk.release_of.pip.libneuronxla", "2.20.0");
    assert_fact(&fs, "neuron.sdk.release_of.pip.torch-neuronx", "2.19.0,2.19.1");
    factset_free(&fs);
}

/* one exact release; runtime from the library file name; compiler and
 * runtime releases for the "compiler not newer than runtime" policy */
static void single_release(void **state)
{
    static const char *const kv[] = {
        "pip.neuronx-cc", "2.26.6360.0+6f180f47",
        "pip.torch-neuronx", "2.9.0.2.15.32035",
        "neuron.runtime.version", "2.33.10.0",
        "neuron.driver.version", "2.29.0.0",
        "python.version", "3.11.7", NULL,
    };
    struct factset fs;
    infer(&fs, kv);
    /* the table lists all three versions in 2.31.0 and 2.31.1: the 2.31 line */
    assert_fact(&fs, "neuron.sdk.release", "2.31");
    assert_fact(&fs, "neuron.sdk.candidates", "2.31.0,2.31.1");
    assert_fact(&fs, "neuron.sdk.compiler_release", "2.31.0");
    assert_fact(&fs, "neuron.sdk.python", "3.11,3.12,3.13");
    factset_free(&fs);
}

static void compiler_newer_than_runtime(void **state)
{
    /* neuronx-cc 2.12.54.0 shipped in 2.16.0 only; the table lists
     * runtime-lib 2.18.15.0 in 2.15.1 and 2.15.2, so its newest release is
     * 2.15.2, older than the compiler's */
    static const char *const kv[] = {
        "pip.neuronx-cc", "2.12.54.0+f631c2365",
        "deb.aws-neuronx-runtime-lib", "2.18.15.0-1", NULL,
    };
    struct factset fs;
    infer(&fs, kv);
    assert_fact(&fs, "neuron.sdk.compiler_release", "2.16.0");
    assert_fact(&fs, "neuron.sdk.runtime_release", "2.15.2");
    factset_free(&fs);
}

static void no_neuron(void **state)
{
    static const char *const kv[] = { "pip.torch", "2.1.2+cu121", "deb.libc6", "2.36", NULL };
    struct factset fs;
    infer(&fs, kv);
    assert_no_fact(&fs, "neuron.sdk.release");
    assert_no_fact(&fs, "neuron.sdk.x_packages");
    factset_free(&fs);
}

static void uncatalogued(void **state)
{
    static const char *const kv[] = { "pip.torch-neuronx", "0.1.0", NULL };
    struct factset fs;
    infer(&fs, kv);
    assert_fact(&fs, "neuron.sdk.release", "unknown");
    assert_fact(&fs, "neuron.sdk.uncatalogued", "pip.torch-neuronx");
    assert_fact(&fs, "neuron.sdk.release_of.pip.torch-neuronx", "none");
    factset_free(&fs);
}

/* the runtime and driver versions as dotted numbers, from whichever fact
 * holds them (release.h) */
static void runtime_and_driver_versions(void **state)
{
    static const char *const deb[] = {
        "deb.aws-neuronx-runtime-lib", "1:2.19.5.0-5856c0b42", "neuron.runtime.version", "2.18.0.0",
        "deb.aws-neuronx-dkms", "2.15.9.0-abc", NULL,
    };
    static const char *const files[] = {
        "neuron.runtime.version", "2.33.10.0", "neuron.driver.version", "2.29.0.0",
        "rpm.aws-neuronx-dkms", "2.24.7.0-1.amzn2023", NULL,
    };
    static const char *const rpm[] = {
        "rpm.aws-neuronx-runtime-lib", "2.28.23.0-1.amzn2023", "rpm.aws-neuronx-dkms", "2.24.7.0-1.amzn2023", NULL,
    };
    struct factset fs;
    infer(&fs, deb);
    assert_fact(&fs, "neuron.sdk.runtime_version", "2.19.5.0");
    assert_fact(&fs, "neuron.sdk.driver_version", "2.15.9.0");
    assert_string_equal(factset_find(&fs, "neuron.sdk.runtime_version")->evidence, "deb.aws-neuronx-runtime-lib");
    assert_fact(&fs, "neuron.sdk.x_packages", "deb.aws-neuronx-dkms,deb.aws-neuronx-runtime-lib");
    factset_free(&fs);
    infer(&fs, files);
    assert_fact(&fs, "neuron.sdk.runtime_version", "2.33.10.0");
    assert_fact(&fs, "neuron.sdk.driver_version", "2.29.0.0");   /* the loaded module first */
    assert_fact(&fs, "neuron.sdk.x_packages", "rpm.aws-neuronx-dkms");
    factset_free(&fs);
    infer(&fs, rpm);
    assert_fact(&fs, "neuron.sdk.runtime_version", "2.28.23.0");
    assert_fact(&fs, "neuron.sdk.driver_version", "2.24.7.0");
    factset_free(&fs);
    /* the yum spelling: the derived versions never keep the hash */
    static const char *const yum[] = {
        "rpm.aws-neuronx-runtime-lib", "2.21.41.0_fb1705f5f-1", "rpm.aws-neuronx-dkms", "2.17.17.0_0a1b2c3-dkms",
        "rpm.aws-neuronx-collectives", "2.21.46.0_69b77134b-1", "rpm.aws-neuronx-tools", "2.18.3.0-1", NULL,
    };
    infer(&fs, yum);
    assert_fact(&fs, "neuron.sdk.runtime_version", "2.21.41.0");
    assert_fact(&fs, "neuron.sdk.driver_version", "2.17.17.0");
    assert_fact(&fs, "neuron.sdk.release", "2.19");
    assert_fact(&fs, "neuron.sdk.candidates", "2.19.0,2.19.1");
    assert_fact(&fs, "neuron.sdk.runtime_release", "2.19.1");
    assert_null(factset_get(&fs, "neuron.sdk.uncatalogued"));
    factset_free(&fs);
}

/* The 2.21.0 rows: libneuronxla 2.1.681.0 lists trn1,inf2, torch-neuronx
 * 2.5.1.2.4.0 and neuronx-cc 2.16.345.0 list trn1,inf2,trn2.  A helper
 * library's row never narrows the instance families; its Python list does. */
static void helper_rows_do_not_veto(void **state)
{
    static const char *const kv[] = {
        "pip.libneuronxla", "2.1.681.0", "pip.torch-neuronx", "2.5.1.2.4.0",
        "pip.neuronx-cc", "2.16.345.0", NULL,
    };
    static const char *const alone[] = { "pip.libneuronxla", "2.1.681.0", NULL };
    struct factset fs;
    infer(&fs, kv);
    assert_fact(&fs, "neuron.sdk.release", "2.21.0");   /* 2.21.1 ships libneuronxla 2.1.714.0 */
    assert_fact(&fs, "neuron.sdk.instances", "inf2,trn1,trn2");
    assert_fact(&fs, "neuron.sdk.python", "3.8,3.9,3.10,3.11");
    factset_free(&fs);
    infer(&fs, alone);
    assert_null(factset_get(&fs, "neuron.sdk.instances"));
    assert_non_null(factset_get(&fs, "neuron.sdk.python"));
    factset_free(&fs);
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
          "c:5:5: unknown key 'bogus' in a release (expected release, packages)" },
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
          "c: release must be a text, not a number" },
        { "{\"catalog\": \"x\", \"source\": null, \"releases\": []}",
          "c: source must be a text, not null" },
        { "catalog: x\nsource: \"\"\nreleases: []\n", "c:2:9: source must not be empty" },
        { "catalog: x\nreleases: []\n", "c:1:1: missing key 'source'" },
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
        cmocka_unit_test(release_2_16),
        cmocka_unit_test(mixed_libneuronxla),
        cmocka_unit_test(single_release),
        cmocka_unit_test(compiler_newer_than_runtime),
        cmocka_unit_test(no_neuron),
        cmocka_unit_test(uncatalogued),
        cmocka_unit_test(runtime_and_driver_versions),
        cmocka_unit_test(helper_rows_do_not_veto),
        cmocka_unit_test(names),
        cmocka_unit_test(catalog_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
