/* fingerprint/probes/probe_efa.c: the EFA installer's version, from the first line
 * of /opt/amazon/efa_installed_packages ("# EFA installer version: X.Y.Z"),
 * and the loaded efa module's version (/sys/module/efa/version); doc/DOMAIN.md
 * section 7.  The adapter count is the pci probe's (efa.device.count).
 * Must not: read anything else. */
#include <errno.h>
#include <string.h>

#include "fingerprint/probes/probe.h"
#include "fingerprint/probes/probe_util.h"

#define EFA_RECORD "/opt/amazon/efa_installed_packages"
#define EFA_MODULE "/sys/module/efa/version"
#define EFA_PREFIX "# EFA installer version:"

int probe_efa(struct probe_ctx *ctx, struct sp_error *e)
{
    char line[256];
    if (root_read_line(ctx->root, EFA_RECORD, line, sizeof line) == 0) {
        const char *version = NULL;
        if (strncmp(line, EFA_PREFIX, strlen(EFA_PREFIX)) == 0) {
            version = line + strlen(EFA_PREFIX);
            version += strspn(version, " \t");
        }
        if (version && version_looks_valid(version)) {
            if (probe_set(ctx, "efa.installer.version", version, EFA_RECORD) != 0)
                goto nomem;
        } else {
            factset_warn(ctx->facts, "efa.installer.version: " EFA_RECORD ":1: not \""
                         EFA_PREFIX " X.Y.Z\"");
        }
    } else if (errno != ENOENT) {
        probe_warn_errno(ctx, "efa.installer.version", EFA_RECORD, errno);
    }
    if (root_read_line(ctx->root, EFA_MODULE, line, sizeof line) == 0) {
        if (version_looks_valid(line)) {
            if (probe_set(ctx, "efa.driver.version", line, EFA_MODULE) != 0)
                goto nomem;
        } else {
            factset_warn(ctx->facts, "efa.driver.version: " EFA_MODULE ": malformed version");
        }
    } else if (errno != ENOENT) {
        probe_warn_errno(ctx, "efa.driver.version", EFA_MODULE, errno);
    }
    return 0;
nomem:
    return sp_fail(e, SP_EXIT_INPUT, "efa: out of memory");
}
