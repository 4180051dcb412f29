/* perflib: the fixed-width Windows base types used by the wire format and the
 * provider ABI. They have the Windows names so that ported code compiles. */
#ifndef PERFLIB_WINTYPES_H
#define PERFLIB_WINTYPES_H

#include <stdint.h>

#ifndef PERFLIB_NO_WIN32_TYPES
typedef uint32_t DWORD;
typedef int32_t LONG;
typedef uint32_t ULONG;
typedef uint16_t WORD;
typedef uint8_t BYTE;
typedef int BOOL;
typedef uint16_t WCHAR;      /* UTF-16LE code unit, never wchar_t */
typedef WCHAR *LPWSTR;
typedef const WCHAR *LPCWSTR;
typedef void *LPVOID;
typedef DWORD *LPDWORD;
typedef int64_t LONGLONG;
typedef uint64_t ULONGLONG;

typedef union LARGE_INTEGER {
    struct {
        DWORD LowPart;
        LONG HighPart;
    } u;
    LONGLONG QuadPart;
} LARGE_INTEGER;

typedef struct SYSTEMTIME {
    WORD wYear;
    WORD wMonth;
    WORD wDayOfWeek;
    WORD wDay;
    WORD wHour;
    WORD wMinute;
    WORD wSecond;
    WORD wMilliseconds;
} SYSTEMTIME;

#define ERROR_SUCCESS 0u
#define ERROR_FILE_NOT_FOUND 2u
#define ERROR_INVALID_HANDLE 6u
#define ERROR_INVALID_DATA 13u
#define ERROR_OUTOFMEMORY 14u
#define ERROR_INVALID_PARAMETER 87u
#define ERROR_CALL_NOT_IMPLEMENTED 120u
#define ERROR_ALREADY_EXISTS 183u
#define ERROR_MORE_DATA 234u
#define ERROR_NO_MORE_ITEMS 259u
#define ERROR_BADKEY 1010u
#define ERROR_NOT_FOUND 1168u
#endif

#endif
