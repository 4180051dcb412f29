/* Registry store: the in-memory title database (look-ups, fallback, MULTI_SZ
 * export). */
#include <time.h>

#include "reg_test.h"

static pl_titles *load(pl_store *st, const char *lang)
{
    pl_titles *t = NULL;
    pl_error err;
    int s = pl_titles_load(st, lang, &t, &err);
    if (s) fprintf(stderr, "load: %s\n", err.msg);
    assert_int_equal(s, PL_OK);
    return t;
}

static void find_case_insensitive(void **state)
{
    (void)state;
    char path[512];
    reg_tmpfile(path, sizeof path, "perflib.db");
    pl_store *st = reg_open(path);
    pl_titles *t = load(st, "009");
    assert_int_equal(pl_titles_find(t, PL_TITLE_NAME, "% processor TIME"), 6);
    assert_int_equal(pl_titles_find(t, PL_TITLE_NAME, "% Processor Time"), 6);
    assert_int_equal(pl_titles_find(t, PL_TITLE_NAME, "PROCESSOR"), 238);
    assert_int_equal(pl_titles_find(t, PL_TITLE_NAME, "system up time"), 674);
    assert_int_equal(pl_titles_find(t, PL_TITLE_NAME, "tcpV6"), 1530);
    assert_int_equal(pl_titles_find(t, PL_TITLE_NAME, "end marker"), 1846); /* lowest of 1846, 1847 */
    assert_int_equal(pl_titles_find(t, PL_TITLE_NAME, "% Processor Tim"), 0);
    assert_int_equal(pl_titles_find(t, PL_TITLE_NAME, "% Processor Time "), 0);
    assert_int_equal(pl_titles_find(t, PL_TITLE_NAME, ""), 0);
    assert_int_equal(pl_titles_find(t, PL_TITLE_NAME, NULL), 0);
    assert_int_equal(pl_titles_find(t, 7, "System"), 0);
    assert_int_equal(pl_titles_find(t, PL_TITLE_HELP, "END MARKER"), 1847);
    pl_titles_free(t);
    pl_store_close(st);
}

static void find_all_duplicates(void **state)
{
    (void)state;
    char path[512];
    reg_tmpfile(path, sizeof path, "perflib.db");
    pl_store *st = reg_open(path);
    pl_titles *t = load(st, "009");
    uint32_t out[4] = {0, 0, 0, 0};
    assert_int_equal(pl_titles_find_all(t, PL_TITLE_NAME, "% idle time", out, 4), 2);
    assert_int_equal(out[0], 1482);
    assert_int_equal(out[1], 1746);
    assert_int_equal(out[2], 0);
    uint32_t one[1] = {0};
    assert_int_equal(pl_titles_find_all(t, PL_TITLE_NAME, "% Idle Time", one, 1), 2);
    assert_int_equal(one[0], 1482);
    assert_int_equal(pl_titles_find_all(t, PL_TITLE_NAME, "% Idle Time", NULL, 0), 2);
    assert_int_equal(pl_titles_find_all(t, PL_TITLE_NAME, "End Marker", out, 4), 1);
    assert_int_equal(out[0], 1846);
    assert_int_equal(pl_titles_find_all(t, PL_TITLE_NAME, "Processor", out, 4), 1);
    assert_int_equal(out[0], 238);
    assert_int_equal(pl_titles_find_all(t, PL_TITLE_NAME, "nothing like this", out, 4), 0);

    /* Every name resolves back to an index that carries it. */
    size_t n = pl_titles_count(t, PL_TITLE_NAME);
    for (size_t i = 0; i < n; i++) {
        uint32_t idx;
        const char *text;
        assert_int_equal(pl_titles_entry(t, PL_TITLE_NAME, i, &idx, &text), PL_OK);
        uint32_t all[8];
        size_t k = pl_titles_find_all(t, PL_TITLE_NAME, text, all, 8);
        assert_true(k >= 1 && k <= 8);
        int seen = 0;
        for (size_t j = 0; j < k; j++) {
            if (all[j] == idx) seen = 1;
            if (j) assert_true(all[j] > all[j - 1]);
        }
        assert_true(seen);
        assert_int_equal(pl_titles_find(t, PL_TITLE_NAME, text), all[0]);
    }
    assert_int_equal(pl_titles_entry(t, PL_TITLE_NAME, n, NULL, NULL), PL_E_NOT_FOUND);
    assert_int_equal(pl_titles_entry(t, 5, 0, NULL, NULL), PL_E_INVAL);
    pl_titles_free(t);
    pl_store_close(st);
}

static void many_lookups_agree(void **state)
{
    (void)state;
    char path[512];
    reg_tmpfile(path, sizeof path, "perflib.db");
    pl_store *st = reg_open(path);
    pl_titles *t = load(st, "009");
    /* Repeated and mixed-case look-ups give the same exact answers (speed is
     * measured in bench/, not here). */
    for (int i = 0; i < 10000; i++) {
        assert_int_equal(pl_titles_find(t, PL_TITLE_NAME, (i & 1) ? "% processor time" : "% PROCESSOR TIME"), 6);
        assert_int_equal(pl_titles_find(t, PL_TITLE_NAME, "Avg. Disk sec/Transfer"), 206);
    }
    pl_titles_free(t);
    pl_store_close(st);
}

static void language_fallback(void **state)
{
    (void)state;
    char path[512];
    reg_tmpfile(path, sizeof path, "perflib.db");
    pl_store *st = reg_open(path);
    pl_error err;
    assert_int_equal(pl_store_add_language(st, "00C", &err), PL_OK);
    assert_int_equal(pl_store_set_title(st, "00C", PL_TITLE_NAME, 2, "Système", &err), PL_OK);
    assert_int_equal(pl_store_set_title(st, "00C", PL_TITLE_NAME, 2100, "Seulement français", &err), PL_OK);
    pl_titles *t = load(st, "00c");
    assert_string_equal(pl_titles_language(t), "00C");
    assert_string_equal(pl_titles_get(t, PL_TITLE_NAME, 2), "Système");
    assert_string_equal(pl_titles_get(t, PL_TITLE_NAME, 4), "Memory");
    assert_string_equal(pl_titles_get(t, PL_TITLE_NAME, 2100), "Seulement français");
    assert_non_null(pl_titles_get(t, PL_TITLE_HELP, 3));
    assert_int_equal(pl_titles_find(t, PL_TITLE_NAME, "SYSTÈME"), 2);
    assert_int_equal(pl_titles_find(t, PL_TITLE_NAME, "System"), 0); /* replaced in this language */
    assert_int_equal(pl_titles_count(t, PL_TITLE_NAME), 330);
    pl_titles_free(t);
    t = load(st, "009");
    assert_string_equal(pl_titles_get(t, PL_TITLE_NAME, 2), "System");
    assert_null(pl_titles_get(t, PL_TITLE_NAME, 2100));
    pl_titles_free(t);
    pl_titles *none = (pl_titles *)1;
    assert_int_equal(pl_titles_load(st, "007", &none, &err), PL_E_NOT_FOUND);
    assert_null(none);
    assert_int_equal(pl_titles_load(st, "bad!", &none, &err), PL_E_INVAL);
    pl_store_close(st);
}

/* A store holding only a tiny title database, built through restore. */
static pl_store *tiny_store(char *path, size_t cap)
{
    reg_tmpfile(path, cap, "tiny.db");
    pl_store *st = reg_open(path);
    pl_backup_string names[] = {
        {1, "1847"}, {2, "System"}, {4, "Café"}, {1846, "End Marker"}, {1847, "End Marker"},
    };
    pl_backup_string helps[] = {{3, "Sys"}, {1847, "End Marker"}};
    pl_backup_lang lang = {"009", names, 5, helps, 2};
    pl_backup bk = {1847, 1847, 1847, &lang, 1, NULL, 0};
    pl_error err;
    int s = pl_store_restore(st, &bk, &err);
    if (s) fprintf(stderr, "restore: %s\n", err.msg);
    assert_int_equal(s, PL_OK);
    return st;
}

static const char TINY_NAMES[] = "1\0" "1847\0" "2\0" "System\0" "4\0" "Caf\xC3\xA9\0" "1846\0" "End Marker\0"
                                 "1847\0" "End Marker\0";
static const char TINY_HELPS[] = "3\0" "Sys\0" "1847\0" "End Marker\0";

static void export_utf8_exact(void **state)
{
    (void)state;
    char path[512];
    pl_store *st = tiny_store(path, sizeof path);
    pl_titles *t = load(st, "009");
    size_t need = 0;
    /* sizeof includes the literal's own final NUL: that is the list's end. */
    assert_int_equal(pl_titles_export_multisz(t, PL_TITLE_NAME, 0, NULL, 0, &need), PL_E_MORE_DATA);
    assert_int_equal(need, sizeof TINY_NAMES);
    unsigned char buf[256];
    memset(buf, 0xAA, sizeof buf);
    assert_int_equal(pl_titles_export_multisz(t, PL_TITLE_NAME, 0, buf, need - 1, &need), PL_E_MORE_DATA);
    assert_int_equal(need, sizeof TINY_NAMES);
    for (size_t i = 0; i < sizeof buf; i++) assert_int_equal(buf[i], 0xAA); /* nothing written */
    need = 0;
    assert_int_equal(pl_titles_export_multisz(t, PL_TITLE_NAME, 0, buf, sizeof buf, &need), PL_OK);
    assert_int_equal(need, sizeof TINY_NAMES);
    assert_memory_equal(buf, TINY_NAMES, sizeof TINY_NAMES);
    assert_int_equal(buf[need], 0xAA); /* not one byte more */

    assert_int_equal(pl_titles_export_multisz(t, PL_TITLE_HELP, 0, buf, sizeof buf, &need), PL_OK);
    assert_int_equal(need, sizeof TINY_HELPS);
    assert_memory_equal(buf, TINY_HELPS, sizeof TINY_HELPS);
    /* exact fit */
    assert_int_equal(pl_titles_export_multisz(t, PL_TITLE_HELP, 0, buf, sizeof TINY_HELPS, &need), PL_OK);
    assert_int_equal(pl_titles_export_multisz(t, PL_TITLE_HELP, 4, buf, sizeof buf, &need), PL_E_INVAL);
    assert_int_equal(pl_titles_export_multisz(t, PL_TITLE_HELP, 0, buf, sizeof buf, NULL), PL_E_INVAL);
    pl_titles_free(t);
    pl_store_close(st);
}

/* Widen the UTF-8 expectation by hand: ASCII bytes become one unit, the
 * two-byte é (C3 A9) becomes U+00E9. */
static size_t widen(const char *s, size_t n, unsigned char *out)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == 0xC3) {
            out[k++] = (unsigned char)(0xC0 | ((unsigned char)s[++i] & 0x3F));
            out[k++] = 0;
        } else {
            out[k++] = c;
            out[k++] = 0;
        }
    }
    return k;
}

static void export_utf16_exact(void **state)
{
    (void)state;
    char path[512];
    pl_store *st = tiny_store(path, sizeof path);
    pl_titles *t = load(st, "009");
    unsigned char want[512];
    size_t wn = widen(TINY_NAMES, sizeof TINY_NAMES, want);
    assert_int_equal(wn, (sizeof TINY_NAMES - 1) * 2); /* one 2-byte char became one unit */
    assert_int_equal(want[2 * 21], 0xE9);              /* "1\0" "1847\0" "2\0" "System\0" "4\0" "Caf" */
    size_t need = 0;
    assert_int_equal(pl_titles_export_multisz(t, PL_TITLE_NAME, PL_MULTISZ_UTF16, NULL, 0, &need), PL_E_MORE_DATA);
    assert_int_equal(need, wn);
    unsigned char buf[600];
    memset(buf, 0x55, sizeof buf);
    assert_int_equal(pl_titles_export_multisz(t, PL_TITLE_NAME, PL_MULTISZ_UTF16, buf + 1, wn - 1, &need),
                     PL_E_MORE_DATA);
    for (size_t i = 0; i < sizeof buf; i++) assert_int_equal(buf[i], 0x55);
    /* an odd (unaligned) destination is fine */
    assert_int_equal(pl_titles_export_multisz(t, PL_TITLE_NAME, PL_MULTISZ_UTF16, buf + 1, wn, &need), PL_OK);
    assert_int_equal(need, wn);
    assert_memory_equal(buf + 1, want, wn);
    assert_int_equal(buf[1 + wn], 0x55);
    assert_int_equal(buf[1 + wn - 1], 0);
    assert_int_equal(buf[1 + wn - 2], 0);
    assert_int_equal(buf[1 + wn - 3], 0);
    assert_int_equal(buf[1 + wn - 4], 0);

    wn = widen(TINY_HELPS, sizeof TINY_HELPS, want);
    assert_int_equal(pl_titles_export_multisz(t, PL_TITLE_HELP, PL_MULTISZ_UTF16, buf, sizeof buf, &need), PL_OK);
    assert_int_equal(need, wn);
    assert_memory_equal(buf, want, wn);
    pl_titles_free(t);
    pl_store_close(st);
}

static void export_seeded_starts_like_windows(void **state)
{
    (void)state;
    char path[512];
    reg_tmpfile(path, sizeof path, "perflib.db");
    pl_store *st = reg_open(path);
    pl_titles *t = load(st, "009");
    size_t need = 0;
    assert_int_equal(pl_titles_export_multisz(t, PL_TITLE_NAME, 0, NULL, 0, &need), PL_E_MORE_DATA);
    char *buf = malloc(need);
    assert_non_null(buf);
    assert_int_equal(pl_titles_export_multisz(t, PL_TITLE_NAME, 0, buf, need, &need), PL_OK);
    static const char head[] = "1\0" "1847\0" "2\0" "System\0" "4\0" "Memory\0" "6\0" "% Processor Time\0";
    assert_memory_equal(buf, head, sizeof head - 1);
    /* walk it: ascending indices, ends with 1972 % of Maximum Frequency and a double NUL */
    size_t i = 0, pairs = 0;
    long prev = 0;
    const char *last_text = NULL;
    while (buf[i]) {
        long idx = strtol(buf + i, NULL, 10);
        assert_true(idx > prev);
        prev = idx;
        i += strlen(buf + i) + 1;
        last_text = buf + i;
        i += strlen(buf + i) + 1;
        pairs++;
    }
    assert_int_equal(i, need - 1);
    assert_int_equal(pairs, pl_titles_count(t, PL_TITLE_NAME));
    assert_int_equal(prev, 1972);
    assert_string_equal(last_text, "% of Maximum Frequency");
    free(buf);
    pl_titles_free(t);
    pl_store_close(st);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(find_case_insensitive),
        cmocka_unit_test(find_all_duplicates),
        cmocka_unit_test(many_lookups_agree),
        cmocka_unit_test(language_fallback),
        cmocka_unit_test(export_utf8_exact),
        cmocka_unit_test(export_utf16_exact),
        cmocka_unit_test(export_seeded_starts_like_windows),
    };
    return pl_test_run(tests, argc, argv);
}
