/* PerfOS, issue 11: the Objects object (260). Processes and Threads as
 * System counts them (the same collection gives the same numbers),
 * Semaphores and Sections from /proc/sysvipc, Events and Mutexes always
 * marked unavailable. The count parser on its own, libperfos.so on the
 * canned trees and on hostile ones, and live with a semaphore set and a
 * shared memory segment this test creates. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <unistd.h>

#include "linux/collect_sys.h"
#include "perflib/block.h"
#include "perflib/indices.h"
#include "perflib/winperf.h"
#include "pl_test.h"
#include "perfos_test.h"
#include "platform.h"

static const char SEM_HDR[] = "       key      semid perms      nsems   uid   gid  cuid  cgid      otime      ctime\n";

static void sysvipc_parser(void **state)
{
    (void)state;
    uint64_t n = 99;
    char t[512];
    snprintf(t, sizeof t, "%s", SEM_HDR);
    assert_int_equal(pl__parse_sysvipc_count(t, strlen(t), &n), 0);
    assert_int_equal(n, 0);
    snprintf(t, sizeof t, "%s         0          0   600   1 0 0 0 0 0 0\n -1234          7   666   2 0 0 0 0 0 0\n",
             SEM_HDR);
    assert_int_equal(pl__parse_sysvipc_count(t, strlen(t), &n), 0);
    assert_int_equal(n, 2);
    static const char *const bad[] = {
        "",                                       /* empty */
        "         0          0   600\n",          /* no header */
        "       key      semid\n   x  1 2\n",     /* a key that is no number */
        "       key      semid\n   1 -2 3\n",     /* a negative id */
        "       key      semid\n   1\n",          /* no id */
        "       key      semid\n\n",              /* an empty line */
        "       key      semid\n   1 2 3",        /* truncated: no final newline */
        "       keys     semid\n   1 2 3\n",      /* another header */
        "       key      semid\n   1 99999999999999999999 3\n", /* an id beyond 64 bits */
    };
    for (size_t i = 0; i < N(bad); i++) {
        n = 99;
        if (pl__parse_sysvipc_count(bad[i], strlen(bad[i]), &n) != -EINVAL) fail_msg("accepted bad[%zu]", i);
        assert_int_equal(n, 99);
    }
    const char nul[] = "       key      semid\n   1 2\0 3\n";
    assert_int_equal(pl__parse_sysvipc_count(nul, sizeof nul - 1, &n), -EINVAL);
}

/* The expected values of Objects; -1: marked unavailable. */
static void check_objects(const pl_object *o, long long procs, long long threads, long long sems, long long secs)
{
    const uint32_t idx[] = {PL_CTR_PROCESSES, PL_CTR_THREADS, PL_CTR_EVENTS,
                            PL_CTR_SEMAPHORES, PL_CTR_MUTEXES, PL_CTR_SECTIONS};
    const long long want[] = {procs, threads, -1, sems, -1, secs};
    assert_int_equal(o->hdr.NumInstances, PERF_NO_INSTANCES);
    uint64_t mask = 0;
    for (size_t i = 0; i < N(idx); i++) {
        assert_int_equal(ph_position(o, idx[i]), i); /* Windows' order */
        assert_int_equal(ph_type(o, idx[i]), PERF_COUNTER_RAWCOUNT);
        if (want[i] < 0) {
            mask |= 1ull << i;
            if (ph_available(o, -1, idx[i])) fail_msg("counter %u not marked", idx[i]);
            assert_int_equal(ph_value(o, -1, idx[i]), 0);
        } else {
            if (!ph_available(o, -1, idx[i])) fail_msg("counter %u marked", idx[i]);
            assert_int_equal(ph_value(o, -1, idx[i]), (uint64_t)want[i]);
        }
    }
    assert_int_equal(ph_value(o, -1, PL_CTR_UNAVAILABLE_COUNTERS), mask);
}

/* m2: pids 1 2 300 4321 holding 1 + 1 + 4 + 12 threads (a canned tree is
 * not the initial PID namespace: summed), 2 semaphore sets, 3 segments;
 * System shows the same Processes and Threads. */
static void m2_objects(void **state)
{
    (void)state;
    pf_run r;
    pf_start(&r, DATA "m2", "260");
    assert_int_equal(r.s.objects, 1);
    pl_object o;
    ph_object(&r.s, PL_OBJ_OBJECTS, &o);
    check_objects(&o, 4, 18, 2, 3);
    pf_again(&r, "Global");
    ph_object(&r.s, PL_OBJ_OBJECTS, &o);
    check_objects(&o, 4, 18, 2, 3);
    pl_object sys;
    ph_object(&r.s, PL_OBJ_SYSTEM, &sys);
    assert_int_equal(ph_value(&sys, -1, PL_CTR_PROCESSES), 4);
    assert_int_equal(ph_value(&sys, -1, PL_CTR_THREADS), 18);
    pf_end(&r);
}

/* m4 has no /proc/sysvipc (a kernel without System V IPC): Semaphores and
 * Sections are there, marked. */
static void m4_no_sysvipc(void **state)
{
    (void)state;
    pf_run r;
    pf_start(&r, DATA "m4", "260");
    pl_object o;
    ph_object(&r.s, PL_OBJ_OBJECTS, &o);
    check_objects(&o, 2, 4, -1, -1);
    pf_end(&r);
}

static char root[64];

/* A malformed sem file and a FIFO as shm are marked (the FIFO does not
 * block); without /proc at all Processes and Threads are marked too. */
static void sysvipc_hostile(void **state)
{
    (void)state;
    strcpy(root, "/tmp/perfos-objs-XXXXXX");
    ph_tempdir(root);
    char t[512];
    snprintf(t, sizeof t, "%s         0          0   600   1 0 0 0 0 0 0\n    1e9x          1   600   1 0 0 0 0 0 0\n",
             SEM_HDR);
    ph_put(root, "proc/sysvipc/sem", t);
    pf_fifo(root, "proc/sysvipc/shm");
    ph_put(root, "proc/1/stat", "1 (init) S 0 1 1 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 3 0 10 1000 100 "
                                "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
    alarm(20);
    pf_run r;
    pf_start(&r, root, "260");
    alarm(0);
    pl_object o;
    ph_object(&r.s, PL_OBJ_OBJECTS, &o);
    check_objects(&o, 1, 3, -1, -1);
    pf_end(&r);
    ph_rmtree(root);
}

static long long count_lines(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    long long n = 0;
    int c, prev = '\n';
    while ((c = fgetc(f)) != EOF) {
        if (c == '\n') n++;
        prev = c;
    }
    fclose(f);
    (void)prev;
    return n - 1; /* the header */
}

static void objects_values(ph_provider *p, uint64_t *sems, uint64_t *secs)
{
    ph_result s;
    ph_collect_ok(p, "260", BUFSZ, &s);
    pl_object o;
    ph_object(&s, PL_OBJ_OBJECTS, &o);
    assert_true(ph_available(&o, -1, PL_CTR_SEMAPHORES));
    assert_true(ph_available(&o, -1, PL_CTR_SECTIONS));
    assert_false(ph_available(&o, -1, PL_CTR_EVENTS));
    assert_false(ph_available(&o, -1, PL_CTR_MUTEXES));
    *sems = ph_value(&o, -1, PL_CTR_SEMAPHORES);
    *secs = ph_value(&o, -1, PL_CTR_SECTIONS);
    ph_result_free(&s);
}

/* This machine: a semaphore set and a shared memory segment made here
 * appear in the counts (and match /proc/sysvipc read directly), and go
 * when removed. System and Objects agree on Processes and Threads. */
static void live_objects(void **state)
{
    (void)state;
    if (access("/proc/sysvipc/sem", R_OK) != 0)
        fail_msg("this kernel has no /proc/sysvipc (CONFIG_SYSVIPC): the live check cannot run");
    ph_provider p;
    pf_load(&p, NULL);
    uint64_t sem0, shm0, sem1, shm1, sem2, shm2;
    objects_values(&p, &sem0, &shm0);
    int semid = semget(IPC_PRIVATE, 3, IPC_CREAT | 0600);
    assert_true(semid >= 0);
    int shmid = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
    if (shmid < 0) semctl(semid, 0, IPC_RMID);
    assert_true(shmid >= 0);
    objects_values(&p, &sem1, &shm1);
    long long dsem = count_lines("/proc/sysvipc/sem"), dshm = count_lines("/proc/sysvipc/shm");
    semctl(semid, 0, IPC_RMID);
    shmctl(shmid, IPC_RMID, NULL);
    objects_values(&p, &sem2, &shm2);
    print_message("semaphore sets %llu -> %llu -> %llu (direct %lld), segments %llu -> %llu -> %llu (direct %lld)\n",
                  (unsigned long long)sem0, (unsigned long long)sem1, (unsigned long long)sem2, dsem,
                  (unsigned long long)shm0, (unsigned long long)shm1, (unsigned long long)shm2, dshm);
    assert_int_equal(sem1, sem0 + 1);
    assert_int_equal(shm1, shm0 + 1);
    assert_int_equal(sem1, (uint64_t)dsem);
    assert_int_equal(shm1, (uint64_t)dshm);
    assert_int_equal(sem2, sem0);
    assert_int_equal(shm2, shm0);

    ph_result s;
    ph_collect_ok(&p, "Global", BUFSZ, &s);
    pl_object o, sys;
    ph_object(&s, PL_OBJ_OBJECTS, &o);
    ph_object(&s, PL_OBJ_SYSTEM, &sys);
    assert_true(ph_value(&o, -1, PL_CTR_PROCESSES) > 0);
    assert_int_equal(ph_value(&o, -1, PL_CTR_PROCESSES), ph_value(&sys, -1, PL_CTR_PROCESSES));
    assert_int_equal(ph_value(&o, -1, PL_CTR_THREADS), ph_value(&sys, -1, PL_CTR_THREADS));
    ph_result_free(&s);
    ph_unload(&p);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sysvipc_parser),
        cmocka_unit_test(m2_objects),
        cmocka_unit_test(m4_no_sysvipc),
        cmocka_unit_test(sysvipc_hostile),
        cmocka_unit_test(live_objects),
    };
    return pl_test_run(tests, argc, argv);
}
