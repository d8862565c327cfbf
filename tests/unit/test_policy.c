/* tests/unit/test_policy.c: strict policy loading (every error path, with
 * its exact message and position, each bound crossed).  Positions are
 * 1-based line:column of the offending token, as an editor shows them.
 * The evaluation cases (each verdict, when, severity, --strict, fact
 * references) are data: tests/data/evaluate.test, run by
 * tests/unit/test_cases.c. */
#include "tests/unit/testlib.h"

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checks/policy.h"
#include "manifest/node.h"

static void assert_load_error(const char *text, const char *msg)
{
    struct sp_policy_set ps;
    struct sp_error e = { 0 };
    sp_policy_set_init(&ps);
    if (sp_policy_parse(&ps, text, strlen(text), "p.yaml", &e) == 0)
        fail_msg("loaded:\n%s", text);
    assert_int_equal(ps.count, 0);
    assert_string_equal(e.msg, msg);
    assert_int_equal(e.exit_code, SP_EXIT_INPUT);
    sp_policy_set_free(&ps);
}

static void load_errors(void **state)
{
    static const char *const cases[][2] = {
        { "policy: a\nrequire: {k: present}\nfoo: 1\n",
          "p.yaml:3:1: unknown key 'foo' in a policy (expected policy, description, source, when, require, forbid, rules)" },
        { "policy: a\npolicy: b\n", "p.yaml:2:1: duplicate key 'policy'" },
        { "policy: &x a\nrequire: {k: present}\n", "p.yaml:1:9: anchors are not allowed" },
        { "policy: a\nrequire: {k: *x}\n", "p.yaml:2:14: aliases are not allowed" },
        { "policy: a\nrequire: {k: present}\n---\npolicy: b\n", "p.yaml:3:1: more than one document" },
        { "policy: !!int 5\n", "p.yaml:1:9: tag tag:yaml.org,2002:int is not allowed" },
        { "", "p.yaml:1:1: empty document" },
        { "- a\n", "p.yaml:1:1: a policy must be a mapping" },
        { "require: {k: present}\n", "p.yaml:1:1: missing key 'policy' (the policy's name)" },
        { "policy: a b\nrequire: {k: present}\n",
          "p.yaml:1:9: policy name 'a b' must be 1 to 128 letters, digits, '.', '_' or '-'" },
        { "policy: [a]\n", "p.yaml:1:9: policy must be a text, not a list" },
        { "policy: a\ndescription: {x: 1}\nrequire: {k: present}\n",
          "p.yaml:2:14: description must be a text, not a mapping" },
        { "policy: a\ndescription: nothing to check\n", "p.yaml:1:1: policy 'a' requires and forbids nothing" },
        { "policy: a\nrequire: [k]\n", "p.yaml:2:10: require must be a mapping of fact keys to tests" },
        { "policy: a\nrequire:\n  pip.Torch_Neuronx: present\n",
          "p.yaml:3:3: 'pip.Torch_Neuronx': pip names are recorded PEP 503-normalised: write pip.torch-neuronx" },
        { "policy: a\nrequire:\n  python.env.venv.pip.Torch: present\n",
          "p.yaml:3:3: 'python.env.venv.pip.Torch': pip names are recorded PEP 503-normalised: write python.env.venv.pip.torch" },
        { "policy: a\nrequire:\n  'pip torch': present\n",
          "p.yaml:3:3: 'pip torch': a fact key holds only letters, digits and . _ + -" },
        { "policy: a\nrequire:\n  pip..torch: present\n", "p.yaml:3:3: 'pip..torch': empty part in the fact key" },
        { "policy: a\nrequire:\n  pip.torch: \">=2.x\"\n",
          "p.yaml:3:14: pip.torch: '>=2.x': '2.x' is not a valid PEP 440 version: unexpected text after the version" },
        { "policy: a\nrequire:\n  deb.x: \">=1.0,\"\n", "p.yaml:3:10: deb.x: empty clause" },
        { "policy: a\nrequire:\n  k: ''\n",
          "p.yaml:3:6: k: empty test (write absent for a fact that must not be there)" },
        { "policy: a\nrequire:\n  k: [a]\n",
          "p.yaml:3:6: k: a test is a text or a mapping (one_of, equals, specifier or one_of_fact), not a list" },
        { "policy: a\nrequire:\n  k: {one_of: []}\n", "p.yaml:3:15: k: one_of must be a list of texts, not empty" },
        { "policy: a\nrequire:\n  k: {one_of: [a, [b]]}\n", "p.yaml:3:19: k: an item of one_of must be a text, not a list" },
        { "policy: a\nrequire:\n  k: {equals: a, one_of: [b]}\n",
          "p.yaml:3:6: k: a test mapping holds exactly one of one_of, equals, specifier, one_of_fact" },
        { "policy: a\nrequire:\n  k: {scheme: deb}\n",
          "p.yaml:3:6: k: a test mapping holds exactly one of one_of, equals, specifier, one_of_fact" },
        { "policy: a\nrequire:\n  k: {equals: a, scheme: deb}\n", "p.yaml:3:26: k: scheme goes with specifier" },
        { "policy: a\nrequire:\n  k: {specifier: '>=1', scheme: semver}\n",
          "p.yaml:3:33: k: unknown scheme 'semver' (pep440, deb, rpm or dotted)" },
        { "policy: a\nrequire:\n  k: {specifier: '1.0'}\n",
          "p.yaml:3:18: k: '1.0' is not a specifier set (it starts with an operator: == != < <= > >= ~= ===)" },
        { "policy: a\nrequire:\n  k: {specifier: '>=1', version: 2}\n",
          "p.yaml:3:25: unknown key 'version' in a test (expected one_of, equals, specifier, scheme, one_of_fact, components)" },
        { "policy: a\nrules: {name: r}\n", "p.yaml:2:8: rules must be a list of rules" },
        { "policy: a\nrules:\n  - just text\n", "p.yaml:3:5: a rule must be a mapping" },
        { "policy: a\nrules:\n  - require: {k: present}\n", "p.yaml:3:5: a rule needs a name" },
        { "policy: a\nrules:\n  - name: r\n    severity: fatal\n    require: {k: present}\n",
          "p.yaml:4:15: severity must be error or warning, not 'fatal'" },
        { "policy: a\nrules:\n  - name: r\n    require: {k: present}\n    level: x\n",
          "p.yaml:5:5: unknown key 'level' in a rule (expected name, when, require, forbid, severity, message, source)" },
        { "policy: a\nrules:\n  - name: r\n    when: {k: present}\n", "p.yaml:3:5: rule 'r' requires and forbids nothing" },
        { "policy: a\nrules:\n  - name: r\n    require: {k: present}\n  - name: r\n    forbid: {k: absent}\n",
          "p.yaml:5:11: two rules named 'r'" },
        { "policy: a\nrules:\n  - name: forbid\n    require: {k: present}\n",
          "p.yaml:3:11: rule name 'forbid' is reserved for the policy's own forbid" },
        { "policy: a\nrules:\n  - name: when\n    require: {k: present}\n",
          "p.yaml:3:11: rule name 'when' is reserved for the policy's own when" },
        { "policy: a\nrules:\n  - name: r\n    message: [x]\n    require: {k: present}\n",
          "p.yaml:4:14: message must be a text, not a list" },
        { "policy: a\nrules:\n  - name: r\n    source: {x: 1}\n    require: {k: present}\n",
          "p.yaml:4:13: source must be a text, not a mapping" },
        { "{policy: a, require: {k: present}, x: 1}\n",
          "p.yaml:1:36: unknown key 'x' in a policy (expected policy, description, source, when, require, forbid, rules)" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        assert_load_error(cases[i][0], cases[i][1]);
}

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

static void reference_load_errors(void **state)
{
    static const char *const cases[][2] = {
        { "policy: a\nrequire:\n  pip.torch: \"==${pip.torch-neuronx\"\n",
          "p.yaml:3:14: pip.torch: '==${pip.torch-neuronx': a fact reference is written ${KEY} or ${KEY:N}, N from 1 to 16" },
        { "policy: a\nrequire:\n  pip.torch: \"==2.${pip.x}\"\n",
          "p.yaml:3:14: pip.torch: '==2.${pip.x}': a fact reference is written ${KEY} or ${KEY:N}, N from 1 to 16" },
        { "policy: a\nrequire:\n  pip.torch: \"==${pip.x:0}\"\n",
          "p.yaml:3:14: pip.torch: '==${pip.x:0}': a fact reference is written ${KEY} or ${KEY:N}, N from 1 to 16" },
        { "policy: a\nrequire:\n  pip.torch: \"==${pip.x:17}\"\n",
          "p.yaml:3:14: pip.torch: '==${pip.x:17}': a fact reference is written ${KEY} or ${KEY:N}, N from 1 to 16" },
        { "policy: a\nrequire:\n  pip.torch: \"==${pip.x:}\"\n",
          "p.yaml:3:14: pip.torch: '==${pip.x:}': a fact reference is written ${KEY} or ${KEY:N}, N from 1 to 16" },
        { "policy: a\nrequire:\n  pip.torch: \"==${$x}\"\n",
          "p.yaml:3:14: pip.torch: '==${$x}': a fact reference is written ${KEY} or ${KEY:N}, N from 1 to 16" },
        { "policy: a\nrequire:\n  pip.torch: \"==${pip..x}\"\n",
          "p.yaml:3:14: pip.torch: '==${pip..x}': 'pip..x' is not a fact key" },
        { "policy: a\nrequire:\n  pip.torch: \"==${}\"\n",
          "p.yaml:3:14: pip.torch: '==${}': a fact reference is written ${KEY} or ${KEY:N}, N from 1 to 16" },
        { "policy: a\nrequire:\n  pip.torch: \"===${pip.x}\"\n",
          "p.yaml:3:14: pip.torch: '===${pip.x}': === compares text and takes no fact reference" },
        { "policy: a\nrequire:\n  pip.torch: \">=${pip.x}.*\"\n",
          "p.yaml:3:14: pip.torch: '>=${pip.x}.*': .* is allowed only with == and !=" },
        { "policy: a\nrequire:\n  pip.torch-xla: \"${pip.torch}\"\n",
          "p.yaml:3:18: pip.torch-xla: '${pip.torch}': a fact reference goes in a specifier (==${KEY}); write {equals: ...} for this text" },
        { "policy: a\nrequire:\n  python.version: {one_of_fact: 'a b'}\n",
          "p.yaml:3:33: python.version: one_of_fact 'a b': a fact key holds only letters, digits and . _ + -" },
        { "policy: a\nrequire:\n  python.version: {one_of_fact: x, components: 0}\n",
          "p.yaml:3:48: python.version: components must be a number from 1 to 16, not '0'" },
        { "policy: a\nrequire:\n  python.version: {one_of_fact: x, components: 17}\n",
          "p.yaml:3:48: python.version: components must be a number from 1 to 16, not '17'" },
        { "policy: a\nrequire:\n  python.version: {one_of: [a], components: 2}\n",
          "p.yaml:3:45: python.version: components goes with one_of_fact" },
        { "policy: a\nrequire:\n  python.version: {one_of_fact: x, equals: y}\n",
          "p.yaml:3:19: python.version: a test mapping holds exactly one of one_of, equals, specifier, one_of_fact" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        assert_load_error(cases[i][0], cases[i][1]);

    /* the bound itself loads: ${KEY:16} and components: 16 */
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
        cmocka_unit_test(load_errors),
        cmocka_unit_test(nesting_bound),
        cmocka_unit_test(size_bound),
        cmocka_unit_test(folders_and_files),
        cmocka_unit_test(reference_load_errors),
        cmocka_unit_test(leading_components),
        cmocka_unit_test(subfolders_and_catalog),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
