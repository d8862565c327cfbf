/* tests/unit/test_dsse.c: DSSE envelopes over manifests (manifest/dsse.c,
 * manifest/keys.c): base64 against RFC 4648's test vectors, PAE against the
 * DSSE spec's example, round trips with both key types, tampering with
 * every byte of a small manifest, of the payload and of the signature,
 * the failure messages, and every bound crossed.  The openssl command line
 * checks the same envelopes independently in tests/sh/sign_openssl.sh. */
#include "tests/unit/testlib.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>
#include <openssl/evp.h>

#include "manifest/dsse.h"
#include "manifest/keys.h"
#include "manifest/manifest.h"

#define FIX "tests/fixtures/sign"

static char *slurp(const char *path, size_t *len)
{
    char *buf = NULL;
    struct sp_error e = { 0 };
    if (sp_read_file(path, 1u << 20, "test", &buf, len, &e) != 0)
        fail_msg("cannot read %s: %s", path, e.msg);
    return buf;
}

static char *sign_buf(const char *man, size_t len, const char *name, EVP_PKEY *key,
                      size_t *envlen)
{
    char *env = NULL;
    struct sp_error e = { 0 };
    if (sp_sign_manifest(man, len, name, key, &env, envlen, &e) != 0)
        fail_msg("sign failed: %s", e.msg);
    return env;
}

/* Verify and return the exit status (0 on success); message into MSG. */
static int verify_rc(const char *env, size_t envlen, const char *man, size_t manlen,
                     EVP_PKEY *pub, char *msg)
{
    struct sp_error e = { 0 };
    struct sp_verified v;
    int r = sp_verify_manifest(env, envlen, "env.json", man, manlen, "m.yaml", pub, &v, &e);
    if (msg)
        snprintf(msg, SP_ERROR_MSG_MAX, "%s", e.msg);
    if (r == 0) {
        sp_verified_free(&v);
        return 0;
    }
    return e.exit_code;
}

static EVP_PKEY *fixture_key(int private)
{
    EVP_PKEY *k = NULL;
    struct sp_error e = { 0 };
    int r = private ? sp_key_load_private(FIX "/ed25519.key", &k, &e)
                    : sp_key_load_public(FIX "/ed25519.pub", &k, &e);
    if (r != 0)
        fail_msg("fixture key: %s", e.msg);
    return k;
}

/* The public half of K as a separate EVP_PKEY, through PEM (as verify sees it). */
static EVP_PKEY *public_of(EVP_PKEY *k)
{
    char *pem = NULL;
    size_t len = 0;
    struct sp_error e = { 0 };
    EVP_PKEY *pub = NULL;
    const char *tmp = getenv("TMPDIR");
    char tpl[512];
    snprintf(tpl, sizeof tpl, "%s/pubXXXXXX", tmp && *tmp ? tmp : "/tmp");
    assert_int_equal(sp_key_pem(k, NULL, NULL, &pem, &len, &e), 0);
    int fd = mkstemp(tpl);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, pem, len), (ssize_t)len);
    close(fd);
    if (sp_key_load_public(tpl, &pub, &e) != 0)
        fail_msg("%s", e.msg);
    unlink(tpl);
    free(pem);
    return pub;
}

/* Replace the string field KEY of the envelope's top level (or of its first
 * signature when SIG is set) by VALUE; returns a new envelope. */
static char *with_field(const char *env, int sig, const char *key, const char *value)
{
    json_error_t je;
    json_t *j = json_loads(env, 0, &je);
    assert_non_null(j);
    json_t *target = sig ? json_array_get(json_object_get(j, "signatures"), 0) : j;
    assert_non_null(target);
    json_object_set_new(target, key, json_string(value));
    char *s = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(j);
    return s;
}

static const char *field(const char *env, int sig, const char *key, json_t **hold)
{
    json_error_t je;
    *hold = json_loads(env, 0, &je);
    json_t *target = sig ? json_array_get(json_object_get(*hold, "signatures"), 0) : *hold;
    return json_string_value(json_object_get(target, key));
}

/* ---- base64 and PAE ------------------------------------------------- */

static void base64_rfc4648_vectors(void **state)
{
    /* RFC 4648 section 10 */
    static const char *const plain[] = { "", "f", "fo", "foo", "foob", "fooba", "foobar" };
    static const char *const enc[] = { "", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy" };
    for (size_t i = 0; i < 7; i++) {
        char *s = NULL;
        unsigned char *d = NULL;
        size_t dl = 0;
        const char *why = NULL;
        assert_int_equal(sp_base64_encode((const unsigned char *)plain[i], strlen(plain[i]), &s), 0);
        assert_string_equal(s, enc[i]);
        free(s);
        assert_int_equal(sp_base64_decode(enc[i], strlen(enc[i]), &d, &dl, &why), 0);
        assert_int_equal(dl, strlen(plain[i]));
        assert_memory_equal(d, plain[i], dl);
        free(d);
        /* without padding, as DSSE allows */
        size_t n = strlen(enc[i]);
        while (n && enc[i][n - 1] == '=')
            n--;
        assert_int_equal(sp_base64_decode(enc[i], n, &d, &dl, &why), 0);
        assert_int_equal(dl, strlen(plain[i]));
        assert_memory_equal(d, plain[i], dl);
        free(d);
    }
}

static void base64_url_safe_and_strict(void **state)
{
    static const unsigned char raw[] = { 0xfb, 0xff, 0xbf };
    unsigned char *d = NULL;
    size_t dl = 0;
    const char *why = NULL;
    const char *forms[] = { "+/+/", "-_-_" };
    for (int i = 0; i < 2; i++) {
        assert_int_equal(sp_base64_decode(forms[i], 4, &d, &dl, &why), 0);
        assert_int_equal(dl, 3);
        assert_memory_equal(d, raw, 3);
        free(d);
    }
    assert_int_equal(sp_base64_decode("-_8", 3, &d, &dl, &why), 0);   /* 0xfb 0xff */
    assert_int_equal(dl, 2);
    free(d);
    static const struct { const char *s; const char *why; } bad[] = {
        { "+_+_", "mixes" },
        { "Zm9v Yg==", "not base64" },
        { "Zm9v\nYg==", "not base64" },
        { "Zg=", "padding" },
        { "Zg===", "padding" },
        { "Z", "padding" },
        { "Zg==Zg==", "not base64" },
        { "Zh==", "trailing bits" },
        { "Zm9=", "trailing bits" },
        { "Zm*v", "'*'" },
        { "=", "padding" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        why = NULL;
        if (sp_base64_decode(bad[i].s, strlen(bad[i].s), &d, &dl, &why) == 0)
            fail_msg("\"%s\" decoded", bad[i].s);
        if (strstr(why, bad[i].why) == NULL)
            fail_msg("\"%s\": reason \"%s\" lacks \"%s\"", bad[i].s, why, bad[i].why);
    }
}

static void pae_spec_example(void **state)
{
    /* DSSE protocol.md's example */
    unsigned char *p = NULL;
    size_t n = 0;
    assert_int_equal(dsse_pae("http://example.com/HelloWorld",
                              (const unsigned char *)"hello world", 11, &p, &n), 0);
    static const char want[] = "DSSEv1 29 http://example.com/HelloWorld 11 hello world";
    assert_int_equal(n, sizeof want - 1);
    assert_memory_equal(p, want, n);
    free(p);
    assert_int_equal(dsse_pae("t", NULL, 0, &p, &n), 0);
    assert_int_equal(n, 13);
    assert_memory_equal(p, "DSSEv1 1 t 0 ", 13);
    free(p);
}

/* ---- statement ------------------------------------------------------ */

static void statement_yaml_equals_json(void **state)
{
    size_t len = 0, jl = 0, s1l = 0, s2l = 0;
    char *yaml = slurp(FIX "/manifest.yaml", &len), *json = NULL, *s1 = NULL, *s2 = NULL;
    struct manifest m;
    struct sp_error e = { 0 };
    assert_int_equal(manifest_parse(yaml, len, "manifest.yaml", &m, &e), 0);
    assert_int_equal(manifest_render(&m, MANIFEST_JSON, &json, &jl, &e), 0);
    manifest_free(&m);
    assert_int_equal(sp_statement_build(yaml, len, "m", &s1, &s1l, &e), 0);
    assert_int_equal(sp_statement_build(json, jl, "m", &s2, &s2l, &e), 0);
    json_error_t je;
    json_t *a = json_loads(s1, 0, &je), *b = json_loads(s2, 0, &je);
    assert_non_null(a);
    assert_non_null(b);
    assert_true(json_equal(json_object_get(a, "predicate"), json_object_get(b, "predicate")));
    assert_string_equal(json_string_value(json_object_get(a, "_type")), SP_STATEMENT_TYPE);
    assert_string_equal(json_string_value(json_object_get(a, "predicateType")), SP_PREDICATE_TYPE);
    assert_int_equal(json_array_size(json_object_get(a, "subject")), 1);
    /* the predicate carries the manifest's facts */
    assert_string_equal(json_string_value(json_object_get(json_object_get(
        json_object_get(a, "predicate"), "facts"), "pip.torch")), "2.9.0");
    json_decref(a);
    json_decref(b);
    free(s1);
    free(s2);
    free(json);
    free(yaml);
}

static void statement_image_subject(void **state)
{
    size_t len = 0, sl = 0;
    char *man = slurp(FIX "/image.yaml", &len), *s = NULL;
    struct sp_error e = { 0 };
    assert_int_equal(sp_statement_build(man, len, "image.yaml", &s, &sl, &e), 0);
    json_error_t je;
    json_t *j = json_loads(s, 0, &je), *subj = json_object_get(j, "subject");
    assert_int_equal(json_array_size(subj), 2);
    json_t *img = json_array_get(subj, 1);
    assert_string_equal(json_string_value(json_object_get(img, "name")), "app.tar:latest");
    /* sha256 of the single byte "x", as `printf x | sha256sum` gives */
    assert_string_equal(json_string_value(json_object_get(json_object_get(img, "digest"), "sha256")),
                        "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881");
    json_decref(j);
    free(s);
    /* a malformed config digest is refused (the manifest rebuilt around
     * it, so its stack_id still matches its facts) */
    struct manifest m;
    char *bad = NULL;
    size_t blen = 0;
    assert_int_equal(manifest_parse(man, len, "image.yaml", &m, &e), 0);
    assert_int_equal(factset_set(&m.facts, "image.config_digest",
                                 "sha256:2d7X1642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881",
                                 NULL), 0);
    assert_int_equal(manifest_finish(&m), 0);
    assert_int_equal(manifest_render(&m, MANIFEST_YAML, &bad, &blen, &e), 0);
    manifest_free(&m);
    assert_int_equal(sp_statement_build(bad, blen, "image.yaml", &s, &sl, &e), -1);
    assert_non_null(strstr(e.msg, "image.config_digest"));
    free(bad);
    free(man);
}

/* ---- round trips ----------------------------------------------------- */

static void round_trip(EVP_PKEY *key)
{
    size_t len = 0, envlen = 0;
    char *man = slurp(FIX "/manifest.yaml", &len);
    char *env = sign_buf(man, len, "manifest.yaml", key, &envlen);
    EVP_PKEY *pub = public_of(key);
    struct sp_verified v;
    struct sp_error e = { 0 };
    assert_int_equal(sp_verify_manifest(env, envlen, "env", man, len, "m", pub, &v, &e), 0);
    assert_string_equal(v.subject_name, "manifest.yaml");
    assert_string_equal(v.predicate_type, SP_PREDICATE_TYPE);
    char kid[65], hex[65];
    assert_int_equal(sp_key_id(key, kid, &e), 0);
    assert_string_equal(v.keyid, kid);
    assert_int_equal(sp_sha256_hex(man, len, hex), 0);
    assert_string_equal(v.digest, hex);
    sp_verified_free(&v);
    EVP_PKEY_free(pub);
    free(env);
    free(man);
}

static void round_trip_both_types(void **state)
{
    for (int t = 0; t < 2; t++) {
        EVP_PKEY *k = NULL;
        struct sp_error e = { 0 };
        assert_int_equal(sp_keygen(t ? SP_KEY_ED25519 : SP_KEY_ECDSA_P256, &k, &e), 0);
        assert_string_equal(sp_key_type_name(k), t ? "ed25519" : "ecdsa-p256");
        round_trip(k);
        EVP_PKEY_free(k);
    }
    EVP_PKEY *fk = fixture_key(1);
    round_trip(fk);
    EVP_PKEY_free(fk);
}

static void golden_envelope(void **state)
{
    size_t len = 0, glen = 0, envlen = 0;
    char *man = slurp(FIX "/manifest.yaml", &len);
    char *golden = slurp(FIX "/manifest.yaml.intoto.json", &glen);
    EVP_PKEY *k = fixture_key(1);
    char *env = sign_buf(man, len, "manifest.yaml", k, &envlen);
    assert_int_equal(envlen, glen);
    assert_memory_equal(env, golden, glen);
    free(env);
    EVP_PKEY_free(k);
    free(golden);
    free(man);
}

/* ---- tampering -------------------------------------------------------- */

static void tamper_all_bytes(EVP_PKEY *key)
{
    size_t len = 0, envlen = 0, plen = 0, slen = 0;
    char *man = slurp(FIX "/manifest.yaml", &len), msg[SP_ERROR_MSG_MAX];
    char *env = sign_buf(man, len, "manifest.yaml", key, &envlen);
    EVP_PKEY *pub = public_of(key);
    const char *why = NULL;
    static const unsigned char flips[] = { 0x01, 0x80 };
    assert_int_equal(verify_rc(env, envlen, man, len, pub, msg), 0);

    /* every byte of the manifest */
    for (size_t i = 0; i < len; i++)
        for (size_t f = 0; f < sizeof flips; f++) {
            man[i] ^= flips[f];
            int rc = verify_rc(env, envlen, man, len, pub, msg);
            man[i] ^= flips[f];
            if (rc != SP_EXIT_VERIFY || strstr(msg, "subject check failed") == NULL)
                fail_msg("manifest byte %zu ^ 0x%02x: exit %d: %s", i, flips[f], rc, msg);
        }

    /* every byte of the decoded payload and signature, re-encoded */
    for (int sig = 0; sig < 2; sig++) {
        json_t *hold = NULL;
        const char *b64 = field(env, sig, sig ? "sig" : "payload", &hold);
        unsigned char *raw = NULL;
        assert_int_equal(sp_base64_decode(b64, strlen(b64), &raw, sig ? &slen : &plen, &why), 0);
        size_t n = sig ? slen : plen;
        for (size_t i = 0; i < n; i++)
            for (size_t f = 0; f < sizeof flips; f++) {
                char *enc = NULL;
                raw[i] ^= flips[f];
                assert_int_equal(sp_base64_encode(raw, n, &enc), 0);
                raw[i] ^= flips[f];
                char *bad = with_field(env, sig, sig ? "sig" : "payload", enc);
                int rc = verify_rc(bad, strlen(bad), man, len, pub, msg);
                if (rc != SP_EXIT_VERIFY || strstr(msg, "signature check failed") == NULL)
                    fail_msg("%s byte %zu ^ 0x%02x: exit %d: %s", sig ? "sig" : "payload",
                             i, flips[f], rc, msg);
                free(bad);
                free(enc);
            }
        free(raw);
        json_decref(hold);
    }

    /* every raw character of both base64 fields, in the envelope text */
    for (int sig = 0; sig < 2; sig++) {
        const char *tag = sig ? "\"sig\": \"" : "\"payload\": \"";
        char *start = strstr(env, tag);
        assert_non_null(start);
        start += strlen(tag);
        size_t n = (size_t)(strchr(start, '"') - start);
        for (size_t i = 0; i < n; i++) {
            start[i] ^= 0x01;
            int rc = verify_rc(env, envlen, man, len, pub, msg);
            start[i] ^= 0x01;
            if (rc != SP_EXIT_VERIFY)
                fail_msg("%s char %zu: exit %d: %s", sig ? "sig" : "payload", i, rc, msg);
        }
    }
    assert_int_equal(verify_rc(env, envlen, man, len, pub, msg), 0);
    EVP_PKEY_free(pub);
    free(env);
    free(man);
}

static void tamper_every_byte(void **state)
{
    EVP_PKEY *k = NULL;
    struct sp_error e = { 0 };
    assert_int_equal(sp_keygen(SP_KEY_ECDSA_P256, &k, &e), 0);
    tamper_all_bytes(k);
    EVP_PKEY_free(k);
    k = fixture_key(1);
    tamper_all_bytes(k);
    EVP_PKEY_free(k);
}

static void other_manifest_and_wrong_key(void **state)
{
    size_t len = 0, len2 = 0, envlen = 0;
    char *man = slurp(FIX "/manifest.yaml", &len), *man2 = slurp(FIX "/image.yaml", &len2);
    char msg[SP_ERROR_MSG_MAX];
    EVP_PKEY *k = fixture_key(1), *pub = fixture_key(0), *other = NULL;
    struct sp_error e = { 0 };
    char *env2 = sign_buf(man2, len2, "image.yaml", k, &envlen);
    /* a valid envelope, for another manifest */
    assert_int_equal(verify_rc(env2, envlen, man, len, pub, msg), SP_EXIT_VERIFY);
    assert_non_null(strstr(msg, "subject check failed"));
    assert_int_equal(verify_rc(env2, envlen, man2, len2, pub, msg), 0);
    /* the wrong public key, of either type */
    for (int t = 0; t < 2; t++) {
        assert_int_equal(sp_keygen(t ? SP_KEY_ED25519 : SP_KEY_ECDSA_P256, &other, &e), 0);
        assert_int_equal(verify_rc(env2, envlen, man2, len2, other, msg), SP_EXIT_VERIFY);
        assert_non_null(strstr(msg, "signature check failed"));
        assert_non_null(strstr(msg, "(1 tried)"));
        EVP_PKEY_free(other);
    }
    free(env2);
    EVP_PKEY_free(k);
    EVP_PKEY_free(pub);
    free(man);
    free(man2);
}

/* Sign STATEMENT (any JSON) as a payload and verify it against MAN. */
static int verify_statement(const char *statement, const char *man, size_t len,
                            EVP_PKEY *k, EVP_PKEY *pub, char *msg)
{
    char *env = NULL;
    size_t envlen = 0;
    struct sp_error e = { 0 };
    assert_int_equal(dsse_envelope_sign(DSSE_PAYLOAD_TYPE, (const unsigned char *)statement,
                                        strlen(statement), k, &env, &envlen, &e), 0);
    int rc = verify_rc(env, envlen, man, len, pub, msg);
    free(env);
    return rc;
}

/* The one-line messages verification gives, with the same signed fixture
 * manifest and keys for each group of cases. */
struct msg_fixture {
    size_t len, envlen;
    char *man, *env, hex[65];
    EVP_PKEY *k, *pub;
};

static void msg_fixture_open(struct msg_fixture *f)
{
    f->man = slurp(FIX "/manifest.yaml", &f->len);
    f->k = fixture_key(1);
    f->pub = fixture_key(0);
    f->env = sign_buf(f->man, f->len, "manifest.yaml", f->k, &f->envlen);
    assert_int_equal(sp_sha256_hex(f->man, f->len, f->hex), 0);
}

static void msg_fixture_close(struct msg_fixture *f)
{
    free(f->env);
    EVP_PKEY_free(f->k);
    EVP_PKEY_free(f->pub);
    free(f->man);
}

/* cmocka setup and teardown: *STATE is the struct msg_fixture. */
static int msg_setup(void **state)
{
    struct msg_fixture *f = calloc(1, sizeof *f);
    if (f == NULL)
        return -1;
    msg_fixture_open(f);
    *state = f;
    return 0;
}

static int msg_teardown(void **state)
{
    msg_fixture_close(*state);
    free(*state);
    return 0;
}

/* a field of a signed envelope changed */
static void clear_messages_fields(void **state)
{
    struct msg_fixture *f = *state;
    char msg[SP_ERROR_MSG_MAX];

    static const struct { int sig; const char *key, *value, *want; } cases[] = {
        { 0, "payloadType", "text/plain", "envelope check failed: unknown payloadType \"text/plain\"" },
        { 0, "payload", "not*base64", "envelope check failed: payload: character '*' at offset 3" },
        { 1, "sig", "AAAA%AAA", "envelope check failed: signatures[0].sig: character '%'" },
        { 1, "sig", "", "signature check failed" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *bad = with_field(f->env, cases[i].sig, cases[i].key, cases[i].value);
        assert_int_equal(verify_rc(bad, strlen(bad), f->man, f->len, f->pub, msg), SP_EXIT_VERIFY);
        if (strstr(msg, cases[i].want) == NULL)
            fail_msg("case %zu: \"%s\" lacks \"%s\"", i, msg, cases[i].want);
        free(bad);
    }

}

/* envelopes that are not DSSE */
static void clear_messages_raw(void **state)
{
    struct msg_fixture *f = *state;
    char msg[SP_ERROR_MSG_MAX];
    static const struct { const char *env, *want; } raw[] = {
        { "", "envelope check failed: not a JSON object" },
        { "[]", "envelope check failed: not a JSON object" },
        { "{\"payloadType\":\"application/vnd.in-toto+json\",\"payload\":\"e30=\",\"signatures\":[]}",
          "envelope check failed: no signatures" },
        { "{\"payloadType\":\"application/vnd.in-toto+json\",\"payload\":\"e30=\"}",
          "envelope check failed: signatures missing" },
        { "{\"payload\":\"e30=\",\"signatures\":[{\"sig\":\"AA==\"}]}",
          "envelope check failed: no payloadType" },
        { "{\"payloadType\":\"a\",\"payloadType\":\"b\"}", "envelope check failed" },
        { "{\"payloadType\":\"application/vnd.in-toto+json\",\"payload\":\"e30=\",\"signatures\":[{\"keyid\":7,\"sig\":\"AA==\"}]}",
          "keyid is not a string" },
        /* DSSE fields are JSON strings: a number, true or null is not read as text */
        { "{\"payloadType\":1,\"payload\":\"e30=\",\"signatures\":[{\"sig\":\"AA==\"}]}",
          "envelope check failed: no payloadType string" },
        { "{\"payloadType\":\"application/vnd.in-toto+json\",\"payload\":null,\"signatures\":[{\"sig\":\"AA==\"}]}",
          "envelope check failed: no payload string" },
        { "{\"payloadType\":\"application/vnd.in-toto+json\",\"payload\":\"e30=\",\"signatures\":[{\"sig\":true}]}",
          "envelope check failed: signatures[0] has no sig string" },
        { "{\"payloadType\":\"application/vnd.in-toto+json\",\"payload\":\"e30=\",\"signatures\":[{\"keyid\":null,\"sig\":\"AA==\"}]}",
          "keyid is not a string" },
    };
    for (size_t i = 0; i < sizeof raw / sizeof *raw; i++) {
        assert_int_equal(verify_rc(raw[i].env, strlen(raw[i].env), f->man, f->len, f->pub, msg),
                         SP_EXIT_VERIFY);
        if (strstr(msg, raw[i].want) == NULL)
            fail_msg("raw %zu: \"%s\" lacks \"%s\"", i, msg, raw[i].want);
    }

}

/* statements signed by the right key but wrong inside */
static void clear_messages_statements(void **state)
{
    struct msg_fixture *f = *state;
    char msg[SP_ERROR_MSG_MAX];
    /* statements signed by the right key but wrong inside */
    char stmt[2048];
    static const struct { const char *fmt, *want; } st[] = {
        { "{\"_type\":\"https://in-toto.io/Statement/v1\",\"subject\":[{\"name\":\"m\",\"digest\":{\"sha512\":\"%s\"}}],"
          "\"predicateType\":\"https://stackprint.dev/manifest/v1\",\"predicate\":{}}",
          "statement check failed: subject[0] has no sha256 digest" },
        { "{\"_type\":\"https://in-toto.io/Statement/v0.1\",\"subject\":[{\"name\":\"m\",\"digest\":{\"sha256\":\"%s\"}}],"
          "\"predicateType\":\"https://stackprint.dev/manifest/v1\",\"predicate\":{}}",
          "statement check failed: _type \"https://in-toto.io/Statement/v0.1\"" },
        { "{\"_type\":\"https://in-toto.io/Statement/v1\",\"subject\":[{\"name\":\"m\",\"digest\":{\"sha256\":\"%s\"}}],"
          "\"predicateType\":\"https://slsa.dev/provenance/v1\",\"predicate\":{}}",
          "statement check failed: predicateType" },
        { "{\"_type\":\"https://in-toto.io/Statement/v1\",\"subject\":[%.0s],"
          "\"predicateType\":\"https://stackprint.dev/manifest/v1\",\"predicate\":{}}",
          "statement check failed: subject list is empty" },
        { "{\"_type\":\"https://in-toto.io/Statement/v1\",\"subject\":[{\"name\":\"m\",\"digest\":{\"sha256\":\"%.63s\"}}],"
          "\"predicateType\":\"https://stackprint.dev/manifest/v1\",\"predicate\":{}}",
          "statement check failed: subject[0] sha256 is not 64 lowercase hex" },
        { "[\"%s\"]", "statement check failed: payload is not a JSON object" },
        { "{\"_type\":\"https://in-toto.io/Statement/v1\",\"subject\":[{\"name\":\"m\",\"digest\":{\"sha256\":\"%s\"}}],"
          "\"predicateType\":\"https://stackprint.dev/manifest/v1\",\"predicate\":[]}",
          "statement check failed: predicate is not a JSON object" },
        { "{\"_type\":\"https://in-toto.io/Statement/v1\",\"subject\":[{\"name\":7,\"digest\":{\"sha256\":\"%s\"}}],"
          "\"predicateType\":\"https://stackprint.dev/manifest/v1\",\"predicate\":{}}",
          "statement check failed: subject[0] has no name string" },
        { "{\"_type\":true,\"subject\":[{\"name\":\"m\",\"digest\":{\"sha256\":\"%s\"}}],"
          "\"predicateType\":\"https://stackprint.dev/manifest/v1\",\"predicate\":{}}",
          "statement check failed: no _type string" },
        /* the statement is right: only the subject check decides */
        { "{\"_type\":\"https://in-toto.io/Statement/v1\",\"subject\":[{\"name\":\"other\",\"digest\":{\"sha256\":\"%s\"}}],"
          "\"predicateType\":\"https://stackprint.dev/manifest/v1\",\"predicate\":{}}", "" },
    };
    for (size_t i = 0; i < sizeof st / sizeof *st; i++) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
        snprintf(stmt, sizeof stmt, st[i].fmt, f->hex);   /* each format takes one %s */
#pragma GCC diagnostic pop
        int rc = verify_statement(stmt, f->man, f->len, f->k, f->pub, msg);
        if (st[i].want[0] == '\0') {
            assert_int_equal(rc, 0);
            continue;
        }
        assert_int_equal(rc, SP_EXIT_VERIFY);
        if (strstr(msg, st[i].want) == NULL)
            fail_msg("statement %zu: \"%s\" lacks \"%s\"", i, msg, st[i].want);
    }

}

static void several_signatures(void **state)
{
    size_t len = 0, envlen = 0;
    char *man = slurp(FIX "/manifest.yaml", &len), msg[SP_ERROR_MSG_MAX];
    EVP_PKEY *k = fixture_key(1), *pub = fixture_key(0);
    char *env = sign_buf(man, len, "manifest.yaml", k, &envlen);
    json_error_t je;
    json_t *j = json_loads(env, 0, &je), *sigs = json_object_get(j, "signatures");
    json_t *good = json_deep_copy(json_array_get(sigs, 0));
    /* a bad signature first under another keyid, then the good one without keyid */
    json_t *bad = json_pack("{s:s, s:s}", "keyid", "someone-else", "sig",
                            "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==");
    json_object_del(good, "keyid");
    json_array_clear(sigs);
    json_array_append_new(sigs, bad);
    json_array_append_new(sigs, good);
    char *s = json_dumps(j, 0);
    assert_int_equal(verify_rc(s, strlen(s), man, len, pub, msg), 0);
    free(s);
    /* a forged signature under our own keyid does not hide the good one
     * (DSSE multi-signature verification: a failing signature is skipped) */
    char kid[65];
    struct sp_error e = { 0 };
    assert_int_equal(sp_key_id(pub, kid, &e), 0);
    json_object_set_new(bad, "keyid", json_string(kid));
    s = json_dumps(j, 0);
    assert_int_equal(verify_rc(s, strlen(s), man, len, pub, msg), 0);
    free(s);
    /* ... nor does a good signature carrying some other signer's keyid fail */
    json_object_set_new(good, "keyid", json_string("SHA256:another-scheme"));
    s = json_dumps(j, 0);
    assert_int_equal(verify_rc(s, strlen(s), man, len, pub, msg), 0);
    free(s);
    /* two bad signatures: both tried, both skipped, no verification */
    json_array_remove(sigs, 1);
    json_array_append_new(sigs, json_pack("{s:s}", "sig", "AAAA"));
    s = json_dumps(j, 0);
    assert_int_equal(verify_rc(s, strlen(s), man, len, pub, msg), SP_EXIT_VERIFY);
    assert_non_null(strstr(msg, "(2 tried)"));
    free(s);
    json_decref(j);
    free(env);
    EVP_PKEY_free(k);
    EVP_PKEY_free(pub);
    free(man);
}

/* ---- bounds ------------------------------------------------------------ */

static void bound_signatures(void **state)
{
    struct msg_fixture *f = *state;
    char msg[SP_ERROR_MSG_MAX];
    json_error_t je;

    /* DSSE_SIGNATURES_MAX signatures pass (the good one last), one more fails */
    for (int extra = 0; extra < 2; extra++) {
        json_t *j = json_loads(f->env, 0, &je), *sigs = json_object_get(j, "signatures");
        json_t *good = json_deep_copy(json_array_get(sigs, 0));
        json_array_clear(sigs);
        for (int i = 0; i < DSSE_SIGNATURES_MAX - 1 + extra; i++)
            json_array_append_new(sigs, json_pack("{s:s}", "sig", "AAAA"));
        json_array_append_new(sigs, good);
        char *s = json_dumps(j, 0);
        int rc = verify_rc(s, strlen(s), f->man, f->len, f->pub, msg);
        if (extra) {
            assert_int_equal(rc, SP_EXIT_VERIFY);
            assert_non_null(strstr(msg, "more than 64 signatures"));
        } else {
            assert_int_equal(rc, 0);
        }
        free(s);
        json_decref(j);
    }

}

static void bound_sig_and_keyid(void **state)
{
    struct msg_fixture *f = *state;
    char msg[SP_ERROR_MSG_MAX];

    /* a sig of SP_SIG_MAX_BYTES bytes is read (and does not verify), one
     * byte more (or much more) is refused; a keyid of DSSE_KEYID_MAX + 1 */
    unsigned char big[SP_SIG_MAX_BYTES + 3];
    memset(big, 0x41, sizeof big);
    char *b64 = NULL, *bad = NULL;
    static const size_t sizes[] = { SP_SIG_MAX_BYTES, SP_SIG_MAX_BYTES + 1, SP_SIG_MAX_BYTES + 3 };
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(sp_base64_encode(big, sizes[i], &b64), 0);
        bad = with_field(f->env, 1, "sig", b64);
        assert_int_equal(verify_rc(bad, strlen(bad), f->man, f->len, f->pub, msg), SP_EXIT_VERIFY);
        assert_non_null(strstr(msg, i == 0 ? "signature check failed" : "sig longer than 512 bytes"));
        free(bad);
        free(b64);
    }
    char kid[DSSE_KEYID_MAX + 2];
    memset(kid, 'a', sizeof kid - 1);
    kid[sizeof kid - 1] = '\0';
    bad = with_field(f->env, 1, "keyid", kid);
    assert_int_equal(verify_rc(bad, strlen(bad), f->man, f->len, f->pub, msg), SP_EXIT_VERIFY);
    assert_non_null(strstr(msg, "keyid is not a string of at most"));
    free(bad);
    kid[DSSE_KEYID_MAX] = '\0';                        /* exactly the bound: fine */
    bad = with_field(f->env, 1, "keyid", kid);
    assert_int_equal(verify_rc(bad, strlen(bad), f->man, f->len, f->pub, msg), 0);
    free(bad);

}

static void bound_subjects(void **state)
{
    struct msg_fixture *f = *state;
    char msg[SP_ERROR_MSG_MAX];

    /* SP_STATEMENT_SUBJECTS_MAX subjects pass, one more fails; a long name fails */
    for (int extra = 0; extra < 3; extra++) {
        json_t *subj = json_array();
        int n = extra == 1 ? SP_STATEMENT_SUBJECTS_MAX + 1 : extra == 2 ? 1 : SP_STATEMENT_SUBJECTS_MAX;
        char *name = calloc(1, SP_SUBJECT_NAME_MAX + 2);
        memset(name, 'n', extra == 2 ? SP_SUBJECT_NAME_MAX + 1 : 4);
        for (int i = 0; i < n; i++)
            json_array_append_new(subj, json_pack("{s:s, s:{s:s}}", "name", name, "digest", "sha256", f->hex));
        json_t *st = json_pack("{s:s, s:o, s:s, s:{}}", "_type", SP_STATEMENT_TYPE, "subject", subj,
                               "predicateType", SP_PREDICATE_TYPE, "predicate");
        char *s = json_dumps(st, JSON_COMPACT);
        int rc = verify_statement(s, f->man, f->len, f->k, f->pub, msg);
        if (extra == 0) {
            assert_int_equal(rc, 0);
        } else {
            assert_int_equal(rc, SP_EXIT_VERIFY);
            assert_non_null(strstr(msg, extra == 1 ? "more than 1024 subjects" : "name longer than"));
        }
        free(s);
        free(name);
        json_decref(st);
    }

}


static void bound_files(void **state)
{
    const char *tmp = getenv("TMPDIR");
    char path[512];
    struct sp_error e = { 0 };
    char *buf = NULL;
    size_t len = 0;
    EVP_PKEY *k = NULL;
    snprintf(path, sizeof path, "%s/big.key", tmp && *tmp ? tmp : "/tmp");

    /* a key file of SP_KEY_MAX_BYTES + 1 bytes (sparse) */
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, SP_KEY_MAX_BYTES + 1), 0);
    close(fd);
    assert_int_equal(sp_key_load_private(path, &k, &e), -1);
    assert_non_null(strstr(e.msg, "larger than the key size limit"));
    /* exactly the bound is read (and is not a key) */
    assert_int_equal(truncate(path, SP_KEY_MAX_BYTES), 0);
    assert_int_equal(sp_key_load_private(path, &k, &e), -1);
    assert_null(strstr(e.msg, "size limit"));
    /* an envelope of SP_ENVELOPE_MAX_BYTES + 1 */
    assert_int_equal(truncate(path, (off_t)SP_ENVELOPE_MAX_BYTES + 1), 0);
    assert_int_equal(sp_read_file(path, SP_ENVELOPE_MAX_BYTES, "envelope", &buf, &len, &e), -1);
    assert_non_null(strstr(e.msg, "larger than the envelope size limit"));
    unlink(path);
    /* a FIFO is refused without blocking */
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_int_equal(sp_read_file(path, 100, "manifest", &buf, &len, &e), -1);
    assert_non_null(strstr(e.msg, "not a regular file"));
    unlink(path);
}

/* ---- keys ---------------------------------------------------------------- */

static void key_loading_errors(void **state)
{
    EVP_PKEY *k = NULL;
    struct sp_error e = { 0 };
    assert_int_equal(sp_key_load_private(FIX "/ed25519.pub", &k, &e), -1);
    assert_non_null(strstr(e.msg, "is a public key"));
    assert_int_equal(sp_key_load_public(FIX "/ed25519.key", &k, &e), -1);
    assert_non_null(strstr(e.msg, "is a private key"));
    assert_int_equal(sp_key_load_public(FIX "/manifest.yaml", &k, &e), -1);
    assert_non_null(strstr(e.msg, "no public key found"));
    assert_int_equal(sp_key_load_public(FIX "/no-such.pub", &k, &e), -1);
    assert_non_null(strstr(e.msg, "No such file"));
    /* P-384 is EC but not P-256: refused */
    EVP_PKEY *p384 = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-384");
    assert_non_null(p384);
    assert_null(sp_key_type_name(p384));
    EVP_PKEY_free(p384);
    /* the key id is the sha256 of the SPKI DER: the golden envelope's keyid
     * came from `openssl pkey -pubin -outform DER | sha256sum` (sign_openssl.sh) */
    k = fixture_key(0);
    char kid[65];
    assert_int_equal(sp_key_id(k, kid, &e), 0);
    assert_string_equal(kid, "8d59da8ded8b4dd25440697100eda668e6f11073188e83f2dab6cbef71dac54f");
    EVP_PKEY_free(k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(base64_rfc4648_vectors),
        cmocka_unit_test(base64_url_safe_and_strict),
        cmocka_unit_test(pae_spec_example),
        cmocka_unit_test(statement_yaml_equals_json),
        cmocka_unit_test(statement_image_subject),
        cmocka_unit_test(round_trip_both_types),
        cmocka_unit_test(golden_envelope),
        cmocka_unit_test(tamper_every_byte),
        cmocka_unit_test(other_manifest_and_wrong_key),
        cmocka_unit_test_setup_teardown(clear_messages_fields, msg_setup, msg_teardown),
        cmocka_unit_test_setup_teardown(clear_messages_raw, msg_setup, msg_teardown),
        cmocka_unit_test_setup_teardown(clear_messages_statements, msg_setup, msg_teardown),
        cmocka_unit_test(several_signatures),
        cmocka_unit_test_setup_teardown(bound_signatures, msg_setup, msg_teardown),
        cmocka_unit_test_setup_teardown(bound_sig_and_keyid, msg_setup, msg_teardown),
        cmocka_unit_test_setup_teardown(bound_subjects, msg_setup, msg_teardown),
        cmocka_unit_test(bound_files),
        cmocka_unit_test(key_loading_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
