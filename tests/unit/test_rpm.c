/* tests/unit/test_rpm.c: rpm databases librpm cannot read (a bare sqlite
 * header, a zero-filled Packages, an empty Packages.db, a database that is
 * a folder, a WAL without its database; Debian's librpm has no ndb
 * backend and reads such a database as empty) are warnings naming the file and
 * the format, never facts, never a crash; a root without one says nothing.
 * Real databases are tested in tests/sh/rpm.sh, which makes them with rpm. */
#include "tests/unit/sysprobe_fixture.h"

static void unreadable(void **state)
{
    static const struct { const char *path, *warning; } dbs[] = {
        { "var/lib/rpm/rpmdb.sqlite", "librpm cannot read this sqlite database" },
        { "var/lib/rpm/Packages", "librpm cannot read this Berkeley DB (bdb_ro) database" },
        { "usr/lib/sysimage/rpm/rpmdb.sqlite", "librpm cannot read this sqlite database" },
        { "usr/lib/sysimage/rpm/Packages.db", "librpm reads no package from this ndb database" },
    };
    static const char zeros[8192];
    for (size_t i = 0; i < sizeof dbs / sizeof *dbs; i++) {
        struct pt t;
        pt_tmp(&t, NULL);
        if (strstr(dbs[i].path, "sqlite"))
            pt_putn(&t, dbs[i].path, "SQLite format 3\0\x10\0\x01\x01\0@  \xff\xff", 24);
        else
            pt_putn(&t, dbs[i].path, zeros, sizeof zeros);
        pt_run(&t, probe_rpm);
        assert_int_equal(t.fs.count, 0);
        assert_warning(&t.fs, dbs[i].warning);
        assert_warning(&t.fs, dbs[i].path);
        pt_close(&t);
    }
}

static void not_a_database(void **state)
{
    static const struct { const char *path, *warning; } cases[] = {
        { "var/lib/rpm/rpmdb.sqlite/x", "rpm: /var/lib/rpm/rpmdb.sqlite: is a directory" },
        { "var/lib/rpm/rpmdb.sqlite-wal",
          "rpm: /var/lib/rpm/rpmdb.sqlite-wal: a write-ahead log without its database" },
    };
    struct pt t;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        pt_tmp(&t, NULL);
        pt_putn(&t, cases[i].path, "x", 1);
        pt_run(&t, probe_rpm);
        assert_int_equal(t.fs.count, 0);
        assert_warning(&t.fs, cases[i].warning);
        pt_close(&t);
    }
    /* a Berkeley DB left beside the sqlite one after a conversion */
    static const char zeros[8192];
    pt_tmp(&t, NULL);
    pt_putn(&t, "var/lib/rpm/rpmdb.sqlite", zeros, sizeof zeros);
    pt_putn(&t, "var/lib/rpm/Packages", zeros, sizeof zeros);
    pt_run(&t, probe_rpm);
    assert_warning(&t.fs, "rpm: /var/lib/rpm/Packages: a Berkeley DB (bdb_ro) database beside "
                   "rpmdb.sqlite; only rpmdb.sqlite is read");
    assert_warning(&t.fs, "rpm: /var/lib/rpm/rpmdb.sqlite: librpm cannot read this sqlite database");
    pt_close(&t);

    pt_fixture(&t, "trn1-xla");
    pt_run(&t, probe_rpm);
    assert_int_equal(t.fs.count + t.fs.nwarnings, 0);
    pt_close(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(unreadable),
        cmocka_unit_test(not_a_database),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
