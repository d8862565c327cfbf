/* tests/unit/test_gpu.c: NVIDIA driver and CUDA toolkit versions.  The
 * toolkit sources are tried in order: version.json (jansson), version.txt,
 * include/cuda.h's CUDA_VERSION (what this machine's wheel-assembled
 * /usr/local/cuda has: 13000 -> 13.0, checked against the live host when
 * it has one). */
#include "tests/unit/sysprobe_fixture.h"

static void fixture(void **state)
{
    struct pt t;
    pt_fixture(&t, "gpu-baseline");
    pt_run(&t, probe_gpu);
    assert_fact(&t.fs, "gpu.nvidia.driver", "535.183.01");
    assert_fact(&t.fs, "cuda.toolkit.version", "12.1.1");
    assert_string_equal(factset_find(&t.fs, "cuda.toolkit.version")->evidence,
                        "/usr/local/cuda/version.json#cuda.version");
    assert_int_equal(t.fs.nwarnings, 0);
    pt_close(&t);
    pt_fixture(&t, "trn2-native");
    pt_run(&t, probe_gpu);
    assert_int_equal(t.fs.count + t.fs.nwarnings, 0);
    pt_close(&t);
}

static void fallbacks(void **state)
{
    struct pt t;
    pt_tmp(&t, NULL);
    pt_put(&t, "usr/local/cuda/version.txt", "CUDA Version 11.0.228\n");
    pt_run(&t, probe_gpu);
    assert_fact(&t.fs, "cuda.toolkit.version", "11.0.228");
    pt_close(&t);

    pt_tmp(&t, NULL);
    pt_put(&t, "usr/local/cuda/version.json", "{\"cuda\": {\"version\": \"12.4.0\", \"version\": \"9\"}}");
    pt_put(&t, "usr/local/cuda/include/cuda.h",
           "/* header */\n#define CUDA_VERSION_X 1\n#define CUDA_VERSION 12040\n");
    pt_run(&t, probe_gpu);
    /* duplicate keys are refused; the header stands in */
    assert_warning(&t.fs, "version.json:1: duplicate object key");
    assert_fact(&t.fs, "cuda.toolkit.version", "12.4");
    assert_string_equal(factset_find(&t.fs, "cuda.toolkit.version")->evidence,
                        "/usr/local/cuda/include/cuda.h (CUDA_VERSION 12040)");
    pt_close(&t);

    /* CUDA_VERSION past the scanned head of cuda.h: a warning, not a guess */
    pt_tmp(&t, NULL);
    pt_sh(&t, "mkdir -p $D/usr/local/cuda/include && "
              "head -c 300000 /dev/zero | tr '\\0' '/' > $D/usr/local/cuda/include/cuda.h && "
              "printf '\\n#define CUDA_VERSION 12040\\n' >> $D/usr/local/cuda/include/cuda.h");
    pt_run(&t, probe_gpu);
    assert_no_fact(&t.fs, "cuda.toolkit.version");
    assert_warning(&t.fs, "no CUDA_VERSION in the first 262144 bytes");
    pt_close(&t);

    /* version.json past CUDA_JSON_MAX (256 KiB): a warning, then the next source */
    pt_tmp(&t, NULL);
    pt_sh(&t, "mkdir -p $D/usr/local/cuda && { printf '{\"cuda\": {\"version\": \"12.1.1\"}, \"pad\": \"'; "
              "head -c 270000 /dev/zero | tr '\\0' x; printf '\"}'; } > $D/usr/local/cuda/version.json && "
              "echo 'CUDA Version 12.1.105' > $D/usr/local/cuda/version.txt");
    pt_run(&t, probe_gpu);
    assert_warning(&t.fs, "/usr/local/cuda/version.json: larger than the read limit");
    assert_fact(&t.fs, "cuda.toolkit.version", "12.1.105");
    pt_close(&t);

    /* /usr/local/cuda as an absolute link to a versioned folder, inside the root */
    pt_tmp(&t, NULL);
    pt_put(&t, "usr/local/cuda-12.8/version.json", "{\"cuda\": {\"name\": \"CUDA SDK\", \"version\": \"12.8.1\"}}");
    pt_sh(&t, "ln -s /usr/local/cuda-12.8 $D/usr/local/cuda");
    pt_putn(&t, "sys/module/nvidia/version", "570.\xff\n", 6);
    pt_run(&t, probe_gpu);
    assert_fact(&t.fs, "cuda.toolkit.version", "12.8.1");
    assert_no_fact(&t.fs, "gpu.nvidia.driver");
    assert_warning(&t.fs, "/sys/module/nvidia/version: malformed version");
    pt_close(&t);
}

static void this_machine(void **state)
{
    /* the live host's header, read by a different route: grep's answer */
    FILE *p = popen("sed -n 's/^#define CUDA_VERSION \\([0-9][0-9]*\\)$/\\1/p' "
                    "/usr/local/cuda/include/cuda.h 2>/dev/null | head -n 1", "r");
    char line[32] = "";
    if (p == NULL || fgets(line, sizeof line, p) == NULL || access("/usr/local/cuda/version.json", F_OK) == 0 ||
        access("/usr/local/cuda/version.txt", F_OK) == 0) {
        if (p)
            pclose(p);
        skip();
    }
    pclose(p);
    long v = strtol(line, NULL, 10);
    char want[32];
    snprintf(want, sizeof want, "%ld.%ld", v / 1000, v % 1000 / 10);
    struct pt t;
    t.dir[0] = '\0';
    pt_open(&t, "/");
    pt_run(&t, probe_gpu);
    assert_fact(&t.fs, "cuda.toolkit.version", want);
    pt_close(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fixture),
        cmocka_unit_test(fallbacks),
        cmocka_unit_test(this_machine),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
