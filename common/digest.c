/* common/digest.c: SHA-256 digests as text; see digest.h. */
#include "common/digest.h"

#include <string.h>

#include <openssl/evp.h>

static void hex_of(const unsigned char *md, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < SP_SHA256_BYTES; i++) {
        out[2 * i] = digits[md[i] >> 4];
        out[2 * i + 1] = digits[md[i] & 0x0f];
    }
    out[SP_SHA256_HEX_LEN] = '\0';
}

int sp_sha256_hex(const void *p, size_t len, char out[SP_SHA256_HEX_LEN + 1])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    if (EVP_Digest(p, len, md, &mdlen, EVP_sha256(), NULL) != 1 || mdlen != SP_SHA256_BYTES)
        return -1;
    hex_of(md, out);
    return 0;
}

int sp_sha256_digest(const void *p, size_t len, char out[SP_DIGEST_LEN + 1])
{
    memcpy(out, SP_DIGEST_PREFIX, SP_DIGEST_PREFIX_LEN);
    return sp_sha256_hex(p, len, out + SP_DIGEST_PREFIX_LEN);
}

void sp_digest_format(const unsigned char md[SP_SHA256_BYTES], char out[SP_DIGEST_LEN + 1])
{
    memcpy(out, SP_DIGEST_PREFIX, SP_DIGEST_PREFIX_LEN);
    hex_of(md, out + SP_DIGEST_PREFIX_LEN);
}

int sp_sha256_hex_valid(const char *s)
{
    if (s == NULL)
        return 0;
    size_t n = strspn(s, "0123456789abcdef");
    return n == SP_SHA256_HEX_LEN && s[n] == '\0';
}

int sp_digest_valid(const char *s)
{
    return s != NULL && strncmp(s, SP_DIGEST_PREFIX, SP_DIGEST_PREFIX_LEN) == 0 &&
           sp_sha256_hex_valid(s + SP_DIGEST_PREFIX_LEN);
}
