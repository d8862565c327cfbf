/* common/file.h: bounded reading of a whole file, the one routine every
 * reader of policies, manifests, envelopes, keys, reports and files under a
 * probed root goes through, so that a size bound, EINTR, a file that grows
 * while it is read and a read error are handled the same way everywhere.
 *
 * Buffers: malloc'd, NUL-terminated (one byte past *LEN, not counted), the
 * caller's to free.  A file may hold a secret (a private key): the EXACT
 * mode allocates once, never reallocates, and wipes the buffer
 * (OPENSSL_cleanse) before freeing it on an error, so the caller can wipe
 * the one copy that exists.  Never prints, never exits.
 */
#ifndef SP_FILE_H
#define SP_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/* sp_read_fd: read FD from where it stands to its end into *BUF (*LEN
 * bytes), at most MAX bytes.  SIZE is the size expected (fstat's st_size;
 * 0 when not known, as for a pipe or a file under /proc).  EXACT 0: the
 * buffer starts at SIZE + 1 bytes (at least 4 KiB, at most MAX + 1) and
 * doubles while the file goes on.  EXACT 1: SIZE <= MAX is the file's size,
 * the buffer is allocated once, and a file longer than SIZE is refused.
 * Does not close FD.  Returns 0, or -1 with errno: EFBIG (more than MAX
 * bytes, or with EXACT more than SIZE), ENOMEM, or read(2)'s errno. */
int sp_read_fd(int fd, size_t max, size_t size, int exact, char **buf, size_t *len);

/* sp_pread_full: exactly SIZE bytes of FD from OFFSET into BUF (the
 * caller's, at least SIZE bytes), retrying short reads and EINTR; the file
 * position is not moved.  For a blob at a known place in a file (a member
 * of a tar archive).  0, or -1 with errno: ENODATA (the file ends first),
 * or pread(2)'s errno. */
int sp_pread_full(int fd, void *buf, size_t size, uint64_t offset);

/* sp_read_file: read the file PATH ("-": standard input) into *BUF (*LEN
 * bytes), at most MAX bytes.  Opens without blocking (a FIFO or a device
 * is refused: only regular files and "-" are read) and reads a regular
 * file with sp_read_fd's EXACT mode.  WHAT names the kind of file in the
 * size message.  Returns 0, or -1 with E set to SP_EXIT_INPUT:
 * "PATH: <strerror>", "PATH: not a regular file", "PATH: larger than the
 * WHAT size limit (N bytes)", "PATH: grew while being read" (PATH is
 * "<stdin>" for "-"). */
int sp_read_file(const char *path, size_t max, const char *what, char **buf,
                 size_t *len, struct sp_error *e);

#endif
