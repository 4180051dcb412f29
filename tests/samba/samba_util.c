/* Helpers of the perflib-samba tests (samba_util.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <tdb.h>
#include <time.h>
#include <unistd.h>

#include "samba_util.h"

void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

long mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void redirect(int fd, const char *path, int flags)
{
    int f = open(path ? path : "/dev/null", flags, 0644);
    if (f < 0) _exit(126);
    if (f != fd) {
        dup2(f, fd);
        close(f);
    }
}

static pid_t start(char *const argv[], const char *in_path, const char *out_path, const char *err_path)
{
    pid_t pid = fork();
    if (pid != 0) return pid;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    redirect(0, in_path, O_RDONLY);
    redirect(1, out_path, O_WRONLY | O_CREAT | O_TRUNC);
    redirect(2, err_path, O_WRONLY | O_CREAT | O_TRUNC);
    execv(argv[0], argv);
    _exit(127);
}

int wait_exit(pid_t pid, int timeout_ms)
{
    long end = mono_ms() + timeout_ms;
    for (;;) {
        int st;
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid) return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        if (r < 0) return -1;
        if (mono_ms() >= end) return -1;
        sleep_ms(5);
    }
}

int run_cmd(char *const argv[], const char *in_path, const char *out_path, const char *err_path, int timeout_s)
{
    pid_t pid = start(argv, in_path, out_path, err_path);
    if (pid < 0) return -1;
    int rc = wait_exit(pid, timeout_s * 1000);
    if (rc == -1) {
        kill(pid, SIGKILL);
        int st;
        waitpid(pid, &st, 0);
        return 128 + SIGKILL;
    }
    return rc;
}

pid_t spawn_cmd(char *const argv[], const char *out_path, const char *err_path)
{
    return start(argv, NULL, out_path, err_path);
}

static int collect(TDB_CONTEXT *t, TDB_DATA k, TDB_DATA v, void *priv)
{
    (void)t;
    sb_recs *r = priv;
    if (r->n == r->cap) {
        size_t c = r->cap ? 2 * r->cap : 256;
        sb_rec *nv = realloc(r->v, c * sizeof *nv);
        if (!nv) return -1;
        r->v = nv;
        r->cap = c;
    }
    sb_rec *x = &r->v[r->n];
    x->key = malloc(k.dsize + 1);
    x->val = malloc(v.dsize ? v.dsize : 1);
    if (!x->key || !x->val) {
        free(x->key);
        free(x->val);
        return -1;
    }
    memcpy(x->key, k.dptr, k.dsize);
    x->key[k.dsize] = '\0';
    if (v.dsize) memcpy(x->val, v.dptr, v.dsize);
    x->vlen = v.dsize;
    r->n++;
    return 0;
}

int load_tdb(const char *path, sb_recs *out)
{
    memset(out, 0, sizeof *out);
    TDB_CONTEXT *t = tdb_open(path, 0, TDB_DEFAULT, O_RDONLY, 0);
    if (!t) return -1;
    int rc = tdb_traverse_read(t, collect, out) < 0 ? -1 : 0;
    tdb_close(t);
    return rc;
}

int store_tdb(const char *path, const sb_recs *r)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.test-new", path);
    unlink(tmp);
    TDB_CONTEXT *t = tdb_open(tmp, 0, TDB_DEFAULT, O_RDWR | O_CREAT | O_EXCL, 0644);
    if (!t) return -1;
    int rc = 0;
    for (size_t i = 0; i < r->n && rc == 0; i++) {
        TDB_DATA k = {.dptr = (unsigned char *)r->v[i].key, .dsize = strlen(r->v[i].key)};
        TDB_DATA v = {.dptr = r->v[i].val, .dsize = r->v[i].vlen};
        rc = tdb_store(t, k, v, TDB_REPLACE) == 0 ? 0 : -1;
    }
    if (tdb_close(t) != 0) rc = -1;
    if (rc == 0) rc = rename(tmp, path);
    if (rc != 0) unlink(tmp);
    return rc;
}

char *tdb_value(const char *path, const char *key)
{
    TDB_CONTEXT *t = tdb_open(path, 0, TDB_DEFAULT, O_RDONLY, 0);
    if (!t) return NULL;
    TDB_DATA k = {.dptr = (unsigned char *)key, .dsize = strlen(key)};
    TDB_DATA v = tdb_fetch(t, k);
    tdb_close(t);
    if (!v.dptr) return NULL;
    char *s = malloc(v.dsize + 1);
    if (s) {
        memcpy(s, v.dptr, v.dsize);
        s[v.dsize] = '\0';
    }
    free(v.dptr);
    return s;
}
