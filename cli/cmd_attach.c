/* cli/cmd_attach.c: stackprint attach: write a manifest's stack into a JUnit
 * XML report as properties of every test suite (stackprint-attach(1)).
 * The report is written atomically (it may replace itself); the manifest
 * is only read. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/evaluate.h"
#include "checks/policy.h"
#include "cli/commands.h"
#include "junit/junit.h"
#include "junit/testresult.h"
#include "manifest/manifest.h"

static const char attach_usage[] =
    "usage: stackprint attach -j|--junit RESULTS.xml [-o|--output OUT.xml] [-f|--fact KEY]...\n"
    "                         [-c|--catalog FILE|DIR] MANIFEST\n"
    "Write RESULTS.xml with the manifest's stack as properties of every <testsuite>.\n"
    "options:\n"
    "  -j, --junit RESULTS.xml   the JUnit report to read\n"
    "  -o, --output OUT.xml      write OUT.xml (may be RESULTS.xml itself) instead of stdout\n"
    "  -f, --fact KEY            one more fact as a property (repeatable)\n"
    "  -c, --catalog FILE|DIR    the release catalog that infers neuron.sdk.release\n"
    "  -h, --help                show this help\n";

#define FACTS_MAX 256           /* --fact options */

int cmd_attach(int argc, char **argv)
{
    static const struct option opts[] = {
        { "junit", required_argument, NULL, 'j' },
        { "output", required_argument, NULL, 'o' },
        { "fact", required_argument, NULL, 'f' },
        { "catalog", required_argument, NULL, 'c' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *junit = NULL, *out = NULL, *catalog = NULL, *extra[FACTS_MAX];
    size_t nextra = 0;
    int c;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":j:o:f:c:h", opts, NULL)) != -1) {
        switch (c) {
        case 'j': junit = optarg; break;
        case 'o': out = optarg; break;
        case 'c': catalog = optarg; break;
        case 'f':
            if (nextra == FACTS_MAX)
                return sp_usage_error("attach", "more than %d --fact options", FACTS_MAX);
            if (optarg[0] == '\0' || strlen(optarg) > SP_FACT_KEY_MAX)
                return sp_usage_error("attach", "--fact needs a fact key of 1 to %d bytes",
                                      SP_FACT_KEY_MAX);
            extra[nextra++] = optarg;
            break;
        case 'h': fputs(attach_usage, stdout); return SP_EXIT_OK;
        case ':': return sp_usage_error("attach", "option '%s' needs a value", argv[optind - 1]);
        default: return sp_usage_error("attach", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (junit == NULL)
        return sp_usage_error("attach", "--junit RESULTS.xml is required");
    if (optind != argc - 1)
        return sp_usage_error("attach", optind < argc ? "one MANIFEST only" : "MANIFEST is required");
    const char *path = argv[optind];
    if (strcmp(path, "-") == 0 && strcmp(junit, "-") == 0)
        return sp_usage_error("attach", "the manifest and the report cannot both be standard input");
    if (sp_same_file(out, path))
        return sp_usage_error("attach", "output '%s' is the manifest; it would be overwritten", out);
    if (catalog && sp_same_file(out, catalog))
        return sp_usage_error("attach", "output '%s' is the catalog; it would be overwritten", out);

    struct sp_error e = { 0 };
    struct manifest m;
    struct sp_policy_set ps;
    struct factset facts;
    struct junit_props props = { 0 };
    char *man = NULL, *rep = NULL, *res = NULL;
    size_t manlen = 0, replen = 0, reslen = 0;
    const char *missing = NULL;
    int rc = SP_EXIT_OK;
    manifest_init(&m);
    sp_policy_set_init(&ps);
    factset_init(&facts);
    if (sp_read_file(path, SP_MANIFEST_MAX_BYTES, "manifest", &man, &manlen, &e) != 0 ||
        manifest_parse(man, manlen, strcmp(path, "-") == 0 ? "<stdin>" : path, &m, &e) != 0 ||
        (catalog && sp_policy_load(&ps, catalog, &e) != 0))
        goto fail;
    if (catalog && ps.catalog == NULL) {
        sp_fail(&e, SP_EXIT_INPUT, "%s: no release catalog in it", catalog);
        goto fail;
    }
    /* the manifest's facts plus those the release catalog derives */
    if (sp_eval_facts(&ps, &m.facts, &facts, &e) != 0 ||
        junit_stack_props(&m, man, manlen, &facts, extra, nextra, &props, &missing, &e) != 0 ||
        sp_read_file(junit, SP_JUNIT_MAX_BYTES, "JUnit report", &rep, &replen, &e) != 0 ||
        junit_attach(rep, replen, strcmp(junit, "-") == 0 ? "<stdin>" : junit,
                     props.items, props.n, &res, &reslen, &e) != 0 ||
        sp_write_output(out, res, reslen, &e) != 0)
        goto fail;
    if (missing != NULL)
        fprintf(stderr, "stackprint: note: %s has no fact %s; no property written for it\n",
                path, missing);
    goto done;
fail:
    rc = sp_error_print(&e);
done:
    junit_props_free(&props);
    factset_free(&facts);
    sp_policy_set_free(&ps);
    manifest_free(&m);
    free(man);
    free(rep);
    free(res);
    return rc;
}
