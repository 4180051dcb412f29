/* libperflib_wmain.a: the C runtime's part of a Windows UNICODE program.
 * Windows starts a program whose entry point is wmain (_tmain under
 * _UNICODE) with its arguments as UTF-16; Linux starts main. Linking
 * -lperflib_wmain (before -lperflib) supplies that main: it converts the
 * arguments (UTF-8, invalid bytes as U+FFFD) and calls wmain
 * (docs/win32.md, "tchar.h"). Not part of libperflib, which never defines
 * main. */
#include <stdint.h>
#include <stdlib.h>

#include "win32/winbase.h"

int wmain(int argc, WCHAR **argv);
int main(int argc, char **argv);

int main(int argc, char **argv)
{
    WCHAR **wargv = calloc((size_t)argc + 1, sizeof *wargv);
    if (!wargv) return 1;
    for (int i = 0; i < argc; i++) {
        int n = MultiByteToWideChar(CP_UTF8, 0, argv[i], -1, NULL, 0);
        wargv[i] = calloc(n > 0 ? (size_t)n : 1, sizeof(WCHAR));
        if (!wargv[i]) return 1;
        if (n > 0) MultiByteToWideChar(CP_UTF8, 0, argv[i], -1, wargv[i], n);
    }
    int rc = wmain(argc, wargv);
    for (int i = 0; i < argc; i++) free(wargv[i]);
    free(wargv);
    return rc;
}
