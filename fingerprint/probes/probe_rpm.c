/* fingerprint/probes/probe_rpm.c: rpm.<name> = [EPOCH:]VERSION-RELEASE for every
 * package of the root's rpm database, read with librpm (Debian's librpm-dev;
 * never a parser of our own for its formats).
 *
 * Where: /var/lib/rpm, then /usr/lib/sysimage/rpm (rpm 4.16 and later; one
 * is often a link to the other, read once).  Formats, by the file present
 * (rpm(8) --rebuilddb, rpmdb backends):
 *   rpmdb.sqlite (+ rpmdb.sqlite-wal)  sqlite, rpm 4.16 and later (AL2023)
 *   Packages (+ Name, Basenames, ...)  Berkeley DB, read by librpm's
 *                                      read-only bdb_ro backend (AL2)
 *   Packages.db (+ Index.db)           ndb
 * A format librpm cannot open is a warning naming it.
 *
 * Read-only by construction: the database files are copied THROUGH THE
 * ROOT (root_scan_file: nothing outside --root DIR, and the same path for
 * an image, whose kept content is the only copy) into a private temporary
 * folder (mkdtemp, mode 0700, under $TMPDIR or /tmp), librpm opens that
 * copy O_RDONLY with its macros set in-process (_dbpath, _db_backend; no
 * rpmrc or ~/.rpmmacros is read), and the folder is removed with whatever
 * librpm created there (lock, -shm).  So a probe never takes the probed
 * tree's lock, checkpoints its WAL or rebuilds its indexes.
 *
 * Values: exactly what
 *   rpm -qa --qf '%{NAME} %|EPOCH?{%{EPOCH}:}:{}|%{VERSION}-%{RELEASE}\n'
 * prints: the epoch whenever the package carries an Epoch tag (also 0).
 * Several installed versions of one name (kernel, gpg-pubkey): rpm.<name>
 * is the newest (librpm's rpmvercmp over epoch, version, release), and its
 * evidence, "<db file>; also installed: A, B", lists the others oldest
 * first.  Evidence is the database file, as inside the root.
 *
 * librpm's global state: its macro context is set and popped around each
 * read, its log goes to a callback that turns errors into warnings (never
 * stderr), its log records are released, and the dispositions of the
 * signals its rpmsq layer handles are saved and restored around it (a
 * read-only open only blocks signals for a moment and restores the mask;
 * the restore guards against a librpm that does more).
 *
 * librpm is loaded with dlopen(3) (its SONAME from pkg-config's rpm, see
 * the Makefile) the first time a database is found, never otherwise: linked
 * in, it and the libraries it pulls (Lua, sqlite, libgcrypt, ...) cost every
 * run a few milliseconds, also on hosts without rpm.  When it cannot be
 * loaded the database is a warning. */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rpm/header.h>
#include <rpm/rpmdb.h>
#include <rpm/rpmlib.h>
#include <rpm/rpmlog.h>
#include <rpm/rpmmacro.h>
#include <rpm/rpmts.h>
#include <rpm/rpmver.h>

#include "common/array.h"
#include "fingerprint/probes/probe.h"

#define RPM_FILE_MAX (2ull << 30)        /* bytes copied of one database file */
#define RPM_PACKAGES_MAX 200000          /* headers read */
#define RPM_LOG_WARNINGS_MAX 10          /* librpm messages kept as warnings */
#define RPM_FIELD_MAX 256                /* bytes of a name or an EVR */

struct rpm_format {
    const char *file;                    /* the file that says which format */
    const char *backend;                 /* librpm's _db_backend */
    const char *title;                   /* for warnings */
    const char *const *companions;       /* copied too when present */
};

static const char *const sqlite_files[] = { "rpmdb.sqlite-wal", NULL };
/* the index databases beside a Berkeley DB Packages (rpm 4.x's dbi tags),
 * which librpm opens with it */
static const char *const bdb_files[] = {
    "Name", "Basenames", "Group", "Requirename", "Providename", "Conflictname",
    "Obsoletename", "Triggername", "Dirnames", "Installtid", "Sigmd5", "Sha1header",
    "Filetriggername", "Transfiletriggername", "Recommendname", "Suggestname",
    "Supplementname", "Enhancename", NULL,
};
static const char *const ndb_files[] = { "Index.db", NULL };

static const struct rpm_format formats[] = {
    { "rpmdb.sqlite", "sqlite", "sqlite", sqlite_files },
    { "Packages", "bdb_ro", "Berkeley DB (bdb_ro)", bdb_files },
    { "Packages.db", "ndb", "ndb", ndb_files },
};

static const char *const db_dirs[] = { "/var/lib/rpm", "/usr/lib/sysimage/rpm" };

struct pkg {
    char *name, *evr;                    /* evr as rpm -q prints it */
    char *epoch, *version, *release;     /* epoch NULL when no Epoch tag */
};

struct read_state {
    struct probe_ctx *ctx;
    const char *dbfile;                  /* as inside the root, for warnings */
    const char *dir;                     /* its folder inside the root */
    const char *tmp;                     /* the private copy's folder */
    const char *title;                   /* the format, for warnings */
    size_t nlog, droppedlog;
    struct pkg *pkgs;
    size_t npkgs, cap;
    size_t skipped;                      /* headers past RPM_PACKAGES_MAX */
    int nomem;
};

/* ---- loading librpm ---------------------------------------------------- */

#ifndef SP_LIBRPM_SONAME
#define SP_LIBRPM_SONAME "librpm.so.9"
#endif

/* The librpm functions this probe calls, typed from librpm's own headers. */
#define RPM_FUNCTIONS(X) \
    X(headerGetString) X(headerGetNumber) X(headerIsEntry) X(rpmtsCreate) X(rpmtsFree) \
    X(rpmtsSetRootDir) X(rpmtsSetVSFlags) X(rpmtsOpenDB) X(rpmtsInitIterator) \
    X(rpmdbNextIterator) X(rpmdbFreeIterator) X(rpmvercmp) X(rpmPushMacro) X(rpmPopMacro) \
    X(rpmlogSetCallback) X(rpmlogSetMask) X(rpmlogClose) X(rpmlogRecPriority) \
    X(rpmlogRecMessage)

static struct {
#define RPM_MEMBER(f) __typeof__(&f) f;
    RPM_FUNCTIONS(RPM_MEMBER)
#undef RPM_MEMBER
} R;

/* Load librpm once (it stays loaded).  NULL, or why it cannot be used. */
static const char *librpm_load(void)
{
    static int state;                    /* 0 not tried, 1 loaded, -1 failed */
    static char why[256];
    if (state == 0) {
        void *h = dlopen(SP_LIBRPM_SONAME, RTLD_NOW | RTLD_LOCAL);
        state = h ? 1 : -1;
        if (h == NULL)
            snprintf(why, sizeof why, "%s", dlerror());
#define RPM_LOOKUP(f) \
        if (state == 1 && (*(void **)&R.f = dlsym(h, #f)) == NULL) { \
            state = -1; \
            snprintf(why, sizeof why, "%s: no %s", SP_LIBRPM_SONAME, #f); \
        }
        RPM_FUNCTIONS(RPM_LOOKUP)
#undef RPM_LOOKUP
    }
    return state == 1 ? NULL : why;
}

#if defined(__SANITIZE_ADDRESS__)
/* LeakSanitizer's hook (make SANITIZE=1): librpm 4.18's sqlite backend
 * leaves its sqlite handle open when a damaged database fails to open
 * (rpmtsOpenDB -> sqlite3_table_column_metadata); that memory is
 * librpm's, not ours, and only libsqlite3's frames are in its stack. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libsqlite3.so\n";
}
#endif

/* ---- copying through the root ---------------------------------------- */

struct copy {
    int fd;
    int err;
};

static int copy_chunk(void *c, const char *chunk, size_t n)
{
    struct copy *cp = c;
    while (n > 0) {
        ssize_t w = write(cp->fd, chunk, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            cp->err = errno;
            return 1;
        }
        chunk += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Copy the root's regular file FROM to the on-disk path TO (created 0600).
 * 0, or -1 with errno (the root's, or the write's). */
static int copy_out(struct probe_ctx *ctx, const char *from, const char *to)
{
    struct root_stat st;
    if (root_stat(ctx->root, from, 1, &st) != 0)
        return -1;
    if (st.type != ROOT_T_FILE) {
        errno = st.type == ROOT_T_DIR ? EISDIR : EINVAL;
        return -1;
    }
    if (st.size > RPM_FILE_MAX) {
        errno = EFBIG;
        return -1;
    }
    struct copy cp = { open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600), 0 };
    if (cp.fd < 0)
        return -1;
    int r = root_scan_file(ctx->root, from, RPM_FILE_MAX, copy_chunk, &cp);
    int saved = errno;
    if (close(cp.fd) != 0 && r == 0 && cp.err == 0)
        cp.err = errno;
    if (r != 0) {
        errno = saved;
        return -1;
    }
    if (cp.err) {
        errno = cp.err;
        return -1;
    }
    return 0;
}

/* Remove DIR and every file in it (librpm's copies, lock and -shm). */
static void remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *de;
        int fd = dirfd(d);
        while ((de = readdir(d)) != NULL)
            if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
                unlinkat(fd, de->d_name, 0);
        closedir(d);
    }
    rmdir(dir);
}

/* ---- librpm ----------------------------------------------------------- */

static int log_cb(rpmlogRec rec, rpmlogCallbackData data)
{
    struct read_state *s = data;
    rpmlogLvl pri = R.rpmlogRecPriority(rec);
    if (pri > RPMLOG_WARNING)
        return 0;
    if (s->nlog >= RPM_LOG_WARNINGS_MAX) {
        s->droppedlog++;
        return 0;
    }
    s->nlog++;
    /* the message names the private copy: name the root's folder instead,
     * so that the warning is the same on every run */
    const char *m = R.rpmlogRecMessage(rec);
    char text[512];
    size_t o = 0, tl = strlen(s->tmp);
    for (; m && *m && o + 1 < sizeof text; m++) {
        if (strncmp(m, s->tmp, tl) == 0) {
            o += (size_t)snprintf(text + o, sizeof text - o, "%s", s->dir);
            o = o < sizeof text ? o : sizeof text - 1;
            m += tl - 1;
        } else {
            text[o++] = *m;
        }
    }
    while (o > 0 && (text[o - 1] == '\n' || text[o - 1] == ' '))
        o--;
    text[o] = '\0';
    factset_warn(s->ctx->facts, "rpm: %s: librpm: %s", s->dbfile, text);
    return 0;
}

static char *dup_field(const char *s)
{
    if (s == NULL || s[0] == '\0' || strlen(s) >= RPM_FIELD_MAX)
        return NULL;
    return strdup(s);
}

static void pkg_free(struct pkg *p)
{
    free(p->name);
    free(p->evr);
    free(p->epoch);
    free(p->version);
    free(p->release);
}

/* Keep one header's name and EVR; a header without them is a warning. */
static void add_header(struct read_state *s, Header h)
{
    const char *name = R.headerGetString(h, RPMTAG_NAME);
    const char *version = R.headerGetString(h, RPMTAG_VERSION);
    const char *release = R.headerGetString(h, RPMTAG_RELEASE);
    if (name == NULL || version == NULL || release == NULL || !*name || !*version || !*release) {
        factset_warn(s->ctx->facts, "rpm: %s: a package header without name, version or "
                     "release; skipped", s->dbfile);
        return;
    }
    if (s->npkgs >= RPM_PACKAGES_MAX) {
        s->skipped++;
        return;
    }
    if (SP_ARRAY_RESERVE(s->pkgs, s->cap, s->npkgs + 1) != 0) {
        s->nomem = 1;
        return;
    }
    struct pkg p = { 0 };
    char epoch[24] = "";
    if (R.headerIsEntry(h, RPMTAG_EPOCH))
        snprintf(epoch, sizeof epoch, "%llu", (unsigned long long)R.headerGetNumber(h, RPMTAG_EPOCH));
    size_t evrlen = strlen(epoch) + 1 + strlen(version) + 1 + strlen(release) + 1;
    p.name = dup_field(name);
    p.version = dup_field(version);
    p.release = dup_field(release);
    p.epoch = epoch[0] ? strdup(epoch) : NULL;
    if (p.name == NULL || p.version == NULL || p.release == NULL || (epoch[0] && !p.epoch) ||
        evrlen > RPM_FIELD_MAX || (p.evr = malloc(evrlen)) == NULL) {
        int toolong = (p.name == NULL && strlen(name) >= RPM_FIELD_MAX) ||
                      (p.version == NULL && strlen(version) >= RPM_FIELD_MAX) ||
                      (p.release == NULL && strlen(release) >= RPM_FIELD_MAX) ||
                      evrlen > RPM_FIELD_MAX;
        pkg_free(&p);
        if (toolong)
            factset_warn(s->ctx->facts, "rpm: %s: package %.64s: name or version longer than "
                         "%d bytes; skipped", s->dbfile, name, RPM_FIELD_MAX - 1);
        else
            s->nomem = 1;
        return;
    }
    snprintf(p.evr, evrlen, "%s%s%s-%s", epoch, epoch[0] ? ":" : "", version, release);
    s->pkgs[s->npkgs++] = p;
}

/* Read every header of the database at DIR (an on-disk private copy) with
 * BACKEND.  Warnings for what librpm refuses; -1 only on ENOMEM. */
static int read_db(struct read_state *s, const char *dir, const char *backend)
{
    static const int sigs[] = { SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGALRM, SIGTERM, SIGCHLD,
                                SIGUSR1, SIGUSR2 };
    struct sigaction saved[sizeof sigs / sizeof *sigs];
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
        sigaction(sigs[i], NULL, &saved[i]);
    rpmlogCallback old_cb = R.rpmlogSetCallback(log_cb, s);
    int old_mask = R.rpmlogSetMask(RPMLOG_UPTO(RPMLOG_WARNING));

    R.rpmPushMacro(NULL, "_dbpath", NULL, dir, RMIL_CMDLINE);
    R.rpmPushMacro(NULL, "_db_backend", NULL, backend, RMIL_CMDLINE);
    rpmts ts = R.rpmtsCreate();
    if (ts) {
        R.rpmtsSetRootDir(ts, "/");
        /* no keyring: signatures are not checked, header digests are */
        R.rpmtsSetVSFlags(ts, RPMVSF_MASK_NOSIGNATURES);
        if (R.rpmtsOpenDB(ts, O_RDONLY) == 0) {
            rpmdbMatchIterator mi = R.rpmtsInitIterator(ts, RPMDBI_PACKAGES, NULL, 0);
            Header h;
            while (mi && !s->nomem && (h = R.rpmdbNextIterator(mi)) != NULL)
                add_header(s, h);
            R.rpmdbFreeIterator(mi);
            /* an empty database, or librpm without this backend (it then
             * opens its "dummy" one, which holds nothing) */
            if (s->npkgs == 0 && !s->nomem)
                factset_warn(s->ctx->facts, "rpm: %s: librpm reads no package from this %s "
                             "database", s->dbfile, s->title);
        } else {
            factset_warn(s->ctx->facts, "rpm: %s: librpm cannot read this %s database; no "
                         "rpm.* read", s->dbfile, s->title);
        }
        R.rpmtsFree(ts);
    }
    R.rpmPopMacro(NULL, "_db_backend");
    R.rpmPopMacro(NULL, "_dbpath");

    R.rpmlogSetMask(old_mask);
    R.rpmlogSetCallback(old_cb, NULL);
    R.rpmlogClose();
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
        sigaction(sigs[i], &saved[i], NULL);
    if (ts == NULL)
        s->nomem = 1;
    if (s->skipped)
        factset_warn(s->ctx->facts, "rpm: %s: more than %d packages; %zu more not recorded",
                     s->dbfile, RPM_PACKAGES_MAX, s->skipped);
    if (s->droppedlog)
        factset_warn(s->ctx->facts, "rpm: %s: %zu more librpm messages not shown", s->dbfile,
                     s->droppedlog);
    return s->nomem ? -1 : 0;
}

/* ---- recording -------------------------------------------------------- */

static int cmp_evr(const struct pkg *a, const struct pkg *b)
{
    unsigned long long ea = a->epoch ? strtoull(a->epoch, NULL, 10) : 0;
    unsigned long long eb = b->epoch ? strtoull(b->epoch, NULL, 10) : 0;
    if (ea != eb)
        return ea < eb ? -1 : 1;
    int c = R.rpmvercmp(a->version, b->version);
    if (c == 0)
        c = R.rpmvercmp(a->release, b->release);
    return c ? c : strcmp(a->evr, b->evr);
}

static int cmp_pkg(const void *x, const void *y)
{
    const struct pkg *a = x, *b = y;
    int c = strcmp(a->name, b->name);
    return c ? c : cmp_evr(a, b);
}

/* Record the packages read: -1 on ENOMEM. */
static int record(struct read_state *s)
{
    char key[RPM_FIELD_MAX + 8];
    if (s->npkgs == 0)
        return 0;
    qsort(s->pkgs, s->npkgs, sizeof *s->pkgs, cmp_pkg);
    for (size_t i = 0; i < s->npkgs;) {
        size_t j = i + 1;
        while (j < s->npkgs && strcmp(s->pkgs[j].name, s->pkgs[i].name) == 0)
            j++;
        const struct pkg *newest = &s->pkgs[j - 1];
        size_t evlen = strlen(s->dbfile) + 32;
        for (size_t k = i; k + 1 < j; k++)
            evlen += strlen(s->pkgs[k].evr) + 2;
        char *ev = malloc(evlen);
        if (ev == NULL)
            return -1;
        size_t o = (size_t)snprintf(ev, evlen, "%s", s->dbfile);
        int first = 1;
        for (size_t k = i; k + 1 < j; k++) {
            if (strcmp(s->pkgs[k].evr, newest->evr) == 0 ||
                (k > i && strcmp(s->pkgs[k].evr, s->pkgs[k - 1].evr) == 0))
                continue;               /* the same EVR twice (several arches) */
            o += (size_t)snprintf(ev + o, evlen - o, "%s%s", first ? "; also installed: " : ", ",
                                  s->pkgs[k].evr);
            first = 0;
        }
        snprintf(key, sizeof key, "rpm.%s", newest->name);
        int r = probe_set(s->ctx, key, newest->evr, ev);
        free(ev);
        if (r != 0)
            return -1;
        i = j;
    }
    return 0;
}

/* ---- the probe -------------------------------------------------------- */

/* Copy the database of FORMAT in the root's DIR into a private folder and
 * read it.  -1 only on ENOMEM. */
static int read_format(struct probe_ctx *ctx, const char *dir, const struct rpm_format *f)
{
    char dbfile[SP_ROOT_PATH_MAX], from[SP_ROOT_PATH_MAX], tmpl[SP_ROOT_PATH_MAX],
         to[SP_ROOT_PATH_MAX + 64];
    const char *tmpdir = getenv("TMPDIR");
    if (tmpdir == NULL || tmpdir[0] != '/')
        tmpdir = "/tmp";
    if (sp_path_join(dbfile, sizeof dbfile, dir, f->file) != 0 ||
        snprintf(tmpl, sizeof tmpl, "%s/stackprint-rpm-XXXXXX", tmpdir) >= (int)sizeof tmpl) {
        factset_warn(ctx->facts, "rpm: %s: path too long", dir);
        return 0;
    }
    if (mkdtemp(tmpl) == NULL) {
        factset_warn(ctx->facts, "rpm: %s: no private temporary folder under %s: %s", dbfile,
                     tmpdir, strerror(errno));
        return 0;
    }
    int rc = 0;
    snprintf(to, sizeof to, "%s/%s", tmpl, f->file);
    if (copy_out(ctx, dbfile, to) != 0) {
        probe_warn_errno(ctx, "rpm", dbfile, errno);
        goto out;
    }
    for (size_t c = 0; f->companions[c]; c++) {
        if (sp_path_join(from, sizeof from, dir, f->companions[c]) != 0)
            continue;
        snprintf(to, sizeof to, "%s/%s", tmpl, f->companions[c]);
        if (copy_out(ctx, from, to) != 0 && errno != ENOENT) {
            probe_warn_errno(ctx, "rpm", from, errno);
            goto out;
        }
    }
    const char *why = librpm_load();
    if (why) {
        factset_warn(ctx->facts, "rpm: %s: %s database found, but librpm cannot be loaded "
                     "(%s); no rpm.* read", dbfile, f->title, why);
        goto out;
    }
    struct read_state s = { .ctx = ctx, .dbfile = dbfile, .dir = dir, .tmp = tmpl,
                            .title = f->title };
    if (read_db(&s, tmpl, f->backend) != 0 || record(&s) != 0)
        rc = -1;
    for (size_t i = 0; i < s.npkgs; i++)
        pkg_free(&s.pkgs[i]);
    free(s.pkgs);
out:
    remove_tree(tmpl);
    return rc;
}

int probe_rpm(struct probe_ctx *ctx, struct sp_error *e)
{
    char *seen[sizeof db_dirs / sizeof *db_dirs] = { NULL };
    size_t nseen = 0;
    const char *done = NULL;
    int rc = 0;
    for (size_t d = 0; d < sizeof db_dirs / sizeof *db_dirs && rc == 0; d++) {
        char *real = NULL;
        if (!root_is_dir(ctx->root, db_dirs[d]) || root_realpath(ctx->root, db_dirs[d], &real) != 0)
            continue;
        int dup = 0;
        for (size_t k = 0; k < nseen; k++)
            dup |= strcmp(seen[k], real) == 0;
        if (dup) {
            free(real);
            continue;
        }
        seen[nseen++] = real;
        char path[SP_ROOT_PATH_MAX];
        /* the first format present, in the table's order (rpm 4.16 and
         * later convert to sqlite and may leave the old files behind) */
        const struct rpm_format *found = NULL;
        for (size_t i = 0; i < sizeof formats / sizeof *formats; i++) {
            struct root_stat st;
            if (sp_path_join(path, sizeof path, db_dirs[d], formats[i].file) != 0 ||
                root_stat(ctx->root, path, 0, &st) != 0)
                continue;
            if (found == NULL)
                found = &formats[i];
            else
                factset_warn(ctx->facts, "rpm: %s: a %s database beside %s; only %s is read",
                             path, formats[i].title, found->file, found->file);
        }
        if (found == NULL) {
            if (sp_path_join(path, sizeof path, db_dirs[d], "rpmdb.sqlite-wal") == 0 &&
                root_exists(ctx->root, path))
                factset_warn(ctx->facts, "rpm: %s: a write-ahead log without its database "
                             "rpmdb.sqlite; no rpm.* read", path);
            continue;
        }
        if (done) {
            factset_warn(ctx->facts, "rpm: %s/%s: a second rpm database; only the first "
                         "(in %s) is read", db_dirs[d], found->file, done);
            continue;
        }
        done = db_dirs[d];
        if (read_format(ctx, db_dirs[d], found) != 0)
            rc = sp_fail(e, SP_EXIT_INPUT, "rpm: out of memory");
    }
    for (size_t k = 0; k < nseen; k++)
        free(seen[k]);
    return rc;
}
