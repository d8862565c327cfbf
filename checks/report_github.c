/* checks/report_github.c: GitHub Actions workflow commands, one
 * "::error" or "::warning" annotation per bad result, then the summary as
 * a plain line.  Escaping as the Actions runner's command parser expects
 * (actions/toolkit, command.ts): in the message '%', CR and LF become %25,
 * %0D, %0A; in properties also ':' and ',' become %3A and %2C.  Other
 * control characters are shown as \xNN, so no line can start a command. */
#include "checks/report.h"

#include <string.h>

static const char *data_special(unsigned char c)
{
    switch (c) {
    case '%': return "%25";
    case '\r': return "%0D";
    case '\n': return "%0A";
    }
    return NULL;
}

static const char *property_special(unsigned char c)
{
    switch (c) {
    case ':': return "%3A";
    case ',': return "%2C";
    }
    return data_special(c);
}

int sp_report_github(const struct sp_report *r, const struct sp_report_meta *m, FILE *fp)
{
    char line[2048], title[2 * SP_POLICY_NAME_MAX + 8];
    struct sp_strbuf explain;
    sp_strbuf_init(&explain, SP_REPORT_TEXT_MAX);
    for (size_t i = 0; i < r->count; i++) {
        const struct sp_result *res = &r->results[i];
        if (!sp_result_bad(res))
            continue;
        fprintf(fp, "::%s ", res->severity == SP_SEVERITY_ERROR ? "error" : "warning");
        if (strcmp(m->manifest, "-") != 0) {
            fputs("file=", fp);
            sp_put_escaped(fp, m->manifest, property_special);
            fputc(',', fp);
        }
        snprintf(title, sizeof title, "%s/%s", res->policy->name, sp_result_rule(res));
        fputs("title=", fp);
        sp_put_escaped(fp, title, property_special);
        fputs("::", fp);
        sp_put_escaped(fp, res->requirement->key, data_special);
        fprintf(fp, " %s: ", sp_verdict_name(res->verdict));
        sp_put_escaped(fp, sp_result_explain(res, &explain), data_special);
        fputc('\n', fp);
    }
    sp_strbuf_free(&explain);
    fprintf(fp, "%s\n", sp_report_summary(r, line, sizeof line));
    return ferror(fp) ? -1 : 0;
}
