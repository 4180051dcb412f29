/* Helpers of the perflib-samba tests: running the tool and other programs,
 * reading tdb files back. */
#ifndef SAMBA_UTIL_H
#define SAMBA_UTIL_H

#include <stddef.h>
#include <sys/types.h>

#include "pq_run.h" /* pq_read_file */
#include "sb_layout.h"

/* Run argv (argv[0] a path) with stdout and stderr to those files (NULL:
 * /dev/null), killed after timeout_s; stdin from in_path when not NULL.
 * Returns its exit status, 128 + signal when killed, -1 when it could
 * not run. */
int run_cmd(char *const argv[], const char *in_path, const char *out_path, const char *err_path, int timeout_s);
/* Start argv in the background, dying with the test (PR_SET_PDEATHSIG). */
pid_t spawn_cmd(char *const argv[], const char *out_path, const char *err_path);
/* Wait for pid to exit within timeout_ms: its status as run_cmd, or -1. */
int wait_exit(pid_t pid, int timeout_ms);

/* Every record of a tdb file. 0, or -1 when it cannot be opened. */
int load_tdb(const char *path, sb_recs *out);
/* Replace the tdb file at path with one holding exactly r's records
 * (written beside it, then renamed). 0, or -1. */
int store_tdb(const char *path, const sb_recs *r);
/* One record's value as a NUL-terminated string (malloc), or NULL. */
char *tdb_value(const char *path, const char *key);

/* Sleep ms milliseconds. */
void sleep_ms(long ms);
/* CLOCK_MONOTONIC in milliseconds. */
long mono_ms(void);

#endif
