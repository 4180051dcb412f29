/* perflib: a windows.h for ported performance code: the base types, the
 * error codes, the base Win32 performance code uses (win32/winbase.h), the
 * registry functions (win32/winreg.h), MessageBox (win32/winuser.h, unless
 * NOUSER), the service-control names (win32/winsvc.h, unless NOSERVICE),
 * the C library's <stdlib.h> (rand, malloc, ...) and, unless
 * WIN32_LEAN_AND_MEAN is defined, winperf.h: what Windows' windows.h makes
 * visible to such code. loadperf.h and pdh.h are included separately, as on
 * Windows. docs/win32.md. */
#ifndef PERFLIB_WIN32_WINDOWS_H
#define PERFLIB_WIN32_WINDOWS_H

#include "windef.h"
#include "winerror.h"
#include "winbase.h"
#include "winreg.h"
#ifndef NOUSER
#include "winuser.h"
#endif
#ifndef NOSERVICE
#include "winsvc.h"
#endif
#ifndef WIN32_LEAN_AND_MEAN
#include "winperf.h"
#endif
/* Last: in C++ libstdc++'s first header removes the min and max macros of
 * windef.h, as it would at the program's first standard header, so that
 * <algorithm> and the rest can follow (docs/win32.md). */
#include <stdlib.h>

#endif
