/* fingerprint/probes/probe_neuron_driver.c: the Neuron kernel driver (doc/DOMAIN.md
 * section 2): the LOADED module's version (/sys/module/neuron/version), the
 * versions DKMS holds on disk (/var/lib/dkms/aws-neuronx/<version>/,
 * /usr/src/aws-neuronx-<version>/), the driver's device class
 * (/sys/class/neuron_device/neuronN: core_count, device_name) and the
 * logical NeuronCore config.  Runs after the pci probe and uses its
 * neuron.device.count and neuron.device.kind.  Driver 2.31 reorganised its
 * sysfs tree, so every per-device file is optional: a missing one is not an
 * error.  Must not: read the environment of a root that is not live. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/version.h"
#include "fingerprint/probes/probe.h"
#include "fingerprint/probes/probe_util.h"

#define MODULE_VERSION_FILE "/sys/module/neuron/version"
#define CLASS_DIR "/sys/class/neuron_device"
#define DKMS_DIR "/var/lib/dkms/aws-neuronx"
#define DKMS_LEGACY_DIR "/var/lib/dkms/aws-neuron"
#define USR_SRC "/usr/src"
#define LNC_FILE "/opt/aws/neuron/logical_nc_config"
#define NEURON_DEVICES_MAX 64          /* /dev/neuron0..63 (doc/DOMAIN.md section 2) */
#define CORES_PER_DEVICE_MAX 64        /* a core_count above this is malformed */
#define DKMS_VERSIONS_MAX 32           /* versions listed in neuron.driver.dkms */

/* Add VERSION to SET (N entries, at most DKMS_VERSIONS_MAX; the
 * ones past it are counted in *DROPPED). */
static void add_version(char **set, size_t *n, char *version, size_t *dropped)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp(set[i], version) == 0)
            return;
    if (*n < DKMS_VERSIONS_MAX)
        set[(*n)++] = version;
    else
        (*dropped)++;
}

static int driver_version(struct probe_ctx *ctx)
{
    char version[128];
    if (root_read_line(ctx->root, MODULE_VERSION_FILE, version, sizeof version) != 0) {
        if (errno != ENOENT)
            probe_warn_errno(ctx, "neuron.driver.version", MODULE_VERSION_FILE, errno);
        return 0;
    }
    if (!version_looks_valid(version)) {
        factset_warn(ctx->facts, "neuron.driver.version: " MODULE_VERSION_FILE
                     ": malformed version '%.64s'", version);
        return 0;
    }
    return probe_set(ctx, "neuron.driver.version", version, MODULE_VERSION_FILE);
}

/* DKMS versions: var/lib/dkms/aws-neuronx/<version>/ and
 * usr/src/aws-neuronx-<version>/; the legacy aws-neuron module is a warning. */
static int dkms_versions(struct probe_ctx *ctx)
{
    char **state = NULL, **src = NULL, **legacy = NULL, *versions[DKMS_VERSIONS_MAX];
    size_t nstate = 0, nsrc = 0, nlegacy = 0, n = 0, dropped = 0;
    int rc = 0;
    char path[SP_ROOT_PATH_MAX];

    if (root_list_dir(ctx->root, DKMS_DIR, &state, &nstate) != 0 && errno != ENOENT &&
        errno != ENOTDIR)
        probe_warn_errno(ctx, "neuron.driver.dkms", DKMS_DIR, errno);
    for (size_t i = 0; i < nstate; i++) {
        snprintf(path, sizeof path, DKMS_DIR "/%s", state[i]);
        struct root_stat st;
        /* <version>/ is a real folder; "source" and "kernel-*" are links */
        if (version_looks_valid(state[i]) && root_stat(ctx->root, path, 0, &st) == 0 &&
            st.type == ROOT_T_DIR)
            add_version(versions, &n, state[i], &dropped);
    }
    if (root_list_dir(ctx->root, USR_SRC, &src, &nsrc) != 0 && errno != ENOENT &&
        errno != ENOTDIR)
        probe_warn_errno(ctx, "neuron.driver.dkms", USR_SRC, errno);
    for (size_t i = 0; i < nsrc; i++) {
        const char *p = src[i];
        if (strncmp(p, "aws-neuronx-", 12) == 0 && version_looks_valid(p + 12)) {
            snprintf(path, sizeof path, USR_SRC "/%s", p);
            if (root_is_dir(ctx->root, path))
                add_version(versions, &n, src[i] + 12, &dropped);
        } else if (strncmp(p, "aws-neuron-", 11) == 0 && version_looks_valid(p + 11)) {
            factset_warn(ctx->facts, "neuron.driver.dkms: " USR_SRC "/%s: legacy aws-neuron "
                         "driver sources (conflicts with aws-neuronx-dkms)", p);
        }
    }
    if (root_list_dir(ctx->root, DKMS_LEGACY_DIR, &legacy, &nlegacy) == 0)
        for (size_t i = 0; i < nlegacy; i++)
            if (version_looks_valid(legacy[i]))
                factset_warn(ctx->facts, "neuron.driver.dkms: " DKMS_LEGACY_DIR "/%s: legacy "
                             "aws-neuron DKMS module (conflicts with aws-neuronx-dkms)",
                             legacy[i]);
    struct sp_error ignored;            /* its -1 is out of memory, as probe_set()'s */
    if (n > 0 && sp_version_sort(sp_scheme_for_key("neuron.driver.dkms"),
                                 (const char **)versions, n, &ignored) != 0) {
        rc = -1;
    } else if (n > 0) {
        char list[DKMS_VERSIONS_MAX * 130];
        size_t used = 0;
        list[0] = '\0';
        for (size_t i = 0; i < n; i++)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%s",
                                     i ? "," : "", versions[i]);
        rc = probe_set(ctx, "neuron.driver.dkms", list,
                       nstate ? DKMS_DIR : USR_SRC "/aws-neuronx-*");
        if (dropped)
            factset_warn(ctx->facts, "neuron.driver.dkms: " DKMS_DIR ": more than %d "
                         "versions; %zu more not listed", DKMS_VERSIONS_MAX, dropped);
    }
    root_names_free(state, nstate);
    root_names_free(src, nsrc);
    root_names_free(legacy, nlegacy);
    return rc;
}

/* neuronN, N decimal */
static int neuron_device_name(const char *s)
{
    if (strncmp(s, "neuron", 6) != 0 || !isdigit((unsigned char)s[6]))
        return 0;
    for (const char *p = s + 6; *p; p++)
        if (!isdigit((unsigned char)*p))
            return 0;
    return 1;
}

/* No class folder: when the PCI bus shows Neuron devices of one known
 * kind, neuron.core.count is their count times the device table's cores
 * per device, and the evidence says the driver's folder is missing (the
 * driver is not loaded, or its sysfs tree was not copied). */
static int cores_without_class(struct probe_ctx *ctx, int err)
{
    const char *count = factset_get(ctx->facts, "neuron.device.count");
    const char *kind = factset_get(ctx->facts, "neuron.device.kind");
    if (count == NULL || kind == NULL || strchr(kind, ','))
        return 0;
    char *end;
    unsigned long n = strtoul(count, &end, 10);
    const struct neuron_kind *k = neuron_kind_by_name(kind);
    if (*end || n == 0 || n > NEURON_DEVICES_MAX || k == NULL)
        return 0;
    char ev[SP_ROOT_PATH_MAX];
    snprintf(ev, sizeof ev, "device table: %lu x %u cores (%s, from the PCI bus); "
             CLASS_DIR ": %s", n, k->cores, k->kind,
             err == ENOENT ? "no such folder" : "not a folder");
    return factset_setf(ctx->facts, "neuron.core.count", ev, "%lu", n * k->cores);
}

/* What the class folder's neuronN entries say. */
struct class_read {
    size_t ndev, cores, unread;   /* devices; sum of core_count; devices without one */
    int first_err;                /* errno of the first unreadable core_count */
    char first_path[SP_ROOT_PATH_MAX];
    char devname[128];            /* the first device_name read */
    int names_differ;
};

/* Device NAME's core_count and device_name into CR. */
static void class_device(struct probe_ctx *ctx, const char *name, struct class_read *cr)
{
    char path[SP_ROOT_PATH_MAX], line[128];
    snprintf(path, sizeof path, CLASS_DIR "/%s/core_count", name);
    if (root_read_line(ctx->root, path, line, sizeof line) == 0) {
        char *end;
        errno = 0;
        unsigned long c = strtoul(line, &end, 10);
        if (errno || *end || !isdigit((unsigned char)line[0]) || c == 0 ||
            c > CORES_PER_DEVICE_MAX) {
            factset_warn(ctx->facts, "neuron.core.count: %s: malformed count", path);
            cr->unread++;
        } else {
            cr->cores += c;
        }
    } else if (cr->unread++ == 0) {
        cr->first_err = errno;
        snprintf(cr->first_path, sizeof cr->first_path, "%s", path);
    }
    snprintf(path, sizeof path, CLASS_DIR "/%s/info/architecture/device_name", name);
    if (root_read_line(ctx->root, path, line, sizeof line) == 0) {
        if (cr->devname[0] == '\0')
            snprintf(cr->devname, sizeof cr->devname, "%s", line);
        else if (strcmp(cr->devname, line) != 0)
            cr->names_differ = 1;
    }
}

/* Device count: the PCI bus is the authority; the class folder stands in
 * when the bus showed none or could not be read.  -1 on ENOMEM. */
static int class_count(struct probe_ctx *ctx, const struct class_read *cr)
{
    const char *pci_count = factset_get(ctx->facts, "neuron.device.count");
    if (pci_count == NULL || strcmp(pci_count, "0") == 0) {
        if (pci_count)
            factset_warn(ctx->facts, "neuron.device.count: " CLASS_DIR ": the driver lists "
                         "%zu devices but the PCI bus shows none", cr->ndev);
        return factset_setf(ctx->facts, "neuron.device.count", CLASS_DIR, "%zu", cr->ndev);
    }
    if (strtoul(pci_count, NULL, 10) != cr->ndev)
        factset_warn(ctx->facts, "neuron.device.count: " CLASS_DIR ": the driver lists "
                     "%zu devices, the PCI bus %s", cr->ndev, pci_count);
    return 0;
}

/* Kind: the PCI id is the authority; the driver's device_name fills in.
 * *KIND gets the kind in the end (a fact's value), or NULL.  -1 on ENOMEM. */
static int class_kind(struct probe_ctx *ctx, const struct class_read *cr, const char **kind)
{
    const char *devname = cr->devname;
    const struct neuron_kind *named = devname[0] ? neuron_kind_by_name(devname) : NULL;
    *kind = factset_get(ctx->facts, "neuron.device.kind");
    if (cr->names_differ)
        factset_warn(ctx->facts, "neuron.device.kind: " CLASS_DIR ": devices report "
                     "different device_name values");
    if (devname[0] && named == NULL)
        factset_warn(ctx->facts, "neuron.device.kind: " CLASS_DIR ": unknown device_name "
                     "'%.32s'", devname);
    if (*kind == NULL && named && !cr->names_differ) {
        char ev[SP_ROOT_PATH_MAX];
        snprintf(ev, sizeof ev, CLASS_DIR "/neuron*/info/architecture/device_name (%s)",
                 devname);
        if (probe_set(ctx, "neuron.device.kind", named->kind, ev) != 0)
            return -1;
        *kind = named->kind;
    } else if (*kind && named && strcmp(*kind, named->kind) != 0) {
        factset_warn(ctx->facts, "neuron.device.kind: " CLASS_DIR ": the driver says "
                     "'%.32s', the PCI id says %s", devname, *kind);
    }
    return 0;
}

/* Cores: the sum of core_count; where one is unreadable, the device table
 * for KIND.  -1 on ENOMEM. */
static int class_cores(struct probe_ctx *ctx, const struct class_read *cr, const char *kind)
{
    char ev[SP_ROOT_PATH_MAX];
    if (cr->unread == 0) {
        snprintf(ev, sizeof ev, CLASS_DIR "/neuron*/core_count (%zu devices%s%.32s)",
                 cr->ndev, cr->devname[0] ? ", " : "", cr->devname);
        return factset_setf(ctx->facts, "neuron.core.count", ev, "%zu", cr->cores);
    }
    const struct neuron_kind *k = kind && !strchr(kind, ',') ? neuron_kind_by_name(kind) : NULL;
    if (cr->first_err) {
        int err = cr->first_err;
        const char *msg = err == EACCES || err == EPERM ? "permission denied"
                        : err == ENOENT ? "no such file" : strerror(err);
        if (k)
            factset_warn(ctx->facts, "neuron.core.count: %s: %s%s; counted %u cores per "
                         "%s device from the device table", cr->first_path, msg,
                         cr->unread > 1 ? " (and on other devices)" : "", k->cores, k->kind);
        else
            factset_warn(ctx->facts, "neuron.core.count: %s: %s; device kind unknown, "
                         "cores not counted", cr->first_path, msg);
    }
    if (k == NULL)
        return 0;
    snprintf(ev, sizeof ev, "device table: %zu x %u cores (%s)", cr->ndev, k->cores, k->kind);
    return factset_setf(ctx->facts, "neuron.core.count", ev, "%zu", cr->ndev * k->cores);
}

/* The class folder: device count (when the PCI bus showed none), core count,
 * device names. */
static int device_class(struct probe_ctx *ctx)
{
    char **names = NULL;
    size_t nnames = 0;
    struct class_read cr = { 0 };

    if (root_list_dir(ctx->root, CLASS_DIR, &names, &nnames) != 0) {
        if (errno != ENOENT && errno != ENOTDIR) {
            probe_warn_errno(ctx, "neuron.device.count", CLASS_DIR, errno);
            return 0;
        }
        return cores_without_class(ctx, errno);
    }
    for (size_t i = 0; i < nnames; i++) {
        if (!neuron_device_name(names[i]))
            continue;
        if (cr.ndev == NEURON_DEVICES_MAX) {
            factset_warn(ctx->facts, "neuron.device.count: " CLASS_DIR ": more than %d "
                         "devices; the rest not read", NEURON_DEVICES_MAX);
            break;
        }
        cr.ndev++;
        class_device(ctx, names[i], &cr);
    }
    root_names_free(names, nnames);
    if (cr.ndev == 0)
        return 0;
    const char *kind;
    if (class_count(ctx, &cr) != 0 || class_kind(ctx, &cr, &kind) != 0)
        return -1;
    return class_cores(ctx, &cr, kind);
}

/* Logical NeuronCore config: the live environment first, then the file. */
static int logical_nc(struct probe_ctx *ctx)
{
    char line[64];
    const char *value = probe_getenv(ctx, "NEURON_LOGICAL_NC_CONFIG");
    const char *ev = "environment NEURON_LOGICAL_NC_CONFIG";
    if (value == NULL || value[0] == '\0') {
        if (root_read_line(ctx->root, LNC_FILE, line, sizeof line) != 0) {
            if (errno != ENOENT)
                probe_warn_errno(ctx, "neuron.lnc", LNC_FILE, errno);
            return 0;
        }
        value = line;
        ev = LNC_FILE;
    }
    if (strlen(value) > 2 || strspn(value, "0123456789") != strlen(value)) {
        factset_warn(ctx->facts, "neuron.lnc: %s: malformed value '%.16s'", ev, value);
        return 0;
    }
    return probe_set(ctx, "neuron.lnc", value, ev);
}

int probe_neuron_driver(struct probe_ctx *ctx, struct sp_error *e)
{
    if (driver_version(ctx) != 0 || dkms_versions(ctx) != 0 || device_class(ctx) != 0 ||
        logical_nc(ctx) != 0)
        return sp_fail(e, SP_EXIT_INPUT, "neuron-driver: out of memory");
    return 0;
}
