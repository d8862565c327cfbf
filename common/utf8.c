/* common/utf8.c: text as valid UTF-8; see utf8.h. */
#include "common/utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at S (N bytes left), or 0. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    if (c >= 0x01 && c < 0x80)
        return 1;
    size_t len;
    unsigned min;
    if (c >= 0xc2 && c <= 0xdf) { len = 2; min = 0x80; }
    else if (c >= 0xe0 && c <= 0xef) { len = 3; min = 0x800; }
    else if (c >= 0xf0 && c <= 0xf4) { len = 4; min = 0x10000; }
    else return 0;
    if (n < len)
        return 0;
    unsigned cp = c & (0x3f >> (len - 1));
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return len;
}

char *sp_utf8_sanitize(const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t out = 0, ascii = 0;
    /* the common case, plain ASCII without NUL: one copy */
    while (ascii < len && p[ascii] >= 0x01 && p[ascii] < 0x80)
        ascii++;
    if (ascii == len) {
        char *r = malloc(len + 1);
        if (r != NULL) {
            memcpy(r, s, len);
            r[len] = '\0';
        }
        return r;
    }
    for (size_t i = 0; i < len;) {
        size_t k = utf8_seq(p + i, len - i);
        if (k == 0) { out += 4; i++; } else { out += k; i += k; }
    }
    char *r = malloc(out + 1);
    if (r == NULL)
        return NULL;
    char *w = r;
    for (size_t i = 0; i < len;) {
        size_t k = utf8_seq(p + i, len - i);
        if (k == 0) {
            snprintf(w, 5, "\\x%02x", p[i]);
            w += 4;
            i++;
        } else {
            memcpy(w, p + i, k);
            w += k;
            i += k;
        }
    }
    *w = '\0';
    return r;
}

int sp_utf8_valid(const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0, k; i < len; i += k)
        if ((k = utf8_seq(p + i, len - i)) == 0)
            return 0;
    return 1;
}
