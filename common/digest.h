/* common/digest.h: SHA-256 digests as text, and the one check of their
 * shape, so that every reader and writer of a digest agrees on its size.
 *
 * Two spellings are used (both lowercase hex, as the OCI image spec's
 * "Digests" section and the in-toto Statement v1 DigestSet require):
 *   hex     64 hex digits, e.g. a DSSE subject's digest.sha256;
 *   digest  "sha256:" and 64 hex digits (OCI image spec, descriptor.md,
 *           "Digests"), e.g. a manifest's stack_id or image.config_digest.
 * OUT buffers are sized by the constants below (the NUL included with +1).
 * Hashing goes through OpenSSL's EVP interface (FIPS 180-4 SHA-256).
 * Never prints, never exits, allocates nothing.
 */
#ifndef SP_DIGEST_H
#define SP_DIGEST_H

#include <stddef.h>

#define SP_SHA256_BYTES 32                /* a SHA-256 value */
#define SP_SHA256_HEX_LEN 64              /* its lowercase hex */
#define SP_DIGEST_PREFIX "sha256:"
#define SP_DIGEST_PREFIX_LEN 7
#define SP_DIGEST_LEN (SP_DIGEST_PREFIX_LEN + SP_SHA256_HEX_LEN)   /* 71 */

/* sp_sha256_hex: the lowercase hex SHA-256 of the LEN bytes at P into OUT
 * (SP_SHA256_HEX_LEN + 1 bytes, NUL-ended).  0, or -1 when OpenSSL fails
 * (OUT then unspecified). */
int sp_sha256_hex(const void *p, size_t len, char out[SP_SHA256_HEX_LEN + 1]);

/* sp_sha256_digest: as sp_sha256_hex, but "sha256:<hex>" into OUT
 * (SP_DIGEST_LEN + 1 bytes).  0, or -1 when OpenSSL fails. */
int sp_sha256_digest(const void *p, size_t len, char out[SP_DIGEST_LEN + 1]);

/* sp_digest_format: the finished SHA-256 value MD (SP_SHA256_BYTES bytes,
 * e.g. from EVP_DigestFinal_ex) as "sha256:<hex>" into OUT (SP_DIGEST_LEN
 * + 1 bytes).  Cannot fail. */
void sp_digest_format(const unsigned char md[SP_SHA256_BYTES],
                      char out[SP_DIGEST_LEN + 1]);

/* sp_sha256_hex_valid: 1 when S is exactly SP_SHA256_HEX_LEN lowercase hex
 * digits and nothing else, else 0 (also for NULL). */
int sp_sha256_hex_valid(const char *s);

/* sp_digest_valid: 1 when S is "sha256:" and exactly SP_SHA256_HEX_LEN
 * lowercase hex digits, else 0 (also for NULL). */
int sp_digest_valid(const char *s);

#endif
