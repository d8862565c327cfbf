/* checks/version_pep440.c: Python versions as PEP 440 defines them
 * ("Version scheme", "Normalization", "Summary of permitted suffixes and
 * relative ordering"), matching packaging 23.0's Version class: the same
 * accepted spellings, the same normal form (str(Version)), the same order
 * (_cmpkey).  Must not accept what packaging rejects, nor guess: anything
 * else is an error.  Only ASCII input (packaging also takes Unicode
 * whitespace around a version; such text is refused here).
 *
 * Accepted: surrounding whitespace; a leading "v"; "E!" epoch; a release of
 * any length; pre-release a|b|c|rc|alpha|beta|pre|preview, post-release
 * post|rev|r or "-N", dev release, each with optional "-", "_" or "."
 * separators and an optional number (implicit 0); a local label "+x.y-z";
 * any letter case.
 */
#include "checks/version.h"

#include <stdlib.h>
#include <string.h>

#define RELEASE_MAX (SP_VERSION_TEXT_MAX / 2 + 1)
#define LOCAL_MAX (SP_VERSION_TEXT_MAX / 2 + 1)

struct num {                 /* a digit run in text[], leading zeros stripped */
    unsigned short off, len; /* len 0 means zero */
};

struct local_part {
    unsigned short off, len;
    int numeric;             /* all digits: compared as a number */
};

enum { PRE_NONE, PRE_A, PRE_B, PRE_RC };

struct pep440 {
    struct sp_version head;
    struct num epoch;
    size_t nrelease;
    struct num release[RELEASE_MAX];
    int pre;                 /* PRE_* */
    struct num pre_n;
    int has_post, has_dev;
    struct num post_n, dev_n;
    size_t nlocal;
    struct local_part local[LOCAL_MAX];
    char text[SP_VERSION_TEXT_MAX + 1];      /* trimmed, lowercased input */
    char normal[2 * SP_VERSION_TEXT_MAX + 64];
};

static int is_sep(char c) { return c == '-' || c == '_' || c == '.'; }

struct cursor {
    const char *s;
    size_t i, n;
};

/* A digit run at the cursor into *OUT (0 when none). */
static int take_number(struct cursor *c, struct num *out)
{
    size_t start = c->i;
    while (c->i < c->n && sp_ascii_digit(c->s[c->i]))
        c->i++;
    if (c->i == start)
        return 0;
    size_t off = start;
    while (off < c->i && c->s[off] == '0')
        off++;
    out->off = (unsigned short)off;
    out->len = (unsigned short)(c->i - off);
    return 1;
}

/* The longest of WORDS at the cursor, after an optional separator; its
 * index, or -1 (cursor unchanged). */
static int take_word(struct cursor *c, const char *const *words, size_t nwords)
{
    size_t at = c->i;
    if (at < c->n && is_sep(c->s[at]))
        at++;
    int best = -1;
    size_t bestlen = 0;
    for (size_t w = 0; w < nwords; w++) {
        size_t l = strlen(words[w]);
        if (l > bestlen && at + l <= c->n && memcmp(c->s + at, words[w], l) == 0) {
            best = (int)w;
            bestlen = l;
        }
    }
    if (best >= 0)
        c->i = at + bestlen;
    return best;
}

/* After a suffix word: an optional separator and an optional number. */
static void take_suffix_number(struct cursor *c, struct num *out)
{
    if (c->i < c->n && is_sep(c->s[c->i]))
        c->i++;
    take_number(c, out);
}

static void put(char *out, size_t *n, const char *s, size_t len)
{
    memcpy(out + *n, s, len);
    *n += len;
    out[*n] = '\0';
}

static void put_num(const struct pep440 *v, char *out, size_t *n, struct num x)
{
    if (x.len == 0)
        put(out, n, "0", 1);
    else
        put(out, n, v->text + x.off, x.len);
}

static void normalise(struct pep440 *v)
{
    static const char *const pre_names[] = { "", "a", "b", "rc" };
    char *o = v->normal;
    size_t n = 0;
    o[0] = '\0';
    if (v->epoch.len) {
        put_num(v, o, &n, v->epoch);
        put(o, &n, "!", 1);
    }
    for (size_t i = 0; i < v->nrelease; i++) {
        if (i)
            put(o, &n, ".", 1);
        put_num(v, o, &n, v->release[i]);
    }
    if (v->pre) {
        put(o, &n, pre_names[v->pre], strlen(pre_names[v->pre]));
        put_num(v, o, &n, v->pre_n);
    }
    if (v->has_post) {
        put(o, &n, ".post", 5);
        put_num(v, o, &n, v->post_n);
    }
    if (v->has_dev) {
        put(o, &n, ".dev", 4);
        put_num(v, o, &n, v->dev_n);
    }
    for (size_t i = 0; i < v->nlocal; i++) {
        put(o, &n, i ? "." : "+", 1);
        const struct local_part *p = &v->local[i];
        if (p->numeric)
            put_num(v, o, &n, (struct num){ p->off, p->len });
        else
            put(o, &n, v->text + p->off, p->len);
    }
}

/* [v][N!]N(.N)*: the epoch and the release.  NULL, or why not. */
static const char *take_release(struct cursor *c, struct pep440 *v)
{
    if (c->i < c->n && c->s[c->i] == 'v')
        c->i++;
    size_t mark = c->i;
    struct num x;
    if (take_number(c, &x) && c->i < c->n && c->s[c->i] == '!') {
        v->epoch = x;
        c->i++;
    } else {
        c->i = mark;
    }
    if (!take_number(c, &v->release[0]))
        return "no release number";
    v->nrelease = 1;
    while (c->i + 1 < c->n && c->s[c->i] == '.' && sp_ascii_digit(c->s[c->i + 1])) {
        c->i++;
        take_number(c, &v->release[v->nrelease++]);   /* < RELEASE_MAX: two bytes each */
    }
    return NULL;
}

/* The optional pre-release, post-release and dev release, in that order. */
static void take_suffixes(struct cursor *c, struct pep440 *v)
{
    static const char *const pre_words[] = { "a", "b", "c", "rc", "alpha", "beta", "pre", "preview" };
    static const int pre_kinds[] = { PRE_A, PRE_B, PRE_RC, PRE_RC, PRE_A, PRE_B, PRE_RC, PRE_RC };
    static const char *const post_words[] = { "post", "rev", "r" };
    static const char *const dev_words[] = { "dev" };
    int w = take_word(c, pre_words, sizeof pre_words / sizeof *pre_words);
    if (w >= 0) {
        v->pre = pre_kinds[w];
        take_suffix_number(c, &v->pre_n);
    }
    if (c->i + 1 < c->n && c->s[c->i] == '-' && sp_ascii_digit(c->s[c->i + 1])) {
        c->i++;
        v->has_post = 1;
        take_number(c, &v->post_n);
    } else if (take_word(c, post_words, 3) >= 0) {
        v->has_post = 1;
        take_suffix_number(c, &v->post_n);
    }
    if (take_word(c, dev_words, 1) >= 0) {
        v->has_dev = 1;
        take_suffix_number(c, &v->dev_n);
    }
}

/* An optional local label: "+" and alphanumeric parts joined by
 * separators.  NULL, or why not. */
static const char *take_local(struct cursor *c, struct pep440 *v)
{
    if (c->i >= c->n || c->s[c->i] != '+')
        return NULL;
    c->i++;
    for (;;) {
        size_t s0 = c->i;
        int numeric = 1;
        while (c->i < c->n && sp_ascii_alnum(c->s[c->i]))
            numeric &= sp_ascii_digit(c->s[c->i++]);
        if (c->i == s0)
            return "empty part in the local label";
        struct local_part *p = &v->local[v->nlocal++];
        p->numeric = numeric;
        p->off = (unsigned short)s0;
        p->len = (unsigned short)(c->i - s0);
        if (numeric)
            while (p->len > 0 && c->s[p->off] == '0')
                p->off++, p->len--;
        if (c->i < c->n && is_sep(c->s[c->i]))
            c->i++;
        else
            return NULL;
    }
}

/* The head of a parsed V: scheme, flags, release length, normal form. */
static struct sp_version *finish(struct pep440 *v)
{
    v->head.scheme = &sp_scheme_pep440;
    v->head.flags = (v->pre || v->has_dev ? SP_VERSION_PRE : 0) |
                    (v->has_post ? SP_VERSION_POST : 0) |
                    (v->nlocal ? SP_VERSION_LOCAL : 0) |
                    (v->pre || v->has_post || v->has_dev || v->nlocal ? SP_VERSION_TAIL : 0);
    v->head.release_length = v->nrelease;
    normalise(v);
    v->head.normal = v->normal;
    return &v->head;
}

static struct sp_version *parse(const char *text, struct sp_error *e)
{
    const char *title = sp_scheme_pep440.title;
    size_t len = strlen(text), start = 0;

    if (len > SP_VERSION_TEXT_MAX)
        return sp_version_bad(e, title, text, "longer than 256 bytes");
    while (start < len && sp_py_space((unsigned char)text[start]))
        start++;
    while (len > start && sp_py_space((unsigned char)text[len - 1]))
        len--;
    if (start == len)
        return sp_version_bad(e, title, text, "empty");

    struct pep440 *v = calloc(1, sizeof *v);
    if (v == NULL) {
        sp_fail(e, SP_EXIT_INPUT, "out of memory");
        return NULL;
    }
    for (size_t k = start; k < len; k++) {
        char ch = text[k];
        v->text[k - start] = (ch >= 'A' && ch <= 'Z') ? (char)(ch - 'A' + 'a') : ch;
    }
    struct cursor c = { v->text, 0, len - start };
    const char *why = take_release(&c, v);
    if (why == NULL) {
        take_suffixes(&c, v);
        why = take_local(&c, v);
    }
    if (why == NULL && c.i != c.n)
        why = "unexpected text after the version";
    if (why == NULL)
        return finish(v);
    free(v);
    return sp_version_bad(e, title, text, why);
}

static int num_cmp(const struct pep440 *a, struct num x, const struct pep440 *b, struct num y)
{
    return sp_digits_compare(a->text + x.off, x.len, b->text + y.off, y.len);
}

static const struct num zero;

/* Release segments compare as if padded with zeros (packaging strips
 * trailing zeros; the order is the same). */
static int release_cmp(const struct pep440 *a, const struct pep440 *b)
{
    size_t n = a->nrelease > b->nrelease ? a->nrelease : b->nrelease;
    for (size_t i = 0; i < n; i++) {
        int c = num_cmp(a, i < a->nrelease ? a->release[i] : zero,
                        b, i < b->nrelease ? b->release[i] : zero);
        if (c)
            return c;
    }
    return 0;
}

/* The pre-release key of _cmpkey: a dev release with neither pre nor post
 * sorts before every pre-release (-1); no pre-release sorts after all (+1);
 * else the letter then the number. */
static int pre_cmp(const struct pep440 *a, const struct pep440 *b)
{
    int ka = a->pre ? 0 : (!a->has_post && a->has_dev ? -1 : 1);
    int kb = b->pre ? 0 : (!b->has_post && b->has_dev ? -1 : 1);
    if (ka != kb)
        return ka < kb ? -1 : 1;
    if (ka != 0)
        return 0;
    if (a->pre != b->pre)
        return a->pre < b->pre ? -1 : 1;
    return num_cmp(a, a->pre_n, b, b->pre_n);
}

/* An optional number: ABSENT is the result when A lacks it and B has it
 * (-1 for post, which sorts absent first; 1 for dev, absent last). */
static int optional_cmp(const struct pep440 *a, int ha, struct num x,
                        const struct pep440 *b, int hb, struct num y, int absent)
{
    if (ha != hb)
        return ha ? -absent : absent;
    return ha ? num_cmp(a, x, b, y) : 0;
}

/* Local labels: none sorts first; part by part, a string part before a
 * number, numbers numerically, strings bytewise; a shorter label first. */
static int local_cmp(const struct pep440 *a, const struct pep440 *b)
{
    for (size_t i = 0; i < a->nlocal && i < b->nlocal; i++) {
        const struct local_part *p = &a->local[i], *q = &b->local[i];
        int c;
        if (p->numeric != q->numeric)
            return p->numeric ? 1 : -1;
        if (p->numeric) {
            c = sp_digits_compare(a->text + p->off, p->len, b->text + q->off, q->len);
        } else {
            size_t l = p->len < q->len ? p->len : q->len;
            c = memcmp(a->text + p->off, b->text + q->off, l);
            c = c ? c : (p->len > q->len) - (p->len < q->len);
        }
        if (c)
            return c > 0 ? 1 : -1;
    }
    return (a->nlocal > b->nlocal) - (a->nlocal < b->nlocal);
}

static int compare(const struct sp_version *va, const struct sp_version *vb, enum sp_cmp how)
{
    const struct pep440 *a = (const struct pep440 *)va, *b = (const struct pep440 *)vb;
    int c = num_cmp(a, a->epoch, b, b->epoch);
    if (!c)
        c = release_cmp(a, b);
    if (c || how == SP_CMP_BASE)
        return c;
    if (!c)
        c = pre_cmp(a, b);
    if (!c)
        c = optional_cmp(a, a->has_post, a->post_n, b, b->has_post, b->post_n, -1);
    if (!c)
        c = optional_cmp(a, a->has_dev, a->dev_n, b, b->has_dev, b->dev_n, 1);
    if (!c && how == SP_CMP_FULL)
        c = local_cmp(a, b);
    return c;
}

/* PEP 440 "Version matching" prefix rule as packaging applies it: the same
 * epoch, and V's release, padded with zeros, starts with PREFIX's release
 * (PREFIX's last component dropped for ~=).  V's suffixes are ignored. */
static int prefix_match(const struct sp_version *vv, const struct sp_version *vp, int drop_last)
{
    const struct pep440 *v = (const struct pep440 *)vv, *p = (const struct pep440 *)vp;
    if (num_cmp(v, v->epoch, p, p->epoch) != 0)
        return 0;
    size_t k = p->nrelease - (drop_last && p->nrelease > 0 ? 1 : 0);
    for (size_t i = 0; i < k; i++)
        if (num_cmp(v, i < v->nrelease ? v->release[i] : zero, p, p->release[i]) != 0)
            return 0;
    return 1;
}

const struct sp_scheme sp_scheme_pep440 = {
    .name = "pep440",
    .title = "PEP 440",
    .parse = parse,
    .compare = compare,
    .prefix_match = prefix_match,
    .free = sp_version_free_one,
};
