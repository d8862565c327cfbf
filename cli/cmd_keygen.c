/* cli/cmd_keygen.c: stackprint keygen: make a signing key pair, PREFIX.key
 * (PKCS#8 PEM, 0600) and PREFIX.pub (SPKI PEM) (stackprint-keygen(1)).
 * Never overwrites a file: if either exists, neither is written. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "manifest/keys.h"

static const struct sp_command_help keygen_help = {
    "keygen",
    "usage: stackprint keygen [--type ecdsa-p256|ed25519] -o PREFIX\n"
    "Make a signing key pair: PREFIX.key (private, mode 0600) and PREFIX.pub\n"
    "(public); never overwrites.\n",
    25, NULL, SP_OPERANDS_NONE, NULL, NULL,
};

#define PREFIX_MAX 4000   /* bytes in PREFIX; paths get ".key"/".pub" appended */

/* --type: ecdsa-p256 or ed25519, into the enum sp_key_type at O->value */
static int type_arg(const struct sp_option *o, const char *arg, const char *cmd)
{
    if (sp_key_type_parse(arg, o->value) != 0)
        return sp_usage_error(cmd, "unknown key type '%s' (ecdsa-p256 or ed25519)", arg);
    return 0;
}

int cmd_keygen(int argc, char **argv)
{
    enum sp_key_type type = SP_KEY_ECDSA_P256;
    const char *prefix = NULL;
    struct sp_error e = { 0 };
    const struct sp_option opts[] = {
        SP_OPTION_CALL('t', "type", "TYPE", &type, type_arg, "ecdsa-p256 (default) or ed25519"),
        SP_OPTION_STRING('o', "output", "PREFIX", &prefix,
                         "the key files' name, without .key or .pub"),
        SP_OPTION_END,
    };
    int optind, rc = sp_options_parse(&keygen_help, opts, argc, argv, &optind);
    if (rc != SP_OPTIONS_GO_ON)
        return rc;
    if (prefix == NULL || *prefix == '\0')
        return sp_usage_error("keygen", "-o PREFIX is required");
    if (strcmp(prefix, "-") == 0)
        return sp_usage_error("keygen", "keys are written to files, not to standard output");
    if (strlen(prefix) > PREFIX_MAX)
        return sp_usage_error("keygen", "PREFIX longer than %d bytes", PREFIX_MAX);

    char keypath[PREFIX_MAX + 8], pubpath[PREFIX_MAX + 8];
    snprintf(keypath, sizeof keypath, "%s.key", prefix);
    snprintf(pubpath, sizeof pubpath, "%s.pub", prefix);
    struct stat st;
    const char *exists = lstat(keypath, &st) == 0 ? keypath
                       : lstat(pubpath, &st) == 0 ? pubpath : NULL;
    if (exists) {
        sp_fail(&e, SP_EXIT_INPUT, "%s: exists; not overwritten (nothing written)", exists);
        return sp_error_print(&e);
    }

    EVP_PKEY *key = NULL;
    char *priv = NULL, *pub = NULL, keyid[SP_KEYID_HEX_LEN + 1];
    size_t privlen = 0, publen = 0;
    rc = SP_EXIT_OK;
    if (sp_keygen(type, &key, &e) != 0 || sp_key_id(key, keyid, &e) != 0 ||
        sp_key_pem(key, &priv, &privlen, &pub, &publen, &e) != 0) {
        rc = sp_error_print(&e);
        goto out;
    }
    if (sp_write_exclusive(keypath, priv, privlen, 0600, &e) != 0) {
        rc = sp_error_print(&e);
        goto out;
    }
    if (sp_write_exclusive(pubpath, pub, publen, 0644, &e) != 0) {
        unlink(keypath);        /* ours, just made: leave neither behind */
        rc = sp_error_print(&e);
        goto out;
    }
    printf("wrote %s (private, 0600) and %s (%s, keyid %s)\n", keypath, pubpath,
           sp_key_type_name(key), keyid);
out:
    sp_secret_free(priv, privlen);
    free(pub);
    EVP_PKEY_free(key);
    return rc;
}
