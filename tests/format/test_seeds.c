/* The fuzzer's seed corpus (tests/fuzz/corpus/reader) stays valid: every
 * seed opens in the mode fuzz_reader gives it and has the expected shape. */
#include <dirent.h>
#include <stdio.h>

#include "fmt_test.h"

static uint8_t *slurp(const char *name, size_t *len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", PL_READER_CORPUS, name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    uint8_t *buf = malloc(1 << 20);
    *len = fread(buf, 1, 1 << 20, f);
    fclose(f);
    return buf;
}

static void every_seed_opens(void **state)
{
    (void)state;
    DIR *d = opendir(PL_READER_CORPUS);
    assert_non_null(d);
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        size_t len;
        uint8_t *buf = slurp(e->d_name, &len);
        pl_block blk;
        pl_error err;
        int rc = strstr(e->d_name, "bare") ? pl_block_open(&blk, buf + 1, len - 1, PL_BLOCK_BARE, buf[0], &err)
                                           : pl_block_open(&blk, buf, len, 0, 0, &err);
        if (rc != PL_OK) fprintf(stderr, "%s: %s\n", e->d_name, err.msg);
        assert_int_equal(rc, PL_OK);
        assert_true(len < 4096); /* seeds stay small */
        free(buf);
        n++;
    }
    closedir(d);
    assert_int_equal(n, 5);
}

static void full_seed_content(void **state)
{
    (void)state;
    size_t len;
    uint8_t *buf = slurp("01_full_block", &len);
    pl_block blk;
    pl_error err;
    ASSERT_OK(pl_block_open(&blk, buf, len, 0, 0, &err));
    assert_string_equal(blk.system_name, "SEEDHOST");
    assert_int_equal(blk.num_objects, 4);
    pl_object th;
    ASSERT_OK(pl_block_find_object(&blk, 232, &th));
    char **names;
    ASSERT_OK(pl_object_instance_names(&th, &names));
    assert_string_equal(names[0], "init/0");
    assert_string_equal(names[1], "sshd/1");
    assert_string_equal(names[2], "sshd/0");
    assert_string_equal(names[3], "sshd/1#1");
    assert_string_equal(names[4], "0"); /* parent position 7 does not exist */
    pl_free(names);
    free(buf);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_seed_opens),
        cmocka_unit_test(full_seed_content),
    };
    return pl_test_run(tests, argc, argv);
}
