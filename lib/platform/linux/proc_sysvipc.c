/* perflib: the number of SysV IPC objects (/proc/sysvipc/sem, shm) of the
 * reader's IPC namespace: one line per object after a header. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collect_os.h"
#include "collect_sys.h"
#include "platform.h"

int pl__parse_sysvipc_count(const char *text, size_t len, uint64_t *n)
{
    if (!pl__text_complete(text, len)) return -EINVAL;
    const char *p = text;
    while (*p == ' ') p++;
    if (strncmp(p, "key", 3) != 0 || (p[3] != ' ' && p[3] != '\t')) return -EINVAL;
    pl__skip_line(&p);
    uint64_t count = 0;
    while (*p) {
        int64_t key;
        uint64_t id;
        if (!pl__parse_i64(&p, &key) || (*p != ' ' && *p != '\t') || !pl__parse_u64(&p, &id) ||
            (*p != ' ' && *p != '\t' && *p != '\n'))
            return -EINVAL;
        pl__skip_line(&p);
        count++;
    }
    *n = count;
    return 0;
}

int pl__read_sysvipc_count(int rootfd, enum pl__sysvipc_kind kind, uint64_t *n)
{
    char *text = NULL;
    ssize_t len = pl__slurp_at(rootfd, kind == PL__SYSVIPC_SEM ? "proc/sysvipc/sem" : "proc/sysvipc/shm", &text);
    if (len < 0) return (int)len;
    int rc = pl__parse_sysvipc_count(text, (size_t)len, n);
    free(text);
    return rc;
}
