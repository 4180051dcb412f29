/* perflib: /proc/swaps.
 *   Filename                Type       Size     Used  Priority
 *   /dev/sda2               partition  8388604  1024  -2
 * The kernel escapes space, tab, newline and backslash in the path as \ooo. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collect_os.h"
#include "platform.h"

void pl__swaps_free(struct pl__swaps *s)
{
    if (!s) return;
    free(s->a);
    memset(s, 0, sizeof *s);
}

static int is_octal(char c)
{
    return c >= '0' && c <= '7';
}

/* Copy the whitespace-delimited word at *p into out (cap bytes, truncated at
 * a UTF-8 character boundary), decoding \ooo escapes if `unescape`. Returns
 * the decoded length or -EINVAL for an empty word. */
static int take_word(const char **p, char *out, size_t cap, int unescape)
{
    const char *s = *p;
    while (*s == ' ' || *s == '\t') s++;
    size_t n = 0;
    int truncated = 0;
    const char *start = s;
    while (*s && *s != ' ' && *s != '\t' && *s != '\n') {
        char c = *s;
        if (unescape && c == '\\' && is_octal(s[1]) && is_octal(s[2]) && is_octal(s[3])) {
            unsigned v = (unsigned)(s[1] - '0') * 64 + (unsigned)(s[2] - '0') * 8 + (unsigned)(s[3] - '0');
            if (v > 255 || v == 0) return -EINVAL;
            c = (char)v;
            s += 4;
        } else {
            s++;
        }
        if (n + 1 < cap) out[n++] = c;
        else truncated = 1;
    }
    if (s == start) return -EINVAL;
    if (truncated) /* do not leave half a UTF-8 sequence at the end */
        while (n > 0 && ((unsigned char)out[n - 1] & 0xC0) == 0x80) n--;
    if (truncated && n > 0 && ((unsigned char)out[n - 1] & 0xC0) == 0xC0) n--;
    out[n] = '\0';
    *p = s;
    return (int)n;
}

int pl__parse_proc_swaps(const char *text, struct pl__swaps *out)
{
    out->n = 0;
    const char *s = text;
    if (strncmp(s, "Filename", 8) != 0) return -EINVAL;
    pl__skip_line(&s);
    while (*s) {
        if (out->n == out->cap) {
            uint32_t nc = out->cap ? out->cap * 2 : 4;
            if (nc > 4096) return -EINVAL; /* the kernel allows fewer than 32 */
            struct pl__swap_area *na = realloc(out->a, (size_t)nc * sizeof *na);
            if (!na) return -ENOMEM;
            out->a = na;
            out->cap = nc;
        }
        struct pl__swap_area *a = &out->a[out->n];
        const char *r = s;
        if (take_word(&r, a->name, sizeof a->name, 1) < 0) return -EINVAL;
        if (take_word(&r, a->type, sizeof a->type, 0) < 0) return -EINVAL;
        if (!pl__parse_u64(&r, &a->size_kib)) return -EINVAL;
        if (!pl__parse_u64(&r, &a->used_kib)) return -EINVAL;
        if (!pl__parse_i64(&r, &a->priority)) return -EINVAL;
        while (*r == ' ' || *r == '\t') r++;
        if (*r != '\n' && *r != '\0') return -EINVAL;
        out->n++;
        pl__skip_line(&s);
    }
    return 0;
}

int pl__read_proc_swaps(int rootfd, struct pl__swaps *out)
{
    char *buf = NULL;
    ssize_t n = pl__slurp_at(rootfd, "proc/swaps", &buf);
    if (n < 0) return (int)n;
    int rc = pl__text_complete(buf, (size_t)n) ? pl__parse_proc_swaps(buf, out) : -EINVAL;
    free(buf);
    return rc;
}
