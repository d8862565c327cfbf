/* fingerprint/root/image_impl.h: internals shared by the image root's files
 * (image_source.c: where blobs are and which image; image_blob.c: reading
 * one layer; image_tree.c: the kept tree and the merge; image_root.c: the
 * root backend).  Not for probes: they see only struct root.
 *
 * Calls go one way, with no cycle: image_root.c uses every other file;
 * image_source.c and image_blob.c use image_tree.c (image_blob.c also
 * image_keep.c); image_keep.c uses image_tree.c; image_tree.c only root.c.
 *
 * Memory rule for the whole image code: every struct here owns what its
 * pointers point to, and is released by its own *_free function.
 */
#ifndef SP_IMAGE_IMPL_H
#define SP_IMAGE_IMPL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "fingerprint/root/image.h"

#include "common/digest.h"       /* SP_DIGEST_LEN */

/* ---- where blobs are (image_source.c) ---- */

/* A region of an open file holding one blob. */
struct blob_ref {
    int fd;                       /* owned: closed by image_plan_free() */
    uint64_t offset, size;
};

struct archive_member;

struct image_store {
    int is_tar;                   /* 0: a directory; 1: a tar archive */
    int fd;                       /* the directory (O_PATH) or the tar file */
    const char *path;             /* as given, for messages (borrowed) */
    struct archive_member *members;   /* tar only, sorted by name */
    size_t nmembers;
    uint64_t json_read, json_total_max;   /* bytes image_store_read gave, and its bound */
};

/* image_store_open: open PATH as a directory or an uncompressed tar (indexed once
 * with libarchive: member name, offset of its data, size).  E set on error. */
int image_store_open(const char *path, const struct image_limits *l,
               struct image_store *s, struct sp_error *e);
void image_store_close(struct image_store *s);
/* image_store_find: the blob at NAME ("index.json", "blobs/sha256/<hex>",
 * "<id>/layer.tar"); symlinks and hard links between members are followed
 * inside the store.  OUT->fd is a new descriptor the caller closes.  -1
 * with errno ENOENT, ELOOP, EINVAL (not a regular file), ENAMETOOLONG. */
int image_store_find(struct image_store *s, const char *name, struct blob_ref *out);
/* image_store_read: the whole blob NAME, at most MAX bytes, NUL-terminated,
 * malloc'd; -1 with E set (past MAX, or past the store's total of JSON
 * read, json_total_max, is SP_EXIT_INPUT). */
int image_store_read(struct image_store *s, const char *name, uint64_t max,
                     char **buf, size_t *len, struct sp_error *e);

/* image_sha256_digest: "sha256:<hex>" of LEN bytes at BUF into OUT. */
void image_sha256_digest(const void *buf, size_t len, char out[SP_DIGEST_LEN + 1]);

enum layer_compression { COMP_SNIFF, COMP_NONE, COMP_GZIP, COMP_ZSTD };

struct image_layer {
    size_t index;
    char *name;                   /* the blob's whole member name (malloc'd), never cut */
    struct blob_ref blob;
    char want_digest[SP_DIGEST_LEN + 1];   /* descriptor digest, "" when none */
    int64_t want_size;            /* descriptor size, -1 when none */
    char want_diff_id[SP_DIGEST_LEN + 1];  /* from the config */
    enum layer_compression comp;
    /* results */
    char digest[SP_DIGEST_LEN + 1];
    char diff_id[SP_DIGEST_LEN + 1];
    uint64_t inflated;
    struct itree *delta;
    int failed;                   /* 1: ERR holds why */
    struct sp_error err;
};

/* The image chosen and everything needed to read it. */
struct image_plan {
    char *ref;                    /* tag or ref name, or NULL */
    char *choice;                 /* note of the choice made, or NULL */
    char config_digest[SP_DIGEST_LEN + 1];
    char manifest_digest[SP_DIGEST_LEN + 1];
    const char *manifest_source;  /* "oci-index" or "docker-archive" */
    char *evidence;               /* the file the manifest came from */
    char *warning;                /* a note for the manifest's warnings, or NULL */
    char *os, *architecture, *variant;
    struct image_layer *layers;
    size_t nlayers;
};

/* image_plan_open: parse the source in STORE, select by TAG and PLATFORM
 * ("os/arch[/variant]", NULL for this machine's, EXPLICIT 1 when the user
 * gave it), verify manifest and config digests, and fill PLAN.  E set on
 * error. */
int image_plan_open(struct image_store *s, const char *tag, const char *platform,
               int explicit_platform, const struct image_limits *l,
               struct image_plan *plan, struct sp_error *e);
void image_plan_free(struct image_plan *plan);
/* image_check_platform: 0 when PLATFORM is NULL or "os/arch[/variant]";
 * else -1 with E set (SP_EXIT_USAGE). */
int image_check_platform(const char *platform, struct sp_error *e);

/* ---- the tree of kept entries (image_tree.c) ---- */

enum inode_type { IN_GONE = 0, IN_FILE, IN_DIR, IN_LINK, IN_OTHER, IN_HARDLINK };

struct inode {
    char *name;
    uint8_t type;                 /* enum inode_type */
    uint8_t opaque;               /* delta dirs: .wh..wh..opq seen */
    uint8_t explicit_dir;         /* delta dirs: the layer has an entry for it */
    uint8_t beneath;              /* delta dirs: an entry was put beneath it before
                                   * the layer declared it (a runtime would resolve
                                   * it as a parent, following a lower symlink) */
    uint32_t mode;
    uint64_t size;
    char *data;                   /* FILE: kept content (image_content_alloc), shared by hard links */
    uint64_t kept;                /* bytes at DATA */
    uint32_t layer;               /* FILE: 1 + index of the layer whose tar entry
                                   * holds the content; 0: unknown (hard links) */
    uint32_t gen;                 /* merged: 1 + index of the layer that made or
                                   * replaced it (0: none yet) */
    uint8_t via;                  /* merged FILE: written through a lower symlink, so
                                   * its tar path is in itree.via, not its own */
    char *link;                   /* LINK: target as written; HARDLINK: target path */
    struct inode **kids;          /* DIR: open-addressing table, CAP slots */
    uint32_t nkids, cap;
    char **wh;                    /* delta DIR: names whited out below it */
    uint32_t nwh, capwh;
};

struct itree {
    struct inode root;
    uint64_t entries;
    uint64_t kept_bytes;
    const struct image_limits *limits;
    char **pending;               /* paths of HARDLINK nodes to resolve against lower layers */
    size_t npending, cappending;
    struct itree_via *via;        /* merged: files written through a symlink, in order */
    size_t nvia, capvia;
};

struct itree_via {
    char *canon;                  /* where the file is in the merged tree */
    char *tar;                    /* the name of its entry in its layer's tar */
};

/* Kept content: a reference-counted buffer of LEN bytes plus a NUL, so that
 * hard links share one copy.  Used by one thread at a time (a layer's
 * consumer, then the merge). */
char *image_content_alloc(uint64_t len);
char *image_content_ref(char *data);
void image_content_unref(char *data);

struct itree *itree_new(const struct image_limits *l);
void itree_free(struct itree *t);
/* itree_normalise: check and normalise a tar entry name into OUT (no
 * leading "./", no "." components, no trailing slash; "" is the root).
 * -1 with a message in WHY for an absolute name, a ".." component, or a
 * name longer than L->name_max (the only field of L it reads). */
int itree_normalise(const char *name, const struct image_limits *l, char *out,
                    size_t outsz, const char **why);
/* itree_add: the node for normalised PATH in a layer delta, created (with
 * implicit parent directories) or reset to TYPE when it exists.  NULL with
 * errno ENOMEM, E2BIG (entry bound) or ENOTDIR (a parent is a symlink,
 * file or other non-directory of this layer: a runtime would write through
 * the link or fail, so the image is refused). */
struct inode *itree_add(struct itree *t, const char *path, enum inode_type type);
/* itree_whiteout: record ".wh.NAME" (or the opaque marker when NAME is
 * NULL) in directory DIRPATH of a delta (created as an implicit parent).
 * -1 with errno as itree_add. */
int itree_whiteout(struct itree *t, const char *dirpath, const char *name);
/* itree_resolve: resolve PATH (absolute or relative to the root) in T as
 * chroot(2) would: ".." stops at the root, an absolute symlink target
 * starts again at the root, every symlink followed but a final one unless
 * FOLLOW (or a trailing slash), at most SP_IMAGE_LINKS_MAX of them.  RS gets
 * the stack of nodes from the root to the result (the canonical path).
 * Returns 0, or -1 with errno ENOENT, ENOTDIR, ELOOP, ENAMETOOLONG. */
#define SP_IMAGE_LINKS_MAX 40
#define SP_IMAGE_RESOLVE_DEPTH_MAX (SP_ROOT_PATH_MAX / 2 + 1)
struct itree_resolved {
    struct inode *stack[SP_IMAGE_RESOLVE_DEPTH_MAX];
    size_t depth;
    uint32_t link_gen;            /* the highest gen of the symlinks followed */
};
int itree_resolve(struct itree *t, const char *path, int follow, struct itree_resolved *rs);
/* itree_lookup: the live node at normalised PATH, no links followed. */
struct inode *itree_lookup(struct itree *t, const char *path);
/* itree_merge: apply DELTA, layer number INDEX, on top of MERGED (OCI
 * layer.md "Applying Changesets"); DELTA is emptied.  Entries and
 * whiteouts beneath a lower layer's symlink land where the link resolves
 * (as umoci and docker apply layers: the parent path is resolved inside
 * the root), recorded in MERGED->via.  -1 with E set, SP_EXIT_INPUT: a
 * missing hard link target, bounds, or an entry beneath a lower file, a
 * dangling or looping symlink, or a symlink whose resolution this layer
 * also changes (the result would depend on the order of the tar). */
int itree_merge(struct itree *merged, struct itree *delta, size_t index,
                const char *layer_name, struct sp_error *e);
/* itree_via_tar: the tar path of the entry written through a symlink that
 * is now at merged path CANON (the latest), or NULL. */
const char *itree_via_tar(const struct itree *t, const char *canon);
/* itree_hardlink: PATH becomes a copy of the file or symlink TARGET (both
 * normalised) of this layer, or, when TARGET is not in this layer, a link
 * resolved against the lower layers by itree_merge().  -1 with errno
 * EINVAL (target is a directory or special file), ENOMEM, E2BIG. */
int itree_hardlink(struct itree *t, const char *path, const char *target);
/* itree_pending: remember PATH, a hard link whose target is not in this
 * layer, to resolve against the lower layers at merge time. */
int itree_pending(struct itree *t, const char *path);
/* itree_set_data: give FILE node N the content DATA (from image_content_alloc,
 * LEN bytes, counted against the kept total; N takes the reference).  -1
 * with errno E2BIG (DATA is then still the caller's). */
int itree_set_data(struct itree *t, struct inode *n, char *data, uint64_t len);
/* itree_kids_sorted: live child names of directory N, sorted bytewise. */
int itree_kids_sorted(const struct inode *n, char ***names, size_t *count);
struct inode *itree_kid(const struct inode *dir, const char *name);

/* ---- kept content reached through symlinks (image_keep.c) ---- */

struct keep_want {
    size_t layer;                 /* index of the layer holding the entry */
    char *path;                   /* the entry's normalised path in its tar (malloc'd) */
    char *canon;                  /* where the file is in the merged tree (malloc'd) */
};

/* image_keep_aliases: the files of merged tree T whose content was not kept
 * but that a probe reaches through a symlinked directory or a symlink under
 * a path image_keep() keeps (`etc -> usr/share/etc` holding os-release),
 * or that a layer wrote through a symlink to such a path,
 * each once, sorted by layer then path, into *OUT (malloc'd, free with
 * image_keep_wants_free).  The walk visits every node once, and below each
 * symlink only what a keep pattern can still match, at most
 * SP_IMAGE_ENTRIES_MAX visits in all; *CUT is set to 1 when that bound
 * stopped it.  Returns 0, or -1 on ENOMEM. */
int image_keep_aliases(struct itree *t, const struct image_limits *l,
                       struct keep_want **out, size_t *n, int *cut);
void image_keep_wants_free(struct keep_want *w, size_t n);

/* ---- one layer (image_blob.c) ---- */

struct layer_run {
    const struct image_limits *limits;
    char *const *extra;           /* sorted normalised paths kept besides image_keep()'s, */
    size_t nextra;                /* for files reached through symlinks (or NULL, 0) */
    atomic_int *cancel;           /* set by anyone to stop every layer */
    atomic_uint_fast64_t *done;   /* blob bytes read, all layers */
};

/* image_layer_read: read L's blob to the end with its sha256, inflate it,
 * take the diff_id of the inflated bytes, and scan the tar into L->delta.
 * Returns 0, or -1 with L->failed and L->err set. */
int image_layer_read(struct image_layer *l, const struct layer_run *run);

#endif
