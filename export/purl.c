/* export/purl.c: Package URL building (export/purl.h). */
#include "export/purl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int lower(int c)
{
    return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static int unreserved(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '.' || c == '-' || c == '_' || c == '~' || c == ':';
}

/* Normalisations of one component. */
enum norm { N_NONE, N_LOWER, N_PYPI };

/* The output under construction: one allocation large enough for the
 * worst case (every byte percent-encoded), written with a cursor. */
struct out {
    char *p;
};

/* Write S[0..N) percent-encoded after normalisation NORM. */
static void put_encoded(struct out *o, const char *s, size_t n, enum norm norm)
{
    static const char hex[] = "0123456789ABCDEF";
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (norm != N_NONE)
            c = (unsigned char)lower(c);
        if (norm == N_PYPI && c == '_')
            c = '-';
        if (unreserved(c)) {
            *o->p++ = (char)c;
        } else {
            *o->p++ = '%';
            *o->p++ = hex[c >> 4];
            *o->p++ = hex[c & 15];
        }
    }
}

static void put(struct out *o, const char *s)
{
    size_t n = strlen(s);
    memcpy(o->p, s, n);
    o->p += n;
}

/* S without leading and trailing '/': start and length. */
static const char *strip_slashes(const char *s, size_t *n)
{
    while (*s == '/')
        s++;
    size_t l = strlen(s);
    while (l && s[l - 1] == '/')
        l--;
    *n = l;
    return s;
}

/* Each '/'-separated segment of S encoded and joined with '/'; empty
 * segments dropped, and "." and ".." too when SUBPATH.  Returns the number
 * of segments written. */
static int put_segments(struct out *o, const char *s, enum norm norm, int subpath)
{
    size_t n;
    s = strip_slashes(s, &n);
    int written = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && s[j] != '/')
            j++;
        size_t len = j - i;
        int skip = len == 0 || (subpath && ((len == 1 && s[i] == '.') ||
                                            (len == 2 && s[i] == '.' && s[i + 1] == '.')));
        if (!skip) {
            if (written++)
                *o->p++ = '/';
            put_encoded(o, s + i, len, norm);
        }
        i = j + 1;
    }
    return written;
}

static int valid_type(const char *t)
{
    if (!((t[0] >= 'a' && t[0] <= 'z') || (t[0] >= 'A' && t[0] <= 'Z')))
        return 0;
    for (const char *p = t; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '.' || *p == '-'))
            return 0;
    return 1;
}

static int valid_key(const char *k)
{
    if (!((k[0] >= 'a' && k[0] <= 'z') || (k[0] >= 'A' && k[0] <= 'Z')))
        return 0;
    for (const char *p = k; *p; p++) {
        char c = (char)lower((unsigned char)*p);
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_'))
            return 0;
    }
    return 1;
}

/* The order of the strings "KEY=VALUE" with KEY lowercased: keys are
 * unique, so it is decided by the keys, each read as if followed by '='. */
static int cmp_qualifier(const void *a, const void *b)
{
    const char *x = (*(const struct sp_purl_qualifier *const *)a)->key;
    const char *y = (*(const struct sp_purl_qualifier *const *)b)->key;
    for (;; x++, y++) {
        int cx = *x ? lower((unsigned char)*x) : '=', cy = *y ? lower((unsigned char)*y) : '=';
        if (cx != cy || (!*x && !*y))
            return cx - cy;
    }
}

/* What sp_purl_build() checked of a purl's type, namespace and name. */
struct head {
    char type[64];              /* the type, lowercased */
    size_t tl, nsl, nn;         /* lengths: type, namespace and name without
                                   their outer slashes */
    int pypi, deb, rpm;
};

/* Check P's type, name, qualifier count and namespace into H.  0, or -1
 * with E set (SP_EXIT_INPUT). */
static int check_head(const struct sp_purl *p, struct head *h, struct sp_error *e)
{
    if (p->type == NULL || p->type[0] == '\0')
        return sp_fail(e, SP_EXIT_INPUT, "purl: no type");
    if (!valid_type(p->type))
        return sp_fail(e, SP_EXIT_INPUT, "purl: type '%s' is not a letter followed by "
                       "letters, digits, '.' or '-'", p->type);
    if (p->name == NULL || (strip_slashes(p->name, &h->nn), h->nn == 0))
        return sp_fail(e, SP_EXIT_INPUT, "purl: no name");
    if (p->nqualifiers > SP_PURL_QUALIFIERS_MAX)
        return sp_fail(e, SP_EXIT_INPUT, "purl: more than %d qualifiers", SP_PURL_QUALIFIERS_MAX);
    h->tl = strlen(p->type);
    if (h->tl >= sizeof h->type)
        return sp_fail(e, SP_EXIT_INPUT, "purl: type '%.40s...' is too long", p->type);
    for (size_t i = 0; i <= h->tl; i++)
        h->type[i] = (char)lower((unsigned char)p->type[i]);
    h->pypi = strcmp(h->type, "pypi") == 0;
    h->deb = strcmp(h->type, "deb") == 0;
    h->rpm = strcmp(h->type, "rpm") == 0;
    h->nsl = 0;
    if (p->namespace_)
        strip_slashes(p->namespace_, &h->nsl);
    if ((h->deb || h->rpm) && h->nsl == 0)
        return sp_fail(e, SP_EXIT_INPUT, "purl: %s needs a namespace", h->type);
    if (h->pypi && h->nsl)
        return sp_fail(e, SP_EXIT_INPUT, "purl: pypi has no namespace");
    return 0;
}

/* P's qualifiers validated, the empty ones dropped, the rest sorted into
 * QUALS (*NQ of them); *BOUND grows by the bytes they may take.  0, or -1
 * with E set (SP_EXIT_INPUT). */
static int take_qualifiers(const struct sp_purl *p, const struct sp_purl_qualifier **quals,
                           size_t *nq, size_t *bound, struct sp_error *e)
{
    *nq = 0;
    for (size_t i = 0; i < p->nqualifiers; i++) {
        const struct sp_purl_qualifier *q = &p->qualifiers[i];
        if (q->key == NULL || !valid_key(q->key))
            return sp_fail(e, SP_EXIT_INPUT, "purl: qualifier key '%s' is not a letter followed "
                           "by lowercase letters, digits, '.', '-' or '_'", q->key ? q->key : "");
        for (size_t j = 0; j < i; j++)
            if (strcasecmp(p->qualifiers[j].key, q->key) == 0)
                return sp_fail(e, SP_EXIT_INPUT, "purl: qualifier key '%s' given twice", q->key);
        if (q->value == NULL || q->value[0] == '\0')
            continue;
        quals[(*nq)++] = q;
        *bound += strlen(q->key) + 2 + 3 * strlen(q->value);
    }
    qsort(quals, *nq, sizeof *quals, cmp_qualifier);
    return 0;
}

/* The purl itself into O (allocated for the worst case). */
static void write_purl(struct out *o, const struct sp_purl *p, const struct head *h,
                       const struct sp_purl_qualifier *const *quals, size_t nq)
{
    size_t nn;
    put(o, "pkg:");
    put(o, h->type);
    *o->p++ = '/';
    if (h->nsl && put_segments(o, p->namespace_, (h->deb || h->rpm) ? N_LOWER : N_NONE, 0) > 0)
        *o->p++ = '/';
    const char *name = strip_slashes(p->name, &nn);
    put_encoded(o, name, nn, h->pypi ? N_PYPI : h->deb ? N_LOWER : N_NONE);
    if (p->version && p->version[0]) {
        *o->p++ = '@';
        put_encoded(o, p->version, strlen(p->version), N_NONE);
    }
    for (size_t i = 0; i < nq; i++) {
        *o->p++ = i ? '&' : '?';
        for (const char *k = quals[i]->key; *k; k++)
            *o->p++ = (char)lower((unsigned char)*k);
        *o->p++ = '=';
        put_encoded(o, quals[i]->value, strlen(quals[i]->value), N_NONE);
    }
    if (p->subpath && p->subpath[0]) {
        char *hash = o->p++;
        *hash = '#';
        if (put_segments(o, p->subpath, N_NONE, 1) == 0)
            o->p = hash;   /* nothing but empty, "." and ".." segments */
    }
    *o->p = '\0';
}

int sp_purl_build(const struct sp_purl *p, char **out, struct sp_error *e)
{
    struct head h;
    const struct sp_purl_qualifier *quals[SP_PURL_QUALIFIERS_MAX];
    size_t nq;
    if (check_head(p, &h, e) != 0)
        return -1;
    size_t bound = 16 + h.tl;
    if (take_qualifiers(p, quals, &nq, &bound, e) != 0)
        return -1;
    bound += 3 * (h.nsl + h.nn + 2);
    if (p->version)
        bound += 1 + 3 * strlen(p->version);
    if (p->subpath)
        bound += 1 + 3 * strlen(p->subpath);
    struct out o = { .p = malloc(bound) };
    if (o.p == NULL)
        return sp_fail(e, SP_EXIT_INPUT, "purl: %s", strerror(ENOMEM));
    *out = o.p;
    write_purl(&o, p, &h, quals, nq);
    return 0;
}
