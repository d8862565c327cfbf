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

/* What sp_purl_build has checked and works from. */
struct shape {
    char type[64];          /* lowercased */
    int pypi, deb, rpm;
    size_t nn, nsl;         /* name and namespace lengths without outer '/' */
    const struct sp_purl_qualifier *quals[SP_PURL_QUALIFIERS_MAX];
    size_t nq;              /* non-empty qualifiers, sorted */
};

/* Step 1: type, name, namespace and the number of qualifiers. */
static int check_shape(const struct sp_purl *p, struct shape *sh, struct sp_error *e)
{
    if (p->type == NULL || p->type[0] == '\0')
        return sp_fail(e, SP_EXIT_INPUT, "purl: no type");
    if (!valid_type(p->type))
        return sp_fail(e, SP_EXIT_INPUT, "purl: type '%s' is not a letter followed by "
                       "letters, digits, '.' or '-'", p->type);
    if (p->name == NULL || (strip_slashes(p->name, &sh->nn), sh->nn == 0))
        return sp_fail(e, SP_EXIT_INPUT, "purl: no name");
    if (p->nqualifiers > SP_PURL_QUALIFIERS_MAX)
        return sp_fail(e, SP_EXIT_INPUT, "purl: more than %d qualifiers", SP_PURL_QUALIFIERS_MAX);
    size_t tl = strlen(p->type);
    if (tl >= sizeof sh->type)
        return sp_fail(e, SP_EXIT_INPUT, "purl: type '%.40s...' is too long", p->type);
    for (size_t i = 0; i <= tl; i++)
        sh->type[i] = (char)lower((unsigned char)p->type[i]);
    sh->pypi = strcmp(sh->type, "pypi") == 0;
    sh->deb = strcmp(sh->type, "deb") == 0;
    sh->rpm = strcmp(sh->type, "rpm") == 0;
    sh->nsl = 0;
    if (p->namespace_)
        strip_slashes(p->namespace_, &sh->nsl);
    if ((sh->deb || sh->rpm) && sh->nsl == 0)
        return sp_fail(e, SP_EXIT_INPUT, "purl: %s needs a namespace", sh->type);
    if (sh->pypi && sh->nsl)
        return sp_fail(e, SP_EXIT_INPUT, "purl: pypi has no namespace");
    return 0;
}

/* Step 2: the qualifiers validated, dropped when empty, sorted; *BOUND
 * grows by the bytes they take at most. */
static int sort_qualifiers(const struct sp_purl *p, struct shape *sh, size_t *bound,
                           struct sp_error *e)
{
    sh->nq = 0;
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
        sh->quals[sh->nq++] = q;
        *bound += strlen(q->key) + 2 + 3 * strlen(q->value);
    }
    qsort(sh->quals, sh->nq, sizeof *sh->quals, cmp_qualifier);
    return 0;
}

/* Step 3: the purl into O, which has room for it. */
static void write_purl(const struct sp_purl *p, const struct shape *sh, struct out *o)
{
    size_t nn;
    put(o, "pkg:");
    put(o, sh->type);
    *o->p++ = '/';
    if (sh->nsl && put_segments(o, p->namespace_, (sh->deb || sh->rpm) ? N_LOWER : N_NONE, 0) > 0)
        *o->p++ = '/';
    const char *name = strip_slashes(p->name, &nn);
    put_encoded(o, name, nn, sh->pypi ? N_PYPI : sh->deb ? N_LOWER : N_NONE);
    if (p->version && p->version[0]) {
        *o->p++ = '@';
        put_encoded(o, p->version, strlen(p->version), N_NONE);
    }
    for (size_t i = 0; i < sh->nq; i++) {
        *o->p++ = i ? '&' : '?';
        for (const char *k = sh->quals[i]->key; *k; k++)
            *o->p++ = (char)lower((unsigned char)*k);
        *o->p++ = '=';
        put_encoded(o, sh->quals[i]->value, strlen(sh->quals[i]->value), N_NONE);
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
    struct shape sh;
    if (check_shape(p, &sh, e) != 0)
        return -1;
    size_t bound = 16 + strlen(sh.type);
    if (sort_qualifiers(p, &sh, &bound, e) != 0)
        return -1;
    bound += 3 * (sh.nsl + sh.nn + 2);
    if (p->version)
        bound += 1 + 3 * strlen(p->version);
    if (p->subpath)
        bound += 1 + 3 * strlen(p->subpath);
    struct out o = { .p = malloc(bound) };
    if (o.p == NULL)
        return sp_fail(e, SP_EXIT_INPUT, "purl: %s", strerror(ENOMEM));
    *out = o.p;
    write_purl(p, &sh, &o);
    return 0;
}
