/* checks/report_junit.c: JUnit XML, the shape CI servers read (the Ant
 * junit task's report as Jenkins and GitLab take it; tests/schemas/junit.xsd
 * is the subset written here): <testsuites>, one <testsuite> per policy,
 * one <testcase> per requirement; a failing result is a <failure>, a
 * non-failing warning a <system-out> note, not applicable <skipped>.
 * Must escape every text (sp_put_escaped with the XML entities), so no
 * control character XML 1.0 forbids reaches the file. */
#include "checks/report.h"

#include <string.h>

static const char *xml_special(unsigned char c)
{
    switch (c) {
    case '&': return "&amp;";
    case '<': return "&lt;";
    case '>': return "&gt;";
    case '"': return "&quot;";
    case '\'': return "&apos;";
    }
    return NULL;
}

const char *sp_xml_entity(unsigned char c)
{
    return xml_special(c);
}

static void xml(FILE *fp, const char *s)
{
    sp_put_escaped(fp, s, xml_special);
}

struct counts {
    size_t tests, failures, skipped;
};

static struct counts count(const struct sp_result *res, size_t n)
{
    struct counts c = { n, 0, 0 };
    for (size_t i = 0; i < n; i++) {
        c.failures += res[i].fails;
        c.skipped += res[i].verdict == SP_VERDICT_NOT_APPLICABLE;
    }
    return c;
}

static void testcase(FILE *fp, const struct sp_result *res)
{
    struct sp_strbuf sb;
    const char *explain = NULL;
    sp_strbuf_init(&sb, SP_REPORT_TEXT_MAX);
    fputs("    <testcase classname=\"", fp);
    xml(fp, res->policy->name);
    fputs("\" name=\"", fp);
    xml(fp, sp_result_rule(res));
    fputs(": ", fp);
    xml(fp, res->requirement->key);
    fputs("\"", fp);
    if (res->verdict == SP_VERDICT_OK) {
        fputs("/>\n", fp);
        return;
    }
    fputs(">\n", fp);
    if (res->verdict == SP_VERDICT_NOT_APPLICABLE) {
        fputs("      <skipped message=\"not applicable\"/>\n", fp);
    } else {
        explain = sp_result_explain(res, &sb);
        if (res->fails) {
            fprintf(fp, "      <failure type=\"%s\" message=\"", sp_verdict_name(res->verdict));
            xml(fp, explain);
            fprintf(fp, "\">%s: ", sp_severity_name(res->severity));
            xml(fp, res->requirement->key);
            fputs(": ", fp);
            xml(fp, explain);
            fputs("</failure>\n", fp);
        } else {
            fprintf(fp, "      <system-out>warning: %s: ", sp_verdict_name(res->verdict));
            xml(fp, res->requirement->key);
            fputs(": ", fp);
            xml(fp, explain);
            fputs("</system-out>\n", fp);
        }
        sp_strbuf_free(&sb);
    }
    fputs("    </testcase>\n", fp);
}

int sp_report_junit(const struct sp_report *r, const struct sp_report_meta *m, FILE *fp)
{
    struct counts all = count(r->results, r->count);
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", fp);
    fprintf(fp, "<testsuites name=\"stackprint check\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" "
                "skipped=\"%zu\">\n", all.tests, all.failures, all.skipped);
    for (size_t i = 0; i < r->count;) {
        size_t n = 1;
        while (i + n < r->count && r->results[i + n].policy == r->results[i].policy)
            n++;
        struct counts c = count(&r->results[i], n);
        fputs("  <testsuite name=\"", fp);
        xml(fp, r->results[i].policy->name);
        fprintf(fp, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\">\n", c.tests,
                c.failures, c.skipped);
        fputs("    <properties>\n      <property name=\"manifest\" value=\"", fp);
        xml(fp, m->manifest);
        if (m->host_manifest) {
            fputs("\"/>\n      <property name=\"host-manifest\" value=\"", fp);
            xml(fp, m->host_manifest);
        }
        fputs("\"/>\n      <property name=\"policy-file\" value=\"", fp);
        xml(fp, r->results[i].policy->file);
        fputs("\"/>\n    </properties>\n", fp);
        for (size_t k = 0; k < n; k++)
            testcase(fp, &r->results[i + k]);
        fputs("  </testsuite>\n", fp);
        i += n;
    }
    fputs("</testsuites>\n", fp);
    return ferror(fp) ? -1 : 0;
}
