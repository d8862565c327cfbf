/* junit/testresult.h: what stackprint attach writes into a report and what
 * stackprint attest signs about it (stackprint-attach(1),
 * stackprint-attest(1)).
 *
 * Specs followed:
 *   in-toto Attestation Framework, Statement v1 and ResourceDescriptor v1
 *     (github.com/in-toto/attestation, spec/v1/statement.md,
 *     spec/v1/resource_descriptor.md);
 *   the test-result predicate v0.1 (same repository,
 *     spec/predicates/test-result.md): predicate {result: "PASSED" |
 *     "WARNED" | "FAILED", configuration: [ResourceDescriptor], url?,
 *     passedTests?, warnedTests?, failedTests?}.
 *
 * Memory: every char ** result is malloc'd and the caller's to free.
 * Library code: never prints, never exits.
 */
#ifndef SP_TESTRESULT_H
#define SP_TESTRESULT_H

#include <stddef.h>

#include "junit/junit.h"
#include "manifest/facts.h"
#include "manifest/manifest.h"
#include "manifest/node.h"

#define SP_TESTRESULT_PREDICATE_TYPE "https://in-toto.io/attestation/test-result/v0.1"
#define SP_DSSE_ENVELOPE_MEDIA_TYPE "application/vnd.dsse.envelope.v1+json"

/* The facts a trial report needs, in the order their properties are
 * written: instance type, device kind, driver, inferred SDK release,
 * compiler, torch, torch-xla, torch-neuronx, backend path, Python, image
 * digests.  NULL-terminated. */
extern const char *const junit_stack_facts[];

/* Properties for stackprint attach, each NAME and VALUE malloc'd. */
struct junit_props {
    struct junit_property *items;
    size_t n;
};

/* junit_stack_props: the properties for the manifest M whose exact bytes
 * are MAN (MANLEN): stackprint.stack_id (M's stack id),
 * stackprint.manifest.sha256 (lowercase hex SHA-256 of MAN),
 * stackprint.subject (M's subject), then stackprint.fact.KEY = the value in
 * FACTS (M's facts, plus derived ones) for each key of junit_stack_facts and
 * then of EXTRA[0..NEXTRA) (a key already listed is not repeated).  A key
 * FACTS does not hold gets no property; when MISSING is not NULL, the
 * first EXTRA key missing is stored there (borrowed from EXTRA) so the
 * caller can say so.  Returns 0 with *P filled (free with
 * junit_props_free), or -1 with E set (SP_EXIT_INPUT: out of memory). */
int junit_stack_props(const struct manifest *m, const char *man, size_t manlen,
                      const struct factset *facts, const char *const *extra, size_t nextra,
                      struct junit_props *p, const char **missing, struct sp_error *e);

void junit_props_free(struct junit_props *p);

/* What a test-result statement is about. */
struct testresult_input {
    const char *report_name;      /* subject name: the report's base name */
    const char *report;           /* its exact bytes */
    size_t report_len;
    const struct junit_summary *summary;   /* junit_summarize of them */
    const char *manifest_name;    /* the manifest's base name */
    const char *manifest;         /* its exact bytes */
    size_t manifest_len;
    const char *stack_id;         /* its stack id, "sha256:<hex>" */
    const char *envelope_name;    /* its DSSE envelope's base name, or NULL */
    const char *envelope;         /* the envelope's exact bytes */
    size_t envelope_len;
    const char *url;              /* the test run's URL, or NULL */
};

/* testresult_statement: the in-toto Statement (compact JSON, serialised by
 * sp_statement_json) of predicate type SP_TESTRESULT_PREDICATE_TYPE:
 *   subject    [{name: report_name, digest: {sha256}, mediaType:
 *              "application/xml", annotations: {skippedTests: N}}]
 *   predicate  {result: "FAILED" when a test failed or errored, else
 *              "PASSED"; configuration: [{name: manifest_name, digest:
 *              {sha256}, mediaType: "application/json" or
 *              "application/yaml" (the manifest's format), annotations:
 *              {"stackprint.stack_id": stack_id}}, and, with an envelope,
 *              {name: envelope_name, digest: {sha256}, mediaType:
 *              SP_DSSE_ENVELOPE_MEDIA_TYPE}]; url when given; passedTests
 *              and failedTests (always present, in report order)}.
 * Returns 0 with *OUT and *OUTLEN set, or -1 with E set (SP_EXIT_INPUT:
 * out of memory, OpenSSL failure). */
int testresult_statement(const struct testresult_input *in, char **out, size_t *outlen,
                         struct sp_error *e);

/* testresult_has_configuration: 1 when the verified test-result statement
 * STMT (sp_verified.statement) names, in predicate.configuration, a
 * manifest (a descriptor with the annotation "stackprint.stack_id") whose
 * digest.sha256 is HEX (64 lowercase hex digits); else 0.  The manifest's
 * envelope, also in the configuration, does not count. */
int testresult_has_configuration(const struct sp_node *stmt, const char *hex);

#endif
