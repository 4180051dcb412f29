/* perflib: the assertion and report macros of the Microsoft C runtime's
 * crtdbg.h that provider sources include (ntrace's jpkfbt defines its
 * ASSERT as _ASSERTE). Without _DEBUG they are nothing, as with the
 * release runtime. With _DEBUG a failed _ASSERT/_ASSERTE writes
 * "<file>(<line>) : Assertion failed: <expression>" to the debugger's
 * channel (OutputDebugStringA: the event log's channel here) and the
 * program goes on, as after "Ignore" in the runtime's dialog: a provider
 * never ends the process it is loaded into. The heap-debugging calls are
 * accepted and do nothing. */
#ifndef PERFLIB_WIN32_CRTDBG_H
#define PERFLIB_WIN32_CRTDBG_H

#include "winbase.h"

#define _CRTDBG_ALLOC_MEM_DF 0x01
#define _CRTDBG_CHECK_ALWAYS_DF 0x04
#define _CRTDBG_LEAK_CHECK_DF 0x20
#define _CRTDBG_REPORT_FLAG (-1)

#ifdef _DEBUG
#define PERFLIB__CRT_STR2(x) #x
#define PERFLIB__CRT_STR(x) PERFLIB__CRT_STR2(x)
#define _ASSERT_EXPR(expr, msg)                                                                                  \
    ((void)(!!(expr) ||                                                                                          \
            (OutputDebugStringA(__FILE__ "(" PERFLIB__CRT_STR(__LINE__) ") : Assertion failed: " msg), 0)))
#define _ASSERT(expr) _ASSERT_EXPR((expr), #expr)
#define _ASSERTE(expr) _ASSERT_EXPR((expr), #expr)
#else
#define _ASSERT_EXPR(expr, msg) ((void)0)
#define _ASSERT(expr) ((void)0)
#define _ASSERTE(expr) ((void)0)
#endif
#define _CrtSetDbgFlag(f) ((int)0)
#define _CrtCheckMemory() ((int)1)
#define _CrtDumpMemoryLeaks() ((int)0)
#define _CrtSetReportMode(t, m) ((int)0)
#define _CrtSetBreakAlloc(n) ((long)0)

#endif
