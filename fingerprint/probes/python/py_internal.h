/* fingerprint/probes/python/py_internal.h: what the files of
 * fingerprint/probes/python/ share among themselves, not part of the
 * interface (python_env.h is).  The mechanisms each file follows:
 *   py_getpath.c    the interpreter and its stdlib landmark (CPython's
 *                   Modules/getpath.py; pyvenv.cfg as PEP 405 says)
 *   py_site.c       sys.path (Lib/site.py, .pth files; the sys.path docs)
 *   py_workload.c   which interpreter the workload runs (--python,
 *                   $VIRTUAL_ENV, $PATH with pyenv shims)
 *   py_version.c    the interpreter's full version, without running it
 *   py_metadata.c   the headers of one METADATA (core metadata spec)
 *   py_dists.c      the distributions of sys.path (importlib.metadata)
 *   py_util.c       the helpers below
 * Every path is absolute and inside the root; nothing here prints or exits.
 */
#ifndef SP_PY_INTERNAL_H
#define SP_PY_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "fingerprint/probes/python/python_env.h"

/* py_warn: a warning (factset_warn) unless FLAGS has PY_QUIET; a text equal
 * to one of the latest PY_WARN_DEDUP_WINDOW warnings is not repeated (the
 * same interpreter is opened as the workload and as an environment). */
#define PY_WARN_DEDUP_WINDOW 256
void py_warn(struct probe_ctx *ctx, int flags, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* py_warn_errno: probe_warn_errno unless FLAGS has PY_QUIET. */
void py_warn_errno(struct probe_ctx *ctx, int flags, const char *what,
                   const char *path, int err);

/* py_copy: S into OUT (OUTSZ bytes); 0, or -1 (ENAMETOOLONG) leaving OUT
 * unchanged. */
int py_copy(char *out, size_t outsz, const char *s);

/* py_normpath: lexical normalisation of the absolute path P in place, as
 * os.path.normpath: no "//", no ".", ".." removes the previous component
 * (never above "/"). */
void py_normpath(char *p);

/* py_dirname: the folder of the absolute path P into OUT ("/" for "/x" and
 * "/"); py_basename: the part after the last '/' (a pointer into P). */
void py_dirname(const char *p, char *out, size_t outsz);
const char *py_basename(const char *p);

/* py_is_file: 1 when PATH (links followed) is a regular file in R. */
int py_is_file(struct root *r, const char *path);

/* py_ends_with_ci: 1 when S ends with SUFFIX, ASCII case ignored. */
int py_ends_with_ci(const char *s, const char *suffix);

/* py_read_small: the whole file at PATH (at most MAX bytes, root_read_file),
 * NUL-terminated, malloc'd for the caller to free; NULL with errno. */
char *py_read_small(struct root *r, const char *path, size_t max);

/* py_read_text: py_read_small of PATH into *BUF (the caller frees), with
 * the standard warning "python: PATH: <why>" (py_warn_errno) when it cannot
 * be read.  1 read, 0 not (warned), -1 on ENOMEM. */
int py_read_text(struct probe_ctx *ctx, int flags, const char *path, size_t max, char **buf);

/* py_site_addsitedir (py_site.c): site.addsitedir(PATH): the folder, if it
 * exists, then the folders its .pth files name.  1 when added, 0 when not,
 * -1 on ENOMEM. */
int py_site_addsitedir(struct probe_ctx *ctx, int flags, struct py_interp *pi,
                       const char *path);

/* py_sys_path_build (py_site.c): sys.path of the opened PI (stdlib found,
 * pi->prefix and pi->base set): $PYTHONPATH (the live workload only), the
 * stdlib and lib-dynload, then what site.py adds (venv, user site, site
 * packages; Debian's dist-packages when the stdlib's site.py names them).
 * Sets pi->debian.  0, or -1 on ENOMEM. */
int py_sys_path_build(struct probe_ctx *ctx, int flags, struct py_interp *pi);

/* py_scan_file_version (py_version.c): the PY_VERSION rule
 * (py_version_scan_buffer) on the file at PATH, at most PY_VERSION_SCAN_MAX
 * bytes.  1 found (OUT, and EVIDENCE "PATH: version string at byte N"), 0
 * not found, -1 unreadable (errno). */
int py_scan_file_version(struct probe_ctx *ctx, const char *path, int minor,
                         char *out, size_t outsz, char *evidence, size_t evsz);

#endif
