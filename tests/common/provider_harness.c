/* See provider_harness.h. */
#include "provider_harness.h"

#include <dlfcn.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------ loading */

static void *sym(void *so, const char *prefix, const char *what)
{
    char name[128];
    snprintf(name, sizeof name, "%s%s", prefix, what);
    void *f = dlsym(so, name);
    if (!f) fail_msg("%s: not exported", name);
    return f;
}

void ph_load(ph_provider *p, const char *so_path, const char *prefix, const char *sysroot)
{
    if (sysroot) setenv("PERFLIB_SYSROOT", sysroot, 1);
    else unsetenv("PERFLIB_SYSROOT");
    memset(p, 0, sizeof *p);
    p->so = dlopen(so_path, RTLD_NOW | RTLD_LOCAL);
    if (!p->so) fail_msg("dlopen: %s", dlerror());
    p->open = (PM_OPEN_PROC *)sym(p->so, prefix, "Open");
    p->collect = (PM_COLLECT_PROC *)sym(p->so, prefix, "Collect");
    p->close = (PM_CLOSE_PROC *)sym(p->so, prefix, "Close");
}

void ph_unload(ph_provider *p)
{
    assert_int_equal(p->close(), ERROR_SUCCESS);
    ph_dlclose(p);
}

void ph_dlclose(ph_provider *p)
{
    if (p->so) dlclose(p->so);
    memset(p, 0, sizeof *p);
}

WCHAR *ph_w(const char *query)
{
    static WCHAR bufs[4][256];
    static unsigned next;
    WCHAR *w = bufs[next++ % 4];
    size_t i = 0;
    for (; query[i] && i < 255; i++) w[i] = (WCHAR)(unsigned char)query[i];
    w[i] = 0;
    return w;
}

/* --------------------------------------------------------- collecting */

#define GUARD 16
#define FILL 0xAB

DWORD ph_collect(ph_provider *p, const char *query, size_t cap, ph_result *r)
{
    memset(r, 0, sizeof *r);
    WCHAR *wq = query ? ph_w(query) : NULL;
    if (cap == 0) cap = 8;
    for (;;) {
        uint8_t *buf = malloc(cap + GUARD);
        assert_non_null(buf);
        memset(buf, FILL, cap + GUARD);
        LPVOID data = buf;
        DWORD bytes = (DWORD)cap, objects = 77;
        DWORD rc = p->collect(wq, &data, &bytes, &objects);
        if (rc == ERROR_MORE_DATA) {
            assert_ptr_equal(data, buf);
            assert_int_equal(bytes, 0);
            assert_int_equal(objects, 0);
            for (size_t i = 0; i < cap + GUARD; i++) assert_int_equal(buf[i], FILL);
            free(buf);
            cap *= 2;
            assert_true(cap < (1u << 28));
            continue;
        }
        if (rc != ERROR_SUCCESS) {
            free(buf);
            return rc;
        }
        assert_ptr_equal((uint8_t *)data, buf + bytes); /* advanced by exactly *bytes */
        assert_int_equal(bytes % 8, 0);
        assert_true(bytes <= cap);
        for (size_t i = bytes; i < cap + GUARD; i++) assert_int_equal(buf[i], FILL);
        r->buf = buf;
        r->bytes = bytes;
        r->objects = objects;
        break;
    }
    pl_error err;
    memset(&err, 0, sizeof err);
    if (pl_block_open(&r->blk, r->buf, r->bytes, PL_BLOCK_BARE, r->objects, &err) != PL_OK)
        fail_msg("reader rejected the block: %s", err.msg);
    return ERROR_SUCCESS;
}

void ph_collect_ok(ph_provider *p, const char *query, size_t cap, ph_result *r)
{
    DWORD rc = ph_collect(p, query, cap, r);
    if (rc != ERROR_SUCCESS) fail_msg("Collect(\"%s\") returned %u", query ? query : "(null)", (unsigned)rc);
}

void ph_result_free(ph_result *r)
{
    free(r->buf);
    r->buf = NULL;
}

void ph_expect_nothing(ph_provider *p, const char *query, DWORD code)
{
    _Alignas(8) uint8_t buf[64];
    LPVOID data = buf;
    DWORD bytes = sizeof buf, objects = 9;
    assert_int_equal(p->collect(query ? ph_w(query) : NULL, &data, &bytes, &objects), code);
    assert_int_equal(bytes, 0);
    assert_int_equal(objects, 0);
    assert_ptr_equal(data, buf);
}

/* ------------------------------------------------------------ finding */

void ph_object(const ph_result *r, uint32_t index, pl_object *o)
{
    if (pl_block_find_object(&r->blk, index, o) != PL_OK) fail_msg("object %u missing", index);
}

int ph_has_object(const ph_result *r, uint32_t index)
{
    pl_object o;
    return pl_block_find_object(&r->blk, index, &o) == PL_OK;
}

int32_t ph_instance(const pl_object *o, const char *name)
{
    uint32_t n = pl_object_num_instances(o);
    for (uint32_t i = 0; i < n; i++) {
        pl_instance in;
        char buf[256];
        assert_int_equal(pl_object_instance(o, (int32_t)i, &in), PL_OK);
        assert_int_equal(pl_instance_name(&in, buf, sizeof buf), PL_OK);
        if (strcmp(buf, name) == 0) return (int32_t)i;
    }
    fail_msg("no instance %s", name);
    return -1;
}

void ph_counter(const pl_object *o, uint32_t ctr_index, pl_counter *c)
{
    if (pl_object_find_counter(o, ctr_index, c) != PL_OK) fail_msg("counter %u missing", ctr_index);
}

uint32_t ph_type(const pl_object *o, uint32_t ctr_index)
{
    pl_counter c;
    ph_counter(o, ctr_index, &c);
    return c.def.CounterType;
}

uint32_t ph_position(const pl_object *o, uint32_t ctr_index)
{
    pl_counter c;
    ph_counter(o, ctr_index, &c);
    return c.position;
}

/* The counter and the instance a value is read from. */
static void locate(const pl_object *o, int32_t inst, uint32_t ctr_index, pl_counter *c, pl_instance *in)
{
    ph_counter(o, ctr_index, c);
    assert_int_equal(pl_object_instance(o, inst, in), PL_OK);
}

uint64_t ph_value(const pl_object *o, int32_t inst, uint32_t ctr_index)
{
    pl_counter c;
    pl_instance in;
    locate(o, inst, ctr_index, &c, &in);
    uint64_t v;
    assert_int_equal(pl_counter_value(&c, &in, &v), PL_OK);
    return v;
}

uint64_t ph_base(const pl_object *o, int32_t inst, uint32_t ctr_index)
{
    pl_counter c;
    pl_instance in;
    locate(o, inst, ctr_index, &c, &in);
    assert_true(c.has_base);
    uint64_t v;
    assert_int_equal(pl_counter_base(&c, &in, &v), PL_OK);
    return v;
}

int ph_available(const pl_object *o, int32_t inst, uint32_t ctr_index)
{
    pl_counter c;
    pl_instance in;
    locate(o, inst, ctr_index, &c, &in);
    return pl_counter_available(&c, &in);
}

uint64_t ph_value_of(const pl_object *o, const char *name, uint32_t ctr_index)
{
    return ph_value(o, ph_instance(o, name), ctr_index);
}

uint64_t ph_base_of(const pl_object *o, const char *name, uint32_t ctr_index)
{
    return ph_base(o, ph_instance(o, name), ctr_index);
}

int ph_available_of(const pl_object *o, const char *name, uint32_t ctr_index)
{
    return ph_available(o, ph_instance(o, name), ctr_index);
}

void ph_names_are(const pl_object *o, const char *const *want, size_t n, int full)
{
    assert_int_equal(pl_object_num_instances(o), n);
    if (full) {
        char **names = NULL;
        assert_int_equal(pl_object_instance_names(o, &names), PL_OK);
        for (size_t i = 0; i < n; i++) assert_string_equal(names[i], want[i]);
        pl_free(names);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        pl_instance in;
        char buf[256];
        assert_int_equal(pl_object_instance(o, (int32_t)i, &in), PL_OK);
        assert_int_equal(pl_instance_name(&in, buf, sizeof buf), PL_OK);
        assert_string_equal(buf, want[i]);
    }
}

/* ------------------------------------------------------ canned trees */

void ph_tempdir(char *template_)
{
    if (!mkdtemp(template_)) fail_msg("mkdtemp %s: %s", template_, strerror(errno));
}

/* mkdir -p of root/rel up to (not including) `upto` characters of rel. */
static void make_parents(const char *root, const char *rel, size_t upto)
{
    char p[1024];
    size_t rl = strlen(root);
    if (rl + 1 + upto >= sizeof p) fail_msg("path too long: %s/%s", root, rel);
    memcpy(p, root, rl);
    p[rl] = '/';
    for (size_t i = 0; i <= upto; i++) {
        if (i == upto || rel[i] == '/') {
            p[rl + 1 + i] = '\0';
            if (i > 0 && mkdir(p, 0700) != 0 && errno != EEXIST) fail_msg("mkdir %s: %s", p, strerror(errno));
        }
        if (i < upto) p[rl + 1 + i] = rel[i];
    }
}

void ph_mkdir(const char *root, const char *rel)
{
    make_parents(root, rel, strlen(rel));
}

void ph_put(const char *root, const char *rel, const char *text)
{
    const char *slash = strrchr(rel, '/');
    if (slash) make_parents(root, rel, (size_t)(slash - rel));
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    FILE *f = fopen(p, "w");
    if (!f) fail_msg("fopen %s: %s", p, strerror(errno));
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path) == 0 ? 0 : -1;
}

void ph_rmtree(const char *root)
{
    if (nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS) != 0) fail_msg("removing %s: %s", root, strerror(errno));
}
