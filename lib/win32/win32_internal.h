/* Private to lib/win32: the process-wide engine and shared helpers. */
#ifndef PL_WIN32_INTERNAL_H
#define PL_WIN32_INTERNAL_H

#include <stdint.h>

#include "perflib/query.h"
#include "perflib/registry.h"
#include "perflib/win32.h"
#include "win32/windef.h"

/* Start a call that may use the engine: takes the shared lock, which
 * pl_win32_set_engine() and the exit handler take exclusively. With
 * `open`, the process's own engine is opened when none is set (PL_OK and
 * *e set, or that open's status with *e NULL); without, *e is the engine in
 * use or NULL. Always pair with pl__w32_leave(), whatever it returned. */
int pl__w32_enter(int open, pl_engine **e);
void pl__w32_leave(void);

/* The default language of `st` copied to out (cap >= 8), serialised
 * because the store returns a pointer valid only until its next call. */
void pl__w32_default_language(pl_store *st, char *out, size_t cap);

/* A NUL-terminated UTF-16 string as a new UTF-8 string (free()). NULL for a
 * NULL input (*rc PL_OK); NULL with *rc PL_E_ENCODING or PL_E_NOMEM. */
char *pl__w32_narrow(const WCHAR *w, int *rc);

/* Case-insensitive ASCII equality. */
int pl__w32_ieq(const char *a, const char *b);

/* Is `m` (may be NULL) this machine: NULL, "", ".", "localhost", the host
 * name, optionally after "\\". */
int pl__w32_is_local(const char *m);

#endif
