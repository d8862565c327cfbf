/* manifest/facts.c: the fact set; see facts.h.  No I/O here. */
#include "manifest/facts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "common/array.h"
#include "common/digest.h"
#include "common/utf8.h"

void factset_init(struct factset *fs)
{
    memset(fs, 0, sizeof *fs);
}

void factset_free(struct factset *fs)
{
    for (size_t i = 0; i < fs->count; i++) {
        free(fs->facts[i].key);
        free(fs->facts[i].value);
        free(fs->facts[i].evidence);
    }
    free(fs->facts);
    for (size_t i = 0; i < fs->nwarnings; i++)
        free(fs->warnings[i]);
    free(fs->warnings);
    factset_init(fs);
}

/* Binary search: the fact for KEY, or NULL with *AT set to where it would
 * be inserted.  The facts are always kept sorted bytewise by key. */
static struct fact *search(const struct factset *fs, const char *key, size_t *at)
{
    size_t lo = 0, hi = fs->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(fs->facts[mid].key, key);
        if (c == 0)
            return &fs->facts[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (at)
        *at = lo;
    return NULL;
}

static struct fact *find(const struct factset *fs, const char *key)
{
    return search(fs, key, NULL);
}

const struct fact *factset_find(const struct factset *fs, const char *key)
{
    return find(fs, key);
}

const char *factset_get(const struct factset *fs, const char *key)
{
    const struct fact *f = find(fs, key);
    return f ? f->value : NULL;
}

int factset_remove(struct factset *fs, const char *key)
{
    struct fact *f = find(fs, key);
    if (f == NULL)
        return 0;
    free(f->key);
    free(f->value);
    free(f->evidence);
    size_t i = (size_t)(f - fs->facts);
    memmove(f, f + 1, (fs->count - i - 1) * sizeof *f);
    fs->count--;
    return 1;
}

int factset_set(struct factset *fs, const char *key, const char *value,
                const char *evidence)
{
    if (value == NULL || value[0] == '\0' || key == NULL || key[0] == '\0') {
        errno = EINVAL;
        return -1;
    }
    size_t kl = strlen(key), vl = strlen(value);
    size_t el = evidence ? strlen(evidence) : 0;
    if (kl > SP_FACT_KEY_MAX || vl > SP_FACT_VALUE_MAX || el > SP_FACT_VALUE_MAX) {
        errno = E2BIG;
        return -1;
    }
    if (!fact_key_valid(key)) {
        errno = EILSEQ;
        return -1;
    }
    char *v = sp_utf8_sanitize(value, vl);
    char *e = evidence ? sp_utf8_sanitize(evidence, el) : NULL;
    if (v == NULL || (evidence && e == NULL))
        goto nomem;
    size_t at = 0;
    struct fact *f = search(fs, key, &at);
    if (f != NULL) {
        free(f->value);
        free(f->evidence);
        f->value = v;
        f->evidence = e;
        return 0;
    }
    if (fs->count >= SP_FACTS_MAX) {
        free(v);
        free(e);
        errno = ENOSPC;
        return -1;
    }
    if (SP_ARRAY_RESERVE(fs->facts, fs->cap, fs->count + 1) != 0)
        goto nomem;
    char *k = strdup(key);      /* the alphabet is ASCII: nothing to escape */
    if (k == NULL)
        goto nomem;
    memmove(&fs->facts[at + 1], &fs->facts[at], (fs->count - at) * sizeof *fs->facts);
    fs->facts[at] = (struct fact){ k, v, e };
    fs->count++;
    return 0;
nomem:
    errno = ENOMEM;
    free(v);
    free(e);
    return -1;
}

int factset_setf(struct factset *fs, const char *key, const char *evidence,
                 const char *fmt, ...)
{
    char buf[SP_FACT_VALUE_MAX + 1];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof buf) {
        errno = E2BIG;
        return -1;
    }
    return factset_set(fs, key, buf, evidence);
}

int factset_vwarn(struct factset *fs, const char *fmt, va_list ap)
{
    if (fs->nwarnings >= SP_WARNINGS_MAX) {
        fs->dropped_warnings++;
        return 0;
    }
    char buf[SP_FACT_VALUE_MAX + 1];
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    if (n < 0)
        return -1;
    if (SP_ARRAY_RESERVE(fs->warnings, fs->capwarnings, fs->nwarnings + 1) != 0)
        return -1;
    size_t len = strlen(buf);
    char *w = sp_utf8_sanitize(buf, len);
    if (w == NULL)
        return -1;
    fs->warnings[fs->nwarnings++] = w;
    return 0;
}

int factset_warn(struct factset *fs, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = factset_vwarn(fs, fmt, ap);
    va_end(ap);
    return r;
}

int fact_is_volatile(const char *key)
{
    static const char *const volatile_keys[] = {
        "host.hostname", "host.instance_id", "container.id",
        /* how full the compile cache is, not which stack filled it */
        "neuron.cache.modules", "neuron.cache.modules_by_compiler",
        "neuron.cache.locked", "neuron.cache.failed",
    };
    for (size_t i = 0; i < sizeof volatile_keys / sizeof *volatile_keys; i++)
        if (strcmp(key, volatile_keys[i]) == 0)
            return 1;
    return 0;
}

int fact_key_valid(const char *key)
{
    size_t n = strlen(key);
    if (n == 0 || n > SP_FACT_KEY_MAX || !(key[0] >= 'a' && key[0] <= 'z'))
        return 0;
    return strspn(key, SP_FACT_KEY_ALPHABET) == n;
}

/* One netstring "<decimal length>:<bytes>," into CTX. */
static int netstring(EVP_MD_CTX *ctx, const char *s)
{
    char len[24];
    size_t n = strlen(s);
    int w = snprintf(len, sizeof len, "%zu:", n);
    return EVP_DigestUpdate(ctx, len, (size_t)w) == 1 &&
           EVP_DigestUpdate(ctx, s, n) == 1 &&
           EVP_DigestUpdate(ctx, ",", 1) == 1;
}

int factset_stack_id(const struct factset *fs, char out[SP_DIGEST_LEN + 1])
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    unsigned char md[32];
    unsigned int mdlen = 0;
    int ok = ctx != NULL && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) == 1;
    for (size_t i = 0; ok && i < fs->count; i++) {
        const struct fact *f = &fs->facts[i];
        if (fact_is_volatile(f->key))
            continue;
        ok = netstring(ctx, f->key) && netstring(ctx, f->value);
    }
    ok = ok && EVP_DigestFinal_ex(ctx, md, &mdlen) == 1 && mdlen == 32;
    EVP_MD_CTX_free(ctx);
    if (!ok)
        return -1;
    sp_digest_format(md, out);
    return 0;
}

int fact_name_pep503(const char *name, char *out, size_t outsz)
{
    size_t w = 0;
    int in_sep = 0;
    if (name == NULL || name[0] == '\0')
        return -1;
    for (const char *p = name; *p; p++) {
        char c = *p;
        if (c == '-' || c == '_' || c == '.') {
            in_sep = 1;
            continue;
        }
        if (in_sep) {
            if (w + 1 >= outsz)
                return -1;
            out[w++] = '-';
        }
        in_sep = 0;
        if (w + 1 >= outsz)
            return -1;
        out[w++] = (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
    }
    if (in_sep) {
        if (w + 1 >= outsz)
            return -1;
        out[w++] = '-';
    }
    out[w] = '\0';
    return 0;
}
