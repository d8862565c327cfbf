/* tests/unit/test_efa.c: efa.installer.version and efa.driver.version. */
#include "tests/unit/sysprobe_fixture.h"

static void fixtures(void **state)
{
    struct pt t;
    pt_fixture(&t, "trn2-native");
    pt_run(&t, probe_efa);
    assert_fact(&t.fs, "efa.installer.version", "1.41.0");
    assert_fact(&t.fs, "efa.driver.version", "2.15.1g");
    assert_int_equal(t.fs.nwarnings, 0);
    pt_close(&t);
    pt_fixture(&t, "inf2");
    pt_run(&t, probe_efa);
    assert_int_equal(t.fs.count + t.fs.nwarnings, 0);
    pt_close(&t);
}

static void bad_input(void **state)
{
    struct pt t;
    pt_tmp(&t, NULL);
    pt_put(&t, "opt/amazon/efa_installed_packages", "EFA 1.2.3\n# EFA installer version: 1.2.3\n");
    pt_putn(&t, "sys/module/efa/version", "\xff\xfe\n", 3);
    pt_run(&t, probe_efa);
    assert_int_equal(t.fs.count, 0);
    assert_warning(&t.fs, "efa_installed_packages:1: not \"# EFA installer version: X.Y.Z\"");
    assert_warning(&t.fs, "/sys/module/efa/version: malformed version");
    pt_close(&t);
    pt_tmp(&t, NULL);
    pt_sh(&t, "mkdir -p $D/opt/amazon && mkfifo $D/opt/amazon/efa_installed_packages");
    pt_run(&t, probe_efa);
    assert_warning(&t.fs, "efa_installed_packages: not a regular file");
    pt_close(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fixtures),
        cmocka_unit_test(bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
