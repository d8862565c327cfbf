/* tests/unit/test_dmi.c: the dmi probe and the instance type rules of
 * fingerprint/probes/probe_util.c (family = leading letters and digits: trn2u ->
 * trn2, trn1n -> trn1, as doc/DOMAIN.md's device table groups them). */
#include "tests/unit/sysprobe_fixture.h"
#include "fingerprint/probes/probe_util.h"

static void fixtures(void **state)
{
    static const char *const cases[][4] = {
        { "trn2-native", "trn2.48xlarge", "trn2", "i-0fedcba9876543210" },
        { "trn1-xla", "trn1.32xlarge", "trn1", "i-0a1b2c3d4e5f60718" },
        { "inf2", "inf2.xlarge", "inf2", "i-0123456789abcdef0" },
        { "gpu-baseline", "p4d.24xlarge", "p4", "i-0c0ffee0c0ffee0c0" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct pt t;
        pt_fixture(&t, cases[i][0]);
        pt_run(&t, probe_dmi);
        assert_fact(&t.fs, "host.cloud", "aws");
        assert_fact(&t.fs, "host.instance_type", cases[i][1]);
        assert_fact(&t.fs, "host.instance_family", cases[i][2]);
        assert_fact(&t.fs, "host.instance_id", cases[i][3]);
        assert_string_equal(factset_find(&t.fs, "host.instance_type")->evidence,
                            "/sys/class/dmi/id/product_name");
        assert_int_equal(t.fs.nwarnings, 0);
        pt_close(&t);
    }
}

static void families(void **state)
{
    static const char *const cases[][2] = {
        { "trn2.48xlarge", "trn2" }, { "trn2u.48xlarge", "trn2" }, { "trn1n.32xlarge", "trn1" },
        { "trn3.48xlarge", "trn3" }, { "inf1.6xlarge", "inf1" }, { "p5en.48xlarge", "p5" },
        { "g5.xlarge", "g5" }, { "m7i-flex.large", "m7" },
    };
    char out[SP_INSTANCE_TYPE_MAX + 1];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        assert_true(instance_type_valid(cases[i][0]));
        assert_int_equal(instance_family(cases[i][0], out, sizeof out), 0);
        assert_string_equal(out, cases[i][1]);
    }
    assert_true(instance_type_valid("u-6tb1.metal"));
    assert_int_equal(instance_family("u-6tb1.metal", out, sizeof out), -1);
    static const char *const bad[] = {
        "", "trn2", "Trn2.48xlarge", "trn2.48xlarge.x", ".48xlarge", "trn2.", "trn2 .big",
        "Standard PC (Q35 + ICH9, 2009)", "HVM domU",
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1.x",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        if (instance_type_valid(bad[i]))
            fail_msg("'%s' taken for an instance type", bad[i]);
    assert_true(instance_id_valid("i-0123456789abcdef0"));
    assert_true(instance_id_valid("i-01234567"));
    assert_false(instance_id_valid("i-0123456789ABCDEF0"));
    assert_false(instance_id_valid("i-012345678"));
    assert_false(instance_id_valid("Amazon EC2"));
}

static void variants_and_bad_values(void **state)
{
    struct pt t;
    pt_tmp(&t, NULL);
    pt_put(&t, "sys/class/dmi/id/sys_vendor", "Amazon EC2\n");
    pt_put(&t, "sys/class/dmi/id/product_name", "trn2u.48xlarge\n");
    pt_put(&t, "sys/class/dmi/id/board_asset_tag", "Not Specified\n");
    pt_run(&t, probe_dmi);
    assert_fact(&t.fs, "host.instance_type", "trn2u.48xlarge");
    assert_fact(&t.fs, "host.instance_family", "trn2");
    assert_no_fact(&t.fs, "host.instance_id");
    assert_warning(&t.fs, "board_asset_tag: 'Not Specified' is not an instance id");
    pt_close(&t);

    /* binary bytes in product_name: never a fact, a warning with them escaped */
    pt_tmp(&t, NULL);
    pt_put(&t, "sys/class/dmi/id/sys_vendor", "Amazon EC2\n");
    pt_putn(&t, "sys/class/dmi/id/product_name", "trn2\xff\x01.48xlarge\n", 15);
    pt_run(&t, probe_dmi);
    assert_fact(&t.fs, "host.cloud", "aws");
    assert_no_fact(&t.fs, "host.instance_type");
    assert_warning(&t.fs, "trn2\\xff");
    pt_close(&t);

    /* product_name past DMI_VALUE_MAX (256 bytes) is cut, then refused */
    pt_tmp(&t, NULL);
    pt_put(&t, "sys/class/dmi/id/sys_vendor", "Amazon EC2\n");
    pt_sh(&t, "{ printf 'trn2.'; head -c 300 /dev/zero | tr '\\0' x; echo; } > $D/sys/class/dmi/id/product_name");
    pt_run(&t, probe_dmi);
    assert_no_fact(&t.fs, "host.instance_type");
    assert_warning(&t.fs, "is not an EC2 instance type");
    pt_close(&t);

    /* another vendor: no cloud, no type even if it looks like one */
    pt_tmp(&t, NULL);
    pt_put(&t, "sys/class/dmi/id/sys_vendor", "QEMU\n");
    pt_put(&t, "sys/class/dmi/id/product_name", "trn2.48xlarge\n");
    pt_run(&t, probe_dmi);
    assert_int_equal(t.fs.count, 0);
    assert_int_equal(t.fs.nwarnings, 0);
    pt_close(&t);

    /* no DMI at all, and a DMI folder that is a symlink loop */
    pt_tmp(&t, NULL);
    pt_run(&t, probe_dmi);
    assert_int_equal(t.fs.count + t.fs.nwarnings, 0);
    pt_sh(&t, "mkdir -p $D/sys/class/dmi && ln -s id $D/sys/class/dmi/id");
    pt_run(&t, probe_dmi);
    assert_int_equal(t.fs.count, 0);
    assert_warning(&t.fs, "sys_vendor: symlink loop");
    pt_close(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fixtures),
        cmocka_unit_test(families),
        cmocka_unit_test(variants_and_bad_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
