/* checks/fix.h: `stackprint check --fix`: the exact, pinned steps that turn
 * a failing Neuron stack into one the shipped policies accept
 * (stackprint-check(1), "REMEDIATION PLAN").
 *
 * The target release: with --target-release, that one; otherwise the
 * newest release of the catalog (the SDK's own table) for which the plan,
 * applied to the manifest's facts, passes every loaded policy at error
 * severity.  The policies decide what fits (instance family, Python
 * window, backend path, driver against runtime); this file never restates
 * a rule.  With --keep-driver the loaded kernel driver is left alone, so
 * only releases whose runtime it serves can pass.
 *
 * The plan (sp_fix_build), for release R:
 *   - every installed aws-neuronx-* system package (deb or rpm) and every
 *     workload pip package that R lists, at a version other than R's:
 *     installed at R's version (apt-get install NAME=VERSION*, dnf install
 *     NAME-VERSION*, PYTHON -m pip install NAME==VERSION);
 *   - where R lists several versions of a package (torch-neuronx for
 *     several torch versions, torch-xla, libneuronxla 2.x and 3.x): the one
 *     whose leading release components match the installed torch (for
 *     torch-neuronx and torch-xla) or the installed version most closely,
 *     else the first R lists;
 *   - torch follows torch-neuronx on the XLA path and torch-neuron on
 *     Inf1 (their first three components, as the torch-agreement policy
 *     requires); torch-xla only ever moves to the version matching torch's
 *     X.Y;
 *   - the driver: aws-neuronx-dkms at R's version, then a reload of the
 *     module (its own step: neuron.driver.version changes too), unless
 *     --keep-driver;
 *   - the legacy aws-neuron-* packages next to aws-neuronx-* ones,
 *     torch-neuron and neuron-cc outside inf1, torch-neuronx, neuronx-cc,
 *     libneuronxla and torch-xla on inf1: removed;
 *   - on the native backend path torch and torch-neuronx are left alone:
 *     the SDK's table lists only the XLA path's torch-neuronx.
 * Steps are ordered: removals of legacy system packages, driver, runtime,
 * tools, Python removals, Python installs.  Every fact a step changes is a
 * step of its own, so applying the steps to the facts gives the stack that
 * will exist afterwards.  Nothing is ever run.
 *
 * Memory: a plan owns its strings; sp_fix_free() releases them.
 */
#ifndef SP_FIX_H
#define SP_FIX_H

#include <stddef.h>

#include "common/error.h"
#include "manifest/facts.h"
#include "checks/policy.h"

struct sp_fix_step {
    char *key;            /* the fact the step changes */
    char *installed;      /* its value now, NULL when absent */
    char *target;         /* its value afterwards, NULL for a removal */
    char *command;        /* the command, or how the fact follows another step */
    int group;            /* order: 0 legacy removal .. 5 pip install */
};

struct sp_fix_plan {
    int passes;           /* the check already passes: nothing to change */
    char *release;        /* the target release, NULL when none fits */
    char *reason;         /* why that release, or why none */
    struct sp_fix_step *steps;
    size_t n, cap;
};

struct sp_fix_opts {
    const char *target_release;   /* --target-release, or NULL */
    int keep_driver;              /* --keep-driver */
};

/* sp_fix_build: choose the target release and build its plan for the
 * manifest facts FACTS (as read: not the derived neuron.sdk.* facts) under
 * the policy set PS, which must hold the release catalog.  Returns 0 with
 * PLAN filled (PLAN->release NULL and PLAN->reason set when no release
 * fits or --target-release cannot fit), or -1 with E set: SP_EXIT_USAGE
 * for a --target-release the catalog does not list or a policy set without
 * a catalog, SP_EXIT_INPUT when out of memory. */
int sp_fix_build(const struct sp_policy_set *ps, const struct factset *facts,
                 const struct sp_fix_opts *opts, struct sp_fix_plan *plan, struct sp_error *e);

/* sp_fix_apply: the facts after the plan: a copy of IN with each step's
 * key set to its target, or removed.  OUT is initialised here. */
int sp_fix_apply(const struct sp_fix_plan *plan, const struct factset *in, struct factset *out);

void sp_fix_free(struct sp_fix_plan *plan);

enum sp_fix_format { SP_FIX_TEXT, SP_FIX_JSON, SP_FIX_MARKDOWN };

/* sp_fix_render: the plan as text (an explanation, then a shell block of
 * the commands grouped per tool), JSON ({"plan": {"release", "reason",
 * "steps": [{"key", "installed", "target", "action", "command"}]}}) or
 * markdown, malloc'd into *OUT. */
int sp_fix_render(const struct sp_fix_plan *plan, enum sp_fix_format format, char **out,
                  size_t *len, struct sp_error *e);

#endif
