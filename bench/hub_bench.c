/* bench/hub_bench: the attacks of issue 23 against a running perfd, for
 * bench/run-hub.sh ("does a remote machine that never answers, or a flood
 * of idle connections, delay /metrics?").
 *
 *   hub_bench hole SECONDS            listen on 127.0.0.1 (prints "port P"),
 *                                     accept every connection, answer none
 *   hub_bench scrape PORT K GAP_MS    K scrapes of /metrics, one every GAP_MS:
 *                                     "ok=N/K p50_ms=.. p99_ms=.. max_ms=.."
 *   hub_bench attack PORT HOLE N      N requests at once, each a different
 *                                     Foreign query for 127.0.0.1:HOLE, from N
 *                                     addresses 127.0.3.x: their statuses
 *   hub_bench flood PORT N SECONDS    N idle connections from 125 addresses
 *                                     127.0.1.x, each reopened when perfd
 *                                     closes it, for SECONDS
 * Everything is bounded: every wait has a timeout. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static long now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000000L + ts.tv_nsec / 1000;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static int conn(unsigned port, const char *src)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    if (src) {
        struct sockaddr_in s = {.sin_family = AF_INET};
        inet_pton(AF_INET, src, &s.sin_addr);
        if (bind(fd, (struct sockaddr *)&s, sizeof s) != 0) {
            close(fd);
            return -1;
        }
    }
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* One request, the answer read to EOF within timeout_ms: its status or -1. */
static int request(unsigned port, const char *src, const char *path, int timeout_ms)
{
    int fd = conn(port, src);
    if (fd < 0) return -1;
    char req[1024];
    int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", path);
    if (send(fd, req, (size_t)n, MSG_NOSIGNAL) != n) {
        close(fd);
        return -1;
    }
    char buf[65536], head[16] = "";
    size_t got = 0;
    long end = now_us() + timeout_ms * 1000L;
    for (;;) {
        long left = (end - now_us()) / 1000;
        struct pollfd pf = {fd, POLLIN, 0};
        if (left <= 0 || poll(&pf, 1, (int)left) <= 0) break;
        ssize_t r = recv(fd, buf, sizeof buf, 0);
        if (r <= 0) break;
        if (got < 12) memcpy(head + got, buf, (size_t)r < 12 - got ? (size_t)r : 12 - got);
        got += (size_t)r;
    }
    close(fd);
    return got >= 12 && strncmp(head, "HTTP/1.", 7) == 0 ? atoi(head + 9) : -1;
}

static int by_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return x < y ? -1 : x > y;
}

static int scrape(unsigned port, int k, long gap)
{
    long *t = calloc((size_t)k, sizeof *t);
    if (!t) return 1;
    int ok = 0;
    for (int i = 0; i < k; i++) {
        long t0 = now_us();
        if (request(port, NULL, "/metrics", 30000) == 200) ok++;
        t[i] = now_us() - t0;
        if (gap) sleep_ms(gap);
    }
    qsort(t, (size_t)k, sizeof *t, by_long);
    printf("ok=%d/%d p50_ms=%.2f p99_ms=%.2f max_ms=%.2f\n", ok, k, t[k / 2] / 1000.0,
           t[(k * 99 + 99) / 100 - 1] / 1000.0, t[k - 1] / 1000.0);
    free(t);
    return 0;
}

typedef struct attacker {
    unsigned port, hole;
    int i, status;
} attacker;

static void *attack_one(void *arg)
{
    attacker *a = arg;
    char src[32], path[128];
    snprintf(src, sizeof src, "127.0.3.%d", a->i % 250 + 1);
    snprintf(path, sizeof path, "/v1/query?q=Foreign%%20127.0.0.1:%u%%20%d", a->hole, 230 + a->i);
    a->status = request(a->port, src, path, 60000);
    return NULL;
}

static int attack(unsigned port, unsigned hole, int n)
{
    attacker *a = calloc((size_t)n, sizeof *a);
    pthread_t *th = calloc((size_t)n, sizeof *th);
    if (!a || !th) return 1;
    for (int i = 0; i < n; i++) {
        a[i] = (attacker){port, hole, i, -1};
        if (pthread_create(&th[i], NULL, attack_one, &a[i]) != 0) a[i].status = -2;
    }
    int counts[600] = {0}, none = 0;
    for (int i = 0; i < n; i++) {
        if (a[i].status != -2) pthread_join(th[i], NULL);
        if (a[i].status >= 0 && a[i].status < 600) counts[a[i].status]++;
        else none++;
    }
    printf("attack:");
    for (int s = 0; s < 600; s++)
        if (counts[s]) printf(" %dx%d", counts[s], s);
    if (none) printf(" %d unanswered within 60 s", none);
    printf("\n");
    free(a);
    free(th);
    return 0;
}

static int hole(int secs)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t al = sizeof a;
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 256) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &al) != 0)
        return 1;
    printf("port %u\n", ntohs(a.sin_port));
    fflush(stdout);
    int held[1024], n = 0;
    long end = now_us() + secs * 1000000L;
    while (now_us() < end) {
        struct pollfd pf = {fd, POLLIN, 0};
        if (poll(&pf, 1, 100) <= 0) continue;
        int c = accept(fd, NULL, NULL);
        if (c >= 0 && n < 1024) held[n++] = c;
        else if (c >= 0) close(c);
    }
    for (int i = 0; i < n; i++) close(held[i]);
    close(fd);
    return 0;
}

static int flood(unsigned port, int n, int secs)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)n + 64) {
        rl.rlim_cur = rl.rlim_max < (rlim_t)n + 64 ? rl.rlim_max : (rlim_t)n + 64;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    int *fds = calloc((size_t)n, sizeof *fds);
    if (!fds) return 1;
    unsigned long reopened = 0;
    char src[32];
    for (int i = 0; i < n; i++) {
        snprintf(src, sizeof src, "127.0.1.%d", i % 125 + 1);
        fds[i] = conn(port, src);
    }
    printf("flooding\n");
    fflush(stdout);
    long end = now_us() + secs * 1000000L;
    while (now_us() < end) {
        for (int i = 0; i < n; i++) {
            struct pollfd pf = {fds[i], POLLIN, 0};
            if (fds[i] >= 0 && poll(&pf, 1, 0) == 0) continue;
            if (fds[i] >= 0) close(fds[i]);
            snprintf(src, sizeof src, "127.0.1.%d", i % 125 + 1);
            fds[i] = conn(port, src);
            reopened++;
        }
        sleep_ms(5);
    }
    for (int i = 0; i < n; i++)
        if (fds[i] >= 0) close(fds[i]);
    printf("flood: %d connections, %lu reopened\n", n, reopened);
    free(fds);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "hole") == 0) return hole(atoi(argv[2]));
    if (argc == 5 && strcmp(argv[1], "scrape") == 0)
        return scrape((unsigned)atoi(argv[2]), atoi(argv[3]) > 0 ? atoi(argv[3]) : 1, atol(argv[4]));
    if (argc == 5 && strcmp(argv[1], "attack") == 0)
        return attack((unsigned)atoi(argv[2]), (unsigned)atoi(argv[3]), atoi(argv[4]));
    if (argc == 5 && strcmp(argv[1], "flood") == 0)
        return flood((unsigned)atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
    fprintf(stderr, "usage: hub_bench hole SECONDS | scrape PORT K GAP_MS | attack PORT HOLE N | flood PORT N SECONDS\n");
    return 2;
}
