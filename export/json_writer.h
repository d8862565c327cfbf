/* export/json_writer.h: a streaming JSON writer for the bill-of-materials
 * exports (export/bom.h), so that a document of thousands of components is
 * written straight into one buffer instead of being built as a jansson tree
 * and then dumped.
 *
 * Output: exactly the bytes jansson's json_dumps(doc, JSON_INDENT(2) |
 * JSON_PRESERVE_ORDER) gives for the same document built in the same
 * order: members separated by "," and a newline, each line indented by two
 * spaces per level, ": " between key and value, an empty object or array
 * as "{}" or "[]".  A string of printable ASCII without '"' or '\\' is
 * written between quotes as it is (nothing in it is escaped, by RFC 8259
 * section 7 or by jansson); every other string goes through jansson's own
 * dumper (json_dumpb with JSON_ENCODE_ANY: RFC 8259 section 7 escaping as
 * jansson does it, which refuses invalid UTF-8); nothing here escapes by
 * hand.  tests/unit/test_json_writer.c checks the bytes against json_dumps.
 * Keys are the caller's constants and are written as given: they must be
 * ASCII with nothing to escape.
 *
 * Errors are sticky: after the first failure (out of memory, a string that
 * is not UTF-8, nesting deeper than SP_JW_DEPTH_MAX) every call does
 * nothing and sp_jw_finish reports it.  Memory: the writer owns its buffer
 * until sp_jw_finish hands it over; sp_jw_finish always releases the rest.
 * Never prints, never exits.
 */
#ifndef SP_JSON_WRITER_H
#define SP_JSON_WRITER_H

#include <stddef.h>

#include "common/error.h"

#define SP_JW_DEPTH_MAX 16   /* nested objects and arrays */

struct sp_jw {
    char *buf;
    size_t len, cap;
    int depth;                          /* open containers */
    unsigned char members[SP_JW_DEPTH_MAX]; /* per level: 1 once it has a member */
    int failed;                         /* 0, or the first failure's errno-like code */
};

/* sp_jw_init: an empty writer; CAP_HINT bytes reserved (0 for a default). */
void sp_jw_init(struct sp_jw *w, size_t cap_hint);

/* sp_jw_open: start an object (OPEN '{') or an array ('[') as the member
 * KEY of the enclosing object, or as an array item or the document when
 * KEY is NULL. */
void sp_jw_open(struct sp_jw *w, const char *key, char open);

/* sp_jw_close: end the innermost container with CLOSE ('}' or ']'). */
void sp_jw_close(struct sp_jw *w, char close);

/* sp_jw_string: the string VALUE (UTF-8, NUL-terminated) as member KEY, or
 * as an array item when KEY is NULL.  A NULL VALUE is a failure (EINVAL),
 * as json_pack refuses a NULL string. */
void sp_jw_string(struct sp_jw *w, const char *key, const char *value);

/* sp_jw_pair: the object {K1: V1, K2: V2} (two strings) as an array item. */
void sp_jw_pair(struct sp_jw *w, const char *k1, const char *v1, const char *k2, const char *v2);

/* sp_jw_literal: a JSON literal written as given (a number "1", "true",
 * "false"), as member KEY or an array item. */
void sp_jw_literal(struct sp_jw *w, const char *key, const char *literal);

/* sp_jw_finish: the document with one trailing newline, malloc'd into *OUT
 * (*LEN bytes, NUL-terminated, the caller's).  Returns 0, or -1 with E set
 * (SP_EXIT_INPUT, "export: <strerror>": out of memory, "export: a string
 * is not UTF-8", or containers left open or nested too deep). */
int sp_jw_finish(struct sp_jw *w, char **out, size_t *len, struct sp_error *e);

#endif
