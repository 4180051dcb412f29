/* behemoth-manager: talks to the Behemoth service directly, over its Unix
 * socket, as the article's manager talks to the COM server: it sees what
 * the service knows (including each behemoth's mother by name), and can
 * change the herd.
 *
 *   behemoth-manager [--socket PATH] list | birth NAME [MOTHER] | kill NAME | feed NAME KG
 * Exit status: 0 when the service answered "ok", 1 for an error answer,
 * 2 for a usage error, 3 when the service cannot be reached. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "behemoth.h"

int main(int argc, char **argv)
{
    const char *sock = NULL;
    int i = 1;
    if (i + 1 < argc && !strcmp(argv[i], "--socket")) {
        sock = argv[i + 1];
        i += 2;
    }
    if (i >= argc) {
        fprintf(stderr, "usage: behemoth-manager [--socket PATH] list | birth NAME [MOTHER] | kill NAME | feed NAME KG\n");
        return 2;
    }
    char req[512];
    size_t w = 0;
    for (; i < argc && w < sizeof req - 2; i++) {
        int n = snprintf(req + w, sizeof req - w, "%s%s", w ? " " : "", argv[i]);
        if (n < 0 || (size_t)n >= sizeof req - w) {
            fprintf(stderr, "behemoth-manager: request too long\n");
            return 2;
        }
        w += (size_t)n;
    }
    req[w++] = '\n';
    struct sockaddr_un sun;
    socklen_t len;
    behemoth_socket_address(sock, &sun, &len);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sun, len) != 0) {
        fprintf(stderr, "behemoth-manager: cannot reach the behemoth service: %s\n", strerror(errno));
        return 3;
    }
    if (write(fd, req, w) != (ssize_t)w) {
        fprintf(stderr, "behemoth-manager: cannot send: %s\n", strerror(errno));
        close(fd);
        return 3;
    }
    char buf[4096], last[256] = "";
    size_t lastlen = 0;
    ssize_t r;
    while ((r = read(fd, buf, sizeof buf)) > 0) {
        fwrite(buf, 1, (size_t)r, stdout);
        for (ssize_t k = 0; k < r; k++) {
            if (buf[k] == '\n') {
                last[lastlen < sizeof last ? lastlen : sizeof last - 1] = '\0';
                if (lastlen) lastlen = 0;
                continue;
            }
            if (lastlen < sizeof last - 1) last[lastlen] = buf[k];
            lastlen++;
        }
    }
    close(fd);
    return strncmp(last, "ok", 2) == 0 ? 0 : 1;
}
