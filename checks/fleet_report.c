/* checks/fleet_report.c: the fleet report in text, JSON (jansson) or JUnit
 * XML (the shape of tests/schemas/junit.xsd); see fleet.h.  Wording of a
 * check's results is checks/report.c's; every text passes through
 * sp_put_escaped so no terminal escape or byte XML forbids gets out. */
#include "common/strbuf.h"
#include "checks/fleet.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "checks/report.h"

static const char *const format_names[] = { "text", "json", "junit" };

int sp_fleet_format_by_name(const char *name, enum sp_fleet_format *out)
{
    for (size_t i = 0; i < sizeof format_names / sizeof *format_names; i++)
        if (strcmp(name, format_names[i]) == 0) {
            *out = (enum sp_fleet_format)i;
            return 0;
        }
    return -1;
}

static const char *plural(size_t n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

static int stack_failed(const struct sp_fleet_stack *s)
{
    return s->checked && !s->report.passed;
}

/* ---- text ------------------------------------------------------------- */

static void put(FILE *fp, const char *s)
{
    sp_put_escaped(fp, s, NULL);
}

/* The requirements S's check failed, one a line after INDENT; every text
 * through sp_put_escaped with SPECIAL (NULL for text, sp_xml_entity). */
static void put_failures(FILE *fp, const struct sp_fleet_stack *s, const char *indent,
                         const char *(*special)(unsigned char c))
{
    struct sp_strbuf explain;
    sp_strbuf_init(&explain, SP_REPORT_TEXT_MAX);
    for (size_t i = 0; i < s->report.count; i++) {
        const struct sp_result *res = &s->report.results[i];
        if (!res->fails)
            continue;
        fprintf(fp, "%s%s ", indent, sp_severity_name(res->severity));
        sp_put_escaped(fp, res->policy->name, special);
        fputc('/', fp);
        sp_put_escaped(fp, sp_result_rule(res), special);
        fputs(": ", fp);
        sp_put_escaped(fp, res->requirement->key, special);
        fputs(": ", fp);
        sp_put_escaped(fp, sp_result_explain(res, &explain), special);
        fputc('\n', fp);
    }
    sp_strbuf_free(&explain);
}

/* One difference, "KEY: MAJORITY -> VALUE (CHANGE)", as put_failures. */
static void put_difference(FILE *fp, const struct sp_difference *d, const char *indent,
                           const char *(*special)(unsigned char c))
{
    fputs(indent, fp);
    sp_put_escaped(fp, d->key, special);
    fputs(": ", fp);
    sp_put_escaped(fp, d->old_value ? d->old_value : "(absent)", special);
    sp_put_escaped(fp, " -> ", special);
    sp_put_escaped(fp, d->new_value ? d->new_value : "(absent)", special);
    fprintf(fp, " (%s)\n", sp_change_name(d->change));
}

static int render_text(const struct sp_fleet *f, FILE *fp)
{
    char summary[1024];
    size_t failed_stacks = 0, failed_nodes = 0;
    fprintf(fp, "fleet: %zu %s, %zu %s", f->nnodes, plural(f->nnodes, "node", "nodes"),
            f->nstacks, plural(f->nstacks, "stack", "stacks"));
    if (f->nstacks)
        fprintf(fp, "; majority %s (%zu of %zu nodes)%s", f->stacks[f->majority].stack_id,
                f->stacks[f->majority].count, f->nnodes,
                f->tie ? ", a tie: the stack read first is taken" : "");
    fputc('\n', fp);
    for (size_t i = 0; i < f->nstacks; i++) {
        const struct sp_fleet_stack *s = &f->stacks[i];
        fprintf(fp, "stack %s: %zu %s%s", s->stack_id, s->count, plural(s->count, "node", "nodes"),
                i == f->majority ? ", majority" : "");
        if (s->checked) {
            sp_report_summary(&s->report, summary, sizeof summary);
            fprintf(fp, "; %s\n", summary);
            put_failures(fp, s, "  ", NULL);
            failed_stacks += stack_failed(s);
            failed_nodes += stack_failed(s) ? s->count : 0;
        } else {
            fputc('\n', fp);
        }
    }
    for (size_t i = 0; i < f->nstacks; i++) {
        const struct sp_fleet_stack *s = &f->stacks[i];
        if (i == f->majority)
            continue;
        fprintf(fp, "odd %s ", plural(s->count, "node", "nodes"));
        for (size_t k = 0; k < s->count; k++) {
            if (k)
                fputs(", ", fp);
            put(fp, f->nodes[s->nodes[k]].name);
        }
        fprintf(fp, " (stack %s): %zu %s from the majority\n", s->stack_id, s->diff.count,
                plural(s->diff.count, "difference", "differences"));
        for (size_t k = 0; k < s->diff.count; k++)
            put_difference(fp, &s->diff.items[k], "  ", NULL);
    }
    for (size_t i = 0; i < f->nproblems; i++) {
        const struct sp_fleet_problem *p = &f->problems[i];
        fputs(p->exit_code == SP_EXIT_VERIFY ? "not verified: " : "not read: ", fp);
        if (p->node) {
            put(fp, p->node);
            fputs(": ", fp);
        }
        put(fp, p->msg);
        fputc('\n', fp);
    }
    fputs("result: ", fp);
    const char *sep = "";
    if (f->nstacks == 1 && failed_stacks == 0 && f->nproblems == 0) {
        fprintf(fp, "one stack on %s %zu %s\n", f->nnodes == 1 ? "its" : "all", f->nnodes,
                plural(f->nnodes, "node", "nodes"));
        return ferror(fp) ? -1 : 0;
    }
    if (f->nstacks > 1) {
        fprintf(fp, "drift: %zu of %zu nodes outside the majority stack", f->odd_nodes, f->nnodes);
        sep = "; ";
    }
    if (failed_stacks) {
        fprintf(fp, "%scheck failed for %zu %s (%zu %s)", sep, failed_stacks,
                plural(failed_stacks, "stack", "stacks"), failed_nodes,
                plural(failed_nodes, "node", "nodes"));
        sep = "; ";
    }
    if (f->nproblems) {
        fprintf(fp, "%s%zu %s not grouped", sep, f->nproblems, plural(f->nproblems, "file", "files"));
        sep = "; ";
    }
    if (f->nnodes == 0)
        fprintf(fp, "%sno node", sep);
    fputc('\n', fp);
    return ferror(fp) ? -1 : 0;
}

/* ---- json ------------------------------------------------------------- */

static json_t *text_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

static json_t *json_check(const struct sp_fleet_stack *s)
{
    char buf[2048];
    if (!s->checked)
        return json_null();
    json_t *o = json_object(), *fails = json_array();
    if (o == NULL || fails == NULL) {
        json_decref(o);
        json_decref(fails);
        return NULL;
    }
    json_object_set_new(o, "passed", json_boolean(s->report.passed));
    json_object_set_new(o, "summary", json_string(sp_report_summary(&s->report, buf, sizeof buf)));
    for (size_t i = 0; i < s->report.count; i++) {
        const struct sp_result *res = &s->report.results[i];
        json_t *r = res->fails ? json_object() : NULL;
        if (r == NULL || json_array_append_new(fails, r) != 0)
            continue;
        json_object_set_new(r, "policy", json_string(res->policy->name));
        json_object_set_new(r, "rule", json_string(sp_result_rule(res)));
        json_object_set_new(r, "key", json_string(res->requirement->key));
        json_object_set_new(r, "found", text_or_null(res->found));
        json_object_set_new(r, "verdict", json_string(sp_verdict_name(res->verdict)));
        json_object_set_new(r, "severity", json_string(sp_severity_name(res->severity)));
        struct sp_strbuf explain;
        sp_strbuf_init(&explain, SP_REPORT_TEXT_MAX);
        json_object_set_new(r, "explain", json_string(sp_result_explain(res, &explain)));
        sp_strbuf_free(&explain);
    }
    json_object_set_new(o, "failures", fails);
    return o;
}

static json_t *json_differences(const struct sp_diff *d)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < d->count; i++) {
        json_t *o = json_object();
        if (o == NULL || json_array_append_new(a, o) != 0) {
            json_decref(a);
            return NULL;
        }
        json_object_set_new(o, "key", json_string(d->items[i].key));
        json_object_set_new(o, "majority", text_or_null(d->items[i].old_value));
        json_object_set_new(o, "value", text_or_null(d->items[i].new_value));
        json_object_set_new(o, "change", json_string(sp_change_name(d->items[i].change)));
    }
    return a;
}

static int render_json(const struct sp_fleet *f, FILE *fp)
{
    json_t *doc = json_object(), *stacks = json_array(), *odd = json_array(),
           *problems = json_array();
    int rc = -1;
    if (doc == NULL || stacks == NULL || odd == NULL || problems == NULL)
        goto out;
    for (size_t i = 0; i < f->nstacks; i++) {
        const struct sp_fleet_stack *s = &f->stacks[i];
        json_t *o = json_object(), *names = json_array(), *check = json_check(s);
        if (o == NULL || names == NULL || check == NULL || json_array_append_new(stacks, o) != 0) {
            json_decref(names);
            json_decref(check);
            goto out;
        }
        for (size_t k = 0; k < s->count; k++)
            if (json_array_append_new(names, json_string(f->nodes[s->nodes[k]].name)) != 0) {
                json_decref(names);
                json_decref(check);
                goto out;
            }
        json_object_set_new(o, "stack_id", json_string(s->stack_id));
        json_object_set_new(o, "nodes", names);
        json_object_set_new(o, "majority", json_boolean(i == f->majority));
        json_object_set_new(o, "check", check);
    }
    /* odd nodes in the order they were read */
    for (size_t i = 0; i < f->nnodes; i++) {
        const struct sp_fleet_node *n = &f->nodes[i];
        if (n->stack == f->majority)
            continue;
        json_t *o = json_object(), *diffs = json_differences(&f->stacks[n->stack].diff);
        if (o == NULL || diffs == NULL || json_array_append_new(odd, o) != 0) {
            json_decref(diffs);
            goto out;
        }
        json_object_set_new(o, "node", json_string(n->name));
        json_object_set_new(o, "stack_id", json_string(f->stacks[n->stack].stack_id));
        json_object_set_new(o, "differences", diffs);
    }
    for (size_t i = 0; i < f->nproblems; i++) {
        const struct sp_fleet_problem *p = &f->problems[i];
        json_t *o = json_object();
        if (o == NULL || json_array_append_new(problems, o) != 0)
            goto out;
        json_object_set_new(o, "file", json_string(p->file));
        json_object_set_new(o, "node", text_or_null(p->node));
        json_object_set_new(o, "exit", json_integer(p->exit_code));
        json_object_set_new(o, "error", json_string(p->msg));
    }
    json_object_set_new(doc, "nodes", json_integer((json_int_t)f->nnodes));
    json_object_set(doc, "stacks", stacks);
    json_object_set(doc, "odd", odd);
    json_object_set_new(doc, "tie", json_boolean(f->tie));
    json_object_set(doc, "problems", problems);
    rc = json_dumpf(doc, fp, JSON_INDENT(2) | JSON_PRESERVE_ORDER) == 0 && fputc('\n', fp) != EOF
             ? 0 : -1;
out:
    json_decref(stacks);
    json_decref(odd);
    json_decref(problems);
    json_decref(doc);
    return rc;
}

/* ---- junit ------------------------------------------------------------ */

static void xml(FILE *fp, const char *s)
{
    sp_put_escaped(fp, s, sp_xml_entity);
}

static void junit_node(const struct sp_fleet *f, const struct sp_fleet_node *n, FILE *fp)
{
    const struct sp_fleet_stack *s = &f->stacks[n->stack];
    int odd = n->stack != f->majority, failed = stack_failed(s);
    fputs("    <testcase classname=\"stackprint.fleet\" name=\"", fp);
    xml(fp, n->name);
    if (!odd && !failed) {
        fputs("\"/>\n", fp);
        return;
    }
    fprintf(fp, "\">\n      <failure type=\"%s\" message=\"", odd ? "drift" : "check");
    if (odd)
        fprintf(fp, "outside the majority stack: %zu %s", s->diff.count,
                plural(s->diff.count, "difference", "differences"));
    if (failed)
        fprintf(fp, "%scheck failed: %zu %s", odd ? "; " : "", s->report.errors,
                plural(s->report.errors, "error", "errors"));
    fputs("\">", fp);
    xml(fp, s->stack_id);
    fputc('\n', fp);
    for (size_t k = 0; odd && k < s->diff.count; k++)
        put_difference(fp, &s->diff.items[k], "", sp_xml_entity);
    if (failed)
        put_failures(fp, s, "", sp_xml_entity);
    fputs("</failure>\n    </testcase>\n", fp);
}

static int render_junit(const struct sp_fleet *f, FILE *fp)
{
    size_t failures = 0, errors = 0;
    for (size_t i = 0; i < f->nnodes; i++) {
        const struct sp_fleet_stack *s = &f->stacks[f->nodes[i].stack];
        failures += f->nodes[i].stack != f->majority || stack_failed(s);
    }
    for (size_t i = 0; i < f->nproblems; i++) {
        failures += f->problems[i].exit_code == SP_EXIT_VERIFY;
        errors += f->problems[i].exit_code != SP_EXIT_VERIFY;
    }
    size_t tests = f->nnodes + f->nproblems;
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", fp);
    fprintf(fp, "<testsuites name=\"stackprint fleet\" tests=\"%zu\" failures=\"%zu\" "
                "errors=\"%zu\">\n", tests, failures, errors);
    fprintf(fp, "  <testsuite name=\"fleet\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\">\n",
            tests, failures, errors);
    if (f->nstacks) {
        fputs("    <properties>\n      <property name=\"majority-stack\" value=\"", fp);
        xml(fp, f->stacks[f->majority].stack_id);
        fprintf(fp, "\"/>\n      <property name=\"stacks\" value=\"%zu\"/>\n    </properties>\n",
                f->nstacks);
    }
    for (size_t i = 0; i < f->nnodes; i++)
        junit_node(f, &f->nodes[i], fp);
    for (size_t i = 0; i < f->nproblems; i++) {
        const struct sp_fleet_problem *p = &f->problems[i];
        int verify = p->exit_code == SP_EXIT_VERIFY;
        fputs("    <testcase classname=\"stackprint.fleet\" name=\"", fp);
        xml(fp, p->node ? p->node : p->file);
        fprintf(fp, "\">\n      <%s type=\"%s\" message=\"", verify ? "failure" : "error",
                verify ? "signature" : "unreadable");
        xml(fp, p->msg);
        fputs("\">", fp);
        xml(fp, p->file);
        fprintf(fp, "</%s>\n    </testcase>\n", verify ? "failure" : "error");
    }
    fputs("  </testsuite>\n</testsuites>\n", fp);
    return ferror(fp) ? -1 : 0;
}

struct fleet_job {
    const struct sp_fleet *f;
    enum sp_fleet_format format;
};

static int write_fleet(FILE *fp, const void *arg)
{
    const struct fleet_job *j = arg;
    return j->format == SP_FLEET_JSON ? render_json(j->f, fp)
         : j->format == SP_FLEET_JUNIT ? render_junit(j->f, fp) : render_text(j->f, fp);
}

int sp_fleet_render(const struct sp_fleet *f, enum sp_fleet_format format, char **out,
                    size_t *len, struct sp_error *e)
{
    const struct fleet_job j = { f, format };
    return sp_render_buffer(write_fleet, &j, "fleet: out of memory",
                            "fleet: cannot render the report (out of memory)", out, len, e);
}
