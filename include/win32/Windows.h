/* perflib: <Windows.h> as a program spells it; the header is windows.h (docs/win32.md). */
#include "windows.h"
