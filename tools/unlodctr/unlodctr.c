/* unlodctr: remove a provider's counter names and help texts from every
 * language of the title database (docs/lodctr.md). Built only on the public
 * API. */
#include <stdio.h>
#include <string.h>

#include "perflib/lodctr.h"
#include "perflib/registry.h"

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: unlodctr [--registry PATH] NAME\n"
            "Remove the counter names and help texts that lodctr installed for provider NAME.\n"
            "\n"
            "  --registry PATH   use this registry store (default: $PERFLIB_REGISTRY, then\n"
            "                    the installed or built-in store)\n"
            "  --help            show this help\n"
            "\n"
            "Exit codes: 0 success, 1 bad usage, 2 input refused, 3 registry store error,\n"
            "4 provider not found or nothing installed.\n");
}

static int exit_for(int status)
{
    switch (status) {
    case PL_OK: return 0;
    case PL_E_PARSE:
    case PL_E_INVAL:
    case PL_E_ENCODING:
    case PL_E_RANGE:
    case PL_E_IO: return 2;
    case PL_E_NOT_FOUND: return 4;
    case PL_E_EXISTS: return 5;
    default: return 3;
    }
}

int main(int argc, char **argv)
{
    const char *registry = NULL, *name = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h") || !strcmp(a, "/?") || !strcmp(a, "-?")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(a, "--version")) {
            printf("unlodctr (perflib) %s\n", pl_version());
            return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
        }
        if (!strncmp(a, "--registry", 10) && (a[10] == '=' || a[10] == '\0')) {
            if (a[10] == '=') registry = a + 11;
            else if (i + 1 < argc) registry = argv[++i];
            if (!registry || !*registry) {
                fprintf(stderr, "unlodctr: --registry needs a value\nTry 'unlodctr --help'.\n");
                return 1;
            }
            continue;
        }
        if (a[0] == '-' && a[1] == '-') {
            fprintf(stderr, "unlodctr: unknown option '%s'\nTry 'unlodctr --help'.\n", a);
            return 1;
        }
        if (name) {
            fprintf(stderr, "unlodctr: only one provider name, got '%s' and '%s'\nTry 'unlodctr --help'.\n", name, a);
            return 1;
        }
        name = a;
    }
    if (!name) {
        usage(stderr);
        return 1;
    }
    pl_store *st;
    pl_error err;
    int rc = pl_store_open(registry, 0, &st, &err);
    if (rc == PL_OK) {
        rc = pl_lodctr_uninstall(st, name, &err);
        pl_store_close(st);
    }
    if (rc != PL_OK) {
        fprintf(stderr, "unlodctr: %s\n", err.msg[0] ? err.msg : pl_strerror(rc));
        return exit_for(rc);
    }
    printf("Removed the counter names and help texts of %s.\n", name);
    return 0;
}
