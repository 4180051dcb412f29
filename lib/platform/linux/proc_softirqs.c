/* perflib: /proc/softirqs, reduced to the softirqs (Windows: DPCs) raised on
 * each CPU. One column per possible CPU. */
#include <errno.h>
#include <stdlib.h>

#include "collect_os.h"
#include "platform.h"

int pl__read_proc_softirqs(int rootfd, struct pl__percpu_sums *out)
{
    char *buf = NULL;
    ssize_t n = pl__slurp_at(rootfd, "proc/softirqs", &buf);
    if (n < 0) return (int)n;
    int rc = pl__text_complete(buf, (size_t)n) ? pl__parse_percpu_table(buf, 0, out) : -EINVAL;
    free(buf);
    return rc;
}
