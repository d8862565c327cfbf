/* junit/testresult.c: the stack properties of stackprint attach and the
 * test-result statement of stackprint attest; see testresult.h. */
#include "junit/testresult.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "manifest/dsse.h"

const char *const junit_stack_facts[] = {
    "host.instance_type",
    "neuron.device.kind",
    "neuron.driver.version",
    "neuron.sdk.release",
    "pip.neuronx-cc",
    "pip.torch",
    "pip.torch-xla",
    "pip.torch-neuronx",
    "torch.backend",
    "python.version",
    "image.manifest_digest",
    "container.image_digest",
    NULL,
};

void junit_props_free(struct junit_props *p)
{
    for (size_t i = 0; i < p->n; i++) {
        free((char *)p->items[i].name);
        free((char *)p->items[i].value);
    }
    free(p->items);
    p->items = NULL;
    p->n = 0;
}

static int listed(const struct junit_props *p, const char *name)
{
    for (size_t i = 0; i < p->n; i++)
        if (strcmp(p->items[i].name, name) == 0)
            return 1;
    return 0;
}

/* Append PREFIX NAME = VALUE unless that name is there already. */
static int add(struct junit_props *p, size_t cap, const char *prefix, const char *name,
               const char *value)
{
    size_t len = strlen(prefix) + strlen(name) + 1;
    char *n = malloc(len), *v = strdup(value);
    if (n == NULL || v == NULL || p->n >= cap) {
        free(n);
        free(v);
        return -1;
    }
    snprintf(n, len, "%s%s", prefix, name);
    if (listed(p, n)) {
        free(n);
        free(v);
        return 0;
    }
    p->items[p->n].name = n;
    p->items[p->n].value = v;
    p->n++;
    return 0;
}

int junit_stack_props(const struct manifest *m, const char *man, size_t manlen,
                      const struct factset *facts, const char *const *extra, size_t nextra,
                      struct junit_props *p, const char **missing, struct sp_error *e)
{
    char hex[SP_SHA256_HEX_LEN + 1];
    size_t nstack = 0;
    while (junit_stack_facts[nstack])
        nstack++;
    size_t cap = 3 + nstack + nextra;
    p->n = 0;
    p->items = calloc(cap, sizeof *p->items);
    if (missing)
        *missing = NULL;
    if (p->items == NULL || sp_sha256_hex(man, manlen, hex) != 0)
        goto nomem;
    if (add(p, cap, "stackprint.", "stack_id", m->stack_id) != 0 ||
        add(p, cap, "stackprint.", "manifest.sha256", hex) != 0 ||
        add(p, cap, "stackprint.", "subject", m->subject ? m->subject : "") != 0)
        goto nomem;
    for (size_t i = 0; i < nstack + nextra; i++) {
        const char *key = i < nstack ? junit_stack_facts[i] : extra[i - nstack];
        const char *v = factset_get(facts, key);
        if (v == NULL) {
            if (i >= nstack && missing && *missing == NULL)
                *missing = key;
            continue;
        }
        if (add(p, cap, "stackprint.fact.", key, v) != 0)
            goto nomem;
    }
    return 0;
nomem:
    junit_props_free(p);
    return sp_fail(e, SP_EXIT_INPUT, "attach: out of memory");
}

/* {name, digest: {sha256}, mediaType} for the LEN bytes at BUF, or NULL. */
static json_t *descriptor(const char *name, const char *buf, size_t len, const char *media)
{
    char hex[SP_SHA256_HEX_LEN + 1];
    if (sp_sha256_hex(buf, len, hex) != 0)
        return NULL;
    json_t *d = sp_subject_json(name, hex);
    if (d == NULL || json_object_set_new(d, "mediaType", json_string(media)) != 0) {
        json_decref(d);
        return NULL;
    }
    return d;
}

static json_t *string_list(char *const *items, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++)
        if (json_array_append_new(a, json_string(items[i])) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

/* The manifest's media type: JSON when its first non-blank byte is '{'
 * (manifest_parse's rule), else YAML (RFC 9512). */
static const char *manifest_media_type(const char *buf, size_t len)
{
    size_t i = 0;
    while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r'))
        i++;
    return i < len && buf[i] == '{' ? "application/json" : "application/yaml";
}

int testresult_statement(const struct testresult_input *in, char **out, size_t *outlen,
                         struct sp_error *e)
{
    const struct junit_summary *s = in->summary;
    json_t *subjects = json_array(), *pred = json_object(), *config = json_array();
    json_t *rep = descriptor(in->report_name, in->report, in->report_len, "application/xml");
    json_t *man = descriptor(in->manifest_name, in->manifest, in->manifest_len,
                             manifest_media_type(in->manifest, in->manifest_len));
    json_t *env = in->envelope_name ? descriptor(in->envelope_name, in->envelope,
                                                 in->envelope_len, SP_DSSE_ENVELOPE_MEDIA_TYPE)
                                    : NULL;
    json_t *rep_ann = json_object(), *man_ann = json_object();
    int r = -1;

    if (subjects == NULL || pred == NULL || config == NULL || rep == NULL || man == NULL ||
        (in->envelope_name && env == NULL) || rep_ann == NULL || man_ann == NULL)
        goto out;
    if (json_object_set_new(rep_ann, "skippedTests", json_integer((json_int_t)s->nskipped)) != 0 ||
        json_object_set(rep, "annotations", rep_ann) != 0 ||
        json_array_append(subjects, rep) != 0 ||
        json_object_set_new(man_ann, "stackprint.stack_id", json_string(in->stack_id)) != 0 ||
        json_object_set(man, "annotations", man_ann) != 0 ||
        json_array_append(config, man) != 0 ||
        (env && json_array_append(config, env) != 0) ||
        json_object_set_new(pred, "result", json_string(s->nfailed ? "FAILED" : "PASSED")) != 0 ||
        json_object_set(pred, "configuration", config) != 0 ||
        (in->url && json_object_set_new(pred, "url", json_string(in->url)) != 0) ||
        json_object_set_new(pred, "passedTests", string_list(s->passed, s->npassed)) != 0 ||
        json_object_set_new(pred, "failedTests", string_list(s->failed, s->nfailed)) != 0 ||
        sp_statement_json(subjects, SP_TESTRESULT_PREDICATE_TYPE, pred, out, outlen) != 0)
        goto out;
    r = 0;
out:
    if (r != 0)
        sp_fail(e, SP_EXIT_INPUT, "%s: out of memory building the statement", in->report_name);
    json_decref(subjects);
    json_decref(pred);
    json_decref(config);
    json_decref(rep);
    json_decref(man);
    json_decref(env);
    json_decref(rep_ann);
    json_decref(man_ann);
    return r;
}

int testresult_has_configuration(const struct sp_node *stmt, const char *hex)
{
    const struct sp_node *pred = stmt ? sp_node_get(stmt, "predicate", NULL) : NULL;
    const struct sp_node *cfg = pred && pred->kind == SP_NODE_MAP
                                    ? sp_node_get(pred, "configuration", NULL) : NULL;
    if (cfg == NULL || cfg->kind != SP_NODE_SEQ)
        return 0;
    for (size_t i = 0; i < cfg->count; i++) {
        const struct sp_node *d = cfg->items[i];
        const struct sp_node *dg = d->kind == SP_NODE_MAP ? sp_node_get(d, "digest", NULL) : NULL;
        const struct sp_node *sha = dg && dg->kind == SP_NODE_MAP
                                        ? sp_node_get(dg, "sha256", NULL) : NULL;
        const struct sp_node *ann = d->kind == SP_NODE_MAP
                                        ? sp_node_get(d, "annotations", NULL) : NULL;
        const struct sp_node *sid = ann && ann->kind == SP_NODE_MAP
                                        ? sp_node_get(ann, "stackprint.stack_id", NULL) : NULL;
        if (sha && sha->kind == SP_NODE_SCALAR && sha->quoted && strcmp(sha->value, hex) == 0 &&
            sid != NULL)
            return 1;
    }
    return 0;
}
