/* perflib: a windows.h for ported performance code: the base types, the
 * error codes and the registry functions (win32/winreg.h). As on Windows,
 * winperf.h, loadperf.h and pdh.h are included separately. docs/win32.md. */
#ifndef PERFLIB_WIN32_WINDOWS_H
#define PERFLIB_WIN32_WINDOWS_H

#include "windef.h"
#include "winerror.h"
#include "winreg.h"

#endif
