/* manifest/node.c: strict YAML/JSON document trees; see node.h. */
#include "manifest/node.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <yaml.h>

#include "common/strbuf.h"

void sp_node_free(struct sp_node *n)
{
    if (n == NULL)
        return;
    free(n->value);
    for (size_t i = 0; i < n->count; i++) {
        if (n->keys)
            free(n->keys[i]);
        sp_node_free(n->items[i]);
    }
    free(n->keys);
    free(n->key_lines);
    free(n->key_columns);
    free(n->items);
    free(n);
}

const struct sp_node *sp_node_get(const struct sp_node *n, const char *key,
                                  size_t *index)
{
    if (n == NULL || n->kind != SP_NODE_MAP)
        return NULL;
    for (size_t i = 0; i < n->count; i++)
        if (strcmp(n->keys[i], key) == 0) {
            if (index)
                *index = i;
            return n->items[i];
        }
    return NULL;
}

const char *sp_node_str(const struct sp_node *n, const char *key)
{
    const struct sp_node *v = sp_node_get(n, key, NULL);
    return v && v->kind == SP_NODE_SCALAR && v->quoted ? v->value : NULL;
}

static struct sp_node *node_new(enum sp_node_kind kind, size_t line, size_t col)
{
    struct sp_node *n = calloc(1, sizeof *n);
    if (n) {
        n->kind = kind;
        n->line = line;
        n->column = col;
    }
    return n;
}

/* Append ITEM (and KEY for maps) to N; takes ownership of both.  The
 * arrays double when full, so a document of N entries costs O(N) copying
 * (growing by one entry each time copied O(N^2) bytes where realloc cannot
 * grow in place, as under AddressSanitizer). */
static int node_push(struct sp_node *n, char *key, size_t kl, size_t kc,
                     struct sp_node *item)
{
    if (n->count == n->cap) {
        size_t c = n->cap ? 2 * n->cap : 8;
        struct sp_node **items = realloc(n->items, c * sizeof *items);
        if (items == NULL)
            return -1;
        n->items = items;
        if (n->kind == SP_NODE_MAP) {
            char **keys = realloc(n->keys, c * sizeof *keys);
            if (keys)
                n->keys = keys;
            size_t *kls = keys ? realloc(n->key_lines, c * sizeof *kls) : NULL;
            if (kls)
                n->key_lines = kls;
            size_t *kcs = kls ? realloc(n->key_columns, c * sizeof *kcs) : NULL;
            if (kcs)
                n->key_columns = kcs;
            if (kcs == NULL)
                return -1;
        }
        n->cap = c;
    }
    if (n->kind == SP_NODE_MAP) {
        n->keys[n->count] = key;
        n->key_lines[n->count] = kl;
        n->key_columns[n->count] = kc;
    }
    n->items[n->count++] = item;
    return 0;
}

/* ---- YAML ---------------------------------------------------------- */

struct yp {
    yaml_parser_t parser;
    const char *name;
    struct sp_error *e;
    size_t nodes;
};

static int yp_next(struct yp *p, yaml_event_t *ev)
{
    if (!yaml_parser_parse(&p->parser, ev)) {
        const char *what = p->parser.problem ? p->parser.problem : "malformed yaml";
        return sp_fail(p->e, SP_EXIT_INPUT, "%s:%zu:%zu: %s", p->name,
                       p->parser.problem_mark.line + 1,
                       p->parser.problem_mark.column + 1, what);
    }
    return 0;
}

static int core_tag(const yaml_char_t *tag)
{
    if (tag == NULL)
        return 1;
    static const char *const ok[] = {
        YAML_STR_TAG, YAML_MAP_TAG, YAML_SEQ_TAG, "!",
    };
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++)
        if (strcmp((const char *)tag, ok[i]) == 0)
            return 1;
    return 0;
}

static int cmp_key_index(const void *a, const void *b, void *map)
{
    const struct sp_node *n = map;
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    int c = strcmp(n->keys[x], n->keys[y]);
    return c ? c : (x > y) - (x < y);
}

/* Refuse a mapping that holds a key twice, naming the first repeat in
 * document order.  Sorting the key indices keeps this O(n log n), so a
 * manifest with thousands of facts is checked as fast as a small one. */
static int check_duplicates(struct yp *p, const struct sp_node *n)
{
    if (n->count < 2)
        return 0;
    size_t *idx = malloc(n->count * sizeof *idx), first = (size_t)-1;
    if (idx == NULL)
        return sp_fail(p->e, SP_EXIT_INPUT, "%s: out of memory", p->name);
    for (size_t i = 0; i < n->count; i++)
        idx[i] = i;
    qsort_r(idx, n->count, sizeof *idx, cmp_key_index, (void *)n);
    for (size_t i = 1; i < n->count; i++)
        if (strcmp(n->keys[idx[i]], n->keys[idx[i - 1]]) == 0 && idx[i] < first)
            first = idx[i];
    free(idx);
    if (first == (size_t)-1)
        return 0;
    return sp_fail(p->e, SP_EXIT_INPUT, "%s:%zu:%zu: duplicate key '%s'", p->name,
                   n->key_lines[first], n->key_columns[first], n->keys[first]);
}

static struct sp_node *yp_node(struct yp *p, yaml_event_t *ev, int depth);

/* Refuse an anchor and a tag outside the core schema (node.h: strictness)
 * on the node at LINE:COL.  0, or -1 with the error set. */
static int yp_props(struct yp *p, const yaml_char_t *anchor, const yaml_char_t *tag,
                    size_t line, size_t col)
{
    if (anchor)
        return sp_fail(p->e, SP_EXIT_INPUT, "%s:%zu:%zu: anchors are not allowed", p->name,
                       line, col);
    if (!core_tag(tag))
        return sp_fail(p->e, SP_EXIT_INPUT, "%s:%zu:%zu: tag %s is not allowed", p->name,
                       line, col, (const char *)tag);
    return 0;
}

/* The scalar node of EV (not consumed).  NULL on error. */
static struct sp_node *yp_scalar(struct yp *p, const yaml_event_t *ev, size_t line, size_t col)
{
    if (yp_props(p, ev->data.scalar.anchor, ev->data.scalar.tag, line, col) != 0)
        return NULL;
    struct sp_node *n = node_new(SP_NODE_SCALAR, line, col);
    if (n == NULL || (n->value = strndup((const char *)ev->data.scalar.value,
                                         ev->data.scalar.length)) == NULL) {
        sp_node_free(n);
        sp_fail(p->e, SP_EXIT_INPUT, "%s: out of memory", p->name);
        return NULL;
    }
    if (strlen(n->value) != ev->data.scalar.length) {
        sp_node_free(n);
        sp_fail(p->e, SP_EXIT_INPUT, "%s:%zu:%zu: NUL byte in a scalar", p->name, line, col);
        return NULL;
    }
    n->quoted = ev->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
                ev->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE;
    return n;
}

/* The key whose first event is SUB (consumed), then the next event into
 * SUB; the key's text and position into *KEY, *KL, *KC.  -1 on error. */
static int yp_key(struct yp *p, yaml_event_t *sub, int depth, char **key,
                  size_t *kl, size_t *kc)
{
    *kl = sub->start_mark.line + 1;
    *kc = sub->start_mark.column + 1;
    struct sp_node *k = yp_node(p, sub, depth + 1);
    if (k == NULL)
        return -1;
    if (k->kind != SP_NODE_SCALAR) {
        sp_node_free(k);
        return sp_fail(p->e, SP_EXIT_INPUT, "%s:%zu:%zu: a mapping key must be a scalar",
                       p->name, *kl, *kc);
    }
    *key = k->value;
    k->value = NULL;
    sp_node_free(k);
    if (yp_next(p, sub) != 0) {
        free(*key);
        *key = NULL;
        return -1;
    }
    return 0;
}

/* The items (and keys) of mapping or sequence N, up to its end event.
 * 0, or -1 with the error set. */
static int yp_items(struct yp *p, struct sp_node *n, int depth)
{
    yaml_event_t sub;
    for (;;) {
        if (yp_next(p, &sub) != 0)
            return -1;
        if (sub.type == YAML_MAPPING_END_EVENT || sub.type == YAML_SEQUENCE_END_EVENT) {
            yaml_event_delete(&sub);
            return n->kind == SP_NODE_MAP ? check_duplicates(p, n) : 0;
        }
        char *key = NULL;
        size_t kl = 0, kc = 0;
        if (n->kind == SP_NODE_MAP && yp_key(p, &sub, depth, &key, &kl, &kc) != 0)
            return -1;
        struct sp_node *item = yp_node(p, &sub, depth + 1);
        if (item == NULL) {
            free(key);
            return -1;
        }
        if (node_push(n, key, kl, kc, item) != 0) {
            free(key);
            sp_node_free(item);
            return sp_fail(p->e, SP_EXIT_INPUT, "%s: out of memory", p->name);
        }
    }
}

/* The mapping or sequence node whose start event is EV (not consumed).
 * NULL on error. */
static struct sp_node *yp_collection(struct yp *p, const yaml_event_t *ev, int depth,
                                     size_t line, size_t col)
{
    int is_map = ev->type == YAML_MAPPING_START_EVENT;
    if (yp_props(p, is_map ? ev->data.mapping_start.anchor : ev->data.sequence_start.anchor,
                 is_map ? ev->data.mapping_start.tag : ev->data.sequence_start.tag,
                 line, col) != 0)
        return NULL;
    if (depth >= SP_NODE_DEPTH_MAX) {
        sp_fail(p->e, SP_EXIT_INPUT, "%s:%zu:%zu: nesting deeper than %d", p->name,
                line, col, SP_NODE_DEPTH_MAX);
        return NULL;
    }
    struct sp_node *n = node_new(is_map ? SP_NODE_MAP : SP_NODE_SEQ, line, col);
    if (n == NULL) {
        sp_fail(p->e, SP_EXIT_INPUT, "%s: out of memory", p->name);
        return NULL;
    }
    if (yp_items(p, n, depth) != 0) {
        sp_node_free(n);
        return NULL;
    }
    return n;
}

/* Build the node whose first event is EV (consumed).  NULL on error. */
static struct sp_node *yp_node(struct yp *p, yaml_event_t *ev, int depth)
{
    size_t line = ev->start_mark.line + 1, col = ev->start_mark.column + 1;
    struct sp_node *n = NULL;

    if (++p->nodes > SP_NODE_ITEMS_MAX)
        sp_fail(p->e, SP_EXIT_INPUT, "%s:%zu:%zu: more than %d nodes", p->name,
                line, col, SP_NODE_ITEMS_MAX);
    else if (ev->type == YAML_ALIAS_EVENT)
        sp_fail(p->e, SP_EXIT_INPUT, "%s:%zu:%zu: aliases are not allowed", p->name, line, col);
    else if (ev->type == YAML_SCALAR_EVENT)
        n = yp_scalar(p, ev, line, col);
    else if (ev->type == YAML_MAPPING_START_EVENT || ev->type == YAML_SEQUENCE_START_EVENT)
        n = yp_collection(p, ev, depth, line, col);
    else
        sp_fail(p->e, SP_EXIT_INPUT, "%s:%zu:%zu: unexpected yaml event", p->name, line, col);
    yaml_event_delete(ev);
    return n;
}

static struct sp_node *parse_yaml(const char *buf, size_t len, const char *name,
                                  struct sp_error *e)
{
    struct yp p = { .name = name, .e = e };
    struct sp_node *root = NULL;
    yaml_event_t ev;
    if (!yaml_parser_initialize(&p.parser)) {
        sp_fail(e, SP_EXIT_INPUT, "%s: out of memory", name);
        return NULL;
    }
    yaml_parser_set_input_string(&p.parser, (const unsigned char *)buf, len);
    if (yp_next(&p, &ev) != 0)
        goto done;
    yaml_event_delete(&ev);                      /* STREAM-START */
    if (yp_next(&p, &ev) != 0)
        goto done;
    if (ev.type != YAML_DOCUMENT_START_EVENT) {
        yaml_event_delete(&ev);
        sp_fail(e, SP_EXIT_INPUT, "%s:1:1: empty document", name);
        goto done;
    }
    yaml_event_delete(&ev);
    if (yp_next(&p, &ev) != 0)
        goto done;
    root = yp_node(&p, &ev, 0);
    if (root == NULL)
        goto done;
    if (yp_next(&p, &ev) != 0)                   /* DOCUMENT-END */
        goto bad;
    yaml_event_delete(&ev);
    if (yp_next(&p, &ev) != 0)
        goto bad;
    if (ev.type != YAML_STREAM_END_EVENT) {
        size_t l = ev.start_mark.line + 1, c = ev.start_mark.column + 1;
        yaml_event_delete(&ev);
        sp_fail(e, SP_EXIT_INPUT, "%s:%zu:%zu: more than one document", name, l, c);
        goto bad;
    }
    yaml_event_delete(&ev);
    goto done;
bad:
    sp_node_free(root);
    root = NULL;
done:
    yaml_parser_delete(&p.parser);
    return root;
}

/* ---- JSON ---------------------------------------------------------- */

static struct sp_node *from_json(json_t *j, int depth, const char *name,
                                 struct sp_error *e);

/* The mapping node of the JSON object J, its members in jansson's order. */
static struct sp_node *from_json_object(json_t *j, int depth, const char *name,
                                        struct sp_error *e)
{
    struct sp_node *n = node_new(SP_NODE_MAP, 0, 0);
    const char *k;
    json_t *v;
    /* the size is known: the arrays once, not grown pair by pair */
    size_t size = json_object_size(j) ? json_object_size(j) : 1;
    if (n == NULL || (n->items = malloc(size * sizeof *n->items)) == NULL ||
        (n->keys = malloc(size * sizeof *n->keys)) == NULL ||
        (n->key_lines = calloc(size, sizeof *n->key_lines)) == NULL ||
        (n->key_columns = calloc(size, sizeof *n->key_columns)) == NULL) {
        sp_node_free(n);
        sp_fail(e, SP_EXIT_INPUT, "%s: out of memory", name);
        return NULL;
    }
    json_object_foreach(j, k, v) {
        struct sp_node *item = from_json(v, depth + 1, name, e);
        char *key = item ? strdup(k) : NULL;
        if (item == NULL || key == NULL) {
            if (item && !key)
                sp_fail(e, SP_EXIT_INPUT, "%s: out of memory", name);
            sp_node_free(item);
            sp_node_free(n);
            return NULL;
        }
        n->keys[n->count] = key;
        n->items[n->count++] = item;
    }
    return n;
}

static struct sp_node *from_json(json_t *j, int depth, const char *name,
                                 struct sp_error *e)
{
    struct sp_node *n = NULL;
    if ((json_is_object(j) || json_is_array(j)) && depth >= SP_NODE_DEPTH_MAX) {
        sp_fail(e, SP_EXIT_INPUT, "%s: nesting deeper than %d", name, SP_NODE_DEPTH_MAX);
        return NULL;
    }
    switch (json_typeof(j)) {
    case JSON_OBJECT:
        return from_json_object(j, depth, name, e);
    case JSON_ARRAY: {
        n = node_new(SP_NODE_SEQ, 0, 0);
        size_t i;
        json_t *v;
        if (n == NULL)
            goto nomem;
        json_array_foreach(j, i, v) {
            struct sp_node *item = from_json(v, depth + 1, name, e);
            if (item == NULL || node_push(n, NULL, 0, 0, item) != 0) {
                sp_node_free(item);
                sp_node_free(n);
                return NULL;
            }
        }
        return n;
    }
    case JSON_STRING:
        n = node_new(SP_NODE_SCALAR, 0, 0);
        if (n == NULL || (n->value = strndup(json_string_value(j), json_string_length(j))) == NULL)
            goto nomem;
        if (strlen(n->value) != json_string_length(j)) {
            sp_node_free(n);
            sp_fail(e, SP_EXIT_INPUT, "%s: NUL byte in a string", name);
            return NULL;
        }
        n->quoted = 1;
        return n;
    default: {
        char *text = json_dumps(j, JSON_ENCODE_ANY);
        n = node_new(SP_NODE_SCALAR, 0, 0);
        if (n == NULL || text == NULL) {
            free(text);
            goto nomem;
        }
        n->value = text;
        n->json_literal = 1;
        return n;
    }
    }
nomem:
    sp_node_free(n);
    sp_fail(e, SP_EXIT_INPUT, "%s: out of memory", name);
    return NULL;
}

static struct sp_node *parse_json(const char *buf, size_t len, const char *name,
                                  struct sp_error *e)
{
    json_error_t je;
    json_t *j = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
    if (j == NULL) {
        sp_fail(e, SP_EXIT_INPUT, "%s:%d:%d: %s", name, je.line, je.column, je.text);
        return NULL;
    }
    struct sp_node *n = from_json(j, 0, name, e);
    json_decref(j);
    return n;
}

struct sp_node *sp_node_parse(const char *buf, size_t len, const char *name,
                              struct sp_error *e)
{
    size_t i = 0;
    while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r'))
        i++;
    if (i < len && (buf[i] == '{' || buf[i] == '['))
        return parse_json(buf, len, name, e);
    return parse_yaml(buf, len, name, e);
}

struct sp_node *sp_node_parse_yaml(const char *buf, size_t len, const char *name,
                                   struct sp_error *e)
{
    return parse_yaml(buf, len, name, e);
}

/* ---- the strict reader's toolkit ------------------------------------ */

static int fail_at(struct sp_error *e, const char *name, size_t line, size_t col,
                   const char *fmt, va_list ap)
{
    char what[SP_ERROR_MSG_MAX];
    vsnprintf(what, sizeof what, fmt, ap);
    if (line == 0)              /* JSON nodes carry no position */
        return sp_fail(e, SP_EXIT_INPUT, "%s: %s", name, what);
    return sp_fail(e, SP_EXIT_INPUT, "%s:%zu:%zu: %s", name, line, col, what);
}

int sp_node_fail(struct sp_error *e, const char *name, const struct sp_node *n,
                 const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fail_at(e, name, n ? n->line : 0, n ? n->column : 0, fmt, ap);
    va_end(ap);
    return -1;
}

int sp_node_fail_key(struct sp_error *e, const char *name, const struct sp_node *map,
                     size_t i, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fail_at(e, name, map->key_lines[i], map->key_columns[i], fmt, ap);
    va_end(ap);
    return -1;
}

int sp_node_known_keys(const struct sp_node *map, const char *const *known,
                       const char *what, const char *name, struct sp_error *e)
{
    for (size_t i = 0; i < map->count; i++) {
        size_t k = 0;
        while (known[k] && strcmp(known[k], map->keys[i]) != 0)
            k++;
        if (known[k])
            continue;
        struct sp_strbuf list;
        sp_strbuf_init(&list, 1024);     /* the known keys: a short fixed set */
        for (k = 0; known[k]; k++)
            sp_strbuf_item(&list, ", ", known[k]);
        sp_node_fail_key(e, name, map, i, "unknown key '%s' in %s (expected %s)",
                         map->keys[i], what, sp_strbuf_str(&list));
        sp_strbuf_free(&list);
        return -1;
    }
    return 0;
}

int sp_node_scalar(const struct sp_node *n, const char *what, const char *name,
                   struct sp_error *e)
{
    if (n->kind == SP_NODE_SCALAR && !n->json_literal)
        return 0;
    const char *kind = n->kind == SP_NODE_MAP ? "a mapping" : n->kind == SP_NODE_SEQ ? "a list"
                     : strcmp(n->value, "true") == 0 ? "true"
                     : strcmp(n->value, "false") == 0 ? "false"
                     : strcmp(n->value, "null") == 0 ? "null" : "a number";
    return sp_node_fail(e, name, n, "%s must be a text, not %s", what, kind);
}

int sp_node_text(const struct sp_node *map, const char *key, unsigned flags,
                 const char **out, const char *name, struct sp_error *e)
{
    const struct sp_node *n = sp_node_get(map, key, NULL);
    *out = NULL;
    if (n == NULL && (flags & SP_NODE_OPTIONAL))
        return 0;
    if (n == NULL)
        return sp_node_fail(e, name, map, "missing key '%s'", key);
    if (sp_node_scalar(n, key, name, e) != 0)
        return -1;
    if ((flags & SP_NODE_NONEMPTY) && n->value[0] == '\0')
        return sp_node_fail(e, name, n, "%s must not be empty", key);
    *out = n->value;
    return 0;
}
