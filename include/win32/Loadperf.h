/* perflib: <Loadperf.h> as a program spells it; the header is loadperf.h (docs/win32.md). */
#include "loadperf.h"
