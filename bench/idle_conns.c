/* bench/idle_conns: hold N idle TCP connections to 127.0.0.1:PORT, for
 * bench/run-perfd.sh ("do idle connections delay a scrape?").
 *
 *   idle_conns PORT N SECONDS
 *
 * Opens N connections one after another (source addresses 127.0.0.1 up to
 * 127.0.0.254, so per-address limits apply as they would to many clients),
 * sends nothing, prints "open <n> refused <m>" once all were tried (a
 * connection the server closed at once counts as refused), then holds the
 * rest for SECONDS and exits. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: idle_conns PORT N SECONDS\n");
        return 1;
    }
    unsigned port = (unsigned)strtoul(argv[1], NULL, 10);
    int n = atoi(argv[2]), secs = atoi(argv[3]);
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)n + 64) {
        rl.rlim_cur = rl.rlim_max < (rlim_t)n + 64 ? rl.rlim_max : (rlim_t)n + 64;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    int *fds = calloc((size_t)n, sizeof *fds);
    if (!fds) return 1;
    int open_n = 0, refused = 0;
    for (int i = 0; i < n; i++) {
        fds[i] = -1;
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd < 0) {
            refused++;
            continue;
        }
        struct sockaddr_in src = {.sin_family = AF_INET};
        src.sin_addr.s_addr = htonl(0x7f000001u + (uint32_t)(i % 254));
        bind(fd, (struct sockaddr *)&src, sizeof src);
        struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
        sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
            close(fd);
            refused++;
            continue;
        }
        fds[i] = fd;
    }
    usleep(300000);
    for (int i = 0; i < n; i++) { /* closed by the server already? */
        if (fds[i] < 0) continue;
        struct pollfd pf = {fds[i], POLLIN, 0};
        char c;
        if (poll(&pf, 1, 0) > 0 && recv(fds[i], &c, 1, MSG_DONTWAIT) <= 0) {
            close(fds[i]);
            fds[i] = -1;
            refused++;
        } else {
            open_n++;
        }
    }
    printf("open %d refused %d\n", open_n, refused);
    fflush(stdout);
    sleep((unsigned)secs);
    for (int i = 0; i < n; i++)
        if (fds[i] >= 0) close(fds[i]);
    free(fds);
    return 0;
}
