/* What the Behemoth service and its manager share. */
#ifndef BEHEMOTH_H
#define BEHEMOTH_H

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define BEHEMOTH_MAX 4096            /* instances of "Behemoth" */
#define BEHEMOTH_LIFESPAN_DAYS 14600 /* forty years */
#define BEHEMOTH_CALVING_ODDS 400    /* a grown-up female calves once in this many days */

/* The manager's socket: the path given, else the abstract address
 * "\0perflib-behemoth.<uid>" (no file to clean up, one per user). */
static inline void behemoth_socket_address(const char *path, struct sockaddr_un *sun, socklen_t *len)
{
    memset(sun, 0, sizeof *sun);
    sun->sun_family = AF_UNIX;
    if (path) {
        snprintf(sun->sun_path, sizeof sun->sun_path, "%s", path);
        *len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(sun->sun_path) + 1);
    } else {
        int n = snprintf(sun->sun_path + 1, sizeof sun->sun_path - 1, "perflib-behemoth.%u", (unsigned)getuid());
        *len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
    }
}

#endif
