/* common/strbuf.c: the bounded string builder; see strbuf.h. */
#include "common/strbuf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sp_strbuf_init(struct sp_strbuf *sb, size_t max)
{
    memset(sb, 0, sizeof *sb);
    sb->max = max;
}

/* Room for NEED more bytes of text and the NUL; -1 with errno set. */
static int reserve(struct sp_strbuf *sb, size_t need)
{
    if (sb->failed) {
        errno = ENOMEM;
        return -1;
    }
    if (sb->over || need > sb->max - sb->len) {
        sb->over = 1;
        errno = E2BIG;
        return -1;
    }
    if (sb->len + need + 1 <= sb->cap)
        return 0;
    size_t cap = sb->cap ? sb->cap : 64;
    while (cap < sb->len + need + 1)
        cap = cap > ((size_t)-1) / 2 ? sb->len + need + 1 : cap * 2;
    char *nb = realloc(sb->buf, cap);
    if (nb == NULL) {
        sb->failed = 1;
        errno = ENOMEM;
        return -1;
    }
    sb->buf = nb;
    sb->cap = cap;
    return 0;
}

int sp_strbuf_addn(struct sp_strbuf *sb, const char *s, size_t len)
{
    if (reserve(sb, len) != 0)
        return -1;
    memcpy(sb->buf + sb->len, s, len);
    sb->len += len;
    sb->buf[sb->len] = '\0';
    return 0;
}

int sp_strbuf_add(struct sp_strbuf *sb, const char *s)
{
    return sp_strbuf_addn(sb, s, strlen(s));
}

int sp_strbuf_item(struct sp_strbuf *sb, const char *sep, const char *s)
{
    size_t ls = sb->len ? strlen(sep) : 0, n = strlen(s);
    if (ls > (size_t)-1 - n) {
        sb->over = 1;
        errno = E2BIG;
        return -1;
    }
    if (reserve(sb, ls + n) != 0)
        return -1;
    sp_strbuf_addn(sb, sep, ls);
    return sp_strbuf_addn(sb, s, n);
}

int sp_strbuf_addf(struct sp_strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return -1;
    if (reserve(sb, (size_t)n) != 0)
        return -1;
    va_start(ap, fmt);
    vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb->len += (size_t)n;
    return 0;
}

const char *sp_strbuf_str(const struct sp_strbuf *sb)
{
    return sb->buf ? sb->buf : "";
}

int sp_strbuf_over(const struct sp_strbuf *sb)
{
    return sb->over;
}

char *sp_strbuf_take(struct sp_strbuf *sb)
{
    char *s = sb->failed ? NULL : sb->buf ? sb->buf : strdup("");
    if (s == NULL && !sb->failed)
        sb->failed = 1;
    if (sb->failed) {
        free(sb->buf);
        s = NULL;
        errno = ENOMEM;
    }
    size_t max = sb->max;
    sp_strbuf_init(sb, max);
    return s;
}

void sp_strbuf_free(struct sp_strbuf *sb)
{
    free(sb->buf);
    sp_strbuf_init(sb, sb->max);
}
