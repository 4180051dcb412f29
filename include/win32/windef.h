/* perflib: the part of Windows' windef.h/winnt.h/minwindef.h that ported
 * performance code needs (docs/win32.md): base types, pointer and string
 * types, TCHAR/TEXT(), calling-convention and export macros, the memory
 * macros. The fixed-width base types (DWORD, LONG, WCHAR = a UTF-16 code
 * unit, ...) come from perflib/wintypes.h.
 *
 * Strings: the "A" forms are UTF-8; the "W" forms are UTF-16LE arrays of
 * WCHAR. WCHAR is uint16_t in C; in C++ it is wchar_t when wchar_t is 16 bits
 * (-fshort-wchar), else char16_t, so L"" (with -fshort-wchar) and u""
 * literals initialise it in both languages. TCHAR is char unless UNICODE is
 * defined, then WCHAR; TEXT("x") is then L"x" with -fshort-wchar, else u"x". */
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
typedef struct _FILETIME {
    DWORD dwLowDateTime;
    DWORD dwHighDateTime;
} FILETIME, *PFILETIME, *LPFILETIME;
#endif

#ifndef PERFLIB_WIN32_EXTRA_TYPES
#define PERFLIB_WIN32_EXTRA_TYPES
#include <string.h> /* winnt.h's memory macros are the C library's */

typedef void VOID;
typedef short SHORT;
typedef unsigned short USHORT;
typedef unsigned char UCHAR;
typedef int INT;
typedef float FLOAT;
typedef CHAR *PCHAR, *LPCH, *PCH;
typedef const CHAR *LPCCH, *PCCH;
typedef UCHAR *PUCHAR;
typedef SHORT *PSHORT;
typedef USHORT *PUSHORT;
typedef INT *PINT, *LPINT;
typedef BYTE *PBYTE;
typedef BYTE *LPBYTE;
typedef const BYTE *LPCBYTE;
typedef WORD *PWORD, *LPWORD;
typedef LONG *PLONG, *LPLONG;
typedef DWORD *PDWORD;
typedef ULONG *PULONG;
typedef BOOL *PBOOL, *LPBOOL;
typedef BOOLEAN *PBOOLEAN;
typedef LONGLONG *PLONGLONG;
typedef ULONGLONG *PULONGLONG;
typedef ULONGLONG DWORDLONG, *PDWORDLONG;
typedef unsigned long long DWORD64, *PDWORD64, QWORD;
typedef long long LONG64, *PLONG64, INT64, *PINT64;
typedef unsigned long long ULONG64, *PULONG64, UINT64, *PUINT64;
typedef int INT32, *PINT32;
typedef unsigned int UINT32, *PUINT32, DWORD32, *PDWORD32;
typedef uintptr_t ULONG_PTR, *PULONG_PTR, UINT_PTR, *PUINT_PTR, SIZE_T, *PSIZE_T;
typedef intptr_t LONG_PTR, *PLONG_PTR, INT_PTR, *PINT_PTR, SSIZE_T, *PSSIZE_T;
typedef DWORD_PTR *PDWORD_PTR;
typedef CHAR *PSTR, *NPSTR;
typedef const CHAR *PCSTR;
typedef WCHAR *PWSTR, *PWCHAR, *LPWCH, *PWCH, *NWPSTR;
typedef const WCHAR *PCWSTR, *LPCWCH, *PCWCH;
typedef void *PVOID;
typedef const void *LPCVOID;
typedef unsigned int UINT, *PUINT;
typedef WORD LANGID;
typedef DWORD LCID;
typedef LONG HRESULT;
typedef HANDLE *PHANDLE, *LPHANDLE;
typedef HANDLE HINSTANCE, HMODULE, HLOCAL, HGLOBAL, HWND;
typedef UINT_PTR WPARAM;
typedef LONG_PTR LPARAM, LRESULT;

typedef struct _SECURITY_ATTRIBUTES {
    DWORD nLength;
    LPVOID lpSecurityDescriptor;
    BOOL bInheritHandle;
} SECURITY_ATTRIBUTES, *PSECURITY_ATTRIBUTES, *LPSECURITY_ATTRIBUTES;

#if defined(__SIZEOF_WCHAR_T__) && __SIZEOF_WCHAR_T__ == 2
#define PERFLIB__WTEXT(s) L##s
#else
#define PERFLIB__WTEXT(s) u##s
#endif
#ifdef UNICODE
typedef WCHAR TCHAR, TBYTE;
#define PERFLIB__TEXT(s) PERFLIB__WTEXT(s)
#else
typedef char TCHAR, TBYTE;
#define PERFLIB__TEXT(s) s
#endif
typedef TCHAR *LPTSTR, *PTSTR, *PTCHAR;
typedef const TCHAR *LPCTSTR, *PCTSTR;
#ifndef TEXT
#define TEXT(s) PERFLIB__TEXT(s)
#endif
#ifndef __TEXT
#define __TEXT(s) PERFLIB__TEXT(s)
#endif

/* Calling conventions, annotations and storage classes: empty on x86_64
 * Linux (one convention), except that an exported function must be
 * visible from the .so. */
#ifndef WINAPI
#define WINAPI
#endif
#define APIENTRY WINAPI
#define CALLBACK
#define WINAPIV
#define PASCAL
#define NTAPI
#define STDMETHODCALLTYPE
#ifndef __stdcall
#define __stdcall
#endif
#ifndef __cdecl
#define __cdecl
#endif
#ifndef _cdecl
#define _cdecl
#endif
#define WINBASEAPI
#define WINADVAPI
#define NTSYSAPI
#define FAR
#define NEAR
#ifndef far
#define far
#endif
#ifndef near
#define near
#endif
#define CONST const
#ifndef IN
#define IN
#endif
#ifndef OUT
#define OUT
#endif
#ifndef OPTIONAL
#define OPTIONAL
#endif
/* SAL 1 and 2 annotations: nothing. In C++, __in and __out are left out:
 * libstdc++ uses them as identifiers (docs/win32.md). */
#ifndef __cplusplus
#define __in
#define __out
#endif
#define __in_opt
#define __out_opt
#define __inout
#define __inout_opt
#define __reserved
#define __deref_out
#define __deref_out_opt
#define __in_ecount(n)
#define __in_bcount(n)
#define __out_ecount(n)
#define __out_bcount(n)
#define __out_ecount_opt(n)
#define __out_bcount_opt(n)
#define __inout_ecount(n)
#define __inout_bcount(n)
#define __in_z
#define __out_z
#define _In_reads_(n)
#define _In_reads_bytes_(n)
#define _Out_writes_(n)
#define _Out_writes_bytes_(n)
#define _Out_writes_opt_(n)
#define _Inout_updates_(n)
#define _Success_(e)
#define _Check_return_
#define _Ret_maybenull_
#define _In_
#define _In_opt_
#define _Out_
#define _Out_opt_
#define _Inout_
#define _Inout_opt_
#define _In_z_
#define _Reserved_
#define __int64 long long
#define __int32 int
#define __int16 short
#define __int8 char
/* __declspec(dllexport) makes the symbol visible (the build may hide the
 * rest with -fvisibility=hidden); the other attributes ported performance
 * code uses map to their GCC forms or to nothing. */
#define __declspec(a) PERFLIB__DECLSPEC_##a
#define PERFLIB__DECLSPEC_dllexport __attribute__((visibility("default")))
#define PERFLIB__DECLSPEC_dllimport
#define PERFLIB__DECLSPEC_noinline __attribute__((noinline))
#define PERFLIB__DECLSPEC_noreturn __attribute__((noreturn))
#define PERFLIB__DECLSPEC_selectany __attribute__((weak))
#define PERFLIB__DECLSPEC_thread __thread
#define PERFLIB__DECLSPEC_novtable

#ifndef TRUE
#define TRUE 1
#endif
#ifndef FALSE
#define FALSE 0
#endif
#ifndef NULL
#define NULL ((void *)0)
#endif
#ifndef MAX_PATH
#define MAX_PATH 260
#endif
#ifndef MAX_COMPUTERNAME_LENGTH
#define MAX_COMPUTERNAME_LENGTH 15
#endif
#define INVALID_HANDLE_VALUE ((HANDLE)(LONG_PTR)-1)

#define MAKEWORD(a, b) ((WORD)(((BYTE)((DWORD_PTR)(a) & 0xff)) | ((WORD)((BYTE)((DWORD_PTR)(b) & 0xff))) << 8))
#define MAKELONG(a, b) ((LONG)(((WORD)((DWORD_PTR)(a) & 0xffff)) | ((DWORD)((WORD)((DWORD_PTR)(b) & 0xffff))) << 16))
#define LOWORD(l) ((WORD)((DWORD_PTR)(l) & 0xffff))
#define HIWORD(l) ((WORD)((DWORD_PTR)(l) >> 16))
#define LOBYTE(w) ((BYTE)((DWORD_PTR)(w) & 0xff))
#define HIBYTE(w) ((BYTE)((DWORD_PTR)(w) >> 8))
#ifndef NOMINMAX
#ifndef max
#define max(a, b) (((a) > (b)) ? (a) : (b))
#endif
#ifndef min
#define min(a, b) (((a) < (b)) ? (a) : (b))
#endif
#endif
#define FIELD_OFFSET(type, field) ((LONG)offsetof(type, field))
#define RTL_FIELD_SIZE(type, field) (sizeof(((type *)0)->field))
#define RTL_SIZEOF_THROUGH_FIELD(type, field) (FIELD_OFFSET(type, field) + RTL_FIELD_SIZE(type, field))
/* winnt.h's compile-time assertion, usable at file and block scope. */
#define PERFLIB__CAT2(a, b) a##b
#define PERFLIB__CAT(a, b) PERFLIB__CAT2(a, b)
#define C_ASSERT(e) typedef char PERFLIB__CAT(perflib__c_assert_, __LINE__)[(e) ? 1 : -1] __attribute__((unused))
#define ARRAYSIZE(a) (sizeof(a) / sizeof((a)[0]))
#define _countof(a) (sizeof(a) / sizeof((a)[0]))
#define UNREFERENCED_PARAMETER(p) ((void)(p))
#define DBG_UNREFERENCED_PARAMETER(p) ((void)(p))
#define DBG_UNREFERENCED_LOCAL_VARIABLE(v) ((void)(v))

#define RtlEqualMemory(d, s, n) (!memcmp((d), (s), (n)))
#define RtlMoveMemory(d, s, n) memmove((d), (s), (n))
#define RtlCopyMemory(d, s, n) memcpy((d), (s), (n))
#define RtlFillMemory(d, n, f) memset((d), (f), (n))
#define RtlZeroMemory(d, n) memset((d), 0, (n))
#define MoveMemory RtlMoveMemory
#define CopyMemory RtlCopyMemory
#define FillMemory RtlFillMemory
#define ZeroMemory RtlZeroMemory
#define EqualMemory RtlEqualMemory
#define SecureZeroMemory RtlZeroMemory

/* winnt.h's one-element array that variable-length structures end with
 * (TOKEN_GROUPS, an ioctl's buffer): `BYTE Data[ANYSIZE_ARRAY]`. */
#define ANYSIZE_ARRAY 1

/* The standard access rights of winnt.h (service, event and file access
 * masks are built from them). */
#define DELETE 0x00010000u
#define READ_CONTROL 0x00020000u
#define WRITE_DAC 0x00040000u
#define WRITE_OWNER 0x00080000u
#define STANDARD_RIGHTS_REQUIRED 0x000F0000u
#define STANDARD_RIGHTS_READ READ_CONTROL
#define STANDARD_RIGHTS_WRITE READ_CONTROL
#define STANDARD_RIGHTS_EXECUTE READ_CONTROL
#define STANDARD_RIGHTS_ALL 0x001F0000u
#define GENERIC_READ 0x80000000u
#define GENERIC_WRITE 0x40000000u
#define GENERIC_EXECUTE 0x20000000u
#define GENERIC_ALL 0x10000000u

#define DLL_PROCESS_DETACH 0
#define DLL_PROCESS_ATTACH 1
#define DLL_THREAD_ATTACH 2
#define DLL_THREAD_DETACH 3
#endif

#endif
