/* tests/unit/test_version.c: the version schemes.  Hand cases come from the
 * specs themselves (PEP 440's examples, deb-version(7), rpm's documented
 * rpmvercmp cases); the bulk comparison with outside oracles (packaging,
 * dpkg) is in tests/oracle/, which drives this binary in --eval mode:
 *
 *   test_version --eval     reads JSON arrays, one per line, on stdin:
 *     ["cmp", SCHEME, A, B]       prints -1, 0, 1, or "error"
 *     ["norm", SCHEME, A]         prints the normal form, or "error"
 *     ["match", SCHEME, SPEC, V]  prints 1, 0, "spec-error" or "version-error"
 */
#include "tests/unit/testlib.h"

#include <jansson.h>

#include "checks/specifier.h"
#include "checks/version.h"

static int cmp_text(const struct sp_scheme *s, const char *a, const char *b)
{
    struct sp_error e;
    struct sp_version *va = sp_version_parse(s, a, &e);
    if (va == NULL)
        fail_msg("%s", e.msg);
    struct sp_version *vb = sp_version_parse(s, b, &e);
    if (vb == NULL)
        fail_msg("%s", e.msg);
    int c = sp_version_compare(va, vb, SP_CMP_FULL);
    int r = sp_version_compare(vb, va, SP_CMP_FULL);
    sp_version_free(va);
    sp_version_free(vb);
    if ((c > 0) - (c < 0) != -((r > 0) - (r < 0)))
        fail_msg("%s: compare(%s, %s) is not antisymmetric", s->name, a, b);
    return (c > 0) - (c < 0);
}

/* Every list is in ascending order; each adjacent pair must compare as
 * listed (0 where the texts are marked equal with a leading '='). */
static void assert_ascending(const struct sp_scheme *s, const char *const *list, size_t n)
{
    for (size_t i = 0; i + 1 < n; i++) {
        const char *b = list[i + 1];
        int want = b[0] == '=' ? 0 : -1;
        if (b[0] == '=')
            b++;
        const char *a = list[i][0] == '=' ? list[i] + 1 : list[i];
        int got = cmp_text(s, a, b);
        if (got != want)
            fail_msg("%s: %s vs %s gave %d, expected %d", s->name, a, b, got, want);
    }
}

static void pep440_spec_order(void **state)
{
    /* PEP 440, "Summary of permitted suffixes and relative ordering" */
    static const char *const order[] = {
        "1.dev0", "1.0.dev456", "1.0a1", "1.0a2.dev456", "1.0a12.dev456", "1.0a12",
        "1.0b1.dev456", "1.0b2", "1.0b2.post345.dev456", "1.0b2.post345", "1.0rc1.dev456",
        "1.0rc1", "1.0", "1.0+abc.5", "1.0+abc.7", "1.0+5", "1.0.post456.dev34",
        "1.0.post456", "1.0.15", "1.1.dev1",
    };
    /* the shapes this tool meets */
    static const char *const real[] = {
        "2.1.2", "2.1.2+cu121", "2.3.0a0+ebedce2", "=2.3.0a0+EBEDCE2", "2.3.0", "2.9.0",
        "2.9.0.2.15.32035", "=v2.9.0.2.15.32035", "2.11.3.0.19138", "2.11.3.0.19138+4dee388.dev",
        "2.26.6360.0+6f180f47", "1!0.1",
    };
    assert_ascending(&sp_scheme_pep440, order, sizeof order / sizeof *order);
    assert_ascending(&sp_scheme_pep440, real, sizeof real / sizeof *real);
    assert_int_equal(cmp_text(&sp_scheme_pep440, "1.0", "1.0.0.0"), 0);
    assert_int_equal(cmp_text(&sp_scheme_pep440, "1.0+1", "1.0+01"), 0);
    assert_int_equal(cmp_text(&sp_scheme_pep440, "1.0+a", "1.0+1"), -1);
    assert_int_equal(cmp_text(&sp_scheme_pep440, "99999999999999999999999", "99999999999999999999998"), 1);
}

static void pep440_normal_form(void **state)
{
    /* PEP 440, "Normalization" */
    static const char *const cases[][2] = {
        { "1.1RC1", "1.1rc1" }, { "1.1.a1", "1.1a1" }, { "1.1-a1", "1.1a1" },
        { "1.1a", "1.1a0" }, { "1.1alpha1", "1.1a1" }, { "1.1beta2", "1.1b2" },
        { "1.1c3", "1.1rc3" }, { "1.1pre4", "1.1rc4" }, { "1.1preview5", "1.1rc5" },
        { "1.2-post2", "1.2.post2" }, { "1.2post2", "1.2.post2" }, { "1.2.post", "1.2.post0" },
        { "1.0-1", "1.0.post1" }, { "1.0-r4", "1.0.post4" }, { "1.0rev4", "1.0.post4" },
        { "1.2-dev2", "1.2.dev2" }, { "1.2dev", "1.2.dev0" }, { "1.0+ubuntu-1", "1.0+ubuntu.1" },
        { "1.0+Ubuntu_1", "1.0+ubuntu.1" }, { "v1.0", "1.0" }, { "  1.0\n", "1.0" },
        { "00!1.007", "1.7" }, { "1!2.0", "1!2.0" }, { "2.3.0a0+ebedce2", "2.3.0a0+ebedce2" },
    };
    struct sp_error e;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct sp_version *v = sp_version_parse(&sp_scheme_pep440, cases[i][0], &e);
        if (v == NULL)
            fail_msg("%s: %s", cases[i][0], e.msg);
        assert_string_equal(v->normal, cases[i][1]);
        sp_version_free(v);
    }
}

static void invalid_versions(void **state)
{
    static const struct { const struct sp_scheme *s; const char *text, *msg; } cases[] = {
        { &sp_scheme_pep440, "2.x", "'2.x' is not a valid PEP 440 version: unexpected text after the version" },
        { &sp_scheme_pep440, "", "'' is not a valid PEP 440 version: empty" },
        { &sp_scheme_pep440, "1.0+", "'1.0+' is not a valid PEP 440 version: empty part in the local label" },
        { &sp_scheme_pep440, "1.0-", "'1.0-' is not a valid PEP 440 version: unexpected text after the version" },
        { &sp_scheme_pep440, "dev", "'dev' is not a valid PEP 440 version: no release number" },
        { &sp_scheme_pep440, "1.0\x1b[31m", "'1.0\\x1b[31m' is not a valid PEP 440 version: unexpected text after the version" },
        { &sp_scheme_deb, "a1.0", "'a1.0' is not a valid Debian version: upstream version does not start with a digit" },
        { &sp_scheme_deb, "1.0-", "'1.0-' is not a valid Debian version: revision is empty" },
        { &sp_scheme_deb, ":1.0", "':1.0' is not a valid Debian version: epoch is empty" },
        { &sp_scheme_deb, "x:1.0", "'x:1.0' is not a valid Debian version: epoch is empty" },   /* as dpkg */
        { &sp_scheme_deb, "1x:1.0", "'1x:1.0' is not a valid Debian version: epoch is not a number" },
        { &sp_scheme_deb, "-1:1.0", "'-1:1.0' is not a valid Debian version: epoch is negative" },
        { &sp_scheme_deb, "1:", "'1:' is not a valid Debian version: nothing after the colon" },
        { &sp_scheme_deb, "1.0 1", "'1.0 1' is not a valid Debian version: embedded spaces" },
        { &sp_scheme_deb, "1.0_1", "'1.0_1' is not a valid Debian version: invalid character in the upstream version" },
        { &sp_scheme_deb, "1.0-1_2", "'1.0-1_2' is not a valid Debian version: invalid character in the revision" },
        { &sp_scheme_deb, "99999999999:1", "'99999999999:1' is not a valid Debian version: epoch is too big" },
        { &sp_scheme_rpm, "1.0-1-2", "'1.0-1-2' is not a valid RPM version: more than one '-'" },
        { &sp_scheme_rpm, "1.0 ", "'1.0 ' is not a valid RPM version: the version needs letters or digits and only . _ + ~ ^ between them" },
        { &sp_scheme_rpm, "", "'' is not a valid RPM version: empty" },
        { &sp_scheme_dotted, "2.29.x", "'2.29.x' is not a valid dotted version: only digits and dots are allowed" },
        { &sp_scheme_dotted, "2..29", "'2..29' is not a valid dotted version: empty component" },
        { &sp_scheme_dotted, "v2", "'v2' is not a valid dotted version: only digits and dots are allowed" },
    };
    struct sp_error e;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        memset(&e, 0, sizeof e);
        struct sp_version *v = sp_version_parse(cases[i].s, cases[i].text, &e);
        if (v != NULL)
            fail_msg("%s '%s' parsed", cases[i].s->name, cases[i].text);
        assert_string_equal(e.msg, cases[i].msg);
        assert_int_equal(e.exit_code, SP_EXIT_INPUT);
    }
}

static void version_length_bound(void **state)
{
    char text[SP_VERSION_TEXT_MAX + 2];
    struct sp_error e;
    const struct sp_scheme *all[] = { &sp_scheme_pep440, &sp_scheme_deb, &sp_scheme_rpm, &sp_scheme_dotted };
    for (size_t s = 0; s < 4; s++) {
        text[0] = text[1] = '1';                      /* "11.1.1...": 256 bytes */
        for (size_t i = 2; i < SP_VERSION_TEXT_MAX; i += 2) {
            text[i] = '.';
            text[i + 1] = '1';
        }
        text[SP_VERSION_TEXT_MAX] = '\0';            /* exactly the bound: accepted */
        struct sp_version *v = sp_version_parse(all[s], text, &e);
        if (v == NULL)
            fail_msg("%s: %s", all[s]->name, e.msg);
        assert_int_equal(v->release_length, SP_VERSION_TEXT_MAX / 2);
        sp_version_free(v);
        text[SP_VERSION_TEXT_MAX] = '1';              /* one more: refused */
        text[SP_VERSION_TEXT_MAX + 1] = '\0';
        assert_null(sp_version_parse(all[s], text, &e));
        assert_non_null(strstr(e.msg, "longer than 256 bytes"));
    }
}

static void deb_order(void **state)
{
    /* deb-version(7): "~" sorts before anything, even the end; letters
     * before non-letters; epochs first; the revision last. */
    static const char *const order[] = {
        "1.0~~", "1.0~~a", "1.0~", "1.0", "=1.0-0", "1.0-1", "1.0a", "1.0+", "1.0.1",
        "1.0.10", "1.1~rc1", "1.1", "2.24.7.0-2ab4c1c9e", "9.9", "1:0.1", "1:0.1-1~bpo1",
        "1:0.1-1",
    };
    assert_ascending(&sp_scheme_deb, order, sizeof order / sizeof *order);
    assert_int_equal(cmp_text(&sp_scheme_deb, "007", "7"), 0);
    assert_int_equal(cmp_text(&sp_scheme_deb, "0:1.0", "1.0"), 0);
    assert_int_equal(cmp_text(&sp_scheme_deb, "+1:1.0", "1:1.0"), 0);   /* dpkg reads epochs with strtol */
}

static void rpm_order(void **state)
{
    /* rpm's tests/rpmvercmp.at and its Versioning documentation */
    static const struct { const char *a, *b; int want; } cases[] = {
        { "1.0", "1.0", 0 }, { "1.0", "2.0", -1 }, { "2.0.1", "2.0", 1 },
        { "2.0.1a", "2.0.1", 1 }, { "5.5p1", "5.5p2", -1 }, { "5.5p10", "5.5p1", 1 },
        { "10xyz", "10.1xyz", -1 }, { "xyz10", "xyz10.1", -1 }, { "xyz.4", "8", -1 },
        { "5.5p1", "5.5p1", 0 }, { "1.0aa", "1.0a", 1 }, { "2a", "2.0", -1 },
        { "1.0", "1.fc4", 1 }, { "3.0.0_fc", "3.0.0.fc", 0 }, { "010", "10", 0 },
        { "1.0~rc1", "1.0", -1 }, { "1.0~rc1", "1.0~rc2", -1 }, { "1.0~rc1~git123", "1.0~rc1", -1 },
        { "1.0^", "1.0", 1 }, { "1.0^git1", "1.0", 1 }, { "1.0^git1", "1.01", -1 },
        { "1.0^20160101", "1.0.1", -1 }, { "1.0^20160101^git1", "1.0^20160101", 1 },
        { "1.0~rc1^git1", "1.0~rc1", 1 }, { "1.0^git1~pre", "1.0^git1", -1 },
        { "1:1.0", "2.0", 1 }, { "2.19", "2.19-1", -1 }, { "2.19-1", "2.19-2", -1 },
        { "2.19-10", "2.19-9", 1 }, { "1.0^git1", "1.0a", -1 }, { "1.0a", "1.0.1", -1 },
        { "1.0.1", "1:0.9", -1 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int got = cmp_text(&sp_scheme_rpm, cases[i].a, cases[i].b);
        if (got != cases[i].want)
            fail_msg("rpm %s vs %s gave %d, expected %d", cases[i].a, cases[i].b, got, cases[i].want);
    }
}

static void dotted_order(void **state)
{
    static const char *const order[] = {
        "0", "1", "2.9", "2.10", "2.29", "=2.29.0", "=2.29.0.0", "2.29.1", "16", "550.54.15",
        "18446744073709551616",
    };
    assert_ascending(&sp_scheme_dotted, order, sizeof order / sizeof *order);
}

/* sp_version_sort: the scheme's order, ties (equal versions) by bytes, texts
 * the scheme does not read last; each scheme's own rule for 2.29 and 2.29.0 */
static void version_sort(void **state)
{
    static const struct {
        const struct sp_scheme *scheme;
        const char *in[8], *want[8];
    } cases[] = {
        { &sp_scheme_dotted, { "x", "2.29.0", "2.10", "2.29", "2.9", "02.9", "1.a" },
          { "02.9", "2.9", "2.10", "2.29", "2.29.0", "1.a", "x" } },
        { &sp_scheme_pep440, { "2.29.0", "2.29.post1", "2.29", "2.29rc1", "v2.29" },
          { "2.29rc1", "2.29", "2.29.0", "v2.29", "2.29.post1" } },
        { &sp_scheme_deb, { "2.29.0", "2.29", "2.29~rc1", "1:2.0" },
          { "2.29~rc1", "2.29", "2.29.0", "1:2.0" } },
        { &sp_scheme_rpm, { "2.29.0", "2.29", "2.29~rc1" },
          { "2.29~rc1", "2.29", "2.29.0" } },
        { &sp_scheme_dotted, { NULL }, { NULL } },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *v[8];
        size_t n = 0;
        while (cases[i].in[n])
            v[n] = cases[i].in[n], n++;
        struct sp_error e;
        assert_int_equal(sp_version_sort(cases[i].scheme, v, n, &e), 0);
        for (size_t k = 0; k < n; k++)
            if (strcmp(v[k], cases[i].want[k]) != 0)
                fail_msg("%s case %zu: position %zu is %s, expected %s",
                         cases[i].scheme->name, i, k, v[k], cases[i].want[k]);
    }
}

static void scheme_for_key(void **state)
{
    static const struct { const char *key; const char *scheme; } cases[] = {
        { "pip.torch", "pep440" }, { "python.version", "pep440" },
        { "python.env.opt-venv.version", "pep440" }, { "python.env.opt-venv.pip.torch", "pep440" },
        { "python.env.opt-venv.path", "dotted" }, { "deb.aws-neuronx-dkms", "deb" },
        { "rpm.aws-neuronx-dkms", "rpm" }, { "neuron.driver.version", "dotted" },
        { "python.versions", "dotted" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        assert_string_equal(sp_scheme_for_key(cases[i].key)->name, cases[i].scheme);
    assert_ptr_equal(sp_scheme_by_name("deb"), &sp_scheme_deb);
    assert_null(sp_scheme_by_name("semver"));
}

/* ---- --eval mode for tests/oracle ----------------------------------- */

static void eval_line(json_t *q)
{
    const char *what = json_string_value(json_array_get(q, 0));
    const struct sp_scheme *s = sp_scheme_by_name(json_string_value(json_array_get(q, 1)) ?: "");
    const char *a = json_string_value(json_array_get(q, 2));
    const char *b = json_string_value(json_array_get(q, 3));
    struct sp_error e;
    if (what == NULL || s == NULL || a == NULL) {
        puts("bad-query");
        return;
    }
    if (strcmp(what, "norm") == 0) {
        struct sp_version *v = sp_version_parse(s, a, &e);
        puts(v ? v->normal : "error");
        sp_version_free(v);
    } else if (strcmp(what, "cmp") == 0 && b) {
        struct sp_version *va = sp_version_parse(s, a, &e), *vb = sp_version_parse(s, b, &e);
        if (va && vb) {
            int c = sp_version_compare(va, vb, SP_CMP_FULL);
            printf("%d\n", (c > 0) - (c < 0));
        } else {
            puts("error");
        }
        sp_version_free(va);
        sp_version_free(vb);
    } else if (strcmp(what, "match") == 0 && b) {
        struct sp_specifier *spec;
        if (sp_specifier_parse(a, s, &spec, &e) != 0) {
            puts("spec-error");
            return;
        }
        struct sp_version *v = sp_version_parse(s, b, &e);
        if (v)
            printf("%d\n", sp_specifier_match(spec, v));
        else
            puts("version-error");
        sp_version_free(v);
        sp_specifier_free(spec);
    } else {
        puts("bad-query");
    }
}

static int eval_mode(void)
{
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, stdin) > 0) {
        json_t *q = json_loads(line, 0, NULL);
        if (q == NULL || !json_is_array(q))
            puts("bad-query");
        else
            eval_line(q);
        json_decref(q);
    }
    free(line);
    return fflush(stdout) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--eval") == 0)
        return eval_mode();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pep440_spec_order),
        cmocka_unit_test(pep440_normal_form),
        cmocka_unit_test(invalid_versions),
        cmocka_unit_test(version_length_bound),
        cmocka_unit_test(deb_order),
        cmocka_unit_test(rpm_order),
        cmocka_unit_test(dotted_order),
        cmocka_unit_test(scheme_for_key),
        cmocka_unit_test(version_sort),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
