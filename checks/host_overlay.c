/* checks/host_overlay.c: an image's facts with the host's kernel-side facts
 * laid over them; see host_overlay.h. */
#include "checks/host_overlay.h"

#include <string.h>

int sp_host_key(const char *key)
{
    static const char *const prefixes[] = {
        "host.", "neuron.driver.", "neuron.device.", "neuron.core.", "efa.", "gpu.",
    };
    static const char *const exact[] = {
        "neuron.lnc", "deb.aws-neuronx-dkms", "rpm.aws-neuronx-dkms",
    };
    if (strncmp(key, "host.os.", 8) == 0)
        return 0;
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
        if (strncmp(key, prefixes[i], strlen(prefixes[i])) == 0)
            return 1;
    for (size_t i = 0; i < sizeof exact / sizeof *exact; i++)
        if (strcmp(key, exact[i]) == 0)
            return 1;
    return 0;
}

static int copy(struct factset *out, const struct factset *in, int host_side)
{
    for (size_t i = 0; i < in->count; i++) {
        const struct fact *f = &in->facts[i];
        if (sp_host_key(f->key) == host_side &&
            factset_set(out, f->key, f->value, f->evidence) != 0)
            return -1;
    }
    for (size_t i = 0; i < in->nwarnings; i++)
        if (factset_warn(out, "%s%s", host_side ? "host: " : "", in->warnings[i]) != 0)
            return -1;
    return 0;
}

int sp_host_overlay(const struct factset *image, const struct factset *host,
                    struct factset *out, struct sp_error *e)
{
    factset_init(out);
    if (copy(out, image, 0) != 0 || copy(out, host, 1) != 0) {
        factset_free(out);
        return sp_fail(e, SP_EXIT_INPUT, "check: out of memory");
    }
    return 0;
}
