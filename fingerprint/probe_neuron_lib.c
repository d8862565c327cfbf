/* fingerprint/probe_neuron_lib.c: (to be written). */
#include "probe.h"

int probe_neuron_lib(struct probe_ctx *ctx, struct sp_error *e)
{
    (void)ctx;
    (void)e;
    return 0;
}
