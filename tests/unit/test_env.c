/* tests/unit/test_env.c: the environment allow-list and the secret rule of
 * stackprint-manifest(5) ("any name containing KEY, TOKEN, SECRET, PASSWORD or
 * CREDENTIAL is never recorded", any case, allow-listed or not), extended
 * with PASSWD, PASS, AUTH, PRIVATE, COOKIE, SESSION and CERT: an
 * allow-listed secret-looking name gives a warning naming it, and its value
 * appears nowhere (no fact, no evidence, no warning). */
#include "tests/unit/sysprobe_fixture.h"

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
        "NEURON_RT_PASSWD=pw-0001", "NEURON_AUTH=auth-0002", "XLA_PRIVATE_X=priv-0003",
        "NEURON_Cookie=cookie-0004", "TORCH_NEURONX_SESSION_ID=sess-0005",
        "NEURON_CERT_PATH=cert-0006", "NEURON_BYPASS=pass-0007", "NEURON_oauth_url=auth-0008",
        "AWS_SESSION_TOKEN=sess-0009",
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
    /* each allow-listed secret-looking name: a warning naming it */
    static const char *const secret_names[] = {
        "NEURON_API_KEY", "NEURON_Token", "XLA_SECRET_SAUCE", "NEURON_DB_PASSWORD",
        "TORCH_NEURONX_CREDENTIALS", "NEURON_KEYRING", "NEURON_RT_PASSWD", "NEURON_AUTH",
        "XLA_PRIVATE_X", "NEURON_Cookie", "TORCH_NEURONX_SESSION_ID", "NEURON_CERT_PATH",
        "NEURON_BYPASS", "NEURON_oauth_url",
    };
    for (size_t i = 0; i < sizeof secret_names / sizeof *secret_names; i++) {
        char w[128];
        snprintf(w, sizeof w, "env.%s: not recorded (the name looks like a secret)",
                 secret_names[i]);
        assert_warning(&t.fs, w);
    }
    /* one warning per secret name and the empty one; a name off the
     * allow-list is not mentioned at all */
    assert_int_equal(t.fs.nwarnings, sizeof secret_names / sizeof *secret_names + 1);
    /* no secret value appears anywhere: facts, evidence, warnings */
    static const char *const values[] = {
        "sk-123", "abc", "pw", "pw-0001", "auth-0002", "priv-0003", "cookie-0004",
        "sess-0005", "cert-0006", "pass-0007", "auth-0008", "sess-0009",
    };
    for (size_t v = 0; v < sizeof values / sizeof *values; v++) {
        for (size_t i = 0; i < t.fs.nwarnings; i++)
            if (strstr(t.fs.warnings[i], values[v]) && strlen(values[v]) > 3)
                fail_msg("warning shows a secret value: %s", t.fs.warnings[i]);
        for (size_t i = 0; i < t.fs.count; i++) {
            assert_string_not_equal(t.fs.facts[i].value, values[v]);
            if (strlen(values[v]) > 3)
                assert_null(strstr(t.fs.facts[i].value, values[v]));
            if (t.fs.facts[i].evidence)
                assert_null(strstr(t.fs.facts[i].evidence, values[v]));
        }
    }
    for (size_t i = 0; i < t.fs.nwarnings; i++)
        assert_null(strstr(t.fs.warnings[i], "AWS_"));
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
