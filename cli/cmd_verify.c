/* cli/cmd_verify.c: stackprint verify: check a manifest's DSSE envelope
 * under the public key the user names, never a key from the envelope
 * (stackprint-verify(1)).  Prints one line on success; exits 3 naming the
 * first check that failed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "common/digest.h"
#include "export/bom_statement.h"
#include "manifest/dsse.h"
#include "manifest/manifest.h"
#include "junit/junit.h"
#include "junit/testresult.h"

static const struct sp_command_help verify_help = {
    "verify",
    "usage: stackprint verify -p|--pub PUB [-e|--envelope FILE] MANIFEST\n"
    "       stackprint verify -p|--pub PUB [-e|--envelope FILE] [-m|--manifest M] RESULTS.xml\n"
    "Verify MANIFEST's DSSE envelope (its predicate the manifest or its CycloneDX BOM),\n"
    "or the test-result attestation of a JUnit report (stackprint attest), with the\n"
    "public key PUB; exit 3 when it fails.\n",
    25, NULL, SP_OPERANDS_ONE, "MANIFEST is required", "one MANIFEST only",
};

/* Print S with anything outside printable ASCII as '?': the subject name
 * comes from the envelope and must not drive the terminal. */
static void print_safe(const char *s)
{
    for (; *s; s++)
        putchar(*s >= 0x20 && *s <= 0x7e ? *s : '?');
}

/* The command line, parsed; ENVPATH holds the default envelope name. */
struct verify_args {
    const char *pubarg, *envarg, *config, *path;
    char envpath[SP_PATH_MAX_BYTES + sizeof SP_ENVELOPE_SUFFIX];
};

/* Parse and check ARGV into A.  Returns SP_OPTIONS_GO_ON or an exit status. */
static int verify_parse(int argc, char **argv, struct verify_args *a)
{
    const struct sp_option opts[] = {
        SP_OPTION_REQUIRED('p', "pub", "PUB", &a->pubarg, "the public key (PEM file or store URI) to trust"),
        SP_OPTION_STRING('e', "envelope", "FILE", &a->envarg,
                         "the envelope (default MANIFEST.intoto.json, RESULTS.xml.intoto.json)"),
        SP_OPTION_STRING('m', "manifest", "M", &a->config,
                         "with a report: also check that M is the manifest attested"),
        SP_OPTION_END,
    };
    int optind, rc = sp_options_parse(&verify_help, opts, argc, argv, &optind);
    if (rc != SP_OPTIONS_GO_ON)
        return rc;
    const char *path = a->path = argv[optind];
    int from_stdin = strcmp(path, "-") == 0;
    if (from_stdin && a->envarg == NULL)
        return sp_usage_error("verify", "a manifest from standard input needs --envelope FILE");
    if (from_stdin && strcmp(a->envarg, "-") == 0)
        return sp_usage_error("verify", "the manifest and the envelope cannot both be standard input");
    if (a->envarg == NULL && strlen(path) > SP_PATH_MAX_BYTES)
        return sp_usage_error("verify", "MANIFEST path longer than %d bytes", SP_PATH_MAX_BYTES);
    if (a->envarg == NULL) {
        snprintf(a->envpath, sizeof a->envpath, "%s" SP_ENVELOPE_SUFFIX, path);
        a->envarg = a->envpath;
    }
    return SP_OPTIONS_GO_ON;
}

/* 1 when the LEN bytes at BUF are XML (a test report, attested by
 * stackprint attest): after a UTF-8 byte order mark and blanks, '<'. */
static int is_report(const char *buf, size_t len)
{
    size_t i = len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
    while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r'))
        i++;
    return i < len && buf[i] == '<';
}

/* Verify the envelope over MAN (a manifest, or a REPORT) under the key;
 * with --manifest, check the attested configuration; print what was
 * verified.  Returns the exit status. */
static int verify_run(const struct verify_args *a, const char *man, size_t manlen, int report)
{
    const char *envarg = a->envarg, *config = a->config;
    const char *envshown = strcmp(envarg, "-") == 0 ? "<stdin>" : envarg;
    const char *manshown = strcmp(a->path, "-") == 0 ? "<stdin>" : a->path;
    char *env = NULL, *cfg = NULL, hex[SP_SHA256_HEX_LEN + 1];
    size_t envlen = 0, cfglen = 0;
    EVP_PKEY *pub = NULL;
    struct sp_verified v = { 0 };
    struct sp_error e = { 0 };
    int rc = SP_EXIT_OK;
    if (sp_key_load_public(a->pubarg, &pub, &e) != 0 ||
        sp_read_file(envarg, SP_ENVELOPE_MAX_BYTES, "envelope", &env, &envlen, &e) != 0 ||
        (!report && sp_bom_envelope_claims(env, envlen)
             ? sp_bom_verify(env, envlen, envshown, man, manlen, manshown, pub, &v, &e)
             : sp_verify_statement(env, envlen, envshown, man, manlen, manshown,
                                   report ? SP_TESTRESULT_PREDICATE_TYPE : SP_PREDICATE_TYPE,
                                   pub, &v, &e)) != 0 ||
        (config && sp_read_file(config, SP_MANIFEST_MAX_BYTES, "manifest", &cfg, &cfglen, &e) != 0)) {
        rc = sp_error_print(&e);
    } else if (config && (sp_sha256_hex(cfg, cfglen, hex) != 0 ||
                          !testresult_has_configuration(v.statement, hex))) {
        sp_fail(&e, SP_EXIT_VERIFY, "%s: configuration check failed: %s (sha256 %s) is not "
                "the attested configuration", envshown, config, hex);
        rc = sp_error_print(&e);
    } else {
        fputs("verified: ", stdout);
        print_safe(v.subject_name);
        printf(" sha256:%s signed by key %s, predicate %s\n", v.digest, v.keyid,
               v.predicate_type);
        if (config)
            printf("configuration: %s sha256:%s\n", config, hex);
    }
    sp_verified_free(&v);
    EVP_PKEY_free(pub);
    free(env);
    free(cfg);
    return rc;
}

int cmd_verify(int argc, char **argv)
{
    struct verify_args a = { 0 };
    struct sp_error e = { 0 };
    char *man = NULL;
    size_t manlen = 0;
    int rc = verify_parse(argc, argv, &a);
    if (rc != SP_OPTIONS_GO_ON)
        return rc;
    if (sp_read_file(a.path, SP_MANIFEST_MAX_BYTES, "manifest", &man, &manlen, &e) != 0)
        return sp_error_print(&e);
    int report = is_report(man, manlen);
    if (a.config && !report)
        rc = sp_usage_error("verify", "--manifest goes with a test report, and %s is not XML", a.path);
    else
        rc = verify_run(&a, man, manlen, report);
    free(man);
    return rc;
}
