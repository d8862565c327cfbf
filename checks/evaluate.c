/* checks/evaluate.c: policies against facts, into a report; see
 * evaluate.h.  Must not read anything but the fact set it is given, and
 * must not format output (checks/report_*.c do). */
#include "checks/evaluate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/release.h"
#include "common/strbuf.h"

/* REF_MISSING: a fact the test refers to is absent */
enum outcome { HOLDS, FAILS, UNDECIDED, REF_MISSING };

const char *sp_verdict_name(enum sp_verdict v)
{
    static const char *const names[SP_VERDICTS] = {
        "ok", "violated", "missing", "invalid", "not applicable", "incomplete",
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
    for (size_t i = 0; i < r->count; i++) {
        free(r->results[i].detail);
        free(r->results[i].resolved);
    }
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

/* What a test's outcome carries besides HOLDS or FAILS: why it is
 * undecided or which reference is missing (DETAIL), and the bounds its
 * references resolved to (RESOLVED); both malloc'd or NULL. */
struct why {
    char *detail, *resolved;
};

static void why_free(struct why *w)
{
    free(w->detail);
    free(w->resolved);
    w->detail = w->resolved = NULL;
}

/* W->detail = "the referenced fact KEY is absent"; REF_MISSING, or -1. */
static int ref_missing(struct why *w, const char *key)
{
    if (asprintf(&w->detail, "the referenced fact %s is absent", key) < 0) {
        w->detail = NULL;
        return -1;
    }
    return REF_MISSING;
}

/* A specifier with fact references: each clause's bound resolved from
 * CTX, then matched.  W->resolved gets the set as resolved: "<=2.15.2". */
static int specifier_refs(const struct sp_specifier *s, const struct sp_version *found,
                          const struct sp_eval_ctx *ctx, struct why *w)
{
    struct sp_strbuf shown;              /* each bound at most a fact value */
    int holds = 1;
    sp_strbuf_init(&shown, s->count * (SP_FACT_VALUE_MAX + 8));
    static const char *const ops[] = { "==", "!=", "<", "<=", ">", ">=", "~=", "===" };
    for (size_t i = 0; i < s->count; i++) {
        const struct sp_clause *c = &s->clauses[i];
        struct sp_version *bound = c->bound;
        const char *text = c->text;
        if (c->ref) {
            const char *value = factset_get(ctx->facts, c->ref);
            struct sp_error ve;
            if (value == NULL) {
                sp_strbuf_free(&shown);
                return ref_missing(w, c->ref);
            }
            if ((bound = sp_clause_resolve(c, s->scheme, value, &ve)) == NULL) {
                sp_strbuf_free(&shown);
                return (w->detail = strdup(ve.msg)) ? UNDECIDED : -1;
            }
            text = bound->normal;
        }
        sp_strbuf_addf(&shown, "%s%s%s%s", i ? "," : "", ops[c->op], text, c->wildcard ? ".*" : "");
        if (!sp_clause_match(c, bound, found))
            holds = 0;
        if (bound != c->bound)
            sp_version_free(bound);
    }
    return (w->resolved = sp_strbuf_take(&shown)) ? (holds ? HOLDS : FAILS) : -1;
}

/* one_of_fact: FOUND (its first T->components release components) is one
 * of the comma-separated values of fact T->ref. */
static int one_of_fact(const struct sp_test *t, const char *found, const struct sp_eval_ctx *ctx,
                       const char *key, struct why *w)
{
    const char *list = factset_get(ctx->facts, t->ref);
    char lead[SP_VERSION_TEXT_MAX + 1];
    if (list == NULL)
        return ref_missing(w, t->ref);
    if ((w->resolved = strdup(list)) == NULL)
        return -1;
    if (t->components) {
        struct sp_error ve;
        struct sp_version *v = sp_version_parse(sp_scheme_for_key(key), found, &ve);
        if (v == NULL)
            return (w->detail = strdup(ve.msg)) ? UNDECIDED : -1;
        int r = sp_version_leading(v, t->components, lead, sizeof lead);
        sp_version_free(v);
        if (r != 0) {
            if (asprintf(&w->detail, "'%.80s' has fewer than %u release components", found,
                         t->components) < 0) {
                w->detail = NULL;
                return -1;
            }
            return UNDECIDED;
        }
        found = lead;
    }
    size_t fl = strlen(found);
    for (const char *p = list; *p;) {
        while (*p == ' ' || *p == ',')
            p++;
        size_t n = strcspn(p, ",");
        size_t m = n;
        while (m > 0 && p[m - 1] == ' ')
            m--;
        if (m == fl && strncmp(p, found, fl) == 0)
            return HOLDS;
        p += n;
    }
    return FAILS;
}

/* Does test T hold for the value FOUND of KEY (NULL: absent)?  UNDECIDED,
 * with the reason in W->detail, when FOUND (or a referenced fact) is not a
 * version of the test's scheme; REF_MISSING when a referenced fact is
 * absent.  -1 on allocation failure. */
static int test_outcome(const struct sp_test *t, const char *key, const char *found,
                        const struct sp_eval_ctx *ctx, struct why *w)
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
    case SP_TEST_ONE_OF_FACT:
        return found ? one_of_fact(t, found, ctx, key, w) : FAILS;
    case SP_TEST_SPECIFIER: {
        if (found == NULL)
            return FAILS;
        struct sp_error ve;
        struct sp_version *v = sp_version_parse(t->specifier->scheme, found, &ve);
        if (v == NULL)
            return (w->detail = strdup(ve.msg)) ? UNDECIDED : -1;
        int m = t->specifier->nrefs ? specifier_refs(t->specifier, v, ctx, w)
                                    : (sp_specifier_match(t->specifier, v) ? HOLDS : FAILS);
        sp_version_free(v);
        return m;
    }
    }
    return FAILS;
}

static int push(struct sp_report *r, const struct sp_policy *p, const struct sp_rule *rule,
                const struct sp_requirement *req, enum sp_role role, enum sp_verdict verdict,
                const char *found, struct why *w, struct sp_error *e)
{
    if (r->count == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 64;
        struct sp_result *n = realloc(r->results, cap * sizeof *n);
        if (n == NULL) {
            if (w)
                why_free(w);
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
    res->detail = w ? w->detail : NULL;
    res->resolved = w ? w->resolved : NULL;
    int bad = verdict == SP_VERDICT_VIOLATED || verdict == SP_VERDICT_MISSING ||
              verdict == SP_VERDICT_INVALID || verdict == SP_VERDICT_INCOMPLETE;
    res->fails = bad && (res->severity == SP_SEVERITY_ERROR || r->strict ||
                         verdict == SP_VERDICT_INCOMPLETE);
    r->verdicts[verdict]++;
    if (bad && res->severity == SP_SEVERITY_ERROR)
        r->errors++;
    else if (bad)
        r->warnings++;
    if (res->fails)
        r->passed = 0;
    return 0;
}

/* All of the conditions in WHEN: HOLDS, FAILS (one fails for sure, or a
 * fact one refers to is absent), or UNDECIDED with *WHICH and W set.  -1
 * on allocation failure. */
static int conditions(const struct sp_requirement *when, size_t n, const struct sp_eval_ctx *ctx,
                      const struct sp_requirement **which, struct why *w)
{
    int result = HOLDS;
    for (size_t i = 0; i < n; i++) {
        struct why mine = { 0 };
        int o = test_outcome(&when[i].test, when[i].key, factset_get(ctx->facts, when[i].key), ctx,
                             &mine);
        if (o < 0) {
            why_free(&mine);
            return -1;
        }
        if (o == FAILS || o == REF_MISSING) {
            why_free(w);
            why_free(&mine);
            return FAILS;
        }
        if (o == UNDECIDED && result == HOLDS) {
            result = UNDECIDED;
            *which = &when[i];
            *w = mine;
        } else {
            why_free(&mine);
        }
    }
    return result;
}

/* The number of facts the manifest says were dropped at the cap, as text,
 * or NULL when its fact set is complete. */
static const char *incomplete(const struct sp_eval_ctx *ctx)
{
    return factset_get(ctx->facts, SP_FACTS_DROPPED_KEY);
}

static int push_incomplete(struct sp_report *r, const struct sp_policy *p,
                           const struct sp_rule *rule, const struct sp_requirement *req,
                           enum sp_role role, const struct sp_eval_ctx *ctx, struct sp_error *e)
{
    struct why w = { 0 };
    if (asprintf(&w.detail, "absent, and the manifest's fact set is incomplete (%s facts "
                 "dropped at the cap): absence decides nothing", incomplete(ctx)) < 0)
        return sp_fail(e, SP_EXIT_INPUT, "check: out of memory");
    return push(r, p, rule, req, role, SP_VERDICT_INCOMPLETE,
                factset_get(ctx->facts, req->key), &w, e);
}

static int requirement(struct sp_report *r, const struct sp_policy *p, const struct sp_rule *rule,
                       const struct sp_requirement *req, enum sp_role role, int applies,
                       const struct sp_eval_ctx *ctx, struct sp_error *e)
{
    const char *found = factset_get(ctx->facts, req->key);
    struct why w = { 0 };
    enum sp_verdict v;
    if (!applies)
        return push(r, p, rule, req, role, SP_VERDICT_NOT_APPLICABLE, found, NULL, e);
    if (found == NULL && incomplete(ctx))
        return push_incomplete(r, p, rule, req, role, ctx, e);
    int o = test_outcome(&req->test, req->key, found, ctx, &w);
    if (o < 0) {
        why_free(&w);
        return sp_fail(e, SP_EXIT_INPUT, "check: out of memory");
    }
    if (o == REF_MISSING && incomplete(ctx)) {
        why_free(&w);
        return push_incomplete(r, p, rule, req, role, ctx, e);
    }
    if (o == UNDECIDED)
        v = SP_VERDICT_INVALID;
    else if (o == REF_MISSING)
        v = SP_VERDICT_MISSING;
    else if (role == SP_ROLE_FORBID)
        v = o == HOLDS ? SP_VERDICT_VIOLATED : SP_VERDICT_OK;
    else if (found == NULL && req->test.kind != SP_TEST_ABSENT)
        v = SP_VERDICT_MISSING;
    else
        v = o == HOLDS ? SP_VERDICT_OK : SP_VERDICT_VIOLATED;
    return push(r, p, rule, req, role, v, found, &w, e);
}

/* WHEN gates the requirements that follow: on UNDECIDED, one invalid
 * result for the condition; else APPLIES says whether it held. */
static int gate(struct sp_report *r, const struct sp_policy *p, const struct sp_rule *rule,
                const struct sp_requirement *when, size_t n, const struct sp_eval_ctx *ctx,
                int *applies, struct sp_error *e)
{
    const struct sp_requirement *which = NULL;
    struct why w = { 0 };
    for (size_t i = 0; incomplete(ctx) && i < n; i++) {
        /* a condition on an absent fact (or on an absent referenced one)
         * cannot be decided when facts were dropped */
        const char *found = factset_get(ctx->facts, when[i].key);
        int o = REF_MISSING;
        if (found != NULL) {
            o = test_outcome(&when[i].test, when[i].key, found, ctx, &w);
            why_free(&w);
            if (o < 0)
                return sp_fail(e, SP_EXIT_INPUT, "check: out of memory");
        }
        if (o == REF_MISSING) {
            *applies = -1;
            return push_incomplete(r, p, rule, &when[i], SP_ROLE_WHEN, ctx, e);
        }
    }
    int o = conditions(when, n, ctx, &which, &w);
    if (o < 0)
        return sp_fail(e, SP_EXIT_INPUT, "check: out of memory");
    *applies = o == HOLDS;
    if (o != UNDECIDED)
        return 0;
    *applies = -1;
    return push(r, p, rule, which, SP_ROLE_WHEN, SP_VERDICT_INVALID,
                factset_get(ctx->facts, which->key), &w, e);
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

int sp_eval_facts(const struct sp_policy_set *ps, const struct factset *in, struct factset *out,
                  struct sp_error *e)
{
    factset_init(out);
    for (size_t i = 0; i < in->count; i++) {
        const struct fact *f = &in->facts[i];
        if (ps->catalog && strncmp(f->key, "neuron.sdk.", 11) == 0)
            continue;                  /* derived below, never taken from a manifest */
        if (factset_set(out, f->key, f->value, f->evidence) != 0) {
            factset_free(out);
            return sp_fail(e, SP_EXIT_INPUT, "check: out of memory");
        }
    }
    if (ps->catalog && release_infer(ps->catalog, out, e) != 0) {
        factset_free(out);
        return -1;
    }
    return 0;
}
