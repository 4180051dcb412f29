/* perflib: a system library loaded on first use (pl_internal.h). */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "pl_internal.h"

int pl__dl_load(const char *what, const char *const *sonames, size_t nsonames, const pl__dl_sym *syms, size_t nsyms,
                char *why, size_t cap)
{
    void *so = NULL;
    const char *err = "";
    for (size_t i = 0; i < nsonames && !so; i++) {
        so = dlopen(sonames[i], RTLD_NOW | RTLD_LOCAL);
        if (!so) err = dlerror();
    }
    if (!so) {
        snprintf(why, cap, "cannot load %s: %s", what, err ? err : "?");
        return -1;
    }
    for (size_t i = 0; i < nsyms; i++) {
        void *f = dlsym(so, syms[i].name);
        if (!f) {
            snprintf(why, cap, "%s has no %s", what, syms[i].name);
            for (size_t k = 0; k < i; k++) memset(syms[k].slot, 0, sizeof f);
            return -1; /* the library stays loaded: dlclose of a half-used library gains nothing */
        }
        memcpy(syms[i].slot, &f, sizeof f);
    }
    return 0;
}
