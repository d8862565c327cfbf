/* checks/compare.h: the differences between two fact sets, each with the
 * direction of its change, in the order a person reads a stack
 * (stackprint-diff(1), "CHANGES" and "READING ORDER").  stackprint diff,
 * stackprint fleet and check --host all compare through this file; the
 * version logic itself is the scheme table of checks/version.h.
 *
 * A key present on one side only is added or removed.  A key whose values
 * differ as text is:
 *   upgraded / downgraded  when the key is a version fact and both values
 *                          parse in its scheme (sp_scheme_for_key: pip.*
 *                          PEP 440, deb.* Debian, rpm.* RPM EVR, python.version
 *                          and runtime.*.version PEP 440, other version facts
 *                          dotted) and order
 *                          strictly one way;
 *   changed                otherwise: a fact that is not a version
 *                          (torch.backend), a value that does not parse in
 *                          the key's scheme (never compared as text), or
 *                          two spellings the scheme orders equal ("1.0" and
 *                          "1.0.0" in PEP 440 or dotted; "1:1.0" and
 *                          "1.0" never are), since the stack ids differ too.
 * Values equal as text are never a difference.
 *
 * Version facts (sp_compare_is_version): pip.*, deb.*, rpm.*,
 * python.version, python.env.SLUG.version, python.env.SLUG.pip.*, every key
 * whose last component is "version" or "version_id" or ends in
 * "_version" (neuron.driver.version, neuron.runtime.version,
 * efa.installer.version, host.os.version_id, neuron.sdk.runtime_version),
 * and gpu.nvidia.driver, torch.build.cuda, neuron.sdk.release.
 *
 * Memory: a struct sp_diff's items point into the two fact sets compared
 * (keys and values) or at the strings of struct sp_compare_opts; those must
 * outlive it.  sp_diff_free() releases the array only.  Nothing here prints
 * or exits.
 */
#ifndef SP_COMPARE_H
#define SP_COMPARE_H

#include <stddef.h>

#include "common/error.h"
#include "manifest/facts.h"

enum sp_change {
    SP_CHANGE_ADDED,        /* only in NEW */
    SP_CHANGE_REMOVED,      /* only in OLD */
    SP_CHANGE_UPGRADED,     /* NEW sorts after OLD in the key's scheme */
    SP_CHANGE_DOWNGRADED,   /* NEW sorts before OLD */
    SP_CHANGE_CHANGED,      /* differs, no direction (see above) */
    SP_CHANGES              /* how many */
};

struct sp_difference {
    const char *key;
    const char *old_value;  /* NULL when absent from OLD */
    const char *new_value;  /* NULL when absent from NEW */
    enum sp_change change;
    unsigned group;         /* reading-order group, enum sp_group */
    unsigned rank;          /* place inside the reading order (for sorting;
                               compare with sp_reading_cmp's rules) */
};

/* Reading-order groups, in the order a stack is read (sp_group_of). */
enum sp_group {
    SP_GROUP_INSTANCE,      /* host.*: instance, OS, kernel */
    SP_GROUP_DEVICES,       /* neuron.device.*, neuron.core.*, neuron.lnc,
                               efa.device.*, gpu.device.* */
    SP_GROUP_DRIVER,        /* neuron.driver.*, efa.driver.*, gpu.nvidia.*,
                               deb./rpm.aws-neuronx-dkms */
    SP_GROUP_RUNTIME,       /* neuron.sdk.*, neuron.runtime.*,
                               neuron.collectives.*, efa.installer.*,
                               cuda.*, deb./rpm.aws-neuronx-runtime-lib,
                               deb./rpm.aws-neuronx-collectives */
    SP_GROUP_COMPILER,      /* pip.neuronx-cc, pip.neuron-cc, the compile
                               cache and NEFFs: neuron.cache.*, neuron.neff.* */
    SP_GROUP_TORCH,         /* torch.*, runtime.torch.*,
                               runtime.torch_neuronx.*, runtime.disagreements,
                               pip.torch, pip.torch-neuronx, pip.torch-xla,
                               pip.torch-neuron, pip.libneuronxla,
                               pip.torchvision */
    SP_GROUP_PYTHON,        /* python.* other than python.env.SLUG.pip.*;
                               other runtime.* (runtime.python.*) */
    SP_GROUP_IMAGE,         /* image.*, container.* */
    SP_GROUP_ENV,           /* env.* */
    SP_GROUP_PACKAGES,      /* pip.*, python.env.SLUG.pip.*, deb.*, rpm.* */
    SP_GROUP_OTHER,         /* anything else; "created" */
    SP_GROUPS               /* how many */
};

#define SP_COMPARE_ALL 1u   /* keep volatile keys (fact_is_volatile) and created */

struct sp_compare_opts {
    unsigned flags;                 /* SP_COMPARE_* */
    const char *const *ignore;      /* fnmatch(3) globs without flags ('*'
                                       crosses dots): a key matching any is
                                       left out; NIGNORE of them */
    size_t nignore;
    /* the manifests' created stamps, or NULL: with SP_COMPARE_ALL, two that
     * differ give a difference keyed "created" (group SP_GROUP_OTHER) */
    const char *old_created, *new_created;
};

struct sp_diff {
    struct sp_difference *items;    /* in reading order (sp_reading_cmp) */
    size_t count, cap;
    size_t counts[SP_CHANGES];      /* items per change */
};

void sp_diff_init(struct sp_diff *d);
void sp_diff_free(struct sp_diff *d);

/* sp_compare: every difference between OLD and NEW (either may be empty)
 * into D (cleared first), left out: volatile keys and created unless
 * SP_COMPARE_ALL, keys matching an ignore glob (O may be NULL: no options).
 * One merge pass over the two sorted sets, then a sort: O(n log n) for n
 * differences.  Returns 0, or -1 with E set (SP_EXIT_INPUT, "out of
 * memory"). */
int sp_compare(const struct factset *old, const struct factset *new_,
               const struct sp_compare_opts *o, struct sp_diff *d, struct sp_error *e);

/* sp_compare_values: the change from OLD_VALUE to NEW_VALUE of KEY (either
 * may be NULL: added or removed), by the rules above.  Values equal as text
 * (or both NULL) give SP_CHANGES: no change. */
enum sp_change sp_compare_values(const char *key, const char *old_value,
                                 const char *new_value);

/* sp_compare_is_version: 1 when KEY is a version fact (see above). */
int sp_compare_is_version(const char *key);

/* sp_compare_ignored: 1 when O leaves KEY out (volatile without
 * SP_COMPARE_ALL, or matching an ignore glob). */
int sp_compare_ignored(const char *key, const struct sp_compare_opts *o);

/* sp_group_of: the reading-order group of KEY. */
enum sp_group sp_group_of(const char *key);

/* sp_reading_cmp: strcmp-like order of keys as a stack is read: by group,
 * then, inside a group, the keys the group lists first in that order, then
 * the rest bytewise.  A key belongs where its longest listed pattern puts
 * it (neuron.cache.* with the compiler, other neuron.* with the runtime). */
int sp_reading_cmp(const char *a, const char *b);

/* sp_change_name: "added", "removed", "upgraded", "downgraded", "changed". */
const char *sp_change_name(enum sp_change c);

/* sp_group_name: a heading for reports: "instance", "devices", "driver",
 * "runtime", "compiler", "torch", "python", "image", "environment",
 * "packages", "other". */
const char *sp_group_name(enum sp_group g);

#endif
