/* bench/bench_global: every object of a Global query against the floor of
 * the files it reads (issue 17, "Global at the floor").
 *
 *   bench_global K STORE DIR
 *
 * Opens an engine on STORE (created if missing) with the providers of DIR,
 * asks it for "Global" once and lists the objects it returns. Then, K rounds,
 * for every object by turns (so that a change of machine load hits all
 * columns alike), the three below in an order that rotates from round to
 * round (whichever runs first after another object's work meets colder
 * caches):
 *   engine    pl_engine_query_alloc(e, "<index>") — the whole library path
 *             (host, validation, header);
 *   provider  the provider's Collect("<index>") called directly through
 *             dlopen, as the host would, without the host;
 *   floor     a minimal loop over exactly the kernel sources that provider
 *             reads for that object: open/read-to-EOF/close of each file,
 *             getdents64 of each directory, the same netlink dumps
 *             (RTM_GETQDISC, SOCK_DIAG_BY_FAMILY), statvfs of the same
 *             mounts; no parsing, no building.
 * plus the same three for "Global" itself (the floor there is the union of
 * the objects' sources, each read once, as the providers do).
 *
 * Prints one line per object: "object=<name> index=<n> instances=<n>
 * engine_us=<median> provider_us=<median> floor_us=<median>
 * engine_cpu_us=<median> floor_cpu_us=<median>" (medians of K; the CPU
 * columns are the whole process's CPU time, every thread, over the engine
 * query and over the floor: the machine's load hardly changes them).
 * bench/run-global.sh formats the table with the ratios.
 *
 *   bench_global exec K PROGRAM ARGS...
 *
 * K runs of a program: "wall_us=<median> cpu_us=<median>" (the child's user
 * + system time from wait4).
 *
 *   bench_global startup K STORE DIR
 *
 * The start-up phases of a tool, each timed K times in a fresh engine:
 * store open alone (pl_store_open + pl_store_close: SQLite open, schema
 * check, seed-version check), engine open (store + host), the first query
 * of System (loads and opens the provider), the same query again (steady
 * state), engine close (providers closed and unloaded). One line each:
 * "phase=<name> median_us=<x>".
 *
 * The floors follow what the providers read, as seen with strace on this
 * tree (docs/benchmarks.md, "Global at the floor"); a provider that starts
 * reading another file must have it added here, or its ratio goes up. */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>

#include "perflib/block.h"
#include "perflib/indices.h"
#include "perflib/query.h"
#include "perflib/registry.h"

#include "bench_util.h"

/* ------------------------------------------------------------------ floors */

static int procfd = -1, rootfd = -1;
static char buf[1 << 16];
static _Alignas(8) char dents[32768];

static void read_file(int dirfd, const char *rel)
{
    int fd = openat(dirfd, rel, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    while (read(fd, buf, sizeof buf) > 0) {
    }
    close(fd);
}

/* getdents64 over dirfd/rel, then fn(dirfd of rel, name) for each name not
 * starting with '.' (names collected first, as a provider lists then reads). */
static void each_entry(int dirfd, const char *rel, void (*fn)(int, const char *))
{
    int fd = openat(dirfd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    static _Alignas(8) char d[32768];
    static char names[256][64];
    int nn = 0;
    long n;
    while ((n = syscall(SYS_getdents64, fd, d, sizeof d)) > 0)
        for (long off = 0; off < n;) {
            struct d64 *e = (struct d64 *)(d + off);
            off += e->reclen;
            if (e->name[0] == '.' || nn >= 256) continue;
            snprintf(names[nn++], sizeof names[0], "%.63s", e->name);
        }
    for (int i = 0; i < nn; i++) fn(fd, names[i]);
    close(fd);
}

static void count_dir(int dirfd, const char *rel)
{
    int fd = openat(dirfd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    while (syscall(SYS_getdents64, fd, dents, sizeof dents) > 0) {
    }
    close(fd);
}

/* A netlink socket of `proto`, with a 1 s receive timeout when `timeout`. */
static int nl_open(int proto, int timeout)
{
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, proto);
    if (fd < 0 || !timeout) return fd;
    struct timeval tv = {1, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    return fd;
}

/* Send one dump request and read its reply until NLMSG_DONE (or an error):
 * 0, or -1 when the request could not be sent. */
static int nl_exchange(int fd, const void *req, size_t len)
{
    struct sockaddr_nl k = {.nl_family = AF_NETLINK};
    if (sendto(fd, req, len, 0, (struct sockaddr *)&k, sizeof k) != (ssize_t)len) return -1;
    for (int i = 0; i < 100000; i++) {
        ssize_t n = recv(fd, buf, sizeof buf, 0);
        if (n <= 0) break;
        /* the dump's last datagram holds NLMSG_DONE (or an error) */
        int end = 0;
        struct nlmsghdr h;
        for (size_t off = 0; off + sizeof h <= (size_t)n;) {
            memcpy(&h, buf + off, sizeof h);
            if (h.nlmsg_type == NLMSG_DONE || h.nlmsg_type == NLMSG_ERROR) end = 1;
            if (h.nlmsg_len < sizeof h) break;
            off += NLMSG_ALIGN(h.nlmsg_len);
        }
        if (end) break;
    }
    return 0;
}

/* One netlink dump on a fresh socket. */
static void nl_dump(int proto, const void *req, size_t len)
{
    int fd = nl_open(proto, 1);
    if (fd < 0) return;
    nl_exchange(fd, req, len);
    close(fd);
}

/* PerfNet's Connections Established: one TCPDIAG_GETSOCK dump of both
 * families (ESTABLISHED | CLOSE_WAIT, no extensions) on a fresh socket. */
static void diag_dumps(void)
{
    struct {
        struct nlmsghdr h;
        struct inet_diag_req r;
    } req;
    memset(&req, 0, sizeof req);
    req.h.nlmsg_len = sizeof req;
    req.h.nlmsg_type = TCPDIAG_GETSOCK;
    req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
    req.h.nlmsg_seq = 5;
    req.r.idiag_family = AF_UNSPEC;
    req.r.idiag_states = (1u << 1) | (1u << 8);
    nl_dump(NETLINK_SOCK_DIAG, &req, sizeof req);
}

/* The same as two SOCK_DIAG_BY_FAMILY dumps (what the provider falls back
 * to, and what it did before): printed as the "TCP (2 dumps)" row. */
static void diag_dumps_v2(void)
{
    int fd = nl_open(NETLINK_SOCK_DIAG, 0);
    if (fd < 0) return;
    for (int v6 = 0; v6 < 2; v6++) {
        struct {
            struct nlmsghdr h;
            struct inet_diag_req_v2 r;
        } req;
        memset(&req, 0, sizeof req);
        req.h.nlmsg_len = sizeof req;
        req.h.nlmsg_type = SOCK_DIAG_BY_FAMILY;
        req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
        req.h.nlmsg_seq = (uint32_t)(1 + v6);
        req.r.sdiag_family = v6 ? AF_INET6 : AF_INET;
        req.r.sdiag_protocol = IPPROTO_TCP;
        req.r.idiag_states = (1u << 1) | (1u << 8);
        if (nl_exchange(fd, &req, sizeof req) != 0) break;
    }
    close(fd);
}

/* What Connections Established cost before sock_diag: /proc/net/tcp and
 * /proc/net/tcp6 read to the end. */
static void tcp_files(void)
{
    read_file(rootfd, "proc/net/tcp");
    read_file(rootfd, "proc/net/tcp6");
}

static void qdisc_dump(void)
{
    struct {
        struct nlmsghdr h;
        struct tcmsg t;
    } req;
    memset(&req, 0, sizeof req);
    req.h.nlmsg_len = NLMSG_LENGTH(sizeof req.t);
    req.h.nlmsg_type = RTM_GETQDISC;
    req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
    req.h.nlmsg_seq = 1;
    nl_dump(NETLINK_ROUTE, &req, req.h.nlmsg_len);
}

/* What PerfDisk and PerfNet look at, worked out once before the timing
 * (the floors repeat the provider's syscalls, not its parsing): every
 * /proc/diskstats name is checked in /sys/block, the size of each whole
 * disk that is not an idle loop/ram placeholder is read, the first mount of
 * each /dev/ source is statvfs'ed, each /proc/net/dev interface has its
 * sysfs directory opened and four attributes read. */
static char dnames[256][64];
static int dsize[256];
static int ndisk;
static char mpoints[64][512];
static int nmp;
static char ifnames[256][32];
static int nif;

static size_t slurp(int dirfd, const char *rel, char *out, size_t cap)
{
    int fd = openat(dirfd, rel, O_RDONLY | O_CLOEXEC);
    size_t have = 0;
    ssize_t n;
    if (fd < 0) return 0;
    while (have < cap - 1 && (n = read(fd, out + have, cap - 1 - have)) > 0) have += (size_t)n;
    close(fd);
    out[have] = 0;
    return have;
}

static void plan(void)
{
    static char t[1 << 18];
    int sb = openat(rootfd, "sys/block", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    slurp(rootfd, "proc/diskstats", t, sizeof t);
    for (char *line = t, *nl; line && *line && ndisk < 256; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        if (nl) *nl = 0;
        unsigned long long f[17] = {0};
        char name[64];
        int got = sscanf(line, "%*u %*u %63s %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
                         name, &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7], &f[8], &f[9], &f[10], &f[11],
                         &f[12], &f[13], &f[14], &f[15], &f[16]);
        if (got < 12) continue;
        snprintf(dnames[ndisk], sizeof dnames[0], "%.63s", name);
        struct stat st;
        int disk = sb >= 0 && fstatat(sb, name, &st, 0) == 0;
        int idle = (strncmp(name, "loop", 4) == 0 || strncmp(name, "ram", 3) == 0) &&
                   f[0] + f[4] + f[8] + f[11] + f[15] == 0;
        dsize[ndisk++] = disk && !idle;
    }
    if (sb >= 0) close(sb);
    slurp(rootfd, "proc/self/mountinfo", t, sizeof t);
    char seen[64][256];
    for (char *line = t, *nl; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        if (nl) *nl = 0;
        char mp[512], src[256];
        const char *dash = strstr(line, " - ");
        if (!dash || sscanf(line, "%*s %*s %*s %*s %511s", mp) != 1 || sscanf(dash + 3, "%*s %255s", src) != 1 ||
            strncmp(src, "/dev/", 5) != 0)
            continue;
        int dup = 0;
        for (int i = 0; i < nmp; i++) dup |= strcmp(seen[i], src) == 0;
        if (dup || nmp >= 64) continue;
        snprintf(seen[nmp], sizeof seen[0], "%.255s", src);
        snprintf(mpoints[nmp++], sizeof mpoints[0], "%.511s", mp);
    }
    slurp(rootfd, "proc/net/dev", t, sizeof t);
    for (char *line = t, *nl; line && *line && nif < 256; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        if (nl) *nl = 0;
        char *colon = strchr(line, ':');
        if (!colon || strchr(line, '|')) continue;
        *colon = 0;
        while (*line == ' ') line++;
        snprintf(ifnames[nif++], sizeof ifnames[0], "%.31s", line);
    }
}

static void floor_disks(int logical)
{
    read_file(rootfd, "proc/diskstats");
    int sb = openat(rootfd, "sys/block", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (sb >= 0) {
        for (int i = 0; i < ndisk; i++) {
            struct stat st;
            fstatat(sb, dnames[i], &st, 0);
            if (dsize[i]) {
                char rel[96];
                snprintf(rel, sizeof rel, "%.63s/size", dnames[i]);
                read_file(sb, rel);
            }
        }
        close(sb);
    }
    if (!logical) return;
    read_file(rootfd, "proc/self/mountinfo");
    for (int i = 0; i < nmp; i++) {
        struct statvfs sv;
        statvfs(mpoints[i], &sv);
    }
}

/* Network Interface's files alone: what its collecting thread reads while
 * PerfNet's own thread makes the qdisc dump (src:netif_files). */
static void netif_files(void)
{
    read_file(rootfd, "proc/net/dev");
    int cn = openat(rootfd, "sys/class/net", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    for (int i = 0; cn >= 0 && i < nif; i++) {
        int fd = openat(cn, ifnames[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0) continue;
        read_file(fd, "speed");
        read_file(fd, "mtu");
        read_file(fd, "ifindex");
        close(fd);
    }
    if (cn >= 0) close(cn);
}

/* The floor stays sequential: the files, then the dump, one thread. */
static void floor_netif(void)
{
    netif_files();
    qdisc_dump();
}

static void proc_floor(int threads)
{
    read_file(procfd, "stat");
    static int32_t pids[1 << 16];
    size_t np = 0;
    int dfd = openat(procfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    long n;
    while (dfd >= 0 && (n = syscall(SYS_getdents64, dfd, dents, sizeof dents)) > 0)
        for (long off = 0; off < n;) {
            struct d64 *d = (struct d64 *)(dents + off);
            off += d->reclen;
            if (d->name[0] < '0' || d->name[0] > '9') continue;
            if (np < sizeof pids / sizeof pids[0]) pids[np++] = atoi(d->name);
        }
    if (dfd >= 0) close(dfd);
    struct stat sb;
    fstatat(procfd, "self/fd", &sb, 0);
    static _Alignas(8) char td[32768];
    for (size_t i = 0; i < np; i++) {
        char name[16];
        snprintf(name, sizeof name, "%d", pids[i]);
        int pfd = openat(procfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (pfd < 0) continue;
        read_file(pfd, "stat");
        read_file(pfd, "status");
        read_file(pfd, "io");
        fstatat(pfd, "fd", &sb, 0);
        int tfd = threads ? openat(pfd, "task", O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
        while (tfd >= 0 && (n = syscall(SYS_getdents64, tfd, td, sizeof td)) > 0)
            for (long off = 0; off < n;) {
                struct d64 *d = (struct d64 *)(td + off);
                off += d->reclen;
                if (d->name[0] < '0' || d->name[0] > '9') continue;
                char rel[48];
                snprintf(rel, sizeof rel, "%s/stat", d->name);
                read_file(tfd, rel);
                snprintf(rel, sizeof rel, "%s/schedstat", d->name);
                read_file(tfd, rel);
            }
        if (tfd >= 0) close(tfd);
        close(pfd);
    }
}

/* Per CPU (cpu0..cpuN-1 of /proc/stat's count): the cpuidle state files
 * PerfOS reads (name, time, usage of state0.. until a name is missing),
 * and with `freq` the three cpufreq files it tries. */
static long ncpu;

static void cpu_sysfs(int freq)
{
    for (long c = 0; c < ncpu; c++) {
        char rel[128];
        for (int st = 0; st < 16; st++) {
            snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%ld/cpuidle/state%d/name", c, st);
            int fd = openat(rootfd, rel, O_RDONLY | O_CLOEXEC);
            if (fd < 0) break;
            while (read(fd, buf, sizeof buf) > 0) {
            }
            close(fd);
            snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%ld/cpuidle/state%d/time", c, st);
            read_file(rootfd, rel);
            snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%ld/cpuidle/state%d/usage", c, st);
            read_file(rootfd, rel);
        }
        if (!freq) continue;
        static const char *const f[] = {"scaling_cur_freq", "cpuinfo_cur_freq", "cpuinfo_max_freq"};
        for (int i = 0; i < 3; i++) {
            snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%ld/cpufreq/%s", c, f[i]);
            read_file(rootfd, rel);
        }
    }
}

static void node_lists(int dirfd, const char *name)
{
    if (strncmp(name, "node", 4) != 0 || name[4] < '0' || name[4] > '9') return;
    char rel[96];
    snprintf(rel, sizeof rel, "%.64s/cpulist", name);
    read_file(dirfd, rel);
}

/* The sources of one object, as its provider reads them for a query of
 * that object alone. Returns 0 when no floor is known for the index. */
static int floor_of(uint32_t idx)
{
    switch (idx) {
    case PL_OBJ_SYSTEM:
        read_file(rootfd, "proc/stat");
        count_dir(rootfd, "proc");
        read_file(rootfd, "proc/loadavg");
        {
            struct stat sb;
            fstatat(rootfd, "proc/self/ns/pid", &sb, 0);
        }
        read_file(rootfd, "proc/pressure/cpu");
        read_file(rootfd, "proc/pressure/memory");
        read_file(rootfd, "proc/pressure/io");
        return 1;
    case PL_OBJ_MEMORY:
        read_file(rootfd, "proc/meminfo");
        read_file(rootfd, "proc/vmstat");
        return 1;
    case PL_OBJ_PROCESSOR:
        read_file(rootfd, "proc/stat");
        read_file(rootfd, "proc/softirqs");
        read_file(rootfd, "proc/interrupts");
        cpu_sysfs(0);
        return 1;
    case PL_OBJ_PROCESSOR_INFORMATION:
        read_file(rootfd, "proc/stat");
        read_file(rootfd, "proc/interrupts");
        read_file(rootfd, "proc/softirqs");
        each_entry(rootfd, "sys/devices/system/node", node_lists);
        cpu_sysfs(1);
        return 1;
    case PL_OBJ_OBJECTS:
        count_dir(rootfd, "proc");
        read_file(rootfd, "proc/loadavg");
        {
            struct stat sb;
            fstatat(rootfd, "proc/self/ns/pid", &sb, 0);
            fstatat(rootfd, "proc/self/ns/pid", &sb, 0);
        }
        read_file(rootfd, "proc/sysvipc/sem");
        read_file(rootfd, "proc/sysvipc/shm");
        return 1;
    case PL_OBJ_PAGING_FILE:
        read_file(rootfd, "proc/swaps");
        return 1;
    case PL_OBJ_PHYSICAL_DISK:
        floor_disks(0);
        return 1;
    case PL_OBJ_LOGICAL_DISK:
        floor_disks(1);
        return 1;
    case PL_OBJ_NETWORK_INTERFACE:
        floor_netif();
        return 1;
    case PL_OBJ_IPV4:
    case PL_OBJ_ICMP:
    case PL_OBJ_UDPV4:
        read_file(rootfd, "proc/net/snmp");
        return 1;
    case PL_OBJ_IPV6:
    case PL_OBJ_ICMPV6:
    case PL_OBJ_UDPV6:
        read_file(rootfd, "proc/net/snmp6");
        return 1;
    case PL_OBJ_TCPV4:
        read_file(rootfd, "proc/net/snmp");
        diag_dumps();
        return 1;
    case PL_OBJ_TCPV6:
        diag_dumps();
        return 1;
    case PL_OBJ_PROCESS:
        proc_floor(0);
        return 1;
    case PL_OBJ_THREAD:
        proc_floor(1);
        return 1;
    default:
        return 0;
    }
}

/* Global: the union of the objects' sources, each read once per provider
 * collection as the providers do (PerfOS reads /proc/stat for System and
 * again for Processor; PerfNet reads snmp once for IPv4, ICMP, TCPv4, UDPv4;
 * PerfDisk's LogicalDisk sources include PhysicalDisk's). */
static void floor_global(void)
{
    floor_of(PL_OBJ_SYSTEM);
    floor_of(PL_OBJ_MEMORY);
    floor_of(PL_OBJ_PROCESSOR);
    floor_of(PL_OBJ_PROCESSOR_INFORMATION);
    floor_of(PL_OBJ_OBJECTS);
    floor_of(PL_OBJ_PAGING_FILE);
    floor_disks(1);
    floor_netif();
    read_file(rootfd, "proc/net/snmp");
    read_file(rootfd, "proc/net/snmp6");
    diag_dumps();
    proc_floor(1);
}

/* --------------------------------------------------------------- providers */

struct prov {
    const char *file, *prefix;
    collect_fn collect;
};

static struct prov provs[] = {
    {"libperfos.so", "PerfOs", NULL},
    {"libperfdisk.so", "PerfDisk", NULL},
    {"libperfnet.so", "PerfNet", NULL},
    {"libperfproc.so", "PerfProc", NULL},
};
#define NPROV (sizeof provs / sizeof provs[0])

static void load_providers(const char *dir)
{
    for (size_t i = 0; i < NPROV; i++) {
        char path[4096], sym[64];
        snprintf(path, sizeof path, "%s/%s", dir, provs[i].file);
        void *so = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!so) continue;
        snprintf(sym, sizeof sym, "%sOpen", provs[i].prefix);
        open_fn o = (open_fn)dlsym(so, sym);
        snprintf(sym, sizeof sym, "%sCollect", provs[i].prefix);
        provs[i].collect = (collect_fn)dlsym(so, sym);
        if (!o || !provs[i].collect || o(NULL) != 0) provs[i].collect = NULL;
    }
}

static void *pbuf;
static const size_t pcap = 64u << 20;

/* Collect `q` from provider p; the number of objects it returned. */
static DWORD collect(struct prov *p, const char *q)
{
    WCHAR w[64];
    size_t n = strlen(q);
    for (size_t i = 0; i <= n && i < 63; i++) w[i] = (WCHAR)q[i];
    w[63] = 0;
    void *d = pbuf;
    DWORD bytes = (DWORD)pcap, objs = 0;
    if (p->collect(w, &d, &bytes, &objs) != 0) return 0;
    return objs;
}

/* ------------------------------------------------------------------- main */

struct obj {
    uint32_t index;
    char name[64];
    long instances;
    struct prov *p;      /* the provider that returns it alone */
    double *te, *tp, *tf;
    double *ce, *cf;     /* CPU time of the engine query and of the floor */
};

static int engine_q(pl_engine *e, const char *q)
{
    void *data = NULL;
    size_t len = 0;
    uint32_t type = 0;
    pl_error err;
    int rc = pl_engine_query_alloc(e, q, &data, &len, &type, &err);
    if (rc != PL_OK) fprintf(stderr, "engine %s: %s\n", q, err.msg);
    pl_free(data);
    return rc;
}

static int startup(int k, const char *store, const char *dir)
{
    enum { P_STORE, P_OPEN, P_FIRST, P_AGAIN, P_CLOSE, NPH };
    static const char *const names[NPH] = {"store_open", "engine_open", "first_query", "steady_query", "engine_close"};
    double *t[NPH];
    for (int i = 0; i < NPH; i++)
        if (!(t[i] = calloc((size_t)k, sizeof(double)))) return 1;
    for (int r = -1; r < k; r++) { /* r = -1: warm-up (creates the store) */
        pl_error err;
        double a = bu_now_us();
        pl_store *st = NULL;
        if (pl_store_open(store, 0, &st, &err) != PL_OK) {
            fprintf(stderr, "store: %s\n", err.msg);
            return 1;
        }
        pl_store_close(st);
        double b = bu_now_us();
        pl_engine_config cfg = {.store_path = store, .provider_dir = dir, .log_to_syslog = 1};
        pl_engine *e = NULL;
        if (pl_engine_open(&cfg, &e, &err) != PL_OK) {
            fprintf(stderr, "engine: %s\n", err.msg);
            return 1;
        }
        double c = bu_now_us();
        if (engine_q(e, "2") != PL_OK) return 1;
        double d = bu_now_us();
        if (engine_q(e, "2") != PL_OK) return 1;
        double f = bu_now_us();
        pl_engine_close(e);
        double g = bu_now_us();
        if (r < 0) continue;
        t[P_STORE][r] = b - a;
        t[P_OPEN][r] = c - b;
        t[P_FIRST][r] = d - c;
        t[P_AGAIN][r] = f - d;
        t[P_CLOSE][r] = g - f;
    }
    for (int i = 0; i < NPH; i++) printf("phase=%s median_us=%.1f\n", names[i], bu_median(t[i], k));
    return 0;
}

/* K runs of a command (stdout and stderr to /dev/null): medians of the wall
 * clock and of the child's CPU time (user + system, from wait4), which the
 * machine's load disturbs far less. */
static int exec_cmd(int k, char **cmd)
{
    double *w = calloc((size_t)k, sizeof(double)), *c = calloc((size_t)k, sizeof(double));
    if (!w || !c) return 1;
    for (int r = 0; r < k; r++) {
        int rc = bu_run_quiet(cmd, 0, &w[r], &c[r]);
        if (rc == -1) return 1;
        if (rc != 0) {
            fprintf(stderr, "%s: did not run\n", cmd[0]);
            return 1;
        }
    }
    printf("wall_us=%.0f cpu_us=%.0f\n", bu_median(w, k), bu_median(c, k));
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 4 && strcmp(argv[1], "exec") == 0) {
        int k = atoi(argv[2]);
        return exec_cmd(k < 1 || k > 100000 ? 21 : k, argv + 3);
    }
    if (argc >= 5 && strcmp(argv[1], "startup") == 0) {
        int k = atoi(argv[2]);
        return startup(k < 1 || k > 100000 ? 21 : k, argv[3], argv[4]);
    }
    if (argc < 4) {
        fprintf(stderr, "usage: bench_global K STORE PROVIDER_DIR | bench_global startup K STORE PROVIDER_DIR\n");
        return 1;
    }
    int k = atoi(argv[1]);
    if (k < 1 || k > 100000) k = 51;
    procfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    rootfd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    pbuf = malloc(pcap);
    if (procfd < 0 || rootfd < 0 || !pbuf) return 1;
    plan();
    ncpu = sysconf(_SC_NPROCESSORS_CONF);
    pl_engine_config cfg = {.store_path = argv[2], .provider_dir = argv[3], .log_to_syslog = 1};
    pl_engine *e = NULL;
    pl_error err;
    if (pl_engine_open(&cfg, &e, &err) != PL_OK) {
        fprintf(stderr, "engine: %s\n", err.msg);
        return 1;
    }
    load_providers(argv[3]);
    /* The objects of Global. */
    void *data = NULL;
    size_t len = 0;
    uint32_t type = 0;
    if (pl_engine_query_alloc(e, "Global", &data, &len, &type, &err) != PL_OK) {
        fprintf(stderr, "engine: %s\n", err.msg);
        return 1;
    }
    pl_block blk;
    if (pl_block_open(&blk, data, len, 0, 0, &err) != PL_OK) {
        fprintf(stderr, "block: %s\n", err.msg);
        return 1;
    }
    struct obj objs[64];
    size_t no = 0;
    pl_object o;
    for (int rc = pl_block_object(&blk, 0, &o); rc == PL_OK && no < 63; rc = pl_object_next(&o, &o)) {
        struct obj *x = &objs[no++];
        memset(x, 0, sizeof *x);
        x->index = o.hdr.ObjectNameTitleIndex;
        x->instances = (long)(int32_t)o.hdr.NumInstances;
        snprintf(x->name, sizeof x->name, "%u", x->index);
        char q[16];
        snprintf(q, sizeof q, "%u", x->index);
        for (size_t i = 0; i < NPROV && !x->p; i++)
            if (provs[i].collect && collect(&provs[i], q) > 0) x->p = &provs[i];
    }
    pl_free(data);
    /* Names from the title database, through perfquery's public route: the
     * engine's titles are not needed for timing, so use a fixed table. */
    static const struct {
        uint32_t i;
        const char *n;
    } names[] = {
        {PL_OBJ_SYSTEM, "System"}, {PL_OBJ_MEMORY, "Memory"}, {PL_OBJ_PROCESSOR, "Processor"},
        {PL_OBJ_PAGING_FILE, "Paging_File"}, {PL_OBJ_PHYSICAL_DISK, "PhysicalDisk"},
        {PL_OBJ_LOGICAL_DISK, "LogicalDisk"}, {PL_OBJ_NETWORK_INTERFACE, "Network_Interface"},
        {PL_OBJ_IPV4, "IPv4"}, {PL_OBJ_IPV6, "IPv6"}, {PL_OBJ_ICMP, "ICMP"}, {PL_OBJ_ICMPV6, "ICMPv6"},
        {PL_OBJ_TCPV4, "TCPv4"}, {PL_OBJ_TCPV6, "TCPv6"}, {PL_OBJ_UDPV4, "UDPv4"}, {PL_OBJ_UDPV6, "UDPv6"},
        {PL_OBJ_PROCESS, "Process"}, {PL_OBJ_THREAD, "Thread"},
        {PL_OBJ_PROCESSOR_INFORMATION, "Processor_Information"}, {PL_OBJ_OBJECTS, "Objects"},
    };
    for (size_t j = 0; j < no; j++)
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            if (names[i].i == objs[j].index) snprintf(objs[j].name, sizeof objs[j].name, "%s", names[i].n);
    /* Global itself, last. */
    struct obj *g = &objs[no];
    memset(g, 0, sizeof *g);
    snprintf(g->name, sizeof g->name, "Global");
    for (size_t j = 0; j <= no; j++) {
        objs[j].te = calloc((size_t)k, sizeof(double));
        objs[j].tp = calloc((size_t)k, sizeof(double));
        objs[j].tf = calloc((size_t)k, sizeof(double));
        objs[j].ce = calloc((size_t)k, sizeof(double));
        objs[j].cf = calloc((size_t)k, sizeof(double));
        if (!objs[j].te || !objs[j].tp || !objs[j].tf || !objs[j].ce || !objs[j].cf) return 1;
    }
    /* Warm-up: every path once. */
    for (size_t j = 0; j < no; j++) {
        char q[16];
        snprintf(q, sizeof q, "%u", objs[j].index);
        engine_q(e, q);
        floor_of(objs[j].index);
    }
    for (int r = 0; r < k; r++) {
        for (size_t j = 0; j <= no; j++) {
            struct obj *x = &objs[j];
            char q[16];
            if (j < no) snprintf(q, sizeof q, "%u", x->index);
            else snprintf(q, sizeof q, "Global");
            /* The three in turn first: the first to read a file after
             * other objects' work finds the kernel's and the CPU's caches
             * colder, so a fixed order would favour the later ones. */
            for (int step = 0; step < 3; step++) {
                int which = (step + r) % 3;
                double a, ca;
                if (which == 0) {
                    a = bu_now_us();
                    ca = bu_cpu_us();
                    engine_q(e, q);
                    x->te[r] = bu_now_us() - a;
                    x->ce[r] = bu_cpu_us() - ca;
                } else if (which == 1 && j < no && x->p) {
                    a = bu_now_us();
                    collect(x->p, q);
                    x->tp[r] = bu_now_us() - a;
                } else if (which == 1 && j == no) {
                    a = bu_now_us();
                    for (size_t i = 0; i < NPROV; i++)
                        if (provs[i].collect) collect(&provs[i], "Global");
                    x->tp[r] = bu_now_us() - a;
                } else if (which == 2) {
                    a = bu_now_us();
                    ca = bu_cpu_us();
                    int known = j < no ? floor_of(x->index) : (floor_global(), 1);
                    x->tf[r] = known ? bu_now_us() - a : -1;
                    x->cf[r] = known ? bu_cpu_us() - ca : -1;
                }
            }
        }
    }
    for (size_t j = 0; j <= no; j++) {
        struct obj *x = &objs[j];
        double fe = bu_median(x->te, k), fp = (j == no || x->p) ? bu_median(x->tp, k) : -1, ff = bu_median(x->tf, k);
        double ce = bu_median(x->ce, k), cf = bu_median(x->cf, k);
        printf("object=%s index=%u instances=%ld engine_us=%.1f provider_us=%.1f floor_us=%.1f engine_cpu_us=%.1f "
               "floor_cpu_us=%.1f\n",
               x->name, x->index, x->instances, fe, fp, ff, ce, cf);
    }
    /* The connection-count sources side by side (floors only); Network
     * Interface's two parts (PerfNet makes the dump on a thread of its own
     * while the files are read). */
    static const struct {
        const char *name;
        void (*fn)(void);
    } src[] = {{"src:sock_diag_1_dump", diag_dumps}, {"src:sock_diag_2_dumps", diag_dumps_v2},
               {"src:proc_net_tcp_files", tcp_files}, {"src:netif_files", netif_files},
               {"src:qdisc_dump", qdisc_dump}};
    for (size_t i = 0; i < sizeof src / sizeof src[0]; i++) {
        double *t = objs[0].tf;
        for (int r = 0; r < k; r++) {
            double a = bu_now_us();
            src[i].fn();
            t[r] = bu_now_us() - a;
        }
        printf("object=%s index=0 instances=0 engine_us=-1 provider_us=-1 floor_us=%.1f engine_cpu_us=-1 "
               "floor_cpu_us=-1\n",
               src[i].name, bu_median(t, k));
    }
    pl_engine_close(e);
    return 0;
}
