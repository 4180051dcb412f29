/* See net_live.h. */
#include "net_live.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pl_test.h"

int nl_tc_root_backlog(const char *dev, unsigned long *pkts)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "PATH=\"$PATH:/usr/sbin:/sbin\" tc -s qdisc show dev %s 2>/dev/null", dev);
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    char line[1024];
    int in_root = 0, found = 0, any = 0;
    while (fgets(line, sizeof line, p)) {
        any = 1;
        if (strncmp(line, "qdisc ", 6) == 0) in_root = strstr(line, " root ") != NULL;
        char *b = strstr(line, "backlog ");
        unsigned long bytes, packets;
        if (in_root && b && !found && sscanf(b, "backlog %lub %lup", &bytes, &packets) == 2) {
            *pkts = packets;
            found = 1;
        }
    }
    if (pclose(p) != 0 || !any) return -1;
    return found;
}

int nl_netns_lo_up(void)
{
    if (unshare(CLONE_NEWNET) != 0) return 77;
    if (system("PATH=\"$PATH:/usr/sbin:/sbin\"; ip link set lo up") != 0) return 77;
    return 0;
}

int nl_netns_queue_lo(void)
{
    if (nl_netns_lo_up() != 0) return 77;
    if (system("PATH=\"$PATH:/usr/sbin:/sbin\"; "
               "tc qdisc replace dev lo root tbf rate 8kbit burst 1600 limit 300000 >/dev/null 2>&1") != 0)
        return 77;
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0) return 2;
    struct sockaddr_storage to;
    socklen_t tl = nl_sockaddr(AF_INET, "127.0.0.1", 9, &to);
    char payload[1000];
    memset(payload, 'q', sizeof payload);
    for (int i = 0; i < 40; i++)
        if (sendto(fd, payload, sizeof payload, 0, (struct sockaddr *)&to, tl) < 0) {
            close(fd);
            return 3;
        }
    close(fd);
    return 0;
}

/* fn's exit status in a child process (the test fails if it did not exit). */
static int child_status(int (*fn)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) _exit(fn());
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    return WEXITSTATUS(st);
}

void nl_run_in_child(int (*fn)(void))
{
    int st = child_status(fn);
    if (st == 77) pl_skip("no private network namespace or no tc here (needs root and iproute2)");
    assert_int_equal(st, 0);
}

void nl_run_in_child_required(int (*fn)(void), const char *what)
{
    int st = child_status(fn);
    if (st == 77) fail_msg("cannot make %s here (needs root, iproute2)", what);
    assert_int_equal(st, 0);
}

socklen_t nl_sockaddr(int family, const char *addr, uint16_t port, struct sockaddr_storage *ss)
{
    memset(ss, 0, sizeof *ss);
    if (family == AF_INET) {
        struct sockaddr_in *a = (struct sockaddr_in *)ss;
        a->sin_family = AF_INET;
        a->sin_port = htons(port);
        return inet_pton(AF_INET, addr, &a->sin_addr) == 1 ? (socklen_t)sizeof *a : 0;
    }
    struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;
    a->sin6_family = AF_INET6;
    a->sin6_port = htons(port);
    return family == AF_INET6 && inet_pton(AF_INET6, addr, &a->sin6_addr) == 1 ? (socklen_t)sizeof *a : 0;
}

int nl_tcp_listener(int family, const char *addr, int v6only, int backlog, uint16_t *port)
{
    struct sockaddr_storage ss;
    socklen_t sl = nl_sockaddr(family, addr, 0, &ss);
    if (sl == 0) return -1;
    int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    if (family == AF_INET6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof v6only);
    if (bind(fd, (struct sockaddr *)&ss, sl) != 0 || listen(fd, backlog) != 0 ||
        getsockname(fd, (struct sockaddr *)&ss, &sl) != 0) {
        close(fd);
        return -1;
    }
    *port = ntohs(family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port : ((struct sockaddr_in6 *)&ss)->sin6_port);
    return fd;
}

int nl_tcp_connect(int family, const char *addr, uint16_t port)
{
    struct sockaddr_storage ss;
    socklen_t sl = nl_sockaddr(family, addr, port, &ss);
    if (sl == 0) return -1;
    int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    if (connect(fd, (struct sockaddr *)&ss, sl) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}
