/* cli/cmd_diff.c: stackprint diff: what changed between two manifests, in
 * the order a stack is read, with the direction of every version change
 * (stackprint-diff(1)).  Comparing is checks/compare.c, the release
 * inference checks/release.c (through sp_eval_facts), the rendering
 * checks/diff_report.c, signatures manifest/dsse.c; this file parses
 * options, reads the inputs and picks the exit status. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checks/compare.h"
#include "checks/diff_report.h"
#include "checks/evaluate.h"
#include "checks/policy.h"
#include "cli/commands.h"
#include "manifest/dsse.h"
#include "manifest/manifest.h"

#ifndef SP_DATADIR
#define SP_DATADIR "/usr/local/share/stackprint"
#endif
/* the catalog `make install` puts in place, read when --catalog is not given */
#define DEFAULT_CATALOG SP_DATADIR "/policies/neuron/catalog.yaml"
#define ENVELOPE_SUFFIX ".intoto.json"

static const char diff_usage[] =
    "usage: stackprint diff [--format text|json|markdown] [--all] [--ignore GLOB]...\n"
    "                       [--pub KEY [--envelope OLD_ENV --envelope NEW_ENV]]\n"
    "                       [--catalog FILE|DIR] [-o FILE] OLD NEW\n"
    "OLD and NEW are YAML or JSON manifests (one may be '-' for stdin).\n"
    "options:\n"
    "  -f, --format FORMAT    text (default), json or markdown\n"
    "  -a, --all              report volatile keys and created too\n"
    "  -i, --ignore GLOB      leave out keys matching GLOB ('*' crosses dots); repeatable\n"
    "  -p, --pub KEY          both manifests' envelopes must verify under KEY\n"
    "  -e, --envelope FILE    with --pub, twice: OLD's envelope, then NEW's\n"
    "                         (default: MANIFEST.intoto.json)\n"
    "  -c, --catalog PATH     the release catalog (file or policy folder) for the SDK\n"
    "                         release line; default: the installed one\n"
    "  -o, --output FILE      write the report to FILE (atomically), not stdout\n"
    "  -h, --help             show this help\n"
    "exit status: 0 the same stack, 1 differences, 2 usage, 3 a signature does not\n"
    "verify, 4 unreadable or malformed input.\n";

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

int cmd_diff(int argc, char **argv)
{
    static const struct option opts[] = {
        { "format", required_argument, NULL, 'f' },
        { "all", no_argument, NULL, 'a' },
        { "ignore", required_argument, NULL, 'i' },
        { "pub", required_argument, NULL, 'p' },
        { "envelope", required_argument, NULL, 'e' },
        { "catalog", required_argument, NULL, 'c' },
        { "output", required_argument, NULL, 'o' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char **ignore = calloc((size_t)argc + 1, sizeof *ignore);
    const char *envs[2] = { NULL, NULL };
    size_t nenvs = 0;
    const char *pubarg = NULL, *catarg = NULL, *out = NULL;
    enum sp_diff_format format = SP_DIFF_TEXT;
    struct sp_compare_opts co = { 0 };
    int c, rc;

    if (ignore == NULL) {
        fprintf(stderr, "stackprint: diff: out of memory\n");
        return SP_EXIT_INPUT;
    }
    co.ignore = ignore;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":f:ai:p:e:c:o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'f':
            if (sp_diff_format_by_name(optarg, &format) != 0) {
                free(ignore);
                return sp_usage_error("diff", "unknown format '%s' (text, json or markdown)", optarg);
            }
            break;
        case 'a': co.flags |= SP_COMPARE_ALL; break;
        case 'i': ignore[co.nignore++] = optarg; break;
        case 'p': pubarg = optarg; break;
        case 'e':
            if (nenvs == 2) {
                free(ignore);
                return sp_usage_error("diff", "--envelope twice at most: OLD's, then NEW's");
            }
            envs[nenvs++] = optarg;
            break;
        case 'c': catarg = optarg; break;
        case 'o': out = optarg; break;
        case 'h': free(ignore); fputs(diff_usage, stdout); return SP_EXIT_OK;
        case ':': free(ignore); return sp_usage_error("diff", "option '%s' needs a value", argv[optind - 1]);
        default: free(ignore); return sp_usage_error("diff", "unknown option '%s'", argv[optind - 1]);
        }
    }
    const char *usage = NULL;
    if (argc - optind != 2)
        usage = argc - optind < 2 ? "OLD and NEW manifests are required" : "two manifests only: OLD NEW";
    else if (strcmp(argv[optind], "-") == 0 && strcmp(argv[optind + 1], "-") == 0)
        usage = "OLD and NEW cannot both be standard input";
    else if (nenvs && pubarg == NULL)
        usage = "--envelope needs --pub";
    else if (nenvs == 1)
        usage = "--envelope is given for both manifests: OLD's, then NEW's";
    else if (pubarg && nenvs == 0 && (strcmp(argv[optind], "-") == 0 || strcmp(argv[optind + 1], "-") == 0))
        usage = "a manifest from standard input needs --envelope for both";
    if (usage) {
        free(ignore);
        return sp_usage_error("diff", "%s", usage);
    }
    const char *paths[2] = { argv[optind], argv[optind + 1] };
    for (int i = 0; i < 2; i++)
        if (sp_same_file(out, paths[i]) || (nenvs && sp_same_file(out, envs[i]))) {
            rc = sp_usage_error("diff", "output '%s' is an input; it would be overwritten", out);
            free(ignore);
            return rc;
        }

    struct manifest m[2];
    struct sp_policy_set ps;
    struct sp_diff d;
    struct sp_error e = { 0 };
    EVP_PKEY *pub = NULL;
    char *envpath[2] = { NULL, NULL }, *buf = NULL, *shown[2] = { NULL, NULL };
    struct factset derived[2];     /* each side's facts plus the catalog's (release.h) */
    size_t len = 0;
    manifest_init(&m[0]);
    manifest_init(&m[1]);
    factset_init(&derived[0]);
    factset_init(&derived[1]);
    sp_policy_set_init(&ps);
    sp_diff_init(&d);
    rc = SP_EXIT_INPUT;
    if (pubarg && sp_key_load_public(pubarg, &pub, &e) != 0) {
        rc = sp_error_print(&e);
        goto done;
    }
    for (int i = 0; i < 2; i++) {
        if (pub && nenvs == 0) {
            size_t n = strlen(paths[i]) + sizeof ENVELOPE_SUFFIX;
            if ((envpath[i] = malloc(n)) == NULL) {
                rc = sp_error_print(&(struct sp_error){ SP_EXIT_INPUT, "diff: out of memory" });
                goto done;
            }
            snprintf(envpath[i], n, "%s" ENVELOPE_SUFFIX, paths[i]);
        }
        if (load_side(paths[i], envpath[i] ? envpath[i] : envs[i], pub, &m[i], &e) != 0) {
            rc = sp_error_print(&e);
            goto done;
        }
    }
    /* the release catalog: --catalog, else the installed one if present */
    if (catarg == NULL && access(DEFAULT_CATALOG, R_OK) == 0)
        catarg = DEFAULT_CATALOG;
    if (catarg && sp_policy_load(&ps, catarg, &e) != 0) {
        rc = sp_error_print(&e);
        goto done;
    }
    if (catarg && ps.catalog == NULL) {
        sp_fail(&e, SP_EXIT_INPUT, "%s: no release catalog in it", catarg);
        rc = sp_error_print(&e);
        goto done;
    }
    for (int i = 0; i < 2; i++)
        if (ps.catalog && sp_eval_facts(&ps, &m[i].facts, &derived[i], &e) != 0) {
            factset_init(&derived[i]);      /* freed by sp_eval_facts */
            rc = sp_error_print(&e);
            goto done;
        }
    co.old_created = m[0].created;
    co.new_created = m[1].created;
    if (sp_compare(&m[0].facts, &m[1].facts, &co, &d, &e) != 0) {
        rc = sp_error_print(&e);
        goto done;
    }
    for (int i = 0; i < 2; i++)
        if ((shown[i] = sp_utf8_sanitize(paths[i], strlen(paths[i]))) == NULL) {
            rc = sp_error_print(&(struct sp_error){ SP_EXIT_INPUT, "diff: out of memory" });
            goto done;
        }
    struct sp_diff_meta meta = { .inferred = ps.catalog != NULL };
    struct sp_diff_side *sides[2] = { &meta.old_side, &meta.new_side };
    for (int i = 0; i < 2; i++)
        *sides[i] = (struct sp_diff_side){
            .manifest = shown[i], .subject = m[i].subject,
            .stack_id = m[i].stack_id[0] ? m[i].stack_id : NULL,
            .sdk_release = factset_get(&derived[i], "neuron.sdk.release"),
        };
    if (sp_diff_render(&d, &meta, format, &buf, &len, &e) != 0 ||
        sp_write_output(out, buf, len, &e) != 0) {
        rc = sp_error_print(&e);
        goto done;
    }
    rc = d.count ? SP_EXIT_FAIL : SP_EXIT_OK;
done:
    free(buf);
    for (int i = 0; i < 2; i++) {
        free(envpath[i]);
        free(shown[i]);
        manifest_free(&m[i]);
        factset_free(&derived[i]);
    }
    EVP_PKEY_free(pub);
    sp_diff_free(&d);
    sp_policy_set_free(&ps);
    free(ignore);
    return rc;
}
