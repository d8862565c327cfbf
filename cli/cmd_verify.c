/* cli/cmd_verify.c: stackprint verify: check a manifest's DSSE envelope
 * under the public key the user names, never a key from the envelope
 * (stackprint-verify(1)).  Prints one line on success; exits 3 naming the
 * first check that failed. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "export/bom_statement.h"
#include "manifest/dsse.h"
#include "manifest/manifest.h"
#include "junit/junit.h"
#include "junit/testresult.h"

static const char verify_usage[] =
    "usage: stackprint verify -p|--pub PUB [-e|--envelope FILE] MANIFEST\n"
    "       stackprint verify -p|--pub PUB [-e|--envelope FILE] [-m|--manifest M] RESULTS.xml\n"
    "Verify MANIFEST's DSSE envelope (its predicate the manifest or its CycloneDX BOM),\n"
    "or the test-result attestation of a JUnit report (stackprint attest), with the\n"
    "public key PUB; exit 3 when it fails.\n"
    "options:\n"
    "  -p, --pub PUB          the public key (PEM file or store URI) to trust\n"
    "  -e, --envelope FILE    the envelope (default MANIFEST.intoto.json, RESULTS.xml.intoto.json)\n"
    "  -m, --manifest M       with a report: also check that M is the manifest attested\n"
    "  -h, --help             show this help\n";

#define ENVELOPE_SUFFIX ".intoto.json"
#define PATH_MAX_BYTES 4000     /* bytes in MANIFEST when the envelope name is made from it */

/* Print S with anything outside printable ASCII as '?': the subject name
 * comes from the envelope and must not drive the terminal. */
static void print_safe(const char *s)
{
    for (; *s; s++)
        putchar(*s >= 0x20 && *s <= 0x7e ? *s : '?');
}

int cmd_verify(int argc, char **argv)
{
    static const struct option opts[] = {
        { "pub", required_argument, NULL, 'p' },
        { "envelope", required_argument, NULL, 'e' },
        { "manifest", required_argument, NULL, 'm' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *pubarg = NULL, *envarg = NULL, *config = NULL;
    struct sp_error e = { 0 };
    int c;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":p:e:m:h", opts, NULL)) != -1) {
        switch (c) {
        case 'p': pubarg = optarg; break;
        case 'e': envarg = optarg; break;
        case 'm': config = optarg; break;
        case 'h': fputs(verify_usage, stdout); return SP_EXIT_OK;
        case ':': return sp_usage_error("verify", "option '%s' needs a value", argv[optind - 1]);
        default: return sp_usage_error("verify", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (pubarg == NULL)
        return sp_usage_error("verify", "--pub PUB is required");
    if (optind != argc - 1)
        return sp_usage_error("verify", optind < argc ? "one MANIFEST only" : "MANIFEST is required");
    const char *path = argv[optind];
    int from_stdin = strcmp(path, "-") == 0;
    if (from_stdin && envarg == NULL)
        return sp_usage_error("verify", "a manifest from standard input needs --envelope FILE");
    if (from_stdin && strcmp(envarg, "-") == 0)
        return sp_usage_error("verify", "the manifest and the envelope cannot both be standard input");
    if (envarg == NULL && strlen(path) > PATH_MAX_BYTES)
        return sp_usage_error("verify", "MANIFEST path longer than %d bytes", PATH_MAX_BYTES);
    char envpath[PATH_MAX_BYTES + sizeof ENVELOPE_SUFFIX];
    if (envarg == NULL) {
        snprintf(envpath, sizeof envpath, "%s" ENVELOPE_SUFFIX, path);
        envarg = envpath;
    }

    char *man = NULL, *env = NULL, *cfg = NULL, hex[65];
    size_t manlen = 0, envlen = 0, cfglen = 0;
    EVP_PKEY *pub = NULL;
    struct sp_verified v = { 0 };
    int rc = SP_EXIT_OK;
    /* a file that is XML is a test report, attested by stackprint attest */
    int report = 0;
    if (sp_read_file(path, SP_MANIFEST_MAX_BYTES, "manifest", &man, &manlen, &e) == 0) {
        size_t i = manlen >= 3 && memcmp(man, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
        while (i < manlen && (man[i] == ' ' || man[i] == '\t' || man[i] == '\n' || man[i] == '\r'))
            i++;
        report = i < manlen && man[i] == '<';
        if (config && !report) {
            rc = sp_usage_error("verify", "--manifest goes with a test report, and %s is not XML",
                                path);
            goto done;
        }
    }
    if (man == NULL ||
        sp_key_load_public(pubarg, &pub, &e) != 0 ||
        sp_read_file(envarg, SP_ENVELOPE_MAX_BYTES, "envelope", &env, &envlen, &e) != 0 ||
        (!report && sp_bom_envelope_claims(env, envlen)
             ? sp_bom_verify(env, envlen, strcmp(envarg, "-") == 0 ? "<stdin>" : envarg,
                             man, manlen, from_stdin ? "<stdin>" : path, pub, &v, &e)
             : sp_verify_statement(env, envlen, strcmp(envarg, "-") == 0 ? "<stdin>" : envarg,
                                   man, manlen, from_stdin ? "<stdin>" : path,
                                   report ? SP_TESTRESULT_PREDICATE_TYPE : SP_PREDICATE_TYPE,
                                   pub, &v, &e)) != 0 ||
        (config && sp_read_file(config, SP_MANIFEST_MAX_BYTES, "manifest", &cfg, &cfglen, &e) != 0)) {
        rc = sp_error_print(&e);
    } else if (config && (sp_sha256_hex(cfg, cfglen, hex) != 0 ||
                          !testresult_has_configuration(v.statement, hex))) {
        sp_fail(&e, SP_EXIT_VERIFY, "%s: configuration check failed: %s (sha256 %s) is not "
                "the attested configuration", strcmp(envarg, "-") == 0 ? "<stdin>" : envarg,
                config, hex);
        rc = sp_error_print(&e);
    } else {
        fputs("verified: ", stdout);
        print_safe(v.subject_name);
        printf(" sha256:%s signed by key %s, predicate %s\n", v.digest, v.keyid,
               v.predicate_type);
        if (config)
            printf("configuration: %s sha256:%s\n", config, hex);
    }
done:
    sp_verified_free(&v);
    EVP_PKEY_free(pub);
    free(man);
    free(env);
    free(cfg);
    return rc;
}
