/* pview: the process and thread viewer, in the terminal (docs/pview.md).
 * Built only on perflib's public API: snapshots from the query engine (or a
 * remote perfd through it, or saved blocks), rates by PDH's formulas. */
#include <curses.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pview.h"

#ifndef PL_VERSION_STRING
#define PL_VERSION_STRING "0.1.0"
#endif

static void usage(FILE *out)
{
    fputs("Usage: pview [options] [\\\\COMPUTER]\n"
          "Show processes and threads from perflib's Process and Thread objects.\n"
          "\n"
          "  \\\\COMPUTER, -s COMPUTER   a remote machine served by perfd (HOST or HOST:PORT)\n"
          "  --perfd ADDR              the local perfd to use when it is cheaper than pview's own\n"
          "                            /proc collection (default 127.0.0.1:9730)\n"
          "  --no-perfd                never use a local perfd\n"
          "  -d SECONDS                refresh interval (0.2 to 3600; default 1)\n"
          "  --log FILE                replay a binary counter log recorded with typeperf -f BIN\n"
          "                            (one record per refresh; record Process and Thread paths)\n"
          "  --replay FILE...          replay snapshots saved with `perfquery --raw FILE \"230 232\"`\n"
          "                            (all remaining arguments are files)\n"
          "  --no-threads              start with the thread pane hidden (cheaper)\n"
          "  -h, --help                this help\n"
          "  --version                 the version\n"
          "\n"
          "Keys: h help, </> sort, / filter, k end process, p priority, m memory, q quit.\n"
          "Exit codes: 0 quit, 1 bad command line, 2 the data source failed, 3 not a terminal.\n",
          out);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap) return 0;
    size_t n = *cap ? *cap : 64;
    while (n < need) n *= 2;
    void *q = realloc(*p, n * size);
    if (!q) return -1;
    *p = q;
    *cap = n;
    return 0;
}

void pv_app_rebuild(pv_app *a)
{
    pv_model *m = &a->model;
    if (grow((void **)&a->view, &a->cap_view, m->nprocs + 1, sizeof *a->view)) return;
    size_t n = 0;
    for (size_t i = 0; i < m->nprocs; i++)
        if (m->procs[i].special == 2 || pv_name_matches(m->procs[i].name, a->filter)) a->view[n++] = m->procs[i];
    a->nview = n;
    pv_sort(a->view, n, a->sort_col, a->sort_desc);
    /* keep the selection on the same process (pid and start time) */
    size_t body = n && a->view[n - 1].special == 2 ? n - 1 : n;
    int found = 0;
    if (!a->user_moved && body) {
        a->sel_pid = a->view[0].pid;
        a->sel_start = a->view[0].start;
    }
    for (size_t i = 0; i < body; i++)
        if (a->view[i].pid == a->sel_pid && a->view[i].start == a->sel_start) {
            a->sel = i;
            found = 1;
            break;
        }
    if (!found && body) {
        if (a->sel >= body) a->sel = body - 1;
        a->sel_pid = a->view[a->sel].pid;
        a->sel_start = a->view[a->sel].start;
    }
    /* the selected process's threads: ID Process, or the parent position */
    a->ntview = 0;
    if (body && m->nthreads &&
        !grow((void **)&a->tview, &a->cap_tview, m->nthreads, sizeof *a->tview)) {
        const pv_proc *p = &a->view[a->sel];
        for (size_t i = 0; i < m->nthreads; i++) {
            const pv_thread *t = &m->threads[i];
            if (t->pid ? t->pid == p->pid : t->parent == p->position) a->tview[a->ntview++] = &m->threads[i];
        }
    }
}

static void set_status(pv_app *a, int error, const char *msg)
{
    snprintf(a->status, sizeof a->status, " %.250s", msg);
    a->status_error = error;
    a->status_source = 0;
}

/* The threads shown are the selected process's: a live source is asked
 * for them alone ("230 232 pid=N", docs/query-engine.md). A recording has
 * every thread already; a source that does not know the word (an older
 * perfd answers no Process) gets "230 232". Without a selection yet, no
 * threads: the first refresh asks for the selected one's at once. */
static const char *data_query(const pv_app *a, char *buf, size_t cap, int *pid_query)
{
    *pid_query = 0;
    if (!a->show_threads) return "230";
    if (a->src->replay || a->no_pid_filter) return "230 232";
    if (!a->nview) return "230";
    snprintf(buf, cap, "230 232 pid=%u", a->sel_pid);
    *pid_query = 1;
    return buf;
}

/* Test hook: the data queries, one a line, in $PERFLIB_PVIEW_TRACE. */
static void trace_query(const pv_app *a, const char *query)
{
    if (!a->trace) return;
    FILE *f = fopen(a->trace, "a");
    if (!f) return;
    fprintf(f, "%s\n", query);
    fclose(f);
}

/* After the user selected another process: its threads soon (a burst of
 * keys asks once). */
static void want_threads_of_selection(pv_app *a)
{
    if (!a->show_threads || a->src->replay || a->no_pid_filter || a->paused || a->ended) return;
    if (a->have_threads_pid && a->threads_pid == a->sel_pid) return;
    a->threads_due = now_s() + 0.15;
}

/* One refresh. Returns 0, or -1 when the source failed (message set). */
static int refresh_data(pv_app *a)
{
    void *blk = NULL;
    size_t len = 0;
    pl_error err = {0};
    double t0 = now_s();
    char qbuf[48];
    int pid_query = 0;
    const char *query = data_query(a, qbuf, sizeof qbuf, &pid_query);
    uint32_t qpid = a->sel_pid;
    trace_query(a, query);
    int rc = a->src->src.collect(a->src->src.ctx, query, &blk, &len, &err);
    if (rc == PL_OK && pid_query) {
        /* a source that does not know "pid=N" answers no Process */
        pl_block b;
        pl_object o;
        if (pl_block_open(&b, blk, len, 0, 0, NULL) == PL_OK && pl_block_find_object(&b, 230, &o) != PL_OK) {
            free(blk);
            blk = NULL;
            a->no_pid_filter = 1;
            pid_query = 0;
            trace_query(a, "230 232");
            rc = a->src->src.collect(a->src->src.ctx, "230 232", &blk, &len, &err);
        }
    }
    if (rc == PL_E_NO_DATA && a->src->replay) {
        a->ended = 1;
        set_status(a, 0, "end of the recording; q quits");
        return 0;
    }
    if (rc == PL_OK) rc = pv_model_update(&a->model, blk, len, &err);
    free(blk);
    a->last_collect_ms = (now_s() - t0) * 1000;
    if (rc != PL_OK) {
        char msg[600];
        snprintf(msg, sizeof msg, "%.100s: no new data, showing the last good rows: %.300s", a->src->label,
                 err.msg[0] ? err.msg : pl_strerror(rc));
        set_status(a, 1, msg);
        a->status_source = 1;
        return -1;
    }
    /* the source answers again: its complaint goes; the user's own
     * messages (a refused action) stay until the next key */
    if (a->status_source) a->status[0] = 0;
    a->status_source = 0;
    a->have_threads_pid = pid_query;
    a->threads_pid = qpid;
    a->threads_due = 0;
    int first = a->nview == 0;
    pv_app_rebuild(a);
    if (first) want_threads_of_selection(a); /* the first selection: its threads now */
    if (a->threads_due) a->threads_due = now_s();
    return 0;
}

static const pv_proc *selected(const pv_app *a)
{
    size_t body = a->nview && a->view[a->nview - 1].special == 2 ? a->nview - 1 : a->nview;
    return a->sel < body ? &a->view[a->sel] : NULL;
}

static void open_memory(pv_app *a)
{
    const pv_proc *p = selected(a);
    if (!p) return;
    void *blk = NULL;
    size_t len = 0;
    pl_error err = {0};
    pv_memdetail_free(&a->mem);
    int rc = a->src->src.collect(a->src->src.ctx, PV_MEMORY_QUERY, &blk, &len, &err);
    if (rc == PL_OK) rc = pv_memdetail_read(blk, len, p->pid, p->start, &a->mem, &err);
    free(blk);
    if (rc != PL_OK) {
        char msg[600];
        snprintf(msg, sizeof msg, "memory detail of %.60s (%u): %.300s", p->name, p->pid, err.msg);
        set_status(a, 1, msg);
        return;
    }
    a->mem_pid = p->pid;
    snprintf(a->mem_name, sizeof a->mem_name, "%s", p->name);
    a->mem_top = 0;
    a->mode = PV_MEMORY;
}

static void move_sel(pv_app *a, long delta)
{
    int maxy = getmaxy(stdscr);
    long page = maxy / 2 > 1 ? maxy / 2 : 1;
    if (delta == LONG_MAX || delta == -LONG_MAX) page = 1;
    size_t *sel = a->focus ? &a->tsel : &a->sel;
    size_t n = a->focus ? a->ntview : (a->nview && a->view[a->nview - 1].special == 2 ? a->nview - 1 : a->nview);
    if (a->mode == PV_MEMORY) {
        sel = &a->mem_top;
        n = a->mem.nimages;
    }
    if (n == 0) return;
    long d = delta == 2 || delta == -2 ? (delta > 0 ? page : -page) : delta;
    long v = (long)*sel;
    if (delta == LONG_MAX) v = (long)n - 1;
    else if (delta == -LONG_MAX) v = 0;
    else v += d;
    if (v < 0) v = 0;
    if (v >= (long)n) v = (long)n - 1;
    *sel = (size_t)v;
    if (!a->focus && a->mode == PV_MAIN) {
        a->user_moved = 1;
        a->sel_pid = a->view[*sel].pid;
        a->sel_start = a->view[*sel].start;
        a->tsel = a->ttop = 0;
        pv_app_rebuild(a);
        want_threads_of_selection(a);
    }
}

static void action_end(pv_app *a, int sig)
{
    const pv_proc *p = selected(a);
    if (!p) return;
    pv_proc copy = *p;
    char q[160], ans[8], msg[256];
    if (pv_action_refused(a, &copy, msg, sizeof msg)) {
        set_status(a, 1, msg);
        return;
    }
    snprintf(q, sizeof q, "End %s (%u) with %s? [y/N]", copy.name, copy.pid, sig == SIGKILL ? "SIGKILL" : "SIGTERM");
    if (!pv_ui_prompt(a, q, ans, sizeof ans) || (ans[0] != 'y' && ans[0] != 'Y')) {
        if (!a->quit) set_status(a, 0, "nothing was done");
        return;
    }
    int rc = pv_end_process(a, &copy, sig, msg, sizeof msg);
    set_status(a, rc != 0, msg);
}

static void action_priority(pv_app *a)
{
    const pv_proc *p = selected(a);
    if (!p) return;
    pv_proc copy = *p;
    char q[200], ans[16], msg[256];
    char cur[16];
    if (pv_action_refused(a, &copy, msg, sizeof msg)) {
        set_status(a, 1, msg);
        return;
    }
    pv_fmt_num(cur, sizeof cur, copy.nice);
    snprintf(q, sizeof q, "Nice value for %s (%u), -20 (high) .. 19 (idle), now %s:", copy.name, copy.pid,
             cur[0] ? cur : "?");
    if (!pv_ui_prompt(a, q, ans, sizeof ans) || !ans[0]) {
        if (!a->quit) set_status(a, 0, "nothing was done");
        return;
    }
    char *end;
    errno = 0;
    long v = strtol(ans, &end, 10);
    while (*end == ' ') end++;
    if (errno || *end || v < -20 || v > 19) {
        set_status(a, 1, "a nice value is a whole number from -20 to 19; nothing was done");
        return;
    }
    int rc = pv_set_priority(a, &copy, (int)v, msg, sizeof msg);
    set_status(a, rc != 0, msg);
}

static void key(pv_app *a, int ch)
{
    /* a key dismisses the last message, except the source's own (it
     * stays while the source fails) */
    if (ch != ERR && ch != KEY_RESIZE && !a->status_source) a->status[0] = 0;
    if (a->mode == PV_HELP) {
        if (ch != ERR && ch != KEY_RESIZE) a->mode = PV_MAIN;
        if (ch == 'q') a->quit = 1;
        return;
    }
    if (a->mode == PV_MEMORY) {
        switch (ch) {
        case 27: case 'm': case KEY_BACKSPACE: a->mode = PV_MAIN; break;
        case 'q': case KEY_F(10): a->quit = 1; break;
        case KEY_UP: move_sel(a, -1); break;
        case KEY_DOWN: move_sel(a, 1); break;
        case KEY_PPAGE: move_sel(a, -2); break;
        case KEY_NPAGE: move_sel(a, 2); break;
        default: break;
        }
        return;
    }
    switch (ch) {
    case 'q': case KEY_F(10): a->quit = 1; break;
    case 'h': case '?': case KEY_F(1): a->mode = PV_HELP; break;
    case KEY_UP: move_sel(a, -1); break;
    case KEY_DOWN: move_sel(a, 1); break;
    case KEY_PPAGE: move_sel(a, -2); break;
    case KEY_NPAGE: move_sel(a, 2); break;
    case KEY_HOME: move_sel(a, -LONG_MAX); break;
    case KEY_END: move_sel(a, LONG_MAX); break;
    case '\t': a->focus = a->show_threads ? !a->focus : 0; break;
    case KEY_LEFT: if (a->hscroll > 0) a->hscroll--; break;
    case KEY_RIGHT: if (a->hscroll < PC_COUNT - 3) a->hscroll++; break;
    case '<': a->sort_col = (a->sort_col + PC_COUNT - 1) % PC_COUNT; pv_app_rebuild(a); want_threads_of_selection(a); break;
    case '>': a->sort_col = (a->sort_col + 1) % PC_COUNT; pv_app_rebuild(a); want_threads_of_selection(a); break;
    case 'r': a->sort_desc = !a->sort_desc; pv_app_rebuild(a); want_threads_of_selection(a); break;
    case '/': {
        char f[sizeof a->filter];
        if (pv_ui_prompt(a, "Filter by name (empty: all):", f, sizeof f)) {
            memcpy(a->filter, f, sizeof f);
            a->sel = a->top = 0;
            pv_app_rebuild(a);
            want_threads_of_selection(a);
        }
        break;
    }
    case 'k': action_end(a, SIGTERM); break;
    case 'K': action_end(a, SIGKILL); break;
    case 'p': action_priority(a); break;
    case 'm': open_memory(a); break;
    case 't':
        a->show_threads = !a->show_threads;
        a->focus = 0;
        want_threads_of_selection(a);
        break;
    case ' ': a->paused = !a->paused; break;
    case '+': if (a->interval < 3600) a->interval = a->interval < 1 ? a->interval * 2 : a->interval + 1; break;
    case '-': if (a->interval > 0.2) a->interval = a->interval <= 1 ? a->interval / 2 : a->interval - 1; break;
    default: break;
    }
    if (a->interval < 0.2) a->interval = 0.25;
}

static volatile sig_atomic_t g_term;
static void on_term(int sig)
{
    (void)sig;
    g_term = 1;
}

int pv_stop_requested(void) { return g_term != 0; }

int main(int argc, char **argv)
{
    pv_app a;
    memset(&a, 0, sizeof a);
    a.interval = 1.0;
    a.show_threads = 1;
    a.sort_col = PC_CPU;
    a.sort_desc = 1;
    const char *host = NULL, *logfile = NULL, *perfd = "127.0.0.1:9730";
    char **files = NULL;
    int nfiles = 0;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (!strcmp(s, "-h") || !strcmp(s, "--help") || !strcmp(s, "-?")) {
            usage(stdout);
            return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
        } else if (!strcmp(s, "--version")) {
            printf("pview (perflib) %s\n", PL_VERSION_STRING);
            return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
        } else if (!strcmp(s, "-d") && i + 1 < argc) {
            char *end;
            errno = 0;
            double v = strtod(argv[++i], &end);
            if (errno || *end || !(v >= 0.2 && v <= 3600)) {
                fprintf(stderr, "pview: -d takes seconds from 0.2 to 3600, not \"%s\"\n", argv[i]);
                return 1;
            }
            a.interval = v;
        } else if (!strcmp(s, "-s") && i + 1 < argc) {
            host = argv[++i];
        } else if (!strcmp(s, "--log") && i + 1 < argc) {
            logfile = argv[++i];
        } else if (!strcmp(s, "--perfd") && i + 1 < argc) {
            perfd = argv[++i];
        } else if (!strcmp(s, "--no-perfd")) {
            perfd = NULL;
        } else if (!strcmp(s, "--no-threads")) {
            a.show_threads = 0;
        } else if (!strcmp(s, "--replay")) {
            files = argv + i + 1;
            nfiles = argc - i - 1;
            if (nfiles == 0) {
                fputs("pview: --replay needs at least one file\n", stderr);
                return 1;
            }
            break;
        } else if (s[0] == '\\' && s[1] == '\\') {
            host = s + 2;
        } else {
            fprintf(stderr, "pview: unknown argument \"%s\" (pview -h for help)\n", s);
            return 1;
        }
    }
    pv_source src;
    pl_error err = {0};
    char why[300] = "";
    int rc = files     ? pv_source_blocks(&src, files, nfiles, &err)
             : logfile ? pv_source_log(&src, logfile, &err)
             : host    ? pv_source_remote(&src, host, &err)
                       : pv_source_local_cheapest(&src, perfd, why, sizeof why, &err);
    if (rc != PL_OK) {
        fprintf(stderr, "pview: %s\n", err.msg[0] ? err.msg : pl_strerror(rc));
        return 2;
    }
    if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO)) {
        fputs("pview: needs a terminal (stdin and stdout)\n", stderr);
        pv_source_close(&src);
        return 3;
    }
    a.src = &src;
    a.trace = getenv("PERFLIB_PVIEW_TRACE");
    if (why[0]) snprintf(a.status, sizeof a.status, " source: %.240s", why);
    pv_model_init(&a.model);
    /* Ctrl-C, SIGTERM and a closed terminal end pview between two
     * collections, never inside one: a consumer that dies during a
     * provider's Collect is taken for a crash by the next one. */
    signal(SIGINT, on_term);
    signal(SIGTERM, on_term);
    signal(SIGHUP, on_term);
    if (pv_ui_start() != 0) {
        fputs("pview: cannot start the terminal (TERM?)\n", stderr);
        pv_source_close(&src);
        return 3;
    }
    double next = 0;
    while (!a.quit && !g_term) {
        double t = now_s();
        if (!a.paused && !a.ended && (t >= next || (a.threads_due > 0 && t >= a.threads_due))) {
            refresh_data(&a);
            next = t + a.interval;
        }
        pv_ui_draw(&a);
        double until = a.threads_due > 0 && a.threads_due < next ? a.threads_due : next;
        double wait = a.paused || a.ended ? 1.0 : until - now_s();
        if (wait < 0) wait = 0;
        timeout((int)(wait * 1000) + 1);
        int ch = getch();
        if (ch != ERR) key(&a, ch);
        else if (pv_ui_terminal_gone()) break; /* no hang-up signal came: the reads fail */
        /* after a rate change, the next sample follows the new interval */
        if (ch == '+' || ch == '-') next = now_s() + a.interval;
    }
    pv_ui_stop();
    pv_memdetail_free(&a.mem);
    pv_model_free(&a.model);
    free(a.view);
    free(a.tview);
    pv_source_close(&src);
    return 0;
}
