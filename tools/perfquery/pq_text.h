/* perfquery: text helpers (JSON string escaping, UTF-16LE decoding, time
 * formatting). Private to the tool; tests/perfquery links them directly. */
#ifndef PQ_TEXT_H
#define PQ_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Write `s` (UTF-8, NUL-terminated) to f as a JSON string literal with the
 * quotes. '"' and '\\' are escaped, control characters become \b \f \n \r \t
 * or \u00XX, U+2028/U+2029 become \u2028/\u2029 (safe inside JavaScript), and
 * every byte that is not part of a well-formed UTF-8 sequence (overlong
 * forms, surrogates, values above U+10FFFF, truncated sequences) becomes
 * \ufffd. NULL is written as null. */
void pq_json_string(FILE *f, const char *s);

/* Write `s` for a human: control characters as \n, \t, \r or \xNN, anything
 * else unchanged. NULL is written as "(null)". */
void pq_plain_string(FILE *f, const char *s);

/* Decode `n` UTF-16LE code units (any alignment) into a newly allocated
 * NUL-terminated UTF-8 string; stops at a NUL unit; unpaired surrogates become
 * U+FFFD. Returns NULL when out of memory. Free with free(). */
char *pq_utf16le_to_utf8(const uint8_t *p, size_t n);

/* A FILETIME (100 ns ticks since 1601-01-01 UTC) as calendar fields. */
typedef struct pq_civil {
    unsigned year, month, day, hour, minute, second, millis;
} pq_civil;
void pq_filetime_to_civil(uint64_t ft, pq_civil *out);

#endif
