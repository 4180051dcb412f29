/* perflib: the small part of Windows' windef.h/winnt.h that ported
 * performance code needs (docs/win32.md). The fixed-width base types (DWORD,
 * LONG, WCHAR = UTF-16 code unit, ...) come from perflib/wintypes.h; this
 * header adds the pointer and string types, TCHAR/TEXT() and TRUE/FALSE.
 *
 * Strings: the "A" forms are UTF-8; the "W" forms are UTF-16LE arrays of
 * WCHAR (uint16_t, never wchar_t). TCHAR is char unless UNICODE is defined,
 * then WCHAR, and TEXT("x") becomes u"x". */
#ifndef PERFLIB_WIN32_WINDEF_H
#define PERFLIB_WIN32_WINDEF_H

#include <stddef.h>
#include <stdint.h>

#include "perflib/export.h"
#include "perflib/wintypes.h"

/* Shared with win32/pdh.h: the same guard and the same definitions. */
#ifndef PERFLIB_WIN32_BASE_TYPES
#define PERFLIB_WIN32_BASE_TYPES
typedef char CHAR;
typedef CHAR *LPSTR;
typedef const CHAR *LPCSTR;
typedef uint8_t BOOLEAN;
typedef uintptr_t DWORD_PTR;
typedef void *HANDLE;
#ifndef WINAPI
#define WINAPI
#endif
#endif
#ifndef PERFLIB_WIN32_FILETIME
#define PERFLIB_WIN32_FILETIME
typedef struct FILETIME {
    DWORD dwLowDateTime;
    DWORD dwHighDateTime;
} FILETIME, *PFILETIME, *LPFILETIME;
#endif

#ifndef PERFLIB_WIN32_EXTRA_TYPES
#define PERFLIB_WIN32_EXTRA_TYPES
typedef BYTE *PBYTE;
typedef BYTE *LPBYTE;
typedef const BYTE *LPCBYTE;
typedef LONG *PLONG;
typedef DWORD *PDWORD;
typedef ULONG *PULONG;
typedef uintptr_t ULONG_PTR;
typedef intptr_t LONG_PTR;
typedef CHAR *PSTR;
typedef const CHAR *PCSTR;
typedef WCHAR *PWSTR;
typedef const WCHAR *PCWSTR;
typedef void *PVOID;
typedef const void *LPCVOID;
typedef unsigned int UINT;
typedef WORD LANGID;

#ifdef UNICODE
typedef WCHAR TCHAR;
#define PERFLIB__TEXT(s) u##s
#else
typedef char TCHAR;
#define PERFLIB__TEXT(s) s
#endif
typedef TCHAR *LPTSTR, *PTSTR;
typedef const TCHAR *LPCTSTR, *PCTSTR;
#ifndef TEXT
#define TEXT(s) PERFLIB__TEXT(s)
#endif

#ifndef TRUE
#define TRUE 1
#endif
#ifndef FALSE
#define FALSE 0
#endif
#ifndef MAX_PATH
#define MAX_PATH 260
#endif
#ifndef MAX_COMPUTERNAME_LENGTH
#define MAX_COMPUTERNAME_LENGTH 15
#endif
#endif

#endif
