/* tests/unit/test_os_release.c: host.os.* from os-release(5).  Well-formed
 * files are checked against /bin/sh itself (os-release is made of shell
 * assignments: `. FILE` is the oracle); malformed lines (a NUL byte, an
 * unbalanced quote) must give a warning naming file:line and no value. */
#include "tests/unit/sysprobe_fixture.h"

/* VAR as /bin/sh sees it after sourcing the tree's FILE, into OUT. */
static void sh_value(struct pt *t, const char *file, const char *var, char *out, size_t outsz)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "/bin/sh -c '. \"%s%s\" && printf %%s \"$%s\"'", t->dir, file, var);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(out, 1, outsz - 1, p);
    out[n] = '\0';
    assert_int_equal(pclose(p), 0);
}

static void well_formed(void **state)
{
    /* comments, blank and indented lines, both quotes, escapes, CRLF,
     * spaces after the value; the last assignment wins, as in sh */
    static const char file[] =
        "# os-release for a test\n"
        "\n"
        "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n"
        "NAME=\"Debian GNU/Linux\"\n"
        "  VERSION_ID=\"11\"\n"
        "\tVERSION_ID='12'\r\n"
        "   # ID=commented\n"
        "ID=debian   \n"
        "HOME_URL=\"https://www.debian.org/\"\n";
    struct pt t;
    pt_tmp(&t, NULL);
    pt_put(&t, "etc/os-release", file);
    pt_run(&t, probe_os_release);
    char want[256];
    sh_value(&t, "/etc/os-release", "ID", want, sizeof want);
    assert_fact(&t.fs, "host.os.id", want);
    assert_string_equal(want, "debian");
    sh_value(&t, "/etc/os-release", "PRETTY_NAME", want, sizeof want);
    assert_fact(&t.fs, "host.os.pretty_name", want);
    assert_fact(&t.fs, "host.os.version_id", "12");
    assert_string_equal(factset_find(&t.fs, "host.os.id")->evidence, "/etc/os-release");
    assert_int_equal(t.fs.nwarnings, 0);
    pt_close(&t);

    /* double-quote escapes, checked against sh */
    pt_tmp(&t, NULL);
    pt_put(&t, "usr/lib/os-release",
           "ID=\"my\\\"os\"\nPRETTY_NAME=\"A \\\\ B \\$HOME \\`x\\` 'q'\"\n");
    pt_run(&t, probe_os_release);
    sh_value(&t, "/usr/lib/os-release", "ID", want, sizeof want);
    assert_string_equal(want, "my\"os");
    assert_fact(&t.fs, "host.os.id", want);
    sh_value(&t, "/usr/lib/os-release", "PRETTY_NAME", want, sizeof want);
    assert_string_equal(want, "A \\ B $HOME `x` 'q'");
    assert_fact(&t.fs, "host.os.pretty_name", want);
    /* /usr/lib/os-release is the fallback when /etc has none */
    assert_string_equal(factset_find(&t.fs, "host.os.id")->evidence, "/usr/lib/os-release");
    pt_close(&t);
}

static void malformed(void **state)
{
    /* a NUL inside the quotes of VERSION_ID: never the stray "12 */
    static const char nul[] = "ID=debian\nVERSION_ID=\"12\0\"\nPRETTY_NAME=\"Debian\"\n";
    struct pt t;
    pt_tmp(&t, NULL);
    pt_putn(&t, "etc/os-release", nul, (long)sizeof nul - 1);
    pt_run(&t, probe_os_release);
    assert_no_fact(&t.fs, "host.os.version_id");
    assert_warning(&t.fs, "host.os.version_id: /etc/os-release:2: VERSION_ID: NUL byte in the "
                   "value; not recorded");
    /* the lines after it are still read */
    assert_fact(&t.fs, "host.os.id", "debian");
    assert_fact(&t.fs, "host.os.pretty_name", "Debian");
    pt_close(&t);

    /* unbalanced quotes, text after the closing quote */
    pt_tmp(&t, NULL);
    pt_put(&t, "etc/os-release", "ID=\"unterminated\nVERSION_ID='12\nPRETTY_NAME=\"a\"b\n");
    pt_run(&t, probe_os_release);
    assert_no_fact(&t.fs, "host.os.id");
    assert_no_fact(&t.fs, "host.os.version_id");
    assert_no_fact(&t.fs, "host.os.pretty_name");
    assert_warning(&t.fs, "host.os.id: /etc/os-release:1: ID: unbalanced quote; not recorded");
    assert_warning(&t.fs, "host.os.version_id: /etc/os-release:2: VERSION_ID: unbalanced quote");
    assert_warning(&t.fs, "host.os.pretty_name: /etc/os-release:3: PRETTY_NAME: text after "
                   "the closing quote");
    pt_close(&t);

    /* a quote escaped inside the value does not close it */
    pt_tmp(&t, NULL);
    pt_put(&t, "etc/os-release", "ID=\"a\\\"\n");
    pt_run(&t, probe_os_release);
    assert_no_fact(&t.fs, "host.os.id");
    assert_warning(&t.fs, "/etc/os-release:1: ID: unbalanced quote");
    pt_close(&t);
}

static void bounds(void **state)
{
    /* past OS_RELEASE_FILE_MAX (64 KiB, probe_os_release.c): not read */
    size_t big = 64 * 1024 + 1;
    char *buf = malloc(big);
    assert_non_null(buf);
    memset(buf, '#', big);
    memcpy(buf, "ID=debian\n", 10);
    struct pt t;
    pt_tmp(&t, NULL);
    pt_putn(&t, "etc/os-release", buf, (long)big);
    pt_run(&t, probe_os_release);
    assert_no_fact(&t.fs, "host.os.id");
    assert_warning(&t.fs, "host.os: /etc/os-release: larger than the read limit");
    pt_close(&t);
    /* an /etc/os-release that exists but cannot be read is said, never
     * replaced by /usr/lib/os-release (os-release(5): the fallback is for
     * a missing file only) */
    pt_tmp(&t, NULL);
    pt_putn(&t, "etc/os-release", buf, (long)big);
    pt_put(&t, "usr/lib/os-release", "ID=second-choice\n");
    pt_run(&t, probe_os_release);
    assert_no_fact(&t.fs, "host.os.id");
    assert_warning(&t.fs, "host.os: /etc/os-release: larger than the read limit");
    pt_close(&t);
    /* at the limit: read; a last line without '\n' counts */
    memcpy(buf + big - 1 - 10, "\nID=ubuntu", 10);
    pt_tmp(&t, NULL);
    pt_putn(&t, "etc/os-release", buf, (long)big - 1);
    pt_run(&t, probe_os_release);
    assert_fact(&t.fs, "host.os.id", "ubuntu");
    pt_close(&t);
    free(buf);
    /* neither file: a warning */
    pt_tmp(&t, NULL);
    pt_run(&t, probe_os_release);
    assert_warning(&t.fs, "host.os: /etc/os-release: no such file");
    assert_int_equal(t.fs.count, 0);
    pt_close(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(well_formed),
        cmocka_unit_test(malformed),
        cmocka_unit_test(bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
