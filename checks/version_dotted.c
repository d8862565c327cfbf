/* checks/version_dotted.c: dotted numbers for every fact without a package
 * scheme (driver and runtime versions, counts): one or more unsigned
 * decimal numbers joined by single dots, compared component by component
 * as numbers with missing components taken as zero ("2.29" == "2.29.0" <
 * "2.29.1"; "2.9" < "2.10").  Must not accept anything else: no spaces, no
 * letters, no "v", no empty component.
 */
#include "checks/version.h"

#include <stdlib.h>
#include <string.h>

struct dotted {
    struct sp_version head;
    size_t count;
    const char **start;       /* each component's digits in text */
    size_t *len;
    char text[];
};

static struct sp_version *parse(const char *text, struct sp_error *e)
{
    const char *title = sp_scheme_dotted.title;
    size_t n = strlen(text), count = 1;
    if (n == 0)
        return sp_version_bad(e, title, text, "empty");
    for (size_t i = 0; i < n; i++) {
        if (text[i] == '.') {
            if (i == 0 || i + 1 == n || text[i + 1] == '.')
                return sp_version_bad(e, title, text, "empty component");
            count++;
        } else if (text[i] < '0' || text[i] > '9') {
            return sp_version_bad(e, title, text, "only digits and dots are allowed");
        }
    }
    struct dotted *v = malloc(sizeof *v + n + 1);
    const char **start = malloc(count * sizeof *start);
    size_t *len = malloc(count * sizeof *len);
    if (v == NULL || start == NULL || len == NULL) {
        free(v);
        free(start);
        free(len);
        sp_fail(e, SP_EXIT_INPUT, "out of memory");
        return NULL;
    }
    memcpy(v->text, text, n + 1);
    v->start = start;
    v->len = len;
    v->count = 0;
    for (const char *p = v->text; *p;) {
        const char *q = p + strcspn(p, ".");
        start[v->count] = p;
        len[v->count++] = (size_t)(q - p);
        p = *q ? q + 1 : q;
    }
    v->head.scheme = &sp_scheme_dotted;
    v->head.flags = 0;
    v->head.release_length = count;
    v->head.normal = v->text;
    return &v->head;
}

/* Component I of V, "" past the end (a missing component is zero). */
static int component_cmp(const struct dotted *a, const struct dotted *b, size_t i)
{
    return sp_digits_compare(i < a->count ? a->start[i] : "", i < a->count ? a->len[i] : 0,
                             i < b->count ? b->start[i] : "", i < b->count ? b->len[i] : 0);
}

static int compare(const struct sp_version *va, const struct sp_version *vb, enum sp_cmp how)
{
    const struct dotted *a = (const struct dotted *)va, *b = (const struct dotted *)vb;
    (void)how;
    size_t n = a->count > b->count ? a->count : b->count;
    for (size_t i = 0; i < n; i++) {
        int c = component_cmp(a, b, i);
        if (c)
            return c;
    }
    return 0;
}

/* V, padded with zeros, starts with PREFIX's components (all but the last
 * for ~=): ==2.29.* matches 2.29, 2.29.0 and 2.29.7, not 2.3. */
static int prefix_match(const struct sp_version *vv, const struct sp_version *vp, int drop_last)
{
    const struct dotted *v = (const struct dotted *)vv, *p = (const struct dotted *)vp;
    size_t k = p->count - (drop_last && p->count > 0 ? 1 : 0);
    for (size_t i = 0; i < k; i++)
        if (component_cmp(v, p, i) != 0)
            return 0;
    return 1;
}

static void release_version(struct sp_version *sv)
{
    struct dotted *v = (struct dotted *)sv;
    free(v->start);
    free(v->len);
    free(v);
}

const struct sp_scheme sp_scheme_dotted = {
    .name = "dotted",
    .title = "dotted",
    .parse = parse,
    .compare = compare,
    .prefix_match = prefix_match,
    .free = release_version,
};
