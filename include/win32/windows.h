/* perflib: a windows.h for ported performance code: the base types, the
 * error codes, the base Win32 performance code uses (win32/winbase.h), the
 * registry functions (win32/winreg.h) and, as Windows'
 * windows.h does unless WIN32_LEAN_AND_MEAN is defined, winperf.h. loadperf.h and pdh.h are
 * included separately, as on Windows. docs/win32.md. */
#ifndef PERFLIB_WIN32_WINDOWS_H
#define PERFLIB_WIN32_WINDOWS_H

#include "windef.h"
#include "winerror.h"
#include "winbase.h"
#include "winreg.h"
#ifndef WIN32_LEAN_AND_MEAN
#include "winperf.h"
#endif

#endif
