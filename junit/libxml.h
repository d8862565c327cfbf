/* junit/libxml.h: libxml2, loaded only when a report is read.
 *
 * Debian's libxml2.so.2 links ICU and, through it, libstdc++; linked into
 * stackprint they load and relocate at every start, about 1.1 ms more for
 * each `stackprint --version` or `probe` (hyperfine, 1500 runs, minimum and
 * 10th percentile, on the build machine), a tenth of a host probe.  So only
 * the commands that read XML (attach, attest) open the library, with
 * dlopen(3), and call it through this table; the headers (libxml2-dev,
 * pkg-config libxml-2.0) still give every type and prototype, and each
 * pointer has the type of the function it names.
 *
 * Memory: the table is static and lives as long as the process; the
 * library is never closed.
 */
#ifndef SP_LIBXML_H
#define SP_LIBXML_H

#include <libxml/parser.h>
#include <libxml/xmlerror.h>

#include "common/error.h"

#define SP_LIBXML_SONAME "libxml2.so.2"

/* Every libxml2 function junit/ calls. */
#define SP_LIBXML_FUNCTIONS(F)                                                \
    F(xmlInitParser) F(xmlSetStructuredErrorFunc) F(xmlSetGenericErrorFunc)   \
    F(xmlNewParserCtxt) F(xmlStopParser) F(xmlCtxtReadMemory)                 \
    F(xmlByteConsumed) F(xmlFreeParserCtxt)

struct sp_libxml {
#define SP_LIBXML_MEMBER(name) __typeof__(name) *name;
    SP_LIBXML_FUNCTIONS(SP_LIBXML_MEMBER)
#undef SP_LIBXML_MEMBER
};

/* sp_libxml: the table, loading SP_LIBXML_SONAME on first use and checking
 * its parser (xmlInitParser).  Returns it, or NULL with E set
 * (SP_EXIT_INPUT, "libxml2.so.2: <dlerror>" or "...: symbol S missing").
 * The soname fixes the library's major version, the one libxml2's ABI
 * promise depends on.
 * Not thread-safe on first use (stackprint is single-threaded). */
const struct sp_libxml *sp_libxml(struct sp_error *e);

#endif
