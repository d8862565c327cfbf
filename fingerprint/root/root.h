/* fingerprint/root/root.h: the read-only file view every probe reads through.
 *
 * A root is a tree of files addressed by absolute paths ("/etc/os-release"),
 * resolved INSIDE the root: ".." never climbs above it and absolute symlink
 * targets are taken relative to it, so a probe cannot read outside DIR for
 * `--root DIR` or outside an image for `--image`.  Backends:
 *   - the live host ("/"): the only root with a live kernel, /proc, uname,
 *     the environment (root->live = 1);
 *   - a directory (`--root DIR`): a copied tree, never live;
 *   - a container image (fingerprint/root/image.h): layers merged, whiteouts applied.
 *
 * Every read is bounded by the caller's MAX; opening never blocks (FIFOs and
 * devices are refused with EINVAL); symlink loops give ELOOP.  Functions
 * return 0, or -1 with errno set (ENOENT, EACCES, ELOOP, EFBIG past MAX,
 * EINVAL for a non-regular file, ENOTDIR, ENOMEM, E2BIG for too many entries;
 * ENOTSUP from an image root for a file whose content it did not keep: it
 * keeps only what the probes read: the paths the rows of the probe table
 * declare, fingerprint/probes/probes.c, matched by fingerprint/root/image_keep.c).
 *
 * Memory: buffers and name lists returned are malloc'd and owned by the
 * caller (free with free() / root_names_free()).
 */
#ifndef SP_ROOT_H
#define SP_ROOT_H

#include <stddef.h>
#include <stdint.h>

#include "common/path.h"           /* sp_path_join */

#define SP_ROOT_DIR_ENTRIES_MAX 100000  /* names one list_dir returns */
#define SP_ROOT_PATH_MAX 4096

enum root_kind { ROOT_HOST, ROOT_DIR, ROOT_IMAGE };

enum root_type { ROOT_T_OTHER, ROOT_T_FILE, ROOT_T_DIR, ROOT_T_LINK };

struct root_stat {
    enum root_type type;     /* of the path itself (links not followed) */
    uint64_t size;           /* bytes, for files */
    unsigned mode;           /* permission bits, 07777 */
};

struct root;

struct root_ops {
    /* Read the whole regular file at PATH (links followed inside the root)
     * into a NUL-terminated buffer of at most MAX bytes. */
    int (*read_file)(struct root *r, const char *path, size_t max,
                     char **buf, size_t *len);
    /* Names in directory PATH (links followed), without "." and "..",
     * sorted bytewise. */
    int (*list_dir)(struct root *r, const char *path, char ***names, size_t *n);
    /* The target of symlink PATH, as written in the link. */
    int (*read_link)(struct root *r, const char *path, char **target);
    /* stat PATH; FOLLOW: follow a final symlink inside the root. */
    int (*stat)(struct root *r, const char *path, int follow, struct root_stat *st);
    /* Resolve PATH inside the root (all links followed) to its canonical
     * absolute path within the root, malloc'd into *OUT. */
    int (*realpath)(struct root *r, const char *path, char **out);
    /* Stream the regular file at PATH through CB in chunks, at most MAX
     * bytes read; CB returns nonzero to stop early (then 0 is returned). */
    int (*scan_file)(struct root *r, const char *path, uint64_t max,
                     int (*cb)(void *ctx, const char *chunk, size_t n), void *ctx);
    void (*close)(struct root *r);
};

struct root {
    const struct root_ops *ops;
    enum root_kind kind;
    int live;                 /* 1 only for the live host */
    char *subject;            /* "host:/", "root:DIR", "image:PATH" */
    char *host_path;          /* on-disk directory for the root, or NULL (images) */
    void *impl;               /* backend state */
};

/* root_open_host: the live machine's "/". NULL with errno on failure. */
struct root *root_open_host(void);
/* root_open_dir: a copied tree at DIR (must be a directory this process can
 * read).  NULL with errno: ENOENT, ENOTDIR, EACCES (DIR cannot be listed),
 * ENOSYS (the kernel has no openat2(2): Linux 5.6 or later is needed). */
struct root *root_open_dir(const char *dir);
void root_close(struct root *r);

/* Convenience wrappers over r->ops. */
int root_read_file(struct root *r, const char *path, size_t max, char **buf, size_t *len);
int root_list_dir(struct root *r, const char *path, char ***names, size_t *n);
int root_read_link(struct root *r, const char *path, char **target);
int root_stat(struct root *r, const char *path, int follow, struct root_stat *st);
int root_realpath(struct root *r, const char *path, char **out);
int root_scan_file(struct root *r, const char *path, uint64_t max,
                   int (*cb)(void *ctx, const char *chunk, size_t n), void *ctx);
void root_names_free(char **names, size_t n);

/* root_exists: 1 if PATH exists (links followed), else 0. */
int root_exists(struct root *r, const char *path);
/* root_is_dir: 1 if PATH is a directory (links followed). */
int root_is_dir(struct root *r, const char *path);

/* root_read_line: the first line of the file at PATH, whitespace-trimmed,
 * into OUT (OUTSZ bytes; longer lines are cut).  At most 64 KiB read.
 * Returns 0, or -1 with errno (ENODATA when the file is empty). */
int root_read_line(struct root *r, const char *path, char *out, size_t outsz);

/* root_host_path: the on-disk path of PATH inside the root, for a library
 * that needs a real path (libpci's sysfs.path), malloc'd; NULL with errno
 * ENOTSUP for roots without one (images). */
char *root_host_path(struct root *r, const char *path);

/* root_check_path: 0 when PATH is a non-empty string shorter than
 * SP_ROOT_PATH_MAX, what every backend resolves; else -1 with errno ENOENT
 * (NULL or empty) or ENAMETOOLONG. */
int root_check_path(const char *path);

#endif
