/* manifest/dsse.h: signed manifests as DSSE envelopes holding an in-toto
 * Statement v1 (stackprint-sign(1), stackprint-verify(1)).
 *
 * Specs followed:
 *   DSSE v1.0 envelope and protocol (github.com/secure-systems-lab/dsse,
 *     envelope.md and protocol.md): PAE(type, body) =
 *     "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body, LEN in ASCII
 *     decimal without leading zeros; payload and sig in base64, standard or
 *     URL-safe alphabet (RFC 4648 sections 4 and 5), padded or not.
 *   in-toto Attestation Framework, Statement v1 (github.com/in-toto/
 *     attestation, spec/v1/statement.md): _type, subject[{name, digest}],
 *     predicateType, predicate; digests in lowercase hex.
 *
 * What is signed: the payload is the Statement as compact JSON, keys in the
 * fixed order _type, subject, predicateType, predicate; the subject is the
 * manifest file (its base name and the sha256 of its exact bytes) and, when
 * the manifest has the fact image.config_digest, the image (name from
 * image.ref, else "image"; digest the config's sha256); the predicate is the
 * manifest's content as JSON (what manifest_render(MANIFEST_JSON) writes),
 * so a YAML and a JSON manifest with the same content give the same
 * predicate.  The envelope is JSON indented by two spaces, keys in the order
 * payloadType, payload, signatures[{keyid, sig}], one trailing newline, the
 * base64 standard and padded: the same key and manifest give the same bytes
 * with Ed25519 (ECDSA signatures are randomised).
 *
 * Memory: every char ** result is malloc'd and the caller's to free.
 * Library code: never prints, never exits; errors fill struct sp_error with
 * SP_EXIT_INPUT (unreadable or malformed input) or SP_EXIT_VERIFY.
 */
#ifndef SP_DSSE_H
#define SP_DSSE_H

#include <stddef.h>

#include <jansson.h>
#include <openssl/evp.h>

#include "common/digest.h"
#include "common/error.h"
#include "manifest/keys.h"
#include "manifest/node.h"

#define DSSE_PAYLOAD_TYPE "application/vnd.in-toto+json"
#define SP_STATEMENT_TYPE "https://in-toto.io/Statement/v1"
/* Our predicate type; stable, never to change for this predicate shape. */
#define SP_PREDICATE_TYPE "https://stackprint.dev/manifest/v1"

#define SP_ENVELOPE_MAX_BYTES (128u << 20)  /* envelope file read at most */
#define DSSE_SIGNATURES_MAX 64              /* signatures in one envelope */
#define DSSE_KEYID_MAX 256                  /* bytes in a keyid string */
#define SP_STATEMENT_SUBJECTS_MAX 1024      /* subjects in one statement */
#define SP_SUBJECT_NAME_MAX 4096            /* bytes in a subject name */

/* sp_base64_encode: RFC 4648 section 4 base64 with padding of LEN bytes at
 * P, malloc'd and NUL-terminated into *OUT.  Returns 0 or -1 (ENOMEM). */
int sp_base64_encode(const unsigned char *p, size_t len, char **out);

/* sp_base64_decode: decode the SLEN characters at S, standard (RFC 4648
 * section 4) or URL-safe (section 5) alphabet, with or without padding,
 * into a malloc'd buffer *OUT of *OUTLEN bytes (NUL-terminated).  Strict:
 * one alphabet per string, no whitespace, padding only at the end and
 * complete, unused trailing bits zero (so each byte string has exactly one
 * encoding per alphabet and padding choice).  Returns 0, or -1 with a
 * reason in *WHY (static, per thread; "character 'x' at offset N is not base64", ...). */
int sp_base64_decode(const char *s, size_t slen, unsigned char **out,
                     size_t *outlen, const char **why);

/* dsse_pae: the DSSE pre-authentication encoding of TYPE and the LEN bytes
 * at BODY, malloc'd into *OUT (*OUTLEN bytes).  Returns 0 or -1 (ENOMEM). */
int dsse_pae(const char *type, const unsigned char *body, size_t len,
             unsigned char **out, size_t *outlen);

/* sp_statement_build: the in-toto Statement (compact JSON, see above) for
 * the manifest whose exact bytes are BUF (LEN); NAME is the subject name
 * (the manifest file's base name) and also names BUF in messages.  The
 * manifest is parsed with manifest_parse().  Returns 0 with *OUT and *OUTLEN
 * set, or -1 with E set (SP_EXIT_INPUT: a malformed manifest, a malformed
 * image.config_digest). */
int sp_statement_build(const char *buf, size_t len, const char *name,
                       char **out, size_t *outlen, struct sp_error *e);

/* sp_predicate_fn: the predicate of a statement about the manifest M, as
 * JSON text (one object) malloc'd into *OUT (*LEN bytes, the caller's).
 * Returns 0, or -1 with E set. */
struct manifest;
typedef int sp_predicate_fn(const struct manifest *m, char **out, size_t *len,
                            struct sp_error *e);

/* sp_manifest_statement: sp_statement_build with another predicate: the
 * Statement about the manifest whose exact bytes are BUF (LEN), with the
 * same subjects (the manifest file, then the image config when there is
 * one), predicateType PREDICATE_TYPE and as predicate the JSON object
 * PREDICATE writes for the parsed manifest (the CycloneDX BOM,
 * export/bom_statement.h), key order kept.  Errors as sp_statement_build,
 * plus those of PREDICATE. */
int sp_manifest_statement(const char *buf, size_t len, const char *name,
                          const char *predicate_type, sp_predicate_fn *predicate,
                          char **out, size_t *outlen, struct sp_error *e);

/* sp_subject_json: a Statement subject (an in-toto ResourceDescriptor)
 * {"name": NAME, "digest": {"sha256": HEX}}, a new reference the caller
 * owns (json_decref), or NULL when out of memory. */
json_t *sp_subject_json(const char *name, const char *hex);

/* sp_statement_json: an in-toto Statement v1 as compact JSON, keys in the
 * order _type (SP_STATEMENT_TYPE), subject (SUBJECTS, a JSON array),
 * predicateType (PREDICATE_TYPE), predicate (PREDICATE, a JSON object);
 * SUBJECTS and PREDICATE are borrowed, their key order kept.  The one
 * serialiser of every statement stackprint signs.  Returns 0 with *OUT
 * (malloc'd, NUL-terminated, the caller's) and *OUTLEN set, or -1 (out of
 * memory). */
int sp_statement_json(json_t *subjects, const char *predicate_type, json_t *predicate,
                      char **out, size_t *outlen);

/* dsse_envelope_sign: sign PAYLOAD (LEN bytes) of PAYLOAD_TYPE with KEY
 * (see keys.h) into an envelope (JSON, see above) with one signature whose
 * keyid is sp_key_id(KEY).  Returns 0 with *OUT and *OUTLEN set, or -1 with E
 * set (SP_EXIT_INPUT). */
int dsse_envelope_sign(const char *payload_type, const unsigned char *payload,
                       size_t len, EVP_PKEY *key, char **out, size_t *outlen,
                       struct sp_error *e);

/* sp_sign_manifest: sp_statement_build + dsse_envelope_sign with
 * DSSE_PAYLOAD_TYPE.  Errors as those two. */
int sp_sign_manifest(const char *buf, size_t len, const char *name, EVP_PKEY *key,
                     char **out, size_t *outlen, struct sp_error *e);

/* What sp_verify_manifest established. */
struct sp_verified {
    char keyid[SP_KEYID_HEX_LEN + 1];  /* key id of the PUB that verified */
    char digest[SP_SHA256_HEX_LEN + 1]; /* sha256 hex of the manifest's bytes */
    char *subject_name;                /* the matching subject's name (malloc'd) */
    const char *predicate_type;        /* SP_PREDICATE_TYPE, or what was asked of
                                        * sp_verify_statement */
    size_t signature_index;            /* which of the envelope's signatures */
    struct sp_node *statement;         /* the verified statement (owned; freed
                                        * by sp_verified_free) */
};

void sp_verified_free(struct sp_verified *v);

/* sp_verify_manifest: check the envelope ENV (ENVLEN bytes; ENV_NAME in
 * messages) against the manifest bytes MAN (MANLEN; MAN_NAME in messages)
 * under the public key PUB, in this order, stopping at the first failure:
 *   envelope:  ENV is a JSON object with payloadType DSSE_PAYLOAD_TYPE, a
 *              base64 payload, and 1..DSSE_SIGNATURES_MAX signatures, each
 *              with a base64 sig (at most SP_SIG_MAX_BYTES) and an optional
 *              keyid string;
 *   signature: some signature verifies over PAE(payloadType, payload) under
 *              PUB (only PUB: never a key named in the envelope).  As the
 *              DSSE protocol's multi-signature verification says, a keyid is
 *              an unauthenticated hint: every signature is tried (those whose
 *              keyid equals PUB's key id first, then those with an empty or
 *              absent keyid, then the rest), one that fails is skipped, and
 *              the envelope verifies when any one does.  ECDSA signatures
 *              with a high S (other signers do not normalise) verify;
 *              stackprint's own are low-S (sp_key_sign);
 *   statement: the payload is a JSON object with _type SP_STATEMENT_TYPE,
 *              predicateType SP_PREDICATE_TYPE, an object predicate, and
 *              1..SP_STATEMENT_SUBJECTS_MAX subjects, each with a string
 *              name and a digest holding a 64-hex sha256;
 *   subject:   the first subject, the manifest's own (sp_statement_build
 *              writes it first), has the sha256 of MAN.  A later subject
 *              (the image config the manifest describes) never stands for
 *              the manifest: MAN with its digest is refused, naming it.
 * The subject is matched by digest, not by name (a renamed file verifies).
 * Returns 0 with *OUT filled (free with sp_verified_free), or -1 with E
 * set: SP_EXIT_VERIFY and "ENV_NAME: <check> check failed: <what>". */
int sp_verify_manifest(const char *env, size_t envlen, const char *env_name,
                       const char *man, size_t manlen, const char *man_name,
                       EVP_PKEY *pub, struct sp_verified *out, struct sp_error *e);

/* sp_verify_statement: sp_verify_manifest for any predicate: the same
 * checks in the same order, with the statement's predicateType required to
 * be PREDICATE_TYPE (a string that outlives *OUT; out->predicate_type
 * points to it) and MAN any file whose exact bytes a subject names (a
 * test report for the test-result predicate, stackprint-attest(1)).  On
 * success out->statement holds the parsed statement.  Errors as
 * sp_verify_manifest. */
int sp_verify_statement(const char *env, size_t envlen, const char *env_name,
                        const char *man, size_t manlen, const char *man_name,
                        const char *predicate_type, EVP_PKEY *pub,
                        struct sp_verified *out, struct sp_error *e);

#endif
