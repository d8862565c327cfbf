/* export/bom_statement.h: the CycloneDX bill of materials of a manifest as
 * the predicate of a signed in-toto Statement (stackprint-sign(1)
 * --predicate cyclonedx, stackprint-verify(1)), so that tooling that looks
 * for SBOM attestations finds it.
 *
 * Specs followed:
 *   in-toto Attestation Framework, Statement v1 (github.com/in-toto/
 *     attestation, spec/v1/statement.md), serialised by sp_statement_json
 *     (manifest/dsse.h) through sp_manifest_statement, whose subjects are
 *     the manifest file and, for an image, the image config, exactly as in the
 *     envelope of the manifest predicate;
 *   the in-toto vetted predicate for CycloneDX documents, type URI
 *     "https://cyclonedx.org/bom" (github.com/in-toto/attestation,
 *     spec/predicates/cyclonedx.md: the predicate is a CycloneDX BOM as
 *     its specification defines it); the predicate is the
 *     document stackprint export --format cyclonedx writes for the
 *     manifest (export/bom.h), as a JSON object;
 *   DSSE v1.0 for the envelope (dsse_envelope_sign, sp_verify_statement).
 *
 * Memory: every char ** result is malloc'd and the caller's to free.
 * Library code: never prints, never exits; errors fill struct sp_error.
 */
#ifndef SP_BOM_STATEMENT_H
#define SP_BOM_STATEMENT_H

#include <stddef.h>

#include <openssl/evp.h>

#include "manifest/dsse.h"
#include "common/error.h"

#define SP_BOM_PREDICATE_TYPE "https://cyclonedx.org/bom"

/* sp_bom_statement: the in-toto Statement (compact JSON, keys in the order
 * of sp_statement_json) whose predicate is the CycloneDX BOM of the
 * manifest whose exact bytes are BUF (LEN); NAME is the subject name (the
 * manifest file's base name) and names BUF in messages.  Returns 0 with
 * *OUT and *OUTLEN set, or -1 with E set (SP_EXIT_INPUT: a malformed
 * manifest (manifest_parse), a package fact whose purl cannot be built
 * (sp_bom_build), a malformed image.config_digest, out of memory). */
int sp_bom_statement(const char *buf, size_t len, const char *name,
                     char **out, size_t *outlen, struct sp_error *e);

/* sp_bom_envelope_claims: 1 when the envelope ENV (ENVLEN bytes) is JSON
 * whose base64 payload decodes to a JSON object with predicateType
 * SP_BOM_PREDICATE_TYPE, else 0 (also for anything malformed).  Nothing is
 * verified: it only chooses which verification to run, and
 * sp_bom_verify then requires that predicate type of the signed
 * statement. */
int sp_bom_envelope_claims(const char *env, size_t envlen);

/* sp_bom_verify: sp_verify_statement (manifest/dsse.h: envelope, signature
 * under PUB only, statement, subject) with predicateType
 * SP_BOM_PREDICATE_TYPE, then
 *   predicate: the statement's predicate equals the CycloneDX BOM that
 *              this stackprint makes of MAN (parsed with manifest_parse,
 *              rendered with sp_bom_render): the same JSON values, object
 *              keys in any order (a signer that re-serialises the BOM, as
 *              Go's encoding/json sorts keys, still verifies).
 * Returns 0 with *OUT filled as sp_verify_statement fills it (free with
 * sp_verified_free), or -1 with E set: the errors of sp_verify_statement;
 * SP_EXIT_INPUT when MAN is not a manifest ("MAN_NAME: ..."), or out of
 * memory; SP_EXIT_VERIFY "ENV_NAME: predicate check failed: the predicate
 * is not the CycloneDX BOM of MAN_NAME (first difference at PATH)", PATH
 * as "metadata.component.name" or "components[3]". */
int sp_bom_verify(const char *env, size_t envlen, const char *env_name,
                  const char *man, size_t manlen, const char *man_name,
                  EVP_PKEY *pub, struct sp_verified *out, struct sp_error *e);

#endif
