/* common/array.c: growing arrays (common/array.h). */
#include "common/array.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int sp_array_reserve(void *items_ptr, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 16;
    while (n < need) {
        if (n > SIZE_MAX / 2) {
            errno = ENOMEM;
            return -1;
        }
        n *= 2;
    }
    if (size != 0 && n > SIZE_MAX / size) {
        errno = ENOMEM;
        return -1;
    }
    void *old;
    memcpy(&old, items_ptr, sizeof old);
    void *grown = realloc(old, n * size);
    if (grown == NULL) {
        errno = ENOMEM;
        return -1;
    }
    memcpy(items_ptr, &grown, sizeof grown);
    *cap = n;
    return 0;
}
