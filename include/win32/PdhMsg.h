/* perflib: <PdhMsg.h> as a program spells it; the header is pdhmsg.h (docs/win32.md). */
#include "pdhmsg.h"
