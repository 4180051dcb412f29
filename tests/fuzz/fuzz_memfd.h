/* Fuzz targets that open their input by name: the bytes in a memfd, whose
 * /proc/self/fd path is returned in path. The fd (close it), or -1. */
#ifndef FUZZ_MEMFD_H
#define FUZZ_MEMFD_H

#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

static inline int fuzz_memfd(const uint8_t *data, size_t size, char *path, size_t cap)
{
    int fd = memfd_create("fuzzinput", MFD_CLOEXEC);
    if (fd < 0) return -1;
    size_t done = 0;
    while (done < size) {
        ssize_t w = write(fd, data + done, size - done);
        if (w <= 0) break;
        done += (size_t)w;
    }
    snprintf(path, cap, "/proc/self/fd/%d", fd);
    return fd;
}

#endif
