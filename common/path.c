/* common/path.c: joining path names; see path.h. */
#include "common/path.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int sp_path_join(char *out, size_t outsz, const char *a, const char *b)
{
    size_t al = strlen(a);
    while (al > 0 && a[al - 1] == '/')
        al--;
    while (*b == '/')
        b++;
    int n = snprintf(out, outsz, "%.*s/%s", (int)al, a, b);
    if (n < 0 || (size_t)n >= outsz) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}
