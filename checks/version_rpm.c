/* checks/version_rpm.c: RPM package versions, [epoch:]version[-release],
 * ordered as rpm's rpmvercmp() orders each part (rpm's lib/rpmvercmp.c and
 * the "Versioning" section of rpm's documentation): runs of letters or of
 * digits compared in turn, other characters only separate; a number is
 * newer than letters; leading zeros ignored; "~" sorts before anything,
 * even the end ("1.0~rc1" < "1.0"); "^" sorts after the end but before any
 * other segment ("1.0" < "1.0^git1" < "1.0.1").
 *
 * Epochs compare numerically (none is 0).  A missing release sorts before
 * any release, so the order is total ("2.19" < "2.19-1"); rpm's dependency
 * rule that a missing release matches any is not applied (write ==2.19.*).
 * Must not accept whitespace or characters rpm forbids in a version.
 */
#include "checks/version.h"

#include <stdlib.h>
#include <string.h>

struct rpm {
    struct sp_version head;
    const char *epoch;        /* digits, "" when none */
    const char *version;
    const char *release;      /* NULL when none */
    char text[];
};


static int part_ok(const char *p)
{
    int alnum = 0;
    for (; *p; p++) {
        if (!sp_ascii_alnum(*p) && !strchr("._+~^", *p))
            return 0;
        alnum |= sp_ascii_alnum(*p);
    }
    return alnum;
}

static struct sp_version *parse(const char *text, struct sp_error *e)
{
    const char *title = sp_scheme_rpm.title;
    size_t n = strlen(text);
    struct rpm *v = malloc(sizeof *v + 2 * (n + 1));
    const char *why = NULL;
    if (v == NULL) {
        sp_fail(e, SP_EXIT_INPUT, "out of memory");
        return NULL;
    }
    memcpy(v->text, text, n + 1);
    char *parts = v->text + n + 1;
    memcpy(parts, text, n + 1);
    v->epoch = "";
    v->release = NULL;
    char *rest = parts, *colon = strchr(parts, ':');
    if (colon) {
        *colon = '\0';
        v->epoch = parts;
        rest = colon + 1;
        if (*v->epoch == '\0' || strspn(v->epoch, "0123456789") != strlen(v->epoch)) {
            why = "epoch is not a number";
            goto bad;
        }
    }
    char *hyphen = strchr(rest, '-');
    if (hyphen) {
        *hyphen = '\0';
        v->release = hyphen + 1;
        if (strchr(v->release, '-')) {
            why = "more than one '-'";
            goto bad;
        }
        if (!part_ok(v->release)) {
            why = "the release needs letters or digits and only . _ + ~ ^ between them";
            goto bad;
        }
    }
    v->version = rest;
    if (!part_ok(v->version)) {
        why = *rest ? "the version needs letters or digits and only . _ + ~ ^ between them"
                    : "empty";
        goto bad;
    }
    v->head.scheme = &sp_scheme_rpm;
    v->head.flags = v->release ? SP_VERSION_TAIL : 0;
    v->head.release_length = 1;
    for (const char *p = v->version; *p; p++)
        v->head.release_length += *p == '.';
    v->head.normal = v->text;
    return &v->head;
bad:
    free(v);
    return sp_version_bad(e, title, text, why);
}

/* rpmvercmp(A, B): <0, 0, >0. */
static int vercmp(const char *a, const char *b)
{
    for (;;) {
        while (*a && !sp_ascii_alnum(*a) && *a != '~' && *a != '^')
            a++;
        while (*b && !sp_ascii_alnum(*b) && *b != '~' && *b != '^')
            b++;
        if (*a == '~' || *b == '~') {          /* before everything */
            if (*a != '~')
                return 1;
            if (*b != '~')
                return -1;
            a++, b++;
            continue;
        }
        if (*a == '^' || *b == '^') {          /* after the end, before the rest */
            if (*a == '\0')
                return -1;
            if (*b == '\0')
                return 1;
            if (*a != '^')
                return 1;
            if (*b != '^')
                return -1;
            a++, b++;
            continue;
        }
        if (*a == '\0' || *b == '\0')
            break;
        int num = sp_ascii_digit(*a);
        const char *ea = a, *eb = b;
        while (*ea && (num ? sp_ascii_digit(*ea) : sp_ascii_alpha(*ea)))
            ea++;
        while (*eb && (num ? sp_ascii_digit(*eb) : sp_ascii_alpha(*eb)))
            eb++;
        if (eb == b)                           /* different kinds: number wins */
            return num ? 1 : -1;
        int c;
        if (num) {
            c = sp_digits_compare(a, (size_t)(ea - a), b, (size_t)(eb - b));
        } else {
            size_t la = (size_t)(ea - a), lb = (size_t)(eb - b);
            c = memcmp(a, b, la < lb ? la : lb);
            c = c ? c : (la > lb) - (la < lb);
        }
        if (c)
            return c < 0 ? -1 : 1;
        a = ea;
        b = eb;
    }
    if (*a == '\0' && *b == '\0')
        return 0;
    return *a == '\0' ? -1 : 1;
}

static int compare(const struct sp_version *va, const struct sp_version *vb, enum sp_cmp how)
{
    const struct rpm *a = (const struct rpm *)va, *b = (const struct rpm *)vb;
    (void)how;
    int c = sp_digits_compare(a->epoch, strlen(a->epoch), b->epoch, strlen(b->epoch));
    if (!c)
        c = vercmp(a->version, b->version);
    if (!c && (a->release || b->release)) {
        if (!a->release || !b->release)
            return a->release ? 1 : -1;
        c = vercmp(a->release, b->release);
    }
    return c;
}

/* The same epoch, and V's version begins with PREFIX's version (without its
 * last dot-separated component for ~=), followed by the end or a character
 * that is not a letter or digit. */
static int prefix_match(const struct sp_version *vv, const struct sp_version *vp, int drop_last)
{
    const struct rpm *v = (const struct rpm *)vv, *p = (const struct rpm *)vp;
    if (sp_digits_compare(v->epoch, strlen(v->epoch), p->epoch, strlen(p->epoch)) != 0)
        return 0;
    return sp_components_prefix(v->version, p->version, drop_last);
}

const struct sp_scheme sp_scheme_rpm = {
    .name = "rpm",
    .title = "RPM",
    .parse = parse,
    .compare = compare,
    .prefix_match = prefix_match,
    .free = sp_version_free_one,
};
