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
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checks/fleet.h"
#include "checks/policy.h"
#include "cli/commands.h"
#include "manifest/dsse.h"
#include "manifest/manifest.h"

static const char fleet_usage[] =
    "usage: stackprint fleet [--format text|json|junit] [--pub PUB] [--policy FILE|DIR ...]\n"
    "                        [--strict] [--keep-going] [-o FILE] MANIFEST...|DIR...\n"
    "A DIR contributes its *.json, *.yaml and *.yml files (not *.intoto.json, not\n"
    "hidden ones, not its sub-folders).\n"
    "options:\n"
    "  -f, --format FORMAT    text (default), json or junit\n"
    "  -p, --pub PUB          every manifest's envelope MANIFEST.intoto.json must verify\n"
    "      --policy FILE|DIR  check each distinct stack once; repeatable\n"
    "  -s, --strict           with --policy: warnings fail the check too\n"
    "  -k, --keep-going       report unreadable files and go on\n"
    "  -o, --output FILE      write the report to FILE (atomically), not stdout\n"
    "  -h, --help             show this help\n"
    "exit status: 0 one stack (and every check passed), 1 drift or a failed check,\n"
    "2 usage, 3 an envelope missing or bad (--pub), 4 an unreadable or malformed file;\n"
    "the highest that applies.\n";

#define ENVELOPE_SUFFIX ".intoto.json"

/* One file to read, in the order the report reads them; or an error found
 * while listing a folder, reported in its place. */
struct job {
    char *path;
    char *error;                    /* NULL, or the message (exit SP_EXIT_INPUT) */
};

/* What a reader made of a job. */
struct slot {
    int done;
    struct manifest m;
    struct sp_error e;
    int failed;                     /* 0 ok; else E holds the error */
    char *node;                     /* a failed --pub check: the node's name */
};

/* Readers (threads) read, parse and verify the files ahead of the main
 * thread, which adds them to the fleet strictly in job order: at most
 * WINDOW manifests are in memory at once, and the result is the same as
 * reading one file after another. */
struct run {
    struct sp_fleet fleet;
    EVP_PKEY *pub;                  /* --pub, or NULL */
    int keep_going;
    int stopped;                    /* an input error without --keep-going */
    struct job *jobs;
    size_t njobs, capjobs;
    struct slot *slots;             /* job i in slots[i % window] */
    size_t window;
    size_t next, consumed;          /* jobs taken by a reader; added by main */
    int stop;                       /* readers: take no more */
    pthread_mutex_t mu;
    pthread_cond_t done_cv, space_cv;
};

#define READERS_MAX 8

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

/* A reader's work for job I: read, parse, verify; into its slot. */
static void read_job(struct run *r, size_t i, struct slot *sl)
{
    const struct job *j = &r->jobs[i];
    char *buf = NULL;
    size_t len = 0;
    manifest_init(&sl->m);
    sl->failed = 1;
    sl->node = NULL;
    if (j->error) {
        sp_fail(&sl->e, SP_EXIT_INPUT, "%s", j->error);
    } else if (sp_read_file(j->path, SP_MANIFEST_MAX_BYTES, "manifest", &buf, &len, &sl->e) != 0 ||
               manifest_parse(buf, len, j->path, &sl->m, &sl->e) != 0) {
        /* E says why */
    } else if (r->pub && verify(r, j->path, buf, len, &sl->e) != 0) {
        sl->node = sp_fleet_node_name(&sl->m, j->path);
    } else {
        sl->failed = 0;
    }
    free(buf);
}

static void *reader(void *arg)
{
    struct run *r = arg;
    pthread_mutex_lock(&r->mu);
    while (!r->stop && r->next < r->njobs) {
        if (r->next >= r->consumed + r->window) {
            pthread_cond_wait(&r->space_cv, &r->mu);
            continue;
        }
        size_t i = r->next++;
        struct slot *sl = &r->slots[i % r->window];
        pthread_mutex_unlock(&r->mu);
        read_job(r, i, sl);
        pthread_mutex_lock(&r->mu);
        sl->done = 1;
        pthread_cond_broadcast(&r->done_cv);
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

/* The main thread's part for job I: group it, or report it. */
static void add_job(struct run *r, size_t i, struct slot *sl)
{
    const struct job *j = &r->jobs[i];
    if (sl->failed)
        input_error(r, j->path, sl->node, &sl->e);
    else if (sp_fleet_add(&r->fleet, j->path, &sl->m, &sl->e) != 0)
        input_error(r, j->path, NULL, &sl->e);
    manifest_free(&sl->m);
    free(sl->node);
    sl->node = NULL;
}

/* Run every job with up to READERS_MAX readers (one per online CPU). */
static int run_jobs(struct run *r)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t nreaders = cpus < 1 ? 1 : cpus > READERS_MAX ? READERS_MAX : (size_t)cpus;
    pthread_t tid[READERS_MAX];
    size_t started = 0;
    r->window = 4 * nreaders;
    r->slots = calloc(r->window, sizeof *r->slots);
    if (r->slots == NULL)
        return -1;
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->done_cv, NULL);
    pthread_cond_init(&r->space_cv, NULL);
    while (started < nreaders && pthread_create(&tid[started], NULL, reader, r) == 0)
        started++;
    /* no thread at all: read each here, then add it */
    for (size_t i = 0; started == 0 && i < r->njobs && !r->stopped; i++) {
        read_job(r, i, &r->slots[0]);
        add_job(r, i, &r->slots[0]);
        r->consumed = r->next = i + 1;
    }
    for (size_t i = 0; started > 0 && i < r->njobs && !r->stopped; i++) {
        struct slot *sl = &r->slots[i % r->window];
        pthread_mutex_lock(&r->mu);
        while (!sl->done)
            pthread_cond_wait(&r->done_cv, &r->mu);
        pthread_mutex_unlock(&r->mu);
        add_job(r, i, sl);
        pthread_mutex_lock(&r->mu);
        sl->done = 0;
        r->consumed++;
        pthread_cond_broadcast(&r->space_cv);
        pthread_mutex_unlock(&r->mu);
    }
    pthread_mutex_lock(&r->mu);
    r->stop = 1;
    pthread_cond_broadcast(&r->space_cv);
    pthread_mutex_unlock(&r->mu);
    for (size_t k = 0; k < started; k++)
        pthread_join(tid[k], NULL);
    /* read ahead of a stop, never added */
    for (size_t i = r->consumed; i < r->next; i++) {
        manifest_free(&r->slots[i % r->window].m);
        free(r->slots[i % r->window].node);
    }
    pthread_cond_destroy(&r->space_cv);
    pthread_cond_destroy(&r->done_cv);
    pthread_mutex_destroy(&r->mu);
    return 0;
}

/* Queue PATH (an error message instead when ERROR is not NULL). */
static int add_path(struct run *r, const char *path, const char *error)
{
    if (r->njobs == r->capjobs) {
        size_t ncap = r->capjobs ? r->capjobs * 2 : 64;
        struct job *nj = realloc(r->jobs, ncap * sizeof *nj);
        if (nj == NULL)
            return -1;
        r->jobs = nj;
        r->capjobs = ncap;
    }
    struct job j = { strdup(path), error ? strdup(error) : NULL };
    if (j.path == NULL || (error && j.error == NULL)) {
        free(j.path);
        free(j.error);
        return -1;
    }
    r->jobs[r->njobs++] = j;
    return 0;
}

static int by_text(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Queue the manifests of folder DIR, in bytewise order of their names.
 * Returns 0, or -1 when out of memory. */
static int list_dir(struct run *r, const char *dir)
{
    struct sp_error e = { 0 };
    DIR *d = opendir(dir);
    char **names = NULL;
    size_t n = 0, cap = 0, skipped = 0;
    struct dirent *de;
    int rc = 0;
    if (d == NULL) {
        sp_fail(&e, SP_EXIT_INPUT, "%s: %s", dir, strerror(errno));
        return add_path(r, dir, e.msg);
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
        rc = add_path(r, dir, e.msg);
    } else if (n == 0) {
        sp_fail(&e, SP_EXIT_INPUT, "%s: no manifest files (*.json, *.yaml or *.yml)%s", dir,
                skipped ? "; the folder holds only other files" : "");
        rc = add_path(r, dir, e.msg);
    } else {
        if (skipped)
            fprintf(stderr, "stackprint: %s: %zu %s left out (not *.json, *.yaml or *.yml, "
                    "hidden, or folders)\n", dir, skipped, skipped == 1 ? "entry" : "entries");
        qsort(names, n, sizeof *names, by_text);
        size_t dl = strlen(dir);
        for (size_t i = 0; i < n && rc == 0; i++) {
            char *path = malloc(dl + strlen(names[i]) + 2);
            if (path == NULL) {
                rc = -1;
                break;
            }
            sprintf(path, "%s%s%s", dir, dl && dir[dl - 1] == '/' ? "" : "/", names[i]);
            rc = add_path(r, path, NULL);
            free(path);
        }
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return rc;
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
    for (int i = optind; i < argc; i++) {
        struct stat st;
        int is_dir = stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode);
        if ((is_dir ? list_dir(&r, argv[i]) : add_path(&r, argv[i], NULL)) != 0) {
            rc = sp_error_print(&(struct sp_error){ SP_EXIT_INPUT, "fleet: out of memory" });
            goto done;
        }
    }
    if (run_jobs(&r) != 0) {
        rc = sp_error_print(&(struct sp_error){ SP_EXIT_INPUT, "fleet: out of memory" });
        goto done;
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
    for (size_t i = 0; i < r.njobs; i++) {
        free(r.jobs[i].path);
        free(r.jobs[i].error);
    }
    free(r.jobs);
    free(r.slots);
    sp_fleet_free(&r.fleet);
    sp_policy_set_free(&ps);
    return rc;
}
