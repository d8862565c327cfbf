/* tests/unit/test_neuron_lib.c: runtime and collectives versions from the
 * file names in /opt/aws/neuron/lib (doc/DOMAIN.md section 3). */
#include "tests/unit/sysprobe_fixture.h"

static void fixtures(void **state)
{
    static const char *const cases[][3] = {
        { "trn1-xla", "2.28.23.0", "2.28.27" },
        { "trn2-native", "2.34.10.0", "2.34.10" },
        { "inf2", "2.33.10.0", "2.33.10" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct pt t;
        pt_fixture(&t, cases[i][0]);
        pt_run(&t, probe_neuron_lib);
        assert_fact(&t.fs, "neuron.runtime.version", cases[i][1]);
        assert_fact(&t.fs, "neuron.collectives.version", cases[i][2]);
        assert_int_equal(t.fs.nwarnings, 0);
        pt_close(&t);
    }
    struct pt t;
    pt_fixture(&t, "gpu-baseline");
    pt_run(&t, probe_neuron_lib);
    assert_int_equal(t.fs.count + t.fs.nwarnings, 0);
    pt_close(&t);
}

static void names(void **state)
{
    struct pt t;
    pt_tmp(&t, NULL);
    /* SONAME-only and partial names carry no full version */
    pt_sh(&t, "d=$D/opt/aws/neuron/lib && mkdir -p $d && cd $d && "
              ": > libnrt.so.1 && : > libnrt.so.2.31 && : > libnrt.so.2.9.1.0 && "
              ": > libnrt.so.2.31.24.0 && : > libnrt.so.2.31.24.0.bak && : > libnrt.so.x.y.z && "
              ": > libnccom.so.2 && : > libnccom.so.2.22.26 && : > libnccom-net.so");
    pt_run(&t, probe_neuron_lib);
    /* the highest by version order (2.31 > 2.9), with a warning listing both */
    assert_fact(&t.fs, "neuron.runtime.version", "2.31.24.0");
    assert_warning(&t.fs, "several versions (libnrt.so.2.31.24.0, libnrt.so.2.9.1.0)");
    assert_fact(&t.fs, "neuron.collectives.version", "2.22.26");
    assert_string_equal(factset_find(&t.fs, "neuron.runtime.version")->evidence,
                        "/opt/aws/neuron/lib/libnrt.so.2.31.24.0");
    pt_close(&t);

    /* the highest in the dotted scheme (checks/version.h): 2.31.24 and
     * 2.31.24.0 are the same version, the tie broken by bytes, whatever
     * order the folder lists them in */
    pt_tmp(&t, NULL);
    pt_sh(&t, "d=$D/opt/aws/neuron/lib && mkdir -p $d && cd $d && "
              ": > libnrt.so.2.31.24.0 && : > libnrt.so.2.31.24 && : > libnrt.so.2.9.1");
    pt_run(&t, probe_neuron_lib);
    assert_fact(&t.fs, "neuron.runtime.version", "2.31.24.0");
    pt_close(&t);

    pt_tmp(&t, NULL);
    pt_sh(&t, "mkdir -p $D/opt/aws/neuron && ln -s lib $D/opt/aws/neuron/lib");
    pt_run(&t, probe_neuron_lib);
    assert_warning(&t.fs, "/opt/aws/neuron/lib: symlink loop");
    pt_close(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fixtures),
        cmocka_unit_test(names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
