/* checks/release.c: Neuron SDK release inference; see release.h.  Pure: reads
 * only the catalog and the fact set it is given. */
#include "checks/release.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/version.h"
#include "common/strbuf.h"

struct component {
    const char *key;        /* the fact key: "pip.neuronx-cc" */
    const char *name;       /* the package name to look up */
    const char *version;
    char scheme;            /* 'p', 'd' or 'n': see catalog_version_matches */
    unsigned char *in;      /* in[r]: release r shipped this version */
    size_t count;           /* how many releases did */
};

/* Does package PK of the catalog name the component? */
static int same_name(const struct catalog_package *pk, const struct component *c)
{
    return strcmp(c->scheme == 'p' ? pk->pep503 : pk->name, c->name) == 0;
}

static void locate(const struct catalog *cat, struct component *c)
{
    for (size_t r = 0; r < cat->nreleases; r++) {
        const struct catalog_release *rel = &cat->releases[r];
        for (size_t p = 0; p < rel->npackages; p++)
            if (same_name(&rel->packages[p], c) &&
                catalog_version_matches(rel->packages[p].version, c->version, c->scheme)) {
                c->in[r] = 1;
                c->count++;
                break;
            }
    }
}

/* A comma-separated list, built in linear time; it becomes one fact value,
 * so it is bounded by SP_FACT_VALUE_MAX (an element that would cross the
 * bound is left out whole, and the list is then marked over). */
struct list {
    struct sp_strbuf sb;
};

static void list_reset(struct list *l)
{
    sp_strbuf_free(&l->sb);
    sp_strbuf_init(&l->sb, SP_FACT_VALUE_MAX);
}

static void list_add(struct list *l, const char *s)
{
    sp_strbuf_item(&l->sb, ",", s);
}

static const char *list_str(const struct list *l)
{
    return sp_strbuf_str(&l->sb);
}

/* Releases where IN is set, oldest first. */
static void releases_of(const struct catalog *cat, const unsigned char *in, struct list *l)
{
    list_reset(l);
    for (size_t r = cat->nreleases; r-- > 0;)
        if (in[r])
            list_add(l, cat->releases[r].release);
}

/* Length of the leading "X.Y" of a release name. */
static size_t line_len(const char *rel)
{
    const char *dot = strchr(rel, '.');
    if (dot == NULL)
        return strlen(rel);
    const char *dot2 = strchr(dot + 1, '.');
    return dot2 ? (size_t)(dot2 - rel) : strlen(rel);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Packages the SDK's table classes as helper libraries of a framework
 * (n2-manifest.json package_properties: category "general" or
 * "helper-lib").  Their instance lists do not say where the framework runs:
 * the 2.21.0 rows list libneuronxla 2.1.681.0 for trn1,inf2 beside
 * torch-neuronx 2.5.1.2.4.0 (which needs it) for trn1,inf2,trn2, and 2.32.0
 * lists libneuronxla 3.0.5356.0 for trn1,inf2 only.  So they never narrow
 * neuron.sdk.instances; their Python lists still count.  Names as the table
 * spells them; tests/sh/catalog.sh checks this list against the table. */
static const char *const helper_libraries[] = {
    "aws-neuronx-runtime-discovery", "libneuronxla", "torch_xla",
};

static int is_helper_library(const char *table_name)
{
    for (size_t i = 0; i < sizeof helper_libraries / sizeof *helper_libraries; i++)
        if (strcmp(helper_libraries[i], table_name) == 0)
            return 1;
    return 0;
}

/* What the components found agree on: for each component (pip ones only
 * when PYTHON), the union of its package's python or instance names over
 * the selected releases SEL (instances: helper libraries' rows left out);
 * then the intersection over components, sorted (Python versions in
 * neuron.sdk.python's scheme).  Empty when no component qualifies.  0, or
 * -1 with E set (out of memory). */
static int release_attrs(const struct catalog *cat, const unsigned char *sel,
                         const struct component *comp, size_t ncomp, int python,
                         struct list *out, struct sp_error *e)
{
    enum { NAMES_MAX = 64 };
    const char *common[NAMES_MAX];
    size_t ncommon = 0;
    int first = 1;
    for (size_t i = 0; i < ncomp; i++) {
        if (comp[i].count == 0 || (python && comp[i].scheme != 'p'))
            continue;
        const char *mine[NAMES_MAX];
        size_t nmine = 0;
        for (size_t r = 0; r < cat->nreleases; r++) {
            if (!sel[r] || !comp[i].in[r])
                continue;
            const struct catalog_release *rel = &cat->releases[r];
            for (size_t p = 0; p < rel->npackages; p++) {
                const struct catalog_package *pk = &rel->packages[p];
                if (!same_name(pk, &comp[i]) ||
                    !catalog_version_matches(pk->version, comp[i].version, comp[i].scheme) ||
                    (!python && is_helper_library(pk->name)))
                    continue;
                char **v = python ? pk->pythons : pk->instances;
                size_t vn = python ? pk->npythons : pk->ninstances;
                for (size_t k = 0; k < vn; k++) {
                    size_t j = 0;
                    while (j < nmine && strcmp(mine[j], v[k]) != 0)
                        j++;
                    if (j == nmine && nmine < NAMES_MAX)
                        mine[nmine++] = v[k];
                }
            }
        }
        if (nmine == 0)
            continue;           /* the table lists none for it: no constraint */
        if (first) {
            memcpy(common, mine, nmine * sizeof *mine);
            ncommon = nmine;
            first = 0;
            continue;
        }
        size_t w = 0;
        for (size_t j = 0; j < ncommon; j++) {
            size_t k = 0;
            while (k < nmine && strcmp(mine[k], common[j]) != 0)
                k++;
            if (k < nmine)
                common[w++] = common[j];
        }
        ncommon = w;
    }
    if (python) {               /* Python versions in the fact's scheme */
        if (sp_version_sort(sp_scheme_for_key("neuron.sdk.python"), common, ncommon, e) != 0)
            return sp_fail(e, SP_EXIT_INPUT, "release inference: out of memory");
    } else {
        qsort(common, ncommon, sizeof *common, cmp_str);
    }
    list_reset(out);
    for (size_t i = 0; i < ncommon; i++)
        list_add(out, common[i]);
    if (!first && ncommon == 0)
        list_add(out, "none");
    return 0;
}

static int set(struct factset *fs, const char *key, const char *value, const char *evidence,
               struct sp_error *e)
{
    if (value[0] == '\0')
        return 0;
    if (factset_set(fs, key, value, evidence) != 0 && errno == ENOMEM)
        return sp_fail(e, SP_EXIT_INPUT, "release inference: out of memory");
    return 0;
}

/* KEY = the upstream version (catalog_upstream(): no epoch, no revision,
 * no yum build hash) of the first of the facts A, B, C that is present, or
 * a neuron.* fact's value as is; evidence: its key. */
static int upstream_fact(struct factset *fs, const char *key, const char *a, const char *b,
                         const char *c, struct sp_error *e)
{
    const char *from[3] = { a, b, c };
    for (int i = 0; i < 3; i++) {
        const char *v = factset_get(fs, from[i]);
        if (v == NULL)
            continue;
        char buf[SP_FACT_VALUE_MAX + 1];
        size_t n = strlen(v);
        if (strncmp(from[i], "neuron.", 7) != 0)
            v = catalog_upstream(v, &n);
        snprintf(buf, sizeof buf, "%.*s", (int)(n < SP_FACT_VALUE_MAX ? n : SP_FACT_VALUE_MAX), v);
        return set(fs, key, buf, from[i], e);
    }
    return 0;
}

/* neuron.sdk.cache_compiler_release: the release of the newest compiler
 * that filled the compile cache (neuron.cache.compilers), each compiler's
 * release being the oldest that ships its version, as for
 * neuron.sdk.compiler_release; absent when no cache compiler is in the
 * catalog.  A NEFF from a compiler newer than the runtime does not load
 * (aws-neuron-sdk#820, #823). */
static int cache_compiler_release(const struct catalog *cat, struct factset *facts,
                                  struct sp_error *e)
{
    const char *list = factset_get(facts, "neuron.cache.compilers");
    size_t best = cat->nreleases;        /* smallest index: the newest release */
    for (const char *v = list; v && *v;) {
        size_t n = strcspn(v, ",");
        char version[256];
        if (n > 0 && n < sizeof version) {
            snprintf(version, sizeof version, "%.*s", (int)n, v);
            size_t oldest = cat->nreleases;
            for (size_t r = 0; r < cat->nreleases; r++)
                for (size_t p = 0; p < cat->releases[r].npackages; p++) {
                    const struct catalog_package *pk = &cat->releases[r].packages[p];
                    if (strcmp(pk->pep503, "neuronx-cc") == 0 &&
                        catalog_version_matches(pk->version, version, 'p'))
                        oldest = r;
                }
            if (oldest < best)
                best = oldest;
        }
        v += n + (v[n] == ',');
    }
    if (best == cat->nreleases)
        return 0;
    return set(facts, "neuron.sdk.cache_compiler_release", cat->releases[best].release,
               "neuron.cache.compilers", e);
}

/* One inference: what release_infer() works on, step by step. */
struct infer {
    const struct catalog *cat;
    struct factset *facts;
    struct sp_error *e;
    size_t nr;                  /* releases in the catalog */
    struct component *comp;     /* the catalogued components, in key order */
    size_t ncomp;
    struct component driver;    /* the loaded module, else the dkms package */
    unsigned char *all;         /* all[r]: release r holds every component used */
    size_t used;                /* components in the consensus */
    struct list l, unc;         /* scratch list; the uncatalogued components */
};

static int nomem(struct infer *x)
{
    return sp_fail(x->e, SP_EXIT_INPUT, "release inference: out of memory");
}

static int is_dkms(const struct component *c)
{
    return strcmp(c->name, "aws-neuronx-dkms") == 0;
}

/* The components, in key order (facts are sorted): deb.*, rpm.* and pip.*
 * facts the catalog names, then the library file names' versions when no
 * package records the runtime or the collectives. */
static void collect_components(struct infer *x)
{
    int have_runtime_pkg = 0, have_coll_pkg = 0;
    for (size_t i = 0; i < x->facts->count; i++) {
        const char *k = x->facts->facts[i].key;
        struct component c = { .key = k, .version = x->facts->facts[i].value };
        if (strncmp(k, "deb.", 4) == 0 || strncmp(k, "rpm.", 4) == 0)
            c.scheme = 'd';
        else if (strncmp(k, "pip.", 4) == 0)
            c.scheme = 'p';
        else
            continue;
        c.name = k + 4;
        if (!catalog_has_name(x->cat, c.name, c.scheme == 'p'))
            continue;
        have_runtime_pkg |= strcmp(c.name, "aws-neuronx-runtime-lib") == 0;
        have_coll_pkg |= strcmp(c.name, "aws-neuronx-collectives") == 0;
        x->comp[x->ncomp++] = c;
    }
    const char *rt = factset_get(x->facts, "neuron.runtime.version");
    const char *co = factset_get(x->facts, "neuron.collectives.version");
    if (rt && !have_runtime_pkg)
        x->comp[x->ncomp++] = (struct component){ "neuron.runtime.version",
                                                  "aws-neuronx-runtime-lib", rt, 'n', NULL, 0 };
    if (co && !have_coll_pkg)
        x->comp[x->ncomp++] = (struct component){ "neuron.collectives.version",
                                                  "aws-neuronx-collectives", co, 'n', NULL, 0 };
}

/* The driver: the loaded module, else the installed dkms package (deb,
 * then rpm); its version is NULL when there is none. */
static void choose_driver(struct infer *x, unsigned char *in)
{
    struct component *d = &x->driver;
    const char *drv = factset_get(x->facts, "neuron.driver.version");
    *d = (struct component){ "neuron.driver.version", "aws-neuronx-dkms", drv, 'n', in, 0 };
    if (drv == NULL) {
        d->key = "deb.aws-neuronx-dkms";
        d->version = factset_get(x->facts, d->key);
        d->scheme = 'd';
        if (d->version == NULL) {
            d->key = "rpm.aws-neuronx-dkms";
            d->version = factset_get(x->facts, d->key);
        }
    }
}

/* The facts set whenever a source is present: the runtime and driver
 * versions as dotted numbers, whichever fact holds them (for the
 * driver/runtime rules), and the installed aws-neuronx-* system packages
 * (for the legacy rule). */
static int source_facts(struct infer *x)
{
    if (upstream_fact(x->facts, "neuron.sdk.runtime_version", "deb.aws-neuronx-runtime-lib",
                      "rpm.aws-neuronx-runtime-lib", "neuron.runtime.version", x->e) != 0 ||
        upstream_fact(x->facts, "neuron.sdk.driver_version", "neuron.driver.version",
                      "deb.aws-neuronx-dkms", "rpm.aws-neuronx-dkms", x->e) != 0)
        return -1;
    list_reset(&x->l);
    for (size_t i = 0; i < x->facts->count; i++) {
        const char *k = x->facts->facts[i].key;
        if (strncmp(k, "deb.aws-neuronx-", 16) == 0 || strncmp(k, "rpm.aws-neuronx-", 16) == 0)
            list_add(&x->l, k);
    }
    return set(x->facts, "neuron.sdk.x_packages", list_str(&x->l), NULL, x->e);
}

/* Where each component's version shipped, and the driver's release. */
static int locate_components(struct infer *x)
{
    for (size_t i = 0; i < x->ncomp; i++) {
        if ((x->comp[i].in = calloc(x->nr, 1)) == NULL)
            return nomem(x);
        locate(x->cat, &x->comp[i]);
    }
    if (x->driver.version == NULL)
        return 0;
    locate(x->cat, &x->driver);
    releases_of(x->cat, x->driver.in, &x->l);
    return set(x->facts, "neuron.sdk.driver_release", x->l.sb.len ? list_str(&x->l) : "unknown",
               x->driver.key, x->e);
}

/* The consensus over every catalogued component except the driver's
 * package: neuron.sdk.release_of.*, neuron.sdk.uncatalogued, ALL, USED. */
static int consensus(struct infer *x)
{
    char key[SP_FACT_KEY_MAX + 64];
    memset(x->all, 1, x->nr);
    list_reset(&x->unc);
    for (size_t i = 0; i < x->ncomp; i++) {
        const struct component *c = &x->comp[i];
        releases_of(x->cat, c->in, &x->l);
        snprintf(key, sizeof key, "neuron.sdk.release_of.%s", c->key);
        if (set(x->facts, key, x->l.sb.len ? list_str(&x->l) : "none", c->version, x->e) != 0)
            return -1;
        if (is_dkms(c))
            continue;
        if (c->count == 0) {
            list_add(&x->unc, c->key);
            continue;
        }
        x->used++;
        for (size_t r = 0; r < x->nr; r++)
            x->all[r] &= c->in[r];
    }
    return set(x->facts, "neuron.sdk.uncatalogued", list_str(&x->unc), NULL, x->e);
}

/* Mixed: the release holding most components (newest on a tie) becomes
 * neuron.sdk.nearest and the only one selected in ALL; neuron.sdk.odd
 * lists the components it lacks. */
static int mixed(struct infer *x)
{
    size_t best = 0, best_n = 0;
    for (size_t r = 0; r < x->nr; r++) {
        size_t n = 0;
        for (size_t i = 0; i < x->ncomp; i++)
            n += x->comp[i].in[r] && !is_dkms(&x->comp[i]);
        if (n > best_n) {
            best_n = n;
            best = r;
        }
    }
    list_reset(&x->l);
    for (size_t i = 0; i < x->ncomp; i++)
        if (x->comp[i].count > 0 && !x->comp[i].in[best] && !is_dkms(&x->comp[i]))
            list_add(&x->l, x->comp[i].key);
    if (set(x->facts, "neuron.sdk.nearest", x->cat->releases[best].release, NULL, x->e) != 0 ||
        set(x->facts, "neuron.sdk.odd", list_str(&x->l), NULL, x->e) != 0)
        return -1;
    memset(x->all, 0, x->nr);
    x->all[best] = 1;
    return 0;
}

enum { LINE_MAX_BYTES = 64 };   /* an "X.Y" line longer than this is not named */

/* Consistent releases: neuron.sdk.candidates, and *RELEASE: the one
 * release, or the X.Y line all of them share (copied into LINE); left as
 * it is when they span lines. */
static int candidates(struct infer *x, size_t ncons, char line[LINE_MAX_BYTES],
                      const char **release)
{
    releases_of(x->cat, x->all, &x->l);
    if (set(x->facts, "neuron.sdk.candidates", list_str(&x->l), NULL, x->e) != 0)
        return -1;
    const char *first = NULL;
    int same_line = 1;
    for (size_t r = 0; r < x->nr; r++) {
        if (!x->all[r])
            continue;
        const char *rel = x->cat->releases[r].release;
        if (first == NULL)
            first = rel;
        else if (line_len(rel) != line_len(first) || strncmp(rel, first, line_len(first)) != 0)
            same_line = 0;
    }
    if (ncons == 1) {
        *release = first;
    } else if (same_line && line_len(first) < LINE_MAX_BYTES) {
        memcpy(line, first, line_len(first));
        line[line_len(first)] = '\0';
        *release = line;
    }
    return 0;
}

/* neuron.sdk.release, with neuron.sdk.nearest and odd (mixed) or
 * candidates (consistent). */
static int name_release(struct infer *x)
{
    size_t ncons = 0;
    for (size_t r = 0; r < x->nr; r++)
        ncons += x->all[r] && x->used;
    char line[LINE_MAX_BYTES];
    const char *release = "unknown";
    if (x->used > 0 && ncons == 0) {
        if (mixed(x) != 0)
            return -1;
        release = "mixed";
    } else if (ncons > 0 && candidates(x, ncons, line, &release) != 0) {
        return -1;
    }
    return set(x->facts, "neuron.sdk.release", release, "release catalog", x->e);
}

/* Compiler and runtime releases, for "compiler not newer than runtime":
 * the oldest release shipping the neuronx-cc version, the newest shipping
 * the runtime's. */
static int compiler_runtime_releases(struct infer *x)
{
    for (size_t i = 0; i < x->ncomp; i++) {
        const struct component *c = &x->comp[i];
        int is_cc = strcmp(c->name, "neuronx-cc") == 0;
        int is_rt = strcmp(c->name, "aws-neuronx-runtime-lib") == 0;
        if ((!is_cc && !is_rt) || c->count == 0)
            continue;
        size_t r = 0;
        if (is_cc) {             /* oldest: the last index set */
            for (size_t k = 0; k < x->nr; k++)
                if (c->in[k])
                    r = k;
        } else {                 /* newest: the first index set */
            while (!c->in[r])
                r++;
        }
        if (set(x->facts, is_cc ? "neuron.sdk.compiler_release" : "neuron.sdk.runtime_release",
                x->cat->releases[r].release, c->key, x->e) != 0)
            return -1;
    }
    return 0;
}

/* The release's Python window and instance families, when a release is
 * selected. */
static int window(struct infer *x)
{
    int anysel = 0;
    for (size_t r = 0; r < x->nr; r++)
        anysel |= x->all[r] && (x->used > 0);
    if (!anysel)
        return 0;
    if (release_attrs(x->cat, x->all, x->comp, x->ncomp, 1, &x->l, x->e) != 0 ||
        set(x->facts, "neuron.sdk.python", list_str(&x->l), "release catalog", x->e) != 0 ||
        release_attrs(x->cat, x->all, x->comp, x->ncomp, 0, &x->l, x->e) != 0 ||
        set(x->facts, "neuron.sdk.instances", list_str(&x->l), "release catalog", x->e) != 0)
        return -1;
    return 0;
}

/* The steps after the components are known; 0 or -1 with X->E set. */
static int infer(struct infer *x, unsigned char *driver_in)
{
    collect_components(x);
    choose_driver(x, driver_in);
    if (source_facts(x) != 0)
        return -1;
    if (x->ncomp == 0 && x->driver.version == NULL)
        return 0;                    /* no Neuron component: nothing to say */
    if (locate_components(x) != 0 || consensus(x) != 0 || name_release(x) != 0 ||
        compiler_runtime_releases(x) != 0 || cache_compiler_release(x->cat, x->facts, x->e) != 0)
        return -1;
    return window(x);
}

int release_infer(const struct catalog *cat, struct factset *facts, struct sp_error *e)
{
    struct infer x = { .cat = cat, .facts = facts, .e = e, .nr = cat->nreleases };
    if (x.nr == 0)
        return 0;
    sp_strbuf_init(&x.l.sb, SP_FACT_VALUE_MAX);
    sp_strbuf_init(&x.unc.sb, SP_FACT_VALUE_MAX);
    x.comp = calloc(facts->count + 2, sizeof *x.comp);
    x.all = calloc(x.nr, 1);
    unsigned char *driver_in = calloc(x.nr, 1);
    int rc = x.comp && x.all && driver_in ? infer(&x, driver_in) : nomem(&x);
    for (size_t i = 0; x.comp && i < x.ncomp; i++)
        free(x.comp[i].in);
    free(x.comp);
    free(x.all);
    free(driver_in);
    sp_strbuf_free(&x.l.sb);
    sp_strbuf_free(&x.unc.sb);
    return rc;
}
