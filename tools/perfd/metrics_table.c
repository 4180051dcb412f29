/* perfd: the table from counter semantics to metric name, type, unit,
 * conversion and HELP (metrics_table.h, docs/perfd.md "/metrics: the
 * table").
 *
 * Three layers, each data:
 *   - the counter type gives the kind (pm_kind_of: a timer is seconds, a
 *     bulk count a counter, a raw fraction a ratio, ...);
 *   - the unit words of the counter's name give the unit and the factor of
 *     a raw count (unit_words[]: "KBytes" is bytes x 1,024, "MHz" hertz x
 *     10^6, a name starting with "%" a ratio / 100), each removed from the
 *     name so that the unit is written once, at the end;
 *   - the built-in counters' rows (rows[]) say what neither of those can:
 *     a unit the name does not spell (Working Set is bytes), a scale kept
 *     in the raw value (load averages x 100), a running total published as
 *     a raw count (interface errors, TCP resets), an ID that is a label
 *     rather than a metric, a better name, and a HELP text written for the
 *     metric.
 * A counter without a row (an application's) goes by the first two. */
#include "metrics_table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "perflib/indices.h"
#include "perflib/winperf.h"

/* ------------------------------------------------------------------ kinds */

pm_kind pm_kind_of(uint32_t type)
{
    switch (type) {
    case PERF_COUNTER_RAWCOUNT:
    case PERF_COUNTER_LARGE_RAWCOUNT:
    case PERF_COUNTER_RAWCOUNT_HEX:
    case PERF_COUNTER_LARGE_RAWCOUNT_HEX:
    case PERF_COUNTER_DELTA:
    case PERF_COUNTER_LARGE_DELTA: return PM_GAUGE;
    case PERF_RAW_FRACTION:
    case PERF_LARGE_RAW_FRACTION: return PM_GAUGE_RATIO;
    case PERF_COUNTER_COUNTER:
    case PERF_COUNTER_BULK_COUNT:
    case PERF_SAMPLE_COUNTER: return PM_COUNTER;
    case PERF_COUNTER_TIMER:
    case PERF_100NSEC_TIMER:
    case PERF_OBJ_TIME_TIMER:
    case PERF_COUNTER_MULTI_TIMER:
    case PERF_100NSEC_MULTI_TIMER: return PM_COUNTER_SECONDS;
    case PERF_COUNTER_TIMER_INV:
    case PERF_100NSEC_TIMER_INV:
    case PERF_COUNTER_MULTI_TIMER_INV:
    case PERF_100NSEC_MULTI_TIMER_INV: return PM_COUNTER_INVERSE;
    case PERF_COUNTER_QUEUELEN_TYPE:
    case PERF_COUNTER_LARGE_QUEUELEN_TYPE:
    case PERF_COUNTER_100NS_QUEUELEN_TYPE:
    case PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE: return PM_COUNTER_QUEUE;
    case PERF_PRECISION_SYSTEM_TIMER:
    case PERF_PRECISION_100NS_TIMER:
    case PERF_PRECISION_OBJECT_TIMER: return PM_PRECISION;
    case PERF_AVERAGE_TIMER: return PM_SUMMARY_SECONDS;
    case PERF_AVERAGE_BULK: return PM_SUMMARY;
    case PERF_SAMPLE_FRACTION: return PM_SUMMARY_RATIO;
    case PERF_ELAPSED_TIME: return PM_ELAPSED;
    case PERF_COUNTER_TEXT:
    case PERF_COUNTER_TEXT | PERF_TEXT_ASCII: return PM_TEXT;
    case PERF_DOUBLE_RAW: return PM_DOUBLE;
    default: return PM_SKIP; /* bases, PERF_COUNTER_NODATA, PERF_COUNTER_HISTOGRAM_TYPE, unknown */
    }
}

const char *pm_unit_suffix(pm_unit u)
{
    static const char *const s[PM_UNIT_COUNT_] = {"", "bytes", "seconds", "hertz", "ratio", "bytes_per_second"};
    return (unsigned)u < PM_UNIT_COUNT_ ? s[u] : "";
}

/* ------------------------------------------------------------- unit words */

#define KIB 1024u
#define MIB (1024u * 1024u)
#define GIB (1024u * 1024u * 1024u)
#define TIB ((uint64_t)GIB * 1024u)

/* A word of a counter's name that is its unit: the unit and the factor from
 * the raw value to that unit. `time` words are units only where they are
 * not a qualifier ("Load Average 5 Minutes": a number before them). */
static const struct {
    const char *word;
    pm_unit unit;
    uint64_t num, den;
    int time;
} unit_words[] = {
    {"bytes", PM_UNIT_BYTES, 1, 1, 0},
    {"byte", PM_UNIT_BYTES, 1, 1, 0},
    {"kbytes", PM_UNIT_BYTES, KIB, 1, 0},
    {"kilobytes", PM_UNIT_BYTES, KIB, 1, 0},
    {"kb", PM_UNIT_BYTES, KIB, 1, 0},
    {"kib", PM_UNIT_BYTES, KIB, 1, 0},
    {"mbytes", PM_UNIT_BYTES, MIB, 1, 0},
    {"megabytes", PM_UNIT_BYTES, MIB, 1, 0},
    {"mb", PM_UNIT_BYTES, MIB, 1, 0},
    {"mib", PM_UNIT_BYTES, MIB, 1, 0},
    {"gbytes", PM_UNIT_BYTES, GIB, 1, 0},
    {"gigabytes", PM_UNIT_BYTES, GIB, 1, 0},
    {"gb", PM_UNIT_BYTES, GIB, 1, 0},
    {"gib", PM_UNIT_BYTES, GIB, 1, 0},
    {"tbytes", PM_UNIT_BYTES, TIB, 1, 0},
    {"terabytes", PM_UNIT_BYTES, TIB, 1, 0},
    {"tb", PM_UNIT_BYTES, TIB, 1, 0},
    {"bits", PM_UNIT_BYTES, 1, 8, 0},
    {"hz", PM_UNIT_HERTZ, 1, 1, 0},
    {"hertz", PM_UNIT_HERTZ, 1, 1, 0},
    {"khz", PM_UNIT_HERTZ, 1000, 1, 0},
    {"mhz", PM_UNIT_HERTZ, 1000000, 1, 0},
    {"ghz", PM_UNIT_HERTZ, 1000000000, 1, 0},
    {"seconds", PM_UNIT_SECONDS, 1, 1, 1},
    {"second", PM_UNIT_SECONDS, 1, 1, 1},
    {"secs", PM_UNIT_SECONDS, 1, 1, 1},
    {"sec", PM_UNIT_SECONDS, 1, 1, 1},
    {"s", PM_UNIT_SECONDS, 1, 1, 1},
    {"milliseconds", PM_UNIT_SECONDS, 1, 1000, 1},
    {"msec", PM_UNIT_SECONDS, 1, 1000, 1},
    {"ms", PM_UNIT_SECONDS, 1, 1000, 1},
    {"microseconds", PM_UNIT_SECONDS, 1, 1000000, 1},
    {"usec", PM_UNIT_SECONDS, 1, 1000000, 1},
    {"us", PM_UNIT_SECONDS, 1, 1000000, 1},
    {"nanoseconds", PM_UNIT_SECONDS, 1, 1000000000, 1},
    {"nsec", PM_UNIT_SECONDS, 1, 1000000000, 1},
    {"ns", PM_UNIT_SECONDS, 1, 1000000000, 1},
    {"minutes", PM_UNIT_SECONDS, 60, 1, 1},
    {"minute", PM_UNIT_SECONDS, 60, 1, 1},
    {"hours", PM_UNIT_SECONDS, 3600, 1, 1},
    {"hour", PM_UNIT_SECONDS, 3600, 1, 1},
    {"days", PM_UNIT_SECONDS, 86400, 1, 1},
    {"day", PM_UNIT_SECONDS, 86400, 1, 1},
};

/* Words that may not stay in a name as they are (promtool's lint): type
 * names, abbreviated units, and units that are not base units where they
 * are only a qualifier ("Load Average 15 Minutes"): spelled out, singular. */
static const char *const respell[][2] = {
    {"counter", "events"}, {"gauge", "level"}, {"histogram", "distribution"}, {"summary", "digest"},
    {"untyped", "plain"},  {"s", "second"},    {"sec", "second"},             {"secs", "second"},
    {"ms", "millisecond"}, {"msec", "millisecond"}, {"us", "microsecond"},     {"ns", "nanosecond"},
    {"b", "byte"},         {"kb", "kilobyte"},  {"mb", "megabyte"},           {"gb", "gigabyte"},
    {"tb", "terabyte"},    {"pb", "petabyte"},  {"m", "minute"},              {"h", "hour"},
    {"d", "day"},          {"minutes", "minute"}, {"hours", "hour"},          {"days", "day"},
    {"weeks", "week"},     {"milliseconds", "millisecond"}, {"microseconds", "microsecond"},
    {"nanoseconds", "nanosecond"}, {"bits", "bit"}, {"kilobytes", "kilobyte"}, {"megabytes", "megabyte"},
    {"gigabytes", "gigabyte"}, {"terabytes", "terabyte"},
};

/* ------------------------------------------------------------------ rows */

enum {
    CUM = 1,   /* a raw count that only grows (a running total): a counter */
    LABEL = 2, /* an identifier: a label of its instances, not a metric */
    SIGNED = 4, /* a raw value in two's complement */
};

typedef struct pm_row {
    uint32_t counter;
    const char *stem;  /* the name between the object and the unit; NULL: from the counter's name */
    pm_unit unit;      /* PM_UNIT_NONE: from the name's words */
    uint64_t num, den; /* the raw value's factor to the unit; 0: 1/1 or the unit word's */
    unsigned flags;
    const char *help;  /* NULL: the Explain text */
} pm_row;

/* Shared HELP texts. */
#define H_PROC_TIME "Time spent running anything but the idle loop; for a process or thread, the time its code ran on any processor (user plus kernel mode)."
#define H_PSI_AVG(what) "Share of the last 10 seconds in which " what " (the avg10 figure of /proc/pressure)."
#define H_PSI_TOTAL(what) "Time in which " what " (the total figure of /proc/pressure)."
#define H_ADDR(kind, prot) "Address space of the process " kind ", mapped " prot "."
#define H_IMG(prot) "Address space that this image maps " prot "."
#define NO_LINUX " Not available on Linux: no sample."

/* Sorted by counter index (checked by a test). */
static const pm_row rows[] = {
    {PL_CTR_PCT_PROCESSOR_TIME, NULL, 0, 0, 0, 0, H_PROC_TIME},
    {PL_CTR_FILE_READ_OPERATIONS_PER_SEC, NULL, 0, 0, 0, 0, "Read requests programs made to files and devices, over all processes." NO_LINUX},
    {PL_CTR_FILE_WRITE_OPERATIONS_PER_SEC, NULL, 0, 0, 0, 0, "Write requests programs made to files and devices, over all processes." NO_LINUX},
    {PL_CTR_FILE_CONTROL_OPERATIONS_PER_SEC, NULL, 0, 0, 0, 0, "File-system requests that are neither reads nor writes, over all processes."},
    {PL_CTR_FILE_READ_BYTES_PER_SEC, NULL, 0, 0, 0, 0, "Bytes programs read from files and devices, over all processes." NO_LINUX},
    {PL_CTR_FILE_WRITE_BYTES_PER_SEC, NULL, 0, 0, 0, 0, "Bytes programs wrote to files and devices, over all processes." NO_LINUX},
    {PL_CTR_FILE_CONTROL_BYTES_PER_SEC, NULL, 0, 0, 0, 0, "Bytes moved by file-system requests that are neither reads nor writes."},
    {PL_CTR_AVAILABLE_BYTES, NULL, 0, 0, 0, 0, "Physical memory that can be given to programs right away without swapping (MemAvailable in /proc/meminfo)."},
    {PL_CTR_COMMITTED_BYTES, NULL, 0, 0, 0, 0, "Virtual memory the system has promised to programs and must back with memory or swap (Committed_AS in /proc/meminfo)."},
    {PL_CTR_PAGE_FAULTS_PER_SEC, NULL, 0, 0, 0, 0, "Page faults: accesses to virtual memory that was not mapped at that moment, whether the page then came from memory or from disk."},
    {PL_CTR_COMMIT_LIMIT, NULL, PM_UNIT_BYTES, 0, 0, 0, "Virtual memory that can be committed before the limit is reached (CommitLimit in /proc/meminfo)."},
    {PL_CTR_TRANSITION_FAULTS_PER_SEC, NULL, 0, 0, 0, 0, "Page faults resolved by taking back a page that was leaving the working set." NO_LINUX},
    {PL_CTR_CACHE_FAULTS_PER_SEC, NULL, 0, 0, 0, 0, "Faults on file cache pages found in memory." NO_LINUX},
    {PL_CTR_DEMAND_ZERO_FAULTS_PER_SEC, NULL, 0, 0, 0, 0, "Page faults that needed a new zero-filled page." NO_LINUX},
    {PL_CTR_PAGES_PER_SEC, NULL, 0, 0, 0, 0, "Pages read from or written to disk to resolve faults or free memory: Pages Input plus Pages Output."},
    {PL_CTR_PAGE_READS_PER_SEC, NULL, 0, 0, 0, 0, "Disk reads done to resolve page faults (one per hard fault: pgmajfault in /proc/vmstat)."},
    {PL_CTR_PROCESSOR_QUEUE_LENGTH, NULL, 0, 0, 0, 0, "Threads ready to run but waiting for a processor at the moment of the sample (runnable tasks beyond the online processors)."},
    {PL_CTR_THREAD_STATE, NULL, 0, 0, 0, 0, "Scheduling state of the thread: 0 initialized, 1 ready, 2 running, 3 standby, 4 terminated, 5 waiting, 6 transition, 7 unknown (Linux states mapped onto these)."},
    {PL_CTR_PAGES_OUTPUT_PER_SEC, NULL, 0, 0, 0, 0, "Pages written to disk to free memory (pages swapped out: pswpout in /proc/vmstat)."},
    {PL_CTR_PAGE_WRITES_PER_SEC, NULL, 0, 0, 0, 0, "Disk writes done to write pages out." NO_LINUX},
    {PL_CTR_POOL_PAGED_BYTES, NULL, 0, 0, 0, 0, "Kernel memory the system can take back when memory is short (SReclaimable in /proc/meminfo: reclaimable slab caches). No sample per process."},
    {PL_CTR_POOL_NONPAGED_BYTES, NULL, 0, 0, 0, 0, "Kernel memory that must stay in physical memory (SUnreclaim + KernelStack + PageTables in /proc/meminfo). No sample per process."},
    {PL_CTR_SYSTEM_CACHE_RESIDENT_BYTES, NULL, 0, 0, 0, 0, "File cache resident in physical memory; the same as Cache Bytes on Linux, whose page cache is always resident."},
    {PL_CTR_PCT_USER_TIME, NULL, 0, 0, 0, 0, "Time spent running code in user mode (applications)."},
    {PL_CTR_PCT_PRIVILEGED_TIME, NULL, 0, 0, 0, 0, "Time spent running code in kernel mode on behalf of programs."},
    {PL_CTR_CONTEXT_SWITCHES_PER_SEC, NULL, 0, 0, 0, 0, "Switches of a processor from one thread to another; for a thread, the times it was switched in or out."},
    {PL_CTR_INTERRUPTS_PER_SEC, NULL, 0, 0, 0, 0, "Hardware interrupts the processor received and handled."},
    {PL_CTR_SYSTEM_CALLS_PER_SEC, NULL, 0, 0, 0, 0, "Calls into the kernel made by programs." NO_LINUX},
    {PL_CTR_VIRTUAL_BYTES_PEAK, NULL, 0, 0, 0, 0, "Largest size the process's mapped virtual address space has reached (VmPeak)."},
    {PL_CTR_VIRTUAL_BYTES, NULL, 0, 0, 0, 0, "Size of the virtual address space the process has mapped (VmSize)."},
    {PL_CTR_WORKING_SET_PEAK, NULL, PM_UNIT_BYTES, 0, 0, 0, "Largest amount of physical memory the process has used at one time (VmHWM)."},
    {PL_CTR_WORKING_SET, NULL, PM_UNIT_BYTES, 0, 0, 0, "Physical memory the process uses now, shared pages included: its resident set size (VmRSS in /proc/<pid>/status)."},
    {PL_CTR_PAGE_FILE_BYTES_PEAK, NULL, 0, 0, 0, 0, "Largest value Page File Bytes has reached for this process."},
    {PL_CTR_PAGE_FILE_BYTES, NULL, 0, 0, 0, 0, "Virtual memory committed to the process that would need swap space if paged out (its private writable memory)."},
    {PL_CTR_PRIVATE_BYTES, NULL, 0, 0, 0, 0, "Memory the process has allocated for itself and cannot share (its private writable mappings)."},
    {PL_CTR_CURRENT_DISK_QUEUE_LENGTH, NULL, 0, 0, 0, 0, "Requests queued or in progress on the disk at the moment of the sample."},
    {PL_CTR_PCT_DISK_TIME, NULL, 0, 0, 0, 0, "Time requests were in progress on the disk, each request counted (the weighted time of /proc/diskstats): its ratio to the time base is the average number of requests in progress and exceeds 1 on devices that work on several at once."},
    {PL_CTR_PCT_DISK_READ_TIME, NULL, 0, 0, 0, 0, "Time reads were in progress on the disk, each read counted: its ratio to the time base is the average number of reads in progress."},
    {PL_CTR_PCT_DISK_WRITE_TIME, NULL, 0, 0, 0, 0, "Time writes were in progress on the disk, each write counted: its ratio to the time base is the average number of writes in progress."},
    {PL_CTR_AVG_DISK_SEC_PER_TRANSFER, "disk_transfer_duration", 0, 0, 0, 0, "Time reads and writes on the disk took to complete (_sum) and their number (_count)."},
    {PL_CTR_AVG_DISK_SEC_PER_READ, "disk_read_duration", 0, 0, 0, 0, "Time reads on the disk took to complete (_sum) and their number (_count)."},
    {PL_CTR_AVG_DISK_SEC_PER_WRITE, "disk_write_duration", 0, 0, 0, 0, "Time writes on the disk took to complete (_sum) and their number (_count)."},
    {PL_CTR_DISK_TRANSFERS_PER_SEC, NULL, 0, 0, 0, 0, "Reads and writes completed on the disk."},
    {PL_CTR_DISK_READS_PER_SEC, NULL, 0, 0, 0, 0, "Reads completed on the disk."},
    {PL_CTR_DISK_WRITES_PER_SEC, NULL, 0, 0, 0, 0, "Writes completed on the disk."},
    {PL_CTR_DISK_BYTES_PER_SEC, NULL, 0, 0, 0, 0, "Bytes read from or written to the disk."},
    {PL_CTR_DISK_READ_BYTES_PER_SEC, NULL, 0, 0, 0, 0, "Bytes read from the disk."},
    {PL_CTR_DISK_WRITE_BYTES_PER_SEC, NULL, 0, 0, 0, 0, "Bytes written to the disk."},
    {PL_CTR_AVG_DISK_BYTES_PER_TRANSFER, "disk_transfer_size", 0, 0, 0, 0, "Bytes moved by the disk's reads and writes (_sum) and their number (_count)."},
    {PL_CTR_AVG_DISK_BYTES_PER_READ, "disk_read_size", 0, 0, 0, 0, "Bytes moved by the disk's reads (_sum) and their number (_count)."},
    {PL_CTR_AVG_DISK_BYTES_PER_WRITE, "disk_write_size", 0, 0, 0, 0, "Bytes moved by the disk's writes (_sum) and their number (_count)."},
    {PL_CTR_PROCESSES, NULL, 0, 0, 0, 0, "Processes on the machine at the moment of the sample."},
    {PL_CTR_THREADS, NULL, 0, 0, 0, 0, "Threads on the machine at the moment of the sample."},
    {PL_CTR_EVENTS, NULL, 0, 0, 0, 0, "Event objects at the moment of the sample." NO_LINUX},
    {PL_CTR_SEMAPHORES, NULL, 0, 0, 0, 0, "System V semaphore sets of the reader's IPC namespace (/proc/sysvipc/sem, as ipcs -s lists them); POSIX semaphores are not counted."},
    {PL_CTR_MUTEXES, NULL, 0, 0, 0, 0, "Mutex objects at the moment of the sample." NO_LINUX},
    {PL_CTR_SECTIONS, NULL, 0, 0, 0, 0, "System V shared memory segments of the reader's IPC namespace (/proc/sysvipc/shm, as ipcs -m lists them); mapped files and POSIX shared memory are not counted."},
    {PL_CTR_BYTES_RECEIVED_PER_SEC, NULL, 0, 0, 0, 0, "Bytes received on the interface, framing included."},
    {PL_CTR_PACKETS_RECEIVED_PER_SEC, NULL, 0, 0, 0, 0, "Packets received on the interface."},
    {PL_CTR_THREAD_WAIT_REASON, NULL, 0, 0, 0, 0, "Why a waiting thread waits, as a Windows wait-reason code (0 to 19) mapped from the thread's Linux sleep state."},
    {PL_CTR_BYTES_TOTAL_PER_SEC, NULL, 0, 0, 0, 0, "Bytes sent and received on the interface, framing included."},
    {PL_CTR_PACKETS_PER_SEC, NULL, 0, 0, 0, 0, "Packets sent and received on the interface."},
    {PL_CTR_PCT_FREE_SPACE, NULL, 0, 0, 0, 0, "Free space of the file system as a fraction of its size."},
    {PL_CTR_FREE_MEGABYTES, NULL, 0, 0, 0, 0, "Free space of the file system, counted in whole mebibytes."},
    {PL_CTR_DATAGRAMS_PER_SEC, NULL, 0, 0, 0, 0, "Datagrams received and sent by this protocol, those with errors included."},
    {PL_CTR_DATAGRAMS_SENT_PER_SEC, NULL, 0, 0, 0, 0, "Datagrams sent by this protocol (for IP, handed to it by the protocols above)."},
    {PL_CTR_DATAGRAMS_RECEIVED_PER_SEC, NULL, 0, 0, 0, 0, "Datagrams received by this protocol, those with errors included."},
    {PL_CTR_PACKETS_SENT_PER_SEC, NULL, 0, 0, 0, 0, "Packets sent on the interface."},
    {PL_CTR_BYTES_SENT_PER_SEC, NULL, 0, 0, 0, 0, "Bytes sent on the interface, framing included."},
    {PL_CTR_CURRENT_BANDWIDTH, NULL, PM_UNIT_BYTES_PER_SECOND, 1, 8, 0, "Nominal speed of the interface (its link speed), in bytes per second; Windows shows it in bits per second."},
    {PL_CTR_PACKETS_RECEIVED_UNICAST_PER_SEC, NULL, 0, 0, 0, 0, "Packets addressed to this interface alone that were received."},
    {PL_CTR_PACKETS_RECEIVED_NON_UNICAST_PER_SEC, NULL, 0, 0, 0, 0, "Broadcast and multicast packets received on the interface."},
    {PL_CTR_PACKETS_RECEIVED_DISCARDED, NULL, 0, 0, 0, CUM, "Received packets dropped although no error was found in them, for example for lack of buffer space."},
    {PL_CTR_PACKETS_RECEIVED_ERRORS, NULL, 0, 0, 0, CUM, "Received packets rejected because they contained errors."},
    {PL_CTR_PACKETS_RECEIVED_UNKNOWN, NULL, 0, 0, 0, CUM, "Received packets of a protocol the interface does not know."},
    {PL_CTR_PACKETS_SENT_UNICAST_PER_SEC, NULL, 0, 0, 0, 0, "Packets sent to a single address."},
    {PL_CTR_PACKETS_SENT_NON_UNICAST_PER_SEC, NULL, 0, 0, 0, 0, "Broadcast and multicast packets sent."},
    {PL_CTR_PACKETS_OUTBOUND_DISCARDED, NULL, 0, 0, 0, CUM, "Outgoing packets dropped although no error was found in them."},
    {PL_CTR_PACKETS_OUTBOUND_ERRORS, NULL, 0, 0, 0, CUM, "Outgoing packets that could not be sent because of errors."},
    {PL_CTR_OUTPUT_QUEUE_LENGTH, NULL, 0, 0, 0, 0, "Packets waiting in the interface's output queue: the backlog of its root queueing discipline (tc's 'backlog ...p'), 0 without a queue."},
    {PL_CTR_DATAGRAMS_RECEIVED_HEADER_ERRORS, NULL, 0, 0, 0, CUM, "Received datagrams discarded because of errors in their headers."},
    {PL_CTR_DATAGRAMS_RECEIVED_ADDRESS_ERRORS, NULL, 0, 0, 0, CUM, "Received datagrams discarded because their destination address was not valid for this machine."},
    {PL_CTR_DATAGRAMS_FORWARDED_PER_SEC, NULL, 0, 0, 0, 0, "Datagrams not addressed to this machine that were passed on towards their destination."},
    {PL_CTR_DATAGRAMS_RECEIVED_UNKNOWN_PROTOCOL, NULL, 0, 0, 0, CUM, "Datagrams received for this machine but discarded because their protocol is not supported."},
    {PL_CTR_DATAGRAMS_RECEIVED_DISCARDED, NULL, 0, 0, 0, CUM, "Received datagrams dropped without any error in them, for example for lack of buffer space."},
    {PL_CTR_DATAGRAMS_RECEIVED_DELIVERED_PER_SEC, NULL, 0, 0, 0, 0, "Received datagrams handed to the protocols above IP."},
    {PL_CTR_DATAGRAMS_OUTBOUND_DISCARDED, NULL, 0, 0, 0, CUM, "Outgoing datagrams dropped without any error in them, for example for lack of buffer space."},
    {PL_CTR_DATAGRAMS_OUTBOUND_NO_ROUTE, NULL, 0, 0, 0, CUM, "Outgoing datagrams dropped because no route to their destination was found."},
    {PL_CTR_FRAGMENTS_RECEIVED_PER_SEC, NULL, 0, 0, 0, 0, "Received fragments that needed reassembly."},
    {PL_CTR_FRAGMENTS_REASSEMBLED_PER_SEC, NULL, 0, 0, 0, 0, "Datagrams put back together from fragments."},
    {PL_CTR_FRAGMENT_REASSEMBLY_FAILURES, NULL, 0, 0, 0, CUM, "Times reassembling a datagram from fragments failed."},
    {PL_CTR_FRAGMENTED_DATAGRAMS_PER_SEC, NULL, 0, 0, 0, 0, "Outgoing datagrams split into fragments."},
    {PL_CTR_FRAGMENTATION_FAILURES, NULL, 0, 0, 0, CUM, "Outgoing datagrams dropped because they needed fragmenting but could not be fragmented."},
    {PL_CTR_FRAGMENTS_CREATED_PER_SEC, "created_fragments", 0, 0, 0, 0, "Fragments created by splitting outgoing datagrams."},
    {PL_CTR_MESSAGES_PER_SEC, NULL, 0, 0, 0, 0, "ICMP messages received and sent, those with errors included."},
    {PL_CTR_MESSAGES_RECEIVED_PER_SEC, NULL, 0, 0, 0, 0, "ICMP messages received, those with errors included."},
    {PL_CTR_MESSAGES_RECEIVED_ERRORS, NULL, 0, 0, 0, CUM, "Received ICMP messages that had errors, such as a bad checksum or length."},
    {PL_CTR_RECEIVED_DEST_UNREACHABLE, NULL, 0, 0, 0, CUM, "Destination Unreachable messages received."},
    {PL_CTR_RECEIVED_TIME_EXCEEDED, NULL, 0, 0, 0, CUM, "Time Exceeded messages received."},
    {PL_CTR_RECEIVED_PARAMETER_PROBLEM, NULL, 0, 0, 0, CUM, "Parameter Problem messages received."},
    {PL_CTR_RECEIVED_SOURCE_QUENCH, NULL, 0, 0, 0, CUM, "Source Quench messages received."},
    {PL_CTR_RECEIVED_REDIRECT_PER_SEC, NULL, 0, 0, 0, 0, "Redirect messages received."},
    {PL_CTR_RECEIVED_ECHO_PER_SEC, NULL, 0, 0, 0, 0, "Echo Request (ping) messages received."},
    {PL_CTR_RECEIVED_ECHO_REPLY_PER_SEC, NULL, 0, 0, 0, 0, "Echo Reply messages received."},
    {PL_CTR_RECEIVED_TIMESTAMP_PER_SEC, NULL, 0, 0, 0, 0, "Timestamp Request messages received."},
    {PL_CTR_RECEIVED_TIMESTAMP_REPLY_PER_SEC, NULL, 0, 0, 0, 0, "Timestamp Reply messages received."},
    {PL_CTR_RECEIVED_ADDRESS_MASK, NULL, 0, 0, 0, CUM, "Address Mask Request messages received."},
    {PL_CTR_RECEIVED_ADDRESS_MASK_REPLY, NULL, 0, 0, 0, CUM, "Address Mask Reply messages received."},
    {PL_CTR_MESSAGES_SENT_PER_SEC, NULL, 0, 0, 0, 0, "ICMP messages sent, those that failed included."},
    {PL_CTR_MESSAGES_OUTBOUND_ERRORS, NULL, 0, 0, 0, CUM, "ICMP messages that could not be sent because of problems inside the protocol stack."},
    {PL_CTR_SENT_DESTINATION_UNREACHABLE, NULL, 0, 0, 0, CUM, "Destination Unreachable messages sent."},
    {PL_CTR_SENT_TIME_EXCEEDED, NULL, 0, 0, 0, CUM, "Time Exceeded messages sent."},
    {PL_CTR_SENT_PARAMETER_PROBLEM, NULL, 0, 0, 0, CUM, "Parameter Problem messages sent."},
    {PL_CTR_SENT_SOURCE_QUENCH, NULL, 0, 0, 0, CUM, "Source Quench messages sent."},
    {PL_CTR_SENT_REDIRECT_PER_SEC, NULL, 0, 0, 0, 0, "Redirect messages sent."},
    {PL_CTR_SENT_ECHO_PER_SEC, NULL, 0, 0, 0, 0, "Echo Request (ping) messages sent."},
    {PL_CTR_SENT_ECHO_REPLY_PER_SEC, NULL, 0, 0, 0, 0, "Echo Reply messages sent."},
    {PL_CTR_SENT_TIMESTAMP_PER_SEC, NULL, 0, 0, 0, 0, "Timestamp Request messages sent."},
    {PL_CTR_SENT_TIMESTAMP_REPLY_PER_SEC, NULL, 0, 0, 0, 0, "Timestamp Reply messages sent."},
    {PL_CTR_SENT_ADDRESS_MASK, NULL, 0, 0, 0, CUM, "Address Mask Request messages sent."},
    {PL_CTR_SENT_ADDRESS_MASK_REPLY, NULL, 0, 0, 0, CUM, "Address Mask Reply messages sent."},
    {PL_CTR_SEGMENTS_PER_SEC, NULL, 0, 0, 0, 0, "TCP segments sent and received. The kernel counts both IP versions together: TCPv4 has the sum, TCPv6 no sample."},
    {PL_CTR_CONNECTIONS_ESTABLISHED, NULL, 0, 0, 0, 0, "TCP connections in the ESTABLISHED or CLOSE-WAIT state at the moment of the sample."},
    {PL_CTR_CONNECTIONS_ACTIVE, NULL, 0, 0, 0, CUM, "TCP connections this machine opened towards others (SYN-SENT from CLOSED). The kernel counts both IP versions together: TCPv4 has the sum, TCPv6 no sample."},
    {PL_CTR_CONNECTIONS_PASSIVE, NULL, 0, 0, 0, CUM, "TCP connections accepted from others (SYN-RCVD from LISTEN). The kernel counts both IP versions together: TCPv4 has the sum, TCPv6 no sample."},
    {PL_CTR_CONNECTION_FAILURES, NULL, 0, 0, 0, CUM, "TCP connection attempts that failed before being established. The kernel counts both IP versions together: TCPv4 has the sum, TCPv6 no sample."},
    {PL_CTR_CONNECTIONS_RESET, NULL, 0, 0, 0, CUM, "Established TCP connections that were reset. The kernel counts both IP versions together: TCPv4 has the sum, TCPv6 no sample."},
    {PL_CTR_SEGMENTS_RECEIVED_PER_SEC, NULL, 0, 0, 0, 0, "TCP segments received, those with errors included. The kernel counts both IP versions together: TCPv4 has the sum, TCPv6 no sample."},
    {PL_CTR_SEGMENTS_SENT_PER_SEC, NULL, 0, 0, 0, 0, "TCP segments sent, retransmissions not counted. The kernel counts both IP versions together: TCPv4 has the sum, TCPv6 no sample."},
    {PL_CTR_SEGMENTS_RETRANSMITTED_PER_SEC, NULL, 0, 0, 0, 0, "TCP segments sent again because they were not acknowledged in time. The kernel counts both IP versions together: TCPv4 has the sum, TCPv6 no sample."},
    {PL_CTR_DATAGRAMS_NO_PORT_PER_SEC, NULL, 0, 0, 0, 0, "UDP datagrams that arrived for a port nobody listens on."},
    {PL_CTR_DATAGRAMS_RECEIVED_ERRORS, NULL, 0, 0, 0, CUM, "Received UDP datagrams that could not be delivered for reasons other than a missing listener, such as checksum errors or full buffers."},
    {PL_CTR_SYSTEM_UP_TIME, "boot_time", 0, 0, 0, 0, "When the machine started."},
    {PL_CTR_SYSTEM_HANDLE_COUNT, "handles", 0, 0, 0, 0, "Handles open on the machine."},
    {PL_CTR_THREAD_COUNT, "threads", 0, 0, 0, 0, "Threads of the process."},
    {PL_CTR_PRIORITY_BASE, NULL, 0, 0, 0, 0, "Base scheduling priority of the process or thread, derived from the nice value in the Windows range (higher is more urgent)."},
    {PL_CTR_ELAPSED_TIME, "start_time", 0, 0, 0, 0, "When the process or thread started."},
    {PL_CTR_PRIORITY_CURRENT, NULL, 0, 0, 0, 0, "Current scheduling priority of the thread, which the system may raise above the base priority for a while."},
    {PL_CTR_PCT_DPC_TIME, NULL, 0, 0, 0, 0, "Time spent on deferred interrupt work (softirq time in /proc/stat)."},
    {PL_CTR_PCT_INTERRUPT_TIME, NULL, 0, 0, 0, 0, "Time spent handling hardware interrupts (irq time in /proc/stat)."},
    {PL_CTR_PCT_USAGE, NULL, 0, 0, 0, 0, "Part of the swap area in use, as a fraction of its size."},
    {PL_CTR_PCT_USAGE_PEAK, NULL, 0, 0, 0, 0, "Largest part of the swap area in use that perfd has seen, as a fraction of its size."},
    {PL_CTR_MAPPED_SPACE_NO_ACCESS, NULL, PM_UNIT_BYTES, 0, 0, 0, H_ADDR("mapped from files or shared memory other than images", "with no access allowed")},
    {PL_CTR_MAPPED_SPACE_READ_ONLY, NULL, PM_UNIT_BYTES, 0, 0, 0, H_ADDR("mapped from files or shared memory other than images", "read-only")},
    {PL_CTR_MAPPED_SPACE_READ_WRITE, NULL, PM_UNIT_BYTES, 0, 0, 0, H_ADDR("mapped from files or shared memory other than images", "readable and writable (shared)")},
    {PL_CTR_MAPPED_SPACE_WRITE_COPY, NULL, PM_UNIT_BYTES, 0, 0, 0, H_ADDR("mapped from files or shared memory other than images", "readable and writable with a private copy on the first write")},
    {PL_CTR_MAPPED_SPACE_EXECUTABLE, NULL, PM_UNIT_BYTES, 0, 0, 0, H_ADDR("mapped from files or shared memory other than images", "executable only")},
    {PL_CTR_MAPPED_SPACE_EXEC_READ_ONLY, NULL, PM_UNIT_BYTES, 0, 0, 0, H_ADDR("mapped from files or shared memory other than images", "executable and readable")},
    {PL_CTR_MAPPED_SPACE_EXEC_READ_WRITE, NULL, PM_UNIT_BYTES, 0, 0, 0, H_ADDR("mapped from files or shared memory other than images", "executable, readable and writable (shared)")},
    {PL_CTR_MAPPED_SPACE_EXEC_WRITE_COPY, NULL, PM_UNIT_BYTES, 0, 0, 0, H_ADDR("mapped from files or shared memory other than images", "executable, readable and writable with a private copy on the first write")},
    {PL_CTR_RESERVED_SPACE_NO_ACCESS, NULL, PM_UNIT_BYTES, 0, 0, 0, H_ADDR("reserved but not yet backed by memory", "with no access allowed")},
    {PL_CTR_RESERVED_SPACE_READ_ONLY, NULL, PM_UNIT_BYTES, 0, 0, 0, H_ADDR("reserved but not yet backed by memory", "read-only")},
    {PL_CTR_RESERVED_SPACE_READ_WRITE, NULL, PM_UNIT_BYTES, 0, 0, 0, H_ADDR("reserved but not yet backed by memory", "readable and writable (shared)")},
    {PL_CTR_RESERVED_SPACE_WRITE_COPY, NULL, PM_UNIT_BYTES, 0, 0, 0, H_ADDR("reserved but not yet backed by memory", "readable and writable with a private copy on the first write")},
    {PL_CTR_RESERVED_SPACE_EXECUTABLE, NULL, PM_UNIT_BYTES, 0, 0, 0, H_ADDR("reserved but not yet backed by memory", "executable only")},
    {PL_CTR_RESERVED_SPACE_EXEC_READ_ONLY, NULL, PM_UNIT_BYTES, 0, 0, 0, H_ADDR("reserved but not yet backed by memory", "executable and readable")},
    {PL_CTR_RESERVED_SPACE_EXEC_READ_WRITE, NULL, PM_UNIT_BYTES, 0, 0, 0, H_ADDR("reserved but not yet backed by memory", "executable, readable and writable (shared)")},
    {PL_CTR_RESERVED_SPACE_EXEC_WRITE_COPY, NULL, PM_UNIT_BYTES, 0, 0, 0, H_ADDR("reserved but not yet backed by memory", "executable, readable and writable with a private copy on the first write")},
    {PL_CTR_UNASSIGNED_SPACE_NO_ACCESS, NULL, PM_UNIT_BYTES, 0, 0, 0, H_ADDR("not assigned to anything", "with no access allowed")},
    {PL_CTR_UNASSIGNED_SPACE_READ_ONLY, NULL, PM_UNIT_BYTES, 0, 0, 0, H_ADDR("not assigned to anything", "read-only")},
    {PL_CTR_UNASSIGNED_SPACE_READ_WRITE, NULL, PM_UNIT_BYTES, 0, 0, 0, H_ADDR("not assigned to anything", "readable and writable (shared)")},
    {PL_CTR_UNASSIGNED_SPACE_WRITE_COPY, NULL, PM_UNIT_BYTES, 0, 0, 0, H_ADDR("not assigned to anything", "readable and writable with a private copy on the first write")},
    {PL_CTR_UNASSIGNED_SPACE_EXECUTABLE, NULL, PM_UNIT_BYTES, 0, 0, 0, H_ADDR("not assigned to anything", "executable only")},
    {PL_CTR_UNASSIGNED_SPACE_EXEC_READ_ONLY, NULL, PM_UNIT_BYTES, 0, 0, 0, H_ADDR("not assigned to anything", "executable and readable")},
    {PL_CTR_UNASSIGNED_SPACE_EXEC_READ_WRITE, NULL, PM_UNIT_BYTES, 0, 0, 0, H_ADDR("not assigned to anything", "executable, readable and writable (shared)")},
    {PL_CTR_UNASSIGNED_SPACE_EXEC_WRITE_COPY, NULL, PM_UNIT_BYTES, 0, 0, 0, H_ADDR("not assigned to anything", "executable, readable and writable with a private copy on the first write")},
    {PL_CTR_IMAGE_SPACE_NO_ACCESS, NULL, PM_UNIT_BYTES, 0, 0, 0, H_ADDR("used by executable images (programs and shared libraries)", "with no access allowed")},
    {PL_CTR_IMAGE_SPACE_READ_ONLY, NULL, PM_UNIT_BYTES, 0, 0, 0, H_ADDR("used by executable images (programs and shared libraries)", "read-only")},
    {PL_CTR_IMAGE_SPACE_READ_WRITE, NULL, PM_UNIT_BYTES, 0, 0, 0, H_ADDR("used by executable images (programs and shared libraries)", "readable and writable (shared)")},
    {PL_CTR_IMAGE_SPACE_WRITE_COPY, NULL, PM_UNIT_BYTES, 0, 0, 0, H_ADDR("used by executable images (programs and shared libraries)", "readable and writable with a private copy on the first write")},
    {PL_CTR_IMAGE_SPACE_EXECUTABLE, NULL, PM_UNIT_BYTES, 0, 0, 0, H_ADDR("used by executable images (programs and shared libraries)", "executable only")},
    {PL_CTR_IMAGE_SPACE_EXEC_READ_ONLY, NULL, PM_UNIT_BYTES, 0, 0, 0, H_ADDR("used by executable images (programs and shared libraries)", "executable and readable")},
    {PL_CTR_IMAGE_SPACE_EXEC_READ_WRITE, NULL, PM_UNIT_BYTES, 0, 0, 0, H_ADDR("used by executable images (programs and shared libraries)", "executable, readable and writable (shared)")},
    {PL_CTR_IMAGE_SPACE_EXEC_WRITE_COPY, NULL, PM_UNIT_BYTES, 0, 0, 0, H_ADDR("used by executable images (programs and shared libraries)", "executable, readable and writable with a private copy on the first write")},
    {PL_CTR_BYTES_IMAGE_RESERVED, NULL, 0, 0, 0, 0, "Address space the process has reserved for mapped images (programs and shared libraries)."},
    {PL_CTR_BYTES_IMAGE_FREE, NULL, 0, 0, 0, 0, "Address space reserved for images that is not in use."},
    {PL_CTR_BYTES_RESERVED, NULL, 0, 0, 0, 0, "Address space the process has reserved."},
    {PL_CTR_BYTES_FREE, NULL, 0, 0, 0, 0, "Address space of the process that is free."},
    {PL_CTR_ID_PROCESS, NULL, 0, 0, 0, LABEL, NULL},
    {PL_CTR_NO_ACCESS, NULL, PM_UNIT_BYTES, 0, 0, 0, H_IMG("with no access allowed")},
    {PL_CTR_READ_ONLY, NULL, PM_UNIT_BYTES, 0, 0, 0, H_IMG("read-only")},
    {PL_CTR_READ_WRITE, NULL, PM_UNIT_BYTES, 0, 0, 0, H_IMG("readable and writable (shared)")},
    {PL_CTR_WRITE_COPY, NULL, PM_UNIT_BYTES, 0, 0, 0, H_IMG("readable and writable with a private copy on the first write")},
    {PL_CTR_EXECUTABLE, NULL, PM_UNIT_BYTES, 0, 0, 0, H_IMG("executable only")},
    {PL_CTR_EXEC_READ_ONLY, NULL, PM_UNIT_BYTES, 0, 0, 0, H_IMG("executable and readable")},
    {PL_CTR_EXEC_READ_WRITE, NULL, PM_UNIT_BYTES, 0, 0, 0, H_IMG("executable, readable and writable (shared)")},
    {PL_CTR_EXEC_WRITE_COPY, NULL, PM_UNIT_BYTES, 0, 0, 0, H_IMG("executable, readable and writable with a private copy on the first write")},
    {PL_CTR_ID_THREAD, NULL, 0, 0, 0, LABEL, NULL},
    {PL_CTR_CACHE_BYTES, NULL, 0, 0, 0, 0, "Memory holding file data cached by the system: free(1)'s buff/cache, Buffers + Cached + SReclaimable in /proc/meminfo."},
    {PL_CTR_CACHE_BYTES_PEAK, NULL, 0, 0, 0, 0, "Largest value Cache Bytes has had since the machine started, as far as the system records it."},
    {PL_CTR_PAGES_INPUT_PER_SEC, NULL, 0, 0, 0, 0, "Pages read from disk to resolve hard page faults, mapped files and swap included: one per hard fault (pgmajfault), a lower bound, as the kernel does not count the readahead pages."},
    {PL_CTR_HANDLE_COUNT, "handles", 0, 0, 0, 0, "Handles the process has open: its open file descriptors."},
    {PL_CTR_DPCS_QUEUED_PER_SEC, NULL, 0, 0, 0, 0, "Deferred interrupt work items queued to the processor (softirqs raised)."},
    {PL_CTR_DPC_RATE, NULL, 0, 0, 0, 0, "Deferred interrupt work items queued to the processor per clock tick, averaged by the system."},
    {PL_CTR_AVAILABLE_KBYTES, "available_kib_rounded", PM_UNIT_BYTES, KIB, 1, 0, "Available memory (MemAvailable in /proc/meminfo) rounded down to whole kibibytes, as Windows' Available KBytes counts it; perflib_memory_available_bytes has it to the byte."},
    {PL_CTR_AVAILABLE_MBYTES, "available_mib_rounded", PM_UNIT_BYTES, MIB, 1, 0, "Available memory (MemAvailable in /proc/meminfo) rounded down to whole mebibytes, as Windows' Available MBytes counts it; perflib_memory_available_bytes has it to the byte."},
    {PL_CTR_AVG_DISK_QUEUE_LENGTH, NULL, 0, 0, 0, 0, "Reads and writes queued or in progress on the disk, summed over time (the weighted time field of /proc/diskstats)."},
    {PL_CTR_AVG_DISK_READ_QUEUE_LENGTH, NULL, 0, 0, 0, 0, "Reads queued or in progress on the disk, summed over time."},
    {PL_CTR_AVG_DISK_WRITE_QUEUE_LENGTH, NULL, 0, 0, 0, 0, "Writes queued or in progress on the disk, summed over time."},
    {PL_CTR_PCT_COMMITTED_BYTES_IN_USE, NULL, 0, 0, 0, 0, "Committed Bytes as a fraction of Commit Limit."},
    {PL_CTR_CREATING_PROCESS_ID, NULL, 0, 0, 0, 0, "Process ID of the process that created this one (its parent; it may have ended since)."},
    {PL_CTR_IO_READ_OPERATIONS_PER_SEC, NULL, 0, 0, 0, 0, "Read operations the process issued (syscr in /proc/<pid>/io: read, readv and pread on files, pipes, devices and sockets; recv calls not counted)."},
    {PL_CTR_IO_WRITE_OPERATIONS_PER_SEC, NULL, 0, 0, 0, 0, "Write operations the process issued (syscw in /proc/<pid>/io: write, writev and pwrite on files, pipes, devices and sockets; send calls not counted)."},
    {PL_CTR_IO_DATA_OPERATIONS_PER_SEC, NULL, 0, 0, 0, 0, "Read and write operations the process issued, together."},
    {PL_CTR_IO_OTHER_OPERATIONS_PER_SEC, NULL, 0, 0, 0, 0, "I/O operations of the process that are neither reads nor writes, such as control calls."},
    {PL_CTR_IO_READ_BYTES_PER_SEC, NULL, 0, 0, 0, 0, "Bytes the process read through I/O calls (rchar in /proc/<pid>/io: read, readv, pread, sendfile and splice; bytes received with recv calls not counted)."},
    {PL_CTR_IO_WRITE_BYTES_PER_SEC, NULL, 0, 0, 0, 0, "Bytes the process wrote through I/O calls (wchar in /proc/<pid>/io: write, writev, pwrite, sendfile and splice; bytes sent with send calls not counted)."},
    {PL_CTR_IO_DATA_BYTES_PER_SEC, NULL, 0, 0, 0, 0, "Bytes the process read and wrote through I/O calls, together."},
    {PL_CTR_IO_OTHER_BYTES_PER_SEC, NULL, 0, 0, 0, 0, "Bytes the process moved in I/O operations that are neither reads nor writes."},
    {PL_CTR_WORKING_SET_PRIVATE, NULL, PM_UNIT_BYTES, 0, 0, 0, "Part of the working set only this process uses (RssAnon plus private file pages where known)."},
    {PL_CTR_WORKING_SET_SHARED, NULL, PM_UNIT_BYTES, 0, 0, 0, "Part of the working set other processes can share (RssFile plus RssShmem)."},
    {PL_CTR_PCT_IDLE_TIME_DISK, NULL, 0, 0, 0, 0, "Time the disk had no request in progress (from io_ticks in /proc/diskstats)."},
    {PL_CTR_SPLIT_IO_PER_SEC, NULL, 0, 0, 0, 0, "Disk requests split into several because they were too large or fragmented."},
    {PL_CTR_RECEIVED_PACKET_TOO_BIG, NULL, 0, 0, 0, CUM, "ICMPv6 Packet Too Big messages received."},
    {PL_CTR_RECEIVED_MEMBERSHIP_QUERY, NULL, 0, 0, 0, CUM, "Multicast listener Query messages received."},
    {PL_CTR_RECEIVED_MEMBERSHIP_REPORT, NULL, 0, 0, 0, CUM, "Multicast listener Report messages received."},
    {PL_CTR_RECEIVED_MEMBERSHIP_REDUCTION, NULL, 0, 0, 0, CUM, "Multicast listener Done (reduction) messages received."},
    {PL_CTR_RECEIVED_ROUTER_SOLICIT, NULL, 0, 0, 0, CUM, "Router Solicitation messages received."},
    {PL_CTR_RECEIVED_ROUTER_ADVERT, NULL, 0, 0, 0, CUM, "Router Advertisement messages received."},
    {PL_CTR_RECEIVED_NEIGHBOR_SOLICIT, NULL, 0, 0, 0, CUM, "Neighbor Solicitation messages received."},
    {PL_CTR_RECEIVED_NEIGHBOR_ADVERT, NULL, 0, 0, 0, CUM, "Neighbor Advertisement messages received."},
    {PL_CTR_SENT_PACKET_TOO_BIG, NULL, 0, 0, 0, CUM, "ICMPv6 Packet Too Big messages sent."},
    {PL_CTR_SENT_MEMBERSHIP_QUERY, NULL, 0, 0, 0, CUM, "Multicast listener Query messages sent."},
    {PL_CTR_SENT_MEMBERSHIP_REPORT, NULL, 0, 0, 0, CUM, "Multicast listener Report messages sent."},
    {PL_CTR_SENT_MEMBERSHIP_REDUCTION, NULL, 0, 0, 0, CUM, "Multicast listener Done (reduction) messages sent."},
    {PL_CTR_SENT_ROUTER_SOLICIT, NULL, 0, 0, 0, CUM, "Router Solicitation messages sent."},
    {PL_CTR_SENT_ROUTER_ADVERT, NULL, 0, 0, 0, CUM, "Router Advertisement messages sent."},
    {PL_CTR_SENT_NEIGHBOR_SOLICIT, NULL, 0, 0, 0, CUM, "Neighbor Solicitation messages sent."},
    {PL_CTR_SENT_NEIGHBOR_ADVERT, NULL, 0, 0, 0, CUM, "Neighbor Advertisement messages sent."},
    {PL_CTR_FREE_AND_ZERO_PAGE_LIST_BYTES, NULL, 0, 0, 0, 0, "Physical memory that holds nothing and is ready for immediate use (MemFree)."},
    {PL_CTR_MODIFIED_PAGE_LIST_BYTES, NULL, 0, 0, 0, 0, "Physical memory holding changed data that must be written to disk before it can be reused (Dirty plus Writeback)."},
    {PL_CTR_STANDBY_CACHE_RESERVE_BYTES, NULL, 0, 0, 0, 0, "Cached memory on the reserve-priority standby list."},
    {PL_CTR_STANDBY_CACHE_NORMAL_PRIORITY_BYTES, NULL, 0, 0, 0, 0, "Cached memory on the normal-priority standby list: the inactive file cache (Inactive(file))."},
    {PL_CTR_STANDBY_CACHE_CORE_BYTES, NULL, 0, 0, 0, 0, "Cached memory on the highest-priority standby lists: the active file cache (Active(file))."},
    {PL_CTR_PCT_IDLE_TIME, NULL, 0, 0, 0, 0, "Time the processor was idle."},
    {PL_CTR_PCT_C1_TIME, NULL, 0, 0, 0, 0, "Time the processor spent in the C1 (shallowest) low-power idle state, part of its idle time (cpuidle's C1 states); no sample without cpuidle."},
    {PL_CTR_PCT_C2_TIME, NULL, 0, 0, 0, 0, "Time the processor spent in the C2 low-power idle state, part of its idle time (cpuidle); no sample without cpuidle."},
    {PL_CTR_PCT_C3_TIME, NULL, 0, 0, 0, 0, "Time the processor spent in the C3 or a deeper low-power idle state, part of its idle time (cpuidle); no sample without cpuidle."},
    {PL_CTR_C1_TRANSITIONS_PER_SEC, NULL, 0, 0, 0, 0, "Entries of the processor into the C1 low-power idle state (cpuidle's usage count); no sample without cpuidle."},
    {PL_CTR_C2_TRANSITIONS_PER_SEC, NULL, 0, 0, 0, 0, "Entries of the processor into the C2 low-power idle state (cpuidle's usage count); no sample without cpuidle."},
    {PL_CTR_C3_TRANSITIONS_PER_SEC, NULL, 0, 0, 0, 0, "Entries of the processor into the C3 or a deeper low-power idle state (cpuidle's usage count); no sample without cpuidle."},
    {PL_CTR_LOAD_AVERAGE_1MIN, "load1", 0, 1, 100, 0, "Load average over about one minute: the damped average number of tasks running, runnable or in uninterruptible sleep (/proc/loadavg)."},
    {PL_CTR_LOAD_AVERAGE_5MIN, "load5", 0, 1, 100, 0, "Load average over about five minutes (/proc/loadavg)."},
    {PL_CTR_LOAD_AVERAGE_15MIN, "load15", 0, 1, 100, 0, "Load average over about fifteen minutes (/proc/loadavg)."},
    {PL_CTR_CPU_PRESSURE_SOME_AVG10, NULL, PM_UNIT_RATIO, 1, 10000, 0, H_PSI_AVG("at least one runnable task waited for a processor")},
    {PL_CTR_CPU_PRESSURE_SOME_TOTAL, NULL, 0, 0, 0, 0, H_PSI_TOTAL("at least one runnable task waited for a processor")},
    {PL_CTR_CPU_PRESSURE_FULL_AVG10, NULL, PM_UNIT_RATIO, 1, 10000, 0, H_PSI_AVG("all non-idle tasks waited for a processor at once")},
    {PL_CTR_CPU_PRESSURE_FULL_TOTAL, NULL, 0, 0, 0, 0, H_PSI_TOTAL("all non-idle tasks waited for a processor at once")},
    {PL_CTR_MEMORY_PRESSURE_SOME_AVG10, NULL, PM_UNIT_RATIO, 1, 10000, 0, H_PSI_AVG("at least one task was stalled waiting for memory")},
    {PL_CTR_MEMORY_PRESSURE_SOME_TOTAL, NULL, 0, 0, 0, 0, H_PSI_TOTAL("at least one task was stalled waiting for memory")},
    {PL_CTR_MEMORY_PRESSURE_FULL_AVG10, NULL, PM_UNIT_RATIO, 1, 10000, 0, H_PSI_AVG("all non-idle tasks were stalled waiting for memory at once")},
    {PL_CTR_MEMORY_PRESSURE_FULL_TOTAL, NULL, 0, 0, 0, 0, H_PSI_TOTAL("all non-idle tasks were stalled waiting for memory at once")},
    {PL_CTR_IO_PRESSURE_SOME_AVG10, NULL, PM_UNIT_RATIO, 1, 10000, 0, H_PSI_AVG("at least one task was stalled waiting for block I/O")},
    {PL_CTR_IO_PRESSURE_SOME_TOTAL, NULL, 0, 0, 0, 0, H_PSI_TOTAL("at least one task was stalled waiting for block I/O")},
    {PL_CTR_IO_PRESSURE_FULL_AVG10, NULL, PM_UNIT_RATIO, 1, 10000, 0, H_PSI_AVG("all non-idle tasks were stalled waiting for block I/O at once")},
    {PL_CTR_IO_PRESSURE_FULL_TOTAL, NULL, 0, 0, 0, 0, H_PSI_TOTAL("all non-idle tasks were stalled waiting for block I/O at once")},
    {PL_CTR_PROCESSES_RUNNING, NULL, 0, 0, 0, 0, "Tasks running or ready to run at the moment of the sample (procs_running in /proc/stat)."},
    {PL_CTR_PROCESSES_BLOCKED, NULL, 0, 0, 0, 0, "Tasks blocked waiting for I/O at the moment of the sample (procs_blocked in /proc/stat)."},
    {PL_CTR_FORKS_PER_SEC, NULL, 0, 0, 0, 0, "Processes and threads created (the processes counter of /proc/stat)."},
    {PL_CTR_TOTAL_BYTES, NULL, 0, 0, 0, 0, "Usable physical memory (MemTotal in /proc/meminfo)."},
    {PL_CTR_FREE_BYTES, NULL, 0, 0, 0, 0, "Physical memory that holds nothing at all (MemFree in /proc/meminfo); available memory is usually the better measure of room."},
    {PL_CTR_BUFFERS_BYTES, NULL, 0, 0, 0, 0, "Memory used for raw block-device buffers (Buffers in /proc/meminfo)."},
    {PL_CTR_CACHED_BYTES, NULL, 0, 0, 0, 0, "Memory used by the page cache for file data (Cached in /proc/meminfo)."},
    {PL_CTR_DIRTY_BYTES, NULL, 0, 0, 0, 0, "Memory holding changed file data not yet written to disk (Dirty in /proc/meminfo)."},
    {PL_CTR_WRITEBACK_BYTES, NULL, 0, 0, 0, 0, "Memory being written back to disk at the moment (Writeback in /proc/meminfo)."},
    {PL_CTR_SLAB_BYTES, NULL, 0, 0, 0, 0, "Memory the kernel's slab allocator uses for its own data structures (Slab in /proc/meminfo)."},
    {PL_CTR_SHMEM_BYTES, NULL, 0, 0, 0, 0, "Memory used by shared memory and tmpfs file systems (Shmem in /proc/meminfo)."},
    {PL_CTR_SWAP_TOTAL_BYTES, NULL, 0, 0, 0, 0, "Size of all swap areas together (SwapTotal in /proc/meminfo)."},
    {PL_CTR_SWAP_FREE_BYTES, NULL, 0, 0, 0, 0, "Unused part of all swap areas (SwapFree in /proc/meminfo)."},
    {PL_CTR_HUGE_PAGES_TOTAL, "huge_pages_pool", 0, 0, 0, 0, "Huge pages in the kernel's persistent huge page pool (HugePages_Total in /proc/meminfo)."},
    {PL_CTR_HUGE_PAGES_FREE, NULL, 0, 0, 0, 0, "Huge pages of the pool not yet allocated (HugePages_Free in /proc/meminfo)."},
    {PL_CTR_HUGE_PAGE_SIZE_BYTES, NULL, 0, 0, 0, 0, "Size of one default huge page (Hugepagesize in /proc/meminfo)."},
    {PL_CTR_PCT_NICE_TIME, NULL, 0, 0, 0, 0, "Time spent running user code of low-priority (niced) tasks (the nice column of /proc/stat)."},
    {PL_CTR_PCT_IO_WAIT_TIME, NULL, 0, 0, 0, 0, "Time the processor was idle while I/O it had started was outstanding (the iowait column of /proc/stat)."},
    {PL_CTR_PCT_STEAL_TIME, NULL, 0, 0, 0, 0, "Time this virtual processor wanted to run but the hypervisor ran something else (the steal column of /proc/stat)."},
    {PL_CTR_PCT_GUEST_TIME, NULL, 0, 0, 0, 0, "Time spent running virtual processors of guest systems (the guest columns of /proc/stat)."},
    {PL_CTR_SIZE_BYTES, NULL, 0, 0, 0, 0, "Size of the swap area (/proc/swaps)."},
    {PL_CTR_USED_BYTES, NULL, 0, 0, 0, 0, "Part of the swap area in use (/proc/swaps)."},
    {PL_CTR_MAJOR_PAGE_FAULTS_PER_SEC, NULL, 0, 0, 0, 0, "Page faults that had to read the page from disk (majflt in /proc/<pid>/stat)."},
    {PL_CTR_MINOR_PAGE_FAULTS_PER_SEC, NULL, 0, 0, 0, 0, "Page faults resolved without disk I/O (minflt in /proc/<pid>/stat)."},
    {PL_CTR_VOLUNTARY_CONTEXT_SWITCHES_PER_SEC, NULL, 0, 0, 0, 0, "Times the process or thread gave up the processor because it had to wait (voluntary_ctxt_switches in /proc/<pid>/status)."},
    {PL_CTR_INVOLUNTARY_CONTEXT_SWITCHES_PER_SEC, NULL, 0, 0, 0, 0, "Times the process or thread was taken off the processor by the scheduler (nonvoluntary_ctxt_switches in /proc/<pid>/status)."},
    {PL_CTR_NICE_VALUE, NULL, 0, 0, 0, SIGNED, "Nice value of the process, from -20 (most favoured) to 19 (least)."},
    {PL_CTR_RESIDENT_SHARED_BYTES, NULL, 0, 0, 0, 0, "Resident memory of the process backed by files or shared memory that other processes may also map (RssFile plus RssShmem)."},
    {PL_CTR_SWAP_BYTES, NULL, 0, 0, 0, 0, "Memory of the process that is swapped out now (VmSwap in /proc/<pid>/status)."},
    {PL_CTR_OPEN_FILE_DESCRIPTOR_LIMIT, NULL, 0, 0, 0, 0, "Most file descriptors the process may have open (its soft RLIMIT_NOFILE)."},
    {PL_CTR_LAST_PROCESSOR, NULL, 0, 0, 0, 0, "Number of the processor the process or thread last ran on."},
    {PL_CTR_PROCESS_STATE, NULL, 0, 0, 0, 0, "Scheduling state of the process as the ASCII code of its Linux state letter (82 R running, 83 S sleeping, 68 D disk wait, 90 Z zombie, 84 T stopped)."},
    {PL_CTR_MAPPED_BYTES, NULL, 0, 0, 0, 0, "Virtual size of the mappings counted here (/proc/<pid>/maps)."},
    {PL_CTR_RESIDENT_BYTES, NULL, 0, 0, 0, 0, "Part of the mappings counted here that is in physical memory (Rss in /proc/<pid>/smaps)."},
    {PL_CTR_PRIVATE_RESIDENT_BYTES, NULL, 0, 0, 0, 0, "Resident part of the mappings counted here that no other process shares (Private_Clean plus Private_Dirty in /proc/<pid>/smaps)."},
    {PL_CTR_DISCARDS_PER_SEC, NULL, 0, 0, 0, 0, "Discard (trim) requests completed on the disk (/proc/diskstats)."},
    {PL_CTR_DISCARD_BYTES_PER_SEC, NULL, 0, 0, 0, 0, "Bytes discarded (trimmed) on the disk (/proc/diskstats)."},
    {PL_CTR_FLUSHES_PER_SEC, NULL, 0, 0, 0, 0, "Cache-flush requests completed on the disk (/proc/diskstats)."},
    {PL_CTR_SIZE_MEGABYTES, NULL, 0, 0, 0, 0, "Size of the disk or file system, counted in whole mebibytes."},
    {PL_CTR_MULTICAST_PACKETS_RECEIVED_PER_SEC, NULL, 0, 0, 0, 0, "Multicast packets received on the interface (the multicast column of /proc/net/dev)."},
    {PL_CTR_COLLISIONS, NULL, 0, 0, 0, CUM, "Transmit collisions seen on the interface (statistics/collisions in /sys/class/net)."},
    {PL_CTR_CARRIER_ERRORS, NULL, 0, 0, 0, CUM, "Transmit errors caused by loss of carrier on the interface (statistics/tx_carrier_errors in /sys/class/net)."},
    {PL_CTR_MTU, NULL, PM_UNIT_BYTES, 0, 0, 0, "Largest packet the interface sends without fragmenting (its MTU)."},
    {PL_CTR_UNAVAILABLE_COUNTERS, NULL, 0, 0, 0, LABEL, NULL},
    {PL_CTR_PCT_PROCESSOR_UTILITY, NULL, 0, 0, 0, 0, "Busy time weighted by the processor's average frequency against its nominal one." NO_LINUX},
    {PL_CTR_PROCESSOR_FREQUENCY, NULL, PM_UNIT_HERTZ, 1000000, 1, 0, "Current frequency of the processor, a momentary reading (cpufreq's scaling_cur_freq); for a node or _Total the average of its processors; no sample without cpufreq."},
    {PL_CTR_PCT_OF_MAXIMUM_FREQUENCY, "frequency_of_maximum", 0, 0, 0, 0, "Current frequency as a fraction of the processor's maximum (cpuinfo_max_freq); for a node or _Total the sum of current over the sum of maximum frequencies; no sample without cpufreq."},
};

size_t pm_table_rows(void) { return sizeof rows / sizeof rows[0]; }
uint32_t pm_table_counter(size_t i) { return i < pm_table_rows() ? rows[i].counter : 0; }

static const pm_row *row_of(uint32_t counter)
{
    size_t lo = 0, hi = pm_table_rows();
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (rows[mid].counter == counter) return &rows[mid];
        if (rows[mid].counter < counter) lo = mid + 1;
        else hi = mid;
    }
    return NULL;
}

/* ------------------------------------------------------------------ words */

#define MAX_WORDS 40
#define WORD_MAX 48

typedef struct words {
    char w[MAX_WORDS][WORD_MAX];
    int n;
    int percent;              /* the name starts with "%" */
} words;

/* The words of a title: lower case [a-z0-9] runs; "/sec" and "/s" (a rate
 * per second: the counter is a count) dropped, "%" noted and dropped. */
static void split(const char *in, words *out)
{
    out->n = 0;
    out->percent = 0;
    if (!in) return;
    const char *p = in;
    while (*p == ' ' || *p == '\t') p++;
    if (*p == '%') out->percent = 1;
    char cur[WORD_MAX];
    size_t len = 0;
    for (;; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '/') {
            size_t k = strncasecmp(p, "/sec", 4) == 0 ? 4 : strncasecmp(p, "/s", 2) == 0 ? 2 : 0;
            unsigned char a = k ? (unsigned char)p[k] : 'x';
            if (k && !((a | 0x20) >= 'a' && (a | 0x20) <= 'z') && !(a >= '0' && a <= '9')) p += k - 1;
        }
        if (c >= 'A' && c <= 'Z') c = (unsigned char)(c + 32);
        int alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        if (alnum) {
            if (len + 1 < WORD_MAX) cur[len++] = (char)c;
            continue;
        }
        if (len && out->n < MAX_WORDS) {
            memcpy(out->w[out->n], cur, len);
            out->w[out->n][len] = '\0';
            out->n++;
        }
        len = 0;
        if (!c) break;
    }
}

static void drop_word(words *w, int i)
{
    for (int k = i; k + 1 < w->n; k++) memcpy(w->w[k], w->w[k + 1], WORD_MAX);
    w->n--;
}

static int is_number(const char *s)
{
    if (!*s) return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9') return 0;
    return 1;
}

/* A number word, or a number-like one ("one", "five", ...). */
static int qualifies(const char *s)
{
    static const char *const n[] = {"one", "two", "three", "four", "five", "ten", "fifteen", "thirty", "sixty", "last"};
    if (is_number(s)) return 1;
    for (size_t i = 0; i < sizeof n / sizeof n[0]; i++)
        if (strcmp(s, n[i]) == 0) return 1;
    return 0;
}

/* The first unit word of w (not a qualified time word): its index, or -1. */
static int find_unit(const words *w, size_t *which)
{
    for (int i = 0; i < w->n; i++)
        for (size_t u = 0; u < sizeof unit_words / sizeof unit_words[0]; u++) {
            if (strcmp(w->w[i], unit_words[u].word) != 0) continue;
            if (unit_words[u].time && i > 0 && qualifies(w->w[i - 1])) continue;
            *which = u;
            return i;
        }
    return -1;
}

static void drop_time_words(words *w)
{
    for (int i = 0; i < w->n;) {
        int drop = 0;
        for (size_t u = 0; u < sizeof unit_words / sizeof unit_words[0]; u++)
            if (unit_words[u].time && strcmp(w->w[i], unit_words[u].word) == 0 && !(i > 0 && qualifies(w->w[i - 1])))
                drop = 1;
        if (drop) drop_word(w, i);
        else i++;
    }
}

/* Join words with "_", respelling what the lint rejects. */
static void join(const words *w, char *out, size_t cap)
{
    size_t o = 0;
    out[0] = '\0';
    for (int i = 0; i < w->n; i++) {
        const char *s = w->w[i];
        for (size_t k = 0; k < sizeof respell / sizeof respell[0]; k++)
            if (strcmp(s, respell[k][0]) == 0) {
                s = respell[k][1];
                break;
            }
        int n = snprintf(out + o, cap - o, "%s%s", o ? "_" : "", s);
        if (n < 0 || (size_t)n >= cap - o) break;
        o += (size_t)n;
    }
}

static int ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

void pm_object_prefix(uint32_t object_index, const char *object, char *out, size_t cap)
{
    words w;
    char buf[32];
    if (!object) {
        snprintf(buf, sizeof buf, "object %u", (unsigned)object_index);
        object = buf;
    }
    split(object, &w);
    char s[PM_NAME_MAX];
    join(&w, s, sizeof s);
    snprintf(out, cap, "perflib_%s", s[0] ? s : "object");
}

/* ---------------------------------------------------------------- labels */

void pm_labels_of(uint32_t object_index, const char *object, pm_labels *l)
{
    memset(l, 0, sizeof *l);
    char p[PM_NAME_MAX];
    pm_object_prefix(object_index, object, p, sizeof p);
    const char *name = p + strlen("perflib_");
    static const char *const reserved[] = {"instance", "job", "parent", "pid", "tid", "index", "value", "le",
                                           "quantile"};
    int clash = name[0] >= '0' && name[0] <= '9';
    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
        if (strcmp(name, reserved[i]) == 0) clash = 1;
    if (name[0] >= '0' && name[0] <= '9') snprintf(l->instance, sizeof l->instance, "object_%.100s", name);
    else snprintf(l->instance, sizeof l->instance, clash ? "%.100s_name" : "%.100s", name);
    switch (object_index) {
    case PL_OBJ_PROCESS:
        l->ids = PM_ID_PID;
        l->transient = 1;
        break;
    case PL_OBJ_THREAD:
        /* a thread's instance name is only its position in its process:
         * the next thread takes it when one ends, so tid is the label */
        l->positional = 1;
        l->ids = PM_ID_PID | PM_ID_TID;
        l->transient = 1;
        break;
    case PL_OBJ_PROCESS_ADDRESS_SPACE:
    case PL_OBJ_IMAGE:
        l->ids = object_index == PL_OBJ_PROCESS_ADDRESS_SPACE ? PM_ID_PID : 0;
        l->transient = 1;
        break;
    default: break;
    }
}

/* ------------------------------------------------------------------ help */

/* Does s hold w as a word (case-insensitive, not inside a longer word)? */
static int has_word(const char *s, const char *w)
{
    size_t n = strlen(w);
    for (const char *p = s; *p; p++) {
        if (strncasecmp(p, w, n) != 0) continue;
        int before = p > s && ((p[-1] | 0x20) >= 'a' && (p[-1] | 0x20) <= 'z');
        int after = ((p[n] | 0x20) >= 'a' && (p[n] | 0x20) <= 'z');
        if (!before && !after) return 1;
    }
    return 0;
}

/* What the metric's HELP adds about its unit and use. */
static void usage(const pm_metric *m, char *out, size_t cap)
{
    const char *u = pm_unit_suffix(m->unit);
    out[0] = '\0';
    switch (m->kind) {
    case PM_GAUGE:
    case PM_DOUBLE:
        if (m->unit == PM_UNIT_RATIO) snprintf(out, cap, "A ratio from 0 to 1.");
        else if (m->unit == PM_UNIT_BYTES_PER_SECOND) snprintf(out, cap, "In bytes per second.");
        else if (*u) snprintf(out, cap, "In %s.", u);
        break;
    case PM_GAUGE_RATIO: snprintf(out, cap, "A ratio from 0 to 1."); break;
    case PM_COUNTER:
        if (*u) snprintf(out, cap, "A counter of %s since the count started: rate() gives %s per second.", u, u);
        else snprintf(out, cap, "A counter since the count started: rate() gives the number per second.");
        break;
    case PM_COUNTER_SECONDS:
        snprintf(out, cap, "A counter of seconds: rate() gives seconds per second, the fraction of time (above 1 "
                           "when it adds up over several processors).");
        break;
    case PM_COUNTER_INVERSE:
        snprintf(out, cap, "A counter of the seconds in which it did NOT happen: 1 - rate() is the fraction of time "
                           "it did.");
        break;
    case PM_COUNTER_QUEUE:
        snprintf(out, cap, "A counter of the queue length times seconds: rate() is the average queue length.");
        break;
    case PM_PRECISION:
        snprintf(out, cap, "A counter of seconds: rate() of it over rate() of %.*s_base_seconds_total is the "
                           "fraction of its time base (rate() alone: seconds per second).", (int)m->unit_at, m->name);
        break;
    case PM_SUMMARY_SECONDS:
        snprintf(out, cap, "rate(_sum) / rate(_count) is the average in seconds; rate(_count) the operations per "
                           "second.");
        break;
    case PM_SUMMARY:
        if (*u) snprintf(out, cap, "rate(_sum) / rate(_count) is the average in %s; rate(_count) the operations per "
                                   "second.", u);
        else snprintf(out, cap, "rate(_sum) / rate(_count) is the average; rate(_count) the operations per second.");
        break;
    case PM_SUMMARY_RATIO: snprintf(out, cap, "rate(_sum) / rate(_count) is the fraction, from 0 to 1."); break;
    case PM_ELAPSED: snprintf(out, cap, "Unix time in seconds: time() minus it is the age."); break;
    case PM_TEXT: snprintf(out, cap, "Always 1: the text is the label value."); break;
    case PM_SKIP: break;
    }
}

/* Is an Explain text fit to describe the metric? Windows' texts speak of
 * percent and of rates per second, which the metric is not. */
static int explain_fits(const pm_metric *m, const char *explain)
{
    if (!explain || !*explain) return 0;
    if (has_word(explain, "percent") || strchr(explain, '%')) return 0;
    if (m->kind != PM_GAUGE && m->kind != PM_DOUBLE && m->kind != PM_TEXT) {
        if (has_word(explain, "rate") || has_word(explain, "per second") || has_word(explain, "/sec")) return 0;
    }
    if (m->conv.num != m->conv.den) return 0; /* its unit is not the metric's */
    return 1;
}

/* ---------------------------------------------------------------- metric */

void pm_metric_of(uint32_t object_index, const char *object, uint32_t counter_index, uint32_t counter_type,
                  const char *counter, const char *explain, pm_metric *m)
{
    memset(m, 0, sizeof *m);
    m->conv.num = m->conv.den = 1;
    m->kind = pm_kind_of(counter_type);
    const pm_row *r = row_of(counter_index);
    m->from_table = r != NULL;
    if (m->kind == PM_SKIP || counter_index == PL_CTR_UNAVAILABLE_COUNTERS) {
        m->kind = PM_SKIP;
        return;
    }
    m->is_signed = r && (r->flags & SIGNED);
    if (r && (r->flags & LABEL)) {
        m->kind = PM_SKIP;
        return;
    }
    int raw = m->kind == PM_GAUGE || m->kind == PM_COUNTER || m->kind == PM_SUMMARY || m->kind == PM_DOUBLE;
    if (r && (r->flags & CUM) && m->kind == PM_GAUGE) m->kind = PM_COUNTER;

    char cbuf[32];
    if (!counter) {
        snprintf(cbuf, sizeof cbuf, "counter %u", (unsigned)counter_index);
        counter = cbuf;
    }
    words w;
    split(counter, &w);
    /* a last "total" is the counter's suffix, not part of its name */
    if (w.n > 1 && strcmp(w.w[w.n - 1], "total") == 0) w.n--;

    /* the unit */
    switch (m->kind) {
    case PM_GAUGE_RATIO:
    case PM_SUMMARY_RATIO: m->unit = PM_UNIT_RATIO; break;
    case PM_COUNTER_SECONDS:
    case PM_COUNTER_INVERSE:
    case PM_COUNTER_QUEUE:
    case PM_PRECISION:
    case PM_SUMMARY_SECONDS:
    case PM_ELAPSED:
        m->unit = PM_UNIT_SECONDS;
        drop_time_words(&w);
        break;
    default: break;
    }
    if (raw) {
        size_t u;
        int i = find_unit(&w, &u);
        if (i >= 0) {
            m->unit = unit_words[u].unit;
            m->conv.num = unit_words[u].num;
            m->conv.den = unit_words[u].den;
            drop_word(&w, i);
        } else if (w.percent && (m->kind == PM_GAUGE || m->kind == PM_DOUBLE)) {
            m->unit = PM_UNIT_RATIO;
            m->conv.num = 1;
            m->conv.den = 100;
        }
        if (r && (r->unit != PM_UNIT_NONE || r->num)) {
            if (r->unit != PM_UNIT_NONE) m->unit = r->unit;
            m->conv.num = r->num ? r->num : 1;
            m->conv.den = r->den ? r->den : 1;
        }
    }
    /* an average is what rate() makes of the counter: not in its name */
    if ((m->kind == PM_COUNTER_QUEUE || m->kind == PM_SUMMARY || m->kind == PM_SUMMARY_SECONDS ||
         m->kind == PM_SUMMARY_RATIO) && w.n > 1 && (strcmp(w.w[0], "avg") == 0 || strcmp(w.w[0], "average") == 0))
        drop_word(&w, 0);
    if (m->kind == PM_ELAPSED) {
        for (int i = 0; i < w.n;)
            if (strcmp(w.w[i], "elapsed") == 0 || strcmp(w.w[i], "time") == 0) drop_word(&w, i);
            else i++;
        if (w.n + 2 <= MAX_WORDS) {
            snprintf(w.w[w.n++], WORD_MAX, "start");
            snprintf(w.w[w.n++], WORD_MAX, "time");
        }
    }

    char stem[PM_NAME_MAX];
    if (r && r->stem) snprintf(stem, sizeof stem, "%s", r->stem);
    else join(&w, stem, sizeof stem);

    char prefix[PM_NAME_MAX];
    pm_object_prefix(object_index, object, prefix, sizeof prefix);
    const char *unit = pm_unit_suffix(m->unit);
    /* at most 100 + 1 + 90 + 17 ("_bytes_per_second") + 6 ("_value"), so
     * that the renderer's "_<index>" for a second counter of one name
     * always fits before the unit */
    snprintf(m->name, sizeof m->name, "%.100s%s%.90s", prefix, stem[0] ? "_" : "", stem);
    m->unit_at = strlen(m->name);
    snprintf(m->name + m->unit_at, sizeof m->name - m->unit_at, "%s%s", *unit ? "_" : "", unit);
    /* reserved endings of the sample names */
    static const char *const reserved[] = {"_count", "_sum", "_bucket", "_info", "_created", "_total"};
    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
        if (ends_with(m->name, reserved[i])) {
            snprintf(m->name + strlen(m->name), sizeof m->name - strlen(m->name), "_value");
            break;
        }
    if (!stem[0] && !*unit) snprintf(m->name + strlen(m->name), sizeof m->name - strlen(m->name), "_value");

    /* HELP: what it is, then its unit and use */
    const char *what = r && r->help ? r->help : explain_fits(m, explain) ? explain : NULL;
    char generic[320];
    if (!what) {
        /* its name without the "%" and "/sec" that the metric is not */
        const char *c = counter;
        while (*c == '%' || *c == ' ') c++;
        size_t cl = strlen(c);
        if (cl > 4 && strcasecmp(c + cl - 4, "/sec") == 0) cl -= 4;
        snprintf(generic, sizeof generic, "The counter \"%.*s\" of the %.120s object.", (int)(cl > 120 ? 120 : cl), c,
                 object ? object : "unnamed");
        what = generic;
    }
    char use[400];
    usage(m, use, sizeof use);
    snprintf(m->help, sizeof m->help, "%.700s%s%s", what, use[0] ? " " : "", use);
}
