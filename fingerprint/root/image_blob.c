/* fingerprint/root/image_blob.c: read one layer in one pass.  Two threads per
 * layer, joined by a small ring of buffers:
 *   producer (the calling thread): pread the blob to its last byte with a
 *     running sha256 (the blob digest), inflate it (ISA-L for gzip, libzstd
 *     for zstd, nothing for a plain tar) into the ring;
 *   consumer: sha256 of the inflated bytes (the diff_id), and libarchive's
 *     tar reader over them (no filter of its own), recording each entry in
 *     the layer's delta tree and the content of kept files only.
 * Memory per layer: the ring (RING_SLOTS x SLOT_SIZE), one read buffer, the
 * inflate state, and the kept files.  Must not: write anything to disk,
 * follow an entry name outside the image, or stop reading before the blob's
 * end when its digest is still to be checked.
 */
#include "fingerprint/root/image_impl.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <isa-l/igzip_lib.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#define RING_SLOTS 4
#define SLOT_SIZE (1u << 20)
#define READ_CHUNK SLOT_SIZE        /* a read fills one slot of the input ring */
#define ZSTD_WINDOW_LOG_MAX 27      /* 128 MiB: zstd's own default limit */

struct ring {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    unsigned char *buf[RING_SLOTS];
    size_t len[RING_SLOTS];
    unsigned head, count;
    int eof;        /* producer: no more slots will come */
    int stop;       /* consumer: wants no more slots */
};

static int ring_init(struct ring *r)
{
    memset(r, 0, sizeof *r);
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->cv, NULL);
    for (int i = 0; i < RING_SLOTS; i++)
        if ((r->buf[i] = malloc(SLOT_SIZE)) == NULL)
            return -1;
    return 0;
}

static void ring_destroy(struct ring *r)
{
    for (int i = 0; i < RING_SLOTS; i++)
        free(r->buf[i]);
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->cv);
}

/* Producer: the next free slot, or NULL when the consumer stopped. */
static unsigned char *ring_begin(struct ring *r)
{
    pthread_mutex_lock(&r->mu);
    while (r->count == RING_SLOTS && !r->stop)
        pthread_cond_wait(&r->cv, &r->mu);
    unsigned char *b = r->stop ? NULL : r->buf[(r->head + r->count) % RING_SLOTS];
    pthread_mutex_unlock(&r->mu);
    return b;
}

static void ring_commit(struct ring *r, size_t len)
{
    pthread_mutex_lock(&r->mu);
    r->len[(r->head + r->count) % RING_SLOTS] = len;
    r->count++;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

static void ring_set(struct ring *r, int *flag)
{
    pthread_mutex_lock(&r->mu);
    *flag = 1;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

/* Consumer: the oldest full slot (1), or 0 at the end. */
static int ring_get(struct ring *r, const unsigned char **p, size_t *len)
{
    pthread_mutex_lock(&r->mu);
    while (r->count == 0 && !r->eof)
        pthread_cond_wait(&r->cv, &r->mu);
    int got = r->count > 0;
    if (got) {
        *p = r->buf[r->head];
        *len = r->len[r->head];
    }
    pthread_mutex_unlock(&r->mu);
    return got;
}

static void ring_release(struct ring *r)
{
    pthread_mutex_lock(&r->mu);
    r->head = (r->head + 1) % RING_SLOTS;
    r->count--;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

static void hex_digest(EVP_MD_CTX *ctx, char out[SP_DIGEST_LEN + 1])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    EVP_DigestFinal_ex(ctx, md, &n);
    sp_digest_format(md, out);
}

/* ---- consumer: diff_id and tar scan ---- */

struct consumer {
    struct ring *ring;
    struct image_layer *layer;
    const struct layer_run *run;
    EVP_MD_CTX *diff;         /* NULL when the blob is the tar (no inflate) */
    int held;                 /* a slot is lent to libarchive */
    uint64_t bytes;
    int failed;
    int canceled;
    struct sp_error err;
};

static la_ssize_t cons_read(struct archive *a, void *ctx, const void **buf)
{
    struct consumer *c = ctx;
    const unsigned char *p;
    size_t n;
    if (c->held) {
        ring_release(c->ring);
        c->held = 0;
    }
    if (atomic_load(c->run->cancel)) {
        c->canceled = 1;
        archive_set_error(a, ECANCELED, "canceled");
        return -1;
    }
    if (!ring_get(c->ring, &p, &n))
        return 0;
    if (c->diff)
        EVP_DigestUpdate(c->diff, p, n);
    c->bytes += n;
    c->held = 1;
    *buf = p;
    return (la_ssize_t)n;
}

static int cfail(struct consumer *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int cfail(struct consumer *c, const char *fmt, ...)
{
    char what[SP_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    c->failed = 1;
    return sp_fail(&c->err, SP_EXIT_INPUT, "%.200s: layer %zu: %s", c->layer->name,
                   c->layer->index, what);
}

/* Read up to KEEP bytes of the current entry into node N. */
static int keep_content(struct consumer *c, struct archive *a, struct itree *t,
                        struct inode *n, uint64_t keep, const char *path)
{
    uint64_t want = n->size < keep ? n->size : keep;
    char *d = image_content_alloc(want);
    uint64_t got = 0;
    if (d == NULL)
        return cfail(c, "%.200s: out of memory", path);
    while (got < want) {
        la_ssize_t r = archive_read_data(a, d + got, want - got);
        if (r < 0) {
            image_content_unref(d);
            return cfail(c, "tar: %s (%.200s)", archive_error_string(a), path);
        }
        if (r == 0)
            break;
        got += (uint64_t)r;
    }
    d[got] = '\0';
    if (itree_set_data(t, n, d, got) != 0) {
        image_content_unref(d);
        return cfail(c, "%.200s: content kept past the limit of %llu bytes", path,
                     (unsigned long long)t->limits->keep_total_max);
    }
    return 0;
}

static int cmp_path(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* errno from an itree call on PATH as the layer's error. */
static int scan_errno(struct consumer *c, const char *path)
{
    if (errno == E2BIG)
        return cfail(c, "more than %llu entries (at %.200s)",
                     (unsigned long long)c->run->limits->entries_max, path);
    if (errno == ENOTDIR)
        return cfail(c, "%.200s lies beneath a symlink or file made earlier in this layer; "
                     "refused (runtimes differ on it)", path);
    return cfail(c, "%.200s: %s", path, strerror(errno));
}

/* Whiteouts (OCI layer.md "Whiteouts"): 1 when BASE, the last component of
 * PATH, is one (recorded in the delta) or aufs metadata (".wh..wh.plnk",
 * not content); 0 when it is an ordinary name; -1 on error. */
static int scan_whiteout(struct consumer *c, const char *path, const char *base)
{
    struct itree *t = c->layer->delta;
    char dir[SP_ROOT_PATH_MAX + 1];
    snprintf(dir, sizeof dir, "%.*s", (int)(base - path > 0 ? base - path - 1 : 0), path);
    if (strstr(path, ".wh..wh.") && strcmp(base, ".wh..wh..opq") != 0)
        return 1;
    if (strcmp(base, ".wh..wh..opq") == 0)
        return itree_whiteout(t, dir, NULL) != 0 ? scan_errno(c, path) : 1;
    if (strncmp(base, ".wh.", 4) != 0)
        return 0;
    if (base[4] == '\0')
        return cfail(c, "whiteout without a name: %.200s", path);
    return itree_whiteout(t, dir, base + 4) != 0 ? scan_errno(c, path) : 1;
}

/* A hard link entry PATH to HL. */
static int scan_hardlink(struct consumer *c, const char *path, const char *hl)
{
    char target[SP_ROOT_PATH_MAX + 1];
    const char *why;
    if (itree_normalise(hl, c->run->limits, target, sizeof target, &why) != 0)
        return cfail(c, "hard link target: %s: %.200s", why, hl);
    if (itree_hardlink(c->layer->delta, path, target) == 0)
        return 0;
    if (errno == EINVAL)
        return cfail(c, "hard link %s points to %s, which is not a file or a symlink", path,
                     target);
    return scan_errno(c, path);
}

/* The regular file N at PATH: its size, its layer, and its content when a
 * keep pattern (or the run's extra list) names it. */
static int scan_file(struct consumer *c, struct archive *a, struct archive_entry *ent,
                     struct inode *n, const char *path)
{
    const struct image_limits *l = c->run->limits;
    n->size = archive_entry_size_is_set(ent) && archive_entry_size(ent) > 0
            ? (uint64_t)archive_entry_size(ent) : 0;
    n->layer = (uint32_t)c->layer->index + 1;
    uint64_t keep = image_keep(path, l);
    if (!keep && c->run->nextra &&
        bsearch(&(const char *){ path }, c->run->extra, c->run->nextra,
                sizeof *c->run->extra, cmp_path))
        keep = l->keep_file_max;
    if (keep && n->size)
        return keep_content(c, a, c->layer->delta, n, keep, path);
    return 0;
}

/* One tar entry of the layer into its delta (OCI layer.md "Changesets"). */
static int scan_entry(struct consumer *c, struct archive *a, struct archive_entry *ent)
{
    struct itree *t = c->layer->delta;
    const struct image_limits *l = c->run->limits;
    char path[SP_ROOT_PATH_MAX + 1];
    const char *why;
    const char *raw = archive_entry_pathname(ent);
    if (raw == NULL)
        return cfail(c, "an entry has no name");
    if (itree_normalise(raw, l, path, sizeof path, &why) != 0)
        return cfail(c, "%s: %.200s", why, raw);
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    int wh = scan_whiteout(c, path, base);
    if (wh != 0)
        return wh < 0 ? -1 : 0;
    const char *hl = archive_entry_hardlink(ent);
    if (hl)
        return scan_hardlink(c, path, hl);
    mode_t ft = archive_entry_filetype(ent);
    enum inode_type type = ft == AE_IFDIR ? IN_DIR : ft == AE_IFREG ? IN_FILE
                         : ft == AE_IFLNK ? IN_LINK : IN_OTHER;
    if (path[0] == '\0') {
        if (type == IN_DIR)
            t->root.mode = archive_entry_perm(ent);
        return 0;           /* "./" itself: only a directory makes sense */
    }
    struct inode *n = itree_add(t, path, type);
    if (n == NULL)
        return scan_errno(c, path);
    n->mode = archive_entry_perm(ent);
    if (type == IN_LINK) {
        const char *to = archive_entry_symlink(ent);
        if (to == NULL || strlen(to) > l->name_max)
            return cfail(c, "symlink %.200s: target missing or longer than the limit", path);
        if ((n->link = strdup(to)) == NULL)
            return scan_errno(c, path);
        n->size = strlen(to);
    } else if (type == IN_FILE) {
        return scan_file(c, a, ent, n, path);
    }
    return 0;
}

static void *consumer_main(void *arg)
{
    struct consumer *c = arg;
    struct archive *a = archive_read_new();
    struct archive_entry *ent;
    int r = ARCHIVE_FATAL;
    if (a == NULL) {
        cfail(c, "out of memory");
        goto drain;
    }
    archive_read_support_format_tar(a);
    r = archive_read_open(a, c, NULL, cons_read, NULL);
    if (r == ARCHIVE_OK)
        while ((r = archive_read_next_header(a, &ent)) == ARCHIVE_OK || r == ARCHIVE_WARN)
            if (scan_entry(c, a, ent) != 0)
                goto drain;
    if (r != ARCHIVE_EOF && c->bytes == 0 && !c->canceled)
        r = ARCHIVE_EOF;               /* an empty blob: a layer with no entries */
    if (r != ARCHIVE_EOF && !c->canceled)
        cfail(c, "tar: %s", archive_error_string(a));
drain:
    if (c->failed || r != ARCHIVE_EOF) {
        if (c->held)
            ring_release(c->ring);
        c->held = 0;
        ring_set(c->ring, &c->ring->stop);
    } else {
        /* past the end-of-archive blocks: padding still counts in the diff_id */
        const unsigned char *p;
        size_t n;
        if (c->held)
            ring_release(c->ring);
        c->held = 0;
        while (ring_get(c->ring, &p, &n)) {
            if (c->diff)
                EVP_DigestUpdate(c->diff, p, n);
            c->bytes += n;
            ring_release(c->ring);
        }
    }
    if (a)
        archive_read_free(a);
    return NULL;
}

/* ---- producer: blob digest and inflate ---- */

struct producer {
    struct ring *in;          /* compressed chunks from the reader */
    struct ring *ring;        /* inflated bytes to the consumer */
    struct image_layer *layer;
    const struct layer_run *run;
    enum layer_compression comp;
    struct inflate_state *gz;
    ZSTD_DCtx *zs;
    size_t zlast;             /* last ZSTD_decompressStream hint: 0 at a frame end */
    int inflating;            /* 0 after an error or when the consumer stopped */
    uint64_t consumed;        /* compressed bytes handed to the inflater */
    uint64_t inflated;
    int failed;
    struct sp_error err;
};

static void pfail(struct producer *p, const char *what)
{
    if (!p->failed)
        sp_fail(&p->err, SP_EXIT_INPUT, "%s: layer %zu: %s", p->layer->name,
                p->layer->index, what);
    p->failed = 1;
    p->inflating = 0;
}

/* Account N inflated bytes; 0, or -1 past a bound (the bomb check). */
static int count_out(struct producer *p, size_t n, uint64_t in_now)
{
    const struct image_limits *l = p->run->limits;
    char what[200];
    p->inflated += n;
    if (p->inflated > l->inflated_max) {
        snprintf(what, sizeof what, "inflates past %llu bytes (the limit)",
                 (unsigned long long)l->inflated_max);
        pfail(p, what);
        return -1;
    }
    if (p->inflated > l->ratio_after && p->inflated / (in_now ? in_now : 1) > l->ratio_max) {
        snprintf(what, sizeof what, "inflates more than %llu times its size past %llu bytes "
                 "(a compression bomb?)", (unsigned long long)l->ratio_max,
                 (unsigned long long)l->ratio_after);
        pfail(p, what);
        return -1;
    }
    return 0;
}

static int all_zero(const unsigned char *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (b[i])
            return 0;
    return 1;
}

static void feed_gzip(struct producer *p, const unsigned char *in, size_t n, uint64_t read_total)
{
    struct inflate_state *s = p->gz;
    s->next_in = (uint8_t *)in;
    s->avail_in = (uint32_t)n;
    for (;;) {
        if (s->block_state == ISAL_BLOCK_FINISH) {
            if (s->avail_in == 0)
                return;
            if (s->next_in[0] == 0x1f) {          /* another gzip member */
                uint8_t *ni = s->next_in;
                uint32_t na = s->avail_in;
                isal_inflate_reset(s);
                s->crc_flag = ISAL_GZIP;
                s->next_in = ni;
                s->avail_in = na;
            } else if (all_zero(s->next_in, s->avail_in)) {
                return;                           /* padding after the stream */
            } else {
                pfail(p, "bytes after the end of the gzip stream");
                return;
            }
        }
        unsigned char *out = ring_begin(p->ring);
        if (out == NULL) {
            p->inflating = 0;
            return;
        }
        s->next_out = out;
        s->avail_out = SLOT_SIZE;
        int rc = isal_inflate(s);
        size_t made = SLOT_SIZE - s->avail_out;
        if (made)
            ring_commit(p->ring, made);
        if (rc < 0) {
            pfail(p, rc == ISAL_INCORRECT_CHECKSUM ? "gzip: CRC mismatch (corrupt data)"
                  : rc == ISAL_INVALID_WRAPPER ? "gzip: not a gzip stream"
                  : "gzip: corrupt deflate data");
            return;
        }
        if (made && count_out(p, made, read_total - s->avail_in) != 0)
            return;
        if (made < SLOT_SIZE && s->avail_in == 0)
            return;
        if (made == 0 && s->block_state != ISAL_BLOCK_FINISH && s->avail_in > 0 && rc != 0) {
            pfail(p, "gzip: inflate made no progress");
            return;
        }
    }
}

static void feed_zstd(struct producer *p, const unsigned char *in, size_t n, uint64_t read_total)
{
    ZSTD_inBuffer ib = { in, n, 0 };
    for (;;) {
        unsigned char *out = ring_begin(p->ring);
        if (out == NULL) {
            p->inflating = 0;
            return;
        }
        ZSTD_outBuffer ob = { out, SLOT_SIZE, 0 };
        size_t rc = ZSTD_decompressStream(p->zs, &ob, &ib);
        if (ob.pos)
            ring_commit(p->ring, ob.pos);
        if (ZSTD_isError(rc)) {
            char what[200];
            snprintf(what, sizeof what, "zstd: %s", ZSTD_getErrorName(rc));
            pfail(p, what);
            return;
        }
        p->zlast = rc;
        if (ob.pos && count_out(p, ob.pos, read_total - (n - ib.pos)) != 0)
            return;
        if (ob.pos < SLOT_SIZE && ib.pos == ib.size)
            return;
    }
}

static void feed(struct producer *p, const unsigned char *in, size_t n, uint64_t read_total)
{
    if (p->comp == COMP_GZIP && p->gz == NULL) {
        if ((p->gz = malloc(sizeof *p->gz)) == NULL) {
            pfail(p, "out of memory");
            return;
        }
        isal_inflate_init(p->gz);
        p->gz->crc_flag = ISAL_GZIP;
    }
    if (p->comp == COMP_ZSTD && p->zs == NULL) {
        if ((p->zs = ZSTD_createDCtx()) == NULL) {
            pfail(p, "out of memory");
            return;
        }
        ZSTD_DCtx_setParameter(p->zs, ZSTD_d_windowLogMax, ZSTD_WINDOW_LOG_MAX);
        p->zlast = 1;
    }
    if (p->comp == COMP_GZIP)
        feed_gzip(p, in, n, read_total);
    else if (p->comp == COMP_ZSTD)
        feed_zstd(p, in, n, read_total);
}

/* The inflater thread: compressed chunks from P->in, inflated bytes into
 * P->ring.  It drains P->in to its end whatever happens, so that the
 * reader can hash the blob to its last byte. */
static void *inflater_main(void *arg)
{
    struct producer *p = arg;
    const unsigned char *in;
    size_t n;
    while (ring_get(p->in, &in, &n)) {
        if (p->inflating) {
            p->consumed += n;
            feed(p, in, n, p->consumed);
        }
        ring_release(p->in);
    }
    if (p->inflating && !atomic_load(p->run->cancel)) {
        if (p->comp == COMP_GZIP && (p->gz == NULL || p->gz->block_state != ISAL_BLOCK_FINISH))
            pfail(p, "gzip stream ends early (truncated layer?)");
        if (p->comp == COMP_ZSTD && (p->zs == NULL || p->zlast != 0))
            pfail(p, "zstd stream ends early (truncated layer?)");
    }
    ring_set(p->ring, &p->ring->eof);
    return NULL;
}

static enum layer_compression sniff(const unsigned char *b, size_t n)
{
    if (n >= 2 && b[0] == 0x1f && b[1] == 0x8b)
        return COMP_GZIP;
    if (n >= 4 && b[0] == 0x28 && b[1] == 0xb5 && b[2] == 0x2f && b[3] == 0xfd)
        return COMP_ZSTD;
    return COMP_NONE;
}

/* One layer being read: the two rings, the two threads, the two hashes. */
struct layer_job {
    struct image_layer *l;
    const struct layer_run *run;
    struct ring in, out;
    struct consumer c;
    struct producer p;
    pthread_t th_c, th_p;
    EVP_MD_CTX *blob, *diff;
    unsigned char *first;         /* a chunk to hash into once the consumer stopped */
    uint64_t off;                 /* blob bytes read */
    int rings, started_c, started_p, io_failed, canceled;
};

/* The rings, hashes and the empty delta of J; -1 on ENOMEM. */
static int job_init(struct layer_job *j)
{
    j->blob = EVP_MD_CTX_new();
    j->diff = EVP_MD_CTX_new();
    if (j->blob == NULL || j->diff == NULL || (j->l->delta = itree_new(j->run->limits)) == NULL)
        return -1;
    if (ring_init(&j->in) != 0) {
        ring_destroy(&j->in);
        return -1;
    }
    if (ring_init(&j->out) != 0) {
        ring_destroy(&j->in);
        ring_destroy(&j->out);
        return -1;
    }
    j->rings = 1;
    EVP_DigestInit_ex(j->blob, EVP_sha256(), NULL);
    EVP_DigestInit_ex(j->diff, EVP_sha256(), NULL);
    j->p.ring = j->c.ring = &j->out;
    j->p.in = &j->in;
    j->p.layer = j->c.layer = j->l;
    j->p.run = j->c.run = j->run;
    j->p.comp = j->l->comp;
    j->p.inflating = 1;
    return 0;
}

/* The first GOT bytes at DST are read: start the consumer, and the
 * inflater for a compressed layer.  Returns 0 (commit DST as usual), 1
 * (an uncompressed layer: DST was handed over to OUT already) or -1 (a
 * thread could not start; the error is in the layer). */
static int job_start(struct layer_job *j, const unsigned char *dst, ssize_t got)
{
    struct image_layer *l = j->l;
    /* the first bytes say how the layer is compressed when the descriptor
     * did not (docker-save layers) */
    if (j->p.comp == COMP_SNIFF)
        j->p.comp = sniff(dst, (size_t)got);
    j->c.diff = j->p.comp == COMP_NONE ? NULL : j->diff;
    if (pthread_create(&j->th_c, NULL, consumer_main, &j->c) != 0)
        return sp_fail(&l->err, SP_EXIT_INPUT, "%s: cannot start a thread", l->name);
    j->started_c = 1;
    if (j->p.comp != COMP_NONE) {
        if (pthread_create(&j->th_p, NULL, inflater_main, &j->p) != 0)
            return sp_fail(&l->err, SP_EXIT_INPUT, "%s: cannot start a thread", l->name);
        j->started_p = 1;
        return 0;
    }
    if (got <= 0)
        return 0;
    /* read into IN's slot: hand the bytes over to OUT */
    unsigned char *o = ring_begin(&j->out);
    if (o) {
        memcpy(o, dst, (size_t)got);
        ring_commit(&j->out, (size_t)got);
    }
    return 1;
}

/* The reader: pread the blob chunk by chunk, hash it, and feed the rings,
 * until its end, a cancel, or an error (J->io_failed, the layer's error
 * set). */
static void job_read(struct layer_job *j)
{
    struct image_layer *l = j->l;
    while (!(j->canceled = atomic_load(j->run->cancel))) {
        size_t want = l->blob.size - j->off < READ_CHUNK ? (size_t)(l->blob.size - j->off)
                                                          : READ_CHUNK;
        int direct = j->p.comp == COMP_NONE && j->started_c;
        unsigned char *dst = ring_begin(direct ? &j->out : &j->in);
        if (dst == NULL) {              /* the consumer stopped: only hash from here */
            direct = 0;
            j->p.comp = COMP_NONE;
            if (j->first == NULL && (j->first = malloc(READ_CHUNK)) == NULL) {
                j->io_failed = 1;
                sp_fail(&l->err, SP_EXIT_INPUT, "%s: out of memory", l->name);
                return;
            }
            dst = j->first;
        }
        ssize_t got = want ? pread(l->blob.fd, dst, want, (off_t)(l->blob.offset + j->off)) : 0;
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0 || (got == 0 && want)) {
            sp_fail(&l->err, SP_EXIT_INPUT, "%s: layer %zu: %s", l->name, l->index,
                    got < 0 ? strerror(errno) : "truncated while reading");
            j->io_failed = 1;
            return;
        }
        EVP_DigestUpdate(j->blob, dst, (size_t)got);
        j->off += (uint64_t)got;
        atomic_fetch_add(j->run->done, (uint64_t)got);
        int handed = 0;
        if (!j->started_c && (handed = job_start(j, dst, got)) < 0) {
            j->io_failed = 1;
            return;
        }
        if (!handed && dst != j->first && got > 0)
            ring_commit(direct ? &j->out : &j->in, (size_t)got);
        if (j->off >= l->blob.size)
            return;
    }
}

/* End the threads and take both digests and the inflated size. */
static void job_join(struct layer_job *j)
{
    if (j->started_p) {
        ring_set(&j->in, &j->in.eof);
        pthread_join(j->th_p, NULL);    /* it sets OUT's eof */
    } else if (j->started_c) {
        ring_set(&j->out, &j->out.eof);
    }
    if (j->started_c)
        pthread_join(j->th_c, NULL);
    hex_digest(j->blob, j->l->digest);
    if (j->c.diff)
        hex_digest(j->diff, j->l->diff_id);
    else
        memcpy(j->l->diff_id, j->l->digest, sizeof j->l->diff_id);
    j->l->inflated = j->c.bytes;
}

/* The layer's verdict, first cause first: canceled, unreadable, the blob's
 * digest, the inflater's error, the tar scan's error, the diff_id. */
static void job_verdict(struct layer_job *j)
{
    struct image_layer *l = j->l;
    if (j->canceled || j->c.canceled) {
        l->failed = 2;                     /* stopped because another layer failed */
    } else if (j->io_failed) {
        l->failed = 1;
    } else if (l->want_digest[0] && strcmp(l->digest, l->want_digest) != 0) {
        l->failed = 1;
        sp_fail(&l->err, SP_EXIT_VERIFY, "%s: sha256 is %s, its descriptor says %s (layer %zu)",
                l->name, l->digest, l->want_digest, l->index);
    } else if (j->p.failed) {
        l->failed = 1;
        l->err = j->p.err;
    } else if (j->c.failed) {
        l->failed = 1;
        l->err = j->c.err;
    } else if (l->want_diff_id[0] && strcmp(l->diff_id, l->want_diff_id) != 0) {
        l->failed = 1;
        sp_fail(&l->err, SP_EXIT_VERIFY, "%s: uncompressed sha256 is %s, the config's diff_id "
                "says %s (layer %zu)", l->name, l->diff_id, l->want_diff_id, l->index);
    }
}

static void job_free(struct layer_job *j)
{
    if (j->rings) {
        ring_destroy(&j->in);
        ring_destroy(&j->out);
    }
    free(j->first);
    free(j->p.gz);
    ZSTD_freeDCtx(j->p.zs);
    EVP_MD_CTX_free(j->blob);
    EVP_MD_CTX_free(j->diff);
}

/* Three stages, each its own thread where there is work for it:
 *   reader (this thread): pread + sha256 of the blob, into IN (or straight
 *     into OUT for an uncompressed layer);
 *   inflater: IN -> OUT (gzip or zstd);
 *   consumer: sha256 of OUT (the diff_id) and the tar scan. */
int image_layer_read(struct image_layer *l, const struct layer_run *run)
{
    struct layer_job *j = calloc(1, sizeof *j);
    l->failed = 0;
    if (l->want_size >= 0 && (uint64_t)l->want_size != l->blob.size) {
        l->failed = 1;
        sp_fail(&l->err, SP_EXIT_VERIFY, "%s: %llu bytes, its descriptor says %lld (layer %zu)",
                l->name, (unsigned long long)l->blob.size, (long long)l->want_size, l->index);
    } else if (j == NULL || (j->l = l, j->run = run, job_init(j)) != 0) {
        l->failed = 1;
        sp_fail(&l->err, SP_EXIT_INPUT, "%s: out of memory", l->name);
    } else {
        job_read(j);
        job_join(j);
        job_verdict(j);
    }
    if (j)
        job_free(j);
    free(j);
    if (l->failed) {
        itree_free(l->delta);
        l->delta = NULL;
    }
    return l->failed ? -1 : 0;
}
