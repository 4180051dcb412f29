/* perflib: <WinSvc.h> as a program spells it; the header is winsvc.h (docs/win32.md). */
#include "winsvc.h"
