/* cli/cmd_probe.c: stackprint probe: open the root, run every probe, write
 * the manifest (stackprint-probe(1)). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/commands.h"
#include "fingerprint/root/image.h"
#include "fingerprint/probes/probe.h"
#include "manifest/dsse.h"
#include "manifest/manifest.h"

extern char **environ;

static const char probe_usage[] =
    "usage: stackprint probe [--root DIR | --image PATH[:TAG] [--platform OS/ARCH[/VARIANT]]]\n"
    "                        [--python PATH]"
    " [--image-digest sha256:HEX] [--imds [--imds-endpoint HOST:PORT]]\n"
    "                        [--deep [--deep-timeout SECONDS]]\n"
    "                        [--cache DIR] [--neff FILE]... [--artifacts DIR]\n"
    "                        [--format yaml|json|cyclonedx] [-o FILE [--sign KEY]]\n"
    "Fingerprint this host, a copied root or an image; write the manifest.\n"
    "options:\n"
    "  -r, --root DIR             probe a copied tree; nothing outside DIR is read\n"
    "  -i, --image PATH[:TAG]     probe an OCI layout, OCI archive or docker save tarball\n"
    "      --platform OS/ARCH[/VARIANT]  the image to take from a multi-platform index\n"
    "      --python PATH          the workload's interpreter (default: $VIRTUAL_ENV, else python3 on PATH)\n"
    "      --image-digest sha256:HEX  the digest of the image this container runs\n"
    "      --imds                 ask EC2's instance metadata service (IMDSv2)\n"
    "      --imds-endpoint HOST:PORT  the metadata service to ask (default 169.254.169.254:80)\n"
    "      --deep                 also run the workload's interpreter once (live host only)\n"
    "      --deep-timeout SECONDS  how long it may take, 1 to 3600 (default 30)\n"
    "      --cache DIR            the Neuron compile cache to describe (a path inside the root)\n"
    "      --neff FILE            a NEFF file to record; repeatable, up to 256\n"
    "      --artifacts DIR        record every *.neff file under DIR\n"
    "  -f, --format FORMAT        yaml (default), json, or cyclonedx (a CycloneDX 1.6 BOM)\n"
    "  -o, --output FILE          write the manifest to FILE (atomically), not stdout\n"
    "      --sign KEY             with -o, also write FILE.intoto.json signed with KEY\n"
    "  -h, --help                 show this help\n";

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

static int valid_digest(const char *d)
{
    if (strncmp(d, "sha256:", 7) != 0 || strlen(d) != 7 + 64)
        return 0;
    for (const char *p = d + 7; *p; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
            return 0;
    return 1;
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

int cmd_probe(int argc, char **argv)
{
    enum { OPT_IMDS = 256, OPT_IMDS_ENDPOINT, OPT_IMAGE_DIGEST, OPT_PYTHON, OPT_SIGN, OPT_PLATFORM,
           OPT_DEEP, OPT_DEEP_TIMEOUT, OPT_CACHE, OPT_NEFF, OPT_ARTIFACTS };
    static const struct option opts[] = {
        { "root", required_argument, NULL, 'r' },
        { "image", required_argument, NULL, 'i' },
        { "platform", required_argument, NULL, OPT_PLATFORM },
        { "python", required_argument, NULL, OPT_PYTHON },
        { "image-digest", required_argument, NULL, OPT_IMAGE_DIGEST },
        { "imds", no_argument, NULL, OPT_IMDS },
        { "imds-endpoint", required_argument, NULL, OPT_IMDS_ENDPOINT },
        { "format", required_argument, NULL, 'f' },
        { "output", required_argument, NULL, 'o' },
        { "sign", required_argument, NULL, OPT_SIGN },
        { "deep", no_argument, NULL, OPT_DEEP },
        { "deep-timeout", required_argument, NULL, OPT_DEEP_TIMEOUT },
        { "cache", required_argument, NULL, OPT_CACHE },
        { "neff", required_argument, NULL, OPT_NEFF },
        { "artifacts", required_argument, NULL, OPT_ARTIFACTS },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *rootdir = NULL, *image = NULL, *out = NULL, *sign_key = NULL, *platform = NULL;
    const char *deep_timeout = NULL;
    const char *neffs[SP_NEFF_ARGS_MAX];
    struct probe_ctx ctx = { .imds_timeout_ms = 1000 };
    enum manifest_format format = MANIFEST_YAML;
    int cyclonedx = 0;   /* --format cyclonedx: the manifest exported, as `export` does */
    struct sp_error e = { 0 };
    int c;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":r:i:f:o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'r': rootdir = optarg; break;
        case 'i': image = optarg; break;
        case OPT_PLATFORM: platform = optarg; break;
        case OPT_PYTHON: ctx.python = optarg; break;
        case OPT_IMAGE_DIGEST: ctx.image_digest = optarg; break;
        case OPT_IMDS: ctx.imds = 1; break;
        case OPT_IMDS_ENDPOINT: ctx.imds_endpoint = optarg; break;
        case 'f':
            if (strcmp(optarg, "yaml") == 0)
                format = MANIFEST_YAML;
            else if (strcmp(optarg, "json") == 0)
                format = MANIFEST_JSON;
            else if (strcmp(optarg, "cyclonedx") == 0)
                cyclonedx = 1;
            else
                return sp_usage_error("probe", "unknown format '%s' (yaml, json or cyclonedx)",
                                      optarg);
            break;
        case 'o': out = optarg; break;
        case OPT_SIGN: sign_key = optarg; break;
        case OPT_DEEP: ctx.deep = 1; break;
        case OPT_DEEP_TIMEOUT: deep_timeout = optarg; break;
        case OPT_CACHE:
            if (ctx.cache_dir)
                return sp_usage_error("probe", "--cache given twice");
            ctx.cache_dir = optarg;
            break;
        case OPT_ARTIFACTS:
            if (ctx.artifacts)
                return sp_usage_error("probe", "--artifacts given twice");
            ctx.artifacts = optarg;
            break;
        case OPT_NEFF:
            if (ctx.nneff == SP_NEFF_ARGS_MAX)
                return sp_usage_error("probe", "more than %d --neff options", SP_NEFF_ARGS_MAX);
            neffs[ctx.nneff++] = optarg;
            ctx.neff = neffs;
            break;
        case 'h': fputs(probe_usage, stdout); return SP_EXIT_OK;
        case ':': return sp_usage_error("probe", "option '%s' needs a value", argv[optind - 1]);
        default: return sp_usage_error("probe", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return sp_usage_error("probe", "unexpected argument '%s'", argv[optind]);
    if (rootdir && image)
        return sp_usage_error("probe", "--root and --image exclude each other");
    if (sign_key && cyclonedx)
        return sp_usage_error("probe", "--sign signs a manifest: write it as yaml or json, "
                              "then 'stackprint sign --predicate cyclonedx'");
    if (sign_key && (out == NULL || strcmp(out, "-") == 0))
        return sp_usage_error("probe", "--sign needs -o FILE (the envelope is FILE.intoto.json)");
    if (platform && !image)
        return sp_usage_error("probe", "--platform needs --image");
    if (ctx.imds_endpoint && !ctx.imds)
        return sp_usage_error("probe", "--imds-endpoint needs --imds");
    if (ctx.deep && (rootdir || image))
        return sp_usage_error("probe", "--deep runs the live host's interpreter; it does not "
                              "go with --root or --image");
    if (deep_timeout && !ctx.deep)
        return sp_usage_error("probe", "--deep-timeout needs --deep");
    if (deep_timeout) {
        char *end;
        errno = 0;
        long v = strtol(deep_timeout, &end, 10);
        if (errno || end == deep_timeout || *end || v < 1 || v > SP_DEEP_TIMEOUT_MAX ||
            deep_timeout[0] < '0' || deep_timeout[0] > '9')
            return sp_usage_error("probe", "--deep-timeout '%s' is not a whole number of "
                                  "seconds from 1 to %d", deep_timeout, SP_DEEP_TIMEOUT_MAX);
        ctx.deep_timeout_ms = (int)v * 1000;
    }
    if (sign_key) {
        /* -o and its envelope FILE.intoto.json are plain files next to each
         * other: a device or a FIFO has no such sibling */
        struct stat st;
        if (stat(out, &st) == 0 && !S_ISREG(st.st_mode))
            return sp_usage_error("probe", "with --sign, -o '%s' must be a regular file "
                                  "(its envelope is written next to it)", out);
    }
    /* no output may replace an input: the signing key or the image file
     * (PATH of PATH:TAG) */
    char *image_file = NULL, *image_tag = NULL;
    if (image && image_parse_spec(image, &image_file, &image_tag) != 0)
        return sp_usage_error("probe", "out of memory");
    free(image_tag);
    for (int i = 0; i < 2; i++) {
        const char *in = i == 0 ? sign_key : image_file;
        if (sp_same_file(out, in)) {
            free(image_file);
            return sp_usage_error("probe", "output '%s' is the %s; it would be overwritten",
                                  out, i == 0 ? "signing key" : "image");
        }
        if (sign_key && out && strlen(out) < 4096) {
            char envpath[4096 + sizeof ".intoto.json"];
            snprintf(envpath, sizeof envpath, "%s.intoto.json", out);
            if (sp_same_file(envpath, in)) {
                free(image_file);
                return sp_usage_error("probe", "envelope '%s' is the %s; it would be overwritten",
                                      envpath, i == 0 ? "signing key" : "image");
            }
        }
    }
    free(image_file);
    if (ctx.python && ctx.python[0] != '/')
        return sp_usage_error("probe", "--python '%s' is not an absolute path (a path "
                              "inside the root, as the root's / sees it)", ctx.python);
    const char *inside[2 + SP_NEFF_ARGS_MAX] = { ctx.cache_dir, ctx.artifacts };
    for (size_t i = 0; i < ctx.nneff; i++)
        inside[2 + i] = ctx.neff[i];
    for (size_t i = 0; i < 2 + ctx.nneff; i++)
        if (inside[i] && inside[i][0] != '/')
            return sp_usage_error("probe", "'%s' is not an absolute path (--cache, --neff and "
                                  "--artifacts name paths inside the root)", inside[i]);
    if (!ctx.image_digest && !rootdir && !image) {
        const char *env = getenv("STACKPRINT_IMAGE_DIGEST");
        if (env && *env)
            ctx.image_digest = env;
    }
    if (ctx.image_digest && !valid_digest(ctx.image_digest))
        return sp_usage_error("probe", "image digest '%s' is not sha256:<64 lowercase hex>",
                              ctx.image_digest);
    if (!ctx.imds_endpoint) {
        const char *env = getenv("STACKPRINT_IMDS_ENDPOINT");
        if (env && *env)
            ctx.imds_endpoint = env;
    }

    char created[32];
    if (created_time(created, sizeof created) != 0)
        return sp_usage_error("probe", "SOURCE_DATE_EPOCH '%s' is not a number of seconds "
                              "from 0 to %lld (9999-12-31T23:59:59Z)", getenv("SOURCE_DATE_EPOCH"),
                              SP_EPOCH_MAX);

    /* The signing key is loaded before probing: a bad key writes nothing. */
    EVP_PKEY *key = NULL;
    if (sign_key && sp_key_load_private(sign_key, &key, &e) != 0)
        return sp_error_print(&e);
    struct root *root = image ? open_image(image, platform, &e)
                      : rootdir ? root_open_dir(rootdir) : root_open_host();
    if (root == NULL && image) {
        EVP_PKEY_free(key);
        return sp_error_print(&e);
    }
    if (root == NULL) {
        sp_fail(&e, SP_EXIT_INPUT, "%s: %s", rootdir ? rootdir : "/", strerror(errno));
        EVP_PKEY_free(key);
        return sp_error_print(&e);
    }
    ctx.root = root;
    ctx.environ = root->live ? environ : NULL;

    struct manifest m;
    manifest_init(&m);
    ctx.facts = &m.facts;
    int rc = SP_EXIT_OK;
    char *buf = NULL;
    size_t len = 0;
    m.tool = strdup("stackprint " SP_VERSION);
    m.created = strdup(created);
    m.subject = strdup(root->subject);
    if (m.tool == NULL || m.created == NULL || m.subject == NULL) {
        sp_fail(&e, SP_EXIT_INPUT, "probe: %s", strerror(ENOMEM));
        rc = sp_error_print(&e);
        goto out;
    }
    char *env = NULL, *envpath = NULL;
    size_t envlen = 0;
    if (probe_run_all(&ctx, &e) != 0 ||
        manifest_finish(&m) != 0 ||
        (cyclonedx ? sp_export_render(&m, "cyclonedx", &buf, &len, &e)
                   : manifest_render(&m, format, &buf, &len, &e)) != 0) {
        if (e.msg[0] == '\0')
            sp_fail(&e, SP_EXIT_INPUT, "probe: %s", strerror(errno ? errno : EIO));
        rc = sp_error_print(&e);
    } else if (key == NULL) {
        if (sp_write_output(out, buf, len, &e) != 0)
            rc = sp_error_print(&e);
    } else {
        /* Sign the exact bytes FILE gets into FILE.intoto.json; write the
         * pair so that no reader takes a mixed one (sp_write_pair). */
        const char *slash = strrchr(out, '/');
        if (asprintf(&envpath, "%s.intoto.json", out) < 0) {
            envpath = NULL;
            sp_fail(&e, SP_EXIT_INPUT, "probe: %s", strerror(ENOMEM));
        }
        if (envpath == NULL ||
            sp_sign_manifest(buf, len, slash ? slash + 1 : out, key, &env, &envlen, &e) != 0 ||
            sp_write_pair(out, buf, len, envpath, env, envlen, envelope_fits, &(struct fits){ out, key },
                          &e) != 0)
            rc = sp_error_print(&e);
    }
    free(env);
    free(envpath);
out:
    EVP_PKEY_free(key);
    free(buf);
    manifest_free(&m);
    root_close(root);
    return rc;
}
