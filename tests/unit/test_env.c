/* tests/unit/test_env.c: the environment allow-list and the secret rule of
 * DESIGN.md ("any name containing KEY, TOKEN, SECRET, PASSWORD or
 * CREDENTIAL is never recorded", any case, allow-listed or not). */
#include "sysprobe_fixture.h"

static void allow_list(void **state)
{
    char *env[] = {
        "PJRT_DEVICE=NEURON", "NEURON_RT_VISIBLE_CORES=0-3", "NEURON_CC_FLAGS=--model-type=transformer",
        "TORCH_NEURONX_MLIR_ATEN_OPS=1", "XLA_USE_BF16=1", "TORCH_DEVICE_BACKEND_AUTOLOAD=0",
        "VIRTUAL_ENV=/opt/aws_neuronx_venv_pytorch_2_9", "CONDA_PREFIX=/opt/conda",
        "CUDA_VISIBLE_DEVICES=0,1",
        /* not allow-listed */
        "HOME=/root", "PATH=/usr/bin", "NEURON_=x", "XLA=1", "PJRT_DEVICE_X=1", "neuron_rt=1",
        /* secrets, allow-listed by prefix or not */
        "NEURON_API_KEY=sk-123", "NEURON_Token=abc", "XLA_SECRET_SAUCE=1", "NEURON_DB_PASSWORD=pw",
        "TORCH_NEURONX_CREDENTIALS=c", "NEURON_KEYRING=k", "AWS_SECRET_ACCESS_KEY=s",
        /* empty, duplicate (first wins, as getenv), no '=' */
        "NEURON_EMPTY=", "XLA_FLAGS=first", "XLA_FLAGS=second", "NOEQUALS",
        NULL,
    };
    struct pt t;
    pt_tmp(&t, NULL);
    t.root->live = 1;
    t.ctx.environ = env;
    pt_run(&t, probe_env);
    assert_fact(&t.fs, "env.PJRT_DEVICE", "NEURON");
    assert_fact(&t.fs, "env.NEURON_RT_VISIBLE_CORES", "0-3");
    assert_fact(&t.fs, "env.NEURON_CC_FLAGS", "--model-type=transformer");
    assert_fact(&t.fs, "env.TORCH_NEURONX_MLIR_ATEN_OPS", "1");
    assert_fact(&t.fs, "env.XLA_USE_BF16", "1");
    assert_fact(&t.fs, "env.TORCH_DEVICE_BACKEND_AUTOLOAD", "0");
    assert_fact(&t.fs, "env.VIRTUAL_ENV", "/opt/aws_neuronx_venv_pytorch_2_9");
    assert_fact(&t.fs, "env.CONDA_PREFIX", "/opt/conda");
    assert_fact(&t.fs, "env.CUDA_VISIBLE_DEVICES", "0,1");
    assert_fact(&t.fs, "env.XLA_FLAGS", "first");
    assert_int_equal(t.fs.count, 10);
    assert_string_equal(factset_find(&t.fs, "env.PJRT_DEVICE")->evidence, "environment");
    assert_warning(&t.fs, "env.NEURON_EMPTY: environment: set but empty");
    /* no secret appears anywhere, not even in a warning */
    for (size_t i = 0; i < t.fs.nwarnings; i++) {
        assert_null(strstr(t.fs.warnings[i], "sk-123"));
        assert_null(strstr(t.fs.warnings[i], "API_KEY"));
    }
    t.root->live = 0;
    pt_close(&t);
}

static void not_live(void **state)
{
    char *env[] = { "PJRT_DEVICE=NEURON", NULL };
    struct pt t;
    pt_fixture(&t, "trn2-native");
    t.ctx.environ = env;
    pt_run(&t, probe_env);
    assert_int_equal(t.fs.count + t.fs.nwarnings, 0);
    pt_close(&t);
}

static void bounds(void **state)
{
    /* a value over the fact bound is a warning; more than 10000 variables stop */
    static char big[SP_FACT_VALUE_MAX + 32];
    snprintf(big, sizeof big, "XLA_BIG=");
    memset(big + 8, 'v', SP_FACT_VALUE_MAX + 1);
    big[8 + SP_FACT_VALUE_MAX + 1] = '\0';
    char **env = calloc(10003, sizeof *env);
    env[0] = big;
    for (int i = 1; i < 10002; i++)
        env[i] = "OTHER=1";
    env[10001] = "XLA_LATE=1";
    struct pt t;
    pt_tmp(&t, NULL);
    t.root->live = 1;
    t.ctx.environ = env;
    pt_run(&t, probe_env);
    assert_no_fact(&t.fs, "env.XLA_BIG");
    assert_warning(&t.fs, "env.XLA_BIG: environment: value too long");
    assert_no_fact(&t.fs, "env.XLA_LATE");
    assert_warning(&t.fs, "more than 10000 variables");
    t.root->live = 0;
    pt_close(&t);
    free(env);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(allow_list),
        cmocka_unit_test(not_live),
        cmocka_unit_test(bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
