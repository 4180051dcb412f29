/* This file is private to libperflib: no API/ABI guarantee.
 *
 * The application segment (docs/app-counters.md, "The segment"): its
 * layout, shared by the writer (app.c) and the reader (segread.c), which
 * treats every byte of it as hostile. All fields are in host byte order
 * (writer and reader are on one machine) and every 64-bit word is 8-byte
 * aligned, so it is read and written whole.
 *
 *   0       header (PL__SEG_HEADER bytes)
 *   obj_off nobjects x seg_object (56 bytes)
 *   ctr_off ncounters x seg_counter (24 bytes), all objects' counters in order
 *   ...     per object: max(1, max_instances) slots of slot_size bytes at slots_off
 *
 * A slot: gen (seqlock: odd while the writer changes the slot), id (0: free),
 * parent slot (u64; >= UINT32_MAX: none), parent id, the name (128 bytes, NUL-terminated), then one
 * 64-bit value per counter. Values change without touching gen. */
#ifndef PL_APP_INTERNAL_H
#define PL_APP_INTERNAL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "perflib/app.h"
#include "perflib/status.h"
#include "platform.h" /* pl__proc_start_time */

#define PL__SEG_MAGIC "PLAPPSG1"
#define PL__SEG_VERSION 1u
#define PL__SEG_HEADER 256u
#define PL__SEG_MAX_BYTES ((uint64_t)1 << 32)   /* a reader maps no more than 4 GiB */
#define PL__SEG_NAME_BYTES 128u
#define PL__SEG_SLOT_FIXED (32u + PL__SEG_NAME_BYTES)
#define PL__SEG_NO_PARENT UINT32_MAX
#define PL__SEG_COSTLY 1u
/* The announcement file: <dir>/perflib-app.<pid>.<start time>.<fd> */
#define PL__SEG_PREFIX "perflib-app."
#define PL__SEG_DIR_DEFAULT "/dev/shm"

/* Header field offsets. */
enum {
    SEG_MAGIC = 0,         /* 8 bytes */
    SEG_VERSION = 8,       /* u32 */
    SEG_HEADER_LEN = 12,   /* u32 */
    SEG_SIZE = 16,         /* u64: the whole segment */
    SEG_PID = 24,          /* u32 */
    SEG_NOBJECTS = 28,     /* u32 */
    SEG_START = 32,        /* u64: the writer's start time (clock ticks after boot) */
    SEG_FIRST_COUNTER = 40,/* u32 x 4: the indices it registered with */
    SEG_LAST_COUNTER = 44,
    SEG_FIRST_HELP = 48,
    SEG_LAST_HELP = 52,
    SEG_NCOUNTERS = 56,    /* u32 */
    SEG_OBJ_OFF = 64,      /* u64 */
    SEG_CTR_OFF = 72,      /* u64 */
    SEG_APP = 128,         /* 128 bytes, NUL-terminated */
};

/* Object record field offsets (56 bytes). */
enum {
    SO_NAME = 0, SO_DETAIL = 4, SO_PARENT = 8, SO_MAX = 12, SO_FIRST_CTR = 16, SO_NCTR = 20, SO_FLAGS = 24,
    SO_HIGH = 32,          /* u64, atomic: slots ever used (readers scan [0, high)) */
    SO_SLOTS = 40,         /* u64 */
    SO_SLOT_SIZE = 48,     /* u64 */
    SO_SIZE = 56
};
/* Counter record field offsets (24 bytes). */
enum { SC_NAME = 0, SC_TYPE = 4, SC_DETAIL = 8, SC_SCALE = 12, SC_SIZE = 24 };
/* Slot field offsets. */
enum { SL_GEN = 0, SL_ID = 8, SL_PARENT = 16, SL_PARENT_ID = 24, SL_NAME = 32, SL_VALUES = 32 + PL__SEG_NAME_BYTES };

/* Name offset n of the symbol numbering: object 0, its counters, object 1, ... */

typedef struct pl__seg_counter {
    uint32_t name_off;        /* even symbol offset */
    uint32_t type, detail;
    int32_t scale;
} pl__seg_counter;

typedef struct pl__seg_object {
    uint32_t name_off, detail, parent, max_instances, first_ctr, nctr, flags;
    uint64_t slots_off, slot_size;
    uint64_t high_off;        /* where its high-water word is (reader only) */
} pl__seg_object;

/* A private, validated copy of a segment's fixed part. */
typedef struct pl__seg_layout {
    uint32_t pid;
    uint64_t start;
    char app[PL__SEG_NAME_BYTES];
    uint32_t first_counter, last_counter, first_help, last_help;
    uint32_t nobjects, ncounters;
    pl__seg_object obj[PL_APP_MAX_OBJECTS];
    pl__seg_counter ctr[PL_APP_MAX_TOTAL_COUNTERS];
} pl__seg_layout;

/* One instance as a reader saw it, whole. */
typedef struct pl__seg_inst {
    uint32_t slot;
    uint64_t id;
    uint32_t parent_slot;
    uint64_t parent_id;
    char name[PL__SEG_NAME_BYTES];
    uint64_t values[PL_APP_MAX_COUNTERS];
} pl__seg_inst;

/* Was this store record made by pl_app_register? */
struct pl_provider_info;
struct pl_store;
int pl__app_is_record(const struct pl_provider_info *p);
/* The user who owns an application's record: the one recorded, else (a
 * record made before owners were recorded) the store file's owner. */
int64_t pl__app_owner_of(struct pl_store *st, const struct pl_provider_info *p);
/* May processes of user `uid` publish the application of record p (its
 * owner, or one of the publishers the record names)? */
int pl__app_may_publish(struct pl_store *st, const struct pl_provider_info *p, uint32_t uid);

/* Counter types an application may declare (no bases, no time bases). */
int pl__app_type_ok(uint32_t type);

/* Copy and validate the fixed part of a segment mapped at `map` (len
 * bytes). Everything the layout says is checked against len and the
 * limits; the shared bytes are never used again for the layout. PL_OK or
 * PL_E_BAD_BLOCK with err naming the field. */
int pl__seg_layout_read(const void *map, size_t len, pl__seg_layout *lay, pl_error *err);

/* How many slots of object o a reader should scan (the writer's high-water
 * mark, clamped to the object's room). */
uint32_t pl__seg_high(const void *map, const pl__seg_layout *lay, uint32_t o);

/* Read slot `slot` of object o whole (seqlock, a bounded number of tries).
 * Returns 1 and fills *out for a live instance with a valid name; 0 for a
 * free slot, one that stayed busy (being born or dying: not seen this
 * time) or one whose content is invalid (a hostile writer). */
int pl__seg_read_slot(const void *map, const pl__seg_layout *lay, uint32_t o, uint32_t slot, pl__seg_inst *out);
/* Tests only (tests/app): in pl_app_hooks, the module compiled with
 * PL_TEST_HOOKS (never in libperflib), pl__seg_read_slot calls this, when
 * set, in the middle of its copy of a slot (after the id, before the name),
 * so a test can rewrite the slot exactly there and check that the reader's
 * second look at the generation throws the mixed copy away. */
#ifdef PL_TEST_HOOKS
extern void (*pl__seg_read_hook)(uint32_t o, uint32_t slot);
#endif

/* The directory of announcements: $PERFLIB_APP_DIR, else /dev/shm. */
const char *pl__app_dir(void);

/* A live application's segment, mapped read-only. */
typedef struct pl__seg_view {
    const void *map;
    size_t len;
    uint32_t uid;             /* the user whose process publishes it */
    uint64_t dev, ino;        /* the memfd's identity */
    pl__seg_layout lay;
} pl__seg_view;

/* Each user's announcements live in a directory of that user's own,
 * <dir>/perflib-app-<uid>/ (mode 0755, not writable by others), so what
 * other users write is never read, and a reader looks only at the users
 * its store trusts. The limits below apply per user and per process before
 * any announcement is opened (docs/app-counters.md, "Limits"). */
#define PL__SEG_USER_DIR "perflib-app-"
#define PL__SEG_MAX_USERS 64          /* user directories read per collection */
#define PL__SEG_MAX_ENTRIES 4096      /* directory entries read per user */
#define PL__SEG_MAX_PER_PROCESS 16    /* announcements opened per process */
#define PL__SEG_MAX_PER_USER 256      /* segments mapped per user */

/* What a scan left out, and why (AppCounters reports it). */
typedef struct pl__seg_scan {
    uint32_t users;           /* user directories read */
    uint32_t users_over;      /* users left out: more than PL__SEG_MAX_USERS */
    uint32_t bad_dirs;        /* a directory not its user's own (owner, mode, a symlink) */
    uint32_t bad_dir_uid;
    uint32_t over_entries;    /* users whose directory had more than PL__SEG_MAX_ENTRIES entries */
    uint32_t over_process;    /* announcements left out: past their process's limit */
    uint32_t over_user;       /* segments left out: past their user's limit */
    uint32_t over_uid;        /* a user who crossed a limit */
    uint32_t invalid;         /* announcements of live processes that failed a check */
    uint32_t invalid_uid;
} pl__seg_scan;

/* <dir>/perflib-app-<uid> into out; 0 when it does not fit. */
int pl__seg_user_dir(const char *dir, uint32_t uid, char *out, size_t cap);

/* Find and map the announced segments of the users uids[0..nuids) in
 * their directories under dir, whose processes are alive with the
 * announced start time and whose layouts are valid (docs/app-counters.md,
 * "How a reader finds segments"), ordered by application name, then start
 * time, then pid. What is left out is counted in *scan (may be NULL).
 * *views is one allocation; free with pl__seg_views_free(). PL_OK or
 * PL_E_NOMEM. */
int pl__seg_find(const char *dir, const uint32_t *uids, size_t nuids, pl__seg_view **views, size_t *n,
                 pl__seg_scan *scan);
/* Parse an announcement's name strictly (digits only, no leading zeros);
 * 1 when it has the shape perflib-app.<pid>.<start>.<fd>. */
int pl__seg_parse_name(const char *name, uint32_t *pid, uint64_t *start, int *fd);
void pl__seg_views_free(pl__seg_view *v, size_t n);

#endif
