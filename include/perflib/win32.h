/* perflib: controls of the Windows registry layer (include/win32/winreg.h,
 * include/win32/loadperf.h; docs/win32.md) for tests and embedders. */
#ifndef PERFLIB_WIN32_CONTROL_H
#define PERFLIB_WIN32_CONTROL_H

#include <stdarg.h>
#include <stdint.h>

#include "export.h"
#include "query.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Make `e` the engine behind RegQueryValueEx on the performance keys and the
 * store of the loadperf functions, instead of the process's own engine
 * (opened on first use with pl_engine_open(NULL), closed at exit). The
 * caller keeps ownership: call pl_win32_set_engine(NULL) before closing `e`.
 * NULL goes back to the process's own engine. Thread-safe, but calls already
 * running keep the engine they started with. */
PL_EXTERN void pl_win32_set_engine(pl_engine *e);

/* The Win32 error code (win32/winerror.h) that the registry and loadperf
 * functions return for a perflib status (docs/win32.md has the table). */
PL_EXTERN uint32_t pl_win32_error_from_status(int status);

/* Format as Windows' printf family does (used by wsprintf and the _UNICODE
 * tchar.h): `fmt` is UTF-8; %s/%c take WCHAR (UTF-16) strings when `wide`
 * is set, char otherwise, %S/%C the other kind, %hs always char, %ls/%ws
 * always WCHAR; %ld/%lu/%lx are 32-bit as on Windows, %I64d/%lld 64-bit,
 * %Id/%zd pointer-sized; %n writes nothing. *out: a new UTF-8 string
 * (free()). PL_OK, PL_E_INVAL (NULL fmt), PL_E_NOMEM. */
PL_EXTERN int pl_win32_vformat(int wide, const char *fmt, va_list ap, char **out);

/* Where ReportEvent's lines go instead of syslog (tests, embedders with a
 * log of their own): fn(priority, line, ctx), priority a syslog LOG_* value.
 * NULL goes back to syslog. Thread-safe. */
typedef void (*pl_win32_event_hook)(int priority, const char *line, void *ctx);
PL_EXTERN void pl_win32_set_event_hook(pl_win32_event_hook fn, void *ctx);

#ifdef __cplusplus
}
#endif

#endif
