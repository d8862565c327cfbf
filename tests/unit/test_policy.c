/* tests/unit/test_policy.c: strict policy loading: each bound crossed
 * (nesting, size, files, folders), folders and the catalog, with exact
 * messages.  Positions are 1-based line:column of the offending token, as
 * an editor shows them.  The refused policies (every error path of a
 * single document) and the evaluation cases (each verdict, when, severity,
 * --strict, fact references) are data: tests/data/policy_load.test and
 * tests/data/evaluate.test, run by tests/unit/test_cases.c. */
#include "tests/unit/testlib.h"

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checks/policy.h"
#include "manifest/node.h"

static void nesting_bound(void **state)
{
    /* SP_NODE_DEPTH_MAX (16) nested collections are read (and refused by
     * the policy rules); one more is refused by the reader, with its place */
    char text[256];
    for (int depth = SP_NODE_DEPTH_MAX - 1; depth <= SP_NODE_DEPTH_MAX; depth++) {
        int n = snprintf(text, sizeof text, "policy: a\nrequire:\n  k: ");
        for (int i = 0; i < depth - 1; i++)
            text[n++] = '[';
        for (int i = 0; i < depth - 1; i++)
            text[n++] = ']';
        text[n++] = '\n';
        text[n] = '\0';
        struct sp_policy_set ps;
        struct sp_error e;
        sp_policy_set_init(&ps);
        assert_int_equal(sp_policy_parse(&ps, text, strlen(text), "p.yaml", &e), -1);
        if (depth == SP_NODE_DEPTH_MAX)
            assert_string_equal(e.msg, "p.yaml:3:20: nesting deeper than 16");
        else
            assert_string_equal(e.msg, "p.yaml:3:6: k: a test is a text or a mapping (one_of, equals, specifier or one_of_fact), not a list");
        sp_policy_set_free(&ps);
    }
}

static const char good[] = "policy: a\nrequire: {k: present}\n";

static void size_bound(void **state)
{
    struct sp_policy_set ps;
    struct sp_error e;
    char *big = malloc(SP_POLICY_MAX_BYTES + 2);
    assert_non_null(big);
    memset(big, ' ', SP_POLICY_MAX_BYTES + 1);
    memcpy(big, good, strlen(good));
    big[strlen(good)] = '#';                       /* the rest is a comment */
    sp_policy_set_init(&ps);
    assert_int_equal(sp_policy_parse(&ps, big, SP_POLICY_MAX_BYTES, "p.yaml", &e), 0);
    assert_int_equal(sp_policy_parse(&ps, big, SP_POLICY_MAX_BYTES + 1, "q.yaml", &e), -1);
    assert_string_equal(e.msg, "q.yaml: larger than the policy size limit (1048576 bytes)");

    /* the same through a file */
    char path[256];
    snprintf(path, sizeof path, "%s/big.yaml", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    fwrite(big, 1, SP_POLICY_MAX_BYTES + 1, fp);
    fclose(fp);
    sp_policy_set_free(&ps);
    assert_int_equal(sp_policy_load(&ps, path, &e), -1);
    assert_non_null(strstr(e.msg, "big.yaml: larger than the policy size limit (1048576 bytes)"));
    unlink(path);
    free(big);
    sp_policy_set_free(&ps);
}

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

static void folders_and_files(void **state)
{
    char dir[256], path[512];
    struct sp_policy_set ps;
    struct sp_error e;
    snprintf(dir, sizeof dir, "%s/pol.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    assert_non_null(mkdtemp(dir));
    sp_policy_set_init(&ps);

    assert_int_equal(sp_policy_load(&ps, dir, &e), -1);              /* empty folder */
    snprintf(path, sizeof path, "%s: no *.yaml or *.yml policy files", dir);
    assert_string_equal(e.msg, path);

    write_file(dir, "b.yaml", "policy: b\nrequire: {k: present}\n");
    write_file(dir, "a.yaml", "policy: a\nrequire: {k: present}\n");
    write_file(dir, ".hidden.yaml", "not: a policy\n");
    write_file(dir, "notes.txt", "not a policy\n");
    write_file(dir, "c.yml", "policy: c\nrequire: {k: present}\n"); /* .yml as .yaml */
    write_file(dir, "d.yaml~", "not: read either\n");
    assert_int_equal(sp_policy_load(&ps, dir, &e), 0);
    assert_int_equal(ps.count, 3);                                    /* sorted by name */
    assert_string_equal(ps.policies[0].name, "a");
    assert_string_equal(ps.policies[1].name, "b");
    assert_string_equal(ps.policies[2].name, "c");
    snprintf(path, sizeof path, "%s/a.yaml", dir);
    assert_string_equal(ps.policies[0].file, path);

    assert_int_equal(sp_policy_load(&ps, path, &e), -1);             /* loaded twice */
    char want[1200];
    snprintf(want, sizeof want, "%s:1:9: policy 'a' is also defined in %s", path, path);
    assert_string_equal(e.msg, want);
    sp_policy_set_free(&ps);

    snprintf(path, sizeof path, "%s/fifo.yaml", dir);                 /* never blocks */
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_int_equal(sp_policy_load(&ps, path, &e), -1);
    snprintf(want, sizeof want, "%s: not a regular file", path);
    assert_string_equal(e.msg, want);
    assert_int_equal(sp_policy_load(&ps, dir, &e), -1);
    assert_string_equal(e.msg, want);
    unlink(path);
    sp_policy_set_free(&ps);

    snprintf(path, sizeof path, "%s/none.yaml", dir);
    assert_int_equal(sp_policy_load(&ps, path, &e), -1);
    snprintf(want, sizeof want, "%s: No such file or directory", path);
    assert_string_equal(e.msg, want);

    /* SP_POLICY_FILES_MAX files are read; one more is refused */
    for (int i = 0; i < SP_POLICY_FILES_MAX - 3; i++) {           /* + a, b, c */
        char name[32], text[64];
        snprintf(name, sizeof name, "p%04d.yaml", i);
        snprintf(text, sizeof text, "policy: p%04d\nforbid: {k: present}\n", i);
        write_file(dir, name, text);
    }
    assert_int_equal(sp_policy_load(&ps, dir, &e), 0);
    assert_int_equal(ps.count, SP_POLICY_FILES_MAX);
    sp_policy_set_free(&ps);
    write_file(dir, "z.yaml", "policy: z\nforbid: {k: present}\n");
    assert_int_equal(sp_policy_load(&ps, dir, &e), -1);
    snprintf(want, sizeof want, "%s: more than 1000 policy files", dir);
    assert_string_equal(e.msg, want);
    sp_policy_set_free(&ps);
    snprintf(want, sizeof want, "rm -r '%s'", dir);
    assert_int_equal(system(want), 0);
}

/* ---- fact references and one_of_fact ------------------------------------ */

/* the bound itself loads: ${KEY:16} and components: 16 (the refused
 * references are cases of tests/data/policy_load.test) */
static void reference_bounds_load(void **state)
{
    static const char edge[] = "policy: a\nrequire:\n  pip.torch: \"==${pip.x:16}.*\"\n"
                               "  python.version: {one_of_fact: x, components: 16}\n";
    struct sp_policy_set ps;
    struct sp_error e;
    sp_policy_set_init(&ps);
    assert_int_equal(sp_policy_parse(&ps, edge, strlen(edge), "p.yaml", &e), 0);
    const struct sp_clause *c = &ps.policies[0].rules[0].require[0].test.specifier->clauses[0];
    assert_string_equal(c->ref, "pip.x");
    assert_int_equal(c->ref_components, 16);
    assert_true(c->wildcard);
    assert_int_equal(ps.policies[0].rules[0].require[1].test.components, 16);
    sp_policy_set_free(&ps);
}

static void leading_components(void **state)
{
    static const struct { const char *scheme, *text; unsigned n; const char *want; } cases[] = {
        { "pep440", "2.1.2.2.2.0+cu121", 3, "2.1.2" },
        { "pep440", "v1!2.0.1rc1", 2, "1!2.0" },
        { "pep440", "2.1rc1", 2, "2.1" },
        { "pep440", "2.1rc1", 3, NULL },
        { "deb", "1:2.19.5.0-1", 2, "1:2.19" },
        { "dotted", "2.16", 1, "2" },
        { "dotted", "2.16", 3, NULL },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct sp_error e;
        char out[64];
        struct sp_version *v = sp_version_parse(sp_scheme_by_name(cases[i].scheme), cases[i].text, &e);
        assert_non_null(v);
        int r = sp_version_leading(v, cases[i].n, out, sizeof out);
        if (cases[i].want == NULL)
            assert_int_equal(r, -1);
        else {
            assert_int_equal(r, 0);
            assert_string_equal(out, cases[i].want);
        }
        sp_version_free(v);
    }
}

/* folders: sub-folders are read (bytewise order of path), to a depth
 * bound; a catalog document becomes the set's catalog, one only */
static void subfolders_and_catalog(void **state)
{
    char dir[256], path[600], want[1400];
    struct sp_policy_set ps;
    struct sp_error e;
    snprintf(dir, sizeof dir, "%s/sub.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/b", dir);
    assert_int_equal(mkdir(path, 0700), 0);
    write_file(path, "a.yaml", "policy: ba\nrequire: {k: present}\n");
    write_file(dir, "a.yaml", "policy: a\nrequire: {k: present}\n");
    write_file(dir, "c.yaml", "catalog: neuron-sdk\nsource: s\nreleases:\n"
                              "  - release: \"1.0\"\n    packages:\n"
                              "      - \"x 1.0 trn1 -\"\n");
    snprintf(path, sizeof path, "%s/.hidden", dir);
    assert_int_equal(mkdir(path, 0700), 0);
    write_file(path, "h.yaml", "not: read\n");
    sp_policy_set_init(&ps);
    assert_int_equal(sp_policy_load(&ps, dir, &e), 0);
    assert_int_equal(ps.count, 2);
    assert_string_equal(ps.policies[0].name, "a");
    assert_string_equal(ps.policies[1].name, "ba");
    assert_non_null(ps.catalog);
    assert_int_equal(ps.catalog->nreleases, 1);
    snprintf(path, sizeof path, "%s/c.yaml", dir);
    assert_string_equal(ps.catalog_file, path);
    /* a second catalog */
    assert_int_equal(sp_policy_load(&ps, path, &e), -1);
    snprintf(want, sizeof want, "%s:1:1: a second release catalog (one is loaded from %s)", path, path);
    assert_string_equal(e.msg, want);
    sp_policy_set_free(&ps);

    /* SP_POLICY_DEPTH_MAX levels below the folder are read; one more is refused */
    size_t n = (size_t)snprintf(path, sizeof path, "%s/d", dir);
    assert_int_equal(mkdir(path, 0700), 0);
    for (int i = 1; i < SP_POLICY_DEPTH_MAX; i++) {
        n += (size_t)snprintf(path + n, sizeof path - n, "/d");
        assert_int_equal(mkdir(path, 0700), 0);
    }
    write_file(path, "deep.yaml", "policy: deep\nrequire: {k: present}\n");
    assert_int_equal(sp_policy_load(&ps, dir, &e), 0);
    assert_int_equal(ps.count, 3);
    sp_policy_set_free(&ps);
    n += (size_t)snprintf(path + n, sizeof path - n, "/d");
    assert_int_equal(mkdir(path, 0700), 0);
    assert_int_equal(sp_policy_load(&ps, dir, &e), -1);
    snprintf(want, sizeof want, "%s: folders nested deeper than %d levels", dir, SP_POLICY_DEPTH_MAX);
    assert_string_equal(e.msg, want);
    sp_policy_set_free(&ps);

    /* a symbolic link to a folder is not followed (no loops) */
    snprintf(want, sizeof want, "rm -r '%s/d' && ln -s . '%s/loop'", dir, dir);
    assert_int_equal(system(want), 0);
    assert_int_equal(sp_policy_load(&ps, dir, &e), 0);
    assert_int_equal(ps.count, 2);
    sp_policy_set_free(&ps);
    snprintf(want, sizeof want, "rm -r '%s'", dir);
    assert_int_equal(system(want), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nesting_bound),
        cmocka_unit_test(size_bound),
        cmocka_unit_test(folders_and_files),
        cmocka_unit_test(reference_bounds_load),
        cmocka_unit_test(leading_components),
        cmocka_unit_test(subfolders_and_catalog),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
