/* Private to lib/win32: the process-wide engine and shared helpers. */
#ifndef PL_WIN32_INTERNAL_H
#define PL_WIN32_INTERNAL_H

#include <stdint.h>

#include "perflib/query.h"
#include "perflib/registry.h"
#include "perflib/win32.h"
#include "win32/windef.h"
#include "win32/winreg.h"

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

/* One line "<prefix><text>" to the event log's channel: the hook of
 * pl_win32_set_event_hook, else syslog (LOG_USER | prio). Control
 * characters in text become spaces; the line is cut at 1023 bytes. Used by
 * OutputDebugString and MessageBox. */
void pl__w32_channel_line(int prio, const char *prefix, const char *text);

/* Kernel-object handles (event sources, file mappings, events): the
 * address of an allocation registered with its kind, so a stale, foreign or
 * wrong-kind handle is refused instead of dereferenced. add: PL_OK or
 * PL_E_NOMEM. get: copies `size` bytes of the object (under the table's
 * lock) and returns 1, or 0 when `h` is not a live handle of that kind.
 * remove: unregisters it and returns the object (the caller frees it), or
 * NULL. */
enum { PL__W32_H_EVSRC = 1, PL__W32_H_MAPPING, PL__W32_H_EVENT };
int pl__w32_handle_add(void *obj, int kind);
int pl__w32_handle_get(const void *h, int kind, void *copy, size_t size);
void *pl__w32_handle_remove(const void *h, int kind);
/* The kind of a live handle, 0 if none. */
int pl__w32_handle_kind(const void *h);

/* HKLM\SYSTEM\CurrentControlSet\Services\<name>[\Performance|\Linkage]
 * (winreg_svc.c). pl__w32_svc_path: does `path` (from HKLM) lie below the
 * Services key (*rest: what follows it). */
int pl__w32_svc_is(HKEY h);
int pl__w32_svc_path(const char *path, const char **rest);
LSTATUS pl__w32_svc_open_hklm(const char *rest, REGSAM sam, int create, PHKEY out, LPDWORD disposition);
LSTATUS pl__w32_svc_open_sub(HKEY parent, const char *sub, REGSAM sam, int create, PHKEY out,
                             LPDWORD disposition);
LSTATUS pl__w32_svc_close(HKEY h);
LSTATUS pl__w32_svc_query(HKEY h, const char *name, int wide, LPDWORD lpType, LPBYTE lpData, LPDWORD lpcbData);
LSTATUS pl__w32_svc_set(HKEY h, const char *name, DWORD type, const BYTE *data, DWORD cb, int wide);
LSTATUS pl__w32_svc_enum_value(HKEY h, DWORD index, const char **name, int wide, LPDWORD lpType, LPBYTE lpData,
                               LPDWORD lpcbData);
LSTATUS pl__w32_svc_enum_key(HKEY h, DWORD index, const char **name);
LSTATUS pl__w32_svc_info(HKEY h, DWORD *subkeys, DWORD *maxsub, DWORD *values, DWORD *maxname, DWORD *maxval,
                         int wide);

#endif
