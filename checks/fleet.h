/* checks/fleet.h: many nodes' manifests grouped by stack id, the majority
 * stack, and how each other node differs from it (stackprint-fleet(1)).
 *
 * Streaming: the caller reads one manifest at a time and hands it to
 * sp_fleet_add(), which keeps the facts of the first node of each distinct
 * stack only (every node of a stack has the same non-volatile facts: the
 * stack id is their SHA-256, stackprint-manifest(5)) and, per node, its
 * name and file name.  Memory is one fact set per distinct stack plus a few
 * dozen bytes per node, never a node's facts.
 *
 * Node names: the fact host.hostname, else the manifest's subject when not
 * empty, else the file's base name.  Two nodes with the same name are an
 * error (the same node read twice, or two nodes that cannot be told apart).
 *
 * Majority: the stack with the most nodes; on a tie, of the tied stacks the
 * one whose first node was added first (so a reference manifest named first
 * on the command line wins a tie).  sp_fleet_finish() then compares each
 * other stack with it through checks/compare.h (volatile keys left out).
 *
 * Policies: sp_fleet_check() evaluates each distinct stack once
 * (checks/evaluate.h), not each node.
 *
 * Memory: a struct sp_fleet owns everything in it; sp_fleet_free()
 * releases it.  Nothing here prints or exits.
 */
#ifndef SP_FLEET_H
#define SP_FLEET_H

#include <stddef.h>

#include "checks/compare.h"
#include "checks/evaluate.h"
#include "checks/policy.h"
#include "manifest/manifest.h"

struct sp_fleet_node {
    char *name;                 /* see above; UTF-8 (sanitized) */
    char *file;                 /* the path it was read from, as given (bytes
                                   that are not UTF-8 written \xNN) */
    size_t stack;               /* index into stacks */
};

struct sp_fleet_stack {
    char stack_id[SP_DIGEST_LEN + 1];/* "sha256:<hex>" */
    struct factset facts;       /* its first node's facts */
    size_t *nodes;              /* indices into the fleet's nodes, in the order added */
    size_t count, cap;
    struct sp_diff diff;        /* from the majority's facts to these
                                   (empty for the majority itself) */
    int checked;                /* sp_fleet_check() ran */
    struct factset eval_facts;  /* facts the policies saw (checked only) */
    struct sp_report report;    /* the check of this stack (checked only) */
};

/* A file that was not grouped: unreadable or malformed (SP_EXIT_INPUT), or
 * whose envelope is missing or does not verify (SP_EXIT_VERIFY). */
struct sp_fleet_problem {
    char *file;                 /* the path, as given (UTF-8, as above) */
    char *node;                 /* the node's name when known, else NULL */
    int exit_code;              /* SP_EXIT_INPUT or SP_EXIT_VERIFY */
    char *msg;                  /* the one-line error, without "stackprint: "
                                   (UTF-8, as above) */
};

struct sp_fleet {
    struct sp_fleet_node *nodes;        /* in the order added */
    size_t nnodes, capnodes;
    struct sp_fleet_stack *stacks;      /* in the order first seen */
    size_t nstacks, capstacks;
    struct sp_fleet_problem *problems;  /* in the order recorded */
    size_t nproblems, capproblems;
    size_t majority;                    /* index into stacks (sp_fleet_finish) */
    int tie;                            /* another stack has as many nodes */
    size_t odd_nodes;                   /* nodes outside the majority */
    /* open-addressing indexes (internal): node names, stack ids */
    size_t *name_slots, name_cap;
    size_t *stack_slots, stack_cap;
};

void sp_fleet_init(struct sp_fleet *f);
void sp_fleet_free(struct sp_fleet *f);

/* sp_fleet_add: add the node whose manifest M (parsed by manifest_parse, so
 * its stack id is the one recomputed from its facts) was read from FILE.
 * M's facts move into the fleet when they start a new stack (M's set is
 * then empty), else stay in M; the caller frees M with manifest_free()
 * either way.  Returns 0, or -1 with E set
 * (SP_EXIT_INPUT): "FILE: node 'NAME' was already read from OTHER", or out
 * of memory.  The fleet is unchanged on error. */
int sp_fleet_add(struct sp_fleet *f, const char *file, struct manifest *m, struct sp_error *e);

/* sp_fleet_node_name: the name a node is given (see above) for manifest M
 * read from FILE, malloc'd (caller frees); NULL when out of memory. */
char *sp_fleet_node_name(const struct manifest *m, const char *file);

/* sp_fleet_problem: record that FILE (node NODE, may be NULL) was not
 * grouped, with exit status CODE and the message MSG.  Returns 0, or -1
 * with E set (out of memory). */
int sp_fleet_problem(struct sp_fleet *f, const char *file, const char *node, int code,
                     const char *msg, struct sp_error *e);

/* sp_fleet_finish: choose the majority and compare every other stack with
 * it.  Call once, after the last sp_fleet_add().  With no node, does
 * nothing.  Returns 0, or -1 with E set (out of memory). */
int sp_fleet_finish(struct sp_fleet *f, struct sp_error *e);

/* sp_fleet_check: evaluate every stack once against PS (sp_eval_facts then
 * sp_evaluate, with FLAGS as struct sp_eval_ctx's).  Returns 0, or -1 with
 * E set (out of memory). */
int sp_fleet_check(struct sp_fleet *f, const struct sp_policy_set *ps, unsigned flags,
                   struct sp_error *e);

/* sp_fleet_exit: the exit status the fleet's report warrants: the highest
 * of 4 (a file unreadable or malformed), 3 (an envelope missing or bad),
 * 1 (more than one stack, or a stack that failed its check) and 0. */
int sp_fleet_exit(const struct sp_fleet *f);

/* ---- reports (checks/fleet_report.c) --------------------------------- */

enum sp_fleet_format { SP_FLEET_TEXT, SP_FLEET_JSON, SP_FLEET_JUNIT };

/* sp_fleet_format_by_name: "text", "json" or "junit" into *OUT; 0, or -1. */
int sp_fleet_format_by_name(const char *name, enum sp_fleet_format *out);

/* sp_fleet_render: the report of F (after sp_fleet_finish) in FORMAT,
 * malloc'd into *OUT (*LEN bytes, NUL-terminated; caller frees):
 *   text   a summary line, each stack (id, nodes, majority, check verdict),
 *          each odd stack's nodes and their differences from the majority
 *          (key, the majority's value, the node's value, the change), the
 *          files not grouped, and a closing verdict line;
 *   json   {"nodes", "stacks": [{"stack_id", "nodes": [names],
 *          "majority", "check"}], "odd": [{"node", "stack_id",
 *          "differences": [{"key", "majority", "value", "change"}]}],
 *          "tie", "problems": [{"file", "node", "exit", "error"}]}; absent
 *          values null; "check" null without policies, else {"passed",
 *          "summary", "failures": [{"policy", "rule", "key", "found",
 *          "verdict", "severity", "explain"}]};
 *   junit  JUnit XML (tests/schemas/junit.xsd): one testcase per node,
 *          a failure when it is outside the majority or its stack fails
 *          its check, one per file not grouped (an error, or a failure
 *          of type "signature").
 * Returns 0, or -1 with E set (SP_EXIT_INPUT, out of memory). */
int sp_fleet_render(const struct sp_fleet *f, enum sp_fleet_format format, char **out,
                    size_t *len, struct sp_error *e);

#endif
