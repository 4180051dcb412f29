/* RegQueryValueEx and the other registry functions on the performance keys
 * (include/win32/winreg.h): every behaviour of the reference's
 * win32-behaviour.md points 3, 4, 5 and 6, against a deterministic store
 * whose only provider is tests/perfquery's pq_testprov (6 objects). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "perflib/block.h"
#include "perflib/win32.h"
#include "pl_test.h"
#include "w32_util.h"
#include "win32/winperf.h"
#include "win32/winreg.h"

#define BIG (1024u * 1024u)
#define GLOBAL_OBJECTS 6u   /* pq_testprov: PQ Machine, PQ Parent, PQ Child, System, Memory, Processor */
#define PQ_MAX_OFFSET 18u  /* the provider's highest symbol offset (pqtestsym.h) */

static pq_fixture fx;
static uint32_t g_fc, g_fh; /* the provider's First Counter/Help, as the store assigned them */

static int setup(void **state)
{
    (void)state;
    if (w32_fixture(&fx) != 0) return -1;
    return w32_first_indices(&fx, "PerfqueryTest", &g_fc, &g_fh);
}

static int teardown(void **state)
{
    (void)state;
    pl_win32_set_engine(NULL);
    pq_fixture_done(&fx);
    return 0;
}

static const HKEY g_keys[] = {HKEY_PERFORMANCE_DATA, HKEY_PERFORMANCE_TEXT, HKEY_PERFORMANCE_NLSTEXT};
static const char *const g_data_names[] = {NULL, "", "Global", "2", "invalid counter name", "System"};
#define NKEYS (sizeof g_keys / sizeof g_keys[0])
#define NNAMES (sizeof g_data_names / sizeof g_data_names[0])

static int64_t filetime_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return 116444736000000000LL + (int64_t)ts.tv_sec * 10000000LL + ts.tv_nsec / 100;
}

/* The objects each data name must give with pq_testprov. */
static uint32_t expected_objects(const char *name)
{
    if (!name || !*name || strcmp(name, "Global") == 0) return GLOBAL_OBJECTS;
    /* "2": the provider's Object List (its [objects]: PQ Machine, PQ
     * Parent, PQ Child) does not name System, so the query does not reach it. */
    return 0;
}

/* Point 4: data NULL is ERROR_MORE_DATA with *size = 0, whatever *size was. */
static void data_null_is_more_data_size_zero(void **state)
{
    (void)state;
    for (size_t i = 0; i < NKEYS; i++)
        for (size_t j = 0; j < NNAMES; j++) {
            DWORD size = 0, type = 0xdeadbeef;
            assert_int_equal(RegQueryValueExA(g_keys[i], g_data_names[j], NULL, &type, NULL, &size), ERROR_MORE_DATA);
            assert_int_equal(size, 0);
            assert_int_equal(type, REG_BINARY);
            size = BIG;
            assert_int_equal(RegQueryValueExA(g_keys[i], g_data_names[j], NULL, NULL, NULL, &size), ERROR_MORE_DATA);
            assert_int_equal(size, 0);
            assert_int_equal(RegQueryValueExA(g_keys[i], g_data_names[j], NULL, NULL, NULL, NULL), ERROR_MORE_DATA);
        }
}

/* Point 4: a buffer too small is ERROR_MORE_DATA with *size unchanged
 * (Windows; Wine sets 0). */
static void data_small_buffer_keeps_size(void **state)
{
    (void)state;
    unsigned char buf[100];
    for (size_t i = 0; i < NKEYS; i++)
        for (size_t j = 0; j < NNAMES; j++) {
            DWORD size = 10;
            assert_int_equal(RegQueryValueExA(g_keys[i], g_data_names[j], NULL, NULL, buf, &size), ERROR_MORE_DATA);
            assert_int_equal(size, 10);
            size = 88; /* a header without the system name does not fit either */
            assert_int_equal(RegQueryValueExA(g_keys[i], g_data_names[j], NULL, NULL, buf, &size), ERROR_MORE_DATA);
            assert_int_equal(size, 88);
        }
}

static void check_header(const unsigned char *buf, DWORD size, uint32_t nobjects, int64_t t0, int64_t t1,
                         const char *sysname)
{
    PERF_DATA_BLOCK h;
    memcpy(&h, buf, sizeof h);
    assert_int_equal(h.Signature[0], 'P');
    assert_int_equal(h.Signature[1], 'E');
    assert_int_equal(h.Signature[2], 'R');
    assert_int_equal(h.Signature[3], 'F');
    assert_int_equal(h.LittleEndian, 1);
    assert_int_equal(h.Version, 1);
    assert_int_equal(h.Revision, 1);
    assert_int_equal(h.TotalByteLength, size);
    assert_int_equal(h.SystemNameOffset, 88);
    assert_int_equal(h.SystemNameLength, (strlen(sysname) + 1) * 2);
    assert_int_equal(h.HeaderLength, (88 + h.SystemNameLength + 7) & ~7u);
    assert_int_equal(h.DefaultObject, 238);
    assert_int_equal(h.NumObjectTypes, nobjects);
    assert_int_equal(h.PerfFreq.QuadPart, 10000000);
    assert_true(h.PerfTime100nSec.QuadPart >= t0 && h.PerfTime100nSec.QuadPart <= t1);
    for (size_t k = 0; k <= strlen(sysname); k++) {
        uint16_t u;
        memcpy(&u, buf + 88 + 2 * k, 2);
        assert_int_equal(u, (unsigned char)sysname[k]);
    }
    /* The reader agrees. */
    pl_block blk;
    pl_error err;
    assert_int_equal(pl_block_open(&blk, buf, size, 0, 0, &err), PL_OK);
    assert_int_equal(blk.num_objects, nobjects);
    assert_string_equal(blk.system_name, sysname);
}

/* Points 2 and 3: any name but counter.../help... is a PERF_DATA_BLOCK
 * (REG_BINARY); unknown words are not errors, just 0 objects. */
static void data_names_give_blocks(void **state)
{
    (void)state;
    unsigned char *buf = malloc(BIG);
    assert_non_null(buf);
    char sysname[256];
    w32_system_name(sysname, sizeof sysname);
    for (size_t i = 0; i < NKEYS; i++)
        for (size_t j = 0; j < NNAMES; j++) {
            DWORD size = BIG, type = 0xdeadbeef;
            int64_t t0 = filetime_now();
            assert_int_equal(RegQueryValueExA(g_keys[i], g_data_names[j], NULL, &type, buf, &size), ERROR_SUCCESS);
            int64_t t1 = filetime_now();
            assert_int_equal(type, REG_BINARY);
            assert_true(size >= sizeof(PERF_DATA_BLOCK) && size < BIG);
            check_header(buf, size, expected_objects(g_data_names[j]), t0, t1, sysname);
        }
    free(buf);
}

/* The W form of a data query gives the same kind of block. */
static void data_query_w(void **state)
{
    (void)state;
    unsigned char *buf = malloc(BIG);
    assert_non_null(buf);
    char sysname[256];
    w32_system_name(sysname, sizeof sysname);
    DWORD size = BIG, type = 0;
    int64_t t0 = filetime_now();
    assert_int_equal(RegQueryValueExW(HKEY_PERFORMANCE_DATA, u"Global", NULL, &type, buf, &size), ERROR_SUCCESS);
    int64_t t1 = filetime_now();
    assert_int_equal(type, REG_BINARY);
    check_header(buf, size, GLOBAL_OBJECTS, t0, t1, sysname);
    size = BIG;
    assert_int_equal(RegQueryValueExW(HKEY_PERFORMANCE_TEXT, u"no such thing", NULL, &type, buf, &size),
                     ERROR_SUCCESS);
    check_header(buf, size, 0, t0, filetime_now(), sysname);
    size = 0;
    assert_int_equal(RegQueryValueExW(HKEY_PERFORMANCE_DATA, u"Global", NULL, NULL, NULL, &size), ERROR_MORE_DATA);
    assert_int_equal(size, 0);
    free(buf);
}

/* A blank before "Counter" makes it a data query (Windows matches the
 * prefix at the start only). */
static void leading_blank_is_data(void **state)
{
    (void)state;
    unsigned char *buf = malloc(BIG);
    assert_non_null(buf);
    char sysname[256];
    w32_system_name(sysname, sizeof sysname);
    DWORD size = BIG, type = 0;
    int64_t t0 = filetime_now();
    assert_int_equal(RegQueryValueExA(HKEY_PERFORMANCE_DATA, " Counter 009", NULL, &type, buf, &size), ERROR_SUCCESS);
    assert_int_equal(type, REG_BINARY);
    check_header(buf, size, 0, t0, filetime_now(), sysname);
    free(buf);
}

/* The seed's loop (KB Q107728): start small, grow by a fixed step while
 * ERROR_MORE_DATA; it ends with a valid block and DefaultObject 238. */
static void grow_and_retry_global(void **state)
{
    (void)state;
    DWORD cap = 16, tries = 0, type = 0;
    unsigned char *buf = malloc(cap);
    assert_non_null(buf);
    LSTATUS rc;
    for (;;) {
        DWORD size = cap;
        tries++;
        rc = RegQueryValueExA(HKEY_PERFORMANCE_DATA, "Global", NULL, &type, buf, &size);
        if (rc != ERROR_MORE_DATA) {
            cap = size;
            break;
        }
        assert_int_equal(size, cap); /* unchanged */
        cap += 256;
        buf = realloc(buf, cap);
        assert_non_null(buf);
        assert_true(tries < 1000);
    }
    assert_int_equal(rc, ERROR_SUCCESS);
    assert_int_equal(type, REG_BINARY);
    assert_true(tries > 2);
    pl_block blk;
    pl_error err;
    assert_int_equal(pl_block_open(&blk, buf, cap, 0, 0, &err), PL_OK);
    assert_int_equal(blk.hdr.DefaultObject, 238);
    assert_int_equal(blk.hdr.TotalByteLength, cap);
    assert_int_equal(blk.num_objects, GLOBAL_OBJECTS);
    pl_object o;
    assert_int_equal(pl_block_find_object(&blk, 238, &o), PL_OK);
    assert_int_equal(pl_object_num_instances(&o), 3);
    assert_int_equal(pl_block_find_object(&blk, 2, &o), PL_OK);
    pl_counter c;
    uint64_t v = 0;
    assert_int_equal(pl_object_find_counter(&o, 250, &c), PL_OK);
    pl_instance single;
    assert_int_equal(pl_object_instance(&o, -1, &single), PL_OK);
    assert_int_equal(pl_counter_value(&c, &single, &v), PL_OK);
    assert_int_equal(v, 314);
    free(buf);
}

/* The fixture's names, as Windows lays them out (point 5): the fixed
 * table, then the provider's names at First Counter + offset. */
static const char g_fixed_text[] =
    "1\0" "1847\0" "2\0" "System\0" "4\0" "Memory\0" "6\0" "% Processor Time\0" "238\0" "Processor\0"
    "248\0" "Processes\0" "250\0" "Threads\0" "700\0" "Paging File\0" "1382\0" "Available MBytes\0"
    "1846\0" "End Marker\0";
static const char *const g_pq_names[] = {"PQ Machine", "Greeting", "Ticks",    "Flags",     "PQ Parent",
                                         "Items",      "PQ Child", "Hits",     "Hit Ratio", "Bytes/sec"};
static char g_counter_text[1024];
static DWORD g_counter_len;

static void build_counter_text(void)
{
    size_t n = sizeof g_fixed_text - 1; /* without the final empty string */
    memcpy(g_counter_text, g_fixed_text, n);
    for (unsigned k = 0; k < 10; k++)
        n += (size_t)snprintf(g_counter_text + n, sizeof g_counter_text - n, "%u%c%s%c", g_fc + 2 * k, 0,
                              g_pq_names[k], 0);
    g_counter_text[n++] = '\0';
    g_counter_len = (DWORD)n;
}

/* Point 4 for text: data NULL gives ERROR_SUCCESS and the size; too small
 * gives ERROR_MORE_DATA and the size; point 5: "1","1847" first. */
static void counter_009_a(void **state)
{
    (void)state;
    build_counter_text();
    const DWORD want = g_counter_len; /* with the final empty string */
    DWORD size = 0xdeadbeef, type = 0;
    assert_int_equal(RegQueryValueExA(HKEY_PERFORMANCE_DATA, "Counter 009", NULL, &type, NULL, &size), ERROR_SUCCESS);
    assert_int_equal(size, want);
    assert_int_equal(type, REG_MULTI_SZ);
    assert_int_equal(RegQueryValueExA(HKEY_PERFORMANCE_DATA, "Counter 009", NULL, NULL, NULL, NULL), ERROR_SUCCESS);
    char *buf = malloc(want + 16);
    assert_non_null(buf);
    memset(buf, 0x5A, want + 16);
    size = 0;
    type = 0;
    assert_int_equal(RegQueryValueExA(HKEY_PERFORMANCE_DATA, "Counter 009", NULL, &type, (LPBYTE)buf, &size),
                     ERROR_MORE_DATA);
    assert_int_equal(size, want);
    assert_int_equal(type, REG_MULTI_SZ);
    size = want - 1;
    assert_int_equal(RegQueryValueExA(HKEY_PERFORMANCE_DATA, "Counter 009", NULL, NULL, (LPBYTE)buf, &size),
                     ERROR_MORE_DATA);
    assert_int_equal(size, want);
    assert_int_equal((unsigned char)buf[0], 0x5A); /* nothing written */
    size = want + 16;
    assert_int_equal(RegQueryValueExA(HKEY_PERFORMANCE_DATA, "Counter 009", NULL, &type, (LPBYTE)buf, &size),
                     ERROR_SUCCESS);
    assert_int_equal(size, want);
    assert_memory_equal(buf, g_counter_text, want);
    assert_int_equal((unsigned char)buf[want], 0x5A);
    assert_string_equal(buf, "1");
    assert_string_equal(buf + 2, "1847");
    assert_string_equal(w32_multisz_lookup(buf, "1846"), "End Marker");
    free(buf);
}

/* Point 3: "counter"/"help" are case-insensitive prefixes, on all three
 * keys; "Explain" is the NT 3.x name of Help. */
static void title_prefixes_all_keys(void **state)
{
    (void)state;
    static const char *const counters[] = {"cOuNtEr", "cOuNtErwine", "counter", "Counter 009", "COUNTER009"};
    static const char *const helps[] = {"hElP", "hElPwine", "Help 009", "Explain 009", "explain"};
    char *buf = malloc(BIG);
    assert_non_null(buf);
    build_counter_text();
    char help0[16];
    snprintf(help0, sizeof help0, "%u", g_fh);
    for (size_t i = 0; i < NKEYS; i++) {
        for (size_t j = 0; j < sizeof counters / sizeof counters[0]; j++) {
            DWORD size = BIG, type = 0;
            assert_int_equal(RegQueryValueExA(g_keys[i], counters[j], NULL, &type, (LPBYTE)buf, &size),
                             ERROR_SUCCESS);
            assert_int_equal(type, REG_MULTI_SZ);
            assert_int_equal(size, g_counter_len);
            assert_memory_equal(buf, g_counter_text, size);
        }
        for (size_t j = 0; j < sizeof helps / sizeof helps[0]; j++) {
            DWORD size = 0, type = 0;
            assert_int_equal(RegQueryValueExA(g_keys[i], helps[j], NULL, &type, NULL, &size), ERROR_SUCCESS);
            assert_true(size > 0);
            DWORD need = size;
            size = 3;
            assert_int_equal(RegQueryValueExA(g_keys[i], helps[j], NULL, &type, (LPBYTE)buf, &size),
                             ERROR_MORE_DATA);
            assert_int_equal(size, need);
            size = BIG;
            assert_int_equal(RegQueryValueExA(g_keys[i], helps[j], NULL, &type, (LPBYTE)buf, &size), ERROR_SUCCESS);
            assert_int_equal(type, REG_MULTI_SZ);
            assert_int_equal(size, need);
            assert_int_equal(buf[size - 1], '\0');
            assert_int_equal(buf[size - 2], '\0');
            assert_string_equal(w32_multisz_lookup(buf, "3"), "The whole machine.");
            assert_string_equal(w32_multisz_lookup(buf, "1847"), "End Marker");
            assert_string_equal(w32_multisz_lookup(buf, help0), "A test object without instances.");
            assert_null(w32_multisz_lookup(buf, "1846"));
        }
    }
    free(buf);
}

/* The W form returns UTF-16LE; the sizes are those of the UTF-16 text. */
static void counter_w_is_utf16(void **state)
{
    (void)state;
    build_counter_text();
    DWORD size = 0, type = 0;
    assert_int_equal(RegQueryValueExW(HKEY_PERFORMANCE_NLSTEXT, u"cOuNtEr", NULL, &type, NULL, &size), ERROR_SUCCESS);
    assert_int_equal(size, 2 * g_counter_len);
    assert_int_equal(type, REG_MULTI_SZ);
    uint16_t *w = malloc(size);
    assert_non_null(w);
    DWORD small = 2;
    assert_int_equal(RegQueryValueExW(HKEY_PERFORMANCE_NLSTEXT, u"cOuNtEr", NULL, NULL, (LPBYTE)w, &small),
                     ERROR_MORE_DATA);
    assert_int_equal(small, size);
    assert_int_equal(RegQueryValueExW(HKEY_PERFORMANCE_NLSTEXT, u"cOuNtEr", NULL, &type, (LPBYTE)w, &size),
                     ERROR_SUCCESS);
    for (size_t k = 0; k < g_counter_len; k++) assert_int_equal(w[k], (unsigned char)g_counter_text[k]);
    free(w);
}

/* Languages: HKPD and HKPT use 009 unless the name says otherwise; HKPN
 * uses the default language (PERFLIB_LANG); a missing language is
 * ERROR_FILE_NOT_FOUND. */
static void text_languages(void **state)
{
    (void)state;
    pl_store *st = NULL;
    pl_error err;
    assert_int_equal(pl_store_open(fx.store, 0, &st, &err), PL_OK);
    assert_int_equal(pl_store_add_language(st, "007", &err), PL_OK);
    assert_int_equal(pl_store_set_title(st, "007", PL_TITLE_NAME, 2, "System (de)", &err), PL_OK);
    pl_store_close(st);
    setenv("PERFLIB_LANG", "007", 1);

    char *buf = malloc(BIG);
    assert_non_null(buf);
    struct { HKEY key; const char *name; const char *system; } cases[] = {
        {HKEY_PERFORMANCE_DATA, "Counter", "System"},      {HKEY_PERFORMANCE_TEXT, "Counter", "System"},
        {HKEY_PERFORMANCE_NLSTEXT, "Counter", "System (de)"}, {HKEY_PERFORMANCE_DATA, "Counter 007", "System (de)"},
        {HKEY_PERFORMANCE_TEXT, "Counter 007", "System (de)"}, {HKEY_PERFORMANCE_NLSTEXT, "Counter 009", "System"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        DWORD size = BIG;
        assert_int_equal(RegQueryValueExA(cases[i].key, cases[i].name, NULL, NULL, (LPBYTE)buf, &size), ERROR_SUCCESS);
        assert_string_equal(w32_multisz_lookup(buf, "2"), cases[i].system);
        assert_string_equal(w32_multisz_lookup(buf, "4"), "Memory"); /* falls back to English */
    }
    DWORD size = BIG;
    assert_int_equal(RegQueryValueExA(HKEY_PERFORMANCE_DATA, "Counter 00C", NULL, NULL, (LPBYTE)buf, &size),
                     ERROR_FILE_NOT_FOUND);
    assert_int_equal(size, BIG);
    size = 0;
    assert_int_equal(RegQueryValueExA(HKEY_PERFORMANCE_TEXT, "Help 00C", NULL, NULL, NULL, &size), ERROR_FILE_NOT_FOUND);
    free(buf);
    unsetenv("PERFLIB_LANG");
}

/* Point 6: the other registry functions on the performance keys. */
static void other_apis_on_perf_keys(void **state)
{
    (void)state;
    char buf[256];
    for (size_t i = 0; i < NKEYS; i++) {
        HKEY k = (HKEY)(uintptr_t)0x1234;
        assert_int_equal(RegOpenKeyA(g_keys[i], NULL, &k), ERROR_INVALID_HANDLE);
        assert_int_equal(RegOpenKeyA(g_keys[i], "Global", &k), ERROR_INVALID_HANDLE);
        assert_int_equal(RegOpenKeyExA(g_keys[i], "Global", 0, KEY_READ, &k), ERROR_INVALID_HANDLE);
        assert_null(k);
        assert_int_equal(RegOpenKeyExW(g_keys[i], u"Global", 0, KEY_READ, &k), ERROR_INVALID_HANDLE);
        assert_int_equal(RegOpenKeyW(g_keys[i], NULL, &k), ERROR_INVALID_HANDLE);
        LONG lsize = 0;
        assert_int_equal(RegQueryValueA(g_keys[i], "Global", NULL, &lsize), ERROR_INVALID_HANDLE);
        assert_int_equal(RegQueryValueW(g_keys[i], u"Global", NULL, &lsize), ERROR_INVALID_HANDLE);
        assert_int_equal(RegSetValueA(g_keys[i], "Global", REG_SZ, "dummy", 5), ERROR_INVALID_HANDLE);
        assert_int_equal(RegSetValueW(g_keys[i], u"Global", REG_SZ, u"dummy", 10), ERROR_INVALID_HANDLE);

        DWORD subkeys = 0x900ddeed, values = 0x900ddeed, maxsub = 7, cls = 9;
        assert_int_equal(RegQueryInfoKeyA(g_keys[i], NULL, NULL, NULL, &subkeys, NULL, NULL, &values, NULL, NULL,
                                          NULL, NULL),
                         ERROR_SUCCESS);
        assert_int_equal(subkeys, 0);
        assert_int_equal(values, 2);
        subkeys = values = 0x900ddeed;
        FILETIME ft = {1, 1};
        assert_int_equal(RegQueryInfoKeyW(g_keys[i], NULL, &cls, NULL, &subkeys, &maxsub, NULL, &values, NULL, NULL,
                                          NULL, &ft),
                         ERROR_SUCCESS);
        assert_int_equal(subkeys, 0);
        assert_int_equal(values, 2);
        assert_int_equal(maxsub, 0);
        assert_int_equal(cls, 0);
        assert_int_equal(ft.dwLowDateTime, 0);

        DWORD size = sizeof buf;
        assert_int_equal(RegEnumValueA(g_keys[i], 0, buf, &size, NULL, NULL, NULL, NULL), ERROR_MORE_DATA);
        assert_int_equal(size, sizeof buf);
        size = 4;
        assert_int_equal(RegEnumValueW(g_keys[i], 1, (LPWSTR)buf, &size, NULL, NULL, NULL, NULL), ERROR_MORE_DATA);
        assert_int_equal(size, 4);
        /* the arguments are checked first (issue 29 item 4): a NULL name or
         * size is 87, not 234 */
        size = sizeof buf;
        assert_int_equal(RegEnumValueA(g_keys[i], 0, NULL, &size, NULL, NULL, NULL, NULL), ERROR_INVALID_PARAMETER);
        assert_int_equal(RegEnumValueW(g_keys[i], 0, NULL, NULL, NULL, NULL, NULL, NULL), ERROR_INVALID_PARAMETER);
        assert_int_equal(RegEnumValueA(g_keys[i], 0, buf, NULL, NULL, NULL, NULL, NULL), ERROR_INVALID_PARAMETER);
        DWORD dsize = 4;
        assert_int_equal(RegEnumValueA(g_keys[i], 0, buf, &size, NULL, NULL, (LPBYTE)buf, NULL),
                         ERROR_INVALID_PARAMETER);
        assert_int_equal(RegEnumValueA(g_keys[i], 0, buf, &size, &dsize, NULL, NULL, NULL), ERROR_INVALID_PARAMETER);
        assert_int_equal(size, sizeof buf);

        assert_int_equal(RegCloseKey(g_keys[i]), ERROR_SUCCESS);
        assert_int_equal(RegCloseKey(g_keys[i]), ERROR_SUCCESS);
        assert_int_equal(RegCloseKey(g_keys[i]), ERROR_SUCCESS);
    }
    const BYTE dummy[] = "dummy";
    assert_int_equal(RegSetValueExA(HKEY_PERFORMANCE_DATA, "Global", 0, REG_SZ, dummy, 5), ERROR_INVALID_HANDLE);
    assert_int_equal(RegSetValueExA(HKEY_PERFORMANCE_TEXT, "Global", 0, REG_SZ, dummy, 5), ERROR_BADKEY);
    assert_int_equal(RegSetValueExA(HKEY_PERFORMANCE_NLSTEXT, "Global", 0, REG_SZ, dummy, 5), ERROR_BADKEY);
    assert_int_equal(RegSetValueExW(HKEY_PERFORMANCE_DATA, u"Global", 0, REG_SZ, dummy, 5), ERROR_INVALID_HANDLE);
    assert_int_equal(RegSetValueExW(HKEY_PERFORMANCE_TEXT, u"Global", 0, REG_SZ, dummy, 5), ERROR_BADKEY);
    assert_int_equal(RegSetValueExW(HKEY_PERFORMANCE_NLSTEXT, u"Global", 0, REG_SZ, dummy, 5), ERROR_BADKEY);

    assert_int_equal(RegEnumKeyA(HKEY_PERFORMANCE_DATA, 0, buf, sizeof buf), ERROR_INVALID_HANDLE);
    assert_int_equal(RegEnumKeyA(HKEY_PERFORMANCE_TEXT, 0, buf, sizeof buf), ERROR_NO_MORE_ITEMS);
    assert_int_equal(RegEnumKeyA(HKEY_PERFORMANCE_NLSTEXT, 0, buf, sizeof buf), ERROR_NO_MORE_ITEMS);
    DWORD cch = sizeof buf / 2;
    assert_int_equal(RegEnumKeyExW(HKEY_PERFORMANCE_DATA, 0, (LPWSTR)buf, &cch, NULL, NULL, NULL, NULL),
                     ERROR_INVALID_HANDLE);
    assert_int_equal(RegEnumKeyExW(HKEY_PERFORMANCE_TEXT, 0, (LPWSTR)buf, &cch, NULL, NULL, NULL, NULL),
                     ERROR_NO_MORE_ITEMS);
    cch = sizeof buf;
    assert_int_equal(RegEnumKeyExA(HKEY_PERFORMANCE_NLSTEXT, 3, buf, &cch, NULL, NULL, NULL, NULL),
                     ERROR_NO_MORE_ITEMS);
    assert_int_equal(cch, sizeof buf);
}

/* Bad arguments and keys this layer does not serve. */
static void bad_arguments_and_handles(void **state)
{
    (void)state;
    unsigned char buf[64];
    DWORD reserved = 0, size = sizeof buf;
    assert_int_equal(RegQueryValueExA(HKEY_PERFORMANCE_DATA, "Global", &reserved, NULL, buf, &size),
                     ERROR_INVALID_PARAMETER);
    assert_int_equal(RegQueryValueExA(HKEY_PERFORMANCE_DATA, "Counter", NULL, NULL, buf, NULL),
                     ERROR_INVALID_PARAMETER);
    assert_int_equal(RegQueryValueExA(HKEY_PERFORMANCE_DATA, "Global", NULL, NULL, buf, NULL),
                     ERROR_INVALID_PARAMETER);
    static const uintptr_t bad[] = {0, 0x1234, 0x80000001u, 0x80000004u /* not sign-extended */};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        HKEY k = (HKEY)bad[i];
        size = sizeof buf;
        assert_int_equal(RegQueryValueExA(k, "Global", NULL, NULL, buf, &size), ERROR_INVALID_HANDLE);
        assert_int_equal(RegQueryValueExW(k, u"Global", NULL, NULL, buf, &size), ERROR_INVALID_HANDLE);
        assert_int_equal(size, sizeof buf);
        assert_int_equal(RegSetValueExA(k, "x", 0, REG_SZ, buf, 1), ERROR_INVALID_HANDLE);
        DWORD n = 0;
        assert_int_equal(RegQueryInfoKeyA(k, NULL, NULL, NULL, &n, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
                         ERROR_INVALID_HANDLE);
        assert_int_equal(RegEnumKeyA(k, 0, (LPSTR)buf, sizeof buf), ERROR_INVALID_HANDLE);
    }
    assert_int_equal(RegCloseKey((HKEY)(uintptr_t)0x1234), ERROR_INVALID_HANDLE);
    assert_int_equal(RegCloseKey(NULL), ERROR_INVALID_HANDLE);
    assert_int_equal(RegCloseKey(HKEY_CURRENT_USER), ERROR_SUCCESS);
    HKEY k = NULL;
    assert_int_equal(RegOpenKeyExA(HKEY_CURRENT_USER, "Software", 0, KEY_READ, &k), ERROR_INVALID_HANDLE);
    assert_int_equal(RegOpenKeyExA(HKEY_LOCAL_MACHINE, "SOFTWARE\\Microsoft", 0, KEY_READ, NULL),
                     ERROR_INVALID_PARAMETER);
    /* The predefined values are sign-extended, as on 64-bit Windows. */
    assert_int_equal((uintptr_t)HKEY_PERFORMANCE_DATA, (uintptr_t)(intptr_t)(int32_t)0x80000004u);
}

/* HKLM\...\Perflib: Last Counter/Help as REG_DWORD; 009 is HKPT. */
static void perflib_key(void **state)
{
    (void)state;
    HKEY pk = NULL, k = NULL;
    assert_int_equal(RegOpenKeyExA(HKEY_LOCAL_MACHINE, "software\\microsoft\\windows nt\\currentversion\\perflib", 0,
                                   KEY_READ, &pk),
                     ERROR_SUCCESS);
    assert_non_null(pk);
    DWORD v = 0, type = 0, size = sizeof v;
    assert_int_equal(RegQueryValueExA(pk, "Last Counter", NULL, &type, (LPBYTE)&v, &size), ERROR_SUCCESS);
    assert_int_equal(type, REG_DWORD);
    assert_int_equal(size, 4);
    assert_int_equal(v, (g_fc + PQ_MAX_OFFSET));
    size = 4;
    assert_int_equal(RegQueryValueExW(pk, u"Last Help", NULL, &type, (LPBYTE)&v, &size), ERROR_SUCCESS);
    assert_int_equal(v, (g_fh + PQ_MAX_OFFSET));
    size = 0;
    assert_int_equal(RegQueryValueExA(pk, "Base Index", NULL, &type, NULL, &size), ERROR_SUCCESS);
    assert_int_equal(size, 4);
    size = 2;
    assert_int_equal(RegQueryValueExA(pk, "Base Index", NULL, &type, (LPBYTE)&v, &size), ERROR_MORE_DATA);
    assert_int_equal(size, 4);
    size = 4;
    assert_int_equal(RegQueryValueExA(pk, "Base Index", NULL, &type, (LPBYTE)&v, &size), ERROR_SUCCESS);
    assert_int_equal(v, 1847);
    size = 4;
    assert_int_equal(RegQueryValueExA(pk, "Nope", NULL, &type, (LPBYTE)&v, &size), ERROR_FILE_NOT_FOUND);

    assert_int_equal(RegOpenKeyExA(pk, "009", 0, KEY_READ, &k), ERROR_SUCCESS);
    assert_true(k == HKEY_PERFORMANCE_TEXT);
    assert_int_equal(RegOpenKeyExW(pk, u"CurrentLanguage", 0, KEY_READ, &k), ERROR_SUCCESS);
    assert_true(k == HKEY_PERFORMANCE_NLSTEXT);
    assert_int_equal(RegOpenKeyExA(pk, "012", 0, KEY_READ, &k), ERROR_FILE_NOT_FOUND);
    assert_null(k);
    assert_int_equal(RegOpenKeyExA(HKEY_LOCAL_MACHINE,
                                   "SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Perflib\\009", 0, KEY_READ, &k),
                     ERROR_SUCCESS);
    assert_true(k == HKEY_PERFORMANCE_TEXT);
    assert_int_equal(RegOpenKeyExA(HKEY_LOCAL_MACHINE, "SOFTWARE\\Microsoft\\Windows", 0, KEY_READ, &k),
                     ERROR_FILE_NOT_FOUND);

    char name[32];
    DWORD cch = sizeof name;
    assert_int_equal(RegEnumKeyExA(pk, 1, name, &cch, NULL, NULL, NULL, NULL), ERROR_SUCCESS);
    assert_string_equal(name, "CurrentLanguage");
    assert_int_equal(cch, 15);
    cch = 3;
    assert_int_equal(RegEnumKeyExA(pk, 0, name, &cch, NULL, NULL, NULL, NULL), ERROR_MORE_DATA);
    assert_int_equal(RegEnumKeyA(pk, 2, name, sizeof name), ERROR_NO_MORE_ITEMS);
    cch = sizeof name;
    size = 4;
    assert_int_equal(RegEnumValueA(pk, 1, name, &cch, NULL, &type, (LPBYTE)&v, &size), ERROR_SUCCESS);
    assert_string_equal(name, "Last Counter");
    assert_int_equal(v, (g_fc + PQ_MAX_OFFSET));
    cch = sizeof name;
    assert_int_equal(RegEnumValueA(pk, 3, name, &cch, NULL, NULL, NULL, NULL), ERROR_NO_MORE_ITEMS);
    DWORD subkeys = 0, values = 0;
    assert_int_equal(RegQueryInfoKeyA(pk, NULL, NULL, NULL, &subkeys, NULL, NULL, &values, NULL, NULL, NULL, NULL),
                     ERROR_SUCCESS);
    assert_int_equal(subkeys, 2);
    assert_int_equal(values, 3);
    assert_int_equal(RegSetValueExA(pk, "Last Counter", 0, REG_DWORD, (const BYTE *)&v, 4), ERROR_ACCESS_DENIED);
    assert_int_equal(RegCloseKey(pk), ERROR_SUCCESS);
    assert_int_equal(RegCloseKey(pk), ERROR_SUCCESS);
}

/* RegConnectRegistry to this machine gives the key back; another machine
 * is not reachable this way. */
static void connect_registry(void **state)
{
    (void)state;
    HKEY k = NULL;
    assert_int_equal(RegConnectRegistryA(NULL, HKEY_PERFORMANCE_DATA, &k), ERROR_SUCCESS);
    assert_true(k == HKEY_PERFORMANCE_DATA);
    assert_int_equal(RegConnectRegistryW(u"\\\\localhost", HKEY_PERFORMANCE_TEXT, &k), ERROR_SUCCESS);
    assert_true(k == HKEY_PERFORMANCE_TEXT);
    assert_int_equal(RegConnectRegistryA("\\\\no-such-host.invalid", HKEY_PERFORMANCE_DATA, &k), ERROR_BAD_NETPATH);
    assert_null(k);
    assert_int_equal(RegConnectRegistryA(NULL, HKEY_CURRENT_USER, &k), ERROR_INVALID_HANDLE);
    assert_int_equal(RegConnectRegistryA(NULL, HKEY_PERFORMANCE_DATA, NULL), ERROR_INVALID_PARAMETER);
}

/* pl_win32_set_engine: the queries go to the engine given, then back. */
static void set_engine_override(void **state)
{
    (void)state;
    pl_engine_config cfg = {0};
    cfg.store_path = fx.store;
    cfg.system_name = "TESTBOX";
    cfg.log_to_syslog = 0;
    pl_engine *e = NULL;
    pl_error err;
    assert_int_equal(pl_engine_open(&cfg, &e, &err), PL_OK);
    pl_win32_set_engine(e);
    unsigned char *buf = malloc(BIG);
    assert_non_null(buf);
    DWORD size = BIG;
    int64_t t0 = filetime_now();
    /* PQ Machine is in the provider's Object List; it answers with everything. */
    char q[16];
    snprintf(q, sizeof q, "%u", g_fc);
    assert_int_equal(RegQueryValueExA(HKEY_PERFORMANCE_DATA, q, NULL, NULL, buf, &size), ERROR_SUCCESS);
    check_header(buf, size, GLOBAL_OBJECTS, t0, filetime_now(), "TESTBOX");
    pl_win32_set_engine(NULL);
    pl_engine_close(e);
    char sysname[256];
    w32_system_name(sysname, sizeof sysname);
    size = BIG;
    t0 = filetime_now();
    assert_int_equal(RegQueryValueExA(HKEY_PERFORMANCE_DATA, "Costly", NULL, NULL, buf, &size), ERROR_SUCCESS);
    check_header(buf, size, 0, t0, filetime_now(), sysname);
    free(buf);
}

/* Statuses map to Win32 codes as docs/win32.md says. */
static void status_mapping(void **state)
{
    (void)state;
    assert_int_equal(pl_win32_error_from_status(PL_OK), 0);
    assert_int_equal(pl_win32_error_from_status(PL_E_NOMEM), 14);
    assert_int_equal(pl_win32_error_from_status(PL_E_INVAL), 87);
    assert_int_equal(pl_win32_error_from_status(PL_E_MORE_DATA), 234);
    assert_int_equal(pl_win32_error_from_status(PL_E_NOT_FOUND), 2);
    assert_int_equal(pl_win32_error_from_status(PL_E_EXISTS), 183);
    assert_int_equal(pl_win32_error_from_status(PL_E_IO), 2);
    assert_int_equal(pl_win32_error_from_status(PL_E_PARSE), 13);
    assert_int_equal(pl_win32_error_from_status(PL_E_ENCODING), 13);
    assert_int_equal(pl_win32_error_from_status(PL_E_RANGE), 13);
    assert_int_equal(pl_win32_error_from_status(PL_E_STORE), 1009);
    assert_int_equal(pl_win32_error_from_status(PL_E_SCHEMA), 1009);
    assert_int_equal(pl_win32_error_from_status(PL_E_BUSY), 170);
    assert_int_equal(pl_win32_error_from_status(PL_E_UNSUPPORTED), 50);
    assert_int_equal(pl_win32_error_from_status(PL_E_PROVIDER), 31);
    assert_int_equal(pl_win32_error_from_status(12345), 31);
}

/* Registry details Windows programs rely on (issue 10 item 5). */
static void registry_details(void **state)
{
    (void)state;
    /* KB Q107728 sizes its buffer from RegQueryInfoKey on Perflib\009. */
    HKEY k009 = NULL;
    assert_int_equal(RegOpenKeyExA(HKEY_LOCAL_MACHINE, "SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Perflib\\009", 0,
                                   KEY_READ, &k009),
                     ERROR_SUCCESS);
    DWORD values = 0, maxname = 0, maxval = 0;
    assert_int_equal(RegQueryInfoKeyA(k009, NULL, NULL, NULL, NULL, NULL, NULL, &values, &maxname, &maxval, NULL, NULL),
                     ERROR_SUCCESS);
    assert_int_equal(values, 2);
    assert_int_equal(maxname, 7);
    DWORD csize = 0, hsize = 0;
    assert_int_equal(RegQueryValueExA(k009, "Counter", NULL, NULL, NULL, &csize), ERROR_SUCCESS);
    assert_int_equal(RegQueryValueExA(k009, "Help", NULL, NULL, NULL, &hsize), ERROR_SUCCESS);
    assert_int_equal(maxval, csize > hsize ? csize : hsize);
    unsigned char *buf = malloc(maxval + 64);
    assert_non_null(buf);
    memset(buf, 0xAB, maxval + 64);
    DWORD size = maxval;
    assert_int_equal(RegQueryValueExA(k009, "Counter", NULL, NULL, buf, &size), ERROR_SUCCESS);
    assert_int_equal(size, csize);
    for (DWORD i = size; i < maxval + 64; i++) assert_int_equal(buf[i], 0xAB); /* untouched after the data */
    DWORD wmax = 0, wc = 0;
    assert_int_equal(RegQueryInfoKeyW(k009, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &wmax, NULL, NULL),
                     ERROR_SUCCESS);
    uint16_t *wname = w32_widen("Counter");
    assert_int_equal(RegQueryValueExW(k009, (LPCWSTR)wname, NULL, NULL, NULL, &wc), ERROR_SUCCESS);
    free(wname);
    assert_true(wmax >= wc && wc > csize); /* UTF-16 sizes */
    free(buf);
    RegCloseKey(k009);

    /* A performance data block leaves the rest of the buffer alone. */
    buf = malloc(BIG);
    assert_non_null(buf);
    memset(buf, 0xAB, BIG);
    size = BIG;
    assert_int_equal(RegQueryValueExA(HKEY_PERFORMANCE_DATA, "Global", NULL, NULL, buf, &size), ERROR_SUCCESS);
    for (DWORD i = size; i < BIG; i++)
        if (buf[i] != 0xAB) fail_msg("byte %u after the %u-byte block was written", i, size);
    /* ... and the header's padding, which no field defines, as Windows'
     * perflib fills the header field by field (issue 29 item 4): the 4 bytes
     * between SystemTime and PerfTime, and those after the system name. */
    PERF_DATA_BLOCK hdr;
    memcpy(&hdr, buf, sizeof hdr);
    for (size_t i = offsetof(PERF_DATA_BLOCK, SystemTime) + sizeof(SYSTEMTIME); i < offsetof(PERF_DATA_BLOCK, PerfTime); i++)
        assert_int_equal(buf[i], 0xAB);
    assert_int_equal(hdr.SystemNameOffset, 88);
    assert_true(hdr.HeaderLength % 8 == 0 && hdr.HeaderLength <= size);
    for (size_t i = hdr.SystemNameOffset + hdr.SystemNameLength; i < hdr.HeaderLength; i++)
        assert_int_equal(buf[i], 0xAB);
    assert_int_equal(hdr.PerfFreq.QuadPart, 10000000);
    assert_int_equal(((const WCHAR *)(buf + hdr.SystemNameOffset))[hdr.SystemNameLength / 2 - 1], 0);
    pl_block blk;
    assert_int_equal(pl_block_open(&blk, buf, size, 0, 0, NULL), PL_OK); /* still a valid block */
    free(buf);

    /* RegSetKeyValue on the performance keys: Windows' codes. */
    DWORD v = 1;
    assert_int_equal(RegSetKeyValueA(HKEY_PERFORMANCE_DATA, NULL, "x", REG_DWORD, &v, 4), ERROR_INVALID_HANDLE);
    assert_int_equal(RegSetKeyValueA(HKEY_PERFORMANCE_TEXT, NULL, "x", REG_DWORD, &v, 4), ERROR_BADKEY);
    assert_int_equal(RegSetKeyValueA(HKEY_PERFORMANCE_NLSTEXT, "", "x", REG_DWORD, &v, 4), ERROR_BADKEY);
    assert_int_equal(RegSetKeyValueA(HKEY_PERFORMANCE_TEXT, "sub", "x", REG_DWORD, &v, 4), ERROR_INVALID_HANDLE);
    assert_int_equal(RegSetKeyValueA(HKEY_LOCAL_MACHINE, "SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Perflib",
                                     "Last Counter", REG_DWORD, &v, 4),
                     ERROR_ACCESS_DENIED);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(data_null_is_more_data_size_zero, setup, teardown),
        cmocka_unit_test_setup_teardown(data_small_buffer_keeps_size, setup, teardown),
        cmocka_unit_test_setup_teardown(data_names_give_blocks, setup, teardown),
        cmocka_unit_test_setup_teardown(data_query_w, setup, teardown),
        cmocka_unit_test_setup_teardown(leading_blank_is_data, setup, teardown),
        cmocka_unit_test_setup_teardown(grow_and_retry_global, setup, teardown),
        cmocka_unit_test_setup_teardown(counter_009_a, setup, teardown),
        cmocka_unit_test_setup_teardown(title_prefixes_all_keys, setup, teardown),
        cmocka_unit_test_setup_teardown(counter_w_is_utf16, setup, teardown),
        cmocka_unit_test_setup_teardown(text_languages, setup, teardown),
        cmocka_unit_test_setup_teardown(other_apis_on_perf_keys, setup, teardown),
        cmocka_unit_test_setup_teardown(bad_arguments_and_handles, setup, teardown),
        cmocka_unit_test_setup_teardown(perflib_key, setup, teardown),
        cmocka_unit_test_setup_teardown(connect_registry, setup, teardown),
        cmocka_unit_test_setup_teardown(set_engine_override, setup, teardown),
        cmocka_unit_test_setup_teardown(status_mapping, setup, teardown),
        cmocka_unit_test_setup_teardown(registry_details, setup, teardown),
    };
    return pl_test_run(tests, argc, argv);
}
