/* fingerprint/probes/probe_pci.c: Neuron, EFA and NVIDIA devices on the PCI bus,
 * read with libpci (pciutils) from the root's /sys/bus/pci, method
 * PCI_ACCESS_SYS_BUS_PCI pinned (the automatic method would silently fall
 * back to this machine's /proc/bus/pci; doc/DOMAIN.md section 1).
 *
 * libpci reads real paths, not the root, so before handing it the tree this
 * probe checks, through the root, everything libpci's sysfs scan will open
 * (the devices folder, each entry's name, and its vendor, device and class
 * files, and resource and irq when present, which libpci before 3.9 also
 * required): each must be a regular file with a well-formed value, and must resolve on disk to the same file it resolves to inside the
 * root, so a symlink that leaves a copied tree never lets libpci read this
 * machine's bus.  libpci's error handler would exit the process; ours
 * longjmps back so a tree that still trips it is a warning.
 * Must not: read any bus but the root's, print, exit. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pci/pci.h>

#include "fingerprint/probes/probe.h"
#include "fingerprint/probes/probe_util.h"

#define PCI_SYSFS "/sys/bus/pci"
#define PCI_DEVICES_MAX 4096          /* devices examined on one bus */
#define PCI_VALUE_MAX 255             /* libpci refuses longer attribute files */
#define PCI_RESOURCE_FILE_MAX 65536   /* bytes of a resource file checked */
#define PCI_IDS_MAX 32                /* distinct ids listed in one fact */

struct pci_dev_ids {
    unsigned vendor, device, cls;     /* cls: 24-bit class code >> 8 (base, sub) */
};

/* libpci's handlers carry no context: one probe runs at a time. */
static jmp_buf pci_jump;
static char pci_msg[256];
static int pci_warnings;

static void PCI_NONRET on_error(char *msg, ...)
{
    va_list ap;
    va_start(ap, msg);
    vsnprintf(pci_msg, sizeof pci_msg, msg, ap);
    va_end(ap);
    longjmp(pci_jump, 1);
}

static void on_warning(char *msg, ...)
{
    va_list ap;
    va_start(ap, msg);
    if (pci_warnings++ == 0)
        vsnprintf(pci_msg, sizeof pci_msg, msg, ap);
    va_end(ap);
}

static void on_debug(char *msg, ...)
{
    (void)msg;
}

/* "dddd:bb:dd.f" as the kernel names devices (lowercase hex). */
static int bdf_name_valid(const char *s)
{
    size_t i = 0, n;
    for (n = 0; isxdigit((unsigned char)s[i]); i++, n++)
        ;
    if (n < 4 || n > 8 || s[i++] != ':')
        return 0;
    for (n = 0; isxdigit((unsigned char)s[i]); i++, n++)
        ;
    if (n != 2 || s[i++] != ':')
        return 0;
    for (n = 0; isxdigit((unsigned char)s[i]); i++, n++)
        ;
    if (n != 2 || s[i++] != '.')
        return 0;
    return s[i] >= '0' && s[i] <= '7' && s[i + 1] == '\0';
}

/* A sysfs hex attribute: "0x1d0f\n". */
static int parse_hex_attr(const char *buf, unsigned long *out)
{
    const char *p = buf;
    char *end;
    if (p[0] != '0' || (p[1] != 'x' && p[1] != 'X') || !isxdigit((unsigned char)p[2]))
        return -1;
    errno = 0;
    unsigned long v = strtoul(p, &end, 16);
    while (*end == '\n' || *end == ' ')
        end++;
    if (errno || *end || v > 0xffffffUL)
        return -1;
    *out = v;
    return 0;
}

/* The first 7 lines of "resource": three hex numbers each (what libpci's
 * sysfs_get_resources insists on). */
static int resource_valid(const char *buf)
{
    const char *p = buf;
    for (int i = 0; i < 7 && *p; i++) {
        unsigned long long a, b, c;
        if (sscanf(p, "%llx %llx %llx", &a, &b, &c) != 3)
            return 0;
        p = strchr(p, '\n');
        if (p == NULL)
            break;
        p++;
    }
    return 1;
}

/* 1 when PATH (inside the root) resolves on disk to where it resolves inside
 * the root; always 1 for a root at "/". */
static int confined(struct probe_ctx *ctx, const char *path)
{
    struct root *r = ctx->root;
    if (strcmp(r->host_path, "/") == 0)
        return 1;
    char *inside = NULL, *host = root_host_path(r, path);
    char want[SP_ROOT_PATH_MAX], *real = NULL;
    int ok = 0;
    if (host && root_realpath(r, path, &inside) == 0 &&
        sp_path_join(want, sizeof want, r->host_path, inside) == 0 &&
        (real = realpath(host, NULL)) != NULL)
        ok = strcmp(real, strcmp(inside, "/") == 0 ? r->host_path : want) == 0;
    free(real);
    free(inside);
    free(host);
    return ok;
}

/* Check, through the root, every file libpci's scan opens for device NAME
 * on BUS (the bus folder as resolved inside the root, "/sys/bus/pci" in a
 * plain tree); on a problem, a warning and -1. */
static int precheck_device(struct probe_ctx *ctx, const char *bus, const char *name)
{
    static const char *const files[] = { "resource", "irq", "vendor", "device", "class" };
    char path[SP_ROOT_PATH_MAX];
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        char *buf;
        size_t len;
        snprintf(path, sizeof path, "%s/devices/%s/%s", bus, name, files[i]);
        size_t max = i == 0 ? PCI_RESOURCE_FILE_MAX : PCI_VALUE_MAX;
        if (root_read_file(ctx->root, path, max, &buf, &len) != 0) {
            if (i < 2 && errno == ENOENT)
                continue;                   /* libpci 3.9 no longer needs these */
            probe_warn_errno(ctx, "pci", path, errno);
            return -1;
        }
        unsigned long v;
        int bad = memchr(buf, '\0', len) != NULL ||
                  (i == 0 ? !resource_valid(buf)
                          : i == 1 ? strspn(buf, "0123456789\n") != len || len == 0
                                   : parse_hex_attr(buf, &v) != 0);
        free(buf);
        if (bad) {
            factset_warn(ctx->facts, "pci: %s: malformed value", path);
            return -1;
        }
        if (!confined(ctx, path)) {
            factset_warn(ctx->facts, "pci: %s: resolves outside the root on disk; "
                         "PCI not read", path);
            return -1;
        }
    }
    return 0;
}

static int cmp_uint(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return x < y ? -1 : x > y;
}

/* Add ID to the set IDS (N entries, at most PCI_IDS_MAX distinct kept; the
 * ones past it are counted in *DROPPED). */
static void add_id(unsigned *ids, size_t *n, unsigned id, size_t *dropped)
{
    for (size_t i = 0; i < *n; i++)
        if (ids[i] == id)
            return;
    if (*n < PCI_IDS_MAX)
        ids[(*n)++] = id;
    else
        (*dropped)++;
}

/* Append "VVVV:DDDD" for each distinct id of IDS (sorted) to OUT. */
static void id_list(unsigned vendor, unsigned *ids, size_t n, char *out, size_t outsz)
{
    size_t used = 0;
    out[0] = '\0';
    qsort(ids, n, sizeof *ids, cmp_uint);
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && ids[i] == ids[i - 1])
            continue;
        int w = snprintf(out + used, outsz - used, "%s%04x:%04x", used ? "," : "",
                         vendor, ids[i]);
        if (w < 0 || (size_t)w >= outsz - used)
            break;
        used += (size_t)w;
    }
}

/* Run libpci on the on-disk folder SYSFS; fill DEVS (at most MAX).  Returns
 * the number of devices, or -1 with pci_msg set. */
static long scan_with_libpci(const char *sysfs, struct pci_dev_ids *devs, size_t max)
{
    struct pci_access *a = pci_alloc();
    volatile long n = 0;
    if (a == NULL) {
        snprintf(pci_msg, sizeof pci_msg, "pci_alloc failed");
        return -1;
    }
    a->error = on_error;
    a->warning = on_warning;
    a->debug = on_debug;
    a->method = PCI_ACCESS_SYS_BUS_PCI;
    if (pci_set_param(a, "sysfs.path", (char *)sysfs) != 0) {
        snprintf(pci_msg, sizeof pci_msg, "libpci has no sysfs.path parameter");
        pci_cleanup(a);
        return -1;
    }
    if (setjmp(pci_jump) == 0) {
        pci_init(a);
        pci_scan_bus(a);
        for (struct pci_dev *d = a->devices; d; d = d->next) {
            if ((size_t)n >= max) {
                snprintf(pci_msg, sizeof pci_msg, "more than %zu devices", max);
                n = -1;
                break;
            }
            pci_fill_info(d, PCI_FILL_IDENT | PCI_FILL_CLASS);
            devs[n].vendor = d->vendor_id;
            devs[n].device = d->device_id;
            devs[n].cls = d->device_class;
            n = n + 1;
        }
    } else {
        n = -1;
    }
    pci_cleanup(a);
    return n;
}

/* The root's PCI folder, checked before libpci reads it: on disk, inside
 * the root, a bounded number of entries, each a PCI address whose files
 * are what libpci expects (precheck_device).  *INSIDE gets its path inside
 * the root (malloc'd, also on failure), SYSFS the host path of it.
 * Returns 0 when libpci may read it, 1 when a warning says why not. */
static int pci_folder(struct probe_ctx *ctx, char **inside, char sysfs[SP_ROOT_PATH_MAX])
{
    struct root *r = ctx->root;
    char **names = NULL;
    size_t nnames = 0;
    int rc = 1;
    if (r->host_path == NULL) {
        factset_warn(ctx->facts, "pci: %s: no PCI bus to read (not a directory on disk)",
                     r->subject);
        return 1;
    }
    if (root_realpath(r, PCI_SYSFS, inside) != 0 || !root_is_dir(r, PCI_SYSFS "/devices")) {
        probe_warn_errno(ctx, "pci", PCI_SYSFS "/devices", errno ? errno : ENOENT);
        return 1;
    }
    if (sp_path_join(sysfs, SP_ROOT_PATH_MAX, r->host_path, *inside) != 0) {
        probe_warn_errno(ctx, "pci", PCI_SYSFS, errno);
        return 1;
    }
    const char *in = strcmp(*inside, "/") ? *inside : "";
    char devices[SP_ROOT_PATH_MAX];
    snprintf(devices, sizeof devices, "%s/devices", in);
    if (root_list_dir(r, devices, &names, &nnames) != 0) {
        probe_warn_errno(ctx, "pci", PCI_SYSFS "/devices", errno);
        return 1;
    }
    if (nnames > PCI_DEVICES_MAX) {
        factset_warn(ctx->facts, "pci: " PCI_SYSFS "/devices: more than %d devices; "
                     "PCI not read", PCI_DEVICES_MAX);
        goto out;
    }
    if (!confined(ctx, devices)) {
        factset_warn(ctx->facts, "pci: %s: resolves outside the root on disk; PCI not "
                     "read", devices);
        goto out;
    }
    for (size_t i = 0; i < nnames; i++) {
        if (names[i][0] == '.')
            continue;                       /* libpci skips these too */
        if (!bdf_name_valid(names[i])) {
            factset_warn(ctx->facts, "pci: " PCI_SYSFS "/devices/%s: not a PCI "
                         "address; PCI not read", names[i]);
            goto out;
        }
        if (precheck_device(ctx, in, names[i]) != 0)
            goto out;
    }
    rc = 0;
out:
    root_names_free(names, nnames);
    return rc;
}

/* What the devices libpci listed add up to. */
struct pci_tally {
    size_t nneuron, ngpu, nefa;
    unsigned neuron_ids[PCI_IDS_MAX], gpu_ids[PCI_IDS_MAX];
    size_t nnids, ngids, dropped;   /* distinct ids kept; ids past PCI_IDS_MAX */
    const char *kinds[16];          /* distinct Neuron device kinds */
    size_t nkinds;
};

static void pci_count(const struct pci_dev_ids *devs, long n, struct pci_tally *t)
{
    for (long i = 0; i < n; i++) {
        if (devs[i].vendor == SP_VENDOR_AMAZON) {
            const struct neuron_kind *k = neuron_kind_by_id(devs[i].device);
            if (k) {
                t->nneuron++;
                add_id(t->neuron_ids, &t->nnids, devs[i].device, &t->dropped);
                size_t j = 0;
                while (j < t->nkinds && strcmp(t->kinds[j], k->kind) != 0)
                    j++;
                if (j == t->nkinds && t->nkinds < 16)
                    t->kinds[t->nkinds++] = k->kind;
            } else if (efa_device_id(devs[i].device)) {
                t->nefa++;
            }
        } else if (devs[i].vendor == SP_VENDOR_NVIDIA && (devs[i].cls >> 8) == 0x03) {
            t->ngpu++;                       /* display controllers only (class 03xx) */
            add_id(t->gpu_ids, &t->ngids, devs[i].device, &t->dropped);
        }
    }
}

/* neuron.device.kind (the kinds sorted bytewise, joined) and
 * neuron.device.pci_id; -1 on ENOMEM. */
static int pci_neuron_kinds(struct probe_ctx *ctx, struct pci_tally *t, const char *ev)
{
    char list[PCI_IDS_MAX * 10 + 1];
    for (size_t i = 1; i < t->nkinds; i++)
        for (size_t j = i; j > 0 && strcmp(t->kinds[j - 1], t->kinds[j]) > 0; j--) {
            const char *x = t->kinds[j];
            t->kinds[j] = t->kinds[j - 1];
            t->kinds[j - 1] = x;
        }
    size_t used = 0;
    list[0] = '\0';
    for (size_t i = 0; i < t->nkinds; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s",
                                 i ? "," : "", t->kinds[i]);
    if (probe_set(ctx, "neuron.device.kind", list, ev) != 0)
        return -1;
    if (t->nkinds > 1)
        factset_warn(ctx->facts, "neuron.device.kind: " PCI_SYSFS ": devices of "
                     "several kinds on one host: %s", list);
    id_list(SP_VENDOR_AMAZON, t->neuron_ids, t->nnids, list, sizeof list);
    return probe_set(ctx, "neuron.device.pci_id", list, ev);
}

/* The facts of T; -1 on ENOMEM. */
static int pci_record(struct probe_ctx *ctx, struct pci_tally *t)
{
    const char *ev = PCI_SYSFS " (libpci linux-sysfs)";
    char list[PCI_IDS_MAX * 10 + 1];
    if (factset_setf(ctx->facts, "neuron.device.count", ev, "%zu", t->nneuron) != 0 ||
        factset_setf(ctx->facts, "efa.device.count", ev, "%zu", t->nefa) != 0 ||
        factset_setf(ctx->facts, "gpu.device.count", ev, "%zu", t->ngpu) != 0)
        return -1;
    if (t->nkinds > 0 && pci_neuron_kinds(ctx, t, ev) != 0)
        return -1;
    if (t->ngids > 0) {
        id_list(SP_VENDOR_NVIDIA, t->gpu_ids, t->ngids, list, sizeof list);
        if (probe_set(ctx, "gpu.device.pci_id", list, ev) != 0)
            return -1;
    }
    if (t->dropped)
        factset_warn(ctx->facts, "pci: " PCI_SYSFS ": more than %d distinct device ids of "
                     "one vendor; %zu not listed", PCI_IDS_MAX, t->dropped);
    return 0;
}

int probe_pci(struct probe_ctx *ctx, struct sp_error *e)
{
    char *inside = NULL, sysfs[SP_ROOT_PATH_MAX];
    struct pci_dev_ids *devs = NULL;
    struct pci_tally *t = NULL;
    int rc = 0;

    if (pci_folder(ctx, &inside, sysfs) != 0)
        goto out;
    devs = calloc(PCI_DEVICES_MAX, sizeof *devs);
    t = calloc(1, sizeof *t);
    if (devs == NULL || t == NULL) {
        rc = sp_fail(e, SP_EXIT_INPUT, "pci: out of memory");
        goto out;
    }
    pci_msg[0] = '\0';
    pci_warnings = 0;
    long n = scan_with_libpci(sysfs, devs, PCI_DEVICES_MAX);
    if (n < 0) {
        factset_warn(ctx->facts, "pci: " PCI_SYSFS ": libpci: %s; PCI not read", pci_msg);
        goto out;
    }
    if (pci_warnings)
        factset_warn(ctx->facts, "pci: " PCI_SYSFS ": libpci: %s", pci_msg);
    pci_count(devs, n, t);
    if (pci_record(ctx, t) != 0)
        rc = sp_fail(e, SP_EXIT_INPUT, "pci: out of memory");
out:
    free(t);
    free(devs);
    free(inside);
    return rc;
}
