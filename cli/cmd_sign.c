/* cli/cmd_sign.c: stackprint sign: sign a manifest into a DSSE envelope
 * holding an in-toto Statement (stackprint-sign(1)).  The envelope is
 * written atomically; the manifest is only read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "export/bom_statement.h"
#include "manifest/dsse.h"
#include "manifest/manifest.h"

static const struct sp_command_help sign_help = {
    "sign",
    "usage: stackprint sign -k|--key KEY [-o|--output ENVELOPE] [--predicate manifest|cyclonedx]\n"
    "                       MANIFEST\n"
    "Sign MANIFEST's exact bytes into a DSSE envelope (an in-toto Statement).\n",
    25, NULL, SP_OPERANDS_ONE, "MANIFEST is required", "one MANIFEST only",
};

/* The command line, parsed; ENVPATH holds the default envelope name. */
struct sign_args {
    const char *keyarg, *out, *path;
    int bom;            /* --predicate cyclonedx */
    char envpath[SP_PATH_MAX_BYTES + sizeof SP_ENVELOPE_SUFFIX];
};

/* --predicate: manifest or cyclonedx, into the int at O->value */
static int predicate_arg(const struct sp_option *o, const char *arg, const char *cmd)
{
    if (strcmp(arg, "manifest") != 0 && strcmp(arg, "cyclonedx") != 0)
        return sp_usage_error(cmd, "unknown predicate '%s' (manifest or cyclonedx)", arg);
    *(int *)o->value = strcmp(arg, "cyclonedx") == 0;
    return 0;
}

/* Parse and check ARGV into A.  Returns SP_OPTIONS_GO_ON or an exit status. */
static int sign_parse(int argc, char **argv, struct sign_args *a)
{
    const struct sp_option opts[] = {
        SP_OPTION_REQUIRED('k', "key", "KEY", &a->keyarg,
                           "the private key: a PEM file or an OpenSSL store URI"),
        SP_OPTION_STRING('o', "output", "ENVELOPE", &a->out,
                         "where to write it (default MANIFEST.intoto.json);\nnot KEY or MANIFEST"),
        SP_OPTION_CALL(0, "predicate", "WHAT", &a->bom, predicate_arg,
                       "the statement's predicate: manifest (the manifest as JSON,\n"
                       "the default) or cyclonedx (its CycloneDX BOM)"),
        SP_OPTION_END,
    };
    int optind, rc = sp_options_parse(&sign_help, opts, argc, argv, &optind);
    if (rc != SP_OPTIONS_GO_ON)
        return rc;
    const char *path = a->path = argv[optind];
    int from_stdin = strcmp(path, "-") == 0;
    if (from_stdin && a->out == NULL)
        return sp_usage_error("sign", "a manifest from standard input needs -o ENVELOPE");
    if (!from_stdin && strlen(path) > SP_PATH_MAX_BYTES)
        return sp_usage_error("sign", "MANIFEST path longer than %d bytes", SP_PATH_MAX_BYTES);
    if (a->out == NULL) {
        snprintf(a->envpath, sizeof a->envpath, "%s" SP_ENVELOPE_SUFFIX, path);
        a->out = a->envpath;
    }
    /* the envelope must not replace an input: the key or the manifest */
    if (sp_same_file(a->out, a->keyarg))
        return sp_usage_error("sign", "output '%s' is the key file; it would be overwritten", a->out);
    if (sp_same_file(a->out, path))
        return sp_usage_error("sign", "output '%s' is the manifest; it would be overwritten", a->out);
    return SP_OPTIONS_GO_ON;
}

int cmd_sign(int argc, char **argv)
{
    struct sign_args a = { 0 };
    struct sp_error e = { 0 };
    int rc = sign_parse(argc, argv, &a);
    if (rc != SP_OPTIONS_GO_ON)
        return rc;
    const char *path = a.path;
    int from_stdin = strcmp(path, "-") == 0;
    const char *slash = strrchr(path, '/');
    const char *name = from_stdin ? "stdin" : slash ? slash + 1 : path;

    /* the manifest is read strictly under its own path first, so that an
     * error names the file as given (the statement names it by base name) */
    char *buf = NULL, *env = NULL, *stmt = NULL;
    size_t len = 0, envlen = 0, stmtlen = 0;
    EVP_PKEY *key = NULL;
    rc = SP_EXIT_OK;
    struct manifest m;
    manifest_init(&m);
    if (sp_read_file(path, SP_MANIFEST_MAX_BYTES, "manifest", &buf, &len, &e) != 0 ||
        manifest_parse(buf, len, from_stdin ? "<stdin>" : path, &m, &e) != 0 ||
        sp_key_load_private(a.keyarg, &key, &e) != 0 ||
        (a.bom ? sp_bom_statement : sp_statement_build)(buf, len, name, &stmt, &stmtlen, &e) != 0 ||
        dsse_envelope_sign(DSSE_PAYLOAD_TYPE, (const unsigned char *)stmt, stmtlen, key,
                           &env, &envlen, &e) != 0 ||
        sp_write_output(a.out, env, envlen, &e) != 0)
        rc = sp_error_print(&e);
    manifest_free(&m);
    EVP_PKEY_free(key);
    free(buf);
    free(stmt);
    free(env);
    return rc;
}
