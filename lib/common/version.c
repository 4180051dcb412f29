/* The library's version (CMake's PROJECT_VERSION). */
#include "perflib/status.h"

PL_EXTERN const char *pl_version(void)
{
    return PL_VERSION_STRING;
}
