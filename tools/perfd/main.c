/* perfd: serves this machine's performance data over HTTP (docs/perfd.md).
 *
 * Runs in the foreground; logs to stderr (journald under systemd). Signals
 * are taken by the main thread only (sigwait): SIGHUP reloads certificates
 * and tokens, SIGTERM and SIGINT stop it cleanly. */
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "daemon.h"
#include "push.h"
#include "stream.h"
#include "tls.h"

#define EXIT_USAGE 1
#define EXIT_CONFIG 2
#define EXIT_RUNTIME 3

static void usage(FILE *f)
{
    fprintf(f,
            "usage: perfd [options]\n"
            "Serves this machine's performance data over HTTP (see docs/perfd.md).\n"
            "  --listen ADDR[:PORT]   listen here (repeatable; [ADDR]:PORT for IPv6);\n"
            "                         default 127.0.0.1:%d and [::1]:%d\n"
            "  --config FILE          read settings from FILE (command-line options win)\n"
            "  --check-config         check the settings and the files they name, then exit\n"
            "  --registry FILE        the registry store (default: PERFLIB_REGISTRY, else the built-in)\n"
            "  --system-name NAME     the computer name in the blocks (default: the host name)\n"
            "  --tls-cert FILE        PEM certificate chain (turns on HTTPS; needs --tls-key)\n"
            "  --tls-key FILE         PEM private key\n"
            "  --tls-client-ca FILE   require client certificates signed by these CAs\n"
            "  --token-file FILE      require \"Authorization: Bearer TOKEN\", tokens one a line\n"
            "  --set KEY=VALUE        any config-file key (limits: docs/perfd.md)\n"
            "  --help                 this text\n"
            "Listening on an address other than loopback needs TLS and authentication.\n",
            PERFD_DEFAULT_PORT, PERFD_DEFAULT_PORT);
}

static const struct {
    const char *opt, *key;
} opt_keys[] = {
    {"--registry", "registry"},   {"--system-name", "system_name"}, {"--tls-cert", "tls_cert"},
    {"--tls-key", "tls_key"},     {"--tls-client-ca", "tls_client_ca"}, {"--token-file", "token_file"},
    {"--listen", "listen"},
};

/* Apply the command line (over the file). Returns 0 or an exit code. */
static int apply_args(int argc, char **argv, perfd_config *c, int *check_only)
{
    int listen_seen = 0;
    char why[512];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            exit(0);
        }
        if (strcmp(a, "--version") == 0) {
            printf("perfd (perflib) %s\n", pl_version());
            exit(fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1);
        }
        if (strcmp(a, "--check-config") == 0) {
            *check_only = 1;
            continue;
        }
        if (strcmp(a, "--config") == 0) { /* read before, in main */
            i++;
            continue;
        }
        const char *key = NULL;
        for (size_t k = 0; k < sizeof opt_keys / sizeof opt_keys[0]; k++)
            if (strcmp(a, opt_keys[k].opt) == 0) key = opt_keys[k].key;
        if (!key && strcmp(a, "--set") != 0) {
            fprintf(stderr, "perfd: unknown option %s (see perfd --help)\n", a);
            return EXIT_USAGE;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "perfd: %s needs a value\n", a);
            return EXIT_USAGE;
        }
        const char *val = argv[++i];
        char kbuf[128];
        if (!key) { /* --set KEY=VALUE */
            const char *eq = strchr(val, '=');
            if (!eq || (size_t)(eq - val) >= sizeof kbuf) {
                fprintf(stderr, "perfd: --set needs KEY=VALUE\n");
                return EXIT_USAGE;
            }
            memcpy(kbuf, val, (size_t)(eq - val));
            kbuf[eq - val] = 0;
            key = kbuf;
            val = eq + 1;
        }
        if (strcmp(key, "listen") == 0 && !listen_seen) {
            c->n_listen = 0; /* the command line's addresses replace the file's */
            listen_seen = 1;
        }
        if (perfd_config_set(c, key, val, why, sizeof why) != 0) {
            fprintf(stderr, "perfd: %s %s: %s\n", a, argv[i], why);
            return EXIT_CONFIG;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    perfd_config *cfg = calloc(1, sizeof *cfg);
    if (!cfg) return EXIT_RUNTIME;
    perfd_config_defaults(cfg);
    char why[1024];
    const char *config_file = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--config") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "perfd: --config needs a file\n");
                return EXIT_USAGE;
            }
            config_file = argv[++i];
        }
    }
    if (config_file && perfd_config_file(config_file, cfg, why, sizeof why) != 0) {
        fprintf(stderr, "perfd: %s\n", why);
        return EXIT_CONFIG;
    }
    int check_only = 0;
    int rc = apply_args(argc, argv, cfg, &check_only);
    if (rc) return rc;
    int default_listen = cfg->n_listen == 0;
    if (default_listen) {
        perfd_parse_listen("127.0.0.1", &cfg->listen[0], why, sizeof why);
        perfd_parse_listen("[::1]", &cfg->listen[1], why, sizeof why);
        cfg->n_listen = 2;
    }
    if (perfd_config_check(cfg, why, sizeof why) != 0) {
        fprintf(stderr, "perfd: %s\n", why);
        return EXIT_CONFIG;
    }
    if (perfd_tls_load(cfg, why, sizeof why) != 0) {
        fprintf(stderr, "perfd: %s\n", why);
        return EXIT_CONFIG;
    }
    int n_machines = 0;
    if (perfd_machines_load(cfg, &n_machines, why, sizeof why) != 0) {
        fprintf(stderr, "perfd: %s\n", why);
        perfd_tls_free();
        return EXIT_CONFIG;
    }
    if (check_only) {
        printf("perfd: configuration OK (%zu listen address%s, TLS %s, tokens %s, client certificates %s, "
               "remote machines %d)\n",
               cfg->n_listen, cfg->n_listen == 1 ? "" : "es", cfg->tls_cert[0] ? "on" : "off",
               cfg->token_file[0] ? "on" : "off", cfg->tls_client_ca[0] ? "required" : "off", n_machines);
        perfd_tls_free();
        perfd_machines_free();
        free(cfg);
        return 0;
    }

    /* Descriptors: every connection is one, and evicted ones are counted by
     * libmicrohttpd until it closes them; the remote pool, provider helpers
     * and the store need a few more. Take up to the hard limit. */
    struct rlimit rl;
    rlim_t want = 2 * (rlim_t)cfg->max_connections + 256;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < want) {
        rl.rlim_cur = rl.rlim_max < want ? rl.rlim_max : want;
        setrlimit(RLIMIT_NOFILE, &rl);
        if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < want)
            perfd_log("warning: %llu file descriptors allowed (LimitNOFILE), %llu wanted for max_connections %u",
                      (unsigned long long)rl.rlim_cur, (unsigned long long)want, cfg->max_connections);
    }

    /* Memory: snapshots and renderings are large, short-lived buffers.
     * A fixed mmap threshold (glibc otherwise raises it after each large
     * free, up to 32 MiB) hands every buffer above 256 KiB back to the
     * kernel when its last reference goes, and two arenas stop the
     * collector and server threads from each keeping a heap of their own. */
    mallopt(M_MMAP_THRESHOLD, 256 * 1024);
    mallopt(M_ARENA_MAX, 2);

    /* Signals go to this thread only: block them before any thread starts. */
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    signal(SIGPIPE, SIG_IGN);

    pl_engine_config ec;
    memset(&ec, 0, sizeof ec);
    ec.store_path = cfg->registry[0] ? cfg->registry : NULL;
    ec.system_name = cfg->system_name[0] ? cfg->system_name : NULL;
    ec.log_to_syslog = 1;
    pl_engine *engine = NULL;
    pl_error err;
    memset(&err, 0, sizeof err);
    if (pl_engine_open(&ec, &engine, &err) != PL_OK) {
        fprintf(stderr, "perfd: cannot open the engine: %s\n", err.msg[0] ? err.msg : pl_strerror(err.status));
        perfd_tls_free();
        free(cfg);
        return EXIT_RUNTIME;
    }
    if (perfd_machines_client(engine, cfg, why, sizeof why) != 0) {
        fprintf(stderr, "perfd: %s\n", why);
        pl_engine_close(engine);
        return EXIT_RUNTIME;
    }
    if (n_machines) perfd_log("remote machines: %d listed in %s", n_machines, cfg->remote_config);
    if (perfd_snap_start(engine, cfg) != 0) {
        fprintf(stderr, "perfd: cannot start the collector thread\n");
        pl_engine_close(engine);
        return EXIT_RUNTIME;
    }
    if (perfd_server_start(cfg, why, sizeof why) != 0) {
        /* The default IPv6 loopback may be missing (IPv6 off): go on
         * with IPv4 alone, saying so. */
        if (default_listen) {
            perfd_log("%s; trying 127.0.0.1 alone", why);
            cfg->n_listen = 1;
            rc = perfd_server_start(cfg, why, sizeof why);
        } else {
            rc = -1;
        }
        if (rc != 0) {
            fprintf(stderr, "perfd: %s\n", why);
            perfd_snap_stop();
            pl_engine_close(engine);
            perfd_tls_free();
            free(cfg);
            return EXIT_RUNTIME;
        }
    }
    if (perfd_push_start(why, sizeof why) != 0) {
        fprintf(stderr, "perfd: %s\n", why);
        perfd_server_stop();
        perfd_snap_stop();
        pl_engine_close(engine);
        perfd_tls_free();
        free(cfg);
        return EXIT_RUNTIME;
    }
    perfd_log("ready");

    for (;;) {
        int sig = 0;
        if (sigwait(&sigs, &sig) != 0) continue;
        if (sig == SIGHUP) {
            if (perfd_tls_load(cfg, why, sizeof why) == 0)
                perfd_log("SIGHUP: certificates and tokens reloaded");
            else
                perfd_log("SIGHUP: reload failed, keeping the previous ones: %s", why);
            if (perfd_machines_load(cfg, &n_machines, why, sizeof why) == 0)
                perfd_log("SIGHUP: remote machines reloaded (%d)", n_machines);
            else
                perfd_log("SIGHUP: remote machines not reloaded, keeping the previous list: %s", why);
            int pr = perfd_push_reload(why, sizeof why);
            if (pr > 0)
                perfd_log("SIGHUP: remote_write token reloaded");
            else if (pr < 0)
                perfd_log("SIGHUP: remote_write token not reloaded, keeping the previous one: %s", why);
            continue;
        }
        perfd_log("%s: stopping", sig == SIGTERM ? "SIGTERM" : "SIGINT");
        break;
    }
    perfd_push_stop();     /* remote_write ends (what is queued is not sent) */
    perfd_machines_interrupt(); /* remote fetches in progress end */
    perfd_streams_stop();  /* the page's streams end; their threads are joined */
    perfd_snap_stop();     /* no more collections; waiting requests answer 503 */
    perfd_work_stop();     /* the answers being rendered are finished */
    perfd_server_stop();   /* closes every connection */
    pl_engine_close(engine);
    perfd_tls_free();
    perfd_machines_free();
    free(cfg);
    perfd_log("stopped");
    return 0;
}
