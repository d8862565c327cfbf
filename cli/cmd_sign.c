/* cli/cmd_sign.c: stackprint sign: sign a manifest into a DSSE envelope
 * holding an in-toto Statement (stackprint-sign(1)).  The envelope is
 * written atomically; the manifest is only read. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "export/bom_statement.h"
#include "manifest/dsse.h"
#include "manifest/manifest.h"

static const char sign_usage[] =
    "usage: stackprint sign -k|--key KEY [-o|--output ENVELOPE] [--predicate manifest|cyclonedx]\n"
    "                       MANIFEST\n"
    "Sign MANIFEST's exact bytes into a DSSE envelope (an in-toto Statement).\n"
    "options:\n"
    "  -k, --key KEY          the private key: a PEM file or an OpenSSL store URI\n"
    "  -o, --output ENVELOPE  where to write it (default MANIFEST.intoto.json);\n"
    "                         not KEY or MANIFEST\n"
    "      --predicate WHAT   the statement's predicate: manifest (the manifest as JSON,\n"
    "                         the default) or cyclonedx (its CycloneDX BOM)\n"
    "  -h, --help             show this help\n";

#define ENVELOPE_SUFFIX ".intoto.json"
#define PATH_MAX_BYTES 4000     /* bytes in MANIFEST when the envelope name is made from it */

int cmd_sign(int argc, char **argv)
{
    static const struct option opts[] = {
        { "key", required_argument, NULL, 'k' },
        { "output", required_argument, NULL, 'o' },
        { "predicate", required_argument, NULL, 'P' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *keyarg = NULL, *out = NULL;
    struct sp_error e = { 0 };
    int c, bom = 0;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":k:o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'k': keyarg = optarg; break;
        case 'o': out = optarg; break;
        case 'P':
            if (strcmp(optarg, "manifest") != 0 && strcmp(optarg, "cyclonedx") != 0)
                return sp_usage_error("sign", "unknown predicate '%s' (manifest or cyclonedx)",
                                      optarg);
            bom = strcmp(optarg, "cyclonedx") == 0;
            break;
        case 'h': fputs(sign_usage, stdout); return SP_EXIT_OK;
        case ':': return sp_usage_error("sign", "option '%s' needs a value", argv[optind - 1]);
        default: return sp_usage_error("sign", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (keyarg == NULL)
        return sp_usage_error("sign", "--key KEY is required");
    if (optind != argc - 1)
        return sp_usage_error("sign", optind < argc ? "one MANIFEST only" : "MANIFEST is required");
    const char *path = argv[optind];
    int from_stdin = strcmp(path, "-") == 0;
    if (from_stdin && out == NULL)
        return sp_usage_error("sign", "a manifest from standard input needs -o ENVELOPE");
    if (!from_stdin && strlen(path) > PATH_MAX_BYTES)
        return sp_usage_error("sign", "MANIFEST path longer than %d bytes", PATH_MAX_BYTES);
    char envpath[PATH_MAX_BYTES + sizeof ENVELOPE_SUFFIX];
    if (out == NULL) {
        snprintf(envpath, sizeof envpath, "%s" ENVELOPE_SUFFIX, path);
        out = envpath;
    }
    /* the envelope must not replace an input: the key or the manifest */
    if (sp_same_file(out, keyarg))
        return sp_usage_error("sign", "output '%s' is the key file; it would be overwritten", out);
    if (sp_same_file(out, path))
        return sp_usage_error("sign", "output '%s' is the manifest; it would be overwritten", out);
    const char *slash = strrchr(path, '/');
    const char *name = from_stdin ? "stdin" : slash ? slash + 1 : path;

    /* the manifest is read strictly under its own path first, so that an
     * error names the file as given (the statement names it by base name) */
    char *buf = NULL, *env = NULL, *stmt = NULL;
    size_t len = 0, envlen = 0, stmtlen = 0;
    EVP_PKEY *key = NULL;
    int rc = SP_EXIT_OK;
    struct manifest m;
    manifest_init(&m);
    if (sp_read_file(path, SP_MANIFEST_MAX_BYTES, "manifest", &buf, &len, &e) != 0 ||
        manifest_parse(buf, len, from_stdin ? "<stdin>" : path, &m, &e) != 0 ||
        sp_key_load_private(keyarg, &key, &e) != 0 ||
        (bom ? sp_bom_statement : sp_statement_build)(buf, len, name, &stmt, &stmtlen, &e) != 0 ||
        dsse_envelope_sign(DSSE_PAYLOAD_TYPE, (const unsigned char *)stmt, stmtlen, key,
                           &env, &envlen, &e) != 0 ||
        sp_write_output(out, env, envlen, &e) != 0)
        rc = sp_error_print(&e);
    manifest_free(&m);
    EVP_PKEY_free(key);
    free(buf);
    free(stmt);
    free(env);
    return rc;
}
