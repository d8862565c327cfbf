/* checks/report.h: rendering a check report (stackprint-check(1),
 * "OUTPUT FORMATS"): text, json, junit, sarif, github.  Each format lives
 * in its own checks/report_<format>.c and shares the helpers below; none
 * decides verdicts (checks/evaluate.c does) and none prints: output goes
 * into a memory buffer the caller writes.
 *
 * Memory: sp_report_render() returns a malloc'd buffer the caller frees.
 */
#ifndef SP_REPORT_H
#define SP_REPORT_H

#include <stdio.h>

#include "common/strbuf.h"
#include "checks/evaluate.h"

enum sp_format { SP_FORMAT_TEXT, SP_FORMAT_JSON, SP_FORMAT_JUNIT, SP_FORMAT_SARIF, SP_FORMAT_GITHUB };

struct sp_report_meta {
    const char *manifest;     /* the manifest's path as given; "-" for stdin */
    const char *subject;      /* the manifest's subject, may be NULL */
    const char *stack_id;     /* may be NULL */
    int colour;               /* text: ANSI colours (the caller decides: a
                                 terminal, and NO_COLOR unset or empty) */
    const struct factset *facts;  /* the facts evaluated (sp_eval_facts), for
                                 the Neuron release table; may be NULL */
    /* check --host: the host's manifest (path, subject, stack id), whose
     * kernel-side facts were laid over the image's (checks/host_overlay.h);
     * all NULL otherwise.  SUBJECT then names both ("IMAGE on HOST");
     * STACK_ID stays the image's. */
    const char *host_manifest, *host_subject, *host_stack_id;
};

/* sp_format_by_name: "text", "json", "junit", "sarif", "github" into *OUT;
 * 0, or -1 for any other name. */
int sp_format_by_name(const char *name, enum sp_format *out);

/* sp_report_render: R as FORMAT into *OUT (*LEN bytes, NUL-terminated;
 * caller frees).  Returns 0, or -1 with E set (SP_EXIT_INPUT, out of
 * memory). */
int sp_report_render(const struct sp_report *r, const struct sp_report_meta *m,
                     enum sp_format format, char **out, size_t *len, struct sp_error *e);

/* sp_render_buffer: call WRITE(FP, ARG) with FP a memory stream and hand
 * what it wrote to *OUT (*LEN bytes, NUL-terminated; the caller frees it):
 * the one way checks/ renders a report (check, diff, fleet, check --fix).
 * WRITE returns 0, or non-zero when a write failed.  Returns 0, or -1 with
 * E set (SP_EXIT_INPUT) to NOMEM when the stream cannot be opened, to
 * FAILED when WRITE fails or the stream cannot be closed (a memory stream
 * fails only for want of memory: open_memstream(3), POSIX.1-2008); *OUT is
 * then untouched. */
int sp_render_buffer(int (*write)(FILE *fp, const void *arg), const void *arg,
                     const char *nomem, const char *failed, char **out, size_t *len,
                     struct sp_error *e);

/* ---- for the report_<format>.c files ---------------------------------- */

/* Each writes R to FP; 0, or -1 on a write or allocation failure. */
int sp_report_text(const struct sp_report *r, const struct sp_report_meta *m, FILE *fp);
int sp_report_json(const struct sp_report *r, const struct sp_report_meta *m, FILE *fp);
int sp_report_junit(const struct sp_report *r, const struct sp_report_meta *m, FILE *fp);
int sp_report_sarif(const struct sp_report *r, const struct sp_report_meta *m, FILE *fp);
int sp_report_github(const struct sp_report *r, const struct sp_report_meta *m, FILE *fp);

/* The rule's name, or "when" for a policy's own undecidable condition. */
const char *sp_result_rule(const struct sp_result *res);

/* What the requirement supports, as shown: the test as written, "not X"
 * for a forbidden test, "when X" for a condition, whole however long (a
 * one_of list of any length).  Built in SB (emptied first, bounded by
 * SP_REPORT_TEXT_MAX; the caller frees it with sp_strbuf_free); returns its
 * text, valid until SB is used again.  "" if out of memory. */
const char *sp_result_supported(const struct sp_result *res, struct sp_strbuf *sb);

/* 1 for violated, missing and invalid. */
int sp_result_bad(const struct sp_result *res);

/* The one-line explanation of a bad result, without the key: "found X,
 * supported Y" (or "missing", or the invalid or incomplete detail), then the
 * rule's message when it has one.  Built in SB as sp_result_supported. */
const char *sp_result_explain(const struct sp_result *res, struct sp_strbuf *sb);

/* Bound on one report text (supported, explanation): more than a policy
 * file (SP_POLICY_MAX_BYTES) can make, three bytes per byte of it. */
#define SP_REPORT_TEXT_MAX (4 * (size_t)SP_POLICY_MAX_BYTES + 2 * SP_FACT_VALUE_MAX)

/* The summary line, without a newline: "3 policies, 12 requirements: 8 ok,
 * 2 violated, 1 missing, 0 invalid, 1 not applicable; 2 errors, 1 warning:
 * check failed".  Into BUF; returns BUF. */
const char *sp_report_summary(const struct sp_report *r, char *buf, size_t bufsz);

/* One row of the Neuron release table (stackprint-check(1), "THE NEURON
 * RELEASE TABLE"): a component the release inference looked up. */
struct sp_release_row {
    const char *key;          /* the component's fact key */
    const char *version;      /* its value (NULL if absent, which release.c never leaves) */
    const char *releases;     /* releases that shipped it, oldest first; "none" */
    int odd;                  /* named in neuron.sdk.odd */
    int driver;               /* the kernel driver, kept out of the consensus */
};

/* sp_release_rows: the table's rows from FACTS (NULL: none): every
 * neuron.sdk.release_of.<key> fact in key order, then the driver (the key
 * neuron.sdk.driver_release was derived from).  Returns a malloc'd array
 * of *N rows (caller frees; the pointers in it point into FACTS), or NULL
 * with *N = 0 when FACTS has no neuron.sdk.release (or out of memory, with
 * *N = (size_t)-1). */
struct sp_release_row *sp_release_rows(const struct factset *facts, size_t *n);

/* sp_put_escaped: write S to FP; a byte for which SPECIAL returns text is
 * replaced by that text; other control characters (below 0x20, 0x7f) by
 * "\xNN", so no report carries terminal escapes or bytes XML forbids.
 * SPECIAL may be NULL; FP may be NULL to only measure.  Returns the number
 * of characters shown (UTF-8 continuation bytes not counted), for aligning
 * columns. */
size_t sp_put_escaped(FILE *fp, const char *s, const char *(*special)(unsigned char c));

/* sp_xml_entity: for sp_put_escaped: the XML 1.0 entity for & < > " and ',
 * NULL for any other byte. */
const char *sp_xml_entity(unsigned char c);

#endif
