/* tests/unit/test_image.c: the image root through its public interface, on
 * OCI layouts written here with libarchive's writer (tar, gzip, zstd) and
 * digests from OpenSSL's one-shot SHA256: layer merge (whiteouts, opaque
 * directories, replacement, hard links across layers), path resolution
 * inside the image (.., absolute and looping symlinks), what is kept, the
 * same result with one worker or several, and every bound of struct
 * image_limits crossed by lowering it. */
#include "tests/unit/testlib.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <openssl/sha.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fingerprint/probes/probe.h"
#include "fingerprint/root/image.h"
#include "manifest/facts.h"

/* One tar entry: 'f' file, 'd' dir, 'l' symlink, 'h' hard link. */
struct ent {
    char kind;
    const char *name;
    const char *data;      /* file content, or link target */
};

static char tmp[512];

static void hexsha(const void *b, size_t n, char out[72])
{
    unsigned char md[32];
    SHA256(b, n, md);
    strcpy(out, "sha256:");
    for (int i = 0; i < 32; i++)
        sprintf(out + 7 + 2 * i, "%02x", md[i]);
}

/* Write FORMAT (tar: pax; or raw with FILTER) into a malloc'd buffer. */
static void *tar_of(const struct ent *e, size_t n, size_t *len)
{
    size_t cap = 1 << 20, used = 0;
    char *buf = malloc(cap);
    struct archive *a = archive_write_new();
    archive_write_set_format_pax_restricted(a);
    archive_write_set_bytes_per_block(a, 0);
    assert_int_equal(archive_write_open_memory(a, buf, cap, &used), ARCHIVE_OK);
    for (size_t i = 0; i < n; i++) {
        struct archive_entry *ae = archive_entry_new();
        archive_entry_set_pathname(ae, e[i].name);
        archive_entry_set_perm(ae, e[i].kind == 'd' ? 0755 : 0644);
        switch (e[i].kind) {
        case 'f':
            archive_entry_set_filetype(ae, AE_IFREG);
            archive_entry_set_size(ae, (la_int64_t)strlen(e[i].data));
            break;
        case 'd': archive_entry_set_filetype(ae, AE_IFDIR); break;
        case 'l':
            archive_entry_set_filetype(ae, AE_IFLNK);
            archive_entry_set_symlink(ae, e[i].data);
            break;
        case 'h':
            archive_entry_set_filetype(ae, AE_IFREG);
            archive_entry_set_hardlink(ae, e[i].data);
            break;
        }
        assert_int_equal(archive_write_header(a, ae), ARCHIVE_OK);
        if (e[i].kind == 'f')
            archive_write_data(a, e[i].data, strlen(e[i].data));
        archive_entry_free(ae);
    }
    archive_write_close(a);
    archive_write_free(a);
    *len = used;
    return buf;
}

static void *compress_of(const void *in, size_t n, const char *how, size_t *len)
{
    size_t cap = n + (1 << 16), used = 0;
    char *buf = malloc(cap);
    struct archive *a = archive_write_new();
    archive_write_set_format_raw(a);
    if (strcmp(how, "gzip") == 0)
        archive_write_add_filter_gzip(a);
    else
        archive_write_add_filter_zstd(a);
    archive_write_set_bytes_per_block(a, 0);
    assert_int_equal(archive_write_open_memory(a, buf, cap, &used), ARCHIVE_OK);
    struct archive_entry *ae = archive_entry_new();
    archive_entry_set_filetype(ae, AE_IFREG);
    archive_write_header(a, ae);
    archive_write_data(a, in, n);
    archive_entry_free(ae);
    archive_write_close(a);
    archive_write_free(a);
    *len = used;
    return buf;
}

static void put(const char *dir, const char *name, const void *b, size_t n)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    fwrite(b, 1, n, f);
    fclose(f);
}

static void put_blob(const char *dir, const void *b, size_t n, char digest[72])
{
    char name[128];
    hexsha(b, n, digest);
    snprintf(name, sizeof name, "blobs/sha256/%s", digest + 7);
    put(dir, name, b, n);
}

/* An OCI layout at DIR with NL layers (each LENS[i] entries), compressed
 * with HOW ("gzip", "zstd", "none"). */
static void layout(const char *dir, const struct ent *const *layers, const size_t *lens,
                   size_t nl, const char *how)
{
    char p[1024], digests[8][72], diffs[8][72], cfgd[72], mand[72];
    size_t sizes[8];
    snprintf(p, sizeof p, "mkdir -p %s/blobs/sha256", dir);
    assert_int_equal(system(p), 0);
    put(dir, "oci-layout", "{\"imageLayoutVersion\":\"1.0.0\"}", 30);
    for (size_t i = 0; i < nl; i++) {
        size_t tl, bl;
        void *t = tar_of(layers[i], lens[i], &tl);
        hexsha(t, tl, diffs[i]);
        void *b = strcmp(how, "none") ? compress_of(t, tl, how, &bl) : t;
        if (b == t)
            bl = tl;
        put_blob(dir, b, bl, digests[i]);
        sizes[i] = bl;
        if (b != t)
            free(b);
        free(t);
    }
    char cfg[4096], man[4096], idx[1024];
    int o = snprintf(cfg, sizeof cfg, "{\"architecture\":\"amd64\",\"os\":\"linux\","
                     "\"rootfs\":{\"type\":\"layers\",\"diff_ids\":[");
    for (size_t i = 0; i < nl; i++)
        o += snprintf(cfg + o, sizeof cfg - o, "%s\"%s\"", i ? "," : "", diffs[i]);
    snprintf(cfg + o, sizeof cfg - o, "]}}");
    put_blob(dir, cfg, strlen(cfg), cfgd);
    const char *mt = strcmp(how, "gzip") == 0 ? "+gzip" : strcmp(how, "zstd") == 0 ? "+zstd" : "";
    o = snprintf(man, sizeof man, "{\"schemaVersion\":2,\"config\":{\"mediaType\":"
                 "\"application/vnd.oci.image.config.v1+json\",\"digest\":\"%s\",\"size\":%zu},"
                 "\"layers\":[", cfgd, strlen(cfg));
    for (size_t i = 0; i < nl; i++)
        o += snprintf(man + o, sizeof man - o, "%s{\"mediaType\":\"application/vnd.oci.image."
                      "layer.v1.tar%s\",\"digest\":\"%s\",\"size\":%zu}", i ? "," : "", mt,
                      digests[i], sizes[i]);
    snprintf(man + o, sizeof man - o, "]}");
    put_blob(dir, man, strlen(man), mand);
    snprintf(idx, sizeof idx, "{\"schemaVersion\":2,\"manifests\":[{\"mediaType\":"
             "\"application/vnd.oci.image.manifest.v1+json\",\"digest\":\"%s\",\"size\":%zu}]}",
             mand, strlen(man));
    put(dir, "index.json", idx, strlen(idx));
}

static const struct ent l0[] = {
    { 'd', "etc", NULL },
    { 'f', "etc/os-release", "ID=base\n" },
    { 'f', "etc/gone", "x" },
    { 'd', "opt/keep", NULL },
    { 'f', "opt/keep/a", "a" },
    { 'f', "opt/keep/b", "b" },
    { 'f', "usr/lib/python3.11/site-packages/x-1.dist-info/METADATA", "Name: x\n" },
    { 'f', "usr/lib/python3.11/site-packages/x/big.bin", "not kept" },
    { 'f', "usr/bin/python3.11", "binary with 3.11.2 inside" },
    { 'l', "usr/bin/python3", "python3.11" },
    { 'l', "etc/loop1", "loop2" },
    { 'l', "etc/loop2", "loop1" },
    { 'l', "escape", "../../../../../etc/os-release" },
    { 'l', "abs", "/opt/keep" },
};
static const struct ent l1[] = {
    { 'f', "etc/.wh.gone", "" },
    { 'f', "opt/keep/.wh..wh..opq", "" },
    { 'f', "opt/keep/c", "c" },
    { 'h', "usr/bin/python3-hl", "usr/bin/python3.11" },     /* target in layer 0 */
    { 'f', "etc/os-release", "ID=top\n" },
    { 'h', "etc/os-release-hl", "etc/os-release" },           /* same layer */
    { 'f', "etc/gone2", "soon whited out in the same layer's lower view" },
};

static struct root *open_at(const char *dir, const struct image_limits *l, unsigned threads,
                            struct sp_error *e)
{
    struct image_open_opts o = { .spec = dir, .limits = l, .threads = threads,
                                 .keep = probe_read_patterns() };
    return root_open_image(&o, e);
}

static void build_two(const char *name, const char *how, char *dir, size_t dirsz)
{
    const struct ent *layers[] = { l0, l1 };
    const size_t lens[] = { sizeof l0 / sizeof *l0, sizeof l1 / sizeof *l1 };
    snprintf(dir, dirsz, "%s/%s", tmp, name);
    layout(dir, layers, lens, 2, how);
}

static void read_is(struct root *r, const char *path, const char *want)
{
    char *b = NULL;
    size_t n;
    if (root_read_file(r, path, 1 << 20, &b, &n) != 0)
        fail_msg("%s: %s", path, strerror(errno));
    assert_string_equal(b, want);
    free(b);
}

static void merge_and_resolve(void **state)
{
    static const char *const how[] = { "gzip", "zstd", "none" };
    for (size_t h = 0; h < 3; h++) {
        char dir[600];
        struct sp_error e = { 0 };
        build_two(how[h], how[h], dir, sizeof dir);
        struct root *r = open_at(dir, NULL, 0, &e);
        if (r == NULL)
            fail_msg("%s: %s", how[h], e.msg);
        assert_int_equal(r->kind, ROOT_IMAGE);
        assert_int_equal(r->live, 0);
        assert_null(r->host_path);
        read_is(r, "/etc/os-release", "ID=top\n");              /* upper replaces lower */
        read_is(r, "/etc/os-release-hl", "ID=top\n");           /* hard link, same layer */
        assert_false(root_exists(r, "/etc/gone"));              /* whiteout */
        assert_true(root_exists(r, "/etc/gone2"));
        char **names;
        size_t n;
        assert_int_equal(root_list_dir(r, "/opt/keep", &names, &n), 0);  /* opaque */
        assert_int_equal(n, 1);
        assert_string_equal(names[0], "c");
        root_names_free(names, n);
        assert_int_equal(root_list_dir(r, "/etc", &names, &n), 0);      /* sorted */
        assert_int_equal(n, 5);
        assert_string_equal(names[0], "gone2");
        assert_string_equal(names[4], "os-release-hl");
        root_names_free(names, n);
        read_is(r, "/usr/bin/python3", "binary with 3.11.2 inside");   /* symlink */
        read_is(r, "/usr/bin/python3-hl", "binary with 3.11.2 inside"); /* hard link, lower */
        read_is(r, "/escape", "ID=top\n");                      /* .. stops at / */
        struct root_stat st;
        assert_int_equal(root_stat(r, "/abs/c", 1, &st), 0);  /* absolute target: inside */
        assert_int_equal(st.type, ROOT_T_FILE);
        assert_int_equal(st.size, 1);
        read_is(r, "/usr/../../etc/./os-release", "ID=top\n");
        char *s = NULL;
        assert_int_equal(root_realpath(r, "/abs", &s), 0);
        assert_string_equal(s, "/opt/keep");
        free(s);
        assert_int_equal(root_read_link(r, "/usr/bin/python3", &s), 0);
        assert_string_equal(s, "python3.11");
        free(s);
        assert_int_equal(root_stat(r, "/usr/bin/python3", 0, &st), 0);
        assert_int_equal(st.type, ROOT_T_LINK);
        assert_int_equal(root_stat(r, "/usr/bin/python3", 1, &st), 0);
        assert_int_equal(st.type, ROOT_T_FILE);
        assert_int_equal(st.size, 25);
        /* errors */
        char *b;
        assert_int_equal(root_read_file(r, "/etc/loop1", 100, &b, &n), -1);
        assert_int_equal(errno, ELOOP);
        assert_int_equal(root_read_file(r, "/etc/os-release/x", 100, &b, &n), -1);
        assert_int_equal(errno, ENOTDIR);
        assert_int_equal(root_read_file(r, "/etc", 100, &b, &n), -1);
        assert_int_equal(errno, EISDIR);
        assert_int_equal(root_read_file(r, "/etc/os-release", 3, &b, &n), -1);
        assert_int_equal(errno, EFBIG);
        assert_int_equal(root_read_file(r, "/usr/lib/python3.11/site-packages/x/big.bin",
                                        100, &b, &n), -1);
        assert_int_equal(errno, ENOTSUP);                       /* not kept */
        assert_true(root_exists(r, "/usr/lib/python3.11/site-packages/x/big.bin"));
        read_is(r, "/usr/lib/python3.11/site-packages/x-1.dist-info/METADATA", "Name: x\n");
        assert_int_equal(root_read_file(r, "/sys/class/dmi/id/product_name", 100, &b, &n), -1);
        assert_int_equal(errno, ENOENT);
        struct factset fs;
        factset_init(&fs);
        assert_int_equal(image_root_facts(r, &fs), 0);
        assert_fact(&fs, "image.layers", "2");
        assert_fact(&fs, "image.manifest_digest_source", "oci-index");
        assert_no_fact(&fs, "image.ref");
        factset_free(&fs);
        root_close(r);
    }
}

static int count_cb(void *ctx, const char *chunk, size_t n)
{
    (void)chunk;
    *(size_t *)ctx += n;
    return 0;
}

static void scan_and_threads(void **state)
{
    char dir[600];
    struct sp_error e = { 0 };
    build_two("threads", "gzip", dir, sizeof dir);
    struct root *one = open_at(dir, NULL, 1, &e), *two = open_at(dir, NULL, 2, &e);
    assert_non_null(one);
    assert_non_null(two);
    struct factset a, b;
    factset_init(&a);
    factset_init(&b);
    image_root_facts(one, &a);
    image_root_facts(two, &b);
    assert_int_equal(a.count, b.count);
    for (size_t i = 0; i < a.count; i++) {
        assert_string_equal(a.facts[i].key, b.facts[i].key);
        assert_string_equal(a.facts[i].value, b.facts[i].value);
    }
    size_t got = 0;
    assert_int_equal(root_scan_file(two, "/usr/bin/python3", 10, count_cb, &got), 0);
    assert_int_equal(got, 10);
    factset_free(&a);
    factset_free(&b);
    root_close(one);
    root_close(two);
}

/* Each bound of struct image_limits, lowered until the test image crosses it. */
static void bounds(void **state)
{
    char dir[600];
    build_two("bounds", "gzip", dir, sizeof dir);
    static const struct { const char *field; const char *msg; } cases[] = {
        { "entries_max", "more than 10 entries" },
        { "keep_total_max", "content kept past the limit of 20 bytes" },
        { "inflated_max", "inflates past 4096 bytes" },
        { "ratio_max", "inflates more than 1 times its size" },
        { "name_max", "name longer than the limit" },
        { "json_max", "larger than 100 bytes" },
        { "layers_max", "2 layers, more than 1" },
        { "members_max", "more than 3 members" },
        { "descriptors_max", "more than 0 descriptors in the image indexes" },
        { "json_total_max", "more than 300 bytes of index, manifest and config JSON read" },
        { "keep_file_max", NULL },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct image_limits l;
        struct sp_error e = { 0 };
        image_limits_default(&l);
        const char *spec = dir;
        char tarpath[700];
        if (strcmp(cases[i].field, "entries_max") == 0) l.entries_max = 10;
        if (strcmp(cases[i].field, "keep_total_max") == 0) l.keep_total_max = 20;
        if (strcmp(cases[i].field, "inflated_max") == 0) l.inflated_max = 4096;
        if (strcmp(cases[i].field, "ratio_max") == 0) { l.ratio_max = 1; l.ratio_after = 0; }
        if (strcmp(cases[i].field, "name_max") == 0) l.name_max = 20;
        if (strcmp(cases[i].field, "json_max") == 0) l.json_max = 100;
        if (strcmp(cases[i].field, "layers_max") == 0) l.layers_max = 1;
        if (strcmp(cases[i].field, "keep_file_max") == 0) l.keep_file_max = 4;
        if (strcmp(cases[i].field, "descriptors_max") == 0) l.descriptors_max = 0;
        if (strcmp(cases[i].field, "json_total_max") == 0) l.json_total_max = 300;
        if (strcmp(cases[i].field, "members_max") == 0) {
            l.members_max = 3;
            char cmd[1600];
            snprintf(tarpath, sizeof tarpath, "%s.tar", dir);
            snprintf(cmd, sizeof cmd, "cd %s && tar cf %s oci-layout index.json blobs", dir, tarpath);
            assert_int_equal(system(cmd), 0);
            spec = tarpath;
        }
        struct root *r = open_at(spec, &l, 0, &e);
        if (cases[i].msg == NULL) {
            /* keep_file_max: a prefix is kept; reading the whole fails, scanning the
             * prefix works */
            assert_non_null(r);
            char *b;
            size_t n, got = 0;
            assert_int_equal(root_read_file(r, "/etc/os-release", 100, &b, &n), -1);
            assert_int_equal(errno, ENOTSUP);
            assert_int_equal(root_scan_file(r, "/etc/os-release", 100, count_cb, &got), -1);
            assert_int_equal(got, 4);
            root_close(r);
            continue;
        }
        if (r != NULL)
            fail_msg("%s: opened past the bound", cases[i].field);
        assert_int_equal(e.exit_code, SP_EXIT_INPUT);
        if (strstr(e.msg, cases[i].msg) == NULL)
            fail_msg("%s: message \"%s\" lacks \"%s\"", cases[i].field, e.msg, cases[i].msg);
    }
}

/* Hard links share one copy of kept content: three links to a 10-byte
 * kept file fit a 15-byte kept total. */
static void hardlinks_share(void **state)
{
    static const struct ent l[] = {
        { 'f', "etc/os-release", "ID=shared\n" },
        { 'h', "etc/a", "etc/os-release" },
        { 'h', "etc/b", "etc/os-release" },
        { 'h', "etc/hostname", "etc/os-release" },
    };
    const struct ent *layers[] = { l };
    const size_t lens[] = { 4 };
    char dir[600];
    struct image_limits lim;
    struct sp_error e = { 0 };
    snprintf(dir, sizeof dir, "%s/share", tmp);
    layout(dir, layers, lens, 1, "gzip");
    image_limits_default(&lim);
    lim.keep_total_max = 15;
    struct root *r = open_at(dir, &lim, 0, &e);
    if (r == NULL)
        fail_msg("%s", e.msg);
    read_is(r, "/etc/hostname", "ID=shared\n");
    read_is(r, "/etc/os-release", "ID=shared\n");
    root_close(r);
}

static void spec_and_keep(void **state)
{
    char *p, *t;
    char dir[600];
    snprintf(dir, sizeof dir, "%s/spec:odd", tmp);
    mkdir(dir, 0755);
    assert_int_equal(image_parse_spec(dir, &p, &t), 0);          /* exists as given */
    assert_string_equal(p, dir);
    assert_null(t);
    free(p);
    char spec[700];
    snprintf(spec, sizeof spec, "%s:repo/name:tag", dir);
    assert_int_equal(image_parse_spec(spec, &p, &t), 0);
    assert_string_equal(p, dir);
    assert_string_equal(t, "repo/name:tag");
    free(p);
    free(t);
    struct image_limits l;
    image_limits_default(&l);
    assert_false(image_keep("etc/os-release", &l) > 0);     /* no patterns: nothing kept */
    l.keep = probe_read_patterns();
    assert_true(image_keep("etc/os-release", &l) > 0);
    assert_true(image_keep("var/lib/dpkg/status", &l) > 0);
    assert_true(image_keep("opt/v/lib/python3.11/site-packages/a-1.dist-info/METADATA", &l) > 0);
    assert_true(image_keep("usr/local/bin/python3.12", &l) > 0);
    assert_true(image_keep("usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0", &l) > 0);
    assert_true(image_keep("x/site-packages/torch/version.py", &l) > 0);
    assert_true(image_keep("x/site-packages/torch_neuronx/_build_config.py", &l) > 0);
    assert_true(image_keep("usr/lib/python3.11/site.py", &l) > 0);
    assert_false(image_keep("usr/lib/python3.11/os.py", &l) > 0);
    assert_false(image_keep("usr/lib/python3.12/config-3.12/libpython3.12.a", &l) > 0);
    assert_false(image_keep("x/site-packages/torch-2.9.0.dist-info/RECORD", &l) > 0);
    assert_false(image_keep("usr/lib/x86_64-linux-gnu/libc.so.6", &l) > 0);
    assert_false(image_keep("x/site-packages/torch/lib/libtorch_cpu.so", &l) > 0);
    assert_false(image_keep("home/u/etc/os-release", &l) > 0);
}

static int setup(void **state)
{
    const char *base = getenv("TMPDIR");
    snprintf(tmp, sizeof tmp, "%s/test_image.XXXXXX", base ? base : "/tmp");
    return mkdtemp(tmp) ? 0 : -1;
}

static int teardown(void **state)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(merge_and_resolve),
        cmocka_unit_test(scan_and_threads),
        cmocka_unit_test(bounds),
        cmocka_unit_test(hardlinks_share),
        cmocka_unit_test(spec_and_keep),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
