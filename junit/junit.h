/* junit/junit.h: JUnit XML test reports, read with libxml2's SAX2 parser in
 * one streaming pass (no document tree: memory is the report, the result
 * and a little per suite): the stack's properties attached to every test
 * suite by splicing them into the report's own bytes (stackprint-attach(1)),
 * and the outcome of every test case, for the test-result attestation
 * (stackprint-attest(1)).
 *
 * Formats read: JUnit XML as the common tools write it (there is no single
 * standard; the shapes are those of the Ant/Surefire schema as pytest's
 * --junitxml, ctest's --output-junit, Maven Surefire and go-junit-report
 * write it): a <testsuites> root holding <testsuite> elements, a bare
 * <testsuite> root, suites nested inside suites.  A suite's properties are
 * <properties><property name=".." value=".."/>...</properties>, the first
 * child of <testsuite>; a <testcase> failed when it holds a <failure> or
 * an <error>, was skipped when it holds a <skipped>, else passed.
 *
 * A report is untrusted input, parsed under these rules (XML 1.0, W3C
 * REC-xml; libxml2's xmlCtxtReadMemory):
 *   - at most SP_JUNIT_MAX_BYTES bytes (the caller reads it bounded);
 *   - never the network (XML_PARSE_NONET), no DTD loaded, no entity
 *     substituted, no default attributes from a DTD;
 *   - a document type declaration (<!DOCTYPE ...>) is refused as soon as the
 *     parser meets it, before its internal subset is read: JUnit reports
 *     have none, and every entity (external, or nested to expand a billion
 *     times) needs one;
 *   - libxml2's own limits stand (XML_PARSE_HUGE is never set): nesting at
 *     most 256 elements deep, a name at most 50,000 bytes, an attribute
 *     value at most 10,000,000 bytes;
 *   - the report's bytes must put markup in single ASCII bytes (UTF-8,
 *     ISO 8859, ...): UTF-16, UTF-32 and EBCDIC are refused.
 * Errors are "NAME:LINE:COLUMN: what" with SP_EXIT_INPUT.
 *
 * Memory: results are malloc'd and the caller's (junit_summary_free).
 * Library code: never prints, never exits.
 */
#ifndef SP_JUNIT_H
#define SP_JUNIT_H

#include <stddef.h>

#include "common/error.h"

#define SP_JUNIT_MAX_BYTES (64u << 20)   /* largest report read (64 MiB) */
#define SP_JUNIT_PROPERTY_PREFIX "stackprint."

/* One property to attach: NAME and VALUE, UTF-8. */
struct junit_property {
    const char *name;
    const char *value;
};

/* junit_attach: the report BUF (LEN bytes; NAME in messages) with the
 * properties PROPS[0..NPROPS) attached to every <testsuite>: inside its
 * <properties> (created as its first child where missing) every property
 * whose name starts with SP_JUNIT_PROPERTY_PREFIX is removed, then PROPS
 * are appended in order.  Every other byte of the report is kept as it was
 * (the new text is spliced in at offsets libxml2 reports with
 * xmlByteConsumed): properties, test cases, text, CDATA sections,
 * comments, attributes and their quoting, the encoding, the XML
 * declaration or its absence.  New elements copy the indentation of their
 * neighbours, so attaching again gives the same bytes.  Values are escaped
 * as XML requires (&lt; &gt; &amp; &quot; and tab, line feed, carriage
 * return as character references); other control characters, which XML
 * 1.0 does not allow, are written as the text \xNN; non-ASCII characters
 * as character references (&#xE9;) when the report is not UTF-8.
 * Returns 0 with *OUT (malloc'd, the caller's) and *OUTLEN set, or -1
 * with E set (SP_EXIT_INPUT): not well-formed XML, a DOCTYPE, no
 * <testsuite> element, an encoding refused above, out of memory. */
int junit_attach(const char *buf, size_t len, const char *name,
                 const struct junit_property *props, size_t nprops,
                 char **out, size_t *outlen, struct sp_error *e);

/* The test cases of a report, in document order.  A test's name is
 * "CLASSNAME::NAME" from its classname and name attributes, or NAME when
 * it has no (or an empty) classname. */
struct junit_summary {
    char **passed;
    size_t npassed;
    char **failed;          /* a <failure> or an <error> */
    size_t nfailed;
    size_t nskipped;        /* a <skipped>, and no failure or error */
    size_t nsuites;         /* <testsuite> elements */
};

/* junit_summarize: read BUF (LEN bytes; NAME in messages) under the rules
 * above into *S.  Returns 0, or -1 with E set (SP_EXIT_INPUT) as
 * junit_attach. */
int junit_summarize(const char *buf, size_t len, const char *name,
                    struct junit_summary *s, struct sp_error *e);

void junit_summary_free(struct junit_summary *s);

#endif
