/* checks/evaluate.c: policies against facts, into a report; see
 * evaluate.h.  Must not read anything but the fact set it is given, and
 * must not format output (checks/report_*.c do). */
#include "evaluate.h"

#include <stdlib.h>
#include <string.h>

enum outcome { HOLDS, FAILS, UNDECIDED };

const char *sp_verdict_name(enum sp_verdict v)
{
    static const char *const names[SP_VERDICTS] = {
        "ok", "violated", "missing", "invalid", "not applicable",
    };
    return v < SP_VERDICTS ? names[v] : "?";
}

const char *sp_severity_name(enum sp_severity s)
{
    return s == SP_SEVERITY_WARNING ? "warning" : "error";
}

void sp_report_init(struct sp_report *r)
{
    memset(r, 0, sizeof *r);
}

static void report_clear(struct sp_report *r)
{
    for (size_t i = 0; i < r->count; i++)
        free(r->results[i].detail);
    struct sp_result *keep = r->results;
    size_t cap = r->cap;
    sp_report_init(r);
    r->results = keep;
    r->cap = cap;
}

void sp_report_free(struct sp_report *r)
{
    report_clear(r);
    free(r->results);
    sp_report_init(r);
}

/* Does test T hold for the value FOUND (NULL: absent)?  UNDECIDED, with a
 * malloc'd reason in *DETAIL, when FOUND is not a version of the test's
 * scheme.  -1 on allocation failure. */
static int test_outcome(const struct sp_test *t, const char *found, char **detail)
{
    switch (t->kind) {
    case SP_TEST_PRESENT:
        return found ? HOLDS : FAILS;
    case SP_TEST_ABSENT:
        return found ? FAILS : HOLDS;
    case SP_TEST_EQUALS:
    case SP_TEST_ONE_OF:
        for (size_t i = 0; found && i < t->nvalues; i++)
            if (strcmp(found, t->values[i]) == 0)
                return HOLDS;
        return FAILS;
    case SP_TEST_SPECIFIER: {
        if (found == NULL)
            return FAILS;
        struct sp_error ve;
        struct sp_version *v = sp_version_parse(t->specifier->scheme, found, &ve);
        if (v == NULL)
            return (*detail = strdup(ve.msg)) ? UNDECIDED : -1;
        int m = sp_specifier_match(t->specifier, v);
        sp_version_free(v);
        return m ? HOLDS : FAILS;
    }
    }
    return FAILS;
}

static int push(struct sp_report *r, const struct sp_policy *p, const struct sp_rule *rule,
                const struct sp_requirement *req, enum sp_role role, enum sp_verdict verdict,
                const char *found, char *detail, struct sp_error *e)
{
    if (r->count == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 64;
        struct sp_result *n = realloc(r->results, cap * sizeof *n);
        if (n == NULL) {
            free(detail);
            return sp_fail(e, SP_EXIT_INPUT, "check: out of memory");
        }
        r->results = n;
        r->cap = cap;
    }
    struct sp_result *res = &r->results[r->count++];
    res->policy = p;
    res->rule = rule;
    res->requirement = req;
    res->role = role;
    res->severity = rule ? rule->severity : SP_SEVERITY_ERROR;
    res->verdict = verdict;
    res->found = found;
    res->detail = detail;
    int bad = verdict == SP_VERDICT_VIOLATED || verdict == SP_VERDICT_MISSING ||
              verdict == SP_VERDICT_INVALID;
    res->fails = bad && (res->severity == SP_SEVERITY_ERROR || r->strict);
    r->verdicts[verdict]++;
    if (bad && res->severity == SP_SEVERITY_ERROR)
        r->errors++;
    else if (bad)
        r->warnings++;
    if (res->fails)
        r->passed = 0;
    return 0;
}

/* All of the conditions in WHEN: HOLDS, FAILS (one fails for sure), or
 * UNDECIDED with *WHICH and *DETAIL set.  -1 on allocation failure. */
static int conditions(const struct sp_requirement *when, size_t n, const struct sp_eval_ctx *ctx,
                      const struct sp_requirement **which, char **detail)
{
    int result = HOLDS;
    for (size_t i = 0; i < n; i++) {
        char *why = NULL;
        int o = test_outcome(&when[i].test, factset_get(ctx->facts, when[i].key), &why);
        if (o < 0)
            return -1;
        if (o == FAILS) {
            free(*detail);
            *detail = NULL;
            free(why);
            return FAILS;
        }
        if (o == UNDECIDED && result == HOLDS) {
            result = UNDECIDED;
            *which = &when[i];
            *detail = why;
        } else {
            free(why);
        }
    }
    return result;
}

static int requirement(struct sp_report *r, const struct sp_policy *p, const struct sp_rule *rule,
                       const struct sp_requirement *req, enum sp_role role, int applies,
                       const struct sp_eval_ctx *ctx, struct sp_error *e)
{
    const char *found = factset_get(ctx->facts, req->key);
    char *detail = NULL;
    enum sp_verdict v;
    if (!applies)
        return push(r, p, rule, req, role, SP_VERDICT_NOT_APPLICABLE, found, NULL, e);
    int o = test_outcome(&req->test, found, &detail);
    if (o < 0)
        return sp_fail(e, SP_EXIT_INPUT, "check: out of memory");
    if (o == UNDECIDED)
        v = SP_VERDICT_INVALID;
    else if (role == SP_ROLE_FORBID)
        v = o == HOLDS ? SP_VERDICT_VIOLATED : SP_VERDICT_OK;
    else if (found == NULL && req->test.kind != SP_TEST_ABSENT)
        v = SP_VERDICT_MISSING;
    else
        v = o == HOLDS ? SP_VERDICT_OK : SP_VERDICT_VIOLATED;
    return push(r, p, rule, req, role, v, found, detail, e);
}

/* WHEN gates the requirements that follow: on UNDECIDED, one invalid
 * result for the condition; else APPLIES says whether it held. */
static int gate(struct sp_report *r, const struct sp_policy *p, const struct sp_rule *rule,
                const struct sp_requirement *when, size_t n, const struct sp_eval_ctx *ctx,
                int *applies, struct sp_error *e)
{
    const struct sp_requirement *which = NULL;
    char *detail = NULL;
    int o = conditions(when, n, ctx, &which, &detail);
    if (o < 0)
        return sp_fail(e, SP_EXIT_INPUT, "check: out of memory");
    *applies = o == HOLDS;
    if (o != UNDECIDED)
        return 0;
    *applies = -1;
    return push(r, p, rule, which, SP_ROLE_WHEN, SP_VERDICT_INVALID,
                factset_get(ctx->facts, which->key), detail, e);
}

static int policy(struct sp_report *r, const struct sp_policy *p, const struct sp_eval_ctx *ctx,
                  struct sp_error *e)
{
    int applies;
    if (gate(r, p, NULL, p->when, p->nwhen, ctx, &applies, e) != 0)
        return -1;
    if (applies < 0)
        return 0;
    for (size_t i = 0; i < p->nrules; i++) {
        const struct sp_rule *rule = &p->rules[i];
        int rule_applies = applies;
        if (applies && gate(r, p, rule, rule->when, rule->nwhen, ctx, &rule_applies, e) != 0)
            return -1;
        if (rule_applies < 0)
            continue;
        for (size_t k = 0; k < rule->nrequire; k++)
            if (requirement(r, p, rule, &rule->require[k], SP_ROLE_REQUIRE, rule_applies, ctx, e) != 0)
                return -1;
        for (size_t k = 0; k < rule->nforbid; k++)
            if (requirement(r, p, rule, &rule->forbid[k], SP_ROLE_FORBID, rule_applies, ctx, e) != 0)
                return -1;
    }
    return 0;
}

int sp_evaluate(const struct sp_policy_set *ps, const struct sp_eval_ctx *ctx,
                struct sp_report *r, struct sp_error *e)
{
    report_clear(r);
    r->strict = (ctx->flags & SP_EVAL_STRICT) != 0;
    r->passed = 1;
    for (size_t i = 0; i < ps->count; i++) {
        if (policy(r, &ps->policies[i], ctx, e) != 0)
            return -1;
        r->policies++;
    }
    return 0;
}
