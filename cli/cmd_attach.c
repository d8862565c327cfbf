/* cli/cmd_attach.c: stackprint attach: write a manifest's stack into a JUnit
 * XML report as properties of every test suite (stackprint-attach(1)).
 * The report is written atomically (it may replace itself); the manifest
 * is only read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/evaluate.h"
#include "checks/policy.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "junit/junit.h"
#include "junit/testresult.h"
#include "manifest/manifest.h"

static const struct sp_command_help attach_help = {
    "attach",
    "usage: stackprint attach -j|--junit RESULTS.xml [-o|--output OUT.xml] [-f|--fact KEY]...\n"
    "                         [-c|--catalog FILE|DIR] MANIFEST\n"
    "Write RESULTS.xml with the manifest's stack as properties of every <testsuite>.\n",
    28, NULL, SP_OPERANDS_ONE, "MANIFEST is required", "one MANIFEST only",
};

#define FACTS_MAX 256           /* --fact options */

/* --fact: a key of 1 to SP_FACT_KEY_MAX bytes */
static int fact_arg(const struct sp_option *o, const char *arg, const char *cmd)
{
    (void)o;
    if (arg[0] == '\0' || strlen(arg) > SP_FACT_KEY_MAX)
        return sp_usage_error(cmd, "--fact needs a fact key of 1 to %d bytes", SP_FACT_KEY_MAX);
    return 0;
}

/* The command line, parsed. */
struct attach_args {
    const char *junit, *out, *catalog, *path;
    struct sp_opt_list facts;
};

/* Parse and check ARGV into A.  Returns SP_OPTIONS_GO_ON or an exit status. */
static int attach_parse(int argc, char **argv, struct attach_args *a)
{
    const struct sp_option opts[] = {
        SP_OPTION_REQUIRED('j', "junit", "RESULTS.xml", &a->junit, "the JUnit report to read"),
        SP_OPTION_STRING('o', "output", "OUT.xml", &a->out,
                         "write OUT.xml (may be RESULTS.xml itself) instead of stdout"),
        SP_OPTION_CHECKED('f', "fact", "KEY", SP_OPT_LIST, &a->facts, FACTS_MAX, fact_arg,
                          "one more fact as a property (repeatable)"),
        SP_OPTION_STRING('c', "catalog", "FILE|DIR", &a->catalog,
                         "the release catalog that infers neuron.sdk.release"),
        SP_OPTION_END,
    };
    int optind, rc = sp_options_parse(&attach_help, opts, argc, argv, &optind);
    if (rc != SP_OPTIONS_GO_ON)
        return rc;
    a->path = argv[optind];
    if (strcmp(a->path, "-") == 0 && strcmp(a->junit, "-") == 0)
        return sp_usage_error("attach", "the manifest and the report cannot both be standard input");
    if (sp_same_file(a->out, a->path))
        return sp_usage_error("attach", "output '%s' is the manifest; it would be overwritten", a->out);
    if (a->catalog && sp_same_file(a->out, a->catalog))
        return sp_usage_error("attach", "output '%s' is the catalog; it would be overwritten", a->out);
    return SP_OPTIONS_GO_ON;
}

/* Read the manifest, the catalog and the report; write the report with the
 * stack's properties. */
static int attach_run(const struct attach_args *a)
{
    const char *junit = a->junit, *out = a->out, *catalog = a->catalog, *path = a->path;
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
        junit_stack_props(&m, man, manlen, &facts, a->facts.v, a->facts.n, &props, &missing, &e) != 0 ||
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

int cmd_attach(int argc, char **argv)
{
    struct attach_args a = { 0 };
    int rc = attach_parse(argc, argv, &a);
    if (rc == SP_OPTIONS_GO_ON)
        rc = attach_run(&a);
    free(a.facts.v);
    return rc;
}
