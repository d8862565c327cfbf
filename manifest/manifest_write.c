/* manifest/manifest_write.c: render a manifest as canonical YAML (libyaml
 * emitter) or JSON (jansson).  Must not read the machine or the clock. */
#include "manifest/manifest.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <yaml.h>

void manifest_init(struct manifest *m)
{
    memset(m, 0, sizeof *m);
    factset_init(&m->facts);
}

void manifest_free(struct manifest *m)
{
    free(m->tool);
    free(m->created);
    free(m->subject);
    factset_free(&m->facts);
    memset(m, 0, sizeof *m);
}

int manifest_finish(struct manifest *m)
{
    return factset_stack_id(&m->facts, m->stack_id);
}

/* ---- YAML ---------------------------------------------------------- */

struct membuf {
    char *data;
    size_t len, cap;
    int failed;
};

static int membuf_put(struct membuf *b, const void *p, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t ncap = b->cap ? b->cap : 4096;
        while (b->len + n + 1 > ncap)
            ncap *= 2;
        char *nd = realloc(b->data, ncap);
        if (nd == NULL) {
            b->failed = 1;
            return -1;
        }
        b->data = nd;
        b->cap = ncap;
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
    return 0;
}

static int yaml_out(void *data, unsigned char *buffer, size_t size)
{
    return membuf_put(data, buffer, size) == 0;
}

static int emit(yaml_emitter_t *em, yaml_event_t *ev, int ok)
{
    return ok && yaml_emitter_emit(em, ev);
}

static int scalar(yaml_emitter_t *em, const char *s, yaml_scalar_style_t style)
{
    yaml_event_t ev;
    int ok = yaml_scalar_event_initialize(&ev, NULL, NULL,
                                          (yaml_char_t *)s, (int)strlen(s),
                                          1, 1, style);
    return emit(em, &ev, ok);
}

static int key_value(yaml_emitter_t *em, const char *k, const char *v)
{
    return scalar(em, k, YAML_PLAIN_SCALAR_STYLE) &&
           scalar(em, v, YAML_DOUBLE_QUOTED_SCALAR_STYLE);
}

static int mapping_start(yaml_emitter_t *em, int flow)
{
    yaml_event_t ev;
    int ok = yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
                 flow ? YAML_FLOW_MAPPING_STYLE : YAML_BLOCK_MAPPING_STYLE);
    return emit(em, &ev, ok);
}

static int mapping_end(yaml_emitter_t *em)
{
    yaml_event_t ev;
    return emit(em, &ev, yaml_mapping_end_event_initialize(&ev));
}

static int render_yaml(const struct manifest *m, struct membuf *b)
{
    yaml_emitter_t em;
    yaml_event_t ev;
    const struct factset *fs = &m->facts;
    size_t nevidence = 0;
    char more[64];

    if (!yaml_emitter_initialize(&em))
        return -1;
    yaml_emitter_set_output(&em, yaml_out, b);
    yaml_emitter_set_unicode(&em, 1);
    yaml_emitter_set_width(&em, -1);
    yaml_emitter_set_indent(&em, 2);

    int ok = emit(&em, &ev, yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING));
    ok = emit(&em, &ev, ok && yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1));
    ok = ok && mapping_start(&em, 0);
    ok = ok && key_value(&em, "schema", SP_MANIFEST_SCHEMA);
    ok = ok && key_value(&em, "tool", m->tool ? m->tool : "");
    ok = ok && key_value(&em, "created", m->created ? m->created : "");
    ok = ok && key_value(&em, "subject", m->subject ? m->subject : "");
    ok = ok && key_value(&em, "stack_id", m->stack_id);

    ok = ok && scalar(&em, "facts", YAML_PLAIN_SCALAR_STYLE);
    ok = ok && mapping_start(&em, fs->count == 0);
    for (size_t i = 0; ok && i < fs->count; i++) {
        ok = key_value(&em, fs->facts[i].key, fs->facts[i].value);
        nevidence += fs->facts[i].evidence != NULL;
    }
    ok = ok && mapping_end(&em);

    ok = ok && scalar(&em, "evidence", YAML_PLAIN_SCALAR_STYLE);
    ok = ok && mapping_start(&em, nevidence == 0);
    for (size_t i = 0; ok && i < fs->count; i++)
        if (fs->facts[i].evidence)
            ok = key_value(&em, fs->facts[i].key, fs->facts[i].evidence);
    ok = ok && mapping_end(&em);

    ok = ok && scalar(&em, "warnings", YAML_PLAIN_SCALAR_STYLE);
    size_t nw = fs->nwarnings + (fs->dropped_warnings > 0);
    ok = emit(&em, &ev, ok && yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
                  nw == 0 ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE));
    for (size_t i = 0; ok && i < fs->nwarnings; i++)
        ok = scalar(&em, fs->warnings[i], YAML_DOUBLE_QUOTED_SCALAR_STYLE);
    if (ok && fs->dropped_warnings) {
        snprintf(more, sizeof more, "%zu more warnings not kept", fs->dropped_warnings);
        ok = scalar(&em, more, YAML_DOUBLE_QUOTED_SCALAR_STYLE);
    }
    ok = emit(&em, &ev, ok && yaml_sequence_end_event_initialize(&ev));

    ok = ok && mapping_end(&em);
    ok = emit(&em, &ev, ok && yaml_document_end_event_initialize(&ev, 1));
    ok = emit(&em, &ev, ok && yaml_stream_end_event_initialize(&ev));
    ok = ok && yaml_emitter_flush(&em);
    yaml_emitter_delete(&em);
    return ok && !b->failed ? 0 : -1;
}

/* ---- JSON ---------------------------------------------------------- */

static int jset(json_t *obj, const char *k, const char *v)
{
    return json_object_set_new(obj, k, json_string(v ? v : ""));
}

static int render_json(const struct manifest *m, struct membuf *b)
{
    const struct factset *fs = &m->facts;
    json_t *root = json_object(), *facts = json_object(),
           *evidence = json_object(), *warnings = json_array();
    int bad = root == NULL || facts == NULL || evidence == NULL || warnings == NULL;
    bad = bad || jset(root, "schema", SP_MANIFEST_SCHEMA);
    bad = bad || jset(root, "tool", m->tool);
    bad = bad || jset(root, "created", m->created);
    bad = bad || jset(root, "subject", m->subject);
    bad = bad || jset(root, "stack_id", m->stack_id);
    for (size_t i = 0; !bad && i < fs->count; i++) {
        bad = jset(facts, fs->facts[i].key, fs->facts[i].value);
        if (!bad && fs->facts[i].evidence)
            bad = jset(evidence, fs->facts[i].key, fs->facts[i].evidence);
    }
    for (size_t i = 0; !bad && i < fs->nwarnings; i++)
        bad = json_array_append_new(warnings, json_string(fs->warnings[i]));
    if (!bad && fs->dropped_warnings) {
        char more[64];
        snprintf(more, sizeof more, "%zu more warnings not kept", fs->dropped_warnings);
        bad = json_array_append_new(warnings, json_string(more));
    }
    if (!bad) {
        bad = json_object_set(root, "facts", facts) ||
              json_object_set(root, "evidence", evidence) ||
              json_object_set(root, "warnings", warnings);
    }
    char *s = bad ? NULL : json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(facts);
    json_decref(evidence);
    json_decref(warnings);
    json_decref(root);
    if (s == NULL)
        return -1;
    int r = membuf_put(b, s, strlen(s));
    r = r || membuf_put(b, "\n", 1);
    free(s);
    return r ? -1 : 0;
}

int manifest_render(const struct manifest *m, enum manifest_format format,
                    char **out, size_t *len, struct sp_error *e)
{
    struct membuf b = { 0 };
    int r = format == MANIFEST_JSON ? render_json(m, &b) : render_yaml(m, &b);
    if (r != 0) {
        free(b.data);
        return sp_fail(e, SP_EXIT_INPUT, "manifest: cannot render %s: %s",
                       format == MANIFEST_JSON ? "json" : "yaml",
                       b.failed ? strerror(ENOMEM) : "emitter failed");
    }
    *out = b.data;
    *len = b.len;
    return 0;
}
