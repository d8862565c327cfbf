/* checks/report_sarif.c: SARIF 2.1.0 (OASIS "Static Analysis Results
 * Interchange Format", the sarif-schema-2.1.0.json shape code scanning
 * reads), built with jansson: one run; one reporting descriptor per policy
 * rule, id "<policy>/<rule>" (stable: names come from the policy files);
 * one result per bad verdict, located at the manifest (artifactLocation)
 * and the fact key (logicalLocations).  Passing results are not findings
 * and are left out. */
#include "checks/report.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

/* A URI for PATH (RFC 3986; RFC 8089 for an absolute path: file:///...):
 * bytes outside the unreserved set and "/" are percent-encoded.  Caller
 * frees; NULL on ENOMEM. */
static char *path_uri(const char *path)
{
    static const char keep[] = "-._~/";
    char *u = malloc(3 * strlen(path) + 8), *o = u;
    if (u == NULL)
        return NULL;
    if (path[0] == '/')
        o += sprintf(o, "file://");
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if (sp_ascii_alnum((char)*p) || strchr(keep, *p))
            *o++ = (char)*p;
        else
            o += sprintf(o, "%%%02X", *p);
    }
    *o = '\0';
    return u;
}

static const char *level(const struct sp_result *res)
{
    return res->severity == SP_SEVERITY_ERROR ? "error" : "warning";
}

static void rule_id(const struct sp_result *res, char *buf, size_t n)
{
    snprintf(buf, n, "%s/%s", res->policy->name, sp_result_rule(res));
}

static json_t *descriptor(const struct sp_result *res, const char *id)
{
    const struct sp_policy *p = res->policy;
    const char *shortd = res->rule && res->rule->message ? res->rule->message : id;
    json_t *props = json_pack("{s:s, s:s}", "policy", p->name, "policy-file", p->file);
    if (props && p->source)
        json_object_set_new(props, "source", json_string(p->source));
    json_t *d = json_pack("{s:s, s:{s:s}, s:{s:s}, s:o*}", "id", id, "shortDescription", "text",
                          shortd, "defaultConfiguration", "level", level(res), "properties", props);
    if (d && p->description)
        json_object_set_new(d, "fullDescription", json_pack("{s:s}", "text", p->description));
    return d;
}

int sp_report_sarif(const struct sp_report *r, const struct sp_report_meta *m, FILE *fp)
{
    char id[2 * SP_POLICY_NAME_MAX + 8], fingerprint[sizeof id + SP_FACT_KEY_MAX + 2];
    char *message = NULL;
    struct sp_strbuf explain, supported;
    sp_strbuf_init(&explain, SP_REPORT_TEXT_MAX);
    sp_strbuf_init(&supported, SP_REPORT_TEXT_MAX);
    json_t *rules = json_array(), *results = json_array(), *doc = NULL;
    size_t *index = calloc(r->count + 1, sizeof *index), nrules = 0;
    char *uri = strcmp(m->manifest, "-") == 0 ? NULL : path_uri(m->manifest);
    int rc = -1;
    if (rules == NULL || results == NULL || index == NULL)
        goto out;
    for (size_t i = 0; i < r->count; i++) {   /* descriptors: first result of each rule */
        const struct sp_result *res = &r->results[i];
        /* a rule's results are consecutive (evaluate.h: policy by policy,
         * rule by rule), so comparing with the previous one is enough */
        if (i > 0 && r->results[i - 1].policy == res->policy && r->results[i - 1].rule == res->rule) {
            index[i] = index[i - 1];
            continue;
        }
        rule_id(res, id, sizeof id);
        index[i] = nrules++;
        if (json_array_append_new(rules, descriptor(res, id)) != 0)
            goto out;
    }
    for (size_t i = 0; i < r->count; i++) {
        const struct sp_result *res = &r->results[i];
        if (!sp_result_bad(res))
            continue;
        rule_id(res, id, sizeof id);
        snprintf(fingerprint, sizeof fingerprint, "%s/%s", id, res->requirement->key);
        sp_result_explain(res, &explain);
        free(message);
        if (asprintf(&message, "%s: %s", res->requirement->key, sp_strbuf_str(&explain)) < 0) {
            message = NULL;
            goto out;
        }
        json_t *loc = json_pack("{s:[{s:s}]}", "logicalLocations", "name", res->requirement->key);
        if (loc && uri)
            json_object_set_new(loc, "physicalLocation",
                                json_pack("{s:{s:s}}", "artifactLocation", "uri", uri));
        json_t *o = json_pack(
            "{s:s, s:I, s:s, s:{s:s}, s:[o*], s:{s:s}, s:{s:s, s:s?, s:s, s:s}}", "ruleId", id,
            "ruleIndex", (json_int_t)index[i], "level", level(res), "message", "text", message,
            "locations", loc, "partialFingerprints", "stackprint/v1", fingerprint,
            "properties", "verdict", sp_verdict_name(res->verdict), "found", res->found,
            "supported", sp_result_supported(res, &supported), "key",
            res->requirement->key);
        if (o == NULL || json_array_append_new(results, o) != 0)
            goto out;
    }
    doc = json_pack("{s:s, s:s, s:[{s:{s:{s:s, s:s, s:O}}, s:O}]}",
                    "$schema", "https://json.schemastore.org/sarif-2.1.0.json", "version", "2.1.0",
                    "runs", "tool", "driver", "name", "stackprint", "version", SP_VERSION,
                    "rules", rules, "results", results);
    if (doc == NULL)
        goto out;
    rc = json_dumpf(doc, fp, JSON_INDENT(2) | JSON_PRESERVE_ORDER) == 0 && fputc('\n', fp) != EOF ? 0 : -1;
out:
    sp_strbuf_free(&supported);
    sp_strbuf_free(&explain);
    json_decref(doc);
    json_decref(rules);
    json_decref(results);
    free(index);
    free(uri);
    free(message);
    return rc;
}
