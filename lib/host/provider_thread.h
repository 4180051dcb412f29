/* This file is private to perflib's providers: no API/ABI guarantee.
 *
 * The threads the built-in providers keep of their own (PerfProc's readers,
 * PerfNet's qdisc dump, PerfDisk's statvfs calls): started the same way,
 * and kept mapped while one may be stuck in a system call. */
#ifndef PL_PROVIDER_THREAD_H
#define PL_PROVIDER_THREAD_H

#include <pthread.h>
#include <stddef.h>

/* Start fn(arg) on a thread that takes no signals (they belong to the
 * program's threads), with a stack of `stack` bytes (0: the default) and a
 * name for top -H and ps -L. Returns 0 or an errno value. */
int pl__provider_thread(pthread_t *th, void *(*fn)(void *), void *arg, size_t stack, const char *name);

/* Keep the library that holds `addr` mapped until the process ends
 * (RTLD_NODELETE), whoever dlcloses it: a thread stuck in a system call
 * made from its code must return into mapped memory. Returns 1 when it is
 * pinned. */
int pl__provider_pin(const void *addr);

#endif
