/* fingerprint/probes/probe_torch.c: torch's build (torch.build.cuda,
 * torch.build.git from torch/version.py) and the backend path
 * (torch.backend: native, xla, neuron-inf1, none or ambiguous) of the
 * workload's environment, by the markers of doc/DOMAIN.md section 4.  Runs
 * after the python probe and reads its pip.* facts and the environment it
 * read (ctx->python_env: sys.path, each distribution's folder).  It must
 * not import anything, guess a backend from the distribution name alone,
 * or guess a GPU from a CUDA build. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"
#include "fingerprint/probes/probe.h"
#include "fingerprint/probes/python/python_env.h"

#define TORCH_VERSION_PY_MAX (64u * 1024)   /* bytes of torch/version.py */
#define TORCH_ENTRY_POINTS_MAX (256u * 1024) /* bytes of entry_points.txt */
#define TORCH_MARKERS_MAX 1024              /* bytes of one side's marker list */

/* The value of top-level assignment NAME in version.py text BUF: "name =
 * 'v'" or "name: Optional[str] = 'v'" (tools/generate_torch_version.py).
 * Writes the string, or "None"; returns 0, or 1 when absent or not a plain
 * literal. */
static int version_py_value(const char *buf, const char *name, char *out, size_t outsz)
{
    size_t nl = strlen(name);
    for (const char *line = buf; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        if (strncmp(line, name, nl) != 0)
            continue;
        const char *p = line + nl;
        if (*p != ' ' && *p != '=' && *p != ':' && *p != '\t')
            continue;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == ':') {   /* an annotation up to the '=' */
            while (*p && *p != '=' && *p != '\n')
                p++;
        }
        if (*p != '=')
            continue;
        p++;
        while (*p == ' ' || *p == '\t')
            p++;
        if (strncmp(p, "None", 4) == 0 && !isalnum((unsigned char)p[4]) && p[4] != '_') {
            snprintf(out, outsz, "None");
            return 0;
        }
        if (*p != '\'' && *p != '"')
            return 1;
        char q = *p++;
        size_t n = strcspn(p, q == '\'' ? "'\n\\" : "\"\n\\");
        if (p[n] != q || n == 0 || n >= outsz)
            return 1;
        snprintf(out, outsz, "%.*s", (int)n, p);
        return 0;
    }
    return 1;
}

static int build_facts(struct probe_ctx *ctx, const struct py_interp *pi)
{
    char pkg[SP_ROOT_PATH_MAX], vpy[SP_ROOT_PATH_MAX + 16];
    if (py_find_package(ctx, pi, "torch", pkg, sizeof pkg) != 0)
        return 0;
    snprintf(vpy, sizeof vpy, "%s/version.py", pkg);
    char *buf;
    size_t len;
    if (root_read_file(ctx->root, vpy, TORCH_VERSION_PY_MAX, &buf, &len) != 0) {
        if (errno == ENOMEM)
            return -1;
        probe_warn_errno(ctx, "torch.build", vpy, errno);
        return 0;
    }
    char v[256];
    int rc = 0;
    if (version_py_value(buf, "cuda", v, sizeof v) == 0)
        rc = probe_set(ctx, "torch.build.cuda", strcmp(v, "None") == 0 ? "none" : v, vpy);
    else
        factset_warn(ctx->facts, "torch.build.cuda: %s: no plain `cuda = ...` line", vpy);
    if (rc == 0 && version_py_value(buf, "git_version", v, sizeof v) == 0 &&
        strcmp(v, "None") != 0)
        rc = probe_set(ctx, "torch.build.git", v, vpy);
    else if (rc == 0)
        factset_warn(ctx->facts, "torch.build.git: %s: no plain `git_version = '...'` line", vpy);
    free(buf);
    return rc;
}

/* One side's markers: how many were seen, and their ", "-separated list
 * (at most TORCH_MARKERS_MAX - 1 bytes; an allocation failure is checked
 * once, in decide()). */
struct markers {
    struct sp_strbuf list;
    int count;
};

static void mark(struct markers *m, const char *what)
{
    sp_strbuf_item(&m->list, ", ", what);
    m->count++;
}

/* entry_points.txt: [torch.backends] naming torch_neuronx, and
 * [torch_dynamo_backends] with an entry "neuron" (native markers). */
static void entry_points(struct probe_ctx *ctx, const char *distdir, struct markers *native)
{
    char path[SP_ROOT_PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/entry_points.txt", distdir);
    char *buf;
    size_t len;
    if (root_read_file(ctx->root, path, TORCH_ENTRY_POINTS_MAX, &buf, &len) != 0) {
        if (errno != ENOENT)
            probe_warn_errno(ctx, "torch.backend", path, errno);
        return;
    }
    char section[128] = "";
    int backends = 0, dynamo = 0;
    for (char *save = NULL, *line = strtok_r(buf, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        while (isspace((unsigned char)*line))
            line++;
        size_t l = strlen(line);
        while (l > 0 && isspace((unsigned char)line[l - 1]))
            line[--l] = '\0';
        if (line[0] == '[') {
            snprintf(section, sizeof section, "%.*s", (int)(l > 2 ? l - 2 : 0), line + 1);
            continue;
        }
        char *eq = strchr(line, '=');
        if (eq == NULL || line[0] == '#' || line[0] == ';')
            continue;
        char *k = line, *v = eq + 1;
        *eq = '\0';
        for (char *x = eq; x > k && isspace((unsigned char)x[-1]);)
            *--x = '\0';
        while (isspace((unsigned char)*v))
            v++;
        if (strcmp(section, "torch.backends") == 0 &&
            (strcmp(k, "torch_neuronx") == 0 || strncmp(v, "torch_neuronx", 13) == 0))
            backends = 1;
        if (strcmp(section, "torch_dynamo_backends") == 0 && strcmp(k, "neuron") == 0)
            dynamo = 1;
    }
    free(buf);
    if (backends)
        mark(native, "entry_points.txt [torch.backends] torch_neuronx");
    if (dynamo)
        mark(native, "entry_points.txt [torch_dynamo_backends] neuron");
}

/* Requires-Dist of torch-neuronx naming torch-xla or libneuronxla outside
 * an extra (XLA markers). */
static int requires(struct probe_ctx *ctx, const char *metadata, struct markers *xla)
{
    struct py_metadata m;
    if (py_metadata_read(ctx->root, metadata, 1, &m) != 0) {
        if (errno == ENOMEM)
            return -1;
        probe_warn_errno(ctx, "torch.backend", metadata, errno);
        return 0;
    }
    int torch_xla = 0, libneuronxla = 0;
    for (size_t i = 0; i < m.nrequires; i++) {
        const char *r = m.requires[i];
        while (isspace((unsigned char)*r))
            r++;
        size_t n = strcspn(r, " \t;[<>=!~(");
        const char *semi = strchr(r, ';');
        if (semi && strstr(semi, "extra"))
            continue;   /* only with an optional extra */
        char name[PY_FIELD_MAX], norm[PY_FIELD_MAX];
        if (n == 0 || n >= sizeof name)
            continue;
        snprintf(name, sizeof name, "%.*s", (int)n, r);
        if (fact_name_pep503(name, norm, sizeof norm) != 0)
            continue;
        torch_xla |= strcmp(norm, "torch-xla") == 0;
        libneuronxla |= strcmp(norm, "libneuronxla") == 0;
    }
    py_metadata_free(&m);
    if (torch_xla)
        mark(xla, "Requires-Dist torch-xla");
    if (libneuronxla)
        mark(xla, "Requires-Dist libneuronxla");
    return 0;
}

/* The package folder torch_neuronx/: what it holds. */
static void package_markers(struct probe_ctx *ctx, const struct py_interp *pi,
                            struct markers *native, struct markers *xla)
{
    char pkg[SP_ROOT_PATH_MAX];
    if (py_find_package(ctx, pi, "torch_neuronx", pkg, sizeof pkg) != 0)
        return;
    char **names;
    size_t n;
    if (root_list_dir(ctx->root, pkg, &names, &n) != 0) {
        probe_warn_errno(ctx, "torch.backend", pkg, errno);
        return;
    }
    int c_so = 0;
    for (size_t i = 0; i < n; i++) {
        const char *nm = names[i];
        char p[SP_ROOT_PATH_MAX];
        if (sp_path_join(p, sizeof p, pkg, nm) != 0)
            continue;
        if (strcmp(nm, "neuron_dynamo_backend") == 0 && root_is_dir(ctx->root, p))
            mark(native, "torch_neuronx/neuron_dynamo_backend/");
        else if (strncmp(nm, "_C", 2) == 0 && (nm[2] == '.' || nm[2] == '\0') &&
                 strstr(nm, ".so") && !c_so) {
            mark(native, "torch_neuronx/_C*.so");
            c_so = 1;
        } else if (strcmp(nm, "_build_config.py") == 0)
            mark(native, "torch_neuronx/_build_config.py");
        else if (strcmp(nm, "xla_impl") == 0 && root_is_dir(ctx->root, p))
            mark(xla, "torch_neuronx/xla_impl/");
        else if (strcmp(nm, "pyhlo") == 0 && root_is_dir(ctx->root, p))
            mark(xla, "torch_neuronx/pyhlo/");
        else if (strcmp(nm, "xla.py") == 0)
            mark(xla, "torch_neuronx/xla.py");
    }
    root_names_free(names, n);
}

/* torch.backend from the markers of torch-neuronx NX (and torch-neuron N1,
 * or NULL): native or xla when only that side has markers, else ambiguous
 * (warned).  0, or -1 on ENOMEM. */
static int decide(struct probe_ctx *ctx, const struct fact *nx, const struct fact *n1,
                  const struct markers *native, const struct markers *xla)
{
    if (native->list.failed || xla->list.failed) {
        errno = ENOMEM;
        return -1;
    }
    char ev[4096];
    snprintf(ev, sizeof ev, "torch-neuronx %s (%s); native markers: %s; xla markers: %s",
             nx->value, nx->evidence ? nx->evidence : "?",
             native->count ? sp_strbuf_str(&native->list) : "none",
             xla->count ? sp_strbuf_str(&xla->list) : "none");
    if (n1)
        factset_warn(ctx->facts, "torch.backend: torch-neuron %s (Inf1) and torch-neuronx %s "
                     "are both installed", n1->value, nx->value);
    const char *value = native->count && !xla->count ? "native" :
                        xla->count && !native->count ? "xla" : "ambiguous";
    if (strcmp(value, "ambiguous") == 0)
        factset_warn(ctx->facts, "torch.backend: %s: torch-neuronx %s has %s; recorded "
                     "\"ambiguous\"", nx->evidence ? nx->evidence : "?", nx->value,
                     native->count ? "both native and XLA markers" :
                     "neither native nor XLA markers");
    return probe_set(ctx, "torch.backend", value, ev);
}

static int backend(struct probe_ctx *ctx, const struct py_interp *pi)
{
    const struct fact *nx = factset_find(ctx->facts, "pip.torch-neuronx");
    const struct fact *n1 = factset_find(ctx->facts, "pip.torch-neuron");
    char ev[4096];
    if (nx == NULL) {
        if (n1) {
            snprintf(ev, sizeof ev, "torch-neuron %s (%s); no torch-neuronx", n1->value,
                     n1->evidence ? n1->evidence : "?");
            return probe_set(ctx, "torch.backend", "neuron-inf1", ev);
        }
        if (snprintf(ev, sizeof ev, "no torch-neuron or torch-neuronx in the environment "
                     "of %s", pi->exe) >= (int)sizeof ev)
            ev[sizeof ev - 1] = '\0';
        return probe_set(ctx, "torch.backend", "none", ev);
    }
    struct markers native = { .count = 0 }, xla = { .count = 0 };
    sp_strbuf_init(&native.list, TORCH_MARKERS_MAX - 1);
    sp_strbuf_init(&xla.list, TORCH_MARKERS_MAX - 1);
    int rc = 0;
    const struct py_dist *d = py_dist_find(pi, "torch-neuronx");
    if (d) {
        /* a .dist-info or .egg-info folder, or an egg-info file itself */
        if (d->folder)
            entry_points(ctx, d->folder, &native);
        rc = requires(ctx, d->metadata, &xla);
    }
    if (rc == 0) {
        package_markers(ctx, pi, &native, &xla);
        const char *tx = factset_get(ctx->facts, "pip.torch-xla");
        if (tx) {
            char what[300];
            snprintf(what, sizeof what, "torch-xla %s installed", tx);
            mark(&xla, what);
        }
        const char *pjrt = probe_getenv(ctx, "PJRT_DEVICE");
        if (pjrt && strcmp(pjrt, "NEURON") == 0)
            mark(&xla, "PJRT_DEVICE=NEURON");
        rc = decide(ctx, nx, n1, &native, &xla);
    }
    sp_strbuf_free(&native.list);
    sp_strbuf_free(&xla.list);
    return rc;
}

/* A torch with a +cuXXX local label (a CUDA build) on a host with Neuron
 * facts: worth a warning, never a guess that a GPU exists. */
static void cuda_on_neuron(struct probe_ctx *ctx)
{
    static const char *const neuron_keys[] = {
        "neuron.device.count", "neuron.driver.version", "neuron.runtime.version",
    };
    const char *torch = factset_get(ctx->facts, "pip.torch");
    const char *label = torch ? strchr(torch, '+') : NULL;
    if (label == NULL || strncmp(label, "+cu", 3) != 0 || !isdigit((unsigned char)label[3]))
        return;
    for (size_t i = 0; i < sizeof neuron_keys / sizeof *neuron_keys; i++) {
        const char *v = factset_get(ctx->facts, neuron_keys[i]);
        if (v == NULL || strcmp(v, "0") == 0)
            continue;
        factset_warn(ctx->facts, "torch: pip.torch %s is a CUDA build on a host with Neuron "
                     "facts (%s %s); no GPU is assumed", torch, neuron_keys[i], v);
        return;
    }
}

int probe_torch(struct probe_ctx *ctx, struct sp_error *e)
{
    const struct py_interp *pi = ctx->python_env;
    if (pi == NULL)
        return 0;   /* no usable interpreter: the python probe said so */
    if (build_facts(ctx, pi) != 0 || backend(ctx, pi) != 0)
        return sp_fail(e, SP_EXIT_INPUT, "torch: %s", strerror(ENOMEM));
    cuda_on_neuron(ctx);
    return 0;
}
