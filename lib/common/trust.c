/* perflib: files root may trust (pl_internal.h, pl__path_trusted). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pl_internal.h"

/* Who may change this inode other than root: 0 none, else a description. */
static const char *others_may_write(const struct stat *sb, int is_ancestor)
{
    if (sb->st_uid != 0) return "owned by another user";
    if (S_ISDIR(sb->st_mode) && is_ancestor && (sb->st_mode & S_ISVTX)) return NULL; /* /tmp: sticky */
    if (sb->st_mode & S_IWOTH) return "writable by every user";
    if (sb->st_mode & S_IWGRP) return "writable by its group";
    return NULL;
}

int pl__path_trusted(const char *path, const char *what, pl_error *err)
{
    if (geteuid() != 0) return PL_OK;
    char real[PATH_MAX];
    if (!realpath(path, real)) {
        /* Not there yet (a store about to be created): its directory. */
        char dir[PATH_MAX];
        if (snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir)
            return pl__fail(err, PL_E_IO, "%s: path too long", path);
        char *slash = strrchr(dir, '/');
        if (!slash) snprintf(dir, sizeof dir, ".");
        else if (slash == dir) dir[1] = '\0';
        else *slash = '\0';
        if (!realpath(dir, real)) return PL_OK; /* nothing there: whoever creates it decides its modes */
    }
    int ancestor = 0;
    for (;;) {
        struct stat sb;
        if (lstat(real, &sb) != 0) {
            char eb[128];
            return pl__fail(err, PL_E_UNSAFE, "%s: cannot check %s: %s", path, real, pl__strerror(errno, eb, sizeof eb));
        }
        const char *why = others_may_write(&sb, ancestor);
        if (why)
            return pl__fail(err, PL_E_UNSAFE,
                            "refusing %s %s as root: %s%s is %s (mode %04o, owner %lu); make it root's alone "
                            "(chown root, chmod go-w)",
                            what, path, ancestor ? "its directory " : "", real, why, (unsigned)(sb.st_mode & 07777),
                            (unsigned long)sb.st_uid);
        if (strcmp(real, "/") == 0) return PL_OK;
        char *slash = strrchr(real, '/');
        if (slash == real) real[1] = '\0';
        else *slash = '\0';
        ancestor = 1;
    }
}
