/* fingerprint/probes/python/python_env.h: one Python interpreter and its environment, read
 * from a root without running anything (the root may hold binaries for
 * another machine).  Used by probe_python.c (pip.*, python.*), which
 * chooses the workload's interpreter once and shares it through the probe
 * context with probe_torch.c (torch.*) and probe_runtime.c (runtime.*).
 *
 * What it mirrors, and where from:
 *   - the interpreter: `--python`, $VIRTUAL_ENV, $PATH with pyenv shims,
 *     else the standard bin folders (stackprint-probe(1) "PYTHON";
 *     py_workload.c);
 *   - sys.prefix and the stdlib: CPython's Modules/getpath.py (pyvenv.cfg
 *     next to the unresolved executable or one level up; the stdlib landmark
 *     lib/python3.X/os.py in the folder of the resolved executable or the
 *     one above it, or in pyvenv.cfg's `home` or the one above it, never
 *     higher: a stdlib further up belongs to another interpreter;
 *     py_getpath.c);
 *   - sys.path: Lib/site.py (venv(), addusersitepackages(),
 *     addsitepackages(), addsitedir() with .pth files), with Debian's
 *     patched getsitepackages() (dist-packages) when the stdlib's site.py
 *     names dist-packages (py_site.c);
 *   - distributions: importlib.metadata (PathDistribution): every
 *     *.dist-info and *.egg-info entry of every sys.path folder, METADATA,
 *     else PKG-INFO, else the egg-info file itself; the first distribution
 *     of a name in sys.path order wins (py_dists.c; the headers,
 *     py_metadata.c);
 *   - the full version: py_version.c.
 *
 * It must not: run the interpreter, read outside the root, read the
 * environment on a root that is not live, read more of a METADATA file than
 * its headers, or record a value it could not establish (a warning instead).
 */
#ifndef SP_PYTHON_ENV_H
#define SP_PYTHON_ENV_H

#include <stddef.h>
#include <stdint.h>

#include "fingerprint/probes/probe.h"

/* Bounds on what is read (each crossed by a test in test_python.c). */
#define PY_SYS_PATH_MAX 64                 /* sys.path folders kept */
#define PY_PTH_FILES_MAX 64                /* .pth files read per site folder */
#define PY_PTH_LINES_MAX 256               /* lines honoured per .pth file */
#define PY_PTH_FILE_MAX (64u * 1024)       /* bytes of one .pth file */
#define PY_METADATA_HEADER_MAX (1u << 20)  /* bytes of METADATA headers read */
#define PY_METADATA_FIRST_READ (16u * 1024) /* first read of a METADATA (a tuning) */
#define PY_FIELD_MAX 256                   /* bytes of a Name or Version value */
#define PY_REQUIRES_MAX 512                /* Requires-Dist headers kept */
#define PY_VERSION_SCAN_MAX ((uint64_t)256 << 20)  /* bytes scanned per binary */
#define PY_PATCHLEVEL_MAX (64u << 10)               /* bytes of include/python3.X/patchlevel.h */
#define PY_DISTS_MAX 20000                 /* distributions per environment */
#define PY_PATH_ENTRIES_MAX 128            /* $PATH entries searched */
#define PY_SMALL_FILE_MAX (64u * 1024)     /* pyvenv.cfg, shims, version files */
#define PY_ENVS_MAX 64                     /* other environments recorded */
#define PY_HOMES_MAX 64                    /* /home/<user> folders looked into */
#define PY_UPWARD_MAX 16                   /* folders climbed (.python-version: this + 16) */

/* One distribution py_dists_record recorded: the first of its name in
 * sys.path order.  Strings owned by the py_interp that holds it. */
struct py_dist {
    char *name;       /* PEP 503 normalised Name ("torch-neuronx") */
    char *version;    /* its Version header */
    char *metadata;   /* the file read: <entry>/METADATA, PKG-INFO, or an egg-info file */
    char *folder;     /* the .dist-info / .egg-info / EGG-INFO folder, or NULL (a file) */
    size_t dir;       /* the sys.path folder it is in: an index into dirs */
};

/* One interpreter and its sys.path.  Paths are absolute, inside the root. */
struct py_interp {
    char exe[SP_ROOT_PATH_MAX];     /* as chosen: what sys.executable would be */
    char real[SP_ROOT_PATH_MAX];    /* EXE with every symlink resolved */
    char how[1024];                 /* how EXE was chosen (evidence text) */
    char prefix[SP_ROOT_PATH_MAX];  /* sys.prefix (the venv for a venv) */
    char base[SP_ROOT_PATH_MAX];    /* where the stdlib is (sys.base_prefix) */
    char stdlib[SP_ROOT_PATH_MAX];  /* BASE/lib/python3.X (or lib64/...) */
    char libdir[8];                 /* "lib" or "lib64" */
    int minor;                      /* X of 3.X, or -1 when not found */
    int venv;                       /* a pyvenv.cfg applies */
    char venv_cfg[SP_ROOT_PATH_MAX];
    char venv_version[64];          /* pyvenv.cfg version / version_info, raw */
    int system_site;                /* include-system-site-packages = true */
    int debian;                     /* Debian's site.py (dist-packages) */
    char *dirs[PY_SYS_PATH_MAX];    /* sys.path folders that exist, in order */
    char **names[PY_SYS_PATH_MAX];  /* each folder's entries (sorted), or NULL */
    size_t nnames[PY_SYS_PATH_MAX];
    size_t ndirs;
    struct py_dist *dists;          /* what py_dists_record recorded, by name */
    size_t ndists;
};

/* Options for py_interp_open. */
enum {
    PY_QUIET = 1,       /* record no warning (a look whose failure is expected) */
    PY_WORKLOAD = 2,    /* the workload: $PYTHONPATH, user site (live only) */
};

/* py_choose_workload: pick the workload interpreter as stackprint-probe(1)
 * "PYTHON" says and open it with py_interp_open(PY_WORKLOAD | FLAGS).
 * Returns 0 when found (PI filled; free with py_interp_free), 1 when there
 * is none (a warning recorded unless PY_QUIET), -1 on ENOMEM. */
int py_choose_workload(struct probe_ctx *ctx, int flags, struct py_interp *pi);

/* py_interp_open: fill PI for the interpreter at EXE (a path inside the
 * root; HOW is copied into pi->how).  Resolves links, finds the prefix, the
 * stdlib, 3.X and sys.path.  EXE must be a Python 3 interpreter: its
 * resolved name python3* (or python), else a 3.X.N version string in the
 * file.  Returns 0, 1 when EXE is not usable (a warning unless PY_QUIET):
 * missing, symlink loop, no stdlib found (pi->real set: the path is known),
 * or not a Python 3 interpreter / a Python 2 one (pi->real left empty: no
 * fact may name it), -1 on ENOMEM.
 * PI owns its dirs and dists; free with py_interp_free (also safe after a
 * failure). */
int py_interp_open(struct probe_ctx *ctx, const char *exe, const char *how,
                   int flags, struct py_interp *pi);
void py_interp_free(struct py_interp *pi);

/* py_interp_version: the interpreter's full version ("3.11.7", "3.12.0rc1")
 * without running it: pyvenv.cfg `version`/`version_info`, else conda-meta's
 * python-X.Y.Z-<build>.json name, else PY_VERSION in
 * BASE/include/python3.X/patchlevel.h (at most PY_PATCHLEVEL_MAX bytes),
 * else the PY_VERSION string in the
 * resolved binary, else in PREFIX/lib/libpython3.X*.so* (at most
 * PY_VERSION_SCAN_MAX bytes each).  The X.Y must equal lib/python3.X.
 * Writes OUT and EVIDENCE; returns 0, 1 when undecided (a warning naming
 * the files tried unless PY_QUIET), -1 on ENOMEM. */
int py_interp_version(struct probe_ctx *ctx, const struct py_interp *pi, int flags,
                      char *out, size_t outsz, char *evidence, size_t evsz);

/* py_version_scan_buffer: the PY_VERSION rule on one buffer (exposed for the
 * unit tests): the first "3.MINOR.N[aN|bN|rcN][+]" that ends in a NUL and
 * starts after a NUL (or after a byte that is neither alphanumeric nor '.',
 * as when the linker merged the string into the tail of a longer one).
 * Returns its offset and copies it into OUT, or -1. */
long py_version_scan_buffer(const char *buf, size_t len, int minor,
                            char *out, size_t outsz);

/* The headers of one METADATA / PKG-INFO (core metadata, RFC 822 style as
 * Python's email parser reads them: up to the first line that is blank or
 * not a header, continuation lines folded, names case-insensitive, the first
 * occurrence wins). */
struct py_metadata {
    char name[PY_FIELD_MAX];        /* "" when absent */
    char version[PY_FIELD_MAX];
    char *requires[PY_REQUIRES_MAX];  /* Requires-Dist values, when asked */
    size_t nrequires;
    int binary;                     /* NUL bytes in the headers */
    int not_utf8;                   /* bytes that are not UTF-8 in Name or Version */
    int truncated;                  /* headers longer than PY_METADATA_HEADER_MAX */
    int too_long;                   /* Name or Version longer than PY_FIELD_MAX */
};

/* py_metadata_read: read the headers of the file at PATH (at most
 * PY_METADATA_HEADER_MAX bytes, never the body).  WANT_REQUIRES keeps the
 * Requires-Dist values (caller frees with py_metadata_free).  Returns 0, or
 * -1 with errno (from the root: ENOENT, EACCES, ELOOP, EINVAL, EISDIR...;
 * ENOMEM). */
int py_metadata_read(struct root *r, const char *path, int want_requires,
                     struct py_metadata *m);
void py_metadata_free(struct py_metadata *m);

/* py_dists_record: record KEYPREFIX<pep503 name> = Version (probe_set) for every
 * distribution of PI's sys.path (the first of a name in sys.path order
 * wins; inside one folder, byte order of the entry names), evidence the
 * METADATA path, with warnings for what could not be read (unless
 * PY_QUIET).  Keeps them in pi->dists (replacing earlier ones) for
 * py_dist_find.  Returns the number of facts added, or -1 on ENOMEM. */
long py_dists_record(struct probe_ctx *ctx, struct py_interp *pi,
                     const char *keyprefix, int flags);

/* py_dist_find: the distribution of PEP 503 name NAME that py_dists_record
 * kept for PI, or NULL (owned by PI). */
const struct py_dist *py_dist_find(const struct py_interp *pi, const char *name);

/* py_dists_free: release pi->dists (py_interp_free does it too). */
void py_dists_free(struct py_interp *pi);

/* The workload's environment, chosen and read once by the python probe and
 * shared with the later probes through ctx->python_env (torch reads its
 * packages, runtime its distributions' folders):
 * py_workload_set: hand PI (malloc'd, opened, its distributions recorded)
 * to CTX, releasing any earlier one;
 * py_workload_release: free ctx->python_env and set it to NULL; whoever
 * made the context calls it after the probes (probe_run_all does). */
void py_workload_set(struct probe_ctx *ctx, struct py_interp *pi);
void py_workload_release(struct probe_ctx *ctx);

/* py_find_package: the first sys.path folder of PI holding package folder
 * NAME (NAME/__init__.py), as `import NAME` would find it; writes
 * "<folder>/NAME" into OUT.  Returns 0, or 1 when not found. */
int py_find_package(struct probe_ctx *ctx, const struct py_interp *pi,
                    const char *name, char *out, size_t outsz);

/* py_slug: the slug of an environment path: leading '/' dropped, lowercase,
 * every byte not [a-z0-9] turned into '_' ("/opt/aws_neuronx_venv_pytorch_2_9"
 * -> "opt_aws_neuronx_venv_pytorch_2_9").  0, or -1 if it does not fit. */
int py_slug(const char *path, char *out, size_t outsz);

#endif
