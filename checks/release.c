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

int release_infer(const struct catalog *cat, struct factset *facts, struct sp_error *e)
{
    struct component *comp = NULL, driver = { 0 };
    size_t ncomp = 0, nr = cat->nreleases;
    unsigned char *all = NULL, *driver_in = NULL;
    struct list *l = malloc(sizeof *l), *l2 = malloc(sizeof *l2);
    if (l)
        sp_strbuf_init(&l->sb, SP_FACT_VALUE_MAX);
    if (l2)
        sp_strbuf_init(&l2->sb, SP_FACT_VALUE_MAX);
    char key[SP_FACT_KEY_MAX + 64];
    int rc = -1;

    if (l == NULL || l2 == NULL || nr == 0)
        goto nomem_or_empty;
    comp = calloc(facts->count + 2, sizeof *comp);
    all = calloc(nr, 1);
    driver_in = calloc(nr, 1);
    if (comp == NULL || all == NULL || driver_in == NULL)
        goto nomem;

    /* the components, in key order (facts are sorted) */
    int have_runtime_pkg = 0, have_coll_pkg = 0;
    for (size_t i = 0; i < facts->count; i++) {
        const char *k = facts->facts[i].key;
        struct component c = { .key = k, .version = facts->facts[i].value };
        if (strncmp(k, "deb.", 4) == 0 || strncmp(k, "rpm.", 4) == 0) {
            c.name = k + 4;
            c.scheme = 'd';
        } else if (strncmp(k, "pip.", 4) == 0) {
            c.name = k + 4;
            c.scheme = 'p';
        } else {
            continue;
        }
        if (!catalog_has_name(cat, c.name, c.scheme == 'p'))
            continue;
        have_runtime_pkg |= strcmp(c.name, "aws-neuronx-runtime-lib") == 0;
        have_coll_pkg |= strcmp(c.name, "aws-neuronx-collectives") == 0;
        comp[ncomp++] = c;
    }
    const char *rt = factset_get(facts, "neuron.runtime.version");
    const char *co = factset_get(facts, "neuron.collectives.version");
    if (rt && !have_runtime_pkg)
        comp[ncomp++] = (struct component){ "neuron.runtime.version", "aws-neuronx-runtime-lib", rt, 'n', NULL, 0 };
    if (co && !have_coll_pkg)
        comp[ncomp++] = (struct component){ "neuron.collectives.version", "aws-neuronx-collectives", co, 'n', NULL, 0 };

    /* the driver: the loaded module, else the installed dkms package */
    const char *drv = factset_get(facts, "neuron.driver.version");
    driver = (struct component){ "neuron.driver.version", "aws-neuronx-dkms", drv, 'n', driver_in, 0 };
    if (drv == NULL) {
        driver.key = "deb.aws-neuronx-dkms";
        driver.version = factset_get(facts, driver.key);
        driver.scheme = 'd';
        if (driver.version == NULL) {
            driver.key = "rpm.aws-neuronx-dkms";
            driver.version = factset_get(facts, driver.key);
        }
    }

    /* the runtime and driver versions as dotted numbers, whichever fact
     * holds them, for the driver/runtime rules */
    if (upstream_fact(facts, "neuron.sdk.runtime_version", "deb.aws-neuronx-runtime-lib",
                      "rpm.aws-neuronx-runtime-lib", "neuron.runtime.version", e) != 0 ||
        upstream_fact(facts, "neuron.sdk.driver_version", "neuron.driver.version",
                      "deb.aws-neuronx-dkms", "rpm.aws-neuronx-dkms", e) != 0)
        goto out;

    /* the installed aws-neuronx-* system packages, for the legacy rule */
    list_reset(l);
    for (size_t i = 0; i < facts->count; i++) {
        const char *k = facts->facts[i].key;
        if (strncmp(k, "deb.aws-neuronx-", 16) == 0 || strncmp(k, "rpm.aws-neuronx-", 16) == 0)
            list_add(l, k);
    }
    if (set(facts, "neuron.sdk.x_packages", list_str(l), NULL, e) != 0)
        goto out;

    if (ncomp == 0 && driver.version == NULL) {
        rc = 0;                      /* no Neuron component: nothing to say */
        goto out;
    }
    for (size_t i = 0; i < ncomp; i++) {
        if ((comp[i].in = calloc(nr, 1)) == NULL)
            goto nomem;
        locate(cat, &comp[i]);
    }
    if (driver.version) {
        locate(cat, &driver);
        releases_of(cat, driver_in, l);
        if (set(facts, "neuron.sdk.driver_release", l->sb.len ? list_str(l) : "unknown",
                driver.key, e) != 0)
            goto out;
    }

    /* consensus over every catalogued component except the driver's package */
    memset(all, 1, nr);
    size_t used = 0;
    struct list *unc = l2;
    list_reset(unc);
    for (size_t i = 0; i < ncomp; i++) {
        releases_of(cat, comp[i].in, l);
        snprintf(key, sizeof key, "neuron.sdk.release_of.%s", comp[i].key);
        if (set(facts, key, l->sb.len ? list_str(l) : "none", comp[i].version, e) != 0)
            goto out;
        if (strcmp(comp[i].name, "aws-neuronx-dkms") == 0)
            continue;
        if (comp[i].count == 0) {
            list_add(unc, comp[i].key);
            continue;
        }
        used++;
        for (size_t r = 0; r < nr; r++)
            all[r] &= comp[i].in[r];
    }
    if (set(facts, "neuron.sdk.uncatalogued", list_str(unc), NULL, e) != 0)
        goto out;

    size_t ncons = 0;
    for (size_t r = 0; r < nr; r++)
        ncons += all[r] && used;
    const char *release = "unknown";
    char line[64] = "";
    if (used > 0 && ncons == 0) {
        /* mixed: the release holding most components, newest on a tie */
        size_t best = 0, best_n = 0;
        for (size_t r = 0; r < nr; r++) {
            size_t n = 0;
            for (size_t i = 0; i < ncomp; i++)
                n += comp[i].in[r] && strcmp(comp[i].name, "aws-neuronx-dkms") != 0;
            if (n > best_n) {
                best_n = n;
                best = r;
            }
        }
        release = "mixed";
        list_reset(l);
        for (size_t i = 0; i < ncomp; i++)
            if (comp[i].count > 0 && !comp[i].in[best] &&
                strcmp(comp[i].name, "aws-neuronx-dkms") != 0)
                list_add(l, comp[i].key);
        if (set(facts, "neuron.sdk.nearest", cat->releases[best].release, NULL, e) != 0 ||
            set(facts, "neuron.sdk.odd", list_str(l), NULL, e) != 0)
            goto out;
        memset(all, 0, nr);
        all[best] = 1;
    } else if (ncons > 0) {
        releases_of(cat, all, l);
        if (set(facts, "neuron.sdk.candidates", list_str(l), NULL, e) != 0)
            goto out;
        /* one release, or the X.Y line all candidates share */
        const char *first = NULL;
        int same_line = 1;
        for (size_t r = 0; r < nr; r++) {
            if (!all[r])
                continue;
            const char *rel = cat->releases[r].release;
            if (first == NULL)
                first = rel;
            else if (line_len(rel) != line_len(first) || strncmp(rel, first, line_len(first)) != 0)
                same_line = 0;
        }
        if (ncons == 1)
            release = first;
        else if (same_line && line_len(first) < sizeof line) {
            memcpy(line, first, line_len(first));
            line[line_len(first)] = '\0';
            release = line;
        }
    }
    if (set(facts, "neuron.sdk.release", release, "release catalog", e) != 0)
        goto out;

    /* compiler and runtime releases, for "compiler not newer than runtime" */
    for (size_t i = 0; i < ncomp; i++) {
        int is_cc = strcmp(comp[i].name, "neuronx-cc") == 0;
        int is_rt = strcmp(comp[i].name, "aws-neuronx-runtime-lib") == 0;
        if ((!is_cc && !is_rt) || comp[i].count == 0)
            continue;
        size_t r = 0;
        if (is_cc) {             /* oldest: the last index set */
            for (size_t k = 0; k < nr; k++)
                if (comp[i].in[k])
                    r = k;
        } else {                 /* newest: the first index set */
            while (!comp[i].in[r])
                r++;
        }
        if (set(facts, is_cc ? "neuron.sdk.compiler_release" : "neuron.sdk.runtime_release",
                cat->releases[r].release, comp[i].key, e) != 0)
            goto out;
    }

    if (cache_compiler_release(cat, facts, e) != 0)
        goto out;

    /* the release's Python window and instance families */
    int anysel = 0;
    for (size_t r = 0; r < nr; r++)
        anysel |= all[r] && (used > 0);
    if (anysel) {
        if (release_attrs(cat, all, comp, ncomp, 1, l, e) != 0 ||
            set(facts, "neuron.sdk.python", list_str(l), "release catalog", e) != 0)
            goto out;
        if (release_attrs(cat, all, comp, ncomp, 0, l, e) != 0 ||
            set(facts, "neuron.sdk.instances", list_str(l), "release catalog", e) != 0)
            goto out;
    }
    rc = 0;
    goto out;
nomem_or_empty:
    if (l && l2 && nr == 0) {
        rc = 0;
        goto out;
    }
nomem:
    sp_fail(e, SP_EXIT_INPUT, "release inference: out of memory");
out:
    for (size_t i = 0; comp && i < ncomp; i++)
        free(comp[i].in);
    free(comp);
    free(all);
    free(driver_in);
    if (l)
        sp_strbuf_free(&l->sb);
    if (l2)
        sp_strbuf_free(&l2->sb);
    free(l);
    free(l2);
    return rc;
}
