/* cli/cmd_check.c: stackprint check: load the policies, read the manifest,
 * evaluate, write the report, choose the exit status (stackprint-check(1)).
 * All the work is in checks/; this file only parses options and prints. */
#include <getopt.h>
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
#include "manifest/manifest.h"

#ifndef SP_DATADIR
#define SP_DATADIR "/usr/local/share/stackprint"   /* the Makefile's DATADIR */
#endif
/* the shipped policies as `make install` puts them */
#define INSTALLED_POLICIES SP_DATADIR "/policies"

static const char check_usage[] =
    "usage: stackprint check --policy FILE|DIR [--policy ...] [--strict]\n"
    "                        [--format text|json|junit|sarif|github] [-o FILE]\n"
    "                        [--host HOST_MANIFEST] MANIFEST\n"
    "       stackprint check --policy DIR --fix [--target-release R] [--keep-driver]\n"
    "                        [--format text|json|markdown] [-o FILE] MANIFEST\n"
    "MANIFEST is a YAML or JSON manifest, '-' for stdin; with --host, an image's,\n"
    "checked with the host's kernel-side facts laid over it.\n"
    "options:\n"
    "  -p, --policy FILE|DIR  a policy file, or a folder of *.yaml and *.yml; repeatable;\n"
    "                         default: the installed policies, " INSTALLED_POLICIES "\n"
    "  -s, --strict           warning rows fail too, and so does an undocumented fact key\n"
    "  -f, --format FORMAT    text (default), json, junit, sarif or github;\n"
    "                         with --fix: text, json or markdown\n"
    "  -o, --output FILE      write the report to FILE (atomically), not stdout\n"
    "  -H, --host HOST_MANIFEST  check MANIFEST, an image's, on the host it describes\n"
    "      --fix              after the report, the pinned commands to a release the\n"
    "                         policies accept (needs the release catalog)\n"
    "      --target-release R with --fix: plan for release R\n"
    "      --keep-driver      with --fix: keep the loaded kernel driver\n"
    "  -h, --help             show this help\n"
    "exit status: 0 passed, 1 a requirement at error severity failed (with --strict,\n"
    "any), 2 usage, 4 unreadable input.\n";

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

int cmd_check(int argc, char **argv)
{
    static const struct option opts[] = {
        { "policy", required_argument, NULL, 'p' },
        { "format", required_argument, NULL, 'f' },
        { "strict", no_argument, NULL, 's' },
        { "output", required_argument, NULL, 'o' },
        { "host", required_argument, NULL, 'H' },
        { "fix", no_argument, NULL, 'F' },
        { "target-release", required_argument, NULL, 'T' },
        { "keep-driver", no_argument, NULL, 'K' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int fix = 0, markdown = 0;
    struct sp_fix_opts fix_opts = { 0 };
    const char **policies = calloc((size_t)argc + 1, sizeof *policies);
    size_t npolicies = 0;
    const char *out = NULL, *hostpath = NULL;
    enum sp_format format = SP_FORMAT_TEXT;
    struct sp_eval_ctx ctx = { 0 };
    int c, rc;

    if (policies == NULL) {
        fprintf(stderr, "stackprint: check: out of memory\n");
        return SP_EXIT_INPUT;
    }
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":p:f:so:H:hFT:K", opts, NULL)) != -1) {
        switch (c) {
        case 'p': policies[npolicies++] = optarg; break;
        case 'F': fix = 1; break;
        case 'T': fix_opts.target_release = optarg; break;
        case 'K': fix_opts.keep_driver = 1; break;
        case 'f':
            markdown = strcmp(optarg, "markdown") == 0;
            if (markdown) {
                format = SP_FORMAT_TEXT;
                break;
            }
            if (sp_format_by_name(optarg, &format) != 0) {
                free(policies);
                return sp_usage_error("check", "unknown format '%s' (text, json, junit, sarif or github)",
                                      optarg);
            }
            break;
        case 's': ctx.flags |= SP_EVAL_STRICT; break;
        case 'o': out = optarg; break;
        case 'H': hostpath = optarg; break;
        case 'h': free(policies); fputs(check_usage, stdout); return SP_EXIT_OK;
        case ':': free(policies); return sp_usage_error("check", "option '%s' needs a value", argv[optind - 1]);
        default: free(policies); return sp_usage_error("check", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind != argc - 1) {
        free(policies);
        return sp_usage_error("check", optind >= argc ? "a manifest is required"
                                                      : "one manifest only");
    }
    if (!fix && (markdown || fix_opts.target_release || fix_opts.keep_driver)) {
        free(policies);
        return sp_usage_error("check", "%s needs --fix", markdown ? "--format markdown"
                              : fix_opts.target_release ? "--target-release" : "--keep-driver");
    }
    if (fix && format != SP_FORMAT_TEXT && format != SP_FORMAT_JSON) {
        free(policies);
        return sp_usage_error("check", "--fix writes text, json or markdown");
    }
    if (fix && hostpath) {
        /* a plan's commands are run on one machine; an image and its host are two */
        free(policies);
        return sp_usage_error("check", "--fix and --host cannot be combined: plan the image and "
                              "the host each on its own manifest");
    }
    if (npolicies == 0) {
        struct stat st;
        if (stat(INSTALLED_POLICIES, &st) != 0 || !S_ISDIR(st.st_mode)) {
            free(policies);
            return sp_usage_error("check", "--policy is required (no installed policies in %s)",
                                  INSTALLED_POLICIES);
        }
        fprintf(stderr, "stackprint: check: no --policy given; using the installed policies in %s\n",
                INSTALLED_POLICIES);
        policies[npolicies++] = INSTALLED_POLICIES;
    }
    const char *path = argv[optind];
    if (hostpath && strcmp(hostpath, "-") == 0 && strcmp(path, "-") == 0) {
        free(policies);
        return sp_usage_error("check", "the host's and the image's manifests cannot both be standard input");
    }
    if (sp_same_file(out, hostpath)) {
        rc = sp_usage_error("check", "output '%s' is the host manifest '%s'; it would be overwritten",
                            out, hostpath);
        free(policies);
        return rc;
    }
    /* the report must not replace an input: the manifest or a policy */
    for (size_t i = 0; i <= npolicies; i++) {
        const char *in = i < npolicies ? policies[i] : path;
        if (sp_same_file(out, in)) {
            rc = sp_usage_error("check", "output '%s' is the %s '%s'; it would be overwritten",
                                out, i < npolicies ? "policy" : "manifest", in);
            free(policies);
            return rc;
        }
        size_t ol = out ? strlen(out) : 0;
        if (i < npolicies && ((ol > 5 && strcmp(out + ol - 5, ".yaml") == 0) ||
                              (ol > 4 && strcmp(out + ol - 4, ".yml") == 0)) &&
            sp_inside_dir(out, in)) {
            rc = sp_usage_error("check", "output '%s' is inside the policy folder '%s'; the "
                                "next check would load it as a policy", out, in);
            free(policies);
            return rc;
        }
    }

    struct sp_policy_set ps;
    struct manifest m, host;
    struct sp_report report;
    struct factset facts, overlaid;
    struct sp_error e = { 0 };
    char *buf = NULL, *shown = NULL, *host_shown = NULL, *both = NULL;
    size_t len = 0;
    sp_policy_set_init(&ps);
    manifest_init(&m);
    manifest_init(&host);
    sp_report_init(&report);
    factset_init(&facts);
    factset_init(&overlaid);
    for (size_t i = 0; i < npolicies; i++)
        if (sp_policy_load(&ps, policies[i], &e) != 0) {
            rc = sp_error_print(&e);
            goto done;
        }
    if (ps.count == 0) {
        /* a release catalog alone checks nothing: every check would pass */
        sp_fail(&e, SP_EXIT_INPUT, "%s: the release catalog alone, no policy: nothing to check "
                "(pass the policies too: --policy DIR)",
                ps.catalog_file ? ps.catalog_file : policies[npolicies - 1]);
        rc = sp_error_print(&e);
        goto done;
    }
    if (key_warnings(&ps, ctx.flags & SP_EVAL_STRICT) != 0) {
        fprintf(stderr, "stackprint: check: undocumented fact keys in the policies (--strict)\n");
        rc = SP_EXIT_INPUT;
        goto done;
    }
    if (manifest_load(path, &m, &e) != 0) {
        rc = sp_error_print(&e);
        goto done;
    }
    /* --host: the image's facts with the host's kernel-side facts over them */
    if (hostpath && manifest_load(hostpath, &host, &e) != 0) {
        rc = sp_error_print(&e);
        goto done;
    }
    if (hostpath && host.subject && strncmp(host.subject, "image:", 6) == 0) {
        /* an image knows no host: the two manifests were most likely swapped */
        rc = sp_usage_error("check", "--host '%s' is an image's manifest (subject %s); "
                            "--host names the host's, MANIFEST the image's", hostpath, host.subject);
        goto done;
    }
    if (hostpath && sp_host_overlay(&m.facts, &host.facts, &overlaid, &e) != 0) {
        rc = sp_error_print(&e);
        goto done;
    }
    /* the manifest's facts plus those the release catalog derives */
    if (sp_eval_facts(&ps, hostpath ? &overlaid : &m.facts, &facts, &e) != 0) {
        rc = sp_error_print(&e);
        goto done;
    }
    ctx.facts = &facts;
    /* reports are UTF-8 (JSON, XML): a file name that is not is shown \xNN */
    shown = sp_utf8_sanitize(path, strlen(path));
    if (hostpath) {
        host_shown = sp_utf8_sanitize(hostpath, strlen(hostpath));
        if (asprintf(&both, "%s on %s", m.subject ? m.subject : "-",
                     host.subject ? host.subject : "-") < 0)
            both = NULL;
        if (host_shown == NULL || both == NULL) {
            rc = sp_error_print(&(struct sp_error){ SP_EXIT_INPUT, "check: out of memory" });
            goto done;
        }
    }
    struct sp_report_meta meta = {
        .manifest = shown, .subject = m.subject, .stack_id = m.stack_id[0] ? m.stack_id : NULL,
        .colour = format == SP_FORMAT_TEXT && want_colour(out), .facts = &facts,
        .host_manifest = host_shown, .host_subject = host.subject,
        .host_stack_id = hostpath && host.stack_id[0] ? host.stack_id : NULL,
    };
    if (both)
        meta.subject = both;
    if (shown == NULL) {
        rc = sp_error_print(&(struct sp_error){ SP_EXIT_INPUT, "check: out of memory" });
        goto done;
    }
    if (sp_evaluate(&ps, &ctx, &report, &e) != 0 ||
        (!markdown && sp_report_render(&report, &meta, format, &buf, &len, &e) != 0) ||
        (fix && with_plan(&ps, &m.facts, &report, &fix_opts, format, markdown, &buf, &len, &e) != 0) ||
        sp_write_output(out, buf, len, &e) != 0) {
        rc = sp_error_print(&e);
        goto done;
    }
    rc = report.passed ? SP_EXIT_OK : SP_EXIT_FAIL;
done:
    free(buf);
    free(shown);
    free(host_shown);
    free(both);
    free(policies);
    sp_report_free(&report);
    manifest_free(&m);
    manifest_free(&host);
    factset_free(&facts);
    factset_free(&overlaid);
    sp_policy_set_free(&ps);
    return rc;
}
