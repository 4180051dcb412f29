/* See example_store.h. */
#include "example_store.h"

#include <stdlib.h>

#include "perflib/registry.h"

DWORD example_first_indices(const char *provider, uint32_t *first_counter, uint32_t *first_help)
{
    pl_store *st = NULL;
    pl_error err = {0};
    /* NULL: PERFLIB_REGISTRY, then the installed store, then the build tree's. */
    if (pl_store_open(NULL, PL_STORE_READONLY, &st, &err) != PL_OK) return ERROR_FILE_NOT_FOUND;
    pl_provider_info info = {0};
    int rc = pl_store_provider(st, provider, &info, &err);
    pl_store_close(st);
    if (rc != PL_OK) return ERROR_BADKEY;
    uint32_t fc = info.first_counter, fh = info.first_help;
    pl_provider_info_clear(&info);
    if (fc == 0 || fh == 0) return ERROR_NOT_FOUND;
    *first_counter = fc;
    *first_help = fh;
    return ERROR_SUCCESS;
}
