/* cli/cmd_check.c: stackprint check: load the policies, read the manifest,
 * evaluate, write the report, choose the exit status (stackprint-check(1)).
 * All the work is in checks/; this file only parses options and prints. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "checks/evaluate.h"
#include "checks/host_overlay.h"
#include "checks/fix.h"
#include "checks/policy.h"
#include "checks/report.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "manifest/manifest.h"

/* the shipped policies as `make install` puts them */
#define INSTALLED_POLICIES SP_DATADIR "/policies"

static const struct sp_command_help check_help = {
    "check",
    "usage: stackprint check --policy FILE|DIR [--policy ...] [--strict]\n"
    "                        [--format text|json|junit|sarif|github] [-o FILE]\n"
    "                        [--host HOST_MANIFEST] MANIFEST\n"
    "       stackprint check --policy DIR --fix [--target-release R] [--keep-driver]\n"
    "                        [--format text|json|markdown] [-o FILE] MANIFEST\n"
    "MANIFEST is a YAML or JSON manifest, '-' for stdin; with --host, an image's,\n"
    "checked with the host's kernel-side facts laid over it.\n",
    25,
    "exit status: 0 passed, 1 a requirement at error severity failed (with --strict,\n"
    "any), 2 usage, 4 unreadable input.\n",
    SP_OPERANDS_ONE, "a manifest is required", "one manifest only",
};

/* The command line, parsed. */
struct check_args {
    struct sp_opt_list policies;
    const char *out, *hostpath, *path;
    enum sp_format format;
    int fix, markdown;
    struct sp_fix_opts fix_opts;
    unsigned flags;             /* SP_EVAL_STRICT */
};

/* Print the policy set's fact-key warnings; under STRICT those about
 * undocumented keys are errors.  Returns the number of errors. */
static size_t key_warnings(const struct sp_policy_set *ps, int strict)
{
    size_t errors = 0;
    for (size_t i = 0; i < ps->nwarnings; i++) {
        struct sp_error w = { SP_EXIT_INPUT, "" };
        int error = strict && ps->warnings[i].undocumented;
        snprintf(w.msg, sizeof w.msg, "%s%s", error ? "" : "warning: ", ps->warnings[i].text);
        sp_error_print(&w);
        errors += error;
    }
    return errors;
}

/* Colour only on a terminal, and never when NO_COLOR is set to anything but
 * the empty string (no-color.org). */
static int want_colour(const char *out)
{
    const char *nc = getenv("NO_COLOR");
    if (nc && *nc)
        return 0;
    return (out == NULL || strcmp(out, "-") == 0) && isatty(STDOUT_FILENO);
}

/* --fix: the remediation plan after the report (text), inside it as
 * "plan" (json), or alone (markdown); *BUF is the report rendered so far
 * (NULL for markdown) and is replaced. */
static int with_plan(const struct sp_policy_set *ps, const struct factset *facts,
                     const struct sp_report *report, const struct sp_fix_opts *opts,
                     enum sp_format format, int markdown, char **buf, size_t *len,
                     struct sp_error *e)
{
    struct sp_fix_plan plan = { 0 };
    char *pbuf = NULL;
    size_t plen = 0;
    int rc = -1;
    if (ps->catalog == NULL)
        return sp_fail(e, SP_EXIT_USAGE, "check --fix: the policies hold no release catalog "
                       "(--policy policies/, or the catalog file)");
    if (report->passed && opts->target_release == NULL) {
        plan.passes = 1;
        plan.reason = strdup("the check passes");
        if (plan.reason == NULL) {
            sp_fail(e, SP_EXIT_INPUT, "check --fix: out of memory");
            goto out;
        }
    } else if (sp_fix_build(ps, facts, opts, &plan, e) != 0) {
        goto out;
    }
    enum sp_fix_format f = markdown ? SP_FIX_MARKDOWN : format == SP_FORMAT_JSON ? SP_FIX_JSON
                                                                                  : SP_FIX_TEXT;
    if (sp_fix_render(&plan, f, &pbuf, &plen, e) != 0)
        goto out;
    char *joined = NULL;
    size_t jlen = 0;
    if (f == SP_FIX_JSON) {
        /* the report's object gains "plan" */
        json_t *doc = json_loadb(*buf, *len, 0, NULL), *pj = json_loadb(pbuf, plen, 0, NULL);
        if (doc && pj)
            json_object_set(doc, "plan", json_object_get(pj, "plan"));
        char *text = doc && pj ? json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
        json_decref(doc);
        json_decref(pj);
        if (text && asprintf(&joined, "%s\n", text) < 0)
            joined = NULL;
        free(text);
        jlen = joined ? strlen(joined) : 0;
    } else if (f == SP_FIX_TEXT) {
        if (asprintf(&joined, "%.*s%s", (int)*len, *buf, pbuf) < 0)
            joined = NULL;
        jlen = joined ? strlen(joined) : 0;
    } else {
        joined = pbuf;
        jlen = plen;
        pbuf = NULL;
    }
    if (joined == NULL) {
        sp_fail(e, SP_EXIT_INPUT, "check --fix: out of memory");
        goto out;
    }
    free(*buf);
    *buf = joined;
    *len = jlen;
    rc = 0;
out:
    free(pbuf);
    sp_fix_free(&plan);
    return rc;
}

/* --format: a report format, or markdown (with --fix), into the
 * struct check_args at O->value */
static int format_arg(const struct sp_option *o, const char *arg, const char *cmd)
{
    struct check_args *a = o->value;
    a->markdown = strcmp(arg, "markdown") == 0;
    if (a->markdown) {
        a->format = SP_FORMAT_TEXT;
        return 0;
    }
    if (sp_format_by_name(arg, &a->format) != 0)
        return sp_usage_error(cmd, "unknown format '%s' (text, json, junit, sarif or github)", arg);
    return 0;
}

/* The options that go with --fix, or not; no --policy: the installed
 * policies.  Returns SP_OPTIONS_GO_ON or an exit status. */
static int check_combos(struct check_args *a)
{
    const struct sp_fix_opts *f = &a->fix_opts;
    if (!a->fix && (a->markdown || f->target_release || f->keep_driver))
        return sp_usage_error("check", "%s needs --fix", a->markdown ? "--format markdown"
                              : f->target_release ? "--target-release" : "--keep-driver");
    if (a->fix && a->format != SP_FORMAT_TEXT && a->format != SP_FORMAT_JSON)
        return sp_usage_error("check", "--fix writes text, json or markdown");
    if (a->fix && a->hostpath)
        /* a plan's commands are run on one machine; an image and its host are two */
        return sp_usage_error("check", "--fix and --host cannot be combined: plan the image and "
                              "the host each on its own manifest");
    if (a->policies.n == 0) {
        struct stat st;
        if (stat(INSTALLED_POLICIES, &st) != 0 || !S_ISDIR(st.st_mode))
            return sp_usage_error("check", "--policy is required (no installed policies in %s)",
                                  INSTALLED_POLICIES);
        fprintf(stderr, "stackprint: check: no --policy given; using the installed policies in %s\n",
                INSTALLED_POLICIES);
        if ((a->policies.v = malloc(sizeof *a->policies.v)) == NULL)
            return sp_error_print(&(struct sp_error){ SP_EXIT_INPUT, "check: out of memory" });
        a->policies.v[a->policies.n++] = INSTALLED_POLICIES;
    }
    return SP_OPTIONS_GO_ON;
}

/* The report must not replace an input: the manifests or a policy, nor
 * land in a policy folder.  Returns SP_OPTIONS_GO_ON or an exit status. */
static int check_outputs(const struct check_args *a)
{
    const char *out = a->out, *path = a->path;
    if (a->hostpath && strcmp(a->hostpath, "-") == 0 && strcmp(path, "-") == 0)
        return sp_usage_error("check", "the host's and the image's manifests cannot both be standard input");
    if (sp_same_file(out, a->hostpath))
        return sp_usage_error("check", "output '%s' is the host manifest '%s'; it would be overwritten",
                              out, a->hostpath);
    size_t np = a->policies.n, ol = out ? strlen(out) : 0;
    int yaml = (ol > 5 && strcmp(out + ol - 5, ".yaml") == 0) || (ol > 4 && strcmp(out + ol - 4, ".yml") == 0);
    for (size_t i = 0; i <= np; i++) {
        const char *in = i < np ? a->policies.v[i] : path;
        if (sp_same_file(out, in))
            return sp_usage_error("check", "output '%s' is the %s '%s'; it would be overwritten",
                                  out, i < np ? "policy" : "manifest", in);
        if (i < np && yaml && sp_inside_dir(out, in))
            return sp_usage_error("check", "output '%s' is inside the policy folder '%s'; the "
                                  "next check would load it as a policy", out, in);
    }
    return SP_OPTIONS_GO_ON;
}

/* Parse and check ARGV into A.  Returns SP_OPTIONS_GO_ON or an exit status. */
static int check_parse(int argc, char **argv, struct check_args *a)
{
    const struct sp_option opts[] = {
        SP_OPTION_LIST('p', "policy", "FILE|DIR", &a->policies, 0,
                       "a policy file, or a folder of *.yaml and *.yml; repeatable;\n"
                       "default: the installed policies, " INSTALLED_POLICIES),
        SP_OPTION_BITS('s', "strict", &a->flags, SP_EVAL_STRICT,
                       "warning rows fail too, and so does an undocumented fact key"),
        SP_OPTION_CALL('f', "format", "FORMAT", a, format_arg,
                       "text (default), json, junit, sarif or github;\nwith --fix: text, json or markdown"),
        SP_OPTION_STRING('o', "output", "FILE", &a->out,
                         "write the report to FILE (atomically), not stdout"),
        SP_OPTION_STRING('H', "host", "HOST_MANIFEST", &a->hostpath,
                         "check MANIFEST, an image's, on the host it describes"),
        SP_OPTION_FLAG(0, "fix", &a->fix, "after the report, the pinned commands to a release the\n"
                       "policies accept (needs the release catalog)"),
        SP_OPTION_STRING(0, "target-release", "R", &a->fix_opts.target_release,
                         "with --fix: plan for release R"),
        SP_OPTION_FLAG(0, "keep-driver", &a->fix_opts.keep_driver,
                       "with --fix: keep the loaded kernel driver"),
        SP_OPTION_END,
    };
    int optind, rc = sp_options_parse(&check_help, opts, argc, argv, &optind);
    if (rc != SP_OPTIONS_GO_ON)
        return rc;
    a->path = argv[optind];
    if ((rc = check_combos(a)) != SP_OPTIONS_GO_ON)
        return rc;
    return check_outputs(a);
}

/* What the run holds, freed by cmd_check. */
struct check_run {
    struct sp_policy_set ps;
    struct manifest m, host;
    struct factset facts, overlaid;
    char *shown, *host_shown, *both;
};

/* Load the policies and the manifests; the facts to evaluate into
 * R->facts.  Returns 0, or an exit status (> 0) already printed, or -1
 * with E set. */
static int check_load(const struct check_args *a, struct check_run *r, struct sp_error *e)
{
    for (size_t i = 0; i < a->policies.n; i++)
        if (sp_policy_load(&r->ps, a->policies.v[i], e) != 0)
            return -1;
    if (r->ps.count == 0)
        /* a release catalog alone checks nothing: every check would pass */
        return sp_fail(e, SP_EXIT_INPUT, "%s: the release catalog alone, no policy: nothing to "
                       "check (pass the policies too: --policy DIR)",
                       r->ps.catalog_file ? r->ps.catalog_file : a->policies.v[a->policies.n - 1]);
    if (key_warnings(&r->ps, a->flags & SP_EVAL_STRICT) != 0) {
        fprintf(stderr, "stackprint: check: undocumented fact keys in the policies (--strict)\n");
        return SP_EXIT_INPUT;
    }
    if (manifest_load(a->path, &r->m, e) != 0)
        return -1;
    /* --host: the image's facts with the host's kernel-side facts over them */
    if (a->hostpath && manifest_load(a->hostpath, &r->host, e) != 0)
        return -1;
    if (a->hostpath && r->host.subject && strncmp(r->host.subject, "image:", 6) == 0)
        /* an image knows no host: the two manifests were most likely swapped */
        return sp_usage_error("check", "--host '%s' is an image's manifest (subject %s); "
                              "--host names the host's, MANIFEST the image's", a->hostpath,
                              r->host.subject);
    if (a->hostpath && sp_host_overlay(&r->m.facts, &r->host.facts, &r->overlaid, e) != 0)
        return -1;
    /* the manifest's facts plus those the release catalog derives */
    if (sp_eval_facts(&r->ps, a->hostpath ? &r->overlaid : &r->m.facts, &r->facts, e) != 0)
        return -1;
    return 0;
}

/* Evaluate, render the report (and the plan), write it.  Returns the exit
 * status, or -1 with E set. */
static int check_report(const struct check_args *a, struct check_run *r, struct sp_error *e)
{
    struct sp_eval_ctx ctx = { .flags = a->flags, .facts = &r->facts };
    struct sp_report report;
    char *buf = NULL;
    size_t len = 0;
    int rc = -1;
    /* reports are UTF-8 (JSON, XML): a file name that is not is shown \xNN */
    r->shown = sp_utf8_sanitize(a->path, strlen(a->path));
    if (a->hostpath) {
        r->host_shown = sp_utf8_sanitize(a->hostpath, strlen(a->hostpath));
        if (asprintf(&r->both, "%s on %s", r->m.subject ? r->m.subject : "-",
                     r->host.subject ? r->host.subject : "-") < 0)
            r->both = NULL;
        if (r->host_shown == NULL || r->both == NULL)
            return sp_fail(e, SP_EXIT_INPUT, "check: out of memory");
    }
    if (r->shown == NULL)
        return sp_fail(e, SP_EXIT_INPUT, "check: out of memory");
    struct sp_report_meta meta = {
        .manifest = r->shown, .subject = r->both ? r->both : r->m.subject,
        .stack_id = r->m.stack_id[0] ? r->m.stack_id : NULL,
        .colour = a->format == SP_FORMAT_TEXT && want_colour(a->out), .facts = &r->facts,
        .host_manifest = r->host_shown, .host_subject = r->host.subject,
        .host_stack_id = a->hostpath && r->host.stack_id[0] ? r->host.stack_id : NULL,
    };
    sp_report_init(&report);
    if (sp_evaluate(&r->ps, &ctx, &report, e) == 0 &&
        (a->markdown || sp_report_render(&report, &meta, a->format, &buf, &len, e) == 0) &&
        (!a->fix || with_plan(&r->ps, &r->m.facts, &report, &a->fix_opts, a->format, a->markdown,
                              &buf, &len, e) == 0) &&
        sp_write_output(a->out, buf, len, e) == 0)
        rc = report.passed ? SP_EXIT_OK : SP_EXIT_FAIL;
    free(buf);
    sp_report_free(&report);
    return rc;
}

int cmd_check(int argc, char **argv)
{
    struct check_args a = { .format = SP_FORMAT_TEXT };
    int rc = check_parse(argc, argv, &a);
    if (rc == SP_OPTIONS_GO_ON) {
        struct check_run r = { 0 };
        struct sp_error e = { 0 };
        sp_policy_set_init(&r.ps);
        manifest_init(&r.m);
        manifest_init(&r.host);
        factset_init(&r.facts);
        factset_init(&r.overlaid);
        rc = check_load(&a, &r, &e);
        if (rc == 0)
            rc = check_report(&a, &r, &e);
        if (rc < 0)
            rc = sp_error_print(&e);
        free(r.shown);
        free(r.host_shown);
        free(r.both);
        manifest_free(&r.m);
        manifest_free(&r.host);
        factset_free(&r.facts);
        factset_free(&r.overlaid);
        sp_policy_set_free(&r.ps);
    }
    free(a.policies.v);
    return rc;
}
