/* tests/unit/test_cases.c: the logic cases kept as data, one cmocka test a
 * case (jq's tests/jq.test is the model: facts in, verdicts out, a comment
 * saying why each expected value is right).
 *
 *   tests/data/release.test   release_infer() (checks/release.h) against the
 *                             shipped catalog, policies/neuron/catalog.yaml
 *   tests/data/evaluate.test  sp_evaluate() (checks/evaluate.h) of a policy
 *   tests/data/policy_load.test  policies sp_policy_parse() (checks/policy.h)
 *                             refuses, with their messages
 *
 * The format, line by line (each file's head restates its part):
 *   #...              a comment; blank lines are ignored
 *   ### NAME          starts a case
 *   < KEY VALUE       a fact in (VALUE: the rest of the line)
 *   > KEY VALUE       release: after inference KEY holds exactly VALUE;
 *                     ">! KEY" absent, ">? KEY" present, ">@ KEY SOURCE"
 *                     its evidence is SOURCE
 *   | TEXT            evaluate: a line of the policy ("|" alone: an empty
 *                     line); "|= NAME" the policy of the earlier case NAME
 *   ! MESSAGE         policy_load: the policy is refused with MESSAGE
 *   % strict          evaluate with SP_EVAL_STRICT
 *   = RULE KEY: VERDICT[, fails]   the next result row
 *   + FIELD TEXT      a field of the last row: detail, resolved, supported,
 *                     explain, shown, role
 *   * NAME N          a count of the report (count, errors, warnings, a
 *                     verdict's name); "* passed yes|no"
 * A line of any other shape fails its case, naming file and line, so a
 * typo never passes as a case that checks nothing.  Tests run from the top
 * of the tree (tests/run sets cwd). */
#include "tests/unit/testlib.h"

#include <errno.h>

#include "checks/catalog.h"
#include "checks/evaluate.h"
#include "checks/policy.h"
#include "checks/release.h"
#include "checks/report.h"
#include "common/strbuf.h"

#define CASE_LINE_MAX 4096             /* longest line of a case file */

enum mode { MODE_RELEASE, MODE_EVALUATE, MODE_LOAD };

struct tline {
    size_t no;                         /* 1-based line number */
    char *text;                        /* without its newline */
};

struct tcase;

struct tfile {
    const char *path;
    enum mode mode;
    struct tline *lines;
    size_t nlines;
    struct tcase *cases;
    size_t ncases;
};

struct tcase {
    const struct tfile *file;
    const char *name;                  /* points into the "### " line */
    size_t first, end;                 /* its body: lines[first..end) */
};

static struct catalog cat;

/* ---- reading a case file ------------------------------------------------ */

static int read_lines(struct tfile *f)
{
    FILE *fp = fopen(f->path, "r");
    if (fp == NULL) {
        fprintf(stderr, "%s: cannot open: %s\n", f->path, strerror(errno));
        return -1;
    }
    char buf[CASE_LINE_MAX];
    size_t cap = 0;
    while (fgets(buf, sizeof buf, fp) != NULL) {
        size_t len = strlen(buf);
        if (len > 0 && buf[len - 1] == '\n')
            buf[--len] = '\0';
        else if (!feof(fp)) {
            fprintf(stderr, "%s:%zu: line longer than %d bytes\n", f->path, f->nlines + 1,
                    CASE_LINE_MAX - 2);
            fclose(fp);
            return -1;
        }
        if (f->nlines == cap) {
            cap = cap ? 2 * cap : 256;
            f->lines = realloc(f->lines, cap * sizeof *f->lines);
            assert_non_null(f->lines);
        }
        f->lines[f->nlines].no = f->nlines + 1;
        f->lines[f->nlines].text = strdup(buf);
        assert_non_null(f->lines[f->nlines++].text);
    }
    fclose(fp);
    return 0;
}

/* split F's lines into cases; only comments and blank lines may come
 * before the first */
static int split_cases(struct tfile *f)
{
    for (size_t i = 0; i < f->nlines; i++) {
        const char *t = f->lines[i].text;
        if (strncmp(t, "### ", 4) == 0) {
            f->cases = realloc(f->cases, (f->ncases + 1) * sizeof *f->cases);
            assert_non_null(f->cases);
            f->cases[f->ncases++] = (struct tcase){ f, t + 4, i + 1, f->nlines };
            if (f->ncases > 1)
                f->cases[f->ncases - 2].end = i;
        } else if (f->ncases == 0 && t[0] != '\0' && t[0] != '#') {
            fprintf(stderr, "%s:%zu: a line before the first case\n", f->path, f->lines[i].no);
            return -1;
        }
    }
    if (f->ncases == 0) {
        fprintf(stderr, "%s: no case\n", f->path);
        return -1;
    }
    return 0;
}

static void file_free(struct tfile *f)
{
    for (size_t i = 0; i < f->nlines; i++)
        free(f->lines[i].text);
    free(f->lines);
    free(f->cases);
}

/* "KEY REST" after a prefix of PLEN bytes: KEY into KEY (KEYSZ bytes),
 * returns REST, or NULL when the line has no such shape */
static const char *key_and_rest(const char *text, size_t plen, char *key, size_t keysz)
{
    const char *k = text + plen, *sp = strchr(k, ' ');
    size_t n = sp ? (size_t)(sp - k) : strlen(k);
    if (n == 0 || n >= keysz)
        return NULL;
    memcpy(key, k, n);
    key[n] = '\0';
    return sp ? sp + 1 : k + n;
}

#define BAD_LINE(c, l) fail_msg("%s:%zu: a line of no known shape: %s", (c)->file->path, (l)->no, (l)->text)

static int is_blank_or_comment(const struct tline *l)
{
    return l->text[0] == '\0' || (l->text[0] == '#' && strncmp(l->text, "### ", 4) != 0);
}

/* ---- facts in ----------------------------------------------------------- */

/* the case's "< KEY VALUE" lines into FS (initialised here) */
static void facts_in(const struct tcase *c, struct factset *fs)
{
    factset_init(fs);
    for (size_t i = c->first; i < c->end; i++) {
        const struct tline *l = &c->file->lines[i];
        char key[256];
        const char *value;
        if (strncmp(l->text, "< ", 2) != 0)
            continue;
        if ((value = key_and_rest(l->text, 2, key, sizeof key)) == NULL || *value == '\0')
            BAD_LINE(c, l);
        if (factset_set(fs, key, value, NULL) != 0)
            fail_msg("%s:%zu: factset_set refused %s", c->file->path, l->no, key);
    }
}

/* ---- release inference -------------------------------------------------- */

/* one "> KEY VALUE", ">! KEY", ">? KEY" or ">@ KEY SOURCE" line against FS */
static void check_fact(const struct tcase *c, const struct tline *l, const struct factset *fs)
{
    char key[256], kind = l->text[1] == ' ' ? '=' : l->text[1];
    const char *want = NULL;
    if (strchr("=!?@", kind) == NULL || (kind != '=' && l->text[2] != ' ') ||
        (want = key_and_rest(l->text, kind == '=' ? 2 : 3, key, sizeof key)) == NULL ||
        ((kind == '!' || kind == '?') != (*want == '\0')))
        BAD_LINE(c, l);
    const struct fact *got = factset_find(fs, key);
    if (kind == '!') {
        if (got != NULL)
            fail_msg("%s:%zu: %s = \"%s\", expected absent", c->file->path, l->no, key, got->value);
        return;
    }
    if (got == NULL)
        fail_msg("%s:%zu: fact %s is absent", c->file->path, l->no, key);
    if (kind == '?')
        return;
    const char *value = kind == '@' ? got->evidence : got->value;
    if (value == NULL || strcmp(value, want) != 0)
        fail_msg("%s:%zu: %s%s is \"%s\", expected \"%s\"", c->file->path, l->no, key,
                 kind == '@' ? "'s evidence" : "", value ? value : "(none)", want);
}

static void run_release(const struct tcase *c)
{
    struct factset fs;
    struct sp_error e = { 0 };
    size_t checked = 0;
    facts_in(c, &fs);
    if (release_infer(&cat, &fs, &e) != 0)
        fail_msg("%s: release_infer: %s", c->name, e.msg);
    for (size_t i = c->first; i < c->end; i++) {
        const struct tline *l = &c->file->lines[i];
        if (l->text[0] == '>' && ++checked)
            check_fact(c, l, &fs);
        else if (!is_blank_or_comment(l) && strncmp(l->text, "< ", 2) != 0)
            BAD_LINE(c, l);
    }
    if (checked == 0)
        fail_msg("%s: the case expects nothing", c->name);
    factset_free(&fs);
}

/* ---- policy evaluation -------------------------------------------------- */

/* the case's policy text, from its "|" lines or the case "|=" names, into SB */
static void policy_text(const struct tcase *c, struct sp_strbuf *sb)
{
    for (size_t i = c->first; i < c->end; i++) {
        const struct tline *l = &c->file->lines[i];
        if (strncmp(l->text, "|= ", 3) == 0) {
            const struct tcase *o = c->file->cases;
            while (o < c && strcmp(o->name, l->text + 3) != 0)
                o++;
            if (o == c)
                fail_msg("%s:%zu: no earlier case named %s", c->file->path, l->no, l->text + 3);
            policy_text(o, sb);
        } else if (l->text[0] == '|') {
            if (l->text[1] != '\0' && l->text[1] != ' ')
                BAD_LINE(c, l);
            sp_strbuf_add(sb, l->text[1] ? l->text + 2 : "");
            sp_strbuf_add(sb, "\n");
        }
    }
}

/* one "+ FIELD TEXT" line against result RES */
static void check_field(const struct tcase *c, const struct tline *l, const struct sp_result *res,
                        struct sp_strbuf *sb)
{
    static const char *const roles[] = { "when", "require", "forbid" };
    char field[32];
    const char *want = key_and_rest(l->text, 2, field, sizeof field), *got = NULL;
    if (want == NULL || res == NULL)
        BAD_LINE(c, l);
    if (strcmp(field, "detail") == 0)
        got = res->detail;
    else if (strcmp(field, "resolved") == 0)
        got = res->resolved;
    else if (strcmp(field, "supported") == 0)
        got = sp_result_supported(res, sb);
    else if (strcmp(field, "explain") == 0)
        got = sp_result_explain(res, sb);
    else if (strcmp(field, "shown") == 0)
        got = res->requirement->test.shown;
    else if (strcmp(field, "role") == 0)
        got = roles[res->role];
    else
        BAD_LINE(c, l);
    if (got == NULL || strcmp(got, want) != 0)
        fail_msg("%s:%zu: %s is \"%s\", expected \"%s\"", c->file->path, l->no, field,
                 got ? got : "(none)", want);
}

/* one "* NAME N" line against report R */
static void check_total(const struct tcase *c, const struct tline *l, const struct sp_report *r)
{
    const char *sp = strrchr(l->text, ' ');
    size_t n = (size_t)(sp - (l->text + 2)), got = (size_t)-1;
    if (sp == l->text + 1)
        BAD_LINE(c, l);
    if (strncmp(l->text + 2, "passed", n) == 0 && n == 6) {
        if (strcmp(sp + 1, r->passed ? "yes" : "no") != 0)
            fail_msg("%s:%zu: passed is %s", c->file->path, l->no, r->passed ? "yes" : "no");
        return;
    }
    if (n == 5 && strncmp(l->text + 2, "count", 5) == 0)
        got = r->count;
    else if (n == 6 && strncmp(l->text + 2, "errors", 6) == 0)
        got = r->errors;
    else if (n == 8 && strncmp(l->text + 2, "warnings", 8) == 0)
        got = r->warnings;
    for (int v = 0; v < SP_VERDICTS; v++)
        if (strlen(sp_verdict_name(v)) == n && strncmp(l->text + 2, sp_verdict_name(v), n) == 0)
            got = r->verdicts[v];
    char *end;
    unsigned long want = strtoul(sp + 1, &end, 10);
    if (got == (size_t)-1 || *end != '\0' || end == sp + 1)
        BAD_LINE(c, l);
    if (got != want)
        fail_msg("%s:%zu: %.*s is %zu, expected %lu", c->file->path, l->no, (int)n, l->text + 2,
                 got, want);
}

/* the expectations of case C against report R */
static void check_report(const struct tcase *c, const struct sp_report *r, struct sp_strbuf *sb)
{
    size_t row = 0;
    for (size_t i = c->first; i < c->end; i++) {
        const struct tline *l = &c->file->lines[i];
        const struct sp_result *res = row ? &r->results[row - 1] : NULL;
        char got[1024];
        if (strncmp(l->text, "= ", 2) == 0) {
            if (row >= r->count)
                fail_msg("%s:%zu: the report has only %zu rows", c->file->path, l->no, r->count);
            res = &r->results[row++];
            snprintf(got, sizeof got, "%s %s: %s%s", sp_result_rule(res), res->requirement->key,
                     sp_verdict_name(res->verdict), res->fails ? ", fails" : "");
            if (strcmp(got, l->text + 2) != 0)
                fail_msg("%s:%zu: row %zu is \"%s\", expected \"%s\"", c->file->path, l->no, row,
                         got, l->text + 2);
        } else if (strncmp(l->text, "+ ", 2) == 0)
            check_field(c, l, res, sb);
        else if (strncmp(l->text, "* ", 2) == 0)
            check_total(c, l, r);
    }
    if (row != 0 && row != r->count)
        fail_msg("%s: the report has %zu rows, the case lists %zu", c->name, r->count, row);
}

/* an evaluation case's lines are of known shapes, and it expects something:
 * fail otherwise; "% strict" into FLAGS */
static void check_shapes(const struct tcase *c, unsigned *flags)
{
    size_t checked = 0;
    for (size_t i = c->first; i < c->end; i++) {
        const struct tline *l = &c->file->lines[i];
        if (strcmp(l->text, "% strict") == 0)
            *flags |= SP_EVAL_STRICT;
        else if (strncmp(l->text, "= ", 2) == 0 || strncmp(l->text, "+ ", 2) == 0 ||
                 strncmp(l->text, "* ", 2) == 0)
            checked++;
        else if (!is_blank_or_comment(l) && strncmp(l->text, "< ", 2) != 0 && l->text[0] != '|')
            BAD_LINE(c, l);
    }
    if (checked == 0)
        fail_msg("%s: the case expects nothing", c->name);
}

static void run_evaluate(const struct tcase *c)
{
    struct sp_policy_set ps;
    struct sp_report r;
    struct sp_strbuf sb;
    struct factset fs;
    struct sp_error e = { 0 };
    struct sp_eval_ctx ctx = { .facts = &fs };
    check_shapes(c, &ctx.flags);
    sp_strbuf_init(&sb, SP_POLICY_MAX_BYTES);
    policy_text(c, &sb);
    sp_policy_set_init(&ps);
    if (sp_policy_parse(&ps, sp_strbuf_str(&sb), strlen(sp_strbuf_str(&sb)), "p.yaml", &e) != 0)
        fail_msg("%s: %s", c->name, e.msg);
    sp_strbuf_free(&sb);
    sp_strbuf_init(&sb, SP_REPORT_TEXT_MAX);
    facts_in(c, &fs);
    sp_report_init(&r);
    for (int round = 0; round < 2; round++) {      /* a report can be reused */
        if (sp_evaluate(&ps, &ctx, &r, &e) != 0)
            fail_msg("%s: sp_evaluate: %s", c->name, e.msg);
        check_report(c, &r, &sb);
    }
    sp_report_free(&r);
    sp_strbuf_free(&sb);
    sp_policy_set_free(&ps);
    factset_free(&fs);
}

/* ---- policies refused ---------------------------------------------------- */

static void run_load(const struct tcase *c)
{
    struct sp_policy_set ps;
    struct sp_strbuf sb;
    struct sp_error e = { 0 };
    const struct tline *want = NULL;
    for (size_t i = c->first; i < c->end; i++) {
        const struct tline *l = &c->file->lines[i];
        if (strncmp(l->text, "! ", 2) == 0 && want == NULL)
            want = l;
        else if (!is_blank_or_comment(l) && l->text[0] != '|')
            BAD_LINE(c, l);
    }
    if (want == NULL)
        fail_msg("%s: no \"! MESSAGE\" line", c->name);
    sp_strbuf_init(&sb, SP_POLICY_MAX_BYTES);
    policy_text(c, &sb);
    sp_policy_set_init(&ps);
    if (sp_policy_parse(&ps, sp_strbuf_str(&sb), strlen(sp_strbuf_str(&sb)), "p.yaml", &e) == 0)
        fail_msg("%s: loaded:\n%s", c->name, sp_strbuf_str(&sb));
    if (strcmp(e.msg, want->text + 2) != 0 || e.exit_code != SP_EXIT_INPUT || ps.count != 0)
        fail_msg("%s:%zu: refused with \"%s\" (exit %d, %zu policies), expected \"%s\" (exit %d)",
                 c->file->path, want->no, e.msg, e.exit_code, ps.count, want->text + 2, SP_EXIT_INPUT);
    sp_policy_set_free(&ps);
    sp_strbuf_free(&sb);
}

static void run_case(void **state)
{
    const struct tcase *c = *state;
    if (c->file->mode == MODE_RELEASE)
        run_release(c);
    else if (c->file->mode == MODE_EVALUATE)
        run_evaluate(c);
    else
        run_load(c);
}

/* ---- main --------------------------------------------------------------- */

static int run_file(struct tfile *f)
{
    if (read_lines(f) != 0 || split_cases(f) != 0)
        return 1;
    struct CMUnitTest *tests = calloc(f->ncases, sizeof *tests);
    assert_non_null(tests);
    for (size_t i = 0; i < f->ncases; i++)
        tests[i] = (struct CMUnitTest){ f->cases[i].name, run_case, NULL, NULL, &f->cases[i] };
    int failed = _cmocka_run_group_tests(f->path, tests, f->ncases, NULL, NULL);
    free(tests);
    return failed;
}

int main(void)
{
    struct tfile files[] = {
        { .path = "tests/data/release.test", .mode = MODE_RELEASE },
        { .path = "tests/data/evaluate.test", .mode = MODE_EVALUATE },
        { .path = "tests/data/policy_load.test", .mode = MODE_LOAD },
    };
    struct sp_error e = { 0 };
    if (catalog_load("policies/neuron/catalog.yaml", &cat, &e) != 0) {
        fprintf(stderr, "%s\n", e.msg);
        return 1;
    }
    int failed = 0;
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        failed += run_file(&files[i]);
        file_free(&files[i]);
    }
    catalog_free(&cat);
    return failed != 0;
}
