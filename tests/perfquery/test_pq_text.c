/* Unit tests of perfquery's text helpers: the JSON string escaper, the
 * human-readable escaper, the UTF-16LE decoder and the FILETIME calendar. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pl_test.h"
#include "pq_text.h"

static char *json(const char *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    pq_json_string(f, s);
    fclose(f);
    return buf;
}

static void expect_json(const char *in, const char *want)
{
    char *got = json(in);
    assert_string_equal(got, want);
    free(got);
}

static void json_plain_ascii(void **state)
{
    (void)state;
    expect_json("", "\"\"");
    expect_json("Working Set", "\"Working Set\"");
    expect_json(NULL, "null");
    expect_json("a/b#1 ~ \x7f", "\"a/b#1 ~ \x7f\"");
}

static void json_quotes_and_backslashes(void **state)
{
    (void)state;
    expect_json("\"", "\"\\\"\"");
    expect_json("\\", "\"\\\\\"");
    expect_json("C:\\Program Files\\\"x\"", "\"C:\\\\Program Files\\\\\\\"x\\\"\"");
}

static void json_control_characters(void **state)
{
    (void)state;
    expect_json("\b\f\n\r\t", "\"\\b\\f\\n\\r\\t\"");
    expect_json("\x01\x1f", "\"\\u0001\\u001f\"");
    expect_json("a\x0b" "b", "\"a\\u000bb\"");
}

static void json_utf8_passes_through(void **state)
{
    (void)state;
    expect_json("\xc3\xa9t\xc3\xa9", "\"\xc3\xa9t\xc3\xa9\"");                 /* été */
    expect_json("\xd0\x9f\xd1\x80\xd0\xbe", "\"\xd0\x9f\xd1\x80\xd0\xbe\"");   /* Про */
    expect_json("\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\"");                   /* U+1F600 */
    expect_json("\xe2\x80\xa8\xe2\x80\xa9", "\"\\u2028\\u2029\"");             /* JS line separators */
}

static void json_invalid_utf8_becomes_replacement(void **state)
{
    (void)state;
    expect_json("\xff", "\"\\ufffd\"");
    expect_json("a\x80" "b", "\"a\\ufffdb\"");
    expect_json("\xc0\xaf", "\"\\ufffd\\ufffd\"");          /* overlong '/' */
    expect_json("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\""); /* a surrogate */
    expect_json("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\""); /* above U+10FFFF */
    expect_json("\xe2\x82", "\"\\ufffd\\ufffd\"");          /* truncated at the end */
}

static void plain_escapes_controls_only(void **state)
{
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    pq_plain_string(f, "a\tb\nc\r\x01\\\"\xc3\xa9");
    pq_plain_string(f, NULL);
    fclose(f);
    assert_string_equal(buf, "a\\tb\\nc\\r\\x01\\\"\xc3\xa9(null)");
    free(buf);
}

static void utf16_decoding(void **state)
{
    (void)state;
    const uint8_t hi[] = {'H', 0, 'i', 0, 0xE9, 0, 0x3D, 0xD8, 0x00, 0xDE, 0, 0, 'x', 0};
    char *s = pq_utf16le_to_utf8(hi, 7);
    assert_string_equal(s, "Hi\xc3\xa9\xf0\x9f\x98\x80"); /* stops at the NUL */
    free(s);
    const uint8_t lone[] = {0x00, 0xD8, 'a', 0, 0x00, 0xDC};
    s = pq_utf16le_to_utf8(lone, 3);
    assert_string_equal(s, "\xef\xbf\xbd" "a\xef\xbf\xbd");
    free(s);
    const uint8_t cut[] = {0x3D, 0xD8};
    s = pq_utf16le_to_utf8(cut, 1);
    assert_string_equal(s, "\xef\xbf\xbd");
    free(s);
    s = pq_utf16le_to_utf8(hi, 0);
    assert_string_equal(s, "");
    free(s);
}

static void filetime_calendar(void **state)
{
    (void)state;
    pq_civil c;
    pq_filetime_to_civil(0, &c);
    assert_int_equal(c.year, 1601);
    assert_int_equal(c.month, 1);
    assert_int_equal(c.day, 1);
    pq_filetime_to_civil(116444736000000000ull, &c); /* the Unix epoch */
    assert_int_equal(c.year, 1970);
    assert_int_equal(c.month, 1);
    assert_int_equal(c.day, 1);
    assert_int_equal(c.hour, 0);
    pq_filetime_to_civil(125911584000000000ull, &c); /* 2000-01-01 */
    assert_int_equal(c.year, 2000);
    assert_int_equal(c.month, 1);
    assert_int_equal(c.day, 1);
    /* 2024-02-29 13:14:15.678 UTC = Unix 1709212455.678 */
    pq_filetime_to_civil(116444736000000000ull + 17092124556780000ull, &c);
    assert_int_equal(c.year, 2024);
    assert_int_equal(c.month, 2);
    assert_int_equal(c.day, 29);
    assert_int_equal(c.hour, 13);
    assert_int_equal(c.minute, 14);
    assert_int_equal(c.second, 15);
    assert_int_equal(c.millis, 678);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(json_plain_ascii),
    cmocka_unit_test(json_quotes_and_backslashes),
    cmocka_unit_test(json_control_characters),
    cmocka_unit_test(json_utf8_passes_through),
    cmocka_unit_test(json_invalid_utf8_becomes_replacement),
    cmocka_unit_test(plain_escapes_controls_only),
    cmocka_unit_test(utf16_decoding),
    cmocka_unit_test(filetime_calendar),
};

PL_TEST_MAIN(tests)
