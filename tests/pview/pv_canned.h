/* Canned snapshots for the pview tests (pv_canned.c says what is in them). */
#ifndef PV_CANNED_H
#define PV_CANNED_H
#include <stddef.h>
/* Sample k (0, 1, ...) as a whole PERF_DATA_BLOCK, malloc'd. 0 on success. */
int pv_canned(int k, void **out, size_t *len);
#endif
