/* tests/unit/test_facts.c: the fact set, UTF-8 escaping, PEP 503 names, the
 * stack id (checked against sha256 of the canonical lines, computed here by
 * a different route: OpenSSL's one-shot SHA256 over a built string). */
#include "tests/unit/testlib.h"

#include <errno.h>

#include <openssl/sha.h>

#include "manifest/facts.h"

static void set_get_replace(void **state)
{
    struct factset fs;
    factset_init(&fs);
    assert_int_equal(factset_set(&fs, "pip.torch", "2.9.0", "a"), 0);
    assert_int_equal(factset_set(&fs, "deb.x", "1", NULL), 0);
    assert_int_equal(factset_set(&fs, "pip.torch", "2.9.1", "b"), 0);
    assert_int_equal(fs.count, 2);
    assert_fact(&fs, "pip.torch", "2.9.1");
    assert_string_equal(factset_find(&fs, "pip.torch")->evidence, "b");
    assert_int_equal(factset_set(&fs, "k", "", NULL), -1);   /* absent, never empty */
    assert_string_equal(fs.facts[0].key, "deb.x");
    assert_int_equal(factset_remove(&fs, "deb.x"), 1);
    assert_no_fact(&fs, "deb.x");
    factset_free(&fs);
}

static void bounds(void **state)
{
    struct factset fs;
    char big[SP_FACT_VALUE_MAX + 2];
    factset_init(&fs);
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    assert_int_equal(factset_set(&fs, "k", big, NULL), -1);
    assert_int_equal(errno, E2BIG);
    big[SP_FACT_VALUE_MAX] = '\0';
    assert_int_equal(factset_set(&fs, "k", big, NULL), 0);
    factset_free(&fs);

    /* SP_FACTS_MAX facts fit; one more new key is ENOSPC, a replaced one is fine */
    factset_init(&fs);
    char key[32];
    for (int i = 0; i < SP_FACTS_MAX; i++) {
        snprintf(key, sizeof key, "k.%07d", i);
        assert_int_equal(factset_set(&fs, key, "1", NULL), 0);
    }
    errno = 0;
    assert_int_equal(factset_set(&fs, "k.x", "1", NULL), -1);
    assert_int_equal(errno, ENOSPC);
    assert_int_equal(factset_set(&fs, "k.0000000", "2", NULL), 0);
    factset_free(&fs);
    factset_init(&fs);
    for (int i = 0; i < SP_WARNINGS_MAX + 5; i++)
        factset_warn(&fs, "w%d", i);
    assert_int_equal(fs.nwarnings, SP_WARNINGS_MAX);
    assert_int_equal(fs.dropped_warnings, 5);
    factset_free(&fs);
}

static void utf8_escape(void **state)
{
    /* invalid: lone continuation, overlong '/', surrogate, > U+10FFFF, truncated */
    static const struct { const char *in; size_t len; const char *out; } cases[] = {
        { "abc", 3, "abc" },
        { "caf\xc3\xa9", 5, "caf\xc3\xa9" },
        { "\x80x", 2, "\\x80x" },
        { "\xc0\xaf", 2, "\\xc0\\xaf" },
        { "\xed\xa0\x80", 3, "\\xed\\xa0\\x80" },
        { "\xf4\x90\x80\x80", 4, "\\xf4\\x90\\x80\\x80" },
        { "\xe2\x82", 2, "\\xe2\\x82" },
        { "a\0b", 3, "a\\x00b" },
        { "\xf0\x9f\x98\x80", 4, "\xf0\x9f\x98\x80" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *s = sp_utf8_sanitize(cases[i].in, cases[i].len);
        assert_non_null(s);
        assert_string_equal(s, cases[i].out);
        free(s);
    }
}

static void pep503(void **state)
{
    /* PEP 503: re.sub(r"[-_.]+", "-", name).lower() */
    static const char *const cases[][2] = {
        { "Torch_Neuronx", "torch-neuronx" }, { "zope.interface", "zope-interface" },
        { "a-_.b", "a-b" }, { "-x", "-x" }, { "x_", "x-" }, { "PyYAML", "pyyaml" },
    };
    char out[64];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        assert_int_equal(fact_name_pep503(cases[i][0], out, sizeof out), 0);
        assert_string_equal(out, cases[i][1]);
    }
    assert_int_equal(fact_name_pep503("", out, sizeof out), -1);
    assert_int_equal(fact_name_pep503("abcdef", out, 4), -1);
}

static void stack_id(void **state)
{
    struct factset fs;
    char id[72], want[72];
    unsigned char md[32];
    const char *canon = "3:a.b,1:1,9:pip.torch,5:2.9.0,";   /* netstrings */
    factset_init(&fs);
    factset_set(&fs, "pip.torch", "2.9.0", NULL);
    factset_set(&fs, "host.hostname", "node-7", NULL);   /* volatile */
    factset_set(&fs, "a.b", "1", NULL);
    factset_set(&fs, "container.id", "abc", NULL);       /* volatile */
    assert_int_equal(factset_stack_id(&fs, id), 0);
    SHA256((const unsigned char *)canon, strlen(canon), md);
    strcpy(want, "sha256:");
    for (int i = 0; i < 32; i++)
        sprintf(want + 7 + 2 * i, "%02x", md[i]);
    assert_string_equal(id, want);
    /* a volatile key does not change it; any other key does */
    factset_set(&fs, "host.hostname", "node-8", NULL);
    assert_int_equal(factset_stack_id(&fs, id), 0);
    assert_string_equal(id, want);
    factset_set(&fs, "a.b", "2", NULL);
    assert_int_equal(factset_stack_id(&fs, id), 0);
    assert_string_not_equal(id, want);
    factset_free(&fs);
}

/* Distinct fact sets never share a stack id: the v1 input "key=value\n"
 * made {a: "1\nb=2"} and {a: "1", b: "2"} one id; keys outside the
 * alphabet ('=', '\n', ' ', a leading digit) are refused. */
static void stack_id_injective(void **state)
{
    struct factset x, y;
    char ix[72], iy[72];
    factset_init(&x);
    factset_init(&y);
    assert_int_equal(factset_set(&x, "pip.torch", "2.3.1\npython.version=3.10.4", NULL), 0);
    assert_int_equal(factset_set(&y, "pip.torch", "2.3.1", NULL), 0);
    assert_int_equal(factset_set(&y, "python.version", "3.10.4", NULL), 0);
    assert_int_equal(factset_stack_id(&x, ix), 0);
    assert_int_equal(factset_stack_id(&y, iy), 0);
    assert_string_not_equal(ix, iy);
    /* a value that looks like the next netstring */
    factset_free(&x);
    factset_free(&y);
    factset_init(&x);
    factset_init(&y);
    assert_int_equal(factset_set(&x, "a", "1,1:b,1:2", NULL), 0);
    assert_int_equal(factset_set(&y, "a", "1", NULL), 0);
    assert_int_equal(factset_set(&y, "b", "2", NULL), 0);
    assert_int_equal(factset_stack_id(&x, ix), 0);
    assert_int_equal(factset_stack_id(&y, iy), 0);
    assert_string_not_equal(ix, iy);
    static const char *const bad[] = { "a=b", "a\nb", "a b", "1a", ".a", "A", "a\"", "a/b", "" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        errno = 0;
        assert_int_equal(factset_set(&x, bad[i], "v", NULL), -1);
        assert_true(errno == EILSEQ || (bad[i][0] == '\0' && errno == EINVAL));
        assert_false(fact_key_valid(bad[i]));
    }
    assert_true(fact_key_valid("deb.libstdc++6:amd64"));
    assert_true(fact_key_valid("env.NEURON_RT_VISIBLE_CORES"));
    assert_true(fact_key_valid("python.env.opt_x.pip.torch-neuronx"));
    factset_free(&x);
    factset_free(&y);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(set_get_replace),
        cmocka_unit_test(bounds),
        cmocka_unit_test(utf8_escape),
        cmocka_unit_test(pep503),
        cmocka_unit_test(stack_id),
        cmocka_unit_test(stack_id_injective),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
