/* The lodctr .ini + symbol file parser on the nine real-world sets and on
 * small hand-written files for every quirk, refusal and warning. No store. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lc_util.h"
#include "pl_test.h"

static pl_lodctr_set *parse_ok(const char *ini, const char *symoverride)
{
    pl_lodctr_set *set = NULL;
    pl_error err = {0, ""};
    pl_lodctr_parse_opts o = {symoverride};
    int rc = pl_lodctr_parse_ex(ini, &o, &set, &err);
    if (rc != PL_OK) fprintf(stderr, "parse %s: %s\n", ini, err.msg);
    assert_int_equal(rc, PL_OK);
    assert_non_null(set);
    return set;
}

static void assert_text(const pl_lodctr_set *set, uint32_t off, const char *lang, const char *name, const char *help)
{
    const pl_install_text *t = lc_text(set, off, lang);
    assert_non_null(t);
    if (name) assert_string_equal(t->name, name);
    else assert_null(t->name);
    if (help) assert_string_equal(t->help, help);
    else assert_null(t->help);
}

static void real_perfgen(void **state)
{
    (void)state;
    pl_lodctr_set *set = parse_ok(LC_REAL "perfgen/Perfgen.Ini", NULL);
    assert_string_equal(set->provider, "PERFGEN");
    /* symbolfile=genctrnm.h, the file is GenCtrnm.h */
    assert_non_null(strstr(set->symbol_path, "GenCtrnm.h"));
    assert_int_equal(set->ntexts, 5);
    assert_int_equal(set->max_offset, 8);
    assert_int_equal(set->nobjects, 1);
    assert_int_equal(set->object_offsets[0], 0);
    assert_text(set, 0, "009", "Signal Generator",
                "Simulated data functions for performance monitor applications and testing.");
    /* the last line before the ^Z (0x1A) end-of-file byte */
    assert_text(set, 8, "009", "NumberOfBytes Value",
                "Displays a constant non-zero value that does not change from sample to sample.");
    assert_int_equal(set->nwarnings, 0);
    pl_lodctr_free(set);
}

static void real_pywin32(void **state)
{
    (void)state;
    pl_lodctr_set *set = parse_ok(LC_REAL "pywin32/perf_install.ini", NULL);
    assert_string_equal(set->provider, "PipeServicePerf");
    assert_int_equal(set->ntexts, 4);
    assert_int_equal(set->nobjects, 0);
    assert_int_equal(set->max_offset, 6);
    assert_text(set, 0, "009", "Python Demo Service", "Shows performance statistics for the sample Python service");
    assert_text(set, 6, "009", "Bytes written/sec", "Number of bytes written in total");
    assert_null(lc_text(set, 8, "009"));
    /* THREADS_009_* name a symbol the .h spells THREAD */
    assert_int_equal(set->nwarnings, 2);
    assert_non_null(strstr(set->warnings[0], "perf_install.ini:17: symbol THREADS is not defined"));
    assert_non_null(strstr(set->warnings[1], "perf_install.ini:18: symbol THREADS is not defined"));
    pl_lodctr_free(set);
}

static void real_ntrace(void **state)
{
    (void)state;
    pl_lodctr_set *set = parse_ok(LC_REAL "ntrace-jpkfbt/perfctr.ini", NULL);
    assert_string_equal(set->provider, "jpkfar");
    assert_true(set->trusted);
    assert_int_equal(set->ntexts, 17);
    assert_int_equal(set->max_offset, 32);
    assert_int_equal(set->nobjects, 1);
    assert_text(set, 0, "009", "Kernel FBT Agent", "Tracing Statistics");
    assert_text(set, 2, "009", "Instrumented Routines Count", NULL); /* counter without help */
    assert_text(set, 6, "009", "Buffers (Dirty)", "Buffers (Dirty)");  /* trailing tabs trimmed */
    assert_text(set, 8, "009", "Buffers (Collected)", NULL);           /* its HELP line has no '=' */
    assert_text(set, 12, "009", "Prealloc. Pool (Failed Alloc)", "Prealloc. Pool (Failed Alloc)");
    assert_text(set, 32, "009", "Thread Teardowns", "Thread Teardowns"); /* no final newline */
    assert_true(lc_has_warning(set, "perfctr.ini:35: line without '='"));
    assert_int_equal(set->nwarnings, 1);
    pl_lodctr_free(set);
}

static void real_msdocs(void **state)
{
    (void)state;
    pl_lodctr_set *set = parse_ok(LC_REAL "msdocs-example/MyApplication.ini", NULL);
    assert_string_equal(set->provider, "MyApplication");
    assert_int_equal(set->ntexts, 10);
    assert_int_equal(set->nlanguages, 2);
    assert_string_equal(set->languages[0], "009");
    assert_string_equal(set->languages[1], "00C");
    assert_int_equal(set->nobjects, 2);
    assert_int_equal(set->object_offsets[0], 0);
    assert_int_equal(set->object_offsets[1], 6);
    assert_text(set, 2, "009", "Bytes Sent", "Number of bytes sent in the last transfer.");
    assert_text(set, 2, "00C", "Octets Envoy\xC3\xA9s", "Nombre d'octets envoy\xC3\xA9s dans le dernier transfert.");
    assert_text(set, 8, "00C", "Octets Servis", "Le nombre d'octets servis du cache.");
    assert_int_equal(set->nwarnings, 0);
    pl_lodctr_free(set);
}

static void real_msdocs_old(void **state)
{
    (void)state;
    /* symbolfile=CounterOffsets.h but the folder has CounterOffsets_old.h:
     * without an override the symbol file is missing ... */
    pl_lodctr_set *set = NULL;
    pl_error err;
    assert_int_equal(pl_lodctr_parse(LC_REAL "msdocs-example-old/MyApplication_old.ini", &set, &err), PL_E_IO);
    assert_null(set);
    assert_non_null(strstr(err.msg, "MyApplication_old.ini:5: symbol file CounterOffsets.h"));
    /* ... and with one it parses. */
    set = parse_ok(LC_REAL "msdocs-example-old/MyApplication_old.ini", LC_REAL "msdocs-example-old/CounterOffsets_old.h");
    assert_int_equal(set->ntexts, 10);
    assert_string_equal(set->languages[1], "012");
    assert_text(set, 4, "012", "Bande Passante Disponible", "Bande passante disponible sur le ro?=seau, en octets.");
    assert_text(set, 6, "009", "Peer", "Provides information related to peer-caching.");
    pl_lodctr_free(set);
}

static void real_wix_symfile(void **state)
{
    (void)state;
    pl_lodctr_set *set = parse_ok(LC_REAL "wix-symfile/SymFile.ini", NULL);
    assert_non_null(strstr(set->symbol_path, "SymFile.h"));
    assert_int_equal(set->ntexts, 6);
    assert_string_equal(set->languages[0], "004");
    assert_string_equal(set->languages[1], "009");
    assert_text(set, 2, "004", "Name of the first counter in Chinese", "Displays the value of the first counter in Chinese");
    /* PERF_OBJECT_1 (offset 8) is in [objects] but has no [text] */
    assert_int_equal(set->nobjects, 0);
    assert_int_equal(set->max_offset, 4);
    assert_true(lc_has_warning(set, "SymFile.ini:13: [objects] entry PERF_OBJECT_1 has no [text]"));
    pl_lodctr_free(set);
}

static void real_wix_perfcategory(void **state)
{
    (void)state;
    pl_lodctr_set *set = parse_ok(LC_REAL "wix-perfcategory/PerformanceCategory_IniData.ini", NULL);
    assert_string_equal(set->provider, "InstrumentationDemo");
    assert_int_equal(set->ntexts, 5);
    assert_int_equal(set->nlanguages, 4);
    assert_string_equal(set->languages[0], "006");
    assert_string_equal(set->languages[1], "009");
    assert_string_equal(set->languages[2], "028");
    assert_string_equal(set->languages[3], "054");
    assert_text(set, 4, "054", "DemoCounter1", "Just a simple numerical count.");
    assert_text(set, 8, "006", "DemoCounter3", "Just a simple numerical count.");
    assert_int_equal(set->max_offset, 8);
    assert_int_equal(set->nobjects, 1);
    /* LAST_OBJECT_1_COUNTER_OFFSET also is 8 but is never used: no refusal */
    assert_int_equal(set->nwarnings, 0);
    pl_lodctr_free(set);
}

static void real_ese(void **state)
{
    (void)state;
    pl_lodctr_set *set = parse_ok(LC_REAL "ese/eseperf.ini", NULL);
    assert_string_equal(set->provider, "ESE");
    assert_int_equal(set->ntexts, 1840); /* 920 symbols x languages 000 and 009 */
    assert_int_equal(set->nlanguages, 2);
    assert_string_equal(set->languages[0], "000");
    assert_int_equal(set->max_offset, 1838);
    assert_int_equal(set->nobjects, 4);
    assert_int_equal(set->object_offsets[0], 0);
    assert_text(set, 0, "009", "MSExchange Database",
                "Database provides performance statistics for each process using the ESE high performance embedded "
                "database management system.");
    const pl_install_text *t = lc_text(set, 2, "000");
    assert_non_null(t);
    assert_string_equal(t->name, "Defragmentation Tasks");
    assert_string_equal(t->help,
                        "Defragmentation Tasks is the count of background database defragmentation tasks that are "
                        "currently executing.");
    t = lc_text(set, 1838, "009");
    assert_non_null(t);
    assert_string_equal(t->name, "Database Cache Requests/sec (Unique)");
    assert_int_equal(set->nwarnings, 0);
    pl_lodctr_free(set);
}

static void real_trafficserver(void **state)
{
    (void)state;
    pl_lodctr_set *set = parse_ok(LC_REAL "trafficserver/TrafficServer.ini", NULL);
    assert_string_equal(set->provider, "TrafficServer");
    assert_int_equal(set->ntexts, 144);
    assert_int_equal(set->max_offset, 286);
    assert_int_equal(set->nobjects, 0);
    assert_text(set, 0, "009", "Traffic Server", "This is the Traffic Server perfmon counter module");
    assert_text(set, 2, "009", "# of objects served from cache", "# of objects served from cache");
    assert_text(set, 286, "009", "current # of KB write from cache", "current # of KB write from cache");
    assert_int_equal(set->nwarnings, 0);
    pl_lodctr_free(set);
}

/* ---------------------------------------------------- hand-written files */

static int parse_mem(const char *ini, const char *h, pl_lodctr_set **set, pl_error *err)
{
    return pl_lodctr_parse_mem(ini, strlen(ini), "t.ini", h, strlen(h), "t.h", set, err);
}

#define INFO "[info]\ndrivername=Prov\nsymbolfile=t.h\n"

static void quirks_accepted(void **state)
{
    (void)state;
    const char *ini = "[TEXT] \t\r\n"
                      "A_009_Name \t=\t Alpha \t\r\n"
                      "C_009_NAME=Gamma\r\n"
                      "[Info]\n drivername = Prov \n"
                      "library=/opt/x/libx.so\nopen=XOpen\ncollect=XCollect\nclose=XClose\ntrusted=\n"
                      "[objects]\nA_009_NAME=\n"
                      "[languages]\n009=English\n";
    const char *h = "#ifndef T_H\n#define T_H\n/* a comment\n #define A 100\n */\n"
                    "#define A 0 // first\n"
                    "#define A 0\n"            /* same value again: fine */
                    "#define UNUSED_NEG -4\n"  /* never used: fine */
                    "#define UNUSED_ODD 3\n"
                    "#define UNUSED_DUP 0\n"
                    "#define FN(x) ((x)+1)\n"
                    "#define STR \"// not a comment\" /* c */\n"
                    "struct s { int a; };\n"
                    "  #  define C /* x */ 2 /* y\n  z */\n"
                    "#endif\n";
    pl_lodctr_set *set = NULL;
    pl_error err;
    int rc = parse_mem(ini, h, &set, &err);
    if (rc) fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(rc, PL_OK);
    assert_string_equal(set->provider, "Prov");
    assert_string_equal(set->library, "/opt/x/libx.so");
    assert_string_equal(set->open, "XOpen");
    assert_string_equal(set->collect, "XCollect");
    assert_string_equal(set->close, "XClose");
    assert_true(set->trusted);
    assert_text(set, 0, "009", "Alpha", NULL);
    assert_text(set, 2, "009", "Gamma", NULL);
    assert_int_equal(set->nobjects, 1);
    assert_int_equal(set->nwarnings, 0);
    pl_lodctr_free(set);
}

static void alias_same_offset_refused(void **state)
{
    (void)state;
    /* pywin32-style fix with an alias, used next to its target: two symbols
     * with one offset is refused */
    const char *ini = INFO "[text]\nTHREAD_009_NAME=T\nTHREADS_009_NAME=Ts\n";
    const char *h = "#define THREAD 8\n#define THREADS THREAD\n";
    pl_lodctr_set *set = NULL;
    pl_error err;
    assert_int_equal(parse_mem(ini, h, &set, &err), PL_E_INVAL);
    assert_null(set);
    assert_string_equal(err.msg, "t.ini:6: symbols THREAD (line 5) and THREADS both have offset 8");
}

static void quirk_values(void **state)
{
    (void)state;
    const char *ini = INFO "[text]\n"
                      "A_009_Name \t=\t Alpha \t\r\n"
                      "ALIAS_009_help=alias help\r\n"
                      "MULTI_PART_SYM_9_NAME=Multi\r"
                      "HEXSYM_00c_NAME=Hex\n"
                      "PAREN_009_NAME=Paren\n"
                      "OCT_009_NAME=Oct\n";
    const char *h = "#define A 0\n#define ALIAS CHAIN\n#define CHAIN (10)\n#define MULTI_PART_SYM 2\n"
                    "#define HEXSYM 0x4UL\n#define PAREN ( 6 )\n#define OCT 014\n";
    pl_lodctr_set *set = NULL;
    pl_error err;
    int rc = parse_mem(ini, h, &set, &err);
    if (rc) fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(rc, PL_OK);
    assert_text(set, 0, "009", "Alpha", NULL);
    assert_text(set, 10, "009", NULL, "alias help");
    assert_text(set, 2, "009", "Multi", NULL); /* "9" -> "009" */
    assert_text(set, 4, "00C", "Hex", NULL);
    assert_text(set, 6, "009", "Paren", NULL);
    assert_text(set, 12, "009", "Oct", NULL);  /* C octal, as the provider's compiler reads it */
    assert_int_equal(set->max_offset, 12);
    assert_int_equal(set->nwarnings, 0);
    pl_lodctr_free(set);
}

static void quirks_full(void **state)
{
    (void)state;
    const char *ini = "; comment\r\n# comment\r\n// comment\r\n"
                      "[TEXT] \t\r\n"
                      "A_009_NAME=Alpha\r\n"
                      "B_009_NAME=\r\n"              /* empty value: warning */
                      "B_009_HELP=Beta help\r\n"
                      "B_009_HELP=again\r\n"          /* repeat: warning, first wins */
                      "NOPE_009_NAME=x\r\n"            /* undefined symbol: warning */
                      "just text\r\n"                  /* no '=': warning */
                      "BAD_KEY=x\r\n"                  /* malformed key: warning */
                      "[Info]\n drivername = Prov \nsymbolfile = t.h\n"
                      "[objects]\nA_009_NAME=\n"
                      "[languages]\n009=English\n";
    const char *h = "#define A 0\n#define B 2\n";
    pl_lodctr_set *set = NULL;
    pl_error err;
    assert_int_equal(parse_mem(ini, h, &set, &err), PL_OK);
    assert_text(set, 0, "009", "Alpha", NULL);
    assert_text(set, 2, "009", NULL, "Beta help");
    assert_int_equal(set->nobjects, 1);
    assert_int_equal(set->nwarnings, 5);
    assert_string_equal(set->warnings[0], "t.ini:6: empty value for B_009_NAME skipped");
    assert_string_equal(set->warnings[1], "t.ini:10: line without '=' skipped");
    assert_string_equal(set->warnings[2], "t.ini:11: key 'BAD_KEY' is not SYMBOL_LANG_NAME or SYMBOL_LANG_HELP; skipped");
    assert_string_equal(set->warnings[3], "t.ini:9: symbol NOPE is not defined in t.h; skipped");
    assert_string_equal(set->warnings[4], "t.ini:8: B_009_HELP repeats line 7; the first value is used");
    pl_lodctr_free(set);
}

static void utf16_and_1252_inputs(void **state)
{
    (void)state;
    /* UTF-16LE without BOM, 8-bit Windows-1252 and UTF-8 with BOM. */
    const char *ini8 = INFO "[text]\nA_009_NAME=Caf\xE9 \x93quoted\x94 \x80\n";
    const char *h = "#define A 0\n";
    pl_lodctr_set *set = NULL;
    pl_error err;
    assert_int_equal(parse_mem(ini8, h, &set, &err), PL_OK);
    assert_text(set, 0, "009", "Caf\xC3\xA9 \xE2\x80\x9Cquoted\xE2\x80\x9D \xE2\x82\xAC", NULL);
    pl_lodctr_free(set);

    size_t n = strlen(ini8);
    unsigned char *u16 = calloc(n * 2, 1);
    const char *plain = INFO "[text]\nA_009_NAME=\xD0\x96uk\n"; /* Zhuk, U+0416 */
    size_t k = 0;
    for (const unsigned char *p = (const unsigned char *)plain; *p; p++) {
        if (*p == 0xD0) {
            u16[k++] = 0x16;
            u16[k++] = 0x04;
            p++;
            continue;
        }
        u16[k++] = *p;
        u16[k++] = 0;
    }
    assert_int_equal(pl_lodctr_parse_mem(u16, k, "u.ini", h, strlen(h), "t.h", &set, &err), PL_OK);
    assert_text(set, 0, "009", "\xD0\x96uk", NULL);
    pl_lodctr_free(set);
    /* an odd number of bytes is truncated UTF-16 */
    assert_int_equal(pl_lodctr_parse_mem(u16, k - 1, "u.ini", h, strlen(h), "t.h", &set, &err), PL_E_ENCODING);
    assert_non_null(strstr(err.msg, "u.ini: truncated UTF-16"));
    free(u16);

    const char *bom = "\xEF\xBB\xBF" INFO "[text]\nA_009_NAME=x\n";
    assert_int_equal(parse_mem(bom, h, &set, &err), PL_OK);
    assert_string_equal(set->provider, "Prov");
    pl_lodctr_free(set);
}

/* ---------------------------------------------------------- refusals */

static void refuse(const char *ini, const char *h, int status, const char *msg)
{
    pl_lodctr_set *set = (pl_lodctr_set *)1;
    pl_error err;
    int rc = parse_mem(ini, h, &set, &err);
    if (rc != status || strcmp(err.msg, msg) != 0) fprintf(stderr, "got %d '%s'\n", rc, err.msg);
    assert_int_equal(rc, status);
    assert_null(set);
    assert_string_equal(err.msg, msg);
}

static void refusals(void **state)
{
    (void)state;
    refuse(INFO "[text]\nA_009_NAME=a\nN_009_NAME=n\n", "#define A 0\n#define N -2\n", PL_E_INVAL,
           "t.h:2: symbol N has a negative offset -2 (used at t.ini:6)");
    refuse(INFO "[text]\nA_009_NAME=a\nO_009_NAME=o\n", "#define A 0\n#define O 3\n", PL_E_INVAL,
           "t.h:2: symbol O has an odd offset 3 (used at t.ini:6)");
    refuse(INFO "[text]\nA_009_NAME=a\nB_009_NAME=b\n", "#define A 2\n#define B 2\n", PL_E_INVAL,
           "t.ini:6: symbols A (line 5) and B both have offset 2");
    refuse(INFO "[text]\nA_009_NAME=a\n", "#define A 0\n#define A 2\n", PL_E_PARSE,
           "t.h:1: symbol A is defined twice with different values (t.h:1 and 2)");
    refuse("[info]\nsymbolfile=t.h\n[text]\nA_009_NAME=a\n", "#define A 0\n", PL_E_PARSE,
           "t.ini:1: [info] has no drivername=");
    refuse("[text]\nA_009_NAME=a\n", "#define A 0\n", PL_E_PARSE, "t.ini:2: [info] has no drivername=");
    refuse(INFO "[objects]\nX_009_NAME=\n[text]\nA_009_NAME=a\n", "#define A 0\n", PL_E_PARSE,
           "t.ini:5: [objects] entry X has no offset in t.h");
    refuse(INFO "[text]\nA_009_NAME=a\n", "#define A B\n#define B C\n#define C A\n", PL_E_PARSE,
           "t.ini:5: symbol A is defined in a cycle of aliases (t.h:1)");
    refuse(INFO "[text]\nA_009_NAME=a\n", "#define A 0x7FFFFFFE\n", PL_E_RANGE,
           "t.h:1: symbol A has offset 2147483646, above the limit 16777214 (used at t.ini:5)");
    refuse(INFO "[text]\nNOPE_009_NAME=a\n", "#define A 0\n", PL_E_PARSE,
           "t.ini:5: no [text] entry names a symbol of t.h; nothing to install");
    /* a name on a line without '=' would leave its counter nameless */
    refuse(INFO "[text]\nA_009_NAME=a\nB_009_NAME Beta\nB_009_HELP=help\n", "#define A 0\n#define B 2\n", PL_E_PARSE,
           "t.ini:6: the B_009_NAME line has no '=': B would be installed without a name (write B_009_NAME=its name)");
    /* ... but not when another line names it, nor for a lost help text */
    pl_lodctr_set *set = NULL;
    pl_error err;
    assert_int_equal(parse_mem(INFO "[languages]\n009=English\n007=German\n[text]\nB_009_NAME=Beta\n"
                               "B_007_NAME Beta\nB_009_HELP help\n",
                               "#define B 0\n", &set, &err),
                     PL_OK);
    assert_true(lc_has_warning(set, "t.ini:9: line without '=' skipped"));
    assert_true(lc_has_warning(set, "t.ini:10: line without '=' skipped"));
    pl_lodctr_free(set);
}

static void refusals_files(void **state)
{
    (void)state;
    char *dir = lc_tmpdir();
    assert_non_null(dir);
    pl_lodctr_set *set = NULL;
    pl_error err;
    /* the .ini itself missing */
    char *missing = lc_path(dir, "none.ini");
    assert_int_equal(pl_lodctr_parse(missing, &set, &err), PL_E_IO);
    assert_non_null(strstr(err.msg, "none.ini: cannot open"));
    /* the symbol file missing */
    char *ini = lc_write_str(dir, "a.ini", "[info]\r\ndrivername=P\r\nsymbolfile=gone.h\r\n[text]\r\nA_009_NAME=a\r\n");
    assert_int_equal(pl_lodctr_parse(ini, &set, &err), PL_E_IO);
    assert_non_null(strstr(err.msg, "a.ini:3: symbol file gone.h: "));
    assert_null(set);
    /* no symbolfile= at all */
    char *ini2 = lc_write_str(dir, "b.ini", "[info]\ndrivername=P\n[text]\nA_009_NAME=a\n");
    assert_int_equal(pl_lodctr_parse(ini2, &set, &err), PL_E_PARSE);
    assert_non_null(strstr(err.msg, "b.ini:1: [info] has no symbolfile="));
    /* a Windows path with backslashes and different case */
    char *ini3 = lc_write_str(dir, "c.ini", "[info]\ndrivername=P\nsymbolfile=.\\SYMS.H\n[text]\nA_009_NAME=a\n");
    char *h3 = lc_write_str(dir, "syms.h", "#define A 0\n");
    assert_int_equal(pl_lodctr_parse(ini3, &set, &err), PL_OK);
    assert_non_null(strstr(set->symbol_path, "/syms.h"));
    pl_lodctr_free(set);
    /* an unreadable (directory) symbol file */
    char *ini4 = lc_write_str(dir, "d.ini", "[info]\ndrivername=P\nsymbolfile=.\n[text]\nA_009_NAME=a\n");
    assert_int_equal(pl_lodctr_parse(ini4, &set, &err), PL_E_IO);
    assert_non_null(strstr(err.msg, "d.ini:3: symbol file .: "));
    free(missing);
    free(ini);
    free(ini2);
    free(ini3);
    free(h3);
    free(ini4);
    lc_rmdir(dir);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(real_perfgen),
        cmocka_unit_test(real_pywin32),
        cmocka_unit_test(real_ntrace),
        cmocka_unit_test(real_msdocs),
        cmocka_unit_test(real_msdocs_old),
        cmocka_unit_test(real_wix_symfile),
        cmocka_unit_test(real_wix_perfcategory),
        cmocka_unit_test(real_ese),
        cmocka_unit_test(real_trafficserver),
        cmocka_unit_test(quirks_accepted),
        cmocka_unit_test(alias_same_offset_refused),
        cmocka_unit_test(quirk_values),
        cmocka_unit_test(quirks_full),
        cmocka_unit_test(utf16_and_1252_inputs),
        cmocka_unit_test(refusals),
        cmocka_unit_test(refusals_files),
    };
    return pl_test_run(tests, argc, argv);
}
