/* checks/diff_report.c: text, json and markdown renderings of a struct
 * sp_diff; see diff_report.h.  Escaping goes through sp_put_escaped()
 * (checks/report.h), JSON through jansson. */
#include "checks/diff_report.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/report.h"

#define KEY_COLUMN_MAX 40      /* longer keys overflow instead of widening */

int sp_diff_format_by_name(const char *name, enum sp_diff_format *out)
{
    static const char *const names[] = { "text", "json", "markdown" };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(name, names[i]) == 0) {
            *out = (enum sp_diff_format)i;
            return 0;
        }
    return -1;
}

static const char *or_dash(const char *s)
{
    return s ? s : "-";
}

/* The index of torch.backend's difference, or D->count. */
static size_t backend_change(const struct sp_diff *d)
{
    for (size_t i = 0; i < d->count; i++)
        if (strcmp(d->items[i].key, "torch.backend") == 0)
            return i;
    return d->count;
}

/* A blank line, then "SDK release: A -> B" or "SDK release: A (both)";
 * nothing when neither side has one.  Without a catalog, says so. */
static void release_line(FILE *fp, const struct sp_diff_meta *m, const char *bold,
                         const char *(*special)(unsigned char))
{
    const char *a = m->old_side.sdk_release, *b = m->new_side.sdk_release;
    if (!m->inferred) {
        fprintf(fp, "\n%sSDK release:%s not inferred (no release catalog; see --catalog)\n", bold, bold);
        return;
    }
    if (a == NULL && b == NULL)
        return;
    fprintf(fp, "\n%sSDK release:%s ", bold, bold);
    sp_put_escaped(fp, or_dash(a), special);
    if (a && b && strcmp(a, b) == 0) {
        fputs(" (both)\n", fp);
        return;
    }
    fputs(" -> ", fp);
    sp_put_escaped(fp, or_dash(b), special);
    fputc('\n', fp);
}

static void summary(FILE *fp, const struct sp_diff *d)
{
    fprintf(fp, "%zu changed: %zu upgraded, %zu downgraded, %zu added, %zu removed", d->count,
            d->counts[SP_CHANGE_UPGRADED], d->counts[SP_CHANGE_DOWNGRADED],
            d->counts[SP_CHANGE_ADDED], d->counts[SP_CHANGE_REMOVED]);
    if (d->counts[SP_CHANGE_CHANGED])
        fprintf(fp, ", %zu changed", d->counts[SP_CHANGE_CHANGED]);
}

/* ---- text -------------------------------------------------------------- */

static void text_side(FILE *fp, const char *label, const struct sp_diff_side *s)
{
    fprintf(fp, "%s: ", label);
    sp_put_escaped(fp, or_dash(s->subject), NULL);
    fputs("  ", fp);
    sp_put_escaped(fp, or_dash(s->stack_id), NULL);
    fputs("  (", fp);
    sp_put_escaped(fp, s->manifest, NULL);
    fputs(")\n", fp);
}

/* The backend path's change on a line of its own, when there is one. */
static void backend_line(FILE *fp, const struct sp_diff *d, size_t backend)
{
    if (backend >= d->count)
        return;
    fputs("  backend path changed: ", fp);
    sp_put_escaped(fp, or_dash(d->items[backend].old_value), NULL);
    fputs(" -> ", fp);
    sp_put_escaped(fp, or_dash(d->items[backend].new_value), NULL);
    fputc('\n', fp);
}

static int render_text(const struct sp_diff *d, const struct sp_diff_meta *m, FILE *fp)
{
    text_side(fp, "old", &m->old_side);
    text_side(fp, "new", &m->new_side);
    size_t width = 0;
    for (size_t i = 0; i < d->count; i++) {
        size_t w = sp_put_escaped(NULL, d->items[i].key, NULL);
        if (w > width && w <= KEY_COLUMN_MAX)
            width = w;
    }
    size_t backend = backend_change(d);
    int released = 0;
    unsigned group = SP_GROUPS;
    for (size_t i = 0; i < d->count; i++) {
        const struct sp_difference *x = &d->items[i];
        if (!released && x->group >= SP_GROUP_RUNTIME) {
            release_line(fp, m, "", NULL);
            released = 1;
        }
        if (x->group != group) {
            if (group == SP_GROUP_TORCH)
                backend_line(fp, d, backend);
            fprintf(fp, "\n%s\n", sp_group_name((enum sp_group)x->group));
            group = x->group;
        }
        fputs("  ", fp);
        size_t w = sp_put_escaped(fp, x->key, NULL);
        for (; w < width; w++)
            fputc(' ', fp);
        fputs("  ", fp);
        sp_put_escaped(fp, x->old_value ? x->old_value : "(absent)", NULL);
        fputs(" -> ", fp);
        sp_put_escaped(fp, x->new_value ? x->new_value : "(absent)", NULL);
        fprintf(fp, "  %s\n", sp_change_name(x->change));
    }
    if (group == SP_GROUP_TORCH)
        backend_line(fp, d, backend);
    if (!released)
        release_line(fp, m, "", NULL);
    fputc('\n', fp);
    summary(fp, d);
    fputc('\n', fp);
    return ferror(fp) ? -1 : 0;
}

/* ---- markdown ---------------------------------------------------------- */

static const char *md_special(unsigned char c)
{
    switch (c) {
    case '|': return "\\|";
    case '`': return "\\`";
    case '*': return "\\*";
    case '_': return "\\_";
    case '<': return "&lt;";
    case '>': return "&gt;";
    case '&': return "&amp;";
    default: return NULL;
    }
}

static void md_cell(FILE *fp, const char *s)
{
    fputs(" ", fp);
    sp_put_escaped(fp, s, md_special);
    fputs(" |", fp);
}

static int render_markdown(const struct sp_diff *d, const struct sp_diff_meta *m, FILE *fp)
{
    fputs("#### stackprint diff\n\n| | subject | stack id | manifest |\n|---|---|---|---|\n", fp);
    const struct sp_diff_side *sides[2] = { &m->old_side, &m->new_side };
    for (int i = 0; i < 2; i++) {
        fprintf(fp, "| %s |", i ? "new" : "old");
        md_cell(fp, or_dash(sides[i]->subject));
        md_cell(fp, or_dash(sides[i]->stack_id));
        md_cell(fp, sides[i]->manifest);
        fputc('\n', fp);
    }
    release_line(fp, m, "**", md_special);
    size_t backend = backend_change(d);
    if (backend < d->count) {
        fputs("\n**Backend path changed:** ", fp);
        sp_put_escaped(fp, or_dash(d->items[backend].old_value), md_special);
        fputs(" -> ", fp);
        sp_put_escaped(fp, or_dash(d->items[backend].new_value), md_special);
        fputc('\n', fp);
    }
    if (d->count) {
        fputs("\n| group | key | old | new | change |\n|---|---|---|---|---|\n", fp);
        for (size_t i = 0; i < d->count; i++) {
            const struct sp_difference *x = &d->items[i];
            fputc('|', fp);
            md_cell(fp, sp_group_name((enum sp_group)x->group));
            md_cell(fp, x->key);
            md_cell(fp, or_dash(x->old_value));
            md_cell(fp, or_dash(x->new_value));
            md_cell(fp, sp_change_name(x->change));
            fputc('\n', fp);
        }
    }
    fputs("\n**", fp);
    summary(fp, d);
    fputs("**\n", fp);
    return ferror(fp) ? -1 : 0;
}

/* ---- json -------------------------------------------------------------- */

static json_t *text_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

static json_t *json_side(const struct sp_diff_side *s)
{
    return json_pack("{s:o, s:o, s:o, s:o}", "manifest", text_or_null(s->manifest),
                     "subject", text_or_null(s->subject), "stack_id", text_or_null(s->stack_id),
                     "sdk_release", text_or_null(s->sdk_release));
}

static int render_json(const struct sp_diff *d, const struct sp_diff_meta *m, FILE *fp)
{
    json_t *changes = json_array();
    for (size_t i = 0; changes && i < d->count; i++) {
        const struct sp_difference *x = &d->items[i];
        json_t *c = json_pack("{s:s, s:o, s:o, s:s}", "key", x->key, "old",
                              text_or_null(x->old_value), "new", text_or_null(x->new_value),
                              "change", sp_change_name(x->change));
        if (c == NULL || json_array_append_new(changes, c) != 0) {
            json_decref(changes);
            return -1;
        }
    }
    if (changes == NULL)
        return -1;
    json_t *doc = json_pack(
        "{s:o, s:o, s:o, s:{s:I, s:I, s:I, s:I, s:I, s:I}}", "old", json_side(&m->old_side),
        "new", json_side(&m->new_side), "changes", changes, "summary",
        "total", (json_int_t)d->count,
        "upgraded", (json_int_t)d->counts[SP_CHANGE_UPGRADED],
        "downgraded", (json_int_t)d->counts[SP_CHANGE_DOWNGRADED],
        "added", (json_int_t)d->counts[SP_CHANGE_ADDED],
        "removed", (json_int_t)d->counts[SP_CHANGE_REMOVED],
        "changed", (json_int_t)d->counts[SP_CHANGE_CHANGED]);
    if (doc == NULL)
        return -1;
    int rc = json_dumpf(doc, fp, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
    json_decref(doc);
    if (rc != 0)
        return -1;
    fputc('\n', fp);
    return ferror(fp) ? -1 : 0;
}

struct diff_job {
    const struct sp_diff *d;
    const struct sp_diff_meta *m;
    enum sp_diff_format format;
};

static int write_diff(FILE *fp, const void *arg)
{
    const struct diff_job *j = arg;
    return j->format == SP_DIFF_JSON       ? render_json(j->d, j->m, fp)
           : j->format == SP_DIFF_MARKDOWN ? render_markdown(j->d, j->m, fp)
                                           : render_text(j->d, j->m, fp);
}

int sp_diff_render(const struct sp_diff *d, const struct sp_diff_meta *m,
                   enum sp_diff_format format, char **out, size_t *len, struct sp_error *e)
{
    const struct diff_job j = { d, m, format };
    return sp_render_buffer(write_diff, &j, "diff: out of memory", "diff: out of memory", out,
                            len, e);
}
