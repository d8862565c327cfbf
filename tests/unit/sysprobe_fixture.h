/* tests/unit/sysprobe_fixture.h: helpers for the host probe unit tests:
 * run one probe on a fixture root or on a tree built in $TMPDIR. */
#ifndef SP_SYSPROBE_FIXTURE_H
#define SP_SYSPROBE_FIXTURE_H

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fingerprint/probes/probe.h"
#include "tests/unit/testlib.h"

struct pt {
    struct root *root;
    struct factset fs;
    struct probe_ctx ctx;
    char dir[512];                 /* a temporary tree, or "" */
};

/* pt_open: a probe context on DIR (a path on disk). */
static inline void pt_open(struct pt *t, const char *dir)
{
    t->root = root_open_dir(dir);
    if (t->root == NULL)
        fail_msg("cannot open root %s: %s", dir, strerror(errno));
    factset_init(&t->fs);
    memset(&t->ctx, 0, sizeof t->ctx);
    t->ctx.root = t->root;
    t->ctx.facts = &t->fs;
    t->ctx.imds_timeout_ms = 1000;
}

/* pt_fixture: a probe context on tests/fixtures/roots/NAME. */
static inline void pt_fixture(struct pt *t, const char *name)
{
    char p[512];
    snprintf(p, sizeof p, FIXTURE_ROOTS "/%s", name);
    t->dir[0] = '\0';
    pt_open(t, p);
}

/* pt_tmp: a fresh empty tree in $TMPDIR, optionally a copy of fixture FROM. */
static inline void pt_tmp(struct pt *t, const char *from)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(t->dir, sizeof t->dir, "%s/ptXXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (mkdtemp(t->dir) == NULL)
        fail_msg("mkdtemp: %s", strerror(errno));
    if (from) {
        char cmd[1200];
        snprintf(cmd, sizeof cmd, "cp -a '" FIXTURE_ROOTS "/%s/.' '%s/'", from, t->dir);
        assert_int_equal(system(cmd), 0);
    }
    pt_open(t, t->dir);
}

static inline void pt_close(struct pt *t)
{
    factset_free(&t->fs);
    root_close(t->root);
    if (t->dir[0]) {
        char cmd[600];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", t->dir);
        assert_int_equal(system(cmd), 0);
    }
}

/* pt_put: write LEN bytes (or strlen when LEN is -1) to REL in the tree,
 * creating folders. */
static inline void pt_putn(struct pt *t, const char *rel, const char *data, long len)
{
    char p[1024], cmd[1200];
    snprintf(p, sizeof p, "%s/%s", t->dir, rel);
    char *slash = strrchr(p, '/');
    *slash = '\0';
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", p);
    assert_int_equal(system(cmd), 0);
    *slash = '/';
    unlink(p);
    FILE *f = fopen(p, "w");
    if (f == NULL)
        fail_msg("cannot write %s: %s", p, strerror(errno));
    fwrite(data, 1, len < 0 ? strlen(data) : (size_t)len, f);
    fclose(f);
}
#define pt_put(t, rel, data) pt_putn((t), (rel), (data), -1)

/* pt_sh: run a shell command with $D set to the tree. */
static inline void pt_sh(struct pt *t, const char *cmd)
{
    char full[2048];
    snprintf(full, sizeof full, "D='%s'; %s", t->dir, cmd);
    if (system(full) != 0)
        fail_msg("command failed: %s", cmd);
}

/* pt_run: run probe FN; it must not fail fatally. */
#define pt_run(t, fn) do {                                                \
        struct sp_error e_ = { 0 };                                       \
        if (fn(&(t)->ctx, &e_) != 0)                                      \
            fail_msg(#fn " failed: %s", e_.msg);                         \
    } while (0)

/* pt_no_warning: no warning of T contains NEEDLE. */
#define pt_no_warning(t, needle) do {                                     \
        for (size_t i_ = 0; i_ < (t)->fs.nwarnings; i_++)                 \
            if (strstr((t)->fs.warnings[i_], (needle)))                   \
                fail_msg("unexpected warning: %s", (t)->fs.warnings[i_]); \
    } while (0)

#endif
