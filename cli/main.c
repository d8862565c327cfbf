/* cli/main.c: stackprint(1): find the subcommand in the table and run it.
 * After the command returns, stdout is flushed and checked, so that a full
 * disk never leaves a silently truncated manifest. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"

struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
};

static const struct command commands[] = {
    { "probe", cmd_probe, "fingerprint a host, a copied root or an image; write the manifest" },
    { "check", cmd_check, "check a manifest against policies; show the difference" },
    { "keygen", cmd_keygen, "make a signing key pair" },
    { "sign", cmd_sign, "sign a manifest into a DSSE envelope" },
    { "verify", cmd_verify, "verify a manifest's DSSE envelope" },
    { "fleet", cmd_fleet, "group many nodes' manifests by stack; name the odd nodes out" },
    { "export", cmd_export, "a manifest as a CycloneDX or SPDX bill of materials" },
    { NULL, NULL, NULL },
};

static void usage(FILE *fp)
{
    fprintf(fp, "usage: stackprint <command> [options]\n"
                "       stackprint --version | --help\n\ncommands:\n");
    for (const struct command *c = commands; c->name; c++)
        fprintf(fp, "  %-8s %s\n", c->name, c->summary);
    fprintf(fp, "\n'stackprint <command> --help' shows a command's options; "
                "man stackprint(1) has the rest.\n");
}

/* Flush and check stdout after a command returned RC.  A command that
 * failed has already said why (its own write of stdout included), so only
 * a command that returned 0 gets the one line "stdout: <strerror>" here
 * and exit 4. */
static int finish_stdout(int rc)
{
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        if (rc != SP_EXIT_OK)
            return rc;
        fprintf(stderr, "stackprint: stdout: %s\n", strerror(errno ? errno : EIO));
        return SP_EXIT_INPUT;
    }
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return SP_EXIT_USAGE;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
        printf("stackprint %s\n", SP_VERSION);
        return finish_stdout(SP_EXIT_OK);
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return finish_stdout(SP_EXIT_OK);
    }
    for (const struct command *c = commands; c->name; c++) {
        if (strcmp(argv[1], c->name) != 0)
            continue;
        return finish_stdout(c->run(argc - 1, argv + 1));
    }
    fprintf(stderr, "stackprint: '%s' is not a command (see 'stackprint --help')\n", argv[1]);
    return SP_EXIT_USAGE;
}
