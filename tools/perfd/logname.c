/* perfd: /v1/replay's check of a log name (stream.c, docs/web.md). Its own
 * file so that tests/perfd/test_perfd_logname.c tests it directly. */
#include <string.h>

#include "stream.h"

int perfd_log_name_ok(const char *name)
{
    size_t n = name ? strlen(name) : 0;
    if (n == 0 || n > 255 || name[0] == '.') return 0;  /* also ".", "..", hidden files */
    for (const char *p = name; *p; p++)
        if (*p == '/' || *p == '\\' || (unsigned char)*p < 0x20 || *p == 0x7f) return 0;
    return 1;
}
