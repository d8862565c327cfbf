/* checks/diff_report.h: rendering the differences between two manifests
 * (stackprint-diff(1), "OUTPUT FORMATS"): text, json, markdown.  The
 * differences come from checks/compare.h; nothing here decides a change,
 * and nothing prints: output goes into a memory buffer the caller writes.
 *
 *   text      the report a person reads: both sides (subject, stack id), the
 *             differences group by group in reading order, the inferred
 *             Neuron SDK release on each side between the driver and the
 *             runtime, a changed backend path on a line of its own, and the
 *             summary "N changed: U upgraded, D downgraded, A added, R
 *             removed" (", C changed" appended when some change has no
 *             direction).
 *   json      {"old": SIDE, "new": SIDE, "changes": [{"key", "old", "new",
 *             "change"}], "summary": {"total", "upgraded", "downgraded",
 *             "added", "removed", "changed"}}; SIDE is {"manifest",
 *             "subject", "stack_id", "sdk_release"}; absent values null.
 *   markdown  GitHub-flavoured Markdown for pull-request comments: the
 *             sides, the release and backend lines, a table of group, key,
 *             old, new, change, and the summary.
 * Data never reaches the output raw: control characters are written
 * "\xNN" (text, markdown), '|' and '`' are escaped in markdown, and JSON
 * strings are jansson's.
 *
 * Memory: sp_diff_render() returns a malloc'd buffer the caller frees.
 */
#ifndef SP_DIFF_REPORT_H
#define SP_DIFF_REPORT_H

#include <stddef.h>

#include "checks/compare.h"
#include "common/error.h"

enum sp_diff_format { SP_DIFF_TEXT, SP_DIFF_JSON, SP_DIFF_MARKDOWN };

/* One manifest compared. */
struct sp_diff_side {
    const char *manifest;      /* its path as given ("-" for stdin) */
    const char *subject;       /* may be NULL */
    const char *stack_id;      /* may be NULL */
    const char *sdk_release;   /* the inferred neuron.sdk.release; NULL when
                                  nothing was inferred */
};

struct sp_diff_meta {
    struct sp_diff_side old_side, new_side;
    int inferred;              /* the release catalog was read, so a NULL
                                  sdk_release means "no Neuron component" */
};

/* sp_diff_format_by_name: "text", "json", "markdown" into *OUT; 0, or -1
 * for any other name. */
int sp_diff_format_by_name(const char *name, enum sp_diff_format *out);

/* sp_diff_render: D as FORMAT into *OUT (*LEN bytes, NUL-terminated;
 * caller frees).  Returns 0, or -1 with E set (SP_EXIT_INPUT, "diff: out of
 * memory"). */
int sp_diff_render(const struct sp_diff *d, const struct sp_diff_meta *m,
                   enum sp_diff_format format, char **out, size_t *len, struct sp_error *e);

#endif
