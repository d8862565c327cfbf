/* cli/cmd_attest.c: stackprint attest: sign an in-toto test-result
 * attestation binding a JUnit report to the manifest of the stack it ran on
 * (stackprint-attest(1)).  The envelope is written atomically; the report,
 * the manifest and its envelope are only read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "junit/junit.h"
#include "junit/testresult.h"
#include "manifest/dsse.h"
#include "manifest/manifest.h"

static const struct sp_command_help attest_help = {
    "attest",
    "usage: stackprint attest -j|--junit RESULTS.xml -k|--key KEY [-o|--output ENVELOPE]\n"
    "                         [-e|--envelope MANIFEST_ENVELOPE] [-u|--url URL] MANIFEST\n"
    "Sign an in-toto test-result attestation binding RESULTS.xml to MANIFEST.\n",
    28, NULL, SP_OPERANDS_ONE, "MANIFEST is required", "one MANIFEST only",
};

#define URL_MAX_BYTES 8192

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return strcmp(path, "-") == 0 ? "stdin" : slash ? slash + 1 : path;
}

/* The command line, parsed; OUTPATH and MANENV hold the default names. */
struct attest_args {
    const char *junit, *keyarg, *out, *envarg, *url, *path;
    char outpath[SP_PATH_MAX_BYTES + sizeof SP_ENVELOPE_SUFFIX];
    char manenv[SP_PATH_MAX_BYTES + sizeof SP_ENVELOPE_SUFFIX];
};

/* The operands and option values of A, checked; the default names filled
 * in.  Returns SP_OPTIONS_GO_ON or an exit status. */
static int attest_check(struct attest_args *a)
{
    const char *junit = a->junit, *path = a->path, *url = a->url;
    if (strcmp(path, "-") == 0 && strcmp(junit, "-") == 0)
        return sp_usage_error("attest", "the manifest and the report cannot both be standard input");
    if (url && (url[0] == '\0' || strlen(url) > URL_MAX_BYTES))
        return sp_usage_error("attest", "--url needs a URL of 1 to %d bytes", URL_MAX_BYTES);
    if (a->out == NULL && strcmp(junit, "-") == 0)
        return sp_usage_error("attest", "a report from standard input needs -o ENVELOPE");
    if (strlen(junit) > SP_PATH_MAX_BYTES || strlen(path) > SP_PATH_MAX_BYTES)
        return sp_usage_error("attest", "path longer than %d bytes", SP_PATH_MAX_BYTES);
    if (a->out == NULL) {
        snprintf(a->outpath, sizeof a->outpath, "%s" SP_ENVELOPE_SUFFIX, junit);
        a->out = a->outpath;
    }
    /* the manifest's envelope: named, or the default one when it exists */
    struct stat st;
    if (a->envarg == NULL && strcmp(path, "-") != 0) {
        snprintf(a->manenv, sizeof a->manenv, "%s" SP_ENVELOPE_SUFFIX, path);
        if (stat(a->manenv, &st) == 0 && S_ISREG(st.st_mode))
            a->envarg = a->manenv;
    }
    /* the attestation must not replace an input */
    const char *inputs[] = { a->keyarg, path, junit, a->envarg };
    const char *what[] = { "the key file", "the manifest", "the report", "the manifest's envelope" };
    for (size_t i = 0; i < 4; i++)
        if (sp_same_file(a->out, inputs[i]))
            return sp_usage_error("attest", "output '%s' is %s; it would be overwritten", a->out,
                                  what[i]);
    return SP_OPTIONS_GO_ON;
}

/* Parse ARGV into A.  Returns SP_OPTIONS_GO_ON or an exit status. */
static int attest_parse(int argc, char **argv, struct attest_args *a)
{
    const struct sp_option opts[] = {
        SP_OPTION_REQUIRED('j', "junit", "RESULTS.xml", &a->junit, "the JUnit report attested"),
        SP_OPTION_REQUIRED('k', "key", "KEY", &a->keyarg, "the private key (PEM file or store URI)"),
        SP_OPTION_STRING('o', "output", "ENVELOPE", &a->out,
                         "the envelope (default RESULTS.xml.intoto.json)"),
        SP_OPTION_STRING('e', "envelope", "FILE", &a->envarg,
                         "the manifest's envelope (default MANIFEST.intoto.json, when it exists)"),
        SP_OPTION_STRING('u', "url", "URL", &a->url, "the report's location, recorded in the statement"),
        SP_OPTION_END,
    };
    int optind, rc = sp_options_parse(&attest_help, opts, argc, argv, &optind);
    if (rc != SP_OPTIONS_GO_ON)
        return rc;
    a->path = argv[optind];
    return attest_check(a);
}

/* Read the inputs, sign the statement, write the envelope. */
static int attest_run(const struct attest_args *a)
{
    const char *junit = a->junit, *keyarg = a->keyarg, *out = a->out, *envarg = a->envarg;
    const char *url = a->url, *path = a->path;
    struct sp_error e = { 0 };
    struct manifest m;
    struct junit_summary sum = { 0 };
    char *man = NULL, *rep = NULL, *env = NULL, *stmt = NULL, *res = NULL;
    size_t manlen = 0, replen = 0, envlen = 0, stmtlen = 0, reslen = 0;
    EVP_PKEY *key = NULL;
    int rc = SP_EXIT_OK;
    manifest_init(&m);
    if (sp_read_file(path, SP_MANIFEST_MAX_BYTES, "manifest", &man, &manlen, &e) != 0 ||
        manifest_parse(man, manlen, strcmp(path, "-") == 0 ? "<stdin>" : path, &m, &e) != 0 ||
        (envarg && sp_read_file(envarg, SP_ENVELOPE_MAX_BYTES, "envelope", &env, &envlen, &e) != 0) ||
        sp_read_file(junit, SP_JUNIT_MAX_BYTES, "JUnit report", &rep, &replen, &e) != 0 ||
        junit_summarize(rep, replen, strcmp(junit, "-") == 0 ? "<stdin>" : junit, &sum, &e) != 0 ||
        sp_key_load_private(keyarg, &key, &e) != 0) {
        rc = sp_error_print(&e);
        goto done;
    }
    struct testresult_input in = {
        .report_name = base_name(junit), .report = rep, .report_len = replen,
        .summary = &sum,
        .manifest_name = base_name(path), .manifest = man, .manifest_len = manlen,
        .stack_id = m.stack_id,
        .envelope_name = envarg ? base_name(envarg) : NULL, .envelope = env, .envelope_len = envlen,
        .url = url,
    };
    if (testresult_statement(&in, &stmt, &stmtlen, &e) != 0 ||
        dsse_envelope_sign(DSSE_PAYLOAD_TYPE, (const unsigned char *)stmt, stmtlen, key,
                           &res, &reslen, &e) != 0 ||
        sp_write_output(out, res, reslen, &e) != 0)
        rc = sp_error_print(&e);
done:
    junit_summary_free(&sum);
    manifest_free(&m);
    EVP_PKEY_free(key);
    free(man);
    free(rep);
    free(env);
    free(stmt);
    free(res);
    return rc;
}

int cmd_attest(int argc, char **argv)
{
    struct attest_args a = { 0 };
    int rc = attest_parse(argc, argv, &a);
    return rc == SP_OPTIONS_GO_ON ? attest_run(&a) : rc;
}
