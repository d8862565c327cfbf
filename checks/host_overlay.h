/* checks/host_overlay.h: a container's stack on a host (stackprint-check(1),
 * "A CONTAINER ON A HOST"): the facts of an image's manifest with the facts
 * only the host can know laid over them, so that the policies see the
 * image's user space (runtime, compiler, torch, backend path, Python) next
 * to the host's kernel driver and devices.
 *
 * Host facts (sp_host_key): host.* except host.os.* (the OS release of a
 * container is its image's), neuron.driver.*, neuron.device.*,
 * neuron.core.*, neuron.lnc, efa.*, gpu.*, and the driver's packages
 * deb.aws-neuronx-dkms and rpm.aws-neuronx-dkms (the kernel module is built
 * from the host's; an image that carries the package does not load it).
 * Every other fact is the image's.  A host fact the image has and the host
 * lacks is dropped, never kept from the image: the host did not report it.
 *
 * Memory: the result is a fact set of its own (copies).  Nothing here
 * prints or exits.
 */
#ifndef SP_HOST_OVERLAY_H
#define SP_HOST_OVERLAY_H

#include "common/error.h"
#include "manifest/facts.h"

/* sp_host_key: 1 when KEY is a host fact (see above). */
int sp_host_key(const char *key);

/* sp_host_overlay: into OUT (initialised here; the caller frees it with
 * factset_free) every fact of IMAGE that is not a host fact, then every
 * host fact of HOST, with their evidence; IMAGE's warnings, then HOST's
 * prefixed "host: ".  Returns 0, or -1 with E set (SP_EXIT_INPUT, "out of
 * memory"), OUT then freed. */
int sp_host_overlay(const struct factset *image, const struct factset *host,
                    struct factset *out, struct sp_error *e);

#endif
