/* tests/unit/test_dpkg.c: the dpkg probe on the fixtures (multi-arch,
 * removed packages) and on damaged status files.  tests/oracle/dpkg.sh
 * compares the same probe with dpkg-query on this machine and on every
 * fixture root. */
#include "tests/unit/sysprobe_fixture.h"

static void fixture(void **state)
{
    struct pt t;
    pt_fixture(&t, "trn1-xla");
    pt_run(&t, probe_dpkg);
    assert_fact(&t.fs, "deb.aws-neuronx-dkms", "2.24.7.0-5856c0b42");
    assert_fact(&t.fs, "deb.libc6", "2.35-0ubuntu3.8");
    assert_fact(&t.fs, "deb.libc6:amd64", "2.35-0ubuntu3.8");
    assert_fact(&t.fs, "deb.libc6:i386", "2.35-0ubuntu3.8");
    assert_no_fact(&t.fs, "deb.bash:amd64");              /* one architecture: no :arch key */
    assert_no_fact(&t.fs, "deb.aws-neuronx-runtime-lib-old");  /* config-files: not installed */
    assert_int_equal(t.fs.nwarnings, 0);
    const struct fact *f = factset_find(&t.fs, "deb.bash");
    assert_non_null(f);
    assert_string_equal(f->evidence, "/var/lib/dpkg/status:13");
    pt_close(&t);
}

static void run_status(struct pt *t, const char *status, long len)
{
    pt_tmp(t, NULL);
    pt_putn(t, "var/lib/dpkg/status", status, len);
    pt_run(t, probe_dpkg);
}

static void truncated_and_malformed(void **state)
{
    struct pt t;
    /* a stanza cut after Package: no Status, no Version */
    run_status(&t, "Package: good\nStatus: install ok installed\nVersion: 1.0\n\n"
                   "Package: cut\nPriority: optional\n\n"
                   "Package: nover\nStatus: install ok installed\nArchitecture: all\n\n"
                   "Status: install ok installed\nVersion: 2\n\n", -1);
    assert_fact(&t.fs, "deb.good", "1.0");
    assert_no_fact(&t.fs, "deb.cut");
    assert_no_fact(&t.fs, "deb.nover");
    assert_warning(&t.fs, "status:5: package cut: no Status (truncated?)");
    assert_warning(&t.fs, "status:8: package nover: installed but no Version");
    assert_warning(&t.fs, "status:12: stanza without Package");
    assert_int_equal(t.fs.count, 1);
    pt_close(&t);

    /* the file ends inside a line: that stanza is not trusted */
    run_status(&t, "Package: aa\nStatus: install ok installed\nVersion: 1\n\n"
                   "Package: bb\nStatus: install ok installed\nVersion: 2.0-1ubu", -1);
    assert_fact(&t.fs, "deb.aa", "1");
    assert_no_fact(&t.fs, "deb.bb");
    assert_warning(&t.fs, "status:7: file ends inside a line (truncated?)");
    pt_close(&t);

    /* states: only "installed" counts; unknown states and short Status warn */
    run_status(&t, "Package: uu\nStatus: install ok unpacked\nVersion: 1\n\n"
                   "Package: hh\nStatus: hold ok installed\nVersion: 3\n\n"
                   "Package: tp\nStatus: install ok triggers-pending\nVersion: 1\n\n"
                   "Package: ww\nStatus: install ok weird\nVersion: 1\n\n"
                   "Package: ss\nStatus: installed\nVersion: 1\n", -1);
    assert_no_fact(&t.fs, "deb.uu");
    assert_fact(&t.fs, "deb.hh", "3");
    assert_no_fact(&t.fs, "deb.tp");
    assert_warning(&t.fs, "package ww: unknown Status state");
    assert_warning(&t.fs, "package ss: malformed Status");
    pt_close(&t);

    /* binary bytes, a repeated field, a bad name (Debian Policy 5.6.1: lowercase,
     * digits, + - ., at least two characters), a line with no colon */
    run_status(&t, "Package: bin\nStatus: install ok installed\nVersion: 1.\xff\n\n"
                   "Package: twice\nVersion: 1\nStatus: install ok installed\nVersion: 2\n\n"
                   "Package: Bad_Name\nStatus: install ok installed\nVersion: 1\n\n"
                   "Package: nocolon\nStatus: install ok installed\nVersion: 1\njunk\n\n"
                   "Package: ok\r\nStatus: install ok installed\r\nVersion: 1:2.0~rc1+dfsg-3\r\n", -1);
    assert_int_equal(t.fs.count, 1);
    assert_fact(&t.fs, "deb.ok", "1:2.0~rc1+dfsg-3");
    assert_warning(&t.fs, "status:1: package bin: malformed Version");
    assert_warning(&t.fs, "status:5: malformed field");
    assert_warning(&t.fs, "package 'Bad_Name': not a valid package name");
    assert_warning(&t.fs, "status:14: malformed field");
    pt_close(&t);

    /* NUL bytes and an over-long Description line do not derail the parse */
    {
        static char buf[20000];
        int n = snprintf(buf, sizeof buf, "Package: long\nStatus: install ok installed\n"
                                          "Version: 1\nDescription: x\n ");
        memset(buf + n, 'y', 12000);
        n += 12000;
        n += snprintf(buf + n, sizeof buf - (size_t)n, "\n\nPackage: nul\nStatus: install ok installed\n"
                                                        "Version: 1\nX: a");
        buf[n++] = '\0';
        n += snprintf(buf + n, sizeof buf - (size_t)n, "b\n");
        run_status(&t, buf, n);
        assert_fact(&t.fs, "deb.long", "1");
        assert_fact(&t.fs, "deb.nul", "1");
        assert_int_equal(t.fs.nwarnings, 0);
        pt_close(&t);
    }
}

static void multiarch_disagreement(void **state)
{
    struct pt t;
    run_status(&t, "Package: libx\nStatus: install ok installed\nArchitecture: amd64\nVersion: 1\n\n"
                   "Package: libx\nStatus: install ok installed\nArchitecture: arm64\nVersion: 2\n\n"
                   "Package: liby\nStatus: install ok installed\nArchitecture: amd64\nVersion: 1\n\n"
                   "Package: liby\nStatus: install ok installed\nArchitecture: amd64\nVersion: 1\n", -1);
    assert_no_fact(&t.fs, "deb.libx");
    assert_fact(&t.fs, "deb.libx:amd64", "1");
    assert_fact(&t.fs, "deb.libx:arm64", "2");
    assert_warning(&t.fs, "deb.libx: /var/lib/dpkg/status: installed for several architectures at "
                          "different versions");
    assert_fact(&t.fs, "deb.liby", "1");
    assert_warning(&t.fs, "deb.liby:amd64: /var/lib/dpkg/status:16: installed twice");
    pt_close(&t);
}

static void bounds(void **state)
{
    struct pt t;
    /* 64 MiB + 1 byte (sparse: nothing is read, the size alone refuses it) */
    pt_tmp(&t, NULL);
    pt_sh(&t, "mkdir -p $D/var/lib/dpkg && truncate -s $((64 * 1024 * 1024 + 1)) $D/var/lib/dpkg/status");
    pt_run(&t, probe_dpkg);
    assert_int_equal(t.fs.count, 0);
    assert_warning(&t.fs, "larger than 67108864 bytes; no deb.* recorded");
    pt_close(&t);
    /* exactly 64 MiB: read (all NUL bytes: one long "line", no stanza) */
    pt_tmp(&t, NULL);
    pt_sh(&t, "mkdir -p $D/var/lib/dpkg && printf 'Package: aa\\nStatus: install ok installed\\n"
              "Version: 1\\n\\n' > $D/var/lib/dpkg/status && "
              "truncate -s $((64 * 1024 * 1024)) $D/var/lib/dpkg/status");
    pt_run(&t, probe_dpkg);
    assert_fact(&t.fs, "deb.aa", "1");
    pt_close(&t);
    /* more than 20 bad stanzas: 20 warnings, then a count */
    {
        static char buf[10000];
        size_t n = 0;
        for (int i = 0; i < 25; i++)
            n += (size_t)snprintf(buf + n, sizeof buf - n, "Package: p%d\n\n", i);
        run_status(&t, buf, (long)n);
        assert_int_equal(t.fs.nwarnings, 21);
        assert_warning(&t.fs, "5 more stanzas skipped (warnings past the first 20 not shown)");
        pt_close(&t);
    }
    /* a Version past DPKG_FIELD_MAX (256 bytes) is a malformed field */
    {
        static char buf[1000];
        int n = snprintf(buf, sizeof buf, "Package: longver\nStatus: install ok installed\nVersion: ");
        memset(buf + n, '1', 300);
        n += 300;
        n += snprintf(buf + n, sizeof buf - (size_t)n, "\n");
        run_status(&t, buf, n);
        assert_no_fact(&t.fs, "deb.longver");
        assert_warning(&t.fs, "status:1: malformed field");
        pt_close(&t);
    }
    /* 200001 installed packages: the deb.* family stops at SP_FACTS_BULK_MAX
     * facts (room kept for the key facts); the rest, past DPKG_PACKAGES_MAX
     * too, are counted in facts.dropped, never silently lost */
    {
        size_t cap = 200001 * 64, n = 0;
        char *buf = malloc(cap);
        assert_non_null(buf);
        for (int i = 0; i < 200001; i++)
            n += (size_t)snprintf(buf + n, cap - n,
                                  "Package: p%06d\nStatus: install ok installed\nVersion: 1\n\n", i);
        run_status(&t, buf, (long)n);
        free(buf);
        assert_int_equal(t.fs.count, SP_FACTS_BULK_MAX);   /* 159999 deb.* and facts.dropped */
        assert_fact(&t.fs, "facts.dropped", "40002");   /* 159999 + 40002 = 200001 */
        assert_warning(&t.fs, "more than 200000 installed packages; the rest skipped");
        assert_warning(&t.fs, "deb.p159999: not recorded: the manifest already holds 160000 facts");
        assert_no_fact(&t.fs, "deb.p200000");
        pt_close(&t);
    }
    /* a FIFO and a folder where the status file should be */
    pt_tmp(&t, NULL);
    pt_sh(&t, "mkdir -p $D/var/lib/dpkg && mkfifo $D/var/lib/dpkg/status");
    pt_run(&t, probe_dpkg);
    assert_warning(&t.fs, "/var/lib/dpkg/status: not a regular file");
    pt_close(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fixture),
        cmocka_unit_test(truncated_and_malformed),
        cmocka_unit_test(multiarch_disagreement),
        cmocka_unit_test(bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
