/* perflib-samba: shared helpers (sb_util.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sb_util.h"

int sb_grow(void **arr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return 0;
    size_t n = *cap ? *cap : 16;
    while (n < need) {
        if (n > SIZE_MAX / 2) return -1;
        n *= 2;
    }
    if (n > SIZE_MAX / elem) return -1;
    void *p = realloc(*arr, n * elem);
    if (!p) return -1;
    memset((char *)p + *cap * elem, 0, (n - *cap) * elem);
    *arr = p;
    *cap = n;
    return 0;
}
