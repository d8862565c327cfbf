/* export/json_writer.c: the streaming JSON writer of the exports
 * (export/json_writer.h). */
#include "export/json_writer.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#define JW_CAP_DEFAULT 4096
#define JW_INDENT 2          /* spaces per level, as JSON_INDENT(2) */

void sp_jw_init(struct sp_jw *w, size_t cap_hint)
{
    memset(w, 0, sizeof *w);
    w->cap = cap_hint ? cap_hint : JW_CAP_DEFAULT;
    w->buf = malloc(w->cap);
    if (w->buf == NULL)
        w->failed = ENOMEM;
}

/* Room for N more bytes (and a NUL); 0, or -1 with the writer failed. */
static int reserve(struct sp_jw *w, size_t n)
{
    if (w->failed)
        return -1;
    if (n > SIZE_MAX / 2 - w->len) {
        w->failed = ENOMEM;
        return -1;
    }
    if (w->len + n + 1 <= w->cap)
        return 0;
    size_t cap = w->cap * 2;
    while (cap < w->len + n + 1)
        cap *= 2;
    char *b = realloc(w->buf, cap);
    if (b == NULL) {
        w->failed = ENOMEM;
        return -1;
    }
    w->buf = b;
    w->cap = cap;
    return 0;
}

static void put(struct sp_jw *w, const char *s, size_t n)
{
    if (reserve(w, n) == 0) {
        memcpy(w->buf + w->len, s, n);
        w->len += n;
    }
}

/* A newline and the indentation of LEVEL. */
static void newline(struct sp_jw *w, int level)
{
    size_t n = 1 + (size_t)level * JW_INDENT;
    if (reserve(w, n) == 0) {
        w->buf[w->len] = '\n';
        memset(w->buf + w->len + 1, ' ', n - 1);
        w->len += n;
    }
}

/* What goes before a value: in a container, "," after an earlier member,
 * the new line, and "KEY": when there is a key. */
static void member(struct sp_jw *w, const char *key)
{
    if (w->depth == 0 || w->failed)
        return;
    if (w->members[w->depth - 1])
        put(w, ",", 1);
    w->members[w->depth - 1] = 1;
    newline(w, w->depth);
    if (key) {
        put(w, "\"", 1);
        put(w, key, strlen(key));
        put(w, "\": ", 3);
    }
}

void sp_jw_open(struct sp_jw *w, const char *key, char open)
{
    member(w, key);
    if (w->failed)
        return;
    if (w->depth == SP_JW_DEPTH_MAX) {
        w->failed = EINVAL;
        return;
    }
    put(w, &open, 1);
    w->members[w->depth++] = 0;
}

void sp_jw_close(struct sp_jw *w, char close)
{
    if (w->failed)
        return;
    if (w->depth == 0) {
        w->failed = EINVAL;
        return;
    }
    w->depth--;
    if (w->members[w->depth])
        newline(w, w->depth);
    put(w, &close, 1);
}

/* Length of VALUE when every byte is printable ASCII other than '"' and
 * '\\' (RFC 8259 section 7: such text stands for itself inside quotes, and
 * jansson writes it unchanged), else 0: the bytes to give to jansson. */
static size_t plain_length(const char *value)
{
    size_t n = 0;
    for (unsigned char c; (c = (unsigned char)value[n]) != '\0'; n++)
        if (c < 0x20 || c > 0x7e || c == '"' || c == '\\')
            return 0;
    return n;
}

void sp_jw_string(struct sp_jw *w, const char *key, const char *value)
{
    member(w, key);
    if (value == NULL && !w->failed)
        w->failed = EINVAL;
    if (w->failed)
        return;
    size_t n = plain_length(value);
    if (n > 0 && reserve(w, n + 2) == 0) {
        w->buf[w->len] = '"';
        memcpy(w->buf + w->len + 1, value, n);
        w->buf[w->len + 1 + n] = '"';
        w->len += n + 2;
        return;
    }
    n = strlen(value);
    /* jansson writes at most 6 bytes per input byte ("\u001f") plus quotes */
    if (n > SIZE_MAX / 8 || reserve(w, 6 * n + 2) != 0) {
        w->failed = w->failed ? w->failed : ENOMEM;
        return;
    }
    json_t *s = json_stringn_nocheck(value, n);
    size_t got = s ? json_dumpb(s, w->buf + w->len, w->cap - w->len, JSON_ENCODE_ANY) : 0;
    json_decref(s);
    if (s == NULL)
        w->failed = ENOMEM;
    else if (got == 0 || got > w->cap - w->len)
        w->failed = EILSEQ;
    else
        w->len += got;
}

void sp_jw_pair(struct sp_jw *w, const char *k1, const char *v1, const char *k2, const char *v2)
{
    sp_jw_open(w, NULL, '{');
    sp_jw_string(w, k1, v1);
    sp_jw_string(w, k2, v2);
    sp_jw_close(w, '}');
}

void sp_jw_literal(struct sp_jw *w, const char *key, const char *literal)
{
    member(w, key);
    put(w, literal, strlen(literal));
}

int sp_jw_finish(struct sp_jw *w, char **out, size_t *len, struct sp_error *e)
{
    if (!w->failed && w->depth != 0)
        w->failed = EINVAL;
    put(w, "\n", 1);
    if (w->failed) {
        int why = w->failed;
        free(w->buf);
        memset(w, 0, sizeof *w);
        return why == EILSEQ ? sp_fail(e, SP_EXIT_INPUT, "export: a string is not UTF-8")
                             : sp_fail(e, SP_EXIT_INPUT, "export: %s", strerror(why));
    }
    w->buf[w->len] = '\0';
    *out = w->buf;
    *len = w->len;
    memset(w, 0, sizeof *w);
    return 0;
}
