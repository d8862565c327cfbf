/* checks/version.c: the scheme table, the key-to-scheme rule and helpers
 * the scheme files share; see version.h.  No scheme logic lives here. */
#include "checks/version.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct sp_scheme *const schemes[] = {
    &sp_scheme_pep440, &sp_scheme_deb, &sp_scheme_rpm, &sp_scheme_dotted,
};

const struct sp_scheme *sp_scheme_by_name(const char *name)
{
    for (size_t i = 0; i < sizeof schemes / sizeof *schemes; i++)
        if (strcmp(schemes[i]->name, name) == 0)
            return schemes[i];
    return NULL;
}

const char *sp_python_env_rest(const char *key)
{
    static const char pre[] = "python.env.";
    if (strncmp(key, pre, sizeof pre - 1) != 0)
        return NULL;
    const char *dot = strchr(key + sizeof pre - 1, '.');
    if (dot == NULL || dot == key + sizeof pre - 1)
        return NULL;
    return dot + 1;
}

const struct sp_scheme *sp_scheme_for_key(const char *key)
{
    const char *rest;
    /* the versions the interpreter itself reports (probe --deep) are its
     * distributions' and its own, as pip.* and python.version */
    static const char *const runtime_pep440[] = {
        "runtime.python.version", "runtime.torch.version", "runtime.torch_neuronx.version",
    };
    if (strncmp(key, "pip.", 4) == 0 || strcmp(key, "python.version") == 0)
        return &sp_scheme_pep440;
    for (size_t i = 0; i < sizeof runtime_pep440 / sizeof *runtime_pep440; i++)
        if (strcmp(key, runtime_pep440[i]) == 0)
            return &sp_scheme_pep440;
    if ((rest = sp_python_env_rest(key)) != NULL &&
        (strncmp(rest, "pip.", 4) == 0 || strcmp(rest, "version") == 0))
        return &sp_scheme_pep440;
    if (strncmp(key, "deb.", 4) == 0)
        return &sp_scheme_deb;
    if (strncmp(key, "rpm.", 4) == 0)
        return &sp_scheme_rpm;
    return &sp_scheme_dotted;
}

struct sp_version *sp_version_parse(const struct sp_scheme *scheme, const char *text,
                                    struct sp_error *e)
{
    if (strlen(text) > SP_VERSION_TEXT_MAX)
        return sp_version_bad(e, scheme->title, text, "longer than 256 bytes");
    return scheme->parse(text, e);
}

int sp_version_compare(const struct sp_version *a, const struct sp_version *b,
                       enum sp_cmp how)
{
    return a->scheme->compare(a, b, how);
}

void sp_version_free(struct sp_version *v)
{
    if (v)
        v->scheme->free(v);
}

/* One text of sp_version_sort(), parsed once: a comparator that parsed
 * again could see an allocation fail on one call and not on the next. */
struct sorted {
    struct sp_version *v;     /* NULL: does not parse */
    const char *text;
};

static int by_version(const void *x, const void *y)
{
    const struct sorted *a = x, *b = y;
    int c = 0;
    if (a->v && b->v)
        c = sp_version_compare(a->v, b->v, SP_CMP_FULL);
    else if (a->v || b->v)
        c = a->v ? -1 : 1;
    if (c == 0)
        c = strcmp(a->text, b->text);
    return (c > 0) - (c < 0);
}

int sp_version_sort(const struct sp_scheme *scheme, const char **texts, size_t n,
                    struct sp_error *e)
{
    struct sorted *s = n ? calloc(n, sizeof *s) : NULL;
    int rc = n && s == NULL ? -1 : 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        struct sp_error ignored;
        s[i].text = texts[i];
        errno = 0;
        s[i].v = sp_version_parse(scheme, texts[i], &ignored);
        if (s[i].v == NULL && errno == ENOMEM)
            rc = -1;
    }
    if (rc == 0 && n > 0) {
        qsort(s, n, sizeof *s, by_version);
        for (size_t i = 0; i < n; i++)
            texts[i] = s[i].text;
    }
    for (size_t i = 0; s && i < n; i++)
        sp_version_free(s[i].v);
    free(s);
    return rc ? sp_fail(e, SP_EXIT_INPUT, "out of memory") : 0;
}

int sp_components_prefix(const char *v, const char *prefix, int drop_last)
{
    size_t k = strlen(prefix);
    if (drop_last) {
        const char *dot = strrchr(prefix, '.');
        k = dot ? (size_t)(dot - prefix) : 0;
    }
    if (strncmp(v, prefix, k) != 0)
        return 0;
    return v[k] == '\0' || !sp_ascii_alnum(v[k]);
}

void sp_version_free_one(struct sp_version *v)
{
    free(v);
}

int sp_version_leading(const struct sp_version *v, unsigned n, char *out, size_t outsz)
{
    const char *p = v->normal;
    while (sp_ascii_digit(*p))
        p++;
    if (p > v->normal && (*p == '!' || *p == ':'))
        p++;                           /* an epoch: kept in front */
    else
        p = v->normal;
    for (unsigned i = 0; i < n; i++) {
        if (i > 0 && *p++ != '.')
            return -1;
        if (!sp_ascii_digit(*p))
            return -1;
        while (sp_ascii_digit(*p))
            p++;
    }
    size_t len = (size_t)(p - v->normal);
    if (n == 0 || len >= outsz)
        return -1;
    memcpy(out, v->normal, len);
    out[len] = '\0';
    return 0;
}

int sp_digits_compare(const char *a, size_t an, const char *b, size_t bn)
{
    while (an > 0 && *a == '0')
        a++, an--;
    while (bn > 0 && *b == '0')
        b++, bn--;
    if (an != bn)
        return an < bn ? -1 : 1;
    int c = memcmp(a, b, an);
    return (c > 0) - (c < 0);
}

struct sp_version *sp_version_bad(struct sp_error *e, const char *title,
                                  const char *text, const char *why)
{
    char shown[80];
    size_t n = 0;
    const unsigned char *p = (const unsigned char *)text;
    for (; *p && n + 5 < sizeof shown; p++) {
        if (*p < 0x20 || *p == 0x7f)
            n += (size_t)snprintf(shown + n, sizeof shown - n, "\\x%02x", *p);
        else
            shown[n++] = (char)*p;
    }
    shown[n] = '\0';
    sp_fail(e, SP_EXIT_INPUT, "'%s%s' is not a valid %s version: %s", shown,
            *p ? "..." : "", title, why);
    return NULL;
}
