/* Writes small counter logs as seeds for fuzz_log:
 *   gen_log_seeds tests/fuzz/corpus/log
 * a blocks log with key and delta records and a gap, a values log, a log
 * cut in the middle of its last record, and a blocks log whose first header
 * record has a damaged byte (read through its copy). The *-1header seeds
 * are the same logs as written before logs carried a copy of their header
 * (kept: such logs must stay readable). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perflib/log.h"

static int blocks(const char *path, int n)
{
    pl_log_column c[2] = {{"\\\\BOX\\Memory\\Available Bytes", 0x10500, 0, "free memory"},
                          {"\\\\BOX\\Processor(_Total)\\% Processor Time", 0x20510500, 0, NULL}};
    pl_log_header h = {PL_LOG_BLOCKS, "BOX", c, 2, NULL, NULL};
    pl_log_writer *w = NULL;
    if (pl_log_create(path, &h, PL_LOG_OVERWRITE, &w, NULL)) return -1;
    unsigned char b[256];
    for (int k = 0; k < n; k++) {
        for (size_t i = 0; i < sizeof b; i++) b[i] = (unsigned char)(i * 7 + (i % 16 == 0 ? k : 0));
        if (k == 3) pl_log_append(w, 1000 + k, NULL, 0, NULL);
        else pl_log_append(w, 1000 + k, b, sizeof b - (size_t)(k % 3), NULL);
    }
    return pl_log_writer_close(w, NULL);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: gen_log_seeds DIR\n");
        return 2;
    }
    char p[4096], ip[4200];
    snprintf(p, sizeof p, "%s/blocks", argv[1]);
    if (blocks(p, 8)) return 1;
    snprintf(ip, sizeof ip, "%s.idx", p);
    unlink(ip);
    snprintf(p, sizeof p, "%s/header-damaged", argv[1]);
    if (blocks(p, 4)) return 1;
    snprintf(ip, sizeof ip, "%s.idx", p);
    unlink(ip);
    FILE *f = fopen(p, "r+b");
    if (!f || fseek(f, 16 + 40 + 5, SEEK_SET) != 0 || fputc(0x5A, f) == EOF || fclose(f) != 0) return 1;
    snprintf(p, sizeof p, "%s/torn", argv[1]);
    if (blocks(p, 5)) return 1;
    snprintf(ip, sizeof ip, "%s.idx", p);
    unlink(ip);
    if (truncate(p, 16 + 40 + 100 + 40 * 3 + 60) != 0) {} /* somewhere in the records */
    pl_log_column c[3] = {{"\\\\A\\X\\a", 0, 0, NULL}, {"\\\\A\\X\\b", 0, 0, NULL}, {"\\\\A\\X\\c", 0, 0, NULL}};
    pl_log_header h = {PL_LOG_VALUES, "A", c, 3, NULL, NULL};
    pl_log_writer *w = NULL;
    snprintf(p, sizeof p, "%s/values", argv[1]);
    if (pl_log_create(p, &h, PL_LOG_OVERWRITE, &w, NULL)) return 1;
    for (int k = 0; k < 6; k++) {
        double v[3] = {k * 0.5, 100.0 + k, -1};
        unsigned char pr[3] = {1, (unsigned char)(k & 1), 1};
        pl_log_append_values(w, 5000 + k, v, pr, NULL);
    }
    pl_log_writer_close(w, NULL);
    snprintf(ip, sizeof ip, "%s.idx", p);
    unlink(ip);
    return 0;
}
