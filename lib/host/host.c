/* perflib: the provider host.
 *
 * Each provider named in the registry store runs in one of two ways (its
 * record's isolation):
 *  - in-process: loaded on first need with dlopen(RTLD_NOW|RTLD_LOCAL), its
 *    Open/Collect/Close resolved by the names the store gives;
 *  - isolated: in its own helper process (perflib-provider-host), started
 *    with posix_spawn on first need and spoken to over a socketpair
 *    (helper_proto.h). Open/Collect Timeouts are enforced with poll(); a
 *    helper that times out is killed and reaped, one that crashes or sends
 *    a malformed reply gets the provider disabled.
 * Open runs once before the first Collect; an Open error is logged and Open
 * is tried again on the next query. Collect runs with a buffer that grows on
 * ERROR_MORE_DATA, a bounded number of times. Every result, from either
 * mode, is checked against the contract (pointer advanced by exactly
 * *bytes, a multiple of 8, the right object count, every object valid,
 * title indices inside the provider's range or the base set, nothing
 * written past the buffer) before it joins the answer. A provider that
 * breaks the contract is disabled in the store with the reason and time and
 * logged; an error return from Collect is logged and the provider kept. A
 * call that passes its timeout is late, never a reason to disable (issue
 * 33): the answer goes on without the provider's objects until the call
 * returns. A provider is never called concurrently with itself. The isolated half (the
 * helper process and its protocol) is host_helper.c; what the two share is
 * host_int.h. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "host_int.h"
#include "perflib/app.h"
#include "perflib/block.h"
#include "perflib/indices.h"

/* ------------------------------------------------------------ clock */

int64_t pl__host_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ------------------------------------------------------------- logging */

void pl__host_note(pl__host *h, pl__prov *p, int prio, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* Log a repeated problem once, not on every query. */
    int repeat = strcmp(msg, p->last_error) == 0;
    memcpy(p->last_error, msg, sizeof p->last_error);
    if (h->cfg.use_syslog && !repeat)
        syslog(LOG_USER | prio, "perflib: provider %s: %s", p->info.name ? p->info.name : "?", msg);
}

/* ------------------------------------------------------------- loading */

static void parse_object_list(pl__prov *p)
{
    p->has_objlist = 0;
    p->nobjlist = 0;
    const char *s = p->info.object_list;
    if (!s) return;
    while (*s) {
        while (*s == ' ' || *s == '\t' || *s == ',') s++;
        if (!*s) break;
        uint64_t v = 0;
        int digits = 0;
        while (*s >= '0' && *s <= '9' && digits < 11) {
            v = v * 10 + (uint64_t)(*s - '0');
            s++;
            digits++;
        }
        if (!digits) { /* junk in the list: skip the word */
            while (*s && *s != ' ' && *s != '\t' && *s != ',') s++;
            continue;
        }
        while (*s >= '0' && *s <= '9') s++;
        if (v > 0 && v <= 0xFFFFFFFFu && p->nobjlist < PL_QUERY_MAX_ITEMS) p->objlist[p->nobjlist++] = (uint32_t)v;
    }
    p->has_objlist = p->nobjlist > 0;
}

/* What earlier consumers recorded: deaths inside a call and calls left
 * running, in a row (the latter skips the provider for a while), and a disable they
 * could not write into the store (host_state.h). */
static void apply_state(pl__host *h, pl__prov *p)
{
    if (p->disabled || !p->info.name) return;
    pl__pstate ps;
    pl__state_get(h->state, p->info.name, &ps);
    p->timeouts_in_row = ps.timeouts;
    p->hung_in_row = ps.hung;
    int64_t until = pl__state_skip_until(&ps, (int64_t)time(NULL));
    if (until) p->skip_until = until;
    p->closefail_in_row = ps.closefail;
    p->breaks_in_row = ps.breaks;
    if (ps.disabled) {
        p->disabled = 1;
        if (snprintf(p->last_error, sizeof p->last_error, "disabled: %s", ps.reason) >= (int)sizeof p->last_error)
            p->last_error[sizeof p->last_error - 1] = '\0';
    }
}

static void link_wrappers(pl__host *h);

int pl__host_new(pl_store *st, const pl__host_config *cfg, pl__host **out, pl_error *err)
{
    pl__host *h = calloc(1, sizeof *h);
    if (!h) return pl__fail(err, PL_E_NOMEM, "out of memory");
    h->st = st;
    if (cfg) h->cfg = *cfg;
    if (!h->cfg.max_more_data_rounds) h->cfg.max_more_data_rounds = DEFAULT_MORE_DATA_ROUNDS;
    if (!h->cfg.max_provider_bytes) h->cfg.max_provider_bytes = DEFAULT_MAX_PROVIDER_BYTES;
    h->provider_dir = pl__strdup(cfg && cfg->provider_dir ? cfg->provider_dir : ".");
    h->cfg.provider_dir = h->provider_dir;
    pl__limits_get(&h->limits);

    pl_perflib_info pi;
    int rc = pl_store_perflib(st, &pi, err);
    if (rc != PL_OK) goto fail;
    h->base_index = pi.base_index;

    pl_provider_info *list = NULL;
    size_t n = 0;
    rc = pl_store_providers(st, &list, &n, err);
    if (rc != PL_OK) goto fail;
    h->p = calloc(n ? n : 1, sizeof *h->p);
    if (!h->p || !h->provider_dir) {
        pl_provider_list_free(list, n);
        rc = pl__fail(err, PL_E_NOMEM, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < n; i++) {
        pl__prov *p = &h->p[i];
        p->info = list[i];             /* take ownership of the strings */
        pthread_mutex_init(&p->mu, NULL);
        p->disabled = p->info.disabled;
        p->isolated = p->info.isolation == PL_ISOLATION_HELPER;
        p->sock = -1;
        p->pidfd = -1;
        p->open_ms = p->info.open_timeout_ms ? p->info.open_timeout_ms : DEFAULT_OPEN_TIMEOUT_MS;
        p->collect_ms = p->info.collect_timeout_ms ? p->info.collect_timeout_ms : DEFAULT_COLLECT_TIMEOUT_MS;
        parse_object_list(p);
        if (p->info.library && p->info.library[0]) {
            if (p->info.library[0] == '/') {
                p->path = pl__strdup(p->info.library);
            } else {
                size_t len = strlen(h->provider_dir) + strlen(p->info.library) + 2;
                p->path = malloc(len);
                if (p->path) snprintf(p->path, len, "%s/%s", h->provider_dir, p->info.library);
            }
            if (!p->path) { /* out of memory: not "no Library" */
                h->n++;
                for (size_t j = i + 1; j < n; j++) pl_provider_info_clear(&list[j]);
                pl__host_free(h);
                free(list);
                return pl__fail(err, PL_E_NOMEM, "out of memory");
            }
        }
        h->n++;
    }
    free(list); /* the records' strings now belong to h->p */
    link_wrappers(h);
    for (size_t i = 0; i < h->n; i++)
        if (pl__host_is_app_record(&h->p[i].info))
            snprintf(h->p[i].last_error, sizeof h->p[i].last_error,
                     "an application's record: its objects come through %s", PL_APP_PROVIDER);
    h->state = pl__state_open(pl_store_path(st));
    for (size_t i = 0; i < h->n; i++) apply_state(h, &h->p[i]);
    *out = h;
    return PL_OK;
fail:
    free(h->provider_dir);
    free(h);
    return rc;
}

static void inproc_close(pl__host *h, pl__prov *p);

void pl__host_free(pl__host *h)
{
    if (!h) return;
    for (size_t i = 0; i < h->n; i++) {
        pl__prov *p = &h->p[i];
        if (p->isolated) pl__host_helper_close(h, p);
        else if (p->late) inproc_close(h, p); /* waits for the late call, or leaves it */
        else if (p->opened && !p->hung) inproc_close(h, p);
        pl__worker_free(p->worker); /* NULL after a hung call: that thread is left where it is */
        pl__marker_free(p->mk);
        if (!p->hung) pl__inflight_free(p->inflight); /* a hung call may still read it */
        if (p->dl && !p->hung) { /* a thread may still run inside a hung one */
            (void)plh_dllmain(p->dl, PLH_DLL_PROCESS_DETACH);
            dlclose(p->dl);
        }
        free(p->buf);
        free(p->path);
        pl_provider_info_clear(&p->info);
        pthread_mutex_destroy(&p->mu);
    }
    free(h->p);
    free(h->provider_dir);
    pl__state_close(h->state);
    free(h);
}

/* As root, a library others could change is not loaded (nor given to a
 * helper, which runs as root too): logged, and checked again on the next
 * query. */
int pl__host_library_trusted(pl__host *h, pl__prov *p)
{
    pl_error e;
    if (pl__path_trusted(p->path, "the provider library", &e) == PL_OK) return 1;
    p->errors++;
    pl__host_note(h, p, LOG_ERR, "%s", e.msg);
    return 0;
}

static int load(pl__host *h, pl__prov *p)
{
    if (p->loaded) return 1;
    if (!p->path) {
        pl__host_note(h, p, LOG_WARNING, "no Library in its registry entry; skipped");
        return 0;
    }
    if (!p->info.collect || !p->info.collect[0]) {
        pl__host_note(h, p, LOG_WARNING, "no Collect entry point in its registry entry; skipped");
        return 0;
    }
    /* A consumer that ended inside one of this provider's calls: the
     * provider most likely took it down, and would take this one too. But a
     * consumer can also end there for reasons of its own (Ctrl-C, kill,
     * the OOM killer: a Collect is most of a one-shot tool's life), and a
     * disable in the store holds for everyone until lodctr /e. So it counts
     * as a failure in the failure state, with the timeouts: two in a row
     * (no Collect answering in between) disable the provider, and one
     * leaves a warning. Without a failure state, the first disables. */
    char why[200];
    char died_in = pl__state_dead_consumer(h->state, p->info.name, why, sizeof why);
    if (died_in) {
        /* Inside Close: counted apart from the timeouts, which every
         * Collect that answers clears (one comes before each Close), and
         * cleared only by a Close that returns. */
        int in_close = died_in == 'X';
        unsigned n = in_close ? pl__state_add_closefail(h->state, p->info.name)
                              : pl__state_add_timeout(h->state, p->info.name);
        if (in_close) p->closefail_in_row = n;
        else p->timeouts_in_row = n;
        if (n == 0 || n >= MAX_DEAD_IN_ROW) {
            if (n > 1) pl__host_disable(h, p, "%s (%u failures in a row)", why, n);
            else pl__host_disable(h, p, "%s", why);
            return 0;
        }
        pl__host_note(h, p, LOG_WARNING, "%s; it is tried again, and disabled if a consumer ends inside %s once more",
                      why, in_close ? "its Close" : "it");
    }
    if (!pl__host_library_trusted(h, p)) return 0;
    dlerror();
    void *dl = dlopen(p->path, RTLD_NOW | RTLD_LOCAL);
    if (!dl) {
        const char *e = dlerror();
        pl__host_note(h, p, LOG_ERR, "cannot load %s: %s", p->path, e ? e : "unknown error");
        p->errors++;
        return 0;
    }
    const char *names[3] = {p->info.open, p->info.collect, p->info.close};
    void *fn[3] = {NULL, NULL, NULL};
    for (int i = 0; i < 3; i++) {
        if (!names[i] || !names[i][0]) continue; /* Open and Close are optional */
        dlerror();
        fn[i] = dlsym(dl, names[i]);
        const char *e = dlerror();
        if (e || !fn[i]) {
            pl__host_note(h, p, LOG_ERR, "%s does not export %s: %s", p->path, names[i], e ? e : "NULL symbol");
            p->errors++;
            dlclose(dl);
            return 0;
        }
    }
    if (!plh_dllmain(dl, PLH_DLL_PROCESS_ATTACH)) {
        pl__host_note(h, p, LOG_ERR, "cannot load %s: DllMain(DLL_PROCESS_ATTACH) returned FALSE", p->path);
        p->errors++;
        dlclose(dl);
        return 0;
    }
    p->dl = dl;
    /* POSIX guarantees a data pointer from dlsym converts to a function pointer. */
    memcpy(&p->open, &fn[0], sizeof fn[0]);
    memcpy(&p->collect, &fn[1], sizeof fn[1]);
    memcpy(&p->close, &fn[2], sizeof fn[2]);
    /* The optional promise that a Collect cannot block (provider.h). */
    char nb[256];
    void *nbfn = NULL;
    if ((size_t)snprintf(nb, sizeof nb, "%s%s", p->info.collect, PL_NONBLOCKING_SUFFIX) < sizeof nb) {
        dlerror();
        nbfn = dlsym(dl, nb);
        if (dlerror()) nbfn = NULL;
    }
    memcpy(&p->nonblocking, &nbfn, sizeof nbfn);
    /* The optional note for the provider status (provider.h). */
    void *notefn = NULL;
    if ((size_t)snprintf(nb, sizeof nb, "%s%s", p->info.collect, PL_NOTE_SUFFIX) < sizeof nb) {
        dlerror();
        notefn = dlsym(dl, nb);
        if (dlerror()) notefn = NULL;
    }
    memcpy(&p->note, &notefn, sizeof notefn);
    p->loaded = 1;
    if (!p->mk) p->mk = pl__marker_new(h->state, p->info.name);
    if (!p->inflight) p->inflight = pl__inflight_new(p->info.name, pl_store_path(h->st), h->cfg.use_syslog);
    return 1;
}

/* Disable a provider for good: in the store (for the administrator to see
 * and clear) and here. Called with p->mu held. */
void pl__host_disable(pl__host *h, pl__prov *p, const char *fmt, ...)
{
    char reason[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    p->disabled = 1;
    p->errors++;
    pl__host_note(h, p, LOG_ERR, "disabled: %s", reason);
    /* In the store when this consumer may write it; else in the failure
     * state, so that this user's next consumers skip it too. */
    pl_error e;
    if (pl_store_disable_provider(h->st, p->info.name, reason, &e) == PL_OK) pl__state_clear(h->state, p->info.name);
    else pl__state_disable(h->state, p->info.name, reason);
    if (p->isolated) pl__host_helper_close(h, p);
    else if ((p->opened || p->late) && !p->hung) inproc_close(h, p);
    p->opened = 0;
}

static int wants(const pl__prov *p, const pl_query_items *q)
{
    if (q->kind == PL_QUERY_KIND_GLOBAL || q->kind == PL_QUERY_KIND_COSTLY) return 1;
    if (q->kind != PL_QUERY_KIND_ITEMS) return 0;
    if (!p->has_objlist) return pl__host_may_own(&p->info, q); /* every numeric query it may answer */
    for (size_t i = 0; i < q->n; i++)
        for (size_t j = 0; j < p->nobjlist; j++)
            if (q->items[i] == p->objlist[j]) return 1;
    return 0;
}

/* "Unavailable Counters" (1964) is the generic marker of unreadable values
 * (docs/block-format.md, "Unavailable values"): any provider may carry it. */
static int name_ok(const pl__host *h, const pl__prov *p, uint32_t idx)
{
    if (idx >= 2 && idx <= h->base_index) return 1;
    if (idx == PL_CTR_UNAVAILABLE_COUNTERS) return 1;
    if (pl__host_app_index_ok(&p->info, idx, 0)) return 1;
    if (p->wrapped && p->wrapped != p && name_ok(h, p->wrapped, idx)) return 1; /* the original's objects */
    return p->info.first_counter && idx >= p->info.first_counter && idx <= p->info.last_counter;
}

static int help_ok(const pl__host *h, const pl__prov *p, uint32_t idx)
{
    if (idx == 0 || idx <= h->base_index + 1) return 1;
    if (idx == PL_HELP(PL_CTR_UNAVAILABLE_COUNTERS)) return 1;
    if (pl__host_app_index_ok(&p->info, idx, 1)) return 1;
    if (p->wrapped && p->wrapped != p && help_ok(h, p->wrapped, idx)) return 1;
    return p->info.first_help && idx >= p->info.first_help && idx <= p->info.last_help;
}

/* Check the title indices of every object and counter. Returns 0 (with
 * `why`) when an object's lies outside the base set and the provider's
 * ranges: an object index routes queries ("230 232") and names the object,
 * so one outside the range could pose as another provider's object. A
 * counter's outside the range is kept, as Windows keeps it (the counter
 * shows without a name; pywin32's demo .ini names one under a symbol its
 * code does not use): the first such counter is described in `odd` for the
 * warning, which is otherwise left empty. */
static int indices_ok(pl__host *h, pl__prov *p, const pl_block *blk, char *why, size_t whylen, char *odd,
                      size_t oddlen)
{
    odd[0] = '\0';
    /* Walk objects and definitions with the O(1) steps: a lookup by position
     * would make a provider's answer with many objects or many definitions
     * that are not all 40 bytes long cost quadratic time here, in the host,
     * even for an isolated provider. */
    pl_object o;
    int orc = blk->num_objects ? pl_block_object(blk, 0, &o) : PL_E_NOT_FOUND;
    for (uint32_t i = 0; i < blk->num_objects; i++, orc = pl_object_next(&o, &o)) {
        if (orc != PL_OK) {
            snprintf(why, whylen, "object %u cannot be read", i);
            return 0;
        }
        if (!name_ok(h, p, o.hdr.ObjectNameTitleIndex) || !help_ok(h, p, o.hdr.ObjectHelpTitleIndex)) {
            snprintf(why, whylen, "object %u uses title index %u/%u outside its range %u-%u", i,
                     o.hdr.ObjectNameTitleIndex, o.hdr.ObjectHelpTitleIndex, p->info.first_counter,
                     p->info.last_help);
            return 0;
        }
        pl_counter k;
        int crc = o.hdr.NumCounters ? pl_object_counter(&o, 0, &k) : PL_E_NOT_FOUND;
        for (uint32_t c = 0; c < o.hdr.NumCounters; c++, crc = pl_counter_next(&k, &k)) {
            if (crc != PL_OK) {
                snprintf(why, whylen, "object %u counter %u cannot be read", i, c);
                return 0;
            }
            if (!odd[0] && (!name_ok(h, p, k.def.CounterNameTitleIndex) || !help_ok(h, p, k.def.CounterHelpTitleIndex)))
                snprintf(odd, oddlen, "object %u counter %u uses title index %u/%u outside its range %u-%u", i, c,
                         k.def.CounterNameTitleIndex, k.def.CounterHelpTitleIndex, p->info.first_counter,
                         p->info.last_help);
        }
    }
    return 1;
}

WCHAR *pl__host_to_wide(const char *s)
{
    uint16_t *w = NULL;
    if (pl__utf8_to_utf16_dup(s, &w, NULL) != PL_OK) return NULL;
    return w;
}

static void query_text(const pl_query_items *q, int64_t pid, char *out, size_t cap)
{
    if (q->kind == PL_QUERY_KIND_COSTLY) {
        snprintf(out, cap, "Costly");
        return;
    }
    if (q->kind != PL_QUERY_KIND_ITEMS) {
        snprintf(out, cap, "Global");
        return;
    }
    size_t w = 0;
    for (size_t i = 0; i < q->n && w + 12 < cap; i++) {
        char d[10];
        size_t nd = 0;
        uint32_t v = q->items[i];
        do d[nd++] = (char)('0' + v % 10); while ((v /= 10) && nd < sizeof d);
        if (i) out[w++] = ' ';
        while (nd) out[w++] = d[--nd];
    }
    out[w] = '\0';
    if (pid >= 0 && pid <= 0xFFFFFFFFll && w + 16 < cap) snprintf(out + w, cap - w, " pid=%lld", (long long)pid);
}

/* ------------------------------------------------------------ judging */

/* A Collect that broke the contract, or an isolated provider's helper that
 * crashed during Collect: that sample is left without the provider's
 * objects, and the break counts in a row in the failure state (so one-shot
 * consumers add up); the PL__STATE_BREAKS_IN_ROW-th in a row disables, and
 * a clean Collect in between starts the count again (issue 33;
 * docs/provider-host.md, "Disabling"). The one place that counts them.
 * Called with p->mu held. */
void pl__host_break(pl__host *h, pl__prov *p, const char *fmt, ...)
{
    char why[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    unsigned n = pl__state_add_break(h->state, p->info.name);
    p->breaks_in_row = n ? n : p->breaks_in_row + 1;
    if (p->breaks_in_row >= PL__STATE_BREAKS_IN_ROW) {
        pl__host_disable(h, p, "%s (%u bad Collects in a row)", why, p->breaks_in_row);
        return;
    }
    p->errors++;
    /* the same text each time, so syslog has it once */
    pl__host_note(h, p, LOG_WARNING, "%s; that sample is left without its objects, and the provider is disabled at the "
                  "%u%s bad Collect in a row", why, PL__STATE_BREAKS_IN_ROW, PL__STATE_BREAKS_IN_ROW == 3 ? "rd" : "th");
}

/* A Collect that kept the contract: the bad ones before it no longer count.
 * A wrapper's answer is judged once more (keeps_objects) before it is clean. */
static void breaks_clear(pl__host *h, pl__prov *p)
{
    if (p->breaks_in_row) {
        p->breaks_in_row = 0;
        pl__state_clear_breaks(h->state, p->info.name);
    }
}

static void collect_clean(pl__host *h, pl__prov *p)
{
    p->collects++;
    if (!p->orig) breaks_clear(h, p);
}

/* The contract checks, the same for in-process and isolated results.
 * Returns PL__GROW (ask again with *cap doubled) or PL__JUDGED; *rc receives
 * PL_E_NOMEM when the answer cannot grow. Called with p->mu held. */
int pl__host_judge(pl__host *h, pl__prov *p, const pl__call_result *r, size_t *cap, uint32_t round, pl__buf *out,
                 uint32_t *nobjects, int *rc)
{
    *rc = PL_OK;
    if (r->guard_damaged) {
        pl__host_disable(h, p, "Collect wrote past the end of its %zu-byte buffer", *cap);
        return PL__JUDGED;
    }
    if (r->rc == ERROR_MORE_DATA) {
        if (r->bytes != 0 || r->nobj != 0 || r->moved != 0) {
            pl__host_break(h, p, "Collect returned ERROR_MORE_DATA but set bytes=%u objects=%u or moved the pointer",
                    r->bytes, r->nobj);
            return PL__JUDGED;
        }
        if (round + 1 >= h->cfg.max_more_data_rounds || *cap * 2 > h->cfg.max_provider_bytes) {
            pl__host_break(h, p, "Collect kept returning ERROR_MORE_DATA (%u rounds, up to %zu bytes)", round + 1, *cap);
            return PL__JUDGED;
        }
        *cap *= 2;
        return PL__GROW;
    }
    if (r->rc != ERROR_SUCCESS) {
        p->errors++;
        pl__host_note(h, p, LOG_WARNING, "Collect returned %u; the provider stays loaded", r->rc);
        return PL__JUDGED;
    }
    if ((size_t)r->bytes > *cap) {
        pl__host_break(h, p, "Collect reported %u bytes in a %zu-byte buffer", r->bytes, *cap);
        return PL__JUDGED;
    }
    if (r->moved != (int64_t)r->bytes) {
        pl__host_break(h, p, "the pointer returned did not match the buffer length (%u bytes, pointer moved %lld)",
                r->bytes, (long long)r->moved);
        return PL__JUDGED;
    }
    if (r->bytes == 0) {
        if (r->nobj != 0) {
            pl__host_break(h, p, "Collect returned 0 bytes but %u objects", r->nobj);
            return PL__JUDGED;
        }
        collect_clean(h, p);
        return PL__JUDGED;
    }
    const uint8_t *data = r->data;
    size_t bytes = r->bytes;
    char why[200];
    uint8_t *padded = NULL;
    size_t padded_len = 0;
    if (pl__host_needs_align(data, r->bytes, r->nobj)) {
        /* Windows keeps such data, padded, and logs a warning (host_align.c). */
        int arc = pl__host_align8(data, r->bytes, r->nobj, &padded, &padded_len, why, sizeof why);
        if (arc != PL_OK) {
            if (arc == PL_E_NOMEM) *rc = arc;
            else pl__host_break(h, p, "invalid data (%u objects, %u bytes, not a multiple of 8): %s", r->nobj, r->bytes, why);
            return PL__JUDGED;
        }
        if (!p->warned_align) {
            p->warned_align = 1;
            pl__host_note(h, p, LOG_WARNING,
                 "Collect returned %u bytes in objects whose lengths are not multiples of 8; padded to %zu"
                 " (Windows event 1016)", r->bytes, padded_len);
        }
        data = padded;
        bytes = padded_len;
    }
    pl_block blk;
    pl_error verr;
    if (pl_block_open(&blk, data, bytes, PL_BLOCK_BARE, r->nobj, &verr) != PL_OK) {
        free(padded);
        pl__host_break(h, p, "invalid data (%u objects): %s", r->nobj, verr.msg);
        return PL__JUDGED;
    }
    char odd[200];
    if (!indices_ok(h, p, &blk, why, sizeof why, odd, sizeof odd)) {
        free(padded);
        pl__host_break(h, p, "%s", why);
        return PL__JUDGED;
    }
    if (odd[0] && !p->warned_index) {
        p->warned_index = 1;
        pl__host_note(h, p, LOG_WARNING, "%s; the counter is kept and shows without a name, as on Windows", odd);
    }
    if (out->p && (const char *)data == out->p + out->len) out->len += bytes; /* written in place (collect_inproc) */
    else *rc = pl__buf_append(out, data, bytes);
    free(padded);
    if (*rc != PL_OK) return PL__JUDGED;
    *nobjects += r->nobj;
    collect_clean(h, p);
    return PL__JUDGED;
}

size_t pl__host_first_room(const pl__prov *p, size_t first)
{
    return p->bufcap ? p->bufcap : p->buf_hint ? p->buf_hint : first;
}

void pl__host_trim(pl__host *h)
{
    if (!h) return;
    for (size_t i = 0; i < h->n; i++) {
        pl__prov *p = &h->p[i];
        pthread_mutex_lock(&p->mu);
        /* a late call still writes into it, or its reply will be read into it */
        if (p->buf && !p->late && !p->hung) {
            p->buf_hint = p->bufcap;
            free(p->buf);
            p->buf = NULL;
            p->bufcap = 0;
        }
        pthread_mutex_unlock(&p->mu);
    }
}

/* The provider's buffer: at least cap bytes plus the guard. */
int pl__host_ensure_buf(pl__prov *p, size_t cap)
{
    if (p->buf && p->bufcap >= cap) return PL_OK;
    uint8_t *nb = realloc(p->buf, cap + GUARD_BYTES);
    if (!nb) return PL_E_NOMEM;
    p->buf = nb;
    p->bufcap = cap;
    return PL_OK;
}


/* One call into an in-process provider: on its worker thread, bounded by
 * `ms`, under its in-flight marker. Returns 0 when the call did not return
 * in time: it is then late (p->late, issue 33), still running on the
 * worker with the Collect buffer, and the caller goes on without it. With
 * `here` (a Collect the provider promised cannot block), or without a
 * worker (no thread could be made), the call runs on this thread,
 * unbounded. Called with p->mu held. */
static int inproc_call(pl__prov *p, pl__call *c, uint32_t ms, char mark, int here)
{
    if (!p->worker && !here) p->worker = pl__worker_new();
    pl__marker_set(p->mk, mark);
    pl__inflight_set(p->inflight, mark);
    if (p->inflight) {
        c->enter = pl__inflight_enter;
        c->leave = pl__inflight_leave;
        c->ctx = p->inflight;
    }
    if (!p->worker || here) {
        if (c->enter) c->enter(c->ctx);
        if (c->kind == PL__CALL_OPEN) c->rc = c->open(c->arg);
        else if (c->kind == PL__CALL_COLLECT) c->rc = c->collect(c->arg, &c->data, &c->bytes, &c->nobj);
        else c->rc = c->close();
        if (c->leave) c->leave(c->ctx);
        free(c->arg);
        c->arg = NULL;
        pl__marker_set(p->mk, '-');
        return 1;
    }
    int64_t start = pl__host_now_ms();
    int done = pl__worker_call(p->worker, c, ms);
    /* A late call is a slow one, not a crash: a consumer that ends while it
     * runs is not counted as ended inside the provider. */
    pl__marker_set(p->mk, '-');
    if (done) return 1;
    p->late = c->kind == PL__CALL_OPEN ? 'O' : c->kind == PL__CALL_COLLECT ? 'C' : 'X';
    p->late_start_ms = start;
    p->late_limit_ms = ms;
    p->late_cap = c->kind == PL__CALL_COLLECT ? p->bufcap : 0;
    p->timeouts++;
    p->errors++;
    return 0;
}

static const char *late_call_name(char kind)
{
    return kind == 'O' ? "Open" : kind == 'C' ? "Collect" : kind == 'L' ? "Load" : kind == 'W' ? "Collect" : "Close";
}

void pl__host_late_note(pl__host *h, pl__prov *p)
{
    pl__host_note(h, p, LOG_WARNING,
                  "%s did not return within %u ms and is still running: its objects are left out of the answer "
                  "until it returns (a slow provider is not disabled; the machine may be overloaded)",
                  late_call_name(p->late), p->late_limit_ms);
}

void pl__host_left_running(pl__host *h, pl__prov *p, const char *call)
{
    unsigned n = pl__state_add_hung(h->state, p->info.name);
    p->hung_in_row = n ? n : p->hung_in_row + 1;
    if (p->hung_in_row < PL__STATE_HUNG_IN_ROW) return;
    p->skip_until = (int64_t)time(NULL) + PL__STATE_HUNG_RETRY_SECONDS;
    pl__host_note(h, p, LOG_WARNING,
                  "%s was still running when %u consumers in a row ended: the provider is skipped for %d s, then "
                  "tried again (a slow or hung provider is not disabled)", call, p->hung_in_row,
                  PL__STATE_HUNG_RETRY_SECONDS);
}

void pl__host_returned(pl__host *h, pl__prov *p)
{
    if (!p->hung_in_row && !p->skip_until) return;
    p->hung_in_row = 0;
    p->skip_until = 0;
    pl__state_clear_hung(h->state, p->info.name);
}

void pl__host_late_done(pl__host *h, pl__prov *p, const char *what)
{
    pl__host_returned(h, p);
    char kind = p->late;
    p->late = 0;
    pl__host_note(h, p, LOG_NOTICE, "a late %s returned after %lld ms (its timeout is %u ms)%s",
                  late_call_name(kind), (long long)(pl__host_now_ms() - p->late_start_ms), p->late_limit_ms, what);
}

/* Has the late in-process call returned? Waits up to `ms`. When it has,
 * it is settled: a late Open's result counts (opened, or an error to try
 * again), a late Collect's answer is dropped (it answered a query that is
 * long gone) after the guard check, and 1 is returned; 0 while it runs.
 * Called with p->mu held. */
static int inproc_settle(pl__host *h, pl__prov *p, uint32_t ms)
{
    pl__call c;
    if (!pl__worker_wait(p->worker, &c, ms)) return 0;
    char kind = p->late;
    if (kind == 'O') {
        if (c.rc == 0) {
            p->opened = 1;
            pl__host_late_done(h, p, "");
        } else {
            pl__host_late_done(h, p, "");
            p->errors++;
            pl__host_note(h, p, LOG_WARNING, "Open returned %u; it will be tried again on the next query", c.rc);
        }
        return 1;
    }
    if (kind == 'C') {
        for (size_t g = 0; p->buf && g < GUARD_BYTES; g++)
            if (p->buf[p->late_cap + g] != GUARD_BYTE) {
                p->late = 0;
                pl__host_disable(h, p, "Collect wrote past the end of its %zu-byte buffer", p->late_cap);
                return 1;
            }
        pl__host_late_done(h, p, "; its answer was dropped and the provider is asked again");
        return 1;
    }
    p->late = 0;
    return 1;
}

/* Give up on a late in-process call for good (engine close): its thread is
 * left inside the provider with the buffer it writes to, which it frees if
 * the call ever returns; the library is then never dlclosed. Returns 1
 * when abandoned, 0 when it returned at that moment (settled). */
static int inproc_abandon(pl__host *h, pl__prov *p)
{
    pl__call c;
    void *orphan = p->late == 'C' ? p->buf : NULL;
    if (!pl__worker_abandon(p->worker, &c, orphan)) {
        p->late = 0;
        return 0;
    }
    p->worker = NULL;
    p->hung = 1;
    if (orphan) {
        p->buf = NULL;
        p->bufcap = 0;
    }
    p->errors++;
    const char *call = late_call_name(p->late);
    pl__host_note(h, p, LOG_ERR, "%s had not returned after %lld ms when the engine closed; its thread was left inside "
                  "the provider", call, (long long)(pl__host_now_ms() - p->late_start_ms));
    p->late = 0;
    pl__host_left_running(h, p, call);
    return 1;
}

/* Close an opened in-process provider, bounded like a helper's Close. A
 * late call is waited for as long as a Close would be, and left running
 * when it does not return (no Close then: the provider is busy). A Close
 * that does not return is not slowness but a hang at the end of every
 * consumer (each would wait for it): the provider is disabled, the thread
 * left inside it (issue 26). One that returns clears the Close failures in
 * a row. */
static void inproc_close(pl__host *h, pl__prov *p)
{
    if (p->late && !inproc_settle(h, p, CLOSE_WAIT_MS) && inproc_abandon(h, p)) {
        p->opened = 0;
        return;
    }
    if (!p->opened || p->hung) return;
    p->opened = 0;
    if (!p->close) return;
    pl__call c = {.kind = PL__CALL_CLOSE, .close = p->close};
    if (!inproc_call(p, &c, CLOSE_WAIT_MS, 'X', 0)) {
        /* the thread left inside first: disabling unloads nothing then */
        (void)inproc_abandon(h, p);
        if (!p->disabled)
            pl__host_disable(h, p, "Close did not return within %d ms (in-process: the call was abandoned)",
                             CLOSE_WAIT_MS);
        return;
    }
    if (p->closefail_in_row) {
        p->closefail_in_row = 0;
        pl__state_clear_closefail(h->state, p->info.name);
    }
}

static WCHAR *wdup(const WCHAR *w)
{
    size_t n = 0;
    while (w[n]) n++;
    WCHAR *d = malloc((n + 1) * sizeof *d);
    if (d) memcpy(d, w, (n + 1) * sizeof *d);
    return d;
}

/* One in-process provider, one query. Called with p->mu held. */
static int collect_inproc(pl__host *h, pl__prov *p, const WCHAR *wq, pl__buf *out, uint32_t *nobjects)
{
    /* A call of an earlier query still runs past its timeout: this answer
     * goes on without the provider, without waiting (issue 33). */
    if (p->late && !inproc_settle(h, p, 0)) {
        pl__host_late_note(h, p);
        return PL_OK;
    }
    if (p->disabled) return PL_OK; /* the late call broke the contract */
    if (!load(h, p)) return PL_OK;
    if (!p->opened) {
        DWORD rc = 0;
        if (p->open) {
            const char *arg = pl__host_open_arg(h->st, &p->info);
            WCHAR *link = arg ? pl__host_to_wide(arg) : NULL;
            if (arg && !link) return PL_E_NOMEM;
            pl__call c = {.kind = PL__CALL_OPEN, .open = p->open, .arg = link};
            if (!inproc_call(p, &c, p->open_ms, 'O', 0)) {
                pl__host_late_note(h, p);
                return PL_OK;
            }
            rc = c.rc;
        }
        if (rc != 0) {
            p->errors++;
            pl__host_note(h, p, LOG_WARNING, "Open returned %u; it will be tried again on the next query", rc);
            return PL_OK;
        }
        p->opened = 1;
    }
    size_t cap = pl__host_first_room(p, FIRST_BUFFER);
    if (p->orig && cap < (size_t)p->orig_len + FIRST_BUFFER) cap = (size_t)p->orig_len + FIRST_BUFFER;
    int here = p->nonblocking && p->nonblocking(wq) != 0;
    /* A Collect on this thread writes straight into the answer, after what
     * is there (no copy, no second buffer to bring into the cache); pl__host_judge()
     * then keeps it in place or leaves it beyond out->len. Its room: twice
     * its last answer (a first call, or one that needs more, grows as
     * usual). A wrapper's or a wrapped provider's call keeps its own
     * buffer (the wrapper gets the original's result in place). */
    int direct = here && !p->orig && !p->wrapper;
    if (direct && p->last_bytes) cap = (size_t)p->last_bytes * 2 + 4096;
    for (uint32_t round = 0;; round++) {
        uint8_t *base;
        if (direct) {
            if (pl__buf_reserve(out, cap + GUARD_BYTES) != PL_OK) return PL_E_NOMEM;
            base = (uint8_t *)out->p + out->len;
        } else {
            if (pl__host_ensure_buf(p, cap) != PL_OK) return PL_E_NOMEM;
            cap = p->bufcap;
            base = p->buf;
        }
        memset(base + cap, GUARD_BYTE, GUARD_BYTES);
        WCHAR *q = wdup(wq);
        if (!q) return PL_E_NOMEM;
        if (p->orig) memcpy(base, p->orig, p->orig_len); /* a wrapper gets the original's result in place */
        pl__call c = {.kind = PL__CALL_COLLECT, .collect = p->collect, .arg = q, .data = base,
                      .bytes = pl__host_room_of(cap), .nobj = p->orig ? p->orig_n : 0};
        if (!inproc_call(p, &c, p->collect_ms, 'C', here)) {
            pl__host_late_note(h, p);
            return PL_OK;
        }
        if (p->timeouts_in_row && c.rc == 0) { /* it answered: the failures in a row are over */
            p->timeouts_in_row = 0;
            pl__state_clear_timeouts(h->state, p->info.name);
        }
        pl__host_returned(h, p);
        pl__call_result r = {c.rc, c.bytes, c.nobj, plh_pointer_moved(c.data, base), 0, base};
        for (size_t g = 0; g < GUARD_BYTES; g++)
            if (base[cap + g] != GUARD_BYTE) r.guard_damaged = 1;
        int arc;
        if (pl__host_judge(h, p, &r, &cap, round, out, nobjects, &arc) == PL__JUDGED) {
            if (arc == PL_OK && c.rc == ERROR_SUCCESS) p->last_bytes = c.bytes;
            return arc;
        }
    }
}

static int collect_one(pl__host *h, pl__prov *p, const WCHAR *wq, pl__buf *out, uint32_t *nobjects)
{
    return p->isolated ? pl__host_collect_isolated(h, p, wq, out, nobjects) : collect_inproc(h, p, wq, out, nobjects);
}

/* ------------------------------------------------------------ wrapping */

/* Pair every wrapper with the provider it names (case-insensitive). A
 * wrapper of a missing provider, of itself, of a provider that is itself a
 * wrapper, or a second wrapper of one provider is left unpaired, and is
 * then never called (it is logged when a query would have reached it). */
static void link_wrappers(pl__host *h)
{
    for (size_t i = 0; i < h->n; i++) {
        pl__prov *w = &h->p[i];
        if (!w->info.wraps) continue;
        for (size_t j = 0; j < h->n; j++) {
            pl__prov *o = &h->p[j];
            if (o == w || !o->info.name || pl__utf8_casecmp(o->info.name, w->info.wraps) != 0) continue;
            if (!o->info.wraps && !o->wrapper) {
                o->wrapper = w;
                w->wrapped = o;
            }
            break;
        }
        if (!w->wrapped)
            snprintf(w->last_error, sizeof w->last_error,
                     "wraps %.100s, which is not installed, is a wrapper itself or has another wrapper: never called",
                     w->info.wraps);
    }
}

/* Does the wrapper's answer still hold every object of the original (by
 * title index)? A wrapper may change them and add objects, not drop them. */
static int keeps_objects(const uint8_t *orig, uint32_t orig_len, uint32_t orig_n, const uint8_t *neu, size_t neu_len,
                         uint32_t neu_n, char *why, size_t whylen)
{
    if (!orig_n) return 1;
    pl_block a, b;
    pl_error e;
    if (pl_block_open(&a, orig, orig_len, PL_BLOCK_BARE, orig_n, &e) != PL_OK) return 1; /* cannot happen: judged */
    if (pl_block_open(&b, neu, neu_len, PL_BLOCK_BARE, neu_n, &e) != PL_OK) {
        snprintf(why, whylen, "its answer cannot be read");
        return 0;
    }
    pl_object o, x;
    int rc = pl_block_object(&a, 0, &o);
    for (uint32_t i = 0; i < orig_n && rc == PL_OK; i++, rc = pl_object_next(&o, &o))
        if (pl_block_find_object(&b, o.hdr.ObjectNameTitleIndex, &x) != PL_OK) {
            snprintf(why, whylen, "its answer lost the original's object %u", o.hdr.ObjectNameTitleIndex);
            return 0;
        }
    return 1;
}

/* After the original `o` appended its objects to out (from len0 / n0 on):
 * let its wrapper see them and answer in their place. Whatever the wrapper
 * does -- an error, a crash or hang (isolated), a contract break, an answer
 * without the original's objects -- the original's objects stay. Called
 * with o->mu held; takes the wrapper's. */
static int wrap_step(pl__host *h, pl__prov *o, const WCHAR *wq, pl__buf *out, uint32_t *nobjects, size_t len0,
                     uint32_t n0)
{
    pl__prov *w = o->wrapper;
    int rc = PL_OK;
    pthread_mutex_lock(&w->mu);
    if (!w->disabled && out->len - len0 <= UINT32_MAX) {
        pl__buf tmp = {0};
        uint32_t tn = 0;
        uint64_t judged = w->collects;
        w->orig = out->p ? (const uint8_t *)out->p + len0 : NULL;
        w->orig_len = (uint32_t)(out->len - len0);
        w->orig_n = *nobjects - n0;
        static const uint8_t none[8];
        if (!w->orig) w->orig = none;
        rc = collect_one(h, w, wq, &tmp, &tn);
        char why[160];
        if (rc == PL_OK && w->collects > judged) {
            if (keeps_objects(w->orig, w->orig_len, w->orig_n, (const uint8_t *)tmp.p, tmp.len, tn, why, sizeof why)) {
                out->len = len0;
                *nobjects = n0;
                rc = pl__buf_append(out, tmp.p, tmp.len);
                *nobjects += tn;
                breaks_clear(h, w);
            } else {
                pl__host_break(h, w, "%s", why);
            }
        }
        w->orig = NULL;
        pl__buf_free(&tmp);
    }
    pthread_mutex_unlock(&w->mu);
    return rc;
}

static uint64_t clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* What one Collect of p did, for pl_provider_status: its duration, whether
 * its answer was kept, when errors grew, and the objects it answered with
 * (out from len0 on, n objects, already judged). Called with p->mu held. */
static void note_collect(pl__prov *p, uint64_t t0, uint64_t collects0, uint64_t errors0, const pl__buf *out,
                         size_t len0, uint32_t n)
{
    p->last_collect_ns = clock_ns(CLOCK_MONOTONIC) - t0;
    if (p->last_collect_ns == 0) p->last_collect_ns = 1;
    p->last_collect_ok = p->collects > collects0 && p->errors == errors0 && !p->disabled;
    if (p->errors != errors0) p->last_error_unix_ms = (int64_t)(clock_ns(CLOCK_REALTIME) / 1000000u);
    size_t off = len0;
    for (uint32_t i = 0; i < n && out->p && out->len - off >= 16; i++) {
        uint32_t total, index;
        memcpy(&total, out->p + off, 4);
        memcpy(&index, out->p + off + 12, 4);
        int known = 0;
        for (uint32_t k = 0; k < p->nseen; k++) known |= p->seen[k] == index;
        if (!known && p->nseen < sizeof p->seen / sizeof p->seen[0]) p->seen[p->nseen++] = index;
        if (total < 16 || total > out->len - off) break;
        off += total;
    }
}

int pl__host_collect(pl__host *h, const pl_query_items *q, int64_t pid, pl__buf *out, uint32_t *nobjects)
{
    if (q->kind != PL_QUERY_KIND_GLOBAL && q->kind != PL_QUERY_KIND_COSTLY && q->kind != PL_QUERY_KIND_ITEMS)
        return PL_OK; /* unknown words: no provider is asked */
    char text[PL_QUERY_MAX_ITEMS * 11 + 32];
    query_text(q, pid, text, sizeof text);
    WCHAR *wq = pl__host_to_wide(text);
    if (!wq) return PL_E_NOMEM;
    int rc = PL_OK;
    for (size_t i = 0; i < h->n && rc == PL_OK; i++) {
        pl__prov *p = &h->p[i];
        if (p->info.wraps) continue; /* a wrapper is called after the provider it wraps, or never */
        if (pl__host_is_app_record(&p->info)) continue; /* its objects come through AppCounters */
        /* wants() reads only what engine open wrote (the record, the Object
         * List): asked before the lock, so a query touches only the
         * providers it goes to */
        if (!wants(p, q)) continue;
        pthread_mutex_lock(&p->mu);
        if (p->skip_until && (int64_t)time(NULL) < p->skip_until) {
            pl__host_note(h, p, LOG_WARNING,
                          "skipped: its calls were still running when %u consumers in a row ended; it is tried again "
                          "%d s after the last (a slow or hung provider is not disabled)",
                          p->hung_in_row, PL__STATE_HUNG_RETRY_SECONDS);
        } else if (!p->disabled) {
            size_t len0 = out->len;
            uint32_t n0 = *nobjects;
            uint64_t t0 = clock_ns(CLOCK_MONOTONIC), collects0 = p->collects, errors0 = p->errors;
            rc = collect_one(h, p, wq, out, nobjects);
            if (rc == PL_OK && p->wrapper) rc = wrap_step(h, p, wq, out, nobjects, len0, n0);
            note_collect(p, t0, collects0, errors0, out, len0, *nobjects - n0);
        }
        pthread_mutex_unlock(&p->mu);
    }
    free(wq);
    return rc;
}

/* The note of a loaded in-process provider (provider.h, PL_NOTE_SUFFIX),
 * as one line of valid UTF-8: a control character or an invalid byte
 * becomes '?'. Called with p->mu held. */
static void provider_note(pl__prov *p, char *out, size_t cap)
{
    out[0] = '\0';
    /* not while a late call runs in it: a provider is never called
     * concurrently with itself (its note may wait for that call) */
    if (!p->note || !p->loaded || p->isolated || p->hung || p->late || cap < 2) return;
    char raw[256];
    memset(raw, 0, sizeof raw);
    if (p->note(raw, (DWORD)sizeof raw) != ERROR_SUCCESS) return;
    raw[sizeof raw - 1] = '\0';
    size_t n = strnlen(raw, sizeof raw);
    if (n >= cap) n = cap - 1;
    size_t units;
    int bad_utf8 = pl__utf8_to_utf16(raw, n, NULL, 0, &units) == PL_E_ENCODING;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)raw[i];
        out[i] = (c < 0x20 || c == 0x7f || (bad_utf8 && c >= 0x80)) ? '?' : (char)c;
    }
    out[n] = '\0';
}

int pl__host_status(pl__host *h, pl_provider_status **list, size_t *n)
{
    pl_provider_status *s = calloc(h->n ? h->n : 1, sizeof *s);
    if (!s) return PL_E_NOMEM;
    for (size_t i = 0; i < h->n; i++) {
        pl__prov *p = &h->p[i];
        pthread_mutex_lock(&p->mu);
        snprintf(s[i].name, sizeof s[i].name, "%s", p->info.name ? p->info.name : "");
        s[i].loaded = p->loaded;
        s[i].opened = p->opened;
        s[i].disabled = p->disabled;
        s[i].collects = p->collects;
        s[i].errors = p->errors;
        memcpy(s[i].last_error, p->last_error, sizeof s[i].last_error);
        s[i].isolation = p->isolated ? PL_ISOLATION_HELPER : PL_ISOLATION_INPROC;
        s[i].helper_pid = p->pid > 0 ? (int)p->pid : 0;
        s[i].last_collect_ns = p->last_collect_ns;
        s[i].last_collect_ok = p->last_collect_ok;
        s[i].last_error_unix_ms = p->last_error_unix_ms;
        memcpy(s[i].objects, p->seen, sizeof s[i].objects);
        s[i].nobjects = p->nseen;
        provider_note(p, s[i].note, sizeof s[i].note);
        s[i].timeouts = p->timeouts;
        s[i].late_ms = p->late ? (uint64_t)(pl__host_now_ms() - p->late_start_ms) : 0;
        pthread_mutex_unlock(&p->mu);
    }
    *list = s;
    *n = h->n;
    return PL_OK;
}
