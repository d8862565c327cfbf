/* tests/unit/test_torch.c: the torch probe (torch.backend, torch.build.*)
 * on the fixture roots, each built to show one backend path with the
 * markers of doc/DOMAIN.md section 4, and on small roots built here: markers one
 * at a time, neither, both, torch/version.py shapes as
 * tools/generate_torch_version.py writes them (old and typed), a CUDA torch
 * on a Neuron host. */
#include "tests/unit/testlib.h"

#include "tests/unit/pyfixture.h"


static void fixtures(void **state)
{
    struct factset fs;
    fx_fixture("trn1-xla", NULL, &fs);
    assert_fact(&fs, "torch.backend", "xla");
    assert_non_null(strstr(fx_evidence(&fs, "torch.backend"),
                           "xla markers: Requires-Dist torch-xla, Requires-Dist libneuronxla, "
                           "torch_neuronx/pyhlo/, torch_neuronx/xla.py, torch_neuronx/xla_impl/, "
                           "torch-xla 2.8.0 installed"));
    assert_non_null(strstr(fx_evidence(&fs, "torch.backend"), "native markers: none"));
    assert_fact(&fs, "torch.build.cuda", "none");   /* cuda: Optional[str] = None */
    assert_fact(&fs, "torch.build.git", "a1cb3cc05d46d198467bebbb6e8fba50a325d4e7");
    assert_string_equal(fx_evidence(&fs, "torch.build.cuda"),
                        "/usr/local/lib/python3.10/dist-packages/torch/version.py");
    factset_free(&fs);

    fx_fixture("trn2-native", NULL, &fs);
    assert_fact(&fs, "torch.backend", "native");
    assert_non_null(strstr(fx_evidence(&fs, "torch.backend"),
                           "native markers: entry_points.txt [torch.backends] torch_neuronx, "
                           "entry_points.txt [torch_dynamo_backends] neuron, "
                           "torch_neuronx/_C*.so, torch_neuronx/_build_config.py, "
                           "torch_neuronx/neuron_dynamo_backend/; xla markers: none"));
    factset_free(&fs);

    fx_fixture("trn3", "/opt/aws_neuronx_venv_pytorch_2_12/bin/python3", &fs);
    assert_fact(&fs, "torch.backend", "native");
    assert_fact(&fs, "torch.build.git", "1e0ef9a7f3c1d8c6b93c1f0f4d6b7a2c5e8d9f01");
    factset_free(&fs);
    /* the system interpreter of the same host has no Neuron torch */
    fx_fixture("trn3", NULL, &fs);
    assert_fact(&fs, "torch.backend", "none");
    assert_no_fact(&fs, "torch.build.cuda");
    factset_free(&fs);

    fx_fixture("inf2", NULL, &fs);
    assert_fact(&fs, "torch.backend", "xla");
    factset_free(&fs);

    fx_fixture("inf1-legacy", NULL, &fs);
    assert_fact(&fs, "torch.backend", "neuron-inf1");
    assert_fact(&fs, "torch.build.cuda", "11.7");   /* old style: cuda = '11.7' */
    assert_fact(&fs, "torch.build.git", "49444c3e546bf240bed24a101e747422d1f8a0ee");
    factset_free(&fs);

    fx_fixture("gpu-baseline", NULL, &fs);
    assert_fact(&fs, "torch.backend", "none");
    assert_fact(&fs, "torch.build.cuda", "12.1");
    factset_free(&fs);

    fx_fixture("ambiguous", NULL, &fs);
    assert_fact(&fs, "torch.backend", "ambiguous");
    assert_warning(&fs, "torch-neuronx 2.9.0.2.15.32035 has both native and XLA markers");
    assert_fact(&fs, "python.version", "3.11.13");
    factset_free(&fs);

    fx_fixture("container-bare", NULL, &fs);
    assert_fact(&fs, "torch.backend", "none");
    assert_no_fact(&fs, "torch.build.cuda");
    assert_no_fact(&fs, "torch.build.git");
    factset_free(&fs);
}

/* A root with torch-neuronx and nothing else: neither kind of marker. */
static char *neuronx_root(const char *requires, const char *entry_points)
{
    char *t = fx_tmpdir("nx");
    fx_interp(t, "/usr/local", 11, "3.11.9", 0);
    const char *sp = "/usr/local/lib/python3.11/site-packages";
    char p[512], m[1024];
    snprintf(p, sizeof p, "%s/torch_neuronx-2.9.0.dist-info/METADATA", sp);
    snprintf(m, sizeof m, "Metadata-Version: 2.1\nName: torch-neuronx\nVersion: 2.9.0\n%s\n\n"
             "Requires-Dist: torch-xla\n", requires);   /* the last is in the body */
    fx_write(t, p, m, -1);
    if (entry_points) {
        snprintf(p, sizeof p, "%s/torch_neuronx-2.9.0.dist-info/entry_points.txt", sp);
        fx_write(t, p, entry_points, -1);
    }
    snprintf(p, sizeof p, "%s/torch_neuronx/__init__.py", sp);
    fx_write(t, p, "", 0);
    return t;
}

static void markers(void **state)
{
    struct factset fs;
    /* neither: ambiguous, with a warning; an extra's torch-xla is not a marker */
    char *t = neuronx_root("Requires-Dist: torch-xla ; extra == \"xla\"\nRequires-Dist: numpy", NULL);
    factset_init(&fs);
    fx_probe(t, NULL, NULL, &fs);
    assert_fact(&fs, "torch.backend", "ambiguous");
    assert_warning(&fs, "has neither native nor XLA markers");
    assert_non_null(strstr(fx_evidence(&fs, "torch.backend"),
                           "native markers: none; xla markers: none"));
    factset_free(&fs);
    /* PJRT_DEVICE=NEURON on a live host is an XLA marker */
    char *env[] = { "PJRT_DEVICE=NEURON", "PATH=/usr/local/bin", NULL };
    factset_init(&fs);
    fx_probe(t, NULL, env, &fs);
    assert_fact(&fs, "torch.backend", "xla");
    assert_non_null(strstr(fx_evidence(&fs, "torch.backend"), "PJRT_DEVICE=NEURON"));
    factset_free(&fs);
    /* torch-xla installed is one */
    fx_dist(t, "/usr/local/lib/python3.11/site-packages", "torch_xla-2.9.0.dist-info",
            "torch_xla", "2.9.0");
    factset_init(&fs);
    fx_probe(t, NULL, NULL, &fs);
    assert_fact(&fs, "torch.backend", "xla");
    assert_non_null(strstr(fx_evidence(&fs, "torch.backend"), "torch-xla 2.9.0 installed"));
    factset_free(&fs);
    fx_rmrf(t);
    free(t);

    /* one native marker alone: the dynamo group; Requires-Dist folded over
     * two lines, libneuronxla with a version, spelled Torch_XLA */
    t = neuronx_root("Requires-Dist: torch~=2.10", "[torch_dynamo_backends]\n"
                     "neuron = torch_neuronx.dynamo:backend\n\n[console_scripts]\nx = y:z\n");
    factset_init(&fs);
    fx_probe(t, NULL, NULL, &fs);
    assert_fact(&fs, "torch.backend", "native");
    factset_free(&fs);
    fx_rmrf(t);
    free(t);
    t = neuronx_root("Requires-Dist: Torch_XLA\n  (==2.9.0)\nRequires-Dist: libneuronxla>=2.2", NULL);
    factset_init(&fs);
    fx_probe(t, NULL, NULL, &fs);
    assert_fact(&fs, "torch.backend", "xla");
    assert_non_null(strstr(fx_evidence(&fs, "torch.backend"),
                           "xla markers: Requires-Dist torch-xla, Requires-Dist libneuronxla"));
    factset_free(&fs);
    /* torch-neuron next to torch-neuronx: a warning, the markers decide */
    fx_dist(t, "/usr/local/lib/python3.11/site-packages", "torch_neuron-1.13.1.dist-info",
            "torch-neuron", "1.13.1.2.11.13.0");
    factset_init(&fs);
    fx_probe(t, NULL, NULL, &fs);
    assert_fact(&fs, "torch.backend", "xla");
    assert_warning(&fs, "torch-neuron 1.13.1.2.11.13.0 (Inf1) and torch-neuronx 2.9.0 are both");
    factset_free(&fs);
    fx_rmrf(t);
    free(t);
}

/* The torch probe reads the environment the python probe chose and read
 * (ctx->python_env); it chooses nothing again: with the interpreter gone
 * from the root between the two probes, the backend is still decided from
 * the shared sys.path, and entry_points.txt is read from the folder of the
 * distribution the python probe recorded.  Without a chosen environment
 * the torch probe records nothing. */
static void shared_choice(void **state)
{
    char *t = neuronx_root("Requires-Dist: torch~=2.10",
                           "[torch.backends]\ntorch_neuronx = torch_neuronx:_autoload\n");
    struct root *r = root_open_dir(t);
    assert_non_null(r);
    struct factset fs;
    factset_init(&fs);
    struct probe_ctx ctx = { .root = r, .facts = &fs };
    struct sp_error e = { 0 };
    assert_int_equal(probe_python(&ctx, &e), 0);
    assert_non_null(ctx.python_env);
    const struct py_dist *d = py_dist_find(ctx.python_env, "torch-neuronx");
    assert_non_null(d);
    assert_string_equal(d->folder,
                        "/usr/local/lib/python3.11/site-packages/torch_neuronx-2.9.0.dist-info");
    assert_string_equal(d->metadata, fx_evidence(&fs, "pip.torch-neuronx"));
    assert_string_equal(ctx.python_env->dirs[d->dir], "/usr/local/lib/python3.11/site-packages");
    char p[4200];
    snprintf(p, sizeof p, "%s/usr/local/bin/python3.11", t);
    assert_int_equal(unlink(p), 0);
    assert_int_equal(probe_torch(&ctx, &e), 0);
    assert_fact(&fs, "torch.backend", "native");
    assert_non_null(strstr(fx_evidence(&fs, "torch.backend"),
                           "native markers: entry_points.txt [torch.backends] torch_neuronx"));
    py_workload_release(&ctx);
    assert_null(ctx.python_env);
    factset_free(&fs);
    /* no environment chosen: no torch facts */
    factset_init(&fs);
    assert_int_equal(probe_torch(&ctx, &e), 0);
    assert_no_fact(&fs, "torch.backend");
    factset_free(&fs);
    root_close(r);
    fx_rmrf(t);
    free(t);
}

static void version_py(void **state)
{
    char *t = fx_tmpdir("vpy");
    fx_interp(t, "/usr/local", 11, "3.11.9", 0);
    const char *vp = "/usr/local/lib/python3.11/site-packages/torch/version.py";
    fx_write(t, "/usr/local/lib/python3.11/site-packages/torch/__init__.py", "", 0);
    struct factset fs;
    /* no version.py: a warning, no build facts */
    factset_init(&fs);
    fx_probe(t, NULL, NULL, &fs);
    assert_no_fact(&fs, "torch.build.cuda");
    assert_warning(&fs, "torch.build: /usr/local/lib/python3.11/site-packages/torch/version.py: "
                   "no such file");
    factset_free(&fs);
    /* double quotes, a cuda computed at import time (not a literal) */
    fx_write(t, vp, "__version__ = \"2.3.0\"\ncuda = get_cuda()\n"
             "git_version = \"97ff6cfd9c86c5c09d7ce775ab64ec5c99230f5d\"\n", -1);
    factset_init(&fs);
    fx_probe(t, NULL, NULL, &fs);
    assert_no_fact(&fs, "torch.build.cuda");
    assert_warning(&fs, "torch.build.cuda: ");
    assert_fact(&fs, "torch.build.git", "97ff6cfd9c86c5c09d7ce775ab64ec5c99230f5d");
    factset_free(&fs);
    /* cudart = ... must not be read as cuda */
    fx_write(t, vp, "cudart = '9'\ncuda: Optional[str] = '12.4'\ngit_version = 'abc'\n", -1);
    factset_init(&fs);
    fx_probe(t, NULL, NULL, &fs);
    assert_fact(&fs, "torch.build.cuda", "12.4");
    factset_free(&fs);
    /* the first torch on sys.path wins (as import does): a PYTHONPATH copy */
    fx_write(t, "/opt/dev/torch/__init__.py", "", 0);
    fx_write(t, "/opt/dev/torch/version.py", "cuda = None\ngit_version = 'dev'\n", -1);
    char *env[] = { "PATH=/usr/local/bin", "PYTHONPATH=/opt/dev", NULL };
    factset_init(&fs);
    fx_probe(t, NULL, env, &fs);
    assert_fact(&fs, "torch.build.git", "dev");
    assert_fact(&fs, "torch.build.cuda", "none");
    factset_free(&fs);
    fx_rmrf(t);
    free(t);
}

/* pip.torch with +cu121 on a host with Neuron facts: a warning; with no
 * Neuron device (count 0) or no label: none. */
static void cuda_on_neuron(void **state)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/gpu-baseline", FIXTURE_ROOTS);
    struct factset fs;
    factset_init(&fs);
    factset_set(&fs, "neuron.device.count", "16", NULL);
    fx_probe(dir, NULL, NULL, &fs);
    assert_warning(&fs, "torch: pip.torch 2.1.2+cu121 is a CUDA build on a host with Neuron "
                   "facts (neuron.device.count 16); no GPU is assumed");
    assert_no_fact(&fs, "gpu.device.count");
    factset_free(&fs);
    factset_init(&fs);
    factset_set(&fs, "neuron.device.count", "0", NULL);
    fx_probe(dir, NULL, NULL, &fs);
    for (size_t i = 0; i < fs.nwarnings; i++)
        assert_null(strstr(fs.warnings[i], "CUDA build"));
    factset_free(&fs);
    /* inf1's torch 1.13.1 is built with CUDA 11.7 but carries no label */
    snprintf(dir, sizeof dir, "%s/inf1-legacy", FIXTURE_ROOTS);
    factset_init(&fs);
    factset_set(&fs, "neuron.device.count", "16", NULL);
    fx_probe(dir, NULL, NULL, &fs);
    for (size_t i = 0; i < fs.nwarnings; i++)
        assert_null(strstr(fs.warnings[i], "CUDA build"));
    factset_free(&fs);
}

/* The torch probe's bounds: version.py, entry_points.txt, Requires-Dist. */
static void torch_bounds(void **state)
{
    char reqs[64 * 1024] = "";
    size_t w = 0;
    for (int i = 0; i < PY_REQUIRES_MAX; i++)
        w += (size_t)snprintf(reqs + w, sizeof reqs - w, "Requires-Dist: dep%d\n", i);
    snprintf(reqs + w, sizeof reqs - w, "Requires-Dist: torch-xla");
    char *t = neuronx_root(reqs, NULL);
    const char *sp = "/usr/local/lib/python3.11/site-packages";
    char p[512];
    size_t n = 256u * 1024 + 1;
    char *buf = malloc(n);
    memset(buf, '#', n);
    snprintf(p, sizeof p, "%s/torch_neuronx-2.9.0.dist-info/entry_points.txt", sp);
    fx_write(t, p, buf, (long)n);
    snprintf(p, sizeof p, "%s/torch/__init__.py", sp);
    fx_write(t, p, "", 0);
    snprintf(p, sizeof p, "%s/torch/version.py", sp);
    fx_write(t, p, buf, 64 * 1024 + 1);
    free(buf);
    struct factset fs;
    factset_init(&fs);
    fx_probe(t, NULL, NULL, &fs);
    /* the 513th Requires-Dist is past PY_REQUIRES_MAX: not a marker */
    assert_fact(&fs, "torch.backend", "ambiguous");
    assert_warning(&fs, "entry_points.txt: larger than the read limit");
    assert_warning(&fs, "torch/version.py: larger than the read limit");
    assert_no_fact(&fs, "torch.build.cuda");
    factset_free(&fs);
    fx_rmrf(t);
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fixtures),
        cmocka_unit_test(markers),
        cmocka_unit_test(shared_choice),
        cmocka_unit_test(version_py),
        cmocka_unit_test(cuda_on_neuron),
        cmocka_unit_test(torch_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
