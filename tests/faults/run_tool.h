/* Running a perflib tool as a child for the fault tests: its stdout sent to
 * a file, /dev/full, or closed; its stderr captured; optionally as another
 * user; bounded in time. */
#ifndef PL_RUN_TOOL_H
#define PL_RUN_TOOL_H

#include <stddef.h>
#include <stdint.h>

enum { OUT_FILE, OUT_FULL, OUT_CLOSED };

typedef struct tool_run {
    int code;            /* exit status; 128 + signal when killed */
    int64_t ms;          /* how long it ran */
    char out[16384];     /* stdout (OUT_FILE) */
    char err[8192];      /* stderr */
} tool_run;

/* Run argv[0] with PERFLIB_REGISTRY=store (when not NULL), in `dir` (for
 * the captured files), stdout as `out_mode` (OUT_FULL: a device the test
 * made that answers every write with ENOSPC), as user `uid` when >= 0.
 * Killed after 60 s. */
void run_tool(const char *dir, const char *store, const char *const *argv, int out_mode, long uid, tool_run *r);
int64_t now_ms(void);

#endif
