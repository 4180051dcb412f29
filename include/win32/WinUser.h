/* perflib: <WinUser.h> as a program spells it; the header is winuser.h (docs/win32.md). */
#include "winuser.h"
