/* perflib: <WinReg.h> as a program spells it; the header is winreg.h (docs/win32.md). */
#include "winreg.h"
