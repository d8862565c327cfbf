/* cli/cmd_attest.c: stackprint attest: sign an in-toto test-result
 * attestation binding a JUnit report to the manifest of the stack it ran on
 * (stackprint-attest(1)).  The envelope is written atomically; the report,
 * the manifest and its envelope are only read. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/commands.h"
#include "junit/junit.h"
#include "junit/testresult.h"
#include "manifest/dsse.h"
#include "manifest/manifest.h"

static const char attest_usage[] =
    "usage: stackprint attest -j|--junit RESULTS.xml -k|--key KEY [-o|--output ENVELOPE]\n"
    "                         [-e|--envelope MANIFEST_ENVELOPE] [-u|--url URL] MANIFEST\n"
    "Sign an in-toto test-result attestation binding RESULTS.xml to MANIFEST.\n"
    "options:\n"
    "  -j, --junit RESULTS.xml   the JUnit report attested\n"
    "  -k, --key KEY             the private key (PEM file or store URI)\n"
    "  -o, --output ENVELOPE     the envelope (default RESULTS.xml.intoto.json)\n"
    "  -e, --envelope FILE       the manifest's envelope (default MANIFEST.intoto.json, when it exists)\n"
    "  -u, --url URL             the report's location, recorded in the statement\n"
    "  -h, --help                show this help\n";

#define ENVELOPE_SUFFIX ".intoto.json"
#define PATH_MAX_BYTES 4000     /* bytes in a path an output name is made from */
#define URL_MAX_BYTES 8192

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return strcmp(path, "-") == 0 ? "stdin" : slash ? slash + 1 : path;
}

int cmd_attest(int argc, char **argv)
{
    static const struct option opts[] = {
        { "junit", required_argument, NULL, 'j' },
        { "key", required_argument, NULL, 'k' },
        { "output", required_argument, NULL, 'o' },
        { "envelope", required_argument, NULL, 'e' },
        { "url", required_argument, NULL, 'u' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *junit = NULL, *keyarg = NULL, *out = NULL, *envarg = NULL, *url = NULL;
    int c;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":j:k:o:e:u:h", opts, NULL)) != -1) {
        switch (c) {
        case 'j': junit = optarg; break;
        case 'k': keyarg = optarg; break;
        case 'o': out = optarg; break;
        case 'e': envarg = optarg; break;
        case 'u': url = optarg; break;
        case 'h': fputs(attest_usage, stdout); return SP_EXIT_OK;
        case ':': return sp_usage_error("attest", "option '%s' needs a value", argv[optind - 1]);
        default: return sp_usage_error("attest", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (junit == NULL)
        return sp_usage_error("attest", "--junit RESULTS.xml is required");
    if (keyarg == NULL)
        return sp_usage_error("attest", "--key KEY is required");
    if (optind != argc - 1)
        return sp_usage_error("attest", optind < argc ? "one MANIFEST only" : "MANIFEST is required");
    const char *path = argv[optind];
    if (strcmp(path, "-") == 0 && strcmp(junit, "-") == 0)
        return sp_usage_error("attest", "the manifest and the report cannot both be standard input");
    if (url && (url[0] == '\0' || strlen(url) > URL_MAX_BYTES))
        return sp_usage_error("attest", "--url needs a URL of 1 to %d bytes", URL_MAX_BYTES);
    if (out == NULL && strcmp(junit, "-") == 0)
        return sp_usage_error("attest", "a report from standard input needs -o ENVELOPE");
    if (strlen(junit) > PATH_MAX_BYTES || strlen(path) > PATH_MAX_BYTES)
        return sp_usage_error("attest", "path longer than %d bytes", PATH_MAX_BYTES);
    char outpath[PATH_MAX_BYTES + sizeof ENVELOPE_SUFFIX];
    if (out == NULL) {
        snprintf(outpath, sizeof outpath, "%s" ENVELOPE_SUFFIX, junit);
        out = outpath;
    }
    /* the manifest's envelope: named, or the default one when it exists */
    char manenv[PATH_MAX_BYTES + sizeof ENVELOPE_SUFFIX];
    struct stat st;
    if (envarg == NULL && strcmp(path, "-") != 0) {
        snprintf(manenv, sizeof manenv, "%s" ENVELOPE_SUFFIX, path);
        if (stat(manenv, &st) == 0 && S_ISREG(st.st_mode))
            envarg = manenv;
    }
    /* the attestation must not replace an input */
    const char *inputs[] = { keyarg, path, junit, envarg };
    const char *what[] = { "the key file", "the manifest", "the report", "the manifest's envelope" };
    for (size_t i = 0; i < 4; i++)
        if (sp_same_file(out, inputs[i]))
            return sp_usage_error("attest", "output '%s' is %s; it would be overwritten", out,
                                  what[i]);

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
