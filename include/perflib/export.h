/* perflib: symbol export control for the public API. */
#ifndef PERFLIB_EXPORT_H
#define PERFLIB_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define PL_EXTERN __attribute__((visibility("default")))
#else
#define PL_EXTERN
#endif

#endif
