/* fingerprint/probes/probe_env.c: env.<NAME> for the allow-listed environment
 * variables of stackprint-manifest(5) (PJRT_DEVICE, NEURON_*, TORCH_NEURONX_*, XLA_*,
 * TORCH_DEVICE_BACKEND_AUTOLOAD, VIRTUAL_ENV, CONDA_PREFIX,
 * CUDA_VISIBLE_DEVICES), on the live host only.  An allow-listed name
 * containing one of secret_words (KEY, TOKEN, SECRET, PASSWORD, CREDENTIAL,
 * PASSWD, PASS, AUTH, PRIVATE, COOKIE, SESSION, CERT; any case) is not
 * recorded: a warning names it (so the omission is not silent), never its
 * value.  An empty value is not a fact (a missing fact is absent, never
 * empty): a warning says it was set but empty.
 * Must not: read the environment of a copied tree or an image (it has none),
 * or let the value of a secret-looking name reach a fact, an evidence or a
 * warning. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "fingerprint/probes/probe.h"

#define ENV_VARS_MAX 10000     /* variables examined */

static const char *const exact[] = {
    "PJRT_DEVICE", "TORCH_DEVICE_BACKEND_AUTOLOAD", "VIRTUAL_ENV", "CONDA_PREFIX",
    "CUDA_VISIBLE_DEVICES",
};
static const char *const prefixes[] = { "NEURON_", "TORCH_NEURONX_", "XLA_" };
static const char *const secret_words[] = {
    "KEY", "TOKEN", "SECRET", "PASSWORD", "CREDENTIAL", "PASSWD", "PASS", "AUTH", "PRIVATE",
    "COOKIE", "SESSION", "CERT",
};

/* env_secret_name: 1 when NAME (LEN bytes) contains a secret word in any case. */
static int env_secret_name(const char *name, size_t len)
{
    for (size_t w = 0; w < sizeof secret_words / sizeof *secret_words; w++) {
        size_t wl = strlen(secret_words[w]);
        for (size_t i = 0; i + wl <= len; i++)
            if (strncasecmp(name + i, secret_words[w], wl) == 0)
                return 1;
    }
    return 0;
}

static int env_allowed(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof exact / sizeof *exact; i++)
        if (strlen(exact[i]) == len && memcmp(name, exact[i], len) == 0)
            return 1;
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++) {
        size_t pl = strlen(prefixes[i]);
        if (len > pl && memcmp(name, prefixes[i], pl) == 0)
            return 1;
    }
    return 0;
}

int probe_env(struct probe_ctx *ctx, struct sp_error *e)
{
    if (!ctx->root->live || ctx->environ == NULL)
        return 0;
    size_t seen = 0;
    for (char *const *v = ctx->environ; *v; v++) {
        if (++seen > ENV_VARS_MAX) {
            factset_warn(ctx->facts, "env: more than %d variables; the rest not read",
                         ENV_VARS_MAX);
            break;
        }
        const char *eq = strchr(*v, '=');
        if (eq == NULL || eq == *v)
            continue;
        size_t nl = (size_t)(eq - *v);
        if (!env_allowed(*v, nl))
            continue;
        char key[SP_FACT_KEY_MAX + 8], name[SP_FACT_KEY_MAX];
        if (nl >= sizeof name)
            continue;
        memcpy(name, *v, nl);
        name[nl] = '\0';
        /* the first definition wins, as getenv(3) */
        const char *value = probe_getenv(ctx, name);
        if (value != eq + 1)
            continue;
        snprintf(key, sizeof key, "env.%s", name);
        if (env_secret_name(name, nl)) {
            factset_warn(ctx->facts, "%s: not recorded (the name looks like a secret)", key);
            continue;
        }
        if (value[0] == '\0') {
            factset_warn(ctx->facts, "%s: environment: set but empty; not recorded", key);
            continue;
        }
        if (probe_set(ctx, key, value, "environment") != 0)
            return sp_fail(e, SP_EXIT_INPUT, "env: out of memory");
    }
    return 0;
}
