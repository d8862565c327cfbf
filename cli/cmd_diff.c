/* cli/cmd_diff.c: stackprint diff: what changed between two manifests, in
 * the order a stack is read, with the direction of every version change
 * (stackprint-diff(1)).  Comparing is checks/compare.c, the release
 * inference checks/release.c (through sp_eval_facts), the rendering
 * checks/diff_report.c, signatures manifest/dsse.c; this file parses
 * options, reads the inputs and picks the exit status. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checks/compare.h"
#include "checks/diff_report.h"
#include "checks/evaluate.h"
#include "checks/policy.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "manifest/dsse.h"
#include "manifest/manifest.h"

/* the catalog `make install` puts in place, read when --catalog is not given */
#define DEFAULT_CATALOG SP_DATADIR "/policies/neuron/catalog.yaml"

static const struct sp_command_help diff_help = {
    "diff",
    "usage: stackprint diff [--format text|json|markdown] [--all] [--ignore GLOB]...\n"
    "                       [--pub KEY [--envelope OLD_ENV --envelope NEW_ENV]]\n"
    "                       [--catalog FILE|DIR] [-o FILE] OLD NEW\n"
    "OLD and NEW are YAML or JSON manifests (one may be '-' for stdin).\n",
    25,
    "exit status: 0 the same stack, 1 differences, 2 usage, 3 a signature does not\n"
    "verify, 4 unreadable or malformed input.\n",
    SP_OPERANDS_ANY, NULL, NULL,
};

/* The command line, parsed. */
struct diff_args {
    struct sp_opt_list ignore, envs;
    const char *pubarg, *catarg, *out;
    const char *paths[2];
    enum sp_diff_format format;
    unsigned flags;             /* SP_COMPARE_ALL */
};

/* --format: text, json or markdown, into the enum sp_diff_format at O->value */
static int format_arg(const struct sp_option *o, const char *arg, const char *cmd)
{
    if (sp_diff_format_by_name(arg, o->value) != 0)
        return sp_usage_error(cmd, "unknown format '%s' (text, json or markdown)", arg);
    return 0;
}

/* --envelope: twice at most */
static int envelope_arg(const struct sp_option *o, const char *arg, const char *cmd)
{
    (void)arg;
    if (((const struct sp_opt_list *)o->value)->n == 2)
        return sp_usage_error(cmd, "--envelope twice at most: OLD's, then NEW's");
    return 0;
}

/* The operands of A, checked: the usage error, or NULL. */
static const char *operands_error(const struct diff_args *a, int n, char **operands)
{
    if (n != 2)
        return n < 2 ? "OLD and NEW manifests are required" : "two manifests only: OLD NEW";
    int stdin0 = strcmp(operands[0], "-") == 0, stdin1 = strcmp(operands[1], "-") == 0;
    if (stdin0 && stdin1)
        return "OLD and NEW cannot both be standard input";
    if (a->envs.n && a->pubarg == NULL)
        return "--envelope needs --pub";
    if (a->envs.n == 1)
        return "--envelope is given for both manifests: OLD's, then NEW's";
    if (a->pubarg && a->envs.n == 0 && (stdin0 || stdin1))
        return "a manifest from standard input needs --envelope for both";
    return NULL;
}

/* Parse and check ARGV into A.  Returns SP_OPTIONS_GO_ON or an exit status. */
static int diff_parse(int argc, char **argv, struct diff_args *a)
{
    const struct sp_option opts[] = {
        SP_OPTION_CALL('f', "format", "FORMAT", &a->format, format_arg,
                       "text (default), json or markdown"),
        SP_OPTION_BITS('a', "all", &a->flags, SP_COMPARE_ALL, "report volatile keys and created too"),
        SP_OPTION_LIST('i', "ignore", "GLOB", &a->ignore, 0,
                       "leave out keys matching GLOB ('*' crosses dots); repeatable"),
        SP_OPTION_STRING('p', "pub", "KEY", &a->pubarg, "both manifests' envelopes must verify under KEY"),
        SP_OPTION_CHECKED('e', "envelope", "FILE", SP_OPT_LIST, &a->envs, 0, envelope_arg,
                          "with --pub, twice: OLD's envelope, then NEW's\n"
                          "(default: MANIFEST.intoto.json)"),
        SP_OPTION_STRING('c', "catalog", "PATH", &a->catarg,
                         "the release catalog (file or policy folder) for the SDK\n"
                         "release line; default: the installed one"),
        SP_OPTION_STRING('o', "output", "FILE", &a->out,
                         "write the report to FILE (atomically), not stdout"),
        SP_OPTION_END,
    };
    int optind, rc = sp_options_parse(&diff_help, opts, argc, argv, &optind);
    if (rc != SP_OPTIONS_GO_ON)
        return rc;
    const char *usage = operands_error(a, argc - optind, argv + optind);
    if (usage)
        return sp_usage_error("diff", "%s", usage);
    a->paths[0] = argv[optind];
    a->paths[1] = argv[optind + 1];
    for (int i = 0; i < 2; i++)
        if (sp_same_file(a->out, a->paths[i]) || (a->envs.n && sp_same_file(a->out, a->envs.v[i])))
            return sp_usage_error("diff", "output '%s' is an input; it would be overwritten", a->out);
    return SP_OPTIONS_GO_ON;
}

/* One side: read PATH (verifying its envelope under PUB when PUB is set),
 * then parse it.  Returns 0 or -1 with E set. */
static int load_side(const char *path, const char *envpath, EVP_PKEY *pub,
                     struct manifest *m, struct sp_error *e)
{
    if (pub == NULL)
        return manifest_load(path, m, e);
    char *man = NULL, *env = NULL;
    size_t manlen = 0, envlen = 0;
    struct sp_verified v = { 0 };
    const char *shown = strcmp(path, "-") == 0 ? "<stdin>" : path;
    int rc = -1;
    if (sp_read_file(path, SP_MANIFEST_MAX_BYTES, "manifest", &man, &manlen, e) == 0 &&
        sp_read_file(envpath, SP_ENVELOPE_MAX_BYTES, "envelope", &env, &envlen, e) == 0 &&
        sp_verify_manifest(env, envlen, strcmp(envpath, "-") == 0 ? "<stdin>" : envpath,
                           man, manlen, shown, pub, &v, e) == 0 &&
        manifest_parse(man, manlen, shown, m, e) == 0)
        rc = 0;
    sp_verified_free(&v);
    free(man);
    free(env);
    return rc;
}

/* What the run holds, freed by diff_free. */
struct diff_run {
    struct manifest m[2];
    struct factset derived[2];     /* each side's facts plus the catalog's (release.h) */
    struct sp_policy_set ps;
    EVP_PKEY *pub;
    char *envpath[2], *shown[2];
};

/* Read both sides (verifying them under --pub) and the release catalog;
 * derive each side's facts.  Returns 0 or -1 with E set. */
static int diff_load(const struct diff_args *a, struct diff_run *r, struct sp_error *e)
{
    if (a->pubarg && sp_key_load_public(a->pubarg, &r->pub, e) != 0)
        return -1;
    for (int i = 0; i < 2; i++) {
        if (r->pub && a->envs.n == 0 &&
            asprintf(&r->envpath[i], "%s" SP_ENVELOPE_SUFFIX, a->paths[i]) < 0) {
            r->envpath[i] = NULL;
            return sp_fail(e, SP_EXIT_INPUT, "diff: out of memory");
        }
        if (load_side(a->paths[i], r->envpath[i] ? r->envpath[i] : a->envs.v ? a->envs.v[i] : NULL,
                      r->pub, &r->m[i], e) != 0)
            return -1;
    }
    /* the release catalog: --catalog, else the installed one if present */
    const char *catarg = a->catarg;
    if (catarg == NULL && access(DEFAULT_CATALOG, R_OK) == 0)
        catarg = DEFAULT_CATALOG;
    if (catarg && sp_policy_load(&r->ps, catarg, e) != 0)
        return -1;
    if (catarg && r->ps.catalog == NULL)
        return sp_fail(e, SP_EXIT_INPUT, "%s: no release catalog in it", catarg);
    for (int i = 0; i < 2; i++)
        if (r->ps.catalog && sp_eval_facts(&r->ps, &r->m[i].facts, &r->derived[i], e) != 0) {
            factset_init(&r->derived[i]);      /* freed by sp_eval_facts */
            return -1;
        }
    return 0;
}

/* Compare the sides, render the report, write it.  Returns the exit
 * status: differences or none; or -1 with E set. */
static int diff_report(const struct diff_args *a, struct diff_run *r, struct sp_error *e)
{
    struct sp_compare_opts co = { .ignore = a->ignore.v, .nignore = a->ignore.n, .flags = a->flags,
                                  .old_created = r->m[0].created, .new_created = r->m[1].created };
    struct sp_diff d;
    char *buf = NULL;
    size_t len = 0;
    int rc = -1;
    sp_diff_init(&d);
    for (int i = 0; i < 2; i++)
        if ((r->shown[i] = sp_utf8_sanitize(a->paths[i], strlen(a->paths[i]))) == NULL) {
            sp_fail(e, SP_EXIT_INPUT, "diff: out of memory");
            goto out;
        }
    struct sp_diff_meta meta = { .inferred = r->ps.catalog != NULL };
    struct sp_diff_side *sides[2] = { &meta.old_side, &meta.new_side };
    for (int i = 0; i < 2; i++)
        *sides[i] = (struct sp_diff_side){
            .manifest = r->shown[i], .subject = r->m[i].subject,
            .stack_id = r->m[i].stack_id[0] ? r->m[i].stack_id : NULL,
            .sdk_release = factset_get(&r->derived[i], "neuron.sdk.release"),
        };
    if (sp_compare(&r->m[0].facts, &r->m[1].facts, &co, &d, e) == 0 &&
        sp_diff_render(&d, &meta, a->format, &buf, &len, e) == 0 &&
        sp_write_output(a->out, buf, len, e) == 0)
        rc = d.count ? SP_EXIT_FAIL : SP_EXIT_OK;
out:
    free(buf);
    sp_diff_free(&d);
    return rc;
}

int cmd_diff(int argc, char **argv)
{
    struct diff_args a = { .format = SP_DIFF_TEXT };
    struct diff_run r = { 0 };
    struct sp_error e = { 0 };
    int rc = diff_parse(argc, argv, &a);
    if (rc == SP_OPTIONS_GO_ON) {
        for (int i = 0; i < 2; i++) {
            manifest_init(&r.m[i]);
            factset_init(&r.derived[i]);
        }
        sp_policy_set_init(&r.ps);
        if (diff_load(&a, &r, &e) != 0 || (rc = diff_report(&a, &r, &e)) < 0)
            rc = sp_error_print(&e);
        for (int i = 0; i < 2; i++) {
            free(r.envpath[i]);
            free(r.shown[i]);
            manifest_free(&r.m[i]);
            factset_free(&r.derived[i]);
        }
        EVP_PKEY_free(r.pub);
        sp_policy_set_free(&r.ps);
    }
    free(a.ignore.v);
    free(a.envs.v);
    return rc;
}
