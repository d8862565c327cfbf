/* fuzz/fuzz_root.h: for targets whose parser reads a file inside a probed
 * root (dpkg status, METADATA, os-release, pyvenv.cfg): one temporary root
 * per process, made at the first input and reused; each input is written
 * to the file the parser reads, then the probe runs on the root. */
#ifndef SP_FUZZ_ROOT_H
#define SP_FUZZ_ROOT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fingerprint/probes/probe.h"
#include "fingerprint/probes/python/python_env.h"
#include "fingerprint/root/root.h"

static char fuzz_dir[64];

static int fuzz_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st; (void)flag; (void)ftw;
    return remove(path);
}

/* At exit: the root goes with the process. */
static void fuzz_root_remove(void)
{
    nftw(fuzz_dir, fuzz_rm, 16, FTW_DEPTH | FTW_PHYS);
}

/* The root folder (made once, "/tmp/sp-fuzz-<pid>", removed at exit);
 * aborts if it cannot be made. */
static const char *fuzz_root_dir(void)
{
    if (fuzz_dir[0] == '\0') {
        snprintf(fuzz_dir, sizeof fuzz_dir, "/tmp/sp-fuzz-%ld", (long)getpid());
        if (mkdir(fuzz_dir, 0700) != 0)
            abort();
        atexit(fuzz_root_remove);
    }
    return fuzz_dir;
}

/* Make the folders of REL (a path inside the root) and write LEN bytes at
 * DATA to it; MODE for the file.  Aborts on failure (never the target's). */
static void fuzz_root_write(const char *rel, const void *data, size_t len, mode_t mode)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", fuzz_root_dir(), rel);
    for (char *p = path + strlen(fuzz_root_dir()) + 1; (p = strchr(p, '/')) != NULL; p++) {
        *p = '\0';
        mkdir(path, 0755);
        *p = '/';
    }
    FILE *f = fopen(path, "wb");
    if (f == NULL || (len && fwrite(data, 1, len, f) != len) || fclose(f) != 0)
        abort();
    chmod(path, mode);
}

/* Write the input to REL inside the root, then run PROBE on the root with
 * a fresh fact set (PYTHON: the --python path, or NULL). */
static void fuzz_probe_file(const char *rel, const uint8_t *data, size_t size,
                            int (*probe)(struct probe_ctx *, struct sp_error *),
                            const char *python)
{
    fuzz_root_write(rel, data, size, 0644);
    struct root *root = root_open_dir(fuzz_root_dir());
    if (root == NULL)
        abort();
    struct factset fs;
    struct sp_error e = { 0 };
    factset_init(&fs);
    struct probe_ctx ctx = { .root = root, .facts = &fs, .python = python };
    probe(&ctx, &e);
    py_workload_release(&ctx);   /* what the python probe leaves for later probes */
    factset_free(&fs);
    root_close(root);
}

#endif
