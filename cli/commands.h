/* cli/commands.h: the subcommand table's entries and the CLI's shared
 * output helpers.  Only cli/ prints to the user and picks exit statuses. */
#ifndef SP_COMMANDS_H
#define SP_COMMANDS_H

#include <stddef.h>

#include "common/error.h"

/* Each subcommand: argv[0] is the subcommand's name; returns an exit status
 * of enum sp_exit. */
int cmd_probe(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_keygen(int argc, char **argv);
int cmd_sign(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_attach(int argc, char **argv);
int cmd_attest(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_fleet(int argc, char **argv);
int cmd_export(int argc, char **argv);

struct manifest;
/* sp_export_render: manifest M as a bill of materials, FORMAT "cyclonedx"
 * (CycloneDX 1.6 JSON) or "spdx" (SPDX 2.3 JSON), malloc'd into *OUT
 * (cli/cmd_export.c; probe --format cyclonedx uses it too).  Returns 0, or
 * -1 with E set (SP_EXIT_INPUT). */
int sp_export_render(const struct manifest *m, const char *format, char **out, size_t *len,
                     struct sp_error *e);

/* sp_error_print: "stackprint: <msg>" on stderr, always one line (bytes that
 * are not UTF-8 and control characters are written \xNN); returns
 * e->exit_code. */
int sp_error_print(const struct sp_error *e);

/* sp_usage_error: "stackprint <cmd>: <msg>" plus a hint to --help; returns
 * SP_EXIT_USAGE. */
int sp_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* sp_write_output: write LEN bytes at BUF to PATH atomically (temporary
 * file in the same directory, fsync, rename; mode 0644 less the umask), or
 * to stdout when PATH is NULL or "-" (flushed and checked: a full disk is an
 * error, never a silently short file).  Returns 0, or -1 with E set
 * (SP_EXIT_INPUT, "PATH: <strerror>").  An existing regular PATH is
 * replaced only by the complete new content; an existing PATH that is not
 * a regular file (a device such as /dev/null, a FIFO) is opened and written
 * in place, never replaced, and never waited on: a FIFO no process reads
 * is an error at once ("PATH: a FIFO no process is reading; not written");
 * a directory is an error.  Temporary files "PATH.tmp.<pid>.XXXXXX" that a
 * killed process left are removed first. */
int sp_write_output(const char *path, const char *buf, size_t len, struct sp_error *e);

/* sp_write_pair: write PATH (LEN bytes at BUF) and PATH2 (LEN2 at BUF2), both
 * regular files (or absent), so that a reader checking one against the other
 * never takes a mixed pair: both temporaries are written and fsynced, then
 * PATH is renamed into place, then PATH2 last.  A kill between the renames
 * leaves the new PATH with the old PATH2, which does not verify against it,
 * and the new PATH2 as a temporary; the next sp_write_pair for the same
 * paths first finishes that: a stale PATH2 temporary for which FINISH(tmp,
 * ARG) is true (it belongs to PATH as it is) is renamed over PATH2, any
 * other stale temporary of either path is removed.  Returns 0, or -1 with E
 * set (SP_EXIT_INPUT); on failure no temporary is left. */
int sp_write_pair(const char *path, const char *buf, size_t len, const char *path2,
                  const char *buf2, size_t len2, int (*finish)(const char *tmp2, void *arg),
                  void *arg, struct sp_error *e);

/* sp_same_file: 1 when paths A and B name the same file, so that writing
 * one would overwrite the other: both exist and have the same st_dev and
 * st_ino (stat(2), symbolic links followed), or neither exists and the
 * paths are equal as text.  0 otherwise, and when either is NULL or "-"
 * (standard input or output is never a named input). */
int sp_same_file(const char *a, const char *b);

/* sp_inside_dir: 1 when DIR is an existing folder and PATH (existing or
 * not) would be a file in it or in one of its sub-folders, links resolved;
 * else 0 (also for "-" and NULL). */
int sp_inside_dir(const char *path, const char *dir);

/* sp_write_exclusive: create PATH with MODE, failing if it exists (O_EXCL),
 * write, fsync.  For keys.  Returns 0 or -1 with E set. */
int sp_write_exclusive(const char *path, const char *buf, size_t len,
                       unsigned mode, struct sp_error *e);

#endif
