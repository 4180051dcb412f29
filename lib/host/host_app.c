/* perflib: the host's rule for the AppCounters provider's title indices.
 *
 * AppCounters (providers/appcounters, docs/app-counters.md) presents the
 * objects of every running application; each application's names have
 * indices of their own, registered in the store after the engine may have
 * opened. So the built-in AppCounters record has no range, and the host
 * accepts from it any index in the third-party space above perflib's
 * reserved block; the provider itself checks every application's indices
 * against that application's record before it returns them, in the
 * engine's own store: its Open gets the store's path. */
#include <string.h>
#include <strings.h>

#include "host.h"
#include "perflib/app.h"
#include "perflib/indices.h"

static int is_app_provider(const pl_provider_info *p)
{
    return p->builtin && p->name && strcasecmp(p->name, PL_APP_PROVIDER) == 0;
}

int pl__host_is_app_record(const pl_provider_info *p)
{
    return (!p->library || !p->library[0]) && p->linkage_export &&
           strcmp(p->linkage_export, PL_APP_RECORD_MARKER) == 0;
}

const char *pl__host_open_arg(pl_store *st, const pl_provider_info *p)
{
    return is_app_provider(p) ? pl_store_path(st) : p->linkage_export;
}

int pl__host_app_index_ok(const pl_provider_info *p, uint32_t idx, int help)
{
    if (!is_app_provider(p)) return 0;
    return idx > PL_IDX_BUILTIN_RESERVED_LAST + (help ? 1u : 0u) && idx <= 0x7FFFFFFFu;
}

int pl__host_may_own(const pl_provider_info *p, const pl_query_items *q)
{
    if (!is_app_provider(p)) return 1;
    for (size_t i = 0; i < q->n; i++)
        if (q->items[i] > PL_IDX_BUILTIN_RESERVED_LAST) return 1;
    return 0;
}
