/* Windows C++ UNICODE code built with compiler flags only (docs/win32.md,
 * "Building Windows code here"): the provider tests/win32/w32gen/
 * w32gen_cxx.cpp and the consumer w32enum_cxx.cpp are compiled here, at
 * test time, with g++ and with clang++ (-std=c++17 -Wall -Wextra -Werror
 * -fshort-wchar -DUNICODE -D_UNICODE, only include/win32 and include), the
 * provider is installed as a Windows installer does it (RegCreateKeyExW,
 * RegSetValueExW, LoadPerfCounterTextStringsW), and read with typeperf and
 * with the consumer. A compiler that is missing fails the case. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "perflib/win32.h"
#include "pl_test.h"
#include "w32_util.h"
#include "win32/loadperf.h"
#include "win32/winreg.h"

#define CXXFLAGS "-std=c++17 -Wall -Wextra -Werror -fshort-wchar -DUNICODE -D_UNICODE"
#define KEY "SYSTEM\\CurrentControlSet\\Services\\W32GenCxx\\Performance"

static pq_fixture fx;

static int setup(void **state)
{
    (void)state;
    return pq_fixture_make(&fx, NULL, NULL);
}

static int teardown(void **state)
{
    (void)state;
    pq_fixture_done(&fx);
    return 0;
}

/* Run a shell command; its output (stdout and stderr) into out. */
static int run(const char *cmd, char *out, size_t cap)
{
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    size_t n = 0;
    out[0] = '\0';
    while (n + 1 < cap) {
        size_t r = fread(out + n, 1, cap - 1 - n, p);
        if (r == 0) break;
        n += r;
    }
    out[n] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Compile tests/win32/w32gen/<src> with `cxx` and `flags`; a provider is a
 * shared object, a program links libperflib_wmain (its entry point is
 * _tmain under _UNICODE). */
static void compile_with(const char *cxx, const char *flags, const char *src, const char *out, int provider)
{
    char cmd[4096], log[8192];
    int n = snprintf(cmd, sizeof cmd,
                     "%s %s %s %s -I%s/include/win32 -I%s/include %s/tests/win32/w32gen/%s -o %s %s -L%s -lperflib "
                     "-Wl,-rpath,%s 2>&1",
                     cxx, flags, provider ? "-fPIC -shared" : "", provider ? "" : W32_EXE_FLAGS, PL_SOURCE_DIR,
                     PL_SOURCE_DIR, PL_SOURCE_DIR, src, out, provider ? "" : "-L" W32_WMAIN_DIR " -lperflib_wmain",
                     W32_LIB_DIR, W32_LIB_DIR);
    if (n < 0 || n >= (int)sizeof cmd) fail_msg("the %s command line is longer than %zu bytes", cxx, sizeof cmd);
    int rc = run(cmd, log, sizeof log);
    if (rc != 0) fail_msg("%s failed (%d): %s\n%s", cxx, rc, cmd, log);
}

static void compile(const char *cxx, const char *src, const char *out, int provider)
{
    compile_with(cxx, provider ? CXXFLAGS " -fvisibility=hidden" : CXXFLAGS, src, out, provider);
}

static void set_sz_w(HKEY k, const char *name, const char *value)
{
    uint16_t *n = w32_widen(name), *v = w32_widen(value);
    DWORD cb = (DWORD)((strlen(value) + 1) * 2); /* ASCII values */
    assert_int_equal(RegSetValueExW(k, (LPCWSTR)n, 0, REG_SZ, (const BYTE *)v, cb), ERROR_SUCCESS);
    free(n);
    free(v);
}

static void install_w(const char *library)
{
    HKEY k = NULL;
    uint16_t *path = w32_widen(KEY);
    assert_int_equal(RegCreateKeyExW(HKEY_LOCAL_MACHINE, (LPCWSTR)path, 0, NULL, 0, KEY_ALL_ACCESS, NULL, &k, NULL),
                     ERROR_SUCCESS);
    free(path);
    set_sz_w(k, "Library", library);
    set_sz_w(k, "Open", "OpenW32GenCxx");
    set_sz_w(k, "Collect", "CollectW32GenCxx");
    set_sz_w(k, "Close", "CloseW32GenCxx");
    RegCloseKey(k);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "lodctr %s/tests/win32/w32gen/w32gencxx.ini", PL_SOURCE_DIR);
    uint16_t *wcmd = w32_widen(cmd);
    assert_int_equal(LoadPerfCounterTextStringsW((LPWSTR)wcmd, TRUE), ERROR_SUCCESS);
    free(wcmd);
}

static void check(const char *cxx)
{
    char so[4300], exe[4300], cmd[9000], out[16384];
    snprintf(so, sizeof so, "%s/w32gencxx.so", fx.dir);
    snprintf(exe, sizeof exe, "%s/w32enum", fx.dir);
    compile(cxx, "w32gen_cxx.cpp", so, 1);
    compile(cxx, "w32enum_cxx.cpp", exe, 0);
    install_w(so);
    uint32_t fc = 0, fh = 0;
    assert_int_equal(w32_first_indices(&fx, "W32GenCxx", &fc, &fh), 0);

    /* typeperf shows both instances, each with the First Counter the
     * provider read from its own key. */
    snprintf(cmd, sizeof cmd, "%s \"\\W32 Cxx Generator(*)\\Constant Value\" -sc 1 2>&1", TYPEPERF_BIN);
    assert_int_equal(run(cmd, out, sizeof out), 0);
    assert_non_null(strstr(out, "\\W32 Cxx Generator(first)\\Constant Value\""));
    assert_non_null(strstr(out, "\\W32 Cxx Generator(caf\xC3\xA9)\\Constant Value\""));
    char want[64];
    snprintf(want, sizeof want, "\"%u.000000\",\"%u.000000\"", fc, fc);
    if (!strstr(out, want)) fail_msg("typeperf output lacks %s:\n%s", want, out);

    /* The UNICODE consumer: title table, grow loop, walk, _tprintf. */
    snprintf(cmd, sizeof cmd, "%s \"W32 Cxx Generator\" 2>&1", exe);
    assert_int_equal(run(cmd, out, sizeof out), 0);
    assert_non_null(strstr(out, "system name matches\n"));
    assert_non_null(strstr(out, "clock agrees\n"));
    assert_null(strstr(out, "not aligned"));
    snprintf(want, sizeof want, "first|Constant Value|%u\n", fc);
    if (!strstr(out, want)) fail_msg("w32enum output lacks %s:\n%s", want, out);
    snprintf(want, sizeof want, "caf\xC3\xA9|Constant Value|%u\n", fc);
    if (!strstr(out, want)) fail_msg("w32enum output lacks %s:\n%s", want, out);
    assert_non_null(strstr(out, "caf\xC3\xA9|Collections|"));
}

/* Every header, in C and C++, with both compilers and the macro sets
 * Windows programs use (all_headers.c). */
static void all_headers_compile(void **state)
{
    (void)state;
    static const char *const compilers[] = {"gcc -std=c17", "clang -std=c17", "g++ -x c++ -std=c++17",
                                            "clang++ -x c++ -std=c++17"};
    static const char *const macros[] = {"", "-DUNICODE -D_UNICODE", "-DWIN32_LEAN_AND_MEAN -DNOMINMAX",
                                         "-D_DEBUG -DNOSERVICE -DNOUSER -DUNICODE -D_UNICODE"};
    char cmd[2048], log[8192];
    for (size_t c = 0; c < sizeof compilers / sizeof compilers[0]; c++) {
        for (size_t m = 0; m < sizeof macros / sizeof macros[0]; m++) {
            snprintf(cmd, sizeof cmd,
                     "%s -Wall -Wextra -Werror -fshort-wchar %s -I%s/include/win32 -I%s/include -fsyntax-only "
                     "%s/tests/win32/w32gen/all_headers.c 2>&1",
                     compilers[c], macros[m], PL_SOURCE_DIR, PL_SOURCE_DIR, PL_SOURCE_DIR);
            if (run(cmd, log, sizeof log) != 0) fail_msg("%s\n%s", cmd, log);
        }
    }
}

/* RSDN Magazine's provider style (w32gen/rsdnstyle.cpp): a DllMain that
 * returns DWORD, without extern "C", is called (issue 29 item 1: Windows'
 * headers do not declare DllMain, so any signature compiles); MessageBox,
 * rand() from <windows.h> alone, _stprintf_s/_vstprintf_s, OpenSCManager
 * and ANYSIZE_ARRAY compile and behave as documented (item 2). Built ANSI
 * with the documented flags only (default visibility), installed with the
 * A functions and read with typeperf in the helper process. */
static void rsdn_style(const char *cxx)
{
    char so[4300], cmd[9000], out[16384];
    snprintf(so, sizeof so, "%s/rsdnstyle.so", fx.dir);
    compile_with(cxx, "-std=c++17 -Wall -Wextra -Werror -fshort-wchar", "rsdnstyle.cpp", so, 1);
    HKEY k = NULL;
    assert_int_equal(RegCreateKeyExA(HKEY_LOCAL_MACHINE, "SYSTEM\\CurrentControlSet\\Services\\RsdnStyle\\Performance",
                                     0, NULL, 0, KEY_ALL_ACCESS, NULL, &k, NULL),
                     ERROR_SUCCESS);
    const char *const values[4][2] = {{"Library", so}, {"Open", "Open"}, {"Collect", "Collect"}, {"Close", "Close"}};
    for (int i = 0; i < 4; i++)
        assert_int_equal(RegSetValueExA(k, values[i][0], 0, REG_SZ, (const BYTE *)values[i][1],
                                        (DWORD)strlen(values[i][1]) + 1),
                         ERROR_SUCCESS);
    RegCloseKey(k);
    snprintf(cmd, sizeof cmd, "lodctr %s/tests/win32/w32gen/rsdnstyle.ini", PL_SOURCE_DIR);
    assert_int_equal(LoadPerfCounterTextStringsA(cmd, TRUE), ERROR_SUCCESS);

    snprintf(cmd, sizeof cmd,
             "%s \"\\RSDN Style\\DllMain Attaches\" \"\\RSDN Style\\Message Box Answer\" "
             "\"\\RSDN Style\\Random Digit\" \"\\RSDN Style\\SCM Error\" \"\\RSDN Style\\Formatted Length\" "
             "-sc 1 2>&1",
             TYPEPERF_BIN);
    assert_int_equal(run(cmd, out, sizeof out), 0);
    /* the data line (after the header): time stamp, then the five values */
    const char *line = strstr(out, "(PDH-CSV");
    if (line) line = strstr(line, "\n\"");
    if (!line) fail_msg("typeperf output:\n%s", out);
    unsigned attaches = 99, answer = 99, digit = 99, scm = 99, len = 99;
    if (sscanf(line + 1, "\"%*[^\"]\",\"%u.%*u\",\"%u.%*u\",\"%u.%*u\",\"%u.%*u\",\"%u.%*u\"", &attaches, &answer,
               &digit, &scm, &len) != 5)
        fail_msg("typeperf output:\n%s", out);
    assert_int_equal(attaches, 1);  /* DllMain(DLL_PROCESS_ATTACH), once, in the helper */
    assert_int_equal(answer, 1);    /* IDOK */
    assert_true(digit < 10);
    assert_int_equal(scm, ERROR_CALL_NOT_IMPLEMENTED);
    assert_int_equal(len, 7);       /* "Open 42" */
}

static void rsdn_style_gxx(void **state)
{
    (void)state;
    rsdn_style("g++");
}

static void rsdn_style_clangxx(void **state)
{
    (void)state;
    rsdn_style("clang++");
}

static void cxx_unicode_gxx(void **state)
{
    (void)state;
    check("g++");
}

static void cxx_unicode_clangxx(void **state)
{
    (void)state;
    check("clang++");
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(all_headers_compile),
        cmocka_unit_test_setup_teardown(cxx_unicode_gxx, setup, teardown),
        cmocka_unit_test_setup_teardown(cxx_unicode_clangxx, setup, teardown),
        cmocka_unit_test_setup_teardown(rsdn_style_gxx, setup, teardown),
        cmocka_unit_test_setup_teardown(rsdn_style_clangxx, setup, teardown),
    };
    return pl_test_run(tests, argc, argv);
}
