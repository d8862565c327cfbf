/* manifest/fact_keys.c: the documented fact keys and the nearest-key
 * look-ups; see fact_keys.h.
 *
 * To document a new fact: add one line below and its entry in the page
 * named (tests/sh/fact_keys.sh compares the two both ways). */
#include "manifest/fact_keys.h"

#include <string.h>

#define MAN "stackprint-manifest(5)"
#define POL "stackprint-policy(5)"
#define D SP_FACT_KEY_DOCUMENTED
#define N SP_FACT_KEY_NAME

const struct sp_fact_key_doc sp_fact_keys[] = {
    /* host */
    { "host.os.id", D, MAN },
    { "host.os.version_id", D, MAN },
    { "host.os.pretty_name", D, MAN },
    { "host.arch", D, MAN },
    { "host.kernel", D, MAN },
    { "host.hostname", D, MAN },
    { "host.cloud", D, MAN },
    { "host.instance_type", D, MAN },
    { "host.instance_family", D, MAN },
    { "host.instance_id", D, MAN },
    /* python and torch */
    { "python.path", D, MAN },
    { "python.prefix", D, MAN },
    { "python.version", D, MAN },
    { "pip.*", D, MAN },
    { "python.env.*.path", D, MAN },
    { "python.env.*.version", D, MAN },
    { "python.env.*.pip.*", D, MAN },
    { "torch.build.cuda", D, MAN },
    { "torch.build.git", D, MAN },
    { "torch.backend", D, MAN },
    /* what the interpreter itself reports (probe --deep) */
    { "runtime.python.version", D, MAN },
    { "runtime.python.prefix", D, MAN },
    { "runtime.python.executable", D, MAN },
    { "runtime.torch.version", D, MAN },
    { "runtime.torch.file", D, MAN },
    { "runtime.torch.cuda", D, MAN },
    { "runtime.torch.cxx11_abi", D, MAN },
    { "runtime.torch.privateuse1", D, MAN },
    { "runtime.torch_neuronx.version", D, MAN },
    { "runtime.torch_neuronx.file", D, MAN },
    { "runtime.torch_neuronx.imports_torch_xla", D, MAN },
    { "runtime.torch.backend", D, MAN },
    { "runtime.disagreements", D, MAN },
    /* the Neuron compile cache and NEFF files */
    { "neuron.cache.path", D, MAN },
    { "neuron.cache.url", D, MAN },
    { "neuron.cache.compilers", D, MAN },
    { "neuron.cache.modules", D, MAN },
    { "neuron.cache.modules_by_compiler", D, MAN },
    { "neuron.cache.locked", D, MAN },
    { "neuron.cache.failed", D, MAN },
    { "neuron.cache.targets", D, MAN },
    { "neuron.cache.other_targets", D, MAN },
    { "neuron.neff.*.path", D, MAN },
    { "neuron.neff.*.size", D, MAN },
    { "neuron.neff.*.sha256", D, MAN },
    /* image */
    { "image.config_digest", D, MAN },
    { "image.manifest_digest", D, MAN },
    { "image.manifest_digest_source", D, MAN },
    { "image.ref", D, MAN },
    { "image.os", D, MAN },
    { "image.architecture", D, MAN },
    { "image.variant", D, MAN },
    { "image.layers", D, MAN },
    { "image.layer.*.diff_id", D, MAN },
    /* devices, driver, libraries */
    { "neuron.device.count", D, MAN },
    { "neuron.device.kind", D, MAN },
    { "neuron.device.pci_id", D, MAN },
    { "efa.device.count", D, MAN },
    { "gpu.device.count", D, MAN },
    { "gpu.device.pci_id", D, MAN },
    { "neuron.driver.version", D, MAN },
    { "neuron.driver.dkms", D, MAN },
    { "neuron.core.count", D, MAN },
    { "neuron.lnc", D, MAN },
    { "neuron.runtime.version", D, MAN },
    { "neuron.collectives.version", D, MAN },
    /* system packages, EFA, GPU, container, environment */
    { "deb.*", D, MAN },
    { "rpm.*", D, MAN },
    { "efa.installer.version", D, MAN },
    { "efa.driver.version", D, MAN },
    { "gpu.nvidia.driver", D, MAN },
    { "cuda.toolkit.version", D, MAN },
    { "container.runtime", D, MAN },
    { "container.id", D, MAN },
    { "container.image_digest", D, MAN },
    { "env.*", D, MAN },
    /* derived from the release catalog by stackprint check */
    { "neuron.sdk.release", D, POL },
    { "neuron.sdk.candidates", D, POL },
    { "neuron.sdk.nearest", D, POL },
    { "neuron.sdk.odd", D, POL },
    { "neuron.sdk.release_of.*", D, POL },
    { "neuron.sdk.uncatalogued", D, POL },
    { "neuron.sdk.compiler_release", D, POL },
    { "neuron.sdk.runtime_release", D, POL },
    { "neuron.sdk.driver_release", D, POL },
    { "neuron.sdk.runtime_version", D, POL },
    { "neuron.sdk.driver_version", D, POL },
    { "neuron.sdk.x_packages", D, POL },
    { "neuron.sdk.python", D, POL },
    { "neuron.sdk.instances", D, POL },
    { "neuron.sdk.cache_compiler_release", D, POL },
    /* well-known names under the patterns above */
    { "pip.torch", N, MAN },
    { "pip.torch-neuronx", N, MAN },
    { "pip.torch-neuron", N, MAN },
    { "pip.torch-xla", N, MAN },
    { "pip.neuronx-cc", N, MAN },
    { "pip.neuron-cc", N, MAN },
    { "pip.libneuronxla", N, MAN },
    { "deb.aws-neuronx-dkms", N, MAN },
    { "deb.aws-neuronx-runtime-lib", N, MAN },
    { "deb.aws-neuronx-collectives", N, MAN },
    { "deb.aws-neuronx-tools", N, MAN },
    { "deb.aws-neuron-dkms", N, MAN },
    { "deb.aws-neuron-tools", N, MAN },
    { "deb.aws-neuron-runtime", N, MAN },
    { "deb.aws-neuron-runtime-base", N, MAN },
    { "rpm.aws-neuronx-dkms", N, MAN },
    { "rpm.aws-neuronx-runtime-lib", N, MAN },
    { "rpm.aws-neuronx-collectives", N, MAN },
    { "rpm.aws-neuronx-tools", N, MAN },
    { "rpm.aws-neuron-dkms", N, MAN },
    { "rpm.aws-neuron-tools", N, MAN },
    { "rpm.aws-neuron-runtime", N, MAN },
    { "rpm.aws-neuron-runtime-base", N, MAN },
    { "env.PJRT_DEVICE", N, MAN },
    { "env.NEURON_RT_VISIBLE_CORES", N, MAN },
    { "env.NEURON_RT_ALLOW_LEGACY_NEFF", N, MAN },
    { "env.TORCH_DEVICE_BACKEND_AUTOLOAD", N, MAN },
    { NULL, D, NULL },
};

#define SP_EDIT_MAX 512

size_t sp_edit_distance(const char *a, const char *b, size_t limit)
{
    size_t n = strlen(a), m = strlen(b);
    size_t rows[3][SP_EDIT_MAX + 1];
    size_t *pp = rows[0], *prev = rows[1], *cur = rows[2];

    if (n > SP_EDIT_MAX || m > SP_EDIT_MAX)
        return limit + 1;
    if ((n > m ? n - m : m - n) > limit)
        return limit + 1;
    for (size_t j = 0; j <= m; j++)
        prev[j] = j;
    for (size_t i = 1; i <= n; i++) {
        size_t best = cur[0] = i;
        for (size_t j = 1; j <= m; j++) {
            size_t cost = a[i - 1] != b[j - 1];
            size_t v = prev[j - 1] + cost;
            if (prev[j] + 1 < v)
                v = prev[j] + 1;
            if (cur[j - 1] + 1 < v)
                v = cur[j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                pp[j - 2] + 1 < v)
                v = pp[j - 2] + 1;
            cur[j] = v;
            if (v < best)
                best = v;
        }
        if (best > limit)
            return limit + 1;
        size_t *t = pp;
        pp = prev;
        prev = cur;
        cur = t;
    }
    return prev[m] > limit ? limit + 1 : prev[m];
}

/* 1 when KEY matches PATTERN; *TAIL (when not NULL) gets where in KEY a
 * final "*" began, or NULL when PATTERN does not end in "*". */
static int match(const char *pattern, const char *key, const char **tail)
{
    if (tail)
        *tail = NULL;
    while (*pattern) {
        if (*pattern != '*') {
            if (*key != *pattern)
                return 0;
            pattern++;
            key++;
            continue;
        }
        pattern++;
        if (*pattern == '\0') {
            if (tail)
                *tail = key;
            return *key != '\0';
        }
        size_t run = strcspn(key, ".");
        if (run == 0)
            return 0;
        key += run;
    }
    return *key == '\0';
}

int sp_fact_key_documented(const char *key)
{
    for (const struct sp_fact_key_doc *d = sp_fact_keys; d->pattern; d++)
        if (d->kind == SP_FACT_KEY_DOCUMENTED && match(d->pattern, key, NULL))
            return 1;
    return 0;
}

/* 1 when the AN bytes at A are at most two edits from the BN bytes at B. */
static int parts_near(const char *a, size_t an, const char *b, size_t bn)
{
    char x[SP_EDIT_MAX + 1], y[SP_EDIT_MAX + 1];
    if (an > SP_EDIT_MAX || bn > SP_EDIT_MAX)
        return 0;
    memcpy(x, a, an);
    x[an] = '\0';
    memcpy(y, b, bn);
    y[bn] = '\0';
    return sp_edit_distance(x, y, 2) <= 2;
}

/* PATTERN with each "*" filled by KEY's corresponding dot-separated part
 * (a final "*" takes all the rest), into OUT; 0, or -1 when KEY has too
 * few parts or OUT is too small. */
static int instantiate(const char *pattern, const char *key, char *out, size_t outsz)
{
    size_t o = 0;
    const char *p = pattern, *k = key;
    int key_left = 1;
    while (*p) {
        const char *pdot = strchr(p, '.');
        size_t plen = pdot ? (size_t)(pdot - p) : strlen(p);
        const char *kdot = strchr(k, '.');
        size_t klen = kdot ? (size_t)(kdot - k) : strlen(k);
        const char *src = p;
        size_t len = plen;
        if (!key_left)
            return -1;
        if (plen == 1 && *p == '*') {
            src = k;
            len = pdot ? klen : strlen(k);     /* a final "*" takes the rest */
            if (len == 0)
                return -1;
            klen = len;
        } else {
            /* a fixed part stands for KEY's only when near it: "nueron"
             * for "neuron", never "neuron" for "deb" */
            if (!parts_near(k, klen, p, plen))
                return -1;
        }
        if (o + len + 2 > outsz)
            return -1;
        memcpy(out + o, src, len);
        o += len;
        k += klen;
        if (*k == '.')
            k++;
        else
            key_left = 0;
        if (!pdot)
            break;
        out[o++] = '.';
        p = pdot + 1;
    }
    out[o] = '\0';
    return 0;
}

static void copy_out(char *out, size_t outsz, const char *s)
{
    size_t n = strlen(s);
    if (n >= outsz)
        n = outsz - 1;
    memcpy(out, s, n);
    out[n] = '\0';
}

const char *sp_fact_key_nearest(const char *key, char *out, size_t outsz)
{
    char cand[SP_EDIT_MAX + 1];
    size_t best = (size_t)-1;
    if (outsz == 0)
        return NULL;
    out[0] = '\0';
    for (const struct sp_fact_key_doc *d = sp_fact_keys; d->pattern; d++) {
        const char *star = strchr(d->pattern, '*');
        /* the pattern's own text, the pattern filled from KEY's parts, and
         * for a final "*" the fixed text plus KEY's rest */
        for (int how = 0; how < 3; how++) {
            if (how == 0) {
                copy_out(cand, sizeof cand, d->pattern);
            } else if (star == NULL) {
                break;
            } else if (how == 1) {
                if (instantiate(d->pattern, key, cand, sizeof cand) != 0 ||
                    !sp_fact_key_documented(cand))
                    continue;
            } else {
                /* "deb-aws-x" as deb.aws-x; "debb.aws-x" as deb.aws-x:
                 * KEY's first part, or as many bytes as the fixed text
                 * when KEY has no dot, replaced by the fixed text */
                size_t fixed = (size_t)(star - d->pattern);
                const char *dot = strchr(key, '.');
                const char *rest = dot ? dot + 1 : key + fixed;
                if (star[1] != '\0' || strlen(key) <= fixed || fixed + strlen(key) >= sizeof cand ||
                    memchr(d->pattern, '.', fixed - 1) != NULL)
                    continue;
                if (dot && !parts_near(key, (size_t)(dot - key), d->pattern, fixed - 1))
                    continue;            /* only a near first part: "debb" */
                memcpy(cand, d->pattern, fixed);
                strcpy(cand + fixed, rest);
                if (!sp_fact_key_documented(cand))
                    continue;
            }
            size_t dist = sp_edit_distance(key, cand, best == (size_t)-1 ? SP_EDIT_MAX : best);
            if (dist < best) {
                best = dist;
                copy_out(out, outsz, cand);
            }
        }
    }
    return out;
}

/* The word before a pattern's final ".*" ("pip" for pip.* and for
 * python.env.*.pip.*), as *WORD and *LEN. */
static void family_word(const char *pattern, const char **word, size_t *len)
{
    size_t n = strlen(pattern);
    const char *end = pattern + n - 2;           /* the final "." */
    const char *w = end;
    while (w > pattern && w[-1] != '.' && w[-1] != '*')
        w--;
    *word = w;
    *len = (size_t)(end - w);
}

const char *sp_fact_key_near_name(const char *key, char *out, size_t outsz)
{
    const char *tail = NULL, *word = NULL;
    size_t wlen = 0;
    for (const struct sp_fact_key_doc *d = sp_fact_keys; d->pattern; d++) {
        size_t n = strlen(d->pattern);
        if (d->kind == SP_FACT_KEY_NAME && strcmp(d->pattern, key) == 0)
            return NULL;
        if (d->kind == SP_FACT_KEY_DOCUMENTED && tail == NULL && n >= 3 &&
            strcmp(d->pattern + n - 2, ".*") == 0 && match(d->pattern, key, &tail) && tail)
            family_word(d->pattern, &word, &wlen);
    }
    if (tail == NULL || outsz == 0)
        return NULL;
    for (const struct sp_fact_key_doc *d = sp_fact_keys; d->pattern; d++) {
        if (d->kind != SP_FACT_KEY_NAME || strncmp(d->pattern, word, wlen) != 0 ||
            d->pattern[wlen] != '.')
            continue;
        const char *name = d->pattern + wlen + 1;
        if (strcmp(name, tail) == 0)
            return NULL;              /* a well-known name in another family */
    }
    for (const struct sp_fact_key_doc *d = sp_fact_keys; d->pattern; d++) {
        if (d->kind != SP_FACT_KEY_NAME || strncmp(d->pattern, word, wlen) != 0 ||
            d->pattern[wlen] != '.')
            continue;
        const char *name = d->pattern + wlen + 1;
        if (sp_edit_distance(tail, name, 1) > 1)
            continue;
        size_t lead = (size_t)(tail - key);
        if (lead + strlen(name) >= outsz)
            return NULL;
        memcpy(out, key, lead);
        strcpy(out + lead, name);
        return out;
    }
    return NULL;
}
