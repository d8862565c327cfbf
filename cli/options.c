/* cli/options.c: the one option loop every subcommand runs, and the --help
 * text made from the same table (cli/options.h).  Parsing is getopt_long(3)
 * (glibc's, GNU rules); this file builds its tables from the rows. */
#include "cli/options.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"

/* The row every command has last, answered by the loop itself. */
static const struct sp_option help_row = {
    'h', "help", NULL, "show this help", SP_OPT_FLAG, NULL, 0, 0, NULL, 0,
};

/* getopt_long's value for row I: its short letter, else 256 + I. */
static int row_code(const struct sp_option *o, size_t i)
{
    return o->short_name ? (unsigned char)o->short_name : 256 + (int)i;
}

static int has_arg(const struct sp_option *o)
{
    return o->kind != SP_OPT_FLAG && o->kind != SP_OPT_BITS;
}

/* One row: "  -o, --output FILE" (or six blanks for no short name) padded
 * to COLUMN, at least two blanks, then the help, '\n' continuing at
 * COLUMN. */
static void help_line(const struct sp_option *o, int column, FILE *fp)
{
    int n = o->short_name ? fprintf(fp, "  -%c, --%s", o->short_name, o->long_name)
                          : fprintf(fp, "      --%s", o->long_name);
    if (o->argh)
        n += fprintf(fp, " %s", o->argh);
    fprintf(fp, "%*s", n + 2 > column ? 2 : column - n, "");
    for (const char *p = o->help; *p; p++) {
        fputc(*p, fp);
        if (*p == '\n')
            fprintf(fp, "%*s", column, "");
    }
    fputc('\n', fp);
}

void sp_options_help(const struct sp_command_help *h, const struct sp_option *opts, FILE *fp)
{
    fputs(h->synopsis, fp);
    fputs("options:\n", fp);
    for (const struct sp_option *o = opts; o->long_name; o++)
        help_line(o, h->column, fp);
    help_line(&help_row, h->column, fp);
    if (h->epilogue)
        fputs(h->epilogue, fp);
}

/* Append ARG to the list of row O, as its limit allows. */
static int list_add(const struct sp_option *o, const char *arg, const char *cmd)
{
    struct sp_opt_list *l = o->value;
    if (o->max && l->n == o->max)
        return sp_usage_error(cmd, "more than %zu --%s options", o->max, o->long_name);
    const char **v = realloc(l->v, (l->n + 1) * sizeof *v);
    if (v == NULL) {
        fprintf(stderr, "stackprint: %s: out of memory\n", cmd);
        return SP_EXIT_INPUT;
    }
    v[l->n++] = arg;
    l->v = v;
    return 0;
}

/* Row O was given (with ARG, or NULL): store it.  An empty ARG is a usage
 * error (a row with its own check, o->call, says why itself).  Returns 0 or
 * an exit status. */
static int take(const struct sp_option *o, const char *arg, const char *cmd)
{
    if (arg && arg[0] == '\0' && o->call == NULL)   /* a path, name or number: never empty */
        return sp_usage_error(cmd, "--%s %s is empty", o->long_name, o->argh);
    int rc = o->call && arg ? o->call(o, arg, cmd) : 0;
    if (rc != 0 || o->kind == SP_OPT_CALL)
        return rc;
    switch (o->kind) {
    case SP_OPT_ONCE:
        if (*(const char **)o->value)
            return sp_usage_error(cmd, "--%s given twice", o->long_name);
        /* fall through */
    case SP_OPT_STRING: *(const char **)o->value = arg; return 0;
    case SP_OPT_FLAG: *(int *)o->value = 1; return 0;
    case SP_OPT_BITS: *(unsigned *)o->value |= o->bits; return 0;
    case SP_OPT_LIST: return list_add(o, arg, cmd);
    default: return 0;
    }
}

/* getopt_long's tables for OPTS (N rows): LONGS (N + 2 entries, --help
 * and the end included) and SHORTS (":" then each short letter, ':' after
 * one that takes a value; 3 * N + 4 bytes). */
static void build_tables(const struct sp_option *opts, size_t n, struct option *longs,
                         char *shorts)
{
    char *s = shorts;
    *s++ = ':';
    for (size_t i = 0; i < n; i++) {
        const struct sp_option *o = &opts[i];
        longs[i] = (struct option){ o->long_name, has_arg(o) ? required_argument : no_argument,
                                    NULL, row_code(o, i) };
        if (o->short_name) {
            *s++ = o->short_name;
            if (has_arg(o))
                *s++ = ':';
        }
    }
    longs[n] = (struct option){ "help", no_argument, NULL, 'h' };
    longs[n + 1] = (struct option){ NULL, 0, NULL, 0 };
    *s++ = 'h';
    *s = '\0';
}

/* The row getopt_long answered C for, or NULL. */
static const struct sp_option *row_of(const struct sp_option *opts, size_t n, int c)
{
    for (size_t i = 0; i < n; i++)
        if (row_code(&opts[i], i) == c)
            return &opts[i];
    return NULL;
}

/* After the loop: the required rows and the count of operands (ARGC -
 * FIRST from FIRST).  Returns SP_OPTIONS_GO_ON or SP_EXIT_USAGE. */
static int after_options(const struct sp_command_help *h, const struct sp_option *opts, int argc,
                         char **argv, int first)
{
    for (const struct sp_option *o = opts; o->long_name; o++)
        if (o->required && *(const char **)o->value == NULL)
            return sp_usage_error(h->name, "--%s %s is required", o->long_name, o->argh);
    if (h->operands == SP_OPERANDS_NONE && first < argc)
        return sp_usage_error(h->name, "unexpected argument '%s'", argv[first]);
    if (h->operands == SP_OPERANDS_ONE && first != argc - 1)
        return sp_usage_error(h->name, "%s", first < argc ? h->extra : h->missing);
    return SP_OPTIONS_GO_ON;
}

/* The usage error for what getopt_long refused: ARG is the last argument
 * it read (a long option advances past its own argument, a short one in a
 * bundle may not, so a short option is named by optopt alone).  MISSING: a
 * value was missing, else the option is unknown, ambiguous (a prefix of
 * several long names) or given a value it does not take.  Returns
 * SP_EXIT_USAGE. */
static int bad_option(const struct sp_command_help *h, const struct sp_option *opts, size_t n,
                      const char *arg, int missing)
{
    if (strncmp(arg, "--", 2) != 0) {
        char letter = optopt > 0 && optopt < 128 ? (char)optopt : '?';
        return sp_usage_error(h->name, missing ? "option '-%c' needs a value"
                                              : "unknown option '-%c'", letter);
    }
    size_t len = strcspn(arg + 2, "=");
    if (missing)
        return sp_usage_error(h->name, "option '%.*s' needs a value", (int)len + 2, arg);
    if (optopt != 0)
        return sp_usage_error(h->name, "option '%.*s' takes no value", (int)len + 2, arg);
    size_t matches = 0;
    const char *first = NULL, *second = NULL;
    for (size_t i = 0; i < n; i++) {
        if (strncmp(opts[i].long_name, arg + 2, len) != 0)
            continue;
        if (matches == 0)
            first = opts[i].long_name;
        else if (matches == 1)
            second = opts[i].long_name;
        matches++;
    }
    if (matches > 1)
        return sp_usage_error(h->name, "option '%.*s' is ambiguous (--%s, --%s%s)", (int)len + 2,
                              arg, first, second, matches > 2 ? ", ..." : "");
    return sp_usage_error(h->name, "unknown option '%.*s'", (int)len + 2, arg);
}

int sp_options_parse(const struct sp_command_help *h, const struct sp_option *opts, int argc,
                     char **argv, int *operands)
{
    size_t n = 0;
    while (opts[n].long_name)
        n++;
    struct option *longs = calloc(n + 2, sizeof *longs);
    char *shorts = malloc(3 * n + 4);
    int c, rc = SP_OPTIONS_GO_ON;
    if (longs == NULL || shorts == NULL) {
        free(longs);
        free(shorts);
        fprintf(stderr, "stackprint: %s: out of memory\n", h->name);
        return SP_EXIT_INPUT;
    }
    build_tables(opts, n, longs, shorts);
    optind = 1;
    opterr = 0;
    while (rc == SP_OPTIONS_GO_ON && (c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
        const struct sp_option *o = row_of(opts, n, c);
        if (c == 'h' && o == NULL) {
            sp_options_help(h, opts, stdout);
            rc = SP_EXIT_OK;
        } else if (c == ':' || o == NULL) {
            rc = bad_option(h, opts, n, argv[optind - 1], c == ':');
        } else if ((rc = take(o, has_arg(o) ? optarg : NULL, h->name)) == 0) {
            rc = SP_OPTIONS_GO_ON;
        }
    }
    *operands = optind;
    if (rc == SP_OPTIONS_GO_ON)
        rc = after_options(h, opts, argc, argv, optind);
    free(longs);
    free(shorts);
    return rc;
}
