/* This file is private to libperflib: no API/ABI guarantee.
 *
 * Collectors for the disk and network counters (the perfdisk and perfnet
 * providers): one source file per kernel source, each a pure function that
 * reads its file relative to a root directory descriptor
 * (pl__root_open(pl__sysroot(), "")) and fills a plain C struct.
 *
 * Common contract of every pl__read_* function here:
 * - returns 0 on success, or -errno: the error of open/read (-ENOENT when the
 *   file is absent, -EACCES, ...), -EINVAL when the file is malformed as a
 *   whole (a missing header), -ENOMEM.
 * - a malformed LINE is skipped and counted in `bad`; the rest of the file is
 *   still used (a device or interface with a broken line is left out, never
 *   reported with made-up numbers).
 * - *out is valid only when 0 is returned; on error it is still safe to pass
 *   to the matching *_free function. Structs are zero-initialised before the
 *   first call and may be reused (arrays are grown as needed).
 * - never prints, never aborts, whatever the file contains.
 * Values are kept in the kernel's units (sectors of 512 bytes, milliseconds,
 * bytes, packets). A field the file does not have is marked absent (nfields,
 * `have` bits), never reported as a made-up zero. */
#ifndef PL_COLLECT_IO_H
#define PL_COLLECT_IO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Read <dirfd>/<rel> into `stackbuf` (cap bytes) or, when the file does not
 * fit, into a malloc'd buffer stored in *heap (free it with free(); NULL when
 * the stack buffer was enough). On success *text points at the NUL-terminated
 * contents and the length is returned; -errno on failure. */
ssize_t pl__io_read_text(int dirfd, const char *rel, char *stackbuf, size_t cap, char **heap,
                         const char **text);

/* --------------------------------------------------------- /proc/diskstats */

/* Statistics fields after "major minor name", in file order. Kernels before
 * 4.18 have 11, 4.18..5.4 have 15 (discards), 5.5+ have 17 (flushes). */
enum pl__disk_field {
    PL__DK_RD_IOS = 0,   /* reads completed */
    PL__DK_RD_MERGES,    /* reads merged */
    PL__DK_RD_SECTORS,   /* sectors read (512 bytes each, whatever the device) */
    PL__DK_RD_MS,        /* ms spent reading (sum over requests) */
    PL__DK_WR_IOS,
    PL__DK_WR_MERGES,
    PL__DK_WR_SECTORS,
    PL__DK_WR_MS,
    PL__DK_IN_FLIGHT,    /* I/Os currently in progress (not a counter) */
    PL__DK_IO_MS,        /* ms the device had I/O in progress (busy time) */
    PL__DK_WEIGHTED_MS,  /* weighted ms: sum of each request's time in the queue */
    PL__DK_DC_IOS,       /* discards completed (15+) */
    PL__DK_DC_MERGES,
    PL__DK_DC_SECTORS,
    PL__DK_DC_MS,
    PL__DK_FL_IOS,       /* flushes completed (17) */
    PL__DK_FL_MS,
    PL__DK_NFIELDS
};

#define PL__DISK_NAME_MAX 64

struct pl__diskstat {
    uint32_t major, minor;
    char name[PL__DISK_NAME_MAX];  /* kernel name as in the file ("sda", "cciss/c0d0") */
    unsigned nfields;              /* 11, 15 or 17 */
    uint64_t f[PL__DK_NFIELDS];    /* fields past nfields are 0 and must not be used */
};

struct pl__diskstats {
    size_t n;                      /* entries in file order */
    size_t cap;                    /* private */
    struct pl__diskstat *d;        /* owned, reused across calls */
    size_t bad;                    /* malformed lines skipped */
};

/* Parse one line (without or with its newline; `len` bytes). Accepts 14, 18
 * or 20 columns of unsigned decimals and a name of 1..63 bytes. Returns 1 on
 * success, 0 when the line is malformed (then *out is unspecified). */
int pl__parse_diskstats_line(const char *line, size_t len, struct pl__diskstat *out);
/* Parse a whole NUL-terminated /proc/diskstats text. Blank lines are ignored. */
int pl__parse_diskstats(const char *text, struct pl__diskstats *out);
/* Read <root>/proc/diskstats. */
int pl__read_diskstats(int rootfd, struct pl__diskstats *out);
void pl__diskstats_free(struct pl__diskstats *s);

/* ------------------------------------------------------------- /sys/block */

/* The sysfs form of a kernel disk name: '/' becomes '!' ("cciss/c0d0" ->
 * "cciss!c0d0"). Returns 0, or -ENAMETOOLONG if it does not fit `cap`. */
int pl__sysfs_block_name(const char *name, char *out, size_t cap);

/* Is `name` a whole disk, i.e. is there a <root>/sys/block/<name> entry?
 * Returns 1 (yes), 0 (no: a partition, or the disk vanished), -errno when
 * <root>/sys/block itself cannot be opened. `sysblockfd` is an O_DIRECTORY
 * descriptor of <root>/sys/block (pl__root_open(root, "sys/block")). */
int pl__sysblock_is_disk(int sysblockfd, const char *name);

/* The whole disk a partition belongs to: searches `disks` (kernel names of
 * whole disks) for the one with a <disk>/<part> directory in /sys/block.
 * Returns the index in `disks`, or -1 when none. A whole disk maps to itself. */
long pl__sysblock_parent(int sysblockfd, const char *part, const char *const *disks, size_t ndisks);

/* The size of a whole disk in 512-byte sectors, from /sys/block/<name>/size. */
int pl__sysblock_size(int sysblockfd, const char *name, uint64_t *sectors);
/* The same from a descriptor kept open: pl__sysblock_size_open gives one
 * (or -errno), pl__sysblock_size_fd reads it again from offset 0 (sysfs
 * renders the attribute afresh at each read from 0; a device gone since
 * the open reads -ENODEV). */
int pl__sysblock_size_open(int sysblockfd, const char *name);
int pl__sysblock_size_fd(int fd, uint64_t *sectors);

/* ------------------------------------------------ /proc/self/mountinfo, mounts */

#define PL__MNT_PATH_MAX 1024

struct pl__mount {
    uint32_t major, minor;         /* from mountinfo; both 0 when unknown (mounts) */
    int have_devno;                /* 1 when major/minor came from mountinfo */
    int root_is_slash;             /* mountinfo "root" field is "/" (not a bind of a subdir) */
    char mountpoint[PL__MNT_PATH_MAX]; /* unescaped (\040 -> ' ', ...) */
    char source[PL__MNT_PATH_MAX];     /* unescaped mount source ("/dev/sda1", "proc") */
    char fstype[64];
};

struct pl__mounts {
    size_t n, cap;
    struct pl__mount *m;           /* owned, reused */
    size_t bad;                    /* malformed lines skipped */
};

/* Parse /proc/<pid>/mountinfo text ("36 35 98:0 /mnt1 /mnt2 rw ... - ext3
 * /dev/root rw"). */
int pl__parse_mountinfo(const char *text, struct pl__mounts *out);
/* Parse /proc/mounts text ("/dev/sda1 / ext4 rw 0 0"). */
int pl__parse_mounts(const char *text, struct pl__mounts *out);
/* Read <root>/proc/self/mountinfo; when absent, <root>/proc/self/mounts, then
 * <root>/proc/mounts. */
int pl__read_mounts(int rootfd, struct pl__mounts *out);
void pl__mounts_free(struct pl__mounts *s);
/* Undo the kernel's octal escapes (\040 \011 \012 \134) of `len` bytes of
 * `in` into out (cap bytes, NUL-terminated). -ENAMETOOLONG when too long. */
int pl__mount_unescape(const char *in, size_t len, char *out, size_t cap);

/* ---------------------------------------------------------- /proc/net/dev */

enum pl__netdev_field {
    PL__ND_RX_BYTES = 0, PL__ND_RX_PACKETS, PL__ND_RX_ERRS, PL__ND_RX_DROP, PL__ND_RX_FIFO,
    PL__ND_RX_FRAME, PL__ND_RX_COMPRESSED, PL__ND_RX_MULTICAST,
    PL__ND_TX_BYTES, PL__ND_TX_PACKETS, PL__ND_TX_ERRS, PL__ND_TX_DROP, PL__ND_TX_FIFO,
    PL__ND_TX_COLLS, PL__ND_TX_CARRIER, PL__ND_TX_COMPRESSED,
    PL__ND_NFIELDS
};

#define PL__IF_NAME_MAX 32

struct pl__netdev {
    char name[PL__IF_NAME_MAX];
    uint64_t f[PL__ND_NFIELDS];
};

struct pl__netdevs {
    size_t n, cap;
    struct pl__netdev *d;          /* owned, reused; file order */
    size_t bad;
};

/* Parse /proc/net/dev text: two header lines, then "name: 16 numbers". A file
 * whose second line is not the column header is -EINVAL. */
int pl__parse_net_dev(const char *text, struct pl__netdevs *out);
int pl__read_net_dev(int rootfd, struct pl__netdevs *out);
void pl__netdevs_free(struct pl__netdevs *s);

/* ---------------------------------------------------------- /sys/class/net */

#define PL__NETIF_HAVE_SPEED 0x01u
#define PL__NETIF_HAVE_MTU 0x02u
/* 0x04u was tx_queue_len: read for no counter (the queue's limit, not its
 * fill), so no longer read */
#define PL__NETIF_HAVE_IFINDEX 0x08u

struct pl__netif_attrs {
    unsigned have;                 /* PL__NETIF_HAVE_* */
    uint64_t speed_mbps;           /* link speed in Mb/s (absent when -1/unknown) */
    uint64_t mtu;
    int32_t ifindex;               /* the kernel's interface index (rtnetlink's key) */
};

/* Read speed, mtu and ifindex of one interface (three files). `classnetfd` is an
 * O_DIRECTORY descriptor of <root>/sys/class/net. Returns 0 (with `have`
 * telling which were readable), -ENOENT when the interface directory is gone. */
int pl__read_netif_attrs(int classnetfd, const char *ifname, struct pl__netif_attrs *out);

/* ---------------------------------------------- /proc/net/snmp, /proc/net/snmp6 */

struct pl__snmp_entry {
    char proto[16];                /* "Ip", "Tcp", ...; "" for snmp6 */
    char name[48];                 /* "InReceives"; snmp6: "Ip6InReceives" */
    int64_t value;                 /* Tcp MaxConn can be -1 */
    uint32_t hash;                 /* pl__snmp_hash(proto, name), set by a
                                    * successful parse */
};

struct pl__snmp_slot {
    uint32_t hash;
    uint32_t pos;                  /* entry index + 1; 0: an empty slot */
};

struct pl__snmp {
    size_t n, cap;
    struct pl__snmp_entry *e;      /* owned, reused */
    size_t bad;                    /* malformed lines/columns skipped */
    struct pl__snmp_slot *slot;    /* owned, reused: the lookup index of a
                                    * successful parse (nslot a power of two;
                                    * 0: none, lookups scan the entries) */
    size_t nslot, slot_cap;
};

/* Parse /proc/net/snmp: "Proto: Name1 Name2 ..." header lines each followed
 * by "Proto: v1 v2 ..." with the same prefix and column count. Values are
 * matched to names by column position within their pair only. A pair whose
 * counts differ is skipped (counted in bad). */
int pl__parse_net_snmp(const char *text, struct pl__snmp *out);
/* Parse /proc/net/snmp6: "Name value" lines. */
int pl__parse_net_snmp6(const char *text, struct pl__snmp *out);
int pl__read_net_snmp(int rootfd, struct pl__snmp *out);
int pl__read_net_snmp6(int rootfd, struct pl__snmp *out);
void pl__snmp_free(struct pl__snmp *s);
/* Look a value up by protocol ("" for snmp6) and column name. Returns 1 and
 * sets *v when present (the first of equal names), 0 otherwise. */
int pl__snmp_get(const struct pl__snmp *s, const char *proto, const char *name, int64_t *v);
/* The same with the key's hash computed once by the caller: `hash` must be
 * pl__snmp_hash(proto, name). */
uint32_t pl__snmp_hash(const char *proto, const char *name);
int pl__snmp_find(const struct pl__snmp *s, uint32_t hash, const char *proto, const char *name, int64_t *v);

/* ------------------------------------------------- rtnetlink: root qdiscs */

/* The root queueing discipline of one interface, from an RTM_GETQDISC dump
 * (what `tc -s qdisc` shows as "backlog 0b 0p"). */
struct pl__qdisc {
    int32_t ifindex;               /* tcm_ifindex */
    uint32_t handle;               /* tcm_handle ("0:" for default qdiscs) */
    char kind[16];                 /* TCA_KIND ("pfifo_fast", "noqueue", "mq"); "" when absent */
    int have_qlen;                 /* 0 when the reply carried no queue statistics */
    uint32_t qlen;                 /* packets queued now (for mq: summed over its queues) */
    uint32_t backlog;              /* bytes queued now */
};

#define PL__QDISC_MAX_ENTRIES 65536

struct pl__qdiscs {
    size_t n, cap;
    struct pl__qdisc *q;           /* owned, reused; root qdiscs only, one per ifindex */
    size_t bad;                    /* root qdiscs without statistics, duplicate roots */
    int intr;                      /* private: NLM_F_DUMP_INTR seen */
};

/* Parse one received datagram of an RTM_GETQDISC dump reply and APPEND the
 * root qdiscs in it (tcm_parent == TC_H_ROOT; children, ingress and clsact
 * are skipped) to *out. Messages whose nlmsg_seq is not `seq` are ignored.
 * Statistics come from TCA_STATS2/TCA_STATS_QUEUE, else the older TCA_STATS.
 * Returns 1 when NLMSG_DONE ends the dump, 0 when more datagrams are to
 * come, -EINVAL when a message or attribute length overruns the buffer (or
 * the buffer ends in a fragment), the negative errno of an NLMSG_ERROR
 * reply or of a failed dump, -EAGAIN at NLMSG_DONE when a message said the
 * dump was interrupted by a change (NLM_F_DUMP_INTR), -ENOMEM. Never reads
 * outside [buf, buf+len); buf may have any alignment. On error *out holds
 * whatever was appended before (use nothing of it). Zero *out (or use
 * pl__read_qdiscs) before the first datagram of a dump. */
int pl__parse_qdisc_dump(const void *buf, size_t len, uint32_t seq, struct pl__qdiscs *out);
/* Dump the root qdiscs of the caller's network namespace over a fresh
 * NETLINK_ROUTE socket (1 s receive timeout, bounded number of reads; one
 * retry when the dump was interrupted). Always the LIVE kernel: it knows
 * nothing of PERFLIB_SYSROOT. Returns 0, or -errno (socket errors,
 * -ETIMEDOUT, -EMSGSIZE, the parser's errors); out->n is 0 on error. */
int pl__read_qdiscs(struct pl__qdiscs *out);
/* The root qdisc of `ifindex`, or NULL when the dump had none (a device
 * with the built-in noop qdisc: down, or never given a queue). */
const struct pl__qdisc *pl__qdisc_find(const struct pl__qdiscs *s, int32_t ifindex);
void pl__qdiscs_free(struct pl__qdiscs *s);

/* ---------------------------------------------- /proc/net/tcp, /proc/net/tcp6 */

#define PL__TCP_STATES 16

/* Socket counts of one file. A line is counted once, in state[st]; the
 * ESTABLISHED (01) and CLOSE_WAIT (08) ones also in estab_v4 or estab_v6 by
 * the IP version on the wire: every /proc/net/tcp socket is IPv4, a
 * /proc/net/tcp6 socket is IPv4 when its remote address is v4-mapped
 * (::ffff:a.b.c.d, a dual-stack socket talking to an IPv4 peer). */
struct pl__tcp_socks {
    uint64_t state[PL__TCP_STATES]; /* by kernel state code 0x01..0x0F; [0] unused */
    uint64_t estab_v4, estab_v6;
    size_t lines;                  /* socket lines counted */
    size_t bad;                    /* malformed lines skipped */
};

/* Count one socket line ("sl: local rem st ..."; 8 hex digit addresses, or
 * 32 for v6) into *acc. Returns 1, or 0 when malformed (acc->bad++). */
int pl__parse_net_tcp_line(const char *line, size_t len, int v6, struct pl__tcp_socks *acc);
/* Count a whole file's text (`len` bytes, need not be NUL-terminated). The
 * first line must be the "sl ..." header (else -EINVAL); a last line without
 * its newline is counted bad. Resets *out first. */
int pl__parse_net_tcp(const char *text, size_t len, int v6, struct pl__tcp_socks *out);
/* Read <root>/proc/net/tcp (v6 = 0) or tcp6 in 16 KiB pieces (bounded
 * memory, whatever the socket count); same result as pl__parse_net_tcp on
 * the whole file. */
int pl__read_net_tcp(int rootfd, int v6, struct pl__tcp_socks *out);

/* ------------------------------------ NETLINK_SOCK_DIAG: TCP connections */

/* ESTABLISHED and CLOSE_WAIT TCP sockets (RFC 1213's tcpCurrEstab, what
 * Windows' Connections Established counts) from SOCK_DIAG_BY_FAMILY dumps,
 * by the IP version on the wire: every AF_INET socket is IPv4, an AF_INET6
 * socket is IPv4 when its remote address is v4-mapped (::ffff:a.b.c.d). */
struct pl__tcp_diag {
    uint64_t estab_v4, estab_v6;
    size_t msgs;                   /* socket messages counted */
    size_t bad;                    /* messages of another family or state: not counted */
    int intr;                      /* private: NLM_F_DUMP_INTR seen */
};

/* Parse one received datagram of a dump for `family` (AF_INET, AF_INET6;
 * AF_UNSPEC: the both-family TCPDIAG_GETSOCK dump) and ADD its sockets to
 * *out. Messages whose nlmsg_seq is not `seq`, and messages of another type
 * than the request's, are ignored. Returns 1 when NLMSG_DONE ends the dump, 0 when more datagrams
 * are to come, -EINVAL when a message length overruns the buffer, the
 * buffer ends in a fragment or a socket message is shorter than struct
 * inet_diag_msg, the negative errno of an NLMSG_ERROR reply or of a failed
 * dump, -EAGAIN at NLMSG_DONE when a message said the dump was interrupted
 * (NLM_F_DUMP_INTR). Never reads outside [buf, buf+len); any alignment. */
int pl__parse_tcp_diag_dump(const void *buf, size_t len, uint32_t seq, int family, struct pl__tcp_diag *out);
/* A NETLINK_SOCK_DIAG socket with a 1 s receive timeout, or -errno. */
int pl__tcp_diag_open(void);
/* Dump `family`'s ESTABLISHED and CLOSE_WAIT sockets over `fd` (from
 * pl__tcp_diag_open) and ADD them to *out (zero it first). AF_UNSPEC asks
 * for both families in one TCPDIAG_GETSOCK dump (one walk of the kernel's
 * connection table instead of two); AF_INET/AF_INET6 use SOCK_DIAG_BY_FAMILY.
 * No extensions are asked for. At most 2^20 datagrams and 5 s; one retry when the dump
 * was interrupted. Always the LIVE kernel (the caller's network namespace):
 * it knows nothing of PERFLIB_SYSROOT. Returns 0, or -errno (socket errors,
 * -ETIMEDOUT, -EMSGSIZE, -E2BIG, the parser's errors); on error *out is as
 * before the call. */
int pl__read_tcp_diag(int fd, int family, struct pl__tcp_diag *out);
/* Is `err` (from pl__tcp_diag_open or pl__read_tcp_diag) a refusal of the
 * whole mechanism (no sock_diag/inet_diag for the family in this kernel, a
 * security policy), after which the /proc/net/tcp{,6} files are used? */
int pl__tcp_diag_refused(int err);

#endif
