/* bench/spawn_idle: create N idle processes with T threads each, for the
 * snapshot benchmark (bench/run-snapshot.sh).
 *
 *   spawn_idle N T
 *
 * The program makes itself a process-group leader, forks N children; each
 * child starts T-1 extra threads (64 KiB stacks) and every thread blocks in
 * read() on a pipe that is never written. When all children are ready it
 * prints "ready <pgid>" on stdout and waits; SIGTERM/SIGINT/SIGHUP kill the
 * whole group, and it exits once every child has. Exit status 2 when a fork or a thread cannot be
 * created (the message says which limit was hit). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int block_fd = -1;

static void *idle_thread(void *arg)
{
    (void)arg;
    char c;
    for (;;) {
        ssize_t n = read(block_fd, &c, 1);
        if (n == 0) _exit(0); /* writer gone: the benchmark is over */
        if (n < 0 && errno != EINTR) _exit(0);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: spawn_idle N T\n");
        return 1;
    }
    long n = strtol(argv[1], NULL, 10), t = strtol(argv[2], NULL, 10);
    if (n < 1 || t < 1 || n > 1000000 || t > 10000) {
        fprintf(stderr, "spawn_idle: bad N or T\n");
        return 1;
    }
    setpgid(0, 0);
    int block[2], ready[2];
    if (pipe(block) != 0 || pipe(ready) != 0) {
        perror("pipe");
        return 2;
    }
    block_fd = block[0];
    for (long i = 0; i < n; i++) {
        pid_t pid = fork();
        if (pid < 0) {
            fprintf(stderr, "spawn_idle: fork %ld of %ld failed: %s\n", i + 1, n, strerror(errno));
            kill(0, SIGKILL);
            return 2;
        }
        if (pid == 0) {
            close(block[1]);
            close(ready[0]);
            pthread_attr_t a;
            pthread_attr_init(&a);
            pthread_attr_setstacksize(&a, 64 * 1024);
            for (long k = 1; k < t; k++) {
                pthread_t th;
                int rc = pthread_create(&th, &a, idle_thread, NULL);
                if (rc != 0) {
                    char msg[128];
                    int len = snprintf(msg, sizeof msg, "spawn_idle: thread %ld: %s\n", k, strerror(rc));
                    if (write(2, msg, (size_t)len) < 0) _exit(3);
                    if (write(ready[1], "F", 1) < 0) _exit(3);
                    _exit(3);
                }
            }
            if (write(ready[1], "R", 1) != 1) _exit(3);
            close(ready[1]);
            idle_thread(NULL);
            _exit(0);
        }
    }
    close(ready[1]);
    long got = 0;
    int failed = 0;
    while (got < n) {
        char buf[512];
        ssize_t r = read(ready[0], buf, sizeof buf);
        if (r <= 0) break;
        for (ssize_t i = 0; i < r; i++) {
            if (buf[i] == 'F') failed = 1;
            got++;
        }
    }
    if (failed || got < n) {
        fprintf(stderr, "spawn_idle: only %ld of %ld children ready\n", got, n);
        kill(0, SIGKILL);
        return 2;
    }
    printf("ready %d\n", (int)getpgrp());
    fflush(stdout);
    /* Wait for SIGTERM/SIGINT/SIGHUP; then take the whole group down. (If
     * this process dies some other way, the children see EOF on the pipe
     * and exit by themselves.) */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    sigprocmask(SIG_BLOCK, &set, NULL);
    int sig;
    sigwait(&set, &sig);
    signal(SIGTERM, SIG_IGN);
    kill(0, SIGTERM);
    /* gone when this process is: a benchmark run right after must not
     * count a thousand processes still dying */
    while (wait(NULL) > 0 || errno == EINTR) {
    }
    return 0;
}
