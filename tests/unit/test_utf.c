/* Tests for the UTF-8 <-> UTF-16LE helpers every module relies on. */
#include <stdlib.h>
#include <string.h>

#include "pl_internal.h"
#include "pl_test.h"

static void utf8_to_utf16_basic(void **state)
{
    (void)state;
    uint16_t out[8];
    size_t n = 0;
    assert_int_equal(pl__utf8_to_utf16("PERF", 4, out, 8, &n), PL_OK);
    assert_int_equal(n, 4);
    assert_int_equal(out[0], 'P');
    assert_int_equal(out[3], 'F');
    /* U+00E9, U+20AC and U+1F600 (a surrogate pair). */
    const char *s = "\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80";
    assert_int_equal(pl__utf8_to_utf16(s, strlen(s), out, 8, &n), PL_OK);
    assert_int_equal(n, 4);
    assert_int_equal(out[0], 0x00E9);
    assert_int_equal(out[1], 0x20AC);
    assert_int_equal(out[2], 0xD83D);
    assert_int_equal(out[3], 0xDE00);
}

static void utf8_to_utf16_too_small(void **state)
{
    (void)state;
    uint16_t out[2];
    size_t n = 0;
    assert_int_equal(pl__utf8_to_utf16("hello", 5, out, 2, &n), PL_E_MORE_DATA);
    assert_int_equal(n, 5);
}

static void utf8_invalid_rejected(void **state)
{
    (void)state;
    size_t n = 99;
    /* overlong '/', a lone surrogate, a truncated sequence, a stray continuation */
    const char *bad[] = {"\xC0\xAF", "\xED\xA0\x80", "\xE2\x82", "\x80", "\xF4\x90\x80\x80"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(pl__utf8_to_utf16(bad[i], strlen(bad[i]), NULL, 0, &n), PL_E_ENCODING);
}

static void utf16_to_utf8_roundtrip(void **state)
{
    (void)state;
    const unsigned char le[] = {'H', 0, 0xE9, 0, 0x3D, 0xD8, 0x00, 0xDE, 0, 0, 'X', 0};
    char out[16];
    size_t n = 0;
    assert_int_equal(pl__utf16_to_utf8(le, 6, out, sizeof out, &n, 0), PL_OK);
    assert_string_equal(out, "H\xC3\xA9\xF0\x9F\x98\x80");
    assert_int_equal(n, 7);
}

static void utf16_lone_surrogate(void **state)
{
    (void)state;
    const unsigned char le[] = {'a', 0, 0x00, 0xDC, 'b', 0};
    char out[16];
    size_t n = 0;
    assert_int_equal(pl__utf16_to_utf8(le, 3, out, sizeof out, &n, 0), PL_E_ENCODING);
    assert_int_equal(pl__utf16_to_utf8(le, 3, out, sizeof out, &n, 1), PL_OK);
    assert_string_equal(out, "a\xEF\xBF\xBD" "b");
}

static void utf16_truncates_at_whole_char(void **state)
{
    (void)state;
    const unsigned char le[] = {'a', 0, 0xAC, 0x20};
    char out[3];
    size_t n = 0;
    assert_int_equal(pl__utf16_to_utf8(le, 2, out, sizeof out, &n, 0), PL_E_MORE_DATA);
    assert_int_equal(n, 4);
    assert_string_equal(out, "a");
}

static void casecmp_folds(void **state)
{
    (void)state;
    assert_int_equal(pl__utf8_casecmp("% Processor Time", "% PROCESSOR time"), 0);
    assert_int_equal(pl__utf8_casecmp("\xD0\x9F\xD1\x80\xD0\xBE", "\xD0\xBF\xD0\xA0\xD0\x9E"), 0); /* Про */
    assert_int_equal(pl__utf8_casecmp("\xC3\x89t\xC3\xA9", "\xC3\xA9T\xC3\x89"), 0);              /* Été */
    assert_true(pl__utf8_casecmp("abc", "abd") < 0);
    assert_true(pl__utf8_casecmp("abcd", "abc") > 0);
}

static void grow_doubles_zeroes_and_refuses_overflow(void **state)
{
    (void)state;
    int *a = NULL;
    size_t cap = 0;
    assert_int_equal(pl__grow((void **)&a, &cap, 1, sizeof *a), PL_OK);
    assert_int_equal(cap, 16);
    assert_int_equal(a[15], 0);
    a[0] = 7;
    assert_int_equal(pl__grow((void **)&a, &cap, 16, sizeof *a), PL_OK); /* fits: unchanged */
    assert_int_equal(cap, 16);
    assert_int_equal(pl__grow((void **)&a, &cap, 40, sizeof *a), PL_OK);
    assert_int_equal(cap, 64);
    assert_int_equal(a[0], 7);
    assert_int_equal(a[63], 0);
    int *before = a;
    assert_int_equal(pl__grow((void **)&a, &cap, SIZE_MAX / 2, sizeof *a), PL_E_NOMEM);
    assert_ptr_equal(a, before);
    assert_int_equal(cap, 64);
    free(a);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(utf8_to_utf16_basic),
        cmocka_unit_test(utf8_to_utf16_too_small),
        cmocka_unit_test(utf8_invalid_rejected),
        cmocka_unit_test(utf16_to_utf8_roundtrip),
        cmocka_unit_test(utf16_lone_surrogate),
        cmocka_unit_test(utf16_truncates_at_whole_char),
        cmocka_unit_test(casecmp_folds),
        cmocka_unit_test(grow_doubles_zeroes_and_refuses_overflow),
    };
    return pl_test_run(tests, argc, argv);
}
