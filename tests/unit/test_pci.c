/* tests/unit/test_pci.c: the pci probe on every fixture root (their buses
 * also read by lspci in tests/oracle/pci.sh) and on damaged trees: a stray
 * entry (libpci itself would exit), binary bytes, a FIFO, a symlink that
 * leaves the tree on disk, a bus over the device bound, a root without a
 * directory on disk. */
#include "tests/unit/sysprobe_fixture.h"

#include <sys/wait.h>

struct want {
    const char *root, *neuron, *kind, *pci_id, *efa, *gpu, *gpu_id;
};

static void fixtures(void **state)
{
    static const struct want cases[] = {
        { "trn1-xla", "16", "trainium", "1d0f:7164", "8", "0", NULL },
        { "trn2-native", "16", "trainium2", "1d0f:7364", "16", "0", NULL },
        { "trn3", "16", "trainium3", "1d0f:7564", "16", "0", NULL },
        { "inf2", "1", "inferentia2", "1d0f:7264", "0", "0", NULL },
        { "inf1-legacy", "1", "inferentia", "1d0f:7064", "0", "0", NULL },
        { "ambiguous", "1", "trainium", "1d0f:7164", "0", "0", NULL },
        /* 8 A100 (class 0302) counted, 6 NVSwitch bridges (class 0680) not */
        { "gpu-baseline", "0", NULL, NULL, "4", "8", "10de:20b0" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct pt t;
        pt_fixture(&t, cases[i].root);
        pt_run(&t, probe_pci);
        assert_fact(&t.fs, "neuron.device.count", cases[i].neuron);
        assert_fact(&t.fs, "efa.device.count", cases[i].efa);
        assert_fact(&t.fs, "gpu.device.count", cases[i].gpu);
        if (cases[i].kind) {
            assert_fact(&t.fs, "neuron.device.kind", cases[i].kind);
            assert_fact(&t.fs, "neuron.device.pci_id", cases[i].pci_id);
        } else {
            assert_no_fact(&t.fs, "neuron.device.kind");
            assert_no_fact(&t.fs, "neuron.device.pci_id");
        }
        if (cases[i].gpu_id)
            assert_fact(&t.fs, "gpu.device.pci_id", cases[i].gpu_id);
        else
            assert_no_fact(&t.fs, "gpu.device.pci_id");
        if (t.fs.nwarnings)
            fail_msg("%s: unexpected warning %s", cases[i].root, t.fs.warnings[0]);
        pt_close(&t);
    }
}

static void no_bus(void **state)
{
    struct pt t;
    pt_fixture(&t, "container-bare");
    pt_run(&t, probe_pci);
    assert_int_equal(t.fs.count, 0);             /* unknown, not zero */
    assert_warning(&t.fs, "pci: /sys/bus/pci/devices: no such file");
    pt_close(&t);

    /* an empty bus is read as empty: zero counts, never this machine's bus */
    pt_tmp(&t, NULL);
    pt_sh(&t, "mkdir -p $D/sys/bus/pci/devices");
    pt_run(&t, probe_pci);
    assert_fact(&t.fs, "neuron.device.count", "0");
    assert_fact(&t.fs, "efa.device.count", "0");
    assert_fact(&t.fs, "gpu.device.count", "0");
    assert_int_equal(t.fs.count, 3);
    assert_int_equal(t.fs.nwarnings, 0);
    pt_close(&t);

    /* a root without a directory on disk (an image) */
    pt_fixture(&t, "inf2");
    char *saved = t.root->host_path;
    t.root->host_path = NULL;
    pt_run(&t, probe_pci);
    t.root->host_path = saved;
    assert_int_equal(t.fs.count, 0);
    assert_warning(&t.fs, "no PCI bus to read");
    pt_close(&t);
}

/* Add device BDF with VENDOR/DEVICE/CLASS to the tree of T (sysfs shape). */
static void add_device(struct pt *t, const char *bdf, const char *vendor, const char *device,
                       const char *cls)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "d=$D/sys/devices/pci0000:00/%s && mkdir -p $d && "
             "printf '%s\\n' > $d/vendor && printf '%s\\n' > $d/device && "
             "printf '%s\\n' > $d/class && echo 0 > $d/irq && "
             "printf '0x0 0x0 0x0\\n' > $d/resource && "
             "ln -s ../../../devices/pci0000:00/%s $D/sys/bus/pci/devices/%s",
             bdf, vendor, device, cls, bdf, bdf);
    pt_sh(t, cmd);
}

static void several_kinds(void **state)
{
    struct pt t;
    pt_tmp(&t, "inf2");
    add_device(&t, "0000:00:1a.0", "0x1d0f", "0x7164", "0x088000");
    add_device(&t, "0000:00:1b.0", "0x1d0f", "0xefa4", "0x020000");   /* unconfirmed EFA id */
    add_device(&t, "0000:00:1c.0", "0x10de", "0x2330", "0x030200");
    add_device(&t, "0000:00:1d.0", "0x10de", "0x20b0", "0x030200");
    pt_run(&t, probe_pci);
    assert_fact(&t.fs, "neuron.device.count", "2");
    assert_fact(&t.fs, "neuron.device.kind", "inferentia2,trainium");
    assert_fact(&t.fs, "neuron.device.pci_id", "1d0f:7164,1d0f:7264");
    assert_warning(&t.fs, "devices of several kinds on one host: inferentia2,trainium");
    assert_fact(&t.fs, "efa.device.count", "0");
    assert_fact(&t.fs, "gpu.device.count", "2");
    assert_fact(&t.fs, "gpu.device.pci_id", "10de:20b0,10de:2330");
    pt_close(&t);
}

static void malformed_trees(void **state)
{
    static const char *const damage[][2] = {
        /* libpci would call exit(1) on an entry it cannot parse */
        { "touch $D/sys/bus/pci/devices/garbage", "garbage: not a PCI address" },
        { "printf '0x1d\\377\\001f\\n' > $D/sys/devices/pci0000:00/0000:00:03.0/vendor",
          "0000:00:03.0/vendor: malformed value" },
        { "printf '' > $D/sys/devices/pci0000:00/0000:00:03.0/device",
          "0000:00:03.0/device: malformed value" },
        { "rm $D/sys/devices/pci0000:00/0000:00:03.0/class",
          "0000:00:03.0/class: no such file" },
        { "echo 'not hex' > $D/sys/devices/pci0000:00/0000:00:03.0/resource",
          "0000:00:03.0/resource: malformed value" },
        { "rm $D/sys/devices/pci0000:00/0000:00:03.0/vendor && "
          "mkfifo $D/sys/devices/pci0000:00/0000:00:03.0/vendor",
          "0000:00:03.0/vendor: not a regular file" },
        { "rm $D/sys/bus/pci/devices/0000:00:03.0 && "
          "ln -s 0000:00:03.0 $D/sys/bus/pci/devices/0000:00:03.0",
          "0000:00:03.0/resource: symlink loop" },
        { "rm -r $D/sys/bus/pci/devices && ln -s devices $D/sys/bus/pci/devices",
          "/sys/bus/pci/devices: symlink loop" },
    };
    for (size_t i = 0; i < sizeof damage / sizeof *damage; i++) {
        struct pt t;
        pt_tmp(&t, "inf2");
        pt_sh(&t, damage[i][0]);
        alarm(20);
        pt_run(&t, probe_pci);
        alarm(0);
        assert_warning(&t.fs, damage[i][1]);
        assert_no_fact(&t.fs, "neuron.device.count");
        assert_no_fact(&t.fs, "neuron.device.kind");
        pt_close(&t);
    }
}

static void links_leaving_the_tree(void **state)
{
    struct pt t;
    /* inside the root the link names a copy of a device; on disk it names
     * this machine's device: libpci must never be given it */
    pt_tmp(&t, "inf2");
    pt_sh(&t, "rm $D/sys/bus/pci/devices/0000:00:03.0 && "
              "mkdir -p $D/sys/devices/pci0000:00/0000:00:00.0 && "
              "ln -s /sys/devices/pci0000:00/0000:00:00.0 $D/sys/bus/pci/devices/0000:00:03.0");
    pt_run(&t, probe_pci);
    assert_no_fact(&t.fs, "neuron.device.count");
    assert_warning(&t.fs, "pci: /sys/bus/pci/devices/0000:00:03.0/");
    pt_close(&t);

    /* an absolute link for sys/bus/pci itself: read inside the root (its
     * device links, ../../../devices/..., then lead to /devices) */
    pt_tmp(&t, NULL);
    pt_sh(&t, "mkdir -p $D/fake $D/sys/bus && cp -a " FIXTURE_ROOTS "/inf2/sys/bus/pci $D/fake/ && "
              "cp -a " FIXTURE_ROOTS "/inf2/sys/devices $D/ && "
              "ln -s /fake/pci $D/sys/bus/pci");
    pt_run(&t, probe_pci);
    assert_fact(&t.fs, "neuron.device.count", "1");
    assert_fact(&t.fs, "neuron.device.kind", "inferentia2");
    assert_int_equal(t.fs.nwarnings, 0);
    pt_close(&t);
}

static void value_bounds(void **state)
{
    struct pt t;
    /* an attribute past PCI_VALUE_MAX (255 bytes; libpci itself refuses 256) */
    pt_tmp(&t, "inf2");
    pt_sh(&t, "f=$D/sys/devices/pci0000:00/0000:00:03.0/vendor && printf '0x1d0f' > $f && "
              "head -c 250 /dev/zero | tr '\\0' ' ' >> $f");
    pt_run(&t, probe_pci);
    assert_no_fact(&t.fs, "neuron.device.count");
    assert_warning(&t.fs, "0000:00:03.0/vendor: larger than the read limit");
    pt_close(&t);
    /* a resource file past PCI_RESOURCE_FILE_MAX (64 KiB) */
    pt_tmp(&t, "inf2");
    pt_sh(&t, "f=$D/sys/devices/pci0000:00/0000:00:03.0/resource && "
              "i=0; while [ $i -lt 1200 ]; do echo '0x0000000000000000 0x0000000000000000 0x0000000000000000'; "
              "i=$((i + 1)); done > $f");
    pt_run(&t, probe_pci);
    assert_no_fact(&t.fs, "neuron.device.count");
    assert_warning(&t.fs, "0000:00:03.0/resource: larger than the read limit");
    pt_close(&t);
    /* 33 distinct GPU ids: 32 listed (PCI_IDS_MAX), the rest counted in a warning */
    pt_tmp(&t, NULL);
    pt_sh(&t, "mkdir -p $D/sys/bus/pci/devices");
    for (int i = 0; i < 33; i++) {
        char bdf[16], id[16];
        snprintf(bdf, sizeof bdf, "0000:01:%02x.0", i);
        snprintf(id, sizeof id, "0x%04x", 0x2300 + i);
        add_device(&t, bdf, "0x10de", id, "0x030200");
    }
    pt_run(&t, probe_pci);
    assert_fact(&t.fs, "gpu.device.count", "33");
    assert_warning(&t.fs, "more than 32 distinct device ids of one vendor; 1 not listed");
    const char *ids = factset_get(&t.fs, "gpu.device.pci_id");
    assert_non_null(ids);
    assert_int_equal(strlen(ids), 32 * 9 + 31);
    pt_close(&t);
}

static void device_bound(void **state)
{
    struct pt t;
    pt_tmp(&t, NULL);
    /* 4097 names: one past PCI_DEVICES_MAX, refused before any is read */
    pt_sh(&t, "mkdir -p $D/sys/bus/pci/devices && cd $D/sys/bus/pci/devices && "
              "i=0; while [ $i -lt 4097 ]; do "
              ": > $(printf '0000:%02x:%02x.%d' $((i / 256)) $((i / 8 % 32)) $((i % 8))); "
              "i=$((i + 1)); done");
    pt_run(&t, probe_pci);
    assert_no_fact(&t.fs, "neuron.device.count");
    assert_warning(&t.fs, "more than 4096 devices");
    pt_close(&t);
}

static const struct root_ops *real_ops;
static struct root_ops fake_ops;

/* Answer a well-formed vendor file for 0000:00:03.0, which is a folder on
 * disk: the pre-check passes, libpci then fails to read it. */
static int fake_vendor(struct root *r, const char *path, size_t max, char **buf, size_t *len)
{
    if (strstr(path, "0000:00:03.0/vendor")) {
        *buf = strdup("0x1d0f\n");
        *len = 7;
        return 0;
    }
    return real_ops->read_file(r, path, max, buf, len);
}

static void libpci_error_is_a_warning(void **state)
{
    /* libpci's default error handler exits; ours longjmps back.  libpci
     * leaks its open folder on that path, so the probe runs in a child that
     * leaves with _exit (no leak report for the deliberate leak). */
    struct pt t;
    pt_tmp(&t, "inf2");
    pt_sh(&t, "rm $D/sys/devices/pci0000:00/0000:00:03.0/vendor && "
              "mkdir $D/sys/devices/pci0000:00/0000:00:03.0/vendor");
    real_ops = t.root->ops;
    fake_ops = *real_ops;
    fake_ops.read_file = fake_vendor;
    t.root->ops = &fake_ops;
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct sp_error e = { 0 };
        int ok = probe_pci(&t.ctx, &e) == 0 && factset_get(&t.fs, "neuron.device.count") == NULL;
        int warned = 0;
        for (size_t i = 0; i < t.fs.nwarnings; i++)
            warned |= strstr(t.fs.warnings[i], "pci: /sys/bus/pci: libpci: ") != NULL &&
                      strstr(t.fs.warnings[i], "PCI not read") != NULL;
        if (!(ok && warned))
            for (size_t i = 0; i < t.fs.nwarnings; i++)
                fprintf(stderr, "# warning: %s\n", t.fs.warnings[i]);
        _exit(ok && warned ? 0 : 1);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    t.root->ops = real_ops;
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    pt_close(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fixtures),
        cmocka_unit_test(no_bus),
        cmocka_unit_test(several_kinds),
        cmocka_unit_test(malformed_trees),
        cmocka_unit_test(links_leaving_the_tree),
        cmocka_unit_test(value_bounds),
        cmocka_unit_test(device_bound),
        cmocka_unit_test(libpci_error_is_a_warning),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
