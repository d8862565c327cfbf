/* cli/cmd_fleet.c: stackprint fleet: read many nodes' manifests one at a
 * time, group them by stack id, name the nodes outside the majority stack
 * and how they differ, optionally verify each envelope and check each
 * distinct stack once (stackprint-fleet(1)).  The grouping, comparison and
 * report are checks/fleet.c's; this file finds the files, reads them and
 * chooses the exit status. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "checks/fleet.h"
#include "checks/policy.h"
#include "commands.h"
#include "manifest/dsse.h"
#include "manifest/manifest.h"

static const char fleet_usage[] =
    "usage: stackprint fleet [--format text|json|junit] [--pub PUB] [--policy FILE|DIR ...]\n"
    "                        [--strict] [--keep-going] [-o FILE] MANIFEST...|DIR...\n"
    "A DIR contributes its *.json, *.yaml and *.yml files (not *.intoto.json, not\n"
    "hidden ones, not its sub-folders).  Exit status: 0 one stack (and every check\n"
    "passed), 1 drift or a failed check, 2 usage, 3 an envelope missing or bad\n"
    "(--pub), 4 an unreadable or malformed file; the highest that applies.\n";

#define ENVELOPE_SUFFIX ".intoto.json"

struct run {
    struct sp_fleet fleet;
    EVP_PKEY *pub;                  /* --pub, or NULL */
    int keep_going;
    int stopped;                    /* an input error without --keep-going */
};

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* A file of a DIR that fleet reads. */
static int manifest_name(const char *name)
{
    if (name[0] == '.' || ends_with(name, ENVELOPE_SUFFIX))
        return 0;
    return ends_with(name, ".json") || ends_with(name, ".yaml") || ends_with(name, ".yml");
}

/* An input error for FILE: printed; recorded and gone on from with
 * --keep-going, else the run stops.  Returns -1 when it stops. */
static int input_error(struct run *r, const char *file, const char *node, const struct sp_error *e)
{
    struct sp_error oom = { 0 };
    sp_error_print(e);
    if (e->exit_code == SP_EXIT_VERIFY || r->keep_going) {
        if (sp_fleet_problem(&r->fleet, file, node, e->exit_code, e->msg, &oom) == 0)
            return 0;
        sp_error_print(&oom);
    }
    r->stopped = 1;
    return -1;
}

/* Verify PATH's envelope (PATH.intoto.json) over its bytes MAN. */
static int verify(struct run *r, const char *path, const char *man, size_t manlen,
                  struct sp_error *e)
{
    size_t pl = strlen(path), envlen = 0;
    char *envpath = malloc(pl + sizeof ENVELOPE_SUFFIX), *env = NULL;
    struct sp_verified v = { 0 };
    int rc = -1;
    if (envpath == NULL)
        return sp_fail(e, SP_EXIT_INPUT, "%s: out of memory", path);
    memcpy(envpath, path, pl);
    memcpy(envpath + pl, ENVELOPE_SUFFIX, sizeof ENVELOPE_SUFFIX);
    if (sp_read_file(envpath, SP_ENVELOPE_MAX_BYTES, "envelope", &env, &envlen, e) != 0) {
        /* a missing or unreadable envelope is a verification failure here */
        e->exit_code = SP_EXIT_VERIFY;
    } else if (sp_verify_manifest(env, envlen, envpath, man, manlen, path, r->pub, &v, e) == 0) {
        rc = 0;
    }
    sp_verified_free(&v);
    free(env);
    free(envpath);
    return rc;
}

static void one_file(struct run *r, const char *path)
{
    struct sp_error e = { 0 };
    struct manifest m;
    char *buf = NULL;
    size_t len = 0;
    manifest_init(&m);
    if (sp_read_file(path, SP_MANIFEST_MAX_BYTES, "manifest", &buf, &len, &e) != 0 ||
        manifest_parse(buf, len, path, &m, &e) != 0) {
        input_error(r, path, NULL, &e);
    } else if (r->pub && verify(r, path, buf, len, &e) != 0) {
        char *name = sp_fleet_node_name(&m, path);
        input_error(r, path, name, &e);
        free(name);
    } else if (sp_fleet_add(&r->fleet, path, &m, &e) != 0) {
        input_error(r, path, NULL, &e);
    }
    manifest_free(&m);
    free(buf);
}

static int by_text(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The manifests of folder DIR, in bytewise order of their names. */
static void one_dir(struct run *r, const char *dir)
{
    struct sp_error e = { 0 };
    DIR *d = opendir(dir);
    char **names = NULL;
    size_t n = 0, cap = 0, skipped = 0;
    struct dirent *de;
    if (d == NULL) {
        sp_fail(&e, SP_EXIT_INPUT, "%s: %s", dir, strerror(errno));
        input_error(r, dir, NULL, &e);
        return;
    }
    while ((errno = 0, de = readdir(d)) != NULL) {
        /* envelopes belong next to their manifests: not worth a note */
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
            ends_with(de->d_name, ENVELOPE_SUFFIX))
            continue;
        struct stat st;
        int is_dir = de->d_type == DT_DIR ||
                     (de->d_type == DT_UNKNOWN && fstatat(dirfd(d), de->d_name, &st, 0) == 0 &&
                      S_ISDIR(st.st_mode));
        if (!manifest_name(de->d_name) || is_dir) {
            skipped++;
            continue;
        }
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 64;
            char **nn = realloc(names, ncap * sizeof *nn);
            if (nn == NULL)
                break;
            names = nn;
            cap = ncap;
        }
        if ((names[n] = strdup(de->d_name)) == NULL)
            break;
        n++;
    }
    int saved = de != NULL ? ENOMEM : errno;
    closedir(d);
    if (saved != 0) {
        sp_fail(&e, SP_EXIT_INPUT, "%s: %s", dir, strerror(saved));
        input_error(r, dir, NULL, &e);
    } else if (n == 0) {
        sp_fail(&e, SP_EXIT_INPUT, "%s: no manifest files (*.json, *.yaml or *.yml)%s", dir,
                skipped ? "; the folder holds only other files" : "");
        input_error(r, dir, NULL, &e);
    } else {
        if (skipped)
            fprintf(stderr, "stackprint: %s: %zu %s left out (not *.json, *.yaml or *.yml, "
                    "hidden, or folders)\n", dir, skipped, skipped == 1 ? "entry" : "entries");
        qsort(names, n, sizeof *names, by_text);
        size_t dl = strlen(dir);
        for (size_t i = 0; i < n && !r->stopped; i++) {
            char *path = malloc(dl + strlen(names[i]) + 2);
            if (path == NULL) {
                sp_fail(&e, SP_EXIT_INPUT, "%s: out of memory", dir);
                input_error(r, dir, NULL, &e);
                break;
            }
            sprintf(path, "%s%s%s", dir, dl && dir[dl - 1] == '/' ? "" : "/", names[i]);
            one_file(r, path);
            free(path);
        }
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

int cmd_fleet(int argc, char **argv)
{
    static const struct option opts[] = {
        { "format", required_argument, NULL, 'f' },
        { "pub", required_argument, NULL, 'p' },
        { "policy", required_argument, NULL, 'P' },
        { "strict", no_argument, NULL, 's' },
        { "keep-going", no_argument, NULL, 'k' },
        { "output", required_argument, NULL, 'o' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char **policies = calloc((size_t)argc + 1, sizeof *policies);
    size_t npolicies = 0;
    const char *out = NULL, *pubarg = NULL;
    enum sp_fleet_format format = SP_FLEET_TEXT;
    unsigned flags = 0;
    int keep_going = 0, c, rc;

    if (policies == NULL) {
        fprintf(stderr, "stackprint: fleet: out of memory\n");
        return SP_EXIT_INPUT;
    }
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":f:p:so:kh", opts, NULL)) != -1) {
        switch (c) {
        case 'f':
            if (sp_fleet_format_by_name(optarg, &format) != 0) {
                free(policies);
                return sp_usage_error("fleet", "unknown format '%s' (text, json or junit)", optarg);
            }
            break;
        case 'p': pubarg = optarg; break;
        case 'P': policies[npolicies++] = optarg; break;
        case 's': flags |= SP_EVAL_STRICT; break;
        case 'k': keep_going = 1; break;
        case 'o': out = optarg; break;
        case 'h': free(policies); fputs(fleet_usage, stdout); return SP_EXIT_OK;
        case ':': free(policies); return sp_usage_error("fleet", "option '%s' needs a value", argv[optind - 1]);
        default: free(policies); return sp_usage_error("fleet", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc) {
        free(policies);
        return sp_usage_error("fleet", "a manifest or a folder of manifests is required");
    }
    if ((flags & SP_EVAL_STRICT) && npolicies == 0) {
        free(policies);
        return sp_usage_error("fleet", "--strict needs --policy");
    }
    for (int i = optind; i < argc; i++) {
        struct stat st;
        int is_dir = stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode);
        rc = -1;
        if (strcmp(argv[i], "-") == 0)
            rc = sp_usage_error("fleet", "'-': fleet reads files, not standard input");
        else if (sp_same_file(out, argv[i]))
            rc = sp_usage_error("fleet", "output '%s' is the manifest '%s'; it would be overwritten",
                                out, argv[i]);
        else if (is_dir && out && manifest_name(strrchr(out, '/') ? strrchr(out, '/') + 1 : out) &&
                 sp_inside_dir(out, argv[i]))
            rc = sp_usage_error("fleet", "output '%s' is inside the folder '%s'; the next run "
                                "would read it as a manifest", out, argv[i]);
        if (rc != -1) {
            free(policies);
            return rc;
        }
    }

    struct run r = { .keep_going = keep_going };
    struct sp_policy_set ps;
    struct sp_error e = { 0 };
    char *buf = NULL;
    size_t len = 0;
    sp_fleet_init(&r.fleet);
    sp_policy_set_init(&ps);
    for (size_t i = 0; i < npolicies; i++)
        if (sp_policy_load(&ps, policies[i], &e) != 0) {
            rc = sp_error_print(&e);
            goto done;
        }
    if (pubarg && sp_key_load_public(pubarg, &r.pub, &e) != 0) {
        rc = sp_error_print(&e);
        goto done;
    }
    for (int i = optind; i < argc && !r.stopped; i++) {
        struct stat st;
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
            one_dir(&r, argv[i]);
        else
            one_file(&r, argv[i]);
    }
    if (r.stopped) {
        rc = SP_EXIT_INPUT;
        goto done;
    }
    if (sp_fleet_finish(&r.fleet, &e) != 0 ||
        (npolicies && sp_fleet_check(&r.fleet, &ps, flags, &e) != 0) ||
        sp_fleet_render(&r.fleet, format, &buf, &len, &e) != 0 ||
        sp_write_output(out, buf, len, &e) != 0) {
        rc = sp_error_print(&e);
        goto done;
    }
    rc = sp_fleet_exit(&r.fleet);
    if (r.fleet.nnodes == 0 && rc == SP_EXIT_OK)
        rc = SP_EXIT_INPUT;
done:
    free(buf);
    free(policies);
    EVP_PKEY_free(r.pub);
    sp_fleet_free(&r.fleet);
    sp_policy_set_free(&ps);
    return rc;
}
