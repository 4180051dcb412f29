/* perflib lodctr: installing and removing a parsed counter set, and the
 * loadperf entry points that take a command line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lodctr_int.h"
#include "perflib/lodctr.h"

/* ------------------------------------------------------------- install */

static int add_warning(pl_lodctr_set *set, const char *msg)
{
    char **nw = realloc(set->warnings, (set->nwarnings + 1) * sizeof *nw);
    if (!nw) return PL_E_NOMEM;
    set->warnings = nw;
    char *d = pl__strdup(msg);
    if (!d) return PL_E_NOMEM;
    set->warnings[set->nwarnings++] = d;
    return PL_OK;
}

PL_EXTERN int pl_lodctr_install(pl_store *st, pl_lodctr_set *set, const pl_lodctr_overrides *ov,
                                pl_install_result *res, pl_error *err)
{
    if (!st || !set || !set->provider) return pl__fail(err, PL_E_INVAL, "pl_lodctr_install: NULL argument");
    pl__clear(err);
    char **langs = NULL;
    size_t nl = 0;
    int rc = pl_store_languages(st, &langs, &nl, err);
    if (rc != PL_OK) return rc;
    pl_install_text *keep = malloc((set->ntexts + 1) * sizeof *keep);
    uint32_t *objs = malloc((set->nobjects + 1) * sizeof *objs);
    /* Per language of the set (sorted): in the store?, how many texts, the
     * first text's line. One pass over the texts, so big files stay fast. */
    int *in_store = calloc(set->nlanguages + 1, sizeof *in_store);
    size_t *count = calloc(set->nlanguages + 1, sizeof *count);
    size_t *first = calloc(set->nlanguages + 1, sizeof *first);
    size_t nkeep = 0, nobj = 0;
    if (!keep || !objs || !in_store || !count || !first) {
        rc = pl__fail(err, PL_E_NOMEM, "out of memory");
        goto out;
    }
    for (size_t j = 0; j < set->nlanguages; j++)
        for (size_t k = 0; k < nl && !in_store[j]; k++)
            in_store[j] = pl__lc_eq_ci(set->languages[j], strlen(set->languages[j]), langs[k]);
    for (size_t i = 0; i < set->ntexts; i++) {
        const char *lang = set->texts[i].lang;
        size_t lo = 0, hi = set->nlanguages;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (strcmp(set->languages[mid], lang) < 0) lo = mid + 1;
            else hi = mid;
        }
        if (lo == set->nlanguages || strcmp(set->languages[lo], lang) != 0) {
            /* A set edited by the caller: a language languages[] lacks. */
            int have = 0;
            for (size_t k = 0; k < nl && !have; k++) have = pl__lc_eq_ci(lang, strlen(lang), langs[k]);
            if (have) keep[nkeep++] = set->texts[i];
            continue;
        }
        if (in_store[lo]) {
            keep[nkeep++] = set->texts[i];
            continue;
        }
        if (count[lo]++ == 0) first[lo] = i;
    }
    for (size_t j = 0; j < set->nlanguages; j++) {
        if (!count[j]) continue;
        char msg[600];
        snprintf(msg, sizeof msg, "%s:%u: language %s is not in the registry store; its %zu entr%s skipped",
                 set->ini_path, set->text_lines[first[j]], set->languages[j], count[j],
                 count[j] == 1 ? "y is" : "ies are");
        if (add_warning(set, msg) != PL_OK) {
            rc = pl__fail(err, PL_E_NOMEM, "out of memory");
            goto out;
        }
    }
    if (nkeep == 0) {
        rc = pl__fail(err, PL_E_PARSE, "%s: no [text] entry is in a language of the registry store", set->ini_path);
        goto out;
    }
    /* keep[] is sorted by offset (as set->texts is): binary search. */
    for (size_t i = 0; i < set->nobjects; i++) {
        uint32_t off = set->object_offsets[i];
        size_t lo = 0, hi = nkeep;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (keep[mid].offset < off) lo = mid + 1;
            else hi = mid;
        }
        if (lo < nkeep && keep[lo].offset == off) objs[nobj++] = off;
    }
    pl_install_req req;
    memset(&req, 0, sizeof req);
    req.provider = set->provider;
    req.library = ov && ov->library ? ov->library : set->library;
    req.open = ov && ov->open ? ov->open : set->open;
    req.collect = ov && ov->collect ? ov->collect : set->collect;
    req.close = ov && ov->close ? ov->close : set->close;
    req.isolation = ov ? ov->isolation : PL_INSTALL_ISOLATION_DEFAULT;
    req.wraps = set->wraps;
    req.max_offset = set->max_offset;
    req.texts = keep;
    req.ntexts = nkeep;
    req.object_offsets = objs;
    req.nobjects = nobj;
    pl_install_result r;
    memset(&r, 0, sizeof r);
    rc = pl_store_install(st, &req, &r, err);
    if (rc == PL_OK && res) *res = r;
out:
    free(keep);
    free(objs);
    free(in_store);
    free(count);
    free(first);
    pl_free(langs);
    return rc;
}

PL_EXTERN int pl_lodctr_uninstall(pl_store *st, const char *provider, pl_error *err)
{
    if (!st || !provider) return pl__fail(err, PL_E_INVAL, "pl_lodctr_uninstall: NULL argument");
    int rc = pl_store_uninstall(st, provider, err);
    if (rc != PL_OK) return rc;
    pl_provider_info p;
    memset(&p, 0, sizeof p);
    pl_error e2;
    if (pl_store_provider(st, provider, &p, &e2) == PL_OK) {
        int bare = !p.builtin && (!p.library || !p.library[0]) && !p.first_counter && !p.last_counter &&
                   !p.first_help && !p.last_help;
        pl_provider_info_clear(&p);
        /* Best effort: the names are gone either way. */
        if (bare) (void)pl_store_remove_provider(st, provider, &e2);
    }
    return PL_OK;
}

/* ------------------------------------------------- loadperf entry points */

/* The last token of a command line; double quotes group. Returns a new
 * string or NULL (empty line or no memory; *nomem tells which). */
static char *last_token(const char *cmd, int *nomem)
{
    const char *p = cmd, *tb = NULL;
    size_t tn = 0;
    *nomem = 0;
    while (*p) {
        while (*p == ' ' || *p == '\t') p++;
        if (!*p) break;
        if (*p == '"') {
            const char *q = strchr(p + 1, '"');
            tb = p + 1;
            tn = q ? (size_t)(q - tb) : strlen(tb);
            p = q ? q + 1 : tb + tn;
        } else {
            tb = p;
            while (*p && *p != ' ' && *p != '\t') p++;
            tn = (size_t)(p - tb);
        }
    }
    if (!tb || tn == 0) return NULL;
    char *r = pl__lc_strndup(tb, tn);
    if (!r) *nomem = 1;
    return r;
}

PL_EXTERN int pl_load_counter_strings(pl_store *st, const char *cmdline, pl_error *err)
{
    if (!st || !cmdline) return pl__fail(err, PL_E_INVAL, "pl_load_counter_strings: NULL argument");
    int nomem;
    char *ini = last_token(cmdline, &nomem);
    if (!ini) return nomem ? pl__fail(err, PL_E_NOMEM, "out of memory")
                           : pl__fail(err, PL_E_INVAL, "pl_load_counter_strings: no .ini file in the command line");
    pl_lodctr_set *set = NULL;
    int rc = pl_lodctr_parse(ini, &set, err);
    if (rc == PL_OK) rc = pl_lodctr_install(st, set, NULL, NULL, err);
    pl_lodctr_free(set);
    free(ini);
    return rc;
}

PL_EXTERN int pl_unload_counter_strings(pl_store *st, const char *cmdline, pl_error *err)
{
    if (!st || !cmdline) return pl__fail(err, PL_E_INVAL, "pl_unload_counter_strings: NULL argument");
    int nomem;
    char *name = last_token(cmdline, &nomem);
    if (!name) return nomem ? pl__fail(err, PL_E_NOMEM, "out of memory")
                            : pl__fail(err, PL_E_INVAL, "pl_unload_counter_strings: no provider name in the command line");
    int rc = pl_lodctr_uninstall(st, name, err);
    free(name);
    return rc;
}
