/* checks/version_deb.c: Debian package versions, deb-version(7):
 * [epoch:]upstream-version[-debian-revision], ordered as dpkg orders them
 * (epoch numerically, then upstream, then revision, each by the
 * letters-then-numbers walk where "~" sorts before everything, even the
 * end, and letters sort before other characters).  Must not accept what
 * dpkg only warns about (an upstream version not starting with a digit,
 * invalid characters): those are errors here, never compared.
 */
#include "checks/version.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

struct deb {
    struct sp_version head;
    long epoch;               /* 0 when none */
    const char *upstream;
    const char *revision;     /* "" when none */
    char text[];              /* trimmed copy: normal form, then the parts */
};

/* dpkg's c_isspace(): the C locale's spaces */
static int c_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

/* The epoch before the first colon of PARTS (cut there), as dpkg reads
 * it: strtol, so a sign is accepted ("+1", "-0").  *REST: what follows.
 * NULL, or why not. */
static const char *take_epoch(char *parts, struct deb *v, char **rest)
{
    char *colon = strchr(parts, ':');
    v->epoch = 0;
    *rest = parts;
    if (colon == NULL)
        return NULL;
    char *end;
    *colon = '\0';
    *rest = colon + 1;
    errno = 0;
    long epoch = strtol(parts, &end, 10);
    if (end == parts)
        return "epoch is empty";
    if (end != colon)
        return "epoch is not a number";
    if (epoch < 0)
        return "epoch is negative";
    if (epoch > INT_MAX || errno == ERANGE)
        return "epoch is too big";
    v->epoch = epoch;
    return **rest == '\0' ? "nothing after the colon" : NULL;
}

/* REST cut at its last hyphen into upstream version and revision, each
 * checked.  *TAIL: 1 when there is a revision.  NULL, or why not. */
static const char *take_upstream_revision(char *rest, struct deb *v, int *tail)
{
    char *hyphen = strrchr(rest, '-');
    v->upstream = rest;
    v->revision = "";
    *tail = hyphen != NULL;
    if (hyphen) {
        *hyphen = '\0';
        v->revision = hyphen + 1;
        if (*v->revision == '\0')
            return "revision is empty";
    }
    if (*v->upstream == '\0')
        return "upstream version is empty";
    if (!sp_ascii_digit(*v->upstream))
        return "upstream version does not start with a digit";
    for (const char *p = v->upstream; *p; p++)
        if (!sp_ascii_digit(*p) && !sp_ascii_alpha(*p) && !strchr(".-+~:", *p))
            return "invalid character in the upstream version";
    for (const char *p = v->revision; *p; p++)
        if (!sp_ascii_digit(*p) && !sp_ascii_alpha(*p) && !strchr(".+~", *p))
            return "invalid character in the revision";
    return NULL;
}

static struct sp_version *parse(const char *text, struct sp_error *e)
{
    const char *title = sp_scheme_deb.title;
    size_t len = strlen(text), start = 0;
    while (start < len && (text[start] == ' ' || text[start] == '\t'))
        start++;                      /* dpkg trims blanks in front, spaces behind */
    while (len > start && c_space(text[len - 1]))
        len--;
    if (start == len)
        return sp_version_bad(e, title, text, "empty");
    size_t n = len - start;
    for (size_t i = start; i < len; i++)
        if (c_space(text[i]))
            return sp_version_bad(e, title, text, "embedded spaces");

    struct deb *v = malloc(sizeof *v + 2 * (n + 1) + 1);
    if (v == NULL) {
        sp_fail(e, SP_EXIT_INPUT, "out of memory");
        return NULL;
    }
    memcpy(v->text, text + start, n);
    v->text[n] = '\0';
    char *parts = v->text + n + 1, *rest;
    memcpy(parts, v->text, n + 1);
    int tail = 0;
    const char *why = take_epoch(parts, v, &rest);
    if (why == NULL)
        why = take_upstream_revision(rest, v, &tail);
    if (why) {
        free(v);
        return sp_version_bad(e, title, text, why);
    }
    v->head.scheme = &sp_scheme_deb;
    v->head.flags = tail ? SP_VERSION_TAIL : 0;
    v->head.release_length = 1;
    for (const char *p = v->upstream; *p; p++)
        v->head.release_length += *p == '.';
    v->head.normal = v->text;
    return &v->head;
}

/* deb-version(7) weight of a non-digit character: "~" below the end of the
 * string (digits and the end weigh 0), letters by ASCII, every other
 * character after all letters. */
static int weight(char c)
{
    if (c == '\0' || sp_ascii_digit(c))
        return 0;
    if (c == '~')
        return -1;
    if (sp_ascii_alpha(c))
        return (unsigned char)c;
    return (unsigned char)c + 256;
}

/* Alternate runs of non-digits (compared by weight, character by
 * character) and runs of digits (compared as numbers). */
static int part_cmp(const char *a, const char *b)
{
    while (*a || *b) {
        while ((*a && !sp_ascii_digit(*a)) || (*b && !sp_ascii_digit(*b))) {
            int wa = weight(*a), wb = weight(*b);
            if (wa != wb)
                return wa < wb ? -1 : 1;
            a++;
            b++;
        }
        const char *da = a, *db = b;
        while (sp_ascii_digit(*a))
            a++;
        while (sp_ascii_digit(*b))
            b++;
        int c = sp_digits_compare(da, (size_t)(a - da), db, (size_t)(b - db));
        if (c)
            return c;
    }
    return 0;
}

static int compare(const struct sp_version *va, const struct sp_version *vb, enum sp_cmp how)
{
    const struct deb *a = (const struct deb *)va, *b = (const struct deb *)vb;
    (void)how;
    int c = (a->epoch > b->epoch) - (a->epoch < b->epoch);
    if (!c)
        c = part_cmp(a->upstream, b->upstream);
    if (!c)
        c = part_cmp(a->revision, b->revision);
    return c;
}

/* The same epoch, and V's upstream version begins with PREFIX's (without
 * its last dot-separated component for ~=), followed by the end or by a
 * character that is not a letter or digit: ==2.24.* matches 2.24,
 * 2.24.7.0-1 and 2.24~rc1, not 2.240. */
static int prefix_match(const struct sp_version *vv, const struct sp_version *vp, int drop_last)
{
    const struct deb *v = (const struct deb *)vv, *p = (const struct deb *)vp;
    if (v->epoch != p->epoch)
        return 0;
    return sp_components_prefix(v->upstream, p->upstream, drop_last);
}

const struct sp_scheme sp_scheme_deb = {
    .name = "deb",
    .title = "Debian",
    .parse = parse,
    .compare = compare,
    .prefix_match = prefix_match,
    .free = sp_version_free_one,
};
