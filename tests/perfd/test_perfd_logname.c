/* perfd's check of /v1/replay's log= name (tools/perfd/logname.c): only a
 * plain file name inside log_dir; the HTTP answers are in tests/web
 * (web.replay). */
#include <string.h>

#include "pl_test.h"
#include "stream.h"

static void plain_names_accepted(void **state)
{
    (void)state;
    assert_int_equal(perfd_log_name_ok("day.blg"), 1);
    assert_int_equal(perfd_log_name_ok("a"), 1);
    assert_int_equal(perfd_log_name_ok("log 2026-11-25..blg"), 1);  /* ".." inside a name is no path */
    char max[256];
    memset(max, 'x', 255);
    max[255] = 0;
    assert_int_equal(perfd_log_name_ok(max), 1);
}

static void bad_names_refused(void **state)
{
    (void)state;
    static const char *bad[] = {"",        ".",          "..",       "../etc/passwd", "/etc/passwd", "a/b",
                                "a/../b",  "logs/",      ".hidden",  ".blg.idx",      "a\\b",        "..\\x",
                                "a\nb",    "tab\there", "del\x7f"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (perfd_log_name_ok(bad[i])) fail_msg("accepted the log name \"%s\"", bad[i]);
    }
    assert_int_equal(perfd_log_name_ok(NULL), 0);
    char big[257];
    memset(big, 'x', 256);
    big[256] = 0;
    assert_int_equal(perfd_log_name_ok(big), 0);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(plain_names_accepted),
        cmocka_unit_test(bad_names_refused),
    };
    return pl_test_run(tests, argc, argv);
}
