/* manifest/node.h: a small, strict document tree read from YAML (libyaml's
 * event parser) or JSON (jansson), shared by the manifest reader and the
 * policy loader so that both apply the same rules.
 *
 * Strictness (stackprint-policy(5), "STRICT LOADING"): exactly one document;
 * no anchors, aliases or tags other than the core ones; no duplicate mapping
 * keys; mapping keys must be scalars; nesting at most SP_NODE_DEPTH_MAX;
 * input at most the caller's byte bound.  Every violation is an error
 * "NAME:LINE:COLUMN: what" (1-based line and column, as editors count).
 *
 * Memory: sp_node_parse() returns a tree the caller frees with
 * sp_node_free(); strings inside belong to the tree.  Below the parser, the
 * toolkit every strict reader uses: one position error, one unknown-key
 * check, one scalar getter.
 */
#ifndef SP_NODE_H
#define SP_NODE_H

#include <stddef.h>

#include "common/error.h"

#define SP_NODE_DEPTH_MAX 16        /* nested mappings/sequences */
#define SP_NODE_ITEMS_MAX 1000000   /* nodes in one document */

enum sp_node_kind { SP_NODE_SCALAR, SP_NODE_MAP, SP_NODE_SEQ };

struct sp_node {
    enum sp_node_kind kind;
    size_t line, column;       /* where the node starts, 1-based */
    char *value;               /* SCALAR: the text (UTF-8), else NULL */
    int quoted;                /* SCALAR: 1 if written quoted in YAML or a JSON string */
    int json_literal;          /* SCALAR: 1 if a JSON number, true, false or null:
                                * VALUE is then jansson's rendering of it (a
                                * double may not round-trip), never a string;
                                * readers that need a string refuse it */
    size_t count;              /* MAP: pairs; SEQ: items */
    char **keys;               /* MAP: keys, in document order */
    size_t *key_lines, *key_columns;
    struct sp_node **items;    /* MAP: values; SEQ: items */
    size_t cap;                /* room in the arrays above (grows by doubling) */
};

/* sp_node_parse: parse LEN bytes at BUF.  JSON when the first non-blank byte
 * is '{' or '[', else YAML.  NAME is used in messages.  Returns the tree, or
 * NULL with E set (SP_EXIT_INPUT).  An empty YAML stream is an error. */
struct sp_node *sp_node_parse(const char *buf, size_t len, const char *name,
                              struct sp_error *e);

/* sp_node_parse_yaml: as sp_node_parse, but always YAML (a flow mapping
 * "{...}" is YAML too), so every node carries its line and column.  For
 * inputs the format says are YAML (policies). */
struct sp_node *sp_node_parse_yaml(const char *buf, size_t len, const char *name,
                                   struct sp_error *e);

void sp_node_free(struct sp_node *n);

/* sp_node_get: the value of KEY in mapping N, or NULL (also when N is not a
 * mapping).  Index of the pair in *INDEX when INDEX is not NULL. */
const struct sp_node *sp_node_get(const struct sp_node *n, const char *key,
                                  size_t *index);

/* sp_node_str: the text of KEY in mapping N when it was written as a
 * string (a quoted YAML scalar, a JSON string), else NULL: absent, a
 * mapping, a list, a JSON number, true, false or null.  For formats whose
 * strings are always quoted (JSON: DSSE envelopes, OCI image documents).
 * Borrowed from the tree. */
const char *sp_node_str(const struct sp_node *n, const char *key);

/* ---- the strict reader's toolkit ---------------------------------------
 * Every reader of a tree (manifests, policies, the release catalog, DSSE
 * envelopes, OCI image JSON) reports what is wrong the same way: one line,
 * SP_EXIT_INPUT, "NAME:LINE:COLUMN: what" where the node has a position
 * (YAML) and "NAME: what" where it has none (a node read from JSON: line 0).
 * NAME is the file as the user named it.  None of these allocate. */

/* sp_node_fail: the error above at node N (N may be NULL: no position),
 * printf-style.  Always -1. */
int sp_node_fail(struct sp_error *e, const char *name, const struct sp_node *n,
                 const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* sp_node_fail_key: as sp_node_fail, at the position of the I-th key of
 * mapping MAP (where a key, not its value, is at fault).  Always -1. */
int sp_node_fail_key(struct sp_error *e, const char *name, const struct sp_node *map,
                     size_t i, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* sp_node_known_keys: 0 when every key of mapping MAP is one of KNOWN (a
 * NULL-terminated list), else -1 with E set at the first other key:
 * "unknown key 'K' in WHAT (expected A, B, C)", WHAT saying what MAP is
 * ("a policy", "a release"). */
int sp_node_known_keys(const struct sp_node *map, const char *const *known,
                       const char *what, const char *name, struct sp_error *e);

/* sp_node_scalar: 0 when N is a string (a YAML scalar or a JSON string:
 * never a JSON number, true, false or null), else -1 with E set at N:
 * "WHAT must be a text, not a mapping" (a list, a number, true, false,
 * null).  WHAT names the value (a key, or "k: an item of one_of"). */
int sp_node_scalar(const struct sp_node *n, const char *what, const char *name,
                   struct sp_error *e);

enum {
    SP_NODE_OPTIONAL = 1,      /* sp_node_text: an absent key gives NULL, not an error */
    SP_NODE_NONEMPTY = 2,      /* sp_node_text: "" is an error */
};

/* sp_node_text: the text of KEY in mapping MAP into *OUT (borrowed from the
 * tree; NULL when absent and FLAGS has SP_NODE_OPTIONAL).  0, or -1 with E
 * set: "missing key 'KEY'" (at MAP), sp_node_scalar's "KEY must be a text,
 * not ...", "KEY must not be empty" (SP_NODE_NONEMPTY). */
int sp_node_text(const struct sp_node *map, const char *key, unsigned flags,
                 const char **out, const char *name, struct sp_error *e);

#endif
