/* perflib: <WinBase.h> as a program spells it; the header is winbase.h (docs/win32.md). */
#include "winbase.h"
