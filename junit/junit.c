/* junit/junit.c: JUnit reports read in one streaming pass of libxml2's
 * SAX2 parser (no document tree: memory is the report, the result and a
 * little per suite), properties spliced into the report's own bytes, test
 * cases listed; see junit.h. */
#include "junit/junit.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "junit/libxml.h"

#define DEPTH_MAX 4096          /* open elements tracked (libxml2 stops at 256) */

/* ---- the pass -------------------------------------------------------- */

enum kind { OTHER, SUITE, PROPS, PROPS_CHILD, TESTCASE };

struct frame {
    enum kind kind;
    size_t suite;             /* SUITE, PROPS, PROPS_CHILD: index in suites */
    size_t start;             /* PROPS_CHILD: offset of its '<' */
    int ours;                 /* PROPS_CHILD: a stackprint.* property */
    int failed, skipped;      /* TESTCASE: what its children said */
    char *name;               /* TESTCASE: CLASSNAME::NAME */
};

struct removal {
    size_t from, to;          /* bytes [from, to): a property and the blanks before it */
};

struct suite {
    size_t tag_end;           /* offset just past its start tag's '>' */
    size_t slash;             /* self-closing: offset of the '/' of "/>" */
    int selfclose;
    int has_props;            /* its first <properties> child was seen */
    size_t props_start, props_tag_end, props_slash, props_close;
    int props_selfclose;      /* props_close: offset of '<' of </properties> */
    size_t keep_start;        /* first child element of <properties> kept */
    int has_keep;
    struct removal *rm;
    size_t nrm, caprm;
};

struct edit {
    size_t at, del;           /* replace bytes [at, at + del) ... */
    char *text;               /* ... by TEXT (malloc'd) */
    size_t seq;               /* order of making, for a stable sort */
};

struct pass {
    const struct sp_libxml *x;
    xmlParserCtxtPtr c;
    const char *buf;
    size_t len;
    int attach;               /* record offsets for junit_attach */
    struct junit_summary *sum;  /* or NULL */
    struct frame *frames;
    size_t depth, capframes;
    struct suite *suites;
    size_t nsuites, capsuites;
    int oom, lost;            /* out of memory; an offset not where expected */
    int converted;            /* the report is not UTF-8: libxml2 converts it */
    int doctype, doc_line, doc_column;
    int errors, err_line, err_column;
    char err[200];
};

static void stop(struct pass *w)
{
    w->x->xmlStopParser(w->c);
}

/* The parser's offset in the report's bytes (its own encoding). */
static size_t here(struct pass *w)
{
    long n = w->x->xmlByteConsumed(w->c);
    if (n < 0 || (size_t)n > w->len) {
        w->lost = 1;
        stop(w);
        return 0;
    }
    return (size_t)n;
}

/* The offset of the '<' opening the tag that ends before END. */
static size_t tag_start(struct pass *w, size_t end)
{
    while (end > 0 && w->buf[end - 1] != '<')
        end--;
    if (end == 0) {
        w->lost = 1;
        stop(w);
        return 0;
    }
    return end - 1;
}

static int blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The value of the unprefixed attribute NAME, malloc'd ("" when absent),
 * or NULL when out of memory. */
static char *attr(const xmlChar **a, int n, const char *name)
{
    for (int i = 0; i < n; i++, a += 5)
        if (a[1] == NULL && strcmp((const char *)a[0], name) == 0) {
            size_t l = (size_t)(a[4] - a[3]);
            char *s = malloc(l + 1);
            if (s) {
                memcpy(s, a[3], l);
                s[l] = '\0';
            }
            return s;
        }
    return strdup("");
}

static int is(const xmlChar *name, const char *want)
{
    return strcmp((const char *)name, want) == 0;
}

/* Where the start tag just read ends: "/>" (SELFCLOSE set, SLASH its
 * offset) or ">" (TAG_END the offset after it).  0, or -1 when the tag's
 * end is not where libxml2 says it is (the splice is then lost). */
static int tag_close(struct pass *w, int *selfclose, size_t *slash, size_t *tag_end)
{
    size_t at = here(w);
    if (at + 1 < w->len && w->buf[at] == '/' && w->buf[at + 1] == '>') {
        *selfclose = 1;
        *slash = at;
    } else if (at < w->len && w->buf[at] == '>') {
        *tag_end = at + 1;
    } else {
        w->lost = 1;
        stop(w);
        return -1;
    }
    return 0;
}

/* <testsuite>: a new suite, and where attach splices its properties. */
static void start_suite(struct pass *w, struct frame *f)
{
    if (SP_ARRAY_RESERVE(w->suites, w->capsuites, w->nsuites + 1) != 0) {
        w->oom = 1;
        return;
    }
    f->kind = SUITE;
    f->suite = w->nsuites;
    struct suite *s = &w->suites[w->nsuites++];
    memset(s, 0, sizeof *s);
    if (w->attach)
        tag_close(w, &s->selfclose, &s->slash, &s->tag_end);
}

/* <testcase>, when listing: its "classname::name". */
static void start_testcase(struct pass *w, struct frame *f, const xmlChar **attrs, int nattr)
{
    f->kind = TESTCASE;
    char *cls = attr(attrs, nattr, "classname"), *nm = attr(attrs, nattr, "name");
    size_t l = (cls ? strlen(cls) : 0) + (nm ? strlen(nm) : 0) + 3;
    f->name = cls && nm ? malloc(l) : NULL;
    if (f->name)
        snprintf(f->name, l, "%s%s%s", cls, *cls ? "::" : "", nm);
    else
        w->oom = 1;
    free(cls);
    free(nm);
}

/* A suite's first <properties>: where it starts and ends. */
static void start_properties(struct pass *w, struct frame *f, const struct frame *up)
{
    struct suite *s = &w->suites[up->suite];
    f->kind = PROPS;
    f->suite = up->suite;
    s->has_props = 1;
    s->props_start = tag_start(w, here(w));
    tag_close(w, &s->props_selfclose, &s->props_slash, &s->props_tag_end);
}

/* A child of <properties>: one of ours (a stackprint.* property, replaced
 * when attaching again) or another's (kept). */
static void start_property(struct pass *w, struct frame *f, const struct frame *up,
                           const xmlChar *name, const xmlChar **attrs, int nattr)
{
    f->kind = PROPS_CHILD;
    f->suite = up->suite;
    f->start = tag_start(w, here(w));
    if (!is(name, "property"))
        return;
    char *n = attr(attrs, nattr, "name");
    if (n == NULL)
        w->oom = 1;
    else
        f->ours = strncmp(n, SP_JUNIT_PROPERTY_PREFIX, strlen(SP_JUNIT_PROPERTY_PREFIX)) == 0;
    free(n);
}

static void on_start(void *ctx, const xmlChar *name, const xmlChar *prefix, const xmlChar *uri,
                     int nns, const xmlChar **ns, int nattr, int ndef, const xmlChar **attrs)
{
    (void)uri;
    (void)nns;
    (void)ns;
    (void)ndef;
    struct pass *w = ((xmlParserCtxtPtr)ctx)->_private;
    if (w->oom || w->lost)
        return;
    if (SP_ARRAY_RESERVE(w->frames, w->capframes, w->depth + 1) != 0 ||
        w->depth >= DEPTH_MAX) {
        w->oom = 1;
        stop(w);
        return;
    }
    if (w->depth == 0)        /* the root: the declaration, if any, is read */
        w->converted = w->c->input && w->c->input->buf && w->c->input->buf->encoder;
    struct frame *up = w->depth ? &w->frames[w->depth - 1] : NULL;
    struct frame *f = &w->frames[w->depth++];
    memset(f, 0, sizeof *f);
    f->kind = OTHER;
    if (prefix != NULL)
        return;
    if (up && up->kind == TESTCASE) {
        up->failed |= is(name, "failure") || is(name, "error");
        up->skipped |= is(name, "skipped");
    }
    if (is(name, "testsuite"))
        start_suite(w, f);
    else if (is(name, "testcase") && w->sum)
        start_testcase(w, f, attrs, nattr);
    else if (w->attach && up && up->kind == SUITE && is(name, "properties") &&
             !w->suites[up->suite].has_props)
        start_properties(w, f, up);
    else if (w->attach && up && up->kind == PROPS)
        start_property(w, f, up, name, attrs, nattr);
    if (w->oom)
        stop(w);
}

static int push(char ***list, size_t *n, char *s)
{
    if ((*n & (*n - 1)) == 0) {      /* 0, 1, 2, 4, ...: grow to double */
        char **l = realloc(*list, (*n ? 2 * *n : 1) * sizeof *l);
        if (l == NULL) {
            free(s);
            return -1;
        }
        *list = l;
    }
    (*list)[(*n)++] = s;
    return 0;
}

static void on_end(void *ctx, const xmlChar *name, const xmlChar *prefix, const xmlChar *uri)
{
    (void)name;
    (void)prefix;
    (void)uri;
    struct pass *w = ((xmlParserCtxtPtr)ctx)->_private;
    if (w->depth == 0)
        return;
    struct frame *f = &w->frames[--w->depth];
    if (w->oom || w->lost) {
        free(f->name);
        return;
    }
    if (f->kind == TESTCASE) {
        int r = 0;
        if (f->failed)
            r = push(&w->sum->failed, &w->sum->nfailed, f->name);
        else if (f->skipped) {
            w->sum->nskipped++;
            free(f->name);
        } else
            r = push(&w->sum->passed, &w->sum->npassed, f->name);
        f->name = NULL;
        if (r != 0) {
            w->oom = 1;
            stop(w);
        }
    } else if (f->kind == PROPS) {
        struct suite *s = &w->suites[f->suite];
        if (!s->props_selfclose)
            s->props_close = tag_start(w, here(w));
    } else if (f->kind == PROPS_CHILD) {
        struct suite *s = &w->suites[f->suite];
        if (!f->ours) {
            if (!s->has_keep) {
                s->has_keep = 1;
                s->keep_start = f->start;
            }
            return;
        }
        size_t from = f->start, to = here(w);
        while (from > s->props_tag_end && blank(w->buf[from - 1]))
            from--;
        if (SP_ARRAY_RESERVE(s->rm, s->caprm, s->nrm + 1) != 0) {
            w->oom = 1;
            stop(w);
            return;
        }
        s->rm[s->nrm].from = from;
        s->rm[s->nrm].to = to;
        s->nrm++;
    }
}

/* SAX internalSubset: called at <!DOCTYPE, before any declaration in it is
 * read.  Stop there. */
static void on_doctype(void *ctx, const xmlChar *name, const xmlChar *ext, const xmlChar *sys)
{
    (void)name;
    (void)ext;
    (void)sys;
    xmlParserCtxtPtr c = ctx;
    struct pass *w = c->_private;
    if (!w->doctype) {
        w->doctype = 1;
        w->doc_line = c->input ? c->input->line : 0;
        w->doc_column = c->input ? c->input->col : 0;
    }
    stop(w);
}

/* SAX structured errors: keep the first, the one that names the cause
 * (later ones follow from it). */
static void on_error(void *ctx, xmlErrorPtr err)   /* libxml2 2.9 signature */
{
    xmlParserCtxtPtr c = ctx;
    struct pass *w = c ? c->_private : NULL;
    if (w == NULL || err == NULL || w->errors++ > 0)
        return;
    const char *m = err->message ? err->message : "not well-formed";
    size_t n = strlen(m);
    while (n > 0 && (m[n - 1] == '\n' || m[n - 1] == ' '))
        n--;
    if (n >= sizeof w->err)
        n = sizeof w->err - 1;
    memcpy(w->err, m, n);
    w->err[n] = '\0';
    w->err_line = err->line;
    w->err_column = err->int2;
}

static void quiet(void *ctx, xmlErrorPtr err)
{
    (void)ctx;
    (void)err;
}

static void quiet_generic(void *ctx, const char *fmt, ...)
{
    (void)ctx;
    (void)fmt;
}

static void pass_free(struct pass *w)
{
    while (w->depth > 0)
        free(w->frames[--w->depth].name);
    free(w->frames);
    for (size_t i = 0; i < w->nsuites; i++)
        free(w->suites[i].rm);
    free(w->suites);
    if (w->c)
        w->x->xmlFreeParserCtxt(w->c);
    w->c = NULL;
}

/* 1 when the report's bytes put '<', '>' and blanks in single ASCII bytes
 * (UTF-8, ISO 8859, ...), as splicing needs: not UTF-16, UTF-32, EBCDIC. */
static int ascii_compatible(const char *buf, size_t len)
{
    const unsigned char *u = (const unsigned char *)buf;
    if (len >= 2 && ((u[0] == 0xfe && u[1] == 0xff) || (u[0] == 0xff && u[1] == 0xfe)))
        return 0;
    if (len >= 4 && (u[0] == 0 || u[1] == 0 || (u[0] == 0x4c && u[1] == 0x6f)))
        return 0;
    return 1;
}

/* Run the pass over BUF; 0, or -1 with E set. */
static int run(struct pass *w, const char *name, struct sp_error *e)
{
    if ((w->x = sp_libxml(e)) == NULL)
        return -1;
    if (w->len > SP_JUNIT_MAX_BYTES)
        return sp_fail(e, SP_EXIT_INPUT, "%s: larger than the JUnit report size limit (%u bytes)",
                       name, SP_JUNIT_MAX_BYTES);
    if (!ascii_compatible(w->buf, w->len))
        return sp_fail(e, SP_EXIT_INPUT, "%s: UTF-16, UTF-32 and EBCDIC reports are not read "
                       "(write it as UTF-8)", name);
    w->x->xmlSetStructuredErrorFunc(NULL, quiet);
    w->x->xmlSetGenericErrorFunc(NULL, quiet_generic);
    if ((w->c = w->x->xmlNewParserCtxt()) == NULL)
        return sp_fail(e, SP_EXIT_INPUT, "%s: out of memory", name);
    /* only these callbacks: no tree is built, no text kept */
    xmlSAXHandler sax;
    memset(&sax, 0, sizeof sax);
    sax.initialized = XML_SAX2_MAGIC;
    sax.startElementNs = on_start;
    sax.endElementNs = on_end;
    sax.internalSubset = on_doctype;
    sax.serror = on_error;
    *w->c->sax = sax;
    w->c->_private = w;
    w->x->xmlCtxtReadMemory(w->c, w->buf, (int)w->len, NULL, NULL,
                            XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING |
                            XML_PARSE_BIG_LINES);
    if (w->doctype)
        return sp_fail(e, SP_EXIT_INPUT, "%s:%d:%d: a DOCTYPE declaration is refused "
                       "(entities are never expanded, DTDs never loaded)",
                       name, w->doc_line, w->doc_column);
    if (w->oom)
        return sp_fail(e, SP_EXIT_INPUT, "%s: out of memory (or elements nested deeper than %d)",
                       name, DEPTH_MAX);
    if (!w->c->wellFormed || w->errors) {
        const char *what = w->errors ? w->err : "not well-formed";
        if (w->errors && w->err_line > 0)
            return sp_fail(e, SP_EXIT_INPUT, "%s:%d:%d: not well-formed XML: %s", name,
                           w->err_line, w->err_column > 0 ? w->err_column : 1, what);
        return sp_fail(e, SP_EXIT_INPUT, "%s: not well-formed XML: %s", name, what);
    }
    if (w->lost)
        return sp_fail(e, SP_EXIT_INPUT, "%s: cannot locate the elements in the report's bytes",
                       name);
    if (w->nsuites == 0)
        return sp_fail(e, SP_EXIT_INPUT, "%s: no <testsuite> element (not a JUnit XML report)",
                       name);
    return 0;
}

/* ---- splicing ------------------------------------------------------- */

struct text {
    char *p;
    size_t n, cap;
    int oom;
};

static void put(struct text *t, const char *s, size_t n)
{
    if (t->oom || sp_array_reserve(&t->p, &t->cap, t->n + n + 1, 1) != 0) {
        t->oom = 1;
        return;
    }
    memcpy(t->p + t->n, s, n);
    t->n += n;
    t->p[t->n] = '\0';
}

static void puts_(struct text *t, const char *s)
{
    put(t, s, strlen(s));
}

/* S as an attribute value: escaped as XML requires; control characters
 * XML 1.0 does not allow as the text \xNN; non-ASCII as character
 * references unless the report is UTF-8 (S is UTF-8, from a manifest). */
static void put_value(struct text *t, const char *s, int utf8)
{
    static const char hex[] = "0123456789abcdef";
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        char ref[16];
        if (*p == '<') puts_(t, "&lt;");
        else if (*p == '>') puts_(t, "&gt;");
        else if (*p == '&') puts_(t, "&amp;");
        else if (*p == '"') puts_(t, "&quot;");
        else if (*p == '\t') puts_(t, "&#9;");
        else if (*p == '\n') puts_(t, "&#10;");
        else if (*p == '\r') puts_(t, "&#13;");
        else if (*p < 0x20 || *p == 0x7f) {
            char esc[4] = { '\\', 'x', hex[*p >> 4], hex[*p & 15] };
            put(t, esc, 4);
        } else if (*p < 0x80 || utf8) {
            put(t, (const char *)p, 1);
        } else {
            /* a UTF-8 sequence: its code point as &#xH; */
            int n = *p >= 0xf0 ? 3 : *p >= 0xe0 ? 2 : *p >= 0xc0 ? 1 : 0;
            uint32_t cp = *p & (0x3f >> n);
            for (int i = 0; i < n && (p[1] & 0xc0) == 0x80; i++)
                cp = cp << 6 | (*++p & 0x3f);
            snprintf(ref, sizeof ref, "&#x%X;", (unsigned)cp);
            puts_(t, ref);
        }
    }
}

static void put_props(struct text *t, const struct junit_property *props, size_t n,
                      const char *indent, size_t ilen, int utf8)
{
    for (size_t i = 0; i < n; i++) {
        put(t, indent, ilen);
        puts_(t, "<property name=\"");
        put_value(t, props[i].name, utf8);
        puts_(t, "\" value=\"");
        put_value(t, props[i].value, utf8);
        puts_(t, "\"/>");
    }
}

static int add_edit(struct edit **ed, size_t *n, size_t *cap, size_t at, size_t del,
                    struct text *t)
{
    if (t->oom || sp_array_reserve(ed, cap, *n + 1, sizeof **ed) != 0) {
        free(t->p);
        return -1;
    }
    (*ed)[*n] = (struct edit){ at, del, t->p ? t->p : strdup(""), *n };
    memset(t, 0, sizeof *t);
    return (*ed)[(*n)++].text ? 0 : -1;
}

static int by_offset(const void *a, const void *b)
{
    const struct edit *x = a, *y = b;
    if (x->at != y->at)
        return x->at < y->at ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The blanks before offset AT, back to (not past) FLOOR: their start. */
static size_t blanks_before(const char *buf, size_t at, size_t floor)
{
    while (at > floor && blank(buf[at - 1]))
        at--;
    return at;
}

/* The edits for suite S: ours removed, PROPS added. */
static int suite_edits(const struct pass *w, const struct suite *s,
                       const struct junit_property *props, size_t nprops, int utf8,
                       struct edit **ed, size_t *n, size_t *cap)
{
    const char *b = w->buf;
    struct text t = { 0 };
    if (!s->has_props) {
        if (s->selfclose) {
            /* <testsuite .../> -> <testsuite ...><properties>..</properties></testsuite> */
            puts_(&t, "><properties>");
            put_props(&t, props, nprops, "", 0, utf8);
            puts_(&t, "</properties></testsuite>");
            return add_edit(ed, n, cap, s->slash, 2, &t);
        }
        /* the blanks before the first child, when it is markup: copied */
        size_t ws = s->tag_end;
        while (ws < w->len && blank(b[ws]))
            ws++;
        size_t wl = ws < w->len && b[ws] == '<' ? ws - s->tag_end : 0;
        const char *W = b + s->tag_end;
        puts_(&t, "<properties>");
        if (wl > 0) {
            int tab = W[wl - 1] == '\t';
            struct text in = { 0 };
            put(&in, W, wl);
            puts_(&in, tab ? "\t" : "  ");
            if (in.oom) {
                free(in.p);
                free(t.p);
                return -1;
            }
            put_props(&t, props, nprops, in.p, in.n, utf8);
            free(in.p);
            put(&t, W, wl);
            puts_(&t, "</properties>");
            put(&t, W, wl);
        } else {
            put_props(&t, props, nprops, "", 0, utf8);
            puts_(&t, "</properties>");
        }
        return add_edit(ed, n, cap, s->tag_end + wl, 0, &t);
    }
    for (size_t i = 0; i < s->nrm; i++)
        if (add_edit(ed, n, cap, s->rm[i].from, s->rm[i].to - s->rm[i].from, &t) != 0)
            return -1;
    /* indentation: that of the first child element kept, else one level
     * deeper than <properties> itself */
    size_t pws = blanks_before(b, s->props_start, 0);
    const char *P = b + pws;
    size_t pl = s->props_start - pws;
    struct text in = { 0 };
    if (s->has_keep) {
        size_t k = blanks_before(b, s->keep_start, s->props_tag_end);
        put(&in, b + k, s->keep_start - k);
    } else if (pl > 0) {
        put(&in, P, pl);
        puts_(&in, P[pl - 1] == '\t' ? "\t" : "  ");
    }
    if (in.oom) {
        free(in.p);
        return -1;
    }
    int r;
    if (s->props_selfclose) {
        puts_(&t, ">");
        put_props(&t, props, nprops, in.p ? in.p : "", in.n, utf8);
        put(&t, P, pl);
        puts_(&t, "</properties>");
        r = add_edit(ed, n, cap, s->props_slash, 2, &t);
    } else {
        size_t close_ws = blanks_before(b, s->props_close, s->props_tag_end);
        /* an empty <properties></properties> under an indented one gets
         * its closing line, as the first attach of an emptied one had */
        int add_close = !s->has_keep && pl > 0 && close_ws == s->props_close &&
                        close_ws == s->props_tag_end;
        put_props(&t, props, nprops, in.p ? in.p : "", in.n, utf8);
        if (add_close)
            put(&t, P, pl);
        r = add_edit(ed, n, cap, close_ws, 0, &t);
    }
    free(in.p);
    return r;
}

int junit_attach(const char *buf, size_t len, const char *name,
                 const struct junit_property *props, size_t nprops,
                 char **out, size_t *outlen, struct sp_error *e)
{
    struct pass w = { .buf = buf, .len = len, .attach = 1 };
    struct edit *ed = NULL;
    size_t ned = 0, caped = 0;
    struct text t = { 0 };
    int rc = -1;
    if (run(&w, name, e) != 0)
        goto out;
    int utf8 = !w.converted;
    for (size_t i = 0; i < w.nsuites; i++)
        if (suite_edits(&w, &w.suites[i], props, nprops, utf8, &ed, &ned, &caped) != 0)
            goto nomem;
    if (ned > 1)
        qsort(ed, ned, sizeof *ed, by_offset);
    size_t at = 0;
    for (size_t i = 0; i < ned; i++) {
        if (ed[i].at < at) {
            sp_fail(e, SP_EXIT_INPUT, "%s: cannot locate the elements in the report's bytes", name);
            goto out;
        }
        put(&t, buf + at, ed[i].at - at);
        puts_(&t, ed[i].text);
        at = ed[i].at + ed[i].del;
    }
    put(&t, buf + at, len - at);
    if (t.oom)
        goto nomem;
    *out = t.p ? t.p : strdup("");
    *outlen = t.n;
    t.p = NULL;
    rc = *out ? 0 : -1;
    if (rc == 0)
        goto out;
nomem:
    sp_fail(e, SP_EXIT_INPUT, "%s: out of memory", name);
out:
    for (size_t i = 0; i < ned; i++)
        free(ed[i].text);
    free(ed);
    free(t.p);
    pass_free(&w);
    return rc;
}

/* ---- summarising ---------------------------------------------------- */

int junit_summarize(const char *buf, size_t len, const char *name,
                    struct junit_summary *s, struct sp_error *e)
{
    memset(s, 0, sizeof *s);
    struct pass w = { .buf = buf, .len = len, .sum = s };
    int rc = run(&w, name, e);
    s->nsuites = w.nsuites;
    pass_free(&w);
    if (rc != 0)
        junit_summary_free(s);
    return rc;
}

void junit_summary_free(struct junit_summary *s)
{
    for (size_t i = 0; i < s->npassed; i++)
        free(s->passed[i]);
    for (size_t i = 0; i < s->nfailed; i++)
        free(s->failed[i]);
    free(s->passed);
    free(s->failed);
    memset(s, 0, sizeof *s);
}
