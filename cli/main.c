/* cli/main.c: stackprint(1): find the subcommand in the table and run it;
 * "help COMMAND", and the suggestion for a mistyped command, come from the
 * same table.
 * After the command returns, stdout is flushed and checked, so that a full
 * disk never leaves a silently truncated manifest. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "manifest/fact_keys.h"

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
    { "attach", cmd_attach, "write a manifest's stack into a JUnit report's properties" },
    { "attest", cmd_attest, "sign an in-toto test-result attestation of a JUnit report" },
    { "diff", cmd_diff, "what changed between two manifests, in stack order" },
    { "fleet", cmd_fleet, "group many nodes' manifests by stack; name the odd nodes out" },
    { "export", cmd_export, "a manifest as a CycloneDX or SPDX bill of materials" },
    { NULL, NULL, NULL },
};

static void usage(FILE *fp)
{
    fprintf(fp, "usage: stackprint <command> [options]\n"
                "       stackprint --version | --help | help <command> | help keys\n\ncommands:\n");
    for (const struct command *c = commands; c->name; c++)
        fprintf(fp, "  %-8s %s\n", c->name, c->summary);
    fprintf(fp, "\n'stackprint <command> --help' shows a command's options, 'stackprint help keys'\n"
                "the documented fact keys; man stackprint(1) has the rest.\n");
}

static const struct command *find_command(const char *name)
{
    for (const struct command *c = commands; c->name; c++)
        if (strcmp(name, c->name) == 0)
            return c;
    return NULL;
}

/* "stackprint: 'NAME' is not a command; did you mean 'X'?": X is the
 * command NAME begins, else the nearest within two edits (ties: the
 * table's order); exit 2. */
static int not_a_command(const char *name)
{
    const struct command *near = NULL;
    size_t best = 3, n = strlen(name);
    for (const struct command *c = commands; c->name && n; c++) {
        size_t d = strncmp(c->name, name, n) == 0 ? 0 : sp_edit_distance(name, c->name, 2);
        if (d < best) {
            best = d;
            near = c;
        }
    }
    struct sp_error e = { SP_EXIT_USAGE, "" };
    if (near)
        snprintf(e.msg, sizeof e.msg, "'%s' is not a command; did you mean '%s'? (see 'stackprint --help')",
                 name, near->name);
    else
        snprintf(e.msg, sizeof e.msg, "'%s' is not a command (see 'stackprint --help')", name);
    return sp_error_print(&e);
}

/* stackprint help [COMMAND | keys]: a command's help is what its own
 * --help prints, so every command in the table has one. */
static int help(int argc, char **argv)
{
    if (argc < 3 || strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0) {
        usage(stdout);
        return SP_EXIT_OK;
    }
    if (argc > 3) {
        fprintf(stderr, "stackprint help: one command or 'keys' (see 'stackprint --help')\n");
        return SP_EXIT_USAGE;
    }
    const struct command *c = find_command(argv[2]);
    if (c) {
        char opt[] = "--help";
        char *args[] = { (char *)c->name, opt, NULL };
        return c->run(2, args);
    }
    if (strcmp(argv[2], "keys") == 0) {
        /* the documented fact keys, "*" a part a probe fills in */
        for (const struct sp_fact_key_doc *d = sp_fact_keys; d->pattern; d++)
            printf("%-36s %s%s\n", d->pattern,
                   d->kind == SP_FACT_KEY_NAME ? "well-known, " : "", d->page);
        return SP_EXIT_OK;
    }
    return not_a_command(argv[2]);
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
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(stdout);
        return finish_stdout(SP_EXIT_OK);
    }
    if (strcmp(argv[1], "help") == 0)
        return finish_stdout(help(argc, argv));
    const struct command *c = find_command(argv[1]);
    if (c)
        return finish_stdout(c->run(argc - 1, argv + 1));
    return not_a_command(argv[1]);
}
