/* fingerprint/probes/probe_container.c: whether the root runs inside a container,
 * its runtime and id (doc/DOMAIN.md section 6).  Markers: /.dockerenv (docker),
 * /run/.containerenv (podman) in any root; on the live host only, also
 * /proc/self/cgroup, /proc/self/mountinfo (docker, libpod, containerd,
 * crio and kubepods paths, and a 64-hex container id) and the environment
 * variable KUBERNETES_SERVICE_HOST.  The image digest cannot be seen from
 * inside: it is what the orchestrator passed (--image-digest or
 * STACKPRINT_IMAGE_DIGEST, validated by the CLI).  Must not: read /proc of a
 * copied tree or an image (it is not this process's). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fingerprint/probes/probe.h"

#define CGROUP_FILE "/proc/self/cgroup"
#define MOUNTINFO_FILE "/proc/self/mountinfo"
#define CGROUP_MAX (64u * 1024)       /* bytes of /proc/self/cgroup read */
#define MOUNTINFO_MAX (1024u * 1024)  /* bytes of /proc/self/mountinfo read */
#define CONTAINER_ID_LEN 64

/* Runtimes in the order one is chosen when several markers are present: the
 * orchestrator first, then the more specific engine. */
enum runtime { RT_KUBERNETES, RT_PODMAN, RT_CRIO, RT_CONTAINERD, RT_DOCKER, RT_COUNT };
static const char *const runtime_names[RT_COUNT] = {
    "kubernetes", "podman", "cri-o", "containerd", "docker",
};

struct found {
    int marker[RT_COUNT];
    char evidence[RT_COUNT][96];       /* first evidence per runtime */
    char id[CONTAINER_ID_LEN + 1];
    char id_source[32];
    int ids_differ;
};

static void mark(struct found *f, enum runtime rt, const char *ev)
{
    if (!f->marker[rt]++)
        snprintf(f->evidence[rt], sizeof f->evidence[rt], "%s", ev);
}

/* The first run of exactly 64 lowercase hex digits in LINE (LEN bytes). */
static const char *hex64(const char *line, size_t len)
{
    size_t run = 0;
    for (size_t i = 0; i <= len; i++) {
        int hx = i < len && (isdigit((unsigned char)line[i]) ||
                             (line[i] >= 'a' && line[i] <= 'f'));
        if (hx) {
            run++;
        } else {
            if (run == CONTAINER_ID_LEN)
                return line + i - run;
            run = 0;
        }
    }
    return NULL;
}

static void set_id(struct found *f, const char *id, const char *source)
{
    if (f->id[0] == '\0') {
        memcpy(f->id, id, CONTAINER_ID_LEN);
        f->id[CONTAINER_ID_LEN] = '\0';
        snprintf(f->id_source, sizeof f->id_source, "%s", source);
    } else if (memcmp(f->id, id, CONTAINER_ID_LEN) != 0) {
        f->ids_differ = 1;
    }
}

static int has(const char *line, size_t len, const char *needle)
{
    return memmem(line, len, needle, strlen(needle)) != NULL;
}

/* The mount point (5th field) of a mountinfo line, as START and length. */
static size_t mount_point(const char *line, size_t len, const char **start)
{
    size_t i = 0;
    for (int field = 0; field < 4; field++) {
        while (i < len && line[i] != ' ')
            i++;
        while (i < len && line[i] == ' ')
            i++;
    }
    size_t j = i;
    while (j < len && line[j] != ' ')
        j++;
    *start = line + i;
    return j - i;
}

/* One line of cgroup (IS_CGROUP) or mountinfo.  A cgroup line counts only
 * when it names a 64-hex container id (a host's docker.service cgroup is not
 * a container); a mountinfo line only when it is one of the files an engine
 * bind-mounts into its containers (/etc/hostname, /etc/hosts,
 * /etc/resolv.conf), so a host that merely runs docker is not taken for a
 * container. */
static void scan_line(struct found *f, const char *line, size_t len, int is_cgroup)
{
    const char *src = is_cgroup ? CGROUP_FILE : MOUNTINFO_FILE;
    const char *id = NULL;
    char ev[96];
    static const struct { const char *needle; enum runtime rt; } markers[] = {
        { "kubepods", RT_KUBERNETES }, { "libpod", RT_PODMAN },
        { "overlay-containers", RT_PODMAN }, { "crio", RT_CRIO },
        { "containerd", RT_CONTAINERD }, { "docker", RT_DOCKER },
    };
    if (is_cgroup) {
        if ((id = hex64(line, len)) == NULL)
            return;
    } else {
        const char *mp;
        size_t ml = mount_point(line, len, &mp);
        if (!((ml == 13 && memcmp(mp, "/etc/hostname", 13) == 0) ||
              (ml == 10 && memcmp(mp, "/etc/hosts", 10) == 0) ||
              (ml == 16 && memcmp(mp, "/etc/resolv.conf", 16) == 0)))
            return;
        /* docker: /var/lib/docker/containers/<id>/hostname; podman:
         * .../overlay-containers/<id>/userdata/hostname.  Other 64-hex runs
         * (pod sandboxes, layers) are not this container. */
        for (const char *c = line; (c = memmem(c, (size_t)(line + len - c), "containers/", 11));
             c += 11)
            if ((size_t)(line + len - (c + 11)) > CONTAINER_ID_LEN &&
                hex64(c + 11, CONTAINER_ID_LEN + 1) == c + 11) {
                id = c + 11;
                break;
            }
    }
    int any = 0;
    for (size_t i = 0; i < sizeof markers / sizeof *markers; i++)
        if (has(line, len, markers[i].needle)) {
            snprintf(ev, sizeof ev, "%s (%s)", src, markers[i].needle);
            mark(f, markers[i].rt, ev);
            any = 1;
        }
    if (any && id)
        set_id(f, id, src);
}

static void scan_file_lines(struct probe_ctx *ctx, struct found *f, const char *path,
                            size_t max, int is_cgroup)
{
    char *buf;
    size_t len;
    if (root_read_file(ctx->root, path, max, &buf, &len) != 0) {
        if (errno != ENOENT)
            probe_warn_errno(ctx, "container", path, errno);
        return;
    }
    for (size_t i = 0; i < len;) {
        size_t n = strcspn(buf + i, "\n");
        scan_line(f, buf + i, n, is_cgroup);
        i += n + 1;
    }
    free(buf);
}

int probe_container(struct probe_ctx *ctx, struct sp_error *e)
{
    struct found f = { 0 };
    if (root_exists(ctx->root, "/.dockerenv"))
        mark(&f, RT_DOCKER, "/.dockerenv");
    if (root_exists(ctx->root, "/run/.containerenv"))
        mark(&f, RT_PODMAN, "/run/.containerenv");
    if (f.marker[RT_DOCKER] && f.marker[RT_PODMAN])
        factset_warn(ctx->facts, "container.runtime: both /.dockerenv and "
                     "/run/.containerenv are present");
    if (ctx->root->live) {
        scan_file_lines(ctx, &f, CGROUP_FILE, CGROUP_MAX, 1);
        scan_file_lines(ctx, &f, MOUNTINFO_FILE, MOUNTINFO_MAX, 0);
        const char *k8s = probe_getenv(ctx, "KUBERNETES_SERVICE_HOST");
        if (k8s && *k8s)
            mark(&f, RT_KUBERNETES, "environment KUBERNETES_SERVICE_HOST");
    }
    for (int rt = 0; rt < RT_COUNT; rt++) {
        if (!f.marker[rt])
            continue;
        char ev[RT_COUNT * 100] = "";
        size_t used = 0;
        for (int j = 0; j < RT_COUNT; j++)
            if (f.marker[j])
                used += (size_t)snprintf(ev + used, sizeof ev - used, "%s%s",
                                         used ? "; " : "", f.evidence[j]);
        if (probe_set(ctx, "container.runtime", runtime_names[rt], ev) != 0)
            goto nomem;
        break;
    }
    if (f.id[0]) {
        if (probe_set(ctx, "container.id", f.id, f.id_source) != 0)
            goto nomem;
        if (f.ids_differ)
            factset_warn(ctx->facts, "container.id: %s: several container ids; the first "
                         "recorded", f.id_source);
    }
    if (ctx->image_digest &&
        probe_set(ctx, "container.image_digest", ctx->image_digest,
                  "orchestrator (--image-digest or STACKPRINT_IMAGE_DIGEST)") != 0)
        goto nomem;
    return 0;
nomem:
    return sp_fail(e, SP_EXIT_INPUT, "container: out of memory");
}
