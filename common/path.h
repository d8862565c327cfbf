/* common/path.h: joining path names without doubled or missing slashes,
 * into a caller's bounded buffer (POSIX.1-2017 Base Definitions, 4.13
 * "Pathname Resolution": several slashes in a row name the same place as
 * one, so the joined name is written with exactly one).
 */
#ifndef SP_PATH_H
#define SP_PATH_H

#include <stddef.h>

/* sp_path_join: A, one '/', then B into OUT (OUTSZ bytes, NUL-ended): the
 * slashes at A's end and B's start become exactly one ("/" and "x" give
 * "/x"; "a/" and "/b" give "a/b").  0, or -1 with errno ENAMETOOLONG when
 * it does not fit (OUT then holds a cut name: never use it).  No I/O. */
int sp_path_join(char *out, size_t outsz, const char *a, const char *b);

#endif
