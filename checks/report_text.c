/* checks/report_text.c: the human report: an aligned table (policy, rule,
 * key, found, supported, verdict), a note for each bad result that carries
 * a message or a reason, for a mixed Neuron release the table of
 * components and the releases that shipped them, then the summary line.
 * Colour (verdicts only)
 * when the caller asks for it.  Must not emit control characters from the
 * data: everything goes through sp_put_escaped(). */
#include "checks/report.h"

#include <stdlib.h>
#include <string.h>

#define COLUMN_MAX 40      /* wider cells overflow instead of widening the table */
#define NCOLS 6

static const char *const headers[NCOLS] = { "POLICY", "RULE", "KEY", "FOUND", "SUPPORTED", "VERDICT" };

static void cells(const struct sp_result *res, const char *cell[NCOLS],
                  struct sp_strbuf *supported, char *verdict, size_t versz)
{
    cell[0] = res->policy->name;
    cell[1] = sp_result_rule(res);
    cell[2] = res->requirement->key;
    cell[3] = res->found ? res->found : "-";
    cell[4] = sp_result_supported(res, supported);
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

/* Up to WIDTH (a column and its two-space gap), and never fewer than the
 * two spaces, so an overflowing cell stays apart from the next. */
static void pad(FILE *fp, size_t shown, size_t width)
{
    fprintf(fp, "%*s", (int)(shown + 2 <= width ? width - shown : 2), "");
}

/* For a mixed Neuron release: which component belongs to which release.
 * 0, or -1 out of memory. */
static int release_table(FILE *fp, const struct factset *facts)
{
    static const char *const head[3] = { "COMPONENT", "VERSION", "RELEASES" };
    const char *release = facts ? factset_get(facts, "neuron.sdk.release") : NULL;
    size_t n, width[2];
    if (release == NULL || strcmp(release, "mixed") != 0)
        return 0;
    struct sp_release_row *rows = sp_release_rows(facts, &n);
    if (rows == NULL)
        return n == 0 ? 0 : -1;
    const char *nearest = factset_get(facts, "neuron.sdk.nearest");
    const char *odd = factset_get(facts, "neuron.sdk.odd");
    fputs("Neuron SDK release: mixed (no release ships every component", fp);
    if (nearest) {
        fputs("; nearest ", fp);
        sp_put_escaped(fp, nearest, NULL);
    }
    if (odd) {
        fputs("; odd: ", fp);
        sp_put_escaped(fp, odd, NULL);
    }
    fputs(")\n", fp);
    for (int c = 0; c < 2; c++)
        width[c] = strlen(head[c]);
    for (size_t i = 0; i < n; i++) {
        size_t w0 = sp_put_escaped(NULL, rows[i].key, NULL);
        size_t w1 = sp_put_escaped(NULL, rows[i].version ? rows[i].version : "-", NULL);
        width[0] = w0 > width[0] ? (w0 > COLUMN_MAX ? COLUMN_MAX : w0) : width[0];
        width[1] = w1 > width[1] ? (w1 > COLUMN_MAX ? COLUMN_MAX : w1) : width[1];
    }
    fprintf(fp, "%-*s  %-*s  %s\n", (int)width[0], head[0], (int)width[1], head[1], head[2]);
    for (size_t i = 0; i < n; i++) {
        pad(fp, sp_put_escaped(fp, rows[i].key, NULL), width[0] + 2);
        pad(fp, sp_put_escaped(fp, rows[i].version ? rows[i].version : "-", NULL), width[1] + 2);
        sp_put_escaped(fp, rows[i].releases, NULL);
        if (rows[i].odd)
            fputs("  (odd)", fp);
        if (rows[i].driver)
            fputs("  (driver: not part of the consensus)", fp);
        fputc('\n', fp);
    }
    free(rows);
    return 0;
}

int sp_report_text(const struct sp_report *r, const struct sp_report_meta *m, FILE *fp)
{
    size_t width[NCOLS];
    const char *cell[NCOLS];
    char verdict[64], line[2048];
    struct sp_strbuf supported, explain;
    sp_strbuf_init(&supported, SP_REPORT_TEXT_MAX);
    sp_strbuf_init(&explain, SP_REPORT_TEXT_MAX);

    for (int c = 0; c < NCOLS; c++)
        width[c] = strlen(headers[c]);
    for (size_t i = 0; i < r->count; i++) {
        cells(&r->results[i], cell, &supported, verdict, sizeof verdict);
        for (int c = 0; c < NCOLS; c++) {
            size_t w = sp_put_escaped(NULL, cell[c], NULL);
            if (w > width[c])
                width[c] = w > COLUMN_MAX ? COLUMN_MAX : w;
        }
    }
    if (m->host_manifest) {        /* check --host: both sides, both stack ids */
        fputs("subject: ", fp);
        sp_put_escaped(fp, m->subject ? m->subject : "-", NULL);
        fputs("\nstack ids: ", fp);
        sp_put_escaped(fp, m->stack_id ? m->stack_id : "-", NULL);
        fputs(" (image), ", fp);
        sp_put_escaped(fp, m->host_stack_id ? m->host_stack_id : "-", NULL);
        fputs(" (host)\n", fp);
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
        cells(res, cell, &supported, verdict, sizeof verdict);
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
        sp_put_escaped(fp, sp_result_explain(res, &explain), NULL);
        fputc('\n', fp);
    }
    sp_strbuf_free(&supported);
    sp_strbuf_free(&explain);
    if (release_table(fp, m->facts) != 0)
        return -1;
    fprintf(fp, "%s\n", sp_report_summary(r, line, sizeof line));
    return ferror(fp) ? -1 : 0;
}
