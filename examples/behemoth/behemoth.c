/* behemoth: the seed article's Behemoth service, publishing its counters
 * with perflib/app.h (docs/app-counters.md, examples/behemoth/README.md).
 *
 * Behemoths live, breed and die here. Each is an instance of the object
 * "Behemoth", named after the animal, with its mother as parent instance,
 * and the counters Sex, Age, X, Y, Weight, Volume and Birthday; the object
 * "Behemoths Summary" has Count and Total Weight. The service starts with a
 * family in which some behemoths already have mothers, runs in the
 * foreground until SIGTERM or SIGINT, and answers the manager
 * (behemoth-manager) on a Unix socket.
 *
 *   behemoth [--store PATH] [--socket PATH] [--tick MS] [--seed N] [--quiet]
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "behemoth.h"
#include "perflib/app.h"

enum { C_SEX, C_AGE, C_X, C_Y, C_WEIGHT, C_VOLUME, C_BIRTHDAY, NCTR };

static const pl_app_counter_decl BEHEMOTH_COUNTERS[NCTR] = {
    {"Sex", "0 for a female behemoth, 1 for a male.", PERF_COUNTER_RAWCOUNT, PERF_DETAIL_NOVICE, 0},
    {"Age", "Age in days.", PERF_COUNTER_RAWCOUNT, PERF_DETAIL_NOVICE, 0},
    {"X", "Position east of the river mouth, in metres.", PERF_COUNTER_RAWCOUNT, PERF_DETAIL_NOVICE, 0},
    {"Y", "Position north of the river mouth, in metres.", PERF_COUNTER_RAWCOUNT, PERF_DETAIL_NOVICE, 0},
    {"Weight", "Weight in kilograms.", PERF_COUNTER_LARGE_RAWCOUNT, PERF_DETAIL_NOVICE, 0},
    {"Volume", "Volume in litres.", PERF_COUNTER_LARGE_RAWCOUNT, PERF_DETAIL_ADVANCED, 0},
    {"Birthday", "Day of birth, in seconds since 1970-01-01 UTC.", PERF_COUNTER_LARGE_RAWCOUNT,
     PERF_DETAIL_EXPERT, 0},
};
static const pl_app_counter_decl SUMMARY_COUNTERS[2] = {
    {"Count", "Behemoths alive.", PERF_COUNTER_RAWCOUNT, PERF_DETAIL_NOVICE, 0},
    {"Total Weight", "Weight of all behemoths together, in kilograms.", PERF_COUNTER_LARGE_RAWCOUNT,
     PERF_DETAIL_NOVICE, 0},
};
static const pl_app_object_decl OBJECTS[2] = {
    {"Behemoth", "One behemoth of the herd; its parent instance is its mother.", PERF_DETAIL_NOVICE, 0, 0,
     BEHEMOTH_MAX, BEHEMOTH_COUNTERS, NCTR},
    {"Behemoths Summary", "The whole herd.", PERF_DETAIL_NOVICE, 0, PL_APP_NO_PARENT_OBJECT, 0, SUMMARY_COUNTERS, 2},
};
static const pl_app_translation RU[] = {
    {"019", 0, -1, "Бегемот", "Один бегемот стада; родительский экземпляр — его мама."},
    {"019", 1, -1, "Бегемоты, итого", "Всё стадо."},
};
static const pl_app_decl DECL = {"Behemoth", OBJECTS, 2, RU, 2};

typedef struct animal {
    int alive;
    char name[48];
    int mother;               /* index or -1 */
    unsigned sex, age, x, y;
    uint64_t weight, volume, birthday;
    pl_app_instance inst;
    pl_app_value v[NCTR];
} animal;

static animal herd[BEHEMOTH_MAX];
static size_t nherd;
static pl_app *app;
static pl_app_value count_v, total_v;
static volatile sig_atomic_t stop;
static unsigned long long rng = 88172645463325252ull;
static unsigned births;
static int quiet;

static unsigned rnd(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}

static void on_signal(int sig) { (void)sig; stop = 1; }

static void publish(animal *a)
{
    pl_app_set(a->v[C_SEX], a->sex);
    pl_app_set(a->v[C_AGE], a->age);
    pl_app_set(a->v[C_X], a->x);
    pl_app_set(a->v[C_Y], a->y);
    pl_app_set(a->v[C_WEIGHT], a->weight);
    pl_app_set(a->v[C_VOLUME], a->volume);
    pl_app_set(a->v[C_BIRTHDAY], a->birthday);
}

static void summary(void)
{
    uint64_t n = 0, w = 0;
    for (size_t i = 0; i < nherd; i++)
        if (herd[i].alive) {
            n++;
            w += herd[i].weight;
        }
    pl_app_set(count_v, n);
    pl_app_set(total_v, w);
}

static int find(const char *name)
{
    for (size_t i = 0; i < nherd; i++)
        if (herd[i].alive && strcmp(herd[i].name, name) == 0) return (int)i;
    return -1;
}

/* A new behemoth; returns its index or -1 (with why). */
static int born(const char *name, int mother, unsigned sex, unsigned age, char *why, size_t whylen)
{
    if (find(name) >= 0) {
        snprintf(why, whylen, "a behemoth named %s already lives here", name);
        return -1;
    }
    size_t i = 0;
    while (i < nherd && herd[i].alive) i++;
    if (i == BEHEMOTH_MAX) {
        snprintf(why, whylen, "the river is full");
        return -1;
    }
    animal *a = &herd[i];
    memset(a, 0, sizeof *a);
    snprintf(a->name, sizeof a->name, "%s", name);
    a->mother = mother;
    a->sex = sex;
    a->age = age;
    a->x = mother >= 0 ? herd[mother].x : 100 + rnd(800);
    a->y = mother >= 0 ? herd[mother].y : 100 + rnd(800);
    a->weight = age > 3650 ? 1300 + rnd(1700) : 40 + age / 3;
    a->volume = a->weight * 98 / 100;
    a->birthday = (uint64_t)time(NULL) - (uint64_t)age * 86400u;
    pl_error e;
    pl_app_instance parent = mother >= 0 ? herd[mother].inst : PL_APP_NONE;
    if (pl_app_instance_create(app, 0, a->name, parent, &a->inst, &e) != PL_OK) {
        snprintf(why, whylen, "%.150s", e.msg);
        return -1;
    }
    for (uint32_t c = 0; c < NCTR; c++) pl_app_counter(app, a->inst, c, &a->v[c], &e);
    a->alive = 1;
    if (i == nherd) nherd++;
    publish(a);
    summary();
    return (int)i;
}

static void dies(int i)
{
    pl_error e;
    pl_app_instance_delete(app, herd[i].inst, &e);
    herd[i].alive = 0;
    for (size_t k = 0; k < nherd; k++)
        if (herd[k].mother == i) herd[k].mother = -1;
    summary();
}

static const char *const NAMES[] = {"Bubu", "Dora", "Fifi", "Gosha", "Kuzya", "Masha", "Nyusha", "Tyoma", "Zina"};

static void tick(void)
{
    for (size_t i = 0; i < nherd; i++) {
        animal *a = &herd[i];
        if (!a->alive) continue;
        a->age++;
        a->x = a->x + rnd(3) - 1;
        a->y = a->y + rnd(3) - 1;
        if (a->age < 3650) a->weight += rnd(3);
        else a->weight = a->weight + rnd(5) - 2;
        a->volume = a->weight * 98 / 100;
        publish(a);
    }
    /* Old age. */
    for (size_t i = 0; i < nherd; i++)
        if (herd[i].alive && herd[i].age > BEHEMOTH_LIFESPAN_DAYS) dies((int)i);
    /* A grown-up female with a grown-up male in the herd may calve. */
    int male = 0;
    for (size_t i = 0; i < nherd; i++) male |= herd[i].alive && herd[i].sex == 1 && herd[i].age > 2000;
    for (size_t i = 0; i < nherd && male; i++) {
        if (!herd[i].alive || herd[i].sex != 0 || herd[i].age < 2000 || rnd(BEHEMOTH_CALVING_ODDS)) continue;
        char name[48], why[200];
        snprintf(name, sizeof name, "%s-%u", NAMES[rnd(sizeof NAMES / sizeof NAMES[0])], ++births);
        born(name, (int)i, rnd(2), 0, why, sizeof why);
    }
    summary();
}

/* The manager's requests: one line in, the answer out, then close. */
static void answer(int fd)
{
    char line[256];
    size_t n = 0;
    struct pollfd pf = {fd, POLLIN, 0};
    while (n < sizeof line - 1 && poll(&pf, 1, 1000) == 1) {
        ssize_t r = read(fd, line + n, sizeof line - 1 - n);
        if (r <= 0) break;
        n += (size_t)r;
        if (memchr(line, '\n', n)) break;
    }
    line[n] = '\0';
    line[strcspn(line, "\r\n")] = '\0';
    char out[BEHEMOTH_MAX * 128 + 64];
    size_t w = 0;
    char cmd[16] = "", a1[48] = "", a2[48] = "";
    int k = sscanf(line, "%15s %47s %47s", cmd, a1, a2);
    char why[200] = "";
    if (k >= 1 && strcmp(cmd, "list") == 0) {
        for (size_t i = 0; i < nherd; i++) {
            const animal *a = &herd[i];
            if (!a->alive) continue;
            w += (size_t)snprintf(out + w, sizeof out - w, "%s %s %u %u %u %llu %llu %llu %s\n", a->name,
                                  a->sex ? "male" : "female", a->age, a->x, a->y, (unsigned long long)a->weight,
                                  (unsigned long long)a->volume, (unsigned long long)a->birthday,
                                  a->mother >= 0 ? herd[a->mother].name : "-");
        }
        w += (size_t)snprintf(out + w, sizeof out - w, "ok\n");
    } else if (k >= 2 && strcmp(cmd, "birth") == 0) {
        int m = k == 3 ? find(a2) : -1;
        if (k == 3 && m < 0) snprintf(why, sizeof why, "no mother named %s", a2);
        else if (m >= 0 && herd[m].sex != 0) snprintf(why, sizeof why, "%s is not a female", a2);
        else if (born(a1, m, rnd(2), 0, why, sizeof why) >= 0) why[0] = '\0';
        w = (size_t)snprintf(out, sizeof out, why[0] ? "error %s\n" : "ok\n", why);
    } else if (k == 2 && strcmp(cmd, "kill") == 0) {
        int i = find(a1);
        if (i >= 0) dies(i);
        w = (size_t)snprintf(out, sizeof out, i >= 0 ? "ok\n" : "error no behemoth named %s\n", a1);
    } else if (k == 3 && strcmp(cmd, "feed") == 0) {
        int i = find(a1);
        char *end;
        unsigned long kg = strtoul(a2, &end, 10);
        if (i < 0 || *end || kg > 1000) {
            w = (size_t)snprintf(out, sizeof out, "error feed NAME KG (0..1000)\n");
        } else {
            herd[i].weight += kg;
            herd[i].volume = herd[i].weight * 98 / 100;
            publish(&herd[i]);
            summary();
            w = (size_t)snprintf(out, sizeof out, "ok\n");
        }
    } else {
        w = (size_t)snprintf(out, sizeof out, "error commands: list | birth NAME [MOTHER] | kill NAME | feed NAME KG\n");
    }
    if (w > sizeof out) w = sizeof out - 1;
    for (size_t off = 0; off < w;) {
        ssize_t r = send(fd, out + off, w - off, MSG_NOSIGNAL);
        if (r <= 0) break;
        off += (size_t)r;
    }
}

int main(int argc, char **argv)
{
    const char *store = NULL, *sock = NULL;
    int tick_ms = 500;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--store") && i + 1 < argc) store = argv[++i];
        else if (!strcmp(argv[i], "--socket") && i + 1 < argc) sock = argv[++i];
        else if (!strcmp(argv[i], "--tick") && i + 1 < argc) tick_ms = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc) rng = strtoull(argv[++i], NULL, 10) | 1u;
        else if (!strcmp(argv[i], "--quiet")) quiet = 1;
        else {
            fprintf(stderr, "usage: behemoth [--store PATH] [--socket PATH] [--tick MS] [--seed N] [--quiet]\n");
            return 2;
        }
    }
    if (tick_ms < 10) tick_ms = 10;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    pl_error e;
    pl_app_options opt = {.store_path = store};
    if (pl_app_start(&DECL, &opt, &app, &e) != PL_OK) {
        fprintf(stderr, "behemoth: cannot publish counters: %s\n", e.msg);
        return 1;
    }
    pl_app_counter(app, PL_APP_SINGLE(1), 0, &count_v, &e);
    pl_app_counter(app, PL_APP_SINGLE(1), 1, &total_v, &e);

    /* The family the service starts with: some already have mothers. */
    static const struct {
        const char *name, *mother;
        unsigned sex, age;
    } family[] = {
        {"Gloria", NULL, 0, 12000}, {"Moto", NULL, 1, 11000},    {"Marta", NULL, 0, 9000},
        {"Hugo", "Gloria", 1, 3000}, {"Lulu", "Gloria", 0, 2500}, {"Pip", "Marta", 1, 400},
    };
    char why[200];
    for (size_t i = 0; i < sizeof family / sizeof family[0]; i++)
        if (born(family[i].name, family[i].mother ? find(family[i].mother) : -1, family[i].sex, family[i].age, why,
                 sizeof why) < 0)
            fprintf(stderr, "behemoth: %s: %s\n", family[i].name, why);

    int ls = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un sun;
    memset(&sun, 0, sizeof sun);
    sun.sun_family = AF_UNIX;
    socklen_t slen;
    behemoth_socket_address(sock, &sun, &slen);
    if (sock) unlink(sock);
    if (ls < 0 || bind(ls, (struct sockaddr *)&sun, slen) != 0 || listen(ls, 8) != 0) {
        fprintf(stderr, "behemoth: manager socket: %s (the manager will not reach this service)\n", strerror(errno));
        if (ls >= 0) close(ls);
        ls = -1;
    }
    pl_app_indices ind = pl_app_get_indices(app);
    if (!quiet)
        printf("behemoth: %zu behemoths in the river (pid %d, title indices %u-%u%s); SIGTERM stops\n", nherd,
               (int)getpid(), ind.first_counter, ind.last_counter, ind.reused ? ", kept from an earlier run" : "");
    fflush(stdout);

    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    while (!stop) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        long long left = (next.tv_sec - now.tv_sec) * 1000LL + (next.tv_nsec - now.tv_nsec) / 1000000;
        if (left <= 0) {
            tick();
            next.tv_nsec += (long)tick_ms * 1000000L;
            next.tv_sec += next.tv_nsec / 1000000000L;
            next.tv_nsec %= 1000000000L;
            continue;
        }
        struct pollfd pf = {ls, POLLIN, 0};
        int r = poll(&pf, ls >= 0 ? 1 : 0, (int)left);
        if (r == 1 && (pf.revents & POLLIN)) {
            int c = accept4(ls, NULL, NULL, SOCK_CLOEXEC);
            if (c >= 0) {
                answer(c);
                close(c);
            }
        }
    }
    if (ls >= 0) close(ls);
    if (sock) unlink(sock);
    pl_app_stop(app);
    if (!quiet) printf("behemoth: stopped\n");
    return 0;
}
