#include "run_tool.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void slurp(const char *path, char *buf, size_t cap)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f) return;
    size_t n = fread(buf, 1, cap - 1, f);
    buf[n] = '\0';
    fclose(f);
}

void run_tool(const char *dir, const char *store, const char *const *argv, int out_mode, long uid, tool_run *r)
{
    char outp[600], errp[600], fullp[600];
    snprintf(outp, sizeof outp, "%s/tool.out", dir);
    snprintf(errp, sizeof errp, "%s/tool.err", dir);
    snprintf(fullp, sizeof fullp, "%s/full", dir);
    if (out_mode == OUT_FULL) {
        /* our own /dev/full: character device 1:7, in the test's directory */
        unlink(fullp);
        if (mknod(fullp, S_IFCHR | 0666, makedev(1, 7)) != 0) {
            perror("mknod full");
            r->code = -1;
            return;
        }
    }
    unlink(outp);
    unlink(errp);
    int64_t t0 = now_ms();
    pid_t pid = fork();
    if (pid == 0) {
        int e = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0666);
        int in = open("/dev/null", O_RDONLY);
        if (e < 0 || in < 0) _exit(99);
        if (uid >= 0) (void)fchown(e, (uid_t)uid, (gid_t)uid);
        int o = -1;
        if (out_mode == OUT_FILE) o = open(outp, O_WRONLY | O_CREAT | O_TRUNC, 0666);
        else if (out_mode == OUT_FULL) o = open(fullp, O_WRONLY);
        if (out_mode != OUT_CLOSED && o < 0) _exit(97);
        dup2(e, 2);
        dup2(in, 0);
        if (o >= 0) dup2(o, 1);
        else close(1);
        if (store) setenv("PERFLIB_REGISTRY", store, 1);
        if (uid >= 0 && (setgid((gid_t)uid) != 0 || setuid((uid_t)uid) != 0)) _exit(96);
        alarm(60);
        execv(argv[0], (char *const *)argv);
        _exit(98);
    }
    int st = 0;
    r->code = -1;
    if (pid > 0 && waitpid(pid, &st, 0) == pid)
        r->code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
    r->ms = now_ms() - t0;
    slurp(outp, r->out, sizeof r->out);
    slurp(errp, r->err, sizeof r->err);
}
