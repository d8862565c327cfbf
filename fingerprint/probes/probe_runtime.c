/* fingerprint/probes/probe_runtime.c: `probe --deep` (stackprint-probe(1), "DEEP
 * PROBE"): ask the workload's own interpreter which torch, which
 * torch-neuronx and which backend path it really imports, record the
 * answers as runtime.* facts, and name every runtime fact that contradicts
 * its static counterpart (the files the other probes read).
 *
 * This is the one probe that runs a program.  It runs only when asked
 * (ctx->deep, which the CLI allows on the live host only), runs the
 * interpreter the python probe chose (fact python.path) exactly once, with
 * a script built in below (standard library only), in the caller's
 * environment and working folder (what the workload will see), stdin on
 * /dev/null, stderr discarded, in a process group of its own; the whole
 * group is killed at the timeout, and as soon as the answer is read.  Its
 * output is bounded (RUNTIME_OUTPUT_MAX); more is a warning and a kill.
 * Nothing it says is trusted beyond being recorded: values are checked for
 * length and kind like any read file.  The files it imports are compared
 * with the sys.path folder of each distribution the python probe read
 * (ctx->python_env).
 *
 * The interpreter's answer is one line "stackprint-deep-1 <JSON object>"
 * on the file descriptor that was stdout when it started; the script first
 * moves everything else an import prints to stderr, and the last such line
 * counts, so a .pth file that prints at start-up does not confuse it.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "checks/version.h"
#include "common/strbuf.h"
#include "fingerprint/probes/probe.h"
#include "fingerprint/probes/python/python_env.h"

#define RUNTIME_OUTPUT_MAX (64u * 1024)  /* bytes of the interpreter's stdout */
#define RUNTIME_MARKER "stackprint-deep-1 "

/* The script: standard library only; never writes a file, never opens the
 * network.  Keys of its JSON object are the runtime.* keys without the
 * "runtime." prefix; "error" holds a one-line import error. */
static const char deep_script[] =
    "import os, sys\n"
    "out = os.fdopen(os.dup(1), 'w')\n"
    "os.dup2(2, 1)\n"
    "sys.stdout = sys.stderr\n"
    "if sys.path and sys.path[0] in ('', os.getcwd()):\n"
    "    del sys.path[0]\n"
    "import json, platform\n"
    "r = {'python.version': platform.python_version(), 'python.prefix': sys.prefix,\n"
    "     'python.executable': sys.executable or ''}\n"
    "def one(e):\n"
    "    t = ('%s: %s' % (type(e).__name__, e)).strip().splitlines()\n"
    "    return (t[0] if t else type(e).__name__)[:400]\n"
    "def missing(e, name):\n"
    "    return isinstance(e, ModuleNotFoundError) and e.name == name\n"
    "def imp(name):\n"
    "    try:\n"
    "        return __import__(name), None\n"
    "    except BaseException as e:\n"
    "        return None, e\n"
    "torch, err = imp('torch')\n"
    "if torch is None:\n"
    "    r['torch.backend'] = 'none' if missing(err, 'torch') else 'error'\n"
    "    r['error'] = one(err)\n"
    "else:\n"
    "    r['torch.version'] = str(getattr(torch, '__version__', ''))\n"
    "    r['torch.file'] = str(getattr(torch, '__file__', '') or '')\n"
    "    v = getattr(torch, 'version', None)\n"
    "    c = getattr(v, 'cuda', None)\n"
    "    r['torch.cuda'] = 'none' if c is None else str(c)\n"
    "    C = getattr(torch, '_C', None)\n"
    "    a = getattr(C, '_GLIBCXX_USE_CXX11_ABI', None)\n"
    "    if a is not None:\n"
    "        r['torch.cxx11_abi'] = 'true' if a else 'false'\n"
    "    def pu1():\n"
    "        f = getattr(C, '_get_privateuse1_backend_name', None)\n"
    "        try:\n"
    "            return str(f()) if f else None\n"
    "        except BaseException:\n"
    "            return None\n"
    "    nx, err = imp('torch_neuronx')\n"
    "    if nx is None and missing(err, 'torch_neuronx'):\n"
    "        n1, err1 = imp('torch_neuron')\n"
    "        if n1 is not None:\n"
    "            r['torch.backend'] = 'neuron-inf1'\n"
    "        elif missing(err1, 'torch_neuron'):\n"
    "            r['torch.backend'] = 'none'\n"
    "        else:\n"
    "            r['torch.backend'] = 'error'\n"
    "            r['error'] = one(err1)\n"
    "    elif nx is None:\n"
    "        r['torch.backend'] = 'error'\n"
    "        r['error'] = one(err)\n"
    "    else:\n"
    "        r['torch_neuronx.version'] = str(getattr(nx, '__version__', '') or '')\n"
    "        r['torch_neuronx.file'] = str(getattr(nx, '__file__', '') or '')\n"
    "        xla = 'torch_xla' in sys.modules\n"
    "        r['torch_neuronx.imports_torch_xla'] = 'yes' if xla else 'no'\n"
    "        native = pu1() == 'neuron'\n"
    "        r['torch.backend'] = 'ambiguous' if native == xla else 'native' if native else 'xla'\n"
    "    p = pu1()\n"
    "    if p is not None:\n"
    "        r['torch.privateuse1'] = p\n"
    "out.write('" RUNTIME_MARKER "' + json.dumps(r, sort_keys=True) + '\\n')\n"
    "out.flush()\n";

/* The runtime keys the script may report, in the order they are recorded;
 * anything else it prints is ignored. */
static const char *const runtime_keys[] = {
    "python.version", "python.prefix", "python.executable",
    "torch.version", "torch.file", "torch.cuda", "torch.cxx11_abi",
    "torch.privateuse1", "torch_neuronx.version", "torch_neuronx.file",
    "torch_neuronx.imports_torch_xla", "torch.backend",
};

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The child: its own process group, stdin /dev/null, stdout the pipe,
 * stderr /dev/null, no descriptor of ours, default signals. */
static void child(const char *python, int wfd, char *const *envp)
{
    setpgid(0, 0);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    for (int s = 1; s < 32; s++)
        if (s != SIGKILL && s != SIGSTOP)
            signal(s, SIG_DFL);
    int nul = open("/dev/null", O_RDWR);
    if (nul < 0 || dup2(nul, 0) < 0 || dup2(wfd, 1) < 0 || dup2(nul, 2) < 0)
        _exit(127);
    closefrom(3);
    char *const argv[] = { (char *)python, (char *)"-c", (char *)deep_script, NULL };
    execve(python, argv, envp);
    _exit(127);
}

/* Start PYTHON with the script, its stdout the write end of a pipe.
 * Returns the child's pid with *RFD the read end, or -1 with a one-line
 * reason in WHY. */
static pid_t spawn(const char *python, char *const *envp, int *rfd, char *why, size_t whysz)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) {
        snprintf(why, whysz, "pipe: %s", strerror(errno));
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(why, whysz, "fork: %s", strerror(errno));
        close(p[0]);
        close(p[1]);
        return -1;
    }
    if (pid == 0)
        child(python, p[1], envp);
    setpgid(pid, pid);   /* both sides set it: no race with the kill in run_interpreter */
    close(p[1]);
    *rfd = p[0];
    return pid;
}

/* Read the child's stdout from FD into BUF (RUNTIME_OUTPUT_MAX + 1 bytes)
 * until it closes it or exits, or TIMEOUT_MS pass.  0 with *LEN, or -1
 * with a one-line reason in WHY (timed out, too much output, poll or read
 * failed). */
static int collect(int fd, pid_t pid, int timeout_ms, char *buf, size_t *len,
                   char *why, size_t whysz)
{
    double deadline = now_s() + timeout_ms / 1000.0;
    for (;;) {
        double left = deadline - now_s();
        if (left <= 0) {
            snprintf(why, whysz, "no answer within %d s; its process group was killed",
                     timeout_ms / 1000);
            return -1;
        }
        /* wake at least every 100 ms: a leader that has exited while a
         * process it started keeps the pipe open ends the wait */
        struct pollfd pfd = { .fd = fd, .events = POLLIN };
        int wait_ms = left > 0.1 ? 100 : (int)(left * 1000) + 1;
        int n = poll(&pfd, 1, wait_ms);
        if (n < 0 && errno != EINTR) {
            snprintf(why, whysz, "poll: %s", strerror(errno));
            return -1;
        }
        if (n > 0) {
            ssize_t r = read(fd, buf + *len, RUNTIME_OUTPUT_MAX + 1 - *len);
            if (r < 0 && errno != EINTR && errno != EAGAIN) {
                snprintf(why, whysz, "read: %s", strerror(errno));
                return -1;
            }
            if (r == 0)
                return 0;
            if (r > 0 && (*len += (size_t)r) > RUNTIME_OUTPUT_MAX) {
                snprintf(why, whysz, "wrote more than %u bytes to stdout; its process "
                         "group was killed", RUNTIME_OUTPUT_MAX);
                return -1;
            }
            continue;
        }
        siginfo_t si = { 0 };
        if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid)
            return 0;   /* exited; whatever it wrote is in the pipe or lost */
    }
}

/* Drain what is already in the pipe FD without waiting.  0, or -1 with
 * WHY when it holds more than the bound. */
static int drain(int fd, char *buf, size_t *len, char *why, size_t whysz)
{
    int fl = fcntl(fd, F_GETFL);
    fcntl(fd, F_SETFL, fl | O_NONBLOCK);
    ssize_t r;
    while (*len <= RUNTIME_OUTPUT_MAX &&
           (r = read(fd, buf + *len, RUNTIME_OUTPUT_MAX + 1 - *len)) > 0)
        *len += (size_t)r;
    if (*len > RUNTIME_OUTPUT_MAX) {
        snprintf(why, whysz, "wrote more than %u bytes to stdout", RUNTIME_OUTPUT_MAX);
        return -1;
    }
    return 0;
}

/* Run PYTHON with the script; the bytes it wrote to stdout (at most
 * RUNTIME_OUTPUT_MAX) into *OUT (malloc'd, NUL-terminated).  Returns 0, or
 * -1 with a one-line reason in WHY (timed out, output over the bound, could
 * not start); ENOMEM is -2. */
static int run_interpreter(const char *python, char *const *envp, int timeout_ms,
                           char **out, size_t *outlen, char *why, size_t whysz)
{
    char *buf = malloc(RUNTIME_OUTPUT_MAX + 1);
    if (buf == NULL)
        return -2;
    int fd;
    pid_t pid = spawn(python, envp, &fd, why, whysz);
    if (pid < 0) {
        free(buf);
        return -1;
    }
    size_t len = 0;
    int rc = collect(fd, pid, timeout_ms, buf, &len, why, whysz);
    if (rc == 0)
        rc = drain(fd, buf, &len, why, whysz);
    /* the leader is not reaped yet, so its group id cannot have been reused */
    kill(-pid, SIGKILL);
    close(fd);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (rc != 0) {
        free(buf);
        return rc;
    }
    buf[len] = '\0';
    *out = buf;
    *outlen = len;
    return 0;
}

/* The JSON object of the last marker line of OUT, or NULL. */
static json_t *answer(const char *out, size_t len)
{
    const char *last = NULL;
    size_t ml = strlen(RUNTIME_MARKER);
    for (const char *l = out; l < out + len;) {
        const char *nl = memchr(l, '\n', (size_t)(out + len - l));
        if (strncmp(l, RUNTIME_MARKER, ml) == 0)
            last = l;
        l = nl ? nl + 1 : out + len;
    }
    if (last == NULL)
        return NULL;
    const char *end = memchr(last, '\n', (size_t)(out + len - last));
    size_t n = (size_t)((end ? end : out + len) - last) - ml;
    json_t *j = json_loadb(last + ml, n, JSON_REJECT_DUPLICATES, NULL);
    if (j && !json_is_object(j)) {
        json_decref(j);
        return NULL;
    }
    return j;
}

/* Disagreements between runtime and static facts: their keys,
 * comma-separated into LIST (at most RUNTIME_DISAGREE_MAX bytes; an
 * allocation failure is checked once, by probe_runtime); one warning each
 * naming both sides. */
#define RUNTIME_DISAGREE_MAX 511
struct disagree {
    struct sp_strbuf list;
};

static void disagree(struct probe_ctx *ctx, struct disagree *d, const char *key,
                     const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void disagree(struct probe_ctx *ctx, struct disagree *d, const char *key,
                     const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    factset_warn(ctx->facts, "%s: %s", key, msg);
    sp_strbuf_item(&d->list, ",", key);
}

/* RUNTIME (what the interpreter reports) matches METADATA (the
 * distribution's Version) as PEP 440's `==RUNTIME` matches ("Version
 * matching": a specifier without a local label ignores the candidate's
 * local label, so torch's 1.13.0a0 matches the metadata's
 * 1.13.0a0+gitunknown); as text when either is not a PEP 440 version. */
static int same_version(const char *runtime, const char *metadata)
{
    const struct sp_scheme *s = sp_scheme_by_name("pep440");
    struct sp_error ignored;
    struct sp_version *va = s ? sp_version_parse(s, runtime, &ignored) : NULL;
    struct sp_version *vb = s ? sp_version_parse(s, metadata, &ignored) : NULL;
    int same = (va && vb) ? sp_version_compare(va, vb, (va->flags & SP_VERSION_LOCAL) ?
                                               SP_CMP_FULL : SP_CMP_PUBLIC) == 0
                          : strcmp(runtime, metadata) == 0;
    sp_version_free(va);
    sp_version_free(vb);
    return same;
}

/* PATH with every link resolved inside the root, into OUT; 0 or -1. */
static int real_of(struct probe_ctx *ctx, const char *path, char *out, size_t outsz)
{
    char *real = NULL;
    if (root_realpath(ctx->root, path, &real) != 0)
        return -1;
    int rc = snprintf(out, outsz, "%s", real) < (int)outsz ? 0 : -1;
    free(real);
    return rc;
}

/* The site folder of an imported package's file <site>/<pkg>/__init__.py
 * (two levels above PATH), resolved inside the root, into OUT; 0 or -1. */
static int site_of(struct probe_ctx *ctx, const char *path, char *out, size_t outsz)
{
    char d[SP_ROOT_PATH_MAX];
    if (path == NULL || snprintf(d, sizeof d, "%s", path) >= (int)sizeof d)
        return -1;
    for (int up = 0; up < 2; up++) {   /* two levels up */
        char *slash = strrchr(d, '/');
        if (slash == NULL || slash == d)
            return -1;
        *slash = '\0';
    }
    return real_of(ctx, d, out, outsz);
}

/* The sys.path folder of the workload's distribution NAME (PEP 503), as the
 * python probe found it (ctx->python_env), resolved inside the root, into
 * OUT; 0 or -1.  A .dist-info folder and an egg-info file alike. */
static int dist_site(struct probe_ctx *ctx, const char *name, char *out, size_t outsz)
{
    const struct py_interp *pi = ctx->python_env;
    const struct py_dist *d = pi ? py_dist_find(pi, name) : NULL;
    return d ? real_of(ctx, pi->dirs[d->dir], out, outsz) : -1;
}

static void compare(struct probe_ctx *ctx, struct disagree *d)
{
    const char *rb = factset_get(ctx->facts, "runtime.torch.backend");
    const char *sb = factset_get(ctx->facts, "torch.backend");
    if (rb && sb && strcmp(rb, sb) != 0)
        disagree(ctx, d, "runtime.torch.backend", "the interpreter loads backend path \"%s\"; "
                 "the environment's files say \"%s\" (torch.backend)", rb, sb);

    static const struct { const char *rt, *st, *what; } versions[] = {
        { "runtime.python.version", "python.version", "Python" },
        { "runtime.torch.version", "pip.torch", "torch" },
        { "runtime.torch_neuronx.version", "pip.torch-neuronx", "torch-neuronx" },
    };
    for (size_t i = 0; i < sizeof versions / sizeof *versions; i++) {
        const char *rv = factset_get(ctx->facts, versions[i].rt);
        const struct fact *sf = factset_find(ctx->facts, versions[i].st);
        if (rv == NULL || *rv == '\0')
            continue;
        if (sf == NULL)
            disagree(ctx, d, versions[i].rt, "the interpreter imports %s %s; the environment's "
                     "metadata lists no %s (%s absent)", versions[i].what, rv, versions[i].what,
                     versions[i].st);
        else if (!same_version(rv, sf->value))
            disagree(ctx, d, versions[i].rt, "the interpreter imports %s %s; the environment's "
                     "metadata says %s (%s)", versions[i].what, rv, sf->value, versions[i].st);
    }

    const char *rp = factset_get(ctx->facts, "runtime.python.prefix");
    const char *sp = factset_get(ctx->facts, "python.prefix");
    char *ra = NULL, *sa = NULL;
    if (rp && sp && root_realpath(ctx->root, rp, &ra) == 0 &&
        root_realpath(ctx->root, sp, &sa) == 0 && strcmp(ra, sa) != 0)
        disagree(ctx, d, "runtime.python.prefix", "the interpreter's sys.prefix is %s; the "
                 "static probe found %s (python.prefix)", rp, sp);
    free(ra);
    free(sa);

    static const struct { const char *rt, *st, *dist; } files[] = {
        { "runtime.torch.file", "pip.torch", "torch" },
        { "runtime.torch_neuronx.file", "pip.torch-neuronx", "torch-neuronx" },
    };
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        const char *rf = factset_get(ctx->facts, files[i].rt);
        const struct fact *sf = factset_find(ctx->facts, files[i].st);
        char a[SP_ROOT_PATH_MAX], b[SP_ROOT_PATH_MAX];
        if (rf == NULL || *rf == '\0' || sf == NULL)
            continue;
        if (site_of(ctx, rf, a, sizeof a) != 0 ||
            dist_site(ctx, files[i].dist, b, sizeof b) != 0)
            continue;
        if (strcmp(a, b) != 0)
            disagree(ctx, d, files[i].rt, "imported from %s; the environment's metadata "
                     "(%s) is in %s", a, files[i].st, b);
    }
}

int probe_runtime(struct probe_ctx *ctx, struct sp_error *e)
{
    if (!ctx->deep || !ctx->root->live)
        return 0;
    const char *python = factset_get(ctx->facts, "python.path");
    if (python == NULL) {
        factset_warn(ctx->facts, "runtime: --deep: no workload interpreter was found; "
                     "nothing was run");
        return 0;
    }
    int timeout_ms = ctx->deep_timeout_ms > 0 ? ctx->deep_timeout_ms : 30000;
    char why[512] = "", *out = NULL;
    size_t len = 0;
    int r = run_interpreter(python, ctx->environ, timeout_ms, &out, &len, why, sizeof why);
    if (r == -2)
        return sp_fail(e, SP_EXIT_INPUT, "runtime: %s", strerror(ENOMEM));
    if (r != 0) {
        factset_warn(ctx->facts, "runtime: %s: %s; no runtime facts", python, why);
        return 0;
    }
    json_t *j = answer(out, len);
    free(out);
    if (j == NULL) {
        factset_warn(ctx->facts, "runtime: %s: no answer from the interpreter (it exited or "
                     "was killed before answering, or it is not a Python 3 that runs the "
                     "standard library); no runtime facts", python);
        return 0;
    }
    const char *err = json_string_value(json_object_get(j, "error"));
    int rc = 0;
    for (size_t i = 0; i < sizeof runtime_keys / sizeof *runtime_keys && rc == 0; i++) {
        const char *v = json_string_value(json_object_get(j, runtime_keys[i]));
        if (v == NULL || *v == '\0')
            continue;
        char key[64], ev[SP_ROOT_PATH_MAX + 512];
        snprintf(key, sizeof key, "runtime.%s", runtime_keys[i]);
        if (strcmp(runtime_keys[i], "torch.backend") == 0 && err)
            snprintf(ev, sizeof ev, "%s -c <stackprint's deep probe>: %s", python, err);
        else
            snprintf(ev, sizeof ev, "%s -c <stackprint's deep probe>", python);
        rc = probe_set(ctx, key, v, ev);
    }
    json_decref(j);
    if (rc != 0)
        return sp_fail(e, SP_EXIT_INPUT, "runtime: %s", strerror(ENOMEM));
    struct disagree d;
    sp_strbuf_init(&d.list, RUNTIME_DISAGREE_MAX);
    compare(ctx, &d);
    rc = d.list.failed ? -1 : 0;
    if (rc == 0 && d.list.len &&
        probe_set(ctx, "runtime.disagreements", sp_strbuf_str(&d.list),
                  "runtime facts that contradict their static counterparts "
                  "(see the warnings)") != 0)
        rc = -1;
    sp_strbuf_free(&d.list);
    if (rc != 0)
        return sp_fail(e, SP_EXIT_INPUT, "runtime: %s", strerror(ENOMEM));
    return 0;
}
