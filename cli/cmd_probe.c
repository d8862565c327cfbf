/* cli/cmd_probe.c: stackprint probe: open the root, run every probe, write
 * the manifest (stackprint-probe(1)). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "common/digest.h"
#include "fingerprint/root/image.h"
#include "fingerprint/probes/probe.h"
#include "manifest/dsse.h"
#include "manifest/manifest.h"

extern char **environ;

static const struct sp_command_help probe_help = {
    "probe",
    "usage: stackprint probe [--root DIR | --image PATH[:TAG] [--platform OS/ARCH[/VARIANT]]]\n"
    "                        [--python PATH]"
    " [--image-digest sha256:HEX] [--imds [--imds-endpoint HOST:PORT]]\n"
    "                        [--deep [--deep-timeout SECONDS]]\n"
    "                        [--cache DIR] [--neff FILE]... [--artifacts DIR]\n"
    "                        [--format yaml|json|cyclonedx] [-o FILE [--sign KEY]]\n"
    "Fingerprint this host, a copied root or an image; write the manifest.\n",
    29, NULL, SP_OPERANDS_NONE, NULL, NULL,
};

/* --neff options one probe takes */
#define SP_NEFF_ARGS_MAX 256

/* --deep-timeout: whole seconds, 1 to an hour */
#define SP_DEEP_TIMEOUT_MAX 3600

/* The last second RFC 3339's four-digit year can write,
 * 9999-12-31T23:59:59Z, as seconds since the epoch. */
#define SP_EPOCH_MAX 253402300799LL

/* RFC 3339 UTC time of now, or of SOURCE_DATE_EPOCH when set (reproducible
 * builds' convention: ASCII decimal digits only, no sign or blanks), into
 * OUT.  -1 when SOURCE_DATE_EPOCH is not digits or is past SP_EPOCH_MAX. */
static int created_time(char *out, size_t outsz)
{
    time_t t = time(NULL);
    const char *sde = getenv("SOURCE_DATE_EPOCH");
    if (sde && *sde) {
        long long v = 0;
        for (const char *p = sde; *p; p++) {
            if (*p < '0' || *p > '9' || v > SP_EPOCH_MAX)
                return -1;
            v = v * 10 + (*p - '0');
        }
        if (v > SP_EPOCH_MAX)
            return -1;
        t = (time_t)v;
    }
    struct tm tm;
    if (gmtime_r(&t, &tm) == NULL)
        return -1;
    return strftime(out, outsz, "%Y-%m-%dT%H:%M:%SZ", &tm) ? 0 : -1;
}

/* The progress line of --image (stderr, a terminal, a large image only). */
static void image_progress(void *ctx, uint64_t done, uint64_t total, int final)
{
    struct timespec *t0 = ctx, now;
    if (total < SP_IMAGE_PROGRESS_MIN)
        return;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double s = (double)(now.tv_sec - t0->tv_sec) + (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
    fprintf(stderr, "\rstackprint: image: %llu of %llu MiB read, %.0f MiB/s%s",
            (unsigned long long)(done >> 20), (unsigned long long)(total >> 20),
            s > 0 ? (double)done / 1048576.0 / s : 0.0, final ? "\n" : "");
}

/* --image: open, verify and merge the image; say which one was chosen
 * when the source held several. */
static struct root *open_image(const char *spec, const char *platform, struct sp_error *e)
{
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    struct image_open_opts o = {
        .spec = spec, .platform = platform, .keep = probe_read_patterns(),
        .progress = isatty(STDERR_FILENO) ? image_progress : NULL, .progress_ctx = &t0,
    };
    struct root *r = root_open_image(&o, e);
    if (r && image_root_choice(r))
        fprintf(stderr, "stackprint: %s: chose %s\n", spec, image_root_choice(r));
    return r;
}

/* The manifest path and key a left-over envelope must fit. */
struct fits {
    const char *manifest;
    EVP_PKEY *key;
};

/* 1 when the envelope file TMP verifies, under the signing key, against the
 * manifest file as it is now (a killed run's envelope for the manifest it
 * did rename into place). */
static int envelope_fits(const char *tmp, void *arg)
{
    const struct fits *f = arg;
    struct sp_error e = { 0 };
    struct sp_verified v = { 0 };
    char *man = NULL, *env = NULL;
    size_t manlen = 0, envlen = 0;
    int ok = sp_read_file(f->manifest, SP_MANIFEST_MAX_BYTES, "manifest", &man, &manlen, &e) == 0 &&
             sp_read_file(tmp, SP_ENVELOPE_MAX_BYTES, "envelope", &env, &envlen, &e) == 0 &&
             sp_verify_manifest(env, envlen, tmp, man, manlen, f->manifest, f->key, &v, &e) == 0;
    sp_verified_free(&v);
    free(man);
    free(env);
    return ok;
}

/* The command line, parsed. */
struct probe_args {
    const char *rootdir, *image, *out, *sign_key, *platform, *deep_timeout;
    struct sp_opt_list neffs;
    struct probe_ctx ctx;
    enum manifest_format format;
    int cyclonedx;      /* --format cyclonedx: the manifest exported, as `export` does */
};

/* --format: yaml, json or cyclonedx, into the struct probe_args at O->value */
static int format_arg(const struct sp_option *o, const char *arg, const char *cmd)
{
    struct probe_args *a = o->value;
    if (strcmp(arg, "yaml") == 0)
        a->format = MANIFEST_YAML;
    else if (strcmp(arg, "json") == 0)
        a->format = MANIFEST_JSON;
    else if (strcmp(arg, "cyclonedx") == 0)
        a->cyclonedx = 1;
    else
        return sp_usage_error(cmd, "unknown format '%s' (yaml, json or cyclonedx)", arg);
    return 0;
}

/* The options that need, or exclude, one another; --deep-timeout's value.
 * Returns SP_OPTIONS_GO_ON or an exit status. */
static int probe_combos(struct probe_args *a)
{
    struct probe_ctx *ctx = &a->ctx;
    if (a->rootdir && a->image)
        return sp_usage_error("probe", "--root and --image exclude each other");
    if (a->sign_key && a->cyclonedx)
        return sp_usage_error("probe", "--sign signs a manifest: write it as yaml or json, "
                              "then 'stackprint sign --predicate cyclonedx'");
    if (a->sign_key && (a->out == NULL || strcmp(a->out, "-") == 0))
        return sp_usage_error("probe", "--sign needs -o FILE (the envelope is FILE.intoto.json)");
    if (a->platform && !a->image)
        return sp_usage_error("probe", "--platform needs --image");
    if (ctx->imds_endpoint && !ctx->imds)
        return sp_usage_error("probe", "--imds-endpoint needs --imds");
    if (ctx->deep && (a->rootdir || a->image))
        return sp_usage_error("probe", "--deep runs the live host's interpreter; it does not "
                              "go with --root or --image");
    const char *t = a->deep_timeout;
    if (t && !ctx->deep)
        return sp_usage_error("probe", "--deep-timeout needs --deep");
    if (t) {
        char *end;
        errno = 0;
        long v = strtol(t, &end, 10);
        if (errno || end == t || *end || v < 1 || v > SP_DEEP_TIMEOUT_MAX || t[0] < '0' || t[0] > '9')
            return sp_usage_error("probe", "--deep-timeout '%s' is not a whole number of "
                                  "seconds from 1 to %d", t, SP_DEEP_TIMEOUT_MAX);
        ctx->deep_timeout_ms = (int)v * 1000;
    }
    return SP_OPTIONS_GO_ON;
}

/* No output may replace an input: the signing key or the image file (PATH
 * of PATH:TAG); with --sign, -o and its envelope FILE.intoto.json are
 * plain files next to each other.  Returns SP_OPTIONS_GO_ON or an exit
 * status. */
static int probe_outputs(const struct probe_args *a)
{
    const char *out = a->out;
    struct stat st;
    if (a->sign_key && stat(out, &st) == 0 && !S_ISREG(st.st_mode))
        return sp_usage_error("probe", "with --sign, -o '%s' must be a regular file "
                              "(its envelope is written next to it)", out);
    char *image_file = NULL, *image_tag = NULL, *envpath = NULL;
    if (a->image && image_parse_spec(a->image, &image_file, &image_tag) != 0)
        return sp_usage_error("probe", "out of memory");
    free(image_tag);
    if (a->sign_key && out && asprintf(&envpath, "%s" SP_ENVELOPE_SUFFIX, out) < 0)
        envpath = NULL;
    int rc = SP_OPTIONS_GO_ON;
    for (int i = 0; i < 2 && rc == SP_OPTIONS_GO_ON; i++) {
        const char *in = i == 0 ? a->sign_key : image_file;
        const char *what = i == 0 ? "signing key" : "image";
        if (sp_same_file(out, in))
            rc = sp_usage_error("probe", "output '%s' is the %s; it would be overwritten", out, what);
        else if (envpath && sp_same_file(envpath, in))
            rc = sp_usage_error("probe", "envelope '%s' is the %s; it would be overwritten",
                                envpath, what);
    }
    free(envpath);
    free(image_file);
    return rc;
}

/* The paths inside the root are absolute; the image digest and the IMDS
 * endpoint from the environment when not given.  Returns SP_OPTIONS_GO_ON
 * or an exit status. */
static int probe_paths(struct probe_args *a)
{
    struct probe_ctx *ctx = &a->ctx;
    if (ctx->python && ctx->python[0] != '/')
        return sp_usage_error("probe", "--python '%s' is not an absolute path (a path "
                              "inside the root, as the root's / sees it)", ctx->python);
    for (size_t i = 0; i < 2 + a->neffs.n; i++) {
        const char *in = i == 0 ? ctx->cache_dir : i == 1 ? ctx->artifacts : a->neffs.v[i - 2];
        if (in && in[0] != '/')
            return sp_usage_error("probe", "'%s' is not an absolute path (--cache, --neff and "
                                  "--artifacts name paths inside the root)", in);
    }
    if (!ctx->image_digest && !a->rootdir && !a->image) {
        const char *env = getenv("STACKPRINT_IMAGE_DIGEST");
        if (env && *env)
            ctx->image_digest = env;
    }
    if (ctx->image_digest && !sp_digest_valid(ctx->image_digest))
        return sp_usage_error("probe", "image digest '%s' is not sha256:<64 lowercase hex>",
                              ctx->image_digest);
    if (!ctx->imds_endpoint) {
        const char *env = getenv("STACKPRINT_IMDS_ENDPOINT");
        if (env && *env)
            ctx->imds_endpoint = env;
    }
    return SP_OPTIONS_GO_ON;
}

/* Parse and check ARGV into A.  Returns SP_OPTIONS_GO_ON or an exit status. */
static int probe_parse(int argc, char **argv, struct probe_args *a)
{
    struct probe_ctx *ctx = &a->ctx;
    const struct sp_option opts[] = {
        SP_OPTION_STRING('r', "root", "DIR", &a->rootdir, "probe a copied tree; nothing outside DIR is read"),
        SP_OPTION_STRING('i', "image", "PATH[:TAG]", &a->image,
                         "probe an OCI layout, OCI archive or docker save tarball"),
        SP_OPTION_STRING(0, "platform", "OS/ARCH[/VARIANT]", &a->platform,
                         "the image to take from a multi-platform index"),
        SP_OPTION_STRING(0, "python", "PATH", &ctx->python,
                         "the workload's interpreter (default: $VIRTUAL_ENV, else python3 on PATH)"),
        SP_OPTION_STRING(0, "image-digest", "sha256:HEX", &ctx->image_digest,
                         "the digest of the image this container runs"),
        SP_OPTION_FLAG(0, "imds", &ctx->imds, "ask EC2's instance metadata service (IMDSv2)"),
        SP_OPTION_STRING(0, "imds-endpoint", "HOST:PORT", &ctx->imds_endpoint,
                         "the metadata service to ask (default " SP_IMDS_ENDPOINT_DEFAULT ")"),
        SP_OPTION_FLAG(0, "deep", &ctx->deep, "also run the workload's interpreter once (live host only)"),
        SP_OPTION_STRING(0, "deep-timeout", "SECONDS", &a->deep_timeout,
                         "how long it may take, 1 to " SP_STR(SP_DEEP_TIMEOUT_MAX)
                         " (default " SP_STR(SP_DEEP_TIMEOUT_S_DEFAULT) ")"),
        SP_OPTION_ONCE(0, "cache", "DIR", &ctx->cache_dir,
                       "the Neuron compile cache to describe (a path inside the root)"),
        SP_OPTION_LIST(0, "neff", "FILE", &a->neffs, SP_NEFF_ARGS_MAX,
                       "a NEFF file to record; repeatable, up to " SP_STR(SP_NEFF_ARGS_MAX)),
        SP_OPTION_ONCE(0, "artifacts", "DIR", &ctx->artifacts, "record every *.neff file under DIR"),
        SP_OPTION_CALL('f', "format", "FORMAT", a, format_arg,
                       "yaml (default), json, or cyclonedx (a CycloneDX 1.6 BOM)"),
        SP_OPTION_STRING('o', "output", "FILE", &a->out,
                         "write the manifest to FILE (atomically), not stdout"),
        SP_OPTION_STRING(0, "sign", "KEY", &a->sign_key,
                         "with -o, also write FILE.intoto.json signed with KEY"),
        SP_OPTION_END,
    };
    int optind, rc = sp_options_parse(&probe_help, opts, argc, argv, &optind);
    if (rc != SP_OPTIONS_GO_ON)
        return rc;
    ctx->neff = a->neffs.v;
    ctx->nneff = a->neffs.n;
    if ((rc = probe_combos(a)) != SP_OPTIONS_GO_ON || (rc = probe_outputs(a)) != SP_OPTIONS_GO_ON)
        return rc;
    return probe_paths(a);
}

/* Run every probe into M, render it as A asks and write it (and, with KEY,
 * its envelope).  Returns the exit status. */
static int probe_write(const struct probe_args *a, struct root *root, EVP_PKEY *key,
                       struct manifest *m)
{
    struct probe_ctx ctx = a->ctx;
    struct sp_error e = { 0 };
    char *buf = NULL, *env = NULL, *envpath = NULL;
    size_t len = 0, envlen = 0;
    ctx.root = root;
    ctx.environ = root->live ? environ : NULL;
    ctx.facts = &m->facts;
    int rc = -1;
    if (probe_run_all(&ctx, &e) != 0 ||
        manifest_finish(m) != 0 ||
        (a->cyclonedx ? sp_export_render(m, "cyclonedx", &buf, &len, &e)
                      : manifest_render(m, a->format, &buf, &len, &e)) != 0) {
        if (e.msg[0] == '\0')
            sp_fail(&e, SP_EXIT_INPUT, "probe: %s", strerror(errno ? errno : EIO));
    } else if (key == NULL) {
        rc = sp_write_output(a->out, buf, len, &e);
    } else {
        /* Sign the exact bytes FILE gets into FILE.intoto.json; write the
         * pair so that no reader takes a mixed one (sp_write_pair). */
        const char *slash = strrchr(a->out, '/');
        if (asprintf(&envpath, "%s" SP_ENVELOPE_SUFFIX, a->out) < 0) {
            envpath = NULL;
            sp_fail(&e, SP_EXIT_INPUT, "probe: %s", strerror(ENOMEM));
        } else if (sp_sign_manifest(buf, len, slash ? slash + 1 : a->out, key, &env, &envlen, &e) == 0) {
            rc = sp_write_pair(a->out, buf, len, envpath, env, envlen, envelope_fits,
                               &(struct fits){ a->out, key }, &e);
        }
    }
    free(env);
    free(envpath);
    free(buf);
    return rc == 0 ? SP_EXIT_OK : sp_error_print(&e);
}

/* Load the key, open the root, fill in the manifest's header, probe and
 * write.  Returns the exit status. */
static int probe_run(const struct probe_args *a, const char *created)
{
    struct sp_error e = { 0 };
    /* The signing key is loaded before probing: a bad key writes nothing. */
    EVP_PKEY *key = NULL;
    if (a->sign_key && sp_key_load_private(a->sign_key, &key, &e) != 0)
        return sp_error_print(&e);
    struct root *root = a->image ? open_image(a->image, a->platform, &e)
                      : a->rootdir ? root_open_dir(a->rootdir) : root_open_host();
    if (root == NULL) {
        if (!a->image)
            sp_fail(&e, SP_EXIT_INPUT, "%s: %s", a->rootdir ? a->rootdir : "/", strerror(errno));
        EVP_PKEY_free(key);
        return sp_error_print(&e);
    }
    struct manifest m;
    manifest_init(&m);
    int rc;
    m.tool = strdup("stackprint " SP_VERSION);
    m.created = strdup(created);
    m.subject = strdup(root->subject);
    if (m.tool == NULL || m.created == NULL || m.subject == NULL) {
        sp_fail(&e, SP_EXIT_INPUT, "probe: %s", strerror(ENOMEM));
        rc = sp_error_print(&e);
    } else {
        rc = probe_write(a, root, key, &m);
    }
    EVP_PKEY_free(key);
    manifest_free(&m);
    root_close(root);
    return rc;
}

int cmd_probe(int argc, char **argv)
{
    struct probe_args a = { .format = MANIFEST_YAML };
    char created[32];
    int rc = probe_parse(argc, argv, &a);
    if (rc == SP_OPTIONS_GO_ON && created_time(created, sizeof created) != 0)
        rc = sp_usage_error("probe", "SOURCE_DATE_EPOCH '%s' is not a number of seconds "
                            "from 0 to %lld (9999-12-31T23:59:59Z)", getenv("SOURCE_DATE_EPOCH"),
                            SP_EPOCH_MAX);
    if (rc == SP_OPTIONS_GO_ON)
        rc = probe_run(&a, created);
    free(a.neffs.v);
    return rc;
}
