/* fingerprint/probes/probe_image.c: image.* (image roots only): the identity
 * of the image the root was opened from, as image_root_facts() records it
 * (fingerprint/root/image.h: references, config and manifest digests,
 * platform, layers and their diff_ids; OCI image-spec v1.1 manifest.md and
 * config.md).  Any other root: nothing. */
#include "fingerprint/probes/probe.h"
#include "fingerprint/root/image.h"

int probe_image(struct probe_ctx *ctx, struct sp_error *e)
{
    if (ctx->root->kind != ROOT_IMAGE)
        return 0;
    if (image_root_facts(ctx->root, ctx->facts) != 0)
        return sp_fail(e, SP_EXIT_INPUT, "image: out of memory");
    return 0;
}
