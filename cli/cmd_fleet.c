/* cli/cmd_fleet.c: stackprint fleet: read many nodes' manifests one at a
 * time, group them by stack id, name the nodes outside the majority stack
 * and how they differ, optionally verify each envelope and check each
 * distinct stack once (stackprint-fleet(1)).  The grouping, comparison and
 * report are checks/fleet.c's; this file finds the files, reads them and
 * chooses the exit status. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checks/fleet.h"
#include "checks/policy.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "common/array.h"
#include "manifest/dsse.h"
#include "manifest/manifest.h"

static const struct sp_command_help fleet_help = {
    "fleet",
    "usage: stackprint fleet [--format text|json|junit] [--pub PUB] [--policy FILE|DIR ...]\n"
    "                        [--strict] [--keep-going] [-o FILE] MANIFEST...|DIR...\n"
    "A DIR contributes its *.json, *.yaml and *.yml files (not *.intoto.json, not\n"
    "hidden ones, not its sub-folders).\n",
    25,
    "exit status: 0 one stack (and every check passed), 1 drift or a failed check,\n"
    "2 usage, 3 an envelope missing or bad (--pub), 4 an unreadable or malformed file;\n"
    "the highest that applies.\n",
    SP_OPERANDS_ANY, NULL, NULL,
};

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
    if (name[0] == '.' || ends_with(name, SP_ENVELOPE_SUFFIX))
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
    char *envpath = malloc(pl + sizeof SP_ENVELOPE_SUFFIX), *env = NULL;
    struct sp_verified v = { 0 };
    int rc = -1;
    if (envpath == NULL)
        return sp_fail(e, SP_EXIT_INPUT, "%s: out of memory", path);
    memcpy(envpath, path, pl);
    memcpy(envpath + pl, SP_ENVELOPE_SUFFIX, sizeof SP_ENVELOPE_SUFFIX);
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
    if (SP_ARRAY_RESERVE(r->jobs, r->capjobs, r->njobs + 1) != 0)
        return -1;
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
            ends_with(de->d_name, SP_ENVELOPE_SUFFIX))
            continue;
        struct stat st;
        int is_dir = de->d_type == DT_DIR ||
                     (de->d_type == DT_UNKNOWN && fstatat(dirfd(d), de->d_name, &st, 0) == 0 &&
                      S_ISDIR(st.st_mode));
        if (!manifest_name(de->d_name) || is_dir) {
            skipped++;
            continue;
        }
        if (SP_ARRAY_RESERVE(names, cap, n + 1) != 0)
            break;
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

/* The command line, parsed. */
struct fleet_args {
    struct sp_opt_list policies;
    const char *out, *pubarg;
    enum sp_fleet_format format;
    unsigned flags;             /* SP_EVAL_STRICT */
    int keep_going;
    char **inputs;              /* the operands, NINPUTS of them */
    int ninputs;
};

/* --format: text, json or junit, into the enum sp_fleet_format at O->value */
static int format_arg(const struct sp_option *o, const char *arg, const char *cmd)
{
    if (sp_fleet_format_by_name(arg, o->value) != 0)
        return sp_usage_error(cmd, "unknown format '%s' (text, json or junit)", arg);
    return 0;
}

/* Operand IN checked against the output: standard input, the output
 * itself, or a folder the output would land in are usage errors.
 * Returns SP_OPTIONS_GO_ON or the exit status. */
static int input_check(const char *in, const char *out)
{
    struct stat st;
    int is_dir = stat(in, &st) == 0 && S_ISDIR(st.st_mode);
    if (strcmp(in, "-") == 0)
        return sp_usage_error("fleet", "'-': fleet reads files, not standard input");
    if (sp_same_file(out, in))
        return sp_usage_error("fleet", "output '%s' is the manifest '%s'; it would be overwritten",
                              out, in);
    if (is_dir && out && manifest_name(strrchr(out, '/') ? strrchr(out, '/') + 1 : out) &&
        sp_inside_dir(out, in))
        return sp_usage_error("fleet", "output '%s' is inside the folder '%s'; the next run "
                              "would read it as a manifest", out, in);
    return SP_OPTIONS_GO_ON;
}

/* Parse and check ARGV into A.  Returns SP_OPTIONS_GO_ON or an exit status. */
static int fleet_parse(int argc, char **argv, struct fleet_args *a)
{
    const struct sp_option opts[] = {
        SP_OPTION_CALL('f', "format", "FORMAT", &a->format, format_arg, "text (default), json or junit"),
        SP_OPTION_STRING('p', "pub", "PUB", &a->pubarg,
                         "every manifest's envelope MANIFEST.intoto.json must verify"),
        SP_OPTION_LIST(0, "policy", "FILE|DIR", &a->policies, 0,
                       "check each distinct stack once; repeatable"),
        SP_OPTION_BITS('s', "strict", &a->flags, SP_EVAL_STRICT,
                       "with --policy: warnings fail the check too"),
        SP_OPTION_FLAG('k', "keep-going", &a->keep_going, "report unreadable files and go on"),
        SP_OPTION_STRING('o', "output", "FILE", &a->out,
                         "write the report to FILE (atomically), not stdout"),
        SP_OPTION_END,
    };
    int optind, rc = sp_options_parse(&fleet_help, opts, argc, argv, &optind);
    if (rc != SP_OPTIONS_GO_ON)
        return rc;
    if (optind >= argc)
        return sp_usage_error("fleet", "a manifest or a folder of manifests is required");
    if ((a->flags & SP_EVAL_STRICT) && a->policies.n == 0)
        return sp_usage_error("fleet", "--strict needs --policy");
    a->inputs = argv + optind;
    a->ninputs = argc - optind;
    for (int i = 0; i < a->ninputs && rc == SP_OPTIONS_GO_ON; i++)
        rc = input_check(a->inputs[i], a->out);
    return rc;
}

/* Load the policies and the key, queue every file, read them all into
 * R's fleet, check and report.  Returns the exit status; -1 with E set. */
static int fleet_run(const struct fleet_args *a, struct run *r, struct sp_policy_set *ps,
                     struct sp_error *e)
{
    char *buf = NULL;
    size_t len = 0;
    for (size_t i = 0; i < a->policies.n; i++)
        if (sp_policy_load(ps, a->policies.v[i], e) != 0)
            return -1;
    if (a->pubarg && sp_key_load_public(a->pubarg, &r->pub, e) != 0)
        return -1;
    for (int i = 0; i < a->ninputs; i++) {
        struct stat st;
        int is_dir = stat(a->inputs[i], &st) == 0 && S_ISDIR(st.st_mode);
        if ((is_dir ? list_dir(r, a->inputs[i]) : add_path(r, a->inputs[i], NULL)) != 0)
            return sp_fail(e, SP_EXIT_INPUT, "fleet: out of memory");
    }
    if (run_jobs(r) != 0)
        return sp_fail(e, SP_EXIT_INPUT, "fleet: out of memory");
    if (r->stopped)
        return SP_EXIT_INPUT;
    int rc = -1;
    if (sp_fleet_finish(&r->fleet, e) == 0 &&
        (a->policies.n == 0 || sp_fleet_check(&r->fleet, ps, a->flags, e) == 0) &&
        sp_fleet_render(&r->fleet, a->format, &buf, &len, e) == 0 &&
        sp_write_output(a->out, buf, len, e) == 0) {
        rc = sp_fleet_exit(&r->fleet);
        if (r->fleet.nnodes == 0 && rc == SP_EXIT_OK)
            rc = SP_EXIT_INPUT;
    }
    free(buf);
    return rc;
}

int cmd_fleet(int argc, char **argv)
{
    struct fleet_args a = { .format = SP_FLEET_TEXT };
    int rc = fleet_parse(argc, argv, &a);
    if (rc == SP_OPTIONS_GO_ON) {
        struct run r = { .keep_going = a.keep_going };
        struct sp_policy_set ps;
        struct sp_error e = { 0 };
        sp_fleet_init(&r.fleet);
        sp_policy_set_init(&ps);
        if ((rc = fleet_run(&a, &r, &ps, &e)) < 0)
            rc = sp_error_print(&e);
        EVP_PKEY_free(r.pub);
        for (size_t i = 0; i < r.njobs; i++) {
            free(r.jobs[i].path);
            free(r.jobs[i].error);
        }
        free(r.jobs);
        free(r.slots);
        sp_fleet_free(&r.fleet);
        sp_policy_set_free(&ps);
    }
    free(a.policies.v);
    return rc;
}
