/* fingerprint/probes/probe_compile_cache.c: the Neuron persistent compile cache
 * (neuron.cache.*; doc/DOMAIN.md section 9): where it is, which neuronx-cc
 * versions filled it, how many compiled modules each left, and the targets
 * its compiler flags name.
 *
 * Where: --cache DIR (a path inside the root); on the live host,
 * --cache_dir=URL in NEURON_CC_FLAGS, else NEURON_COMPILE_CACHE_URL (the
 * SDK's order of precedence); else /var/tmp/neuron-compile-cache when it
 * exists.  An s3:// URL is recorded as neuron.cache.url and never fetched.
 *
 * What: <cache>/neuronxcc-<version>/MODULE_<graph hash>+<flags hash>/ with
 * model.neff for a compiled module and compile_flags.json for its flags; a
 * module without model.neff is locked (model.hlo_module.pb.lock: a compile
 * under way, or one that was killed and now makes every other job wait) or
 * failed (model.log).
 * Modules are counted by their model.neff (one stat each, so a cache of
 * 100,000 modules is summarised, never listed); a compiler folder without a
 * compiled module did not fill the cache and is not listed; the flags are read once per
 * distinct flags hash, the part of the folder name the SDK derives from the
 * flags.  A compile_flags.json that is not a JSON array of strings is a
 * warning, never a guess.  Reads only through the root. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fingerprint/probes/probe.h"

#define CACHE_DEFAULT "/var/tmp/neuron-compile-cache"
#define CACHE_FLAGS_MAX (64u * 1024)     /* bytes of one compile_flags.json */
#define CACHE_COMPILERS_MAX 256          /* neuronxcc-* folders read */
#define CACHE_FLAG_SETS_MAX 1024         /* distinct flags hashes read */
#define CACHE_TARGETS_MAX 16             /* distinct targets kept */

struct cache_scan {
    char compilers[4096];         /* "V1,V2" */
    char by_compiler[8192];       /* "V1=N,V2=M" */
    size_t clen, blen;
    unsigned long long modules, locked, failed;
    char *flag_hashes[CACHE_FLAG_SETS_MAX];
    size_t nflag_hashes;
    char targets[CACHE_TARGETS_MAX][32];
    size_t ntargets;
    int flags_unread;             /* flag sets whose targets are unknown */
};

/* Append ",TEXT" (or "TEXT" when BUF is empty) when it fits whole. */
static void append(char *buf, size_t size, size_t *len, const char *text)
{
    int w = snprintf(buf + *len, size - *len, "%s%s", *len ? "," : "", text);
    if (w > 0 && (size_t)w < size - *len)
        *len += (size_t)w;
    else
        buf[*len] = '\0';
}

/* The cache folder from NEURON_CC_FLAGS' --cache_dir (as "--cache_dir=X" or
 * "--cache_dir X"), copied into OUT; 1 when found. */
static int flags_cache_dir(const char *flags, char *out, size_t outsz)
{
    const char *p = flags;
    while ((p = strstr(p, "--cache_dir")) != NULL) {
        if (p != flags && p[-1] != ' ' && p[-1] != '\t') {
            p++;
            continue;
        }
        const char *v = p + strlen("--cache_dir");
        if (*v == '=')
            v++;
        else if (*v == ' ' || *v == '\t')
            while (*v == ' ' || *v == '\t')
                v++;
        else {
            p++;
            continue;
        }
        size_t n = strcspn(v, " \t");
        if (n == 0 || n >= outsz)
            return 0;
        snprintf(out, outsz, "%.*s", (int)n, v);
        return 1;
    }
    return 0;
}

/* Targets named by the flags of one module: "--target=X" or "--target" "X". */
static void read_flags(struct probe_ctx *ctx, struct cache_scan *s, const char *path)
{
    char *buf;
    size_t len;
    if (root_read_file(ctx->root, path, CACHE_FLAGS_MAX, &buf, &len) != 0) {
        probe_warn_errno(ctx, "neuron.cache.targets", path, errno);
        s->flags_unread++;
        return;
    }
    json_t *j = json_loadb(buf, len, 0, NULL);
    free(buf);
    if (!json_is_array(j)) {
        factset_warn(ctx->facts, "neuron.cache.targets: %s: not a JSON array of flags; "
                     "its targets are not known", path);
        s->flags_unread++;
        json_decref(j);
        return;
    }
    size_t i;
    json_t *v;
    json_array_foreach(j, i, v) {
        if (!json_is_string(v)) {
            factset_warn(ctx->facts, "neuron.cache.targets: %s: not a JSON array of flags (element "
                         "%zu is not a string); its targets are not known", path, i);
            s->flags_unread++;
            json_decref(j);
            return;
        }
    }
    json_array_foreach(j, i, v) {
        const char *f = json_string_value(v), *t = NULL;
        if (strncmp(f, "--target=", 9) == 0)
            t = f + 9;
        else if (strcmp(f, "--target") == 0)
            t = json_string_value(json_array_get(j, i + 1));
        if (t == NULL || *t == '\0' || strlen(t) >= sizeof s->targets[0])
            continue;
        size_t k = 0;
        while (k < s->ntargets && strcmp(s->targets[k], t) != 0)
            k++;
        if (k == s->ntargets && s->ntargets < CACHE_TARGETS_MAX)
            snprintf(s->targets[s->ntargets++], sizeof s->targets[0], "%s", t);
    }
    json_decref(j);
}

/* One neuronxcc-<version> folder. */
static int scan_compiler(struct probe_ctx *ctx, struct cache_scan *s, const char *dir,
                         const char *version)
{
    char **names;
    size_t n;
    if (root_list_dir(ctx->root, dir, &names, &n) != 0) {
        if (errno == ENOMEM)
            return -1;
        probe_warn_errno(ctx, "neuron.cache.modules", dir, errno);
        return 0;
    }
    unsigned long long compiled = 0;
    for (size_t i = 0; i < n; i++) {
        const char *m = names[i];
        if (strncmp(m, "MODULE_", 7) != 0)
            continue;
        char p[SP_ROOT_PATH_MAX];
        struct root_stat st;
        if (snprintf(p, sizeof p, "%s/%s/model.neff", dir, m) >= (int)sizeof p)
            continue;
        if (root_stat(ctx->root, p, 1, &st) != 0 || st.type != ROOT_T_FILE) {
            /* not compiled: a compile under way or killed (its lock is
             * left), or one that failed (its log, no NEFF) */
            if (snprintf(p, sizeof p, "%s/%s/model.hlo_module.pb.lock", dir, m) < (int)sizeof p &&
                root_exists(ctx->root, p))
                s->locked++;
            else if (snprintf(p, sizeof p, "%s/%s/model.log", dir, m) < (int)sizeof p &&
                     root_exists(ctx->root, p))
                s->failed++;
            continue;
        }
        compiled++;
        const char *plus = strrchr(m, '+');
        if (plus == NULL)
            continue;
        size_t k = 0;
        while (k < s->nflag_hashes && strcmp(s->flag_hashes[k], plus + 1) != 0)
            k++;
        if (k < s->nflag_hashes || s->nflag_hashes == CACHE_FLAG_SETS_MAX)
            continue;
        if ((s->flag_hashes[s->nflag_hashes] = strdup(plus + 1)) == NULL) {
            root_names_free(names, n);
            return -1;
        }
        s->nflag_hashes++;
        if (snprintf(p, sizeof p, "%s/%s/compile_flags.json", dir, m) >= (int)sizeof p)
            s->flags_unread++;
        else if (root_exists(ctx->root, p))
            read_flags(ctx, s, p);
        else
            s->flags_unread++;
    }
    root_names_free(names, n);
    if (compiled == 0)   /* an empty folder, or failed and locked modules only */
        return 0;
    s->modules += compiled;
    char pair[300];
    snprintf(pair, sizeof pair, "%s=%llu", version, compiled);
    append(s->compilers, sizeof s->compilers, &s->clen, version);
    append(s->by_compiler, sizeof s->by_compiler, &s->blen, pair);
    return 0;
}

static int record(struct probe_ctx *ctx, struct cache_scan *s, const char *cache)
{
    char n[32], ev[SP_ROOT_PATH_MAX + 64];
    snprintf(ev, sizeof ev, "%s/neuronxcc-*/MODULE_*/model.neff", cache);
    snprintf(n, sizeof n, "%llu", s->modules);
    if (probe_set(ctx, "neuron.cache.modules", n, ev) != 0)
        return -1;
    snprintf(ev, sizeof ev, "%s/neuronxcc-*/MODULE_*/model.hlo_module.pb.lock", cache);
    snprintf(n, sizeof n, "%llu", s->locked);
    if (probe_set(ctx, "neuron.cache.locked", n, ev) != 0)
        return -1;
    snprintf(ev, sizeof ev, "%s/neuronxcc-*/MODULE_*/model.log without model.neff", cache);
    snprintf(n, sizeof n, "%llu", s->failed);
    if (probe_set(ctx, "neuron.cache.failed", n, ev) != 0)
        return -1;
    snprintf(ev, sizeof ev, "%s/neuronxcc-*/MODULE_*/model.neff", cache);
    if (s->clen && (probe_set(ctx, "neuron.cache.compilers", s->compilers, cache) != 0 ||
                    probe_set(ctx, "neuron.cache.modules_by_compiler", s->by_compiler, ev) != 0))
        return -1;
    if (s->ntargets == 0)
        return 0;
    char list[CACHE_TARGETS_MAX * 33] = "", other[CACHE_TARGETS_MAX * 33] = "";
    size_t ll = 0, ol = 0;
    const char *family = factset_get(ctx->facts, "host.instance_family");
    for (size_t i = 0; i < s->ntargets; i++) {
        append(list, sizeof list, &ll, s->targets[i]);
        if (family && strcmp(family, s->targets[i]) != 0)
            append(other, sizeof other, &ol, s->targets[i]);
    }
    snprintf(ev, sizeof ev, "%s/neuronxcc-*/MODULE_*/compile_flags.json (%zu flag set%s)",
             cache, s->nflag_hashes, s->nflag_hashes == 1 ? "" : "s");
    if (probe_set(ctx, "neuron.cache.targets", list, ev) != 0)
        return -1;
    if (ol) {
        char oev[SP_ROOT_PATH_MAX + 128];
        snprintf(oev, sizeof oev, "targets %s; host.instance_family %s", list, family);
        if (probe_set(ctx, "neuron.cache.other_targets", other, oev) != 0)
            return -1;
    }
    return 0;
}

int probe_compile_cache(struct probe_ctx *ctx, struct sp_error *e)
{
    char where[SP_ROOT_PATH_MAX], how[SP_ROOT_PATH_MAX + 64];
    int explicit_ = 1;
    const char *env;
    if (ctx->cache_dir) {
        snprintf(where, sizeof where, "%s", ctx->cache_dir);
        snprintf(how, sizeof how, "--cache %s", ctx->cache_dir);
    } else if ((env = probe_getenv(ctx, "NEURON_CC_FLAGS")) && strstr(env, "--cache_dir") &&
               !flags_cache_dir(env, where, sizeof where)) {
        factset_warn(ctx->facts, "neuron.cache: NEURON_CC_FLAGS names --cache_dir without a "
                     "folder; not read");
        return 0;
    } else if (env && flags_cache_dir(env, where, sizeof where)) {
        snprintf(how, sizeof how, "--cache_dir in NEURON_CC_FLAGS");
    } else if ((env = probe_getenv(ctx, "NEURON_COMPILE_CACHE_URL")) && *env) {
        snprintf(where, sizeof where, "%s", env);
        snprintf(how, sizeof how, "NEURON_COMPILE_CACHE_URL");
    } else {
        snprintf(where, sizeof where, "%s", CACHE_DEFAULT);
        snprintf(how, sizeof how, "the SDK's default %s", CACHE_DEFAULT);
        explicit_ = 0;
    }
    if (strncmp(where, "s3://", 5) == 0)
        return probe_set(ctx, "neuron.cache.url", where, how) == 0 ? 0
               : sp_fail(e, SP_EXIT_INPUT, "neuron.cache: %s", strerror(ENOMEM));
    const char *path = strncmp(where, "file://", 7) == 0 ? where + 7 : where;
    if (path[0] != '/') {
        factset_warn(ctx->facts, "neuron.cache: %s: not an absolute path or s3:// URL (%s); "
                     "not read", where, how);
        return 0;
    }
    if (!root_is_dir(ctx->root, path)) {
        int exists = root_exists(ctx->root, path);
        if (explicit_ || exists)   /* the default folder may simply be absent */
            probe_warn_errno(ctx, "neuron.cache", path, exists ? ENOTDIR : ENOENT);
        return 0;
    }
    if (probe_set(ctx, "neuron.cache.path", path, how) != 0)
        return sp_fail(e, SP_EXIT_INPUT, "neuron.cache: %s", strerror(ENOMEM));

    char **names;
    size_t n;
    if (root_list_dir(ctx->root, path, &names, &n) != 0) {
        if (errno == ENOMEM)
            return sp_fail(e, SP_EXIT_INPUT, "neuron.cache: %s", strerror(ENOMEM));
        probe_warn_errno(ctx, "neuron.cache", path, errno);
        return 0;
    }
    struct cache_scan *s = calloc(1, sizeof *s);
    int rc = s ? 0 : -1;
    size_t dirs = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (strncmp(names[i], "neuronxcc-", 10) != 0 || names[i][10] == '\0')
            continue;
        char d[SP_ROOT_PATH_MAX];
        if (sp_path_join(d, sizeof d, path, names[i]) != 0 || !root_is_dir(ctx->root, d))
            continue;
        if (++dirs > CACHE_COMPILERS_MAX) {
            factset_warn(ctx->facts, "neuron.cache: %s: more than %d compiler folders; the "
                         "rest are not counted", path, CACHE_COMPILERS_MAX);
            break;
        }
        rc = scan_compiler(ctx, s, d, names[i] + 10);
    }
    root_names_free(names, n);
    if (rc == 0)
        rc = record(ctx, s, path);
    if (rc == 0 && s->flags_unread && s->ntargets)
        factset_warn(ctx->facts, "neuron.cache.targets: the flags of %d of %zu flag sets could "
                     "not be read; their targets are not in the list", s->flags_unread,
                     s->nflag_hashes);
    for (size_t i = 0; s && i < s->nflag_hashes; i++)
        free(s->flag_hashes[i]);
    free(s);
    return rc == 0 ? 0 : sp_fail(e, SP_EXIT_INPUT, "neuron.cache: %s", strerror(ENOMEM));
}
