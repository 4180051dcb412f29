/* Helpers shared by the lodctr tests. */
#include "lc_util.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *lc_tmpdir(void)
{
    const char *t = getenv("TMPDIR");
    if (!t || !*t) t = "/tmp";
    size_t n = strlen(t) + 32;
    char *d = malloc(n);
    if (!d) return NULL;
    snprintf(d, n, "%s/pl_lodctr_XXXXXX", t);
    if (!mkdtemp(d)) {
        free(d);
        return NULL;
    }
    return d;
}

void lc_rmdir(char *dir)
{
    if (!dir) return;
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            char *p = lc_path(dir, e->d_name);
            if (p) unlink(p);
            free(p);
        }
        closedir(d);
    }
    rmdir(dir);
    free(dir);
}

char *lc_path(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s/%s", dir, name);
    return p;
}

char *lc_write(const char *dir, const char *name, const void *data, size_t len)
{
    char *p = lc_path(dir, name);
    FILE *f = p ? fopen(p, "wb") : NULL;
    if (!f) {
        free(p);
        return NULL;
    }
    if (len) fwrite(data, 1, len, f);
    fclose(f);
    return p;
}

char *lc_write_str(const char *dir, const char *name, const char *text)
{
    return lc_write(dir, name, text, strlen(text));
}

unsigned char *lc_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    unsigned char *b = malloc(cap + 1);
    for (;;) {
        if (n == cap) {
            cap *= 2;
            unsigned char *nb = realloc(b, cap + 1);
            if (!nb) break;
            b = nb;
        }
        size_t r = fread(b + n, 1, cap - n, f);
        if (r == 0) break;
        n += r;
    }
    fclose(f);
    b[n] = 0;
    if (len) *len = n;
    return b;
}

pl_store *lc_store(const char *dir)
{
    char *p = lc_path(dir, "store.db");
    pl_store *st = NULL;
    pl_error err;
    if (pl_store_open(p, 0, &st, &err) != PL_OK) {
        fprintf(stderr, "store open failed: %s\n", err.msg);
        st = NULL;
    }
    free(p);
    return st;
}

static void add(char **buf, size_t *n, size_t *cap, const char *s)
{
    size_t l = strlen(s);
    if (*n + l + 1 > *cap) {
        while (*n + l + 1 > *cap) *cap = *cap ? *cap * 2 : 4096;
        *buf = realloc(*buf, *cap);
    }
    memcpy(*buf + *n, s, l + 1);
    *n += l;
}

char *lc_dump(pl_store *st)
{
    pl_error err;
    pl_backup *bk = NULL;
    if (pl_store_snapshot(st, &bk, &err) != PL_OK) {
        fprintf(stderr, "snapshot: %s\n", err.msg);
        return NULL;
    }
    char *buf = NULL;
    size_t n = 0, cap = 0;
    char line[1024];
    snprintf(line, sizeof line, "perflib base=%u lc=%u lh=%u\n", bk->base_index, bk->last_counter, bk->last_help);
    add(&buf, &n, &cap, line);
    for (size_t i = 0; i < bk->nlangs; i++) {
        const pl_backup_lang *L = &bk->langs[i];
        for (size_t j = 0; j < L->nnames; j++) {
            snprintf(line, sizeof line, "%s N %u=", L->lang, L->names[j].index);
            add(&buf, &n, &cap, line);
            add(&buf, &n, &cap, L->names[j].text);
            add(&buf, &n, &cap, "\n");
        }
        for (size_t j = 0; j < L->nhelps; j++) {
            snprintf(line, sizeof line, "%s H %u=", L->lang, L->helps[j].index);
            add(&buf, &n, &cap, line);
            add(&buf, &n, &cap, L->helps[j].text);
            add(&buf, &n, &cap, "\n");
        }
    }
    for (size_t i = 0; i < bk->nproviders; i++) {
        const pl_backup_provider *p = &bk->providers[i];
        snprintf(line, sizeof line, "range %s %u %u %u %u\n", p->name, p->first_counter, p->last_counter,
                 p->first_help, p->last_help);
        add(&buf, &n, &cap, line);
    }
    pl_backup_free(bk);
    pl_provider_info *list = NULL;
    size_t np = 0;
    if (pl_store_providers(st, &list, &np, &err) != PL_OK) {
        free(buf);
        return NULL;
    }
    for (size_t i = 0; i < np; i++) {
        const pl_provider_info *p = &list[i];
        snprintf(line, sizeof line, "provider %s lib=%s open=%s collect=%s close=%s obj=%s fc=%u lc=%u fh=%u lh=%u dis=%d\n",
                 p->name, p->library ? p->library : "-", p->open ? p->open : "-", p->collect ? p->collect : "-",
                 p->close ? p->close : "-", p->object_list ? p->object_list : "-", p->first_counter,
                 p->last_counter, p->first_help, p->last_help, p->disabled);
        add(&buf, &n, &cap, line);
    }
    pl_provider_list_free(list, np);
    return buf;
}

const pl_install_text *lc_text(const pl_lodctr_set *set, uint32_t offset, const char *lang)
{
    for (size_t i = 0; i < set->ntexts; i++)
        if (set->texts[i].offset == offset && !strcmp(set->texts[i].lang, lang)) return &set->texts[i];
    return NULL;
}

char *lc_title(pl_store *st, const char *lang, int kind, uint32_t index)
{
    pl_titles *t = NULL;
    pl_error err;
    if (pl_titles_load(st, lang, &t, &err) != PL_OK) return NULL;
    const char *s = pl_titles_get(t, kind, index);
    char *r = s ? strdup(s) : NULL;
    pl_titles_free(t);
    return r;
}

int lc_has_warning(const pl_lodctr_set *set, const char *needle)
{
    for (size_t i = 0; i < set->nwarnings; i++)
        if (strstr(set->warnings[i], needle)) return 1;
    return 0;
}
