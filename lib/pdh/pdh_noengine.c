/* pl_pdh_engine_source() when libperflib is built without the query engine. */
#include "pdh_internal.h"

PL_EXTERN uint32_t pl_pdh_engine_source(pl_engine *e, pl_pdh_source *out, pl_error *err)
{
    (void)e;
    (void)out;
    return pl__pdh_fail(err, PL_PDH_NOT_IMPLEMENTED, "this libperflib was built without the query engine");
}

uint32_t pl__pdh_open_local(pl_pdh_source *out, pl_error *err)
{
    (void)out;
    return pl__pdh_fail(err, PL_PDH_CANNOT_CONNECT_MACHINE, "this libperflib was built without the query engine");
}
