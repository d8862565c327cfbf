/* checks/fleet.c: grouping nodes' manifests by stack id, the majority, and
 * each other stack's differences from it; see fleet.h.  The differences
 * and their directions are checks/compare.c's, the verdicts
 * checks/evaluate.c's: nothing here compares versions. */
#include "checks/fleet.h"
#include "common/array.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void sp_fleet_init(struct sp_fleet *f)
{
    memset(f, 0, sizeof *f);
}

void sp_fleet_free(struct sp_fleet *f)
{
    for (size_t i = 0; i < f->nnodes; i++) {
        free(f->nodes[i].name);
        free(f->nodes[i].file);
    }
    for (size_t i = 0; i < f->nstacks; i++) {
        struct sp_fleet_stack *s = &f->stacks[i];
        free(s->nodes);
        sp_diff_free(&s->diff);
        if (s->checked) {
            sp_report_free(&s->report);
            factset_free(&s->eval_facts);
        }
        factset_free(&s->facts);
    }
    for (size_t i = 0; i < f->nproblems; i++) {
        free(f->problems[i].file);
        free(f->problems[i].node);
        free(f->problems[i].msg);
    }
    free(f->nodes);
    free(f->stacks);
    free(f->problems);
    free(f->name_slots);
    free(f->stack_slots);
    sp_fleet_init(f);
}

/* ---- the two indexes: node name -> node, stack id -> stack ------------- */
/* Open addressing, linear probing, at most half full; a slot holds the
 * index + 1 (0 is empty).  KEY_OF gives the text of an index. */

typedef const char *(*key_of_fn)(const struct sp_fleet *f, size_t i);

static const char *node_key(const struct sp_fleet *f, size_t i) { return f->nodes[i].name; }
static const char *stack_key(const struct sp_fleet *f, size_t i) { return f->stacks[i].stack_id; }

static uint64_t hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;   /* FNV-1a, 64 bits */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* the slot holding KEY, or the empty slot where it would go */
static size_t *slot_of(const struct sp_fleet *f, size_t *slots, size_t cap, key_of_fn key_of,
                       const char *key)
{
    size_t i = (size_t)hash(key) & (cap - 1);
    while (slots[i] && strcmp(key_of(f, slots[i] - 1), key) != 0)
        i = (i + 1) & (cap - 1);
    return &slots[i];
}

/* make room for one more entry among N; 0 or -1 (ENOMEM) */
static int index_grow(const struct sp_fleet *f, size_t **slots, size_t *cap, size_t n,
                      key_of_fn key_of)
{
    if (*cap && (n + 1) * 2 <= *cap)
        return 0;
    size_t ncap = *cap ? *cap * 2 : 64;
    size_t *ns = calloc(ncap, sizeof *ns);
    if (ns == NULL)
        return -1;
    for (size_t i = 0; i < *cap; i++)
        if ((*slots)[i])
            *slot_of(f, ns, ncap, key_of, key_of(f, (*slots)[i] - 1)) = (*slots)[i];
    free(*slots);
    *slots = ns;
    *cap = ncap;
    return 0;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

char *sp_fleet_node_name(const struct manifest *m, const char *file)
{
    const char *name = factset_get(&m->facts, "host.hostname");
    if (name == NULL)
        name = m->subject && *m->subject ? m->subject : base_name(file);
    return sp_utf8_sanitize(name, strlen(name));
}

int sp_fleet_add(struct sp_fleet *f, const char *file, struct manifest *m, struct sp_error *e)
{
    char *name = sp_fleet_node_name(m, file);
    char *fcopy = sp_utf8_sanitize(file, strlen(file));
    if (name == NULL || fcopy == NULL ||
        SP_ARRAY_RESERVE(f->nodes, f->capnodes, f->nnodes + 1) != 0 ||
        SP_ARRAY_RESERVE(f->stacks, f->capstacks, f->nstacks + 1) != 0 ||
        index_grow(f, &f->name_slots, &f->name_cap, f->nnodes, node_key) != 0 ||
        index_grow(f, &f->stack_slots, &f->stack_cap, f->nstacks, stack_key) != 0) {
        free(name);
        free(fcopy);
        return sp_fail(e, SP_EXIT_INPUT, "%s: out of memory", file);
    }
    size_t *ns = slot_of(f, f->name_slots, f->name_cap, node_key, name);
    if (*ns) {
        sp_fail(e, SP_EXIT_INPUT, "%s: node '%s' was already read from %s", file, name,
                f->nodes[*ns - 1].file);
        free(name);
        free(fcopy);
        return -1;
    }
    size_t *ss = slot_of(f, f->stack_slots, f->stack_cap, stack_key, m->stack_id);
    size_t si = *ss ? *ss - 1 : f->nstacks;
    struct sp_fleet_stack fresh = { 0 };
    struct sp_fleet_stack *s = *ss ? &f->stacks[si] : &fresh;
    if (SP_ARRAY_RESERVE(s->nodes, s->cap, s->count + 1) != 0) {
        free(name);
        free(fcopy);
        return sp_fail(e, SP_EXIT_INPUT, "%s: out of memory", file);
    }
    s->nodes[s->count++] = f->nnodes;
    if (!*ss) {
        memcpy(s->stack_id, m->stack_id, sizeof s->stack_id);
        s->facts = m->facts;                /* moved: M keeps an empty set */
        factset_init(&m->facts);
        sp_diff_init(&s->diff);
        f->stacks[f->nstacks++] = fresh;
        *ss = si + 1;
    }
    f->nodes[f->nnodes] = (struct sp_fleet_node){ name, fcopy, si };
    *ns = ++f->nnodes;
    return 0;
}

int sp_fleet_problem(struct sp_fleet *f, const char *file, const char *node, int code,
                     const char *msg, struct sp_error *e)
{
    struct sp_fleet_problem p = { sp_utf8_sanitize(file, strlen(file)),
                                  node ? strdup(node) : NULL, code,
                                  sp_utf8_sanitize(msg, strlen(msg)) };
    if (p.file == NULL || p.msg == NULL || (node && p.node == NULL) ||
        SP_ARRAY_RESERVE(f->problems, f->capproblems, f->nproblems + 1) != 0) {
        free(p.file);
        free(p.node);
        free(p.msg);
        return sp_fail(e, SP_EXIT_INPUT, "%s: out of memory", file);
    }
    f->problems[f->nproblems++] = p;
    return 0;
}

int sp_fleet_finish(struct sp_fleet *f, struct sp_error *e)
{
    if (f->nstacks == 0)
        return 0;
    size_t best = 0;
    /* stacks are in the order their first node was added: the first of the
     * largest wins a tie */
    for (size_t i = 1; i < f->nstacks; i++)
        if (f->stacks[i].count > f->stacks[best].count)
            best = i;
    f->majority = best;
    f->tie = 0;
    f->odd_nodes = 0;
    for (size_t i = 0; i < f->nstacks; i++) {
        if (i == best)
            continue;
        f->tie |= f->stacks[i].count == f->stacks[best].count;
        f->odd_nodes += f->stacks[i].count;
        if (sp_compare(&f->stacks[best].facts, &f->stacks[i].facts, NULL, &f->stacks[i].diff,
                       e) != 0)
            return -1;
    }
    return 0;
}

int sp_fleet_check(struct sp_fleet *f, const struct sp_policy_set *ps, unsigned flags,
                   struct sp_error *e)
{
    for (size_t i = 0; i < f->nstacks; i++) {
        struct sp_fleet_stack *s = &f->stacks[i];
        if (s->checked)
            continue;
        sp_report_init(&s->report);
        if (sp_eval_facts(ps, &s->facts, &s->eval_facts, e) != 0) {
            sp_report_free(&s->report);
            return -1;
        }
        s->checked = 1;
        struct sp_eval_ctx ctx = { &s->eval_facts, flags };
        if (sp_evaluate(ps, &ctx, &s->report, e) != 0)
            return -1;
    }
    return 0;
}

int sp_fleet_exit(const struct sp_fleet *f)
{
    int rc = SP_EXIT_OK;
    for (size_t i = 0; i < f->nproblems; i++)
        if (f->problems[i].exit_code > rc)
            rc = f->problems[i].exit_code;
    if (rc != SP_EXIT_OK)
        return rc;
    if (f->nstacks > 1)
        return SP_EXIT_FAIL;
    for (size_t i = 0; i < f->nstacks; i++)
        if (f->stacks[i].checked && !f->stacks[i].report.passed)
            return SP_EXIT_FAIL;
    return SP_EXIT_OK;
}
