/* checks/report.c: choosing a report format and the wording every format
 * shares; see report.h.  Format-specific layout belongs in
 * report_<format>.c, not here. */
#include "checks/report.h"

#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    enum sp_format format;
    int (*write)(const struct sp_report *, const struct sp_report_meta *, FILE *);
} formats[] = {
    { "text", SP_FORMAT_TEXT, sp_report_text },
    { "json", SP_FORMAT_JSON, sp_report_json },
    { "junit", SP_FORMAT_JUNIT, sp_report_junit },
    { "sarif", SP_FORMAT_SARIF, sp_report_sarif },
    { "github", SP_FORMAT_GITHUB, sp_report_github },
};

int sp_format_by_name(const char *name, enum sp_format *out)
{
    for (size_t i = 0; i < sizeof formats / sizeof *formats; i++)
        if (strcmp(formats[i].name, name) == 0) {
            *out = formats[i].format;
            return 0;
        }
    return -1;
}

int sp_render_buffer(int (*write)(FILE *fp, const void *arg), const void *arg,
                     const char *nomem, const char *failed, char **out, size_t *len,
                     struct sp_error *e)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *fp = open_memstream(&buf, &n);
    if (fp == NULL)
        return sp_fail(e, SP_EXIT_INPUT, "%s", nomem);
    int rc = write(fp, arg);
    if (fclose(fp) != 0 || rc != 0) {
        free(buf);
        return sp_fail(e, SP_EXIT_INPUT, "%s", failed);
    }
    *out = buf;
    *len = n;
    return 0;
}

struct report_job {
    const struct sp_report *r;
    const struct sp_report_meta *m;
    enum sp_format format;
};

static int write_report(FILE *fp, const void *arg)
{
    const struct report_job *j = arg;
    for (size_t i = 0; i < sizeof formats / sizeof *formats; i++)
        if (formats[i].format == j->format)
            return formats[i].write(j->r, j->m, fp);
    return -1;
}

int sp_report_render(const struct sp_report *r, const struct sp_report_meta *m,
                     enum sp_format format, char **out, size_t *len, struct sp_error *e)
{
    const struct report_job j = { r, m, format };
    return sp_render_buffer(write_report, &j, "check: out of memory",
                            "check: cannot render the report (out of memory)", out, len, e);
}

const char *sp_result_rule(const struct sp_result *res)
{
    return res->rule ? res->rule->name : "when";
}

/* Append what RES supports to SB. */
static void supported_into(const struct sp_result *res, struct sp_strbuf *sb)
{
    static const char *const prefix[] = { "when ", "", "not " };
    sp_strbuf_add(sb, prefix[res->role]);
    sp_strbuf_add(sb, res->requirement->test.shown);
    if (res->resolved) {
        sp_strbuf_add(sb, " (");
        sp_strbuf_add(sb, res->resolved);
        sp_strbuf_add(sb, ")");
    }
}

const char *sp_result_supported(const struct sp_result *res, struct sp_strbuf *sb)
{
    sp_strbuf_free(sb);
    sp_strbuf_init(sb, SP_REPORT_TEXT_MAX);
    supported_into(res, sb);
    return sp_strbuf_str(sb);
}

int sp_result_bad(const struct sp_result *res)
{
    return res->verdict == SP_VERDICT_VIOLATED || res->verdict == SP_VERDICT_MISSING ||
           res->verdict == SP_VERDICT_INVALID || res->verdict == SP_VERDICT_INCOMPLETE;
}

const char *sp_result_explain(const struct sp_result *res, struct sp_strbuf *sb)
{
    const char *message = res->rule ? res->rule->message : NULL;
    sp_strbuf_free(sb);
    sp_strbuf_init(sb, SP_REPORT_TEXT_MAX);
    if (res->verdict == SP_VERDICT_INVALID || res->verdict == SP_VERDICT_INCOMPLETE) {
        sp_strbuf_add(sb, res->detail ? res->detail : sp_verdict_name(res->verdict));
    } else {
        if (res->verdict == SP_VERDICT_MISSING && res->detail)
            sp_strbuf_add(sb, res->detail);
        else if (res->found == NULL)
            sp_strbuf_add(sb, "missing");
        else
            sp_strbuf_addf(sb, "found %s", res->found);
        sp_strbuf_add(sb, ", supported ");
        supported_into(res, sb);
    }
    if (message)
        sp_strbuf_addf(sb, ": %s", message);
    return sp_strbuf_str(sb);
}

static const char *plural(size_t n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

const char *sp_report_summary(const struct sp_report *r, char *buf, size_t bufsz)
{
    char incomplete[48] = "";
    if (r->verdicts[SP_VERDICT_INCOMPLETE])   /* named only when it happens */
        snprintf(incomplete, sizeof incomplete, ", %zu incomplete",
                 r->verdicts[SP_VERDICT_INCOMPLETE]);
    snprintf(buf, bufsz,
             "%zu %s, %zu %s: %zu ok, %zu violated, %zu missing, %zu invalid, %zu not applicable%s; "
             "%zu %s, %zu %s%s: check %s",
             r->policies, plural(r->policies, "policy", "policies"), r->count,
             plural(r->count, "requirement", "requirements"), r->verdicts[SP_VERDICT_OK],
             r->verdicts[SP_VERDICT_VIOLATED], r->verdicts[SP_VERDICT_MISSING],
             r->verdicts[SP_VERDICT_INVALID], r->verdicts[SP_VERDICT_NOT_APPLICABLE], incomplete,
             r->errors,
             plural(r->errors, "error", "errors"), r->warnings,
             plural(r->warnings, "warning", "warnings"), r->strict ? " (strict)" : "",
             r->passed ? "passed" : "failed");
    return buf;
}

size_t sp_put_escaped(FILE *fp, const char *s, const char *(*special)(unsigned char c))
{
    size_t shown = 0;
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        const unsigned char *run = p;          /* bytes shown as they are */
        const char *rep = NULL;
        while (*p && *p >= 0x20 && *p != 0x7f && !(special && (rep = special(*p))))
            shown += (*p++ & 0xc0) != 0x80;
        if (fp && p > run)
            fwrite(run, 1, (size_t)(p - run), fp);
        if (*p == '\0')
            break;
        if (rep == NULL && special)
            rep = special(*p);
        if (rep) {
            if (fp)
                fputs(rep, fp);
            shown += strlen(rep);
        } else {
            if (fp)
                fprintf(fp, "\\x%02x", *p);
            shown += 4;
        }
        p++;
    }
    return shown;
}

struct sp_release_row *sp_release_rows(const struct factset *facts, size_t *n)
{
    static const char prefix[] = "neuron.sdk.release_of.";
    *n = 0;
    if (facts == NULL || factset_get(facts, "neuron.sdk.release") == NULL)
        return NULL;
    const char *odd = factset_get(facts, "neuron.sdk.odd");
    struct sp_release_row *rows = calloc(facts->count + 1, sizeof *rows);
    if (rows == NULL) {
        *n = (size_t)-1;
        return NULL;
    }
    for (size_t i = 0; i < facts->count; i++) {
        const struct fact *f = &facts->facts[i];
        if (strncmp(f->key, prefix, sizeof prefix - 1) != 0)
            continue;
        const char *key = f->key + sizeof prefix - 1;
        size_t kl = strlen(key);
        int is_odd = 0;
        for (const char *p = odd; p && *p;) {
            size_t l = strcspn(p, ",");
            is_odd |= l == kl && strncmp(p, key, kl) == 0;
            p += l + (p[l] == ',');
        }
        rows[(*n)++] = (struct sp_release_row){ key, factset_get(facts, key), f->value, is_odd, 0 };
    }
    const struct fact *drv = factset_find(facts, "neuron.sdk.driver_release");
    if (drv && drv->evidence)
        rows[(*n)++] = (struct sp_release_row){ drv->evidence, factset_get(facts, drv->evidence),
                                                drv->value, 0, 1 };
    return rows;
}
