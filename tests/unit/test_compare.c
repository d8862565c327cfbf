/* tests/unit/test_compare.c: the comparison of two fact sets
 * (checks/compare.h).  The direction of each version change is the
 * scheme's order, whose own cases are in test_version.c; here the traps a
 * text comparison gets wrong are asserted from the specifications
 * (deb-version(7), PEP 440, rpm's rpmvercmp), and tests/oracle/direction.sh
 * compares many more pairs with dpkg, packaging and rpm by driving this
 * binary in --eval mode:
 *
 *   test_compare --eval   reads lines "KEY<TAB>OLD<TAB>NEW" on stdin and
 *                         prints the change's name for each, one a line
 *                         ("unchanged" when the texts are equal)
 */
#include "tests/unit/testlib.h"

#include "checks/compare.h"

static void change_is(const char *key, const char *a, const char *b, enum sp_change want)
{
    enum sp_change got = sp_compare_values(key, a, b);
    if (got != want)
        fail_msg("%s: %s -> %s gave %s, expected %s", key, a ? a : "(absent)",
                 b ? b : "(absent)", sp_change_name(got), sp_change_name(want));
}

static void directions_per_scheme(void **state)
{
    /* dotted: numbers, not text ("2.10" sorts before "2.9" as text) */
    change_is("neuron.driver.version", "2.9.1.0", "2.10.0.0", SP_CHANGE_UPGRADED);
    change_is("neuron.driver.version", "2.10.0.0", "2.9.1.0", SP_CHANGE_DOWNGRADED);
    change_is("neuron.runtime.version", "2.28.23.0", "2.31.24.0", SP_CHANGE_UPGRADED);
    /* python.version is PEP 440: 3.11.10 after 3.11.7, 3.13.0rc1 before 3.13.0 */
    change_is("python.version", "3.11.7", "3.11.10", SP_CHANGE_UPGRADED);
    change_is("python.version", "3.13.0", "3.13.0rc1", SP_CHANGE_DOWNGRADED);
    /* PEP 440: a pre-release before its release; a local label after the
     * public version it labels */
    change_is("pip.torch", "2.3.0a0+ebedce2", "2.3.0", SP_CHANGE_UPGRADED);
    change_is("pip.torch", "2.1.2+cu121", "2.1.2", SP_CHANGE_DOWNGRADED);
    change_is("pip.torch", "2.1.2", "2.1.2+cu121", SP_CHANGE_UPGRADED);
    change_is("python.env.venv.pip.numpy", "1.26.4", "2.0.0", SP_CHANGE_UPGRADED);
    change_is("python.env.venv.version", "3.10.12", "3.9.18", SP_CHANGE_DOWNGRADED);
    /* what probe --deep reads from the interpreter is PEP 440 too */
    change_is("runtime.torch.version", "2.9.0+cu121", "2.9.1", SP_CHANGE_UPGRADED);
    change_is("runtime.python.version", "3.13.0", "3.13.0rc1", SP_CHANGE_DOWNGRADED);
    /* Debian: '~' sorts before the empty string; revisions compare as
     * numbers (+deb12u10 after +deb12u4) */
    change_is("deb.libc6", "2.36-9+deb12u4", "2.36-9+deb12u10", SP_CHANGE_UPGRADED);
    change_is("deb.foo", "1.0", "1.0~rc1", SP_CHANGE_DOWNGRADED);
    change_is("deb.foo", "1.0~rc1", "1.0", SP_CHANGE_UPGRADED);
    change_is("deb.foo", "1:0.9", "2.0", SP_CHANGE_DOWNGRADED);
    /* RPM: the epoch outweighs the version */
    change_is("rpm.aws-neuronx-dkms", "2.24.7.0-1.amzn2023", "1:2.19.5.0-1.amzn2023",
              SP_CHANGE_UPGRADED);
    change_is("rpm.aws-neuronx-dkms", "1:2.19.5.0-1", "2.24.7.0-1", SP_CHANGE_DOWNGRADED);
    /* no direction */
    change_is("torch.backend", "xla", "native", SP_CHANGE_CHANGED);
    change_is("neuron.device.count", "16", "32", SP_CHANGE_CHANGED);
    change_is("host.instance_type", "trn1.32xlarge", "trn2.48xlarge", SP_CHANGE_CHANGED);
    /* a value outside the scheme is never compared as text */
    change_is("pip.torch", "2.x", "2.1", SP_CHANGE_CHANGED);
    change_is("neuron.driver.version", "2.24.7.0", "unknown", SP_CHANGE_CHANGED);
    /* two spellings of one version: changed (the stack ids differ too) */
    change_is("pip.torch", "1.0", "1.0.0", SP_CHANGE_CHANGED);
    change_is("neuron.driver.version", "2.29", "2.29.0", SP_CHANGE_CHANGED);
    /* presence */
    change_is("pip.torch", NULL, "2.1.2", SP_CHANGE_ADDED);
    change_is("torch.backend", "xla", NULL, SP_CHANGE_REMOVED);
    change_is("pip.torch", "2.1.2", "2.1.2", SP_CHANGES);
    change_is("pip.torch", NULL, NULL, SP_CHANGES);
}

static void version_keys(void **state)
{
    static const char *const yes[] = {
        "pip.torch", "deb.libc6", "rpm.glibc", "python.version", "python.env.a.version",
        "python.env.a.pip.numpy", "neuron.driver.version", "neuron.runtime.version",
        "efa.installer.version", "host.os.version_id", "neuron.sdk.runtime_version",
        "gpu.nvidia.driver", "torch.build.cuda", "neuron.sdk.release",
    };
    static const char *const no[] = {
        "torch.backend", "neuron.device.count", "host.kernel", "neuron.driver.dkms",
        "python.path", "image.config_digest", "env.NEURON_RT_VISIBLE_CORES", "versions",
    };
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
        if (!sp_compare_is_version(yes[i]))
            fail_msg("%s should be a version fact", yes[i]);
    for (size_t i = 0; i < sizeof no / sizeof *no; i++)
        if (sp_compare_is_version(no[i]))
            fail_msg("%s should not be a version fact", no[i]);
}

static void set(struct factset *fs, const char *k, const char *v)
{
    assert_int_equal(factset_set(fs, k, v, NULL), 0);
}

static void whole_sets(void **state)
{
    struct factset a, b;
    struct sp_diff d;
    struct sp_error e;
    factset_init(&a);
    factset_init(&b);
    sp_diff_init(&d);
    set(&a, "host.hostname", "node1");
    set(&b, "host.hostname", "node2");
    set(&a, "container.id", "abc");
    set(&a, "pip.numpy", "1.26.4");
    set(&b, "pip.numpy", "1.26.4");
    set(&a, "deb.libc6", "2.36-9+deb12u4");
    set(&b, "deb.libc6", "2.36-9+deb12u10");
    set(&a, "torch.backend", "xla");
    set(&b, "torch.backend", "native");
    set(&a, "neuron.driver.version", "2.10.0.0");
    set(&b, "neuron.driver.version", "2.9.1.0");
    set(&b, "pip.torch-neuronx", "2.9.0.2.15.32035");
    set(&a, "pip.neuronx-cc", "2.21.18209.0+043b1bf7");
    set(&b, "pip.neuronx-cc", "2.26.6360.0+6f180f47");
    set(&a, "host.instance_type", "trn1.32xlarge");
    set(&b, "host.instance_type", "trn2.48xlarge");
    set(&a, "image.config_digest", "sha256:aa");
    set(&a, "python.env.venv.pip.six", "1.16.0");

    /* volatile keys are left out by default: reading order, counts */
    assert_int_equal(sp_compare(&a, &b, NULL, &d, &e), 0);
    static const char *const want[] = {
        "host.instance_type", "neuron.driver.version", "pip.neuronx-cc", "torch.backend",
        "pip.torch-neuronx", "image.config_digest", "python.env.venv.pip.six", "deb.libc6",
    };
    assert_int_equal(d.count, sizeof want / sizeof *want);
    for (size_t i = 0; i < d.count; i++)
        assert_string_equal(d.items[i].key, want[i]);
    assert_int_equal(d.counts[SP_CHANGE_UPGRADED], 2);     /* neuronx-cc, libc6 */
    assert_int_equal(d.counts[SP_CHANGE_DOWNGRADED], 1);   /* the driver */
    assert_int_equal(d.counts[SP_CHANGE_ADDED], 1);
    assert_int_equal(d.counts[SP_CHANGE_REMOVED], 2);
    assert_int_equal(d.counts[SP_CHANGE_CHANGED], 2);
    assert_int_equal(d.items[0].group, SP_GROUP_INSTANCE);
    assert_int_equal(d.items[1].group, SP_GROUP_DRIVER);
    assert_int_equal(d.items[2].group, SP_GROUP_COMPILER);
    assert_int_equal(d.items[3].group, SP_GROUP_TORCH);
    assert_int_equal(d.items[7].group, SP_GROUP_PACKAGES);
    assert_null(d.items[4].old_value);
    assert_string_equal(d.items[4].new_value, "2.9.0.2.15.32035");

    /* --all: volatile keys and created come back; globs drop keys */
    const char *const globs[] = { "deb.*", "python.env.*" };
    struct sp_compare_opts o = {
        .flags = SP_COMPARE_ALL, .ignore = globs, .nignore = 2,
        .old_created = "2026-05-01T00:00:00Z", .new_created = "2026-11-01T00:00:00Z",
    };
    assert_int_equal(sp_compare(&a, &b, &o, &d, &e), 0);
    assert_int_equal(d.count, sizeof want / sizeof *want - 2 + 3);
    assert_string_equal(d.items[0].key, "host.instance_type");
    assert_string_equal(d.items[1].key, "host.hostname");
    assert_string_equal(d.items[d.count - 1].key, "created");
    int saw_container = 0;
    for (size_t i = 0; i < d.count; i++) {
        saw_container |= strcmp(d.items[i].key, "container.id") == 0;
        assert_true(strncmp(d.items[i].key, "deb.", 4) != 0);
    }
    assert_true(saw_container);

    /* the same set: nothing */
    assert_int_equal(sp_compare(&a, &a, NULL, &d, &e), 0);
    assert_int_equal(d.count, 0);

    sp_diff_free(&d);
    factset_free(&a);
    factset_free(&b);
}

static void reading_order(void **state)
{
    static const char *const keys[] = {
        "host.instance_type", "host.os.id", "neuron.device.kind", "neuron.lnc",
        "neuron.driver.version", "deb.aws-neuronx-dkms", "neuron.sdk.release",
        "neuron.runtime.version", "pip.neuronx-cc", "pip.torch", "torch.backend",
        "runtime.torch.version", "pip.torch-neuronx", "python.version", "python.env.a.version",
        "runtime.python.version", "image.ref",
        "env.NEURON_CC_FLAGS", "pip.numpy", "python.env.a.pip.numpy", "deb.libc6",
        "rpm.glibc", "zzz.unknown",
    };
    /* each key's group, as stackprint-diff(1) "Reading order" lists them */
    static const enum sp_group groups[] = {
        SP_GROUP_INSTANCE, SP_GROUP_INSTANCE, SP_GROUP_DEVICES, SP_GROUP_DEVICES,
        SP_GROUP_DRIVER, SP_GROUP_DRIVER, SP_GROUP_RUNTIME, SP_GROUP_RUNTIME,
        SP_GROUP_COMPILER, SP_GROUP_TORCH, SP_GROUP_TORCH, SP_GROUP_TORCH, SP_GROUP_TORCH,
        SP_GROUP_PYTHON, SP_GROUP_PYTHON, SP_GROUP_PYTHON, SP_GROUP_IMAGE, SP_GROUP_ENV, SP_GROUP_PACKAGES, SP_GROUP_PACKAGES,
        SP_GROUP_PACKAGES, SP_GROUP_PACKAGES, SP_GROUP_OTHER,
    };
    assert_int_equal(sizeof keys / sizeof *keys, sizeof groups / sizeof *groups);
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (sp_group_of(keys[i]) != groups[i])
            fail_msg("%s is in group %s, expected %s", keys[i], sp_group_name(sp_group_of(keys[i])),
                     sp_group_name(groups[i]));
    for (size_t i = 0; i + 1 < sizeof keys / sizeof *keys; i++) {
        if (sp_reading_cmp(keys[i], keys[i + 1]) >= 0)
            fail_msg("%s should be read before %s", keys[i], keys[i + 1]);
        if (sp_reading_cmp(keys[i + 1], keys[i]) <= 0)
            fail_msg("order of %s and %s is not antisymmetric", keys[i], keys[i + 1]);
    }
    assert_int_equal(sp_group_of("python.env.a.pip.numpy"), SP_GROUP_PACKAGES);
    assert_int_equal(sp_group_of("neuron.cache.compilers"), SP_GROUP_COMPILER);
    assert_int_equal(sp_group_of("neuron.neff.001.sha256"), SP_GROUP_COMPILER);
    assert_int_equal(sp_group_of("neuron.other"), SP_GROUP_RUNTIME);
    assert_true(sp_reading_cmp("pip.neuronx-cc", "neuron.cache.compilers") < 0);
    assert_true(sp_reading_cmp("neuron.cache.compilers", "pip.torch") < 0);
    assert_int_equal(sp_group_of("python.env.a.path"), SP_GROUP_PYTHON);
    assert_int_equal(sp_group_of("zzz"), SP_GROUP_OTHER);
    assert_string_equal(sp_group_name(SP_GROUP_COMPILER), "compiler");
    assert_string_equal(sp_change_name(SP_CHANGE_DOWNGRADED), "downgraded");
}

static int eval_mode(void)
{
    char line[4096];
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = '\0';
        char *a = strchr(line, '\t'), *b = a ? strchr(a + 1, '\t') : NULL;
        if (b == NULL) {
            puts("error");
            continue;
        }
        *a++ = '\0';
        *b++ = '\0';
        puts(sp_change_name(sp_compare_values(line, a, b)));
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--eval") == 0)
        return eval_mode();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(directions_per_scheme),
        cmocka_unit_test(version_keys),
        cmocka_unit_test(whole_sets),
        cmocka_unit_test(reading_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
