/* tests/unit/test_python.c: the python probe (python.*, pip.*, python.env.*)
 * on the fixture roots, whose files were written to show these facts (the
 * fixture is the oracle: each expected value below is a Name/Version header,
 * a pyvenv.cfg line, a conda-meta file name or the PY_VERSION string of a
 * file in the root), and on small roots built here for each bad input of
 * stackprint-probe(1) and each bound of python_env.h.  CPython's own behaviour (site.py,
 * importlib.metadata) is checked on the real machine by tests/oracle/pip.sh. */
#include "tests/unit/testlib.h"

#include <time.h>

#include "tests/unit/pyfixture.h"


/* ---------- fixture roots ---------- */

static void trn1_xla(void **state)
{
    struct factset fs;
    fx_fixture("trn1-xla", NULL, &fs);
    assert_fact(&fs, "python.path", "/usr/bin/python3");
    assert_fact(&fs, "python.prefix", "/usr");
    assert_fact(&fs, "python.version", "3.10.12");
    assert_non_null(strstr(fx_evidence(&fs, "python.version"), "/usr/bin/python3.10"));
    assert_non_null(strstr(fx_evidence(&fs, "python.path"), "resolves to /usr/bin/python3.10"));
    /* Debian layout: /usr/local/.../dist-packages and /usr/lib/python3/dist-packages */
    assert_fact(&fs, "pip.torch-neuronx", "2.8.0.2.10.16998");
    assert_fact(&fs, "pip.torch", "2.8.0");
    assert_fact(&fs, "pip.torch-xla", "2.8.0");
    assert_fact(&fs, "pip.libneuronxla", "2.2.12677.0");
    assert_fact(&fs, "pip.neuronx-cc", "2.21.33363.0");
    assert_fact(&fs, "pip.neuronx-distributed", "0.15.22404");
    assert_fact(&fs, "pip.pyyaml", "5.4.1");          /* egg-info folder, PKG-INFO */
    assert_fact(&fs, "pip.six", "1.16.0");
    assert_string_equal(fx_evidence(&fs, "pip.pyyaml"),
                        "/usr/lib/python3/dist-packages/PyYAML-5.4.1.egg-info/PKG-INFO");
    /* the DLAMI venv as another environment, its version from pyvenv.cfg */
    const char *v = "python.env.opt_aws_neuronx_venv_pytorch_2_8.";
    char k[256];
    snprintf(k, sizeof k, "%spath", v);
    assert_fact(&fs, k, "/opt/aws_neuronx_venv_pytorch_2_8/bin/python3");
    snprintf(k, sizeof k, "%sversion", v);
    assert_fact(&fs, k, "3.10.12");
    assert_non_null(strstr(fx_evidence(&fs, k), "pyvenv.cfg"));
    snprintf(k, sizeof k, "%spip.torch-neuronx", v);
    assert_fact(&fs, k, "2.8.0.2.10.16998");
    snprintf(k, sizeof k, "%spip.pip", v);
    assert_fact(&fs, k, "22.0.2");
    /* the workload is the system interpreter: no python.env.system */
    assert_no_fact(&fs, "python.env.system.path");
    assert_int_equal(fs.nwarnings, 0);
    factset_free(&fs);
}

static void trn2_native(void **state)
{
    struct factset fs;
    fx_fixture("trn2-native", NULL, &fs);
    /* /usr/local/bin/python3 comes before /usr/bin/python3 */
    assert_fact(&fs, "python.path", "/usr/local/bin/python3");
    assert_fact(&fs, "python.prefix", "/usr/local");
    assert_fact(&fs, "python.version", "3.11.13");
    assert_fact(&fs, "pip.torch-neuronx", "2.11.3.0.19138+4dee388.dev");
    assert_fact(&fs, "pip.torch", "2.11.0");
    assert_fact(&fs, "pip.libtorch-neuronx-lite", "2.11.0.1.0.1284");
    assert_fact(&fs, "pip.neuronx-cc", "2.27.5334.0");
    assert_no_fact(&fs, "pip.torch-xla");
    assert_no_fact(&fs, "pip.six");                    /* only the system's */
    assert_fact(&fs, "python.env.system.path", "/usr/bin/python3");
    assert_fact(&fs, "python.env.system.version", "3.10.12");
    assert_fact(&fs, "python.env.system.pip.six", "1.16.0");
    factset_free(&fs);
}

static void trn3_venv(void **state)
{
    struct factset fs;
    fx_fixture("trn3", "/opt/aws_neuronx_venv_pytorch_2_12/bin/python3", &fs);
    assert_fact(&fs, "python.path", "/opt/aws_neuronx_venv_pytorch_2_12/bin/python3");
    assert_fact(&fs, "python.prefix", "/opt/aws_neuronx_venv_pytorch_2_12");
    assert_fact(&fs, "python.version", "3.12.3");
    assert_string_equal(fx_evidence(&fs, "python.version"),
                        "/opt/aws_neuronx_venv_pytorch_2_12/pyvenv.cfg: version 3.12.3");
    assert_fact(&fs, "pip.torch-neuronx", "0.1.0");
    assert_fact(&fs, "pip.vllm-neuron", "0.24.0.1.1.0");
    /* a folder named by neuron-extras.pth ("../../../extras") */
    assert_fact(&fs, "pip.neuron-agentic-development", "1.3");
    assert_string_equal(fx_evidence(&fs, "pip.neuron-agentic-development"),
                        "/opt/aws_neuronx_venv_pytorch_2_12/extras/"
                        "neuron_agentic_development-1.3.dist-info/METADATA");
    /* include-system-site-packages = false: the system's six is not seen */
    assert_no_fact(&fs, "pip.six");
    assert_fact(&fs, "python.env.system.pip.six", "1.16.0");
    assert_fact(&fs, "python.env.system.version", "3.12.3");
    /* the workload venv is not repeated as another environment */
    assert_no_fact(&fs, "python.env.opt_aws_neuronx_venv_pytorch_2_12.path");
    factset_free(&fs);

    fx_fixture("trn3", NULL, &fs);
    assert_fact(&fs, "python.path", "/usr/bin/python3");
    assert_fact(&fs, "pip.six", "1.16.0");
    assert_no_fact(&fs, "pip.torch");
    assert_fact(&fs, "python.env.opt_aws_neuronx_venv_pytorch_2_12.pip.torch", "2.12.0");
    factset_free(&fs);
}

static void inf2_xla(void **state)
{
    struct factset fs;
    fx_fixture("inf2", NULL, &fs);
    assert_fact(&fs, "python.version", "3.11.13");
    assert_fact(&fs, "pip.torch-neuronx", "2.9.0.2.15.32035");
    assert_fact(&fs, "pip.torch-xla", "2.9.0");
    assert_fact(&fs, "pip.libneuronxla", "2.2.17544.0");
    assert_fact(&fs, "pip.neuronx-cc", "2.26.6360.0+6f180f47");
    assert_fact(&fs, "pip.neuronx-distributed-inference", "0.10.18399");
    factset_free(&fs);
}

static void inf1_legacy(void **state)
{
    struct factset fs;
    fx_fixture("inf1-legacy", NULL, &fs);
    assert_fact(&fs, "pip.torch-neuron", "1.13.1.2.11.13.0");
    assert_fact(&fs, "pip.neuron-cc", "1.24.0.0");
    assert_fact(&fs, "pip.torch", "1.13.1");
    /* an egg-info FILE (Debian's sympy) and an egg-info folder */
    assert_fact(&fs, "pip.sympy", "1.9");
    assert_string_equal(fx_evidence(&fs, "pip.sympy"),
                        "/usr/lib/python3/dist-packages/sympy-1.9.egg-info");
    assert_fact(&fs, "pip.pyyaml", "5.4.1");
    assert_no_fact(&fs, "pip.torch-neuronx");
    factset_free(&fs);
}

static void gpu_conda(void **state)
{
    struct factset fs;
    fx_fixture("gpu-baseline", NULL, &fs);
    assert_fact(&fs, "pip.torch", "2.1.2+cu121");
    assert_fact(&fs, "pip.nvidia-cuda-runtime-cu12", "12.1.105");
    /* conda: the version from conda-meta/python-3.10.13-h955ad1f_0.json, not
     * from python-dateutil-2.8.2-...json */
    assert_fact(&fs, "python.env.opt_conda.version", "3.10.13");
    assert_string_equal(fx_evidence(&fs, "python.env.opt_conda.version"),
                        "/opt/conda/conda-meta/python-3.10.13-h955ad1f_0.json");
    assert_fact(&fs, "python.env.opt_conda.pip.conda", "23.11.0");
    assert_fact(&fs, "python.env.opt_conda_envs_pytorch.version", "3.10.14");
    assert_fact(&fs, "python.env.opt_conda_envs_pytorch.pip.torch", "2.1.2");
    assert_fact(&fs, "python.env.opt_conda_envs_pytorch.path",
                "/opt/conda/envs/pytorch/bin/python3");
    factset_free(&fs);
}

static void container_bare(void **state)
{
    struct factset fs;
    fx_fixture("container-bare", NULL, &fs);
    assert_fact(&fs, "python.path", "/usr/local/bin/python3");
    assert_fact(&fs, "python.version", "3.12.8");
    assert_fact(&fs, "pip.pip", "24.3.1");
    assert_fact(&fs, "pip.charset-normalizer", "3.4.0");
    assert_fact(&fs, "pip.requests", "2.32.3");
    /* a develop install: easy-install.pth names /srv/app, which holds
     * stackapp.egg-info */
    assert_fact(&fs, "pip.stackapp", "1.0.0");
    assert_string_equal(fx_evidence(&fs, "pip.stackapp"), "/srv/app/stackapp.egg-info/PKG-INFO");
    assert_no_fact(&fs, "python.env.system.path");   /* no /usr/bin/python3 here */
    assert_int_equal(fs.nwarnings, 0);
    factset_free(&fs);
}

/* Twice in a row: identical facts, evidence and warnings, on every root. */
static void deterministic(void **state)
{
    static const char *const roots[] = { "trn1-xla", "trn2-native", "trn3", "inf2",
                                         "inf1-legacy", "gpu-baseline", "ambiguous",
                                         "container-bare" };
    for (size_t i = 0; i < sizeof roots / sizeof *roots; i++) {
        struct factset a, b;
        fx_fixture(roots[i], NULL, &a);
        fx_fixture(roots[i], NULL, &b);
        assert_int_equal(a.count, b.count);
        assert_true(a.count > 0);
        for (size_t k = 0; k < a.count; k++) {
            assert_string_equal(a.facts[k].key, b.facts[k].key);
            assert_string_equal(a.facts[k].value, b.facts[k].value);
            assert_string_equal(a.facts[k].evidence ? a.facts[k].evidence : "",
                                b.facts[k].evidence ? b.facts[k].evidence : "");
        }
        assert_int_equal(a.nwarnings, b.nwarnings);
        for (size_t k = 0; k < a.nwarnings; k++)
            assert_string_equal(a.warnings[k], b.warnings[k]);
        factset_free(&a);
        factset_free(&b);
    }
}

/* ---------- built roots: interpreter choice ---------- */

static char *base_root(const char *tag)
{
    char *t = fx_tmpdir(tag);
    fx_interp(t, "/usr", 11, "3.11.2", 1);
    return t;
}

static void no_python(void **state)
{
    char *t = fx_tmpdir("nopy");
    fx_write(t, "/etc/os-release", "ID=debian\n", -1);
    struct factset fs;
    factset_init(&fs);
    fx_probe(t, NULL, NULL, &fs);
    assert_no_fact(&fs, "python.path");
    assert_no_fact(&fs, "torch.backend");
    assert_warning(&fs, "python: no python3 found");
    factset_free(&fs);
    /* --python that does not exist: a warning, never another interpreter */
    fx_interp(t, "/usr", 11, "3.11.2", 1);
    factset_init(&fs);
    fx_probe(t, "/opt/missing/bin/python3", NULL, &fs);
    assert_no_fact(&fs, "python.path");
    assert_warning(&fs, "/opt/missing/bin/python3: no such file");
    factset_free(&fs);
    /* an interpreter without its stdlib: its path only, and why */
    fx_write(t, "/usr/local/bin/python3.13", "\x7f" "ELF", 4);
    fx_link(t, "/usr/local/bin/python3", "python3.13");
    fx_write(t, "/opt/conda/bin/python3", "\x7f" "ELF", 4);
    factset_init(&fs);
    fx_probe(t, NULL, NULL, &fs);
    assert_fact(&fs, "python.path", "/usr/local/bin/python3");
    assert_no_fact(&fs, "python.version");
    assert_no_fact(&fs, "python.prefix");
    assert_warning(&fs, "python: /usr/local/bin/python3: no lib/python3.X/os.py found in "
                   "/usr/local/bin or /usr/local; environment not read");
    assert_fact(&fs, "python.env.opt_conda.path", "/opt/conda/bin/python3");
    assert_no_fact(&fs, "python.env.opt_conda.version");
    assert_fact(&fs, "python.env.system.version", "3.11.2");
    factset_free(&fs);
    fx_rmrf(t);
    free(t);
}

static void live_choice(void **state)
{
    char *t = base_root("live");
    /* a venv named by $VIRTUAL_ENV wins over $PATH */
    fx_write(t, "/srv/venv/pyvenv.cfg", "home = /usr/bin\nversion_info = 3.11.2.final.0\n", -1);
    fx_link(t, "/srv/venv/bin/python3", "/usr/bin/python3");
    fx_dist(t, "/srv/venv/lib/python3.11/site-packages", "a-1.dist-info", "a", "1");
    /* a pyenv shim first on $PATH */
    fx_write(t, "/root/.pyenv/shims/python3",
             "#!/usr/bin/env bash\nset -e\nexport PYENV_ROOT=\"/root/.pyenv\"\n"
             "exec \"/root/.pyenv/libexec/pyenv\" exec \"$program\" \"$@\"\n", -1);
    fx_interp(t, "/root/.pyenv/versions/3.12.1", 12, "3.12.1", 0);
    fx_interp(t, "/root/.pyenv/versions/3.10.13", 10, "3.10.13", 0);
    fx_write(t, "/root/.pyenv/version", "3.12.1\n", -1);
    fx_write(t, "/work/proj/.python-version", "# pinned\n3.10.13\n", -1);
    struct factset fs;

    char *env1[] = { "VIRTUAL_ENV=/srv/venv", "PATH=/root/.pyenv/shims:/usr/bin", NULL };
    factset_init(&fs);
    fx_probe(t, NULL, env1, &fs);
    assert_fact(&fs, "python.path", "/srv/venv/bin/python3");
    assert_fact(&fs, "python.prefix", "/srv/venv");
    assert_fact(&fs, "python.version", "3.11.2");   /* version_info 3.11.2.final.0 */
    assert_fact(&fs, "pip.a", "1");
    assert_non_null(strstr(fx_evidence(&fs, "python.path"), "$VIRTUAL_ENV=/srv/venv"));
    factset_free(&fs);

    char *env2[] = { "PATH=/nonexistent:relative:/root/.pyenv/shims:/usr/bin", "HOME=/root",
                     NULL };
    factset_init(&fs);
    fx_probe(t, NULL, env2, &fs);
    assert_fact(&fs, "python.path", "/root/.pyenv/versions/3.12.1/bin/python3");
    assert_fact(&fs, "python.version", "3.12.1");
    assert_non_null(strstr(fx_evidence(&fs, "python.path"), "pyenv version 3.12.1 from "
                           "/root/.pyenv/version"));
    factset_free(&fs);

    /* .python-version in $PWD's parent beats $PYENV_ROOT/version */
    char *env3[] = { "PATH=/root/.pyenv/shims:/usr/bin", "PWD=/work/proj/src", NULL };
    factset_init(&fs);
    fx_probe(t, NULL, env3, &fs);
    assert_fact(&fs, "python.path", "/root/.pyenv/versions/3.10.13/bin/python3");
    factset_free(&fs);

    /* $PYENV_VERSION beats both; "system" goes on past the shims */
    char *env4[] = { "PATH=/root/.pyenv/shims:/usr/bin", "PYENV_VERSION=system",
                     "PWD=/work/proj", NULL };
    factset_init(&fs);
    fx_probe(t, NULL, env4, &fs);
    assert_fact(&fs, "python.path", "/usr/bin/python3");
    assert_fact(&fs, "python.version", "3.11.2");
    factset_free(&fs);

    /* a version pyenv does not have: warned, then the next one */
    char *env5[] = { "PATH=/root/.pyenv/shims:/usr/bin", "PYENV_VERSION=3.9.1:3.12.1", NULL };
    factset_init(&fs);
    fx_probe(t, NULL, env5, &fs);
    assert_fact(&fs, "python.path", "/root/.pyenv/versions/3.12.1/bin/python3");
    assert_warning(&fs, "pyenv version 3.9.1 (from $PYENV_VERSION) is not installed");
    factset_free(&fs);

    /* --python naming the shim itself (`--python $(which python3)`) */
    factset_init(&fs);
    fx_probe(t, "/root/.pyenv/shims/python3", env2, &fs);
    assert_fact(&fs, "python.path", "/root/.pyenv/versions/3.12.1/bin/python3");
    assert_non_null(strstr(fx_evidence(&fs, "python.path"), "--python names the pyenv shim"));
    factset_free(&fs);
    /* ... also in a copied tree: the shim's PYENV_ROOT and its version file */
    factset_init(&fs);
    fx_probe(t, "/root/.pyenv/shims/python3", NULL, &fs);
    assert_fact(&fs, "python.path", "/root/.pyenv/versions/3.12.1/bin/python3");
    factset_free(&fs);

    /* a copied tree never reads the environment it is given */
    factset_init(&fs);
    fx_probe(t, NULL, NULL, &fs);
    assert_fact(&fs, "python.path", "/usr/bin/python3");
    factset_free(&fs);
    fx_rmrf(t);
    free(t);
}

/* sys.path order: user site before site-packages; venv before its base;
 * Debian's /usr/local dist-packages before /usr/lib/python3. */
static void sys_path_order(void **state)
{
    char *t = base_root("order");
    const char *dl = "/usr/local/lib/python3.11/dist-packages";
    const char *dd = "/usr/lib/python3/dist-packages";
    fx_dist(t, dl, "pkg-2.0.dist-info", "pkg", "2.0");
    fx_dist(t, dd, "pkg-1.0.dist-info", "pkg", "1.0");
    fx_dist(t, dd, "deb_only-1.0.dist-info", "deb-only", "1.0");
    fx_dist(t, "/root/.local/lib/python3.11/site-packages", "pkg-3.0.dist-info", "pkg", "3.0");
    /* upstream's site-packages is not on Debian's sys.path */
    fx_dist(t, "/usr/lib/python3.11/site-packages", "ghost-1.dist-info", "ghost", "1");
    struct factset fs;
    char *env[] = { "PATH=/usr/bin", "HOME=/root", NULL };
    factset_init(&fs);
    fx_probe(t, NULL, env, &fs);
    assert_fact(&fs, "pip.pkg", "3.0");      /* user site first */
    assert_fact(&fs, "pip.deb-only", "1.0");
    assert_no_fact(&fs, "pip.ghost");
    factset_free(&fs);
    char *env_nouser[] = { "PATH=/usr/bin", "HOME=/root", "PYTHONNOUSERSITE=1", NULL };
    factset_init(&fs);
    fx_probe(t, NULL, env_nouser, &fs);
    assert_fact(&fs, "pip.pkg", "2.0");      /* /usr/local before /usr/lib/python3 */
    factset_free(&fs);
    /* a copied tree: no user site */
    factset_init(&fs);
    fx_probe(t, NULL, NULL, &fs);
    assert_fact(&fs, "pip.pkg", "2.0");
    factset_free(&fs);
    /* $PYTHONPATH comes first of all */
    fx_dist(t, "/opt/pp", "pkg-9.dist-info", "pkg", "9");
    char *env_pp[] = { "PATH=/usr/bin", "PYTHONPATH=/opt/pp:rel", NULL };
    factset_init(&fs);
    fx_probe(t, NULL, env_pp, &fs);
    assert_fact(&fs, "pip.pkg", "9");
    factset_free(&fs);

    /* venvs: include-system-site-packages = true sees the base after the venv */
    fx_write(t, "/v1/pyvenv.cfg", "home = /usr/bin\ninclude-system-site-packages = true\n"
             "version = 3.11.2\n", -1);
    fx_link(t, "/v1/bin/python3", "/usr/bin/python3.11");
    fx_dist(t, "/v1/lib/python3.11/site-packages", "pkg-5.dist-info", "pkg", "5");
    fx_write(t, "/v2/pyvenv.cfg", "home = /usr/bin\ninclude-system-site-packages = false\n", -1);
    fx_link(t, "/v2/bin/python3", "/usr/bin/python3.11");
    factset_init(&fs);
    fx_probe(t, "/v1/bin/python3", env, &fs);
    assert_fact(&fs, "pip.pkg", "5");
    assert_fact(&fs, "pip.deb-only", "1.0");
    factset_free(&fs);
    factset_init(&fs);
    fx_probe(t, "/v2/bin/python3", env, &fs);
    assert_no_fact(&fs, "pip.pkg");           /* no user site in a venv either */
    assert_no_fact(&fs, "pip.deb-only");
    /* no version line in pyvenv.cfg: the base binary's PY_VERSION */
    assert_fact(&fs, "python.version", "3.11.2");
    assert_non_null(strstr(fx_evidence(&fs, "python.version"), "/usr/bin/python3.11"));
    factset_free(&fs);
    fx_rmrf(t);
    free(t);
}

/* ---------- the full version ---------- */

static void version_scan(void **state)
{
    char out[32];
    static const char a[] = "xx\0" "3.11.7\0yy";
    assert_int_equal(py_version_scan_buffer(a, sizeof a, 11, out, sizeof out), 3);
    assert_string_equal(out, "3.11.7");
    static const char rc[] = "\0" "3.12.0rc1\0";
    assert_true(py_version_scan_buffer(rc, sizeof rc, 12, out, sizeof out) >= 0);
    assert_string_equal(out, "3.12.0rc1");
    /* the tail of a merged string: "/root/.pyenv/versions/3.11.7" */
    static const char tail[] = "\0/root/.pyenv/versions/3.11.7\0";
    assert_true(py_version_scan_buffer(tail, sizeof tail, 11, out, sizeof out) > 0);
    assert_string_equal(out, "3.11.7");
    /* not versions: another minor, inside a word, no NUL after, 3.11 alone */
    static const char no1[] = "\0" "3.10.4\0";
    static const char no2[] = "\0v3.11.7\0";
    static const char no3[] = "\0" "3.11.7/lib\0";
    static const char no4[] = "\0" "3.11\0" "3.11.\0";
    static const char no5[] = "\0" "13.11.7\0";
    assert_int_equal(py_version_scan_buffer(no1, sizeof no1, 11, out, sizeof out), -1);
    assert_int_equal(py_version_scan_buffer(no2, sizeof no2, 11, out, sizeof out), -1);
    assert_int_equal(py_version_scan_buffer(no3, sizeof no3, 11, out, sizeof out), -1);
    assert_int_equal(py_version_scan_buffer(no4, sizeof no4, 11, out, sizeof out), -1);
    assert_int_equal(py_version_scan_buffer(no5, sizeof no5, 11, out, sizeof out), -1);
    /* cut by the end of the buffer: not a match */
    assert_int_equal(py_version_scan_buffer("\0" "3.11.7", 7, 11, out, sizeof out), -1);
}

/* A binary whose PY_VERSION straddles the 1 MiB read chunk; one past the
 * 256 MiB scan bound (a sparse file); one with none (the warning names the
 * files tried); a shared build whose version is in libpython. */
static void version_files(void **state)
{
    char *t = fx_tmpdir("vers");
    char p[4200];
    fx_interp(t, "/usr", 11, "3.11.2", 1);
    snprintf(p, sizeof p, "%s/usr/bin/python3.11", t);
    int fd = open(p, O_WRONLY | O_TRUNC);
    assert_true(fd >= 0);
    static const char v[] = "\0" "3.11.9\0";
    assert_int_equal(pwrite(fd, v, sizeof v - 1, (1 << 20) - 4), (ssize_t)sizeof v - 1);
    close(fd);
    struct factset fs;
    factset_init(&fs);
    fx_probe(t, NULL, NULL, &fs);
    assert_fact(&fs, "python.version", "3.11.9");
    char want[64];
    snprintf(want, sizeof want, "version string at byte %d", (1 << 20) - 3);
    assert_non_null(strstr(fx_evidence(&fs, "python.version"), want));
    factset_free(&fs);

    /* past PY_VERSION_SCAN_MAX: not seen; libpython is tried, then a warning */
    fd = open(p, O_WRONLY | O_TRUNC);
    assert_true(fd >= 0);
    assert_int_equal(pwrite(fd, v, sizeof v - 1, (off_t)PY_VERSION_SCAN_MAX + 16),
                     (ssize_t)sizeof v - 1);
    close(fd);
    factset_init(&fs);
    fx_probe(t, NULL, NULL, &fs);
    assert_no_fact(&fs, "python.version");
    assert_fact(&fs, "python.path", "/usr/bin/python3");
    assert_warning(&fs, "python.version: /usr/bin/python3: no full 3.11.N version found "
                   "(tried /usr/bin/python3.11)");
    factset_free(&fs);

    /* a shared build: the small binary has none, libpython3.11.so.1.0 has it */
    fx_write(t, "/usr/bin/python3.11", "\x7f" "ELF", 4);
    static const char lib[] = "\x7f" "ELF....\0/usr/3.11.5\0";
    fx_write(t, "/usr/lib/libpython3.11.so.1.0", lib, sizeof lib - 1);
    fx_link(t, "/usr/lib/libpython3.11.so", "libpython3.11.so.1.0");
    factset_init(&fs);
    fx_probe(t, NULL, NULL, &fs);
    assert_fact(&fs, "python.version", "3.11.5");
    assert_non_null(strstr(fx_evidence(&fs, "python.version"), "libpython3.11.so"));
    factset_free(&fs);

    /* patchlevel.h of the base prefix is preferred to the binary scan; a
     * PY_VERSION of another 3.X there is not used */
    fx_write(t, "/usr/include/python3.11/patchlevel.h",
             "#define PY_MINOR_VERSION        11\n#define PY_VERSION              \"3.11.8\"\n", -1);
    factset_init(&fs);
    fx_probe(t, NULL, NULL, &fs);
    assert_fact(&fs, "python.version", "3.11.8");
    assert_string_equal(fx_evidence(&fs, "python.version"),
                        "/usr/include/python3.11/patchlevel.h: PY_VERSION");
    factset_free(&fs);
    fx_write(t, "/usr/include/python3.11/patchlevel.h",
             "#define PY_VERSION \"3.12.1\"\n", -1);
    factset_init(&fs);
    fx_probe(t, NULL, NULL, &fs);
    assert_fact(&fs, "python.version", "3.11.5");
    factset_free(&fs);
    unlink(strcat(strcpy(p, t), "/usr/include/python3.11/patchlevel.h"));

    /* a pyvenv.cfg whose version is not 3.11.N: warned, not used */
    fx_write(t, "/v/pyvenv.cfg", "home = /usr/bin\nversion = 3.9.2\n", -1);
    fx_link(t, "/v/bin/python3", "/usr/bin/python3.11");
    factset_init(&fs);
    fx_probe(t, "/v/bin/python3", NULL, &fs);
    assert_fact(&fs, "python.version", "3.11.5");
    assert_warning(&fs, "/v/pyvenv.cfg: version \"3.9.2\" does not match lib/python3.11");
    factset_free(&fs);
    /* virtualenv's version_info for a release candidate */
    fx_write(t, "/v/pyvenv.cfg", "home = /usr/bin\nversion_info = 3.11.0.candidate.1\n", -1);
    factset_init(&fs);
    fx_probe(t, "/v/bin/python3", NULL, &fs);
    assert_fact(&fs, "python.version", "3.11.0rc1");
    factset_free(&fs);
    fx_rmrf(t);
    free(t);
}

/* ---------- METADATA bad inputs ---------- */

static void metadata_bad(void **state)
{
    char *t = base_root("meta");
    const char *sp = "/usr/lib/python3/dist-packages";
    char p[1024];
    /* NUL bytes in the headers */
    static const char bin[] = "Metadata-Version: 2.1\nName: bin\0ary\nVersion: 1\n\n";
    snprintf(p, sizeof p, "%s/binary-1.dist-info/METADATA", sp);
    fx_write(t, p, bin, sizeof bin - 1);
    /* not UTF-8 in Name and Version */
    snprintf(p, sizeof p, "%s/latin-1.dist-info/METADATA", sp);
    fx_write(t, p, "Name: caf\xe9\nVersion: 1.0\xff\n\nbody", -1);
    /* no Version; no Name; empty file; no METADATA at all */
    snprintf(p, sizeof p, "%s/nover-1.dist-info/METADATA", sp);
    fx_write(t, p, "Metadata-Version: 2.1\nName: nover\n\n", -1);
    snprintf(p, sizeof p, "%s/noname-1.dist-info/METADATA", sp);
    fx_write(t, p, "Metadata-Version: 2.1\nVersion: 1\n", -1);
    snprintf(p, sizeof p, "%s/empty-1.dist-info/METADATA", sp);
    fx_write(t, p, "", 0);
    snprintf(p, sizeof p, "%s/nometa-1.dist-info/RECORD", sp);
    fx_write(t, p, "", 0);
    /* folder name disagrees with METADATA: METADATA wins, a warning */
    fx_dist(t, sp, "wrong_name-1.0.dist-info", "right-name", "1.0");
    fx_dist(t, sp, "vers-1.0.dist-info", "vers", "2.0");
    /* CRLF headers, folded lines, header names in any case, first one wins,
     * and the body's fake headers are never read */
    snprintf(p, sizeof p, "%s/crlf-1.0.dist-info/METADATA", sp);
    fx_write(t, p, "Metadata-Version: 2.1\r\nname:   crlf  \r\nVERSION: 1.0\r\n"
             "Version: 9.9\r\nDescription: a\r\n  folded\r\n\r\nName: body\r\n", -1);
    /* a header block that ends at a line that is not a header */
    snprintf(p, sizeof p, "%s/nohdr-1.dist-info/METADATA", sp);
    fx_write(t, p, "Name: nohdr\nnot a header line\nVersion: 1\n", -1);
    /* headers longer than the first read: a folded Description of 40 KiB
     * (old PKG-INFO style) before Version */
    {
        size_t cap = 48 * 1024;
        char *desc = malloc(cap);
        size_t w = (size_t)snprintf(desc, cap, "Metadata-Version: 1.1\nName: longdesc\n"
                                    "Description: first line\n");
        while (w < 40 * 1024)
            w += (size_t)snprintf(desc + w, cap - w, "        more of the long description\n");
        w += (size_t)snprintf(desc + w, cap - w, "Version: 3.0\n\nbody\n");
        snprintf(p, sizeof p, "%s/longdesc-3.0.egg-info/PKG-INFO", sp);
        fx_write(t, p, desc, (long)w);
        free(desc);
    }
    /* same name twice in one folder with different versions */
    fx_dist(t, sp, "twin-1.0.dist-info", "twin", "1.0");
    fx_dist(t, sp, "twin-2.0.dist-info", "twin", "2.0");
    struct factset fs;
    factset_init(&fs);
    fx_probe(t, NULL, NULL, &fs);
    assert_no_fact(&fs, "pip.bin");
    assert_warning(&fs, "binary-1.dist-info/METADATA: binary data (NUL bytes) in the headers");
    /* a Name outside the fact-key alphabet is not a key (stackprint-manifest(5)) */
    assert_no_fact(&fs, "pip.caf\\xe9");
    assert_warning(&fs, "latin-1.dist-info/METADATA: Name \"caf\\xe9\" has bytes outside the fact-key alphabet");
    assert_no_fact(&fs, "pip.nover");
    assert_warning(&fs, "nover-1.dist-info/METADATA: no Version header");
    assert_warning(&fs, "noname-1.dist-info/METADATA: no Name header");
    assert_warning(&fs, "empty-1.dist-info/METADATA: no Name header");
    assert_warning(&fs, "nometa-1.dist-info: no METADATA or PKG-INFO");
    assert_fact(&fs, "pip.right-name", "1.0");
    assert_no_fact(&fs, "pip.wrong-name");
    assert_warning(&fs, "wrong_name-1.0.dist-info: folder name says \"wrong_name\" but "
                   "METADATA says \"right-name\"");
    assert_fact(&fs, "pip.vers", "2.0");
    assert_warning(&fs, "folder name says version \"1.0\" but METADATA says \"2.0\"");
    assert_fact(&fs, "pip.longdesc", "3.0");
    assert_fact(&fs, "pip.crlf", "1.0");
    assert_no_fact(&fs, "pip.body");
    assert_no_fact(&fs, "pip.nohdr");
    assert_fact(&fs, "pip.twin", "1.0");
    assert_warning(&fs, "pip.twin: /usr/lib/python3/dist-packages: two distributions in one folder");
    factset_free(&fs);
    fx_rmrf(t);
    free(t);
}

/* A 50 MiB METADATA (made here, never committed): only its headers are read,
 * quickly; headers past PY_METADATA_HEADER_MAX: the first bytes, a warning. */
static void metadata_big(void **state)
{
    char *t = base_root("big");
    char p[4200];
    const char *sp = "/usr/lib/python3/dist-packages";
    snprintf(p, sizeof p, "%s/big-1.0.dist-info/METADATA", sp);
    fx_write(t, p, "Metadata-Version: 2.1\nName: big\nVersion: 1.0\n\n", -1);
    char full[4300];
    snprintf(full, sizeof full, "%s%s", t, p);
    assert_int_equal(truncate(full, 50L << 20), 0);
    int fd = open(full, O_WRONLY);
    char *body = malloc(1 << 20);
    memset(body, 'x', 1 << 20);
    for (int i = 0; i < 50; i++)
        assert_int_equal(pwrite(fd, body, 1 << 20, 64 + ((off_t)i << 20)) >= 0, 1);
    close(fd);
    /* headers that never end: 2 MiB of "X-Pad: ..." lines after Name/Version */
    snprintf(p, sizeof p, "%s/pad-1.0.dist-info/METADATA", sp);
    size_t n = 2u << 20;
    char *pad = malloc(n + 64);
    int h = snprintf(pad, 64, "Name: pad\nVersion: 1.0\n");
    for (size_t i = (size_t)h; i < n; i += 16)
        memcpy(pad + i, "X-Pad: 12345678\n", 16);
    fx_write(t, p, pad, (long)n);
    free(pad);
    free(body);
    struct timespec a, b;
    struct factset fs;
    factset_init(&fs);
    clock_gettime(CLOCK_MONOTONIC, &a);
    fx_probe(t, NULL, NULL, &fs);
    clock_gettime(CLOCK_MONOTONIC, &b);
    assert_fact(&fs, "pip.big", "1.0");
    assert_fact(&fs, "pip.pad", "1.0");
    assert_warning(&fs, "pad-1.0.dist-info/METADATA: headers longer than 1048576 bytes");
    /* generous: reading 50 MiB would still pass, but not 50 of them */
    double secs = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
    assert_true(secs < 5.0);
    factset_free(&fs);
    fx_rmrf(t);
    free(t);
}

/* Symlink loops anywhere: the interpreter, a site folder, a METADATA, a
 * .pth line; unreadable files (EACCES through a refusing root). */
static void loops_and_denied(void **state)
{
    char *t = base_root("loop");
    const char *sp = "/usr/lib/python3/dist-packages";
    char p[1024];
    fx_dist(t, sp, "ok-1.dist-info", "ok", "1");
    snprintf(p, sizeof p, "%s/loop-1.dist-info/METADATA", sp);
    fx_link(t, p, "METADATA");
    fx_link(t, "/usr/local/lib/python3.11/dist-packages", "dist-packages");
    snprintf(p, sizeof p, "%s/loop.pth", sp);
    fx_write(t, p, "/self\n", -1);
    fx_link(t, "/self", "/self");
    fx_link(t, "/opt/a/bin/python3", "/opt/a/bin/python3");
    struct factset fs;
    factset_init(&fs);
    fx_probe(t, NULL, NULL, &fs);
    assert_fact(&fs, "pip.ok", "1");
    assert_warning(&fs, "loop-1.dist-info/METADATA: symlink loop");
    factset_free(&fs);
    factset_init(&fs);
    fx_probe(t, "/opt/a/bin/python3", NULL, &fs);
    assert_no_fact(&fs, "python.path");
    assert_warning(&fs, "python: /opt/a/bin/python3: symlink loop");
    factset_free(&fs);

    /* unreadable: a METADATA, then a whole site folder, then the binary */
    factset_init(&fs);
    fx_probe_denied(t, NULL, "ok-1.dist-info/METADATA", &fs);
    assert_no_fact(&fs, "pip.ok");
    assert_warning(&fs, "ok-1.dist-info/METADATA: permission denied");
    factset_free(&fs);
    factset_init(&fs);
    fx_probe_denied(t, NULL, "/usr/lib/python3/dist-packages", &fs);
    assert_no_fact(&fs, "pip.ok");
    assert_warning(&fs, "python: /usr/lib/python3/dist-packages: permission denied");
    factset_free(&fs);
    factset_init(&fs);
    fx_probe_denied(t, NULL, "/usr/bin/python3.11", &fs);
    assert_fact(&fs, "python.path", "/usr/bin/python3");
    assert_no_fact(&fs, "python.version");
    assert_warning(&fs, "(tried /usr/bin/python3.11 (unreadable))");
    assert_fact(&fs, "pip.ok", "1");
    factset_free(&fs);
    fx_rmrf(t);
    free(t);
}

/* ---------- bounds ---------- */

static void pth_bounds(void **state)
{
    char *t = base_root("pth");
    const char *sp = "/usr/lib/python3/dist-packages";
    char p[1024], line[64];
    /* PY_PTH_FILES_MAX + 1 .pth files, each naming one folder with a dist */
    for (int i = 0; i <= PY_PTH_FILES_MAX; i++) {
        snprintf(p, sizeof p, "%s/f%03d.pth", sp, i);
        snprintf(line, sizeof line, "# comment\nimport sys\n\n/x/d%03d\n", i);
        fx_write(t, p, line, -1);
        snprintf(p, sizeof p, "/x/d%03d", i);
        char entry[64], name[32];
        snprintf(entry, sizeof entry, "p%03d-1.dist-info", i);
        snprintf(name, sizeof name, "p%03d", i);
        fx_dist(t, p, entry, name, "1");
    }
    struct factset fs;
    factset_init(&fs);
    fx_probe(t, NULL, NULL, &fs);
    /* sys.path holds at most PY_SYS_PATH_MAX folders: stdlib + 3 Debian site
     * folders come first, so fewer than 64 .pth folders fit */
    assert_fact(&fs, "pip.p000", "1");
    assert_no_fact(&fs, "pip.p064");
    assert_warning(&fs, "more than 64 sys.path folders");
    assert_warning(&fs, "dist-packages: more than 64 .pth files");
    factset_free(&fs);
    fx_rmrf(t);
    free(t);

    /* one .pth with PY_PTH_LINES_MAX + 1 folder lines */
    t = base_root("pthlines");
    char *buf = malloc(64 * (PY_PTH_LINES_MAX + 2));
    size_t w = 0;
    for (int i = 0; i <= PY_PTH_LINES_MAX; i++)
        w += (size_t)sprintf(buf + w, "/nowhere/%d\n", i);
    snprintf(p, sizeof p, "%s/many.pth", sp);
    fx_write(t, p, buf, (long)w);
    free(buf);
    factset_init(&fs);
    fx_probe(t, NULL, NULL, &fs);
    assert_warning(&fs, "many.pth: more than 256 folder lines");
    factset_free(&fs);
    fx_rmrf(t);
    free(t);
}

static void dists_bound(void **state)
{
    char *t = base_root("many");
    char p[256], m[128];
    for (int i = 0; i <= PY_DISTS_MAX; i++) {
        snprintf(p, sizeof p, "/usr/lib/python3/dist-packages/p%05d.egg-info", i);
        snprintf(m, sizeof m, "Name: p%05d\nVersion: 1\n", i);
        fx_write(t, p, m, -1);
    }
    struct factset fs;
    factset_init(&fs);
    fx_probe(t, NULL, NULL, &fs);
    char last[32];
    snprintf(last, sizeof last, "pip.p%05d", PY_DISTS_MAX - 1);
    assert_fact(&fs, last, "1");
    snprintf(last, sizeof last, "pip.p%05d", PY_DISTS_MAX);
    assert_no_fact(&fs, last);
    assert_warning(&fs, "more than 20000 distributions");
    factset_free(&fs);
    fx_rmrf(t);
    free(t);
}

static void envs_and_slugs(void **state)
{
    char s[64];
    assert_int_equal(py_slug("/opt/aws_neuronx_venv_pytorch_2_9", s, sizeof s), 0);
    assert_string_equal(s, "opt_aws_neuronx_venv_pytorch_2_9");
    assert_int_equal(py_slug("/home/Ann/miniconda3/envs/py-3.11", s, sizeof s), 0);
    assert_string_equal(s, "home_ann_miniconda3_envs_py_3_11");
    assert_int_equal(py_slug("/", s, sizeof s), -1);
    assert_int_equal(py_slug("/abcdef", s, 4), -1);

    char *t = base_root("envs");
    /* two venvs whose slugs collide; a conda env without Python; a home conda */
    for (int i = 0; i < 2; i++) {
        const char *d = i ? "/opt/aws_neuronx_venv_a_b" : "/opt/aws_neuronx_venv_a-b";
        char p[256];
        snprintf(p, sizeof p, "%s/pyvenv.cfg", d);
        fx_write(t, p, "home = /usr/bin\nversion = 3.11.2\n", -1);
        snprintf(p, sizeof p, "%s/bin/python3", d);
        fx_link(t, p, "/usr/bin/python3.11");
    }
    fx_write(t, "/opt/conda/envs/nopython/conda-meta/history", "", 0);
    fx_interp(t, "/home/ann/miniforge3", 12, "3.12.4", 0);
    fx_dist(t, "/home/ann/miniforge3/lib/python3.12/site-packages", "x-1.dist-info", "x", "1");
    struct factset fs;
    factset_init(&fs);
    fx_probe(t, NULL, NULL, &fs);
    assert_fact(&fs, "python.env.opt_aws_neuronx_venv_a_b.path",
                "/opt/aws_neuronx_venv_a-b/bin/python3");
    assert_warning(&fs, "/opt/aws_neuronx_venv_a_b: slug opt_aws_neuronx_venv_a_b already taken");
    assert_fact(&fs, "python.env.home_ann_miniforge3.version", "3.12.4");
    assert_fact(&fs, "python.env.home_ann_miniforge3.pip.x", "1");
    assert_no_fact(&fs, "python.env.opt_conda_envs_nopython.path");
    assert_no_fact(&fs, "python.env.system.path");   /* the workload */
    factset_free(&fs);
    fx_rmrf(t);
    free(t);
}

/* The remaining bounds of python_env.h, each crossed once. */
static void more_bounds(void **state)
{
    char *t = base_root("bounds");
    const char *sp = "/usr/lib/python3/dist-packages";
    char p[4096];
    size_t big = PY_SMALL_FILE_MAX + 1;
    char *buf = malloc(big + PY_PTH_FILE_MAX + 1);
    /* a .pth file one byte past PY_PTH_FILE_MAX */
    memset(buf, '#', PY_PTH_FILE_MAX + 1);
    snprintf(p, sizeof p, "%s/huge.pth", sp);
    fx_write(t, p, buf, PY_PTH_FILE_MAX + 1);
    /* a Name of PY_FIELD_MAX bytes */
    char name[PY_FIELD_MAX + 1];
    memset(name, 'n', PY_FIELD_MAX);
    name[PY_FIELD_MAX] = '\0';
    fx_dist(t, sp, "long-1.dist-info", name, "1");
    /* PY_ENVS_MAX + 1 DLAMI venv folders and PY_HOMES_MAX + 1 homes */
    for (int i = 0; i <= PY_ENVS_MAX; i++) {
        snprintf(p, sizeof p, "/opt/aws_neuronx_venv_%03d/pyvenv.cfg", i);
        fx_write(t, p, "home = /usr/bin\n", -1);
    }
    for (int i = 0; i <= PY_HOMES_MAX; i++) {
        snprintf(p, sizeof p, "/home/u%03d/.profile", i);
        fx_write(t, p, "", 0);
    }
    /* an interpreter deeper than PY_UPWARD_MAX folders below its stdlib */
    char deep[1024] = "";
    for (int i = 0; i < PY_UPWARD_MAX + 2; i++)
        strcat(deep, "/d");
    snprintf(p, sizeof p, "/lib/python3.11/os.py");
    fx_write(t, p, "", 0);
    snprintf(p, sizeof p, "%s/bin/python3.11", deep);
    fx_write(t, p, "\x7f" "ELF", 4);
    /* a pyvenv.cfg past PY_SMALL_FILE_MAX */
    memset(buf, ' ', big);
    memcpy(buf, "home = /usr/bin\n", 16);
    fx_write(t, "/v/pyvenv.cfg", buf, (long)big);
    fx_link(t, "/v/bin/python3", "/usr/bin/python3.11");
    free(buf);

    struct factset fs;
    factset_init(&fs);
    fx_probe(t, NULL, NULL, &fs);
    assert_warning(&fs, "huge.pth: larger than the read limit");
    assert_warning(&fs, "long-1.dist-info/METADATA: Name or Version longer than 256 bytes");
    assert_warning(&fs, "more than 64 environments");
    assert_warning(&fs, "/home: more than 64 folders");
    factset_free(&fs);
    factset_init(&fs);
    snprintf(p, sizeof p, "%s/bin/python3.11", deep);
    fx_probe(t, p, NULL, &fs);
    assert_warning(&fs, "no lib/python3.X/os.py found");
    factset_free(&fs);
    factset_init(&fs);
    fx_probe(t, "/v/bin/python3", NULL, &fs);
    assert_warning(&fs, "/v/pyvenv.cfg: larger than the read limit");
    assert_fact(&fs, "python.prefix", "/v");   /* still a venv, read defaults */
    factset_free(&fs);

    /* PY_PATH_ENTRIES_MAX entries on $PATH before the one with python3 */
    size_t cap = (PY_PATH_ENTRIES_MAX + 2) * 8;
    char *path = malloc(cap + 16);
    strcpy(path, "PATH=");
    for (int i = 0; i < PY_PATH_ENTRIES_MAX; i++)
        strcat(path, "/nope:");
    strcat(path, "/v/bin");
    char *env[] = { path, NULL };
    factset_init(&fs);
    fx_probe(t, NULL, env, &fs);
    assert_fact(&fs, "python.path", "/usr/bin/python3");
    assert_non_null(strstr(fx_evidence(&fs, "python.path"), "(none on $PATH)"));
    factset_free(&fs);
    free(path);
    fx_rmrf(t);
    free(t);
}

/* No key of FS starts with one of the workload's prefixes (python.path,
 * python.prefix, python.version, pip.*, torch.*). */
static void assert_no_workload_facts(const struct factset *fs)
{
    static const char *const prefixes[] = { "python.path", "python.prefix", "python.version",
                                            "pip.", "torch." };
    for (size_t i = 0; i < fs->count; i++)
        for (size_t k = 0; k < sizeof prefixes / sizeof *prefixes; k++)
            if (strncmp(fs->facts[i].key, prefixes[k], strlen(prefixes[k])) == 0)
                fail_msg("fact %s = \"%s\", expected absent", fs->facts[i].key,
                         fs->facts[i].value);
}

/* --python naming something that is not a Python 3 interpreter: the stdlib
 * must be the interpreter's own (CPython's getpath.py finds the prefix from
 * the executable's location), never another Python's found by climbing. */
/* A root with /usr's Python 3.11 and its stdlib, /bin/sh -> /usr/bin/dash
 * and /usr/bin/ls: what the not-an-interpreter cases start from (free the
 * returned folder after fx_rmrf). */
static char *notpy_root(void)
{
    char *t = fx_tmpdir("notpy");
    fx_interp(t, "/usr", 11, "3.11.2", 1);
    fx_dist(t, "/usr/lib/python3/dist-packages", "six-1.16.0.dist-info", "six", "1.16.0");
    fx_dist(t, "/usr/lib/python3/dist-packages", "torch-1.13.1.dist-info", "torch", "1.13.1");
    /* /bin/sh -> /usr/bin/dash and /usr/bin/ls: ELF files without a Python
     * version string, beside /usr's stdlib */
    fx_write(t, "/usr/bin/dash", "\x7f" "ELF\0dash 0.5.12\0", 17);
    fx_link(t, "/bin/sh", "/usr/bin/dash");
    fx_write(t, "/usr/bin/ls", "\x7f" "ELF\0GNU coreutils 9.1\0", 24);
    return t;
}

static void not_an_interpreter(void **state)
{
    char *t = notpy_root();
    static const char *const cases[][2] = {
        { "/bin/sh", "python: /bin/sh: not a Python 3 interpreter (resolves to /usr/bin/dash" },
        { "/usr/bin/ls", "python: /usr/bin/ls: not a Python 3 interpreter" },
    };
    for (size_t i = 0; i < 2; i++) {
        struct factset fs;
        factset_init(&fs);
        fx_probe(t, cases[i][0], NULL, &fs);
        assert_no_workload_facts(&fs);
        assert_warning(&fs, cases[i][1]);
        /* the system interpreter is still recorded as another environment */
        assert_fact(&fs, "python.env.system.version", "3.11.2");
        factset_free(&fs);
    }

    /* another name, but the file holds a 3.11.N version string: a Python 3
     * interpreter (a renamed or embedded build) */
    fx_write(t, "/usr/bin/custom-py", "\x7f" "ELF\0" "3.11.2\0", 12);
    struct factset fs;
    factset_init(&fs);
    fx_probe(t, "/usr/bin/custom-py", NULL, &fs);
    assert_fact(&fs, "python.path", "/usr/bin/custom-py");
    assert_fact(&fs, "python.version", "3.11.2");
    assert_fact(&fs, "pip.six", "1.16.0");
    factset_free(&fs);

    fx_rmrf(t);
    free(t);
}

/* Interpreters elsewhere in the same root that are not the workload's:
 * no stdlib of their own, Python 2, a venv linked to a non-Python. */
static void not_an_interpreter_elsewhere(void **state)
{
    char *t = notpy_root();
    struct factset fs;
    /* an interpreter whose own prefix has no stdlib: the one at / three
     * folders up is not taken */
    fx_write(t, "/lib/python3.11/os.py", "", 0);
    fx_write(t, "/opt/tool/bin/python3.11", "\x7f" "ELF\0" "3.11.2\0", 12);
    factset_init(&fs);
    fx_probe(t, "/opt/tool/bin/python3.11", NULL, &fs);
    assert_no_fact(&fs, "python.prefix");
    assert_no_fact(&fs, "pip.six");
    assert_warning(&fs, "python: /opt/tool/bin/python3.11: no lib/python3.X/os.py found in "
                   "/opt/tool/bin or /opt/tool; environment not read");
    factset_free(&fs);

    /* Python 2, by its resolved name (pyenv's 2.7.18/bin/python2) or by
     * its stdlib (a binary named python beside lib/python2.7) */
    fx_write(t, "/opt/py2/bin/python2.7", "\x7f" "ELF\0" "2.7.18\0", 12);
    fx_link(t, "/opt/py2/bin/python2", "python2.7");
    fx_write(t, "/opt/py2/lib/python2.7/os.py", "", 0);
    fx_dist(t, "/opt/py2/lib/python2.7/site-packages", "six-1.15.0.dist-info", "six", "1.15.0");
    fx_write(t, "/opt/py2b/bin/python", "\x7f" "ELF\0" "2.7.18\0", 12);
    fx_write(t, "/opt/py2b/lib/python2.7/os.pyc", "", 0);
    static const char *const py2[][2] = {
        { "/opt/py2/bin/python2", "python: /opt/py2/bin/python2: a Python 2 interpreter "
          "(resolves to /opt/py2/bin/python2.7); Python 2 is not supported" },
        { "/opt/py2b/bin/python", "python: /opt/py2b/bin/python: a Python 2 interpreter" },
    };
    for (size_t i = 0; i < 2; i++) {
        factset_init(&fs);
        fx_probe(t, py2[i][0], NULL, &fs);
        assert_no_workload_facts(&fs);
        assert_warning(&fs, py2[i][1]);
        assert_warning(&fs, "Python 2 is not supported");
        factset_free(&fs);
    }

    /* a venv whose python3 links to a non-Python: not one either, though
     * its `home` holds a stdlib */
    fx_write(t, "/srv/v/pyvenv.cfg", "home = /usr/bin\nversion = 3.11.2\n", -1);
    fx_link(t, "/srv/v/bin/python3", "/usr/bin/dash");
    factset_init(&fs);
    fx_probe(t, "/srv/v/bin/python3", NULL, &fs);
    assert_no_workload_facts(&fs);
    assert_warning(&fs, "python: /srv/v/bin/python3: not a Python 3 interpreter");
    factset_free(&fs);
    fx_rmrf(t);
    free(t);
}

/* CPython's three prefix landmarks (Modules/getpath.py): os.py, os.pyc
 * alone, or the zipped stdlib lib/python3X.zip; and a venv whose base
 * interpreter's stdlib is gone still lists its own site-packages, with the
 * version from pyvenv.cfg and one warning. */
static void unusual_stdlib(void **state)
{
    char *t = fx_tmpdir("stdlib");
    struct factset fs;
    /* zipped stdlib: the minor from the name, or from python3X.zip alone */
    fx_write(t, "/opt/zp/bin/python3.12", "\x7f" "ELF\0" "3.12.4\0", 12);
    fx_write(t, "/opt/zp/lib/python312.zip", "PK\5\6", 4);
    fx_dist(t, "/opt/zp/lib/python3.12/site-packages", "six-1.16.0.dist-info", "six", "1.16.0");
    fx_write(t, "/opt/zq/bin/python3", "\x7f" "ELF\0" "3.13.1\0", 12);
    fx_write(t, "/opt/zq/lib/python313.zip", "PK\5\6", 4);
    fx_dist(t, "/opt/zq/lib/python3.13/site-packages", "six-1.17.0.dist-info", "six", "1.17.0");
    /* a stdlib shipped compiled only */
    fx_write(t, "/opt/pc/bin/python3.11", "\x7f" "ELF\0" "3.11.9\0", 12);
    fx_write(t, "/opt/pc/lib/python3.11/os.pyc", "", 0);
    fx_dist(t, "/opt/pc/lib/python3.11/site-packages", "six-1.15.0.dist-info", "six", "1.15.0");
    static const char *const cases[][3] = {
        { "/opt/zp/bin/python3.12", "3.12.4", "1.16.0" },
        { "/opt/zq/bin/python3", "3.13.1", "1.17.0" },
        { "/opt/pc/bin/python3.11", "3.11.9", "1.15.0" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        factset_init(&fs);
        fx_probe(t, cases[i][0], NULL, &fs);
        assert_fact(&fs, "python.version", cases[i][1]);
        assert_fact(&fs, "pip.six", cases[i][2]);
        factset_free(&fs);
    }

    /* a venv whose base (home = /opt/gone/bin) lost its stdlib: the venv's
     * own site-packages, Python 3.11.7 from version_info, one warning
     * although the workload, the environment list and torch all open it */
    fx_write(t, "/opt/gone/bin/python3", "\x7f" "ELF\0" "3.11.7\0", 12);
    fx_write(t, "/opt/aws_neuronx_venv_x/pyvenv.cfg",
             "home = /opt/gone/bin\nversion_info = 3.11.7.final.0\n", -1);
    fx_link(t, "/opt/aws_neuronx_venv_x/bin/python3", "/opt/gone/bin/python3");
    fx_dist(t, "/opt/aws_neuronx_venv_x/lib/python3.11/site-packages", "torch-2.9.0.dist-info",
            "torch", "2.9.0");
    factset_init(&fs);
    fx_probe(t, "/opt/aws_neuronx_venv_x/bin/python3", NULL, &fs);
    assert_fact(&fs, "pip.torch", "2.9.0");
    assert_fact(&fs, "python.version", "3.11.7");
    size_t n = 0;
    for (size_t i = 0; i < fs.nwarnings; i++)
        n += strstr(fs.warnings[i], "its base interpreter's stdlib") != NULL;
    assert_int_equal(n, 1);
    assert_warning(&fs, "python: /opt/aws_neuronx_venv_x/bin/python3: its base interpreter's "
                   "stdlib (lib/python3.X/os.py, os.pyc or python3X.zip) is not in /opt/gone/bin "
                   "or /opt/gone; only the venv's own "
                   "/opt/aws_neuronx_venv_x/lib/python3.11/site-packages is read, Python 3.11 "
                   "from /opt/aws_neuronx_venv_x/pyvenv.cfg");
    factset_free(&fs);
    fx_rmrf(t);
    free(t);

    /* the system interpreter without a stdlib is opened as the workload and
     * as an environment: one warning, not two */
    t = fx_tmpdir("stdlib2");
    fx_write(t, "/usr/bin/python3.11", "\x7f" "ELF\0" "3.11.2\0", 12);
    fx_link(t, "/usr/bin/python3", "python3.11");
    factset_init(&fs);
    fx_probe(t, NULL, NULL, &fs);
    n = 0;
    for (size_t i = 0; i < fs.nwarnings; i++)
        n += strstr(fs.warnings[i], "/usr/bin/python3: no lib/python3.X/os.py found") != NULL;
    assert_int_equal(n, 1);
    factset_free(&fs);
    fx_rmrf(t);
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(trn1_xla),
        cmocka_unit_test(trn2_native),
        cmocka_unit_test(trn3_venv),
        cmocka_unit_test(inf2_xla),
        cmocka_unit_test(inf1_legacy),
        cmocka_unit_test(gpu_conda),
        cmocka_unit_test(container_bare),
        cmocka_unit_test(deterministic),
        cmocka_unit_test(no_python),
        cmocka_unit_test(not_an_interpreter),
        cmocka_unit_test(not_an_interpreter_elsewhere),
        cmocka_unit_test(unusual_stdlib),
        cmocka_unit_test(live_choice),
        cmocka_unit_test(sys_path_order),
        cmocka_unit_test(version_scan),
        cmocka_unit_test(version_files),
        cmocka_unit_test(metadata_bad),
        cmocka_unit_test(metadata_big),
        cmocka_unit_test(loops_and_denied),
        cmocka_unit_test(pth_bounds),
        cmocka_unit_test(dists_bound),
        cmocka_unit_test(envs_and_slugs),
        cmocka_unit_test(more_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
