/* fingerprint/probes/probe_dpkg.c: deb.<name> = Version for every package dpkg
 * records as installed in /var/lib/dpkg/status (deb822 stanzas, dpkg(1)
 * "FILES"; the third word of "Status: want flag state" is the state, and
 * only "installed" counts, as dpkg-query's ${db:Status-Status}).
 *
 * Multi-arch: a name installed for several architectures (Multi-Arch: same,
 * which dpkg only allows at one version) gives deb.<name> = that version
 * plus deb.<name>:<arch> for each instance; if the instances disagree (a
 * damaged database) deb.<name> is left out with a warning.
 * A stanza without Package, Status or (when installed) Version is a warning
 * "file:line", never a fact.  The file is streamed: at most
 * DPKG_STATUS_MAX bytes, lines cut at DPKG_LINE_MAX.  Must not: run dpkg. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/array.h"
#include "fingerprint/probes/probe.h"

#define DPKG_STATUS "/var/lib/dpkg/status"
#define DPKG_STATUS_MAX (64ull << 20)    /* bytes of the status file */
#define DPKG_LINE_MAX 4096               /* bytes kept of one line */
#define DPKG_FIELD_MAX 256               /* bytes of Package, Version, Status, Architecture */
#define DPKG_PACKAGES_MAX 200000         /* installed packages recorded */
#define DPKG_WARNINGS_MAX 20             /* stanza warnings before they are counted */

struct deb {
    char *name, *arch, *version;
    unsigned long line;
};

struct parse {
    struct probe_ctx *ctx;
    char line[DPKG_LINE_MAX + 1];
    size_t len;
    unsigned long lineno;
    int cut;                            /* the current line was longer than DPKG_LINE_MAX */
    /* the current stanza */
    unsigned long start;                /* line of its first field, 0 when none yet */
    char package[DPKG_FIELD_MAX], version[DPKG_FIELD_MAX], status[DPKG_FIELD_MAX],
         arch[DPKG_FIELD_MAX];
    int bad;                            /* a field of ours was malformed */
    struct deb *debs;
    size_t ndebs, cap;
    size_t warned, unwarned;
    unsigned long long over;            /* installed packages past DPKG_PACKAGES_MAX */
    int nomem;
    unsigned long long total;
};

static void stanza_warn(struct parse *p, unsigned long line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void stanza_warn(struct parse *p, unsigned long line, const char *fmt, ...)
{
    if (p->warned >= DPKG_WARNINGS_MAX) {
        p->unwarned++;
        return;
    }
    p->warned++;
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    factset_warn(p->ctx->facts, "deb: " DPKG_STATUS ":%lu: %s", line, what);
}

static int name_valid(const char *s)
{
    if (!islower((unsigned char)s[0]) && !isdigit((unsigned char)s[0]))
        return 0;
    for (const char *c = s; *c; c++)
        if (!islower((unsigned char)*c) && !isdigit((unsigned char)*c) && !strchr("+-.", *c))
            return 0;
    return s[1] != '\0';
}

static int version_valid(const char *s)
{
    if (!isalnum((unsigned char)s[0]))
        return 0;
    for (const char *c = s; *c; c++)
        if (!isalnum((unsigned char)*c) && !strchr(".+~-:", *c))
            return 0;
    return 1;
}

static void end_stanza(struct parse *p)
{
    static const char *const states[] = {
        "not-installed", "config-files", "half-installed", "unpacked", "half-configured",
        "triggers-awaited", "triggers-pending", "installed",
    };
    if (p->start == 0)
        return;
    unsigned long at = p->start;
    char want[32], flag[32], state[32];
    p->start = 0;
    if (p->bad) {
        stanza_warn(p, at, "malformed field; stanza skipped");
    } else if (p->package[0] == '\0') {
        stanza_warn(p, at, "stanza without Package (truncated?); skipped");
    } else if (!name_valid(p->package)) {
        stanza_warn(p, at, "package '%.64s': not a valid package name; skipped", p->package);
    } else if (p->status[0] == '\0') {
        stanza_warn(p, at, "package %.64s: no Status (truncated?); skipped", p->package);
    } else if (sscanf(p->status, "%31s %31s %31s", want, flag, state) != 3) {
        stanza_warn(p, at, "package %.64s: malformed Status; skipped", p->package);
    } else {
        size_t s = 0;
        while (s < sizeof states / sizeof *states && strcmp(states[s], state) != 0)
            s++;
        if (s == sizeof states / sizeof *states) {
            stanza_warn(p, at, "package %.64s: unknown Status state; skipped", p->package);
        } else if (strcmp(state, "installed") == 0) {
            if (p->version[0] == '\0') {
                stanza_warn(p, at, "package %.64s: installed but no Version (truncated?); "
                            "skipped", p->package);
            } else if (!version_valid(p->version)) {
                stanza_warn(p, at, "package %.64s: malformed Version; skipped", p->package);
            } else if (p->ndebs >= DPKG_PACKAGES_MAX) {
                if (p->over++ == 0)
                    stanza_warn(p, at, "more than %d installed packages; the rest skipped "
                                "(counted in " SP_FACTS_DROPPED_KEY ")", DPKG_PACKAGES_MAX);
            } else {
                if (SP_ARRAY_RESERVE(p->debs, p->cap, p->ndebs + 1) != 0) {
                    p->nomem = 1;
                    return;
                }
                struct deb *d = &p->debs[p->ndebs];
                d->name = strdup(p->package);
                d->arch = strdup(p->arch[0] ? p->arch : "none");
                d->version = strdup(p->version);
                d->line = at;
                if (!d->name || !d->arch || !d->version) {
                    free(d->name);
                    free(d->arch);
                    free(d->version);
                    p->nomem = 1;
                    return;
                }
                p->ndebs++;
            }
        }
    }
    p->package[0] = p->version[0] = p->status[0] = p->arch[0] = '\0';
    p->bad = 0;
}

/* One complete line (without its newline). */
static void parse_line(struct parse *p)
{
    p->line[p->len] = '\0';
    char *l = p->line;
    if (p->len == 0 || strspn(l, " \t\r") == p->len) {
        end_stanza(p);
        return;
    }
    if (p->start == 0)
        p->start = p->lineno;
    if (l[0] == ' ' || l[0] == '\t' || l[0] == '#')
        return;                                   /* continuation line */
    static const struct { const char *name; size_t off; } fields[] = {
        { "Package", offsetof(struct parse, package) },
        { "Version", offsetof(struct parse, version) },
        { "Status", offsetof(struct parse, status) },
        { "Architecture", offsetof(struct parse, arch) },
    };
    char *colon = strchr(l, ':');
    if (colon == NULL) {
        p->bad = 1;
        return;
    }
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
        size_t nl = strlen(fields[i].name);
        if ((size_t)(colon - l) != nl || strncasecmp(l, fields[i].name, nl) != 0)
            continue;
        char *v = colon + 1;
        v += strspn(v, " \t");
        size_t vl = strlen(v);
        while (vl > 0 && (v[vl - 1] == ' ' || v[vl - 1] == '\t' || v[vl - 1] == '\r'))
            v[--vl] = '\0';
        char *dst = (char *)p + fields[i].off;
        if (p->cut || vl >= DPKG_FIELD_MAX || vl == 0 || dst[0] != '\0')
            p->bad = 1;                           /* too long, empty or repeated */
        else
            memcpy(dst, v, vl + 1);
    }
}

/* Append SEG (N bytes, no newline) to the current line, cutting it at
 * DPKG_LINE_MAX; a NUL byte becomes a space. */
static void append(struct parse *p, const char *seg, size_t n)
{
    size_t room = DPKG_LINE_MAX - p->len;
    if (n > room) {
        p->cut = 1;
        n = room;
    }
    memcpy(p->line + p->len, seg, n);
    for (char *z = p->line + p->len; (z = memchr(z, '\0', (size_t)(p->line + p->len + n - z))) != NULL;)
        *z = ' ';
    p->len += n;
}

static int on_chunk(void *c, const char *chunk, size_t n)
{
    struct parse *p = c;
    p->total += n;
    if (p->total > DPKG_STATUS_MAX)
        return 1;
    const char *end = chunk + n;
    while (chunk < end && !p->nomem) {
        const char *nl = memchr(chunk, '\n', (size_t)(end - chunk));
        append(p, chunk, (size_t)((nl ? nl : end) - chunk));
        if (nl == NULL)
            break;
        p->lineno++;
        parse_line(p);
        p->len = 0;
        p->cut = 0;
        chunk = nl + 1;
    }
    return p->nomem;
}

static int cmp_deb(const void *a, const void *b)
{
    const struct deb *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : strcmp(x->arch, y->arch);
}

static void free_debs(struct parse *p)
{
    for (size_t i = 0; i < p->ndebs; i++) {
        free(p->debs[i].name);
        free(p->debs[i].arch);
        free(p->debs[i].version);
    }
    free(p->debs);
}

/* Record the parsed packages; -1 on ENOMEM. */
static int record(struct parse *p)
{
    char key[2 * DPKG_FIELD_MAX + 8], ev[64];
    if (p->over && probe_dropped(p->ctx, "deb.*", DPKG_PACKAGES_MAX, p->over) != 0)
        return -1;
    if (p->ndebs == 0)
        return 0;
    qsort(p->debs, p->ndebs, sizeof *p->debs, cmp_deb);
    for (size_t i = 0; i < p->ndebs;) {
        size_t j = i + 1;
        int agree = 1;
        while (j < p->ndebs && strcmp(p->debs[j].name, p->debs[i].name) == 0) {
            agree &= strcmp(p->debs[j].version, p->debs[i].version) == 0;
            j++;
        }
        snprintf(key, sizeof key, "deb.%s", p->debs[i].name);
        snprintf(ev, sizeof ev, DPKG_STATUS ":%lu", p->debs[i].line);
        if (agree) {
            if (probe_set(p->ctx, key, p->debs[i].version, ev) != 0)
                return -1;
        } else {
            factset_warn(p->ctx->facts, "%s: " DPKG_STATUS ": installed for several "
                         "architectures at different versions; see %s:<arch>", key, key);
        }
        for (size_t k = i; j - i > 1 && k < j; k++) {
            snprintf(key, sizeof key, "deb.%s:%s", p->debs[k].name, p->debs[k].arch);
            snprintf(ev, sizeof ev, DPKG_STATUS ":%lu", p->debs[k].line);
            if (k > i && strcmp(p->debs[k].arch, p->debs[k - 1].arch) == 0)
                factset_warn(p->ctx->facts, "%s: " DPKG_STATUS ":%lu: installed twice for "
                             "one architecture; the later stanza is not recorded", key,
                             p->debs[k].line);
            else if (probe_set(p->ctx, key, p->debs[k].version, ev) != 0)
                return -1;
        }
        i = j;
    }
    return 0;
}

int probe_dpkg(struct probe_ctx *ctx, struct sp_error *e)
{
    struct root_stat st;
    if (root_stat(ctx->root, DPKG_STATUS, 1, &st) != 0) {
        if (errno != ENOENT)
            probe_warn_errno(ctx, "deb", DPKG_STATUS, errno);
        return 0;
    }
    if (st.type != ROOT_T_FILE) {
        probe_warn_errno(ctx, "deb", DPKG_STATUS, EINVAL);
        return 0;
    }
    if (st.size > DPKG_STATUS_MAX) {
        factset_warn(ctx->facts, "deb: " DPKG_STATUS ": larger than %llu bytes; no deb.* "
                     "recorded", DPKG_STATUS_MAX);
        return 0;
    }
    struct parse *p = calloc(1, sizeof *p);
    if (p == NULL)
        return sp_fail(e, SP_EXIT_INPUT, "dpkg: out of memory");
    p->ctx = ctx;
    int rc = 0;
    if (root_scan_file(ctx->root, DPKG_STATUS, DPKG_STATUS_MAX + 1, on_chunk, p) != 0) {
        probe_warn_errno(ctx, "deb", DPKG_STATUS, errno);
        goto out;
    }
    if (p->nomem)
        goto nomem;
    if (p->total > DPKG_STATUS_MAX) {
        factset_warn(ctx->facts, "deb: " DPKG_STATUS ": larger than %llu bytes; no deb.* "
                     "recorded", DPKG_STATUS_MAX);
        goto out;
    }
    if (p->len > 0 || p->cut) {
        /* dpkg ends every line with a newline: the file was cut short, and
         * the stanza it cut is not trusted */
        p->lineno++;
        factset_warn(ctx->facts, "deb: " DPKG_STATUS ":%lu: file ends inside a line "
                     "(truncated?); that stanza skipped", p->lineno);
        p->start = 0;
    }
    end_stanza(p);
    if (p->nomem)
        goto nomem;
    if (p->unwarned)
        factset_warn(ctx->facts, "deb: " DPKG_STATUS ": %zu more stanzas skipped "
                     "(warnings past the first %d not shown)", p->unwarned, DPKG_WARNINGS_MAX);
    if (record(p) == 0)
        goto out;
nomem:
    rc = sp_fail(e, SP_EXIT_INPUT, "dpkg: out of memory");
out:
    free_debs(p);
    free(p);
    return rc;
}
