/* junit/junit.c: reading JUnit XML reports safely with libxml2, attaching
 * properties to their suites, and listing their test cases; see junit.h. */
#include "junit.h"

#include <stdlib.h>
#include <string.h>

#include "libxml.h"

static const struct sp_libxml *X;     /* set by report_parse() */

/* ---- parsing -------------------------------------------------------- */

static void quiet(void *ctx, xmlErrorPtr err)  /* libxml2 2.9 signature */
{
    (void)ctx;
    (void)err;
}

static void quiet_generic(void *ctx, const char *fmt, ...)
{
    (void)ctx;
    (void)fmt;
}

struct guard {
    int doctype;              /* a DOCTYPE was met */
    int line, column;
    int errors;               /* errors seen; the first is kept */
    int err_line, err_column;
    char err[200];
};

/* SAX structured error handler: keep the parser's first error, the one
 * that names the cause (later ones follow from it). */
static void first_error(void *ctx, xmlErrorPtr err)  /* libxml2 2.9 signature */
{
    xmlParserCtxtPtr c = ctx;
    struct guard *g = c ? c->_private : NULL;
    if (g == NULL || err == NULL || g->errors++ > 0)
        return;
    const char *m = err->message ? err->message : "not well-formed";
    size_t n = strlen(m);
    while (n > 0 && (m[n - 1] == '\n' || m[n - 1] == ' '))
        n--;
    if (n >= sizeof g->err)
        n = sizeof g->err - 1;
    memcpy(g->err, m, n);
    g->err[n] = '\0';
    g->err_line = err->line;
    g->err_column = err->int2;
}

/* SAX internalSubset: called at <!DOCTYPE, before any declaration in it is
 * read.  Stop there. */
static void refuse_doctype(void *ctx, const xmlChar *name, const xmlChar *ext,
                           const xmlChar *sys)
{
    (void)name;
    (void)ext;
    (void)sys;
    xmlParserCtxtPtr c = ctx;
    struct guard *g = c->_private;
    if (!g->doctype) {
        g->doctype = 1;
        g->line = c->input ? c->input->line : 0;
        g->column = c->input ? c->input->col : 0;
    }
    X->xmlStopParser(c);
}

static int is_el(const xmlNode *n, const char *name)
{
    return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

static size_t count_suites(const xmlNode *n)
{
    size_t k = 0;
    for (; n; n = n->next)
        if (n->type == XML_ELEMENT_NODE)
            k += is_el(n, "testsuite") + count_suites(n->children);
    return k;
}

/* Parse BUF under the rules of junit.h; the document, or NULL with E set. */
static xmlDocPtr report_parse(const char *buf, size_t len, const char *name,
                              struct sp_error *e)
{
    struct guard g = { 0 };

    if ((X = sp_libxml(e)) == NULL)
        return NULL;
    X->xmlSetStructuredErrorFunc(NULL, quiet);
    X->xmlSetGenericErrorFunc(NULL, quiet_generic);
    if (len > SP_JUNIT_MAX_BYTES)
        return sp_fail(e, SP_EXIT_INPUT, "%s: larger than the JUnit report size limit (%u bytes)",
                       name, SP_JUNIT_MAX_BYTES), NULL;
    xmlParserCtxtPtr c = X->xmlNewParserCtxt();
    if (c == NULL)
        return sp_fail(e, SP_EXIT_INPUT, "%s: out of memory", name), NULL;
    c->_private = &g;
    c->sax->internalSubset = refuse_doctype;
    c->sax->serror = first_error;
    xmlDocPtr doc = X->xmlCtxtReadMemory(c, buf, (int)len, NULL, NULL,
                                      XML_PARSE_NONET | XML_PARSE_NOERROR |
                                      XML_PARSE_NOWARNING | XML_PARSE_BIG_LINES);
    if (g.doctype) {
        X->xmlFreeDoc(doc);
        X->xmlFreeParserCtxt(c);
        return sp_fail(e, SP_EXIT_INPUT, "%s:%d:%d: a DOCTYPE declaration is refused "
                       "(entities are never expanded, DTDs never loaded)",
                       name, g.line, g.column), NULL;
    }
    if (doc == NULL || !c->wellFormed) {
        const char *what = g.errors ? g.err : "not well-formed";
        if (g.errors && g.err_line > 0)
            sp_fail(e, SP_EXIT_INPUT, "%s:%d:%d: not well-formed XML: %s", name, g.err_line,
                    g.err_column > 0 ? g.err_column : 1, what);
        else
            sp_fail(e, SP_EXIT_INPUT, "%s: not well-formed XML: %s", name, what);
        X->xmlFreeDoc(doc);
        X->xmlFreeParserCtxt(c);
        return NULL;
    }
    X->xmlFreeParserCtxt(c);
    if (count_suites(X->xmlDocGetRootElement(doc)) == 0) {
        X->xmlFreeDoc(doc);
        return sp_fail(e, SP_EXIT_INPUT, "%s: no <testsuite> element (not a JUnit XML report)",
                       name), NULL;
    }
    return doc;
}

/* ---- attaching ------------------------------------------------------ */

static int is_blank(const xmlNode *n)
{
    if (n == NULL || n->type != XML_TEXT_NODE || n->content == NULL)
        return 0;
    for (const xmlChar *p = n->content; *p; p++)
        if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
            return 0;
    return 1;
}

/* VALUE with the control characters XML 1.0 does not allow written \xNN;
 * malloc'd, or NULL. */
static xmlChar *xml_safe(const char *value)
{
    size_t n = strlen(value);
    xmlChar *out = malloc(4 * n + 1), *o = out;
    if (out == NULL)
        return NULL;
    for (const unsigned char *p = (const unsigned char *)value; *p; p++) {
        if ((*p < 0x20 && *p != '\t' && *p != '\n' && *p != '\r') || *p == 0x7f) {
            static const char hex[] = "0123456789abcdef";
            *o++ = '\\';
            *o++ = 'x';
            *o++ = (xmlChar)hex[*p >> 4];
            *o++ = (xmlChar)hex[*p & 15];
        } else {
            *o++ = *p;
        }
    }
    *o = '\0';
    return out;
}

/* INDENT one level deeper: a tab more when it ends with a tab, else two
 * spaces more; malloc'd, or NULL. */
static xmlChar *deeper(const xmlChar *indent)
{
    size_t n = strlen((const char *)indent);
    const char *more = n > 0 && indent[n - 1] == '\t' ? "\t" : "  ";
    xmlChar *s = malloc(n + 3);
    if (s) {
        memcpy(s, indent, n);
        memcpy(s + n, more, strlen(more) + 1);
    }
    return s;
}

/* The <properties> of SUITE, created (as the first child, indented like
 * the suite's children) where missing; NULL when out of memory. */
static xmlNodePtr properties_of(xmlDocPtr doc, xmlNodePtr suite)
{
    for (xmlNodePtr c = suite->children; c; c = c->next)
        if (is_el(c, "properties"))
            return c;
    xmlNodePtr p = X->xmlNewDocNode(doc, NULL, BAD_CAST "properties", NULL);
    if (p == NULL)
        return NULL;
    xmlNodePtr first = suite->children;
    if (is_blank(first)) {
        xmlNodePtr after = X->xmlNewDocText(doc, first->content);
        if (after == NULL || X->xmlAddNextSibling(first, p) == NULL) {
            X->xmlFreeNode(after);
            X->xmlFreeNode(p);
            return NULL;
        }
        if (X->xmlAddNextSibling(p, after) == NULL) {
            X->xmlFreeNode(after);
            return NULL;
        }
    } else if (first != NULL) {
        if (X->xmlAddPrevSibling(first, p) == NULL) {
            X->xmlFreeNode(p);
            return NULL;
        }
    } else if (X->xmlAddChild(suite, p) == NULL) {
        X->xmlFreeNode(p);
        return NULL;
    }
    return p;
}

/* Replace the stackprint properties of SUITE by PROPS. */
static int attach_suite(xmlDocPtr doc, xmlNodePtr suite,
                        const struct junit_property *props, size_t nprops)
{
    xmlNodePtr p = properties_of(doc, suite);
    if (p == NULL)
        return -1;
    /* drop ours, each with the blank text before it */
    for (xmlNodePtr c = p->children, next; c; c = next) {
        next = c->next;
        if (!is_el(c, "property"))
            continue;
        xmlChar *n = X->xmlGetProp(c, BAD_CAST "name");
        int ours = n && strncmp((const char *)n, SP_JUNIT_PROPERTY_PREFIX,
                                strlen(SP_JUNIT_PROPERTY_PREFIX)) == 0;
        X->Free(n);
        if (!ours)
            continue;
        if (is_blank(c->prev)) {
            xmlNodePtr b = c->prev;
            X->xmlUnlinkNode(b);
            X->xmlFreeNode(b);
        }
        X->xmlUnlinkNode(c);
        X->xmlFreeNode(c);
    }
    /* the indentation of a property: that of the first one there, else
     * two spaces deeper than <properties> itself (when it is indented) */
    xmlChar *indent = NULL;
    xmlNodePtr first = NULL;
    for (xmlNodePtr c = p->children; c && !first; c = c->next)
        if (c->type == XML_ELEMENT_NODE)
            first = c;
    if (first != NULL) {
        if (is_blank(first->prev) && (indent = (xmlChar *)strdup((const char *)first->prev->content)) == NULL)
            return -1;
    } else if (is_blank(p->prev)) {
        if ((indent = deeper(p->prev->content)) == NULL)
            return -1;
        if (!is_blank(p->last)) {
            xmlNodePtr close = X->xmlNewDocText(doc, p->prev->content);
            if (close == NULL || X->xmlAddChild(p, close) == NULL) {
                X->xmlFreeNode(close);
                X->Free(indent);
                return -1;
            }
        }
    }
    xmlNodePtr tail = is_blank(p->last) ? p->last : NULL;
    int rc = 0;
    for (size_t i = 0; i < nprops && rc == 0; i++) {
        xmlNodePtr q = X->xmlNewDocNode(doc, NULL, BAD_CAST "property", NULL);
        xmlChar *v = xml_safe(props[i].value), *n = xml_safe(props[i].name);
        if (q == NULL || v == NULL || n == NULL ||
            X->xmlNewProp(q, BAD_CAST "name", n) == NULL ||
            X->xmlNewProp(q, BAD_CAST "value", v) == NULL ||
            (tail ? X->xmlAddPrevSibling(tail, q) : X->xmlAddChild(p, q)) == NULL) {
            X->xmlFreeNode(q);
            rc = -1;
        } else if (indent != NULL) {
            xmlNodePtr t = X->xmlNewDocText(doc, indent);
            if (t == NULL || X->xmlAddPrevSibling(q, t) == NULL) {
                X->xmlFreeNode(t);
                rc = -1;
            }
        }
        free(v);
        free(n);
    }
    free(indent);
    return rc;
}

static int attach_all(xmlDocPtr doc, xmlNodePtr n, const struct junit_property *props,
                      size_t nprops)
{
    for (; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE)
            continue;
        /* children first: a suite's new <properties> is not walked */
        if (attach_all(doc, n->children, props, nprops) != 0)
            return -1;
        if (is_el(n, "testsuite") && attach_suite(doc, n, props, nprops) != 0)
            return -1;
    }
    return 0;
}

/* 1 when BUF starts with an XML declaration (after a UTF-8 byte order
 * mark), or is UTF-16 or UTF-32 (which needs one written back). */
static int has_declaration(const char *buf, size_t len)
{
    const unsigned char *u = (const unsigned char *)buf;
    if (len >= 2 && ((u[0] == 0xfe && u[1] == 0xff) || (u[0] == 0xff && u[1] == 0xfe) ||
                     u[0] == 0 || u[1] == 0))
        return 1;
    if (len >= 3 && u[0] == 0xef && u[1] == 0xbb && u[2] == 0xbf) {
        buf += 3;
        len -= 3;
    }
    return len >= 5 && memcmp(buf, "<?xml", 5) == 0;
}

int junit_attach(const char *buf, size_t len, const char *name,
                 const struct junit_property *props, size_t nprops,
                 char **out, size_t *outlen, struct sp_error *e)
{
    xmlDocPtr doc = report_parse(buf, len, name, e);
    if (doc == NULL)
        return -1;
    int rc = -1;
    xmlBufferPtr xb = NULL;
    if (attach_all(doc, X->xmlDocGetRootElement(doc), props, nprops) != 0)
        goto nomem;
    xb = X->xmlBufferCreate();
    if (xb == NULL)
        goto nomem;
    /* the declared encoding kept; UTF-8 when none was declared (an
     * unnamed output encoding would make libxml2 escape non-ASCII text) */
    const char *enc = doc->encoding ? (const char *)doc->encoding : "UTF-8";
    xmlSaveCtxtPtr sc = X->xmlSaveToBuffer(xb, enc, has_declaration(buf, len) ? 0 : XML_SAVE_NO_DECL);
    if (sc == NULL) {
        sp_fail(e, SP_EXIT_INPUT, "%s: cannot write XML in its encoding %s", name, enc);
        goto out;
    }
    long w = X->xmlSaveDoc(sc, doc);
    if (X->xmlSaveClose(sc) < 0 || w < 0) {
        sp_fail(e, SP_EXIT_INPUT, "%s: cannot write XML in its encoding %s", name, enc);
        goto out;
    }
    size_t n = (size_t)X->xmlBufferLength(xb);
    char *s = malloc(n + 1);
    if (s == NULL)
        goto nomem;
    memcpy(s, X->xmlBufferContent(xb), n);
    s[n] = '\0';
    *out = s;
    *outlen = n;
    rc = 0;
    goto out;
nomem:
    sp_fail(e, SP_EXIT_INPUT, "%s: out of memory", name);
out:
    X->xmlBufferFree(xb);
    X->xmlFreeDoc(doc);
    return rc;
}

/* ---- summarising ---------------------------------------------------- */

static int push(char ***list, size_t *n, char *s)
{
    if (s == NULL)
        return -1;
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

/* "CLASSNAME::NAME" or "NAME", malloc'd, or NULL. */
static char *test_name(xmlNodePtr tc)
{
    xmlChar *cls = X->xmlGetProp(tc, BAD_CAST "classname"), *nm = X->xmlGetProp(tc, BAD_CAST "name");
    const char *c = cls ? (const char *)cls : "", *n = nm ? (const char *)nm : "";
    size_t len = strlen(c) + strlen(n) + 3;
    char *s = malloc(len);
    if (s)
        snprintf(s, len, "%s%s%s", c, *c ? "::" : "", n);
    X->Free(cls);
    X->Free(nm);
    return s;
}

static int summarize(xmlNodePtr n, struct junit_summary *s)
{
    for (; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE)
            continue;
        if (is_el(n, "testsuite"))
            s->nsuites++;
        if (!is_el(n, "testcase")) {
            if (summarize(n->children, s) != 0)
                return -1;
            continue;
        }
        int failed = 0, skipped = 0;
        for (xmlNodePtr c = n->children; c; c = c->next) {
            failed |= is_el(c, "failure") || is_el(c, "error");
            skipped |= is_el(c, "skipped");
        }
        if (failed) {
            if (push(&s->failed, &s->nfailed, test_name(n)) != 0)
                return -1;
        } else if (skipped) {
            s->nskipped++;
        } else if (push(&s->passed, &s->npassed, test_name(n)) != 0) {
            return -1;
        }
    }
    return 0;
}

int junit_summarize(const char *buf, size_t len, const char *name,
                    struct junit_summary *s, struct sp_error *e)
{
    memset(s, 0, sizeof *s);
    xmlDocPtr doc = report_parse(buf, len, name, e);
    if (doc == NULL)
        return -1;
    int rc = summarize(X->xmlDocGetRootElement(doc), s);
    X->xmlFreeDoc(doc);
    if (rc != 0) {
        junit_summary_free(s);
        return sp_fail(e, SP_EXIT_INPUT, "%s: out of memory", name);
    }
    return 0;
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
