/* export/bom.h: a manifest as a bill of materials (stackprint-export(1)):
 * the components a manifest describes, and their rendering as CycloneDX
 * 1.6 JSON and SPDX 2.3 JSON.
 *
 * sp_bom_build() maps facts to components once; both renderers read the
 * same list, so CycloneDX and SPDX always name the same packages with the
 * same purls.  The mapping (stackprint-export(1), "MAPPING"):
 *   pip.NAME                    library (framework for torch, torch-neuronx,
 *                               torch-xla, torch-neuron, neuronx-cc, neuron-cc,
 *                               jax, jax-neuronx, tensorflow*), purl
 *                               pkg:pypi/NAME@VERSION, environment "workload"
 *   python.env.SLUG.pip.NAME    the same, environment SLUG
 *   deb.NAME[:ARCH]             library, pkg:deb/OS_ID/NAME@VERSION?arch=ARCH&distro=OS_ID-VERSION_ID
 *   rpm.NAME                    library, pkg:rpm/OS_ID/NAME@VERSION-RELEASE?epoch=E&distro=...
 *                               (a value that is not [E:]V-R, a comma list, stays a property)
 *   host.os.*                   operating-system
 *   host.instance_type          device (the instance)
 *   neuron.device.*             device; neuron.driver.version: device-driver "neuron"
 *   neuron.runtime.version, neuron.collectives.version: library libnrt, libnccom
 *   efa.*, gpu.*, cuda.toolkit.version: devices, drivers, library
 *   python.version              application "python"
 * Every fact that is not a package (pip, deb, rpm) also becomes a property
 * "stackprint:KEY" of the document, so nothing in the manifest is lost.
 *
 * Memory: struct sp_bom owns its strings; property values point into the
 * manifest, which must outlive it.  Renderers return malloc'd text the
 * caller frees.  Nothing here prints or exits.
 */
#ifndef SP_BOM_H
#define SP_BOM_H

#include <stddef.h>

#include "common/error.h"
#include "manifest/manifest.h"

#define SP_BOM_PROPS_MAX 8   /* properties of one component */
/* bytes a document of N components and properties is expected to take, so
 * that the writer (export/json_writer.h) seldom grows its buffer */
#define SP_BOM_BYTES_HINT(n) ((size_t)(n) * 640 + 8192)

enum sp_bom_kind {
    SP_BOM_LIBRARY, SP_BOM_FRAMEWORK, SP_BOM_APPLICATION, SP_BOM_OS,
    SP_BOM_DEVICE, SP_BOM_DRIVER,
};

struct sp_bom_prop {
    const char *name;       /* without the "stackprint:" namespace */
    const char *value;
};

struct sp_bom_component {
    enum sp_bom_kind kind;
    char *ref;              /* unique in the document: "pip:workload:torch" */
    char *name;
    char *version;          /* NULL when unknown */
    char *purl;             /* NULL when the kind has none */
    const char *description;
    char *env;              /* the Python environment of a pip package (owned) */
    struct sp_bom_prop props[SP_BOM_PROPS_MAX];
    size_t nprops;
};

struct sp_bom {
    const struct manifest *m;
    int image;                          /* the subject is an image */
    const char *subject_name;           /* image.ref, else the subject */
    const char *subject_digest;         /* image.manifest_digest hex, or NULL */
    struct sp_bom_component *c;
    size_t n, cap;
    const struct fact **props;          /* facts that are document properties */
    size_t nprops;
};

/* sp_bom_build: the components of manifest M.  Returns 0, or -1 with E set
 * (SP_EXIT_INPUT: out of memory, or a package fact whose purl cannot be
 * built, "KEY: purl: ..."). */
int sp_bom_build(const struct manifest *m, struct sp_bom *b, struct sp_error *e);
void sp_bom_free(struct sp_bom *b);

/* sp_bom_serial_uuid: the UUID (RFC 9562 version 5, namespace URL, name
 * "https://stackprint.dev/stack/" STACK_ID) naming a stack, as
 * "xxxxxxxx-xxxx-5xxx-yxxx-xxxxxxxxxxxx" into OUT (37 bytes).  0 or -1. */
int sp_bom_serial_uuid(const char *stack_id, char out[37]);

/* sp_export_cyclonedx: CycloneDX 1.6 JSON (ECMA-424, the CycloneDX 1.6
 * JSON schema), indented by two spaces, one trailing newline; the same
 * manifest gives the same bytes. */
int sp_export_cyclonedx(const struct sp_bom *b, char **out, size_t *len, struct sp_error *e);

/* sp_export_spdx: SPDX 2.3 JSON (the SPDX 2.3 specification and its JSON
 * schema), same layout rules. */
int sp_export_spdx(const struct sp_bom *b, char **out, size_t *len, struct sp_error *e);

enum sp_bom_format { SP_BOM_CYCLONEDX, SP_BOM_SPDX };

/* sp_bom_render: manifest M as a bill of materials in FORMAT (sp_bom_build,
 * then sp_export_cyclonedx or sp_export_spdx): the bytes stackprint export
 * writes, malloc'd into *OUT (*LEN bytes, NUL-terminated, the caller's).
 * Returns 0, or -1 with E set as those functions set it. */
int sp_bom_render(const struct manifest *m, enum sp_bom_format format, char **out, size_t *len,
                  struct sp_error *e);

#endif
