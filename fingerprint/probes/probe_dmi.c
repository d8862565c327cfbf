/* fingerprint/probes/probe_dmi.c: host.cloud, host.instance_type,
 * host.instance_family and host.instance_id from the DMI attributes the
 * kernel exports in /sys/class/dmi/id (sys_vendor, product_name,
 * board_asset_tag; doc/DOMAIN.md section 6).  Reads only those three files
 * through the root; never the network (that is probe_imds, opt-in). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fingerprint/probes/probe.h"
#include "fingerprint/probes/probe_util.h"

#define DMI_DIR "/sys/class/dmi/id"
#define DMI_VALUE_MAX 256        /* bytes kept of one attribute's first line */

/* Read one attribute; 1 when read, 0 when absent or unreadable (a warning
 * unless it is simply absent). */
static int dmi_read(struct probe_ctx *ctx, const char *name, char *out, size_t outsz)
{
    char path[128];
    snprintf(path, sizeof path, DMI_DIR "/%s", name);
    if (root_read_line(ctx->root, path, out, outsz) == 0)
        return 1;
    if (errno != ENOENT && errno != ENODATA)
        probe_warn_errno(ctx, "host.cloud", path, errno);
    return 0;
}

int probe_dmi(struct probe_ctx *ctx, struct sp_error *e)
{
    char vendor[DMI_VALUE_MAX], product[DMI_VALUE_MAX], tag[DMI_VALUE_MAX];
    if (!dmi_read(ctx, "sys_vendor", vendor, sizeof vendor))
        return 0;                   /* no DMI: not a cloud we can name */
    if (strcmp(vendor, "Amazon EC2") != 0)
        return 0;                   /* another vendor: nothing to say */
    if (probe_set(ctx, "host.cloud", "aws", DMI_DIR "/sys_vendor") != 0)
        goto nomem;
    if (dmi_read(ctx, "product_name", product, sizeof product)) {
        if (instance_type_valid(product)) {
            if (probe_set_instance(ctx, product, DMI_DIR "/product_name") != 0)
                goto nomem;
        } else {
            factset_warn(ctx->facts, "host.instance_type: " DMI_DIR "/product_name: "
                         "'%.64s' is not an EC2 instance type; not recorded", product);
        }
    }
    if (dmi_read(ctx, "board_asset_tag", tag, sizeof tag)) {
        if (instance_id_valid(tag)) {
            if (probe_set(ctx, "host.instance_id", tag, DMI_DIR "/board_asset_tag") != 0)
                goto nomem;
        } else {
            factset_warn(ctx->facts, "host.instance_id: " DMI_DIR "/board_asset_tag: "
                         "'%.64s' is not an instance id; not recorded", tag);
        }
    }
    return 0;
nomem:
    return sp_fail(e, SP_EXIT_INPUT, "dmi: out of memory");
}
