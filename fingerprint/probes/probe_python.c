/* fingerprint/probes/probe_python.c: the workload's Python interpreter (python.path,
 * python.prefix, python.version), every distribution of its environment
 * (pip.<pep503 name>), and the other environments found on the root
 * (python.env.<slug>.path/.version/.pip.<name>): DLAMI venvs
 * /opt/aws_neuronx_venv_* (and the Inf1 /opt/aws_neuron_venv_*), conda
 * installs and their envs, and the system interpreter /usr/bin/python3.
 * It must not run any interpreter or read through anything but the root
 * (fingerprint/probes/python/ does the reading).  The workload's
 * interpreter, once read, is left in ctx->python_env for the torch and
 * runtime probes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fingerprint/probes/probe.h"
#include "fingerprint/probes/python/python_env.h"

/* Conda installs looked for under /opt, /root and each /home/<user>. */
static const char *const conda_names[] = { "conda", "miniconda3", "anaconda3", "miniforge3",
                                           "mambaforge" };

struct envs {
    char *path[PY_ENVS_MAX];
    char *kind[PY_ENVS_MAX];    /* static strings: why it is an environment */
    size_t n;
    int full;
};

static int env_add(struct probe_ctx *ctx, struct envs *ev, const char *path, const char *kind)
{
    for (size_t i = 0; i < ev->n; i++)
        if (strcmp(ev->path[i], path) == 0)
            return 0;
    if (ev->n >= PY_ENVS_MAX) {
        if (!ev->full)
            factset_warn(ctx->facts, "python.env: %s: more than %d environments; the rest "
                         "not read", path, PY_ENVS_MAX);
        ev->full = 1;
        return 0;
    }
    if ((ev->path[ev->n] = strdup(path)) == NULL)
        return -1;
    ev->kind[ev->n++] = (char *)kind;
    return 0;
}

/* A conda install at DIR: itself and DIR/envs/<each>. */
static int add_conda(struct probe_ctx *ctx, struct envs *ev, const char *dir)
{
    char p[SP_ROOT_PATH_MAX];
    if (!root_is_dir(ctx->root, dir))
        return 0;
    if (env_add(ctx, ev, dir, "conda install") != 0)
        return -1;
    char **names;
    size_t n;
    if (snprintf(p, sizeof p, "%s/envs", dir) >= (int)sizeof p ||
        root_list_dir(ctx->root, p, &names, &n) != 0)
        return errno == ENOMEM ? -1 : 0;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        char e[SP_ROOT_PATH_MAX];
        if (names[i][0] == '.' || snprintf(e, sizeof e, "%s/%s", p, names[i]) >= (int)sizeof e)
            continue;
        if (root_is_dir(ctx->root, e))
            rc = env_add(ctx, ev, e, "conda env");
    }
    root_names_free(names, n);
    return rc;
}

static int find_envs(struct probe_ctx *ctx, struct envs *ev)
{
    char **names;
    size_t n;
    char p[SP_ROOT_PATH_MAX];
    if (root_list_dir(ctx->root, "/opt", &names, &n) == 0) {
        int rc = 0;
        for (size_t i = 0; i < n && rc == 0; i++) {
            if (strncmp(names[i], "aws_neuronx_venv_", 17) != 0 &&
                strncmp(names[i], "aws_neuron_venv_", 16) != 0)
                continue;
            snprintf(p, sizeof p, "/opt/%s", names[i]);
            if (root_is_dir(ctx->root, p))
                rc = env_add(ctx, ev, p, "Deep Learning AMI venv");
        }
        root_names_free(names, n);
        if (rc)
            return -1;
    } else if (errno == ENOMEM) {
        return -1;
    }
    static const char *const bases[] = { "/opt", "/root" };
    for (size_t b = 0; b < 2; b++)
        for (size_t c = 0; c < sizeof conda_names / sizeof *conda_names; c++) {
            snprintf(p, sizeof p, "%s/%s", bases[b], conda_names[c]);
            if (add_conda(ctx, ev, p) != 0)
                return -1;
        }
    if (root_list_dir(ctx->root, "/home", &names, &n) == 0) {
        int rc = 0;
        for (size_t i = 0; i < n && rc == 0; i++) {
            if (i >= PY_HOMES_MAX) {
                factset_warn(ctx->facts, "python.env: /home: more than %d folders; the rest "
                             "not looked into", PY_HOMES_MAX);
                break;
            }
            for (size_t c = 1; c < sizeof conda_names / sizeof *conda_names && rc == 0; c++) {
                if (snprintf(p, sizeof p, "/home/%s/%s", names[i], conda_names[c]) <
                    (int)sizeof p)
                    rc = add_conda(ctx, ev, p);
            }
        }
        root_names_free(names, n);
        if (rc)
            return -1;
    } else if (errno == ENOMEM) {
        return -1;
    }
    return 0;
}

static int same_place(struct probe_ctx *ctx, const char *a, const char *b)
{
    char *ra = NULL, *rb = NULL;
    int same = 0;
    if (root_realpath(ctx->root, a, &ra) == 0 && root_realpath(ctx->root, b, &rb) == 0)
        same = strcmp(ra, rb) == 0;
    else
        same = strcmp(a, b) == 0;
    free(ra);
    free(rb);
    return same;
}

/* Record one other environment whose interpreter is EXE under SLUG. */
static int record_env(struct probe_ctx *ctx, const char *exe,
                      const char *slug, const char *kind, const char *workload_prefix,
                      struct py_interp *pi)
{
    char key[SP_FACT_KEY_MAX + 1], ev[SP_ROOT_PATH_MAX + 1200], version[64];
    int rc = py_interp_open(ctx, exe, kind, 0, pi);
    if (rc != 0) {
        /* the interpreter is there but its environment cannot be read (the
         * warning says why): only its path is known */
        if (rc > 0 && pi->real[0]) {
            snprintf(key, sizeof key, "python.env.%s.path", slug);
            snprintf(ev, sizeof ev, "%s; resolves to %s", kind, pi->real);
            rc = probe_set(ctx, key, exe, ev);
        }
        py_interp_free(pi);
        return rc < 0 ? -1 : 0;
    }
    if (workload_prefix && same_place(ctx, pi->prefix, workload_prefix)) {
        py_interp_free(pi);
        return 0;   /* the workload's own environment: recorded as pip.* */
    }
    snprintf(key, sizeof key, "python.env.%s.path", slug);
    snprintf(ev, sizeof ev, "%s; resolves to %s", kind, pi->real);
    rc = probe_set(ctx, key, exe, ev);
    if (rc == 0) {
        int v = py_interp_version(ctx, pi, 0, version, sizeof version, ev, sizeof ev);
        snprintf(key, sizeof key, "python.env.%s.version", slug);
        if (v < 0 || (v == 0 && probe_set(ctx, key, version, ev) != 0))
            rc = -1;
    }
    if (rc == 0) {
        snprintf(key, sizeof key, "python.env.%s.pip.", slug);
        if (py_dists_record(ctx, pi, key, 0) < 0)
            rc = -1;
    }
    py_interp_free(pi);
    return rc;
}

static int others(struct probe_ctx *ctx, const char *workload_prefix,
                  struct py_interp *pi)
{
    struct envs ev = { 0 };
    char slugs[PY_ENVS_MAX + 1][SP_FACT_KEY_MAX];
    size_t nslugs = 0;
    int rc = find_envs(ctx, &ev);
    for (size_t i = 0; i < ev.n && rc == 0; i++) {
        char exe[SP_ROOT_PATH_MAX], slug[SP_FACT_KEY_MAX];
        if (snprintf(exe, sizeof exe, "%s/bin/python3", ev.path[i]) >= (int)sizeof exe ||
            !root_exists(ctx->root, exe))
            continue;   /* a conda env without Python, an empty venv */
        if (py_slug(ev.path[i], slug, sizeof slug) != 0 || strcmp(slug, "system") == 0) {
            factset_warn(ctx->facts, "python.env: %s: no usable slug; not recorded", ev.path[i]);
            continue;
        }
        int clash = 0;
        for (size_t k = 0; k < nslugs; k++)
            clash |= strcmp(slugs[k], slug) == 0;
        if (clash) {
            factset_warn(ctx->facts, "python.env: %s: slug %s already taken by another "
                         "environment; not recorded", ev.path[i], slug);
            continue;
        }
        snprintf(slugs[nslugs++], sizeof slugs[0], "%s", slug);
        char kind[SP_ROOT_PATH_MAX + 64];
        snprintf(kind, sizeof kind, "%s %s", ev.kind[i], ev.path[i]);
        rc = record_env(ctx, exe, slug, kind, workload_prefix, pi);
    }
    for (size_t i = 0; i < ev.n; i++)
        free(ev.path[i]);
    if (rc == 0 && root_exists(ctx->root, "/usr/bin/python3"))
        rc = record_env(ctx, "/usr/bin/python3", "system",
                        "the system interpreter /usr/bin/python3", workload_prefix, pi);
    return rc;
}

/* The workload's facts: python.path, python.prefix, python.version and
 * pip.*, from PI as py_choose_workload opened it.  0, or -1 on ENOMEM. */
static int record_workload(struct probe_ctx *ctx, struct py_interp *pi)
{
    char ev[SP_ROOT_PATH_MAX * 2 + 1200], version[64];
    snprintf(ev, sizeof ev, "%s; resolves to %s", pi->how, pi->real);
    if (probe_set(ctx, "python.path", pi->exe, ev) != 0)
        return -1;
    if (pi->venv)
        snprintf(ev, sizeof ev, "%s (a venv; base %s)", pi->venv_cfg, pi->base);
    else
        snprintf(ev, sizeof ev, "%s/os.py (the stdlib landmark)", pi->stdlib);
    if (probe_set(ctx, "python.prefix", pi->prefix, ev) != 0)
        return -1;
    int v = py_interp_version(ctx, pi, 0, version, sizeof version, ev, sizeof ev);
    if (v < 0 || (v == 0 && probe_set(ctx, "python.version", version, ev) != 0))
        return -1;
    return py_dists_record(ctx, pi, "pip.", 0) < 0 ? -1 : 0;
}

int probe_python(struct probe_ctx *ctx, struct sp_error *e)
{
    py_workload_release(ctx);
    struct py_interp *pi = calloc(1, sizeof *pi), *other = NULL;
    int rc = -1;
    if (pi == NULL)
        goto out;
    int found = py_choose_workload(ctx, 0, pi);
    if (found < 0)
        goto out;
    if (found > 0 && pi->real[0]) {
        /* found, but its environment cannot be read (warned): the path only */
        char ev[SP_ROOT_PATH_MAX * 2 + 1200];
        snprintf(ev, sizeof ev, "%s; resolves to %s", pi->how, pi->real);
        if (probe_set(ctx, "python.path", pi->exe, ev) != 0)
            goto out;
    }
    if (found == 0) {
        if (record_workload(ctx, pi) != 0)
            goto out;
        py_workload_set(ctx, pi);   /* shared with the torch and runtime probes */
        pi = NULL;
    }
    if ((other = calloc(1, sizeof *other)) == NULL)
        goto out;
    if (others(ctx, ctx->python_env ? ctx->python_env->prefix : NULL, other) != 0)
        goto out;
    rc = 0;
out:
    if (pi)
        py_interp_free(pi);
    free(pi);
    if (other)
        py_interp_free(other);
    free(other);
    if (rc != 0)
        return sp_fail(e, SP_EXIT_INPUT, "python: %s", strerror(ENOMEM));
    return 0;
}
