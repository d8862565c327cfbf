/* export/purl.h: building Package URLs (purl), as the Package URL
 * specification's "How to build a PURL" and its type definitions say
 * (github.com/package-url/purl-spec: docs/specification/how-to-build.md,
 * docs/specification/standard/specification.md, types/<type>-definition.json).
 *
 * Rules applied: scheme "pkg"; the type lowercased and unencoded; leading
 * and trailing '/' stripped from the namespace, the name and the subpath;
 * namespace and subpath segments, the name, the version and qualifier
 * values percent-encoded (UTF-8 bytes; everything but A-Z a-z 0-9 . - _ ~
 * and ':' becomes %XX, uppercase hex); qualifier keys lowercased, pairs
 * with an empty value dropped, the "key=value" strings sorted bytewise and
 * joined with '&'; empty, "." and ".." subpath segments dropped.
 * Type-specific normalisation for the types stackprint writes: pypi (name
 * lowercased, '_' becomes '-'; no namespace), deb (namespace and name
 * lowercased; namespace required), rpm (namespace lowercased; namespace
 * required).  Checked against the specification's own test data
 * (tests/fixtures/purl/, tests/unit/test_purl.c).
 *
 * Memory: sp_purl_build() returns a malloc'd string the caller frees.
 * Nothing here prints or exits.
 */
#ifndef SP_PURL_H
#define SP_PURL_H

#include <stddef.h>

#include "common/error.h"

#define SP_PURL_QUALIFIERS_MAX 16   /* qualifiers one purl may carry */

struct sp_purl_qualifier {
    const char *key;
    const char *value;    /* NULL or "" : the pair is dropped */
};

struct sp_purl {
    const char *type;                  /* required: "pypi", "deb", ... */
    const char *namespace_;            /* NULL for none */
    const char *name;                  /* required */
    const char *version;               /* NULL for none */
    struct sp_purl_qualifier qualifiers[SP_PURL_QUALIFIERS_MAX];
    size_t nqualifiers;
    const char *subpath;               /* NULL for none */
};

/* sp_purl_build: the canonical purl string of P into *OUT.  Returns 0, or
 * -1 with E set (SP_EXIT_INPUT): "purl: no type", "purl: type 'X' is not
 * a letter followed by letters, digits, '.' or '-'", "purl: no name",
 * "purl: TYPE needs a namespace", "purl: pypi has no namespace",
 * "purl: qualifier key 'K' is not a letter followed by lowercase letters,
 * digits, '.', '-' or '_'", "purl: qualifier key 'K' given twice", "purl:
 * more than SP_PURL_QUALIFIERS_MAX qualifiers", or out of memory. */
int sp_purl_build(const struct sp_purl *p, char **out, struct sp_error *e);

#endif
