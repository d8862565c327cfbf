/* manifest/keys.h: signing keys for DSSE envelopes (stackprint-keygen(1)):
 * making a key pair, loading private and public keys through OpenSSL 3's
 * store API, the key id, and the raw sign/verify operations.
 *
 * Supported keys: ECDSA on NIST P-256 with SHA-256 (signatures DER-encoded
 * ECDSA-Sig-Value, RFC 5480/SEC 1, what cosign produces) and Ed25519 (RFC
 * 8032 PureEdDSA, raw 64-byte signatures).  Anything else is refused.
 *
 * Key files are PEM: PKCS#8 "PRIVATE KEY" and SPKI "PUBLIC KEY" (RFC 5958,
 * RFC 5280).  A key argument is either a file path or, when no such file
 * exists and it begins with a URI scheme ("pkcs11:", "file:"), a URI handed
 * to OSSL_STORE_open(), so keys held by a provider work where one is
 * installed.  Encrypted private keys are refused (no passphrase prompt).
 *
 * Secrets: private key bytes read from a file are wiped with
 * OPENSSL_cleanse() before their buffer is freed; EVP_PKEY_free() clears
 * the key itself.  PEM text of a private key is returned in a buffer the
 * caller must release with sp_secret_free().
 *
 * This file never prints and never exits; errors fill struct sp_error.
 */
#ifndef SP_KEYS_H
#define SP_KEYS_H

#include <stddef.h>

#include <openssl/evp.h>

#include "common/error.h"

#define SP_KEY_MAX_BYTES (64u * 1024)   /* largest key file read */
#define SP_KEYID_HEX_LEN 64             /* hex SHA-256 */
#define SP_SIG_MAX_BYTES 512            /* largest signature taken or made */

enum sp_key_type { SP_KEY_ECDSA_P256, SP_KEY_ED25519 };

/* sp_key_type_parse: "ecdsa-p256" or "ed25519" into *T; 0, or -1 if NAME
 * is neither. */
int sp_key_type_parse(const char *name, enum sp_key_type *t);

/* sp_key_type_name: "ecdsa-p256" or "ed25519" for KEY, NULL for any other
 * kind of key (RSA, another curve...). */
const char *sp_key_type_name(const EVP_PKEY *key);

/* sp_keygen: a new key pair of type T into *OUT (caller frees with
 * EVP_PKEY_free).  Returns 0, or -1 with E set (SP_EXIT_INPUT). */
int sp_keygen(enum sp_key_type t, EVP_PKEY **out, struct sp_error *e);

/* sp_key_pem: the key as PEM text.  PRIVATE_PEM (if not NULL) gets the
 * unencrypted PKCS#8 private key (caller releases with sp_secret_free, which
 * wipes it); PUBLIC_PEM (if not NULL) gets the SPKI public key (caller
 * frees with free).  Lengths in bytes, buffers NUL-terminated.  Returns 0,
 * or -1 with E set (SP_EXIT_INPUT). */
int sp_key_pem(EVP_PKEY *key, char **private_pem, size_t *private_len,
               char **public_pem, size_t *public_len, struct sp_error *e);

/* sp_secret_free: wipe LEN bytes at P with OPENSSL_cleanse, then free P.
 * P may be NULL. */
void sp_secret_free(void *p, size_t len);

/* sp_key_load_private / sp_key_load_public: load the key named by ARG (a
 * path or a store URI; see above) into *OUT (caller frees with
 * EVP_PKEY_free).  The key must be of a supported type.  Errors (-1, E set
 * to SP_EXIT_INPUT, message "ARG: what"): unreadable file, larger than
 * SP_KEY_MAX_BYTES, not a regular file, no key found, more than one key,
 * a public key where a private one is needed or the reverse, an encrypted
 * key, an unsupported key type. */
int sp_key_load_private(const char *arg, EVP_PKEY **out, struct sp_error *e);
int sp_key_load_public(const char *arg, EVP_PKEY **out, struct sp_error *e);

/* sp_key_id: the DSSE key id of KEY: lowercase hex SHA-256 of the DER
 * SubjectPublicKeyInfo of its public half, into OUT (65 bytes, NUL-ended).
 * Returns 0, or -1 with E set. */
int sp_key_id(EVP_PKEY *key, char out[SP_KEYID_HEX_LEN + 1], struct sp_error *e);

/* sp_key_sign: sign the LEN bytes at MSG with KEY: ECDSA P-256 over
 * SHA-256(MSG) giving a DER signature in its low-S form (s <= n/2: one
 * signature, one encoding), or Ed25519 over MSG giving 64 raw bytes.  The signature goes into SIG (at least SP_SIG_MAX_BYTES), its
 * length into *SIGLEN.  Returns 0, or -1 with E set (SP_EXIT_INPUT). */
int sp_key_sign(EVP_PKEY *key, const unsigned char *msg, size_t len,
                unsigned char *sig, size_t *siglen, struct sp_error *e);

/* sp_key_verify: 1 when SIG (SIGLEN bytes) is a valid signature of MSG
 * under KEY, as sp_key_sign makes them (for ECDSA, strict DER only; a
 * high-S signature from another signer is accepted too), 0
 * when it is not (including malformed signatures).  Never fails otherwise;
 * the OpenSSL error queue is cleared. */
int sp_key_verify(EVP_PKEY *key, const unsigned char *msg, size_t len,
                  const unsigned char *sig, size_t siglen);

#endif
