/* An ordinary user reads a store it may not write (the installed store is
 * root's): the engine opens it read-only and answers queries; a provider it
 * disables stays disabled for that engine only. Run as root, the test drops
 * to "nobody" in a child process; as a non-root user it is skipped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "perflib/block.h"
#include "perflib/indices.h"
#include "perflib/query.h"
#include "perflib/registry.h"
#include "pl_test.h"

static char dir[256], store[300];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/pl-ro-XXXXXX");
    if (!mkdtemp(dir)) return -1;
    snprintf(store, sizeof store, "%s/perflib.db", dir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* In the child, as nobody: 0 when every check holds, else the failed step. */
static int as_nobody(void)
{
    if (setgid(65534) != 0 || setuid(65534) != 0) return 10;
    pl_store *st = NULL;
    pl_error err;
    /* Writing is refused, cleanly. */
    if (pl_store_open(store, 0, &st, &err) == PL_OK) return 11;
    if (pl_store_open(store, PL_STORE_READONLY, &st, &err) != PL_OK) return 12;
    pl_titles *t = NULL;
    if (pl_titles_load(st, "009", &t, &err) != PL_OK) return 13;
    if (!pl_titles_get(t, PL_TITLE_NAME, 238) || strcmp(pl_titles_get(t, PL_TITLE_NAME, 238), "Processor")) return 14;
    pl_titles_free(t);
    pl_store_close(st);
    pl_engine_config cfg = {.store_path = store, .provider_dir = PROVIDER_DIR, .log_to_syslog = 0};
    pl_engine *e = NULL;
    if (pl_engine_open(&cfg, &e, &err) != PL_OK) return 15;
    void *data = NULL;
    size_t len = 0;
    uint32_t type = 0;
    if (pl_engine_query_alloc(e, "238 4", &data, &len, &type, &err) != PL_OK) return 16;
    pl_block blk;
    pl_object o;
    if (pl_block_open(&blk, data, len, 0, 0, &err) != PL_OK) return 17;
    if (pl_block_find_object(&blk, PL_OBJ_PROCESSOR, &o) != PL_OK) return 18;
    if (pl_block_find_object(&blk, PL_OBJ_MEMORY, &o) != PL_OK) return 19;
    free(data);
    if (pl_engine_query_alloc(e, "Counter 009", &data, &len, &type, &err) != PL_OK || type != PL_REG_MULTI_SZ)
        return 20;
    free(data);
    pl_engine_close(e);
    return 0;
}

static void readonly_store_for_ordinary_users(void **state)
{
    (void)state;
    if (geteuid() != 0) pl_skip("needs root: it makes the store as root and reads it as nobody");
    /* root creates and seeds the store; the directory and file are then
     * readable but not writable by others, as /var/lib/perflib is. */
    pl_store *st = NULL;
    pl_error err;
    assert_int_equal(pl_store_open(store, 0, &st, &err), PL_OK);
    pl_store_close(st);
    assert_int_equal(chmod(dir, 0755), 0);
    assert_int_equal(chmod(store, 0644), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) _exit(as_nobody());
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    if (WEXITSTATUS(status)) fprintf(stderr, "the read-only check failed at step %d\n", WEXITSTATUS(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    /* Nothing was written: no journal left behind, the file unchanged. */
    struct stat sb;
    char journal[320];
    snprintf(journal, sizeof journal, "%s-journal", store);
    assert_int_not_equal(stat(journal, &sb), 0);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(readonly_store_for_ordinary_users, setup, teardown),
    };
    return pl_test_run(tests, argc, argv);
}
