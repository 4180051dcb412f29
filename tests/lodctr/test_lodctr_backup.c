/* lodctr /s and /r: the three real Windows backups restore into a fresh store,
 * our own backups round-trip byte for byte, corrupt backups are refused and
 * leave the store unchanged. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lc_util.h"
#include "pl_test.h"

#define W10 LC_BACKUPS "PerfStringBackup_en009_win10_rosenste-github-upload.INI"
#define DE LC_BACKUPS "PerfStringBackup_de007+en009_apfeltee-tini.INI"
#define AR LC_BACKUPS "PerfStringBackup_ar001+en009_Ashrafnet-Phone-Dialer.INI"

static pl_backup *read_ok(const char *path)
{
    pl_backup *bk = NULL;
    pl_error err = {0, ""};
    int rc = pl_backup_read_file(path, &bk, &err);
    if (rc) fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(rc, PL_OK);
    return bk;
}

static pl_store *restored(const char *dir, const char *path)
{
    pl_store *st = lc_store(dir);
    assert_non_null(st);
    pl_backup *bk = read_ok(path);
    pl_error err = {0, ""};
    int rc = pl_store_restore(st, bk, &err);
    if (rc) fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(rc, PL_OK);
    pl_backup_free(bk);
    return st;
}

static void assert_title(pl_store *st, const char *lang, int kind, uint32_t idx, const char *want)
{
    char *got = lc_title(st, lang, kind, idx);
    if (!got || strcmp(got, want) != 0) fprintf(stderr, "%s %d %u: '%s'\n", lang, kind, idx, got ? got : "(null)");
    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
}

static void assert_range(pl_store *st, const char *name, uint32_t fc, uint32_t fh, uint32_t lc, uint32_t lh)
{
    pl_provider_info p;
    pl_error err;
    memset(&p, 0, sizeof p);
    assert_int_equal(pl_store_provider(st, name, &p, &err), PL_OK);
    assert_int_equal(p.first_counter, fc);
    assert_int_equal(p.first_help, fh);
    assert_int_equal(p.last_counter, lc);
    assert_int_equal(p.last_help, lh);
    pl_provider_info_clear(&p);
}

static void read_win10_structure(void **state)
{
    (void)state;
    pl_backup *bk = read_ok(W10);
    assert_int_equal(bk->base_index, 1847);
    assert_int_equal(bk->last_counter, 10640);
    assert_int_equal(bk->last_help, 10641);
    assert_int_equal(bk->nlangs, 1);
    assert_string_equal(bk->langs[0].lang, "009");
    assert_int_equal(bk->nproviders, 31);
    assert_string_equal(bk->providers[0].name, ".NET CLR Data");
    /* index 1 ("1847") is a Counter entry, 1846 a name, 1847 a help */
    assert_int_equal(bk->langs[0].names[0].index, 1);
    assert_string_equal(bk->langs[0].names[0].text, "1847");
    assert_int_equal(bk->langs[0].nnames + bk->langs[0].nhelps, 4718);
    pl_backup_free(bk);
}

static void restore_win10(void **state)
{
    (void)state;
    char *dir = lc_tmpdir();
    pl_store *st = restored(dir, W10);
    pl_perflib_info pi;
    pl_error err;
    assert_int_equal(pl_store_perflib(st, &pi, &err), PL_OK);
    assert_int_equal(pi.last_counter, 10640);
    assert_int_equal(pi.last_help, 10641);
    assert_int_equal(pi.base_index, 1847);
    assert_title(st, "009", PL_TITLE_NAME, 2, "System");
    assert_title(st, "009", PL_TITLE_NAME, 6, "% Processor Time");
    assert_title(st, "009", PL_TITLE_NAME, 1846, "End Marker");
    assert_title(st, "009", PL_TITLE_HELP, 1847, "End Marker");
    assert_title(st, "009", PL_TITLE_NAME, 10640, "Queued Messages Dropped Per Second");
    assert_title(st, "009", PL_TITLE_NAME, 10638, "Queued Messages Dropped");
    assert_range(st, ".NET CLR Data", 6840, 6841, 6852, 6853);
    assert_range(st, "WSearchIdxPi", 9312, 9313, 9438, 9439);
    pl_store_close(st);
    lc_rmdir(dir);
}

static void restore_german_8bit(void **state)
{
    (void)state;
    char *dir = lc_tmpdir();
    pl_store *st = restored(dir, DE);
    pl_perflib_info pi;
    pl_error err;
    assert_int_equal(pl_store_perflib(st, &pi, &err), PL_OK);
    assert_int_equal(pi.last_counter, 9408);
    assert_int_equal(pi.last_help, 9409);
    assert_title(st, "007", PL_TITLE_NAME, 6, "Prozessorzeit (%)");
    assert_title(st, "007", PL_TITLE_NAME, 10, "Lesevorg\xC3\xA4nge/s"); /* 0xE4 in Windows-1252 */
    assert_title(st, "009", PL_TITLE_NAME, 6, "% Processor Time");
    /* 0x92 in Windows-1252 is U+2019 */
    char *h = lc_title(st, "009", PL_TITLE_HELP, 1629);
    assert_non_null(h);
    assert_non_null(strstr(h, "middle-tier service\xE2\x80\x99s account"));
    free(h);
    assert_range(st, "ASP.NET_2.0.50727", 8736, 8737, 8940, 8941);
    char **langs = NULL;
    size_t n = 0;
    assert_int_equal(pl_store_languages(st, &langs, &n, &err), PL_OK);
    assert_int_equal(n, 2);
    assert_string_equal(langs[0], "007");
    assert_string_equal(langs[1], "009");
    pl_free(langs);
    pl_store_close(st);
    lc_rmdir(dir);
}

static void restore_arabic_leading_blank_lines(void **state)
{
    (void)state;
    char *dir = lc_tmpdir();
    pl_store *st = restored(dir, AR);
    assert_title(st, "001", PL_TITLE_NAME, 2, "System");
    assert_title(st, "001", PL_TITLE_NAME, 238, "Processor");
    assert_title(st, "001", PL_TITLE_HELP, 1847,
                 "\xD8\xB9\xD9\x84\xD8\xA7\xD9\x85\xD8\xA9 \xD9\x86\xD9\x87\xD8\xA7\xD9\x8A\xD8\xA9");
    assert_title(st, "009", PL_TITLE_HELP, 1847, "End Marker");
    assert_title(st, "009", PL_TITLE_NAME, 1848, "RSVP Service");
    char *h = lc_title(st, "001", PL_TITLE_HELP, 3);
    assert_non_null(h);
    assert_memory_equal(h, "\xE2\x80\x8F\xE2\x80\x8F\xD9\x8A\xD8\xAA", 10);
    free(h);
    /* help 485 holds bare line feeds (multi-line text in a CRLF file) */
    h = lc_title(st, "001", PL_TITLE_HELP, 485);
    assert_non_null(h);
    assert_non_null(strstr(h, ",\n    ,     "));
    free(h);
    pl_store_close(st);
    lc_rmdir(dir);
}

/* Our writer reproduces the Windows 10 file exactly: same encoding (UTF-16LE,
 * no BOM), two leading blank lines, section order, CRLF, no final newline. */
static void write_matches_windows_file(void **state)
{
    (void)state;
    pl_backup *bk = read_ok(W10);
    void *data = NULL;
    size_t len = 0;
    pl_error err;
    assert_int_equal(pl_backup_write_mem(bk, &data, &len, &err), PL_OK);
    size_t olen = 0;
    unsigned char *orig = lc_slurp(W10, &olen);
    assert_non_null(orig);
    assert_int_equal(len, olen);
    assert_memory_equal(data, orig, len);
    free(orig);
    pl_free(data);
    pl_backup_free(bk);
}

static void save_restore_save_identical(void **state)
{
    (void)state;
    const char *inputs[] = {W10, DE, AR};
    for (size_t k = 0; k < 3; k++) {
        char *dir = lc_tmpdir();
        pl_store *st = restored(dir, inputs[k]);
        pl_backup *bk = NULL;
        pl_error err;
        assert_int_equal(pl_store_snapshot(st, &bk, &err), PL_OK);
        char *f1 = lc_path(dir, "one.INI");
        assert_int_equal(pl_backup_write_file(bk, f1, &err), PL_OK);
        pl_backup_free(bk);
        pl_store_close(st);

        char *dir2 = lc_tmpdir();
        pl_store *st2 = restored(dir2, f1);
        assert_int_equal(pl_store_snapshot(st2, &bk, &err), PL_OK);
        char *f2 = lc_path(dir2, "two.INI");
        assert_int_equal(pl_backup_write_file(bk, f2, &err), PL_OK);
        pl_backup_free(bk);
        pl_store_close(st2);

        size_t l1 = 0, l2 = 0;
        unsigned char *b1 = lc_slurp(f1, &l1), *b2 = lc_slurp(f2, &l2);
        assert_true(l1 > 1000);
        assert_int_equal(l1, l2);
        assert_memory_equal(b1, b2, l1);
        /* UTF-16LE without BOM, starting with two empty lines */
        assert_memory_equal(b1, "\r\0\n\0\r\0\n\0[\0P\0e\0r\0f\0l\0i\0b\0]\0\r\0\n\0", 26);
        assert_int_not_equal(b1[l1 - 2], '\n');
        free(b1);
        free(b2);
        free(f1);
        free(f2);
        lc_rmdir(dir);
        lc_rmdir(dir2);
    }
}

static int restore_text(pl_store *st, const void *data, size_t len, pl_error *err)
{
    pl_backup *bk = NULL;
    int rc = pl_backup_read_mem(data, len, "bad.INI", &bk, err);
    if (rc == PL_OK) rc = pl_store_restore(st, bk, err);
    pl_backup_free(bk);
    return rc;
}

static void corrupt_backups_refused(void **state)
{
    (void)state;
    char *dir = lc_tmpdir();
    pl_store *st = lc_store(dir);
    assert_non_null(st);
    char *before = lc_dump(st);
    assert_non_null(before);
    pl_error err;
    const char *head = "[Perflib]\r\nBase Index=1847\r\nLast Counter=10\r\nLast Help=11\r\n\r\n[PerfStrings_009]\r\n";
    char buf[512];

    snprintf(buf, sizeof buf, "%s1=1847\r\n2=System\r\nx4=Memory\r\n", head);
    assert_int_equal(restore_text(st, buf, strlen(buf), &err), PL_E_PARSE);
    assert_string_equal(err.msg, "bad.INI:9: bad index 'x4'");

    snprintf(buf, sizeof buf, "%s1=1847\r\n0=Zero\r\n", head);
    assert_int_equal(restore_text(st, buf, strlen(buf), &err), PL_E_PARSE);
    assert_string_equal(err.msg, "bad.INI:8: bad index '0'");

    snprintf(buf, sizeof buf, "%s1=1847\r\n99999999999=Big\r\n", head);
    assert_int_equal(restore_text(st, buf, strlen(buf), &err), PL_E_PARSE);

    snprintf(buf, sizeof buf, "%s1=1847\r\n2=System\r\nMemory\r\n", head);
    assert_int_equal(restore_text(st, buf, strlen(buf), &err), PL_E_PARSE);
    assert_string_equal(err.msg, "bad.INI:9: line without '='");

    snprintf(buf, sizeof buf, "%s2=System\r\n2=Again\r\n", head);
    assert_int_equal(restore_text(st, buf, strlen(buf), &err), PL_E_PARSE);
    assert_string_equal(err.msg, "bad.INI:8: index 2 repeats line 7 in [PerfStrings_009]");

    snprintf(buf, sizeof buf, "[Perflib]\r\nBase Index=1847\r\nLast Counter=abc\r\n");
    assert_int_equal(restore_text(st, buf, strlen(buf), &err), PL_E_PARSE);

    snprintf(buf, sizeof buf, "[PerfStrings_009]\r\n2=System\r\n");
    assert_int_equal(restore_text(st, buf, strlen(buf), &err), PL_E_PARSE);
    assert_non_null(strstr(err.msg, "[Perflib] with Base Index, Last Counter and Last Help is missing"));

    snprintf(buf, sizeof buf, "%s", "[Perflib]\r\nBase Index=1847\r\nLast Counter=10\r\nLast Help=11\r\n[PerfStrings_zz]\r\n");
    assert_int_equal(restore_text(st, buf, strlen(buf), &err), PL_E_PARSE);
    assert_string_equal(err.msg, "bad.INI:5: bad language 'zz'");

    /* truncated UTF-16: the first 1001 bytes of the Windows 10 file */
    size_t wl = 0;
    unsigned char *w = lc_slurp(W10, &wl);
    assert_int_equal(restore_text(st, w, 1001, &err), PL_E_ENCODING);
    assert_non_null(strstr(err.msg, "bad.INI: truncated UTF-16"));
    /* an unpaired surrogate in line 3 */
    w[8] = 0x00;
    w[9] = 0xD8;
    assert_int_equal(restore_text(st, w, wl, &err), PL_E_ENCODING);
    assert_string_equal(err.msg, "bad.INI:3: unpaired UTF-16 surrogate");
    free(w);

    char *after = lc_dump(st);
    assert_string_equal(before, after);
    free(before);
    free(after);
    pl_store_close(st);
    lc_rmdir(dir);
}

static void unwritable_backups_refused(void **state)
{
    (void)state;
    pl_backup_string names[] = {{1, (char *)"1847"}, {3, (char *)"odd name"}};
    pl_backup_string helps[] = {{5, (char *)"line\r\nbreak"}};
    pl_backup_lang lang = {"009", names, 2, NULL, 0};
    pl_backup bk = {1847, 10, 11, &lang, 1, NULL, 0};
    void *data = NULL;
    size_t len = 0;
    pl_error err;
    assert_int_equal(pl_backup_write_mem(&bk, &data, &len, &err), PL_E_RANGE);
    assert_non_null(strstr(err.msg, "name at odd index 3"));
    lang.nnames = 1;
    lang.helps = helps;
    lang.nhelps = 1;
    assert_int_equal(pl_backup_write_mem(&bk, &data, &len, &err), PL_E_RANGE);
    assert_non_null(strstr(err.msg, "index 5 contains a line break"));
    assert_null(data);
    /* a failed write leaves an existing file alone */
    char *dir = lc_tmpdir();
    char *f = lc_write_str(dir, "keep.INI", "old");
    assert_int_equal(pl_backup_write_file(&bk, f, &err), PL_E_RANGE);
    size_t n = 0;
    unsigned char *b = lc_slurp(f, &n);
    assert_int_equal(n, 3);
    free(b);
    free(f);
    lc_rmdir(dir);
}

/* Found by fuzz_ini: a backup whose first KiB is mostly non-ASCII must still
 * read back as UTF-16 (the writer's output starts with CR LF). */
static void non_ascii_backup_reads_back(void **state)
{
    (void)state;
    char name[3 * 600 + 1];
    for (int i = 0; i < 600; i++) memcpy(name + 3 * i, "\xE4\xB8\xAD", 3); /* U+4E2D */
    name[3 * 600] = '\0';
    pl_backup_string names[] = {{1, (char *)"1847"}, {2, (char *)"\xEF\xBD\x85\xEF\xBF\xBF"}};
    pl_backup_lang lang = {"009", names, 2, NULL, 0};
    pl_backup_provider prov = {name, 1848, 1849, 1850, 1851};
    pl_backup bk = {1847, 1850, 1851, &lang, 1, &prov, 1};
    void *data = NULL;
    size_t len = 0;
    pl_error err;
    assert_int_equal(pl_backup_write_mem(&bk, &data, &len, &err), PL_OK);
    pl_backup *back = NULL;
    int rc = pl_backup_read_mem(data, len, "cjk.INI", &back, &err);
    if (rc) fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(rc, PL_OK);
    assert_int_equal(back->nproviders, 1);
    assert_string_equal(back->providers[0].name, name);
    assert_int_equal(back->providers[0].last_help, 1851);
    assert_string_equal(back->langs[0].names[1].text, "\xEF\xBD\x85\xEF\xBF\xBF");
    pl_backup_free(back);
    pl_free(data);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(read_win10_structure),
        cmocka_unit_test(restore_win10),
        cmocka_unit_test(restore_german_8bit),
        cmocka_unit_test(restore_arabic_leading_blank_lines),
        cmocka_unit_test(write_matches_windows_file),
        cmocka_unit_test(save_restore_save_identical),
        cmocka_unit_test(corrupt_backups_refused),
        cmocka_unit_test(unwritable_backups_refused),
        cmocka_unit_test(non_ascii_backup_reads_back),
    };
    return pl_test_run(tests, argc, argv);
}
