/* tests/unit/test_common.c: the ground floor in common/ that every layer
 * uses: digests (common/digest.h) against the FIPS 180-4 / NIST example
 * values, and the one shape check of "sha256:<hex>". */
#include "tests/unit/testlib.h"

#include "common/digest.h"

/* SHA-256 of "" and of "abc": the NIST CSRC example values (FIPS 180-4). */
#define SHA_EMPTY "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
#define SHA_ABC   "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"

static void digest_known_values(void **state)
{
    (void)state;
    char hex[SP_SHA256_HEX_LEN + 1], dg[SP_DIGEST_LEN + 1];
    assert_int_equal(sp_sha256_hex("", 0, hex), 0);
    assert_string_equal(hex, SHA_EMPTY);
    assert_int_equal(sp_sha256_hex("abc", 3, hex), 0);
    assert_string_equal(hex, SHA_ABC);
    assert_int_equal(sp_sha256_digest("abc", 3, dg), 0);
    assert_string_equal(dg, "sha256:" SHA_ABC);
    assert_int_equal(strlen(dg), SP_DIGEST_LEN);

    unsigned char md[SP_SHA256_BYTES];
    for (size_t i = 0; i < sizeof md; i++)
        md[i] = (unsigned char)(i * 8 + 1);
    sp_digest_format(md, dg);
    assert_string_equal(dg, "sha256:0109111921293139414951596169717981899199a1a9b1b9c1c9d1d9e1e9f1f9");
}

static void digest_shapes(void **state)
{
    (void)state;
    assert_true(sp_sha256_hex_valid(SHA_ABC));
    assert_true(sp_digest_valid("sha256:" SHA_ABC));
    assert_false(sp_sha256_hex_valid(NULL));
    assert_false(sp_digest_valid(NULL));
    assert_false(sp_sha256_hex_valid(""));
    assert_false(sp_sha256_hex_valid(SHA_ABC "0"));                 /* 65 digits */
    assert_false(sp_sha256_hex_valid(SHA_ABC + 1));                  /* 63 digits */
    assert_false(sp_sha256_hex_valid("BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD"));
    assert_false(sp_sha256_hex_valid("g" SHA_ABC + 2));              /* 'g' + 63 digits */
    assert_false(sp_digest_valid(SHA_ABC));                          /* no prefix */
    assert_false(sp_digest_valid("sha512:" SHA_ABC));
    assert_false(sp_digest_valid("SHA256:" SHA_ABC));
    assert_false(sp_digest_valid("sha256:" SHA_ABC " "));
    assert_false(sp_digest_valid("sha256:"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(digest_known_values),
        cmocka_unit_test(digest_shapes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
