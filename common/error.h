/* common/error.h: the error record every library function fills, and the
 * exit statuses of stackprint(1).
 *
 * Library code never prints and never exits: it returns -1 after filling a
 * struct sp_error with a one-line, lowercase message that names the file (and
 * line) it is about, and the exit status the CLI should use.  Only cli/
 * prints it, as "stackprint: <msg>".
 */
#ifndef SP_ERROR_H
#define SP_ERROR_H

#include <stddef.h>

/* Exit statuses, as in stackprint(1), "EXIT STATUS". */
enum sp_exit {
    SP_EXIT_OK = 0,      /* success, check passed */
    SP_EXIT_FAIL = 1,    /* a policy violated; diff found differences */
    SP_EXIT_USAGE = 2,   /* usage error */
    SP_EXIT_VERIFY = 3,  /* signature or digest verification failed */
    SP_EXIT_INPUT = 4,   /* unreadable or malformed input */
};

#define SP_ERROR_MSG_MAX 512

struct sp_error {
    int exit_code;                 /* one of enum sp_exit */
    char msg[SP_ERROR_MSG_MAX];    /* "<subject>: <what is wrong>" */
};

/* sp_fail: format a message into E (E may be NULL) and set its exit code.
 * Always returns -1 so that callers can write `return sp_fail(...)`. */
int sp_fail(struct sp_error *e, int exit_code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
