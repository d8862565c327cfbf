/* tests/unit/testlib.h: what every cmocka unit test includes, plus helpers
 * for fixture paths.  Tests run from the top of the tree (tests/run sets
 * cwd), so fixture paths are relative to it. */
#ifndef SP_TESTLIB_H
#define SP_TESTLIB_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define FIXTURE_ROOTS "tests/fixtures/roots"

/* assert_fact: KEY has exactly VALUE in fact set FS (absent fails). */
#define assert_fact(fs, key, value) do {                                  \
        const char *got_ = factset_get((fs), (key));                      \
        if (got_ == NULL)                                                 \
            fail_msg("fact %s is absent, expected \"%s\"", (key), (value)); \
        assert_string_equal(got_, (value));                               \
    } while (0)

#define assert_no_fact(fs, key) do {                                      \
        const char *got_ = factset_get((fs), (key));                      \
        if (got_ != NULL)                                                 \
            fail_msg("fact %s = \"%s\", expected absent", (key), got_);   \
    } while (0)

/* assert_warning: some warning of FS contains NEEDLE. */
#define assert_warning(fs, needle) do {                                   \
        int found_ = 0;                                                   \
        for (size_t i_ = 0; i_ < (fs)->nwarnings; i_++)                   \
            found_ |= strstr((fs)->warnings[i_], (needle)) != NULL;       \
        if (!found_)                                                      \
            fail_msg("no warning contains \"%s\"", (needle));             \
    } while (0)

#endif
