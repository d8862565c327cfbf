/* tests/unit/test_host_overlay.c: an image's facts with a host's kernel-side
 * facts laid over them (checks/host_overlay.h): which side each key comes
 * from, as the header lists them. */
#include "tests/unit/testlib.h"

#include "checks/host_overlay.h"

static void set(struct factset *fs, const char *k, const char *v)
{
    assert_int_equal(factset_set(fs, k, v, NULL), 0);
}

static void host_keys(void **state)
{
    static const char *const host[] = {
        "host.instance_type", "host.kernel", "host.arch", "host.hostname", "neuron.driver.version",
        "neuron.device.count", "neuron.core.count", "neuron.lnc", "efa.device.count",
        "gpu.device.count", "deb.aws-neuronx-dkms", "rpm.aws-neuronx-dkms",
    };
    static const char *const image[] = {
        "host.os.id", "host.os.version_id", "neuron.runtime.version", "deb.aws-neuronx-runtime-lib",
        "pip.torch", "python.version", "torch.backend", "image.config_digest", "neuron.lnc2",
        "deb.aws-neuronx-dkms-extra", "env.NEURON_RT_VISIBLE_CORES", "container.id",
    };
    for (size_t i = 0; i < sizeof host / sizeof *host; i++)
        if (!sp_host_key(host[i]))
            fail_msg("%s should be the host's", host[i]);
    for (size_t i = 0; i < sizeof image / sizeof *image; i++)
        if (sp_host_key(image[i]))
            fail_msg("%s should be the image's", image[i]);
}

static void overlay(void **state)
{
    struct factset img, host, out;
    struct sp_error e;
    factset_init(&img);
    factset_init(&host);
    set(&img, "host.os.id", "ubuntu");
    set(&img, "deb.aws-neuronx-runtime-lib", "2.32.31.0-1");
    set(&img, "deb.aws-neuronx-dkms", "2.30.2.0-1");      /* carried, never loaded */
    set(&img, "neuron.lnc", "2");                        /* the host has none: dropped */
    set(&img, "pip.torch", "2.9.0");
    factset_warn(&img, "python: no interpreter");
    set(&host, "host.os.id", "amzn");
    set(&host, "host.instance_type", "trn1.32xlarge");
    set(&host, "deb.aws-neuronx-runtime-lib", "2.30.51.0-1");
    set(&host, "deb.aws-neuronx-dkms", "2.26.10.0-1");
    set(&host, "neuron.driver.version", "2.26.10.0");
    set(&host, "pip.torch", "2.1.2");
    factset_warn(&host, "dmi: unreadable");
    assert_int_equal(sp_host_overlay(&img, &host, &out, &e), 0);
    assert_fact(&out, "host.os.id", "ubuntu");
    assert_fact(&out, "deb.aws-neuronx-runtime-lib", "2.32.31.0-1");
    assert_fact(&out, "pip.torch", "2.9.0");
    assert_fact(&out, "deb.aws-neuronx-dkms", "2.26.10.0-1");
    assert_fact(&out, "neuron.driver.version", "2.26.10.0");
    assert_fact(&out, "host.instance_type", "trn1.32xlarge");
    assert_no_fact(&out, "neuron.lnc");
    assert_int_equal(out.count, 6);
    assert_warning(&out, "python: no interpreter");
    assert_warning(&out, "host: dmi: unreadable");
    factset_free(&out);
    factset_free(&img);
    factset_free(&host);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(host_keys),
        cmocka_unit_test(overlay),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
