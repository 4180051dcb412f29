/* Built against an INSTALLED perflib, outside the source tree (README.md):
 *   cc hello.c $(pkg-config --cflags --libs perflib)
 * Prints the machine's name and how many objects a Global snapshot holds. */
#include <stdio.h>
#include <stdlib.h>

#include <perflib/block.h>
#include <perflib/query.h>

int main(void)
{
    pl_engine *e = NULL;
    pl_error err = {0};
    void *buf = NULL;
    size_t len = 0;
    pl_block b;
    if (pl_engine_open(NULL, &e, &err) != PL_OK || pl_engine_query_alloc(e, "Global", &buf, &len, NULL, &err) != PL_OK ||
        pl_block_open(&b, buf, len, 0, 0, &err) != PL_OK) {
        fprintf(stderr, "hello: %s\n", err.msg);
        return 1;
    }
    printf("%s: %u objects in %zu bytes\n", b.system_name, b.num_objects, len);
    pl_free(buf);
    pl_engine_close(e);
    return fflush(stdout) == 0 ? 0 : 1;
}
