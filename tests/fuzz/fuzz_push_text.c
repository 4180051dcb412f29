/* libFuzzer target for perfd's remote_write parsers (tools/perfd/
 * push_text.c): the first byte picks the parser, the rest is the input.
 *   even: a /metrics text exposition read back into series (pw_parse):
 *         an accepted one has every series' labels sorted by name without
 *         repeats, __name__ among them, each inside the batch's text;
 *   1 mod 4: remote_write_url (pw_check_url): an accepted URL starts with
 *         http:// or https://; a refusal names the setting;
 *   3 mod 4: a remote_write_interval_ms value (pw_parse_uint): an accepted
 *         number is in range; a refusal names the setting. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "push_text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    unsigned sel = data[0];
    const char *in = (const char *)data + 1;
    size_t n = size - 1;
    char why[300];
    if (sel % 2 == 0) {
        pw_batch *b = NULL;
        if (pw_parse(in, n, 1, &b, why, sizeof why) == 0) {
            for (size_t i = 0; i < b->nseries; i++) {
                const pw_series *s = &b->series[i];
                if (s->first + s->n > b->nlabels || s->n == 0) abort();
                int has_name = 0;
                for (size_t k = 0; k < s->n; k++) {
                    const pw_label *l = &b->labels[s->first + k];
                    if (strcmp(l->name, "__name__") == 0) has_name++;
                    if (k && strcmp(b->labels[s->first + k - 1].name, l->name) >= 0) abort();
                    (void)strlen(l->value);
                }
                if (has_name != 1) abort();
            }
            pw_batch_free(b);
        } else if (b || !why[0]) {
            abort();
        }
        return 0;
    }
    char *v = malloc(n + 1);
    if (!v) return 0;
    memcpy(v, in, n);
    v[n] = 0;
    if (sel % 4 == 1) {
        if (pw_check_url(v, why, sizeof why) == 0) {
            if (strncasecmp(v, "http://", 7) != 0 && strncasecmp(v, "https://", 8) != 0) abort();
        } else if (!strstr(why, "remote_write_url")) {
            abort();
        }
    } else {
        unsigned long x = 0;
        if (pw_parse_uint("remote_write_interval_ms", v, PW_INTERVAL_MIN_MS, PW_INTERVAL_MAX_MS, &x, why, sizeof why) ==
            0) {
            if (x < PW_INTERVAL_MIN_MS || x > PW_INTERVAL_MAX_MS) abort();
        } else if (!strstr(why, "remote_write_interval_ms")) {
            abort();
        }
    }
    free(v);
    return 0;
}
