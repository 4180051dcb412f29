/* Tests of the PerfProc provider (providers/perfproc): dlopen the real
 * libperfproc.so, collect against the canned trees in data/ and the live
 * /proc, and read the result back with the block reader. */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "perflib/block.h"
#include "perflib/indices.h"
#include "perflib/wintypes.h"
#include "pl_test.h"


#define DATA PL_SOURCE_DIR "/tests/perfproc/data/"
#define TICK 100000ull /* 100 ns units per clock tick at USER_HZ 100 */
#define BOOT_FT (116444736000000000ull + 1700000000ull * 10000000ull)

typedef DWORD (*open_fn)(LPWSTR);
typedef DWORD (*collect_fn)(LPWSTR, LPVOID *, LPDWORD, LPDWORD);
typedef DWORD (*close_fn)(void);

static void *so;
static open_fn p_open;
static collect_fn p_collect;
static close_fn p_close;

static void load(const char *sysroot)
{
    if (sysroot) setenv("PERFLIB_SYSROOT", sysroot, 1);
    else unsetenv("PERFLIB_SYSROOT");
    so = dlopen(PL_PERFPROC_SO, RTLD_NOW | RTLD_LOCAL);
    if (!so) fail_msg("dlopen: %s", dlerror());
    p_open = (open_fn)dlsym(so, "PerfProcOpen");
    p_collect = (collect_fn)dlsym(so, "PerfProcCollect");
    p_close = (close_fn)dlsym(so, "PerfProcClose");
    assert_non_null(p_open);
    assert_non_null(p_collect);
    assert_non_null(p_close);
}

static void unload(void)
{
    assert_int_equal(p_close(), 0);
    dlclose(so);
}

static WCHAR *wq(const char *s)
{
    static WCHAR buf[128];
    size_t i = 0;
    for (; s[i] && i < 127; i++) buf[i] = (WCHAR)s[i];
    buf[i] = 0;
    return buf;
}

/* One Collect into a fresh 8 MiB buffer; opens the result with the reader. */
typedef struct result {
    uint8_t *buf;
    DWORD bytes, objects;
    pl_block blk;
} result;

static void collect(const char *query, result *r)
{
    size_t cap = 8u << 20;
    r->buf = malloc(cap);
    assert_non_null(r->buf);
    void *p = r->buf;
    r->bytes = (DWORD)cap;
    r->objects = 99;
    DWORD rc = p_collect(query ? wq(query) : NULL, &p, &r->bytes, &r->objects);
    assert_int_equal(rc, 0);
    assert_ptr_equal(p, r->buf + r->bytes);
    assert_int_equal(r->bytes % 8, 0);
    pl_error err;
    if (r->objects) {
        int orc = pl_block_open(&r->blk, r->buf, r->bytes, PL_BLOCK_BARE, r->objects, &err);
        if (orc != PL_OK) fail_msg("block: %s", err.msg);
    }
}

static void done(result *r)
{
    free(r->buf);
}

static void object(result *r, uint32_t index, pl_object *o)
{
    if (pl_block_find_object(&r->blk, index, o) != PL_OK) fail_msg("object %u missing", index);
}

static uint64_t val(pl_object *o, int32_t inst, uint32_t ctr_index)
{
    pl_counter c;
    pl_instance in;
    if (pl_object_find_counter(o, ctr_index, &c) != PL_OK) fail_msg("counter %u missing", ctr_index);
    assert_int_equal(pl_object_instance(o, inst, &in), PL_OK);
    uint64_t v;
    assert_int_equal(pl_counter_value(&c, &in, &v), PL_OK);
    return v;
}

static uint32_t parent_pos(pl_object *o, int32_t inst)
{
    pl_instance in;
    assert_int_equal(pl_object_instance(o, inst, &in), PL_OK);
    assert_int_equal(in.def.ParentObjectTitleIndex, PL_OBJ_PROCESS);
    return in.def.ParentObjectInstance;
}

/* ------------------------------------------------------- canned: basic */

static void process_names_and_order(void **state)
{
    (void)state;
    load(DATA "basic");
    assert_int_equal(p_open(NULL), 0);
    result r;
    collect("230", &r);
    assert_int_equal(r.objects, 1);
    pl_object o;
    object(&r, PL_OBJ_PROCESS, &o);
    assert_int_equal(o.hdr.NumCounters > 30, 1);
    assert_int_equal(o.hdr.PerfFreq.QuadPart, 10000000);
    assert_int_equal(pl_object_num_instances(&o), 10);
    char **names;
    assert_int_equal(pl_object_instance_names(&o, &names), PL_OK);
    const char *want[] = {"Idle",    "systemd", "kthreadd", "bash",    "bash#1",
                          "a) b) c", "worker",  "secret",   "defunct", "_Total"};
    for (int i = 0; i < 10; i++) assert_string_equal(names[i], want[i]);
    pl_free(names);
    const uint64_t pids[] = {0, 1, 2, 100, 101, 200, 300, 400, 500, 0};
    for (int i = 0; i < 10; i++) assert_int_equal(val(&o, i, PL_CTR_ID_PROCESS), pids[i]);
    done(&r);
    unload();
}

static void process_values_exact(void **state)
{
    (void)state;
    load(DATA "basic");
    assert_int_equal(p_open(NULL), 0);
    result r;
    collect("230", &r);
    pl_object o;
    object(&r, PL_OBJ_PROCESS, &o);
    /* systemd, position 1 */
    assert_int_equal(val(&o, 1, PL_CTR_PCT_PROCESSOR_TIME), 400 * TICK);
    assert_int_equal(val(&o, 1, PL_CTR_PCT_USER_TIME), 150 * TICK);
    assert_int_equal(val(&o, 1, PL_CTR_PCT_PRIVILEGED_TIME), 250 * TICK);
    assert_int_equal(val(&o, 1, PL_CTR_VIRTUAL_BYTES), 22978560);
    assert_int_equal(val(&o, 1, PL_CTR_VIRTUAL_BYTES_PEAK), 23000 * 1024);
    assert_int_equal(val(&o, 1, PL_CTR_PAGE_FAULTS_PER_SEC), 5100);
    assert_int_equal(val(&o, 1, PL_CTR_WORKING_SET), 3000 * (uint64_t)sysconf(_SC_PAGESIZE));
    assert_int_equal(val(&o, 1, PL_CTR_WORKING_SET_PEAK), 12500 * 1024);
    assert_int_equal(val(&o, 1, PL_CTR_WORKING_SET_PRIVATE), 4000 * 1024);
    assert_int_equal(val(&o, 1, PL_CTR_WORKING_SET_SHARED), 8000 * 1024);
    assert_int_equal(val(&o, 1, PL_CTR_RESIDENT_SHARED_BYTES), 8000 * 1024);
    assert_int_equal(val(&o, 1, PL_CTR_PRIVATE_BYTES), 3132 * 1024);
    assert_int_equal(val(&o, 1, PL_CTR_PAGE_FILE_BYTES), 16 * 1024);
    assert_int_equal(val(&o, 1, PL_CTR_PAGE_FILE_BYTES_PEAK), 16 * 1024);
    assert_int_equal(val(&o, 1, PL_CTR_SWAP_BYTES), 16 * 1024);
    assert_int_equal(val(&o, 1, PL_CTR_THREAD_COUNT), 1);
    assert_int_equal(val(&o, 1, PL_CTR_PRIORITY_BASE), 8);
    assert_int_equal(val(&o, 1, PL_CTR_ELAPSED_TIME), BOOT_FT + 10 * TICK);
    assert_int_equal(val(&o, 1, PL_CTR_CREATING_PROCESS_ID), 0);
    assert_int_equal(val(&o, 1, PL_CTR_HANDLE_COUNT), 4);
    assert_int_equal(val(&o, 1, PL_CTR_IO_READ_OPERATIONS_PER_SEC), 3000);
    assert_int_equal(val(&o, 1, PL_CTR_IO_WRITE_OPERATIONS_PER_SEC), 1500);
    assert_int_equal(val(&o, 1, PL_CTR_IO_DATA_OPERATIONS_PER_SEC), 4500);
    assert_int_equal(val(&o, 1, PL_CTR_IO_OTHER_OPERATIONS_PER_SEC), 0);
    assert_int_equal(val(&o, 1, PL_CTR_IO_READ_BYTES_PER_SEC), 1000000);
    assert_int_equal(val(&o, 1, PL_CTR_IO_WRITE_BYTES_PER_SEC), 200000);
    assert_int_equal(val(&o, 1, PL_CTR_IO_DATA_BYTES_PER_SEC), 1200000);
    assert_int_equal(val(&o, 1, PL_CTR_IO_OTHER_BYTES_PER_SEC), 0);
    assert_int_equal(val(&o, 1, PL_CTR_MAJOR_PAGE_FAULTS_PER_SEC), 100);
    assert_int_equal(val(&o, 1, PL_CTR_MINOR_PAGE_FAULTS_PER_SEC), 5000);
    assert_int_equal(val(&o, 1, PL_CTR_VOLUNTARY_CONTEXT_SWITCHES_PER_SEC), 1000);
    assert_int_equal(val(&o, 1, PL_CTR_INVOLUNTARY_CONTEXT_SWITCHES_PER_SEC), 50);
    assert_int_equal(val(&o, 1, PL_CTR_LAST_PROCESSOR), 1);
    assert_int_equal(val(&o, 1, PL_CTR_PROCESS_STATE), 'S');
    assert_int_equal(val(&o, 1, PL_CTR_UNAVAILABLE_COUNTERS), 0x02); /* IO Other only */

    /* bash#1: nice 5 -> Below Normal (6); worker: nice -10 -> Above Normal (10) */
    assert_int_equal(val(&o, 4, PL_CTR_PRIORITY_BASE), 6);
    assert_int_equal(val(&o, 4, PL_CTR_NICE_VALUE), 5);
    assert_int_equal(val(&o, 4, PL_CTR_CREATING_PROCESS_ID), 100);
    assert_int_equal(val(&o, 6, PL_CTR_PRIORITY_BASE), 10);
    assert_int_equal(val(&o, 6, PL_CTR_NICE_VALUE), (uint32_t)-10);
    assert_int_equal(val(&o, 6, PL_CTR_THREAD_COUNT), 3);
    assert_int_equal(val(&o, 6, PL_CTR_PAGE_FILE_BYTES), 2048 * 1024);
    assert_int_equal(val(&o, 6, PL_CTR_PRIVATE_BYTES), 60136 * 1024);
    assert_int_equal(val(&o, 6, PL_CTR_HANDLE_COUNT), 5);

    /* kernel thread: no address space, its zeros are real */
    assert_int_equal(val(&o, 2, PL_CTR_VIRTUAL_BYTES), 0);
    assert_int_equal(val(&o, 2, PL_CTR_WORKING_SET_PEAK), 0);
    assert_int_equal(val(&o, 2, PL_CTR_PCT_PRIVILEGED_TIME), 5 * TICK);
    assert_int_equal(val(&o, 2, PL_CTR_HANDLE_COUNT), 0);
    assert_int_equal(val(&o, 2, PL_CTR_UNAVAILABLE_COUNTERS), 0x02);

    /* zombie */
    assert_int_equal(val(&o, 8, PL_CTR_PROCESS_STATE), 'Z');
    assert_int_equal(val(&o, 8, PL_CTR_WORKING_SET), 0);
    assert_int_equal(val(&o, 8, PL_CTR_CREATING_PROCESS_ID), 100);

    /* Idle: idle + iowait of all CPUs, as privileged time; a thread per CPU */
    assert_int_equal(val(&o, 0, PL_CTR_PCT_PROCESSOR_TIME), 50040 * TICK);
    assert_int_equal(val(&o, 0, PL_CTR_PCT_PRIVILEGED_TIME), 50040 * TICK);
    assert_int_equal(val(&o, 0, PL_CTR_PCT_USER_TIME), 0);
    assert_int_equal(val(&o, 0, PL_CTR_THREAD_COUNT), 2);
    assert_int_equal(val(&o, 0, PL_CTR_ELAPSED_TIME), BOOT_FT);
    assert_int_equal(val(&o, 0, PL_CTR_UNAVAILABLE_COUNTERS), 0);

    /* _Total */
    uint64_t cpu = 50040 + 400 + 5 + 30 + 3 + 10 + 660 + 33 + 3;
    assert_int_equal(val(&o, 9, PL_CTR_PCT_PROCESSOR_TIME), cpu * TICK);
    assert_int_equal(val(&o, 9, PL_CTR_THREAD_COUNT), 2 + 1 + 1 + 1 + 1 + 1 + 3 + 1 + 1);
    assert_int_equal(val(&o, 9, PL_CTR_HANDLE_COUNT), 4 + 0 + 3 + 3 + 1 + 5 + 0 + 0);
    assert_int_equal(val(&o, 9, PL_CTR_IO_READ_OPERATIONS_PER_SEC), 3000 + 0 + 50 + 40 + 3 + 700 + 1);
    assert_int_equal(val(&o, 9, PL_CTR_ID_PROCESS), 0);
    assert_int_equal(val(&o, 9, PL_CTR_ELAPSED_TIME), 0);
    assert_int_equal(val(&o, 9, PL_CTR_UNAVAILABLE_COUNTERS), 0x07); /* secret's io and fd */

    /* PerfTime of the object is "now" as FILETIME */
    assert_true(o.hdr.PerfTime.QuadPart > (int64_t)BOOT_FT);
    done(&r);
    unload();
}

static void unavailable_io_and_handles(void **state)
{
    (void)state;
    load(DATA "basic");
    assert_int_equal(p_open(NULL), 0);
    result r;
    collect("230", &r);
    pl_object o;
    object(&r, PL_OBJ_PROCESS, &o);
    /* secret (pid 400) has neither io nor fd: marked, and the values are 0 */
    assert_int_equal(val(&o, 7, PL_CTR_ID_PROCESS), 400);
    assert_int_equal(val(&o, 7, PL_CTR_UNAVAILABLE_COUNTERS), 0x01 | 0x02 | 0x04);
    assert_int_equal(val(&o, 7, PL_CTR_IO_READ_BYTES_PER_SEC), 0);
    assert_int_equal(val(&o, 7, PL_CTR_HANDLE_COUNT), 0);
    /* what it could read is there */
    assert_int_equal(val(&o, 7, PL_CTR_PCT_PROCESSOR_TIME), 33 * TICK);
    assert_int_equal(val(&o, 7, PL_CTR_WORKING_SET_PEAK), 800 * 1024);
    /* the counter is a 64-bit hex raw count */
    pl_counter c;
    assert_int_equal(pl_object_find_counter(&o, PL_CTR_UNAVAILABLE_COUNTERS, &c), PL_OK);
    assert_int_equal(c.def.CounterType, PERF_COUNTER_LARGE_RAWCOUNT_HEX);
    done(&r);
    unload();
}

static void counter_types(void **state)
{
    (void)state;
    load(DATA "basic");
    assert_int_equal(p_open(NULL), 0);
    result r;
    collect("230 232", &r);
    pl_object o;
    object(&r, PL_OBJ_PROCESS, &o);
    struct {
        uint32_t idx, type;
    } want[] = {
        {PL_CTR_PCT_PROCESSOR_TIME, PERF_100NSEC_TIMER}, {PL_CTR_PCT_USER_TIME, PERF_100NSEC_TIMER},
        {PL_CTR_PAGE_FAULTS_PER_SEC, PERF_COUNTER_BULK_COUNT}, {PL_CTR_ELAPSED_TIME, PERF_ELAPSED_TIME},
        {PL_CTR_WORKING_SET, PERF_COUNTER_LARGE_RAWCOUNT}, {PL_CTR_ID_PROCESS, PERF_COUNTER_RAWCOUNT},
        {PL_CTR_HANDLE_COUNT, PERF_COUNTER_RAWCOUNT}, {PL_CTR_IO_READ_BYTES_PER_SEC, PERF_COUNTER_BULK_COUNT},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        pl_counter c;
        assert_int_equal(pl_object_find_counter(&o, want[i].idx, &c), PL_OK);
        assert_int_equal(c.def.CounterType, want[i].type);
    }
    assert_int_equal(o.hdr.DefaultCounter, 0);
    pl_object t;
    object(&r, PL_OBJ_THREAD, &t);
    assert_int_equal(t.hdr.PerfFreq.QuadPart, 10000000);
    pl_counter c;
    assert_int_equal(pl_object_find_counter(&t, PL_CTR_CONTEXT_SWITCHES_PER_SEC, &c), PL_OK);
    assert_int_equal(c.def.CounterType, PERF_COUNTER_BULK_COUNT);
    done(&r);
    unload();
}

static void threads_parents_and_values(void **state)
{
    (void)state;
    load(DATA "basic");
    assert_int_equal(p_open(NULL), 0);
    result r;
    collect("230 232", &r);
    assert_int_equal(r.objects, 2);
    pl_object t;
    object(&r, PL_OBJ_THREAD, &t);
    assert_int_equal(pl_object_num_instances(&t), 10);
    char **names;
    assert_int_equal(pl_object_instance_names(&t, &names), PL_OK);
    const char *want[] = {"systemd/0", "kthreadd/0", "bash/0",   "bash/0#1",  "a) b) c/0",
                          "worker/0",  "worker/1",   "worker/2", "secret/0", "defunct/0"};
    for (int i = 0; i < 10; i++) assert_string_equal(names[i], want[i]);
    pl_free(names);
    const uint32_t parents[] = {1, 2, 3, 4, 5, 6, 6, 6, 7, 8};
    for (int i = 0; i < 10; i++) assert_int_equal(parent_pos(&t, i), parents[i]);
    /* worker's threads: S nice -10, R SCHED_FIFO 50, D nice 19 */
    assert_int_equal(val(&t, 5, PL_CTR_ID_THREAD), 300);
    assert_int_equal(val(&t, 5, PL_CTR_ID_PROCESS), 300);
    assert_int_equal(val(&t, 5, PL_CTR_THREAD_STATE), 5);
    assert_int_equal(val(&t, 5, PL_CTR_THREAD_WAIT_REASON), 6);
    assert_int_equal(val(&t, 5, PL_CTR_PRIORITY_BASE), 10);
    assert_int_equal(val(&t, 5, PL_CTR_PRIORITY_CURRENT), 10);
    assert_int_equal(val(&t, 5, PL_CTR_CONTEXT_SWITCHES_PER_SEC), 111);
    assert_int_equal(val(&t, 5, PL_CTR_PCT_PROCESSOR_TIME), 110 * TICK);
    assert_int_equal(val(&t, 5, PL_CTR_ELAPSED_TIME), BOOT_FT + 3000 * TICK);
    assert_int_equal(val(&t, 6, PL_CTR_ID_THREAD), 301);
    assert_int_equal(val(&t, 6, PL_CTR_ID_PROCESS), 300);
    assert_int_equal(val(&t, 6, PL_CTR_THREAD_STATE), 2);
    assert_int_equal(val(&t, 6, PL_CTR_THREAD_WAIT_REASON), 20);
    assert_int_equal(val(&t, 6, PL_CTR_PRIORITY_BASE), 23);
    assert_int_equal(val(&t, 6, PL_CTR_PCT_USER_TIME), 200 * TICK);
    assert_int_equal(val(&t, 6, PL_CTR_PCT_PRIVILEGED_TIME), 20 * TICK);
    assert_int_equal(val(&t, 6, PL_CTR_LAST_PROCESSOR), 0);
    assert_int_equal(val(&t, 7, PL_CTR_ID_THREAD), 302);
    assert_int_equal(val(&t, 7, PL_CTR_THREAD_WAIT_REASON), 0);
    assert_int_equal(val(&t, 7, PL_CTR_PRIORITY_BASE), 4);
    assert_int_equal(val(&t, 7, PL_CTR_NICE_VALUE), 19);
    assert_int_equal(val(&t, 7, PL_CTR_CONTEXT_SWITCHES_PER_SEC), 333);
    assert_int_equal(val(&t, 7, PL_CTR_UNAVAILABLE_COUNTERS), 0);
    /* the zombie's thread is Terminated */
    assert_int_equal(val(&t, 9, PL_CTR_THREAD_STATE), 4);
    done(&r);
    unload();
}

static void query_selection(void **state)
{
    (void)state;
    load(DATA "basic");
    assert_int_equal(p_open(NULL), 0);
    result r;
    pl_object o;
    collect("Global", &r);
    assert_int_equal(r.objects, 2);
    object(&r, PL_OBJ_PROCESS, &o);
    object(&r, PL_OBJ_THREAD, &o);
    assert_int_equal(pl_block_find_object(&r.blk, PL_OBJ_IMAGE, &o), PL_E_NOT_FOUND);
    done(&r);
    collect(NULL, &r); /* NULL is Global */
    assert_int_equal(r.objects, 2);
    done(&r);
    collect("232", &r); /* Thread brings its parent Process, from the same snapshot */
    assert_int_equal(r.objects, 2);
    object(&r, PL_OBJ_PROCESS, &o);
    object(&r, PL_OBJ_THREAD, &o);
    assert_int_equal(parent_pos(&o, 5), 6); /* positions as in the Process object */
    done(&r);
    collect("Costly", &r);
    assert_int_equal(r.objects, 2);
    object(&r, PL_OBJ_IMAGE, &o);
    object(&r, PL_OBJ_PROCESS_ADDRESS_SPACE, &o);
    assert_int_equal(pl_block_find_object(&r.blk, PL_OBJ_PROCESS, &o), PL_E_NOT_FOUND);
    done(&r);
    collect("238 2", &r); /* not ours */
    assert_int_equal(r.objects, 0);
    assert_int_equal(r.bytes, 0);
    done(&r);
    collect("Foreign somehost 230", &r);
    assert_int_equal(r.objects, 0);
    assert_int_equal(r.bytes, 0);
    done(&r);
    collect("ABCD", &r);
    assert_int_equal(r.objects, 0);
    done(&r);
    collect("740", &r); /* Image brings its parent Process too */
    assert_int_equal(r.objects, 2);
    object(&r, PL_OBJ_IMAGE, &o);
    object(&r, PL_OBJ_PROCESS, &o);
    done(&r);
    unload();
}

static void costly_image_and_address_space(void **state)
{
    (void)state;
    load(DATA "basic");
    assert_int_equal(p_open(NULL), 0);
    result r;
    collect("Costly", &r);
    pl_object im, as;
    object(&r, PL_OBJ_IMAGE, &im);
    assert_int_equal(pl_object_num_instances(&im), 2);
    char **names;
    assert_int_equal(pl_object_instance_names(&im, &names), PL_OK);
    /* The parent (Process) is not in this block: names are the images' own */
    assert_string_equal(names[0], "systemd");
    assert_string_equal(names[1], "libc.so.6");
    pl_free(names);
    pl_instance in;
    assert_int_equal(pl_object_instance(&im, 1, &in), PL_OK);
    assert_int_equal(in.def.ParentObjectTitleIndex, PL_OBJ_PROCESS);
    assert_int_equal(in.def.ParentObjectInstance, 1);
    assert_int_equal(val(&im, 0, PL_CTR_READ_ONLY), 8192);
    assert_int_equal(val(&im, 0, PL_CTR_EXEC_READ_ONLY), 16384);
    assert_int_equal(val(&im, 0, PL_CTR_WRITE_COPY), 4096);
    assert_int_equal(val(&im, 0, PL_CTR_READ_WRITE), 0);
    assert_int_equal(val(&im, 0, PL_CTR_MAPPED_BYTES), 28672);
    assert_int_equal(val(&im, 1, PL_CTR_EXEC_READ_ONLY), 16384);
    assert_int_equal(val(&im, 1, PL_CTR_READ_ONLY), 4096);
    assert_int_equal(val(&im, 1, PL_CTR_MAPPED_BYTES), 24576);

    object(&r, PL_OBJ_PROCESS_ADDRESS_SPACE, &as);
    assert_int_equal(pl_object_num_instances(&as), 8);
    assert_int_equal(val(&as, 0, PL_CTR_ID_PROCESS), 1);
    assert_int_equal(val(&as, 0, PL_CTR_IMAGE_SPACE_READ_ONLY), 12288);
    assert_int_equal(val(&as, 0, PL_CTR_IMAGE_SPACE_EXEC_READ_ONLY), 32768);
    assert_int_equal(val(&as, 0, PL_CTR_IMAGE_SPACE_WRITE_COPY), 8192);
    assert_int_equal(val(&as, 0, PL_CTR_BYTES_IMAGE_RESERVED), 53248);
    assert_int_equal(val(&as, 0, PL_CTR_MAPPED_SPACE_READ_ONLY), 4096);
    assert_int_equal(val(&as, 0, PL_CTR_MAPPED_SPACE_READ_WRITE), 8192);
    assert_int_equal(val(&as, 0, PL_CTR_RESERVED_SPACE_NO_ACCESS), 4096);
    assert_int_equal(val(&as, 0, PL_CTR_RESERVED_SPACE_WRITE_COPY), 270336);
    assert_int_equal(val(&as, 0, PL_CTR_RESERVED_SPACE_EXEC_READ_ONLY), 8192);
    assert_int_equal(val(&as, 0, PL_CTR_MAPPED_BYTES), 348160);
    assert_int_equal(val(&as, 0, PL_CTR_RESIDENT_BYTES), 12000 * 1024);
    assert_int_equal(val(&as, 0, PL_CTR_PRIVATE_RESIDENT_BYTES), 4000 * 1024);
    assert_int_equal(val(&as, 0, PL_CTR_UNAVAILABLE_COUNTERS), 0);
    assert_int_equal(val(&as, 1, PL_CTR_MAPPED_BYTES), 0);              /* kthreadd: empty maps */
    assert_int_equal(val(&as, 1, PL_CTR_UNAVAILABLE_COUNTERS), 0x40);   /* no smaps_rollup */
    assert_int_equal(val(&as, 2, PL_CTR_UNAVAILABLE_COUNTERS), 0x60);   /* bash: no maps */
    done(&r);
    unload();
}

static void more_data_contract(void **state)
{
    (void)state;
    load(DATA "basic");
    assert_int_equal(p_open(NULL), 0);
    uint8_t small[64];
    memset(small, 0xAB, sizeof small);
    void *p = small;
    DWORD bytes = sizeof small, objects = 7;
    assert_int_equal(p_collect(wq("230 232"), &p, &bytes, &objects), ERROR_MORE_DATA);
    assert_ptr_equal(p, small);
    assert_int_equal(bytes, 0);
    assert_int_equal(objects, 0);
    for (size_t i = 0; i < sizeof small; i++) assert_int_equal(small[i], 0xAB);
    /* grow and retry: same snapshot, exact size */
    result r;
    collect("230 232", &r);
    assert_int_equal(r.objects, 2);
    DWORD need = r.bytes;
    done(&r);
    uint8_t *exact = malloc(need);
    p = exact;
    bytes = need;
    assert_int_equal(p_collect(wq("230 232"), &p, &bytes, &objects), 0);
    assert_int_equal(bytes, need);
    assert_ptr_equal(p, exact + need);
    p = exact;
    bytes = need - 8;
    assert_int_equal(p_collect(wq("230 232"), &p, &bytes, &objects), ERROR_MORE_DATA);
    free(exact);
    unload();
}

static void open_close_errors(void **state)
{
    (void)state;
    load(DATA "basic");
    void *p = NULL;
    DWORD bytes = 0, objects = 0;
    assert_int_equal(p_collect(wq("230"), &p, &bytes, &objects), ERROR_INVALID_HANDLE);
    assert_int_equal(p_collect(wq("230"), NULL, &bytes, &objects), ERROR_INVALID_PARAMETER);
    assert_int_equal(p_close(), 0); /* Close without Open is harmless */
    dlclose(so);
    load(DATA "does-not-exist");
    assert_int_equal(p_open(NULL), ERROR_FILE_NOT_FOUND);
    dlclose(so);
    /* Open twice, Close twice: still usable after the first Close */
    load(DATA "basic");
    assert_int_equal(p_open(NULL), 0);
    assert_int_equal(p_open(NULL), 0);
    assert_int_equal(p_close(), 0);
    result r;
    collect("230", &r);
    assert_int_equal(r.objects, 1);
    done(&r);
    unload();
}

static void malformed_files_skipped(void **state)
{
    (void)state;
    load(DATA "broken");
    assert_int_equal(p_open(NULL), 0);
    result r;
    collect("230 232 740 786", &r);
    pl_object o;
    object(&r, PL_OBJ_PROCESS, &o);
    char **names;
    assert_int_equal(pl_object_instance_names(&o, &names), PL_OK);
    assert_int_equal(pl_object_num_instances(&o), 3);
    assert_string_equal(names[0], "Idle");
    assert_string_equal(names[1], "good");
    assert_string_equal(names[2], "_Total");
    pl_free(names);
    object(&r, PL_OBJ_THREAD, &o);
    assert_int_equal(pl_object_num_instances(&o), 1);
    assert_int_equal(parent_pos(&o, 0), 1);
    assert_int_equal(val(&o, 0, PL_CTR_UNAVAILABLE_COUNTERS), 0x10); /* no schedstat */
    done(&r);
    unload();
}

static void repeated_collects_stable(void **state)
{
    (void)state;
    load(DATA "basic");
    assert_int_equal(p_open(NULL), 0);
    result a, b;
    collect("230 232 740 786", &a);
    for (int i = 0; i < 20; i++) {
        collect("230 232 740 786", &b);
        assert_int_equal(a.bytes, b.bytes);
        done(&b);
    }
    done(&a);
    unload();
}

/* ------------------------------------------------------- live /proc */

static int pipefd[2];

static void *sleeper(void *arg)
{
    (void)arg;
    char c;
    while (read(pipefd[0], &c, 1) < 0 && errno == EINTR) {
    }
    return NULL;
}

static pid_t spawn_child(void)
{
    assert_int_equal(pipe(pipefd), 0);
    int ready[2];
    assert_int_equal(pipe(ready), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        prctl(PR_SET_NAME, "pp live child");
        close(pipefd[1]);
        pthread_t t[2];
        for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, sleeper, NULL);
        if (write(ready[1], "x", 1) != 1) _exit(2);
        sleeper(NULL);
        _exit(0);
    }
    close(pipefd[0]);
    char c;
    assert_int_equal(read(ready[0], &c, 1), 1);
    close(ready[0]);
    close(ready[1]);
    return pid;
}

static void reap(pid_t pid)
{
    close(pipefd[1]);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

static uint64_t status_kb(pid_t pid, const char *key)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[256];
    uint64_t v = UINT64_MAX;
    size_t kl = strlen(key);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, kl) == 0 && line[kl] == ':') v = strtoull(line + kl + 1, NULL, 10);
    fclose(f);
    return v;
}

static long count_proc_dirs(void)
{
    DIR *d = opendir("/proc");
    assert_non_null(d);
    long n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] >= '1' && e->d_name[0] <= '9') n++;
    closedir(d);
    return n;
}

static void live_child_matches(void **state)
{
    (void)state;
    pid_t child = spawn_child();
    load(NULL);
    assert_int_equal(p_open(NULL), 0);
    result r;
    collect("230 232", &r);
    pl_object po, to;
    object(&r, PL_OBJ_PROCESS, &po);
    object(&r, PL_OBJ_THREAD, &to);
    uint32_t n = pl_object_num_instances(&po);
    int32_t pos = -1;
    for (uint32_t i = 1; i + 1 < n; i++)
        if (val(&po, (int32_t)i, PL_CTR_ID_PROCESS) == (uint64_t)child) pos = (int32_t)i;
    assert_true(pos > 0);
    pl_instance in;
    assert_int_equal(pl_object_instance(&po, pos, &in), PL_OK);
    char name[64];
    assert_int_equal(pl_instance_name(&in, name, sizeof name), PL_OK);
    assert_string_equal(name, "pp live child");
    assert_int_equal(val(&po, pos, PL_CTR_THREAD_COUNT), 3);
    assert_int_equal(val(&po, pos, PL_CTR_CREATING_PROCESS_ID), (uint64_t)getpid());
    assert_int_equal(val(&po, pos, PL_CTR_WORKING_SET), status_kb(child, "VmRSS") * 1024);
    assert_int_equal(val(&po, pos, PL_CTR_VIRTUAL_BYTES), status_kb(child, "VmSize") * 1024);
    assert_int_equal(val(&po, pos, PL_CTR_WORKING_SET_PRIVATE), status_kb(child, "RssAnon") * 1024);
    assert_int_equal(val(&po, pos, PL_CTR_PRIORITY_BASE), 8);
    /* threads of the child: three, parented to its position, ids from task/ */
    int found = 0;
    for (uint32_t i = 0; i < pl_object_num_instances(&to); i++) {
        if (parent_pos(&to, (int32_t)i) != (uint32_t)pos) continue;
        uint64_t tid = val(&to, (int32_t)i, PL_CTR_ID_THREAD);
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/task/%llu", (int)child, (unsigned long long)tid);
        assert_int_equal(access(path, F_OK), 0);
        assert_int_equal(val(&to, (int32_t)i, PL_CTR_ID_PROCESS), (uint64_t)child);
        assert_int_equal(val(&to, (int32_t)i, PL_CTR_THREAD_STATE), 5); /* waiting on the pipe */
        found++;
    }
    assert_int_equal(found, 3);
    done(&r);
    unload();
    reap(child);
}

static void live_counts_match(void **state)
{
    (void)state;
    load(NULL);
    assert_int_equal(p_open(NULL), 0);
    long before = count_proc_dirs();
    result r;
    collect("230", &r);
    long after = count_proc_dirs();
    pl_object po;
    object(&r, PL_OBJ_PROCESS, &po);
    long ours = (long)pl_object_num_instances(&po) - 2;
    long lo = (before < after ? before : after) - 5, hi = (before > after ? before : after) + 5;
    if (ours < lo || ours > hi) fail_msg("processes: ours %ld, /proc %ld..%ld", ours, before, after);
    FILE *ps = popen("ps -e --no-headers | wc -l", "r");
    if (ps) {
        long nps = 0;
        if (fscanf(ps, "%ld", &nps) == 1 && nps > 0) {
            /* ps itself, sh and wc are extra */
            if (ours < nps - 10 || ours > nps + 10) fail_msg("processes: ours %ld, ps %ld", ours, nps);
        }
        pclose(ps);
    }
    done(&r);
    unload();
}

static void live_unavailable_matches_direct_read(void **state)
{
    (void)state;
    load(NULL);
    assert_int_equal(p_open(NULL), 0);
    result r;
    collect("230", &r);
    pl_object po;
    object(&r, PL_OBJ_PROCESS, &po);
    /* pid 1: the io bit must be set exactly when this process cannot read
     * /proc/1/io (in containers even root may not). */
    int fd = open("/proc/1/io", O_RDONLY);
    char buf[512];
    int readable = fd >= 0 && read(fd, buf, sizeof buf) > 0;
    if (fd >= 0) close(fd);
    int32_t pos = -1;
    for (uint32_t i = 1; i + 1 < pl_object_num_instances(&po); i++)
        if (val(&po, (int32_t)i, PL_CTR_ID_PROCESS) == 1) pos = (int32_t)i;
    assert_true(pos > 0);
    uint64_t unav = val(&po, pos, PL_CTR_UNAVAILABLE_COUNTERS);
    assert_int_equal((unav & 1) != 0, !readable);
    if (!readable) assert_int_equal(val(&po, pos, PL_CTR_IO_READ_BYTES_PER_SEC), 0);
    done(&r);
    unload();
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(process_names_and_order),
        cmocka_unit_test(process_values_exact),
        cmocka_unit_test(unavailable_io_and_handles),
        cmocka_unit_test(counter_types),
        cmocka_unit_test(threads_parents_and_values),
        cmocka_unit_test(query_selection),
        cmocka_unit_test(costly_image_and_address_space),
        cmocka_unit_test(more_data_contract),
        cmocka_unit_test(open_close_errors),
        cmocka_unit_test(malformed_files_skipped),
        cmocka_unit_test(repeated_collects_stable),
        cmocka_unit_test(live_child_matches),
        cmocka_unit_test(live_counts_match),
        cmocka_unit_test(live_unavailable_matches_direct_read),
    };
    if (argc > 1) cmocka_set_test_filter(argv[1]);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
