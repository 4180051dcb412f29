/* Helpers for perfd's tests: run the real perfd binary on 127.0.0.1 with
 * an ephemeral port, and talk HTTP to it over plain sockets with bounded
 * waits. */
#ifndef PD_UTIL_H
#define PD_UTIL_H

#include <stddef.h>
#include <sys/types.h>

typedef struct pd_proc {
    pid_t pid;
    unsigned port;       /* the first listening port perfd reported */
    char log[4300];      /* perfd's stderr goes to this file */
    char *dir;           /* temp directory for the log (and the test's files) */
} pd_proc;

/* Start perfd with args (NULL-terminated; "--listen 127.0.0.1:0" is added
 * when no --listen is given) and env additions. Waits (at most 15 s) for
 * "listening on"; returns 0, or -1 after printing why (perfd's log). */
int pd_start(pd_proc *p, const char *const *args, const char *const *env);
/* SIGTERM and wait (at most 10 s, then SIGKILL). Returns the exit status
 * (128 + signal when killed). Removes the temp directory. */
int pd_stop(pd_proc *p);
/* perfd's log so far (free()). */
char *pd_log(const pd_proc *p);
/* Run perfd to completion (for refusals); returns exit code, *err = stderr. */
int pd_run(const char *const *args, char **err, int timeout_ms);

typedef struct pd_resp {
    int status;          /* HTTP status, or -1 when no answer */
    char *headers;       /* raw header block, NUL-terminated */
    unsigned char *body;
    size_t body_len;
} pd_resp;

/* Connect to ip:port (source address src when not NULL); -1 on failure. */
int pd_connect(const char *ip, unsigned port, const char *src);
/* A listening socket on 127.0.0.1 at an ephemeral port that accepts
 * nothing by itself (connections wait in its backlog): a machine that
 * never answers, or one whose door the test watches. fd, or -1. */
int pd_listener(unsigned *port);
/* GET path (with "Connection: close" and extra header lines, "" for
 * none); reads the whole answer within timeout_ms. 0 or -1. */
int pd_get(unsigned port, const char *path, const char *extra, pd_resp *r, int timeout_ms);
/* Send raw bytes on a new connection and read the answer until EOF. */
int pd_raw(unsigned port, const char *req, size_t len, pd_resp *r, int timeout_ms);
/* Read everything from fd until EOF or timeout into r (parses it). */
int pd_read_resp(int fd, pd_resp *r, int timeout_ms);
void pd_resp_free(pd_resp *r);
/* Value of a response header (case-insensitive name), copied into out. */
int pd_header(const pd_resp *r, const char *name, char *out, size_t len);
/* Wait until the peer closes fd (read returns 0 or an error); returns the
 * milliseconds it took, or -1 when still open after timeout_ms. */
long pd_wait_closed(int fd, int timeout_ms);
long pd_now_ms(void);
/* A TCP port free on 127.0.0.1 now (bound and released), or 0. */
unsigned pd_free_port(void);

#endif
