/* See pq_run.h. */
#include "pq_run.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static int append(char **buf, size_t *len, size_t *cap, const char *data, size_t n)
{
    if (*len + n + 1 > *cap) {
        size_t nc = (*cap ? *cap : 1024);
        while (nc < *len + n + 1) nc *= 2;
        char *nb = realloc(*buf, nc);
        if (!nb) return -1;
        *buf = nb;
        *cap = nc;
    }
    memcpy(*buf + *len, data, n);
    *len += n;
    (*buf)[*len] = '\0';
    return 0;
}

int pq_run(const char *const *argv, const char *const *env, pq_result *r)
{
    memset(r, 0, sizeof *r);
    size_t nenv = 0, nextra = 0;
    while (environ[nenv]) nenv++;
    while (env && env[nextra]) nextra++;
    char **envp = calloc(nenv + nextra + 1, sizeof *envp);
    if (!envp) return -1;
    size_t k = 0;
    for (size_t i = 0; i < nenv; i++) {
        /* An extra "NAME=..." replaces the inherited NAME. */
        int replaced = 0;
        for (size_t j = 0; j < nextra; j++) {
            const char *eq = strchr(env[j], '=');
            size_t nl = eq ? (size_t)(eq - env[j]) : strlen(env[j]);
            if (strncmp(environ[i], env[j], nl) == 0 && environ[i][nl] == '=') replaced = 1;
        }
        if (!replaced) envp[k++] = environ[i];
    }
    for (size_t j = 0; j < nextra; j++) envp[k++] = (char *)env[j];
    envp[k] = NULL;

    int po[2], pe[2];
    if (pipe(po) != 0) {
        free(envp);
        return -1;
    }
    if (pipe(pe) != 0) {
        close(po[0]);
        close(po[1]);
        free(envp);
        return -1;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, po[1], 1);
    posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
    posix_spawn_file_actions_addclose(&fa, po[0]);
    posix_spawn_file_actions_addclose(&fa, pe[0]);
    pid_t pid;
    int rc = posix_spawn(&pid, argv[0], &fa, NULL, (char *const *)argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    free(envp);
    close(po[1]);
    close(pe[1]);
    if (rc != 0) {
        close(po[0]);
        close(pe[0]);
        return -1;
    }
    size_t ocap = 0, ecap = 0;
    append(&r->out, &r->out_len, &ocap, "", 0);
    append(&r->err, &r->err_len, &ecap, "", 0);
    struct pollfd fds[2] = {{po[0], POLLIN, 0}, {pe[0], POLLIN, 0}};
    int open_fds = 2;
    while (open_fds > 0) {
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        for (int i = 0; i < 2; i++) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            char buf[4096];
            ssize_t n = read(fds[i].fd, buf, sizeof buf);
            if (n <= 0) {
                close(fds[i].fd);
                fds[i].fd = -1;
                open_fds--;
                continue;
            }
            if (i == 0)
                append(&r->out, &r->out_len, &ocap, buf, (size_t)n);
            else
                append(&r->err, &r->err_len, &ecap, buf, (size_t)n);
        }
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    r->exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
    return 0;
}

void pq_result_free(pq_result *r)
{
    free(r->out);
    free(r->err);
    memset(r, 0, sizeof *r);
}

char *pq_result_transcript(const pq_result *r)
{
    size_t n = r->out_len + r->err_len + 64;
    char *s = malloc(n);
    if (!s) return NULL;
    snprintf(s, n, "exit: %d\n--- stdout\n%s--- stderr\n%s", r->exit_code, r->out ? r->out : "",
             r->err ? r->err : "");
    return s;
}

char *pq_mkdtemp(void)
{
    const char *t = getenv("TMPDIR");
    if (!t || !*t) t = "/tmp";
    size_t n = strlen(t) + 32;
    char *p = malloc(n);
    if (!p) return NULL;
    snprintf(p, n, "%s/pltest.XXXXXX", t);
    if (!mkdtemp(p)) {
        free(p);
        return NULL;
    }
    return p;
}

void pq_rmdir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

char *pq_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (n < cap - 1) break;
        char *nb = realloc(buf, cap * 2);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    fclose(f);
    if (!buf) return NULL;
    buf[n] = '\0';
    if (len) *len = n;
    return buf;
}

int pq_write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t w = fwrite(data, 1, len, f);
    int rc = fclose(f);
    return (w == len && rc == 0) ? 0 : -1;
}

int pq_golden(const char *path, const char *actual)
{
    const char *upd = getenv("PL_UPDATE_GOLDEN");
    if (upd && strcmp(upd, "1") == 0) return pq_write_file(path, actual, strlen(actual));
    char *want = pq_read_file(path, NULL);
    if (want && strcmp(want, actual) == 0) {
        free(want);
        return 0;
    }
    fprintf(stderr, "golden mismatch: %s\n--- expected\n%s--- actual\n%s--- end\n", path, want ? want : "(missing)",
            actual);
    free(want);
    return -1;
}
