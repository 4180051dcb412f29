/* pview: private header of the terminal process viewer (docs/pview.md).
 * Not part of libperflib: the tool is built only on the public API. */
#ifndef PVIEW_H
#define PVIEW_H

#include <stddef.h>
#include <stdint.h>

#include "perflib/block.h"
#include "perflib/pdh.h"

/* Fill *err (may be NULL) with a status and a one-line message. */
void pv_err(pl_error *err, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ------------------------------------------------------------ sources */

/* Where snapshots come from: the local engine, a remote perfd (the
 * engine's "Foreign host" query), or saved raw blocks replayed in order.
 * src.collect() returns a whole PERF_DATA_BLOCK that the caller frees with
 * free(). */
typedef struct pv_source {
    pl_pdh_source src;
    char label[160];          /* "local", "\\host", "replay FILE..." */
    int local;                /* actions (end process, priority) are allowed */
    int replay;               /* recorded data: no live clock */
    struct pl_engine *engine; /* the local engine (closed with the source) */
} pv_source;

int pv_source_local(pv_source *s, pl_error *err);
/* The cheapest local source pview may use (docs/pview.md, "Sources"): the
 * local engine, unless its PerfProc reads /proc (no BPF source here) and a
 * perfd answers at perfd_addr (NULL: do not look) for less of pview's CPU
 * than its own collection; then that perfd. *why says which and why. */
int pv_source_local_cheapest(pv_source *s, const char *perfd_addr, char *why, size_t cap, pl_error *err);
/* host: "name", "name:port", "[v6]:port" as the engine's Foreign takes it. */
int pv_source_remote(pv_source *s, const char *host, pl_error *err);
/* Raw blocks saved by `perfquery --raw FILE QUERY`, one per sample, replayed
 * in order (then PL_E_NO_DATA: the end); a "Costly" query answers from the first
 * file that holds Image or Process Address Space. */
int pv_source_blocks(pv_source *s, char **files, int n, pl_error *err);
/* A binary counter log of whole blocks (typeperf -f BIN), one record per
 * refresh, then PL_E_NO_DATA. */
int pv_source_log(pv_source *s, const char *path, pl_error *err);
void pv_source_close(pv_source *s);

/* -------------------------------------------------------------- model */

/* A value that could not be computed (first sample, unavailable counter,
 * identity change) is NaN and drawn blank. */
typedef struct pv_proc {
    uint32_t pid, ppid;
    int64_t start;            /* FILETIME: identity together with pid */
    char name[64];
    int special;              /* 1 Idle, 2 _Total */
    int32_t position;         /* in the Process object of this sample */
    double cpu, user, priv;   /* % of one processor */
    double ws, private_bytes, virtual_bytes; /* bytes */
    double threads, handles, prio, nice;
    double elapsed;           /* seconds */
    double faults;            /* per second */
    double io;                /* bytes per second */
} pv_proc;

typedef struct pv_thread {
    uint32_t pid, tid;
    int64_t start;
    int32_t parent;           /* the parent's position in the Process object */
    double cpu, user, priv, cswitch;
    double state, wait_reason, prio_cur, prio_base;
    double start_address;     /* NaN: Linux does not report one */
} pv_thread;

/* Raw values kept from the previous sample for the rates (model.c). */
typedef struct pv_praw pv_praw;
typedef struct pv_traw pv_traw;

typedef struct pv_model {
    pv_proc *procs;           /* this sample's rows, block order */
    size_t nprocs;
    pv_thread *threads;       /* every thread of the sample, block order */
    size_t nthreads;
    int have_threads;         /* the sample carried the Thread object */
    char machine[256];
    int64_t time;             /* sample time, FILETIME UTC */
    uint64_t samples;
    /* private: double buffers (the rows of a failed update stay), and the
     * raws of the last sample that had each object, sorted for look-up */
    pv_proc *procs_b;
    pv_thread *threads_b;
    size_t cap_procs, cap_procs_b, cap_threads, cap_threads_b;
    pv_praw *praw, *praw_b;
    size_t npraw, cap_praw, cap_praw_b;
    pv_traw *traw, *traw_b;
    size_t ntraw, cap_traw, cap_traw_b;
} pv_model;

void pv_model_init(pv_model *m);
void pv_model_free(pv_model *m);
/* Take one snapshot (a block with Process, and Thread when with_threads).
 * On error the model keeps its previous rows and *err says why. */
int pv_model_update(pv_model *m, const void *block, size_t len, pl_error *err);

/* The memory detail of one process, from the costly objects. */
typedef struct pv_mem_row {
    char name[96];
    double bytes[8];          /* No Access, Read Only, Read/Write, Write Copy,
                                 Executable, Exec Read Only, Exec Read/Write,
                                 Exec Write Copy */
    double total;
} pv_mem_row;

typedef struct pv_memdetail {
    pv_mem_row space[3];      /* Image, Mapped, Reserved (Process Address Space) */
    int have_space;
    pv_mem_row *images;       /* Image instances of the process */
    size_t nimages;
    double resident, private_resident;
} pv_memdetail;

int pv_memdetail_read(const void *block, size_t len, uint32_t pid, int64_t start, pv_memdetail *out,
                      pl_error *err);
void pv_memdetail_free(pv_memdetail *md);

/* ------------------------------------------------------------ columns */

enum pv_pcol {
    PC_NAME, PC_PID, PC_CPU, PC_USER, PC_PRIV, PC_WS, PC_PRIVATE, PC_VIRTUAL, PC_THREADS, PC_HANDLES, PC_PRIO,
    PC_ELAPSED, PC_FAULTS, PC_IO, PC_COUNT
};

/* Sort rows: Idle first... no: by column, _Total always last. */
void pv_sort(pv_proc *p, size_t n, int col, int descending);
int pv_name_matches(const char *name, const char *filter);

/* Number formats (fixed width, right aligned into buf of at least w+1). */
void pv_fmt_bytes(char *buf, size_t cap, double v);
void pv_fmt_pct(char *buf, size_t cap, double v);
void pv_fmt_num(char *buf, size_t cap, double v);
void pv_fmt_rate(char *buf, size_t cap, double v);
void pv_fmt_elapsed(char *buf, size_t cap, double seconds);

const char *pv_thread_state(double s);
const char *pv_wait_reason(double r);

/* ---------------------------------------------------------------- app */

enum pv_mode { PV_MAIN, PV_HELP, PV_MEMORY };

/* The memory detail's query: Image and Process Address Space, which bring
 * their parent Process (Image instances name it), so images are matched to
 * the process by its ID Process. "Costly" alone has no Process object. */
#define PV_MEMORY_QUERY "740 786"

typedef struct pv_app {
    pv_source *src;
    pv_model model;
    pv_proc *view;            /* filtered and sorted rows; _Total last */
    size_t nview, cap_view;
    pv_thread **tview;        /* threads of the selected process */
    size_t ntview, cap_tview;
    int sort_col, sort_desc;
    char filter[64];
    uint32_t sel_pid;         /* the selected process: pid and start time */
    int64_t sel_start;
    size_t sel, top;          /* process pane: selected row, first row shown */
    int user_moved;           /* until the user moves, the top row is selected */
    size_t tsel, ttop;        /* thread pane */
    int focus;                /* 0 processes, 1 threads */
    int hscroll;              /* process columns scrolled off to the left */
    int show_threads;
    double interval;          /* seconds */
    int paused, ended;
    enum pv_mode mode;
    pv_memdetail mem;
    uint32_t mem_pid;
    char mem_name[64];
    size_t mem_top;
    char status[256];         /* the last message for the footer */
    int status_error;
    int status_source;        /* about the data source: cleared when it answers again;
                                 any other message stays until the next key */
    double last_collect_ms;
    int quit;
    /* threads are read for the selected process only ("230 232 pid=N") */
    int no_pid_filter;        /* the source answered no Process to it (an older perfd): all threads */
    int have_threads_pid;     /* the model holds the threads of threads_pid */
    uint32_t threads_pid;
    double threads_due;       /* > 0: read the newly selected process's threads at this time */
    const char *trace;        /* test hook $PERFLIB_PVIEW_TRACE: every data query appended to this file */
} pv_app;

/* ui.c */
int pv_ui_start(void);
void pv_ui_stop(void);
void pv_ui_draw(pv_app *a);
/* A one-line prompt in the footer: returns 1 with the text, 0 when
 * cancelled (Esc), or when pview must end (a stop signal, the terminal
 * gone: then a->quit is set). */
int pv_ui_prompt(pv_app *a, const char *question, char *out, size_t cap);
/* 1 when the terminal has gone away (hang-up or error on stdin). */
int pv_ui_terminal_gone(void);
/* main.c: 1 once SIGINT, SIGTERM or SIGHUP asked pview to end. */
int pv_stop_requested(void);
/* Rebuild view/tview from the model (filter, sort, selection kept by pid). */
void pv_app_rebuild(pv_app *a);

/* actions.c: each returns 0 and a message, or -1 and the reason; a refused
 * action changes nothing. */
int pv_end_process(pv_app *a, const pv_proc *p, int sig, char *msg, size_t cap);
/* 1 and the reason when no action may touch p here (a remote or recorded
 * source, _Total, Idle): asked before the user is asked to confirm. */
int pv_action_refused(const pv_app *a, const pv_proc *p, char *msg, size_t cap);
int pv_set_priority(pv_app *a, const pv_proc *p, int nice_value, char *msg, size_t cap);

#endif
