/* Windows-style code built against an INSTALLED perflib with its Windows
 * names (README.md):
 *   cc hello_win32.c $(pkg-config --cflags --libs perflib-win32)
 * The KB Q107728 way: RegQueryValueEx(HKEY_PERFORMANCE_DATA, "Global") with
 * a growing buffer, then the PERF_DATA_BLOCK's object count. */
#include <stdio.h>
#include <stdlib.h>
#include <windows.h>
#include <winperf.h>

int main(void)
{
    DWORD size = 65536, type = 0;
    BYTE *buf = NULL;
    LONG rc;
    do {
        size *= 2;
        BYTE *n = (BYTE *)realloc(buf, size);
        if (!n) return 1;
        buf = n;
        DWORD got = size;
        rc = RegQueryValueExA(HKEY_PERFORMANCE_DATA, "Global", NULL, &type, buf, &got);
    } while (rc == ERROR_MORE_DATA && size < (64u << 20));
    RegCloseKey(HKEY_PERFORMANCE_DATA);
    if (rc != ERROR_SUCCESS) {
        fprintf(stderr, "hello_win32: RegQueryValueEx failed with %ld\n", (long)rc);
        return 1;
    }
    PERF_DATA_BLOCK *pdb = (PERF_DATA_BLOCK *)buf;
    printf("%u objects, %u bytes\n", (unsigned)pdb->NumObjectTypes, (unsigned)pdb->TotalByteLength);
    free(buf);
    return 0;
}
