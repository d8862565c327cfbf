/* tests/unit/test_policy.c: strict policy loading (every error path, with
 * its exact message and position, each bound crossed) and evaluation (each
 * verdict, when, severity, --strict).  Positions are 1-based line:column of
 * the offending token, as an editor shows them. */
#include "tests/unit/testlib.h"

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checks/evaluate.h"
#include "checks/policy.h"
#include "checks/report.h"
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

/* ---- evaluation --------------------------------------------------------- */

static const char policy_text[] =
    "policy: p\n"
    "when: {torch.backend: xla}\n"
    "require:\n"
    "  pip.torch: \"==2.9.*\"\n"              /* ok */
    "  python.version: \">=3.12\"\n"          /* violated */
    "  pip.torch-xla: present\n"              /* missing */
    "  neuron.driver.version: \">=2.20\"\n"   /* invalid: 2.x */
    "  pip.torch-neuron: absent\n"            /* ok */
    "forbid:\n"
    "  host.instance_family: {one_of: [inf1]}\n"   /* ok: trn2 */
    "  deb.legacy: present\n"                 /* violated */
    "rules:\n"
    "  - name: native\n"
    "    when: {torch.backend: native}\n"
    "    require: {host.instance_family: trn2}\n"  /* not applicable */
    "  - name: soft\n"
    "    severity: warning\n"
    "    message: a warning\n"
    "    source: where the constant comes from\n"   /* read, never shown */
    "    require: {host.instance_family: trn3}\n"  /* violated, warning */
    "  - name: undecided\n"
    "    when: {neuron.driver.version: \">=2\"}\n" /* invalid condition */
    "    require: {host.instance_family: trn2}\n";

static void facts_fill(struct factset *fs)
{
    factset_init(fs);
    factset_set(fs, "torch.backend", "xla", NULL);
    factset_set(fs, "pip.torch", "2.9.0+cu121", NULL);
    factset_set(fs, "python.version", "3.11.7", NULL);
    factset_set(fs, "neuron.driver.version", "2.x", NULL);
    factset_set(fs, "host.instance_family", "trn2", NULL);
    factset_set(fs, "deb.legacy", "1.0", NULL);
}

static void evaluation(void **state)
{
    static const struct { const char *rule, *key; enum sp_verdict v; int fails; } want[] = {
        { "require", "pip.torch", SP_VERDICT_OK, 0 },
        { "require", "python.version", SP_VERDICT_VIOLATED, 1 },
        { "require", "pip.torch-xla", SP_VERDICT_MISSING, 1 },
        { "require", "neuron.driver.version", SP_VERDICT_INVALID, 1 },
        { "require", "pip.torch-neuron", SP_VERDICT_OK, 0 },
        { "forbid", "host.instance_family", SP_VERDICT_OK, 0 },
        { "forbid", "deb.legacy", SP_VERDICT_VIOLATED, 1 },
        { "native", "host.instance_family", SP_VERDICT_NOT_APPLICABLE, 0 },
        { "soft", "host.instance_family", SP_VERDICT_VIOLATED, 0 },
        { "undecided", "neuron.driver.version", SP_VERDICT_INVALID, 1 },
    };
    struct sp_policy_set ps;
    struct sp_error e;
    struct factset fs;
    struct sp_report r;
    sp_policy_set_init(&ps);
    sp_report_init(&r);
    facts_fill(&fs);
    assert_int_equal(sp_policy_parse(&ps, policy_text, strlen(policy_text), "p.yaml", &e), 0);
    struct sp_eval_ctx ctx = { .facts = &fs };
    for (int round = 0; round < 2; round++) {              /* a report can be reused */
        assert_int_equal(sp_evaluate(&ps, &ctx, &r, &e), 0);
        assert_int_equal(r.count, sizeof want / sizeof *want);
        for (size_t i = 0; i < r.count; i++) {
            const struct sp_result *res = &r.results[i];
            assert_string_equal(res->rule->name, want[i].rule);
            assert_string_equal(res->requirement->key, want[i].key);
            if (res->verdict != want[i].v || res->fails != want[i].fails)
                fail_msg("%s %s: %s fails=%d", want[i].rule, want[i].key,
                         sp_verdict_name(res->verdict), res->fails);
        }
        assert_string_equal(r.results[3].detail,
                            "'2.x' is not a valid dotted version: only digits and dots are allowed");
        assert_int_equal(r.results[9].role, SP_ROLE_WHEN);
        assert_int_equal(r.errors, 5);
        assert_int_equal(r.warnings, 1);
        assert_int_equal(r.verdicts[SP_VERDICT_OK], 3);
        assert_false(r.passed);
    }

    /* --strict: the warning fails too */
    ctx.flags = SP_EVAL_STRICT;
    assert_int_equal(sp_evaluate(&ps, &ctx, &r, &e), 0);
    assert_true(r.results[8].fails);

    /* the policy's when does not hold: everything not applicable, passed */
    factset_set(&fs, "torch.backend", "native", NULL);
    assert_int_equal(sp_evaluate(&ps, &ctx, &r, &e), 0);
    assert_int_equal(r.verdicts[SP_VERDICT_NOT_APPLICABLE], r.count);
    assert_true(r.passed);
    sp_report_free(&r);
    sp_policy_set_free(&ps);
    factset_free(&fs);
}

static void undecidable_policy_when(void **state)
{
    static const char text[] = "policy: q\nwhen: {pip.torch: \">=2\"}\nrequire: {k: present}\n";
    struct sp_policy_set ps;
    struct sp_error e;
    struct factset fs;
    struct sp_report r;
    sp_policy_set_init(&ps);
    sp_report_init(&r);
    factset_init(&fs);
    factset_set(&fs, "pip.torch", "2.x", NULL);
    assert_int_equal(sp_policy_parse(&ps, text, strlen(text), "q.yaml", &e), 0);
    struct sp_eval_ctx ctx = { .facts = &fs };
    assert_int_equal(sp_evaluate(&ps, &ctx, &r, &e), 0);
    assert_int_equal(r.count, 1);
    assert_null(r.results[0].rule);
    assert_int_equal(r.results[0].verdict, SP_VERDICT_INVALID);
    assert_string_equal(r.results[0].requirement->key, "pip.torch");
    assert_false(r.passed);
    sp_report_free(&r);
    sp_policy_set_free(&ps);
    factset_free(&fs);
}

static void explicit_scheme(void **state)
{
    /* a dotted key compared as Debian: 2.24~rc1 < 2.24 only in that scheme */
    static const char text[] =
        "policy: s\nrequire:\n  neuron.x: {specifier: '<2.24', scheme: deb}\n";
    struct sp_policy_set ps;
    struct sp_error e;
    struct factset fs;
    struct sp_report r;
    sp_policy_set_init(&ps);
    sp_report_init(&r);
    factset_init(&fs);
    factset_set(&fs, "neuron.x", "2.24~rc1", NULL);
    assert_int_equal(sp_policy_parse(&ps, text, strlen(text), "s.yaml", &e), 0);
    assert_string_equal(ps.policies[0].rules[0].require[0].test.shown, "<2.24 (deb)");
    struct sp_eval_ctx ctx = { .facts = &fs };
    assert_int_equal(sp_evaluate(&ps, &ctx, &r, &e), 0);
    assert_int_equal(r.results[0].verdict, SP_VERDICT_OK);
    sp_report_free(&r);
    sp_policy_set_free(&ps);
    factset_free(&fs);
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

static const char ref_policy[] =
    "policy: r\n"
    "rules:\n"
    "  - name: cc\n"
    "    require: {neuron.sdk.compiler_release: \"<=${neuron.sdk.runtime_release}\"}\n"
    "  - name: lead\n"
    "    require: {pip.torch: \"==${pip.torch-neuronx:3}\"}\n"
    "  - name: minor\n"
    "    require: {pip.torch-xla: \"==${pip.torch:2}.*,!=${pip.torch}\"}\n"
    "  - name: window\n"
    "    require: {python.version: {one_of_fact: neuron.sdk.python, components: 2}}\n"
    "  - name: family\n"
    "    require: {host.instance_family: {one_of_fact: neuron.sdk.instances}}\n"
    "  - name: gated\n"
    "    when: {pip.torch: \"==${pip.absent}\"}\n"
    "    require: {k: present}\n";

/* evaluate ref_policy on KV; the verdicts of its rows into OUT */
static void ref_eval(const char *const *kv, struct sp_report *r, struct sp_policy_set *ps,
                     struct factset *fs)
{
    struct sp_error e;
    sp_policy_set_init(ps);
    sp_report_init(r);
    factset_init(fs);
    for (; *kv; kv += 2)
        assert_int_equal(factset_set(fs, kv[0], kv[1], NULL), 0);
    assert_int_equal(sp_policy_parse(ps, ref_policy, strlen(ref_policy), "r.yaml", &e), 0);
    struct sp_eval_ctx ctx = { .facts = fs };
    assert_int_equal(sp_evaluate(ps, &ctx, r, &e), 0);
}

static void ref_free(struct sp_report *r, struct sp_policy_set *ps, struct factset *fs)
{
    sp_report_free(r);
    sp_policy_set_free(ps);
    factset_free(fs);
}

static void references(void **state)
{
    struct sp_report r;
    struct sp_policy_set ps;
    struct factset fs;
    struct sp_strbuf sb;
    sp_strbuf_init(&sb, SP_REPORT_TEXT_MAX);
    /* all hold: 2.16.0 <= 2.16.1 in dotted order; 2.1.2+cu121 == 2.1.2
     * (local label ignored); torch-xla 2.1.3 is 2.1.* and not 2.1.2+cu121;
     * 3.10.12's first two components are listed; trn1 is listed */
    static const char *const holds[] = {
        "neuron.sdk.compiler_release", "2.16.0", "neuron.sdk.runtime_release", "2.16.1",
        "pip.torch-neuronx", "2.1.2.2.2.0", "pip.torch", "2.1.2+cu121", "pip.torch-xla", "2.1.3",
        "python.version", "3.10.12", "neuron.sdk.python", "3.8,3.9,3.10",
        "host.instance_family", "trn1", "neuron.sdk.instances", "inf2,trn1", NULL,
    };
    ref_eval(holds, &r, &ps, &fs);
    assert_int_equal(r.count, 6);
    for (size_t i = 0; i < 5; i++)
        if (r.results[i].verdict != SP_VERDICT_OK)
            fail_msg("row %zu: %s (%s)", i, sp_verdict_name(r.results[i].verdict),
                     r.results[i].detail ? r.results[i].detail : "");
    assert_int_equal(r.results[5].verdict, SP_VERDICT_NOT_APPLICABLE);   /* when's ref absent */
    assert_string_equal(r.results[0].resolved, "<=2.16.1");
    assert_string_equal(r.results[1].resolved, "==2.1.2");
    assert_string_equal(r.results[2].resolved, "==2.1.*,!=2.1.2+cu121");
    assert_string_equal(r.results[3].resolved, "3.8,3.9,3.10");
    assert_string_equal(sp_result_supported(&r.results[0], &sb),
                        "<=${neuron.sdk.runtime_release} (<=2.16.1)");
    assert_string_equal(sp_result_supported(&r.results[3], &sb),
                        "first 2 in ${neuron.sdk.python} (3.8,3.9,3.10)");
    ref_free(&r, &ps, &fs);

    /* all fail: compiler newer; torch 2.0.1 is not 2.1.2; torch-xla 2.2.0
     * is not 2.0.*; 3.7 is not listed; inf1 is not listed */
    static const char *const bad[] = {
        "neuron.sdk.compiler_release", "2.16.0", "neuron.sdk.runtime_release", "2.15.2",
        "pip.torch-neuronx", "2.1.2.2.2.0", "pip.torch", "2.0.1+cu117", "pip.torch-xla", "2.2.0",
        "python.version", "3.7.16", "neuron.sdk.python", "3.8,3.9,3.10",
        "host.instance_family", "inf1", "neuron.sdk.instances", "inf2, trn1", NULL,
    };
    ref_eval(bad, &r, &ps, &fs);
    for (size_t i = 0; i < 5; i++)
        if (r.results[i].verdict != SP_VERDICT_VIOLATED)
            fail_msg("row %zu: %s", i, sp_verdict_name(r.results[i].verdict));
    ref_free(&r, &ps, &fs);

    /* a referenced fact absent: missing, naming it; unparseable: invalid */
    static const char *const odd[] = {
        "neuron.sdk.compiler_release", "2.16.0",
        "pip.torch-neuronx", "2.1", "pip.torch", "2.1.2", "pip.torch-xla", "2.1.3",
        "python.version", "3", "neuron.sdk.python", "3.8",
        "host.instance_family", "trn1", NULL,
    };
    ref_eval(odd, &r, &ps, &fs);
    assert_int_equal(r.results[0].verdict, SP_VERDICT_MISSING);
    assert_string_equal(r.results[0].detail, "the referenced fact neuron.sdk.runtime_release is absent");
    assert_string_equal(sp_result_explain(&r.results[0], &sb),
                        "the referenced fact neuron.sdk.runtime_release is absent, supported <=${neuron.sdk.runtime_release}");
    assert_int_equal(r.results[1].verdict, SP_VERDICT_INVALID);
    assert_string_equal(r.results[1].detail, "${pip.torch-neuronx}: '2.1' has fewer than 3 release components");
    assert_int_equal(r.results[2].verdict, SP_VERDICT_OK);
    assert_int_equal(r.results[3].verdict, SP_VERDICT_INVALID);
    assert_string_equal(r.results[3].detail, "'3' has fewer than 2 release components");
    assert_int_equal(r.results[4].verdict, SP_VERDICT_MISSING);
    assert_string_equal(r.results[4].detail, "the referenced fact neuron.sdk.instances is absent");
    ref_free(&r, &ps, &fs);

    /* a referenced value that is no version of its key's scheme */
    static const char *const junk[] = {
        "neuron.sdk.compiler_release", "2.16.0", "neuron.sdk.runtime_release", "mixed",
        "pip.torch-neuronx", "2.x", "pip.torch", "2.1.2", NULL,
    };
    ref_eval(junk, &r, &ps, &fs);
    assert_int_equal(r.results[0].verdict, SP_VERDICT_INVALID);
    assert_string_equal(r.results[0].detail,
                        "${neuron.sdk.runtime_release}: 'mixed' is not a valid dotted version: only digits and dots are allowed");
    assert_int_equal(r.results[1].verdict, SP_VERDICT_INVALID);
    assert_string_equal(r.results[1].detail,
                        "${pip.torch-neuronx}: '2.x' is not a valid PEP 440 version: unexpected text after the version");
    ref_free(&r, &ps, &fs);
    sp_strbuf_free(&sb);
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
        cmocka_unit_test(evaluation),
        cmocka_unit_test(undecidable_policy_when),
        cmocka_unit_test(explicit_scheme),
        cmocka_unit_test(reference_load_errors),
        cmocka_unit_test(references),
        cmocka_unit_test(leading_components),
        cmocka_unit_test(subfolders_and_catalog),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
