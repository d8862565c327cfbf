/* tests/unit/test_rpm.c: an rpm database is noticed (a warning), never read,
 * never a crash, whatever its content. */
#include "sysprobe_fixture.h"

static void present_or_not(void **state)
{
    static const char *const dbs[] = {
        "var/lib/rpm/rpmdb.sqlite", "var/lib/rpm/Packages", "usr/lib/sysimage/rpm/rpmdb.sqlite",
    };
    for (size_t i = 0; i < sizeof dbs / sizeof *dbs; i++) {
        struct pt t;
        pt_tmp(&t, NULL);
        pt_putn(&t, dbs[i], "SQLite format 3\0\x10\0\x01\x01\0@  \xff\xff", 24);
        pt_run(&t, probe_rpm);
        assert_int_equal(t.fs.count, 0);
        assert_warning(&t.fs, "rpm database present; rpm.* facts are not read");
        assert_warning(&t.fs, dbs[i]);
        pt_close(&t);
    }
    struct pt t;
    pt_fixture(&t, "trn1-xla");
    pt_run(&t, probe_rpm);
    assert_int_equal(t.fs.count + t.fs.nwarnings, 0);
    pt_close(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(present_or_not),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
