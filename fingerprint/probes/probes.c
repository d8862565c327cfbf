/* fingerprint/probes/probes.c: the probe table and helpers shared by all probes. */
#include "fingerprint/probes/probe.h"
#include "fingerprint/probes/python/python_env.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Run order matters where a probe reads an earlier one's facts:
 * dmi before pci and neuron-driver (instance family), pci before
 * neuron-driver (device kind for core counts), python before torch
 * (the workload environment), env before torch (backend env markers),
 * dmi before imds (imds fills only what DMI could not), dmi and imds
 * before neuron-cache (the instance family its targets are compared with),
 * runtime last
 * (--deep compares what the interpreter imports with every static fact). */
const struct probe sp_probes[] = {
    { "os-release", probe_os_release },
    { "uname", probe_uname },
    { "hostname", probe_hostname },
    { "dmi", probe_dmi },
    { "pci", probe_pci },
    { "neuron-driver", probe_neuron_driver },
    { "neuron-lib", probe_neuron_lib },
    { "dpkg", probe_dpkg },
    { "rpm", probe_rpm },
    { "env", probe_env },
    { "python", probe_python },
    { "torch", probe_torch },
    { "efa", probe_efa },
    { "gpu", probe_gpu },
    { "container", probe_container },
    { "imds", probe_imds },
    { "neuron-cache", probe_compile_cache },
    { "neff", probe_neff },
    { "runtime", probe_runtime },
    { NULL, NULL },
};

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
