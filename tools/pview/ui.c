/* pview: drawing with ncurses. Works at 80x24 and on an 8-colour console
 * (TERM=linux): colours only mark the title, headers and the footer, and
 * every distinction also shows without colour (reverse video, bold). */
#include <curses.h>
#include <locale.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pview.h"

enum { CP_TITLE = 1, CP_HEADER, CP_FOOTER, CP_ERROR, CP_TOTAL };

int pv_ui_start(void)
{
    setlocale(LC_ALL, "");
    if (!initscr()) return -1;
    cbreak();
    noecho();
    keypad(stdscr, TRUE);
    curs_set(0);
    if (has_colors()) {
        start_color();
        use_default_colors();
        init_pair(CP_TITLE, COLOR_WHITE, COLOR_BLUE);
        init_pair(CP_HEADER, COLOR_BLACK, COLOR_CYAN);
        init_pair(CP_FOOTER, COLOR_BLACK, COLOR_CYAN);
        init_pair(CP_ERROR, COLOR_WHITE, COLOR_RED);
        init_pair(CP_TOTAL, COLOR_YELLOW, -1);
    }
    return 0;
}

void pv_ui_stop(void)
{
    endwin();
}

static attr_t pair(int p, attr_t fallback)
{
    return has_colors() ? (attr_t)COLOR_PAIR(p) : fallback;
}

/* Bytes of the first `cols` characters of a UTF-8 string. */
static size_t fit(const char *s, int cols)
{
    size_t i = 0;
    for (int c = 0; s[i] && c < cols; c++) {
        i++;
        while ((s[i] & 0xC0) == 0x80) i++;
    }
    return i;
}

/* A cell: text left (left=1) or right aligned in `w` columns, then a space. */
static void cell(int y, int *x, int maxx, const char *text, int w, int left)
{
    if (*x >= maxx) return;
    int room = maxx - *x;
    if (w > room) {
        /* a number cut short would be a wrong number: leave the column off
         * (Left/Right scroll to it); a name may be cut */
        if (!left) {
            for (int i = 0; i < room; i++) mvaddch(y, *x + i, ' ');
            *x = maxx;
            return;
        }
        w = room;
    }
    size_t n = fit(text, w);
    int len = 0;
    for (size_t i = 0; i < n; i++)
        if ((text[i] & 0xC0) != 0x80) len++;
    if (left) {
        mvaddnstr(y, *x, text, (int)n);
        for (int i = len; i < w; i++) mvaddch(y, *x + i, ' ');
    } else {
        for (int i = 0; i < w - len; i++) mvaddch(y, *x + i, ' ');
        mvaddnstr(y, *x + w - len, text, (int)n);
    }
    *x += w;
    if (*x < maxx) mvaddch(y, (*x)++, ' ');
}

typedef struct pcol {
    const char *title;
    int width;
} pcol;

/* Each width holds its title and the sort marker after it. */
static const pcol pcols[PC_COUNT] = {
    {"Name", 15},  {"PID", 7},      {"CPU%", 5},    {"User%", 6},   {"Priv%", 6},
    {"WorkSet", 8}, {"Private", 8}, {"Virtual", 8}, {"Thr", 4},     {"Hnd", 5},
    {"Pri", 4},    {"Elapsed", 11}, {"Flt/s", 6},   {"IO B/s", 7},
};

static void proc_cell(const pv_proc *p, int col, char *buf, size_t cap)
{
    switch (col) {
    case PC_NAME: snprintf(buf, cap, "%s", p->name); break;
    case PC_PID:
        if (p->special == 2) buf[0] = 0;
        else snprintf(buf, cap, "%u", p->pid);
        break;
    case PC_CPU: pv_fmt_pct(buf, cap, p->cpu); break;
    case PC_USER: pv_fmt_pct(buf, cap, p->user); break;
    case PC_PRIV: pv_fmt_pct(buf, cap, p->priv); break;
    case PC_WS: pv_fmt_bytes(buf, cap, p->ws); break;
    case PC_PRIVATE: pv_fmt_bytes(buf, cap, p->private_bytes); break;
    case PC_VIRTUAL: pv_fmt_bytes(buf, cap, p->virtual_bytes); break;
    case PC_THREADS: pv_fmt_num(buf, cap, p->threads); break;
    case PC_HANDLES: pv_fmt_num(buf, cap, p->handles); break;
    case PC_PRIO: pv_fmt_num(buf, cap, p->special ? NAN : p->prio); break;
    case PC_ELAPSED: pv_fmt_elapsed(buf, cap, p->elapsed); break;
    case PC_FAULTS: pv_fmt_rate(buf, cap, p->faults); break;
    case PC_IO: pv_fmt_rate(buf, cap, p->io); break;
    default: buf[0] = 0;
    }
}

/* Name and PID always; the other columns from hscroll on. */
static void proc_line(pv_app *a, int y, int maxx, const pv_proc *p, int header)
{
    int x = 0;
    char buf[64];
    for (int col = 0; col < PC_COUNT; col++) {
        if (col > PC_PID && col < PC_PID + 1 + a->hscroll) continue;
        if (header) {
            snprintf(buf, sizeof buf, "%s%s", pcols[col].title,
                     col == a->sort_col ? (a->sort_desc ? "v" : "^") : "");
        } else {
            proc_cell(p, col, buf, sizeof buf);
        }
        cell(y, &x, maxx, buf, pcols[col].width, col == PC_NAME);
    }
    for (; x < maxx; x++) mvaddch(y, x, ' ');
}

static const pcol tcols[] = {
    {"TID", 8},   {"CPU%", 5}, {"User%", 5}, {"Priv%", 5}, {"State", 7},
    {"Wait reason", 12}, {"Cur", 3}, {"Base", 4}, {"Ctx/s", 7}, {"Start address", 13},
};
#define NTCOLS ((int)(sizeof tcols / sizeof tcols[0]))

static void thread_line(int y, int maxx, const pv_thread *t)
{
    int x = 0;
    char buf[64];
    for (int col = 0; col < NTCOLS; col++) {
        if (!t) {
            snprintf(buf, sizeof buf, "%s", tcols[col].title);
        } else {
            switch (col) {
            case 0: snprintf(buf, sizeof buf, "%u", t->tid); break;
            case 1: pv_fmt_pct(buf, sizeof buf, t->cpu); break;
            case 2: pv_fmt_pct(buf, sizeof buf, t->user); break;
            case 3: pv_fmt_pct(buf, sizeof buf, t->priv); break;
            case 4: snprintf(buf, sizeof buf, "%s", pv_thread_state(t->state)); break;
            case 5:
                snprintf(buf, sizeof buf, "%s", t->state == 5 ? pv_wait_reason(t->wait_reason) : "");
                break;
            case 6: pv_fmt_num(buf, sizeof buf, t->prio_cur); break;
            case 7: pv_fmt_num(buf, sizeof buf, t->prio_base); break;
            case 8: pv_fmt_rate(buf, sizeof buf, t->cswitch); break;
            default:
                if (isnan(t->start_address)) snprintf(buf, sizeof buf, "n/a");
                else snprintf(buf, sizeof buf, "%#llx", (unsigned long long)t->start_address);
            }
        }
        cell(y, &x, maxx, buf, tcols[col].width, col >= 4 && col <= 5);
    }
    for (; x < maxx; x++) mvaddch(y, x, ' ');
}

static void fill_line(int y, int maxx, attr_t at, const char *text)
{
    attron(at);
    mvhline(y, 0, ' ', maxx);
    mvaddnstr(y, 0, text, (int)fit(text, maxx));
    attroff(at);
}

static void title(pv_app *a, int maxx)
{
    char when[32] = "";
    if (a->model.time > 0) {
        time_t t = (time_t)(a->model.time / 10000000 - 11644473600LL);
        struct tm tm;
        if (localtime_r(&t, &tm)) strftime(when, sizeof when, "%H:%M:%S", &tm);
    }
    char line[1024]; /* room for every part at its longest; fill_line cuts it to the screen */
    size_t nproc = 0;
    double nthr = NAN;
    for (size_t i = 0; i < a->model.nprocs; i++) {
        if (a->model.procs[i].special == 2) nthr = a->model.procs[i].threads;
        else if (!a->model.procs[i].special) nproc++;
    }
    char thr[32];
    pv_fmt_num(thr, sizeof thr, nthr);
    snprintf(line, sizeof line, " pview  %s  %s%s  Processes: %zu  Threads: %s  every %.1fs  %s", a->model.machine,
             when, a->ended ? "  [END]" : a->paused ? "  [PAUSED]" : "", nproc, thr[0] ? thr : "n/a", a->interval,
             a->src->label);
    fill_line(0, maxx, pair(CP_TITLE, A_REVERSE) | A_BOLD, line);
}

static void footer(pv_app *a, int y, int maxx)
{
    if (a->status[0]) {
        fill_line(y, maxx, a->status_error ? pair(CP_ERROR, A_REVERSE | A_BOLD) : pair(CP_FOOTER, A_REVERSE),
                  a->status);
        return;
    }
    /* the keys that fit, most needed first: help and quit always */
    static const char *const main_keys[] = {"h help", "q quit", "</> sort", "/ filter", "k end", "p priority",
                                            "m memory", "t threads", "space pause", "+/- rate"};
    static const char *const mem_keys[] = {"Esc/m back", "q quit", "Up/Down scroll"};
    const char *const *k = a->mode == PV_MEMORY ? mem_keys : main_keys;
    size_t nk = a->mode == PV_MEMORY ? sizeof mem_keys / sizeof *mem_keys : sizeof main_keys / sizeof *main_keys;
    char line[256];
    size_t len = 0;
    line[0] = 0;
    for (size_t i = 0; i < nk; i++) {
        size_t w = strlen(k[i]) + 2;
        if (i > 1 && len + w > (size_t)maxx) break;
        if (len + w < sizeof line) len += (size_t)snprintf(line + len, sizeof line - len, " %s ", k[i]);
    }
    fill_line(y, maxx, pair(CP_FOOTER, A_REVERSE), line);
}

static void draw_help(int maxy, int maxx)
{
    static const char *lines[] = {
        "pview: processes and threads, from perflib's Process and Thread objects",
        "",
        "  Up/Down PgUp/PgDn Home/End  move the selection (Tab: process or thread pane)",
        "  Left/Right                  scroll the process columns",
        "  < >                         sort by the column left/right of the current one",
        "  r                           reverse the sort order",
        "  /                           filter processes by name (empty: all)",
        "  k / K                       end the selected process (SIGTERM / SIGKILL), asks first",
        "  p                           set the selected process's priority (nice -20..19)",
        "  m                           memory detail (Image, Process Address Space)",
        "  t                           show or hide the thread pane",
        "  space                       pause or resume",
        "  + / -                       refresh less or more often",
        "  h ? F1                      this help",
        "  q F10                       quit",
        "",
        "Blank cells: no value yet (first sample), not available, or the process",
        "changed identity between two samples. Rates are per second over the last",
        "interval; CPU% is of one processor (a busy 4-thread process can show 400).",
        "IO B/s: read/write calls on files, pipes, sockets; Linux counts no send/recv.",
        "",
        "Press any key to return.",
    };
    erase();
    fill_line(0, maxx, pair(CP_TITLE, A_REVERSE) | A_BOLD, " pview help");
    for (int i = 0; i < (int)(sizeof lines / sizeof lines[0]) && i + 2 < maxy; i++)
        mvaddnstr(i + 2, 0, lines[i], (int)fit(lines[i], maxx));
}

static void draw_memory(pv_app *a, int maxy, int maxx)
{
    static const char *prot[8] = {"NoAcc", "RO", "RW", "WCopy", "Exec", "ExRO", "ExRW", "ExWC"};
    erase();
    char line[256];
    snprintf(line, sizeof line, " Memory detail: %s (%u)", a->mem_name, a->mem_pid);
    fill_line(0, maxx, pair(CP_TITLE, A_REVERSE) | A_BOLD, line);
    int y = 2, x = 0;
    attron(pair(CP_HEADER, A_REVERSE));
    cell(1, &x, maxx, "", 16, 1);
    for (int k = 0; k < 8; k++) cell(1, &x, maxx, prot[k], 6, 0);
    cell(1, &x, maxx, "Total", 7, 0);
    for (; x < maxx; x++) mvaddch(1, x, ' ');
    attroff(pair(CP_HEADER, A_REVERSE));
    char buf[32];
    for (int g = 0; g < 3 && a->mem.have_space; g++, y++) {
        x = 0;
        snprintf(line, sizeof line, "%s Space", a->mem.space[g].name);
        cell(y, &x, maxx, line, 16, 1);
        for (int k = 0; k < 8; k++) {
            pv_fmt_bytes(buf, sizeof buf, a->mem.space[g].bytes[k]);
            cell(y, &x, maxx, buf, 6, 0);
        }
        pv_fmt_bytes(buf, sizeof buf, a->mem.space[g].total);
        cell(y, &x, maxx, buf, 7, 0);
    }
    if (a->mem.have_space) {
        char r1[32], r2[32];
        pv_fmt_bytes(r1, sizeof r1, a->mem.resident);
        pv_fmt_bytes(r2, sizeof r2, a->mem.private_resident);
        snprintf(line, sizeof line, "Resident %s, private resident %s", r1[0] ? r1 : "n/a", r2[0] ? r2 : "n/a");
        mvaddnstr(y++, 0, line, maxx);
    }
    y++;
    if (y < maxy - 1) {
        snprintf(line, sizeof line, " Images (%zu)", a->mem.nimages);
        fill_line(y++, maxx, pair(CP_HEADER, A_REVERSE), line);
    }
    size_t rows = y < maxy - 1 ? (size_t)(maxy - 1 - y) : 0;
    if (a->mem_top + rows > a->mem.nimages)
        a->mem_top = a->mem.nimages > rows ? a->mem.nimages - rows : 0;
    for (size_t i = a->mem_top; i < a->mem.nimages && y < maxy - 1; i++, y++) {
        x = 0;
        cell(y, &x, maxx, a->mem.images[i].name, 16, 1);
        for (int k = 0; k < 8; k++) {
            pv_fmt_bytes(buf, sizeof buf, a->mem.images[i].bytes[k]);
            cell(y, &x, maxx, buf, 6, 0);
        }
        pv_fmt_bytes(buf, sizeof buf, a->mem.images[i].total);
        cell(y, &x, maxx, buf, 7, 0);
    }
    footer(a, maxy - 1, maxx);
}

/* Keep `sel` visible in a pane of `rows` rows starting at `*top`. */
static void scroll_to(size_t sel, size_t n, size_t rows, size_t *top)
{
    if (rows == 0) return;
    if (sel < *top) *top = sel;
    if (sel >= *top + rows) *top = sel - rows + 1;
    if (*top + rows > n) *top = n > rows ? n - rows : 0;
}

void pv_ui_draw(pv_app *a)
{
    int maxy, maxx;
    getmaxyx(stdscr, maxy, maxx);
    if (maxy < 8 || maxx < 30) {
        erase();
        mvaddnstr(0, 0, "pview: window too small", maxx);
        refresh();
        return;
    }
    if (a->mode == PV_HELP) {
        draw_help(maxy, maxx);
        refresh();
        return;
    }
    if (a->mode == PV_MEMORY) {
        draw_memory(a, maxy, maxx);
        refresh();
        return;
    }
    erase();
    title(a, maxx);
    /* rows: title, proc header, procs (incl. _Total pinned last), [thread
     * title, thread header, threads], footer */
    int avail = maxy - 3;
    int thr_rows = 0;
    if (a->show_threads) {
        thr_rows = avail * 2 / 5 - 2;
        if (thr_rows < 2) thr_rows = 0;
    }
    int proc_rows = avail - (thr_rows ? thr_rows + 2 : 0);
    attron(pair(CP_HEADER, A_REVERSE));
    proc_line(a, 1, maxx, NULL, 1);
    attroff(pair(CP_HEADER, A_REVERSE));
    /* the last view row is _Total when present: pinned to the pane's bottom */
    int has_total = a->nview && a->view[a->nview - 1].special == 2;
    size_t body = a->nview - (has_total ? 1 : 0);
    size_t rows = (size_t)(proc_rows - (has_total ? 1 : 0));
    size_t sel = a->sel < body ? a->sel : (body ? body - 1 : 0);
    scroll_to(sel, body, rows, &a->top);
    int y = 2;
    for (size_t i = a->top; i < body && y < 2 + (int)rows; i++, y++) {
        int selected = i == sel;
        attr_t at = selected ? (a->focus == 0 ? A_REVERSE : A_BOLD | A_UNDERLINE) : 0;
        if (at) attron(at);
        proc_line(a, y, maxx, &a->view[i], 0);
        if (at) attroff(at);
    }
    if (has_total) {
        attron(A_BOLD | pair(CP_TOTAL, 0));
        proc_line(a, 2 + proc_rows - 1, maxx, &a->view[a->nview - 1], 0);
        attroff(A_BOLD | pair(CP_TOTAL, 0));
    }
    if (thr_rows) {
        int ty = 2 + proc_rows;
        char line[256];
        const pv_proc *p = body ? &a->view[sel] : NULL;
        if (p)
            snprintf(line, sizeof line, " Threads of %s (%u): %zu%s", p->name, p->pid, a->ntview,
                     !a->model.have_threads ? "  (not collected)"
                     : !a->src->replay && !a->no_pid_filter && (!a->have_threads_pid || a->threads_pid != p->pid)
                         ? "  (reading)"
                         : "");
        else
            snprintf(line, sizeof line, " Threads");
        fill_line(ty, maxx, pair(CP_TITLE, A_REVERSE), line);
        attron(pair(CP_HEADER, A_REVERSE));
        thread_line(ty + 1, maxx, NULL);
        attroff(pair(CP_HEADER, A_REVERSE));
        size_t tsel = a->tsel < a->ntview ? a->tsel : (a->ntview ? a->ntview - 1 : 0);
        scroll_to(tsel, a->ntview, (size_t)thr_rows, &a->ttop);
        y = ty + 2;
        for (size_t i = a->ttop; i < a->ntview && y < ty + 2 + thr_rows; i++, y++) {
            attr_t at = (a->focus == 1 && i == tsel) ? A_REVERSE : 0;
            if (at) attron(at);
            thread_line(y, maxx, a->tview[i]);
            if (at) attroff(at);
        }
    }
    footer(a, maxy - 1, maxx);
    refresh();
}

int pv_ui_terminal_gone(void)
{
    struct pollfd p = {.fd = STDIN_FILENO, .events = POLLIN};
    return poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLERR | POLLNVAL));
}

int pv_ui_prompt(pv_app *a, const char *question, char *out, size_t cap)
{
    int maxy, maxx;
    size_t n = 0;
    out[0] = 0;
    curs_set(1);
    /* Not a blocking read: a stop signal must be seen while the user
     * types, and a terminal that went away makes every read fail at once
     * (without the check, an endless loop at 100 % CPU). */
    timeout(250);
    for (;;) {
        getmaxyx(stdscr, maxy, maxx);
        char line[512];
        snprintf(line, sizeof line, " %s %s", question, out);
        fill_line(maxy - 1, maxx, pair(CP_FOOTER, A_REVERSE), line);
        move(maxy - 1, (int)strlen(line) < maxx ? (int)strlen(line) : maxx - 1);
        refresh();
        int ch = getch();
        if (ch == ERR) {
            if (pv_stop_requested() || pv_ui_terminal_gone()) {
                out[0] = 0;
                a->quit = 1;
                curs_set(0);
                return 0;
            }
            continue;
        }
        if (ch == 27) {
            out[0] = 0;
            curs_set(0);
            return 0;
        }
        if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) break;
        if (ch == KEY_RESIZE) {
            pv_ui_draw(a);
            continue;
        }
        if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && n > 0) {
            out[--n] = 0;
            continue;
        }
        if (ch >= 32 && ch < 256 && ch != 127 && n + 1 < cap) {
            out[n++] = (char)ch;
            out[n] = 0;
        }
    }
    curs_set(0);
    return 1;
}
