/* lodctr under hostile input: provider names, symbol-file expressions and
 * #includes, line ends and byte-order marks, duplicates, sparse offsets, big
 * files (no quadratic work), backup round trips of awkward texts, and the
 * command lines of lodctr/unlodctr (option spellings, exit codes, real
 * backups restored and then installed into). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lc_util.h"
#include "pl_test.h"

typedef struct fixture {
    char *dir;
    char *store;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    f->dir = lc_tmpdir();
    if (!f->dir) return -1;
    f->store = lc_path(f->dir, "store.db");
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    free(f->store);
    lc_rmdir(f->dir);
    free(f);
    return 0;
}

static pl_lodctr_set *parse_mem(const char *ini, size_t il, const char *sym, size_t sl, int want, pl_error *err)
{
    pl_lodctr_set *set = NULL;
    int rc = pl_lodctr_parse_mem(ini, il, "t.ini", sym, sl, "t.h", &set, err);
    if (rc != want) fprintf(stderr, "parse: %d %s\n", rc, err->msg);
    assert_int_equal(rc, want);
    if (want != PL_OK) assert_null(set);
    return set;
}

static pl_lodctr_set *parse_str(const char *ini, const char *sym, int want, pl_error *err)
{
    return parse_mem(ini, strlen(ini), sym, strlen(sym), want, err);
}

static const char SYM2[] = "#define OBJ 0\n#define CTR 2\n";

/* ---------------------------------------------------------- provider names */

static void drivername_checked_with_line(void **state)
{
    (void)state;
    pl_error err;
    parse_str("[info]\ndrivername=Foo\\Bar\nsymbolfile=t.h\n[text]\nOBJ_009_NAME=o\n", SYM2, PL_E_INVAL, &err);
    assert_string_equal(err.msg, "t.ini:2: drivername=Foo\\Bar contains a control character or '\\'");
    parse_str("[info]\r\nsymbolfile=t.h\r\ndrivername=Tab\there\r\n[text]\r\nOBJ_009_NAME=o\r\n", SYM2, PL_E_INVAL,
              &err);
    assert_non_null(strstr(err.msg, "t.ini:3: drivername="));
    char ini[1200];
    char name[300];
    memset(name, 'n', 257);
    name[257] = '\0';
    snprintf(ini, sizeof ini, "[info]\ndrivername=%s\n[text]\nOBJ_009_NAME=o\n", name);
    parse_str(ini, SYM2, PL_E_INVAL, &err);
    assert_string_equal(err.msg, "t.ini:2: drivername= is longer than 256 bytes");
    name[256] = '\0'; /* 256 is fine */
    snprintf(ini, sizeof ini, "[info]\ndrivername=%s\n[text]\nOBJ_009_NAME=o\n", name);
    pl_lodctr_free(parse_str(ini, SYM2, PL_OK, &err));
}

static void drivername_spaces_and_unicode(void **state)
{
    fixture *f = *state;
    pl_store *st = lc_store(f->dir);
    assert_non_null(st);
    pl_error err;
    pl_lodctr_set *set =
        parse_str("[info]\ndrivername=  My Service \xC3\x9Cnic\xC3\xB8" "de  \nsymbolfile=t.h\n[text]\nOBJ_009_NAME=o\n",
                  SYM2, PL_OK, &err);
    assert_string_equal(set->provider, "My Service \xC3\x9Cnic\xC3\xB8" "de");
    pl_install_result r;
    assert_int_equal(pl_lodctr_install(st, set, NULL, &r, &err), PL_OK);
    pl_lodctr_free(set);
    pl_provider_info p;
    /* ASCII case does not matter; the name comes back as written */
    assert_int_equal(pl_store_provider(st, "MY SERVICE \xC3\x9Cnic\xC3\xB8" "DE", &p, &err), PL_OK);
    assert_string_equal(p.name, "My Service \xC3\x9Cnic\xC3\xB8" "de");
    pl_provider_info_clear(&p);
    assert_int_equal(pl_lodctr_uninstall(st, "my service \xC3\x9Cnic\xC3\xB8" "de", &err), PL_OK);
    pl_store_close(st);
}

/* ---------------------------------------------------------- symbol files */

/* None of the nine real symbol files uses arithmetic; one that does is
 * refused with the place and the expression, not skipped. */
static void expression_defines_refused(void **state)
{
    (void)state;
    pl_error err;
    const char *ini = "[info]\ndrivername=Expr\nsymbolfile=t.h\n[text]\nOBJ_009_NAME=o\nCTR_009_NAME=c\n";
    parse_str(ini, "#define OBJ 0\n#define CTR (OBJ + 2)\n", PL_E_PARSE, &err);
    assert_string_equal(err.msg, "t.ini:6: symbol CTR is defined as the expression '(OBJ + 2)' (t.h:2); lodctr reads"
                                 " only numbers and names of other symbols, write the offset as a number");
    parse_str(ini, "#define OBJ 0\n#define BASE 2\n#define CTR BASE|0\n", PL_E_PARSE, &err);
    assert_non_null(strstr(err.msg, "'BASE|0' (t.h:3)"));
    /* through an alias, and in [objects] */
    parse_str("[info]\ndrivername=Expr\n[objects]\nOBJ_009_NAME=\n[text]\nOBJ_009_NAME=o\n",
              "#define OBJ ALIAS\n#define ALIAS (2*2)\n", PL_E_PARSE, &err);
    assert_non_null(strstr(err.msg, "t.ini:4: symbol OBJ is defined as the expression '(2*2)' (t.h:2)"));
    /* an unused expression, a negative number and suffixes are fine */
    pl_lodctr_set *set =
        parse_str(ini, "#define LAST (CTR + 2)\n#define OBJ (0u)\n#define CTR 0x2L // two\n", PL_OK, &err);
    assert_int_equal(set->max_offset, 2);
    pl_lodctr_free(set);
}

/* A long chain of aliases costs linear time; a cycle and an undefined end
 * are reported once per use. */
static void long_alias_chain(void **state)
{
    (void)state;
    enum { N = 60000 };
    size_t cap = (size_t)N * 48 + 256;
    char *sym = malloc(cap), *ini = malloc(cap);
    assert_non_null(sym);
    assert_non_null(ini);
    size_t sl = 0, il = 0;
    sl += (size_t)snprintf(sym + sl, cap - sl, "#define S0 0\n");
    for (int i = 1; i < N; i++) sl += (size_t)snprintf(sym + sl, cap - sl, "#define S%d S%d\n", i, i - 1);
    il += (size_t)snprintf(ini + il, cap - il, "[info]\ndrivername=Chain\n[text]\n");
    for (int i = 0; i < N; i++) il += (size_t)snprintf(ini + il, cap - il, "S%d_009_NAME=n\n", i);
    pl_error err;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    /* every symbol is offset 0: two symbols with one offset is refused */
    parse_mem(ini, il, sym, sl, PL_E_INVAL, &err);
    assert_non_null(strstr(err.msg, "both have offset 0"));
    /* the chain ends in an undefined symbol: every use warned, nothing placed */
    memcpy(sym, "#define SX 0", 12); /* S0 is gone: S1 names nothing */
    parse_mem(ini, il, sym, sl, PL_E_PARSE, &err);
    assert_non_null(strstr(err.msg, "nothing to install"));
    clock_gettime(CLOCK_MONOTONIC, &b);
    double secs = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
    if (secs > 20) fprintf(stderr, "alias chain took %.1f s\n", secs);
    assert_true(secs < 20);
    free(sym);
    free(ini);
}

/* The symbol file #includes another: lodctr does not follow it (as Windows'
 * lodctr reads only the named file); the warning says why the symbol is
 * missing. */
static void include_not_followed(void **state)
{
    (void)state;
    pl_error err;
    pl_lodctr_set *set = parse_str("[info]\ndrivername=Inc\n[text]\nOBJ_009_NAME=o\nCTR_009_NAME=c\n",
                                   "#include \"common.h\"\n#define OBJ 0\n", PL_OK, &err);
    assert_int_equal(set->ntexts, 1);
    assert_true(lc_has_warning(set, "t.ini:5: symbol CTR is not defined in t.h; skipped (t.h:1 #includes another"
                                    " file; lodctr reads only the symbol file itself)"));
    pl_lodctr_free(set);
}

/* ------------------------------------------------------- lines and marks */

static void line_ends_and_marks(void **state)
{
    (void)state;
    pl_error err;
    /* CR-only line ends in both files */
    pl_lodctr_set *set = parse_str("[info]\rdrivername=CR\rsymbolfile=t.h\r[TEXT]\rOBJ_009_NAME=o\rCTR_009_HELP=h\r",
                                   "#define OBJ 0\r#define CTR 2\r", PL_OK, &err);
    assert_int_equal(set->ntexts, 2);
    assert_string_equal(lc_text(set, 2, "009")->help, "h");
    pl_lodctr_free(set);

    /* UTF-16BE with BOM, CRLF */
    const char *txt = "[Info]\r\ndrivername=BE\r\n[Text]\r\nOBJ_009_NAME=\xC3\xA9t\xC3\xA9\r\n";
    unsigned char be[256];
    size_t bl = 0;
    be[bl++] = 0xFE;
    be[bl++] = 0xFF;
    for (const unsigned char *p = (const unsigned char *)txt; *p; p++) {
        uint32_t cp = *p;
        if (*p == 0xC3) cp = 0xC0 | (p[1] & 0x3F), p++;
        be[bl++] = (unsigned char)(cp >> 8);
        be[bl++] = (unsigned char)cp;
    }
    set = parse_mem((const char *)be, bl, SYM2, strlen(SYM2), PL_OK, &err);
    assert_string_equal(set->provider, "BE");
    assert_string_equal(lc_text(set, 0, "009")->name, "\xC3\xA9t\xC3\xA9");
    pl_lodctr_free(set);

    /* A BOM in the middle (two files concatenated): not text */
    set = parse_str("\xEF\xBB\xBF[info]\ndrivername=Cat\n[objects]\nOBJ_009_NAME=\n\xEF\xBB\xBF[text]\n"
                    "OBJ_009_NAME=o\n",
                    "#define OBJ 0\n\xEF\xBB\xBF#define CTR 2\n", PL_OK, &err);
    assert_int_equal(set->ntexts, 1);
    assert_string_equal(lc_text(set, 0, "009")->name, "o");
    assert_int_equal(set->nobjects, 1);
    assert_int_equal(set->nwarnings, 0);
    pl_lodctr_free(set);
}

/* [objects] naming one object twice lists it once; a repeated [text] key
 * keeps its first value (what GetPrivateProfileString returns); a language
 * spelled 9 / 009 / 0009 / 00c / 00C is one language. */
static void duplicates_and_language_spellings(void **state)
{
    (void)state;
    pl_error err;
    pl_lodctr_set *set = parse_str("[info]\ndrivername=Dup\n[languages]\n00c=French\n[objects]\nOBJ_009_NAME=\n"
                                   "OBJ_9_NAME=\n[text]\nOBJ_009_NAME=first\nOBJ_0009_NAME=second\nOBJ_9_HELP=help\n"
                                   "OBJ_00C_NAME=fr\nOBJ_00c_HELP=aide\n",
                                   SYM2, PL_OK, &err);
    assert_int_equal(set->nobjects, 1);
    assert_int_equal(set->object_offsets[0], 0);
    assert_int_equal(set->ntexts, 2);
    assert_string_equal(lc_text(set, 0, "009")->name, "first");
    assert_string_equal(lc_text(set, 0, "009")->help, "help");
    assert_string_equal(lc_text(set, 0, "00C")->name, "fr");
    assert_string_equal(lc_text(set, 0, "00C")->help, "aide");
    assert_true(lc_has_warning(set, "t.ini:10: OBJ_009_NAME repeats line 9; the first value is used"));
    assert_int_equal(set->nlanguages, 2);
    pl_lodctr_free(set);
}

/* Sparse offsets take the whole block up to the highest one; no counters at
 * all is refused with a line. */
static void sparse_and_empty(void **state)
{
    fixture *f = *state;
    pl_store *st = lc_store(f->dir);
    assert_non_null(st);
    pl_error err;
    char *before = lc_dump(st);
    parse_str("[info]\ndrivername=Empty\n[objects]\nOBJ_009_NAME=\n[text]\n", SYM2, PL_E_PARSE, &err);
    assert_non_null(strstr(err.msg, "t.ini:5: no [text] entry"));
    parse_str("[info]\ndrivername=Empty\n", "", PL_E_PARSE, &err);
    assert_non_null(strstr(err.msg, "t.ini:2:"));
    pl_lodctr_set *set = parse_str("[info]\ndrivername=Sparse\n[text]\nOBJ_009_NAME=o\nFAR_009_NAME=far\n",
                                   "#define OBJ 0\n#define FAR 1000000\n", PL_OK, &err);
    pl_install_result r;
    assert_int_equal(pl_lodctr_install(st, set, NULL, &r, &err), PL_OK);
    pl_lodctr_free(set);
    assert_int_equal(r.first_counter, 3000);
    assert_int_equal(r.last_counter, 1003000);
    char *t = lc_title(st, "009", PL_TITLE_NAME, 1003000);
    assert_string_equal(t, "far");
    free(t);
    assert_int_equal(pl_lodctr_uninstall(st, "Sparse", &err), PL_OK);
    char *after = lc_dump(st);
    assert_string_equal(before, after);
    free(before);
    free(after);
    pl_store_close(st);
}

/* A 20 MB .ini with 150000 objects and counters parses and installs in
 * seconds (the object and language bookkeeping used to be quadratic: a
 * 43 MB file took over four minutes). */
static void big_file_is_linear(void **state)
{
    fixture *f = *state;
    enum { N = 150000 };
    size_t cap = (size_t)N * 160 + 256;
    char *sym = malloc(cap), *ini = malloc(cap);
    assert_non_null(sym);
    assert_non_null(ini);
    size_t sl = 0, il = 0;
    for (int i = 0; i < N; i++) sl += (size_t)snprintf(sym + sl, cap - sl, "#define S%d %d\n", i, 2 * i);
    il += (size_t)snprintf(ini + il, cap - il, "[info]\ndrivername=Big\n[objects]\n");
    for (int i = 0; i < N; i++) il += (size_t)snprintf(ini + il, cap - il, "S%d_009_NAME=\n", i);
    il += (size_t)snprintf(ini + il, cap - il, "[text]\n");
    for (int i = 0; i < N; i++)
        il += (size_t)snprintf(ini + il, cap - il, "S%d_009_NAME=Counter %d\nS%d_007_HELP=Hilfe %d\n", i, i, i, i);
    pl_store *st = lc_store(f->dir);
    assert_non_null(st);
    pl_error err;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    pl_lodctr_set *set = parse_mem(ini, il, sym, sl, PL_OK, &err);
    assert_int_equal(set->nobjects, N);
    assert_int_equal(set->ntexts, 2 * N);
    pl_install_result r;
    assert_int_equal(pl_lodctr_install(st, set, NULL, &r, &err), PL_OK);
    clock_gettime(CLOCK_MONOTONIC, &b);
    assert_true(lc_has_warning(set, "language 007 is not in the registry store; its 150000 entries are skipped"));
    assert_int_equal(r.last_counter, 3000 + 2 * (N - 1));
    pl_lodctr_free(set);
    double secs = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
    if (secs > 30) fprintf(stderr, "big file took %.1f s\n", secs);
    assert_true(secs < 30);
    pl_store_close(st);
    free(sym);
    free(ini);
}

/* --------------------------------------------------------------- backups */

static void backup_awkward_texts_round_trip(void **state)
{
    (void)state;
    char *longtext = malloc(70001);
    assert_non_null(longtext);
    for (int i = 0; i < 70000; i++) longtext[i] = (char)('a' + i % 26);
    longtext[70000] = '\0';
    pl_backup_string names[] = {{1, "1847"},          {2, "a=b=c"},        {4, "  lead and trail  "},
                                {6, ""},              {8, "=starts"},      {10, "[not a section]"},
                                {12, "ends with CR\r"}, {14, "\xD8\xB9\xD8\xB1\xD8\xA8\xD9\x8A"}};
    pl_backup_string helps[] = {{3, "line one\nline two\n"}, {5, longtext}, {7, " "}, {9, "bare\rCR"},
                                {11, "\n"}};
    pl_backup_lang lang = {"009", names, 8, helps, 5};
    pl_backup_provider prov = {"Prov = odd", 2, 3, 14, 15};
    pl_backup bk = {1847, 14, 15, &lang, 1, &prov, 1};
    void *data = NULL;
    size_t len = 0;
    pl_error err;
    assert_int_equal(pl_backup_write_mem(&bk, &data, &len, &err), PL_OK);
    pl_backup *back = NULL;
    assert_int_equal(pl_backup_read_mem(data, len, "rt", &back, &err), PL_OK);
    assert_int_equal(back->nlangs, 1);
    assert_int_equal(back->langs[0].nnames, 8);
    assert_int_equal(back->langs[0].nhelps, 5);
    for (size_t i = 0; i < 8; i++) {
        assert_int_equal(back->langs[0].names[i].index, names[i].index);
        assert_string_equal(back->langs[0].names[i].text, names[i].text);
    }
    for (size_t i = 0; i < 5; i++) {
        assert_int_equal(back->langs[0].helps[i].index, helps[i].index);
        assert_string_equal(back->langs[0].helps[i].text, helps[i].text);
    }
    assert_int_equal(back->nproviders, 1);
    assert_string_equal(back->providers[0].name, "Prov = odd");
    void *data2 = NULL;
    size_t len2 = 0;
    assert_int_equal(pl_backup_write_mem(back, &data2, &len2, &err), PL_OK);
    assert_int_equal(len, len2);
    assert_memory_equal(data, data2, len);
    pl_free(data);
    pl_free(data2);
    pl_backup_free(back);
    /* CRLF inside a text cannot be written */
    helps[0].text = "a\r\nb";
    assert_int_equal(pl_backup_write_mem(&bk, &data, &len, &err), PL_E_RANGE);
    free(longtext);
}

/* ------------------------------------------------------------- the tools */

typedef struct run_out {
    int code;
    char *out, *err;
} run_out;

static run_out run(const fixture *f, const char *const *argv)
{
    char *o = lc_path(f->dir, "stdout.txt"), *e = lc_path(f->dir, "stderr.txt");
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int fo = open(o, O_WRONLY | O_CREAT | O_TRUNC, 0600), fe = open(e, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fo < 0 || fe < 0) _exit(120);
        dup2(fo, 1);
        dup2(fe, 2);
        setenv("PERFLIB_REGISTRY", f->store, 1);
        execv(argv[0], (char *const *)argv);
        _exit(121);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    run_out r;
    r.code = WEXITSTATUS(status);
    r.out = (char *)lc_slurp(o, NULL);
    r.err = (char *)lc_slurp(e, NULL);
    assert_non_null(r.out);
    assert_non_null(r.err);
    free(o);
    free(e);
    return r;
}

static int run_code(const fixture *f, const char *const *argv)
{
    run_out r = run(f, argv);
    free(r.out);
    free(r.err);
    return r.code;
}

#define LODCTR LODCTR_BIN
#define UNLODCTR UNLODCTR_BIN

/* Every spelling of /s writes the same file, also into a path with spaces. */
static void save_option_spellings(void **state)
{
    fixture *f = *state;
    char *sub = lc_path(f->dir, "with space");
    assert_int_equal(mkdir(sub, 0755), 0);
    static const struct {
        const char *opt;
        int separate; /* the file in the next argument */
    } forms[] = {{"/s:", 0}, {"-s:", 0}, {"/S:", 0}, {"-S:", 0}, {"/s:", 1}, {"--save", 1}, {"--save=", 0}};
    char *first = NULL;
    size_t first_len = 0;
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        char file[600], a1[700];
        snprintf(file, sizeof file, "%s/backup %zu.ini", sub, i);
        const char *argv[4] = {LODCTR, a1, NULL, NULL};
        if (forms[i].separate) {
            snprintf(a1, sizeof a1, "%s", forms[i].opt);
            argv[2] = file;
        } else {
            snprintf(a1, sizeof a1, "%s%s", forms[i].opt, file);
        }
        assert_int_equal(run_code(f, argv), 0);
        size_t len = 0;
        char *data = (char *)lc_slurp(file, &len);
        assert_non_null(data);
        if (!first) {
            first = data;
            first_len = len;
        } else {
            assert_int_equal(len, first_len);
            assert_memory_equal(data, first, len);
            free(data);
        }
    }
    free(first);
    free(sub);
}

static void usage_errors_exit_1(void **state)
{
    fixture *f = *state;
    const char *cases[][4] = {
        {LODCTR, "/s:", NULL},                {LODCTR, "/e", NULL},
        {LODCTR, "/d:", NULL},                {LODCTR, "--registry", NULL},
        {LODCTR, "a.ini", "b.ini"},           {LODCTR, "/q", "/s"},
        {LODCTR, "/x", NULL},                 {LODCTR, "--isolation", "bogus"},
        {LODCTR, "/s:f", "extra"},            {LODCTR, NULL},
        {UNLODCTR, NULL},                     {UNLODCTR, "A", "B"},
        {UNLODCTR, "--registry", NULL},       {UNLODCTR, "--bogus", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int code = run_code(f, cases[i]);
        if (code != 1) fprintf(stderr, "case %zu (%s %s %s): exit %d\n", i, cases[i][0], cases[i][1] ? cases[i][1] : "",
                               cases[i][1] && cases[i][2] ? cases[i][2] : "", code);
        assert_int_equal(code, 1);
    }
}

static void unlodctr_exit_codes(void **state)
{
    fixture *f = *state;
    char *ini = lc_write_str(f->dir, "x.ini", "[info]\ndrivername=XProv\nsymbolfile=x.h\n[text]\nOBJ_009_NAME=o\n");
    char *h = lc_write_str(f->dir, "x.h", SYM2);
    const char *inst[] = {LODCTR, ini, NULL};
    assert_int_equal(run_code(f, inst), 0);
    assert_int_equal(run_code(f, inst), 5); /* already installed */
    const char *builtin[] = {UNLODCTR, "PerfOS", NULL};
    run_out r = run(f, builtin);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "built-in provider"));
    free(r.out);
    free(r.err);
    const char *unknown[] = {UNLODCTR, "NoSuchProvider", NULL};
    assert_int_equal(run_code(f, unknown), 4);
    const char *un[] = {UNLODCTR, "xprov", NULL};
    assert_int_equal(run_code(f, un), 0);
    assert_int_equal(run_code(f, un), 4); /* twice */
    const char *dis[] = {LODCTR, "/d:NoSuchProvider", NULL};
    assert_int_equal(run_code(f, dis), 4);
    const char *missing[] = {LODCTR, "/r:/nonexistent/backup.ini", NULL};
    assert_int_equal(run_code(f, missing), 2);
    free(ini);
    free(h);
}

/* lodctr /r of each real backup, then an install: the new provider's range
 * lies above the restored Last Counter and every restored provider range. */
static void restore_real_backups_then_install(void **state)
{
    fixture *f = *state;
    static const char *const files[] = {
        LC_BACKUPS "PerfStringBackup_en009_win10_rosenste-github-upload.INI",
        LC_BACKUPS "PerfStringBackup_de007+en009_apfeltee-tini.INI",
        LC_BACKUPS "PerfStringBackup_ar001+en009_Ashrafnet-Phone-Dialer.INI",
    };
    char *ini = lc_write_str(f->dir, "p.ini", "[info]\ndrivername=AfterRestore\nsymbolfile=p.h\n[text]\n"
                                              "OBJ_009_NAME=o\nCTR_009_NAME=c\n");
    char *h = lc_write_str(f->dir, "p.h", SYM2);
    for (size_t i = 0; i < 3; i++) {
        unlink(f->store);
        char arg[600];
        snprintf(arg, sizeof arg, "/r:%s", files[i]);
        const char *rest[] = {LODCTR, arg, NULL};
        assert_int_equal(run_code(f, rest), 0);
        pl_backup *bk = NULL;
        pl_error err;
        assert_int_equal(pl_backup_read_file(files[i], &bk, &err), PL_OK);
        uint32_t top = bk->last_counter, toph = bk->last_help;
        for (size_t k = 0; k < bk->nproviders; k++) {
            if (bk->providers[k].last_counter > top) top = bk->providers[k].last_counter;
            if (bk->providers[k].last_help > toph) toph = bk->providers[k].last_help;
        }
        for (size_t l = 0; l < bk->nlangs; l++) {
            const pl_backup_lang *L = &bk->langs[l];
            if (L->nnames && L->names[L->nnames - 1].index > top) top = L->names[L->nnames - 1].index;
            if (L->nhelps && L->helps[L->nhelps - 1].index > toph) toph = L->helps[L->nhelps - 1].index;
        }
        const char *inst[] = {LODCTR, ini, NULL};
        assert_int_equal(run_code(f, inst), 0);
        pl_store *st = NULL;
        assert_int_equal(pl_store_open(f->store, 0, &st, &err), PL_OK);
        pl_provider_info p;
        assert_int_equal(pl_store_provider(st, "AfterRestore", &p, &err), PL_OK);
        assert_true(p.first_counter > bk->last_counter);
        assert_true(p.first_counter > top);
        assert_true(p.first_help > toph);
        assert_int_equal(p.first_counter % 2, 0);
        assert_int_equal(p.first_help % 2, 1);
        /* the names are where the range says */
        char *t = lc_title(st, "009", PL_TITLE_NAME, p.first_counter + 2);
        assert_string_equal(t, "c");
        free(t);
        pl_provider_info_clear(&p);
        pl_store_close(st);
        pl_backup_free(bk);
    }
    free(ini);
    free(h);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(drivername_checked_with_line),
        cmocka_unit_test_setup_teardown(drivername_spaces_and_unicode, setup, teardown),
        cmocka_unit_test(expression_defines_refused),
        cmocka_unit_test(long_alias_chain),
        cmocka_unit_test(include_not_followed),
        cmocka_unit_test(line_ends_and_marks),
        cmocka_unit_test(duplicates_and_language_spellings),
        cmocka_unit_test_setup_teardown(sparse_and_empty, setup, teardown),
        cmocka_unit_test_setup_teardown(big_file_is_linear, setup, teardown),
        cmocka_unit_test(backup_awkward_texts_round_trip),
        cmocka_unit_test_setup_teardown(save_option_spellings, setup, teardown),
        cmocka_unit_test_setup_teardown(usage_errors_exit_1, setup, teardown),
        cmocka_unit_test_setup_teardown(unlodctr_exit_codes, setup, teardown),
        cmocka_unit_test_setup_teardown(restore_real_backups_then_install, setup, teardown),
    };
    return pl_test_run(tests, argc, argv);
}
