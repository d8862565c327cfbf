/* checks/specifier.c: parsing and matching specifier sets; see
 * specifier.h.  The scheme files own ordering and prefixes; this file owns
 * the operators and PEP 440's exclusion rules, and must not compare
 * versions as strings (=== aside, which is defined as a text match). */
#include "checks/specifier.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "manifest/facts.h"

int sp_specifier_looks_like(const char *text)
{
    while (sp_py_space((unsigned char)*text))
        text++;
    return *text && strchr("<>=!~", *text) != NULL;
}

static const struct {
    const char *text;
    enum sp_op op;
} operators[] = {   /* longest first */
    { "===", SP_OP_ARBITRARY }, { "~=", SP_OP_COMPATIBLE }, { "==", SP_OP_EQ },
    { "!=", SP_OP_NE }, { "<=", SP_OP_LE }, { ">=", SP_OP_GE }, { "<", SP_OP_LT },
    { ">", SP_OP_GT },
};

/* The rules every bound obeys, literal or resolved from a fact: C is the
 * clause as written (for messages), BOUND its version. */
static int bound_check(const char *c, const struct sp_clause *out, const struct sp_version *bound,
                       const struct sp_scheme *scheme, struct sp_error *e)
{
    unsigned f = bound->flags;
    if ((f & SP_VERSION_LOCAL) && (out->wildcard || (out->op != SP_OP_EQ && out->op != SP_OP_NE)))
        return sp_fail(e, SP_EXIT_INPUT, "'%s': a local label is allowed only with == and !=", c);
    if (out->wildcard && (f & SP_VERSION_TAIL))
        return sp_fail(e, SP_EXIT_INPUT, "'%s': .* follows a bare release", c);
    if (out->op == SP_OP_COMPATIBLE) {
        if (bound->release_length < 2)
            return sp_fail(e, SP_EXIT_INPUT, "'%s': ~= needs at least two release components", c);
        if (scheme != &sp_scheme_pep440 && (f & SP_VERSION_TAIL))
            return sp_fail(e, SP_EXIT_INPUT, "'%s': ~= takes a version without a revision", c);
    }
    return 0;
}

/* A fact key as policies write them: letters, digits and . _ + -, no empty
 * part, at most SP_FACT_KEY_MAX bytes. */
static int ref_key_ok(const char *k, size_t n)
{
    if (n == 0 || n > SP_FACT_KEY_MAX || k[0] == '.' || k[n - 1] == '.')
        return 0;
    for (size_t i = 0; i < n; i++)
        if ((!sp_ascii_alnum(k[i]) && !strchr("._+-", k[i])) || (k[i] == '.' && k[i + 1] == '.'))
            return 0;
    return 1;
}

/* V (N bytes, ".*" already cut) is "${KEY}" or "${KEY:N}": fill OUT's ref. */
static int ref_parse(const char *c, const char *v, size_t n, struct sp_clause *out,
                     struct sp_error *e)
{
    static const char form[] = "a fact reference is written ${KEY} or ${KEY:N}, N from 1 to 16";
    if (n < 4 || strncmp(v, "${", 2) != 0 || v[n - 1] != '}')
        return sp_fail(e, SP_EXIT_INPUT, "'%s': %s", c, form);
    const char *key = v + 2, *end = v + n - 1;
    const char *colon = memchr(key, ':', (size_t)(end - key));
    size_t klen = (size_t)((colon ? colon : end) - key);
    if (memchr(key, '$', (size_t)(end - key)) || memchr(key, '{', (size_t)(end - key)) ||
        memchr(key, '}', (size_t)(end - key)))
        return sp_fail(e, SP_EXIT_INPUT, "'%s': %s", c, form);
    if (colon) {
        unsigned long m = 0;
        const char *d = colon + 1;
        if (d == end || *d == '0')
            return sp_fail(e, SP_EXIT_INPUT, "'%s': %s", c, form);
        for (; d < end; d++) {
            if (!sp_ascii_digit(*d) || (m = m * 10 + (unsigned long)(*d - '0')) > SP_REF_COMPONENTS_MAX)
                return sp_fail(e, SP_EXIT_INPUT, "'%s': %s", c, form);
        }
        out->ref_components = (unsigned)m;
    }
    if (!ref_key_ok(key, klen))
        return sp_fail(e, SP_EXIT_INPUT, "'%s': '%.*s' is not a fact key", c, (int)klen, key);
    if (out->op == SP_OP_ARBITRARY)
        return sp_fail(e, SP_EXIT_INPUT, "'%s': === compares text and takes no fact reference", c);
    if ((out->ref = strndup(key, klen)) == NULL || (out->text = strndup(v, n)) == NULL)
        return sp_fail(e, SP_EXIT_INPUT, "out of memory");
    return 0;
}

/* Parse the clause in C (NUL-terminated, blanks trimmed) into OUT. */
static int clause_parse(char *c, const struct sp_scheme *scheme, struct sp_clause *out,
                        struct sp_error *e)
{
    size_t k = 0, oplen = 0;
    for (; k < sizeof operators / sizeof *operators; k++) {
        oplen = strlen(operators[k].text);
        if (strncmp(c, operators[k].text, oplen) == 0)
            break;
    }
    if (k == sizeof operators / sizeof *operators)
        return sp_fail(e, SP_EXIT_INPUT, "'%s': no operator (one of == != < <= > >= ~= ===)", c);
    out->op = operators[k].op;
    char *v = c + oplen;
    while (sp_py_space((unsigned char)*v))
        v++;
    if (*v == '\0')
        return sp_fail(e, SP_EXIT_INPUT, "'%s': nothing after the operator", c);
    size_t n = strlen(v);
    if (strchr(v, '$')) {                 /* a fact reference */
        if (n >= 2 && strcmp(v + n - 2, ".*") == 0) {
            if (out->op != SP_OP_EQ && out->op != SP_OP_NE)
                return sp_fail(e, SP_EXIT_INPUT, "'%s': .* is allowed only with == and !=", c);
            out->wildcard = 1;
            n -= 2;
        }
        return ref_parse(c, v, n, out, e);
    }
    if (out->op == SP_OP_ARBITRARY) {
        for (const char *p = v; *p; p++)
            if (sp_py_space((unsigned char)*p) || *p == ';' || *p == ')')
                return sp_fail(e, SP_EXIT_INPUT, "'%s': === takes one word", c);
        out->text = strdup(v);
        return out->text ? 0 : sp_fail(e, SP_EXIT_INPUT, "out of memory");
    }
    if (n >= 2 && strcmp(v + n - 2, ".*") == 0) {
        if (out->op != SP_OP_EQ && out->op != SP_OP_NE)
            return sp_fail(e, SP_EXIT_INPUT, "'%s': .* is allowed only with == and !=", c);
        if (n < 3 || v[n - 3] < '0' || v[n - 3] > '9')
            return sp_fail(e, SP_EXIT_INPUT, "'%s': .* follows a bare release", c);
        out->wildcard = 1;
        n -= 2;
    }
    if ((out->text = strndup(v, n)) == NULL)
        return sp_fail(e, SP_EXIT_INPUT, "out of memory");
    struct sp_error ve;
    out->bound = sp_version_parse(scheme, out->text, &ve);
    if (out->bound == NULL)
        return sp_fail(e, SP_EXIT_INPUT, "'%s': %s", c, ve.msg);
    return bound_check(c, out, out->bound, scheme, e);
}

struct sp_version *sp_clause_resolve(const struct sp_clause *c, const struct sp_scheme *scheme,
                                     const char *value, struct sp_error *e)
{
    struct sp_error ve;
    char lead[SP_VERSION_TEXT_MAX + 1], shown[SP_VERSION_TEXT_MAX + 8];
    const char *text = value;
    if (c->ref_components) {
        struct sp_version *whole = sp_version_parse(sp_scheme_for_key(c->ref), value, &ve);
        if (whole == NULL) {
            sp_fail(e, SP_EXIT_INPUT, "${%s}: %s", c->ref, ve.msg);
            return NULL;
        }
        int r = sp_version_leading(whole, c->ref_components, lead, sizeof lead);
        sp_version_free(whole);
        if (r != 0) {
            sp_fail(e, SP_EXIT_INPUT, "${%s}: '%.80s' has fewer than %u release components",
                    c->ref, value, c->ref_components);
            return NULL;
        }
        text = lead;
    }
    struct sp_version *bound = sp_version_parse(scheme, text, &ve);
    if (bound == NULL) {
        sp_fail(e, SP_EXIT_INPUT, "${%s}: %s", c->ref, ve.msg);
        return NULL;
    }
    snprintf(shown, sizeof shown, "%s%s", text, c->wildcard ? ".*" : "");
    if (bound_check(shown, c, bound, scheme, &ve) != 0) {
        sp_fail(e, SP_EXIT_INPUT, "${%s}: %s", c->ref, ve.msg);
        sp_version_free(bound);
        return NULL;
    }
    return bound;
}

void sp_specifier_free(struct sp_specifier *s)
{
    if (s == NULL)
        return;
    for (size_t i = 0; i < s->count; i++) {
        free(s->clauses[i].text);
        free(s->clauses[i].ref);
        sp_version_free(s->clauses[i].bound);
    }
    free(s->clauses);
    free(s->text);
    free(s);
}

int sp_specifier_parse(const char *text, const struct sp_scheme *scheme,
                       struct sp_specifier **out, struct sp_error *e)
{
    *out = NULL;
    if (strlen(text) > SP_SPECIFIER_TEXT_MAX)
        return sp_fail(e, SP_EXIT_INPUT, "specifier longer than %d bytes", SP_SPECIFIER_TEXT_MAX);
    size_t nclauses = 1;
    for (const char *p = text; *p; p++)
        nclauses += *p == ',';
    if (nclauses > SP_SPECIFIER_CLAUSES_MAX)
        return sp_fail(e, SP_EXIT_INPUT, "more than %d clauses", SP_SPECIFIER_CLAUSES_MAX);

    struct sp_specifier *s = calloc(1, sizeof *s);
    char *work = strdup(text);
    if (s == NULL || work == NULL || (s->text = strdup(text)) == NULL ||
        (s->clauses = calloc(nclauses, sizeof *s->clauses)) == NULL) {
        free(work);
        sp_specifier_free(s);
        return sp_fail(e, SP_EXIT_INPUT, "out of memory");
    }
    s->scheme = scheme;
    for (char *item = work;;) {
        char *comma = strchr(item, ',');
        if (comma)
            *comma = '\0';
        while (sp_py_space((unsigned char)*item))
            item++;
        size_t n = strlen(item);
        while (n > 0 && sp_py_space((unsigned char)item[n - 1]))
            item[--n] = '\0';
        if (n == 0) {
            sp_fail(e, SP_EXIT_INPUT, "empty clause");
            goto fail;
        }
        if (clause_parse(item, scheme, &s->clauses[s->count++], e) != 0)
            goto fail;
        s->nrefs += s->clauses[s->count - 1].ref != NULL;
        if (comma == NULL)
            break;
        item = comma + 1;
    }
    free(work);
    *out = s;
    return 0;
fail:
    free(work);
    sp_specifier_free(s);
    return -1;
}

static int cmp(const struct sp_version *a, const struct sp_version *b, enum sp_cmp how)
{
    return sp_version_compare(a, b, how);
}

static int equal(const struct sp_clause *c, const struct sp_version *bound,
                 const struct sp_version *found)
{
    if (c->wildcard)
        return bound->scheme->prefix_match(found, bound, 0);
    return cmp(found, bound, (bound->flags & SP_VERSION_LOCAL) ? SP_CMP_FULL : SP_CMP_PUBLIC) == 0;
}

int sp_clause_match(const struct sp_clause *c, const struct sp_version *bound,
                    const struct sp_version *found)
{
    unsigned f = found->flags, b = bound ? bound->flags : 0;
    switch (c->op) {
    case SP_OP_EQ:
        return equal(c, bound, found);
    case SP_OP_NE:
        return !equal(c, bound, found);
    case SP_OP_LE:
        return cmp(found, bound, SP_CMP_PUBLIC) <= 0;
    case SP_OP_GE:
        return cmp(found, bound, SP_CMP_PUBLIC) >= 0;
    case SP_OP_LT:
        if (cmp(found, bound, SP_CMP_FULL) >= 0)
            return 0;
        /* <3.1 must not match 3.1.dev0 */
        return !(!(b & SP_VERSION_PRE) && (f & SP_VERSION_PRE) &&
                 cmp(found, bound, SP_CMP_BASE) == 0);
    case SP_OP_GT:
        if (cmp(found, bound, SP_CMP_FULL) <= 0)
            return 0;
        /* >3.1 must not match 3.1.post1 nor 3.1+local.  PEP 440 excludes
         * "a local version of the specified version": the found version's
         * PUBLIC part equal to V (>1.0.post1 matches 1.0.post2+local;
         * packaging before its fix for pypa/packaging#810 compared the base
         * version instead and refused it) */
        if (!(b & SP_VERSION_POST) && (f & SP_VERSION_POST) && cmp(found, bound, SP_CMP_BASE) == 0)
            return 0;
        return !((f & SP_VERSION_LOCAL) && cmp(found, bound, SP_CMP_PUBLIC) == 0);
    case SP_OP_COMPATIBLE:
        return cmp(found, bound, SP_CMP_PUBLIC) >= 0 &&
               bound->scheme->prefix_match(found, bound, 1);
    case SP_OP_ARBITRARY:
        if (found->scheme == &sp_scheme_pep440)
            return strcasecmp(found->normal, c->text) == 0;
        return strcmp(found->normal, c->text) == 0;
    }
    return 0;
}

int sp_specifier_match(const struct sp_specifier *s, const struct sp_version *found)
{
    if (s->nrefs)
        return 0;                   /* references need sp_clause_resolve() */
    for (size_t i = 0; i < s->count; i++)
        if (!sp_clause_match(&s->clauses[i], s->clauses[i].bound, found))
            return 0;
    return 1;
}
