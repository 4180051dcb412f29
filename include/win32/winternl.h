/* perflib: the NTSTATUS part of Windows' winternl.h/ntdef.h that
 * performance code uses (docs/win32.md). */
#ifndef PERFLIB_WIN32_WINTERNL_H
#define PERFLIB_WIN32_WINTERNL_H

#include "windef.h"
#include "ntstatus.h"

#endif
