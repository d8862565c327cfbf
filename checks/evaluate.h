/* checks/evaluate.h: checking a manifest's facts against a policy set, into
 * a report: one result per requirement (stackprint-policy(5),
 * "EVALUATION"; stackprint-check(1)).
 *
 * Verdicts:
 *   ok              the requirement holds
 *   violated        it does not (a required test fails, a forbidden one holds)
 *   missing         a required fact is absent
 *   invalid         the fact's value is not a version in the key's scheme,
 *                   so the test cannot be decided (never compared as text)
 *   not applicable  the policy's or the rule's `when` does not hold
 *   incomplete      the fact (or a fact the test refers to) is absent and
 *                   the manifest says its fact set was cut at the cap
 *                   (SP_FACTS_DROPPED_KEY, facts.h): absence decides
 *                   nothing then.  For a `when` condition, one incomplete
 *                   result replaces the rule's results.  An incomplete
 *                   result fails the check at any severity: a policy never
 *                   passes because a fact was dropped.
 * A `when` that cannot be decided (an invalid version) gives one invalid
 * result for that condition instead of the rule's results.
 * A result fails the check when its verdict is violated, missing or
 * invalid and its severity is error, or any severity with SP_EVAL_STRICT.
 *
 * The evaluator reads facts only through struct sp_eval_ctx, so facts
 * derived from others (checks/release.h) are added to the fact set before
 * evaluating; a test whose bound is another fact resolves it from the same
 * context and matches with sp_clause_match().
 *
 * Memory: results point into the policy set and the fact set, which must
 * outlive the report; sp_report_free() releases the rest.  A report can be
 * reused: sp_evaluate() clears it first.  Nothing here prints or exits.
 */
#ifndef SP_EVALUATE_H
#define SP_EVALUATE_H

#include <stddef.h>

#include "common/error.h"
#include "manifest/facts.h"
#include "checks/policy.h"

enum sp_verdict {
    SP_VERDICT_OK, SP_VERDICT_VIOLATED, SP_VERDICT_MISSING, SP_VERDICT_INVALID,
    SP_VERDICT_NOT_APPLICABLE, SP_VERDICT_INCOMPLETE,
    SP_VERDICTS                        /* how many */
};

enum sp_role { SP_ROLE_WHEN, SP_ROLE_REQUIRE, SP_ROLE_FORBID };

#define SP_EVAL_STRICT 1u              /* warnings fail the check too */

struct sp_eval_ctx {
    const struct factset *facts;       /* (a fact set is always sorted by key) */
    unsigned flags;                    /* SP_EVAL_* */
};

struct sp_result {
    const struct sp_policy *policy;
    const struct sp_rule *rule;
    const struct sp_requirement *requirement;
    enum sp_role role;
    enum sp_severity severity;         /* the rule's */
    enum sp_verdict verdict;
    const char *found;                 /* the fact's value; NULL when absent */
    char *detail;                      /* why invalid, or which referenced
                                          fact is absent; NULL otherwise */
    char *resolved;                    /* a test with fact references: what
                                          they resolved to ("<=2.15.2", the
                                          list of one_of_fact); else NULL */
    int fails;                         /* counts against the check */
};

struct sp_report {
    struct sp_result *results;         /* policy by policy, rule by rule, in file order */
    size_t count, cap;
    size_t policies;                   /* policies evaluated */
    size_t verdicts[SP_VERDICTS];      /* results per verdict */
    size_t errors, warnings;           /* results with a bad verdict, by severity */
    int strict;
    int passed;                        /* no result fails */
};

void sp_report_init(struct sp_report *r);
void sp_report_free(struct sp_report *r);

/* sp_evaluate: every policy of PS against CTX's facts, into R (cleared
 * first).  Returns 0, or -1 with E set (SP_EXIT_INPUT, out of memory). */
int sp_evaluate(const struct sp_policy_set *ps, const struct sp_eval_ctx *ctx,
                struct sp_report *r, struct sp_error *e);

/* sp_eval_facts: the facts policies see: a copy of IN (the manifest's)
 * into OUT (initialised here; the caller frees it with factset_free), plus,
 * when PS holds a release catalog, the facts release_infer() derives
 * (checks/release.h); any neuron.sdk.* key of IN is then left out, so a
 * manifest cannot pose as the catalog's verdict.  Returns 0, or -1 with E
 * set (SP_EXIT_INPUT, out of memory). */
int sp_eval_facts(const struct sp_policy_set *ps, const struct factset *in, struct factset *out,
                  struct sp_error *e);

/* sp_verdict_name: "ok", "violated", "missing", "invalid", "not applicable",
 * "incomplete". */
const char *sp_verdict_name(enum sp_verdict v);

/* sp_severity_name: "error" or "warning". */
const char *sp_severity_name(enum sp_severity s);

#endif
