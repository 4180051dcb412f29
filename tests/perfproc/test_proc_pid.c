/* Tests of the /proc/<pid> readers (lib/platform/linux/proc_pid.c) against
 * hand-written strings and the canned tree tests/perfproc/data/basic. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pl_test.h"
#include "platform.h"
#include "linux/collect_proc.h"

#define BASIC PL_SOURCE_DIR "/tests/perfproc/data/basic"

static int open_dir(const char *rel)
{
    int fd = pl__root_open(BASIC, rel);
    assert_true(fd >= 0);
    return fd;
}

static void stat_real_line(void **state)
{
    (void)state;
    const char *line = "8410 (cat) R 8408 8408 5262 0 -1 4194304 98 0 3 0 12 34 0 0 20 0 1 0 61420 3133440 382 "
                       "18446744073709551615 94665900179456 94665900199337 140733739804208 0 0 0 0 0 0 0 0 0 17 "
                       "1 0 0 0 0 0 94665900215344 94665900216960 94666288488448 140733739809224 140733739809244 "
                       "140733739809244 140733739810795 0\n";
    pl_proc_stat st;
    assert_int_equal(pl__proc_parse_stat(line, &st), 0);
    assert_int_equal(st.pid, 8410);
    assert_string_equal(st.comm, "cat");
    assert_int_equal(st.state, 'R');
    assert_int_equal(st.ppid, 8408);
    assert_int_equal(st.flags, 4194304);
    assert_int_equal(st.minflt, 98);
    assert_int_equal(st.majflt, 3);
    assert_int_equal(st.utime, 12);
    assert_int_equal(st.stime, 34);
    assert_int_equal(st.priority, 20);
    assert_int_equal(st.nice, 0);
    assert_int_equal(st.num_threads, 1);
    assert_int_equal(st.starttime, 61420);
    assert_int_equal(st.vsize, 3133440);
    assert_int_equal(st.rss, 382);
    assert_int_equal(st.processor, 1);
    assert_int_equal(st.rt_priority, 0);
    assert_int_equal(st.policy, 0);
}

static void stat_comm_with_parens_and_spaces(void **state)
{
    (void)state;
    pl_proc_stat st;
    const char *line = "200 (a) b) c) R 1 200 200 0 -1 4194304 10 0 0 0 7 3 0 0 20 -5 1 0 2000 4096000 100\n";
    assert_int_equal(pl__proc_parse_stat(line, &st), 0);
    assert_string_equal(st.comm, "a) b) c");
    assert_int_equal(st.state, 'R');
    assert_int_equal(st.ppid, 1);
    assert_int_equal(st.nice, -5);
    assert_int_equal(st.rss, 100);
    assert_int_equal(st.processor, -1); /* absent on this short (old-kernel) line */
    /* An empty comm and a comm that is only ')' */
    assert_int_equal(pl__proc_parse_stat("5 () S 1 0 0 0 0 0 0 0 0 0 1 2 0 0 20 0 1 0 9 0 0", &st), 0);
    assert_string_equal(st.comm, "");
    assert_int_equal(pl__proc_parse_stat("6 ())) S 1 0 0 0 0 0 0 0 0 0 1 2 0 0 20 0 1 0 9 0 0", &st), 0);
    assert_string_equal(st.comm, "))");
}

static void stat_long_comm_truncated(void **state)
{
    (void)state;
    char line[512];
    const char *tail = ") S 1 0 0 0 0 0 0 0 0 0 1 2 0 0 20 0 1 0 9 0 0\n";
    memcpy(line, "7 (", 3);
    memset(line + 3, 'x', 100);
    memcpy(line + 103, tail, strlen(tail) + 1);
    pl_proc_stat st;
    assert_int_equal(pl__proc_parse_stat(line, &st), 0);
    assert_int_equal(strlen(st.comm), PL_PROC_COMM_MAX - 1);
    assert_int_equal(st.starttime, 9);
}

static void stat_malformed(void **state)
{
    (void)state;
    pl_proc_stat st;
    static const char *bad[] = {
        "",
        "abc",
        "12 garbage without parens\n",
        "12 (no close paren S 1 2 3\n",
        "12 (short) S 1 12\n",                           /* too few fields */
        "12 (x) S 1 0 0 0 0 0 0 0 0 0 1 2 0 0 20 0 1 0 9 0\n", /* rss missing */
        "12 (x)S 1 0 0 0 0 0 0 0 0 0 1 2 0 0 20 0 1 0 9 0 0\n",
        "12 (x) S x 0 0 0 0 0 0 0 0 0 1 2 0 0 20 0 1 0 9 0 0\n",
        "12 (x) S 1 0 0 0 0 0 0 0 0 0 1z 2 0 0 20 0 1 0 9 0 0\n",
        "-3 (x) S 1 0 0 0 0 0 0 0 0 0 1 2 0 0 20 0 1 0 9 0 0\n",
        "12 (x) S -1 0 0 0 0 0 0 0 0 0 1 2 0 0 20 0 1 0 9 0 0\n",
        "12 (x) \n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (pl__proc_parse_stat(bad[i], &st) != -EINVAL) fail_msg("accepted bad stat %zu: %s", i, bad[i]);
    }
}

static void status_full(void **state)
{
    (void)state;
    int fd = open_dir("proc/300");
    pl_proc_status st;
    assert_int_equal(pl__proc_read_status(fd, &st), 0);
    close(fd);
    assert_int_equal(st.have, PL_PST_VM_ALL | PL_PST_THREADS | PL_PST_VOLCTXT | PL_PST_NONVOLCTXT);
    assert_int_equal(st.vm_peak, 110000);
    assert_int_equal(st.vm_size, 102400);
    assert_int_equal(st.vm_hwm, 21000);
    assert_int_equal(st.vm_rss, 20000);
    assert_int_equal(st.rss_anon, 15000);
    assert_int_equal(st.rss_file, 5000);
    assert_int_equal(st.rss_shmem, 0);
    assert_int_equal(st.vm_data, 60000);
    assert_int_equal(st.vm_stk, 136);
    assert_int_equal(st.vm_swap, 2048);
    assert_int_equal(st.threads, 3);
    assert_int_equal(st.vol_ctxt, 600);
    assert_int_equal(st.nonvol_ctxt, 60);
}

static void status_kernel_thread_has_no_vm(void **state)
{
    (void)state;
    int fd = open_dir("proc/2");
    pl_proc_status st;
    assert_int_equal(pl__proc_read_status(fd, &st), 0);
    close(fd);
    assert_int_equal(st.have, PL_PST_THREADS | PL_PST_VOLCTXT | PL_PST_NONVOLCTXT);
    assert_int_equal(st.vm_peak, 0);
    assert_int_equal(st.vol_ctxt, 400);
    assert_int_equal(st.nonvol_ctxt, 2);
}

static void status_malformed(void **state)
{
    (void)state;
    pl_proc_status st;
    assert_int_equal(pl__proc_parse_status("", &st), -EINVAL);
    assert_int_equal(pl__proc_parse_status("VmPeak:\t10 kB\n", &st), -EINVAL); /* no Name: */
    assert_int_equal(pl__proc_parse_status("Name:\tx\nVmPeak:\tlots kB\n", &st), -EINVAL);
    assert_int_equal(pl__proc_parse_status("Name:\tx\nVmRSS:\n12\n", &st), -EINVAL);
    /* Unknown keys and a last line without newline are fine */
    assert_int_equal(pl__proc_parse_status("Name:\tx\nVmFoo:\tzz\nVmSwap:\t7 kB", &st), 0);
    assert_int_equal(st.have, PL_PST_VMSWAP);
    assert_int_equal(st.vm_swap, 7);
}

static void io_parse(void **state)
{
    (void)state;
    int fd = open_dir("proc/1");
    pl_proc_io io;
    assert_int_equal(pl__proc_read_io(fd, &io), 0);
    close(fd);
    assert_int_equal(io.rchar, 1000000);
    assert_int_equal(io.wchar, 200000);
    assert_int_equal(io.syscr, 3000);
    assert_int_equal(io.syscw, 1500);
    assert_int_equal(io.read_bytes, 40960);
    assert_int_equal(io.write_bytes, 8192);
    assert_int_equal(io.cancelled_write_bytes, 0);
    assert_int_equal(pl__proc_parse_io("rchar: 1\nwchar: 2\nsyscr: 3\n", &io), -EINVAL);
    assert_int_equal(pl__proc_parse_io("rchar: 1\nwchar: 2\nsyscr: 3\nsyscw: x\n", &io), -EINVAL);
    assert_int_equal(pl__proc_parse_io("", &io), -EINVAL);
}

static void io_missing_is_enoent(void **state)
{
    (void)state;
    int fd = open_dir("proc/400");
    pl_proc_io io;
    assert_int_equal(pl__proc_read_io(fd, &io), -ENOENT);
    assert_int_equal(pl__proc_count_fds(fd, 0), -ENOENT);
    close(fd);
}

static void schedstat_parse(void **state)
{
    (void)state;
    int fd = open_dir("proc/300/task");
    pl_proc_schedstat ss;
    assert_int_equal(pl__proc_read_schedstat(fd, "302/schedstat", &ss), 0);
    close(fd);
    assert_int_equal(ss.run_ns, 3000000000ull);
    assert_int_equal(ss.wait_ns, 7000);
    assert_int_equal(ss.slices, 333);
    assert_int_equal(pl__proc_parse_schedstat("1 2\n", &ss), -EINVAL);
}

static void fd_count_getdents(void **state)
{
    (void)state;
    int fd = open_dir("proc/300");
    assert_int_equal(pl__proc_count_fds(fd, 0), 5);
    close(fd);
    fd = open_dir("proc/2");
    assert_int_equal(pl__proc_count_fds(fd, 0), 0); /* only .keep */
    close(fd);
}

static void fd_count_live_matches(void **state)
{
    (void)state;
    int procfd = pl__root_open("/", "proc");
    assert_true(procfd >= 0);
    int self = openat(procfd, "self", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    assert_true(self >= 0);
    int64_t by_dents = pl__proc_count_fds(self, 0);
    assert_true(by_dents >= 3);
    /* Listing our own fd directory sees the descriptor doing the listing. */
    if (pl__proc_fd_stat_works(procfd)) assert_int_equal(pl__proc_count_fds(self, 1), by_dents - 1);
    /* A canned tree is never probed as a kernel that counts */
    int canned = open_dir("proc");
    assert_int_equal(pl__proc_fd_stat_works(canned), 0);
    close(canned);
    close(self);
    close(procfd);
}

static void list_numeric_sorted(void **state)
{
    (void)state;
    int fd = open_dir("proc");
    pl_pidvec pv = {0};
    assert_int_equal(pl__proc_list_numeric(fd, &pv), 8);
    const int32_t want[] = {1, 2, 100, 101, 200, 300, 400, 500};
    for (size_t i = 0; i < 8; i++) assert_int_equal(pv.v[i], want[i]);
    /* the same descriptor lists again */
    assert_int_equal(pl__proc_list_numeric(fd, &pv), 8);
    close(fd);
    fd = open_dir("proc/300/task");
    assert_int_equal(pl__proc_list_numeric(fd, &pv), 3);
    assert_int_equal(pv.v[0], 300);
    assert_int_equal(pv.v[2], 302);
    close(fd);
    pl__pidvec_free(&pv);
    pl__pidvec_free(&pv); /* twice is harmless */
}

static void read_stat_from_tree(void **state)
{
    (void)state;
    int fd = open_dir("proc/300/task/301");
    pl_proc_stat st;
    assert_int_equal(pl__proc_read_stat(fd, &st), 0);
    close(fd);
    assert_int_equal(st.pid, 301);
    assert_string_equal(st.comm, "worker-rt");
    assert_int_equal(st.priority, -51);
    assert_int_equal(st.rt_priority, 50);
    assert_int_equal(st.policy, 1);
    assert_int_equal(st.utime, 200);
    fd = open_dir("proc/500");
    assert_int_equal(pl__proc_read_stat(fd, &st), 0);
    assert_int_equal(st.state, 'Z');
    close(fd);
}

/* procfs is recognised; trusting it skips only the regular-file check:
 * live files read the same, and a canned tree (not procfs) is not trusted. */
static void procfs_trust(void **state)
{
    (void)state;
    int pfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    assert_true(pfd >= 0);
    assert_int_equal(pl__proc_is_procfs(pfd), 1);
    int tfd = open_dir("proc/1");
    assert_int_equal(pl__proc_is_procfs(tfd), 0);
    char a[PL_PROC_STAT_BUF], b[PL_PROC_STAT_BUF];
    assert_true(pl__proc_read1(pfd, "self/comm", a, sizeof a) > 0);
    pl__proc_trust_procfs(1);
    assert_true(pl__proc_read1(pfd, "self/comm", b, sizeof b) > 0);
    assert_string_equal(a, b);
    assert_int_equal(pl__proc_read1(pfd, "self/nonexistent", b, sizeof b), -ENOENT);
    pl__proc_trust_procfs(0);
    /* untrusted again: a directory is refused before any read */
    assert_int_equal(pl__proc_read1(tfd, "fd", b, sizeof b), -EINVAL);
    close(tfd);
    close(pfd);
}

static void read1_and_fmt(void **state)
{
    (void)state;
    char buf[8];
    int fd = open_dir("proc/1");
    assert_int_equal(pl__proc_read1(fd, "stat", buf, sizeof buf), 7); /* truncated to cap-1 */
    assert_string_equal(buf, "1 (syst");
    assert_int_equal(pl__proc_read1(fd, "nonexistent", buf, sizeof buf), -ENOENT);
    assert_int_equal(pl__proc_read1(fd, "stat", buf, 1), -EINVAL);
    close(fd);
    char n[12];
    assert_int_equal(pl__fmt_i32(n, 0), 1);
    assert_string_equal(n, "0");
    assert_int_equal(pl__fmt_i32(n, 2147483647), 10);
    assert_string_equal(n, "2147483647");
}

static void maps_lines(void **state)
{
    (void)state;
    const char *text = "55d0c0002000-55d0c0006000 r-xp 00002000 fe:00 1001      /usr/lib/systemd/systemd\n"
                       "7f0000001000-7f0000003000 rw-s 00000000 00:01 3003      /dev/zero (deleted)\n"
                       "7f0000010000-7f0000011000 ---p 00000000 00:00 0 \n"
                       "7f0000011000-7f0000012000 rwxp 00000000 00:00 0\n"
                       "7f0000012000-7f0000013000 --xp 00000000 00:00 0\n"
                       "7f0000013000-7f0000014000 rwxs 00000000 00:00 0\n"
                       "7f0000014000-7f0000015000 rw-p 00000000 00:00 0\n"
                       "7f0000015000-7f0000016000 r--p 00000000 00:00 0";
    const char *p = text;
    pl_maps_entry e;
    assert_int_equal(pl__maps_next(&p, &e), 1);
    assert_int_equal(e.start, 0x55d0c0002000ull);
    assert_int_equal(e.end, 0x55d0c0006000ull);
    assert_int_equal(e.prot, PL_PROT_EXEC_READ_ONLY);
    assert_int_equal(e.inode, 1001);
    assert_int_equal(e.dev_major, 0xfe);
    assert_int_equal(e.path_len, strlen("/usr/lib/systemd/systemd"));
    assert_memory_equal(e.path, "/usr/lib/systemd/systemd", e.path_len);
    assert_int_equal(pl__maps_next(&p, &e), 1);
    assert_int_equal(e.prot, PL_PROT_READ_WRITE);
    assert_true(e.shared);
    assert_int_equal(e.path_len, strlen("/dev/zero (deleted)"));
    assert_int_equal(pl__maps_next(&p, &e), 1);
    assert_int_equal(e.prot, PL_PROT_NO_ACCESS);
    assert_int_equal(e.path_len, 0);
    const int want[] = {PL_PROT_EXEC_WRITE_COPY, PL_PROT_EXECUTABLE, PL_PROT_EXEC_READ_WRITE, PL_PROT_WRITE_COPY,
                        PL_PROT_READ_ONLY};
    for (int i = 0; i < 5; i++) {
        assert_int_equal(pl__maps_next(&p, &e), 1);
        assert_int_equal(e.prot, want[i]);
    }
    assert_int_equal(pl__maps_next(&p, &e), 0);

    static const char *bad[] = {
        "zz-10 r--p 0 00:00 0\n",         "10-20 r--x 0 00:00 0\n", "20-10 r--p 0 00:00 0\n",
        "10-20 r--p 0 00:00\n",           "10-20 r-\n",             "10+20 r--p 0 00:00 0\n",
        "10-20 r--p 0 0000 0\n",          "11111111111111111-20 r--p 0 00:00 0\n",
        /* a device number beyond 32 bits used to be cut to its low bits */
        "10-20 r--p 0 100000008:01 5 /x\n", "10-20 r--p 0 08:100000001 5 /x\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        p = bad[i];
        if (pl__maps_next(&p, &e) != -EINVAL) fail_msg("accepted bad maps line %zu", i);
    }
}

/* Review: hostile numbers in a stat line. A negative number in an unsigned
 * field used to become 2^64 - n (utime -5: a CPU time of 58 million years),
 * a number beyond 64 bits saturated silently, and vsize above INT64_MAX was
 * cut to INT64_MAX. Now: exact up to UINT64_MAX, and malformed otherwise. */
static void stat_hostile_numbers(void **state)
{
    (void)state;
    pl_proc_stat st;
#define HEAD "300 (x) S 1 300 300 0 -1 4194304 10 0 0 0 "
#define TAIL " 0 0 20 0 1 0 2000 4096000 100 18446744073709551615\n"
    /* utime -5, stime -1: negative where the kernel prints %lu */
    assert_int_equal(pl__proc_parse_stat(HEAD "-5 3" TAIL, &st), -EINVAL);
    assert_int_equal(pl__proc_parse_stat(HEAD "7 -1" TAIL, &st), -EINVAL);
    /* beyond 2^64 in a kept field */
    assert_int_equal(pl__proc_parse_stat(HEAD "99999999999999999999999 3" TAIL, &st), -EINVAL);
    /* a time whose 100 ns value would wrap */
    assert_int_equal(pl__proc_parse_stat(HEAD "18446744073709551615 3" TAIL, &st), -EINVAL);
    /* the largest accepted time */
    char line[512];
    snprintf(line, sizeof line, HEAD "%llu 3" TAIL, (unsigned long long)PL_PROC_STAT_MAX_TICKS);
    assert_int_equal(pl__proc_parse_stat(line, &st), 0);
    assert_true(st.utime == PL_PROC_STAT_MAX_TICKS);
    /* minflt and vsize at UINT64_MAX are exact, not INT64_MAX */
    const char *big = "300 (x) S 1 300 300 0 -1 4194304 18446744073709551615 0 0 0 7 3 0 0 20 0 1 0 2000 "
                      "18446744073709551615 100 18446744073709551615\n";
    assert_int_equal(pl__proc_parse_stat(big, &st), 0);
    assert_true(st.minflt == UINT64_MAX);
    assert_true(st.vsize == UINT64_MAX);
    /* an unused field beyond 64 bits is fine (rsslim, field 25) */
    const char *unused = "300 (x) S 1 300 300 0 -1 4194304 10 0 0 0 7 3 0 0 20 0 1 0 2000 4096000 100 "
                         "999999999999999999999999\n";
    assert_int_equal(pl__proc_parse_stat(unused, &st), 0);
    assert_int_equal(st.rss, 100);
    /* nice below INT64_MIN; INT64_MIN itself */
    assert_int_equal(pl__proc_parse_stat("300 (x) S 1 300 300 0 -1 4194304 10 0 0 0 7 3 0 0 20 "
                                         "-9223372036854775809 1 0 2000 4096000 100\n", &st), -EINVAL);
    assert_int_equal(pl__proc_parse_stat("300 (x) S 1 300 300 0 -1 4194304 10 0 0 0 7 3 0 0 20 "
                                         "-9223372036854775808 1 0 2000 4096000 100\n", &st), 0);
    assert_true(st.nice == INT64_MIN);
    /* a lone '-' */
    assert_int_equal(pl__proc_parse_stat(HEAD "- 3" TAIL, &st), -EINVAL);
    /* rt_priority (40) and policy (41) beyond 32 bits: malformed, they used
     * to be UINT32_MAX */
#define MID " 0 0 20 0 1 0 2000 4096000 100 0 0 0 0 0 0 0 0 0 0 0 0 0 0 1 "
    assert_int_equal(pl__proc_parse_stat(HEAD "7 3" MID "4294967295 5\n", &st), 0);
    assert_true(st.rt_priority == UINT32_MAX && st.policy == 5 && st.processor == 1);
    assert_int_equal(pl__proc_parse_stat(HEAD "7 3" MID "4294967296 5\n", &st), -EINVAL);
    assert_int_equal(pl__proc_parse_stat(HEAD "7 3" MID "1 4294967296\n", &st), -EINVAL);
#undef MID
#undef HEAD
#undef TAIL
}

/* Review: comm with a newline, 15 bytes of 0xFF, ')' and spaces; a line
 * without its trailing newline; an embedded NUL (the text ends there). */
static void stat_hostile_comm(void **state)
{
    (void)state;
    pl_proc_stat st;
    assert_int_equal(pl__proc_parse_stat("42 (a\nb) S 1 42 42 0 -1 0 1 0 2 0 3 4 0 0 20 0 1 0 5 6 7\n", &st), 0);
    assert_string_equal(st.comm, "a\nb");
    assert_int_equal(st.utime, 3);
    assert_int_equal(st.pid, 42);
    assert_int_equal(pl__proc_parse_stat("42 (\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff) R 1 42 42 "
                                         "0 -1 0 1 0 2 0 3 4 0 0 20 0 1 0 5 6 7", &st), 0);
    assert_int_equal(strlen(st.comm), 15);
    assert_int_equal((unsigned char)st.comm[0], 0xff);
    assert_int_equal(st.rss, 7);
    assert_int_equal(pl__proc_parse_stat("42 () ) ) S 1 42 42 0 -1 0 1 0 2 0 3 4 0 0 20 0 1 0 5 6 7\n", &st), 0);
    assert_string_equal(st.comm, ") ) ");
    /* "42 (a" NUL ") S ...": the parser sees "42 (a" only */
    const char nul[] = "42 (a\0) S 1 42 42 0 -1 0 1 0 2 0 3 4 0 0 20 0 1 0 5 6 7\n";
    assert_int_equal(pl__proc_parse_stat(nul, &st), -EINVAL);
}

/* Review: a btime so large that its FILETIME overflows int64 (undefined
 * behaviour in the signed multiply before) is malformed. */
static void boot_filetime_bounds(void **state)
{
    (void)state;
    char dir[] = "/tmp/pl_btime_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/proc", dir);
    assert_int_equal(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/proc/stat", dir);
    static const struct {
        const char *text;
        int rc;
        int64_t ft;
    } cases[] = {
        {"cpu  1 2 3 4\nbtime 1700000000\n", 0, 116444736000000000LL + 17000000000000000LL},
        {"cpu  1 2 3 4\nbtime 0\n", 0, 116444736000000000LL},
        {"cpu  1 2 3 4\nbtime 910692730085\n", 0, 116444736000000000LL + 9106927300850000000LL},
        {"cpu  1 2 3 4\nbtime 910692730086\n", -EINVAL, 0},
        {"cpu  1 2 3 4\nbtime 99999999999999999\n", -EINVAL, 0},
        {"cpu  1 2 3 4\nbtime 18446744073709551615\n", -EINVAL, 0},
        {"cpu  1 2 3 4\nbtime 999999999999999999999999\n", -EINVAL, 0},
        {"cpu  1 2 3 4\n", -ENODATA, 0},
        /* issue 11 item 8: not read as 1 (every Elapsed Time 56 years) */
        {"cpu  1 2 3 4\nbtime 1e9x\n", -EINVAL, 0},
        {"cpu  1 2 3 4\nbtime 1700000000 5\n", -EINVAL, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, cases[i].text, strlen(cases[i].text)), (ssize_t)strlen(cases[i].text));
        close(fd);
        int rfd = pl__root_open(dir, "");
        assert_true(rfd >= 0);
        int64_t ft = -1;
        assert_int_equal(pl__boot_filetime(rfd, &ft), cases[i].rc);
        if (cases[i].rc == 0) assert_true(ft == cases[i].ft);
        else assert_true(ft == -1); /* unchanged */
        close(rfd);
    }
    unlink(path);
    snprintf(path, sizeof path, "%s/proc", dir);
    rmdir(path);
    rmdir(dir);
    /* the tick conversion saturates instead of wrapping */
    assert_true(pl__ticks_to_100ns(3, 100) == 300000);
    assert_true(pl__ticks_to_100ns(UINT64_MAX / 100000, 100) == (UINT64_MAX / 100000) * 100000);
    assert_true(pl__ticks_to_100ns(UINT64_MAX / 100000 + 1, 100) == UINT64_MAX);
    assert_true(pl__ticks_to_100ns(5, 0) == 0);
}

/* Issue 33 item 7: the commit charge from smaps. The file is a real one,
 * read on the test VM (Linux 6.18) from a process with a 1 GiB
 * MAP_NORESERVE mapping, 64 MiB of MAP_SHARED | MAP_ANONYMOUS and 32 MiB of
 * private memory (its path renamed); then the hostile cases. */
static void smaps_commit(void **state)
{
    (void)state;
    FILE *f = fopen(PL_SOURCE_DIR "/tests/perfproc/data/smaps/noreserve-shared-6.18", "r");
    assert_non_null(f);
    static char text[65536];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    pl_smaps_commit c;
    assert_int_equal(pl__parse_smaps_commit(text, &c), 0);
    assert_int_equal(c.mappings, 26);
    assert_int_equal(c.private_kb, 33020);       /* every "ac" mapping: the 32 MiB and the program's */
    assert_int_equal(c.reserved_kb, 1048576);    /* the MAP_NORESERVE gigabyte: never charged */
    assert_int_equal(c.shared_anon_kb, 65536);   /* /dev/zero (deleted), charged when mapped */
    assert_int_equal(pl__parse_smaps_commit("", &c), 0);
    assert_int_equal(c.mappings, 0);
    /* a named shared anonymous mapping counts; one with MAP_NORESERVE not */
    assert_int_equal(pl__parse_smaps_commit("7f0000000000-7f0000100000 rw-s 00000000 00:01 7 [anon_shmem:pool]\n"
                                            "Size: 1024 kB\nVmFlags: rd wr sh mr mw me ms\n"
                                            "7f0000100000-7f0000200000 rw-s 00000000 00:01 8 /dev/zero (deleted)\n"
                                            "VmFlags: rd wr sh mr mw me ms nr \n",
                                            &c),
                     0);
    assert_int_equal(c.shared_anon_kb, 1024);
    assert_int_equal(c.private_kb, 0);
    static const char *const bad[] = {
        "7f0000000000-7f0000001000 rw-p 00000000 00:00 0\nSize: 4 kB\n",           /* no VmFlags */
        "Size: 4 kB\n7f0000000000-7f0000001000 rw-p 00000000 00:00 0\nVmFlags: ac\n", /* a key first */
        "7f0000000000-7f0000001000 rw-p 00000000 00:00 0\nVmFlags: ac Ac\n",         /* not a flag */
        "7f0000000000-7f0000001000 rw-p 00000000 00:00 0\nVmFlags: acx\n",
        ("7f0000000000-7f0000001000 rw-p 00000000 00:00 0\n"                         /* two headers */
         "7f0000001000-7f0000002000 rw-p 00000000 00:00 0\nVmFlags: ac\n"),
        "zzzz-7f0000001000 rw-p 00000000 00:00 0\nVmFlags: ac\n",                    /* not a header */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (pl__parse_smaps_commit(bad[i], &c) != -EINVAL) fail_msg("bad[%zu] was accepted", i);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stat_real_line),
        cmocka_unit_test(stat_comm_with_parens_and_spaces),
        cmocka_unit_test(stat_long_comm_truncated),
        cmocka_unit_test(stat_malformed),
        cmocka_unit_test(stat_hostile_numbers),
        cmocka_unit_test(stat_hostile_comm),
        cmocka_unit_test(boot_filetime_bounds),
        cmocka_unit_test(status_full),
        cmocka_unit_test(status_kernel_thread_has_no_vm),
        cmocka_unit_test(status_malformed),
        cmocka_unit_test(io_parse),
        cmocka_unit_test(io_missing_is_enoent),
        cmocka_unit_test(schedstat_parse),
        cmocka_unit_test(fd_count_getdents),
        cmocka_unit_test(fd_count_live_matches),
        cmocka_unit_test(list_numeric_sorted),
        cmocka_unit_test(read_stat_from_tree),
        cmocka_unit_test(read1_and_fmt),
        cmocka_unit_test(procfs_trust),
        cmocka_unit_test(maps_lines),
        cmocka_unit_test(smaps_commit),
    };
    return pl_test_run(tests, argc, argv);
}
