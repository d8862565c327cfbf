/* checks/release.h: Neuron SDK release inference.  Maps every Neuron
 * component a manifest holds to the releases of the catalog that shipped
 * that exact version, and derives the facts policies use.  The release is
 * never read from one component: it is the set of releases consistent with
 * all of them (aws-neuron-sdk#781, #812).  The kernel driver is kept out of
 * that consensus, since hosts often run a driver from an older release than
 * their userspace (doc/DOMAIN.md section 5); it gets its own fact.
 *
 * Components: deb.<name> and rpm.<name> (epoch, revision and the yum
 * spelling's "_HASH" ignored: catalog_upstream()),
 * pip.<name> (PEP 503 names; local labels ignored) of the workload
 * environment, and, when no package records them, neuron.runtime.version
 * (aws-neuronx-runtime-lib) and neuron.collectives.version
 * (aws-neuronx-collectives) read from library file names.  Only names the
 * catalog lists count.
 *
 * Derived facts (stackprint-policy(5), "THE RELEASE CATALOG", "Derived facts"):
 *   neuron.sdk.release       "2.16.1"; "2.16" when the consistent releases
 *                            share that line; "mixed" when no release holds
 *                            every component; "unknown" when none is in the
 *                            catalog or the consistent releases span lines
 *   neuron.sdk.candidates    consistent releases, oldest first, comma-separated
 *   neuron.sdk.nearest       (mixed) the release holding most components
 *   neuron.sdk.odd           (mixed) the components the nearest release lacks
 *   neuron.sdk.uncatalogued  components whose version no release lists
 *   neuron.sdk.release_of.<fact key>  releases that shipped that component's version
 *   neuron.sdk.driver_release         releases whose dkms is the loaded driver
 *                                     (else the installed aws-neuronx-dkms)
 *   neuron.sdk.compiler_release       oldest release shipping the neuronx-cc version
 *   neuron.sdk.runtime_release        newest release shipping the runtime version
 *   neuron.sdk.cache_compiler_release the release of the newest neuronx-cc that
 *                                     filled the compile cache (neuron.cache.compilers;
 *                                     each compiler's oldest release)
 *   neuron.sdk.python        Python versions every catalogued pip component
 *                            found supports in the release (the table's
 *                            lists, intersected); "none" when they share none
 *   neuron.sdk.instances     instance families every catalogued component
 *                            found supports in the release, likewise
 *   neuron.sdk.runtime_version  the runtime library's version: the upstream
 *                            part (catalog_upstream(): no epoch, no
 *                            revision, no yum build hash) of
 *                            deb.aws-neuronx-runtime-lib, else of
 *                            rpm.aws-neuronx-runtime-lib, else
 *                            neuron.runtime.version (the library file name)
 *   neuron.sdk.driver_version   the driver's: neuron.driver.version (the
 *                            loaded module), else the upstream part of
 *                            deb.aws-neuronx-dkms, else rpm.aws-neuronx-dkms
 *   neuron.sdk.x_packages    the installed aws-neuronx-* system packages:
 *                            their fact keys (deb.* and rpm.*), comma-separated
 * These three are set whenever one of their sources is present, even when
 * nothing else is catalogued; the versions' evidence is the source's key.
 */
#ifndef SP_RELEASE_H
#define SP_RELEASE_H

#include "checks/catalog.h"
#include "manifest/facts.h"

/* release_infer: add the derived facts above to FACTS (which must not hold
 * neuron.sdk.* already: those are replaced).  Nothing is added when the
 * manifest holds no Neuron component.  Returns 0, or -1 with E set
 * (SP_EXIT_INPUT, out of memory). */
int release_infer(const struct catalog *c, struct factset *facts, struct sp_error *e);

#endif
