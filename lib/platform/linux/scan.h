/* This file is private to libperflib: no API/ABI guarantee.
 *
 * Inline helpers for the hot /proc parsers (issue 17: a Global object's
 * provider must cost little more than reading its files): a number scanner
 * with exactly pl__parse_u64's rules, and a small set of wanted keys looked
 * up by length and first and last byte instead of strlen + memcmp over
 * every key for every line. */
#ifndef PL_LINUX_SCAN_H
#define PL_LINUX_SCAN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* pl__parse_u64 (read.c), inline: skips spaces and tabs, parses an unsigned
 * decimal, advances *p past it and returns 1; returns 0 (leaving *p) when
 * there is no digit or the number is beyond 64 bits. */
static inline int pl__scan_u64(const char **p, uint64_t *v)
{
    const char *s = *p;
    while (*s == ' ' || *s == '\t') s++;
    unsigned d = (unsigned)(unsigned char)*s - '0';
    if (d > 9) return 0;
    uint64_t x = 0;
    do {
        /* x * 10 + d beyond 64 bits: not a number we can show */
        if (x >= UINT64_MAX / 10 && (x > UINT64_MAX / 10 || d > UINT64_MAX % 10)) return 0;
        x = x * 10 + d;
        d = (unsigned)(unsigned char)*++s - '0';
    } while (d <= 9);
    *v = x;
    *p = s;
    return 1;
}

/* Skip whole 8-byte words of p that hold no byte <= ' ' (no control byte,
 * blank, newline or NUL), reading only below end; the caller goes on byte
 * by byte from the result. (A word has such a byte exactly when
 * (x - 0x21..21) & ~x & 0x80..80 is not zero.) */
static inline const char *pl__skip_words_above_space(const char *p, const char *end)
{
    while (end - p >= 8) {
        uint64_t x;
        memcpy(&x, p, 8);
        if ((x - 0x2121212121212121ull) & ~x & 0x8080808080808080ull) break;
        p += 8;
    }
    return p;
}

/* A wanted key: its text and length (PL__KEY("MemTotal")). */
struct pl__key {
    const char *s;
    unsigned char len;
};
#define PL__KEY(lit) {(lit), (unsigned char)(sizeof(lit) - 1)}

/* At most 64 keys, in 64 buckets by length, first and last byte: a line's
 * key is compared (length, then bytes) only with the keys of its bucket,
 * which is empty for most lines of a file. Built on the stack for each
 * parse (a few dozen instructions), so there is no shared state. */
struct pl__keyset {
    uint64_t bucket[64];          /* bit k: key k is in this bucket */
    const struct pl__key *k;
};

static inline unsigned pl__key_bucket(const char *s, size_t len)
{
    return ((unsigned)len + (unsigned)(unsigned char)s[0] * 5u + (unsigned)(unsigned char)s[len - 1] * 3u) & 63u;
}

/* keys[0..n) with n <= 64, each at least one byte long. */
static inline void pl__keyset_init(struct pl__keyset *ks, const struct pl__key *keys, unsigned n)
{
    memset(ks->bucket, 0, sizeof ks->bucket);
    ks->k = keys;
    for (unsigned i = 0; i < n && i < 64; i++)
        ks->bucket[pl__key_bucket(keys[i].s, keys[i].len)] |= (uint64_t)1 << i;
}

/* The index of the key s[0..len), or -1 when it is not one of the set. */
static inline int pl__keyset_find(const struct pl__keyset *ks, const char *s, size_t len)
{
    if (len == 0) return -1;
    uint64_t m = ks->bucket[pl__key_bucket(s, len)];
    while (m) {
        int i = __builtin_ctzll(m);
        m &= m - 1;
        if (ks->k[i].len == len && memcmp(ks->k[i].s, s, len) == 0) return i;
    }
    return -1;
}

#endif
