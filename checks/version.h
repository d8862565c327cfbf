/* checks/version.h: version schemes, each a strict parser plus a total
 * order, behind one interface (stackprint-policy(5), "VERSION SCHEMES").
 *
 *   pep440  Python's version specification (PEP 440, as implemented by
 *           packaging 23.0's Version): checks/version_pep440.c
 *   deb     deb-version(7), dpkg's verrevcmp: checks/version_deb.c
 *   rpm     rpm's rpmvercmp, epoch:version-release: checks/version_rpm.c
 *   dotted  dot-separated unsigned integers: checks/version_dotted.c
 *
 * A version that does not parse is an error, never compared as a string.
 * Numbers may have any number of digits (no overflow: they are compared as
 * digit strings).  Input longer than SP_VERSION_TEXT_MAX bytes is refused.
 *
 * Memory: sp_version_parse() returns a version the caller releases with
 * sp_version_free(); it holds no pointer into the text it was given.
 * Nothing here prints or exits.
 */
#ifndef SP_VERSION_H
#define SP_VERSION_H

#include <stddef.h>

#include "common/error.h"

#define SP_VERSION_TEXT_MAX 256     /* bytes in a version string */

/* What sp_version_compare() looks at.  Only PEP 440 distinguishes them;
 * the other schemes always compare everything. */
enum sp_cmp {
    SP_CMP_FULL,      /* the whole version */
    SP_CMP_PUBLIC,    /* PEP 440: without the local label */
    SP_CMP_BASE,      /* PEP 440: epoch and release only ("base_version") */
};

/* sp_version.flags */
#define SP_VERSION_PRE    1u   /* PEP 440 pre-release or developmental release */
#define SP_VERSION_POST   2u   /* PEP 440 post-release */
#define SP_VERSION_LOCAL  4u   /* PEP 440 local label ("+cu121") */
#define SP_VERSION_TAIL   8u   /* anything after the release that a prefix
                                  (==V.*, ~=) may not carry: PEP 440 pre,
                                  post, dev or local; a deb revision; an rpm
                                  release */

struct sp_scheme;

/* The common head of every scheme's parsed version. */
struct sp_version {
    const struct sp_scheme *scheme;
    unsigned flags;               /* SP_VERSION_* */
    size_t release_length;        /* components of the release (PEP 440,
                                     dotted) or of the dot-separated upstream
                                     version (deb, rpm) */
    const char *normal;           /* normalised text (PEP 440: str(Version));
                                     other schemes: the text as given */
};

struct sp_scheme {
    const char *name;             /* "pep440", "deb", "rpm", "dotted" */
    const char *title;            /* for messages: "PEP 440" */
    struct sp_version *(*parse)(const char *text, struct sp_error *e);
    int (*compare)(const struct sp_version *a, const struct sp_version *b,
                   enum sp_cmp how);
    /* 1 when V starts with the leading components of PREFIX (all of them,
     * or all but the last when DROP_LAST); the rules of each scheme are in
     * its file.  Both must be of this scheme. */
    int (*prefix_match)(const struct sp_version *v, const struct sp_version *prefix,
                        int drop_last);
    void (*free)(struct sp_version *v);
};

extern const struct sp_scheme sp_scheme_pep440, sp_scheme_deb, sp_scheme_rpm,
    sp_scheme_dotted;

/* sp_scheme_by_name: "pep440", "deb", "rpm" or "dotted"; NULL otherwise. */
const struct sp_scheme *sp_scheme_by_name(const char *name);

/* sp_scheme_for_key: the scheme a fact key implies (stackprint-policy(5), "VERSION SCHEMES"):
 * pip.*, python.env.*.pip.*, python.version, python.env.*.version,
 * runtime.python.version, runtime.torch.version,
 * runtime.torch_neuronx.version: pep440;
 * deb.*: deb; rpm.*: rpm; anything else: dotted.  Never NULL. */
const struct sp_scheme *sp_scheme_for_key(const char *key);

/* sp_python_env_rest: for a key python.env.SLUG.REST (a slug is made from
 * a path and holds no dots, stackprint-manifest(5)), a pointer to REST
 * inside KEY; NULL for any other key. */
const char *sp_python_env_rest(const char *key);

/* sp_version_parse: parse TEXT in SCHEME.  Returns the version (caller frees
 * with sp_version_free), or NULL with E set: SP_EXIT_INPUT and the message
 * "'TEXT' is not a valid <title> version: <why>" (TEXT shown with control
 * characters escaped), or "out of memory". */
struct sp_version *sp_version_parse(const struct sp_scheme *scheme, const char *text,
                                    struct sp_error *e);

/* sp_version_compare: <0, 0 or >0 as A sorts before, equal to, or after B.
 * A and B must be of the same scheme. */
int sp_version_compare(const struct sp_version *a, const struct sp_version *b,
                       enum sp_cmp how);

void sp_version_free(struct sp_version *v);

/* sp_version_sort: sort the N version texts TEXTS in place, ascending in
 * SCHEME, for listing the versions a probe or the catalog found or choosing
 * the highest of them: texts that parse are ordered by the scheme; two the
 * scheme calls equal ("2.29" and "2.29.0" in dotted, "1.0" and "1.0.0" in
 * PEP 440) by their bytes, so that the result never depends on the order
 * they came in; a text that does not parse sorts after every one that does,
 * and those among themselves by their bytes.  The pointers are moved, not
 * the strings.  Returns 0, or -1 with E set (SP_EXIT_INPUT, "out of
 * memory") and TEXTS unchanged. */
int sp_version_sort(const struct sp_scheme *scheme, const char **texts, size_t n,
                    struct sp_error *e);

/* sp_version_leading: the first N (>= 1) release components of V as text,
 * into OUT (OUTSZ bytes), taken from V's normal form with its epoch kept:
 * PEP 440 2.1.2.2.2.0+cu121 with N = 3 is "2.1.2", 1!2.0.1 with N = 2 is
 * "1!2.0", Debian 1:2.19.5.0-1 with N = 2 is "1:2.19".  A release
 * component is a run of digits; components are joined by dots.  Returns 0,
 * or -1 when V has fewer than N such components or OUT is too small. */
int sp_version_leading(const struct sp_version *v, unsigned n, char *out, size_t outsz);

/* Shared by the scheme files and specifier.c, not for other callers. */

/* ASCII character classes (never the locale's). */
static inline int sp_ascii_digit(char c) { return c >= '0' && c <= '9'; }
static inline int sp_ascii_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static inline int sp_ascii_alnum(char c) { return sp_ascii_digit(c) || sp_ascii_alpha(c); }

/* Python's str.isspace() for ASCII, which is what packaging's \s and
 * strip() see: space, \t \n \v \f \r, and 0x1c-0x1f. */
static inline int sp_py_space(unsigned char c)
{
    return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f);
}

/* sp_digits_compare: compare two unsigned decimal numbers given as digit
 * runs (A, AN bytes; B, BN bytes), leading zeros ignored.  <0, 0, >0. */
int sp_digits_compare(const char *a, size_t an, const char *b, size_t bn);

/* sp_components_prefix: 1 when the text V begins with the text PREFIX
 * (without PREFIX's last dot-separated component when DROP_LAST),
 * followed by the end or by a character that is not an ASCII letter or
 * digit: "2.24" is a prefix of "2.24", "2.24.7.0" and "2.24~rc1", not of
 * "2.240".  The deb and rpm schemes' prefix rule on their upstream
 * version. */
int sp_components_prefix(const char *v, const char *prefix, int drop_last);

/* sp_version_free_one: a scheme's free for a version that is one
 * allocation (deb, rpm, pep440). */
void sp_version_free_one(struct sp_version *v);

/* sp_version_bad: fill E with "'TEXT' is not a valid TITLE version: WHY";
 * returns NULL so that parsers can `return sp_version_bad(...)`. */
struct sp_version *sp_version_bad(struct sp_error *e, const char *title,
                                  const char *text, const char *why);

#endif
