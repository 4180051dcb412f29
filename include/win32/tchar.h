/* perflib: the generic-text macros of Windows' tchar.h that ported
 * console programs use, for the 8-bit (UTF-8) build only: with _UNICODE
 * they are not provided, because WCHAR here is UTF-16 and the C library's
 * wide functions are not. docs/win32.md. */
#ifndef PERFLIB_WIN32_TCHAR_H
#define PERFLIB_WIN32_TCHAR_H

#ifdef _UNICODE
#error "perflib's tchar.h supports only the 8-bit (UTF-8) build; use the A functions or WCHAR explicitly"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#ifndef _T
#define _T(s) s
#endif
#ifndef _TEXT
#define _TEXT(s) s
#endif
typedef char _TCHAR;
#define _tmain main
#define _tprintf printf
#define _ftprintf fprintf
#define _stprintf sprintf
#define _tcslen strlen
#define _tcscpy strcpy
#define _tcscmp strcmp
#define _tcsicmp strcasecmp
#define _tcsnicmp strncasecmp
#define _tcschr strchr
#define _tcsrchr strrchr
#define _tcsstr strstr
#define _ttoi atoi
#define _ttol atol
#define _tcstoul strtoul

#endif
