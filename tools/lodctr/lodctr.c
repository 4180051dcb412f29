/* lodctr: install a provider's counter names and help texts from a .ini +
 * symbol file, save and restore the title database, enable, disable and list
 * providers (docs/lodctr.md). Built only on the public API. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "perflib/app.h"
#include "perflib/lodctr.h"
#include "perflib/registry.h"
#include "tool_stdout.h"

/* Exit codes (docs/lodctr.md). */
enum {
    EX_OK = 0,
    EX_USAGE = 1,
    EX_REFUSED = 2,   /* the input was refused, or a file could not be read/written */
    EX_STORE = 3,     /* the registry store failed */
    EX_NOTFOUND = 4,  /* no such provider / backup */
    EX_EXISTS = 5,    /* the provider already has counters installed */
};

static const char *prog = "lodctr";

static int exit_for(int status)
{
    switch (status) {
    case PL_OK: return EX_OK;
    case PL_E_PARSE:
    case PL_E_INVAL:
    case PL_E_ENCODING:
    case PL_E_RANGE:
    case PL_E_IO: return EX_REFUSED;
    case PL_E_NOT_FOUND: return EX_NOTFOUND;
    case PL_E_EXISTS: return EX_EXISTS;
    default: return EX_STORE;
    }
}

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: lodctr [options] FILE.ini     install the counter names of FILE.ini\n"
            "       lodctr /s[:FILE]              save the title database to FILE\n"
            "       lodctr /r[:FILE]              restore the title database from FILE\n"
            "       lodctr /e:NAME                enable provider NAME\n"
            "       lodctr /d:NAME                disable provider NAME\n"
            "       lodctr /q[:NAME]              list providers (or one)\n"
            "\n"
            "Options may be written /x, -x or in any case; the value follows a colon.\n"
            "Without FILE, /s and /r use PerfStringBackup.INI next to the registry store.\n"
            "\n"
            "Long options:\n"
            "  --save FILE, --restore [FILE], --enable NAME, --disable NAME, --query [NAME]\n"
            "  --registry PATH     use this registry store (default: $PERFLIB_REGISTRY, then\n"
            "                      the installed or built-in store)\n"
            "  --library PATH      set the provider's Library (with FILE.ini)\n"
            "  --open NAME, --collect NAME, --close NAME   set its entry points\n"
            "  --symbolfile PATH   read this symbol file instead of [info] symbolfile=\n"
            "  --isolation MODE    run the provider 'isolated' in a helper process (the\n"
            "                      default for a new provider) or 'in-process' (with FILE.ini)\n"
            "  --help              show this help\n"
            "\n"
            "Exit codes: 0 success, 1 bad usage, 2 input refused or file unusable,\n"
            "3 registry store error, 4 provider or backup not found, 5 provider already\n"
            "installed.\n");
}

static int bad_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int bad_usage(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'lodctr --help'.\n");
    return EX_USAGE;
}

static int fail(const pl_error *err, int status)
{
    fprintf(stderr, "%s: %s\n", prog, err->msg[0] ? err->msg : pl_strerror(status));
    return exit_for(status);
}

enum { A_NONE, A_INSTALL, A_SAVE, A_RESTORE, A_ENABLE, A_DISABLE, A_QUERY };

typedef struct opts {
    int action;
    const char *value;        /* file or provider name; NULL: default */
    const char *registry;
    const char *symbolfile;
    const char *isolation;
    pl_lodctr_overrides ov;
} opts;

static int set_action(opts *o, int action, const char *value, const char *arg)
{
    if (o->action != A_NONE) return bad_usage("only one action at a time ('%s')", arg);
    o->action = action;
    o->value = value;
    return 0;
}

static int open_store(const opts *o, pl_store **st)
{
    pl_error err;
    int rc = pl_store_open(o->registry, 0, st, &err);
    if (rc != PL_OK) return fail(&err, rc);
    return 0;
}

/* PerfStringBackup.INI in the store's directory. */
static char *default_backup(pl_store *st)
{
    const char *p = pl_store_path(st);
    const char *slash = p ? strrchr(p, '/') : NULL;
    size_t dl = slash ? (size_t)(slash - p) + 1 : 0;
    const char *base = "PerfStringBackup.INI";
    char *r = malloc(dl + strlen(base) + 1);
    if (!r) return NULL;
    if (dl) memcpy(r, p, dl);
    memcpy(r + dl, base, strlen(base) + 1);
    return r;
}

static void print_id(const char *label, uint32_t v)
{
    printf("    %s: 0x%08X (%u)\n", label, v, v);
}

static void print_provider(const pl_provider_info *p)
{
    printf("[%s] Performance Counters (%s)\n", p->name, p->disabled ? "Disabled" : "Enabled");
    printf("    DLL Name: %s\n", p->library ? p->library : "");
    printf("    Open Procedure: %s\n", p->open ? p->open : "");
    printf("    Collect Procedure: %s\n", p->collect ? p->collect : "");
    printf("    Close Procedure: %s\n", p->close ? p->close : "");
    print_id("First Counter ID", p->first_counter);
    print_id("Last Counter ID", p->last_counter);
    print_id("First Help ID", p->first_help);
    print_id("Last Help ID", p->last_help);
    printf("    Object List: %s\n", p->object_list ? p->object_list : "");
    printf("    Isolation: %s\n", p->isolation == PL_ISOLATION_HELPER ? "isolated" : "in-process");
    if (p->linkage_export && strcmp(p->linkage_export, PL_APP_RECORD_MARKER) == 0) {
        /* an application's record (docs/app-counters.md, "Who may publish") */
        if (p->app_owner >= 0) printf("    Application Owner: user id %lld\n", (long long)p->app_owner);
        else printf("    Application Owner: (not recorded: the store's owner)\n");
        printf("    Application Publishers: %s\n", p->app_publishers ? p->app_publishers : "");
    }
    if (p->disabled) {
        char when[64] = "";
        if (p->disable_time) {
            time_t t = (time_t)p->disable_time;
            struct tm tmv;
            if (gmtime_r(&t, &tmv)) strftime(when, sizeof when, " since %Y-%m-%d %H:%M:%S UTC", &tmv);
        }
        printf("    Disabled: %s%s\n", p->disable_reason ? p->disable_reason : "(no reason given)", when);
    }
}

/* Listing needs no write access: an ordinary user, a read-only mount. The
 * store is opened for writing when possible (so a missing one is created
 * and seeded, as `cmake --install` relies on), else read-only; when that
 * fails too, its own error is shown. */
static int open_store_for_query(const opts *o, pl_store **st)
{
    pl_error err;
    int rc = pl_store_open(o->registry, 0, st, &err);
    if (rc != PL_OK && rc != PL_E_NOMEM && rc != PL_E_SCHEMA && rc != PL_E_BUSY && rc != PL_E_UNSAFE)
        rc = pl_store_open(o->registry, PL_STORE_READONLY, st, &err);
    if (rc != PL_OK) return fail(&err, rc);
    return 0;
}

static int do_query(const opts *o)
{
    pl_store *st;
    int ex = open_store_for_query(o, &st);
    if (ex) return ex;
    pl_error err;
    int rc;
    if (o->value) {
        pl_provider_info p;
        memset(&p, 0, sizeof p);
        rc = pl_store_provider(st, o->value, &p, &err);
        if (rc == PL_OK) {
            print_provider(&p);
            pl_provider_info_clear(&p);
        }
    } else {
        pl_perflib_info pi;
        pl_provider_info *list = NULL;
        size_t n = 0;
        rc = pl_store_perflib(st, &pi, &err);
        if (rc == PL_OK) rc = pl_store_providers(st, &list, &n, &err);
        if (rc == PL_OK) {
            printf("Performance Counter ID Queries [PERFLIB]:\n");
            print_id("Base Index", pi.base_index);
            print_id("Last Counter Text ID", pi.last_counter);
            print_id("Last Help Text ID", pi.last_help);
            for (size_t i = 0; i < n; i++) {
                printf("\n");
                print_provider(&list[i]);
            }
            pl_provider_list_free(list, n);
        }
    }
    pl_store_close(st);
    return rc == PL_OK ? EX_OK : fail(&err, rc);
}

static void print_warnings(const pl_lodctr_set *set, size_t from)
{
    for (size_t i = from; i < set->nwarnings; i++) fprintf(stderr, "%s: warning: %s\n", prog, set->warnings[i]);
}

static int do_install(const opts *o)
{
    pl_error err;
    pl_lodctr_set *set = NULL;
    pl_lodctr_parse_opts po = {o->symbolfile};
    int rc = pl_lodctr_parse_ex(o->value, &po, &set, &err);
    if (rc != PL_OK) return fail(&err, rc);
    print_warnings(set, 0);
    size_t seen = set->nwarnings;
    pl_store *st;
    int ex = open_store(o, &st);
    if (ex) {
        pl_lodctr_free(set);
        return ex;
    }
    pl_install_result res;
    rc = pl_lodctr_install(st, set, &o->ov, &res, &err);
    print_warnings(set, seen);
    if (rc == PL_OK)
        printf("Installed the counter names and help texts of %s: First Counter %u, Last Counter %u, First Help %u, "
               "Last Help %u.\n",
               set->provider, res.first_counter, res.last_counter, res.first_help, res.last_help);
    pl_lodctr_free(set);
    pl_store_close(st);
    return rc == PL_OK ? EX_OK : fail(&err, rc);
}

static int do_save_restore(const opts *o)
{
    pl_store *st;
    int ex = open_store(o, &st);
    if (ex) return ex;
    pl_error err;
    int rc = PL_OK;
    char *def = NULL;
    const char *file = o->value;
    if (!file) {
        def = default_backup(st);
        if (!def) {
            pl_store_close(st);
            fprintf(stderr, "%s: out of memory\n", prog);
            return EX_STORE;
        }
        file = def;
    }
    pl_backup *bk = NULL;
    if (o->action == A_SAVE) {
        rc = pl_store_snapshot(st, &bk, &err);
        if (rc == PL_OK) rc = pl_backup_write_file(bk, file, &err);
        if (rc == PL_OK)
            printf("Saved the title database (%zu language%s, Last Counter %u, Last Help %u) to %s.\n", bk->nlangs,
                   bk->nlangs == 1 ? "" : "s", bk->last_counter, bk->last_help, file);
    } else {
        rc = pl_backup_read_file(file, &bk, &err);
        if (rc == PL_E_IO && !o->value) {
            /* No default backup yet: say so plainly. */
            fprintf(stderr, "%s: no backup to restore: %s\n", prog, err.msg);
            pl_store_close(st);
            free(def);
            return EX_NOTFOUND;
        }
        if (rc == PL_OK) rc = pl_store_restore(st, bk, &err);
        if (rc == PL_OK)
            printf("Restored the title database (%zu language%s, Last Counter %u, Last Help %u) from %s.\n",
                   bk->nlangs, bk->nlangs == 1 ? "" : "s", bk->last_counter, bk->last_help, file);
    }
    pl_backup_free(bk);
    pl_store_close(st);
    free(def);
    return rc == PL_OK ? EX_OK : fail(&err, rc);
}

static int do_enable(const opts *o)
{
    pl_store *st;
    int ex = open_store(o, &st);
    if (ex) return ex;
    pl_error err;
    int rc = o->action == A_ENABLE ? pl_store_enable_provider(st, o->value, &err)
                                   : pl_store_disable_provider(st, o->value, "disabled with lodctr /d", &err);
    if (rc == PL_OK) printf("%s provider %s.\n", o->action == A_ENABLE ? "Enabled" : "Disabled", o->value);
    pl_store_close(st);
    return rc == PL_OK ? EX_OK : fail(&err, rc);
}

/* Long option with a required value: "--x=V" or "--x V". */
static int long_value(int argc, char **argv, int *i, const char *name, const char **val)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0) return 0;
    if (a[n] == '=') {
        *val = a + n + 1;
        return 1;
    }
    if (a[n] != '\0') return 0;
    if (*i + 1 >= argc) {
        *val = NULL;
        return 1;
    }
    *val = argv[++*i];
    return 1;
}

/* Long option with an optional value (taken from the next argument unless
 * that looks like an option). */
static int long_opt_value(int argc, char **argv, int *i, const char *name, const char **val)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0) return 0;
    if (a[n] == '=') {
        *val = a + n + 1;
        return 1;
    }
    if (a[n] != '\0') return 0;
    *val = NULL;
    if (*i + 1 < argc && argv[*i + 1][0] != '-') *val = argv[++*i];
    return 1;
}

static int run(int argc, char **argv);

/* Every command's output must reach stdout: a failed write (a full disk, a
 * closed stdout) is exit 2, like any file that cannot be written. */
int main(int argc, char **argv)
{
    tool_guard_stdio();
    int ex = run(argc, argv);
    if (tool_stdout_close(prog) != 0 && ex == EX_OK) ex = EX_REFUSED;
    return ex;
}

static int run(int argc, char **argv)
{
    opts o;
    memset(&o, 0, sizeof o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v;
        if (!strcmp(a, "--help") || !strcmp(a, "-h") || !strcmp(a, "/?") || !strcmp(a, "-?")) {
            usage(stdout);
            return EX_OK;
        }
        if (!strcmp(a, "--version")) {
            printf("lodctr (perflib) %s\n", pl_version());
            return fflush(stdout) == 0 && !ferror(stdout) ? EX_OK : EX_USAGE;
        }
        if (a[0] == '-' && a[1] == '-') {
            static const struct {
                const char *name;
                int action;
                int optional;
            } acts[] = {{"--save", A_SAVE, 1},       {"--restore", A_RESTORE, 1}, {"--enable", A_ENABLE, 0},
                        {"--disable", A_DISABLE, 0}, {"--query", A_QUERY, 1}};
            int done = 0;
            for (size_t k = 0; k < sizeof acts / sizeof acts[0] && !done; k++) {
                int hit = acts[k].optional ? long_opt_value(argc, argv, &i, acts[k].name, &v)
                                           : long_value(argc, argv, &i, acts[k].name, &v);
                if (!hit) continue;
                done = 1;
                if (!acts[k].optional && (!v || !*v)) return bad_usage("%s needs a value", acts[k].name);
                if (set_action(&o, acts[k].action, v && *v ? v : NULL, a)) return EX_USAGE;
            }
            if (done) continue;
            static const char *const names[] = {"--registry", "--library",    "--open",     "--collect",
                                                "--close",    "--symbolfile", "--isolation"};
            const char **dst[] = {&o.registry, &o.ov.library, &o.ov.open,   &o.ov.collect,
                                  &o.ov.close, &o.symbolfile, &o.isolation};
            for (size_t k = 0; k < sizeof names / sizeof names[0] && !done; k++) {
                if (!long_value(argc, argv, &i, names[k], &v)) continue;
                done = 1;
                if (!v || !*v) return bad_usage("%s needs a value", names[k]);
                *dst[k] = v;
            }
            if (done) continue;
            return bad_usage("unknown option '%s'", a);
        }
        /* Windows options: /x or -x, optionally ":VALUE" (or ": VALUE"). A
         * '/' argument that is not a single letter plus ':' or end is a path. */
        if ((a[0] == '/' || a[0] == '-') && a[1] && (a[2] == '\0' || a[2] == ':')) {
            char letter = a[1];
            if (letter >= 'A' && letter <= 'Z') letter = (char)(letter + 32);
            const char *val = a[2] == ':' ? a + 3 : NULL;
            if (val && !*val) {
                if (i + 1 >= argc) return bad_usage("'%s' needs a value after the colon", a);
                val = argv[++i];
            }
            int act;
            switch (letter) {
            case 's': act = A_SAVE; break;
            case 'r': act = A_RESTORE; break;
            case 'e': act = A_ENABLE; break;
            case 'd': act = A_DISABLE; break;
            case 'q': act = A_QUERY; break;
            default: return bad_usage("unknown option '%s'", a);
            }
            if ((act == A_ENABLE || act == A_DISABLE) && !val) return bad_usage("'%s' needs a provider name (/e:NAME)", a);
            if (set_action(&o, act, val, a)) return EX_USAGE;
            continue;
        }
        if (a[0] == '-') return bad_usage("unknown option '%s'", a);
        if (set_action(&o, A_INSTALL, a, a)) return EX_USAGE;
    }
    if (o.action == A_NONE) {
        usage(stderr);
        return EX_USAGE;
    }
    if (o.action != A_INSTALL &&
        (o.ov.library || o.ov.open || o.ov.collect || o.ov.close || o.symbolfile || o.isolation))
        return bad_usage("%s", "--library, --open, --collect, --close, --symbolfile and --isolation go with FILE.ini");
    if (o.isolation) {
        if (!strcmp(o.isolation, "isolated")) o.ov.isolation = PL_INSTALL_ISOLATION_HELPER;
        else if (!strcmp(o.isolation, "in-process")) o.ov.isolation = PL_INSTALL_ISOLATION_INPROC;
        else return bad_usage("--isolation takes 'isolated' or 'in-process', not '%s'", o.isolation);
    }
    switch (o.action) {
    case A_INSTALL: return do_install(&o);
    case A_SAVE:
    case A_RESTORE: return do_save_restore(&o);
    case A_ENABLE:
    case A_DISABLE: return do_enable(&o);
    default: return do_query(&o);
    }
}
