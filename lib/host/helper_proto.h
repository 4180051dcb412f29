/* This file is private to perflib: no API/ABI guarantee.
 *
 * The protocol between the provider host (lib/host/host.c) and the helper
 * process that runs one isolated provider (tools/perflib-provider-host).
 * See docs/provider-host.md, "The helper protocol".
 *
 * One stream socket (socketpair), the helper's end on descriptor
 * PLH_FD. Every message is a frame:
 *
 *     u32 type, u32 length, then `length` payload bytes
 *
 * in host byte order (both ends run on the same machine). The host sends a
 * request and waits for the one reply; a reply's type is the request's type
 * with PLH_REPLY set. Nothing is pipelined.
 *
 *   PLH_LOAD     four strings, each u32 n + n bytes (no NUL): the library
 *                path, then the Open, Collect and Close names (n = 0: none;
 *                Collect is required). Each at most PLH_MAX_STRING bytes.
 *     reply      u32 status (PLH_LOAD_OK, PLH_LOAD_DLOPEN, PLH_LOAD_DLSYM),
 *                then at most PLH_MAX_MESSAGE bytes of text (dlerror()).
 *   PLH_OPEN     u32 has_linkage (0/1), then the Linkage export as UTF-16
 *                code units without the terminator (even length).
 *     reply      u32 Open's return value (exactly 4 bytes).
 *   PLH_COLLECT  u32 room (bytes the provider may use), then the query as
 *                UTF-16 code units without the terminator (even length, at
 *                most PLH_MAX_QUERY bytes).
 *     reply      u32 Collect's return value, u32 *bytes, u32 *objects,
 *                u32 flags (PLH_GUARD_DAMAGED), i64 how far the data pointer
 *                moved (PLH_COLLECT_FIXED bytes in all), then the data:
 *                exactly *bytes bytes when the return value is 0, the guard
 *                is intact, *bytes <= room and the pointer moved by exactly
 *                *bytes; no data otherwise.
 *   PLH_CLOSE    empty.
 *     reply      u32 Close's return value; the helper then exits 0.
 *
 * Anything else (an unknown type, a wrong length, a string too long) makes
 * the helper exit with status PLH_EXIT_PROTOCOL; end of file on the socket
 * makes it exit 0. The host treats every reply as hostile: the type and
 * length must match exactly, and the data goes through the same checks as
 * an in-process result. */
#ifndef PL_HELPER_PROTO_H
#define PL_HELPER_PROTO_H

#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

#define PLH_FD 3                      /* the helper's end of the socket */

#define PLH_LOAD 1u
#define PLH_OPEN 2u
#define PLH_COLLECT 3u
#define PLH_CLOSE 4u
#define PLH_WRAP 5u                   /* Collect of a wrapper, with the original's result */
#define PLH_REPLY 0x80u

#define PLH_LOAD_OK 0u
#define PLH_LOAD_DLOPEN 1u
#define PLH_LOAD_DLSYM 2u

#define PLH_GUARD_DAMAGED 1u

#define PLH_HEADER 8u                 /* u32 type + u32 length */
#define PLH_COLLECT_FIXED 24u         /* rc, bytes, objects, flags, i64 moved */
#define PLH_MAX_STRING 4096u
#define PLH_MAX_MESSAGE 512u
#define PLH_MAX_QUERY 16384u
#define PLH_MAX_REQUEST (4u * (4u + PLH_MAX_STRING))
#define PLH_MAX_ROOM ((uint32_t)1 << 30) /* the helper refuses larger buffers */
#define PLH_GUARD_BYTES 64u
#define PLH_GUARD_BYTE 0xA5

#define PLH_EXIT_PROTOCOL 2           /* the helper's exit status for a bad request */
#define PLH_EXIT_NOMEM 3              /* it could not allocate a buffer */
#define PLH_EXIT_MEMORY 4             /* a call took the helper above its memory limit */
#define PLH_EXIT_FILES 5              /* a call used every descriptor the helper may have */
#define PLH_EXIT_ESCAPED 6            /* a process the provider started left the helper's process group */

/* The helper's limits, its second argument: PLH_LIMITS_ARG "MEM,FILES,
 * OPEN_CPU,COLLECT_CPU": peak resident MiB, open descriptors, CPU seconds
 * per Open and per Collect (docs/provider-host.md, "Limits"). */
#define PLH_LIMITS_ARG "--limits="
#define PLH_FILES_SPARE 8             /* fewer free descriptors after a call: the file limit was hit */

/* How far a provider moved the data pointer from `start` to `now`, for the
 * contract check, in both modes. The provider may have set it to anything:
 * the difference is taken on uintptr_t (subtracting wild pointers as
 * intptr_t overflows, which is undefined) and clamped to the int64_t range. */
static inline int64_t plh_pointer_moved(const void *now, const void *start)
{
    uintptr_t a = (uintptr_t)now, b = (uintptr_t)start;
    if (a >= b) {
        uintptr_t d = a - b;
        return d > (uintptr_t)INT64_MAX ? INT64_MAX : (int64_t)d;
    }
    uintptr_t d = b - a;
    return d > (uintptr_t)INT64_MAX ? INT64_MIN : -(int64_t)d;
}

/* A Windows provider's DllMain, when its library exports one: called with
 * DLL_PROCESS_ATTACH (1) after loading (0 = FALSE: the load fails, as on
 * Windows) and DLL_PROCESS_DETACH (0) before unloading, by the host in
 * process and by the helper. hinstDLL is the library's base address (what
 * GetModuleFileName takes). Returns 1 when there is no DllMain.
 * Windows' C runtime calls DllMain with C linkage even when a C++ source
 * defines it without extern "C" (MSVC gives the name C linkage), so the C++
 * names of DllMain(void *, unsigned int | unsigned long | int, void *) are
 * looked for too: every spelling of its arguments here (HINSTANCE, HMODULE,
 * HANDLE, LPVOID; DWORD, ULONG, UINT, BOOL-sized int). The return value is
 * a 32-bit BOOL or DWORD in the same register either way. */
#define PLH_DLL_PROCESS_DETACH 0u
#define PLH_DLL_PROCESS_ATTACH 1u
static inline int plh_dllmain(void *dl, uint32_t reason)
{
    static const char *const names[] = {"DllMain", "_Z7DllMainPvjS_", "_Z7DllMainPvmS_", "_Z7DllMainPviS_"};
    if (!dl) return 1;
    void *sym = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !sym; i++) {
        dlerror();
        sym = dlsym(dl, names[i]);
        if (dlerror()) sym = NULL;
    }
    if (!sym) return 1;
    int (*fn)(void *, uint32_t, void *);
    memcpy(&fn, &sym, sizeof fn); /* POSIX: a dlsym result converts to a function pointer */
    Dl_info info;
    void *base = dladdr(sym, &info) ? info.dli_fbase : NULL;
    return fn(base, reason, NULL) != 0;
}

#endif
