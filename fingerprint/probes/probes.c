/* fingerprint/probes/probes.c: the probe table and helpers shared by all probes. */
#include "fingerprint/probes/probe.h"
#include "fingerprint/probes/python/python_env.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Each row names the probes whose facts it reads (AFTER: they must come
 * earlier in the table; tests/unit/test_probes.c checks it) and the paths
 * it reads in a root (READS: image roots keep the content of the union of
 * these, fingerprint/root/image_keep.c).  A pattern that starts with '/'
 * matches the whole path; any other matches the path's last components,
 * anywhere in the tree; '*' never crosses a '/'.  The patterns are generous
 * on purpose, so that a probe reading one more file of the same kind finds
 * it in an image too.  RECORD and installed-files.txt are left out: they
 * list every file (megabytes for torch) and no probe reads them. */
#define LIST(...) ((const char *const[]){ __VA_ARGS__, NULL })

const struct probe sp_probes[] = {
    { "os-release", probe_os_release, NULL,
      LIST("/etc/os-release", "/usr/lib/os-release", "/etc/*-release", "/etc/*_version") },
    { "uname", probe_uname, NULL, NULL },
    { "hostname", probe_hostname, NULL, LIST("/etc/hostname") },
    { "dmi", probe_dmi, NULL, NULL },
    /* the instance family decides which devices count */
    { "pci", probe_pci, LIST("dmi"), NULL },
    /* the instance family, and the device kind for core counts */
    { "neuron-driver", probe_neuron_driver, LIST("dmi", "pci"),
      LIST("/opt/aws/neuron/*", "/opt/aws/neuron/*/*.txt", "/opt/aws/neuron/*/*.json",
           "/opt/aws/neuron/*/version*", "/var/lib/dkms/*/*/source/dkms.conf",
           "/usr/src/*/dkms.conf") },
    { "neuron-lib", probe_neuron_lib, NULL, LIST("/opt/aws/neuron/*") },
    { "dpkg", probe_dpkg, NULL, LIST("/var/lib/dpkg/status", "/var/lib/dpkg/status.d/*") },
    { "rpm", probe_rpm, NULL, LIST("/var/lib/rpm/*", "/usr/lib/sysimage/rpm/*") },
    { "env", probe_env, NULL, LIST("/etc/environment") },
    { "python", probe_python, NULL,
      LIST("*.dist-info/METADATA", "*.dist-info/entry_points.txt", "*.dist-info/INSTALLER",
           "*.dist-info/direct_url.json", "*.dist-info/top_level.txt", "*.dist-info/WHEEL",
           "*.dist-info/REQUESTED",
           "*.egg-info", "*.egg-info/PKG-INFO", "*.egg-info/entry_points.txt",
           "*.egg-info/requires.txt", "*.egg-info/top_level.txt",
           "pyvenv.cfg", "conda-meta/*.json", "conda-meta/history",
           "bin/python*", "bin/pypy*", "sbin/python*", "libpython*.so*", "patchlevel.h",
           "_sysconfigdata*.py", "python*/site.py", ".pyenv/version", ".python-version",
           "*-packages/*.pth") },
    /* the workload environment (python), the backend markers (env) */
    { "torch", probe_torch, LIST("python", "env"),
      LIST("torch/version.py", "torch/_version.py",
           "*-packages/torch*/*.py", "*-packages/torch*/*.json", "*-packages/torch*/*.txt",
           "*-packages/*neuron*/*.py", "*-packages/*neuron*/*.json",
           "*-packages/*neuron*/*.txt", "*-packages/jax*/version.py", "*-packages/nki*/*.py") },
    { "efa", probe_efa, NULL,
      LIST("/opt/amazon/efa_installed_packages", "/opt/amazon/efa/*/version*") },
    { "gpu", probe_gpu, NULL,
      LIST("/usr/local/cuda*/version.json", "/usr/local/cuda*/version.txt",
           "/usr/local/cuda*/include/cuda.h", "/proc/driver/nvidia/version") },
    { "container", probe_container, NULL,
      LIST("/.dockerenv", "/run/.containerenv", "/etc/hosts", "/etc/resolv.conf") },
    /* fills only what DMI could not */
    { "imds", probe_imds, LIST("dmi"), NULL },
    /* the instance family its targets are compared with */
    { "neuron-cache", probe_compile_cache, LIST("dmi", "imds"),
      LIST("MODULE_*/compile_flags.json") },
    { "neff", probe_neff, NULL, NULL },
    /* the image's own identity (image roots only: config, manifest, layers) */
    { "image", probe_image, NULL, NULL },
    /* --deep compares what the interpreter imports with every static fact */
    { "runtime", probe_runtime, LIST("*"), NULL },
    { NULL, NULL, NULL, NULL },
};

static const char *reads_union[SP_PROBE_READS_MAX + 1];
static pthread_once_t reads_once = PTHREAD_ONCE_INIT;

static void reads_build(void)
{
    size_t n = 0;
    for (const struct probe *p = sp_probes; p->name; p++)
        for (const char *const *r = p->reads; r && *r; r++) {
            size_t i = 0;
            while (i < n && strcmp(reads_union[i], *r) != 0)
                i++;
            if (i == n && n < SP_PROBE_READS_MAX)
                reads_union[n++] = *r;
        }
    reads_union[n] = NULL;
}

const char *const *probe_read_patterns(void)
{
    pthread_once(&reads_once, reads_build);
    return reads_union;
}

int probe_run_all(struct probe_ctx *ctx, struct sp_error *e)
{
    int rc = 0;
    for (const struct probe *p = sp_probes; p->name && rc == 0; p++)
        rc = p->run(ctx, e) != 0 ? -1 : 0;
    py_workload_release(ctx);
    return rc;
}

const char *probe_getenv(const struct probe_ctx *ctx, const char *name)
{
    if (!ctx->root->live || ctx->environ == NULL)
        return NULL;
    size_t nl = strlen(name);
    for (char *const *v = ctx->environ; *v; v++)
        if (strncmp(*v, name, nl) == 0 && (*v)[nl] == '=')
            return *v + nl + 1;
    return NULL;
}

void probe_warn_errno(struct probe_ctx *ctx, const char *what, const char *path, int err)
{
    const char *msg;
    switch (err) {
    case EACCES: case EPERM: msg = "permission denied"; break;
    case ENOENT: msg = "no such file"; break;
    case ELOOP: msg = "symlink loop"; break;
    case EFBIG: msg = "larger than the read limit"; break;
    case EINVAL: msg = "not a regular file"; break;
    case ENODATA: msg = "empty"; break;
    case EISDIR: msg = "is a directory"; break;
    case ENOTDIR: msg = "not a directory"; break;
    case E2BIG: msg = "too many entries"; break;
    case ENOTSUP: msg = "content not kept from the image"; break;
    default: msg = strerror(err); break;
    }
    factset_warn(ctx->facts, "%s: %s: %s", what, path, msg);
}

static int bulk_key(const char *key)
{
    static const char *const bulk[] = SP_FACT_BULK_PREFIXES;
    for (size_t i = 0; i < sizeof bulk / sizeof *bulk; i++)
        if (strncmp(key, bulk[i], strlen(bulk[i])) == 0)
            return 1;
    return 0;
}

int probe_dropped(struct probe_ctx *ctx, const char *key, size_t bound,
                  unsigned long long n)
{
    const char *was = factset_get(ctx->facts, SP_FACTS_DROPPED_KEY);
    unsigned long long had = was ? strtoull(was, NULL, 10) : 0;
    if (had < 10 || had / 1000 != (had + n) / 1000)
        factset_warn(ctx->facts, "%s: not recorded: the manifest already holds %zu facts "
                     "(%llu dropped so far; see " SP_FACTS_DROPPED_KEY ")", key, bound, had + n);
    return factset_setf(ctx->facts, SP_FACTS_DROPPED_KEY, "fact cap", "%llu", had + n) == 0 ||
           errno != ENOMEM ? 0 : -1;
}

int probe_set(struct probe_ctx *ctx, const char *key, const char *value,
              const char *evidence)
{
    if (factset_find(ctx->facts, key) == NULL) {
        size_t have = ctx->facts->count;
        if (bulk_key(key) && have >= SP_FACTS_BULK_MAX)
            return probe_dropped(ctx, key, SP_FACTS_BULK_MAX, 1);
        if (have >= SP_FACTS_MAX - 1)
            return probe_dropped(ctx, key, SP_FACTS_MAX - 1, 1);
    }
    if (factset_set(ctx->facts, key, value, evidence) == 0)
        return 0;
    if (errno == ENOMEM)
        return -1;
    if (errno == ENOSPC)
        return probe_dropped(ctx, key, SP_FACTS_MAX, 1);
    if (errno == EILSEQ) {
        char shown[64];
        size_t i = 0;
        for (; key[i] && i < sizeof shown - 1; i++)
            shown[i] = (key[i] > 0x20 && key[i] < 0x7f) ? key[i] : '?';
        shown[i] = '\0';
        factset_warn(ctx->facts, "%s: %s: the key has bytes outside the fact-key alphabet "
                     "(stackprint-manifest(5)); not recorded", shown, evidence ? evidence : "?");
        return 0;
    }
    factset_warn(ctx->facts, "%s: %s: value %s, not recorded", key,
                 evidence ? evidence : "?",
                 errno == E2BIG ? "too long" : "empty");
    return 0;
}
