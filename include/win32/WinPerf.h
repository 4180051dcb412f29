/* perflib: <WinPerf.h> as a program spells it; the header is winperf.h (docs/win32.md). */
#include "winperf.h"
