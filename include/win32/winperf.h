/* perflib: Windows' winperf.h for ported code: the PERF_* structures,
 * counter types, detail levels and the provider entry-point types, exactly
 * those of perflib/winperf.h (the wire format, byte for byte; docs/win32.md). */
#ifndef PERFLIB_WIN32_WINPERF_H
#define PERFLIB_WIN32_WINPERF_H

#include "perflib/winperf.h"
#include "windef.h"

#endif
