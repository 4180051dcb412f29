/* perflib: <winnt.h>: its types and macros are in windef.h (docs/win32.md). */
#include "windef.h"
