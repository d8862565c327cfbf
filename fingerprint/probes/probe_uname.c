/* fingerprint/probes/probe_uname.c: host.arch and host.kernel from uname(2), on
 * the live host only.  A copied tree or an image has no running kernel:
 * say so once as a warning and never substitute this machine's values. */
#include <sys/utsname.h>

#include "fingerprint/probes/probe.h"

int probe_uname(struct probe_ctx *ctx, struct sp_error *e)
{
    struct utsname u;
    if (!ctx->root->live) {
        factset_warn(ctx->facts, "host.kernel: %s: no live kernel; uname, /proc and "
                     "the environment were not read", ctx->root->subject);
        return 0;
    }
    if (uname(&u) != 0) {
        factset_warn(ctx->facts, "host.kernel: uname failed");
        return 0;
    }
    if (probe_set(ctx, "host.arch", u.machine, "uname(2) machine") != 0 ||
        probe_set(ctx, "host.kernel", u.release, "uname(2) release") != 0)
        return sp_fail(e, SP_EXIT_INPUT, "uname: out of memory");
    return 0;
}
