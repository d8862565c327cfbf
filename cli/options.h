/* cli/options.h: every subcommand's options as one table, parsed by one
 * loop, and its --help generated from the same table (git's parse-options
 * is the model), so that an option cannot be parsed without being listed.
 * Also the constants the subcommands share. */
#ifndef SP_OPTIONS_H
#define SP_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

#ifndef SP_DATADIR
#define SP_DATADIR "/usr/local/share/stackprint"   /* the Makefile's DATADIR */
#endif

/* X, a macro for a number, as a string literal */
#define SP_STR(X) SP_STR_(X)
#define SP_STR_(X) #X

/* An envelope's name: the signed file's name plus this suffix. */
#define SP_ENVELOPE_SUFFIX ".intoto.json"

/* Bytes in a path an output name (PATH.intoto.json, PREFIX.key) is made
 * from. */
#define SP_PATH_MAX_BYTES 4000

/* What an option does with its value. */
enum sp_opt_kind {
    SP_OPT_STRING,      /* value: const char **, set to the argument (the last one wins) */
    SP_OPT_ONCE,        /* as SP_OPT_STRING; given twice is "--NAME given twice" */
    SP_OPT_FLAG,        /* value: int *, set to 1; no argument */
    SP_OPT_BITS,        /* value: unsigned *, BITS or'ed in; no argument */
    SP_OPT_LIST,        /* value: struct sp_opt_list *, the argument appended */
    SP_OPT_CALL,        /* CALL(o, arg, cmd) does it all */
};

/* The values of a repeatable option, in the order given.  V is malloc'd
 * by sp_options_parse and freed by the caller (free(list.v)); the strings
 * are argv's. */
struct sp_opt_list {
    const char **v;
    size_t n;
};

/* One row of a command's option table; the table ends with a row whose
 * LONG_NAME is NULL (SP_OPTION_END).  -h and --help are the loop's own
 * (the row it adds last), never a table's.  HELP is the row's text in
 * --help: a '\n' in it starts a line indented to the command's help
 * column. */
struct sp_option {
    char short_name;            /* 'o' for -o, or 0 */
    const char *long_name;      /* "output" for --output */
    const char *argh;           /* the argument's name in --help ("FILE"), NULL for none */
    const char *help;
    enum sp_opt_kind kind;
    void *value;                /* the target; its type is the kind's */
    unsigned bits;              /* SP_OPT_BITS: the bits to set */
    size_t max;                 /* SP_OPT_LIST: most values (more: "more than MAX --NAME
                                 * options"); 0 for no limit */
    /* Run before the value is stored (any kind with an argument), or
     * instead (SP_OPT_CALL); ARG is the argument, CMD the command's name.
     * Returns 0, or the exit status after printing the one-line error
     * (sp_usage_error). */
    int (*call)(const struct sp_option *o, const char *arg, const char *cmd);
    int required;               /* not given: "--NAME ARGH is required" */
};

/* The rows, one macro a kind (S the short letter or 0, L the long name,
 * A the argument's name, V the target, H the help). */
#define SP_OPTION_STRING(S, L, A, V, H) { (S), (L), (A), (H), SP_OPT_STRING, (V), 0, 0, NULL, 0 }
#define SP_OPTION_REQUIRED(S, L, A, V, H) { (S), (L), (A), (H), SP_OPT_STRING, (V), 0, 0, NULL, 1 }
#define SP_OPTION_ONCE(S, L, A, V, H) { (S), (L), (A), (H), SP_OPT_ONCE, (V), 0, 0, NULL, 0 }
#define SP_OPTION_FLAG(S, L, V, H) { (S), (L), NULL, (H), SP_OPT_FLAG, (V), 0, 0, NULL, 0 }
#define SP_OPTION_BITS(S, L, V, B, H) { (S), (L), NULL, (H), SP_OPT_BITS, (V), (B), 0, NULL, 0 }
#define SP_OPTION_LIST(S, L, A, V, MAX, H) { (S), (L), (A), (H), SP_OPT_LIST, (V), 0, (MAX), NULL, 0 }
/* a string or a list (of at most MAX, 0 for no limit) whose every argument
 * CALL checks first */
#define SP_OPTION_CHECKED(S, L, A, KIND, V, MAX, CALL, H) \
    { (S), (L), (A), (H), (KIND), (V), 0, (MAX), (CALL), 0 }
/* CALL alone stores the value; V is for CALL */
#define SP_OPTION_CALL(S, L, A, V, CALL, H) { (S), (L), (A), (H), SP_OPT_CALL, (V), 0, 0, (CALL), 0 }
#define SP_OPTION_END { 0, NULL, NULL, NULL, SP_OPT_FLAG, NULL, 0, 0, NULL, 0 }

/* What a command takes after its options. */
enum sp_operands {
    SP_OPERANDS_NONE,           /* none: "unexpected argument 'X'" */
    SP_OPERANDS_ONE,            /* exactly one: MISSING or EXTRA */
    SP_OPERANDS_ANY,            /* the command counts them itself */
};

/* A command's --help around its option rows:
 *   SYNOPSIS (the "usage:" lines and what the operands are, each line
 *   ending in '\n'), "options:", one row per option then
 *   "-h, --help  show this help", each row's text starting at COLUMN (or
 *   two blanks after a longer option), then EPILOGUE (or nothing). */
struct sp_command_help {
    const char *name;           /* "probe" */
    const char *synopsis;
    int column;
    const char *epilogue;       /* NULL for none */
    enum sp_operands operands;
    const char *missing;        /* SP_OPERANDS_ONE: the error for none ("MANIFEST is required") */
    const char *extra;          /* SP_OPERANDS_ONE: the error for more ("one MANIFEST only") */
};

/* sp_options_help: write the --help text of H and its table OPTS to FP
 * (laid out as above; the caller checks FP's errors). */
void sp_options_help(const struct sp_command_help *h, const struct sp_option *opts, FILE *fp);

/* sp_options_parse: parse ARGV (ARGV[0] the command's name) against OPTS
 * with getopt_long(3) (GNU rules: options and operands may mix, a long
 * option may be abbreviated to a unique prefix, short options may be
 * bundled), storing each value as its row's kind says, and print --help
 * (-h) when asked; then a required row not given is an error, and so is a
 * count of operands H->operands does not allow.  On return *OPERANDS is
 * the index in ARGV of the first operand (ARGV is permuted so that the
 * operands come last).
 * Returns SP_OPTIONS_GO_ON when the command should go on; else the exit
 * status to return at once: SP_EXIT_OK after --help, SP_EXIT_USAGE after
 * printing "stackprint CMD: unknown option 'X'", "option 'X' needs a
 * value", "--NAME ARGH is required", an operand count's error, or a row's
 * own error (sp_usage_error), SP_EXIT_INPUT when out of
 * memory.  On any return the lists filled so far are the caller's to free. */
#define SP_OPTIONS_GO_ON (-1)
int sp_options_parse(const struct sp_command_help *h, const struct sp_option *opts, int argc,
                     char **argv, int *operands);

#endif
