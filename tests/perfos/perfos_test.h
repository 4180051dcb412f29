/* Shared by the PerfOS tests of libperfos.so on trees (test_perfos_power.c,
 * test_perfos_objects.c): the provider loaded and opened on a canned tree,
 * a scratch tree or this machine, and the result of its last collection.
 * Every helper fails the running test instead of returning an error. */
#ifndef PERFOS_TEST_H
#define PERFOS_TEST_H

#include "provider_harness.h"

#define DATA PL_SOURCE_DIR "/tests/perfos/data/"
#define BUFSZ (1u << 20)
#define N(a) (sizeof(a) / sizeof((a)[0]))

typedef struct pf_run {
    ph_provider p;
    ph_result s; /* the last collection */
} pf_run;

/* dlopen libperfos.so on `root` (NULL: this machine) and open it. */
void pf_load(ph_provider *p, const char *root);
/* pf_load, then collect `query` into r->s (the collection must succeed). */
void pf_start(pf_run *r, const char *root, const char *query);
/* Free r->s and collect `query` again. */
void pf_again(pf_run *r, const char *query);
/* Free r->s and unload the provider. */
void pf_end(pf_run *r);
/* A FIFO at <root>/<rel> (a file whose open would block). */
void pf_fifo(const char *root, const char *rel);

#endif
