/* perflib: <WinNT.h> as a program spells it; the header is winnt.h. */
#include "winnt.h"
