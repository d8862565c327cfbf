/* checks/report_json.c: the machine-readable report (jansson): an object
 * with the manifest, "results" (one per requirement: policy, rule, key,
 * found, supported, verdict, severity, message, detail), "summary", and
 * "neuron_sdk" (the release inference and its table, or null).
 * Keys in that order; absent values are null. */
#include "checks/report.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static json_t *text_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

/* A comma-separated list as an array. */
static json_t *list_array(const char *s)
{
    json_t *a = json_array();
    while (a && s && *s) {
        size_t n = strcspn(s, ",");
        json_array_append_new(a, json_stringn(s, n));
        s += n + (s[n] == ',');
    }
    return a;
}

/* The Neuron release inference, or null without a catalog or a Neuron
 * component: release, candidates, nearest, odd, and the table's rows. */
static json_t *neuron_sdk(const struct factset *facts)
{
    const char *release = facts ? factset_get(facts, "neuron.sdk.release") : NULL;
    if (release == NULL)
        return json_null();
    json_t *o = json_object(), *comps = json_array();
    if (o == NULL || comps == NULL) {
        json_decref(o);
        json_decref(comps);
        return NULL;
    }
    json_object_set_new(o, "release", json_string(release));
    json_object_set_new(o, "candidates", list_array(factset_get(facts, "neuron.sdk.candidates")));
    json_object_set_new(o, "nearest", text_or_null(factset_get(facts, "neuron.sdk.nearest")));
    json_object_set_new(o, "odd", list_array(factset_get(facts, "neuron.sdk.odd")));
    size_t n;
    struct sp_release_row *rows = sp_release_rows(facts, &n);
    if (rows == NULL && n != 0) {
        json_decref(o);
        json_decref(comps);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        json_t *c = json_object();
        if (c == NULL || json_array_append_new(comps, c) != 0)
            break;
        json_object_set_new(c, "key", json_string(rows[i].key));
        json_object_set_new(c, "version", text_or_null(rows[i].version));
        json_object_set_new(c, "releases", strcmp(rows[i].releases, "none") == 0
                                                ? json_array() : list_array(rows[i].releases));
        json_object_set_new(c, "odd", json_boolean(rows[i].odd));
        json_object_set_new(c, "driver", json_boolean(rows[i].driver));
    }
    free(rows);
    json_object_set_new(o, "components", comps);
    return o;
}

int sp_report_json(const struct sp_report *r, const struct sp_report_meta *m, FILE *fp)
{
    struct sp_strbuf supported;
    sp_strbuf_init(&supported, SP_REPORT_TEXT_MAX);
    json_t *results = json_array();
    json_t *summary = json_object();
    json_t *doc = json_object();
    int rc = -1;
    if (results == NULL || summary == NULL || doc == NULL)
        goto out;
    for (size_t i = 0; i < r->count; i++) {
        const struct sp_result *res = &r->results[i];
        json_t *o = json_object();
        if (o == NULL || json_array_append_new(results, o) != 0)
            goto out;
        json_object_set_new(o, "policy", json_string(res->policy->name));
        json_object_set_new(o, "rule", json_string(sp_result_rule(res)));
        json_object_set_new(o, "key", json_string(res->requirement->key));
        json_object_set_new(o, "found", text_or_null(res->found));
        json_object_set_new(o, "supported", json_string(sp_result_supported(res, &supported)));
        json_object_set_new(o, "verdict", json_string(sp_verdict_name(res->verdict)));
        json_object_set_new(o, "severity", json_string(sp_severity_name(res->severity)));
        json_object_set_new(o, "message", text_or_null(res->rule ? res->rule->message : NULL));
        json_object_set_new(o, "detail", text_or_null(res->detail));
        json_object_set_new(o, "fails", json_boolean(res->fails));
    }
    json_object_set_new(summary, "policies", json_integer((json_int_t)r->policies));
    json_object_set_new(summary, "requirements", json_integer((json_int_t)r->count));
    static const char *const keys[SP_VERDICTS] = { "ok", "violated", "missing", "invalid", "not_applicable",
                                                    "incomplete" };
    for (int v = 0; v < SP_VERDICTS; v++)
        json_object_set_new(summary, keys[v], json_integer((json_int_t)r->verdicts[v]));
    json_object_set_new(summary, "errors", json_integer((json_int_t)r->errors));
    json_object_set_new(summary, "warnings", json_integer((json_int_t)r->warnings));
    json_object_set_new(summary, "strict", json_boolean(r->strict));
    json_object_set_new(summary, "passed", json_boolean(r->passed));

    json_object_set_new(doc, "manifest", json_string(m->manifest));
    json_object_set_new(doc, "subject", text_or_null(m->subject));
    json_object_set_new(doc, "stack_id", text_or_null(m->stack_id));
    if (m->host_manifest)
        json_object_set_new(doc, "host", json_pack("{s:s, s:o, s:o}", "manifest", m->host_manifest,
                                                   "subject", text_or_null(m->host_subject),
                                                   "stack_id", text_or_null(m->host_stack_id)));
    json_object_set(doc, "results", results);
    json_object_set(doc, "summary", summary);
    json_t *sdk = neuron_sdk(m->facts);
    if (sdk == NULL || json_object_set_new(doc, "neuron_sdk", sdk) != 0)
        goto out;
    rc = json_dumpf(doc, fp, JSON_INDENT(2) | JSON_PRESERVE_ORDER) == 0 && fputc('\n', fp) != EOF ? 0 : -1;
out:
    sp_strbuf_free(&supported);
    json_decref(results);
    json_decref(summary);
    json_decref(doc);
    return rc;
}
