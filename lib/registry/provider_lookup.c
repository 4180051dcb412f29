/* perflib: a provider's own title indices, for its Open (provider.h). */
#include "perflib/provider.h"
#include "perflib/registry.h"
#include "pl_internal.h"

PL_EXTERN DWORD pl_provider_first_indices(const char *provider, uint32_t *first_counter, uint32_t *first_help)
{
    if (!provider || !first_counter || !first_help) return ERROR_INVALID_PARAMETER;
    pl_store *st = NULL;
    pl_error err;
    if (pl_store_open(NULL, PL_STORE_READONLY, &st, &err) != PL_OK) return ERROR_FILE_NOT_FOUND;
    pl_provider_info info;
    memset(&info, 0, sizeof info);
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
