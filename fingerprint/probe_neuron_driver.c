/* fingerprint/probe_neuron_driver.c: (to be written). */
#include "probe.h"

int probe_neuron_driver(struct probe_ctx *ctx, struct sp_error *e)
{
    (void)ctx;
    (void)e;
    return 0;
}
