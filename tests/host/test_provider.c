/* A provider that misbehaves on purpose, one way per build (TP_MODE), for the
 * host tests. It answers with one object "Cache" (86) holding one counter
 * "% Processor Time" (6), both in the base set, unless its mode says
 * otherwise. The test reads tp_open_calls/tp_collect_calls/tp_close_calls
 * through dlsym to see what the host did in-process; when $TP_TRACE names a
 * directory, every call is also appended to $TP_TRACE/<TP_NAME>.trace
 * ("open LINKAGE", "collect QUERY", "close", "overlap"), which is how the
 * tests see calls made inside a helper process. */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "perflib/block.h"
#include "perflib/provider.h"

#define TP_GOOD 0
#define TP_WRONG_BYTES 1     /* *bytes says 8 more than written */
#define TP_NO_ADVANCE 2      /* the pointer is not moved */
#define TP_MISALIGNED 3      /* 4 extra bytes: not a multiple of 8 */
#define TP_CORRUPT 4         /* an object whose DefinitionLength is wrong */
#define TP_OPEN_ERROR 5      /* Open fails the first time, then works */
#define TP_COLLECT_ERROR 6   /* Collect fails the first time, then works */
#define TP_ENDLESS_MORE 7    /* always ERROR_MORE_DATA */
#define TP_BAD_INDEX 8       /* an object index outside the base set and any range */
#define TP_NEEDS_BIG 9       /* MORE_DATA until it gets 300,000 bytes */
#define TP_OVERRUN 10        /* writes past the end of the buffer it was given */
#define TP_WRONG_COUNT 11    /* *objects says 2 for 1 object */
#define TP_MORE_DATA_LIES 12 /* ERROR_MORE_DATA with *bytes not 0 */
#define TP_CHILD 13          /* a child object (232) whose instances name parent 230 */
#define TP_PARENT 14         /* the parent object 230 */
#define TP_CRASH 15          /* Collect dereferences NULL (SIGSEGV) */
#define TP_HANG 16           /* Collect never returns */
#define TP_HANG_OPEN 17      /* Open never returns */
#define TP_EXIT 18           /* Collect calls _exit(3) */
#define TP_SLOW_ONCE 19      /* the first Collect ever (per $TP_TRACE) sleeps 2 s, then all is well */
#define TP_WILD_POINTER 20   /* moves *data to an address far below the buffer (INT64_MIN-ish) */
#define TP_HUGE_OBJECTS 21   /* *objects = 0xFFFFFFFF for one real object */
#define TP_STRADDLE 22       /* valid indices, but the counter block runs past *bytes */
#define TP_PARTIAL_MORE 23   /* below 200,000 bytes: writes half an object, then ERROR_MORE_DATA */
#define TP_MANY_OBJECTS 24   /* 150,000 objects, the first with 30,000 definitions not all 40 bytes */
#define TP_FORK_CRASH 25     /* Collect forks a child that sleeps (holding every descriptor), then crashes */
#define TP_PRINT 26          /* Collect prints to stdout and stderr, then answers */
#define TP_LEAK 27           /* every Collect leaks 64 MiB it has touched, then answers */
#define TP_SPIN 28           /* Collect spins on the CPU for ever */
#define TP_FD_LEAK 29        /* every Collect leaks 40 descriptors, then answers */
#define TP_CRASH_OPEN 30     /* Open dereferences NULL (SIGSEGV) */
#define TP_NONBLOCKING 31    /* exports TpCollectNonBlocking: yes, unless the query names 232 */
#define TP_NOTE 32           /* exports TpCollectNote: a note with its Collect count, a control character and a bad byte */
#define TP_SLOW_FEW 33       /* the first 3 Collects (per $TP_TRACE) sleep 700 ms each, then all answer at once */
#define TP_CRASH_CLOSE 34    /* Close dereferences NULL (SIGSEGV) */
#define TP_HANG_CLOSE 35     /* Close never returns */
#define TP_EXIT0 36          /* Collect calls exit(0): the atexit handlers run, the status is success */
#define TP_EXIT0_CLOSE 37    /* Close calls exit(0) */
#define TP_SETSID 38         /* Collect forks a child that calls setsid() and sleeps, then answers */
#define TP_SETSID_HANG 39    /* the same, then Collect never returns */
#define TP_CHILD_MEMORY 40   /* Collect forks a child that touches 64 MiB and sleeps, then answers */
#define TP_FORK_EXIT0 41     /* Collect forks a child that calls exit(0), waits for it, then answers */
#define TP_BREAK_TWICE 42    /* *bytes wrong on Collects 1-2 and 4-5, right on 3 and 6, wrong from 7 on */
#define TP_SLOW_CALL 43      /* the call $TP_SLOW_CALL names ("open", "collect", "close") maps $TP_SLOW_GROW_MB MB
                                (none when unset: the process's size changes while it is inside), writes its
                                name into $TP_TRACE/<name>.inside, then sleeps $TP_SLOW_MS ms (default 20000),
                                then works */
#define TP_TERM_SELF 44      /* Collect sends its own process SIGTERM (kill(getpid())), then answers */

#ifndef TP_MODE
#error "build with -DTP_MODE=..."
#endif
#ifndef TP_NAME
#define TP_NAME "tp"
#endif

/* $TP_TRACE/<TP_NAME><suffix>, or 0 when $TP_TRACE is unset. */
static int trace_path(char *out, size_t cap, const char *suffix)
{
    const char *dir = getenv("TP_TRACE");
    if (!dir || !dir[0]) return 0;
    return snprintf(out, cap, "%s/%s%s", dir, TP_NAME, suffix) < (int)cap;
}

static void trace(const char *what, const WCHAR *arg)
{
    char path[512], line[300];
    if (!trace_path(path, sizeof path, ".trace")) return;
    size_t n = (size_t)snprintf(line, sizeof line, "%s", what);
    if (arg) {
        line[n++] = ' ';
        for (size_t i = 0; arg[i] && n < sizeof line - 2; i++) line[n++] = (char)arg[i];
    }
    line[n++] = '\n';
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return;
    if (write(fd, line, n) != (ssize_t)n) { /* nothing to do: the test will see the count is off */
    }
    close(fd);
}

#if TP_MODE == TP_CRASH || TP_MODE == TP_FORK_CRASH || TP_MODE == TP_CRASH_OPEN || TP_MODE == TP_CRASH_CLOSE
__attribute__((no_sanitize("undefined"))) static void crash(void)
{
    volatile int *volatile nowhere = NULL;
    *nowhere = 1;
}
#endif

#if TP_MODE == TP_SPIN
static void *spin_thread(void *arg)
{
    (void)arg;
    volatile unsigned long spin = 0;
    for (;;) spin++;
    return NULL;
}
#endif

static void hang(void)
{
    for (;;) sleep(1000);
}

#if TP_MODE == TP_SLOW_CALL
/* Read at each call: a consumer may choose after its first query. */
static void slow_call(const char *call)
{
    const char *want = getenv("TP_SLOW_CALL");
    if (!want || strcmp(want, call) != 0) return;
    const char *ms = getenv("TP_SLOW_MS");
    long wait = ms ? atol(ms) : 20000;
    const char *grow = getenv("TP_SLOW_GROW_MB");
    if (grow && atol(grow) > 0) {
        size_t sz = (size_t)atol(grow) << 20;
        char *m = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m != MAP_FAILED)
            for (size_t i = 0; i < sz; i += 4096) m[i] = 1; /* VmSize and VmRSS both move */
    }
    char path[512];
    if (trace_path(path, sizeof path, ".inside")) {
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd >= 0) {
            if (write(fd, call, strlen(call)) < 0) { /* the test waits for the file, not its text */
            }
            close(fd);
        }
    }
    usleep((useconds_t)(wait * 1000));
}
#else
static void slow_call(const char *call) { (void)call; }
#endif

/* As a Windows provider may: DllMain, and a library destructor. The host
 * calls DllMain on load and unload (in process and in the helper). */
PL_PROVIDER_EXPORT int DllMain(void *inst, DWORD reason, void *reserved);
PL_PROVIDER_EXPORT int DllMain(void *inst, DWORD reason, void *reserved)
{
    (void)reserved;
    if (!inst) trace("dllmain-without-instance", NULL);
    if (reason == 1) trace("attach", NULL);
    else if (reason == 0) trace("detach", NULL);
    return 1;
}

__attribute__((destructor)) static void tp_destructor(void)
{
    trace("dtor", NULL);
}

PL_PROVIDER_EXPORT int tp_open_calls, tp_collect_calls, tp_close_calls;
PL_PROVIDER_EXPORT long tp_collect_tid; /* the thread that made the last Collect */
PL_PROVIDER_EXPORT int tp_nonblocking_calls;
PL_PROVIDER_EXPORT char tp_last_query[256];
PL_PROVIDER_EXPORT char tp_last_linkage[256];

PL_PROVIDER_EXPORT DWORD TpOpen(LPWSTR linkage);
PL_PROVIDER_EXPORT DWORD TpClose(void);
PL_PROVIDER_EXPORT DWORD TpCollect(LPWSTR query, LPVOID *data, LPDWORD bytes, LPDWORD objects);

static pl_builder *b;

PL_PROVIDER_EXPORT DWORD TpOpen(LPWSTR linkage)
{
    tp_open_calls++;
    trace("open", linkage);
    if (TP_MODE == TP_HANG_OPEN) hang();
    slow_call("open");
#if TP_MODE == TP_CRASH_OPEN
    crash();
#endif
    tp_last_linkage[0] = '\0';
    for (size_t i = 0; linkage && linkage[i] && i < sizeof tp_last_linkage - 1; i++) {
        tp_last_linkage[i] = (char)linkage[i];
        tp_last_linkage[i + 1] = '\0';
    }
    if (TP_MODE == TP_OPEN_ERROR && tp_open_calls == 1) return 5;
    if (!b) b = pl_builder_new();
    return b ? 0 : ERROR_OUTOFMEMORY;
}

PL_PROVIDER_EXPORT DWORD TpClose(void)
{
    tp_close_calls++;
    trace("close", NULL);
#if TP_MODE == TP_CRASH_CLOSE
    crash();
#endif
    if (TP_MODE == TP_HANG_CLOSE) hang();
    slow_call("close");
    if (TP_MODE == TP_EXIT0_CLOSE) exit(0);
    pl_builder_free(b);
    b = NULL;
    return 0;
}

static int build(uint32_t obj_index)
{
    pl_builder_reset(b);
    pl_object_desc od = {.name_index = obj_index, .help_index = obj_index + 1, .default_counter = -1,
                         .has_instances = TP_MODE == TP_CHILD || TP_MODE == TP_PARENT};
    int o, c;
    if (pl_builder_add_object(b, &od, &o) != PL_OK) return -1;
    pl_counter_desc cd = {.name_index = 6, .help_index = 7, .type = PERF_COUNTER_RAWCOUNT};
    if (pl_builder_add_counter(b, o, &cd, &c) != PL_OK) return -1;
    if (TP_MODE == TP_CHILD) {
        int i0, i1;
        pl_builder_add_instance(b, o, "0", 230, 0, -1, &i0);
        pl_builder_add_instance(b, o, "1", 230, 0, -1, &i1);
        pl_builder_set_u32(b, o, i0, c, 10);
        pl_builder_set_u32(b, o, i1, c, 11);
    } else if (TP_MODE == TP_PARENT) {
        int i0;
        pl_builder_add_instance(b, o, "proc", 0, 0, -1, &i0);
        pl_builder_set_u32(b, o, i0, c, 7);
    } else {
        pl_builder_set_u32(b, o, -1, c, 42 + (uint32_t)tp_collect_calls);
    }
    return 0;
}

PL_PROVIDER_EXPORT int tp_overlaps; /* Collect entered while another call was inside */
static int inflight;

static DWORD collect(LPWSTR query, LPVOID *data, LPDWORD bytes, LPDWORD objects);

PL_PROVIDER_EXPORT DWORD TpCollect(LPWSTR query, LPVOID *data, LPDWORD bytes, LPDWORD objects)
{
    if (__atomic_add_fetch(&inflight, 1, __ATOMIC_SEQ_CST) > 1) __atomic_add_fetch(&tp_overlaps, 1, __ATOMIC_SEQ_CST);
    /* Across processes (two helpers for one provider would be a host bug):
     * a lock file held for the length of the call. */
    char lock[512];
    int lfd = -1;
    if (trace_path(lock, sizeof lock, ".lock")) {
        lfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        if (lfd >= 0 && flock(lfd, LOCK_EX | LOCK_NB) != 0) trace("overlap", NULL);
    }
    DWORD rc = collect(query, data, bytes, objects);
    if (lfd >= 0) close(lfd);
    __atomic_sub_fetch(&inflight, 1, __ATOMIC_SEQ_CST);
    return rc;
}

/* TP_MANY_OBJECTS: object 0 has NDEF definitions (the first 48 bytes long),
 * then NOBJ - 1 objects of 72 bytes with no counters; all valid, all indices
 * in the base set. A host that looks definitions or objects up by position
 * needs O(n^2) steps to check it. */
static DWORD many_objects(LPVOID *data, LPDWORD bytes, LPDWORD objects)
{
    enum { NOBJ = 150000, NDEF = 30000 };
    size_t first = 64 + 8 + (size_t)NDEF * 40 + 8, rest = (size_t)(NOBJ - 1) * 72, need = first + rest;
    if (*bytes < need) {
        *bytes = 0;
        *objects = 0;
        return ERROR_MORE_DATA;
    }
    uint8_t *p = *data;
    memset(p, 0, need);
    uint32_t v;
#define W32(off, val) (v = (uint32_t)(val), memcpy(p + (off), &v, 4))
    W32(0, first);
    W32(4, first - 8);
    W32(8, 64);
    W32(12, 86);
    W32(20, 87);
    W32(32, NDEF);
    W32(36, -1);
    W32(40, -1);
    size_t q = 64;
    for (int i = 0; i < NDEF; i++) {
        uint32_t bl = i == 0 ? 48 : 40;
        W32(q, bl);
        W32(q + 4, 6);
        W32(q + 12, 7);
        W32(q + 28, PERF_COUNTER_RAWCOUNT);
        W32(q + 32, 4);
        W32(q + 36, 4);
        q += bl;
    }
    W32(q, 8);
    q += 8;
    for (int i = 1; i < NOBJ; i++, q += 72) {
        W32(q, 72);
        W32(q + 4, 64);
        W32(q + 8, 64);
        W32(q + 12, 86);
        W32(q + 20, 87);
        W32(q + 36, -1);
        W32(q + 40, -1);
        W32(q + 64, 8);
    }
#undef W32
    *data = p + need;
    *bytes = (DWORD)need;
    *objects = NOBJ;
    return 0;
}

#if TP_MODE == TP_NONBLOCKING
PL_PROVIDER_EXPORT DWORD TpCollectNonBlocking(LPCWSTR query);
PL_PROVIDER_EXPORT DWORD TpCollectNonBlocking(LPCWSTR query)
{
    tp_nonblocking_calls++;
    pl_query_items q;
    pl_query_parse_w(query, &q);
    return !(q.kind == PL_QUERY_KIND_ITEMS && pl_query_wants(&q, 232, 0));
}
#endif

#if TP_MODE == TP_NOTE
PL_PROVIDER_EXPORT DWORD TpCollectNote(char *text, DWORD cap);
PL_PROVIDER_EXPORT DWORD TpCollectNote(char *text, DWORD cap)
{
    snprintf(text, cap, "tp note\tafter %d collects \xff", tp_collect_calls);
    return ERROR_SUCCESS;
}
#endif

static DWORD collect(LPWSTR query, LPVOID *data, LPDWORD bytes, LPDWORD objects)
{
    tp_collect_calls++;
    tp_collect_tid = (long)syscall(SYS_gettid);
    trace("collect", query);
#if TP_MODE == TP_CRASH
    crash();
#endif
    if (TP_MODE == TP_HANG) hang();
    slow_call("collect");
    if (TP_MODE == TP_TERM_SELF) kill(getpid(), SIGTERM);
    if (TP_MODE == TP_EXIT) _exit(3);
    if (TP_MODE == TP_EXIT0) exit(0);
#if TP_MODE == TP_FORK_EXIT0
    {
        pid_t child = fork();
        if (child == 0) exit(0);
        int ws;
        if (child < 0 || waitpid(child, &ws, 0) != child || !WIFEXITED(ws) || WEXITSTATUS(ws) != 0)
            return ERROR_OUTOFMEMORY; /* the child's exit(0) was taken for the provider's */
    }
#endif
#if TP_MODE == TP_SETSID || TP_MODE == TP_SETSID_HANG || TP_MODE == TP_CHILD_MEMORY
    {
        int ready[2];
        if (pipe(ready) != 0) return ERROR_OUTOFMEMORY;
        pid_t child = fork();
        if (child == 0) {
            if (TP_MODE == TP_CHILD_MEMORY) {
                size_t n = (size_t)64 << 20;
                char *m = malloc(n);
                if (m) memset(m, 0x5A, n); /* resident */
                __asm__ volatile("" : : "r"(m) : "memory");
            } else {
                setsid(); /* out of the helper's process group */
            }
            if (write(ready[1], "r", 1) != 1) _exit(1);
            hang();
        }
        char cpid[32], r;
        if (read(ready[0], &r, 1) != 1) return ERROR_OUTOFMEMORY;
        close(ready[0]);
        close(ready[1]);
        snprintf(cpid, sizeof cpid, "%ld", (long)child);
        WCHAR wpid[32];
        for (size_t i = 0; i < sizeof cpid; i++) wpid[i] = (WCHAR)cpid[i];
        trace("child", wpid);
        if (TP_MODE == TP_SETSID_HANG) hang();
    }
#endif
#if TP_MODE == TP_FORK_CRASH
    pid_t child = fork();
    if (child == 0) hang();
    char cpid[32];
    snprintf(cpid, sizeof cpid, "%ld", (long)child);
    WCHAR wpid[32];
    for (size_t i = 0; i < sizeof cpid; i++) wpid[i] = (WCHAR)cpid[i];
    trace("child", wpid);
    crash();
#endif
    if (TP_MODE == TP_PRINT) {
        printf("TP-PRINT-STDOUT\n");
        fflush(stdout);
        fprintf(stderr, "TP-PRINT-STDERR\n");
    }
    if (TP_MODE == TP_LEAK) {
        size_t n = (size_t)64 << 20;
        char *leak = malloc(n);
        if (!leak) return ERROR_OUTOFMEMORY;
        memset(leak, 0x5A, n); /* resident, not just reserved */
        __asm__ volatile("" : : "r"(leak) : "memory");
    }
#if TP_MODE == TP_SPIN
    /* $TP_SPIN_THREADS more threads spin too (at most 8): CPU time adds up
     * faster than wall time, even on a loaded machine. */
    const char *nt = getenv("TP_SPIN_THREADS");
    int extra = nt ? atoi(nt) : 0;
    for (int i = 0; i < extra && i < 8; i++) {
        pthread_t th;
        if (pthread_create(&th, NULL, spin_thread, NULL) == 0) pthread_detach(th);
    }
    spin_thread(NULL);
#endif
    if (TP_MODE == TP_FD_LEAK)
        for (int i = 0; i < 40; i++)
            if (open("/dev/null", O_RDONLY) < 0) break;
    if (TP_MODE == TP_SLOW_ONCE) {
        char mark[512];
        int fd = trace_path(mark, sizeof mark, ".slow") ? open(mark, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600) : -1;
        if (fd >= 0) {
            close(fd);
            sleep(2);
        }
    }
    if (TP_MODE == TP_SLOW_FEW) { /* how many Collects so far, in every process: a counter file under a lock */
        char path[512];
        int fd = trace_path(path, sizeof path, ".count") ? open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600) : -1;
        if (fd >= 0 && flock(fd, LOCK_EX) == 0) {
            char buf[32] = "";
            ssize_t r = pread(fd, buf, sizeof buf - 1, 0);
            long n = r > 0 ? strtol(buf, NULL, 10) : 0;
            int len = snprintf(buf, sizeof buf, "%ld\n", n + 1);
            if (ftruncate(fd, 0) != 0 || pwrite(fd, buf, (size_t)len, 0) != len) n = 99;
            close(fd);
            if (n < 3) usleep(700000);
        } else if (fd >= 0) {
            close(fd);
        }
    }
    tp_last_query[0] = '\0';
    for (size_t i = 0; query && query[i] && i < sizeof tp_last_query - 1; i++) {
        tp_last_query[i] = (char)query[i];
        tp_last_query[i + 1] = '\0';
    }
    pl_query_items q;
    pl_query_parse_w(query, &q);
    uint32_t index = TP_MODE == TP_BAD_INDEX ? 5000 : TP_MODE == TP_CHILD ? 232 : TP_MODE == TP_PARENT ? 230 : 86;
    if (!pl_query_wants(&q, index, 0)) {
        *bytes = 0;
        *objects = 0;
        return 0;
    }
    if (TP_MODE == TP_COLLECT_ERROR && tp_collect_calls == 1) {
        *bytes = 0;
        *objects = 0;
        return 31; /* ERROR_GEN_FAILURE */
    }
    if (TP_MODE == TP_ENDLESS_MORE || (TP_MODE == TP_NEEDS_BIG && *bytes < 300000)) {
        *bytes = 0;
        *objects = 0;
        return ERROR_MORE_DATA;
    }
    if (TP_MODE == TP_MORE_DATA_LIES) {
        *bytes = 16;
        *objects = 0;
        return ERROR_MORE_DATA;
    }
    if (TP_MODE == TP_MANY_OBJECTS) return many_objects(data, bytes, objects);
    if (TP_MODE == TP_PARTIAL_MORE && *bytes < 200000) {
        memset(*data, 0xCD, 40); /* scribbles inside the room, then asks for more */
        *bytes = 0;
        *objects = 0;
        return ERROR_MORE_DATA;
    }
    if (build(index) != 0) return ERROR_OUTOFMEMORY;
    DWORD room = *bytes;
    uint8_t *start = *data;
    DWORD rc = pl_provider_emit(b, data, bytes, objects);
    if (rc != 0) return rc;
    switch (TP_MODE) {
    case TP_WRONG_BYTES: *bytes += 8; break;
    case TP_BREAK_TWICE:
        if (tp_collect_calls != 3 && tp_collect_calls != 6) *bytes += 8;
        break;
    case TP_NO_ADVANCE: *data = start; break;
    case TP_MISALIGNED:
        *bytes += 4;
        *data = start + *bytes;
        break;
    case TP_CORRUPT: {
        uint32_t deflen = 3; /* DefinitionLength smaller than the header */
        memcpy(start + 4, &deflen, 4);
        break;
    }
    case TP_OVERRUN: memset(start, 0xEE, room + 16); break; /* 16 bytes past: into the host's guard */
    case TP_WRONG_COUNT: *objects = 2; break;
    case TP_WILD_POINTER: *data = (void *)(uintptr_t)0x8000000000000010ull; break;
    case TP_HUGE_OBJECTS: *objects = 0xFFFFFFFFu; break;
    case TP_STRADDLE: /* the object says 16 bytes more than the answer holds */
        *bytes -= 16;
        *data = start + *bytes;
        break;
    default: break;
    }
    return 0;
}
