/* perflib-samba: the few helpers its files share (the tool links the shipped
 * libperflib, whose own helpers are not exported). */
#ifndef SB_UTIL_H
#define SB_UTIL_H

#include <stddef.h>

/* Make room for `need` elements of `elem` bytes in *arr (capacity *cap,
 * doubled as needed, new room zeroed). 0, or -1 on no memory (*arr kept). */
int sb_grow(void **arr, size_t *cap, size_t need, size_t elem);

/* Order of map slots by what they serve (object, kind, counter, occurrence). */
int sb_slot_cmp_identity(const void *a, const void *b);

#endif
