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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *doc[5];
    size_t dl[5];
    size_t nd = fz_split(data, size, "\n--doc--\n", 5, doc, dl);
    for (size_t i = nd; i < 5; i++) {
        doc[i] = data;
        dl[i] = 0;
    }
    /* the layer: one tar with an os-release, made with libarchive */
    static const char osr[] = "ID=fuzz\n";
    struct fz_member lm = { "etc/os-release", osr, sizeof osr - 1 };
    char lpath[64];
    int lfd = fz_archive(&lm, 1, lpath, sizeof lpath);
    if (lfd < 0)
        return 0;
    off_t tl = lseek(lfd, 0, SEEK_END);
    char *layer = tl > 0 ? malloc((size_t)tl) : NULL;
    if (layer == NULL || pread(lfd, layer, (size_t)tl, 0) != tl) {
        free(layer);
        close(lfd);
        return 0;
    }
    close(lfd);

    struct sub subs[] = {
        { "@LS@", "" }, { "@L@", "" }, { "@CS@", "" }, { "@C@", "" },
        { "@MS@", "" }, { "@M@", "" }, { "@XS@", "" }, { "@X@", "" },
    };
    const size_t ns = sizeof subs / sizeof *subs;
    set_digest(&subs[1], &subs[0], layer, (size_t)tl);
    char *cfg, *man, *extra, *idx, *dm;
    size_t cl, ml, xl, il, dml;
    cfg = substitute(doc[2], dl[2], subs, ns, &cl);
    if (cfg)
        set_digest(&subs[3], &subs[2], cfg, cl);
    man = substitute(doc[1], dl[1], subs, ns, &ml);
    if (man)
        set_digest(&subs[5], &subs[4], man, ml);
    extra = substitute(doc[4], dl[4], subs, ns, &xl);
    if (extra)
        set_digest(&subs[7], &subs[6], extra, xl);
    idx = substitute(doc[0], dl[0], subs, ns, &il);
    dm = substitute(doc[3], dl[3], subs, ns, &dml);

    static const char layout[] = "{\"imageLayoutVersion\":\"1.0.0\"}";
    char names[4][96];
    struct fz_member m[10];
    size_t k = 0;
    if (cfg && man && extra && idx && dm) {
        snprintf(names[0], sizeof names[0], "blobs/sha256/%s", subs[1].value + 7);
        snprintf(names[1], sizeof names[1], "blobs/sha256/%s", subs[3].value + 7);
        snprintf(names[2], sizeof names[2], "blobs/sha256/%s", subs[5].value + 7);
        snprintf(names[3], sizeof names[3], "blobs/sha256/%s", subs[7].value + 7);
        m[k++] = (struct fz_member){ names[0], layer, (size_t)tl };
        if (cl)
            m[k++] = (struct fz_member){ names[1], cfg, cl };
        if (ml)
            m[k++] = (struct fz_member){ names[2], man, ml };
        if (xl)
            m[k++] = (struct fz_member){ names[3], extra, xl };
        if (il) {
            m[k++] = (struct fz_member){ "index.json", idx, il };
            m[k++] = (struct fz_member){ "oci-layout", layout, sizeof layout - 1 };
        }
        if (dml) {
            m[k++] = (struct fz_member){ "manifest.json", dm, dml };
            m[k++] = (struct fz_member){ "config.json", cfg, cl };
            m[k++] = (struct fz_member){ "layer.tar", layer, (size_t)tl };
        }
    }
    char path[64];
    int fd = k ? fz_archive(m, k, path, sizeof path) : -1;
    free(cfg);
    free(man);
    free(extra);
    free(idx);
    free(dm);
    free(layer);
    if (fd < 0)
        return 0;
    struct image_limits l;
    image_limits_default(&l);
    l.json_total_max = 1 << 20;        /* small bounds: the fuzzer finds their edges */
    l.descriptors_max = 500;
    struct root *r = fz_open(path, &l, NULL);
    if (r != NULL) {
        struct factset fs;
        factset_init(&fs);
        if (image_root_facts(r, &fs) != 0)
            abort();
        image_root_choice(r);
        factset_free(&fs);
        root_close(r);
    }
    close(fd);
    return 0;
}
