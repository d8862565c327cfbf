/* fuzz/image_layout.h: what the image fuzz targets (fuzz_image_json.c,
 * fuzz_image_layer.c) share: an archive of named members written with
 * libarchive's tar writer into an anonymous memory file, so that
 * root_open_image() reads it as it reads any OCI archive or docker-save
 * tarball, and the input split into parts.  Only for fuzz targets: static
 * functions in a header, each target one translation unit. */
#ifndef SP_FUZZ_IMAGE_LAYOUT_H
#define SP_FUZZ_IMAGE_LAYOUT_H

#include <archive.h>
#include <archive_entry.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fingerprint/probes/probe.h"
#include "fingerprint/root/image_impl.h"

struct fz_member {
    const char *name;
    const void *data;
    size_t len;
};

/* The members M (N of them) as an uncompressed pax tar in a memfd; *PATH
 * gets "/proc/self/fd/N" (PATHSZ bytes).  Returns the descriptor (the
 * caller closes it), or -1. */
static int fz_archive(const struct fz_member *m, size_t n, char *path, size_t pathsz)
{
    int fd = memfd_create("fuzz-image", MFD_CLOEXEC);
    if (fd < 0)
        return -1;
    struct archive *a = archive_write_new();
    struct archive_entry *ent = archive_entry_new();
    int ok = a && ent && archive_write_set_format_pax_restricted(a) == ARCHIVE_OK &&
             archive_write_open_fd(a, fd) == ARCHIVE_OK;
    for (size_t i = 0; ok && i < n; i++) {
        archive_entry_clear(ent);
        archive_entry_set_pathname(ent, m[i].name);
        archive_entry_set_filetype(ent, AE_IFREG);
        archive_entry_set_perm(ent, 0644);
        archive_entry_set_size(ent, (la_int64_t)m[i].len);
        ok = archive_write_header(a, ent) == ARCHIVE_OK &&
             (m[i].len == 0 || archive_write_data(a, m[i].data, m[i].len) == (la_ssize_t)m[i].len);
    }
    if (a)
        ok = archive_write_close(a) == ARCHIVE_OK && ok;
    archive_entry_free(ent);
    archive_write_free(a);
    if (!ok) {
        close(fd);
        return -1;
    }
    snprintf(path, pathsz, "/proc/self/fd/%d", fd);
    return fd;
}

/* Split DATA at each SEP into at most MAX parts (PARTS, LENS); returns how
 * many.  Parts point into DATA. */
static size_t fz_split(const uint8_t *data, size_t size, const char *sep, size_t max,
                       const uint8_t **parts, size_t *lens)
{
    size_t n = 0, sl = strlen(sep);
    const uint8_t *p = data, *end = data + size;
    while (n + 1 < max) {
        const uint8_t *q = memmem(p, (size_t)(end - p), sep, sl);
        if (q == NULL)
            break;
        parts[n] = p;
        lens[n++] = (size_t)(q - p);
        p = q + sl;
    }
    parts[n] = p;
    lens[n++] = (size_t)(end - p);
    return n;
}

/* An OCI image config for LAYERS (N of them, each uncompressed, so diff_id
 * and digest agree), its manifest and the index naming it; the members of
 * an OCI archive holding them, into M (at least N + 4 slots).  Text is
 * malloc'd into BUFS (4 slots, freed by fz_free_texts).  Returns the number
 * of members. */
static size_t fz_oci_layout(const uint8_t **layers, const size_t *lens, size_t n,
                            struct fz_member *m, char **bufs, char (*names)[96])
{
    static const char layout[] = "{\"imageLayoutVersion\":\"1.0.0\"}";
    char dg[SP_DIGEST_LEN + 1];
    size_t k = 0, cl = 0, ml = 0;
    char *cfg = malloc(200 + n * 80), *man = malloc(400 + n * 160), *idx = malloc(400);
    bufs[0] = cfg;
    bufs[1] = man;
    bufs[2] = idx;
    bufs[3] = NULL;
    if (cfg == NULL || man == NULL || idx == NULL)
        return 0;
    cl = (size_t)sprintf(cfg, "{\"architecture\":\"amd64\",\"os\":\"linux\",\"rootfs\":"
                         "{\"type\":\"layers\",\"diff_ids\":[");
    ml = (size_t)sprintf(man, "{\"schemaVersion\":2,\"mediaType\":"
                         "\"application/vnd.oci.image.manifest.v1+json\",\"layers\":[");
    for (size_t i = 0; i < n; i++) {
        image_sha256_digest(layers[i], lens[i], dg);
        cl += (size_t)sprintf(cfg + cl, "%s\"%s\"", i ? "," : "", dg);
        ml += (size_t)sprintf(man + ml, "%s{\"mediaType\":\"application/vnd.oci.image.layer.v1.tar\","
                              "\"digest\":\"%s\",\"size\":%zu}", i ? "," : "", dg, lens[i]);
        snprintf(names[k], sizeof names[k], "blobs/sha256/%s", dg + 7);
        m[k] = (struct fz_member){ names[k], layers[i], lens[i] };
        k++;
    }
    cl += (size_t)sprintf(cfg + cl, "]}}");
    image_sha256_digest(cfg, cl, dg);
    ml += (size_t)sprintf(man + ml, "],\"config\":{\"mediaType\":"
                          "\"application/vnd.oci.image.config.v1+json\",\"digest\":\"%s\","
                          "\"size\":%zu}}", dg, cl);
    snprintf(names[k], sizeof names[k], "blobs/sha256/%s", dg + 7);
    m[k] = (struct fz_member){ names[k], cfg, cl };
    k++;
    image_sha256_digest(man, ml, dg);
    size_t il = (size_t)sprintf(idx, "{\"schemaVersion\":2,\"manifests\":[{\"mediaType\":"
                                "\"application/vnd.oci.image.manifest.v1+json\",\"digest\":"
                                "\"%s\",\"size\":%zu}]}", dg, ml);
    snprintf(names[k], sizeof names[k], "blobs/sha256/%s", dg + 7);
    m[k] = (struct fz_member){ names[k], man, ml };
    k++;
    m[k++] = (struct fz_member){ "index.json", idx, il };
    m[k++] = (struct fz_member){ "oci-layout", layout, sizeof layout - 1 };
    return k;
}

/* root_open_image() on PATH with limits L and PLATFORM, one layer at a
 * time.  An error must carry an exit status and a message (else abort).
 * With FUZZ_VERBOSE in the environment, says what each input gives (for
 * the upkeep of the seed corpora). */
static struct root *fz_open(const char *path, const struct image_limits *l, const char *platform)
{
    struct image_open_opts o = { .spec = path, .platform = platform, .limits = l, .threads = 1,
                                 .keep = probe_read_patterns() };
    struct sp_error e = { 0 };
    struct root *r = root_open_image(&o, &e);
    if (getenv("FUZZ_VERBOSE"))
        fprintf(stderr, "%s\n", r ? "opened" : e.msg);
    if (r == NULL && (e.exit_code == 0 || e.msg[0] == '\0'))
        abort();
    return r;
}

static void fz_free_texts(char **bufs)
{
    for (int i = 0; i < 4; i++)
        free(bufs[i]);
}

#endif
