/* A real PostgreSQL server for a test (pl_test_pg.h). */
#include "pl_test_pg.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Run a shell command (bounded by timeout(1)); its exit status. */
static int sh(const char *cmd)
{
    int r = system(cmd);
    return r == -1 ? -1 : WIFEXITED(r) ? WEXITSTATUS(r) : 128;
}

static void tail(const char *file, char *why, size_t cap)
{
    size_t n = strlen(why);
    FILE *f = fopen(file, "r");
    if (!f || n + 2 >= cap) {
        if (f) fclose(f);
        return;
    }
    char buf[4096];
    size_t got = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[got] = '\0';
    const char *t = got > 600 ? buf + got - 600 : buf;
    snprintf(why + n, cap - n, ": %s", t);
}

/* The command prefix that runs as the server's owner. */
static void as_owner(char *out, size_t cap)
{
    if (geteuid() == 0) snprintf(out, cap, "runuser -u postgres --");
    else snprintf(out, cap, "env");
}

static void cleanup(const pl_test_pg *pg)
{
    char cmd[1024], run[64];
    as_owner(run, sizeof run);
    snprintf(cmd, sizeof cmd, "timeout 60 %s '%s/pg_ctl' -D '%s/data' -m immediate -w -t 30 stop >/dev/null 2>&1",
             run, pg->bindir, pg->dir);
    sh(cmd);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", pg->dir);
    sh(cmd);
}

int pl_test_pg_start(pl_test_pg *pg, char *why, size_t cap)
{
    memset(pg, 0, sizeof *pg);
    pg->guard = -1;
    pg->guard_fd = -1;
    why[0] = '\0';
    FILE *p = popen("pg_config --bindir 2>/dev/null", "r");
    if (p) {
        if (!fgets(pg->bindir, sizeof pg->bindir, p)) pg->bindir[0] = '\0';
        pclose(p);
    }
    pg->bindir[strcspn(pg->bindir, "\n")] = '\0';
    char initdb[300];
    snprintf(initdb, sizeof initdb, "%s/initdb", pg->bindir);
    if (!pg->bindir[0] || access(initdb, X_OK) != 0) {
        snprintf(why, cap, "PostgreSQL is not installed (no initdb in \"%s\"): scripts/deps.sh test installs it",
                 pg->bindir);
        return -1;
    }
    struct passwd *pw = geteuid() == 0 ? getpwnam("postgres") : NULL;
    if (geteuid() == 0 && !pw) {
        snprintf(why, cap, "running as root, but there is no user \"postgres\" to run the server as");
        return -1;
    }
    snprintf(pg->dir, sizeof pg->dir, "/tmp/pl_pg_%d_XXXXXX", (int)getpid());
    if (!mkdtemp(pg->dir)) {
        snprintf(why, cap, "mkdtemp: %s", strerror(errno));
        return -1;
    }
    if (pw && chown(pg->dir, pw->pw_uid, pw->pw_gid) != 0) {
        snprintf(why, cap, "chown %s: %s", pg->dir, strerror(errno));
        rmdir(pg->dir);
        return -1;
    }
    chmod(pg->dir, 0711);
    /* the guard: when the test process ends (pipe closed), stop and clean */
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        snprintf(why, cap, "pipe: %s", strerror(errno));
        rmdir(pg->dir);
        return -1;
    }
    pid_t g = fork();
    if (g == 0) {
        close(fds[1]);
        setsid();
        char c;
        while (read(fds[0], &c, 1) > 0) {}
        cleanup(pg);
        _exit(0);
    }
    close(fds[0]);
    pg->guard = g;
    pg->guard_fd = fds[1];
    char cmd[2048], run[64], log[160];
    as_owner(run, sizeof run);
    snprintf(cmd, sizeof cmd,
             "timeout 120 %s '%s/initdb' -D '%s/data' -A trust -U perflib -E UTF8 --locale=C --no-sync"
             " >'%s/initdb.log' 2>&1",
             run, pg->bindir, pg->dir, pg->dir);
    if (sh(cmd) != 0) {
        snprintf(why, cap, "initdb failed");
        snprintf(log, sizeof log, "%s/initdb.log", pg->dir);
        tail(log, why, cap);
        pl_test_pg_stop(pg);
        return -1;
    }
    snprintf(cmd, sizeof cmd,
             "timeout 120 %s '%s/pg_ctl' -D '%s/data' -l '%s/server.log' -w -t 90"
             " -o \"-k %s -c listen_addresses='' -p 5432\" start >/dev/null 2>&1",
             run, pg->bindir, pg->dir, pg->dir, pg->dir);
    if (sh(cmd) != 0) {
        snprintf(why, cap, "pg_ctl start failed");
        snprintf(log, sizeof log, "%s/server.log", pg->dir);
        tail(log, why, cap);
        pl_test_pg_stop(pg);
        return -1;
    }
    snprintf(pg->conninfo, sizeof pg->conninfo, "host=%s port=5432 user=perflib dbname=postgres", pg->dir);
    return 0;
}

void pl_test_pg_stop(pl_test_pg *pg)
{
    if (!pg || pg->guard <= 0) return;
    close(pg->guard_fd);
    int st;
    while (waitpid(pg->guard, &st, 0) < 0 && errno == EINTR) {}
    pg->guard = -1;
    pg->guard_fd = -1;
}
