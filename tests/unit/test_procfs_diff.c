/* The fast /proc/vmstat, /proc/meminfo and /proc/net/snmp{,6} parsers
 * (issue 17) against the reference copies of their code before
 * (tests/fuzz/procfs_ref.c), on the committed seeds of fuzz_procfs_diff and
 * on single-byte mutations of them at every position: the byte deleted, the
 * text cut there, or the byte replaced by four of the bytes the parsers
 * treat specially (a different four at each position). The fuzz target explores
 * further; this runs in every build. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pl_test.h"
#include "procfs_diff.h"

#define SEEDS PL_SOURCE_DIR "/tests/fuzz/corpus/procfs_diff"

static char *load(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *b = malloc(65536);
    assert_non_null(b);
    size_t n = fread(b, 1, 65535, f);
    fclose(f);
    b[n] = '\0';
    *len = n;
    return b;
}

static void check(unsigned which, const char *text, const char *what, size_t pos)
{
    const char *m = procfs_diff(which, text);
    if (m) fail_msg("%s at byte %zu: %s", what, pos, m);
}

/* Every seed of parser `which`, then its mutations. */
static void run(unsigned which)
{
    static const char repl[] = {' ', '\t', '\n', ':', '-', '0', '9', 'x', '_', '(', 'k', 'B'};
    DIR *d = opendir(SEEDS);
    assert_non_null(d);
    int seeds = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.') continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", SEEDS, de->d_name);
        size_t len;
        char *b = load(path, &len);
        if (len == 0 || (unsigned char)b[0] % PROCFS_DIFF_N != which) {
            free(b);
            continue;
        }
        seeds++;
        char *t = b + 1; /* the seed's first byte chose the parser */
        size_t tl = len - 1;
        check(which, t, de->d_name, 0);
        char *m = malloc(tl + 1);
        assert_non_null(m);
        for (size_t i = 0; i < tl; i++) {
            /* deleted */
            memcpy(m, t, i);
            memcpy(m + i, t + i + 1, tl - i); /* with the NUL */
            check(which, m, "deleted", i);
            /* replaced */
            memcpy(m, t, tl + 1);
            for (size_t k = 0; k < 4; k++) { /* four of them, in turn */
                char c = repl[(i + k * 3) % sizeof repl];
                if (t[i] == c) continue;
                m[i] = c;
                check(which, m, "replaced", i);
            }
            /* cut here */
            m[i] = '\0';
            check(which, m, "cut", i);
        }
        free(m);
        free(b);
    }
    closedir(d);
    assert_true(seeds >= 2); /* the seeds are there: never a silent pass */
}

static void diff_vmstat(void **state)
{
    (void)state;
    run(PROCFS_DIFF_VMSTAT);
}

static void diff_meminfo(void **state)
{
    (void)state;
    run(PROCFS_DIFF_MEMINFO);
}

static void diff_snmp(void **state)
{
    (void)state;
    run(PROCFS_DIFF_SNMP);
}

static void diff_snmp6(void **state)
{
    (void)state;
    run(PROCFS_DIFF_SNMP6);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(diff_vmstat),
        cmocka_unit_test(diff_meminfo),
        cmocka_unit_test(diff_snmp),
        cmocka_unit_test(diff_snmp6),
    };
    return pl_test_run(tests, argc, argv);
}
