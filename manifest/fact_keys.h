/* manifest/fact_keys.h: the table of documented fact keys and key patterns
 * (stackprint-manifest(5), FACT KEYS; the derived neuron.sdk.* facts in
 * stackprint-policy(5), "Derived facts"), and the look-ups that let a
 * policy's misspelled key be named with the nearest documented one.
 *
 * A pattern is a key in which "*" stands for one part a probe fills in:
 * inside the pattern it matches one or more bytes without a dot (a slug,
 * "NNN"); at its end it matches one or more bytes of any kind (a package
 * name may hold dots: deb.python3.11).  "pip.*" documents every pip.NAME.
 *
 * Besides the patterns the table lists well-known names under them
 * (pip.torch, deb.aws-neuronx-dkms, ...): the names the shipped policies and
 * the documentation use, against which a near miss (pip.trch) is caught.
 *
 * Nothing here allocates, prints or exits.
 */
#ifndef SP_FACT_KEYS_H
#define SP_FACT_KEYS_H

#include <stddef.h>

enum sp_fact_key_kind {
    SP_FACT_KEY_DOCUMENTED,   /* a key or pattern a page documents */
    SP_FACT_KEY_NAME,         /* a well-known key under a pattern */
};

struct sp_fact_key_doc {
    const char *pattern;      /* "host.os.id", "pip.*", "pip.torch" */
    enum sp_fact_key_kind kind;
    const char *page;         /* the page that documents it: "stackprint-manifest(5)" */
};

/* sp_fact_keys: the table, ended by an entry whose pattern is NULL. */
extern const struct sp_fact_key_doc sp_fact_keys[];

/* sp_fact_key_documented: 1 when KEY (a NUL-terminated fact key) is a
 * documented key or matches a documented pattern, else 0. */
int sp_fact_key_documented(const char *key);

/* sp_fact_key_nearest: the documented key nearest to KEY, by the optimal
 * string alignment distance (Levenshtein's insertions, deletions and
 * substitutions, plus transpositions of two neighbouring bytes), written to
 * OUT (OUTSZ bytes, NUL-terminated, cut if too small); a pattern is
 * compared by its fixed text before the first "*" against as many bytes of
 * KEY, and offered with KEY's remaining bytes after it ("deb-aws-x" gives
 * "deb.aws-x").  Well-known names count as candidates.  Ties go to the
 * earlier table entry.  Returns OUT, or NULL when OUTSZ is 0. */
const char *sp_fact_key_nearest(const char *key, char *out, size_t outsz);

/* sp_fact_key_near_name: when KEY matches a pattern ending in "*" but is no
 * well-known name, and the part "*" matched is one edit (as above) from a
 * well-known name's under the same pattern, that name's key with KEY's
 * leading parts kept (python.env.S.pip.trch gives python.env.S.pip.torch),
 * written to OUT; returns OUT, else NULL.  The pip names serve pip.* and
 * python.env.*.pip.* alike. */
const char *sp_fact_key_near_name(const char *key, char *out, size_t outsz);

/* sp_edit_distance: the optimal string alignment distance between A and B
 * (bytes, case-sensitive), or LIMIT + 1 when it is more than LIMIT.  Strings
 * longer than 512 bytes count as more than LIMIT apart. */
size_t sp_edit_distance(const char *a, const char *b, size_t limit);

#endif
