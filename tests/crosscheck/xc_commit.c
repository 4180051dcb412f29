/* Issue 33 item 7, live: Process Private Bytes and Page File Bytes follow
 * the kernel's own commit accounting. A child maps 1 GiB with
 * MAP_NORESERVE (address space the kernel never charges), 256 MiB of
 * MAP_SHARED | MAP_ANONYMOUS (charged when made) and 128 MiB of private
 * memory (charged, never touched). The machine's Committed_AS
 * (/proc/meminfo, the kernel's own sum) grows by what the kernel charged;
 * the child's Page File Bytes must grow by as much, its Private Bytes by
 * the private part, while Virtual Bytes grows by all of it. Page File Bytes
 * read 1.43 GB against Committed Bytes 0.43 GB with such a reservation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "pl_test.h"
#include "xc_util.h"

#define MIB (1024.0 * 1024.0)

struct map_arg {
    char name[16];
    int go[2], done[2];
};

static void mapper(void *arg)
{
    struct map_arg *a = arg;
    prctl(PR_SET_NAME, a->name);
    char c;
    if (read(a->go[0], &c, 1) != 1) _exit(2);
    void *nr = mmap(NULL, (size_t)1 << 30, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    void *sh = mmap(NULL, (size_t)256 << 20, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    void *pr = mmap(NULL, (size_t)128 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    c = nr != MAP_FAILED && sh != MAP_FAILED && pr != MAP_FAILED ? 'y' : 'n';
    if (write(a->done[1], &c, 1) != 1) _exit(3);
    idle_forever();
}

/* Committed_AS in bytes. */
static double committed_as(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    assert_non_null(f);
    char line[256];
    double kb = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "Committed_AS: %lf kB", &kb) == 1) break;
    fclose(f);
    assert_true(kb >= 0);
    return kb * 1024.0;
}

void live_commit_vs_committed_as(void **state)
{
    (void)state;
    char dir[2100];
    xc_mkdtemp(dir, sizeof dir);
    struct map_arg a;
    snprintf(a.name, sizeof a.name, "xcc%d", (int)getpid() % 1000000);
    assert_int_equal(pipe(a.go), 0);
    assert_int_equal(pipe(a.done), 0);
    pid_t child = xc_spawn(mapper, &a, 25);
    xc_sleep_ms(200);
    xc_samples sm = {.q = xc_pdh_open(dir), .n = 3};
    char path[256];
    snprintf(path, sizeof path, "\\Process(%s)\\Page File Bytes", a.name);
    sm.c[0] = xc_pdh_add(sm.q, path);
    snprintf(path, sizeof path, "\\Process(%s)\\Private Bytes", a.name);
    sm.c[1] = xc_pdh_add(sm.q, path);
    snprintf(path, sizeof path, "\\Process(%s)\\Virtual Bytes", a.name);
    sm.c[2] = xc_pdh_add(sm.q, path);
    xc_sample(&sm, 0);
    /* Committed_AS around the mapping only: a few ms, so what the rest of
     * the machine does in between is small against 384 MiB */
    double c0 = committed_as();
    assert_int_equal(write(a.go[1], "g", 1), 1);
    char ok = 0;
    assert_int_equal(read(a.done[0], &ok, 1), 1);
    double c1 = committed_as();
    assert_int_equal(ok, 'y');
    xc_sample(&sm, 1);
    double pfb = (double)(sm.raw[1][0].FirstValue - sm.raw[0][0].FirstValue);
    double priv = (double)(sm.raw[1][1].FirstValue - sm.raw[0][1].FirstValue);
    double virt = (double)(sm.raw[1][2].FirstValue - sm.raw[0][2].FirstValue);
    xc_kill(child);
    PdhCloseQuery(sm.q);
    print_message("Committed_AS grew %.1f MiB; the child's Page File Bytes %.1f MiB, Private Bytes %.1f MiB, "
                  "Virtual Bytes %.1f MiB\n", (c1 - c0) / MIB, pfb / MIB, priv / MIB, virt / MIB);
    /* 32 MiB: the rest of a shared machine in those milliseconds */
    xc_close_to("Process Page File Bytes growth vs Committed_AS growth", pfb, c1 - c0, 0.0, 32 * MIB);
    xc_close_to("Process Private Bytes growth vs the private mapping", priv, 128 * MIB, 0.0, 1 * MIB);
    xc_close_to("Process Virtual Bytes growth vs every mapping", virt, (1024 + 256 + 128) * MIB, 0.0, 1 * MIB);
    xc_rmtree(dir);
}
