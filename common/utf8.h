/* common/utf8.h: text from files as valid UTF-8, so that every manifest,
 * report (JSON, XML) and message that shows it is valid UTF-8 whatever the
 * file held.  Valid means RFC 3629: shortest form only (no overlongs), no
 * UTF-16 surrogates (U+D800..U+DFFF), nothing above U+10FFFF; a NUL byte
 * is treated as invalid here (it would end a C string).
 */
#ifndef SP_UTF8_H
#define SP_UTF8_H

#include <stddef.h>

/* sp_utf8_sanitize: a malloc'd, NUL-terminated copy of the LEN bytes at S
 * in which every byte that is not part of valid UTF-8, and every NUL, is
 * written "\xNN" (four characters).  Plain ASCII is copied once.  The
 * caller frees it.  NULL when out of memory (errno ENOMEM). */
char *sp_utf8_sanitize(const char *s, size_t len);

/* sp_utf8_valid: 1 when the LEN bytes at S are valid UTF-8 without NUL,
 * else 0.  Allocates nothing. */
int sp_utf8_valid(const char *s, size_t len);

#endif
