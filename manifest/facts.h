/* manifest/facts.h: the fact set, the model every probe fills and every
 * check reads (stackprint-manifest(5)).
 *
 * A fact is a flat dotted key ("pip.torch") with a string value and an
 * optional evidence string (the file or marker it came from).  Warnings are
 * free text, "<key or probe>: <file>: <what>".  Keys are unique; setting a
 * key again replaces its value and evidence.  Values and evidence are stored
 * as valid UTF-8: any byte that is not part of a valid UTF-8 sequence is
 * replaced by the four characters "\xNN" (lowercase hex), so nothing is
 * dropped and the writers never see invalid text.
 *
 * Memory: the set owns copies of every string it is given; pointers returned
 * by factset_get() stay valid until the key is set again or the set is freed.
 * Functions returning int give 0 on success and -1 on allocation failure
 * (errno ENOMEM) or, where stated, on a bound being crossed (errno E2BIG).
 */
#ifndef SP_FACTS_H
#define SP_FACTS_H

#include <stdarg.h>
#include <stddef.h>

#include "common/digest.h"
#include "common/utf8.h"         /* sp_utf8_sanitize */

#define SP_FACT_KEY_MAX 256        /* bytes in a key, bound for readers */
#define SP_FACT_VALUE_MAX 4096     /* bytes in a value or evidence string */
#define SP_FACTS_MAX 200000        /* facts in one set */
/* Probes (probe_set) record a bulk fact (SP_FACT_BULK_PREFIXES) only while
 * the set holds fewer than SP_FACTS_BULK_MAX facts, so at least
 * SP_FACTS_MAX - SP_FACTS_BULK_MAX stay for the key facts (instance, Neuron,
 * Python, pip, torch, backend), whatever order the probes run in.  A fact
 * dropped at either bound is counted in the fact SP_FACTS_DROPPED_KEY, and
 * `check` then fails every decision an absent fact would make
 * (checks/evaluate.h, verdict incomplete). */
#define SP_FACTS_BULK_MAX 160000
#define SP_FACT_BULK_PREFIXES { "deb.", "rpm.", "python.env." }
#define SP_FACTS_DROPPED_KEY "facts.dropped"
#define SP_WARNINGS_MAX 10000      /* warnings kept; later ones are counted */
/* The fact-key alphabet (stackprint-manifest(5), "Fact keys"): a key is 1 to
 * SP_FACT_KEY_MAX bytes of these, the first a lowercase ASCII letter. */
#define SP_FACT_KEY_ALPHABET "abcdefghijklmnopqrstuvwxyz" \
    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+:-"

struct fact {
    char *key;
    char *value;
    char *evidence;                /* NULL when none recorded */
};

struct factset {
    struct fact *facts;            /* always sorted bytewise by key */
    size_t count, cap;
    char **warnings;               /* in the order recorded */
    size_t nwarnings, capwarnings;
    size_t dropped_warnings;       /* warnings past SP_WARNINGS_MAX */
};

void factset_init(struct factset *fs);
void factset_free(struct factset *fs);

/* factset_set: add or replace KEY.  VALUE must not be NULL (a missing fact is
 * absent, never empty: an empty VALUE is refused with errno EINVAL).  A key
 * longer than SP_FACT_KEY_MAX or a value longer than SP_FACT_VALUE_MAX is
 * refused with E2BIG; a key outside the fact-key alphabet (fact_key_valid)
 * with EILSEQ; a new key past SP_FACTS_MAX facts with ENOSPC; probes
 * turn either into a warning. */
int factset_set(struct factset *fs, const char *key, const char *value,
                const char *evidence);

/* factset_setf: factset_set with a printf-formatted value. */
int factset_setf(struct factset *fs, const char *key, const char *evidence,
                 const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* factset_get: the value of KEY, or NULL when absent. */
const char *factset_get(const struct factset *fs, const char *key);
/* factset_find: the whole fact for KEY, or NULL. */
const struct fact *factset_find(const struct factset *fs, const char *key);

/* factset_remove: drop KEY if present; returns 1 if it was there. */
int factset_remove(struct factset *fs, const char *key);

/* factset_warn: record a warning (printf format). */
int factset_warn(struct factset *fs, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int factset_vwarn(struct factset *fs, const char *fmt, va_list ap);

/* fact_is_volatile: 1 for keys left out of the stack id because they name
 * one node rather than its stack: host.hostname, host.instance_id and
 * container.id (stackprint-manifest(5), "VOLATILE KEYS"). */
int fact_is_volatile(const char *key);

/* fact_key_valid: 1 when KEY is 1 to SP_FACT_KEY_MAX bytes of
 * SP_FACT_KEY_ALPHABET starting with a lowercase ASCII letter, else 0. */
int fact_key_valid(const char *key);

/* factset_stack_id: "sha256:<64 hex>" into OUT (at least 72 bytes): the
 * SHA-256 of, for every non-volatile fact in bytewise key order, the key
 * and then the value each as a netstring ("<decimal byte length>:<bytes>,",
 * D. J. Bernstein's netstrings, cr.yp.to/proto/netstrings.txt).  A sequence
 * of netstrings parses back one way only, so distinct fact sets give
 * distinct inputs (stackprint-manifest(5), "stack_id", schema v2).
 * Returns 0, or -1 if OpenSSL fails. */
int factset_stack_id(const struct factset *fs, char out[SP_DIGEST_LEN + 1]);

/* fact_name_pep503: normalise a Python distribution name as PEP 503 says:
 * lowercase, runs of '-', '_' and '.' become one '-'.  Writes into OUT
 * (OUTSZ bytes); returns 0, or -1 if it does not fit or NAME is empty. */
int fact_name_pep503(const char *name, char *out, size_t outsz);

#endif
