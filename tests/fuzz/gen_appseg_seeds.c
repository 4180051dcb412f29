/* Writes seed segments for fuzz_appseg: a real application's segment (two
 * objects, one its own parent, instances with a parent) and a few damaged
 * copies.   gen_appseg_seeds OUTDIR   (uses a temporary store) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app_internal.h"

static void put(const char *dir, const char *name, const void *p, size_t n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n) {
        perror(path);
        exit(1);
    }
    fclose(f);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: gen_appseg_seeds OUTDIR\n");
        return 2;
    }
    char tmp[] = "/tmp/appseg-XXXXXX";
    if (!mkdtemp(tmp)) return 1;
    char store[256];
    snprintf(store, sizeof store, "%s/s.db", tmp);
    setenv("PERFLIB_APP_DIR", tmp, 1);
    static const pl_app_counter_decl c[] = {{"Weight", NULL, PERF_COUNTER_LARGE_RAWCOUNT, 0, 0},
                                            {"Age", NULL, PERF_COUNTER_RAWCOUNT, 0, 0}};
    static const pl_app_object_decl o[] = {{"Animal", NULL, 0, 0, 0, 8, c, 2},
                                           {"Summary", NULL, 0, 0, PL_APP_NO_PARENT_OBJECT, 0, c, 1}};
    pl_app_decl d = {"Seed", o, 2, NULL, 0};
    pl_app_options opt = {.store_path = store};
    pl_app *a;
    pl_error e;
    if (pl_app_start(&d, &opt, &a, &e) != PL_OK) {
        fprintf(stderr, "%s\n", e.msg);
        return 1;
    }
    pl_app_instance m, k;
    pl_app_value v;
    pl_app_instance_create(a, 0, "Mother", PL_APP_NONE, &m, &e);
    pl_app_instance_create(a, 0, "Child", m, &k, &e);
    pl_app_counter(a, k, 0, &v, &e);
    pl_app_set(v, 1234);
    pl__seg_view *views;
    size_t n;
    if (pl__seg_find(tmp, &(uint32_t){(uint32_t)geteuid()}, 1, &views, &n, NULL) != PL_OK || n != 1) return 1;
    /* Only the part that holds data: header, tables and the first slots. */
    size_t len = views[0].lay.obj[1].slots_off + views[0].lay.obj[1].slot_size;
    uint8_t *img = malloc(len);
    memcpy(img, views[0].map, len);
    uint64_t size = len; /* the copy is the whole segment now */
    memcpy(img + SEG_SIZE, &size, 8);
    put(argv[1], "valid", img, len);
    img[SEG_NOBJECTS] = 65;
    put(argv[1], "too-many-objects", img, len);
    img[SEG_NOBJECTS] = 2;
    img[views[0].lay.obj[0].slots_off + SL_GEN] = 1;
    put(argv[1], "busy-slot", img, len);
    put(argv[1], "short", img, 300);
    pl__seg_views_free(views, n);
    pl_app_stop(a);
    unlink(store);
    rmdir(tmp);
    free(img);
    return 0;
}
