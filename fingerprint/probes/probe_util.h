/* fingerprint/probes/probe_util.h: small helpers shared by several host probes
 * (dmi, imds, pci, neuron-driver, neuron-lib): the Neuron device table of
 * doc/DOMAIN.md section 1, EC2 instance type rules, version syntax checks
 * (the order of versions is the sp_scheme table's: checks/version.h,
 * sp_version_sort()).
 * Pure functions: nothing here reads a file, prints or allocates. */
#ifndef SP_PROBE_UTIL_H
#define SP_PROBE_UTIL_H

#include <stddef.h>

#include "fingerprint/probes/probe.h"

#define SP_VENDOR_AMAZON 0x1d0fu
#define SP_VENDOR_NVIDIA 0x10deu
#define SP_INSTANCE_TYPE_MAX 64    /* bytes in an EC2 instance type */

struct neuron_kind {
    unsigned device_id;          /* PCI device id under vendor 0x1d0f */
    const char *kind;            /* neuron.device.kind: "trainium2" ... */
    const char *device_name;     /* what the driver's device_name says: "Trainium2" */
    unsigned cores;              /* physical NeuronCores per device */
};

/* neuron_kind_by_id: the table row for PCI device id ID (vendor 0x1d0f), or
 * NULL when ID is not a Neuron device (EFA, ENA, NVMe ...). */
const struct neuron_kind *neuron_kind_by_id(unsigned id);
/* neuron_kind_by_name: the row whose kind ("trainium2") or driver device
 * name ("Trainium2") equals NAME, case-insensitively; NULL if none. */
const struct neuron_kind *neuron_kind_by_name(const char *name);

/* efa_device_id: 1 when ID (vendor 0x1d0f) is an EFA adapter, 0xefa0-0xefa3
 * (amzn-drivers efa_main.c); 0xefa4 is not confirmed and not counted. */
int efa_device_id(unsigned id);

/* instance_type_valid: 1 when S looks like an EC2 instance type: lowercase
 * letters, digits and '-', one '.', a size of letters and digits
 * ("trn2.48xlarge", "u-6tb1.metal"), at most SP_INSTANCE_TYPE_MAX bytes. */
int instance_type_valid(const char *s);

/* instance_family: the family of TYPE: its leading letters followed by its
 * digits ("trn2u.48xlarge" -> "trn2", "trn1n.32xlarge" -> "trn1",
 * "p4d.24xlarge" -> "p4"), into OUT.  Returns 0, or -1 when TYPE does not
 * start with letters then digits ("u-6tb1.metal") or OUT is too small. */
int instance_family(const char *type, char *out, size_t outsz);

/* instance_id_valid: 1 for "i-" and 8 or 17 lowercase hex digits. */
int instance_id_valid(const char *s);

/* probe_set_instance: record host.instance_type = TYPE and, when it has
 * one, host.instance_family, both with EVIDENCE; a type without a family is
 * a warning.  Returns -1 only on ENOMEM. */
int probe_set_instance(struct probe_ctx *ctx, const char *type, const char *evidence);

/* version_is_numeric: 1 when S is N(.N)* with at least MINPARTS parts and
 * every N decimal digits, at most 64 bytes. */
int version_is_numeric(const char *s, int minparts);

/* version_looks_valid: 1 when S starts with a digit and holds only letters,
 * digits and ".+~-_:" (a kernel module, DKMS or package version), at most
 * 128 bytes. */
int version_looks_valid(const char *s);

#endif
