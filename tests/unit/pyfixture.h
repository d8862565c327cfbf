/* tests/unit/pyfixture.h: helpers shared by test_python.c and test_torch.c:
 * build small roots under $TMPDIR file by file, run the python and torch
 * probes on a root (optionally posing as the live host with a given
 * environment), and a root wrapper that refuses chosen paths with EACCES
 * (tests run as root, where chmod 000 does not stop a read).  Header-only;
 * every function is static. */
#ifndef SP_PYFIXTURE_H
#define SP_PYFIXTURE_H

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fingerprint/probes/probe.h"
#include "fingerprint/probes/python/python_env.h"
#include "fingerprint/root/root.h"
#include "manifest/facts.h"

/* A fresh folder under $TMPDIR, malloc'd. */
static inline char *fx_tmpdir(const char *tag)
{
    const char *t = getenv("TMPDIR");
    char *p = malloc(4096);
    snprintf(p, 4096, "%s/%s.XXXXXX", t && *t ? t : "/tmp", tag);
    if (mkdtemp(p) == NULL)
        fail_msg("mkdtemp %s: %s", p, strerror(errno));
    return p;
}

static inline void fx_mkdirs(const char *path)
{
    char p[4096];
    snprintf(p, sizeof p, "%s", path);
    for (char *s = p + 1; *s; s++)
        if (*s == '/') {
            *s = '\0';
            mkdir(p, 0755);
            *s = '/';
        }
    mkdir(p, 0755);
}

/* Write LEN bytes of DATA (LEN -1: strlen) to ROOT/PATH, making folders. */
static inline void fx_write(const char *root, const char *path, const char *data, long len)
{
    char p[4096], d[4096];
    if (snprintf(p, sizeof p, "%s/%s", root, path[0] == '/' ? path + 1 : path) >= (int)sizeof p)
        fail_msg("path too long");
    memcpy(d, p, sizeof d);
    *strrchr(d, '/') = '\0';
    fx_mkdirs(d);
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0755);
    if (fd < 0)
        fail_msg("open %s: %s", p, strerror(errno));
    size_t n = len < 0 ? strlen(data) : (size_t)len;
    if (write(fd, data, n) != (ssize_t)n)
        fail_msg("write %s", p);
    close(fd);
}

static inline void fx_link(const char *root, const char *path, const char *target)
{
    char p[4096], d[4096];
    if (snprintf(p, sizeof p, "%s/%s", root, path[0] == '/' ? path + 1 : path) >= (int)sizeof p)
        fail_msg("path too long");
    memcpy(d, p, sizeof d);
    *strrchr(d, '/') = '\0';
    fx_mkdirs(d);
    unlink(p);
    if (symlink(target, p) != 0)
        fail_msg("symlink %s: %s", p, strerror(errno));
}

/* An interpreter at PREFIX/bin/python3.MINOR (+ python3 link) carrying
 * VERSION between NULs, its stdlib landmark, and a site.py (Debian's when
 * DEBIAN). */
static inline void fx_interp(const char *root, const char *prefix, int minor, const char *version,
                      int debian)
{
    char p[512], bin[256];
    snprintf(bin, sizeof bin, "\x7f" "ELF\x02\x01\x01%c%s%c%%.80s", 0, version, 0);
    size_t blen = 8 + strlen(version) + 1 + 5;
    snprintf(p, sizeof p, "%s/bin/python3.%d", prefix, minor);
    fx_write(root, p, bin, (long)blen);
    snprintf(p, sizeof p, "%s/bin/python3", prefix);
    char t[32];
    snprintf(t, sizeof t, "python3.%d", minor);
    fx_link(root, p, t);
    snprintf(p, sizeof p, "%s/lib/python3.%d/os.py", prefix, minor);
    fx_write(root, p, "", 0);
    snprintf(p, sizeof p, "%s/lib/python3.%d/site.py", prefix, minor);
    fx_write(root, p, debian ? "# Debian: dist-packages\n" : "# site-packages\n", -1);
}

/* A dist-info folder ENTRY in DIR with METADATA headers Name/Version. */
static inline void fx_dist(const char *root, const char *dir, const char *entry, const char *name,
                    const char *version)
{
    char p[2048], m[1024];
    if (snprintf(p, sizeof p, "%s/%s/METADATA", dir, entry) >= (int)sizeof p)
        fail_msg("path too long");
    snprintf(m, sizeof m, "Metadata-Version: 2.1\nName: %s\nVersion: %s\nSummary: x\n\nBody\n",
             name, version);
    fx_write(root, p, m, -1);
}

/* Run the python and torch probes on ROOTDIR.  PYTHON: --python or NULL.
 * ENV: NULL for a copied tree; else a NULL-terminated environment and the
 * root poses as the live host. */
static inline void fx_probe(const char *rootdir, const char *python, char *const *env,
                     struct factset *fs)
{
    struct root *r = root_open_dir(rootdir);
    assert_non_null(r);
    if (env)
        r->live = 1;
    struct probe_ctx ctx = { .root = r, .facts = fs, .python = python, .environ = env };
    struct sp_error e = { 0 };
    assert_int_equal(probe_python(&ctx, &e), 0);
    assert_int_equal(probe_torch(&ctx, &e), 0);
    py_workload_release(&ctx);
    root_close(r);
}

/* ---- a root that refuses paths containing fx_deny with EACCES ---- */
static const char *fx_deny;
static const struct root_ops *fx_inner;

static inline int fx_denied(const char *path)
{
    if (fx_deny && strstr(path, fx_deny)) {
        errno = EACCES;
        return 1;
    }
    return 0;
}
static inline int fx_read_file(struct root *r, const char *p, size_t max, char **b, size_t *l)
{
    return fx_denied(p) ? -1 : fx_inner->read_file(r, p, max, b, l);
}
static inline int fx_list_dir(struct root *r, const char *p, char ***names, size_t *n)
{
    return fx_denied(p) ? -1 : fx_inner->list_dir(r, p, names, n);
}
static inline int fx_scan_file(struct root *r, const char *p, uint64_t max,
                        int (*cb)(void *, const char *, size_t), void *c)
{
    return fx_denied(p) ? -1 : fx_inner->scan_file(r, p, max, cb, c);
}

/* fx_probe through the refusing wrapper. */
static inline void fx_probe_denied(const char *rootdir, const char *python, const char *deny,
                            struct factset *fs)
{
    static struct root_ops ops;
    struct root *r = root_open_dir(rootdir);
    assert_non_null(r);
    fx_inner = r->ops;
    ops = *r->ops;
    ops.read_file = fx_read_file;
    ops.list_dir = fx_list_dir;
    ops.scan_file = fx_scan_file;
    r->ops = &ops;
    fx_deny = deny;
    struct probe_ctx ctx = { .root = r, .facts = fs, .python = python };
    struct sp_error e = { 0 };
    assert_int_equal(probe_python(&ctx, &e), 0);
    assert_int_equal(probe_torch(&ctx, &e), 0);
    py_workload_release(&ctx);
    fx_deny = NULL;
    r->ops = fx_inner;
    root_close(r);
}

static inline void fx_rmrf(const char *dir)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fail_msg("rm -rf %s", dir);
}

/* Probe the committed fixture root NAME (tests/fixtures/roots/NAME) into a
 * fresh FS, with --python PYTHON (NULL for the default choice). */
static inline void fx_fixture(const char *name, const char *python, struct factset *fs)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/%s", FIXTURE_ROOTS, name);
    factset_init(fs);
    fx_probe(dir, python, NULL, fs);
}

/* The evidence of KEY in FS; fails the test when there is none. */
static inline const char *fx_evidence(struct factset *fs, const char *key)
{
    const struct fact *f = factset_find(fs, key);
    if (f == NULL || f->evidence == NULL)
        fail_msg("no evidence for %s", key);
    return f->evidence;
}

#endif
