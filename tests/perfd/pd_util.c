/* See pd_util.h. */
#include "pd_util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pq_run.h"

extern char **environ;

long pd_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

/* argv = PERFD_BIN args...; env = environ + extra. */
static pid_t spawn(const char *const *args, const char *const *env, int out_fd, int err_fd, int add_listen)
{
    const char *argv[64];
    size_t n = 0;
    argv[n++] = PERFD_BIN;
    int has_listen = 0;
    for (size_t i = 0; args && args[i] && n < 60; i++) {
        if (strcmp(args[i], "--listen") == 0) has_listen = 1;
        argv[n++] = args[i];
    }
    if (!has_listen && add_listen) {
        argv[n++] = "--listen";
        argv[n++] = "127.0.0.1:0";
    }
    argv[n] = NULL;
    size_t ne = 0;
    while (environ[ne]) ne++;
    size_t nx = 0;
    while (env && env[nx]) nx++;
    char **envp = calloc(ne + nx + 1, sizeof *envp);
    if (!envp) return -1;
    for (size_t i = 0; i < ne; i++) envp[i] = environ[i];
    for (size_t i = 0; i < nx; i++) envp[ne + i] = (char *)env[i];
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (out_fd >= 0) posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
    if (err_fd >= 0) posix_spawn_file_actions_adddup2(&fa, err_fd, 2);
    pid_t pid = -1;
    if (posix_spawn(&pid, PERFD_BIN, &fa, NULL, (char *const *)argv, envp) != 0) pid = -1;
    posix_spawn_file_actions_destroy(&fa);
    free(envp);
    return pid;
}

char *pd_log(const pd_proc *p)
{
    size_t len = 0;
    char *s = pq_read_file(p->log, &len);
    return s ? s : strdup("");
}

int pd_start(pd_proc *p, const char *const *args, const char *const *env)
{
    memset(p, 0, sizeof *p);
    p->dir = pq_mkdtemp();
    if (!p->dir) return -1;
    snprintf(p->log, sizeof p->log, "%s/perfd.log", p->dir);
    int fd = open(p->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return -1;
    p->pid = spawn(args, env, fd, fd, 1); /* never the test's stdout: ctest would wait for it */
    close(fd);
    if (p->pid < 0) {
        fprintf(stderr, "cannot start %s\n", PERFD_BIN);
        return -1;
    }
    long deadline = pd_now_ms() + 15000;
    while (pd_now_ms() < deadline) {
        char *log = pd_log(p);
        const char *m = strstr(log, "listening on http");
        if (m && strstr(m, "\n")) {
            const char *colon = strstr(m, "]:");
            if (!colon) colon = strchr(strstr(m, "://") + 3, ':');
            else colon++;
            p->port = (unsigned)strtoul(colon + 1, NULL, 10);
            if (strstr(log, "perfd: ready")) {
                free(log);
                return 0;
            }
        }
        int st;
        if (waitpid(p->pid, &st, WNOHANG) == p->pid) {
            fprintf(stderr, "perfd exited early (status %d):\n%s\n", st, log);
            free(log);
            p->pid = 0;
            return -1;
        }
        free(log);
        sleep_ms(20);
    }
    char *log = pd_log(p);
    fprintf(stderr, "perfd did not report listening within 15 s:\n%s\n", log);
    free(log);
    return -1;
}

int pd_stop(pd_proc *p)
{
    int code = -1;
    if (p->pid > 0) {
        kill(p->pid, SIGTERM);
        long deadline = pd_now_ms() + 10000;
        int st = 0;
        pid_t w = 0;
        while ((w = waitpid(p->pid, &st, WNOHANG)) == 0 && pd_now_ms() < deadline) sleep_ms(10);
        if (w == 0) {
            fprintf(stderr, "perfd did not stop within 10 s of SIGTERM\n");
            kill(p->pid, SIGKILL);
            waitpid(p->pid, &st, 0);
            code = 128 + SIGKILL;
        } else {
            code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        }
        p->pid = 0;
    }
    if (p->dir) {
        if (code != 0) {
            char *log = pd_log(p);
            fprintf(stderr, "--- perfd log\n%s--- end\n", log);
            free(log);
        }
        pq_rmdir(p->dir);
        free(p->dir);
        p->dir = NULL;
    }
    return code;
}

int pd_run(const char *const *args, char **err, int timeout_ms)
{
    char *dir = pq_mkdtemp();
    if (!dir) return -1;
    char path[4300];
    snprintf(path, sizeof path, "%s/err", dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    pid_t pid = fd >= 0 ? spawn(args, NULL, fd, fd, 0) : -1;
    if (fd >= 0) close(fd);
    int code = -1;
    if (pid > 0) {
        long deadline = pd_now_ms() + timeout_ms;
        int st = 0;
        pid_t w = 0;
        while ((w = waitpid(pid, &st, WNOHANG)) == 0 && pd_now_ms() < deadline) sleep_ms(10);
        if (w == 0) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            code = 1000; /* did not exit in time */
        } else {
            code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        }
    }
    size_t len = 0;
    char *s = pq_read_file(path, &len);
    *err = s ? s : strdup("");
    pq_rmdir(dir);
    free(dir);
    return code;
}

int pd_listener(unsigned *port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t al = sizeof a;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 128) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &al) != 0) {
        close(fd);
        return -1;
    }
    *port = ntohs(a.sin_port);
    return fd;
}

int pd_connect(const char *ip, unsigned port, const char *src)
{
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, ip, &sa.sin_addr) != 1) return -1;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    if (src) {
        struct sockaddr_in ss;
        memset(&ss, 0, sizeof ss);
        ss.sin_family = AF_INET;
        inet_pton(AF_INET, src, &ss.sin_addr);
        if (bind(fd, (struct sockaddr *)&ss, sizeof ss) != 0) {
            close(fd);
            return -1;
        }
    }
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static int send_all(int fd, const char *p, size_t n, int timeout_ms)
{
    long deadline = pd_now_ms() + timeout_ms;
    while (n) {
        struct pollfd pf = {fd, POLLOUT, 0};
        long left = deadline - pd_now_ms();
        if (left <= 0 || poll(&pf, 1, (int)left) <= 0) return -1;
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int pd_read_resp(int fd, pd_resp *r, int timeout_ms)
{
    memset(r, 0, sizeof *r);
    r->status = -1;
    size_t cap = 65536, len = 0;
    char *buf = malloc(cap + 1);
    if (!buf) return -1;
    long deadline = pd_now_ms() + timeout_ms;
    for (;;) {
        struct pollfd pf = {fd, POLLIN, 0};
        long left = deadline - pd_now_ms();
        if (left <= 0) break;
        int pr = poll(&pf, 1, (int)left);
        if (pr <= 0) break;
        if (len == cap) {
            char *nb = realloc(buf, cap * 2 + 1);
            if (!nb) break;
            buf = nb;
            cap *= 2;
        }
        ssize_t n = recv(fd, buf + len, cap - len, 0);
        if (n <= 0) break;
        len += (size_t)n;
    }
    buf[len] = 0;
    char *end = strstr(buf, "\r\n\r\n");
    if (!end || strncmp(buf, "HTTP/1.", 7) != 0) {
        free(buf);
        return -1;
    }
    r->status = atoi(buf + 9);
    size_t hl = (size_t)(end - buf) + 4;
    r->headers = strndup(buf, hl);
    r->body_len = len - hl;
    r->body = malloc(r->body_len + 1);
    if (r->body) {
        memcpy(r->body, buf + hl, r->body_len);
        r->body[r->body_len] = 0;
    }
    free(buf);
    return 0;
}

int pd_raw(unsigned port, const char *req, size_t len, pd_resp *r, int timeout_ms)
{
    memset(r, 0, sizeof *r);
    r->status = -1;
    int fd = pd_connect("127.0.0.1", port, NULL);
    if (fd < 0) return -1;
    int rc = send_all(fd, req, len, timeout_ms);
    if (rc == 0) rc = pd_read_resp(fd, r, timeout_ms);
    close(fd);
    return rc;
}

int pd_get(unsigned port, const char *path, const char *extra, pd_resp *r, int timeout_ms)
{
    size_t n = strlen(path) + strlen(extra) + 128;
    char *req = malloc(n);
    if (!req) return -1;
    int len = snprintf(req, n, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n%s\r\n", path, extra);
    int rc = pd_raw(port, req, (size_t)len, r, timeout_ms);
    free(req);
    return rc;
}

void pd_resp_free(pd_resp *r)
{
    free(r->headers);
    free(r->body);
    memset(r, 0, sizeof *r);
}

int pd_header(const pd_resp *r, const char *name, char *out, size_t len)
{
    if (!r->headers) return -1;
    size_t nl = strlen(name);
    for (const char *p = strstr(r->headers, "\r\n"); p; p = strstr(p + 2, "\r\n")) {
        const char *h = p + 2;
        if (strncasecmp(h, name, nl) == 0 && h[nl] == ':') {
            h += nl + 1;
            while (*h == ' ') h++;
            const char *e = strstr(h, "\r\n");
            size_t vl = e ? (size_t)(e - h) : strlen(h);
            if (vl >= len) vl = len - 1;
            memcpy(out, h, vl);
            out[vl] = 0;
            return 0;
        }
    }
    return -1;
}

long pd_wait_closed(int fd, int timeout_ms)
{
    long t0 = pd_now_ms(), deadline = t0 + timeout_ms;
    char buf[4096];
    for (;;) {
        long left = deadline - pd_now_ms();
        if (left <= 0) return -1;
        struct pollfd pf = {fd, POLLIN, 0};
        int pr = poll(&pf, 1, (int)left);
        if (pr < 0 && errno == EINTR) continue;
        if (pr <= 0) return -1;
        ssize_t n = recv(fd, buf, sizeof buf, 0);
        if (n <= 0) return pd_now_ms() - t0;
    }
}

unsigned pd_free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return 0;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t al = sizeof a;
    unsigned port = 0;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) == 0 && getsockname(fd, (struct sockaddr *)&a, &al) == 0)
        port = ntohs(a.sin_port);
    close(fd);
    return port;
}
