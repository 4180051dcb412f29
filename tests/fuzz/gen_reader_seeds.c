/* Writes the seed corpus of fuzz_reader into the directory given:
 *   gen_reader_seeds tests/fuzz/corpus/reader
 * Input format of fuzz_reader (see fuzz_reader.c): the whole input is tried
 * as a block with a PERF_DATA_BLOCK header; and its first byte is taken as
 * an object count for the rest, tried as a bare object sequence. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perflib/block.h"

#define CHECK(x)                                                                \
    do {                                                                        \
        int rc_ = (x);                                                          \
        if (rc_ != PL_OK) {                                                     \
            fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #x, rc_); \
            exit(1);                                                            \
        }                                                                       \
    } while (0)

static void add_process_thread(pl_builder *b)
{
    int o, t, c, i;
    CHECK(pl_builder_add_object(b, &(pl_object_desc){.name_index = 230, .has_instances = 1, .default_counter = 0,
                                                     .perf_time = 123456789, .perf_freq = 10000000}, &o));
    CHECK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 6, .type = PERF_100NSEC_TIMER}, &c));
    CHECK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 784, .type = PERF_COUNTER_RAWCOUNT}, &c));
    CHECK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 408, .type = PERF_RAW_FRACTION,
                                                          .base_type = PERF_RAW_BASE}, &c));
    CHECK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 1500, .type = PERF_COUNTER_MULTI_TIMER,
                                                          .base_type = PERF_COUNTER_MULTI_BASE}, &c));
    CHECK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 1502, .type = PERF_COUNTER_TEXT, .size = 12},
                                 &c));
    CHECK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 1504, .type = PERF_COUNTER_NODATA}, &c));
    static const char *names[] = {"init", "sshd", "sshd", "b\xC3\xA4sh"};
    for (int k = 0; k < 4; k++) {
        CHECK(pl_builder_add_instance(b, o, names[k], 0, 0, k + 1, &i));
        CHECK(pl_builder_set_u64(b, o, i, 0, 1000u * (unsigned)k));
        CHECK(pl_builder_set_u32(b, o, i, 1, (uint32_t)k + 1));
        CHECK(pl_builder_set_u32(b, o, i, 2, 30));
        CHECK(pl_builder_set_base(b, o, i, 2, 100));
        CHECK(pl_builder_set_u64(b, o, i, 3, 5000));
        CHECK(pl_builder_set_base(b, o, i, 3, 2));
        CHECK(pl_builder_set_text(b, o, i, 4, "txt"));
    }
    CHECK(pl_builder_add_object(b, &(pl_object_desc){.name_index = 232, .has_instances = 1}, &t));
    CHECK(pl_builder_add_counter(b, t, &(pl_counter_desc){.name_index = 804, .type = PERF_COUNTER_RAWCOUNT}, &c));
    static const uint32_t parents[] = {0, 1, 2, 2, 7};
    for (int k = 0; k < 5; k++) {
        char nm[4] = {(char)('0' + k % 2), 0};
        CHECK(pl_builder_add_instance(b, t, nm, 230, parents[k], -1, &i));
        CHECK(pl_builder_set_u32(b, t, i, 0, 100u + (unsigned)k));
    }
}

static void add_system(pl_builder *b)
{
    int o, c;
    CHECK(pl_builder_add_object(b, &(pl_object_desc){.name_index = 2}, &o));
    CHECK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 674, .type = PERF_ELAPSED_TIME}, &c));
    CHECK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 44, .type = PERF_COUNTER_RAWCOUNT}, &c));
    CHECK(pl_builder_set_u64(b, o, -1, 0, 99999));
    CHECK(pl_builder_set_u32(b, o, -1, 1, 3));
}

static void add_empty(pl_builder *b)
{
    int o, c;
    CHECK(pl_builder_add_object(b, &(pl_object_desc){.name_index = 740, .has_instances = 1}, &o));
    CHECK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 742, .type = PERF_COUNTER_LARGE_RAWCOUNT},
                                 &c));
}

static void write_file(const char *dir, const char *name, const void *p, size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(1);
    }
}

/* Header + objects, or (bare) one count byte + objects. */
static void emit(pl_builder *b, const char *dir, const char *name, int bare, const char *host)
{
    size_t objs = pl_builder_size(b), hl = 0, used = 0;
    uint32_t n = 0;
    uint8_t *buf = calloc(1, objs + 1024);
    if (bare) {
        hl = 1;
    } else {
        pl_block_header h = {.system_time = {2024, 1, 1, 1, 0, 0, 0, 0},
                             .perf_time = 1,
                             .perf_freq = 10000000,
                             .perf_time_100ns = 133000000000000000LL,
                             .default_object = 238,
                             .system_name = host};
        CHECK(pl_block_write_header(&h, pl_builder_num_objects(b), objs, buf, 1024, &hl));
    }
    CHECK(pl_builder_emit(b, buf + hl, objs, &used, &n));
    if (bare) buf[0] = (uint8_t)n;
    write_file(dir, name, buf, hl + used);
    free(buf);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: gen_reader_seeds DIR\n");
        return 2;
    }
    const char *dir = argv[1];
    pl_builder *b = pl_builder_new();
    add_process_thread(b);
    add_system(b);
    add_empty(b);
    emit(b, dir, "01_full_block", 0, "SEEDHOST");
    pl_builder_reset(b);
    add_system(b);
    emit(b, dir, "02_no_instances", 0, "");
    pl_builder_reset(b);
    emit(b, dir, "03_header_only", 0, "A-LONGER-HOST-NAME");
    pl_builder_reset(b);
    add_process_thread(b);
    emit(b, dir, "04_bare_process_thread", 1, NULL);
    pl_builder_reset(b);
    add_empty(b);
    add_system(b);
    emit(b, dir, "05_bare_empty_and_system", 1, NULL);
    pl_builder_free(b);
    return 0;
}
