/* common/error.c: filling struct sp_error; see error.h. */
#include "common/error.h"

#include <stdarg.h>
#include <stdio.h>

int sp_fail(struct sp_error *e, int exit_code, const char *fmt, ...)
{
    if (e == NULL)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    e->exit_code = exit_code;
    return -1;
}
