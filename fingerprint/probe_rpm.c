/* fingerprint/probe_rpm.c: rpm databases are not read yet (a later issue):
 * when one is present this probe says so as a warning, so a manifest of an
 * rpm-based root never looks like a root without packages.  Only stat(2)s
 * the known database files; never opens them. */
#include "probe.h"

int probe_rpm(struct probe_ctx *ctx, struct sp_error *e)
{
    static const char *const dbs[] = {
        "/var/lib/rpm/rpmdb.sqlite", "/var/lib/rpm/Packages", "/var/lib/rpm/Packages.db",
        "/usr/lib/sysimage/rpm/rpmdb.sqlite", "/usr/lib/sysimage/rpm/Packages.db",
    };
    (void)e;
    for (size_t i = 0; i < sizeof dbs / sizeof *dbs; i++)
        if (root_exists(ctx->root, dbs[i])) {
            factset_warn(ctx->facts, "rpm: %s: rpm database present; rpm.* facts are not "
                         "read by this version", dbs[i]);
            break;
        }
    return 0;
}
