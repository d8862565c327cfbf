/* tests/unit/test_fact_keys.c: the documented fact key table's look-ups
 * (manifest/fact_keys.h).  Edit distances are the textbook examples:
 * kitten/sitting 3 and flaw/lawn 2 (Levenshtein's), CA/ABC 3 for the
 * optimal string alignment distance (2 for unrestricted Damerau, which may
 * edit a transposed pair again). */
#include "tests/unit/testlib.h"

#include "manifest/fact_keys.h"

static void edit_distance(void **state)
{
    (void)state;
    assert_int_equal(sp_edit_distance("kitten", "sitting", 10), 3);
    assert_int_equal(sp_edit_distance("flaw", "lawn", 10), 2);
    assert_int_equal(sp_edit_distance("CA", "ABC", 10), 3);
    assert_int_equal(sp_edit_distance("ab", "ba", 10), 1);
    assert_int_equal(sp_edit_distance("presnet", "present", 10), 1);
    assert_int_equal(sp_edit_distance("", "abc", 10), 3);
    assert_int_equal(sp_edit_distance("same", "same", 0), 0);
    /* over the limit: limit + 1 */
    assert_int_equal(sp_edit_distance("kitten", "sitting", 2), 3);
    assert_int_equal(sp_edit_distance("a", "abcdef", 1), 2);
}

static void documented(void **state)
{
    (void)state;
    static const char *const yes[] = {
        "host.os.id", "pip.torch", "pip.anything-at-all", "deb.python3.11",
        "python.env.opt_venv.pip.torch", "python.env.system.version",
        "image.layer.000.diff_id", "neuron.sdk.release_of.pip.torch-neuronx",
        "env.NEURON_RT_VISIBLE_CORES", "neuron.sdk.release",
    };
    static const char *const no[] = {
        "host.os", "host.os.id.x", "pip.", "pip", "pyhton.version",
        "python.env.a.b.pip.torch", "python.env..pip.torch", "image.layer.000",
        "neuron.sdk.relase", "deb-aws-neuronx-dkms", "",
    };
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
        if (!sp_fact_key_documented(yes[i]))
            fail_msg("%s should be documented", yes[i]);
    for (size_t i = 0; i < sizeof no / sizeof *no; i++)
        if (sp_fact_key_documented(no[i]))
            fail_msg("%s should not be documented", no[i]);
}

static void nearest(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        { "pyhton.version", "python.version" },
        { "torch.backnd", "torch.backend" },
        { "deb-aws-neuronx-dkms", "deb.aws-neuronx-dkms" },
        { "debb.aws-neuronx-dkms", "deb.aws-neuronx-dkms" },
        { "python.env.foo.pth", "python.env.foo.path" },
        { "neuron.sdk.instance", "neuron.sdk.instances" },
        { "image.layer.001.diffid", "image.layer.001.diff_id" },
        { "runtime.torch.versoin", "runtime.torch.version" },
    };
    char out[300];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        assert_string_equal(sp_fact_key_nearest(cases[i][0], out, sizeof out), cases[i][1]);
    /* a small buffer is cut, never overrun */
    char small[6];
    assert_string_equal(sp_fact_key_nearest("pyhton.version", small, sizeof small), "pytho");
    assert_null(sp_fact_key_nearest("x", small, 0));
}

static void near_name(void **state)
{
    (void)state;
    char out[300];
    assert_string_equal(sp_fact_key_near_name("pip.trch", out, sizeof out), "pip.torch");
    assert_string_equal(sp_fact_key_near_name("python.env.s.pip.trch", out, sizeof out),
                        "python.env.s.pip.torch");
    assert_string_equal(sp_fact_key_near_name("rpm.aws-neuronx-dkm", out, sizeof out),
                        "rpm.aws-neuronx-dkms");
    assert_string_equal(sp_fact_key_near_name("env.PJRT_DEVIC", out, sizeof out), "env.PJRT_DEVICE");
    /* well-known names themselves, and names far from all of them */
    assert_null(sp_fact_key_near_name("pip.torch", out, sizeof out));
    assert_null(sp_fact_key_near_name("pip.torch-neuron", out, sizeof out));
    assert_null(sp_fact_key_near_name("python.env.s.pip.torch-xla", out, sizeof out));
    assert_null(sp_fact_key_near_name("pip.requests", out, sizeof out));
    assert_null(sp_fact_key_near_name("deb.aws-neuron-tools", out, sizeof out));
    /* no pattern, or not one of a family */
    assert_null(sp_fact_key_near_name("host.arch", out, sizeof out));
    assert_null(sp_fact_key_near_name("pyhton.version", out, sizeof out));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(edit_distance),
        cmocka_unit_test(documented),
        cmocka_unit_test(nearest),
        cmocka_unit_test(near_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
