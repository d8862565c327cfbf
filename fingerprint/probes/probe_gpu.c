/* fingerprint/probes/probe_gpu.c: the GPU baseline a migration compares against
 * (doc/DOMAIN.md section 7): the loaded NVIDIA driver (/sys/module/nvidia/version,
 * else /proc/driver/nvidia/version on the live host) and the CUDA toolkit
 * under /usr/local/cuda: version.json ("cuda" -> "version", read with
 * jansson), else version.txt ("CUDA Version X.Y.Z"), else include/cuda.h's
 * CUDA_VERSION (major*1000 + minor*10: major.minor only), which is all a
 * toolkit assembled from NVIDIA's pip wheels carries.  Device counts are the
 * pci probe's.  Must not: run nvidia-smi or nvcc. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "fingerprint/probes/probe.h"
#include "fingerprint/probes/probe_util.h"

#define NVIDIA_MODULE "/sys/module/nvidia/version"
#define NVIDIA_PROC "/proc/driver/nvidia/version"
#define CUDA_JSON "/usr/local/cuda/version.json"
#define CUDA_TXT "/usr/local/cuda/version.txt"
#define CUDA_H "/usr/local/cuda/include/cuda.h"
#define CUDA_JSON_MAX (256u * 1024)    /* version.json is a few KiB */
#define CUDA_H_SCAN_MAX (256u * 1024)  /* CUDA_VERSION is defined near the top */

static int nvidia_driver(struct probe_ctx *ctx)
{
    char line[512];
    if (root_read_line(ctx->root, NVIDIA_MODULE, line, sizeof line) == 0) {
        if (version_looks_valid(line))
            return probe_set(ctx, "gpu.nvidia.driver", line, NVIDIA_MODULE);
        factset_warn(ctx->facts, "gpu.nvidia.driver: " NVIDIA_MODULE ": malformed version");
        return 0;
    }
    if (errno != ENOENT)
        probe_warn_errno(ctx, "gpu.nvidia.driver", NVIDIA_MODULE, errno);
    if (!ctx->root->live)
        return 0;
    /* "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug ..." */
    if (root_read_line(ctx->root, NVIDIA_PROC, line, sizeof line) != 0) {
        if (errno != ENOENT)
            probe_warn_errno(ctx, "gpu.nvidia.driver", NVIDIA_PROC, errno);
        return 0;
    }
    char *mod = strstr(line, "Kernel Module");
    for (char *tok = mod ? strtok(mod + 13, " \t") : NULL; tok; tok = strtok(NULL, " \t"))
        if (version_is_numeric(tok, 2))
            return probe_set(ctx, "gpu.nvidia.driver", tok, NVIDIA_PROC);
    factset_warn(ctx->facts, "gpu.nvidia.driver: " NVIDIA_PROC ": no version found");
    return 0;
}

static int cuda_json(struct probe_ctx *ctx)
{
    char *buf;
    size_t len;
    if (root_read_file(ctx->root, CUDA_JSON, CUDA_JSON_MAX, &buf, &len) != 0) {
        if (errno == ENOENT)
            return 1;
        probe_warn_errno(ctx, "cuda.toolkit.version", CUDA_JSON, errno);
        return 1;
    }
    json_error_t err;
    json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &err);
    free(buf);
    const char *version = NULL;
    if (root) {
        json_t *cuda = json_object_get(root, "cuda");
        version = json_string_value(json_object_get(cuda, "version"));
    }
    int rc = 1;
    if (root == NULL)
        factset_warn(ctx->facts, "cuda.toolkit.version: " CUDA_JSON ":%d: %s", err.line,
                     err.text);
    else if (version == NULL || !version_looks_valid(version))
        factset_warn(ctx->facts, "cuda.toolkit.version: " CUDA_JSON ": no \"cuda\" "
                     "\"version\" string");
    else
        rc = probe_set(ctx, "cuda.toolkit.version", version, CUDA_JSON "#cuda.version");
    json_decref(root);
    return rc;
}

static int cuda_txt(struct probe_ctx *ctx)
{
    char line[256];
    if (root_read_line(ctx->root, CUDA_TXT, line, sizeof line) != 0) {
        if (errno != ENOENT)
            probe_warn_errno(ctx, "cuda.toolkit.version", CUDA_TXT, errno);
        return 1;
    }
    const char *p = strncmp(line, "CUDA Version ", 13) == 0 ? line + 13 : NULL;
    if (p && version_is_numeric(p, 2))
        return probe_set(ctx, "cuda.toolkit.version", p, CUDA_TXT);
    factset_warn(ctx->facts, "cuda.toolkit.version: " CUDA_TXT ":1: not \"CUDA Version X.Y.Z\"");
    return 1;
}

struct header_scan {
    char line[256];
    size_t len;
    int skipping;            /* inside an over-long line */
    long value;              /* CUDA_VERSION, or -1 */
};

static int header_line(struct header_scan *h)
{
    static const char def[] = "#define CUDA_VERSION";
    h->line[h->len] = '\0';
    if (strncmp(h->line, def, sizeof def - 1) == 0 && isspace((unsigned char)h->line[sizeof def - 1])) {
        char *end;
        const char *p = h->line + sizeof def;
        p += strspn(p, " \t");
        long code = strtol(p, &end, 10);
        if (end != p && code >= 1000 && code < 1000000) {
            h->value = code;
            return 1;
        }
    }
    return 0;
}

static int header_chunk(void *c, const char *chunk, size_t n)
{
    struct header_scan *h = c;
    for (size_t i = 0; i < n; i++) {
        if (chunk[i] == '\n') {
            if (!h->skipping && header_line(h))
                return 1;
            h->len = 0;
            h->skipping = 0;
        } else if (h->len < sizeof h->line - 1) {
            h->line[h->len++] = chunk[i];
        } else {
            h->skipping = 1;
        }
    }
    return 0;
}

static int cuda_header(struct probe_ctx *ctx)
{
    struct header_scan h = { .value = -1 };
    if (root_scan_file(ctx->root, CUDA_H, CUDA_H_SCAN_MAX, header_chunk, &h) != 0) {
        if (errno != ENOENT)
            probe_warn_errno(ctx, "cuda.toolkit.version", CUDA_H, errno);
        return 0;
    }
    if (h.value < 0) {
        factset_warn(ctx->facts, "cuda.toolkit.version: " CUDA_H ": no CUDA_VERSION "
                     "in the first %u bytes", CUDA_H_SCAN_MAX);
        return 0;
    }
    char version[32], ev[128];
    snprintf(version, sizeof version, "%ld.%ld", h.value / 1000, (h.value % 1000) / 10);
    snprintf(ev, sizeof ev, CUDA_H " (CUDA_VERSION %ld)", h.value);
    return probe_set(ctx, "cuda.toolkit.version", version, ev);
}

int probe_gpu(struct probe_ctx *ctx, struct sp_error *e)
{
    int rc = nvidia_driver(ctx);
    if (rc == 0 && (rc = cuda_json(ctx)) == 1 && (rc = cuda_txt(ctx)) == 1)
        rc = cuda_header(ctx);
    return rc < 0 ? sp_fail(e, SP_EXIT_INPUT, "gpu: out of memory") : 0;
}
