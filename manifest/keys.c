/* manifest/keys.c: key pairs, key loading through OSSL_STORE, key ids and
 * raw signatures; see keys.h.  Never prints, never exits, never keeps a
 * private key's bytes in memory it does not wipe. */
#include "manifest/keys.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/obj_mac.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/store.h>
#include <openssl/ui.h>
#include <openssl/x509.h>

#include "manifest/dsse.h"
#include "manifest/manifest.h"

/* The last OpenSSL error's reason, for messages; clears the queue. */
static const char *ossl_reason(const char *fallback)
{
    unsigned long code = ERR_peek_last_error();
    const char *r = code ? ERR_reason_error_string(code) : NULL;
    ERR_clear_error();
    return r ? r : fallback;
}

int sp_key_type_parse(const char *name, enum sp_key_type *t)
{
    if (strcmp(name, "ecdsa-p256") == 0)
        *t = SP_KEY_ECDSA_P256;
    else if (strcmp(name, "ed25519") == 0)
        *t = SP_KEY_ED25519;
    else
        return -1;
    return 0;
}

const char *sp_key_type_name(const EVP_PKEY *key)
{
    if (EVP_PKEY_is_a(key, "ED25519"))
        return "ed25519";
    if (EVP_PKEY_is_a(key, "EC")) {
        char group[64];
        size_t glen = 0;
        if (EVP_PKEY_get_group_name(key, group, sizeof group, &glen) == 1 &&
            (strcmp(group, "prime256v1") == 0 || strcmp(group, "P-256") == 0))
            return "ecdsa-p256";
    }
    ERR_clear_error();
    return NULL;
}

int sp_keygen(enum sp_key_type t, EVP_PKEY **out, struct sp_error *e)
{
    EVP_PKEY *k = t == SP_KEY_ED25519 ? EVP_PKEY_Q_keygen(NULL, NULL, "ED25519")
                                      : EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
    if (k == NULL)
        return sp_fail(e, SP_EXIT_INPUT, "keygen: %s", ossl_reason("key generation failed"));
    *out = k;
    return 0;
}

void sp_secret_free(void *p, size_t len)
{
    if (p == NULL)
        return;
    OPENSSL_cleanse(p, len);
    free(p);
}

int sp_key_pem(EVP_PKEY *key, char **private_pem, size_t *private_len,
               char **public_pem, size_t *public_len, struct sp_error *e)
{
    /* A secure-heap memory BIO is wiped when freed; the copy we hand out
     * is the caller's to wipe (sp_secret_free). */
    BIO *priv = private_pem ? BIO_new(BIO_s_secmem()) : NULL;
    BIO *pub = public_pem ? BIO_new(BIO_s_mem()) : NULL;
    char *pd = NULL, *pubd = NULL, *pcopy = NULL, *pubcopy = NULL;
    long pl = 0, publ = 0;
    int r = -1;

    if ((private_pem && priv == NULL) || (public_pem && pub == NULL))
        goto fail;
    if (priv && (PEM_write_bio_PrivateKey(priv, key, NULL, NULL, 0, NULL, NULL) != 1 ||
                 (pl = BIO_get_mem_data(priv, &pd)) <= 0))
        goto fail;
    if (pub && (PEM_write_bio_PUBKEY(pub, key) != 1 ||
                (publ = BIO_get_mem_data(pub, &pubd)) <= 0))
        goto fail;
    if ((priv && (pcopy = malloc((size_t)pl + 1)) == NULL) ||
        (pub && (pubcopy = malloc((size_t)publ + 1)) == NULL))
        goto fail;
    if (priv) {
        memcpy(pcopy, pd, (size_t)pl);
        pcopy[pl] = '\0';
        *private_pem = pcopy;
        *private_len = (size_t)pl;
    }
    if (pub) {
        memcpy(pubcopy, pubd, (size_t)publ);
        pubcopy[publ] = '\0';
        *public_pem = pubcopy;
        *public_len = (size_t)publ;
    }
    r = 0;
fail:
    if (r != 0) {
        free(pcopy);
        free(pubcopy);
        sp_fail(e, SP_EXIT_INPUT, "keygen: cannot write PEM: %s", ossl_reason("out of memory"));
    }
    BIO_free(priv);
    BIO_free(pub);
    return r;
}

/* A key argument names a store URI when no file of that name exists and it
 * starts with "scheme:" (RFC 3986 scheme syntax). */
static int is_uri(const char *arg)
{
    struct stat st;
    if (stat(arg, &st) == 0 || errno != ENOENT)
        return 0;
    const char *p = arg;
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
        return 0;
    while (*p && *p != ':') {
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
              (*p >= '0' && *p <= '9') || *p == '+' || *p == '-' || *p == '.'))
            return 0;
        p++;
    }
    return *p == ':' && p - arg >= 2;    /* "c:" is a drive, not a scheme */
}

/* The local path a "file:" URI ARG names, as OpenSSL's file store reads it
 * (RFC 8089: "file:/p", "file:///p", "file://localhost/p"; the scheme in
 * any case), pointing into ARG; "" for a file: URI naming another host;
 * NULL when ARG is not a file: URI (or is an existing file's name). */
static const char *file_uri_path(const char *arg)
{
    if (!is_uri(arg) || strncasecmp(arg, "file:", 5) != 0)
        return NULL;
    const char *p = arg + 5;
    if (strncmp(p, "//", 2) != 0)
        return p;
    p += 2;
    if (strncasecmp(p, "localhost/", 10) == 0)
        return p + 9;
    return p[0] == '/' ? p : "";
}

/* What a key store opened for load_key holds: the file's bytes (a secret,
 * wiped when freed), the memory BIO over them, the store. */
struct key_source {
    char *buf;
    size_t len;
    BIO *bio;
    OSSL_STORE_CTX *store;
};

static void key_source_close(struct key_source *ks)
{
    if (ks->store)
        OSSL_STORE_close(ks->store);
    BIO_free(ks->bio);
    sp_secret_free(ks->buf, ks->len);
    memset(ks, 0, sizeof *ks);
}

/* Read the file PATH (regular, never blocking: sp_read_file) into KS and
 * attach OpenSSL's file decoder to its bytes; ARG names it in the memory
 * message.  0 (KS->store may still be NULL: OpenSSL refused), or -1 with E
 * set (sp_read_file's messages; "ARG: out of memory"). */
static int key_source_file(struct key_source *ks, const char *path, const char *arg,
                           struct sp_error *e)
{
    if (sp_read_file(path, SP_KEY_MAX_BYTES, "key", &ks->buf, &ks->len, e) != 0)
        return -1;
    if (ks->len > (size_t)0x7fffffff || (ks->bio = BIO_new_mem_buf(ks->buf, (int)ks->len)) == NULL)
        return sp_fail(e, SP_EXIT_INPUT, "%s: out of memory", arg);
    ks->store = OSSL_STORE_attach(ks->bio, "file", NULL, NULL, UI_null(), NULL, NULL, NULL, NULL);
    return 0;
}

/* Open ARG for load_key: a file: URI naming a local path and a plain path
 * are read as files (key_source_file); any other URI goes to OSSL_STORE.
 * 0 with KS->store open, or -1 with E set. */
static int key_source_open(struct key_source *ks, const char *arg, int want,
                           struct sp_error *e)
{
    const char *local = file_uri_path(arg);
    if (local != NULL && local[0] == '\0')
        return sp_fail(e, SP_EXIT_INPUT, "%s: a file: URI must name a local path "
                       "(file:/PATH, file:///PATH or file://localhost/PATH)", arg);
    if (local != NULL && key_source_file(ks, local, arg, e) != 0) {
        /* sp_read_file names LOCAL; the user wrote ARG */
        char what[SP_ERROR_MSG_MAX];
        size_t ll = strlen(local);
        if (ks->buf != NULL)
            return -1;                   /* read, but no memory for the BIO */
        snprintf(what, sizeof what, "%s", strncmp(e->msg, local, ll) == 0 &&
                 e->msg[ll] == ':' ? e->msg + ll + 2 : e->msg);
        return sp_fail(e, SP_EXIT_INPUT, "%s: %s", arg, what);
    }
    if (local == NULL && is_uri(arg)) {
        ks->store = OSSL_STORE_open(arg, UI_null(), NULL, NULL, NULL);
        if (ks->store != NULL)
            OSSL_STORE_expect(ks->store, want);
    } else if (local == NULL && key_source_file(ks, arg, arg, e) != 0) {
        return -1;
    }
    if (ks->store != NULL)
        return 0;
    if (ks->bio == NULL)
        return sp_fail(e, SP_EXIT_INPUT, "%s: no such file, and no OpenSSL store opens it as a URI (%s)",
                       arg, ossl_reason("not found"));
    return sp_fail(e, SP_EXIT_INPUT, "%s: cannot read key: %s", arg, ossl_reason("store failed"));
}

/* What a store holds, as far as load_key cares. */
struct key_scan {
    EVP_PKEY *found;          /* the first key of the kind wanted (owned) */
    int extra;                /* a second one */
    int other;                /* a key of the other kind (public for private) */
    const char *reason;       /* OpenSSL's reason a load failed, or NULL */
};

/* Read up to 16 objects of STORE into KS. */
static void key_scan(OSSL_STORE_CTX *store, int want, struct key_scan *ks)
{
    for (int n = 0; n < 16 && !OSSL_STORE_eof(store); n++) {
        OSSL_STORE_INFO *info = OSSL_STORE_load(store);
        if (info == NULL) {
            if (OSSL_STORE_error(store)) {
                ks->reason = ossl_reason("decoding failed");
                break;
            }
            continue;
        }
        int type = OSSL_STORE_INFO_get_type(info);
        if (type == want && ks->found == NULL) {
            ks->found = want == OSSL_STORE_INFO_PKEY ? OSSL_STORE_INFO_get1_PKEY(info)
                                                     : OSSL_STORE_INFO_get1_PUBKEY(info);
        } else if (type == want) {
            ks->extra = 1;
        } else if (type == OSSL_STORE_INFO_PKEY || type == OSSL_STORE_INFO_PUBKEY) {
            ks->other = 1;
        }
        OSSL_STORE_INFO_free(info);
    }
    ERR_clear_error();
}

/* 0 when KS found exactly one key of a supported type, else -1 with E set
 * saying what ARG holds instead. */
static int key_scan_verdict(const struct key_scan *ks, const char *arg, int want,
                            struct sp_error *e)
{
    int private = want == OSSL_STORE_INFO_PKEY;
    if (ks->found == NULL && ks->other)
        return sp_fail(e, SP_EXIT_INPUT, private
                       ? "%s: is a public key; signing needs the private key"
                       : "%s: is a private key; pass the public key (PREFIX.pub)", arg);
    if (ks->found == NULL)
        return sp_fail(e, SP_EXIT_INPUT, "%s: no %s key found (expected %s)%s%s", arg,
                       private ? "private" : "public",
                       private ? "unencrypted PKCS#8 PEM" : "SPKI PEM",
                       ks->reason ? ": " : "", ks->reason ? ks->reason : "");
    if (ks->extra)
        return sp_fail(e, SP_EXIT_INPUT, "%s: holds more than one key", arg);
    if (sp_key_type_name(ks->found) == NULL) {
        const char *type = EVP_PKEY_get0_type_name(ks->found);
        return sp_fail(e, SP_EXIT_INPUT, "%s: unsupported key type %s (ecdsa-p256 or ed25519)",
                       arg, type ? type : "?");
    }
    return 0;
}

/* Load the one key of kind WANT (OSSL_STORE_INFO_PKEY or _PUBKEY) from ARG. */
static int load_key(const char *arg, int want, EVP_PKEY **out, struct sp_error *e)
{
    struct key_source src = { 0 };
    struct key_scan scan = { 0 };
    int r = -1;

    *out = NULL;
    ERR_clear_error();
    if (key_source_open(&src, arg, want, e) == 0) {
        key_scan(src.store, want, &scan);
        if (key_scan_verdict(&scan, arg, want, e) == 0) {
            *out = scan.found;
            scan.found = NULL;
            r = 0;
        }
    }
    EVP_PKEY_free(scan.found);
    key_source_close(&src);
    ERR_clear_error();
    return r;
}

int sp_key_load_private(const char *arg, EVP_PKEY **out, struct sp_error *e)
{
    return load_key(arg, OSSL_STORE_INFO_PKEY, out, e);
}

int sp_key_load_public(const char *arg, EVP_PKEY **out, struct sp_error *e)
{
    return load_key(arg, OSSL_STORE_INFO_PUBKEY, out, e);
}

int sp_key_id(EVP_PKEY *key, char out[SP_KEYID_HEX_LEN + 1], struct sp_error *e)
{
    unsigned char *der = NULL;
    int len = i2d_PUBKEY(key, &der);
    if (len <= 0)
        return sp_fail(e, SP_EXIT_INPUT, "key id: %s", ossl_reason("cannot encode public key"));
    int r = sp_sha256_hex(der, (size_t)len, out);
    OPENSSL_free(der);
    if (r != 0)
        return sp_fail(e, SP_EXIT_INPUT, "key id: %s", ossl_reason("sha256 failed"));
    return 0;
}

/* ECDSA hashes with SHA-256; Ed25519 signs the message itself (no digest). */
static const EVP_MD *key_md(const EVP_PKEY *key)
{
    return EVP_PKEY_is_a(key, "ED25519") ? NULL : EVP_sha256();
}

/* Rewrite the DER ECDSA signature SIG (*SIGLEN bytes, room for
 * SP_SIG_MAX_BYTES) of a P-256 key to its low-S form: when s > n/2, s
 * becomes n - s (the same signature, its other encoding; SEC 1 section
 * 4.1.4 accepts both, and BIP 62 / Ethereum's EIP-2 name the low one
 * canonical).  Returns 0, or -1 on an OpenSSL failure. */
static int ecdsa_low_s(unsigned char *sig, size_t *siglen)
{
    const unsigned char *p = sig;
    ECDSA_SIG *es = d2i_ECDSA_SIG(NULL, &p, (long)*siglen);
    EC_GROUP *g = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
    BIGNUM *half = BN_new(), *ns = NULL, *nr = NULL;
    int r = -1;
    if (es == NULL || g == NULL || half == NULL)
        goto out;
    const BIGNUM *order = EC_GROUP_get0_order(g), *sr = NULL, *ss = NULL;
    ECDSA_SIG_get0(es, &sr, &ss);
    if (BN_rshift1(half, order) != 1)
        goto out;
    if (BN_cmp(ss, half) <= 0) {
        r = 0;
        goto out;
    }
    ns = BN_new();
    nr = BN_dup(sr);
    if (ns == NULL || nr == NULL || BN_sub(ns, order, ss) != 1 ||
        ECDSA_SIG_set0(es, nr, ns) != 1)
        goto out;
    nr = ns = NULL;                      /* owned by ES now */
    int n = i2d_ECDSA_SIG(es, NULL);
    if (n <= 0 || n > SP_SIG_MAX_BYTES)
        goto out;
    unsigned char *w = sig;
    *siglen = (size_t)i2d_ECDSA_SIG(es, &w);
    r = 0;
out:
    BN_free(half);
    BN_free(ns);
    BN_free(nr);
    EC_GROUP_free(g);
    ECDSA_SIG_free(es);
    return r;
}

int sp_key_sign(EVP_PKEY *key, const unsigned char *msg, size_t len,
                unsigned char *sig, size_t *siglen, struct sp_error *e)
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    size_t need = 0;
    int r = -1;
    if (ctx != NULL && EVP_DigestSignInit_ex(ctx, NULL, key_md(key) ? "SHA256" : NULL,
                                             NULL, NULL, key, NULL) == 1 &&
        EVP_DigestSign(ctx, NULL, &need, msg, len) == 1 && need <= SP_SIG_MAX_BYTES) {
        *siglen = SP_SIG_MAX_BYTES;
        if (EVP_DigestSign(ctx, sig, siglen, msg, len) == 1 &&
            (key_md(key) == NULL || ecdsa_low_s(sig, siglen) == 0))
            r = 0;
    }
    EVP_MD_CTX_free(ctx);
    if (r != 0)
        return sp_fail(e, SP_EXIT_INPUT, "sign: %s", ossl_reason("signing failed"));
    return 0;
}

int sp_key_verify(EVP_PKEY *key, const unsigned char *msg, size_t len,
                  const unsigned char *sig, size_t siglen)
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int ok = ctx != NULL &&
             EVP_DigestVerifyInit_ex(ctx, NULL, key_md(key) ? "SHA256" : NULL,
                                     NULL, NULL, key, NULL) == 1 &&
             EVP_DigestVerify(ctx, sig, siglen, msg, len) == 1;
    EVP_MD_CTX_free(ctx);
    ERR_clear_error();
    return ok;
}
