/* perflib-samba: keeps Samba's perfmon/names.tdb and perfmon/data.tdb
 * current from perflib's snapshots, so that smbd's winreg server answers
 * HKEY_PERFORMANCE_DATA queries from Windows machines with this machine's
 * counters (docs/samba.md). Built only on the public API. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "perflib/query.h"
#include "perflib/registry.h"
#include "sb_layout.h"
#include "sb_publish.h"
#include "tool_stdout.h"

#define PROG "perflib-samba"
/* Windows clients' first buffer for a performance query is commonly 64 KB;
 * Samba 4.17 answers a smaller buffer with success and no objects. */
#define SIZE_WARNING 65000u
/* --once waits this long for readers to let go of names.tdb */
#define ONCE_WAIT_MS 5000

static volatile sig_atomic_t g_stop;

static void on_signal(int sig)
{
    (void)sig;
    g_stop = 1;
}

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: " PROG " --state-dir DIR [--once | --interval SECONDS] [options]\n"
            "Keep Samba's DIR/perfmon/names.tdb and data.tdb current from perflib's snapshots, so\n"
            "that smbd's winreg server answers HKEY_PERFORMANCE_DATA with this machine's counters.\n"
            "\n"
            "  --state-dir DIR      Samba's state directory (testparm -s --parameter-name=\"state directory\")\n"
            "  --once               write both files once from a fresh snapshot and exit\n"
            "  --interval SECONDS   seconds between snapshots (default 1; 0.2 to 86400)\n"
            "  --objects LIST       serve only these objects (comma-separated names, e.g.\n"
            "                       Processor,Memory,System; default: every object of Global)\n"
            "  --registry PATH      the registry store (default: $PERFLIB_REGISTRY, then the\n"
            "                       installed or built-in store)\n"
            "  --help               show this help\n"
            "  --version            show the version\n"
            "\n"
            "Without --once the files are rewritten every interval until SIGTERM or SIGINT, which\n"
            "withdraws the objects (Samba then answers with none) and exits 0.\n"
            "Exit codes: 0 success, 1 bad usage, 2 state directory refused, 3 the files could not\n"
            "be written, 4 the snapshot failed (registry store, engine).\n");
}

static void logmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logmsg(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs(PROG ": ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static const char *title_of(void *ctx, int kind, uint32_t index)
{
    return pl_titles_get((const pl_titles *)ctx, kind, index);
}

/* "Processor,Memory" -> "238 4" through the title database. */
static int objects_query(const pl_titles *t, const char *list, char *out, size_t cap)
{
    size_t n = 0;
    out[0] = '\0';
    const char *p = list;
    while (*p) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char name[256];
        if (len == 0 || len >= sizeof name) {
            logmsg("--objects: an empty or overlong name in '%s'", list);
            return -1;
        }
        memcpy(name, p, len);
        name[len] = '\0';
        uint32_t idx = pl_titles_find(t, PL_TITLE_NAME, name);
        if (!idx) {
            logmsg("--objects: no object or counter is named '%s' in the title database", name);
            return -1;
        }
        int w = snprintf(out + n, cap - n, "%s%u", n ? " " : "", idx);
        if (w < 0 || (size_t)w >= cap - n) {
            logmsg("--objects: too many names");
            return -1;
        }
        n += (size_t)w;
        p = e ? e + 1 : p + len;
    }
    if (n == 0) {
        logmsg("--objects needs at least one name");
        return -1;
    }
    return 0;
}

typedef struct bridge {
    pl_engine *engine;
    sb_dir dir;
    sb_map map;
    sb_layout_cfg cfg;
    pl_titles *titles;
    const char *query;
    long wait_ms;
    /* what was said already, so that a loop does not repeat itself */
    int said_shape, said_size, said_lease, said_objtime;
    long busy_since_ms;       /* readers kept the files from being replaced since then (0: not) */
    long busy_said_ms;        /* when that was last said */
    unsigned busy_skipped;
    size_t last_objects, last_defs;
    sb_stats st;
} bridge;

static int reload_titles(bridge *b, pl_error *err)
{
    pl_titles *t;
    int rc = pl_titles_load(pl_engine_store(b->engine), "009", &t, err);
    if (rc != PL_OK) return rc;
    pl_titles_free(b->titles);
    b->titles = t;
    b->cfg.title_ctx = t;
    return PL_OK;
}

/* The served counters a client cannot compute without the object's clock,
 * which Samba 4.17 never sends; said once. */
static void say_object_time(bridge *b, const pl_block *blk)
{
    if (b->said_objtime) return;
    b->said_objtime = 1;
    char list[1024] = "";
    size_t n = 0;
    pl_object o;
    for (int rc = pl_block_object(blk, 0, &o); rc == PL_OK; rc = pl_object_next(&o, &o)) {
        pl_counter c;
        for (int cr = pl_object_counter(&o, 0, &c); cr == PL_OK; cr = pl_counter_next(&c, &c)) {
            if (!sb_type_needs_object_time(c.def.CounterType)) continue;
            const char *cn = pl_titles_get(b->titles, PL_TITLE_NAME, c.def.CounterNameTitleIndex);
            const char *on = pl_titles_get(b->titles, PL_TITLE_NAME, o.hdr.ObjectNameTitleIndex);
            int w = snprintf(list + n, sizeof list - n, "%s%s\\%s", n ? ", " : "", on ? on : "?", cn ? cn : "?");
            if (w > 0 && (size_t)w < sizeof list - n) n += (size_t)w;
        }
    }
    if (n)
        logmsg("Samba sends no object clock: clients cannot compute %s (their raw values are served; "
               "docs/samba.md)",
               list);
}

static long mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* One snapshot into the files. Returns 0, 3 (writing failed), 4 (no snapshot). */
static int cycle(bridge *b, int once)
{
    pl_error err;
    void *buf = NULL;
    size_t len = 0;
    uint32_t type = 0;
    int rc = reload_titles(b, &err);
    if (rc == PL_OK) rc = pl_engine_query_alloc(b->engine, b->query, &buf, &len, &type, &err);
    pl_block blk;
    if (rc == PL_OK) rc = pl_block_open(&blk, buf, len, 0, 0, &err);
    sb_recs names = {0}, data = {0};
    char why[512];
    if (rc != PL_OK) {
        logmsg("the snapshot failed: %s", err.msg);
        pl_free(buf);
        if (once) return 4;
        /* no numbers rather than old ones */
        if (sb_layout_withdrawn(&b->map, &b->cfg, &names, &data, why, sizeof why) != 0) {
            logmsg("%s", why);
            return 3;
        }
        sb_swap sw;
        int prc = sb_publish(&b->dir, &names, &data, b->wait_ms, &sw, why, sizeof why);
        sb_recs_free(&names);
        sb_recs_free(&data);
        if (prc < 0) logmsg("%s", why);
        return prc < 0 ? 3 : 0;
    }
    sb_stats st;
    if (sb_layout(&blk, &b->cfg, &b->map, &names, &data, &st, why, sizeof why) != 0) {
        logmsg("%s", why);
        pl_free(buf);
        return 3;
    }
    say_object_time(b, &blk);
    pl_free(buf);
    sb_swap sw;
    int prc = sb_publish(&b->dir, &names, &data, b->wait_ms, &sw, why, sizeof why);
    sb_recs_free(&names);
    sb_recs_free(&data);
    if (prc < 0) {
        logmsg("%s", why);
        return 3;
    }
    if (prc == 1) {
        /* Readers held names.tdb all along: this snapshot is dropped and the
         * next one tried; said once, then once a minute while it lasts. */
        long now = mono_ms();
        if (!b->busy_since_ms) {
            b->busy_since_ms = b->busy_said_ms = now;
            logmsg("readers kept names.tdb open for %ld ms: the files stay as they were until they let go",
                   sw.waited_ms);
        } else {
            b->busy_skipped++;
            if (now - b->busy_said_ms >= 60000) {
                b->busy_said_ms = now;
                logmsg("readers have kept names.tdb open for %ld s: %u snapshots not written",
                       (now - b->busy_since_ms) / 1000, b->busy_skipped + 1);
            }
        }
        if (once) {
            logmsg("--once: nothing written");
            return 3;
        }
        return 0;
    }
    if (b->busy_since_ms) {
        logmsg("the files are current again (%u snapshots were not written)", b->busy_skipped + 1);
        b->busy_since_ms = 0;
        b->busy_skipped = 0;
    }
    if (st.renumbered && b->said_shape)
        logmsg("the index map was rebuilt: Windows clients must read the names again (reconnect)");
    if (!b->said_shape || st.objects != b->last_objects || st.definitions != b->last_defs) {
        if (!once)
            logmsg("serving %zu objects, %zu counters (%zu definitions Samba cannot carry left out)", st.objects,
                   st.definitions, st.skipped);
        b->said_shape = 1;
        b->last_objects = st.objects;
        b->last_defs = st.definitions;
    }
    if (st.objects_bytes + 128 > SIZE_WARNING) {
        if (!b->said_size)
            logmsg("Samba's answer is %zu bytes plus its header: a client whose buffer is smaller gets success "
                   "and no objects from Samba 4.17 (docs/samba.md, limit 7); --objects serves fewer",
                   st.objects_bytes);
        b->said_size = 1;
    } else {
        b->said_size = 0;
    }
    if (sw.unsupported && !b->said_lease) {
        logmsg("no file lease on %s/names.tdb: the files are replaced without waiting for readers",
               b->dir.perfmon);
        b->said_lease = 1;
    }
    b->st = st;
    return 0;
}

static int parse_interval(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= 0.2 && v <= 86400)) return -1;
    *out = v;
    return 0;
}

static void add_ns(struct timespec *t, long long ns)
{
    long long total = (long long)t->tv_nsec + ns;
    t->tv_sec += (time_t)(total / 1000000000LL);
    t->tv_nsec = (long)(total % 1000000000LL);
}

int main(int argc, char **argv)
{
    tool_guard_stdio();
    const char *state_dir = NULL, *registry = NULL, *objects = NULL;
    int once = 0, have_interval = 0;
    double interval = 1.0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return tool_stdout_close(PROG) == 0 ? 0 : 1;
        }
        if (!strcmp(a, "--version")) {
            printf(PROG " (perflib) %s\n", pl_version());
            return tool_stdout_close(PROG) == 0 ? 0 : 1;
        }
        if (!strcmp(a, "--once")) {
            once = 1;
            continue;
        }
        static const char *const with_value[] = {"--state-dir", "--interval", "--objects", "--registry"};
        int k = -1;
        for (int j = 0; j < 4 && k < 0; j++) {
            size_t l = strlen(with_value[j]);
            if (!strncmp(a, with_value[j], l) && (a[l] == '\0' || a[l] == '=')) {
                k = j;
                if (a[l] == '=') val = a + l + 1;
                else if (i + 1 < argc) val = argv[++i];
            }
        }
        if (k < 0) {
            fprintf(stderr, PROG ": unknown argument '%s'\nTry '" PROG " --help'.\n", a);
            return 1;
        }
        if (!val || !*val) {
            fprintf(stderr, PROG ": %s needs a value\nTry '" PROG " --help'.\n", with_value[k]);
            return 1;
        }
        if (k == 0) state_dir = val;
        else if (k == 1) {
            if (parse_interval(val, &interval) != 0) {
                fprintf(stderr, PROG ": --interval: '%s' is not a number of seconds from 0.2 to 86400\n", val);
                return 1;
            }
            have_interval = 1;
        } else if (k == 2) objects = val;
        else registry = val;
    }
    if (!state_dir) {
        fprintf(stderr, PROG ": --state-dir is required\nTry '" PROG " --help'.\n");
        return 1;
    }
    if (once && have_interval) {
        fprintf(stderr, PROG ": --once and --interval exclude each other\n");
        return 1;
    }

    bridge b;
    memset(&b, 0, sizeof b);
    char why[4400];
    if (sb_dir_open(&b.dir, state_dir, why, sizeof why) != 0) {
        logmsg("%s", why);
        return 2;
    }
    pl_error err;
    pl_engine_config ec = {.store_path = registry, .log_to_syslog = !once};
    if (pl_engine_open(&ec, &b.engine, &err) != PL_OK) {
        logmsg("%s", err.msg);
        sb_dir_close(&b.dir);
        return 4;
    }
    b.cfg.dword_size = sizeof(long); /* smbd runs on this machine */
    b.cfg.title = title_of;
    /* how long readers may hold names.tdb before a snapshot is given up:
     * most of an interval (a request of Samba's takes milliseconds) */
    b.wait_ms = once ? ONCE_WAIT_MS : (long)(interval * 750);
    char query[4096] = "Global";
    int exit_code = 0;
    if (reload_titles(&b, &err) != PL_OK) {
        logmsg("the title database (009): %s", err.msg);
        exit_code = 4;
    } else if (objects && objects_query(b.titles, objects, query, sizeof query) != 0) {
        exit_code = 1;
    }
    b.query = query;
    if (!exit_code) {
        int mrc = sb_load_map(&b.dir, &b.map, why, sizeof why);
        if (mrc != 0) logmsg("%s", why);
    }
    if (!exit_code && !once) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGINT, &sa, NULL);
        logmsg("writing %s every %g s (query \"%s\")", b.dir.perfmon, interval, query);
    }
    if (!exit_code) {
        struct timespec next;
        clock_gettime(CLOCK_MONOTONIC, &next);
        for (;;) {
            int rc = cycle(&b, once);
            if (rc == 3 || (once && rc)) {
                exit_code = rc;
                break;
            }
            if (once) break;
            /* the next tick on a fixed grid: no drift, no burst after a slow cycle */
            long long step = (long long)(interval * 1e9);
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            do add_ns(&next, step);
            while (next.tv_sec < now.tv_sec || (next.tv_sec == now.tv_sec && next.tv_nsec <= now.tv_nsec));
            while (!g_stop && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR) {
            }
            if (g_stop) break;
        }
        if (!once && exit_code == 0) {
            sb_recs names = {0}, data = {0};
            sb_swap sw;
            int prc = sb_layout_withdrawn(&b.map, &b.cfg, &names, &data, why, sizeof why) != 0
                          ? -1
                          : sb_publish(&b.dir, &names, &data, ONCE_WAIT_MS, &sw, why, sizeof why);
            if (prc < 0) {
                logmsg("withdrawing the objects: %s", why);
                exit_code = 3;
            } else if (prc == 1) {
                logmsg("readers kept names.tdb open: the last snapshot stays in place");
                exit_code = 3;
            } else {
                logmsg("stopped: the objects are withdrawn");
            }
            sb_recs_free(&names);
            sb_recs_free(&data);
        }
        if (once && exit_code == 0) {
            printf("%s: %zu objects, %zu counters, %zu instances; Samba's answer to Global: %zu bytes after its "
                   "header\n",
                   b.dir.perfmon, b.st.objects, b.st.definitions, b.st.instances, b.st.objects_bytes);
            if (tool_stdout_close(PROG) != 0) exit_code = 3;
        }
    }
    pl_titles_free(b.titles);
    sb_map_free(&b.map);
    pl_engine_close(b.engine);
    sb_dir_close(&b.dir);
    return exit_code;
}
