/* fingerprint/probes/probe_neuron_lib.c: the Neuron userspace libraries' versions
 * from their file names in /opt/aws/neuron/lib (doc/DOMAIN.md section 3):
 * libnrt.so.X.Y.Z.W -> neuron.runtime.version, libnccom.so.X.Y.Z ->
 * neuron.collectives.version.  SONAME-only names (libnrt.so.1,
 * libnccom.so.2) carry no full version and are ignored.  On a copied tree or
 * a distroless image these names are the only evidence.  Must not: open or
 * run the libraries. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/version.h"
#include "fingerprint/probes/probe.h"
#include "fingerprint/probes/probe_util.h"

#define NEURON_LIB_DIR "/opt/aws/neuron/lib"
#define LIB_MIN_PARTS 3      /* a full version has at least X.Y.Z */

static int pick(struct probe_ctx *ctx, char **names, size_t n, const char *prefix,
                const char *key)
{
    size_t pl = strlen(prefix), found = 0;
    const char **versions = malloc((n ? n : 1) * sizeof *versions);
    char all[1024] = "";
    size_t used = 0;
    struct sp_error ignored;            /* its -1 is out of memory, as probe_set()'s */
    if (versions == NULL)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (strncmp(names[i], prefix, pl) != 0 || !version_is_numeric(names[i] + pl, LIB_MIN_PARTS))
            continue;
        versions[found++] = names[i] + pl;
        int w = snprintf(all + used, sizeof all - used, "%s%s", used ? ", " : "", names[i]);
        if (w > 0 && (size_t)w < sizeof all - used)
            used += (size_t)w;
    }
    /* the highest in the key's scheme (checks/version.h) */
    int sorted = sp_version_sort(sp_scheme_for_key(key), versions, found, &ignored);
    const char *best = found ? versions[found - 1] : NULL;
    free(versions);
    if (sorted != 0)
        return -1;
    if (best == NULL)
        return 0;
    char ev[SP_ROOT_PATH_MAX];
    snprintf(ev, sizeof ev, NEURON_LIB_DIR "/%s%s", prefix, best);
    if (found > 1)
        factset_warn(ctx->facts, "%s: " NEURON_LIB_DIR ": several versions (%s); "
                     "the highest, %s, recorded", key, all, best);
    return probe_set(ctx, key, best, ev);
}

int probe_neuron_lib(struct probe_ctx *ctx, struct sp_error *e)
{
    char **names = NULL;
    size_t n = 0;
    if (root_list_dir(ctx->root, NEURON_LIB_DIR, &names, &n) != 0) {
        if (errno != ENOENT)
            probe_warn_errno(ctx, "neuron.runtime.version", NEURON_LIB_DIR, errno);
        return 0;
    }
    int rc = pick(ctx, names, n, "libnrt.so.", "neuron.runtime.version");
    if (rc == 0)
        rc = pick(ctx, names, n, "libnccom.so.", "neuron.collectives.version");
    root_names_free(names, n);
    return rc ? sp_fail(e, SP_EXIT_INPUT, "neuron-lib: out of memory") : 0;
}
