/* fuzz/fuzz_image_json.c: libFuzzer target for the image sources' JSON
 * (fingerprint/root/image_source.c): OCI index.json and nested indexes, image
 * manifests, image configs, and docker-save manifest.json.  The input is up
 * to five documents separated by the line "--doc--":
 *   index.json, manifest blob, config blob, manifest.json, an extra blob
 *   (a nested index or a second manifest);
 * an empty document leaves its member out.  The fuzzer cannot compute
 * SHA-256, so in each document these words are replaced before use:
 *   @L@ / @LS@  digest / size of the one layer (a small tar made here),
 *   @C@ / @CS@  of the config,  @M@ / @MS@  of the manifest,
 *   @X@ / @XS@  of the extra blob;
 * the config is replaced first, then the manifest, then the extra blob, so
 * each can name the ones before.  The docker-save form names the config
 * "config.json" and the layer "layer.tar".  Any input must give a root or
 * an error (non-zero exit status and a message), never a crash, a leak or
 * a hang. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/image_layout.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct sub {
    const char *word;
    char value[SP_DIGEST_LEN + 1];
};

/* DOC (LEN bytes) with every word of SUBS (N) replaced; malloc'd, length
 * in *OUTLEN. */
static char *substitute(const uint8_t *doc, size_t len, const struct sub *subs, size_t n,
                        size_t *outlen)
{
    size_t cap = len * 40 + 1, o = 0;  /* a word of 3 bytes becomes at most 71 */
    char *out = malloc(cap);
    if (out == NULL)
        return NULL;
    for (size_t i = 0; i < len;) {
        size_t j = 0;
        for (; j < n; j++) {
            size_t wl = strlen(subs[j].word);
            if (len - i >= wl && memcmp(doc + i, subs[j].word, wl) == 0) {
                size_t vl = strlen(subs[j].value);
                memcpy(out + o, subs[j].value, vl);
                o += vl;
                i += wl;
                break;
            }
        }
        if (j == n)
            out[o++] = (char)doc[i++];
    }
    out[o] = '\0';
    *outlen = o;
    return out;
}

static void set_digest(struct sub *d, struct sub *sz, const void *p, size_t n)
{
    image_sha256_digest(p, n, d->value);
    snprintf(sz->value, sizeof sz->value, "%zu", n);
}

/* The layer: one tar with an os-release, made with libarchive; malloc'd
 * bytes and their length in *LEN, or NULL. */
static char *make_layer(size_t *len)
{
    static const char osr[] = "ID=fuzz\n";
    struct fz_member lm = { "etc/os-release", osr, sizeof osr - 1 };
    char lpath[64];
    int lfd = fz_archive(&lm, 1, lpath, sizeof lpath);
    if (lfd < 0)
        return NULL;
    off_t tl = lseek(lfd, 0, SEEK_END);
    char *layer = tl > 0 ? malloc((size_t)tl) : NULL;
    if (layer == NULL || pread(lfd, layer, (size_t)tl, 0) != tl) {
        free(layer);
        layer = NULL;
    }
    close(lfd);
    *len = (size_t)tl;
    return layer;
}

/* The five documents with their words replaced, in the order the header
 * comment gives (config, manifest, extra blob, then the two that name
 * them); each malloc'd or NULL. */
struct docs {
    char *cfg, *man, *extra, *idx, *dm;
    size_t cl, ml, xl, il, dml;
};

static void substitute_docs(const uint8_t *const doc[5], const size_t dl[5], struct sub *subs,
                            size_t ns, struct docs *d)
{
    d->cfg = substitute(doc[2], dl[2], subs, ns, &d->cl);
    if (d->cfg)
        set_digest(&subs[3], &subs[2], d->cfg, d->cl);
    d->man = substitute(doc[1], dl[1], subs, ns, &d->ml);
    if (d->man)
        set_digest(&subs[5], &subs[4], d->man, d->ml);
    d->extra = substitute(doc[4], dl[4], subs, ns, &d->xl);
    if (d->extra)
        set_digest(&subs[7], &subs[6], d->extra, d->xl);
    d->idx = substitute(doc[0], dl[0], subs, ns, &d->il);
    d->dm = substitute(doc[3], dl[3], subs, ns, &d->dml);
}

/* The archive of the layer and the documents (an OCI layout when there is
 * an index.json, a docker-save one when there is a manifest.json); its fd
 * (PATH its name), or -1 when nothing was written. */
static int write_archive(const struct docs *d, const struct sub *subs, const char *layer,
                         size_t tl, char path[64])
{
    static const char layout[] = "{\"imageLayoutVersion\":\"1.0.0\"}";
    char names[4][96];
    struct fz_member m[10];
    size_t k = 0;
    if (!(d->cfg && d->man && d->extra && d->idx && d->dm))
        return -1;
    for (int i = 0; i < 4; i++)      /* the layer, config, manifest, extra blob */
        snprintf(names[i], sizeof names[i], "blobs/sha256/%s", subs[2 * i + 1].value + 7);
    m[k++] = (struct fz_member){ names[0], layer, tl };
    if (d->cl)
        m[k++] = (struct fz_member){ names[1], d->cfg, d->cl };
    if (d->ml)
        m[k++] = (struct fz_member){ names[2], d->man, d->ml };
    if (d->xl)
        m[k++] = (struct fz_member){ names[3], d->extra, d->xl };
    if (d->il) {
        m[k++] = (struct fz_member){ "index.json", d->idx, d->il };
        m[k++] = (struct fz_member){ "oci-layout", layout, sizeof layout - 1 };
    }
    if (d->dml) {
        m[k++] = (struct fz_member){ "manifest.json", d->dm, d->dml };
        m[k++] = (struct fz_member){ "config.json", d->cfg, d->cl };
        m[k++] = (struct fz_member){ "layer.tar", layer, tl };
    }
    return fz_archive(m, k, path, 64);
}

/* Open PATH as an image with small bounds and record its facts: a root or
 * an error, never a crash. */
static void open_and_probe(const char *path)
{
    struct image_limits l;
    image_limits_default(&l);
    l.json_total_max = 1 << 20;        /* small bounds: the fuzzer finds their edges */
    l.descriptors_max = 500;
    struct root *r = fz_open(path, &l, NULL);
    if (r == NULL)
        return;
    struct factset fs;
    factset_init(&fs);
    if (image_root_facts(r, &fs) != 0)
        abort();
    image_root_choice(r);
    factset_free(&fs);
    root_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *doc[5];
    size_t dl[5];
    size_t nd = fz_split(data, size, "\n--doc--\n", 5, doc, dl);
    for (size_t i = nd; i < 5; i++) {
        doc[i] = data;
        dl[i] = 0;
    }
    size_t tl = 0;
    char *layer = make_layer(&tl);
    if (layer == NULL)
        return 0;
    struct sub subs[] = {
        { "@LS@", "" }, { "@L@", "" }, { "@CS@", "" }, { "@C@", "" },
        { "@MS@", "" }, { "@M@", "" }, { "@XS@", "" }, { "@X@", "" },
    };
    set_digest(&subs[1], &subs[0], layer, tl);
    struct docs d;
    substitute_docs(doc, dl, subs, sizeof subs / sizeof *subs, &d);
    char path[64];
    int fd = write_archive(&d, subs, layer, tl, path);
    free(d.cfg);
    free(d.man);
    free(d.extra);
    free(d.idx);
    free(d.dm);
    free(layer);
    if (fd < 0)
        return 0;
    open_and_probe(path);
    close(fd);
    return 0;
}
