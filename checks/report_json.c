/* checks/report_json.c: the machine-readable report (jansson): an object
 * with the manifest, "results" (one per requirement: policy, rule, key,
 * found, supported, verdict, severity, message, detail) and "summary".
 * Keys in that order; absent values are null. */
#include "report.h"

#include <jansson.h>

static json_t *text_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

int sp_report_json(const struct sp_report *r, const struct sp_report_meta *m, FILE *fp)
{
    char supported[1024];
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
        json_object_set_new(o, "supported", json_string(sp_result_supported(res, supported, sizeof supported)));
        json_object_set_new(o, "verdict", json_string(sp_verdict_name(res->verdict)));
        json_object_set_new(o, "severity", json_string(sp_severity_name(res->severity)));
        json_object_set_new(o, "message", text_or_null(res->rule ? res->rule->message : NULL));
        json_object_set_new(o, "detail", text_or_null(res->detail));
        json_object_set_new(o, "fails", json_boolean(res->fails));
    }
    json_object_set_new(summary, "policies", json_integer((json_int_t)r->policies));
    json_object_set_new(summary, "requirements", json_integer((json_int_t)r->count));
    static const char *const keys[SP_VERDICTS] = { "ok", "violated", "missing", "invalid", "not_applicable" };
    for (int v = 0; v < SP_VERDICTS; v++)
        json_object_set_new(summary, keys[v], json_integer((json_int_t)r->verdicts[v]));
    json_object_set_new(summary, "errors", json_integer((json_int_t)r->errors));
    json_object_set_new(summary, "warnings", json_integer((json_int_t)r->warnings));
    json_object_set_new(summary, "strict", json_boolean(r->strict));
    json_object_set_new(summary, "passed", json_boolean(r->passed));

    json_object_set_new(doc, "manifest", json_string(m->manifest));
    json_object_set_new(doc, "subject", text_or_null(m->subject));
    json_object_set_new(doc, "stack_id", text_or_null(m->stack_id));
    json_object_set(doc, "results", results);
    json_object_set(doc, "summary", summary);
    rc = json_dumpf(doc, fp, JSON_INDENT(2) | JSON_PRESERVE_ORDER) == 0 && fputc('\n', fp) != EOF ? 0 : -1;
out:
    json_decref(results);
    json_decref(summary);
    json_decref(doc);
    return rc;
}
