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
 * sp_node_free(); strings inside belong to the tree.
 */
#ifndef SP_NODE_H
#define SP_NODE_H

#include <stddef.h>

#include "manifest/error.h"

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

#endif
