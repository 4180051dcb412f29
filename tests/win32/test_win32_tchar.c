/* The _s forms of tchar.h (issue 29 item 2), as a Windows program calls
 * them: only <windows.h> and <tchar.h>. Built twice, ANSI
 * (test_win32_tchar) and with UNICODE/_UNICODE and -fshort-wchar
 * (test_win32_tchar_w), so every case runs on char and on WCHAR. The
 * behaviour is the Microsoft C runtime's when its invalid-parameter handler
 * returns (docs/win32.md, "tchar.h"): EINVAL/ERANGE empty the destination
 * and set errno, _TRUNCATE cuts. */
#include <windows.h>
#include <tchar.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pl_test.h"

/* A _TCHAR string against an ASCII/UTF-8 expectation. */
static int teq(const _TCHAR *t, const char *want)
{
    size_t n = strlen(want);
    if (_tcslen(t) != n) return 0;
    for (size_t i = 0; i < n; i++)
        if ((unsigned)t[i] != (unsigned char)want[i]) return 0;
    return 1;
}
#define assert_teq(t, want)                                                                                        \
    do {                                                                                                           \
        if (!teq((t), (want))) fail_msg("not \"%s\"", (want));                                                     \
    } while (0)

static void copy_s(void **state)
{
    (void)state;
    _TCHAR d[8];
    assert_int_equal(_tcscpy_s(d, ARRAYSIZE(d), _T("1234567")), 0);
    assert_teq(d, "1234567");
    errno = 0;
    assert_int_equal(_tcscpy_s(d, ARRAYSIZE(d), _T("12345678")), ERANGE); /* no room for the NUL */
    assert_int_equal(errno, ERANGE);
    assert_int_equal(d[0], 0);
    d[0] = 'x';
    assert_int_equal(_tcscpy_s(d, ARRAYSIZE(d), NULL), EINVAL);
    assert_int_equal(d[0], 0);
    assert_int_equal(_tcscpy_s(NULL, 8, _T("a")), EINVAL);
    assert_int_equal(_tcscpy_s(d, 0, _T("a")), EINVAL);

    assert_int_equal(_tcsncpy_s(d, ARRAYSIZE(d), _T("abcdefghij"), 3), 0);
    assert_teq(d, "abc");
    assert_int_equal(_tcsncpy_s(d, ARRAYSIZE(d), _T("abcdefghij"), 8), ERANGE);
    assert_int_equal(d[0], 0);
    assert_int_equal(_tcsncpy_s(d, ARRAYSIZE(d), _T("abcdefghij"), _TRUNCATE), STRUNCATE);
    assert_teq(d, "abcdefg");
    assert_int_equal(_tcsncpy_s(d, ARRAYSIZE(d), NULL, 0), 0);
    assert_teq(d, "");
}

static void cat_s(void **state)
{
    (void)state;
    _TCHAR d[8] = _T("ab");
    assert_int_equal(_tcscat_s(d, ARRAYSIZE(d), _T("cde")), 0);
    assert_teq(d, "abcde");
    assert_int_equal(_tcscat_s(d, ARRAYSIZE(d), _T("fgh")), ERANGE);
    assert_int_equal(d[0], 0);
    assert_int_equal(_tcscat_s(d, ARRAYSIZE(d), _T("xy")), 0);
    assert_int_equal(_tcsncat_s(d, ARRAYSIZE(d), _T("123456"), 2), 0);
    assert_teq(d, "xy12");
    assert_int_equal(_tcsncat_s(d, ARRAYSIZE(d), _T("abcdef"), _TRUNCATE), STRUNCATE);
    assert_teq(d, "xy12abc");
    for (size_t i = 0; i < ARRAYSIZE(d); i++) d[i] = 'z'; /* not terminated */
    assert_int_equal(_tcscat_s(d, ARRAYSIZE(d), _T("a")), EINVAL);
    assert_int_equal(d[0], 0);
}

#ifdef _UNICODE
#define FMT(f, a)
#else
#define FMT(f, a) __attribute__((format(printf, f, a))) /* the ANSI formats are printf's */
#endif

FMT(3, 4) static int vformat(_TCHAR *buf, size_t size, const _TCHAR *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = _vstprintf_s(buf, size, fmt, ap);
    va_end(ap);
    return n;
}

FMT(4, 5) static int vnformat(_TCHAR *buf, size_t size, size_t count, const _TCHAR *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = _vsntprintf_s(buf, size, count, fmt, ap);
    va_end(ap);
    return n;
}

static void printf_s(void **state)
{
    (void)state;
    _TCHAR b[16];
    assert_int_equal(_stprintf_s(b, ARRAYSIZE(b), _T("%02d:%02d %s"), 7, 5, _T("ok")), 8);
    assert_teq(b, "07:05 ok");
    assert_int_equal(vformat(b, ARRAYSIZE(b), _T("%u|%x"), 4000000000u, 255u), 13);
    assert_teq(b, "4000000000|ff");
    errno = 0;
    assert_int_equal(_stprintf_s(b, 4, _T("%d"), 12345), -1);
    assert_int_equal(errno, ERANGE);
    assert_int_equal(b[0], 0);
    assert_int_equal(_stprintf_s(b, ARRAYSIZE(b), NULL), -1);
    assert_int_equal(errno, EINVAL);
    /* _TRUNCATE: as much as fits, -1 */
    assert_int_equal(_sntprintf_s(b, 6, _TRUNCATE, _T("%s"), _T("abcdefgh")), -1);
    assert_teq(b, "abcde");
    /* a count below the size cuts at the count */
    assert_int_equal(vnformat(b, ARRAYSIZE(b), 3, _T("%d"), 123456), -1);
    assert_teq(b, "123");
    assert_int_equal(_sntprintf_s(b, ARRAYSIZE(b), 10, _T("%d"), 42), 2);
    assert_teq(b, "42");
    /* a count the buffer cannot hold is ERANGE */
    assert_int_equal(_sntprintf_s(b, 4, 10, _T("%d"), 123456), -1);
    assert_int_equal(b[0], 0);

    char path[] = "/tmp/pl_tchar_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *fp = fdopen(fd, "w+");
    assert_non_null(fp);
    assert_int_equal(_ftprintf_s(fp, _T("%s=%d\n"), _T("n"), 3), 4);
    rewind(fp);
    char line[16] = {0};
    assert_non_null(fgets(line, sizeof line, fp));
    assert_string_equal(line, "n=3\n");
    assert_int_equal(_ftprintf_s(fp, NULL), -1);
    fclose(fp);
    unlink(path);
}

static void tok_s(void **state)
{
    (void)state;
    _TCHAR a[] = _T("x,y;z"), b[] = _T("1 2");
    _TCHAR *ca = NULL, *cb = NULL;
    /* two tokenizers at once, as _tcstok alone cannot */
    _TCHAR *t1 = _tcstok_s(a, _T(",;"), &ca);
    _TCHAR *u1 = _tcstok_s(b, _T(" "), &cb);
    _TCHAR *t2 = _tcstok_s(NULL, _T(",;"), &ca);
    _TCHAR *u2 = _tcstok_s(NULL, _T(" "), &cb);
    _TCHAR *t3 = _tcstok_s(NULL, _T(",;"), &ca);
    assert_teq(t1, "x");
    assert_teq(t2, "y");
    assert_teq(t3, "z");
    assert_teq(u1, "1");
    assert_teq(u2, "2");
    assert_null(_tcstok_s(NULL, _T(",;"), &ca));
    assert_null(_tcstok_s(NULL, NULL, &cb));
    assert_int_equal(errno, EINVAL);
}

static void number_text(void **state)
{
    (void)state;
    _TCHAR b[80];
    assert_int_equal(_itot_s(-42, b, ARRAYSIZE(b), 10), 0);
    assert_teq(b, "-42");
    assert_int_equal(_itot_s(-1, b, ARRAYSIZE(b), 16), 0);
    assert_teq(b, "ffffffff"); /* the 32-bit pattern in other radixes */
    assert_int_equal(_ltot_s(255, b, ARRAYSIZE(b), 2), 0);
    assert_teq(b, "11111111");
    assert_int_equal(_ultot_s(4000000000u, b, ARRAYSIZE(b), 10), 0);
    assert_teq(b, "4000000000");
    assert_int_equal(_i64tot_s(INT64_MIN, b, ARRAYSIZE(b), 10), 0);
    assert_teq(b, "-9223372036854775808");
    assert_int_equal(_ui64tot_s(UINT64_MAX, b, 65, 2), 0); /* 64 digits and the NUL */
    assert_int_equal(_tcslen(b), 64);
    assert_int_equal(_ui64tot_s(UINT64_MAX, b, 64, 2), ERANGE);
    assert_int_equal(b[0], 0);
    assert_int_equal(_itot_s(1, b, ARRAYSIZE(b), 37), EINVAL);
    assert_teq(_itot(36, b, 36), "10");
    assert_teq(_ultot(35u, b, 36), "z");
    assert_teq(_i64tot(-7, b, 10), "-7");
    assert_teq(_ui64tot(65535u, b, 16), "ffff");
    assert_teq(_ltot(-3, b, 10), "-3");
}

static void change_case(void **state)
{
    (void)state;
    _TCHAR s[] = _T("Mixed Case 1");
    assert_int_equal(_tcsupr_s(s, ARRAYSIZE(s)), 0);
    assert_teq(s, "MIXED CASE 1");
    assert_teq(_tcslwr(s), "mixed case 1");
    assert_int_equal(_tcslwr_s(s, 3), EINVAL); /* not terminated within 3 */
    assert_int_equal(s[0], 0);
    assert_int_equal(_tcsupr_s(NULL, 4), EINVAL);
}

static void open_s(void **state)
{
    (void)state;
    char dir[] = "/tmp/pl_tchar_dir_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[4300];
    snprintf(path, sizeof path, "%s/caf\xC3\xA9.txt", dir);
    _TCHAR tpath[4300];
    /* the UTF-8 path as _TCHARs (2-byte é in UTF-16) */
    size_t k = 0;
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
#ifdef _UNICODE
        if (*p == 0xC3 && p[1] == 0xA9) {
            tpath[k++] = 0xE9;
            p++;
            continue;
        }
#endif
        tpath[k++] = (_TCHAR)*p;
    }
    tpath[k] = 0;
    FILE *fp = NULL;
    assert_int_equal(_tfopen_s(&fp, tpath, _T("w")), 0);
    assert_non_null(fp);
    fputs("x", fp);
    fclose(fp);
    FILE *raw = fopen(path, "r"); /* the name on disk is UTF-8 */
    assert_non_null(raw);
    fclose(raw);
    unlink(path);
    fp = (FILE *)1;
    assert_int_equal(_tfopen_s(&fp, tpath, _T("r")), ENOENT);
    assert_null(fp);
    assert_int_equal(_tfopen_s(NULL, tpath, _T("r")), EINVAL);
    rmdir(dir);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(copy_s),
        cmocka_unit_test(cat_s),
        cmocka_unit_test(printf_s),
        cmocka_unit_test(tok_s),
        cmocka_unit_test(number_text),
        cmocka_unit_test(change_case),
        cmocka_unit_test(open_s),
    };
    return pl_test_run(tests, argc, argv);
}
