/* Shared by the example providers: find the provider's own title indices.
 *
 * A Windows provider reads "First Counter" and "First Help" from its
 * Services\<name>\Performance key at Open time and adds its symbol offsets.
 * Here the registry is perflib's store, so the examples open it read-only
 * (the same store the host uses when PERFLIB_REGISTRY or the default
 * location selects it) and read their provider record. */
#ifndef EXAMPLE_STORE_H
#define EXAMPLE_STORE_H

#include <stdint.h>

#include "perflib/wintypes.h"

/* First Counter / First Help of `provider` as lodctr recorded them. Returns
 * ERROR_SUCCESS, ERROR_FILE_NOT_FOUND when the store cannot be opened,
 * ERROR_BADKEY when the provider has no record, or ERROR_NOT_FOUND when its
 * counters were never installed (First Counter is 0). */
DWORD example_first_indices(const char *provider, uint32_t *first_counter, uint32_t *first_help);

#endif
