/* See net_live.h. */
#include "net_live.h"

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

int nl_netns_queue_lo(void)
{
    if (unshare(CLONE_NEWNET) != 0) return 77;
    if (system("PATH=\"$PATH:/usr/sbin:/sbin\"; ip link set lo up && "
               "tc qdisc replace dev lo root tbf rate 8kbit burst 1600 limit 300000 >/dev/null 2>&1") != 0)
        return 77;
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0) return 2;
    struct sockaddr_in to;
    memset(&to, 0, sizeof to);
    to.sin_family = AF_INET;
    to.sin_port = htons(9);
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    char payload[1000];
    memset(payload, 'q', sizeof payload);
    for (int i = 0; i < 40; i++)
        if (sendto(fd, payload, sizeof payload, 0, (struct sockaddr *)&to, sizeof to) < 0) {
            close(fd);
            return 3;
        }
    close(fd);
    return 0;
}

void nl_run_in_child(int (*fn)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) _exit(fn());
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    if (WEXITSTATUS(st) == 77) {
        print_message("no private network namespace or no tc (needs root, iproute2): skipped\n");
        skip();
    }
    assert_int_equal(WEXITSTATUS(st), 0);
}
