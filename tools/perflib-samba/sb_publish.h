/* perflib-samba: writing Samba's perfmon/names.tdb and perfmon/data.tdb so
 * that smbd never reads a half-written file nor names of one snapshot with
 * values of another (docs/samba.md, "How the files are replaced"). */
#ifndef SB_PUBLISH_H
#define SB_PUBLISH_H

#include <stddef.h>

#include "sb_layout.h"

typedef struct sb_dir {
    char perfmon[4096];   /* <state dir>/perfmon */
    int lock_fd;          /* perfmon/perflib-samba.lock, held while the bridge runs */
} sb_dir;

/* Check the state directory (a directory that only root or this user may
 * change), create perfmon/ in it (0755) when missing and check it too, and
 * take the bridge's lock there, so that two bridges never write one
 * directory. Returns 0, or -1 with the reason in why. */
int sb_dir_open(sb_dir *d, const char *state_dir, char *why, size_t cap);
void sb_dir_close(sb_dir *d);

/* The map kept in the current names.tdb: 0 with *map filled (empty when
 * there is no names.tdb or no map in it), 1 when a map is there but was
 * refused (why says why; *map empty), -1 when names.tdb cannot be read. */
int sb_load_map(const sb_dir *d, sb_map *map, char *why, size_t cap);

typedef struct sb_swap {
    int guarded;          /* 1: replaced while no reader had names.tdb open (lease) */
    int unsupported;      /* 1: the file system or kernel refused a lease:
                             replaced without knowing whether a reader was there */
    long waited_ms;       /* how long readers delayed the swap */
} sb_swap;

/* Write both files complete under temporary names (each in one tdb
 * transaction, synced), then put them in place: data.tdb first, names.tdb
 * second, both while no process has names.tdb open (a write lease, waiting
 * up to wait_ms for the readers to finish). Returns 0 when the files were
 * replaced; 1 when readers kept names.tdb open for all of wait_ms, and the
 * files in place were left as they were (never replaced under a reader:
 * Samba 4.17 crashes on names of one snapshot over values of another whose
 * instances are fewer, docs/samba.md); -1 with the reason in why when they
 * could not be written (the files in place are left as they were). */
int sb_publish(const sb_dir *d, const sb_recs *names, const sb_recs *data, long wait_ms, sb_swap *sw, char *why,
               size_t cap);

#endif
