/* fingerprint/probes/python/py_metadata.c: the header block of one
 * METADATA / PKG-INFO file as the core metadata specification (packaging
 * guide, "Core metadata specifications") and Python's email parser read
 * it: RFC 822 style headers up to the first blank line or line that is not
 * a header, continuation lines folded, names case-insensitive, the first
 * occurrence wins (email.message.Message.get), universal newlines
 * (importlib.metadata opens the file as text).  Never reads the body. */
#include "fingerprint/probes/python/py_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct hdr_read {
    char *buf;        /* the header bytes read, line ends made "\n" */
    size_t len, cap;
    uint64_t raw;     /* bytes of the file seen */
    int cr;           /* the last byte read was a CR (a "\n" may follow) */
    int done;         /* saw the blank line */
    int over;         /* crossed PY_METADATA_HEADER_MAX */
};

/* Offset just past the header block's last line (before the blank line) in
 * B[0..N), whose line ends are all "\n", or -1 when no blank line yet.
 * FROM: bytes before it were searched already. */
static long header_end(const char *b, size_t n, size_t from)
{
    if (n >= 1 && b[0] == '\n')
        return 0;   /* the first line is blank: no headers */
    size_t i = from ? from - 1 : 0;
    while (i + 1 < n) {
        const char *nl = memchr(b + i, '\n', n - 1 - i);
        if (nl == NULL)
            break;
        i = (size_t)(nl - b);
        if (b[i + 1] == '\n')
            return (long)i + 1;
        i++;
    }
    return -1;
}

/* Collect the header block.  Line ends are read as Python reads METADATA
 * (importlib.metadata opens it as text with universal newlines, and the
 * email parser splits on the same): "\r\n", "\r" and "\n" each end one
 * line, and are stored as "\n", the CR state carried across chunks. */
static int hdr_cb(void *vctx, const char *chunk, size_t n)
{
    struct hdr_read *h = vctx;
    size_t old = h->len;
    h->raw += n;
    size_t want = old + (n < PY_METADATA_HEADER_MAX - old ? n : PY_METADATA_HEADER_MAX - old);
    if (want + 1 > h->cap) {
        size_t ncap = h->cap ? h->cap : 8192;
        while (ncap < want + 1)
            ncap *= 2;
        char *nb = realloc(h->buf, ncap);
        if (nb == NULL)
            return -1;
        h->buf = nb;
        h->cap = ncap;
    }
    size_t i = 0;
    while (i < n) {
        char c = chunk[i];
        if (c == '\n' && h->cr) {       /* the LF of a CRLF: already stored */
            h->cr = 0;
            i++;
            continue;
        }
        if (h->len >= PY_METADATA_HEADER_MAX)
            break;
        h->cr = c == '\r';
        h->buf[h->len++] = h->cr ? '\n' : c;
        i++;
    }
    h->buf[h->len] = '\0';
    long end = header_end(h->buf, h->len, old);
    if (end >= 0) {
        h->len = (size_t)end;
        h->buf[h->len] = '\0';
        h->done = 1;
        return 1;
    }
    if (i < n) {
        h->over = 1;
        return 1;
    }
    return 0;
}

void py_metadata_free(struct py_metadata *m)
{
    for (size_t i = 0; i < m->nrequires; i++)
        free(m->requires[i]);
    m->nrequires = 0;
}

/* Is the NUL-terminated S valid UTF-8?  ASCII is answered without a copy. */
static int valid_utf8(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p && *p < 0x80)
        p++;
    if (*p == '\0')
        return 1;
    size_t n = strlen(s);
    char *san = sp_utf8_sanitize(s, n);
    if (san == NULL)
        return 1;
    int ok = strlen(san) == n;
    free(san);
    return ok;
}

/* Is LINE (LEN bytes) a header line "Name: value"?  Python's feedparser
 * takes printable ASCII other than ':' up to the colon. */
static int header_name_len(const char *line, size_t len)
{
    size_t i = 0;
    while (i < len && line[i] != ':' && (unsigned char)line[i] > 32 && (unsigned char)line[i] < 127)
        i++;
    return i > 0 && i < len && line[i] == ':' ? (int)i : -1;
}

static void set_field(char *dst, const char *v, size_t vl, int *too_long)
{
    if (dst[0] != '\0')
        return;   /* first occurrence wins (Message.get) */
    while (vl > 0 && isspace((unsigned char)*v)) {
        v++;
        vl--;
    }
    while (vl > 0 && isspace((unsigned char)v[vl - 1]))
        vl--;
    if (vl >= PY_FIELD_MAX) {
        *too_long = 1;
        return;
    }
    memcpy(dst, v, vl);
    dst[vl] = '\0';
}

/* Read the header block of PATH into H (line ends made "\n").  Most header
 * blocks fit in the first PY_METADATA_FIRST_READ bytes: read those, and
 * only when the blank line is not among them (and the file goes on) read
 * again up to PY_METADATA_HEADER_MAX.  0, or -1 with errno (H freed). */
static int read_block(struct root *r, const char *path, struct hdr_read *h)
{
    uint64_t max = PY_METADATA_FIRST_READ;
    for (int pass = 0; pass < 2; pass++) {
        if (root_scan_file(r, path, max, hdr_cb, h) != 0) {
            int saved = errno;
            free(h->buf);
            h->buf = NULL;
            errno = saved;
            return -1;
        }
        if (h->done || h->over || h->raw < max)
            break;
        h->len = 0;
        h->raw = 0;
        h->cr = 0;
        max = (uint64_t)PY_METADATA_HEADER_MAX + 1;
    }
    return 0;
}

/* The header being folded: which field, and its value so far. */
enum hfield { F_NONE, F_NAME, F_VERSION, F_REQ };
struct hstate {
    enum hfield field;
    const char *cur;    /* value of Name or Version (its first line) */
    size_t curlen;
    char *req;          /* a Requires-Dist value, folded (malloc'd) */
    size_t reqlen;
};

/* The header in S is complete: store it in M.  0, or -1 on ENOMEM. */
static int finish_header(struct py_metadata *m, struct hstate *s)
{
    int rc = 0;
    if (s->field == F_NAME)
        set_field(m->name, s->cur, s->curlen, &m->too_long);
    else if (s->field == F_VERSION)
        set_field(m->version, s->cur, s->curlen, &m->too_long);
    else if (s->field == F_REQ && s->req && m->nrequires < PY_REQUIRES_MAX) {
        char *v = strndup(s->req, s->reqlen);
        if (v == NULL)
            rc = -1;
        else
            m->requires[m->nrequires++] = v;
    }
    free(s->req);
    s->req = NULL;
    s->field = F_NONE;
    return rc;
}

/* A header line LINE (LEN bytes) that is not a continuation: start the
 * header it names.  1 when it is not a header (the body starts), 0, or -1
 * on ENOMEM. */
static int start_header(struct hstate *s, const char *line, size_t len, int want_requires)
{
    int hn = header_name_len(line, len);
    if (hn < 0)
        return 1;
    s->cur = line + hn + 1;
    s->curlen = len - (size_t)hn - 1;
    if ((size_t)hn == 4 && strncasecmp(line, "Name", 4) == 0)
        s->field = F_NAME;
    else if ((size_t)hn == 7 && strncasecmp(line, "Version", 7) == 0)
        s->field = F_VERSION;
    else if (want_requires && (size_t)hn == 13 && strncasecmp(line, "Requires-Dist", 13) == 0) {
        s->field = F_REQ;
        if ((s->req = strndup(s->cur, s->curlen)) == NULL)
            return -1;
        s->reqlen = s->curlen;
    }
    return 0;
}

/* A continuation line: appended to a Requires-Dist value; Name and Version
 * are single words, so a folded one keeps its first line only.  0, or -1
 * on ENOMEM. */
static int continue_header(struct hstate *s, const char *line, size_t len)
{
    if (s->field != F_REQ)
        return 0;
    char *nr = realloc(s->req, s->reqlen + len + 1);
    if (nr == NULL)
        return -1;
    s->req = nr;
    memcpy(s->req + s->reqlen, line, len);
    s->reqlen += len;
    return 0;
}

/* Walk the header lines of BUF[0..LEN) into M: a line starting with space
 * or tab continues the previous header; a line that is not a header ends
 * the block.  0, or -1 on ENOMEM. */
static int parse_headers(struct py_metadata *m, char *buf, size_t buflen, int want_requires)
{
    char *p = buf, *end = buf + buflen;
    struct hstate s = { .field = F_NONE };
    int rc = 0;
    for (;;) {
        char *line = p;
        char *nl = p < end ? memchr(p, '\n', (size_t)(end - p)) : NULL;
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        int last = p >= end;
        if (len > 0 && line[len - 1] == '\r')
            len--;
        int cont = !last && len > 0 && (line[0] == ' ' || line[0] == '\t');
        if (!cont && s.field != F_NONE && (rc = finish_header(m, &s)) != 0)
            break;
        if (last)
            break;
        int r = cont ? continue_header(&s, line, len)
                     : start_header(&s, line, len, want_requires);
        if (r != 0) {
            rc = r < 0 ? -1 : 0;
            break;   /* ENOMEM, or not a header: the body starts here */
        }
        p = nl == NULL ? end : nl + 1;
    }
    free(s.req);
    return rc;
}

int py_metadata_read(struct root *r, const char *path, int want_requires,
                     struct py_metadata *m)
{
    struct hdr_read h = { 0 };
    memset(m, 0, sizeof *m);
    if (read_block(r, path, &h) != 0)
        return -1;
    if (h.buf == NULL)
        return 0;   /* empty file: no headers */
    m->truncated = h.over;
    m->binary = memchr(h.buf, '\0', h.len) != NULL;
    if (m->binary) {
        free(h.buf);
        return 0;
    }
    int rc = parse_headers(m, h.buf, h.len, want_requires);
    free(h.buf);
    m->not_utf8 = !valid_utf8(m->name) || !valid_utf8(m->version);
    if (rc != 0) {
        py_metadata_free(m);
        errno = ENOMEM;
    }
    return rc;
}
