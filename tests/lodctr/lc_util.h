/* Helpers shared by the lodctr tests: temp directories, files, store dumps. */
#ifndef LC_UTIL_H
#define LC_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "perflib/lodctr.h"
#include "perflib/registry.h"

#define LC_REAL PL_SHARED_DIR "/realworld/lodctr/"
#define LC_BACKUPS PL_SHARED_DIR "/realworld/title-backups/"

/* A fresh directory under $TMPDIR (or /tmp); removed by lc_rmdir(). */
char *lc_tmpdir(void);
void lc_rmdir(char *dir);
/* dir + "/" + name, malloc'd. */
char *lc_path(const char *dir, const char *name);
/* Write bytes to dir/name; returns the malloc'd path. */
char *lc_write(const char *dir, const char *name, const void *data, size_t len);
char *lc_write_str(const char *dir, const char *name, const char *text);
/* Read a whole file (malloc'd, NUL added); NULL on error. */
unsigned char *lc_slurp(const char *path, size_t *len);
/* Open a new store in dir ("store.db"). */
pl_store *lc_store(const char *dir);
/* A text dump of the whole store: title database (snapshot written in the
 * backup format) plus every provider record. malloc'd. */
char *lc_dump(pl_store *st);
/* The texts[] entry of a set at (offset, lang), or NULL. */
const pl_install_text *lc_text(const pl_lodctr_set *set, uint32_t offset, const char *lang);
/* Name/help of a title index in a language, via pl_titles (malloc'd copy or NULL). */
char *lc_title(pl_store *st, const char *lang, int kind, uint32_t index);
/* 1 when some warning contains `needle`. */
int lc_has_warning(const pl_lodctr_set *set, const char *needle);

#endif
