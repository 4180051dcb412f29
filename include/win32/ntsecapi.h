/* perflib: <ntsecapi.h> as performance code includes it for NTSTATUS (docs/win32.md). */
#include "winternl.h"
