/* manifest/dsse.c: DSSE envelopes of in-toto Statements over manifests:
 * PAE, strict base64, building, signing and verifying; see dsse.h.
 * Never prints, never exits; never trusts a key named inside an envelope. */
#include "manifest/dsse.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <openssl/evp.h>

#include "manifest/manifest.h"
#include "manifest/node.h"

/* ---- digests ------------------------------------------------------- */

int sp_sha256_hex(const void *p, size_t len, char out[65])
{
    unsigned char md[32];
    unsigned int mdlen = 0;
    if (EVP_Digest(p, len, md, &mdlen, EVP_sha256(), NULL) != 1 || mdlen != sizeof md)
        return -1;
    for (size_t i = 0; i < sizeof md; i++)
        snprintf(out + 2 * i, 3, "%02x", md[i]);
    return 0;
}

static int is_sha256_hex(const char *s)
{
    size_t n = 0;
    for (; s[n]; n++)
        if (!((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f')))
            return 0;
    return n == 64;
}

/* ---- base64 (RFC 4648), through OpenSSL ----------------------------- */

int sp_base64_encode(const unsigned char *p, size_t len, char **out)
{
    if (len > (size_t)0x7fffffff / 4 * 3 - 3)
        return -1;
    char *s = malloc(4 * ((len + 2) / 3) + 1);
    if (s == NULL)
        return -1;
    EVP_EncodeBlock((unsigned char *)s, p, (int)len);
    *out = s;
    return 0;
}

/* Value of a base64 character in ALPHABET 0 (standard) or 1 (URL-safe),
 * -1 if it is not one. */
static int b64_value(char c, int url)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == (url ? '-' : '+'))
        return 62;
    if (c == (url ? '_' : '/'))
        return 63;
    return -1;
}

int sp_base64_decode(const char *s, size_t slen, unsigned char **out,
                     size_t *outlen, const char **why)
{
    static _Thread_local char whybuf[96];
    int std = 0, url = 0;
    size_t data = slen, pad = 0;

    while (data > 0 && s[data - 1] == '=' && pad < 3) {
        data--;
        pad++;
    }
    for (size_t i = 0; i < data; i++) {
        char c = s[i];
        std |= c == '+' || c == '/';
        url |= c == '-' || c == '_';
        if (b64_value(c, 0) < 0 && b64_value(c, 1) < 0) {
            if (c >= 0x21 && c <= 0x7e)
                snprintf(whybuf, sizeof whybuf, "character '%c' at offset %zu is not base64", c, i);
            else
                snprintf(whybuf, sizeof whybuf, "byte 0x%02x at offset %zu is not base64",
                         (unsigned char)c, i);
            *why = whybuf;
            return -1;
        }
    }
    if (std && url) {
        *why = "mixes the standard and URL-safe base64 alphabets";
        return -1;
    }
    if (pad > 2 || data % 4 == 1 || (pad && (data + pad) % 4 != 0)) {
        *why = "wrong length or padding for base64";
        return -1;
    }
    /* The last character's unused low bits must be zero (canonical form). */
    if (data % 4 != 0) {
        int v = b64_value(s[data - 1], url);
        if ((data % 4 == 2 && (v & 0x0f)) || (data % 4 == 3 && (v & 0x03))) {
            *why = "base64 has non-zero trailing bits (not canonical)";
            return -1;
        }
    }
    size_t tail = (4 - data % 4) % 4;
    size_t std_len = data + tail;
    if (std_len > (size_t)0x7fffffff) {
        *why = "base64 text too long";
        return -1;
    }
    char *t = malloc(std_len + 1);
    unsigned char *b = malloc(std_len / 4 * 3 + 1);
    if (t == NULL || b == NULL) {
        free(t);
        free(b);
        *why = "out of memory";
        return -1;
    }
    for (size_t i = 0; i < data; i++)
        t[i] = s[i] == '-' ? '+' : s[i] == '_' ? '/' : s[i];
    memset(t + data, '=', tail);
    int n = EVP_DecodeBlock(b, (const unsigned char *)t, (int)std_len);
    free(t);
    if (n < 0 || (size_t)n != std_len / 4 * 3) {
        free(b);
        *why = "invalid base64";
        return -1;
    }
    *outlen = (size_t)n - tail;      /* EVP_DecodeBlock counts padding as zero bytes */
    b[*outlen] = '\0';
    *out = b;
    return 0;
}

/* ---- PAE ------------------------------------------------------------ */

int dsse_pae(const char *type, const unsigned char *body, size_t len,
             unsigned char **out, size_t *outlen)
{
    size_t tl = strlen(type);
    int hl = snprintf(NULL, 0, "DSSEv1 %zu %s %zu ", tl, type, len);
    if (hl < 0 || len > SIZE_MAX - (size_t)hl - 1)
        return -1;
    unsigned char *p = malloc((size_t)hl + len + 1);
    if (p == NULL)
        return -1;
    snprintf((char *)p, (size_t)hl + 1, "DSSEv1 %zu %s %zu ", tl, type, len);
    if (len)
        memcpy(p + hl, body, len);
    *out = p;
    *outlen = (size_t)hl + len;
    return 0;
}

/* ---- building and signing ------------------------------------------ */

static json_t *subject_new(const char *name, const char *hex)
{
    json_t *s = json_object(), *d = json_object();
    if (s == NULL || d == NULL || json_object_set_new(d, "sha256", json_string(hex)) != 0 ||
        json_object_set_new(s, "name", json_string(name)) != 0 ||
        json_object_set(s, "digest", d) != 0) {
        json_decref(s);
        json_decref(d);
        return NULL;
    }
    json_decref(d);
    return s;
}

json_t *sp_subject_json(const char *name, const char *hex)
{
    return subject_new(name, hex);
}

int sp_statement_json(json_t *subjects, const char *predicate_type, json_t *predicate,
                      char **out, size_t *outlen)
{
    json_t *stmt = json_object();
    char *s = NULL;
    if (stmt != NULL &&
        json_object_set_new(stmt, "_type", json_string(SP_STATEMENT_TYPE)) == 0 &&
        json_object_set(stmt, "subject", subjects) == 0 &&
        json_object_set_new(stmt, "predicateType", json_string(predicate_type)) == 0 &&
        json_object_set(stmt, "predicate", predicate) == 0)
        s = json_dumps(stmt, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(stmt);
    if (s == NULL)
        return -1;
    *out = s;
    *outlen = strlen(s);
    return 0;
}

/* The subjects of a statement about manifest M (BUF, LEN, NAME): see
 * dsse.h.  A new JSON array, or NULL with E set. */
static json_t *statement_subjects(const struct manifest *m, const char *buf, size_t len,
                                  const char *name, struct sp_error *e)
{
    char hex[65];
    json_t *subjects = NULL;

    if (sp_sha256_hex(buf, len, hex) != 0) {
        sp_fail(e, SP_EXIT_INPUT, "%s: cannot build the predicate", name);
        return NULL;
    }
    subjects = json_array();
    if (subjects == NULL ||
        json_array_append_new(subjects, subject_new(name, hex)) != 0)
        goto nomem;
    const char *cfg = factset_get(&m->facts, "image.config_digest");
    if (cfg != NULL) {
        if (strncmp(cfg, "sha256:", 7) != 0 || !is_sha256_hex(cfg + 7)) {
            sp_fail(e, SP_EXIT_INPUT, "%s: image.config_digest is not sha256:<64 lowercase hex>",
                    name);
            json_decref(subjects);
            return NULL;
        }
        const char *ref = factset_get(&m->facts, "image.ref");
        if (json_array_append_new(subjects, subject_new(ref ? ref : "image", cfg + 7)) != 0)
            goto nomem;
    }
    return subjects;
nomem:
    json_decref(subjects);
    sp_fail(e, SP_EXIT_INPUT, "%s: out of memory building the statement", name);
    return NULL;
}

/* The manifest predicate: M as manifest_render(MANIFEST_JSON) writes it. */
static int manifest_json(const struct manifest *m, char **out, size_t *len, struct sp_error *e)
{
    return manifest_render(m, MANIFEST_JSON, out, len, e);
}

int sp_manifest_statement(const char *buf, size_t len, const char *name,
                          const char *predicate_type, sp_predicate_fn *predicate,
                          char **out, size_t *outlen, struct sp_error *e)
{
    struct manifest m;
    char *js = NULL;
    size_t jslen = 0;
    json_t *subjects = NULL, *pred = NULL;
    int r = -1;

    if (manifest_parse(buf, len, name, &m, e) != 0)
        return -1;
    if (predicate(&m, &js, &jslen, e) != 0)
        goto out;
    json_error_t je;
    if ((pred = json_loadb(js, jslen, JSON_REJECT_DUPLICATES, &je)) == NULL) {
        sp_fail(e, SP_EXIT_INPUT, "%s: cannot build the predicate", name);
        goto out;
    }
    if ((subjects = statement_subjects(&m, buf, len, name, e)) == NULL)
        goto out;
    if (sp_statement_json(subjects, predicate_type, pred, out, outlen) != 0) {
        sp_fail(e, SP_EXIT_INPUT, "%s: out of memory building the statement", name);
        goto out;
    }
    r = 0;
out:
    json_decref(subjects);
    json_decref(pred);
    free(js);
    manifest_free(&m);
    return r;
}

int sp_statement_build(const char *buf, size_t len, const char *name,
                       char **out, size_t *outlen, struct sp_error *e)
{
    return sp_manifest_statement(buf, len, name, SP_PREDICATE_TYPE, manifest_json,
                                 out, outlen, e);
}

int dsse_envelope_sign(const char *payload_type, const unsigned char *payload,
                       size_t len, EVP_PKEY *key, char **out, size_t *outlen,
                       struct sp_error *e)
{
    unsigned char *pae = NULL, sig[SP_SIG_MAX_BYTES];
    size_t paelen = 0, siglen = 0;
    char keyid[SP_KEYID_HEX_LEN + 1], *b64payload = NULL, *b64sig = NULL, *s = NULL;
    json_t *env = NULL, *sigs = NULL, *one = NULL;
    int r = -1;

    if (sp_key_id(key, keyid, e) != 0)
        return -1;
    if (dsse_pae(payload_type, payload, len, &pae, &paelen) != 0)
        goto nomem;
    if (sp_key_sign(key, pae, paelen, sig, &siglen, e) != 0)
        goto out;
    if (sp_base64_encode(payload, len, &b64payload) != 0 ||
        sp_base64_encode(sig, siglen, &b64sig) != 0)
        goto nomem;
    env = json_object();
    sigs = json_array();
    one = json_object();
    if (env == NULL || sigs == NULL || one == NULL ||
        json_object_set_new(one, "keyid", json_string(keyid)) != 0 ||
        json_object_set_new(one, "sig", json_string(b64sig)) != 0 ||
        json_array_append(sigs, one) != 0 ||
        json_object_set_new(env, "payloadType", json_string(payload_type)) != 0 ||
        json_object_set_new(env, "payload", json_string(b64payload)) != 0 ||
        json_object_set(env, "signatures", sigs) != 0 ||
        (s = json_dumps(env, JSON_INDENT(2) | JSON_PRESERVE_ORDER)) == NULL)
        goto nomem;
    size_t sl = strlen(s);
    char *withnl = realloc(s, sl + 2);
    if (withnl == NULL)
        goto nomem;
    s = NULL;
    withnl[sl] = '\n';
    withnl[sl + 1] = '\0';
    *out = withnl;
    *outlen = sl + 1;
    r = 0;
    goto out;
nomem:
    sp_fail(e, SP_EXIT_INPUT, "sign: out of memory");
out:
    free(s);
    json_decref(one);
    json_decref(sigs);
    json_decref(env);
    free(b64payload);
    free(b64sig);
    free(pae);
    OPENSSL_cleanse(sig, sizeof sig);
    return r;
}

int sp_sign_manifest(const char *buf, size_t len, const char *name, EVP_PKEY *key,
                     char **out, size_t *outlen, struct sp_error *e)
{
    char *stmt = NULL;
    size_t stmtlen = 0;
    if (sp_statement_build(buf, len, name, &stmt, &stmtlen, e) != 0)
        return -1;
    int r = dsse_envelope_sign(DSSE_PAYLOAD_TYPE, (const unsigned char *)stmt, stmtlen,
                               key, out, outlen, e);
    free(stmt);
    return r;
}

/* ---- verifying ------------------------------------------------------ */

void sp_verified_free(struct sp_verified *v)
{
    free(v->subject_name);
    v->subject_name = NULL;
    sp_node_free(v->statement);
    v->statement = NULL;
}

/* "ENV_NAME: CHECK check failed: what" with SP_EXIT_VERIFY. */
static int vfail(struct sp_error *e, const char *env_name, const char *check,
                 const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int vfail(struct sp_error *e, const char *env_name, const char *check,
                 const char *fmt, ...)
{
    char what[SP_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return sp_fail(e, SP_EXIT_VERIFY, "%s: %s check failed: %s", env_name, check, what);
}

/* A string from the input, made safe for a one-line message: at most 60
 * characters, anything outside printable ASCII shown as '?'. */
static const char *shown(const char *s, char out[64])
{
    size_t i = 0;
    for (; s[i] && i < 60; i++)
        out[i] = (s[i] >= 0x20 && s[i] <= 0x7e) ? s[i] : '?';
    if (s[i]) {
        out[i - 3] = out[i - 2] = out[i - 1] = '.';
    }
    out[i] = '\0';
    return out;
}

/* The string value of KEY in map N, or NULL if absent; *BAD set when the
 * key is there but not a JSON string. */
static const char *str_field(const struct sp_node *n, const char *key, int *bad)
{
    const struct sp_node *v = sp_node_get(n, key, NULL);
    *bad = v != NULL && (v->kind != SP_NODE_SCALAR || !v->quoted);
    return v && !*bad ? v->value : NULL;
}

static int starts_object(const char *s, size_t len)
{
    size_t i = 0;
    while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
        i++;
    return i < len && s[i] == '{';
}

struct sig_entry {
    const char *keyid;        /* NULL when absent; points into the node tree */
    unsigned char *sig;
    size_t siglen;
};

static int check_statement(const unsigned char *payload, size_t plen,
                           const char *env_name, const char *want_ptype,
                           struct sp_node **doc_out, struct sp_error *e)
{
    struct sp_error pe = { 0 };
    char sh[64];
    int bad = 0;

    if (!starts_object((const char *)payload, plen))
        return vfail(e, env_name, "statement", "payload is not a JSON object");
    struct sp_node *doc = sp_node_parse((const char *)payload, plen, "payload", &pe);
    if (doc == NULL)
        return vfail(e, env_name, "statement", "%s", pe.msg);
    *doc_out = doc;
    const char *type = str_field(doc, "_type", &bad);
    if (type == NULL)
        return vfail(e, env_name, "statement", "no _type string");
    if (strcmp(type, SP_STATEMENT_TYPE) != 0)
        return vfail(e, env_name, "statement", "_type \"%s\" is not " SP_STATEMENT_TYPE,
                     shown(type, sh));
    const char *ptype = str_field(doc, "predicateType", &bad);
    if (ptype == NULL)
        return vfail(e, env_name, "statement", "no predicateType string");
    if (strcmp(ptype, want_ptype) != 0)
        return vfail(e, env_name, "statement", "predicateType \"%s\" is not %s",
                     shown(ptype, sh), want_ptype);
    const struct sp_node *pred = sp_node_get(doc, "predicate", NULL);
    if (pred == NULL || pred->kind != SP_NODE_MAP)
        return vfail(e, env_name, "statement", "predicate is %s",
                     pred ? "not a JSON object" : "missing");
    const struct sp_node *subj = sp_node_get(doc, "subject", NULL);
    if (subj == NULL || subj->kind != SP_NODE_SEQ)
        return vfail(e, env_name, "statement", "subject is %s",
                     subj ? "not a list" : "missing");
    if (subj->count == 0)
        return vfail(e, env_name, "statement", "subject list is empty");
    if (subj->count > SP_STATEMENT_SUBJECTS_MAX)
        return vfail(e, env_name, "statement", "more than %d subjects",
                     SP_STATEMENT_SUBJECTS_MAX);
    for (size_t i = 0; i < subj->count; i++) {
        const struct sp_node *s = subj->items[i];
        if (s->kind != SP_NODE_MAP)
            return vfail(e, env_name, "statement", "subject[%zu] is not an object", i);
        const char *name = str_field(s, "name", &bad);
        if (name == NULL)
            return vfail(e, env_name, "statement", "subject[%zu] has no name string", i);
        if (strlen(name) > SP_SUBJECT_NAME_MAX)
            return vfail(e, env_name, "statement", "subject[%zu] name longer than %d bytes",
                         i, SP_SUBJECT_NAME_MAX);
        const struct sp_node *d = sp_node_get(s, "digest", NULL);
        if (d == NULL || d->kind != SP_NODE_MAP)
            return vfail(e, env_name, "statement", "subject[%zu] has no digest object", i);
        const char *sha = str_field(d, "sha256", &bad);
        if (sha == NULL)
            return vfail(e, env_name, "statement", "subject[%zu] has no sha256 digest", i);
        if (!is_sha256_hex(sha))
            return vfail(e, env_name, "statement",
                         "subject[%zu] sha256 is not 64 lowercase hex digits", i);
    }
    return 0;
}

int sp_verify_statement(const char *env, size_t envlen, const char *env_name,
                        const char *man, size_t manlen, const char *man_name,
                        const char *predicate_type, EVP_PKEY *pub,
                        struct sp_verified *out, struct sp_error *e)
{
    struct sp_error pe = { 0 };
    struct sp_node *doc = NULL, *stmt = NULL;
    struct sig_entry sigs[DSSE_SIGNATURES_MAX];
    size_t nsigs = 0, plen = 0, paelen = 0;
    unsigned char *payload = NULL, *pae = NULL;
    char keyid[SP_KEYID_HEX_LEN + 1], hex[65], sh[64], sh2[64];
    const char *why = NULL;
    int bad = 0, r = -1;

    memset(out, 0, sizeof *out);
    if (sp_key_id(pub, keyid, e) != 0)
        return -1;

    /* 1. envelope */
    if (!starts_object(env, envlen)) {
        vfail(e, env_name, "envelope", "not a JSON object");
        goto out;
    }
    doc = sp_node_parse(env, envlen, env_name, &pe);
    if (doc == NULL) {
        vfail(e, env_name, "envelope", "%s", pe.msg);
        goto out;
    }
    const char *ptype = str_field(doc, "payloadType", &bad);
    if (ptype == NULL) {
        vfail(e, env_name, "envelope", "no payloadType string");
        goto out;
    }
    if (strcmp(ptype, DSSE_PAYLOAD_TYPE) != 0) {
        vfail(e, env_name, "envelope", "unknown payloadType \"%s\" (expected " DSSE_PAYLOAD_TYPE ")",
              shown(ptype, sh));
        goto out;
    }
    const char *b64 = str_field(doc, "payload", &bad);
    if (b64 == NULL) {
        vfail(e, env_name, "envelope", "no payload string");
        goto out;
    }
    if (sp_base64_decode(b64, strlen(b64), &payload, &plen, &why) != 0) {
        vfail(e, env_name, "envelope", "payload: %s", why);
        goto out;
    }
    const struct sp_node *list = sp_node_get(doc, "signatures", NULL);
    if (list == NULL || list->kind != SP_NODE_SEQ) {
        vfail(e, env_name, "envelope", "signatures %s", list ? "is not a list" : "missing");
        goto out;
    }
    if (list->count == 0) {
        vfail(e, env_name, "envelope", "no signatures");
        goto out;
    }
    if (list->count > DSSE_SIGNATURES_MAX) {
        vfail(e, env_name, "envelope", "more than %d signatures", DSSE_SIGNATURES_MAX);
        goto out;
    }
    for (size_t i = 0; i < list->count; i++) {
        const struct sp_node *s = list->items[i];
        if (s->kind != SP_NODE_MAP) {
            vfail(e, env_name, "envelope", "signatures[%zu] is not an object", i);
            goto out;
        }
        const char *kid = str_field(s, "keyid", &bad);
        if (bad || (kid && strlen(kid) > DSSE_KEYID_MAX)) {
            vfail(e, env_name, "envelope", "signatures[%zu].keyid is not a string of at most %d bytes",
                  i, DSSE_KEYID_MAX);
            goto out;
        }
        const char *sig = str_field(s, "sig", &bad);
        if (sig == NULL) {
            vfail(e, env_name, "envelope", "signatures[%zu] has no sig string", i);
            goto out;
        }
        if (strlen(sig) > 4 * ((SP_SIG_MAX_BYTES + 2) / 3)) {
            vfail(e, env_name, "envelope", "signatures[%zu].sig longer than %d bytes",
                  i, SP_SIG_MAX_BYTES);
            goto out;
        }
        sigs[nsigs].keyid = kid;
        if (sp_base64_decode(sig, strlen(sig), &sigs[nsigs].sig, &sigs[nsigs].siglen, &why) != 0) {
            vfail(e, env_name, "envelope", "signatures[%zu].sig: %s", i, why);
            goto out;
        }
        nsigs++;
        if (sigs[nsigs - 1].siglen > SP_SIG_MAX_BYTES) {
            vfail(e, env_name, "envelope", "signatures[%zu].sig longer than %d bytes",
                  i, SP_SIG_MAX_BYTES);
            goto out;
        }
    }

    /* 2. signature, under PUB only */
    if (dsse_pae(ptype, payload, plen, &pae, &paelen) != 0) {
        sp_fail(e, SP_EXIT_INPUT, "%s: out of memory", env_name);
        goto out;
    }
    /* DSSE multi-signature verification: a keyid is an unauthenticated hint.
     * Every signature is tried under PUB (the only trusted key); the hint
     * orders the tries (keyid equal to PUB's first, then empty or absent,
     * then any other, since other signers name keys in other schemes), a
     * signature that fails is skipped, and one that verifies is enough. */
    size_t tried = 0, verified_at = 0;
    int verified = 0;
    for (int pass = 0; pass < 3 && !verified; pass++) {
        for (size_t i = 0; i < nsigs && !verified; i++) {
            const char *kid = sigs[i].keyid;
            int cls = kid && strcmp(kid, keyid) == 0 ? 0 : (kid == NULL || kid[0] == '\0') ? 1 : 2;
            if (cls != pass)
                continue;
            tried++;
            verified = sp_key_verify(pub, pae, paelen, sigs[i].sig, sigs[i].siglen);
            verified_at = i;
        }
    }
    if (!verified) {
        vfail(e, env_name, "signature", "no signature verifies under key %s (%zu tried)",
              keyid, tried);
        goto out;
    }

    /* 3. statement */
    if (check_statement(payload, plen, env_name, predicate_type, &stmt, e) != 0)
        goto out;

    /* 4. subject */
    if (sp_sha256_hex(man, manlen, hex) != 0) {
        sp_fail(e, SP_EXIT_INPUT, "%s: sha256 failed", man_name);
        goto out;
    }
    /* the manifest's own subject is the first one; a later one is the
     * image the manifest describes and never stands for the manifest */
    const struct sp_node *subj = sp_node_get(stmt, "subject", NULL);
    const struct sp_node *own = subj->items[0];
    if (strcmp(str_field(sp_node_get(own, "digest", NULL), "sha256", &bad), hex) == 0) {
        out->subject_name = strdup(str_field(own, "name", &bad));
        if (out->subject_name == NULL) {
            sp_fail(e, SP_EXIT_INPUT, "%s: out of memory", env_name);
            goto out;
        }
        memcpy(out->keyid, keyid, sizeof keyid);
        memcpy(out->digest, hex, sizeof hex);
        out->predicate_type = predicate_type;
        out->signature_index = verified_at;
        out->statement = stmt;
        stmt = NULL;
        r = 0;
        goto out;
    }
    for (size_t i = 1; i < subj->count; i++) {
        const struct sp_node *s = subj->items[i];
        if (strcmp(str_field(sp_node_get(s, "digest", NULL), "sha256", &bad), hex) == 0) {
            vfail(e, env_name, "subject", "%s has the sha256 of subject[%zu] \"%s\", which the "
                  "manifest describes, not of the manifest itself (subject[0] \"%s\")",
                  man_name, i, shown(str_field(s, "name", &bad), sh),
                  shown(str_field(own, "name", &bad), sh2));
            goto out;
        }
    }
    vfail(e, env_name, "subject", "the manifest's subject[0] \"%s\" does not have the sha256 "
          "of %s (%s)", shown(str_field(own, "name", &bad), sh), man_name, hex);
out:
    for (size_t i = 0; i < nsigs; i++)
        free(sigs[i].sig);
    free(payload);
    free(pae);
    sp_node_free(doc);
    sp_node_free(stmt);
    return r;
}

int sp_verify_manifest(const char *env, size_t envlen, const char *env_name,
                       const char *man, size_t manlen, const char *man_name,
                       EVP_PKEY *pub, struct sp_verified *out, struct sp_error *e)
{
    return sp_verify_statement(env, envlen, env_name, man, manlen, man_name,
                               SP_PREDICATE_TYPE, pub, out, e);
}
