/* cli/cmd_check.c: stackprint check: load the policies, read the manifest,
 * evaluate, write the report, choose the exit status (stackprint-check(1)).
 * All the work is in checks/; this file only parses options and prints. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checks/evaluate.h"
#include "checks/host_overlay.h"
#include "checks/policy.h"
#include "checks/report.h"
#include "commands.h"
#include "manifest/manifest.h"

static const char check_usage[] =
    "usage: stackprint check --policy FILE|DIR [--policy ...] [--strict]\n"
    "                        [--format text|json|junit|sarif|github] [-o FILE]\n"
    "                        [--host HOST_MANIFEST] MANIFEST\n"
    "MANIFEST is a YAML or JSON manifest, '-' for stdin; with --host, an image's,\n"
    "checked with the host's kernel-side facts laid over it.  Exit status: 0 passed,\n"
    "1 a requirement at error severity failed (with --strict, any), 2 usage,\n"
    "4 unreadable input.\n";

/* Colour only on a terminal, and never when NO_COLOR is set to anything but
 * the empty string (no-color.org). */
static int want_colour(const char *out)
{
    const char *nc = getenv("NO_COLOR");
    if (nc && *nc)
        return 0;
    return (out == NULL || strcmp(out, "-") == 0) && isatty(STDOUT_FILENO);
}

int cmd_check(int argc, char **argv)
{
    static const struct option opts[] = {
        { "policy", required_argument, NULL, 'p' },
        { "format", required_argument, NULL, 'f' },
        { "strict", no_argument, NULL, 's' },
        { "output", required_argument, NULL, 'o' },
        { "host", required_argument, NULL, 'H' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
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
    while ((c = getopt_long(argc, argv, ":p:f:so:H:h", opts, NULL)) != -1) {
        switch (c) {
        case 'p': policies[npolicies++] = optarg; break;
        case 'f':
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
    if (npolicies == 0 || optind != argc - 1) {
        free(policies);
        if (npolicies == 0)
            return sp_usage_error("check", "--policy is required");
        return sp_usage_error("check", optind >= argc ? "a manifest is required"
                                                      : "one manifest only");
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
        if (i < npolicies && ol > 5 && strcmp(out + ol - 5, ".yaml") == 0 &&
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
        sp_report_render(&report, &meta, format, &buf, &len, &e) != 0 ||
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
