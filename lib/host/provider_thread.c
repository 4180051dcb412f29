/* perflib: the built-in providers' own threads (provider_thread.h). */
#include <dlfcn.h>
#include <signal.h>

#include "provider_thread.h"

int pl__provider_thread(pthread_t *th, void *(*fn)(void *), void *arg, size_t stack, const char *name)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_attr_t attr;
    int have_attr = pthread_attr_init(&attr) == 0;
    if (have_attr && stack) pthread_attr_setstacksize(&attr, stack);
    int rc = pthread_create(th, have_attr ? &attr : NULL, fn, arg);
    if (have_attr) pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc == 0 && name) pthread_setname_np(*th, name);
    return rc;
}

int pl__provider_pin(const void *addr)
{
    Dl_info info;
    if (!dladdr(addr, &info) || !info.dli_fname) return 0;
    /* never closed: the pin is the point */
    return dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE) != NULL;
}
