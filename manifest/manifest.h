/* manifest/manifest.h: the reproducibility manifest (stackprint-manifest(5)):
 * a fact set plus its header, written as canonical YAML (libyaml's emitter)
 * or JSON (jansson), and read back from either.
 *
 * Document shape, in this order:
 *   schema, tool, created, subject, stack_id, facts{}, evidence{}, warnings[]
 * Keys of facts and evidence are sorted bytewise; every scalar is a string,
 * double-quoted in YAML.  The writers are deterministic: the same struct
 * gives the same bytes.
 *
 * Memory: struct manifest owns all its strings; manifest_free() releases
 * them.  Readers fill a manifest the caller then frees.
 */
#ifndef SP_MANIFEST_H
#define SP_MANIFEST_H

#include <stdio.h>

#include "common/file.h"
#include "common/error.h"
#include "manifest/facts.h"

#define SP_MANIFEST_SCHEMA "stackprint/manifest/v2"
/* v1 hashed "key=value\n" lines, which two fact sets could share; a v1
 * manifest is refused with a message saying how to renew it. */
#define SP_MANIFEST_SCHEMA_V1 "stackprint/manifest/v1"
#define SP_MANIFEST_MAX_BYTES (64u << 20)   /* largest manifest a reader takes */

enum manifest_format { MANIFEST_YAML, MANIFEST_JSON };

struct manifest {
    char *tool;          /* "stackprint 0.1.0" */
    char *created;       /* RFC 3339 UTC, "2026-11-29T08:00:00Z" */
    char *subject;       /* "host:/", "root:/srv/copy", "image:app.tar" */
    char stack_id[SP_DIGEST_LEN + 1];/* "sha256:<hex>", computed by manifest_finish() */
    struct factset facts;
};

void manifest_init(struct manifest *m);
void manifest_free(struct manifest *m);

/* manifest_finish: compute stack_id from the facts.  Call after the
 * probes and before writing.  Returns 0 or -1 (OpenSSL failure). */
int manifest_finish(struct manifest *m);

/* manifest_render: the document as bytes in FORMAT, malloc'd into *OUT
 * (length *LEN, NUL-terminated for convenience; caller frees).  Returns 0,
 * or -1 with E set (exit SP_EXIT_INPUT never; allocation or emitter
 * failure gives SP_EXIT_INPUT with the emitter's message). */
int manifest_render(const struct manifest *m, enum manifest_format format,
                    char **out, size_t *len, struct sp_error *e);

/* manifest_parse: read a manifest from BUF (LEN bytes) in either format: a
 * document whose first non-blank byte is '{' is JSON, anything else YAML.
 * NAME is the file name used in error messages.  Strict: the schema must be
 * SP_MANIFEST_SCHEMA (SP_MANIFEST_SCHEMA_V1 gets "NAME:LINE:COL:
 * stackprint/manifest/v1 has the old stack_id definition; probe again, or
 * rewrite a test fixture with the source tree's tests/restamp NAME"), fact
 * keys must pass fact_key_valid(), facts must map strings to strings (a JSON number,
 * true, false or null is refused wherever a string is required: "NAME:
 * fact value must be a string: KEY"), unknown top-level keys are errors;
 * created must be RFC 3339 UTC "YYYY-MM-DDTHH:MM:SSZ", stack_id must be
 * "sha256:" and 64 lowercase hex digits and equal factset_stack_id() of
 * the facts read, else "NAME: stack_id does not match the facts (edited
 * after probing?)".  Returns 0, or -1 with E set to SP_EXIT_INPUT and a
 * message "NAME:LINE:COLUMN: what" where the parser gives a position. */
int manifest_parse(const char *buf, size_t len, const char *name,
                   struct manifest *m, struct sp_error *e);

/* manifest_load: read PATH ("-" for stdin, at most SP_MANIFEST_MAX_BYTES;
 * a regular file, never blocking: see sp_read_file) and parse it.  Errors as
 * manifest_parse, plus those of sp_read_file. */
int manifest_load(const char *path, struct manifest *m, struct sp_error *e);

#endif
