/* libFuzzer target for perfd's config-file parser (tools/perfd/config.c):
 * the input is a config file; whatever it sets, the safety check must then
 * run without crashing, and a parsed listen address must be a real one. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static perfd_config c;
    perfd_config_defaults(&c);
    char why[512];
    if (perfd_config_text((const char *)data, size, "fuzz.conf", &c, why, sizeof why) == 0) {
        if (c.n_listen > PERFD_MAX_LISTEN) abort();
        for (size_t i = 0; i < c.n_listen; i++)
            if (c.listen[i].port > 65535 || !c.listen[i].host[0]) abort();
        (void)perfd_config_check(&c, why, sizeof why);
    } else if (!why[0]) {
        abort(); /* a refusal always says why */
    }
    return 0;
}
