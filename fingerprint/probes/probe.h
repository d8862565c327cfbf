/* fingerprint/probes/probe.h: the probe interface and the probe table.
 *
 * A probe reads one kind of evidence from a root and records facts,
 * evidence and warnings in a fact set.  A probe never prints, never exits,
 * never reads a path except through its root, and never reads the process
 * environment, uname or the network except where the context allows it
 * (ctx->root->live for the environment and the kernel; ctx->imds for the
 * instance metadata service).  Probes run in table order; a later probe may
 * read facts set by an earlier one (each row names the probes it reads).
 * A probe returns 0, or -1 only for a fatal error (out of memory) with E
 * set; anything it merely cannot read is a warning.
 */
#ifndef SP_PROBE_H
#define SP_PROBE_H

#include <stdarg.h>

#include "common/error.h"
#include "manifest/facts.h"
#include "fingerprint/root/root.h"

#define SP_PROBE_FILE_MAX (1u << 20)   /* default bound on one small file read */

/* What the context's NULLs and zeros stand for (stackprint-probe(1)). */
#define SP_IMDS_ENDPOINT_DEFAULT "169.254.169.254:80"  /* EC2's link-local IMDS */
#define SP_IMDS_TIMEOUT_MS_DEFAULT 1000                /* per IMDS request */
#define SP_DEEP_TIMEOUT_S_DEFAULT 30                   /* --deep's run, in seconds */

struct probe_ctx {
    struct root *root;
    struct factset *facts;
    const char *python;          /* --python PATH (inside the root), or NULL */
    const char *image_digest;    /* --image-digest, or NULL */
    char *const *environ;        /* the environment (live host only), or NULL */
    int imds;                    /* --imds given */
    const char *imds_endpoint;   /* "host:port" for IMDS; NULL for the default */
    int imds_timeout_ms;         /* per request; 0 for the default */
    int deep;                    /* --deep: run the workload interpreter once */
    int deep_timeout_ms;         /* --deep-timeout, in ms; 0 for the default */
    const char *cache_dir;       /* --cache DIR (inside the root), or NULL */
    const char *const *neff;     /* --neff FILE... (inside the root) */
    size_t nneff;
    const char *artifacts;       /* --artifacts DIR (inside the root), or NULL */
    struct py_interp *python_env; /* the workload's Python, set by the python probe
                                   * (python/python_env.h), or NULL */
};

struct probe {
    const char *name;            /* "os-release", "pci", ... */
    int (*run)(struct probe_ctx *ctx, struct sp_error *e);
    /* the probes whose facts this one reads, which must run before it;
     * NULL-terminated, or NULL for none.  "*" alone: every other probe
     * (the row must then be the last). */
    const char *const *after;
    /* the paths this probe reads in a root, as patterns; NULL-terminated,
     * or NULL for none.  "/etc/x*": the whole path; "x.txt": the path's last
     * components, anywhere in the tree; '*' matches any run of bytes but
     * '/'.  An image root keeps the content of the files the union of these
     * matches (probe_read_patterns()), and only of those. */
    const char *const *reads;
};

/* The probe table, in run order, terminated by a row whose name is NULL. */
extern const struct probe sp_probes[];

/* Bound on the patterns of probe_read_patterns() (their union, duplicates
 * counted once). */
#define SP_PROBE_READS_MAX 256

/* probe_read_patterns: the union of the READS patterns of every row of
 * sp_probes[], each once, in table order, NULL-terminated; what an image
 * root is opened with (struct image_open_opts.keep).  Static storage, built
 * on the first call (thread-safe); never fails.  Patterns past
 * SP_PROBE_READS_MAX are left out (tests/unit/test_probes.c checks that
 * the table stays below it). */
const char *const *probe_read_patterns(void);

/* probe_run_all: run every probe of the table on CTX, then release what the
 * probes shared (ctx->python_env).  Returns 0, or -1 with E set when a
 * probe fails fatally. */
int probe_run_all(struct probe_ctx *ctx, struct sp_error *e);

/* probe_getenv: NAME's value in ctx->environ, or NULL (always NULL when the
 * root is not live). */
const char *probe_getenv(const struct probe_ctx *ctx, const char *name);

/* probe_warn_errno: the standard warning for a file that could not be read:
 * "<what>: <path>: <strerror(err)>", with "permission denied" and friends in
 * lowercase as stackprint-manifest(5) shows. */
void probe_warn_errno(struct probe_ctx *ctx, const char *what, const char *path, int err);

/* probe_set: factset_set that turns a refused value (too long, empty, a key
 * outside the fact-key alphabet) into a warning naming KEY and EVIDENCE.
 * Bounds (facts.h): a new bulk key (deb.*, rpm.*, python.env.*) once the set
 * holds SP_FACTS_BULK_MAX facts, and any new key at SP_FACTS_MAX - 1, is not
 * recorded; it is counted in the fact SP_FACTS_DROPPED_KEY (a warning for
 * the first ones).  Returns -1 only on ENOMEM. */
int probe_set(struct probe_ctx *ctx, const char *key, const char *value,
              const char *evidence);

/* probe_dropped: count N facts not recorded at a bound (KEY names them,
 * BOUND the bound, for the warning) in the fact SP_FACTS_DROPPED_KEY, which
 * makes `check` refuse to decide on absent facts.  Warns for the first ones
 * and then once per thousand.  Returns -1 only on ENOMEM. */
int probe_dropped(struct probe_ctx *ctx, const char *key, size_t bound,
                  unsigned long long n);

/* Each probe's entry point, one per file under fingerprint/probes/. */
#define SP_PROBE_DECL(fn) int fn(struct probe_ctx *ctx, struct sp_error *e)
SP_PROBE_DECL(probe_os_release);
SP_PROBE_DECL(probe_uname);
SP_PROBE_DECL(probe_hostname);
SP_PROBE_DECL(probe_dmi);
SP_PROBE_DECL(probe_pci);
SP_PROBE_DECL(probe_neuron_driver);
SP_PROBE_DECL(probe_neuron_lib);
SP_PROBE_DECL(probe_dpkg);
SP_PROBE_DECL(probe_rpm);
SP_PROBE_DECL(probe_python);
SP_PROBE_DECL(probe_torch);
SP_PROBE_DECL(probe_efa);
SP_PROBE_DECL(probe_gpu);
SP_PROBE_DECL(probe_container);
SP_PROBE_DECL(probe_env);
SP_PROBE_DECL(probe_imds);
SP_PROBE_DECL(probe_runtime);
SP_PROBE_DECL(probe_compile_cache);
SP_PROBE_DECL(probe_neff);
SP_PROBE_DECL(probe_image);

#endif
