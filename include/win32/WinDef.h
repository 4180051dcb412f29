/* perflib: <WinDef.h> as a program spells it; the header is windef.h (docs/win32.md). */
#include "windef.h"
