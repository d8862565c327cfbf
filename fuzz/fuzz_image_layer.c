/* fuzz/fuzz_image_layer.c: libFuzzer target for tar layers through the
 * image root (fingerprint/root/image_blob.c, image_tree.c, image_keep.c,
 * image_root.c) and every probe reading that root.  The input is up to four
 * uncompressed tar layers separated by the line "--layer--"; they become
 * one OCI image (config, manifest, index with matching digests, so the
 * layers are what gets read).  Any input must give a root or an error,
 * never a crash, a leak or a hang; a root that opens must answer every
 * path it lists (stat, realpath, read, scan) and survive the probes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fingerprint/probes/probe.h"
#include "fuzz/image_layout.h"

#define WALK_ENTRIES_MAX 2000
#define WALK_DEPTH_MAX 12

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int count_cb(void *ctx, const char *chunk, size_t n)
{
    (void)chunk;
    *(size_t *)ctx += n;
    return 0;
}

/* List DIR, then stat, realpath, read and scan each name; recurse into
 * directories (links not followed, so the walk ends). */
static void walk(struct root *r, const char *dir, int depth, size_t *budget)
{
    char **names;
    size_t n;
    if (depth > WALK_DEPTH_MAX || root_list_dir(r, dir, &names, &n) != 0)
        return;
    for (size_t i = 0; i < n && *budget > 0; i++, (*budget)--) {
        char path[SP_ROOT_PATH_MAX];
        if (sp_path_join(path, sizeof path, dir, names[i]) != 0)
            continue;
        struct root_stat st;
        char *s, *buf;
        size_t len, got = 0;
        if (root_stat(r, path, 0, &st) != 0)
            abort();                   /* listed, so it must stat */
        if (root_realpath(r, path, &s) == 0)
            free(s);
        if (st.type == ROOT_T_LINK && root_read_link(r, path, &s) == 0)
            free(s);
        if (root_read_file(r, path, 1 << 16, &buf, &len) == 0)
            free(buf);
        root_scan_file(r, path, 1 << 16, count_cb, &got);
        if (st.type == ROOT_T_DIR)
            walk(r, path, depth + 1, budget);
    }
    root_names_free(names, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *layers[4];
    size_t lens[4];
    size_t n = fz_split(data, size, "\n--layer--\n", 4, layers, lens);
    struct fz_member m[8];
    char *texts[4] = { NULL };
    char names[8][96];
    char path[64];
    size_t k = fz_oci_layout(layers, lens, n, m, texts, names);
    int fd = k ? fz_archive(m, k, path, sizeof path) : -1;
    fz_free_texts(texts);
    if (fd < 0)
        return 0;
    struct image_limits l;
    image_limits_default(&l);
    l.entries_max = 20000;             /* small bounds: the fuzzer finds their edges */
    l.keep_total_max = 1 << 20;
    l.inflated_max = 1 << 22;
    struct root *r = fz_open(path, &l, "linux/amd64");
    if (r == NULL) {
        close(fd);
        return 0;
    }
    struct sp_error e = { 0 };
    size_t budget = WALK_ENTRIES_MAX;
    walk(r, "/", 0, &budget);
    struct factset fs;
    factset_init(&fs);
    struct probe_ctx ctx = { .root = r, .facts = &fs };
    if (probe_run_all(&ctx, &e) != 0)
        abort();
    factset_free(&fs);
    root_close(r);
    close(fd);
    return 0;
}
