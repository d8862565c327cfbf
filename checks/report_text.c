/* checks/report_text.c: the human report: an aligned table (policy, rule,
 * key, found, supported, verdict), a note for each bad result that carries
 * a message or a reason, then the summary line.  Colour (verdicts only)
 * when the caller asks for it.  Must not emit control characters from the
 * data: everything goes through sp_put_escaped(). */
#include "report.h"

#include <string.h>

#define COLUMN_MAX 40      /* wider cells overflow instead of widening the table */
#define NCOLS 6

static const char *const headers[NCOLS] = { "POLICY", "RULE", "KEY", "FOUND", "SUPPORTED", "VERDICT" };

static void cells(const struct sp_result *res, const char *cell[NCOLS], char *supported,
                  size_t supsz, char *verdict, size_t versz)
{
    cell[0] = res->policy->name;
    cell[1] = sp_result_rule(res);
    cell[2] = res->requirement->key;
    cell[3] = res->found ? res->found : "-";
    cell[4] = sp_result_supported(res, supported, supsz);
    snprintf(verdict, versz, "%s%s", sp_verdict_name(res->verdict),
             sp_result_bad(res) && res->severity == SP_SEVERITY_WARNING ? " (warning)" : "");
    cell[5] = verdict;
}

static const char *colour_of(const struct sp_result *res)
{
    if (res->verdict == SP_VERDICT_OK)
        return "\033[32m";
    if (res->verdict == SP_VERDICT_NOT_APPLICABLE)
        return "\033[2m";
    return res->fails ? "\033[1;31m" : "\033[33m";
}

static void pad(FILE *fp, size_t shown, size_t width)
{
    if (shown < width)
        fprintf(fp, "%*s", (int)(width - shown), "");
}

int sp_report_text(const struct sp_report *r, const struct sp_report_meta *m, FILE *fp)
{
    size_t width[NCOLS];
    const char *cell[NCOLS];
    char supported[1024], verdict[64], line[2048];

    for (int c = 0; c < NCOLS; c++)
        width[c] = strlen(headers[c]);
    for (size_t i = 0; i < r->count; i++) {
        cells(&r->results[i], cell, supported, sizeof supported, verdict, sizeof verdict);
        for (int c = 0; c < NCOLS; c++) {
            size_t w = sp_put_escaped(NULL, cell[c], NULL);
            if (w > width[c])
                width[c] = w > COLUMN_MAX ? COLUMN_MAX : w;
        }
    }
    if (r->count) {
        for (int c = 0; c < NCOLS; c++) {
            fputs(headers[c], fp);
            if (c + 1 < NCOLS)
                pad(fp, strlen(headers[c]), width[c] + 2);
        }
        fputc('\n', fp);
    }
    for (size_t i = 0; i < r->count; i++) {
        const struct sp_result *res = &r->results[i];
        cells(res, cell, supported, sizeof supported, verdict, sizeof verdict);
        for (int c = 0; c < NCOLS; c++) {
            int coloured = m->colour && c == NCOLS - 1;
            if (coloured)
                fputs(colour_of(res), fp);
            size_t shown = sp_put_escaped(fp, cell[c], NULL);
            if (coloured)
                fputs("\033[0m", fp);
            if (c + 1 < NCOLS)
                pad(fp, shown, width[c] + 2);
        }
        fputc('\n', fp);
    }
    for (size_t i = 0; i < r->count; i++) {
        const struct sp_result *res = &r->results[i];
        if (!sp_result_bad(res) || (!res->detail && !(res->rule && res->rule->message)))
            continue;
        fprintf(fp, "%s/%s: ", res->policy->name, sp_result_rule(res));
        sp_put_escaped(fp, res->requirement->key, NULL);
        fputs(": ", fp);
        sp_put_escaped(fp, sp_result_explain(res, line, sizeof line), NULL);
        fputc('\n', fp);
    }
    fprintf(fp, "%s\n", sp_report_summary(r, line, sizeof line));
    return ferror(fp) ? -1 : 0;
}
