/* fingerprint/root/image_root.c: the image root backend (kind ROOT_IMAGE, never
 * live, no host path) and root_open_image(): locate and verify the image
 * (image_source.c), read its layers concurrently (image_blob.c, a pool of
 * min(CPUs, layers) workers), merge the layer deltas in order
 * (image_tree.c), then serve the probes' reads from the merged tree.
 * Paths resolve inside the image like chroot(2): ".." stops at "/", an
 * absolute symlink target starts again at the image's "/".  A file whose
 * content was not kept (image_keep()) can be listed and stat'ed; reading it
 * fails with ENOTSUP.  Must not: touch the host's files beyond the image
 * source, print, or exit.
 */
#include "fingerprint/root/image_impl.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PROGRESS_PERIOD_MS 250

struct image_impl {
    struct itree *tree;
    struct image_plan plan;
    uint64_t total;
};

void image_limits_default(struct image_limits *l)
{
    l->json_max = SP_IMAGE_JSON_MAX;
    l->layers_max = SP_IMAGE_LAYERS_MAX;
    l->entries_max = SP_IMAGE_ENTRIES_MAX;
    l->name_max = SP_IMAGE_NAME_MAX;
    l->keep_file_max = SP_IMAGE_KEEP_FILE_MAX;
    l->keep_total_max = SP_IMAGE_KEEP_TOTAL_MAX;
    l->inflated_max = SP_IMAGE_INFLATED_MAX;
    l->ratio_max = SP_IMAGE_RATIO_MAX;
    l->ratio_after = SP_IMAGE_RATIO_AFTER;
    l->members_max = SP_IMAGE_ARCHIVE_MEMBERS_MAX;
    l->descriptors_max = SP_IMAGE_DESCRIPTORS_MAX;
    l->json_total_max = SP_IMAGE_JSON_TOTAL_MAX;
    l->keep = NULL;
}

/* ---- path resolution (itree_resolve, image_tree.c) ---- */

static struct inode *lookup(struct root *r, const char *path, int follow)
{
    static __thread struct itree_resolved rs;
    struct image_impl *im = r->impl;
    if (itree_resolve(im->tree, path, follow, &rs) != 0)
        return NULL;
    return rs.stack[rs.depth - 1];
}

static int img_read_file(struct root *r, const char *path, size_t max, char **buf, size_t *len)
{
    struct inode *n = lookup(r, path, 1);
    if (n == NULL)
        return -1;
    if (n->type != IN_FILE) {
        errno = n->type == IN_DIR ? EISDIR : EINVAL;
        return -1;
    }
    if (n->size > max) {
        errno = EFBIG;
        return -1;
    }
    if (n->kept < n->size) {
        errno = ENOTSUP;
        return -1;
    }
    char *b = malloc(n->size + 1);
    if (b == NULL)
        return -1;
    if (n->size)
        memcpy(b, n->data, n->size);
    b[n->size] = '\0';
    *buf = b;
    *len = n->size;
    return 0;
}

static int img_list_dir(struct root *r, const char *path, char ***names, size_t *count)
{
    struct inode *n = lookup(r, path, 1);
    if (n == NULL)
        return -1;
    if (n->type != IN_DIR) {
        errno = ENOTDIR;
        return -1;
    }
    return itree_kids_sorted(n, names, count);
}

static int img_read_link(struct root *r, const char *path, char **target)
{
    struct inode *n = lookup(r, path, 0);
    if (n == NULL)
        return -1;
    if (n->type != IN_LINK) {
        errno = EINVAL;
        return -1;
    }
    return (*target = strdup(n->link)) ? 0 : -1;
}

static int img_stat(struct root *r, const char *path, int follow, struct root_stat *st)
{
    struct inode *n = lookup(r, path, follow);
    if (n == NULL)
        return -1;
    st->type = n->type == IN_FILE ? ROOT_T_FILE : n->type == IN_DIR ? ROOT_T_DIR
             : n->type == IN_LINK ? ROOT_T_LINK : ROOT_T_OTHER;
    st->size = n->size;
    st->mode = n->mode & 07777;
    return 0;
}

static int img_realpath(struct root *r, const char *path, char **out)
{
    static __thread struct itree_resolved rs;
    struct image_impl *im = r->impl;
    if (itree_resolve(im->tree, path, 1, &rs) != 0)
        return -1;
    size_t need = 2;
    for (size_t i = 1; i < rs.depth; i++)
        need += strlen(rs.stack[i]->name) + 1;
    char *s = malloc(need);
    if (s == NULL)
        return -1;
    size_t o = 0;
    for (size_t i = 1; i < rs.depth; i++) {
        size_t nl = strlen(rs.stack[i]->name);
        s[o++] = '/';
        memcpy(s + o, rs.stack[i]->name, nl);
        o += nl;
    }
    if (o == 0)
        s[o++] = '/';
    s[o] = '\0';
    *out = s;
    return 0;
}

static int img_scan_file(struct root *r, const char *path, uint64_t max,
                         int (*cb)(void *, const char *, size_t), void *ctx)
{
    enum { CHUNK = 1 << 20 };
    struct inode *n = lookup(r, path, 1);
    if (n == NULL)
        return -1;
    if (n->type != IN_FILE) {
        errno = EINVAL;
        return -1;
    }
    uint64_t want = n->size < max ? n->size : max;
    uint64_t have = want < n->kept ? want : n->kept;
    for (uint64_t off = 0; off < have;) {
        size_t c = have - off < CHUNK ? (size_t)(have - off) : CHUNK;
        if (cb(ctx, n->data + off, c) != 0)
            return 0;
        off += c;
    }
    if (have < want) {
        errno = ENOTSUP;            /* the rest was not kept */
        return -1;
    }
    return 0;
}

static void img_close(struct root *r)
{
    struct image_impl *im = r->impl;
    if (im) {
        itree_free(im->tree);
        image_plan_free(&im->plan);
        free(im);
    }
    free(r->subject);
    free(r);
}

static const struct root_ops image_ops = {
    .read_file = img_read_file,
    .list_dir = img_list_dir,
    .read_link = img_read_link,
    .stat = img_stat,
    .realpath = img_realpath,
    .scan_file = img_scan_file,
    .close = img_close,
};

/* ---- reading the layers ---- */

struct pool {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct image_layer *layers;
    size_t nlayers, next;
    unsigned running;
    struct layer_run run;
};

static void *worker(void *arg)
{
    struct pool *pl = arg;
    for (;;) {
        pthread_mutex_lock(&pl->mu);
        size_t i = pl->next < pl->nlayers ? pl->next++ : (size_t)-1;
        pthread_mutex_unlock(&pl->mu);
        if (i == (size_t)-1)
            break;
        if (image_layer_read(&pl->layers[i], &pl->run) != 0 && pl->layers[i].failed == 1)
            atomic_store(pl->run.cancel, 1);
    }
    pthread_mutex_lock(&pl->mu);
    pl->running--;
    pthread_cond_broadcast(&pl->cv);
    pthread_mutex_unlock(&pl->mu);
    return NULL;
}

static int read_layers(struct image_impl *im, const struct image_open_opts *o,
                       const struct image_limits *l, struct sp_error *e)
{
    struct image_plan *plan = &im->plan;
    atomic_int cancel = 0;
    atomic_uint_fast64_t done = 0;
    struct pool pl = {
        .layers = plan->layers, .nlayers = plan->nlayers,
        .run = { .limits = l, .cancel = &cancel, .done = &done },
    };
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t n = o->threads ? o->threads : (cpus > 0 ? (size_t)cpus : 1);
    if (n > SP_IMAGE_WORKERS_MAX)
        n = SP_IMAGE_WORKERS_MAX;
    if (n > plan->nlayers)
        n = plan->nlayers;
    if (n == 0)
        return 0;
    pthread_t *th = calloc(n, sizeof *th);
    if (th == NULL)
        return sp_fail(e, SP_EXIT_INPUT, "%s: out of memory", o->spec);
    pthread_mutex_init(&pl.mu, NULL);
    pthread_cond_init(&pl.cv, NULL);
    size_t started = 0;
    for (; started < n; started++) {
        pthread_mutex_lock(&pl.mu);
        pl.running++;
        pthread_mutex_unlock(&pl.mu);
        if (pthread_create(&th[started], NULL, worker, &pl) != 0) {
            pthread_mutex_lock(&pl.mu);
            pl.running--;
            pthread_mutex_unlock(&pl.mu);
            break;
        }
    }
    if (started == 0) {
        /* no thread at all: read in this one */
        pl.running = 1;
        worker(&pl);
    }
    pthread_mutex_lock(&pl.mu);
    while (pl.running > 0) {
        if (o->progress) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += PROGRESS_PERIOD_MS * 1000000L;
            if (ts.tv_nsec >= 1000000000L) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000L;
            }
            pthread_cond_timedwait(&pl.cv, &pl.mu, &ts);
            pthread_mutex_unlock(&pl.mu);
            o->progress(o->progress_ctx, atomic_load(&done), im->total, 0);
            pthread_mutex_lock(&pl.mu);
        } else {
            pthread_cond_wait(&pl.cv, &pl.mu);
        }
    }
    pthread_mutex_unlock(&pl.mu);
    for (size_t i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    free(th);
    pthread_mutex_destroy(&pl.mu);
    pthread_cond_destroy(&pl.cv);
    if (o->progress)
        o->progress(o->progress_ctx, atomic_load(&done), im->total, 1);
    for (size_t i = 0; i < plan->nlayers; i++)
        if (plan->layers[i].failed == 1) {
            *e = plan->layers[i].err;
            return -1;
        }
    for (size_t i = 0; i < plan->nlayers; i++)
        if (plan->layers[i].failed)
            return sp_fail(e, SP_EXIT_INPUT, "%s: reading stopped early", o->spec);
    return 0;
}

/* Kept paths follow links: the files that a kept path reaches only through
 * a symlink (image_keep_aliases) get their content from a second read of
 * the layers holding them, digests verified again, one layer at a time. */
static int refetch_aliases(struct image_impl *im, const struct image_limits *l,
                           const char *path, struct sp_error *e)
{
    struct keep_want *v;
    size_t n;
    int cut, rc = 0;
    if (image_keep_aliases(im->tree, l, &v, &n, &cut) != 0)
        return sp_fail(e, SP_EXIT_INPUT, "%s: out of memory", path);
    char *note, *old = im->plan.warning;
    if (cut && asprintf(&note, "%s%simage: symbolic links not all followed for kept content "
                        "(more than %u visits); files reached through them may be unreadable",
                        old ? old : "", old ? "; " : "", SP_IMAGE_ENTRIES_MAX) >= 0) {
        free(old);
        im->plan.warning = note;
    }
    for (size_t i = 0; i < n && rc == 0;) {
        size_t j = i;
        while (j < n && v[j].layer == v[i].layer)
            j++;
        char **paths = malloc((j - i) * sizeof *paths);
        if (paths == NULL) {
            rc = sp_fail(e, SP_EXIT_INPUT, "%s: out of memory", path);
            break;
        }
        for (size_t k = i; k < j; k++)
            paths[k - i] = v[k].path;
        atomic_int cancel = 0;
        atomic_uint_fast64_t done = 0;
        struct layer_run run = { .limits = l, .extra = paths, .nextra = j - i,
                                 .cancel = &cancel, .done = &done };
        struct image_layer *ly = &im->plan.layers[v[i].layer];
        if (image_layer_read(ly, &run) != 0) {
            *e = ly->err;
            rc = -1;
        }
        for (size_t k = i; k < j && rc == 0; k++) {
            struct inode *got = itree_lookup(ly->delta, v[k].path);
            struct inode *m = itree_lookup(im->tree, v[k].canon);
            if (got == NULL || m == NULL || got->type != IN_FILE || m->type != IN_FILE ||
                got->size != m->size || got->kept <= m->kept)
                continue;             /* not what the first read saw: left unkept */
            char *d = image_content_ref(got->data);
            if (itree_set_data(im->tree, m, d, got->kept) != 0) {
                image_content_unref(d);
                rc = sp_fail(e, SP_EXIT_INPUT, "%s: content kept past the limit of %llu bytes",
                             ly->name, (unsigned long long)l->keep_total_max);
            }
        }
        itree_free(ly->delta);
        ly->delta = NULL;
        free(paths);
        i = j;
    }
    image_keep_wants_free(v, n);
    return rc;
}

int image_parse_spec(const char *spec, char **path, char **tag)
{
    struct stat st;
    *path = *tag = NULL;
    if (stat(spec, &st) != 0) {
        /* the longest prefix before a ':' that exists */
        for (const char *c = strrchr(spec, ':'); c && c > spec; ) {
            char *pre = strndup(spec, (size_t)(c - spec));
            if (pre == NULL)
                return -1;
            if (stat(pre, &st) == 0 && c[1] != '\0') {
                if ((*tag = strdup(c + 1)) == NULL) {
                    free(pre);
                    return -1;
                }
                *path = pre;
                return 0;
            }
            free(pre);
            const char *prev = c - 1;
            while (prev > spec && *prev != ':')
                prev--;
            c = *prev == ':' ? prev : NULL;
        }
    }
    *path = strdup(spec);
    return *path ? 0 : -1;
}

/* Merge the layers' deltas in order into IM's tree (OCI layer.md
 * "Applying Changesets"), then read again the content kept paths reach
 * only through symlinks.  -1 with E set. */
static int merge_layers(struct image_impl *im, const struct image_limits *l, const char *path,
                        struct sp_error *e)
{
    if ((im->tree = itree_new(l)) == NULL)
        return sp_fail(e, SP_EXIT_INPUT, "%s: out of memory", path);
    for (size_t i = 0; i < im->plan.nlayers; i++) {
        struct image_layer *ly = &im->plan.layers[i];
        int rc = itree_merge(im->tree, ly->delta, i, ly->name, e);
        itree_free(ly->delta);
        ly->delta = NULL;
        if (rc != 0)
            return -1;
    }
    return refetch_aliases(im, l, path, e);
}

struct root *root_open_image(const struct image_open_opts *o, struct sp_error *e)
{
    struct image_limits defaults;
    const struct image_limits *l = o->limits;
    struct image_store store;
    char *path = NULL, *tag = NULL, *real = NULL;
    struct root *r = NULL;
    struct image_impl *im = NULL;
    int store_ok = 0;

    if (l == NULL)
        image_limits_default(&defaults);
    else
        defaults = *l;
    defaults.keep = o->keep;
    l = &defaults;
    if (image_check_platform(o->platform, e) != 0)
        return NULL;
    if (image_parse_spec(o->spec, &path, &tag) != 0) {
        sp_fail(e, SP_EXIT_INPUT, "%s: out of memory", o->spec);
        goto fail;
    }
    if (image_store_open(path, l, &store, e) != 0)
        goto fail;
    store_ok = 1;
    r = calloc(1, sizeof *r);
    im = calloc(1, sizeof *im);
    if (r == NULL || im == NULL) {
        sp_fail(e, SP_EXIT_INPUT, "%s: out of memory", path);
        goto fail;
    }
    if (image_plan_open(&store, tag, o->platform, o->platform != NULL, l, &im->plan, e) != 0)
        goto fail;
    for (size_t i = 0; i < im->plan.nlayers; i++)
        im->total += im->plan.layers[i].blob.size;
    /* the limits must outlive the deltas' references: copy them */
    if (read_layers(im, o, l, e) != 0)
        goto fail;
    if (merge_layers(im, l, path, e) != 0)
        goto fail;
    im->tree->limits = NULL;          /* the caller's limits may not outlive this call */
    real = realpath(path, NULL);
    if (asprintf(&r->subject, "image:%s%s%s", real ? real : path, tag ? ":" : "",
                 tag ? tag : "") < 0) {
        r->subject = NULL;
        sp_fail(e, SP_EXIT_INPUT, "%s: out of memory", path);
        goto fail;
    }
    r->ops = &image_ops;
    r->kind = ROOT_IMAGE;
    r->live = 0;
    r->host_path = NULL;
    r->impl = im;
    image_store_close(&store);
    free(path);
    free(tag);
    free(real);
    return r;
fail:
    if (im) {
        itree_free(im->tree);
        image_plan_free(&im->plan);
        free(im);
    }
    if (r)
        free(r->subject);
    free(r);
    if (store_ok)
        image_store_close(&store);
    free(path);
    free(tag);
    free(real);
    return NULL;
}

/* factset_set that turns a refused value (too long: a ref name from an
 * annotation can be any length) into a warning; -1 only on ENOMEM. */
static int set_fact(struct factset *fs, const char *key, const char *value, const char *ev)
{
    if (factset_set(fs, key, value, ev) == 0)
        return 0;
    if (errno == ENOMEM)
        return -1;
    if (factset_warn(fs, "%s: %s: value %s, not recorded", key, ev,
                     errno == E2BIG ? "too long" : "empty") != 0 && errno == ENOMEM)
        return -1;
    return 0;
}

int image_root_facts(struct root *r, struct factset *fs)
{
    struct image_impl *im = r->impl;
    struct image_plan *p = &im->plan;
    char ev[512], key[64], cfgev[128], n[32];
    snprintf(ev, sizeof ev, "%s%s%s", p->evidence, p->choice ? ": " : "",
             p->choice ? p->choice : "");
    snprintf(cfgev, sizeof cfgev, "config %s", p->config_digest);
    snprintf(n, sizeof n, "%zu", p->nlayers);
    if ((p->ref && set_fact(fs, "image.ref", p->ref, p->evidence) != 0) ||
        set_fact(fs, "image.config_digest", p->config_digest, "manifest config descriptor") != 0 ||
        set_fact(fs, "image.manifest_digest", p->manifest_digest, ev) != 0 ||
        set_fact(fs, "image.manifest_digest_source", p->manifest_source, p->evidence) != 0 ||
        set_fact(fs, "image.os", p->os, cfgev) != 0 ||
        set_fact(fs, "image.architecture", p->architecture, cfgev) != 0 ||
        (p->variant && p->variant[0] && set_fact(fs, "image.variant", p->variant, cfgev) != 0) ||
        set_fact(fs, "image.layers", n, cfgev) != 0)
        return -1;
    if (p->warning && factset_warn(fs, "%s", p->warning) != 0 && errno == ENOMEM)
        return -1;
    for (size_t i = 0; i < p->nlayers; i++) {
        snprintf(key, sizeof key, "image.layer.%03zu.diff_id", i);
        if (set_fact(fs, key, p->layers[i].diff_id, p->layers[i].name) != 0)
            return -1;
    }
    return 0;
}

const char *image_root_choice(struct root *r)
{
    return ((struct image_impl *)r->impl)->plan.choice;
}

uint64_t image_root_total(struct root *r)
{
    return ((struct image_impl *)r->impl)->total;
}
