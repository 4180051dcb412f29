/* perflib: controls of the Windows registry layer (include/win32/winreg.h,
 * include/win32/loadperf.h; docs/win32.md) for tests and embedders. */
#ifndef PERFLIB_WIN32_CONTROL_H
#define PERFLIB_WIN32_CONTROL_H

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

#ifdef __cplusplus
}
#endif

#endif
