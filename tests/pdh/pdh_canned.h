/* Canned performance data for the PDH and typeperf tests: a fixed scenario
 * of four samples one second apart, built with the block builder, and a
 * pl_pdh_source that serves them. */
#ifndef PDH_CANNED_H
#define PDH_CANNED_H

#include <stddef.h>
#include <stdint.h>

#include "perflib/pdh.h"
#include "perflib/registry.h"

#define CANNED_SAMPLES 4
#define CANNED_FREQ 10000000LL
#define CANNED_PERFTIME(k) (1000000000LL + (int64_t)(k) * 10000000LL)
/* 2024-01-15 10:00:00 UTC as FILETIME */
#define CANNED_FT0 133497864000000000LL
#define CANNED_FT(k) (CANNED_FT0 + (int64_t)(k) * 10000000LL)
#define CANNED_SYSTEM "TESTBOX"

/* Sample k (0..3) of the scenario (see pdh_canned.c): a whole
 * PERF_DATA_BLOCK, malloc'd. Returns 0 on success. */
int canned_block(int k, void **buf, size_t *len);
/* The same, with the Network Interface object that carries unavailable
 * values when `unavailable` is set. */
int canned_block_opt(int k, int unavailable, void **buf, size_t *len);

typedef struct canned {
    int cur;                  /* which sample collect() returns */
    int fail;                 /* collect() fails when set */
    int garbage;              /* collect() returns a block that is not valid */
    int unavailable;          /* collect() adds the Network Interface object */
    int ncollects;
    char last_query[256];
    pl_store *st;
    pl_titles *def;           /* default-language titles */
    pl_titles *en;            /* English */
    char dir[64];             /* temp dir of the store */
} canned;

/* A store in a fresh temp dir (seeded with the English names), titles, and
 * a source over *c. german != 0 makes the default language "007" with a few
 * German names (Prozessor, Speicher, Verfügbare Bytes). */
int canned_open(canned *c, pl_pdh_source *src, int german);
void canned_close(canned *c);

/* Files for the tools' end-to-end tests: write len bytes (0 or -1); read at
 * most cap-1 bytes, NUL-terminated (the length; 0 when unreadable). */
int canned_write_file(const char *path, const void *buf, size_t len);
size_t canned_read_file(const char *path, char *buf, size_t cap);
/* The scenario as files in a fresh directory: mkdtemp(dir) (a template,
 * modified in place), dir/sample0.blk .. sample3.blk (canned_block_opt with
 * `unavailable`), and a seeded store at `store` = dir/perflib.db. 0 or -1. */
int canned_dir(char *dir, int unavailable, char *store, size_t store_cap);

#endif
