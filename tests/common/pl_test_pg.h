/* A real PostgreSQL server for a test (Debian's postgresql package):
 * initdb and pg_ctl in a fresh temporary directory, run as the unprivileged
 * user "postgres" when the test runs as root, listening on a Unix socket in
 * that directory only (no TCP port), trust authentication for the role
 * "perflib". A guard process stops the server and removes the directory
 * when the test process ends, however it ends. */
#ifndef PL_TEST_PG_H
#define PL_TEST_PG_H

#include <stddef.h>
#include <sys/types.h>

typedef struct pl_test_pg {
    char dir[96];             /* the temporary directory; the socket is here */
    char bindir[256];         /* pg_config --bindir */
    char conninfo[256];       /* "host=<dir> port=5432 user=perflib dbname=postgres" */
    pid_t guard;
    int guard_fd;
} pl_test_pg;

/* Start a server: 0, or -1 with the reason in why (a missing package, a
 * failed initdb: the log's tail). A test that cannot start one must fail. */
int pl_test_pg_start(pl_test_pg *pg, char *why, size_t cap);
/* Stop it and remove its directory (accepts a fixture that did not start). */
void pl_test_pg_stop(pl_test_pg *pg);

#endif
