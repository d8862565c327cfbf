/* common/strbuf.h: one bounded string builder, so that lists and reports of
 * any length are built in linear time (each append copies only its own
 * bytes; the buffer grows geometrically) and never past a stated bound.
 *
 * A builder starts empty with a bound MAX (bytes of text, not counting the
 * NUL).  An append that would cross MAX appends nothing, marks the builder
 * "over" and returns -1 with errno E2BIG; every later append is refused the
 * same way, so a caller may append in a loop and check once at the end
 * (sp_strbuf_over) and the text never ends in a cut element.  An allocation
 * failure returns -1 with errno ENOMEM and marks the builder failed.
 *
 * Memory: the builder owns its buffer until sp_strbuf_take() hands it over
 * (then the caller frees it) or sp_strbuf_free() releases it.  Never prints,
 * never exits; no I/O.
 */
#ifndef SP_STRBUF_H
#define SP_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

struct sp_strbuf {
    char *buf;          /* NUL-terminated when not NULL; NULL while empty */
    size_t len, cap;    /* bytes of text; bytes allocated */
    size_t max;         /* the bound on LEN */
    int over;           /* an append was refused at MAX */
    int failed;         /* an allocation failed */
};

/* sp_strbuf_init: an empty builder whose text may reach MAX bytes. */
void sp_strbuf_init(struct sp_strbuf *sb, size_t max);

/* sp_strbuf_addn: append the LEN bytes at S.  0, or -1 (E2BIG, ENOMEM). */
int sp_strbuf_addn(struct sp_strbuf *sb, const char *s, size_t len);

/* sp_strbuf_add: append the NUL-terminated S.  0, or -1 as above. */
int sp_strbuf_add(struct sp_strbuf *sb, const char *s);

/* sp_strbuf_item: append SEP (unless the builder is empty) then S, both or
 * neither: an element of a SEP-separated list.  0, or -1 as above. */
int sp_strbuf_item(struct sp_strbuf *sb, const char *sep, const char *s);

/* sp_strbuf_addf: append printf-formatted text.  0, or -1 as above. */
int sp_strbuf_addf(struct sp_strbuf *sb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* sp_strbuf_str: the text so far ("" while empty); valid until the next
 * append, take or free. */
const char *sp_strbuf_str(const struct sp_strbuf *sb);

/* sp_strbuf_over: 1 when an append was refused at the bound, else 0. */
int sp_strbuf_over(const struct sp_strbuf *sb);

/* sp_strbuf_take: the text as a malloc'd string the caller frees ("" when
 * empty), leaving the builder empty; NULL when an allocation failed, now or
 * before (errno ENOMEM). */
char *sp_strbuf_take(struct sp_strbuf *sb);

/* sp_strbuf_free: release the buffer; the builder is empty again. */
void sp_strbuf_free(struct sp_strbuf *sb);

#endif
