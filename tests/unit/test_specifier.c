/* tests/unit/test_specifier.c: specifier sets.  The PEP 440 cases are the
 * spec's own examples ("Version specifiers": compatible release, version
 * matching, exclusive ordered comparison) and the installed pre-release
 * rule this tool documents (stackprint-policy(5), "INSTALLED
 * PRE-RELEASES"); the bulk comparison with packaging is
 * tests/oracle/pep440.sh.  Other schemes: the operator rules of their
 * files.  Parse errors: every message, exactly. */
#include "tests/unit/testlib.h"

#include "checks/specifier.h"

static int matches(const struct sp_scheme *s, const char *spec, const char *version)
{
    struct sp_specifier *sp;
    struct sp_error e;
    if (sp_specifier_parse(spec, s, &sp, &e) != 0)
        fail_msg("'%s': %s", spec, e.msg);
    struct sp_version *v = sp_version_parse(s, version, &e);
    if (v == NULL)
        fail_msg("'%s': %s", version, e.msg);
    int m = sp_specifier_match(sp, v);
    sp_version_free(v);
    sp_specifier_free(sp);
    return m;
}

struct match_case {
    const char *spec, *version;
    int want;
};

static void run_cases(const struct sp_scheme *s, const struct match_case *c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (matches(s, c[i].spec, c[i].version) != c[i].want)
            fail_msg("%s: '%s' %s '%s'", s->name, c[i].version,
                     c[i].want ? "should match" : "should not match", c[i].spec);
}

static void pep440_spec_examples(void **state)
{
    static const struct match_case cases[] = {
        /* ~=2.2 is >=2.2,==2.*; ~=1.4.5 is >=1.4.5,==1.4.*; suffixes ignored for the prefix */
        { "~=2.2", "2.3", 1 }, { "~=2.2", "3.0", 0 }, { "~=2.2", "2.1", 0 },
        { "~=1.4.5", "1.4.9", 1 }, { "~=1.4.5", "1.5.0", 0 }, { "~=2.2.post3", "2.9", 1 },
        { "~=2.2.post3", "2.2", 0 }, { "~=1.4.5a4", "1.4.6", 1 }, { "~=1.4.5a4", "1.5", 0 },
        { "~=2.2.0", "2.2.9", 1 }, { "~=2.2.0", "2.3", 0 },
        /* version matching: zero padding, prefix, local labels */
        { "==1.1", "1.1.0", 1 }, { "==1.1.post1", "1.1.post1", 1 }, { "==1.1", "1.1.post1", 0 },
        { "==1.1.*", "1.1.post1", 1 }, { "==1.1.*", "1.10", 0 }, { "!=1.1.*", "1.2", 1 },
        { "==1.1", "1.1+local", 1 }, { "==1.1+local", "1.1", 0 }, { "==1.1+local", "1.1+LOCAL", 1 },
        { "==2.0.*", "2", 1 }, { "==2.*", "2.0a1", 1 },
        /* exclusive ordered comparison */
        { ">1.7", "1.7.1", 1 }, { ">1.7", "1.7.0.post1", 0 }, { ">1.7.post2", "1.7.1", 1 },
        { ">1.7.post2", "1.7.0.post3", 1 }, { ">1.7", "1.7+local", 0 }, { "<1.7", "1.7.0rc1", 0 },
        { "<1.7", "1.6.9rc1", 1 }, { "<1.7rc2", "1.7rc1", 1 }, { "<=1.7", "1.7+local", 1 },
        { ">=1.7", "1.7+local", 1 },
        /* >V excludes a local version only when its public part is V
         * (PEP 440; pypa/packaging#810) */
        { ">1.0.post1", "1.0.post2+local", 1 }, { ">1.0.post1", "1.0.post1+local", 0 },
        { ">4.1.0a2.dev1234", "4.1.0a2.dev1235+local", 1 },
        { ">4.1.0a2.dev1234", "4.1.0a2.dev1234+local", 0 }, { ">1.0", "1.0+local", 0 },
        { ">2.1.0rc1", "2.1.0+cu121", 1 }, { ">1.0", "1.0.1+local", 1 },
        /* === is a text match on the normal form */
        { "===2.9.0", "v2.9.0", 1 }, { "===2.9", "2.9.0", 0 }, { "===foobar", "1.0", 0 },
        /* sets: all must hold */
        { ">=3.11,<3.14", "3.11.7", 1 }, { ">=3.11,<3.14", "3.14.0", 0 }, { ">=3.11 , !=3.12.*", "3.12.1", 0 },
        /* the shapes of this tool */
        { "==2.9.0.2.15.*", "2.9.0.2.15.32035", 1 }, { "==2.9.*", "2.9.0.2.15.32035", 1 },
        { ">=2.11.3,<2.12", "2.11.3.0.19138+4dee388.dev", 1 }, { "==2.1.2", "2.1.2+cu121", 1 },
        { "==2.1.2+cu118", "2.1.2+cu121", 0 }, { ">=2.26", "2.26.6360.0+6f180f47", 1 },
        { ">=2.0", "1!1.0", 1 }, { "<2", "1!1.0", 0 },
    };
    run_cases(&sp_scheme_pep440, cases, sizeof cases / sizeof *cases);
}

/* A found version is installed: PEP 440 accepts installed pre-releases, so
 * no pre-release exclusion applies, and the order alone decides (what
 * packaging's contains(v, prereleases=True) and pip's installed check do). */
static void installed_prerelease(void **state)
{
    static const struct match_case cases[] = {
        { ">=2.3", "2.3.0a0+ebedce2", 0 },   /* 2.3.0a0 sorts before 2.3 */
        { "<2.3", "2.3.0a0+ebedce2", 0 },    /* and <2.3 excludes pre-releases of 2.3 */
        { ">=2.3.0a0", "2.3.0a0+ebedce2", 1 }, { ">=2.3.dev0", "2.3.0a0+ebedce2", 1 },
        { "==2.3.*", "2.3.0a0+ebedce2", 1 }, { ">=2.2", "2.3.0a0+ebedce2", 1 },
        { "~=2.2", "2.3.0a0+ebedce2", 1 }, { "<2.4", "2.3.0a0+ebedce2", 1 },
        { ">=2.3.0a0,<2.4", "2.3.0a0+ebedce2", 1 },
    };
    run_cases(&sp_scheme_pep440, cases, sizeof cases / sizeof *cases);
}

static void other_schemes(void **state)
{
    static const struct match_case deb[] = {
        { ">=2.19", "2.24.7.0-2ab4c1c9e", 1 }, { "==2.24.*", "2.24.7.0-2ab4c1c9e", 1 },
        { "==2.24.*", "2.240-1", 0 }, { "==2.24.*", "2.24~rc1", 1 }, { "<2.24", "2.24~rc1", 1 },
        { "~=2.24.7", "2.24.9.0-1", 1 }, { "~=2.24.7", "2.25.0", 0 }, { "==1:2.0.*", "2.0", 0 },
        { "!=2.24.7.0-2ab4c1c9e", "2.24.7.0-2ab4c1c9e", 0 }, { "===2.24.7.0-2ab4c1c9e", "2.24.7.0-2ab4c1c9e", 1 },
        { "==2.24.7.0", "2.24.7.0-1", 0 },
    };
    static const struct match_case rpm[] = {
        { ">=2.19", "2.19.64.0-1.el8", 1 }, { "==2.19.*", "2.19-1", 1 }, { "<=2.19", "2.19-1", 0 },
        { ">=1.0", "1.0~rc1", 0 }, { ">1.0", "1.0^git1", 1 },
    };
    static const struct match_case dotted[] = {
        { ">=2.29", "2.29.0", 1 }, { "==2.29", "2.29.0.0", 1 }, { ">2.9", "2.10", 1 },
        { "==2.2.*", "2.29", 0 }, { "~=2.24.7", "2.24.10", 1 }, { "~=2.24.7", "2.25", 0 },
        { ">=16", "16", 1 }, { ">2.29", "2.29.0", 0 },
    };
    run_cases(&sp_scheme_deb, deb, sizeof deb / sizeof *deb);
    run_cases(&sp_scheme_rpm, rpm, sizeof rpm / sizeof *rpm);
    run_cases(&sp_scheme_dotted, dotted, sizeof dotted / sizeof *dotted);
}

static void parse_errors(void **state)
{
    static const struct { const struct sp_scheme *s; const char *spec, *msg; } cases[] = {
        { &sp_scheme_pep440, "", "empty clause" },
        { &sp_scheme_pep440, ">=1,,<2", "empty clause" },
        { &sp_scheme_pep440, "2.0", "'2.0': no operator (one of == != < <= > >= ~= ===)" },
        { &sp_scheme_pep440, ">=", "'>=': nothing after the operator" },
        { &sp_scheme_pep440, ">=2.x", "'>=2.x': '2.x' is not a valid PEP 440 version: unexpected text after the version" },
        { &sp_scheme_pep440, ">=1.0+local", "'>=1.0+local': a local label is allowed only with == and !=" },
        { &sp_scheme_pep440, "==1.0+local.*", "'==1.0+local.*': .* follows a bare release" },
        { &sp_scheme_pep440, "==1.0a1.*", "'==1.0a1.*': .* follows a bare release" },
        { &sp_scheme_pep440, ">=1.*", "'>=1.*': .* is allowed only with == and !=" },
        { &sp_scheme_pep440, "~=1", "'~=1': ~= needs at least two release components" },
        { &sp_scheme_pep440, "~=1.0+abc", "'~=1.0+abc': a local label is allowed only with == and !=" },
        { &sp_scheme_pep440, "=== a b", "'=== a b': === takes one word" },
        { &sp_scheme_pep440, "=>1.0", "'=>1.0': no operator (one of == != < <= > >= ~= ===)" },
        { &sp_scheme_deb, "==2.24-1.*", "'==2.24-1.*': .* follows a bare release" },
        { &sp_scheme_deb, "~=2-1", "'~=2-1': ~= needs at least two release components" },
        { &sp_scheme_deb, "~=2.24.7-1", "'~=2.24.7-1': ~= takes a version without a revision" },
        { &sp_scheme_dotted, ">=2.29.x", "'>=2.29.x': '2.29.x' is not a valid dotted version: only digits and dots are allowed" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct sp_specifier *sp = (void *)1;
        struct sp_error e = { 0 };
        if (sp_specifier_parse(cases[i].spec, cases[i].s, &sp, &e) == 0)
            fail_msg("'%s' parsed", cases[i].spec);
        assert_null(sp);
        assert_string_equal(e.msg, cases[i].msg);
        assert_int_equal(e.exit_code, SP_EXIT_INPUT);
    }
}

static void bounds(void **state)
{
    char text[SP_SPECIFIER_TEXT_MAX + 2];
    struct sp_specifier *sp;
    struct sp_error e;
    /* clauses: 32 accepted, 33 refused */
    size_t n = 0;
    for (int i = 0; i < SP_SPECIFIER_CLAUSES_MAX; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "%s!=%d", i ? "," : "", i);
    assert_int_equal(sp_specifier_parse(text, &sp_scheme_pep440, &sp, &e), 0);
    assert_int_equal(sp->count, SP_SPECIFIER_CLAUSES_MAX);
    sp_specifier_free(sp);
    snprintf(text + n, sizeof text - n, ",!=99");
    assert_int_equal(sp_specifier_parse(text, &sp_scheme_pep440, &sp, &e), -1);
    assert_string_equal(e.msg, "more than 32 clauses");
    /* bytes: 1024 accepted, 1025 refused */
    memset(text, ' ', SP_SPECIFIER_TEXT_MAX);
    memcpy(text, ">=1", 3);
    text[SP_SPECIFIER_TEXT_MAX] = '\0';
    assert_int_equal(sp_specifier_parse(text, &sp_scheme_pep440, &sp, &e), 0);
    sp_specifier_free(sp);
    strcat(text, " ");
    assert_int_equal(sp_specifier_parse(text, &sp_scheme_pep440, &sp, &e), -1);
    assert_string_equal(e.msg, "specifier longer than 1024 bytes");
}

static void looks_like(void **state)
{
    assert_true(sp_specifier_looks_like(">=2"));
    assert_true(sp_specifier_looks_like("  ~=2.2"));
    assert_true(sp_specifier_looks_like("!=1"));
    assert_false(sp_specifier_looks_like("xla"));
    assert_false(sp_specifier_looks_like("2.9.0"));
    assert_false(sp_specifier_looks_like(""));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pep440_spec_examples),
        cmocka_unit_test(installed_prerelease),
        cmocka_unit_test(other_schemes),
        cmocka_unit_test(parse_errors),
        cmocka_unit_test(bounds),
        cmocka_unit_test(looks_like),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
