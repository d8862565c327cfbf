/* checks/specifier.h: version specifier sets, PEP 440 "Version specifiers"
 * syntax and semantics (as packaging 23.0's SpecifierSet applies them),
 * usable with every scheme of version.h (stackprint-policy(5),
 * "SPECIFIERS").
 *
 * A set is clauses joined by commas, all of which must hold:
 *   ==V  !=V  <V  <=V  >V  >=V  ~=V  ==V.*  !=V.*  ===TEXT
 * PEP 440 rules kept (they only bite where the scheme has the notions, so
 * only for PEP 440): <V excludes pre-releases of V unless V is one; >V
 * excludes post-releases of V unless V is one, and local versions of V;
 * ==, !=, <=, >= ignore the found version's local label unless V has one;
 * a local label is allowed in V only with == and !=; V.* takes a bare
 * release; ~=V needs two release components and means >=V,==P.* where P is
 * V without its last release component (and without suffixes).
 * The found version is always an installed one: PEP 440's implicit
 * exclusion of pre-releases does not apply to it (packaging's
 * contains(v, prereleases=True), which is also what pip uses to decide
 * whether an installed distribution satisfies a requirement).
 * === compares the text: for PEP 440, the normal form of the found version
 * with the clause, ignoring case; for other schemes, exactly.
 *
 * Fact references (stackprint-policy(5), "FACT REFERENCES"): a clause's
 * version may be written ${KEY} (the value of fact KEY) or ${KEY:N} (its
 * first N release components, 1 <= N <= SP_REF_COMPONENTS_MAX), optionally
 * followed by .* with == and !=: "<=${neuron.sdk.runtime_release}",
 * "==${pip.torch:2}.*".  The reference is the whole version: nothing else
 * may hold a '$' (no scheme's versions do), and === takes none.  The
 * evaluator resolves the bound with sp_clause_resolve() and matches with
 * sp_clause_match(), so the operator rules stay in one place.
 *
 * Memory: sp_specifier_parse() returns a set the caller frees with
 * sp_specifier_free().  Nothing here prints or exits.
 */
#ifndef SP_SPECIFIER_H
#define SP_SPECIFIER_H

#include <stddef.h>

#include "common/error.h"
#include "checks/version.h"

#define SP_SPECIFIER_TEXT_MAX 1024   /* bytes in one specifier set */
#define SP_SPECIFIER_CLAUSES_MAX 32  /* clauses in one set */
#define SP_REF_COMPONENTS_MAX 16     /* N in ${KEY:N} */

enum sp_op {
    SP_OP_EQ, SP_OP_NE, SP_OP_LT, SP_OP_LE, SP_OP_GT, SP_OP_GE,
    SP_OP_COMPATIBLE,               /* ~= */
    SP_OP_ARBITRARY,                /* === */
};

/* One clause.  The bound is a literal version, or a fact reference the
 * caller resolves (sp_clause_resolve) before sp_clause_match(). */
struct sp_clause {
    enum sp_op op;
    int wildcard;                   /* ==V.* or !=V.* */
    char *text;                     /* the version as written, without ".*" */
    struct sp_version *bound;       /* NULL for === and for a reference */
    char *ref;                      /* ${KEY} or ${KEY:N}: KEY; else NULL */
    unsigned ref_components;        /* N of ${KEY:N}; 0 for ${KEY} */
};

struct sp_specifier {
    const struct sp_scheme *scheme;
    char *text;                     /* the whole set as written */
    size_t count;
    struct sp_clause *clauses;
    size_t nrefs;                   /* clauses holding a fact reference */
};

/* sp_specifier_looks_like: 1 when TEXT (after blanks) starts with one of
 * the operator characters < > = ! ~, i.e. is meant as a specifier set. */
int sp_specifier_looks_like(const char *text);

/* sp_specifier_parse: parse TEXT as a set in SCHEME into *OUT.  Returns 0,
 * or -1 with E set (SP_EXIT_INPUT) to one of: "specifier longer than 1024
 * bytes", "more than 32 clauses", "empty clause", "'C': no operator",
 * "'C': nothing after the operator", "'C': ...": an invalid version (the
 * scheme's message), "'C': a local label is allowed only with == and !=",
 * "'C': .* follows a bare release", "'C': .* is allowed only with == and
 * !=", "'C': ~= needs at least two release components", "'C': === takes one
 * word", "'C': a fact reference is written ${KEY} or ${KEY:N}, N from 1 to
 * 16", "'C': 'KEY' is not a fact key", "'C': === compares text and takes no
 * fact reference", "out of memory". */
int sp_specifier_parse(const char *text, const struct sp_scheme *scheme,
                       struct sp_specifier **out, struct sp_error *e);

/* sp_clause_resolve: the bound of reference clause C when its fact holds
 * VALUE: VALUE parsed in the referenced key's scheme (sp_scheme_for_key),
 * cut to its first C->ref_components release components when N was given
 * (sp_version_leading), then parsed in SCHEME (the set's) and held to the
 * rules a literal bound obeys (local label only with == and !=, .* after a
 * bare release, ~= with two release components).  Returns the version
 * (caller frees), or NULL with E set (SP_EXIT_INPUT): "${KEY}: " then the
 * reason (a version error, "'V' has fewer than N release components", or
 * one of the rules above). */
struct sp_version *sp_clause_resolve(const struct sp_clause *c, const struct sp_scheme *scheme,
                                     const char *value, struct sp_error *e);

/* sp_clause_match: 1 when FOUND satisfies clause C whose bound is BOUND (of
 * FOUND's scheme; NULL only for ===), else 0. */
int sp_clause_match(const struct sp_clause *c, const struct sp_version *bound,
                    const struct sp_version *found);

/* sp_specifier_match: 1 when FOUND (of S's scheme) satisfies every clause
 * of a set without fact references; 0 for a set with some (the caller
 * resolves them and uses sp_clause_match). */
int sp_specifier_match(const struct sp_specifier *s, const struct sp_version *found);

void sp_specifier_free(struct sp_specifier *s);

#endif
