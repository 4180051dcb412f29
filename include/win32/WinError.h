/* perflib: <WinError.h> as a program spells it; the header is winerror.h (docs/win32.md). */
#include "winerror.h"
