/* typeperf -cf: splitting the counter file into paths (counterfile.h). */
#include "counterfile.h"

#include <stdlib.h>
#include <string.h>

int tp_counter_file_split(char *buf, const char ***paths, size_t *n)
{
    char *p = buf;
    if ((unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB && (unsigned char)p[2] == 0xBF) p += 3;
    size_t lines = 1;
    for (char *q = p; *q; q++) lines += *q == '\n';
    const char **np = realloc(*paths, (*n + lines + 1) * sizeof *np);
    if (!np) return -1;
    *paths = np;
    while (*p) {
        char *e = strchr(p, '\n');
        char *next = e ? e + 1 : p + strlen(p);
        if (e) *e = '\0';
        while (*p == ' ' || *p == '\t') p++;
        size_t l = strlen(p);
        while (l && (p[l - 1] == '\r' || p[l - 1] == ' ' || p[l - 1] == '\t')) p[--l] = '\0';
        if (l) np[(*n)++] = p;
        p = next;
    }
    return 0;
}
