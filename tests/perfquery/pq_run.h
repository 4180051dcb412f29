/* Test helpers shared by tests/perfquery and tests/examples: run a built
 * tool with extra environment and capture its output; temp directories;
 * golden files. */
#ifndef PQ_RUN_H
#define PQ_RUN_H

#include <stddef.h>

typedef struct pq_result {
    int exit_code;   /* the exit status, or 128 + signal */
    char *out;       /* stdout, NUL-terminated; free with pq_result_free */
    size_t out_len;
    char *err;       /* stderr */
    size_t err_len;
} pq_result;

/* Run argv[0] with argv (NULL-terminated) and `env` ("NAME=value" strings,
 * NULL-terminated, may be NULL) added to the current environment. Returns 0,
 * or -1 when the program could not be started. */
int pq_run(const char *const *argv, const char *const *env, pq_result *r);
void pq_result_free(pq_result *r);

/* "exit: N\n--- stdout\n<out>--- stderr\n<err>" in a new string (free()). */
char *pq_result_transcript(const pq_result *r);

/* A new empty directory under $TMPDIR (or /tmp); free() the path. Remove it
 * and its files (no subdirectories) with pq_rmdir. */
char *pq_mkdtemp(void);
void pq_rmdir(const char *dir);

/* Read a whole file (NUL-terminated); NULL when missing. */
char *pq_read_file(const char *path, size_t *len);
int pq_write_file(const char *path, const void *data, size_t len);

/* Compare `actual` with the golden file `path`. With PL_UPDATE_GOLDEN=1 in the
 * environment, write `actual` to `path` instead. Returns 0 when equal (or
 * updated); otherwise prints both to stderr and returns -1. */
int pq_golden(const char *path, const char *actual);

#endif
