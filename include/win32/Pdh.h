/* perflib: <Pdh.h> as a program spells it; the header is pdh.h (docs/win32.md). */
#include "pdh.h"
