/* tests/unit/test_neuron_driver.c: the neuron-driver probe.  Core counts
 * when core_count is readable, and the fallback to the device table when it
 * is not or the driver's class folder is missing.  The tests run as root, which reads a mode-0400 or chmod-000 file
 * anyway, so "permission denied" is produced the way the probe meets it:
 * through the root abstraction, by a root whose read_file answers EACCES for
 * core_count files (the same errno a non-root open(2) gets); the CLI case
 * in tests/cli/probe.t does it for real as user nobody. */
#include "tests/unit/sysprobe_fixture.h"

static const struct root_ops *real_ops;
static struct root_ops denying_ops;

static int deny_core_count(struct root *r, const char *path, size_t max, char **buf,
                           size_t *len)
{
    size_t n = strlen(path);
    if (n >= 11 && strcmp(path + n - 11, "/core_count") == 0) {
        errno = EACCES;
        return -1;
    }
    return real_ops->read_file(r, path, max, buf, len);
}

static void deny(struct pt *t)
{
    real_ops = t->root->ops;
    denying_ops = *real_ops;
    denying_ops.read_file = deny_core_count;
    t->root->ops = &denying_ops;
}

static void undeny(struct pt *t)
{
    t->root->ops = real_ops;
}

/* pci then neuron-driver, as the probe table runs them */
static void run(struct pt *t)
{
    pt_run(t, probe_pci);
    pt_run(t, probe_neuron_driver);
}

static void fixtures(void **state)
{
    static const char *const cases[][6] = {
        /* root, driver, dkms, cores, lnc, kind */
        { "trn1-xla", "2.24.7.0", "2.24.7.0", "32", NULL, "trainium" },
        { "trn2-native", "2.30.2.0", "2.30.2.0", "128", "2", "trainium2" },
        { "inf2", "2.29.0.0", "2.29.0.0", "2", NULL, "inferentia2" },
        { "inf1-legacy", "2.24.7.0", "2.24.7.0", "4", NULL, "inferentia" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct pt t;
        pt_fixture(&t, cases[i][0]);
        run(&t);
        assert_fact(&t.fs, "neuron.driver.version", cases[i][1]);
        assert_fact(&t.fs, "neuron.driver.dkms", cases[i][2]);
        assert_fact(&t.fs, "neuron.core.count", cases[i][3]);
        assert_fact(&t.fs, "neuron.device.kind", cases[i][5]);
        if (cases[i][4])
            assert_fact(&t.fs, "neuron.lnc", cases[i][4]);
        else
            assert_no_fact(&t.fs, "neuron.lnc");
        assert_non_null(strstr(factset_find(&t.fs, "neuron.core.count")->evidence, "core_count"));
        pt_close(&t);
    }
    /* the legacy aws-neuron DKMS module next to aws-neuronx: warnings */
    struct pt t;
    pt_fixture(&t, "inf1-legacy");
    run(&t);
    assert_warning(&t.fs, "/var/lib/dkms/aws-neuron/2.3.26.0: legacy aws-neuron DKMS module");
    assert_warning(&t.fs, "/usr/src/aws-neuron-2.3.26.0: legacy aws-neuron driver sources");
    pt_close(&t);
}

static void core_count_permission_denied(void **state)
{
    struct pt t;
    pt_fixture(&t, "trn2-native");
    deny(&t);
    run(&t);
    undeny(&t);
    /* 16 Trainium2 devices x 8 cores from the table, and the warning names the file */
    assert_fact(&t.fs, "neuron.core.count", "128");
    assert_string_equal(factset_find(&t.fs, "neuron.core.count")->evidence,
                        "device table: 16 x 8 cores (trainium2)");
    assert_warning(&t.fs, "neuron.core.count: /sys/class/neuron_device/neuron0/core_count: "
                          "permission denied");
    pt_close(&t);

    /* unreadable and no PCI bus to name the kind: the driver's device_name does */
    pt_tmp(&t, "inf2");
    pt_sh(&t, "rm -r $D/sys/bus");
    deny(&t);
    run(&t);
    undeny(&t);
    assert_fact(&t.fs, "neuron.device.count", "1");
    assert_fact(&t.fs, "neuron.device.kind", "inferentia2");
    assert_fact(&t.fs, "neuron.core.count", "2");
    assert_warning(&t.fs, "neuron0/core_count: permission denied");
    pt_close(&t);

    /* unreadable, no bus, no device_name: cores not counted, and it says why */
    pt_tmp(&t, "inf2");
    pt_sh(&t, "rm -r $D/sys/bus $D/sys/devices/virtual/neuron_device/neuron0/info");
    deny(&t);
    run(&t);
    undeny(&t);
    assert_no_fact(&t.fs, "neuron.core.count");
    assert_warning(&t.fs, "permission denied; device kind unknown, cores not counted");
    pt_close(&t);
}

static void missing_core_count(void **state)
{
    /* trn3 models a driver tree without core_count (driver 2.31 moved files) */
    struct pt t;
    pt_fixture(&t, "trn3");
    run(&t);
    assert_fact(&t.fs, "neuron.core.count", "128");
    assert_warning(&t.fs, "neuron0/core_count: no such file");
    pt_close(&t);
}

/* No driver class folder (driver not loaded, or its sysfs not copied):
 * the PCI bus's devices of a known kind still give the core count, from the
 * device table, and the evidence says why; an unknown kind gives none. */
static void no_class_folder(void **state)
{
    struct pt t;
    pt_tmp(&t, "trn1-xla");
    pt_sh(&t, "rm -rf \"$D/sys/class/neuron_device\"");
    run(&t);
    assert_fact(&t.fs, "neuron.device.count", "16");
    assert_fact(&t.fs, "neuron.core.count", "32");
    const struct fact *f = factset_find(&t.fs, "neuron.core.count");
    assert_non_null(f);
    assert_string_equal(f->evidence, "device table: 16 x 2 cores (trainium, from the PCI bus); "
                        "/sys/class/neuron_device: no such folder");
    pt_close(&t);

    pt_tmp(&t, "trn1-xla");
    pt_sh(&t, "rm -rf \"$D/sys/class/neuron_device\" \"$D/sys/bus/pci\"");
    run(&t);
    assert_no_fact(&t.fs, "neuron.core.count");
    pt_close(&t);
}

static void bad_input(void **state)
{
    struct pt t;
    pt_tmp(&t, "inf2");
    pt_putn(&t, "sys/module/neuron/version", "2.29\xff\x00\n", 7);
    pt_put(&t, "sys/devices/virtual/neuron_device/neuron0/core_count", "lots\n");
    pt_putn(&t, "sys/devices/virtual/neuron_device/neuron0/info/architecture/device_name",
            "Tr\xc3\x28nium\n", 10);
    pt_put(&t, "opt/aws/neuron/logical_nc_config", "two\n");
    pt_sh(&t, "ln -s loop $D/var/lib/dkms/aws-neuronx/loop && ln -s /nowhere $D/usr/src/aws-neuronx-9.9.9.9");
    run(&t);
    assert_no_fact(&t.fs, "neuron.driver.version");
    assert_warning(&t.fs, "/sys/module/neuron/version: malformed version");
    assert_warning(&t.fs, "neuron0/core_count: malformed count");
    assert_fact(&t.fs, "neuron.core.count", "2");          /* from the table */
    assert_warning(&t.fs, "unknown device_name 'Tr\\xc3(nium'");
    assert_no_fact(&t.fs, "neuron.lnc");
    assert_warning(&t.fs, "neuron.lnc: /opt/aws/neuron/logical_nc_config: malformed value");
    assert_fact(&t.fs, "neuron.driver.dkms", "2.29.0.0");   /* links are not versions */
    pt_close(&t);

    /* the class folder is a symlink loop; the module folder is missing */
    pt_tmp(&t, "inf2");
    pt_sh(&t, "rm -r $D/sys/class/neuron_device $D/sys/module && "
              "ln -s neuron_device $D/sys/class/neuron_device");
    run(&t);
    assert_no_fact(&t.fs, "neuron.driver.version");
    assert_warning(&t.fs, "/sys/class/neuron_device: symlink loop");
    assert_fact(&t.fs, "neuron.device.count", "1");        /* the bus still counts */
    pt_close(&t);
}

static void class_without_bus_and_dkms_order(void **state)
{
    struct pt t;
    pt_tmp(&t, "trn1-xla");
    pt_sh(&t, "rm -r $D/sys/bus && mkdir -p $D/var/lib/dkms/aws-neuronx/2.9.1.0 "
              "$D/var/lib/dkms/aws-neuronx/2.30.2.0 $D/usr/src/aws-neuronx-2.27.4.0");
    run(&t);
    assert_fact(&t.fs, "neuron.device.count", "16");
    assert_string_equal(factset_find(&t.fs, "neuron.device.count")->evidence,
                        "/sys/class/neuron_device");
    assert_fact(&t.fs, "neuron.device.kind", "trainium");
    assert_fact(&t.fs, "neuron.core.count", "32");
    /* version order, not byte order: 2.9 < 2.24 < 2.27 < 2.30 */
    assert_fact(&t.fs, "neuron.driver.dkms", "2.9.1.0,2.24.7.0,2.27.4.0,2.30.2.0");
    pt_close(&t);

    /* the order is the dotted scheme's (checks/version.h), as a policy
     * compares neuron.* versions: 2.29 == 2.29.0, the tie broken by bytes;
     * a version the scheme does not read ("2.19.1-rc1") after the others */
    pt_tmp(&t, NULL);
    pt_sh(&t, "cd $D && mkdir -p var/lib/dkms/aws-neuronx/2.29.0 var/lib/dkms/aws-neuronx/2.29 "
              "var/lib/dkms/aws-neuronx/2.19.1-rc1 var/lib/dkms/aws-neuronx/02.9");
    run(&t);
    assert_fact(&t.fs, "neuron.driver.dkms", "02.9,2.29,2.29.0,2.19.1-rc1");
    pt_close(&t);

    /* the bus readable but empty, the driver lists devices: a warning */
    pt_tmp(&t, "inf2");
    pt_sh(&t, "rm $D/sys/bus/pci/devices/0000:00:03.0");
    run(&t);
    assert_fact(&t.fs, "neuron.device.count", "1");
    assert_warning(&t.fs, "the driver lists 1 devices but the PCI bus shows none");
    pt_close(&t);
}

static void bounds(void **state)
{
    struct pt t;
    /* 65 devices in the class folder: 64 read (NEURON_DEVICES_MAX), a warning */
    pt_tmp(&t, NULL);
    pt_sh(&t, "i=0; while [ $i -lt 65 ]; do d=$D/sys/class/neuron_device/neuron$i; mkdir -p $d; "
              "echo 2 > $d/core_count; i=$((i + 1)); done");
    run(&t);
    assert_fact(&t.fs, "neuron.device.count", "64");
    assert_fact(&t.fs, "neuron.core.count", "128");
    assert_warning(&t.fs, "more than 64 devices; the rest not read");
    pt_close(&t);
    /* a core_count past CORES_PER_DEVICE_MAX (64) is malformed */
    pt_tmp(&t, "inf2");
    pt_put(&t, "sys/devices/virtual/neuron_device/neuron0/core_count", "65\n");
    run(&t);
    assert_warning(&t.fs, "neuron0/core_count: malformed count");
    assert_fact(&t.fs, "neuron.core.count", "2");
    pt_close(&t);
    /* 33 DKMS versions: 32 listed (DKMS_VERSIONS_MAX), the rest counted */
    pt_tmp(&t, NULL);
    pt_sh(&t, "i=0; while [ $i -lt 33 ]; do mkdir -p $D/var/lib/dkms/aws-neuronx/2.$i.0.0; "
              "i=$((i + 1)); done");
    run(&t);
    assert_warning(&t.fs, "more than 32 versions; 1 more not listed");
    const char *v = factset_get(&t.fs, "neuron.driver.dkms");
    assert_non_null(v);
    assert_non_null(strstr(v, "2.0.0.0,2.1.0.0,"));
    pt_close(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fixtures),
        cmocka_unit_test(core_count_permission_denied),
        cmocka_unit_test(missing_core_count),
        cmocka_unit_test(no_class_folder),
        cmocka_unit_test(bad_input),
        cmocka_unit_test(class_without_bus_and_dkms_order),
        cmocka_unit_test(bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
