/* checks/fix.c: remediation plans for `check --fix` (checks/fix.h). */
#include "checks/fix.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/catalog.h"
#include "checks/evaluate.h"
#include "checks/version.h"
#include "common/array.h"

enum { G_LEGACY, G_DRIVER, G_RELOAD, G_RUNTIME, G_TOOLS, G_PIP_REMOVE, G_PIP, G_GROUPS };

static const char *const legacy_packages[] = {
    "aws-neuron-dkms", "aws-neuron-tools", "aws-neuron-runtime", "aws-neuron-runtime-base",
};

/* S as one shell word: as it is when it holds only letters, digits and
 * _./=+:@%,- (nothing a shell expands), else single-quoted with each '
 * written '\\'' (POSIX sh, "Single-Quotes"); malloc'd; NULL when S holds a control character (a
 * newline or an escape sequence has no place in a command to copy) or
 * when out of memory (ERRNO says which: EINVAL or ENOMEM). */
static char *shell_word(const char *s)
{
    size_t n = 3;
    int plain = *s != '\0';   /* only characters no shell treats specially */
    for (const char *p = s; *p; p++) {
        if ((unsigned char)*p < 0x20 || *p == 0x7f) {
            errno = EINVAL;
            return NULL;
        }
        n += *p == '\'' ? 4 : 1;
        plain &= (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                 strchr("_./=+:@%,-", *p) != NULL;
    }
    if (plain)
        return strdup(s);
    char *out = malloc(n), *o = out;
    if (out == NULL)
        return NULL;
    *o++ = '\'';
    for (const char *p = s; *p; p++) {
        if (*p == '\'') {
            memcpy(o, "'\\''", 4);
            o += 4;
        } else {
            *o++ = *p;
        }
    }
    *o++ = '\'';
    *o = '\0';
    return out;
}

/* The context every plan of one manifest shares. */
struct fixctx {
    const struct catalog *cat;
    const struct factset *facts;
    const struct sp_fix_opts *opts;
    char *python;             /* the workload interpreter as a shell word, for pip */
    const char *family;       /* host.instance_family, or NULL */
    const char *backend;      /* torch.backend, or NULL */
    char sys;                 /* 'd' (deb facts), 'r' (rpm facts) or 0 */
    int has_x;                /* an aws-neuronx-* system package is installed */
};

static int add_step(struct sp_fix_plan *p, int group, const char *key, const char *installed,
                    const char *target, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static int add_step(struct sp_fix_plan *p, int group, const char *key, const char *installed,
                    const char *target, const char *fmt, ...)
{
    if (SP_ARRAY_RESERVE(p->steps, p->cap, p->n + 1) != 0)
        return -1;
    struct sp_fix_step *s = &p->steps[p->n];
    memset(s, 0, sizeof *s);
    va_list ap;
    va_start(ap, fmt);
    int r = vasprintf(&s->command, fmt, ap);
    va_end(ap);
    s->key = strdup(key);
    s->installed = installed ? strdup(installed) : NULL;
    s->target = target ? strdup(target) : NULL;
    s->group = group;
    if (r < 0 || s->key == NULL || (installed && !s->installed) || (target && !s->target)) {
        if (r < 0)
            s->command = NULL;
        free(s->command);
        free(s->key);
        free(s->installed);
        free(s->target);
        return -1;
    }
    p->n++;
    return 0;
}

static const struct catalog_release *release_named(const struct catalog *c, const char *name)
{
    for (size_t i = 0; i < c->nreleases; i++)
        if (strcmp(c->releases[i].release, name) == 0)
            return &c->releases[i];
    return NULL;
}

/* The packages of R named NAME (PEP503: compare PEP 503 names), in table
 * order, into OUT (at most MAX); their count. */
static size_t packages(const struct catalog_release *r, const char *name, int pep503,
                       const struct catalog_package **out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < r->npackages && n < max; i++)
        if (strcmp(pep503 ? r->packages[i].pep503 : r->packages[i].name, name) == 0)
            out[n++] = &r->packages[i];
    return n;
}

/* Leading N release components of a PEP 440 version, "" when not one. */
static void leading(const char *v, unsigned n, char *out, size_t outsz)
{
    struct sp_error ignored;
    out[0] = '\0';
    if (v == NULL)
        return;
    struct sp_version *pv = sp_version_parse(&sp_scheme_pep440, v, &ignored);
    if (pv && sp_version_leading(pv, n, out, outsz) != 0)
        out[0] = '\0';
    sp_version_free(pv);
}

/* Of the NC candidates, the one whose first N components equal WANT's
 * first N; NULL when none does or WANT is NULL. */
static const struct catalog_package *matching(const struct catalog_package **c, size_t nc,
                                              const char *want, unsigned n)
{
    char w[64], v[64];
    leading(want, n, w, sizeof w);
    if (w[0] == '\0')
        return NULL;
    for (size_t i = 0; i < nc; i++) {
        leading(c[i]->version, n, v, sizeof v);
        if (strcmp(v, w) == 0)
            return c[i];
    }
    return NULL;
}

/* The version of R's package NAME that the plan installs (see fix.h). */
static const struct catalog_package *choose(const struct catalog_release *r, const char *name,
                                            int pep503, const char *installed, const char *torch)
{
    const struct catalog_package *c[32];
    size_t nc = packages(r, name, pep503, c, sizeof c / sizeof *c);
    if (nc == 0)
        return NULL;
    const struct catalog_package *m = NULL;
    if (strcmp(name, "torch-xla") == 0)   /* only one that matches torch's X.Y */
        return torch ? matching(c, nc, torch, 2) : NULL;
    if (strcmp(name, "torch-neuronx") == 0)
        m = matching(c, nc, torch, 3);
    for (unsigned k = 3; m == NULL && k >= 1; k--)
        m = matching(c, nc, installed, k);
    return m ? m : c[0];
}


/* 1 when installing TARGET (a version the table lists) over INSTALLED (a
 * deb or rpm version) goes down: their upstream parts (catalog_upstream)
 * compared as dotted numbers. */
static int downgrade(const char *installed, const char *target)
{
    size_t n;
    const char *u = catalog_upstream(installed, &n);
    char up[128];
    struct sp_error ignored;
    snprintf(up, sizeof up, "%.*s", (int)(n < sizeof up ? n : sizeof up - 1), u);
    struct sp_version *a = sp_version_parse(&sp_scheme_dotted, up, &ignored);
    struct sp_version *b = sp_version_parse(&sp_scheme_dotted, target, &ignored);
    int down = a && b && sp_version_compare(b, a, SP_CMP_FULL) < 0;
    sp_version_free(a);
    sp_version_free(b);
    return down;
}

/* A system package step: install NAME at VERSION (or remove it), the
 * package and its version pinned in one quoted word; a downgrade says so,
 * as apt-get and dnf require. */
static int sys_step(struct sp_fix_plan *p, int group, char sys, const char *key, const char *name,
                    const char *installed, const char *version)
{
    char *arg = NULL, *word = NULL;
    int rc;
    if (version == NULL)
        arg = strdup(name);
    else if (asprintf(&arg, sys == 'r' ? "%s-%s*" : "%s=%s*", name, version) < 0)
        arg = NULL;
    if (arg == NULL || (word = shell_word(arg)) == NULL) {
        free(arg);
        return -1;
    }
    int down = version && installed && downgrade(installed, version);
    if (version == NULL)
        rc = add_step(p, group, key, installed, NULL, "%s %s",
                      sys == 'r' ? "dnf remove -y" : "apt-get remove -y", word);
    else if (sys == 'r')
        rc = add_step(p, group, key, installed, version, "%s %s",
                      down ? "dnf downgrade -y" : "dnf install -y", word);
    else
        rc = add_step(p, group, key, installed, version, "%s %s",
                      down ? "apt-get install -y --allow-downgrades" : "apt-get install -y", word);
    free(arg);
    free(word);
    return rc;
}

/* A library file's version (libnrt.so.V) follows its package: when it
 * relates to the package's installed upstream version as the same text, or
 * as the same without a final ".0", the target keeps that relation. */
static void follow_file(struct sp_fix_plan *p, const char *file_key, const char *file_v,
                        const char *pkg_upstream, const char *target, const char *pkg, int *rc)
{
    if (*rc != 0 || file_v == NULL || target == NULL)
        return;
    char t[128];
    size_t fl = strlen(file_v);
    if (pkg_upstream && strcmp(file_v, pkg_upstream) == 0)
        snprintf(t, sizeof t, "%s", target);
    else if (pkg_upstream && strncmp(pkg_upstream, file_v, fl) == 0 &&
             strcmp(pkg_upstream + fl, ".0") == 0 && strlen(target) > 2 &&
             strcmp(target + strlen(target) - 2, ".0") == 0)
        snprintf(t, sizeof t, "%.*s", (int)(strlen(target) - 2), target);
    else if (pkg_upstream == NULL)
        snprintf(t, sizeof t, "%s", target);
    else
        return;
    if (strcmp(t, file_v) != 0)
        *rc = add_step(p, G_RUNTIME, file_key, file_v, t, "(the library %s installs)", pkg);
}

/* The upstream part of a deb or rpm version: no epoch, no revision, no
 * yum build hash (catalog_upstream). */
static void upstream(const char *v, char *out, size_t outsz)
{
    size_t n;
    const char *u = catalog_upstream(v, &n);
    snprintf(out, outsz, "%.*s", (int)n, u);
}

/* The steps for the installed deb.* and rpm.* packages: legacy removals
 * (when an aws-neuronx-* package is there), and every aws-neuronx-*
 * package the release ships at another version.  *DKMS_SEEN: 1 when
 * aws-neuronx-dkms is one of them. */
static int package_steps(const struct fixctx *x, const struct catalog_release *r,
                         struct sp_fix_plan *p, int *dkms_seen)
{
    const struct factset *fs = x->facts;
    int rc = 0;
    for (size_t i = 0; i < fs->count && rc == 0; i++) {
        const struct fact *f = &fs->facts[i];
        char sys = strncmp(f->key, "deb.", 4) == 0 ? 'd' : strncmp(f->key, "rpm.", 4) == 0 ? 'r' : 0;
        if (!sys)
            continue;
        char name[SP_FACT_KEY_MAX];
        snprintf(name, sizeof name, "%s", f->key + 4);
        char *arch = strchr(name, ':');
        if (arch)
            *arch = '\0';
        int legacy = 0;
        for (size_t k = 0; k < sizeof legacy_packages / sizeof *legacy_packages; k++)
            legacy |= strcmp(name, legacy_packages[k]) == 0;
        if (legacy && x->has_x) {
            rc = sys_step(p, G_LEGACY, sys, f->key, name, f->value, NULL);
            continue;
        }
        if (strncmp(name, "aws-neuronx-", 12) != 0)
            continue;
        int dkms = strcmp(name, "aws-neuronx-dkms") == 0;
        if (dkms && x->opts->keep_driver)
            continue;
        *dkms_seen |= dkms;
        const struct catalog_package *want = choose(r, name, 0, f->value, NULL);
        if (want == NULL || catalog_version_matches(want->version, f->value, 'd'))
            continue;
        int group = dkms ? G_DRIVER
                  : strcmp(name, "aws-neuronx-runtime-lib") == 0 ||
                    strcmp(name, "aws-neuronx-collectives") == 0 ? G_RUNTIME : G_TOOLS;
        rc = sys_step(p, group, sys, f->key, name, f->value, want->version);
    }
    return rc;
}

/* The runtime library and collectives named only by their files, or
 * following their packages. */
static int library_file_steps(const struct fixctx *x, const struct catalog_release *r,
                              struct sp_fix_plan *p)
{
    static const struct { const char *file_key, *pkg; } files[] = {
        { "neuron.runtime.version", "aws-neuronx-runtime-lib" },
        { "neuron.collectives.version", "aws-neuronx-collectives" },
    };
    const struct catalog_package *c[4];
    char up[128];
    int rc = 0;
    for (size_t k = 0; k < 2 && rc == 0; k++) {
        const char *fv = factset_get(x->facts, files[k].file_key);
        if (fv == NULL || packages(r, files[k].pkg, 0, c, 4) == 0)
            continue;
        char key[128];
        snprintf(key, sizeof key, "deb.%s", files[k].pkg);
        const char *pv = factset_get(x->facts, key);
        if (pv == NULL) {
            snprintf(key, sizeof key, "rpm.%s", files[k].pkg);
            pv = factset_get(x->facts, key);
        }
        if (pv)
            upstream(pv, up, sizeof up);
        else if (x->sys && !catalog_version_matches(c[0]->version, fv, 'n')) {
            /* no package yet: install it where the host has a package tool */
            snprintf(key, sizeof key, "%s.%s", x->sys == 'r' ? "rpm" : "deb", files[k].pkg);
            rc = sys_step(p, G_RUNTIME, x->sys, key, files[k].pkg, NULL, c[0]->version);
        }
        follow_file(p, files[k].file_key, fv, pv ? up : NULL, c[0]->version, files[k].pkg, &rc);
    }
    return rc;
}

/* The driver: the package (when no installed one was seen), then the
 * module DKMS builds from it, loaded.  DKMS_TARGET: the release's
 * aws-neuronx-dkms version. */
static int driver_steps(const struct fixctx *x, struct sp_fix_plan *p, const char *dkms_target,
                        int dkms_seen)
{
    int rc = 0;
    const char *loaded = factset_get(x->facts, "neuron.driver.version");
    if (!dkms_seen && loaded && x->sys && strcmp(loaded, dkms_target) != 0)
        rc = sys_step(p, G_DRIVER, x->sys, x->sys == 'r' ? "rpm.aws-neuronx-dkms"
                                                        : "deb.aws-neuronx-dkms",
                      "aws-neuronx-dkms", NULL, dkms_target);
    const char *built = factset_get(x->facts, "neuron.driver.dkms");
    if (rc == 0 && built && strcmp(built, dkms_target) != 0)
        rc = add_step(p, G_RELOAD, "neuron.driver.dkms", built, dkms_target,
                      "(DKMS builds the module with aws-neuronx-dkms %s)", dkms_target);
    if (rc == 0 && loaded && strcmp(loaded, dkms_target) != 0)
        rc = add_step(p, G_RELOAD, "neuron.driver.version", loaded, dkms_target,
                      "modprobe -r neuron && modprobe neuron   # reload the driver: stop "
                      "every Neuron workload first");
    return rc;
}

/* The system package steps: legacy removals, driver, runtime, tools. */
static int system_steps(const struct fixctx *x, const struct catalog_release *r,
                        struct sp_fix_plan *p)
{
    const char *dkms_target = NULL;
    const struct catalog_package *c[4];
    if (packages(r, "aws-neuronx-dkms", 0, c, 4) > 0)
        dkms_target = c[0]->version;
    int dkms_seen = 0;
    int rc = package_steps(x, r, p, &dkms_seen);
    if (rc == 0)
        rc = library_file_steps(x, r, p);
    if (rc == 0 && !x->opts->keep_driver && dkms_target)
        rc = driver_steps(x, p, dkms_target, dkms_seen);
    return rc;
}

/* A pip step: PYTHON -m pip VERB WORD, WORD being ARG quoted. */
static int pip_step(struct sp_fix_plan *p, int group, const struct fixctx *x, const char *key,
                    const char *installed, const char *target, const char *verb, const char *arg)
{
    char *word = shell_word(arg);
    if (word == NULL)
        return -1;
    int rc = add_step(p, group, key, installed, target, "%s -m pip %s %s", x->python, verb, word);
    free(word);
    return rc;
}

/* The Python steps of the workload environment. */
static int python_steps(const struct fixctx *x, const struct catalog_release *r,
                        struct sp_fix_plan *p)
{
    const struct factset *fs = x->facts;
    int native = x->backend && strcmp(x->backend, "native") == 0;
    int inf1 = x->family && strcmp(x->family, "inf1") == 0;
    const char *torch = factset_get(fs, "pip.torch");
    char torch_target[64] = "";
    int rc = 0, removed_plugin = 0;
    for (size_t i = 0; i < fs->count && rc == 0; i++) {
        const struct fact *f = &fs->facts[i];
        if (strncmp(f->key, "pip.", 4) != 0)
            continue;
        const char *name = f->key + 4;
        /* a framework family the instance cannot run: torch-neuron and
         * neuron-cc are Inf1's, the neuronx packages everyone else's */
        int inf1_only = strcmp(name, "torch-neuron") == 0 || strcmp(name, "neuron-cc") == 0;
        int x_only = strcmp(name, "torch-neuronx") == 0 || strcmp(name, "neuronx-cc") == 0 ||
                     strcmp(name, "libneuronxla") == 0 || strcmp(name, "torch-xla") == 0;
        if (x->family && ((inf1_only && !inf1) || (x_only && inf1))) {
            rc = pip_step(p, G_PIP_REMOVE, x, f->key, f->value, NULL, "uninstall -y", name);
            removed_plugin |= strcmp(name, "torch-neuronx") == 0 || strcmp(name, "torch-neuron") == 0;
            continue;
        }
        if (native && (strcmp(name, "torch-neuronx") == 0 || strcmp(name, "torch-xla") == 0))
            continue;
        const struct catalog_package *want = choose(r, name, 1, f->value, torch);
        if (want == NULL)
            continue;
        /* torch follows its Neuron plugin: torch-neuronx on the XLA path,
         * torch-neuron on Inf1 (their first three components) */
        if (strcmp(name, "torch-neuronx") == 0 || strcmp(name, "torch-neuron") == 0)
            leading(want->version, 3, torch_target, sizeof torch_target);
        if (catalog_version_matches(want->version, f->value, 'p'))
            continue;
        char arg[SP_FACT_KEY_MAX + 300];
        snprintf(arg, sizeof arg, "%s==%s", name, want->version);
        rc = pip_step(p, G_PIP, x, f->key, f->value, want->version, "install", arg);
    }
    /* the backend path follows the plugin that is left (the torch probe's
     * rule: torch-neuron alone is neuron-inf1, neither is none) */
    if (rc == 0 && removed_plugin && x->backend) {
        const char *left = inf1 && factset_get(fs, "pip.torch-neuron") ? "neuron-inf1"
                         : !inf1 && factset_get(fs, "pip.torch-neuronx") ? x->backend : "none";
        if (strcmp(left, x->backend) != 0)
            rc = add_step(p, G_PIP_REMOVE, "torch.backend", x->backend, left,
                          "(the backend path left once the plugin is removed)");
    }
    char now[64];
    leading(torch, 3, now, sizeof now);
    if (rc == 0 && !native && torch && torch_target[0] && strcmp(now, torch_target) != 0) {
        char arg[100];
        snprintf(arg, sizeof arg, "torch==%s", torch_target);
        rc = pip_step(p, G_PIP, x, "pip.torch", torch, torch_target, "install", arg);
    }
    return rc;
}

static int cmp_step(const void *a, const void *b)
{
    const struct sp_fix_step *x = a, *y = b;
    if (x->group != y->group)
        return x->group - y->group;
    return strcmp(x->key, y->key);
}

static void steps_free(struct sp_fix_plan *p)
{
    for (size_t i = 0; i < p->n; i++) {
        free(p->steps[i].key);
        free(p->steps[i].installed);
        free(p->steps[i].target);
        free(p->steps[i].command);
    }
    p->n = 0;
}

static int plan_for(const struct fixctx *x, const struct catalog_release *r, struct sp_fix_plan *p)
{
    steps_free(p);
    if (system_steps(x, r, p) != 0 || python_steps(x, r, p) != 0)
        return -1;
    if (p->n > 1)
        qsort(p->steps, p->n, sizeof *p->steps, cmp_step);
    return 0;
}

int sp_fix_apply(const struct sp_fix_plan *plan, const struct factset *in, struct factset *out)
{
    factset_init(out);
    for (size_t i = 0; i < in->count; i++)
        if (factset_set(out, in->facts[i].key, in->facts[i].value, in->facts[i].evidence) != 0)
            return -1;
    for (size_t i = 0; i < plan->n; i++) {
        const struct sp_fix_step *s = &plan->steps[i];
        if (s->target == NULL)
            factset_remove(out, s->key);
        else if (factset_set(out, s->key, s->target, "stackprint check --fix") != 0)
            return -1;
    }
    return 0;
}

/* Evaluate the facts after PLAN: 1 passed, 0 failed (*FIRST, when given,
 * set to a one-line reason from the first failing result), -1 error. */
static int passes(const struct sp_policy_set *ps, const struct factset *facts,
                  const struct sp_fix_plan *plan, char *first, size_t firstsz, struct sp_error *e)
{
    struct factset after, derived;
    struct sp_report rep;
    sp_report_init(&rep);
    factset_init(&derived);
    int rc = -1;
    if (sp_fix_apply(plan, facts, &after) != 0) {
        sp_fail(e, SP_EXIT_INPUT, "check --fix: %s", strerror(ENOMEM));
        goto out;
    }
    if (sp_eval_facts(ps, &after, &derived, e) != 0)
        goto out;
    struct sp_eval_ctx ctx = { .facts = &derived, .flags = 0 };
    if (sp_evaluate(ps, &ctx, &rep, e) != 0)
        goto out;
    rc = rep.passed;
    for (size_t i = 0; first && !rep.passed && i < rep.count; i++) {
        const struct sp_result *res = &rep.results[i];
        if (!res->fails)
            continue;
        snprintf(first, firstsz, "%s/%s: %s %s (%s)", res->policy->name, res->rule->name,
                 res->requirement->key, res->found ? res->found : "absent",
                 sp_verdict_name(res->verdict));
        break;
    }
out:
    factset_free(&after);
    factset_free(&derived);
    sp_report_free(&rep);
    return rc;
}

/* 1 when R's neuronx-cc (torch-neuron on inf1) lists FAMILY (or no family
 * is known), and, when PY is given, Python PY. */
static int release_supports(const struct catalog_release *r, const char *family, const char *py)
{
    const char *anchor = family && strcmp(family, "inf1") == 0 ? "torch-neuron" : "neuronx-cc";
    for (size_t i = 0; i < r->npackages; i++) {
        const struct catalog_package *c = &r->packages[i];
        if (strcmp(c->pep503, anchor) != 0)
            continue;
        int fam = family == NULL, pyok = py == NULL;
        for (size_t k = 0; family && k < c->ninstances; k++)
            fam |= strcmp(c->instances[k], family) == 0;
        for (size_t k = 0; py && k < c->npythons; k++)
            pyok |= strcmp(c->pythons[k], py) == 0;
        if (fam && pyok)
            return 1;
    }
    return 0;
}

static int has_package(const struct catalog_release *r, const char *pep503)
{
    const struct catalog_package *c[1];
    return packages(r, pep503, 1, c, 1) > 0;
}

static int set_reason(struct sp_fix_plan *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int set_reason(struct sp_fix_plan *p, const char *fmt, ...)
{
    /* format first: an argument may be the old reason itself */
    char *reason;
    va_list ap;
    va_start(ap, fmt);
    int r = vasprintf(&reason, fmt, ap);
    va_end(ap);
    free(p->reason);
    p->reason = r < 0 ? NULL : reason;
    return r < 0 ? -1 : 0;
}

/* Why no release fits: the first filter that leaves none. */
static int why_none(const struct sp_policy_set *ps, const struct fixctx *x, struct sp_fix_plan *p,
                    const struct catalog_release *newest_candidate, struct sp_error *e)
{
    const struct catalog *cat = x->cat;
    char py[16] = "";
    leading(factset_get(x->facts, "python.version"), 2, py, sizeof py);
    size_t nfam = 0, npy = 0, nback = 0;
    int xla = x->backend && strcmp(x->backend, "xla") == 0;
    for (size_t i = 0; i < cat->nreleases; i++) {
        const struct catalog_release *r = &cat->releases[i];
        if (!release_supports(r, x->family, NULL))
            continue;
        nfam++;
        if (py[0] && !release_supports(r, x->family, py))
            continue;
        npy++;
        if (xla && !has_package(r, "torch-neuronx"))
            continue;
        nback++;
    }
    int r = 1;
    if (x->family && nfam == 0)
        r = set_reason(p, "no release of the SDK's table supports %s", x->family);
    else if (py[0] && npy == 0)
        r = set_reason(p, "Python %s is in no release that supports %s", py,
                       x->family ? x->family : "this instance");
    else if (xla && nback == 0)
        r = set_reason(p, "no release that supports %s and Python %s carries the XLA path's "
                       "torch-neuronx (it ends with Neuron 2.31)",
                       x->family ? x->family : "this instance", py[0] ? py : "?");
    if (r <= 0)
        return r == 0 ? 0 : sp_fail(e, SP_EXIT_INPUT, "check --fix: %s", strerror(ENOMEM));
    char first[600] = "";
    if (newest_candidate) {
        if (plan_for(x, newest_candidate, p) != 0)
            return sp_fail(e, SP_EXIT_INPUT, "check --fix: %s", strerror(ENOMEM));
        if (passes(ps, x->facts, p, first, sizeof first, e) < 0)
            return -1;
        steps_free(p);
    }
    const char *keep = x->opts->keep_driver ? " with the loaded driver kept" : "";
    r = newest_candidate && first[0]
            ? set_reason(p, "no release passes every policy once its plan is applied%s; the "
                         "newest candidate, Neuron %s, still fails %s", keep,
                         newest_candidate->release, first)
            : set_reason(p, "no release passes every policy once its plan is applied%s", keep);
    return r == 0 ? 0 : sp_fail(e, SP_EXIT_INPUT, "check --fix: %s", strerror(ENOMEM));
}

static int build(const struct sp_policy_set *ps, const struct factset *facts,
                 struct fixctx *xp, struct sp_fix_plan *plan, struct sp_error *e);

int sp_fix_build(const struct sp_policy_set *ps, const struct factset *facts,
                 const struct sp_fix_opts *opts, struct sp_fix_plan *plan, struct sp_error *e)
{
    memset(plan, 0, sizeof *plan);
    if (ps->catalog == NULL)
        return sp_fail(e, SP_EXIT_USAGE, "check --fix: the policies hold no release catalog "
                       "(--policy policies/, or the catalog file)");
    struct fixctx x = {
        .cat = ps->catalog, .facts = facts, .opts = opts,
        .family = factset_get(facts, "host.instance_family"),
        .backend = factset_get(facts, "torch.backend"),
    };
    /* the interpreter as one shell word; a path with control characters
     * cannot be one, so the commands then name "$PYTHON" */
    const char *py = factset_get(facts, "python.path");
    int unquotable = 0;
    x.python = shell_word(py ? py : "python3");
    if (x.python == NULL && errno == EINVAL) {
        unquotable = 1;
        x.python = strdup("\"${PYTHON:?the workload interpreter}\"");
    }
    if (x.python == NULL)
        return sp_fail(e, SP_EXIT_INPUT, "check --fix: %s", strerror(ENOMEM));
    int rc = build(ps, facts, &x, plan, e);
    free(x.python);
    if (rc == 0 && unquotable && plan->reason &&
        set_reason(plan, "%s; the workload interpreter's path (python.path) holds control "
                   "characters, so the pip commands name $PYTHON: set it to that interpreter",
                   plan->reason) != 0)
        return sp_fail(e, SP_EXIT_INPUT, "check --fix: %s", strerror(ENOMEM));
    return rc;
}

static int build(const struct sp_policy_set *ps, const struct factset *facts,
                 struct fixctx *xp, struct sp_fix_plan *plan, struct sp_error *e)
{
    struct fixctx x = *xp;
    const struct sp_fix_opts *opts = x.opts;
    for (size_t i = 0; i < facts->count; i++) {
        const char *k = facts->facts[i].key;
        if (!x.sys && strncmp(k, "deb.", 4) == 0)
            x.sys = 'd';
        if (!x.sys && strncmp(k, "rpm.", 4) == 0)
            x.sys = 'r';
        if ((strncmp(k, "deb.", 4) == 0 || strncmp(k, "rpm.", 4) == 0) &&
            strncmp(k + 4, "aws-neuronx-", 12) == 0)
            x.has_x = 1;
    }
    if (opts->target_release) {
        const struct catalog_release *r = release_named(ps->catalog, opts->target_release);
        if (r == NULL)
            return sp_fail(e, SP_EXIT_USAGE, "check --fix: --target-release %s is not a release "
                           "of the catalog", opts->target_release);
        char first[600] = "";
        int ok;
        if (plan_for(&x, r, plan) != 0 ||
            (ok = passes(ps, facts, plan, first, sizeof first, e)) < 0) {
            sp_fix_free(plan);
            return e->msg[0] ? -1 : sp_fail(e, SP_EXIT_INPUT, "check --fix: %s", strerror(ENOMEM));
        }
        if (ok) {
            plan->release = strdup(r->release);
            return set_reason(plan, "the release asked for (--target-release)%s",
                              opts->keep_driver ? ", with the loaded driver kept" : "") ||
                   plan->release == NULL
                   ? sp_fail(e, SP_EXIT_INPUT, "check --fix: %s", strerror(ENOMEM)) : 0;
        }
        steps_free(plan);
        return set_reason(plan, "Neuron %s cannot fit%s: after its plan, %s", r->release,
                          opts->keep_driver ? " with the loaded driver kept" : "", first)
               ? sp_fail(e, SP_EXIT_INPUT, "check --fix: %s", strerror(ENOMEM)) : 0;
    }
    char py[16] = "";
    leading(factset_get(facts, "python.version"), 2, py, sizeof py);
    const struct catalog_release *newest_candidate = NULL;
    for (size_t i = 0; i < ps->catalog->nreleases; i++) {
        const struct catalog_release *r = &ps->catalog->releases[i];
        if (!release_supports(r, x.family, py[0] ? py : NULL))
            continue;
        if (newest_candidate == NULL)
            newest_candidate = r;
        int ok;
        if (plan_for(&x, r, plan) != 0 || (ok = passes(ps, facts, plan, NULL, 0, e)) < 0) {
            sp_fix_free(plan);
            return e->msg[0] ? -1 : sp_fail(e, SP_EXIT_INPUT, "check --fix: %s", strerror(ENOMEM));
        }
        if (ok) {
            plan->release = strdup(r->release);
            if (plan->release == NULL ||
                set_reason(plan, "the newest release of the SDK's table that supports %s%s%s and "
                           "passes every policy once the plan is applied%s",
                           x.family ? x.family : "this instance", py[0] ? " and Python " : "", py,
                           opts->keep_driver ? ", with the loaded driver kept" : "") != 0)
                return sp_fail(e, SP_EXIT_INPUT, "check --fix: %s", strerror(ENOMEM));
            return 0;
        }
    }
    steps_free(plan);
    return why_none(ps, &x, plan, newest_candidate, e);
}

void sp_fix_free(struct sp_fix_plan *plan)
{
    steps_free(plan);
    free(plan->steps);
    free(plan->release);
    free(plan->reason);
    memset(plan, 0, sizeof *plan);
}
