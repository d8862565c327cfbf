/* fingerprint/image_keep.c: which files of an image keep their content.
 * The probes read a few kinds of file (os-release, dpkg and rpm databases,
 * Python metadata, interpreter binaries for their version string, torch and
 * Neuron markers, CUDA and EFA version files); everything else keeps only
 * its name, type, mode and size.  The rules are patterns, generous on
 * purpose so that a probe reading one more file of the same kind still
 * finds it.  Must not read anything: a pure function of the path. */
#include "image.h"

#include <string.h>

/* Patterns over the whole path (no leading slash); '*' does not cross '/'. */
static const char *const anchored[] = {
    ".dockerenv", "run/.containerenv",
    "etc/os-release", "usr/lib/os-release", "etc/*-release", "etc/*_version",
    "etc/hostname", "etc/environment", "etc/hosts", "etc/resolv.conf",
    "var/lib/dpkg/status", "var/lib/dpkg/status.d/*",
    "var/lib/rpm/*", "usr/lib/sysimage/rpm/*",
    "opt/aws/neuron/*", "opt/aws/neuron/*/*.txt", "opt/aws/neuron/*/*.json",
    "opt/aws/neuron/*/version*",
    "usr/local/cuda*/version.json", "usr/local/cuda*/version.txt",
    "usr/local/cuda*/include/cuda.h",
    "opt/amazon/efa_installed_packages", "opt/amazon/efa/*/version*",
    "var/lib/dkms/*/*/source/dkms.conf", "usr/src/*/dkms.conf",
    "proc/driver/nvidia/version",
};

/* Patterns over the last components of the path (as many as the pattern
 * has), anywhere in the tree.  RECORD and installed-files.txt are left
 * out on purpose: they list every file (megabytes for torch) and no probe
 * reads them. */
static const char *const suffix[] = {
    "*.dist-info/METADATA", "*.dist-info/entry_points.txt", "*.dist-info/INSTALLER",
    "*.dist-info/direct_url.json", "*.dist-info/top_level.txt", "*.dist-info/WHEEL",
    "*.dist-info/REQUESTED",
    "*.egg-info", "*.egg-info/PKG-INFO", "*.egg-info/entry_points.txt",
    "*.egg-info/requires.txt", "*.egg-info/top_level.txt",
    "pyvenv.cfg", "conda-meta/*.json", "conda-meta/history",
    "bin/python*", "bin/pypy*", "sbin/python*", "libpython*.so*", "patchlevel.h",
    "_sysconfigdata*.py", "python*/site.py", ".pyenv/version", ".python-version",
    "torch/version.py", "torch/_version.py",
    "*-packages/torch*/*.py", "*-packages/torch*/*.json", "*-packages/torch*/*.txt",
    "*-packages/*neuron*/*.py", "*-packages/*neuron*/*.json", "*-packages/*neuron*/*.txt",
    "*-packages/jax*/version.py", "*-packages/nki*/*.py",
    "*-packages/*.pth",
    "MODULE_*/compile_flags.json",     /* the Neuron compile cache's flags */
};

/* PAT against S: '*' matches any run of bytes but '/', every other byte
 * itself (fnmatch(3) with FNM_PATHNAME for these patterns, without its
 * locale work: this runs once per tar entry). */
static int glob(const char *p, const char *s)
{
    const char *star = NULL, *from = NULL;
    while (*s) {
        if (*p == '*') {
            star = p++;
            from = s;
        } else if (*p == *s) {
            p++;
            s++;
        } else if (star && *from != '/') {
            p = star + 1;
            s = ++from;
        } else {
            return 0;
        }
    }
    while (*p == '*')
        p++;
    return *p == '\0';
}

static size_t components(const char *s)
{
    size_t n = 1;
    for (; *s; s++)
        n += *s == '/';
    return n;
}

#define TAIL_MAX 4      /* components in the longest suffix pattern */

uint64_t image_keep(const char *path, const struct image_limits *l)
{
    /* tails[k]: the last k components of PATH (NULL when it has fewer) */
    const char *tails[TAIL_MAX + 1] = { NULL };
    size_t k = 0;
    const char *p = path + strlen(path);
    tails[0] = p;
    while (k < TAIL_MAX) {
        while (p > path && p[-1] != '/')
            p--;
        tails[++k] = p;
        if (p == path)
            break;
        p--;
    }
    for (size_t i = 0; i < sizeof anchored / sizeof *anchored; i++)
        if (glob(anchored[i], path))
            return l->keep_file_max;
    for (size_t i = 0; i < sizeof suffix / sizeof *suffix; i++) {
        size_t n = components(suffix[i]);
        if (n <= TAIL_MAX && tails[n] && glob(suffix[i], tails[n]))
            return l->keep_file_max;
    }
    return 0;
}
