/* checks/policy.h: policy files (stackprint-policy(5)), loaded strictly.
 *
 * A policy is one YAML document:
 *   policy: NAME              required; letters, digits, '.', '_', '-'
 *   description: TEXT         optional
 *   source: TEXT              optional: the release note or table it encodes
 *   when: {KEY: TEST, ...}    optional: the policy applies where all hold
 *   require: {KEY: TEST, ...} each must hold
 *   forbid: {KEY: TEST, ...}  none may hold
 *   rules:                    each: name (required), when, require,
 *     - name: NAME                  forbid, severity (error | warning,
 *       ...                         default error), message
 * A TEST is: present | absent | a specifier set (text starting with one of
 * < > = ! ~) in the key's scheme, whose versions may be fact references
 * ${KEY} or ${KEY:N} (specifier.h) | any other text, matched exactly,
 * except a word one edit from present or absent, or one of them in another
 * case (refused as a misspelled keyword) |
 * {one_of: [TEXT, ...]} | {equals: TEXT} | {specifier: SET, scheme: NAME} |
 * {one_of_fact: KEY, components: N}: the value (its first N release
 * components when N is given) is one of the comma-separated values of
 * fact KEY.
 *
 * The release catalog: a YAML document whose top-level mapping has the key
 * "catalog" is the Neuron release catalog (checks/catalog.h), not a
 * policy; a set holds at most one.
 * Top-level require and forbid become the rules named "require" and
 * "forbid", severity error; reports name a policy's own condition "when".
 * A policy's rules may not use these three names.
 *
 * Strict loading: besides what manifest/node.h refuses (several documents,
 * anchors, aliases, duplicate keys, nesting deeper than SP_NODE_DEPTH_MAX),
 * unknown keys, wrong types, bad fact keys, bad specifiers and files larger
 * than SP_POLICY_MAX_BYTES are errors "FILE:LINE:COLUMN: what" (exit
 * status SP_EXIT_INPUT).
 *
 * Memory: a struct sp_policy_set owns everything in it; free it with
 * sp_policy_set_free().  Nothing here prints or exits.
 */
#ifndef SP_POLICY_H
#define SP_POLICY_H

#include <stddef.h>

#include "checks/catalog.h"
#include "common/error.h"
#include "checks/specifier.h"

#define SP_POLICY_MAX_BYTES (1u << 20)   /* largest policy file */
#define SP_POLICY_FILES_MAX 1000         /* *.yaml files read from one folder */
#define SP_POLICY_NAME_MAX 128           /* bytes in a policy or rule name */
#define SP_POLICY_DEPTH_MAX 8            /* folder levels read below --policy DIR */

enum sp_severity { SP_SEVERITY_ERROR, SP_SEVERITY_WARNING };

enum sp_test_kind {
    SP_TEST_PRESENT, SP_TEST_ABSENT, SP_TEST_EQUALS, SP_TEST_ONE_OF, SP_TEST_SPECIFIER,
    SP_TEST_ONE_OF_FACT,
};

struct sp_test {
    enum sp_test_kind kind;
    char *shown;                     /* how reports show it: "==2.9.*", "one of trn1, trn2" */
    char **values;                   /* EQUALS: 1 value; ONE_OF: the list */
    size_t nvalues;
    struct sp_specifier *specifier;  /* SPECIFIER */
    char *ref;                       /* ONE_OF_FACT: the fact holding the list */
    unsigned components;             /* ONE_OF_FACT: N, or 0 for the whole value */
};

struct sp_requirement {
    char *key;                       /* a fact key */
    struct sp_test test;
    size_t line, column;             /* of the key in the policy file */
};

struct sp_rule {
    char *name;
    enum sp_severity severity;
    char *message;                   /* NULL when none */
    char *source;                    /* where its constants come from; NULL when none */
    struct sp_requirement *when, *require, *forbid;
    size_t nwhen, nrequire, nforbid;
};

struct sp_policy {
    char *name, *description, *source;   /* description, source: NULL when none */
    char *file;                          /* the file it was read from (bytes
                                            that are not UTF-8 written \xNN) */
    struct sp_requirement *when;
    size_t nwhen;
    struct sp_rule *rules;               /* "require", "forbid", then its own */
    size_t nrules;
};

/* A fact key a policy names that no page documents, or that is one edit
 * from a well-known key (manifest/fact_keys.h).  TEXT is "FILE:LINE:COL:
 * 'KEY': not a documented fact key; did you mean 'NEAR'? (stackprint help keys)" or "FILE:LINE:COL:
 * 'KEY': did you mean 'NEAR'? (a well-known key one edit away)". */
struct sp_policy_warning {
    char *text;
    int undocumented;                    /* 1: the key matches no documented
                                            key or pattern (an error under
                                            --strict); 0: a near miss */
};

struct sp_policy_set {
    struct sp_policy *policies;          /* in load order */
    size_t count, cap;
    struct catalog *catalog;             /* the release catalog; NULL when none */
    char *catalog_file;                  /* where it was read from */
    struct sp_policy_warning *warnings;  /* in load order */
    size_t nwarnings;
};

void sp_policy_set_init(struct sp_policy_set *ps);
void sp_policy_set_free(struct sp_policy_set *ps);

/* sp_policy_parse: add the policy in BUF (LEN bytes of YAML; NAME is the
 * file named in messages) to PS, or, when the document is a release
 * catalog, make it PS's catalog.  A policy name already in PS is an error,
 * and so is a second catalog ("NAME:LINE:COL: a second release catalog
 * (one is loaded from FILE)").  Returns 0, or -1 with E set
 * (SP_EXIT_INPUT); PS is unchanged on error.  Each fact key a policy
 * names (requirement keys, one_of_fact keys, ${KEY} references) that is
 * not documented, or is a near miss of a well-known key, adds a warning to
 * PS->warnings. */
int sp_policy_parse(struct sp_policy_set *ps, const char *buf, size_t len,
                    const char *name, struct sp_error *e);

/* sp_policy_load: PATH is a policy file, or a folder whose "*.yaml" and
 * "*.yml" files,
 * in it and in its sub-folders down to SP_POLICY_DEPTH_MAX levels (hidden
 * names skipped, symbolic links to folders not followed, at most
 * SP_POLICY_FILES_MAX files), are loaded in bytewise order of their paths.
 * Only regular files are read (never blocking on a FIFO), each at most
 * SP_POLICY_MAX_BYTES.  A folder without one is an error.  Returns 0, or
 * -1 with E set (SP_EXIT_INPUT): "PATH: <strerror>", "PATH: not a regular
 * file", "PATH: larger than the policy size limit (1048576 bytes)", "PATH: no *.yaml or
 * *.yml policy files", "PATH: more than 1000 policy files", "PATH: folders nested deeper
 * than 8 levels", or any sp_policy_parse() error. */
int sp_policy_load(struct sp_policy_set *ps, const char *path, struct sp_error *e);

/* sp_test_from_text: the test a scalar TEXT means for fact KEY (present,
 * absent, a specifier set in the key's scheme, or an exact value).  For
 * callers building tests outside a file (and for unit tests).  Returns 0,
 * or -1 with E set ("'TEXT': why"; for a misspelled keyword "'presnt' is
 * one edit from the keyword present: write present, or {equals: "presnt"}
 * for this exact text"; edits as sp_edit_distance() counts them, ASCII
 * case ignored). */
int sp_test_from_text(const char *key, const char *text, struct sp_test *t,
                      struct sp_error *e);
void sp_test_free(struct sp_test *t);

#endif
