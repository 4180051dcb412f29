/* perflib: helpers shared by the OS collectors (collect_os.h). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "collect_os.h"
#include "platform.h"

int pl__text_complete(const char *text, size_t len)
{
    /* an embedded NUL would hide the rest of the file from the parsers */
    return len > 0 && text[len - 1] == '\n' && strlen(text) == len;
}

int pl__parse_fixed2(const char **p, uint64_t *v)
{
    const char *s = *p;
    uint64_t ip = 0;
    if (!pl__parse_u64(&s, &ip)) return 0;
    if (s[0] != '.' || s[1] < '0' || s[1] > '9' || s[2] < '0' || s[2] > '9') return 0;
    if (s[3] >= '0' && s[3] <= '9') return 0; /* the kernel prints exactly two decimals */
    uint64_t frac = (uint64_t)(s[1] - '0') * 10 + (uint64_t)(s[2] - '0');
    if (ip > (UINT64_MAX - frac) / 100) return 0; /* beyond 64 bits: never a saturated number */
    *v = ip * 100 + frac;
    *p = s + 3;
    return 1;
}
