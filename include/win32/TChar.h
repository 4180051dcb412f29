/* perflib: <TChar.h> as a program spells it; the header is tchar.h (docs/win32.md). */
#include "tchar.h"
