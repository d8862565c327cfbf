/* checks/policy.c: loading policy files strictly; see policy.h.  Reads
 * only the policy files it is given; never reads the machine or a
 * manifest, never evaluates. */
#include "checks/policy.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/strbuf.h"
#include "manifest/fact_keys.h"
#include "manifest/facts.h"
#include "manifest/manifest.h"
#include "manifest/node.h"

static int nomem(struct sp_error *e, const char *file)
{
    return sp_fail(e, SP_EXIT_INPUT, "%s: out of memory", file);
}

/* ---- tests ----------------------------------------------------------- */

void sp_test_free(struct sp_test *t)
{
    for (size_t i = 0; i < t->nvalues; i++)
        free(t->values[i]);
    free(t->values);
    free(t->shown);
    free(t->ref);
    sp_specifier_free(t->specifier);
    memset(t, 0, sizeof *t);
}

static int set_values(struct sp_test *t, const char *const *values, size_t n)
{
    if ((t->values = calloc(n, sizeof *t->values)) == NULL)
        return -1;
    for (; t->nvalues < n; t->nvalues++)
        if ((t->values[t->nvalues] = strdup(values[t->nvalues])) == NULL)
            return -1;
    return 0;
}

static int specifier_test(const char *text, const struct sp_scheme *scheme, int named,
                          struct sp_test *t, struct sp_error *e)
{
    t->kind = SP_TEST_SPECIFIER;
    if (sp_specifier_parse(text, scheme, &t->specifier, e) != 0)
        return -1;
    size_t n = strlen(text) + strlen(scheme->name) + 4;
    if ((t->shown = malloc(n)) == NULL)
        return sp_fail(e, SP_EXIT_INPUT, "out of memory");
    snprintf(t->shown, n, named ? "%s (%s)" : "%s", text, scheme->name);
    return 0;
}

/* The keyword (present, absent) that TEXT is a near miss of: equal but for
 * ASCII case, or one edit away (sp_edit_distance); else NULL. */
static const char *near_keyword(const char *text)
{
    static const char *const keywords[] = { "present", "absent" };
    char lower[16];
    size_t n = strlen(text);
    if (n >= sizeof lower)
        return NULL;
    for (size_t i = 0; i <= n; i++)
        lower[i] = (char)(text[i] >= 'A' && text[i] <= 'Z' ? text[i] - 'A' + 'a' : text[i]);
    for (size_t k = 0; k < 2; k++)
        if (sp_edit_distance(lower, keywords[k], 1) <= 1)
            return keywords[k];
    return NULL;
}

int sp_test_from_text(const char *key, const char *text, struct sp_test *t,
                      struct sp_error *e)
{
    const char *keyword;
    memset(t, 0, sizeof *t);
    if (text[0] == '\0')
        return sp_fail(e, SP_EXIT_INPUT, "empty test (write absent for a fact that must not be there)");
    if (strcmp(text, "present") == 0 || strcmp(text, "absent") == 0) {
        t->kind = text[0] == 'p' ? SP_TEST_PRESENT : SP_TEST_ABSENT;
    } else if (sp_specifier_looks_like(text)) {
        if (specifier_test(text, sp_scheme_for_key(key), 0, t, e) != 0) {
            sp_test_free(t);
            return -1;
        }
        return 0;
    } else if (strstr(text, "${") != NULL) {
        /* a reference only means something in a specifier: "${pip.torch}"
         * alone would otherwise be compared as that very text */
        return sp_fail(e, SP_EXIT_INPUT,
                       "'%s': a fact reference goes in a specifier (==${KEY}); write {equals: ...} for this text",
                       text);
    } else if ((keyword = near_keyword(text)) != NULL) {
        /* "presnt" would otherwise be an exact match that never holds, and
         * a forbid of it would pass silently */
        return sp_fail(e, SP_EXIT_INPUT,
                       "'%s' is one edit from the keyword %s: write %s, or {equals: \"%s\"} for this exact text",
                       text, keyword, keyword, text);
    } else {
        t->kind = SP_TEST_EQUALS;
        if (set_values(t, &text, 1) != 0)
            goto nomem;
    }
    if ((t->shown = strdup(text)) == NULL)
        goto nomem;
    return 0;
nomem:
    sp_test_free(t);
    return sp_fail(e, SP_EXIT_INPUT, "out of memory");
}

/* "one of a, b, c", built in linear time: the values come from one policy
 * file, so the text is bounded by three times its size limit (each value
 * adds at most its bytes and ", "). */
static char *one_of_shown(const struct sp_test *t)
{
    struct sp_strbuf sb;
    sp_strbuf_init(&sb, 3 * (size_t)SP_POLICY_MAX_BYTES + sizeof "one of ");
    sp_strbuf_add(&sb, "one of ");
    for (size_t i = 0; i < t->nvalues; i++) {
        if (i)
            sp_strbuf_add(&sb, ", ");
        sp_strbuf_add(&sb, t->values[i]);
    }
    if (sp_strbuf_over(&sb)) {
        sp_strbuf_free(&sb);
        return NULL;
    }
    return sp_strbuf_take(&sb);
}

static const char *const test_keys[] = {
    "one_of", "equals", "specifier", "scheme", "one_of_fact", "components", NULL,
};

static const char *key_problem(const char *key, char *buf, size_t bufsz);

/* sp_node_scalar(), naming the fact key the test is for. */
static int test_scalar(const struct sp_node *n, const char *key, const char *what,
                       const char *file, struct sp_error *e)
{
    char where[SP_FACT_KEY_MAX + 64];
    snprintf(where, sizeof where, "%s: %s", key, what);
    return sp_node_scalar(n, where, file, e);
}

/* {one_of_fact: KEY, components: N}: the value must be one of those the
 * fact KEY lists (its first N components).  COMPONENTS may be NULL. */
static int test_of_fact(const char *file, const char *key, const struct sp_node *of_fact,
                        const struct sp_node *components, struct sp_test *t,
                        struct sp_error *e)
{
    char why[SP_FACT_KEY_MAX + 96];
    const char *problem;
    if (test_scalar(of_fact, key, "one_of_fact", file, e) != 0)
        return -1;
    if ((problem = key_problem(of_fact->value, why, sizeof why)) != NULL)
        return sp_node_fail(e, file, of_fact, "%s: one_of_fact '%s': %s", key,
                            of_fact->value, problem);
    t->kind = SP_TEST_ONE_OF_FACT;
    if (components) {
        const char *d = components->value;
        unsigned long m = 0;
        if (test_scalar(components, key, "components", file, e) != 0)
            return -1;
        for (; *d && sp_ascii_digit(*d) && m <= SP_REF_COMPONENTS_MAX; d++)
            m = m * 10 + (unsigned long)(*d - '0');
        if (*d || m == 0 || m > SP_REF_COMPONENTS_MAX || components->value[0] == '0')
            return sp_node_fail(e, file, components,
                                "%s: components must be a number from 1 to %d, not '%s'", key,
                                SP_REF_COMPONENTS_MAX, components->value);
        t->components = (unsigned)m;
    }
    size_t len = strlen(of_fact->value) + 64;
    if ((t->ref = strdup(of_fact->value)) == NULL || (t->shown = malloc(len)) == NULL)
        return nomem(e, file);
    if (t->components)
        snprintf(t->shown, len, "first %u in ${%s}", t->components, t->ref);
    else
        snprintf(t->shown, len, "in ${%s}", t->ref);
    return 0;
}

/* {one_of: [A, B, ...]}: the value must be one of the texts listed. */
static int test_one_of(const char *file, const char *key, const struct sp_node *one_of,
                       struct sp_test *t, struct sp_error *e)
{
    if (one_of->kind != SP_NODE_SEQ || one_of->count == 0)
        return sp_node_fail(e, file, one_of, "%s: one_of must be a list of texts, not empty", key);
    t->kind = SP_TEST_ONE_OF;
    if ((t->values = calloc(one_of->count, sizeof *t->values)) == NULL)
        return nomem(e, file);
    for (size_t i = 0; i < one_of->count; i++) {
        if (test_scalar(one_of->items[i], key, "an item of one_of", file, e) != 0)
            return -1;
        if ((t->values[t->nvalues++] = strdup(one_of->items[i]->value)) == NULL)
            return nomem(e, file);
    }
    if ((t->shown = one_of_shown(t)) == NULL)
        return nomem(e, file);
    return 0;
}

/* {specifier: SET, scheme: NAME}: the value must satisfy the specifier set
 * under the scheme named (else the one the fact key implies).  SCHEME may
 * be NULL. */
static int test_spec(const char *file, const char *key, const struct sp_node *spec,
                     const struct sp_node *scheme, struct sp_test *t, struct sp_error *e)
{
    struct sp_error ve;
    if (test_scalar(spec, key, "specifier", file, e) != 0)
        return -1;
    const struct sp_scheme *s = sp_scheme_for_key(key);
    if (scheme) {
        if (test_scalar(scheme, key, "scheme", file, e) != 0)
            return -1;
        if ((s = sp_scheme_by_name(scheme->value)) == NULL)
            return sp_node_fail(e, file, scheme,
                                "%s: unknown scheme '%s' (pep440, deb, rpm or dotted)", key,
                                scheme->value);
    }
    if (!sp_specifier_looks_like(spec->value))
        return sp_node_fail(e, file, spec,
                            "%s: '%s' is not a specifier set (it starts with an operator: == != < <= > >= ~= ===)",
                            key, spec->value);
    if (specifier_test(spec->value, s, scheme != NULL, t, &ve) != 0)
        return sp_node_fail(e, file, spec, "%s: %s", key, ve.msg);
    return 0;
}

/* A test written as a mapping: exactly one of one_of, equals, specifier
 * (with scheme) and one_of_fact (with components). */
static int test_from_map(const char *file, const char *key, const struct sp_node *n,
                         struct sp_test *t, struct sp_error *e)
{
    const struct sp_node *one_of = sp_node_get(n, "one_of", NULL);
    const struct sp_node *equals = sp_node_get(n, "equals", NULL);
    const struct sp_node *spec = sp_node_get(n, "specifier", NULL);
    const struct sp_node *scheme = sp_node_get(n, "scheme", NULL);
    const struct sp_node *of_fact = sp_node_get(n, "one_of_fact", NULL);
    const struct sp_node *components = sp_node_get(n, "components", NULL);

    if (sp_node_known_keys(n, test_keys, "a test", file, e) != 0)
        return -1;
    if ((one_of != NULL) + (equals != NULL) + (spec != NULL) + (of_fact != NULL) != 1)
        return sp_node_fail(e, file, n,
                            "%s: a test mapping holds exactly one of one_of, equals, specifier, one_of_fact", key);
    if (scheme && !spec)
        return sp_node_fail(e, file, scheme, "%s: scheme goes with specifier", key);
    if (components && !of_fact)
        return sp_node_fail(e, file, components, "%s: components goes with one_of_fact", key);
    if (of_fact)
        return test_of_fact(file, key, of_fact, components, t, e);
    if (one_of)
        return test_one_of(file, key, one_of, t, e);
    if (spec)
        return test_spec(file, key, spec, scheme, t, e);
    if (test_scalar(equals, key, "equals", file, e) != 0)
        return -1;
    t->kind = SP_TEST_EQUALS;
    if (set_values(t, (const char *const *)&equals->value, 1) != 0 ||
        (t->shown = strdup(equals->value)) == NULL)
        return nomem(e, file);
    return 0;
}

static int test_from_node(const char *file, const char *key, const struct sp_node *n,
                          struct sp_test *t, struct sp_error *e)
{
    struct sp_error ve;
    memset(t, 0, sizeof *t);
    if (n->kind == SP_NODE_SCALAR) {
        if (sp_test_from_text(key, n->value, t, &ve) != 0)
            return sp_node_fail(e, file, n, "%s: %s", key, ve.msg);
        return 0;
    }
    if (n->kind == SP_NODE_MAP)
        return test_from_map(file, key, n, t, e);
    return sp_node_fail(e, file, n,
                        "%s: a test is a text or a mapping (one_of, equals, specifier or one_of_fact), not a list", key);
}

/* ---- fact keys and names --------------------------------------------- */

/* NULL when KEY is a well-formed fact key, else why not (in BUF). */
static const char *key_problem(const char *key, char *buf, size_t bufsz)
{
    size_t n = strlen(key);
    if (n == 0)
        return "empty fact key";
    if (n > SP_FACT_KEY_MAX)
        return "fact key longer than 256 bytes";
    for (const char *p = key; *p; p++) {
        if (!sp_ascii_alnum(*p) && !strchr("._+-", *p))
            return "a fact key holds only letters, digits and . _ + -";
    }
    if (key[0] == '.' || key[n - 1] == '.' || strstr(key, ".."))
        return "empty part in the fact key";
    /* pip names are recorded PEP 503-normalised: a policy naming another
     * spelling would never find its fact */
    const char *name = NULL;
    if (strncmp(key, "pip.", 4) == 0)
        name = key + 4;
    else if (strncmp(key, "python.env.", 11) == 0 && (name = strstr(key + 11, ".pip.")) != NULL)
        name += 5;
    char norm[SP_FACT_KEY_MAX + 1];
    if (name && fact_name_pep503(name, norm, sizeof norm) == 0 && strcmp(norm, name) != 0) {
        snprintf(buf, bufsz, "pip names are recorded PEP 503-normalised: write %.*s%s",
                 (int)(name - key), key, norm);
        return buf;
    }
    return NULL;
}

static int name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > SP_POLICY_NAME_MAX)
        return 0;
    return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n;
}

/* The name under KEY of mapping N, WHAT's ("rule", "policy"): a text of 1
 * to SP_POLICY_NAME_MAX name characters.  NULL with E set when it is not;
 * MISSING is the message when it is absent. */
static const struct sp_node *name_of(const char *file, const struct sp_node *n,
                                     const char *key, const char *what,
                                     const char *missing, struct sp_error *e)
{
    const struct sp_node *name = sp_node_get(n, key, NULL);
    if (name == NULL)
        sp_node_fail(e, file, n, "%s", missing);
    else if (sp_node_scalar(name, key, file, e) != 0)
        name = NULL;
    else if (!name_ok(name->value)) {
        sp_node_fail(e, file, name, "%s name '%s' must be 1 to %d letters, digits, '.', '_' or '-'",
                     what, name->value, SP_POLICY_NAME_MAX);
        name = NULL;
    }
    return name;
}

/* ---- requirements, rules, policies ------------------------------------ */

static void requirements_free(struct sp_requirement *r, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(r[i].key);
        sp_test_free(&r[i].test);
    }
    free(r);
}

static void rule_free(struct sp_rule *r)
{
    free(r->name);
    free(r->message);
    free(r->source);
    requirements_free(r->when, r->nwhen);
    requirements_free(r->require, r->nrequire);
    requirements_free(r->forbid, r->nforbid);
}

static void policy_free(struct sp_policy *p)
{
    free(p->name);
    free(p->description);
    free(p->source);
    free(p->file);
    requirements_free(p->when, p->nwhen);
    for (size_t i = 0; i < p->nrules; i++)
        rule_free(&p->rules[i]);
    free(p->rules);
}

/* Mapping N (the value of WHAT) into *OUT. N may be NULL (absent). */
static int requirements(const char *file, const char *what, const struct sp_node *n,
                        struct sp_requirement **out, size_t *nout, struct sp_error *e)
{
    char why[SP_FACT_KEY_MAX + 96];
    *out = NULL;
    *nout = 0;
    if (n == NULL)
        return 0;
    if (n->kind != SP_NODE_MAP)
        return sp_node_fail(e, file, n, "%s must be a mapping of fact keys to tests", what);
    if (n->count && (*out = calloc(n->count, sizeof **out)) == NULL)
        return nomem(e, file);
    for (size_t i = 0; i < n->count; i++) {
        struct sp_requirement *r = &(*out)[i];
        const char *problem = key_problem(n->keys[i], why, sizeof why);
        if (problem)
            return sp_node_fail_key(e, file, n, i, "'%s': %s", n->keys[i], problem);
        if ((r->key = strdup(n->keys[i])) == NULL)
            return nomem(e, file);
        (*nout)++;
        r->line = n->key_lines[i];
        r->column = n->key_columns[i];
        if (test_from_node(file, r->key, n->items[i], &r->test, e) != 0)
            return -1;
    }
    return 0;
}

static int optional_text(const char *file, const struct sp_node *map, const char *key,
                         char **out, struct sp_error *e)
{
    const char *text;
    *out = NULL;
    if (sp_node_text(map, key, SP_NODE_OPTIONAL, &text, file, e) != 0)
        return -1;
    return text == NULL || (*out = strdup(text)) ? 0 : nomem(e, file);
}

static const char *const rule_keys[] = {
    "name", "when", "require", "forbid", "severity", "message", "source", NULL,
};

static int rule_parse(const char *file, const struct sp_node *n, const struct sp_policy *p,
                      struct sp_rule *r, struct sp_error *e)
{
    if (n->kind != SP_NODE_MAP)
        return sp_node_fail(e, file, n, "a rule must be a mapping");
    if (sp_node_known_keys(n, rule_keys, "a rule", file, e) != 0)
        return -1;
    const struct sp_node *name = name_of(file, n, "name", "rule", "a rule needs a name", e);
    if (name == NULL)
        return -1;
    if (strcmp(name->value, "require") == 0 || strcmp(name->value, "forbid") == 0 ||
        strcmp(name->value, "when") == 0)
        return sp_node_fail(e, file, name,
                            "rule name '%s' is reserved for the policy's own %s", name->value, name->value);
    for (size_t i = 0; i < p->nrules; i++)
        if (strcmp(p->rules[i].name, name->value) == 0)
            return sp_node_fail(e, file, name, "two rules named '%s'", name->value);
    if ((r->name = strdup(name->value)) == NULL)
        return nomem(e, file);
    const struct sp_node *sev = sp_node_get(n, "severity", NULL);
    if (sev) {
        if (sp_node_scalar(sev, "severity", file, e) != 0)
            return -1;
        if (strcmp(sev->value, "error") == 0)
            r->severity = SP_SEVERITY_ERROR;
        else if (strcmp(sev->value, "warning") == 0)
            r->severity = SP_SEVERITY_WARNING;
        else
            return sp_node_fail(e, file, sev, "severity must be error or warning, not '%s'",
                                sev->value);
    }
    if (optional_text(file, n, "message", &r->message, e) != 0 ||
        optional_text(file, n, "source", &r->source, e) != 0 ||
        requirements(file, "when", sp_node_get(n, "when", NULL), &r->when, &r->nwhen, e) != 0 ||
        requirements(file, "require", sp_node_get(n, "require", NULL), &r->require, &r->nrequire, e) != 0 ||
        requirements(file, "forbid", sp_node_get(n, "forbid", NULL), &r->forbid, &r->nforbid, e) != 0)
        return -1;
    if (r->nrequire + r->nforbid == 0)
        return sp_node_fail(e, file, n, "rule '%s' requires and forbids nothing", r->name);
    return 0;
}

static const char *const policy_keys[] = {
    "policy", "description", "source", "when", "require", "forbid", "rules", NULL,
};

static int policy_from_node(const char *file, const struct sp_node *doc,
                            const struct sp_policy_set *ps, struct sp_policy *p,
                            struct sp_error *e)
{
    if (doc->kind != SP_NODE_MAP)
        return sp_node_fail(e, file, doc, "a policy must be a mapping");
    if (sp_node_known_keys(doc, policy_keys, "a policy", file, e) != 0)
        return -1;
    const struct sp_node *name = name_of(file, doc, "policy", "policy",
                                         "missing key 'policy' (the policy's name)", e);
    if (name == NULL)
        return -1;
    for (size_t i = 0; i < ps->count; i++)
        if (strcmp(ps->policies[i].name, name->value) == 0)
            return sp_node_fail(e, file, name, "policy '%s' is also defined in %s",
                                name->value, ps->policies[i].file);
    /* the file name as reports show it: valid UTF-8 (JSON, XML) */
    if ((p->name = strdup(name->value)) == NULL ||
        (p->file = sp_utf8_sanitize(file, strlen(file))) == NULL)
        return nomem(e, file);
    if (optional_text(file, doc, "description", &p->description, e) != 0 ||
        optional_text(file, doc, "source", &p->source, e) != 0 ||
        requirements(file, "when", sp_node_get(doc, "when", NULL), &p->when, &p->nwhen, e) != 0)
        return -1;

    const struct sp_node *rules = sp_node_get(doc, "rules", NULL);
    if (rules && rules->kind != SP_NODE_SEQ)
        return sp_node_fail(e, file, rules, "rules must be a list of rules");
    size_t cap = 2 + (rules ? rules->count : 0);
    if ((p->rules = calloc(cap, sizeof *p->rules)) == NULL)
        return nomem(e, file);
    static const char *const own[] = { "require", "forbid" };
    for (int k = 0; k < 2; k++) {
        struct sp_rule *r = &p->rules[p->nrules];
        const struct sp_node *n = sp_node_get(doc, own[k], NULL);
        if (n == NULL)
            continue;
        if ((r->name = strdup(own[k])) == NULL)
            return nomem(e, file);
        p->nrules++;
        if (requirements(file, own[k], n, k ? &r->forbid : &r->require,
                         k ? &r->nforbid : &r->nrequire, e) != 0)
            return -1;
    }
    for (size_t i = 0; rules && i < rules->count; i++) {
        struct sp_rule tmp = { 0 };
        int rc = rule_parse(file, rules->items[i], p, &tmp, e);
        if (rc != 0) {
            rule_free(&tmp);
            return -1;
        }
        p->rules[p->nrules++] = tmp;
    }
    size_t checks = 0;
    for (size_t i = 0; i < p->nrules; i++)
        checks += p->rules[i].nrequire + p->rules[i].nforbid;
    if (checks == 0)
        return sp_node_fail(e, file, doc, "policy '%s' requires and forbids nothing", p->name);
    return 0;
}

/* ---- fact keys a policy names ----------------------------------------- */

/* Add a warning about KEY (named at FILE:LINE:COL) to PS when it is not
 * documented or is a near miss of a well-known key.  0, or -1 (memory). */
static int key_warning(struct sp_policy_set *ps, const char *file, size_t line, size_t col,
                       const char *key)
{
    char near[SP_FACT_KEY_MAX + 1], *text = NULL;
    int undocumented = !sp_fact_key_documented(key), n;
    if (undocumented) {
        sp_fact_key_nearest(key, near, sizeof near);
        n = asprintf(&text, "%s:%zu:%zu: '%s': not a documented fact key; "
                     "did you mean '%s'? (stackprint help keys)", file, line, col, key, near);
    } else if (sp_fact_key_near_name(key, near, sizeof near) != NULL) {
        n = asprintf(&text, "%s:%zu:%zu: '%s': did you mean '%s'? (a well-known key one edit away)",
                     file, line, col, key, near);
    } else {
        return 0;
    }
    struct sp_policy_warning *w = n < 0 ? NULL
        : realloc(ps->warnings, (ps->nwarnings + 1) * sizeof *w);
    if (w == NULL) {
        free(n < 0 ? NULL : text);
        return -1;
    }
    ps->warnings = w;
    w[ps->nwarnings].text = text;
    w[ps->nwarnings++].undocumented = undocumented;
    return 0;
}

/* key_warning() for every key N requirements at R name: their keys, the
 * fact of one_of_fact and the ${KEY} references of their specifiers. */
static int requirement_warnings(struct sp_policy_set *ps, const char *file,
                                const struct sp_requirement *r, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const struct sp_test *t = &r[i].test;
        if (key_warning(ps, file, r[i].line, r[i].column, r[i].key) != 0 ||
            (t->ref && key_warning(ps, file, r[i].line, r[i].column, t->ref) != 0))
            return -1;
        for (size_t c = 0; t->specifier && c < t->specifier->count; c++)
            if (t->specifier->clauses[c].ref &&
                key_warning(ps, file, r[i].line, r[i].column, t->specifier->clauses[c].ref) != 0)
                return -1;
    }
    return 0;
}

static int policy_warnings(struct sp_policy_set *ps, const char *file, const struct sp_policy *p)
{
    if (requirement_warnings(ps, file, p->when, p->nwhen) != 0)
        return -1;
    for (size_t i = 0; i < p->nrules; i++) {
        const struct sp_rule *r = &p->rules[i];
        if (requirement_warnings(ps, file, r->when, r->nwhen) != 0 ||
            requirement_warnings(ps, file, r->require, r->nrequire) != 0 ||
            requirement_warnings(ps, file, r->forbid, r->nforbid) != 0)
            return -1;
    }
    return 0;
}

static void warnings_truncate(struct sp_policy_set *ps, size_t n)
{
    while (ps->nwarnings > n)
        free(ps->warnings[--ps->nwarnings].text);
}

/* ---- sets and files --------------------------------------------------- */

void sp_policy_set_init(struct sp_policy_set *ps)
{
    memset(ps, 0, sizeof *ps);
}

void sp_policy_set_free(struct sp_policy_set *ps)
{
    for (size_t i = 0; i < ps->count; i++)
        policy_free(&ps->policies[i]);
    free(ps->policies);
    if (ps->catalog) {
        catalog_free(ps->catalog);
        free(ps->catalog);
    }
    free(ps->catalog_file);
    warnings_truncate(ps, 0);
    free(ps->warnings);
    sp_policy_set_init(ps);
}

/* DOC is a release catalog: make it PS's. */
static int catalog_add(struct sp_policy_set *ps, const struct sp_node *doc, const char *name,
                       struct sp_error *e)
{
    if (ps->catalog)
        return sp_node_fail(e, name, doc, "a second release catalog (one is loaded from %s)",
                            ps->catalog_file);
    struct catalog *c = calloc(1, sizeof *c);
    char *file = sp_utf8_sanitize(name, strlen(name));
    if (c == NULL || file == NULL) {
        free(c);
        free(file);
        return nomem(e, name);
    }
    if (catalog_from_node(doc, name, c, e) != 0) {
        free(c);
        free(file);
        return -1;
    }
    ps->catalog = c;
    ps->catalog_file = file;
    return 0;
}

int sp_policy_parse(struct sp_policy_set *ps, const char *buf, size_t len,
                    const char *name, struct sp_error *e)
{
    if (len > SP_POLICY_MAX_BYTES)
        return sp_fail(e, SP_EXIT_INPUT, "%s: larger than the policy size limit (%u bytes)",
                       name, SP_POLICY_MAX_BYTES);
    if (ps->count == ps->cap) {
        size_t cap = ps->cap ? 2 * ps->cap : 16;
        struct sp_policy *np = realloc(ps->policies, cap * sizeof *np);
        if (np == NULL)
            return nomem(e, name);
        ps->policies = np;
        ps->cap = cap;
    }
    /* the shipped catalog, byte for byte: the copy compiled in (catalog.h) */
    struct catalog builtin;
    if (ps->catalog == NULL && catalog_builtin(buf, len, &builtin)) {
        struct catalog *c = malloc(sizeof *c);
        char *file = sp_utf8_sanitize(name, strlen(name));
        if (c == NULL || file == NULL) {
            free(c);
            free(file);
            return nomem(e, name);
        }
        *c = builtin;
        ps->catalog = c;
        ps->catalog_file = file;
        return 0;
    }
    struct sp_node *doc = sp_node_parse_yaml(buf, len, name, e);
    if (doc == NULL)
        return -1;
    if (doc->kind == SP_NODE_MAP && catalog_is_document(doc)) {
        int rc = catalog_add(ps, doc, name, e);
        sp_node_free(doc);
        return rc;
    }
    struct sp_policy p = { 0 };
    size_t nwarnings = ps->nwarnings;
    int rc = policy_from_node(name, doc, ps, &p, e);
    sp_node_free(doc);
    if (rc == 0 && policy_warnings(ps, p.file, &p) != 0)
        rc = nomem(e, name);
    if (rc != 0) {
        warnings_truncate(ps, nwarnings);
        policy_free(&p);
        return -1;
    }
    ps->policies[ps->count++] = p;
    return 0;
}

static int load_file(struct sp_policy_set *ps, const char *path, struct sp_error *e)
{
    char *buf;
    size_t len;
    if (sp_read_file(path, SP_POLICY_MAX_BYTES, "policy", &buf, &len, e) != 0)
        return -1;
    int rc = sp_policy_parse(ps, buf, len, path, e);
    free(buf);
    return rc;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.yaml paths under PATH (DEPTH folders below the one given) into
 * NAMES (*N of them so far). */
static int collect(const char *path, int depth, char **names, size_t *n, const char *top,
                   struct sp_error *e)
{
    DIR *d = opendir(path);
    struct dirent *de;
    int rc = -1;
    if (d == NULL)
        return sp_fail(e, SP_EXIT_INPUT, "%s: %s", path, strerror(errno));
    while ((de = readdir(d)) != NULL) {
        size_t l = strlen(de->d_name);
        struct stat st;
        char *sub;
        if (de->d_name[0] == '.')
            continue;
        if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            sp_fail(e, SP_EXIT_INPUT, "%s/%s: %s", path, de->d_name, strerror(errno));
            goto out;
        }
        int yaml = (l > 5 && strcmp(de->d_name + l - 5, ".yaml") == 0) ||
                   (l > 4 && strcmp(de->d_name + l - 4, ".yml") == 0);
        if (!S_ISDIR(st.st_mode) && !yaml)
            continue;
        if (asprintf(&sub, "%s%s%s", path, path[strlen(path) - 1] == '/' ? "" : "/", de->d_name) < 0) {
            nomem(e, path);
            goto out;
        }
        if (S_ISDIR(st.st_mode)) {
            int r = depth >= SP_POLICY_DEPTH_MAX
                        ? sp_fail(e, SP_EXIT_INPUT, "%s: folders nested deeper than %d levels", top,
                                  SP_POLICY_DEPTH_MAX)
                        : collect(sub, depth + 1, names, n, top, e);
            free(sub);
            if (r != 0)
                goto out;
            continue;
        }
        if (*n == SP_POLICY_FILES_MAX) {
            free(sub);
            sp_fail(e, SP_EXIT_INPUT, "%s: more than %d policy files", top, SP_POLICY_FILES_MAX);
            goto out;
        }
        names[(*n)++] = sub;
    }
    rc = 0;
out:
    closedir(d);
    return rc;
}

static int load_dir(struct sp_policy_set *ps, const char *path, struct sp_error *e)
{
    char **names = NULL;
    size_t n = 0;
    int rc = -1;
    if ((names = calloc(SP_POLICY_FILES_MAX, sizeof *names)) == NULL)
        return nomem(e, path);
    if (collect(path, 0, names, &n, path, e) != 0)
        goto out;
    if (n == 0) {
        sp_fail(e, SP_EXIT_INPUT, "%s: no *.yaml or *.yml policy files", path);
        goto out;
    }
    qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; i++)
        if (load_file(ps, names[i], e) != 0)
            goto out;
    rc = 0;
out:
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return rc;
}

int sp_policy_load(struct sp_policy_set *ps, const char *path, struct sp_error *e)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return sp_fail(e, SP_EXIT_INPUT, "%s: %s", path, strerror(errno));
    return S_ISDIR(st.st_mode) ? load_dir(ps, path, e) : load_file(ps, path, e);
}
