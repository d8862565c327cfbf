/* fingerprint/probes/probe_hostname.c: host.hostname (volatile: left out of the
 * stack id).  Live host: the kernel's node name (/proc/sys/kernel/hostname);
 * a copied tree or an image: its /etc/hostname, when it has one. */
#include <errno.h>

#include "fingerprint/probes/probe.h"

int probe_hostname(struct probe_ctx *ctx, struct sp_error *e)
{
    const char *path = ctx->root->live ? "/proc/sys/kernel/hostname" : "/etc/hostname";
    char name[256];
    if (root_read_line(ctx->root, path, name, sizeof name) != 0) {
        if (errno != ENOENT || ctx->root->live)
            probe_warn_errno(ctx, "host.hostname", path, errno);
        return 0;
    }
    if (probe_set(ctx, "host.hostname", name, path) != 0)
        return sp_fail(e, SP_EXIT_INPUT, "hostname: out of memory");
    return 0;
}
