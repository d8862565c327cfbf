/* tests/unit/test_probes.c: the probe table (fingerprint/probes/probes.c):
 * its run order satisfies every row's AFTER, and the paths the rows declare
 * (READS) keep in an image root at least what the image backend kept when
 * it held its own hand-kept list: one path for each pattern of that list
 * must still be kept. */
#include "tests/unit/testlib.h"

#include <string.h>

#include "fingerprint/probes/probe.h"
#include "fingerprint/root/image.h"

/* the row named NAME, or -1 */
static long row(const char *name)
{
    for (long i = 0; sp_probes[i].name; i++)
        if (strcmp(sp_probes[i].name, name) == 0)
            return i;
    return -1;
}

static void order(void **state)
{
    long n = 0;
    while (sp_probes[n].name)
        n++;
    assert_true(n > 0);
    for (long i = 0; i < n; i++) {
        const struct probe *p = &sp_probes[i];
        assert_non_null(p->run);
        assert_int_equal(row(p->name), i);               /* names are unique */
        for (const char *const *a = p->after; a && *a; a++) {
            if (strcmp(*a, "*") == 0) {
                /* after every other probe: the last row, and "*" alone */
                assert_int_equal(i, n - 1);
                assert_true(a == p->after && a[1] == NULL);
                continue;
            }
            long j = row(*a);
            if (j < 0 || j >= i)
                fail_msg("probe %s reads %s's facts but runs before it (or %s is "
                         "not a probe)", p->name, *a, *a);
        }
    }
    /* the dependencies the probes' own files state */
    assert_true(row("dmi") < row("pci") && row("pci") < row("neuron-driver"));
    assert_true(row("python") < row("torch") && row("env") < row("torch"));
    assert_true(row("dmi") < row("imds") && row("imds") < row("neuron-cache"));
    assert_int_equal(row("runtime"), n - 1);
}

static void reads(void **state)
{
    const char *const *u = probe_read_patterns();
    size_t nu = 0;
    while (u[nu])
        nu++;
    assert_true(nu > 0 && nu < SP_PROBE_READS_MAX);
    assert_ptr_equal(probe_read_patterns(), u);          /* built once */
    for (const struct probe *p = sp_probes; p->name; p++)
        for (const char *const *r = p->reads; r && *r; r++) {
            size_t i = 0;
            while (i < nu && strcmp(u[i], *r) != 0)
                i++;
            if (i == nu)
                fail_msg("%s: pattern %s is not in the union", p->name, *r);
            /* what image_keep() can match */
            size_t comps = 1;
            for (const char *c = *r; *c; c++)
                comps += *c == '/';
            if ((*r)[0] == '/')
                assert_true(strlen(*r) <= SP_IMAGE_KEEP_PATTERN_MAX && (*r)[1] != '/' &&
                            (*r)[1] != '\0');
            else if (comps > SP_IMAGE_KEEP_TAIL_MAX)
                fail_msg("%s: pattern %s has more than %d components", p->name, *r,
                         SP_IMAGE_KEEP_TAIL_MAX);
        }
    for (size_t i = 0; i < nu; i++)
        for (size_t j = i + 1; j < nu; j++)
            assert_true(strcmp(u[i], u[j]) != 0);
}

/* One path per pattern of the list fingerprint/root/image_keep.c kept by
 * hand before the probes declared what they read: each must still keep its
 * content, so the kept set did not shrink. */
static const char *const kept_before[] = {
    ".dockerenv", "run/.containerenv", "etc/os-release", "usr/lib/os-release",
    "etc/redhat-release", "etc/debian_version", "etc/hostname", "etc/environment",
    "etc/hosts", "etc/resolv.conf", "var/lib/dpkg/status", "var/lib/dpkg/status.d/base",
    "var/lib/rpm/rpmdb.sqlite", "usr/lib/sysimage/rpm/Packages", "opt/aws/neuron/VERSION",
    "opt/aws/neuron/share/a.txt", "opt/aws/neuron/share/b.json", "opt/aws/neuron/bin/version.info",
    "usr/local/cuda-12.4/version.json", "usr/local/cuda/version.txt",
    "usr/local/cuda-12/include/cuda.h", "opt/amazon/efa_installed_packages",
    "opt/amazon/efa/share/version", "var/lib/dkms/aws-neuronx/2.19/source/dkms.conf",
    "usr/src/aws-neuronx-2.19/dkms.conf", "proc/driver/nvidia/version",
    "a/b/y-1.dist-info/METADATA", "a/b/y-1.dist-info/entry_points.txt",
    "a/b/y-1.dist-info/INSTALLER", "a/b/y-1.dist-info/direct_url.json",
    "a/b/y-1.dist-info/top_level.txt", "a/b/y-1.dist-info/WHEEL", "a/b/y-1.dist-info/REQUESTED",
    "a/b/y-1.egg-info", "a/b/y.egg-info/PKG-INFO", "a/b/y.egg-info/entry_points.txt",
    "a/b/y.egg-info/requires.txt", "a/b/y.egg-info/top_level.txt", "opt/v/pyvenv.cfg",
    "opt/conda/conda-meta/numpy-1.26.json", "opt/conda/conda-meta/history", "usr/bin/python3",
    "opt/pypy/bin/pypy3", "usr/sbin/python3.9", "usr/lib/libpython3.11.so.1.0",
    "usr/include/python3.11/patchlevel.h",
    "usr/lib/python3.11/_sysconfigdata__linux_x86_64-linux-gnu.py", "usr/lib/python3.11/site.py",
    "root/.pyenv/version", "srv/app/.python-version", "a/torch/version.py", "a/torch/_version.py",
    "a/site-packages/torch_xla/x.py", "a/site-packages/torch_xla/x.json",
    "a/site-packages/torch_xla/x.txt", "a/dist-packages/libneuronxla/x.py",
    "a/dist-packages/libneuronxla/x.json", "a/dist-packages/libneuronxla/x.txt",
    "a/site-packages/jax/version.py", "a/site-packages/nki/x.py",
    "a/site-packages/distutils-precedence.pth",
    "var/tmp/neuron-compile-cache/neuronxcc-2.1/MODULE_123/compile_flags.json",
};

static void kept_set(void **state)
{
    struct image_limits l;
    image_limits_default(&l);
    l.keep = probe_read_patterns();
    for (size_t i = 0; i < sizeof kept_before / sizeof *kept_before; i++)
        if (image_keep(kept_before[i], &l) != l.keep_file_max)
            fail_msg("%s is no longer kept", kept_before[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(order),
        cmocka_unit_test(reads),
        cmocka_unit_test(kept_set),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
