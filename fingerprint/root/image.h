/* fingerprint/root/image.h: the container image root (`stackprint probe --image`).
 *
 * root_open_image() reads an OCI image layout directory, an OCI archive
 * (the same layout as a tar) or a `docker save` tarball (the classic
 * manifest.json form, or the newer form that also carries an OCI layout),
 * selects one image by tag and platform, verifies every digest in one
 * streaming pass, and returns a struct root (kind ROOT_IMAGE, live 0,
 * host_path NULL) over the merged layers.  Nothing is extracted to disk and
 * no external program runs.  Specs followed: OCI image-spec v1.1
 * (image-layout.md, image-index.md, manifest.md, config.md, layer.md for
 * whiteouts and changesets), Docker's image save format (manifest.json),
 * POSIX pax / ustar / GNU tar as libarchive reads them.
 *
 * Only the paths the probes read keep their content (image_keep() below,
 * over the patterns the caller passes: the probe table's declarations);
 * every other entry keeps its name, type, mode and size only, so memory does
 * not grow with the size of the image's files.
 *
 * Errors (struct sp_error, one line "<file>: <what>"):
 *   SP_EXIT_VERIFY (3): a blob whose sha256 or size differs from its
 *       descriptor, a layer whose uncompressed sha256 differs from the
 *       config's diff_id, a docker-archive config whose sha256 differs from
 *       its file name;
 *   SP_EXIT_USAGE (2): a malformed --platform;
 *   SP_EXIT_INPUT (4): everything else (unreadable or missing files,
 *       malformed JSON or tar, no matching image, a bound crossed, an entry
 *       named with ".." or an absolute name, a hard link to a missing target,
 *       an ambiguous manifest or index, an entry beneath a symlink that
 *       runtimes would not apply alike: see itree_merge()).
 */
#ifndef SP_IMAGE_H
#define SP_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "manifest/facts.h"
#include "fingerprint/root/root.h"

/* Bounds (stackprint-probe(1), "IMAGE BOUNDS").  Defaults; a caller (a
 * test) may lower them through struct image_limits. */
#define SP_IMAGE_JSON_MAX (4u << 20)                  /* index, manifest, config bytes */
#define SP_IMAGE_LAYERS_MAX 1000                      /* layers in one image */
#define SP_IMAGE_ENTRIES_MAX 4000000                  /* tar entries in one image */
#define SP_IMAGE_NAME_MAX 4096                        /* bytes in one entry name or link target */
#define SP_IMAGE_KEEP_FILE_MAX (64ull << 20)          /* content kept of one kept file */
#define SP_IMAGE_KEEP_TOTAL_MAX (512ull << 20)        /* content kept in all */
#define SP_IMAGE_INFLATED_MAX (256ull << 30)          /* uncompressed bytes of one layer */
#define SP_IMAGE_RATIO_MAX 200                        /* uncompressed / compressed ... */
#define SP_IMAGE_RATIO_AFTER (256ull << 20)           /* ... checked past this many bytes */
#define SP_IMAGE_ARCHIVE_MEMBERS_MAX 200000           /* members of an archive (outer tar) */
#define SP_IMAGE_INDEX_DEPTH_MAX 4                    /* nested image indexes */
#define SP_IMAGE_DESCRIPTORS_MAX 10000                /* descriptors in all indexes, and
                                                       * entries of manifest.json */
#define SP_IMAGE_JSON_TOTAL_MAX (64u << 20)           /* JSON bytes read in all to choose */
#define SP_IMAGE_PROGRESS_MIN (256ull << 20)          /* bytes of blobs before progress shows */
#define SP_IMAGE_WORKERS_MAX 8                        /* layers read at once (8 MiB of buffers each) */

struct image_limits {
    uint64_t json_max;
    size_t layers_max;
    uint64_t entries_max;
    size_t name_max;
    uint64_t keep_file_max;
    uint64_t keep_total_max;
    uint64_t inflated_max;
    uint64_t ratio_max;
    uint64_t ratio_after;
    size_t members_max;
    size_t descriptors_max;
    uint64_t json_total_max;
    /* the patterns of the files whose content is kept (image_keep()),
     * NULL-terminated; NULL keeps none.  Not a bound: root_open_image()
     * takes it from struct image_open_opts. */
    const char *const *keep;
};

/* image_limits_default: every bound from the constants above; KEEP NULL. */
void image_limits_default(struct image_limits *l);

struct image_open_opts {
    const char *spec;              /* "PATH" or "PATH:TAG" (see image_parse_spec) */
    const char *platform;          /* "os/arch[/variant]", or NULL: this machine's */
    const struct image_limits *limits;   /* NULL: the defaults (its KEEP is ignored) */
    /* the patterns of the paths the probes read (probe_read_patterns(),
     * fingerprint/probes/probe.h), NULL-terminated: only files they match
     * keep their content.  NULL: none does. */
    const char *const *keep;
    unsigned threads;              /* layers read at once; 0: the online CPUs, at most
                                    * SP_IMAGE_WORKERS_MAX */
    /* Called from the calling thread about four times a second while layers
     * are read, and once more with FINAL 1 when reading ends (also on
     * error): bytes of blobs read so far and in all.  May be NULL. */
    void (*progress)(void *ctx, uint64_t done, uint64_t total, int final);
    void *progress_ctx;
};

/* root_open_image: open, select, verify and merge as described at the top.
 * Returns the root (close with root_close()), or NULL with E set.  Each
 * call starts and joins its own threads; nothing stays running. */
struct root *root_open_image(const struct image_open_opts *o, struct sp_error *e);

/* image_root_facts: record the identity facts of the image R (which must
 * come from root_open_image) into FS: image.ref (when the image has a tag),
 * image.config_digest, image.manifest_digest, image.manifest_digest_source,
 * image.os, image.architecture (and image.variant when given),
 * image.layers, and image.layer.NNN.diff_id for each layer (NNN: 000 is the
 * base layer, three digits); and a warning when the source was read in a
 * second-choice way (a `docker save` archive whose OCI index is malformed,
 * read through manifest.json).  Returns 0, or -1 on ENOMEM. */
int image_root_facts(struct root *r, struct factset *fs);

/* image_root_choice: a one-line note of which image was chosen when the
 * source held several ("1 of 3: linux/arm64, tag latest"), or NULL when
 * there was no choice to make.  Owned by R. */
const char *image_root_choice(struct root *r);

/* image_root_total: bytes of blobs the image's layers span. */
uint64_t image_root_total(struct root *r);

/* image_parse_spec: split SPEC into PATH and TAG: SPEC itself when it names
 * an existing file or directory; else, when the text after the last ':'
 * holds no '/', the part before it is PATH and the rest TAG.  *PATH and
 * *TAG are malloc'd (TAG NULL when none).  Returns 0 or -1 (ENOMEM). */
int image_parse_spec(const char *spec, char **path, char **tag);

/* image_keep: the number of bytes of content to keep for the image file
 * at PATH (relative to the image root, no leading slash): L->keep_file_max
 * when a pattern of L->keep matches it (the syntax of struct probe's READS,
 * fingerprint/probes/probe.h: "/etc/x*" over the whole path, "x.txt" over its
 * last components), else 0.  Suffix patterns of more than
 * SP_IMAGE_KEEP_TAIL_MAX components never match, and files below a symlink
 * are found only for whole-path patterns of at most
 * SP_IMAGE_KEEP_PATTERN_MAX bytes (tests/unit/test_probes.c holds the
 * probe table to both).  Reads nothing: a pure function of its arguments
 * (stackprint-probe(1), "IMAGE"). */
#define SP_IMAGE_KEEP_TAIL_MAX 4
#define SP_IMAGE_KEEP_PATTERN_MAX 127
uint64_t image_keep(const char *path, const struct image_limits *l);

#endif
