/* perflib: <CrtDbg.h> as a program spells it; the header is crtdbg.h (docs/win32.md). */
#include "crtdbg.h"
