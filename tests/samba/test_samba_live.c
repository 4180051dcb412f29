/* Windows' remote protocol, served by the real Samba, carrying this
 * machine's counters (docs/samba.md): every case starts a real smbd
 * (Debian's samba 4.17) in a network namespace of its own (127.0.0.1:445
 * there) and a PID namespace that dies with the test, with a temporary
 * smb.conf, state, private, lock and cache directories and Samba users it
 * makes (pdbedit, in the temporary private directory); runs
 * perflib-samba; and reads through Samba's own winreg client bindings
 * (hkpd_query.py: python3-samba's samba.dcerpc.winreg, OpenHKPD then
 * QueryValue). What comes back is parsed with perflib's reader and
 * compared with local snapshots taken around the bridge's own.
 *
 * Without samba, python3-samba, iproute2 or root, every case FAILS, saying
 * what is missing: it is never skipped. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <unistd.h>

#include "perflib/indices.h"
#include "perflib/query.h"
#include "perflib/registry.h"
#include "pl_internal.h" /* pl__utf8_to_utf16 */
#include "pl_test.h"
#include "samba_model.h"
#include "samba_util.h"

#define SMBD "/usr/sbin/smbd"
#define PDBEDIT "/usr/bin/pdbedit"
#define PYTHON "/usr/bin/python3" /* Debian's, which python3-samba belongs to */
#define NETBIOS "PLSAMBATEST"
#define READER "nobody"           /* an existing account: the test adds no Unix user */
#define OTHER "daemon"
#define PERFLIB_KEY "HKLM:SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Perflib"
#define MAXQ 128

typedef struct answer {
    int ok;
    uint32_t type;
    size_t len;
    uint8_t *data;
    char err[256];
} answer;

typedef struct env {
    char root[64], conf[128], state[160], perfmon[192], names[224], data[224];
    char pw[128], badpw[128], otherpw[128], answers[128], bout[128], berr[128];
    pid_t samba, bridge;
    pl_engine *eng;
    pl_titles *titles;
} env;

/* ------------------------------------------------------------- set-up */

static void need(const char *path, const char *what)
{
    if (access(path, X_OK) != 0)
        fail_msg("%s is missing: this test needs %s (apt-get install %s; scripts/deps.sh test installs it). "
                 "It fails rather than skip.",
                 path, what, what);
}

static void write_file(const char *path, const char *text, mode_t mode)
{
    FILE *f = fopen(path, "w");
    if (!f) fail_msg("cannot write %s: %s", path, strerror(errno));
    fputs(text, f);
    fclose(f);
    chmod(path, mode);
}

static void subdir(env *e, char *out, size_t cap, const char *name)
{
    snprintf(out, cap, "%s/%s", e->root, name);
    if (mkdir(out, 0755) != 0) fail_msg("mkdir %s: %s", out, strerror(errno));
}

/* The smb.conf of docs/samba.md, "Set-up", with every directory in the
 * temporary root and only loopback. */
static void write_conf(env *e)
{
    char d[8][160];
    const char *names[8] = {"private", "lock", "state", "cache", "pid", "ncalrpc", "log", "ipc"};
    for (int k = 0; k < 8; k++) subdir(e, d[k], sizeof d[k], names[k]);
    snprintf(e->state, sizeof e->state, "%s", d[2]);
    char conf[4096];
    snprintf(conf, sizeof conf,
             "[global]\n"
             "  netbios name = " NETBIOS "\n"
             "  workgroup = PERFLIB\n"
             "  server role = standalone server\n"
             "  passdb backend = tdbsam:%s/passdb.tdb\n"
             "  private dir = %s\n"
             "  lock directory = %s\n"
             "  state directory = %s\n"
             "  cache directory = %s\n"
             "  pid directory = %s\n"
             "  ncalrpc dir = %s\n"
             "  binddns dir = %s\n"
             "  log file = %s/log.%%m\n"
             "  log level = 1\n"
             "  interfaces = lo\n"
             "  bind interfaces only = yes\n"
             "  disable netbios = yes\n"
             "  load printers = no\n"
             "  printcap name = /dev/null\n"
             "  disable spoolss = yes\n"
             "  restrict anonymous = 2\n"
             "\n"
             "[IPC$]\n"
             "  path = %s\n"
             "  valid users = " READER "\n",
             d[0], d[0], d[1], d[2], d[3], d[4], d[5], d[0], d[6], d[7]);
    snprintf(e->conf, sizeof e->conf, "%s/smb.conf", e->root);
    write_file(e->conf, conf, 0644);
}

static void add_user(env *e, const char *user, const char *pw)
{
    char in[192], out[192], text[128];
    snprintf(in, sizeof in, "%s/pdbedit.in", e->root);
    snprintf(out, sizeof out, "%s/pdbedit.out", e->root);
    snprintf(text, sizeof text, "%s\n%s\n", pw, pw);
    write_file(in, text, 0600);
    char *argv[] = {PDBEDIT, "-s", e->conf, "-a", "-u", (char *)user, "-t", NULL};
    int rc = run_cmd(argv, in, out, out, 30);
    unlink(in);
    if (rc != 0) {
        char *s = pq_read_file(out, NULL);
        fail_msg("pdbedit -a -u %s: exit %d: %s", user, rc, s ? s : "");
    }
}

/* smbd in a PID namespace whose init is a child of the test: killing that
 * child (or the test dying) ends every Samba process, samba-dcerpcd and
 * rpcd_winreg included. */
static pid_t start_smbd(env *e)
{
    char out[192];
    snprintf(out, sizeof out, "%s/smbd.out", e->root);
    pid_t a = fork();
    if (a != 0) return a;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (unshare(CLONE_NEWPID) != 0) _exit(120);
    pid_t init = fork();
    if (init == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        pid_t s = fork();
        if (s == 0) {
            int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (fd >= 0) {
                dup2(fd, 1);
                dup2(fd, 2);
                close(fd);
            }
            execl(SMBD, SMBD, "--foreground", "--no-process-group", "--debug-stdout", "-s", e->conf, (char *)NULL);
            _exit(127);
        }
        for (;;) {
            int st;
            pid_t r = wait(&st);
            if (r == s) _exit(WIFEXITED(st) ? WEXITSTATUS(st) : 1);
            if (r < 0) _exit(1);
        }
    }
    int st;
    waitpid(init, &st, 0);
    _exit(0);
}

static int port_open(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return 0;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int ok = connect(fd, (struct sockaddr *)&a, sizeof a) == 0;
    close(fd);
    return ok;
}

static int setup(void **state)
{
    env *e = calloc(1, sizeof *e);
    *state = e;
    if (!e) return -1;
    if (geteuid() != 0) fail_msg("this test runs as root (network and PID namespaces, smbd): CI runs the suite as root");
    need(SMBD, "samba");
    need(PDBEDIT, "samba");
    need(PYTHON, "python3-samba");
    char check[64];
    snprintf(check, sizeof check, "/tmp/pl-samba-import-%d", (int)getpid());
    char *imp[] = {PYTHON, "-c", "import samba.dcerpc.winreg", NULL};
    if (run_cmd(imp, NULL, NULL, check, 30) != 0) {
        char *s = pq_read_file(check, NULL);
        unlink(check);
        fail_msg("python3 cannot import samba.dcerpc.winreg (apt-get install python3-samba): %s", s ? s : "");
    }
    unlink(check);
    if (unshare(CLONE_NEWNET) != 0) fail_msg("unshare(CLONE_NEWNET): %s", strerror(errno));
    if (system("PATH=\"$PATH:/usr/sbin:/sbin\"; ip link set lo up") != 0)
        fail_msg("ip link set lo up failed in the new network namespace (iproute2 missing?)");
    snprintf(e->root, sizeof e->root, "/tmp/pl-samba-live-XXXXXX");
    if (!mkdtemp(e->root)) fail_msg("mkdtemp: %s", strerror(errno));
    chmod(e->root, 0755);
    write_conf(e);
    snprintf(e->perfmon, sizeof e->perfmon, "%s/perfmon", e->state);
    snprintf(e->names, sizeof e->names, "%s/names.tdb", e->perfmon);
    snprintf(e->data, sizeof e->data, "%s/data.tdb", e->perfmon);
    snprintf(e->pw, sizeof e->pw, "%s/pw", e->root);
    snprintf(e->badpw, sizeof e->badpw, "%s/badpw", e->root);
    snprintf(e->otherpw, sizeof e->otherpw, "%s/otherpw", e->root);
    snprintf(e->bout, sizeof e->bout, "%s/bridge.out", e->root);
    snprintf(e->berr, sizeof e->berr, "%s/bridge.err", e->root);
    subdir(e, e->answers, sizeof e->answers, "answers");
    write_file(e->pw, "Perflib-Samba-1\n", 0600);
    write_file(e->badpw, "not-the-password\n", 0600);
    write_file(e->otherpw, "Perflib-Samba-2\n", 0600);
    add_user(e, READER, "Perflib-Samba-1");
    add_user(e, OTHER, "Perflib-Samba-2");
    e->samba = start_smbd(e);
    for (int i = 0; i < 200 && !port_open(445); i++) sleep_ms(50);
    if (!port_open(445)) {
        char p[192];
        snprintf(p, sizeof p, "%s/smbd.out", e->root);
        char *s = pq_read_file(p, NULL);
        fail_msg("smbd did not listen on 127.0.0.1:445 within 10 s: %s", s ? s : "");
    }
    pl_error err;
    if (pl_engine_open(&(pl_engine_config){0}, &e->eng, &err) != PL_OK) fail_msg("engine: %s", err.msg);
    if (pl_titles_load(pl_engine_store(e->eng), "009", &e->titles, &err) != PL_OK) fail_msg("titles: %s", err.msg);
    return 0;
}

static int teardown(void **state)
{
    env *e = *state;
    if (!e) return 0;
    if (e->bridge > 0) {
        /* ended as an operator would (SIGTERM): SIGKILL inside a Collect
         * counts against PerfProc in the build tree's store that every
         * later test reads, and two in a row disabled it
         * (docs/provider-host.md, "The consumer's own end") */
        kill(e->bridge, SIGCONT);
        kill(e->bridge, SIGTERM);
        if (wait_exit(e->bridge, 15000) == -1) {
            kill(e->bridge, SIGKILL);
            waitpid(e->bridge, NULL, 0);
        }
    }
    if (e->samba > 0) {
        kill(e->samba, SIGKILL);
        waitpid(e->samba, NULL, 0);
    }
    pl_titles_free(e->titles);
    pl_engine_close(e->eng);
    if (e->root[0] && getenv("PL_SAMBA_KEEP")) {
        fprintf(stderr, "PL_SAMBA_KEEP: %s kept (smbd.out, log/)\n", e->root);
    } else if (e->root[0]) {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", e->root);
        if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", e->root);
    }
    free(e);
    return 0;
}

/* ------------------------------------------------------------- helpers */

static void bridge_once(env *e)
{
    char *argv[] = {PERFLIB_SAMBA_BIN, "--state-dir", e->state, "--once", NULL};
    int rc = run_cmd(argv, NULL, e->bout, e->berr, 60);
    if (rc != 0) {
        char *s = pq_read_file(e->berr, NULL);
        fail_msg("perflib-samba --once: exit %d: %s", rc, s ? s : "");
    }
}

/* The snapshot the files hold: names.tdb's stamp, which changes last (its
 * rename ends a swap). */
static char *stamp(env *e) { return tdb_value(e->names, SB_STAMP_KEY); }

static void bridge_start(env *e, const char *interval)
{
    char *before = stamp(e);
    char *argv[] = {PERFLIB_SAMBA_BIN, "--state-dir", e->state, "--interval", (char *)interval, NULL};
    e->bridge = spawn_cmd(argv, e->bout, e->berr);
    for (int i = 0; i < 500; i++) {
        char *s = stamp(e);
        int fresh = s && strcmp(s, "withdrawn") != 0 && (!before || strcmp(s, before) != 0);
        free(s);
        if (fresh) {
            free(before);
            return;
        }
        sleep_ms(20);
    }
    fail_msg("the bridge wrote nothing within 10 s");
}

static void bridge_stop(env *e)
{
    kill(e->bridge, SIGCONT);
    assert_int_equal(kill(e->bridge, SIGTERM), 0);
    int rc = wait_exit(e->bridge, 15000);
    e->bridge = 0;
    if (rc != 0) fail_msg("the bridge exited %d on SIGTERM", rc);
}

static void free_answers(answer *a, int n)
{
    for (int i = 0; i < n; i++) free(a[i].data);
}

/* Send queries through Samba's client; *refused gets the CONNECT line when
 * the login or the pipe was refused. Returns the number of answers. */
static int hkpd_as(env *e, const char *user, const char *pwfile, int repeat, const char *const *q, int nq, answer *a,
                   char *refused, size_t rcap)
{
    char *argv[16 + MAXQ];
    int n = 0;
    argv[n++] = PYTHON;
    argv[n++] = PL_SOURCE_DIR "/tests/samba/hkpd_query.py";
    argv[n++] = "--conf";
    argv[n++] = e->conf;
    argv[n++] = "--out";
    argv[n++] = e->answers;
    char rep[16];
    snprintf(rep, sizeof rep, "%d", repeat);
    argv[n++] = "--repeat";
    argv[n++] = rep;
    if (user) {
        argv[n++] = "--user";
        argv[n++] = (char *)user;
        argv[n++] = "--password-file";
        argv[n++] = (char *)pwfile;
    } else {
        argv[n++] = "--anonymous";
    }
    for (int i = 0; i < nq && n < 15 + MAXQ; i++) argv[n++] = (char *)q[i];
    argv[n] = NULL;
    char out[192], err[192];
    snprintf(out, sizeof out, "%s/client.out", e->root);
    snprintf(err, sizeof err, "%s/client.err", e->root);
    int rc = run_cmd(argv, NULL, out, err, 120);
    char *text = pq_read_file(out, NULL);
    if (refused) refused[0] = '\0';
    if (rc == 3 && refused && text) {
        snprintf(refused, rcap, "%s", text);
        free(text);
        return 0;
    }
    if (rc != 0) {
        char *es = pq_read_file(err, NULL);
        fail_msg("hkpd_query.py exit %d: %s %s", rc, text ? text : "", es ? es : "");
    }
    int got = 0;
    memset(a, 0, sizeof *a * (size_t)(nq * repeat));
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = '\0';
        int k;
        char st[8];
        unsigned t;
        size_t sz, len;
        if (sscanf(line, "%d %7s", &k, st) != 2 || k < 0 || k >= nq * repeat) continue;
        answer *x = &a[k];
        if (strcmp(st, "OK") == 0 && sscanf(line, "%d %7s %u %zu %zu", &k, st, &t, &sz, &len) == 5) {
            char p[192];
            snprintf(p, sizeof p, "%s/%d.bin", e->answers, k);
            x->ok = 1;
            x->type = t;
            x->data = (uint8_t *)pq_read_file(p, &x->len);
            if (!x->data || x->len != len) fail_msg("answer %d: %zu bytes in the file, %zu announced", k, x->len, len);
        } else {
            const char *m = strchr(line + 2, ' ');
            snprintf(x->err, sizeof x->err, "%s", m ? m + 1 : line);
        }
        got++;
    }
    free(text);
    return got;
}

static int hkpd(env *e, const char *const *q, int nq, answer *a)
{
    return hkpd_as(e, READER, e->pw, 1, q, nq, a, NULL, 0);
}

/* Samba's answer as perflib's reader sees it: the objects as they are
 * (bare), the header checked against the one known deviation. */
typedef struct served {
    const uint8_t *buf;
    size_t len;
    uint32_t hl, nobj;
    pl_block objs;
    PERF_DATA_BLOCK hdr;
} served;

static void open_served(const answer *a, served *s)
{
    if (!a->ok) fail_msg("no answer: %s", a->err);
    assert_int_equal(a->type, 3); /* REG_BINARY */
    if (a->len < 88) fail_msg("Samba answered %zu bytes", a->len);
    s->buf = a->data;
    s->len = a->len;
    memcpy(&s->hdr, a->data, sizeof s->hdr);
    s->hl = s->hdr.HeaderLength;
    s->nobj = s->hdr.NumObjectTypes;
    assert_memory_equal(a->data, "P\0E\0R\0F\0", 8);
    /* Samba 4.17: TotalByteLength leaves out the header */
    assert_int_equal(s->hdr.TotalByteLength, a->len - s->hl);
    pl_error err;
    if (pl_block_open(&s->objs, a->data + s->hl, a->len - s->hl, PL_BLOCK_BARE, s->nobj, &err) != PL_OK)
        fail_msg("Samba's objects fail perflib's reader: %s", err.msg);
    /* with TotalByteLength counting the header, the whole block passes */
    uint8_t *fixed = malloc(a->len);
    memcpy(fixed, a->data, a->len);
    uint32_t t = (uint32_t)a->len;
    memcpy(fixed + 20, &t, 4);
    pl_block whole;
    if (pl_block_open(&whole, fixed, a->len, 0, 0, &err) != PL_OK) fail_msg("Samba's block fails perflib's reader: %s", err.msg);
    free(fixed);
}

/* Two answers (Samba's and the model's, or two of Samba's) hold the same
 * objects, definitions, instances and values; only SystemTime and padding
 * may differ. */
static void same_answer(const served *a, const served *b)
{
    assert_int_equal(a->nobj, b->nobj);
    assert_int_equal(a->len, b->len);
    assert_int_equal(a->hdr.PerfTime.QuadPart, b->hdr.PerfTime.QuadPart);
    assert_int_equal(a->hdr.PerfFreq.QuadPart, b->hdr.PerfFreq.QuadPart);
    assert_int_equal(a->hdr.PerfTime100nSec.QuadPart, b->hdr.PerfTime100nSec.QuadPart);
    assert_int_equal(a->hdr.SystemNameLength, b->hdr.SystemNameLength);
    pl_object oa, ob;
    int ra = pl_block_object(&a->objs, 0, &oa), rb = pl_block_object(&b->objs, 0, &ob);
    for (; ra == PL_OK && rb == PL_OK; ra = pl_object_next(&oa, &oa), rb = pl_object_next(&ob, &ob)) {
        assert_memory_equal(&oa.hdr, &ob.hdr, sizeof oa.hdr);
        pl_counter ca, cb;
        int xa = pl_object_counter(&oa, 0, &ca), xb = pl_object_counter(&ob, 0, &cb);
        for (; xa == PL_OK && xb == PL_OK; xa = pl_counter_next(&ca, &ca), xb = pl_counter_next(&cb, &cb)) {
            assert_memory_equal(&ca.def, &cb.def, sizeof ca.def);
            pl_instance ia, ib;
            int pos = (int32_t)oa.hdr.NumInstances >= 0 ? 0 : -1;
            int ya = pl_object_instance(&oa, pos, &ia), yb = pl_object_instance(&ob, pos, &ib);
            for (; ya == PL_OK && yb == PL_OK; ya = pl_instance_next(&ia, &ia), yb = pl_instance_next(&ib, &ib)) {
                uint64_t va, vb;
                assert_int_equal(pl_counter_value(&ca, &ia, &va), PL_OK);
                assert_int_equal(pl_counter_value(&cb, &ib, &vb), PL_OK);
                if (va != vb) fail_msg("object %u counter %u: %llu and %llu", oa.hdr.ObjectNameTitleIndex,
                                       ca.def.CounterNameTitleIndex, (unsigned long long)va, (unsigned long long)vb);
                if (pos < 0) break;
                assert_memory_equal(&ia.def, &ib.def, sizeof ia.def);
                char na[512], nb[512];
                pl_instance_name(&ia, na, sizeof na);
                pl_instance_name(&ib, nb, sizeof nb);
                assert_string_equal(na, nb);
            }
            assert_int_equal(ya, yb);
        }
        assert_int_equal(xa, xb);
    }
    assert_int_equal(ra, rb);
}

/* The served names (Counter 009) as an array by index. */
typedef struct served_names {
    char **v;
    size_t n;
} served_names;

static void decode_names(const answer *a, served_names *s)
{
    if (!a->ok) fail_msg("Counter 009: %s", a->err);
    s->n = 1u << 22;
    s->v = calloc(s->n, sizeof *s->v);
    assert_non_null(s->v);
    if (multisz_decode(a->data, a->len, s->v, s->n) < 0) fail_msg("Counter 009 is not a MULTI_SZ");
}

static void free_names(served_names *s)
{
    for (size_t i = 0; i < s->n; i++) free(s->v[i]);
    free(s->v);
}

static const char *sname(const served_names *s, uint32_t i) { return i < s->n ? s->v[i] : NULL; }

/* A served object / counter / instance found by the names a client sees. */
static int find_obj(const served *sv, const served_names *nm, const char *name, pl_object *o)
{
    for (int r = pl_block_object(&sv->objs, 0, o); r == PL_OK; r = pl_object_next(o, o)) {
        const char *n = sname(nm, o->hdr.ObjectNameTitleIndex);
        if (n && strcmp(n, name) == 0) return 1;
    }
    return 0;
}

static uint64_t served_value(const served *sv, const served_names *nm, const char *obj, const char *ctr,
                             const char *inst)
{
    pl_object o;
    if (!find_obj(sv, nm, obj, &o)) fail_msg("Samba serves no object named '%s'", obj);
    pl_counter c;
    for (int r = pl_object_counter(&o, 0, &c); r == PL_OK; r = pl_counter_next(&c, &c)) {
        const char *n = sname(nm, c.def.CounterNameTitleIndex);
        if (!n || strcmp(n, ctr) != 0 || pl_type_is_base(c.def.CounterType)) continue;
        pl_instance in;
        uint64_t v;
        if (!inst) {
            assert_int_equal(pl_object_instance(&o, -1, &in), PL_OK);
        } else {
            int found = 0;
            for (int r2 = pl_object_instance(&o, 0, &in); r2 == PL_OK && !found; r2 = pl_instance_next(&in, &in)) {
                char nmb[512];
                pl_instance_name(&in, nmb, sizeof nmb);
                if (strcmp(nmb, inst) == 0) found = 1;
                if (found) break;
            }
            if (!found) fail_msg("%s has no instance '%s'", obj, inst);
        }
        assert_int_equal(pl_counter_value(&c, &in, &v), PL_OK);
        return v;
    }
    fail_msg("Samba's %s has no counter '%s'", obj, ctr);
    return 0;
}

/* ------------------------------------------------------ local snapshots */

typedef struct local {
    int64_t perf_time;       /* CLOCK_MONOTONIC, 100 ns: the bridge's clock */
    double uptime;           /* System Up Time, seconds, as PDH computes it */
    uint64_t boot;           /* its raw value */
    uint64_t avail, procs, instances;
} local;

static uint64_t local_value(const pl_block *b, const pl_titles *t, uint32_t obj, uint32_t ctr, pl_object *o)
{
    pl_counter c;
    pl_instance in;
    uint64_t v;
    if (pl_block_find_object(b, obj, o) != PL_OK) fail_msg("local snapshot without object %u", obj);
    if (pl_object_find_counter(o, ctr, &c) != PL_OK) fail_msg("local object %u without counter %u", obj, ctr);
    assert_int_equal(pl_object_instance(o, -1, &in), PL_OK);
    assert_int_equal(pl_counter_value(&c, &in, &v), PL_OK);
    (void)t;
    return v;
}

static local take_local(env *e)
{
    void *buf;
    size_t len;
    uint32_t type;
    pl_error err;
    if (pl_engine_query_alloc(e->eng, "2 4 230", &buf, &len, &type, &err) != PL_OK) fail_msg("local: %s", err.msg);
    pl_block b;
    assert_int_equal(pl_block_open(&b, buf, len, 0, 0, &err), PL_OK);
    local l;
    pl_object sys, mem, proc;
    l.perf_time = b.hdr.PerfTime.QuadPart;
    l.boot = local_value(&b, e->titles, PL_OBJ_SYSTEM, PL_CTR_SYSTEM_UP_TIME, &sys);
    if (sys.hdr.PerfFreq.QuadPart != 10000000) fail_msg("System's own clock is not 100 ns: %lld", (long long)sys.hdr.PerfFreq.QuadPart);
    l.uptime = (double)(sys.hdr.PerfTime.QuadPart - (int64_t)l.boot) / 1e7;
    l.procs = local_value(&b, e->titles, PL_OBJ_SYSTEM, PL_CTR_PROCESSES, &sys);
    l.avail = local_value(&b, e->titles, PL_OBJ_MEMORY, PL_CTR_AVAILABLE_BYTES, &mem);
    if (pl_block_find_object(&b, PL_OBJ_PROCESS, &proc) != PL_OK) {
        pl_free(buf);
        fail_msg("local snapshot without Process");
    }
    l.instances = pl_object_num_instances(&proc);
    pl_free(buf);
    return l;
}

/* The served snapshot agrees with local snapshots taken around it: lo
 * before, hi after (by the monotonic clock both use). */
static void agrees(const served *sv, const served_names *nm, const local *lo, const local *hi)
{
    int64_t t = sv->hdr.PerfTime.QuadPart;
    if (t < lo->perf_time || t > hi->perf_time)
        fail_msg("the served snapshot (PerfTime %lld) is not between the local ones (%lld, %lld)", (long long)t,
                 (long long)lo->perf_time, (long long)hi->perf_time);
    /* System Up Time: Samba sends no object clock, so it is computed from
     * the block's PerfTime100nSec, the same 100 ns wall clock */
    uint64_t boot = served_value(sv, nm, "System", "System Up Time", NULL);
    double up = (double)(sv->hdr.PerfTime100nSec.QuadPart - (int64_t)boot) / 1e7;
    if (up < lo->uptime - 0.05 || up > hi->uptime + 0.05)
        fail_msg("System Up Time %.3f s, local %.3f .. %.3f s", up, lo->uptime, hi->uptime);
    /* the boot time itself, to 16 units (atof()) plus the kernel's 10 ms */
    int64_t db = (int64_t)boot - (int64_t)lo->boot;
    if (db < -200000 || db > 200000) fail_msg("System Up Time raw %llu, local %llu", (unsigned long long)boot, (unsigned long long)lo->boot);
    uint64_t avail = served_value(sv, nm, "Memory", "Available Bytes", NULL);
    uint64_t amin = lo->avail < hi->avail ? lo->avail : hi->avail, amax = lo->avail < hi->avail ? hi->avail : lo->avail;
    /* the machine moves between the two local snapshots (other builds and
     * tests run beside this one): a little more than the bracket */
    const uint64_t slack = (32ull << 20) + amax / 50;
    if (avail + slack < amin || avail > amax + slack)
        fail_msg("Available Bytes %llu, local %llu .. %llu", (unsigned long long)avail, (unsigned long long)amin,
                 (unsigned long long)amax);
    uint64_t procs = served_value(sv, nm, "System", "Processes", NULL);
    uint64_t pmin = lo->procs < hi->procs ? lo->procs : hi->procs, pmax = lo->procs < hi->procs ? hi->procs : lo->procs;
    uint64_t ps = 5 + pmax / 20;
    if (procs + ps < pmin || procs > pmax + ps)
        fail_msg("Processes %llu, local %llu .. %llu", (unsigned long long)procs, (unsigned long long)pmin, (unsigned long long)pmax);
    pl_object po;
    if (!find_obj(sv, nm, "Process", &po)) fail_msg("Samba serves no Process object");
    uint64_t n = pl_object_num_instances(&po);
    uint64_t imin = lo->instances < hi->instances ? lo->instances : hi->instances;
    uint64_t imax = lo->instances < hi->instances ? hi->instances : lo->instances;
    uint64_t is = 5 + imax / 20;
    if (n + is < imin || n > imax + is)
        fail_msg("Process instances %llu, local %llu .. %llu", (unsigned long long)n, (unsigned long long)imin,
                 (unsigned long long)imax);
}

/* Freeze the running bridge right after it has written a snapshot, with
 * local snapshots taken just before and just after its own. A write that
 * comes before the first local snapshot is let go: the next one is taken. */
static void freeze_after_write(env *e, local *lo, local *hi)
{
    for (int attempt = 0; attempt < 5; attempt++) {
        char *old = stamp(e);
        local ring[64];
        int n = 0, frozen = 0;
        long end = mono_ms() + 10000;
        while (!frozen) {
            ring[n % 64] = take_local(e);
            n++;
            char *s = stamp(e);
            int fresh = s && (!old || strcmp(s, old) != 0) && strcmp(s, "withdrawn") != 0;
            if (fresh) {
                kill(e->bridge, SIGSTOP);
                frozen = 1;
                int64_t t = strtoll(s, NULL, 10);
                *hi = take_local(e);
                /* the latest local snapshot taken before the bridge's */
                for (int k = n - 1; k >= 0 && k >= n - 64; k--)
                    if (ring[k % 64].perf_time <= t) {
                        *lo = ring[k % 64];
                        free(s);
                        free(old);
                        return;
                    }
                kill(e->bridge, SIGCONT);
            }
            free(s);
            if (mono_ms() > end) fail_msg("the bridge wrote nothing new within 10 s");
        }
        free(old);
    }
    fail_msg("five writes of the bridge came before any local snapshot (a machine too busy)");
}

/* Every value of an object without instances is the number the bridge
 * wrote in data.tdb (its decimal text; the empty text is 0), as Samba's
 * parsing leaves it (a 64-bit value passes through a double). */
static void meant_values(const served *sv, const sb_recs *data)
{
    pl_object o;
    size_t n = 0;
    for (int r = pl_block_object(&sv->objs, 0, &o); r == PL_OK; r = pl_object_next(&o, &o)) {
        if ((int32_t)o.hdr.NumInstances >= 0) continue;
        pl_instance in;
        assert_int_equal(pl_object_instance(&o, -1, &in), PL_OK);
        pl_counter c;
        for (int k = pl_object_counter(&o, 0, &c); k == PL_OK; k = pl_counter_next(&c, &c), n++) {
            char key[16], text[32] = "";
            snprintf(key, sizeof key, "%u", c.def.CounterNameTitleIndex);
            const sb_rec *x = sb_recs_find(data, key);
            if (!x || x->vlen >= sizeof text) fail_msg("data.tdb has no usable record %s", key);
            memcpy(text, x->val, x->vlen);
            uint64_t want = strtoull(text, NULL, 10), got;
            if ((c.def.CounterType & PERF_SIZE_MASK) == PERF_SIZE_LARGE) want = (uint64_t)(int64_t)(double)want;
            assert_int_equal(pl_counter_value(&c, &in, &got), PL_OK);
            if (got != want)
                fail_msg("counter %u: Samba serves %llu, data.tdb says '%s'", c.def.CounterNameTitleIndex,
                         (unsigned long long)got, text);
        }
    }
    assert_true(n > 100);
}

/* The whole check of one served state: Counter 009 and Explain 009 are
 * what the model of Samba makes of the files, byte for byte, and name
 * every object and counter as perflib's title database does; Global and
 * "230 232" are the model's answer, pass perflib's reader and agree with
 * the local snapshots. Returns Counter 009 (caller frees). */
static answer check_served(env *e, const local *lo, const local *hi, served_names *nm, served *global_out,
                           answer *global_keep)
{
    static const char *const q[] = {"Counter 009", "Explain 009", "Global", "230 232"};
    answer a[4];
    assert_int_equal(hkpd(e, q, 4, a), 4);
    sb_recs names, data;
    if (load_tdb(e->names, &names) != 0 || load_tdb(e->data, &data) != 0) fail_msg("cannot read the tdb files");
    uint8_t *t;
    size_t tl;
    char why[512];
    for (int help = 0; help < 2; help++) {
        if (!a[help].ok) fail_msg("%s: %s", q[help], a[help].err);
        assert_int_equal(a[help].type, 3); /* Samba 4.17: REG_BINARY, not REG_MULTI_SZ */
        if (model_titles(&names, help, &t, &tl, why, sizeof why) != 0) fail_msg("model: %s", why);
        assert_int_equal(a[help].len, tl);
        assert_memory_equal(a[help].data, t, tl);
        free(t);
    }
    decode_names(&a[0], nm);
    /* every slot of the map: perflib's name and help, as Samba can list them */
    const sb_rec *mr = sb_recs_find(&names, SB_MAP_KEY);
    assert_non_null(mr);
    sb_map map;
    assert_int_equal(sb_map_parse((const char *)mr->val, mr->vlen, &map, why, sizeof why), 0);
    served_names help = {0};
    decode_names(&a[1], &help);
    size_t named = 0;
    for (size_t i = 0; i < map.n; i++) {
        const sb_slot *s = &map.v[i];
        const char *want = pl_titles_get(e->titles, PL_TITLE_NAME, s->kind == SB_KIND_OBJECT ? s->obj : s->ctr);
        const char *wanth = pl_titles_get(e->titles, PL_TITLE_HELP, s->help);
        char ascii[SB_VALUE_MAX + 1];
        if (want && sb_ascii_text(want, ascii) > 0) {
            const char *got = sname(nm, s->index);
            if (!got || strcmp(got, ascii) != 0)
                fail_msg("Counter 009 index %u: '%s', perflib's title %u is '%s'", s->index, got ? got : "(none)",
                         s->kind == SB_KIND_OBJECT ? s->obj : s->ctr, want);
            named++;
        }
        if (wanth && sb_ascii_text(wanth, ascii) > 0) {
            const char *got = sname(&help, s->index + 1);
            if (!got || strcmp(got, ascii) != 0) fail_msg("Explain 009 index %u: '%s'", s->index + 1, got ? got : "(none)");
        }
    }
    assert_true(named > 200);
    free_names(&help);
    /* Global: Samba's answer is the model's; "230 232" too (Samba sends every object) */
    uint8_t *m;
    size_t ml;
    if (model_global(&names, &data, sizeof(long), NETBIOS, &m, &ml, why, sizeof why) != 0 || ml == 0)
        fail_msg("model: %s", why);
    answer ma = {.ok = 1, .type = 3, .len = ml, .data = m};
    served sg, s2, sm;
    open_served(&a[2], &sg);
    open_served(&a[3], &s2);
    open_served(&ma, &sm);
    same_answer(&sg, &sm);
    same_answer(&sg, &s2);
    meant_values(&sg, &data);
    assert_true(sg.nobj >= 10);
    agrees(&sg, nm, lo, hi);
    free(m);
    sb_map_free(&map);
    sb_recs_free(&names);
    sb_recs_free(&data);
    answer names_answer = a[0];
    free(a[1].data);
    free(a[3].data);
    *global_keep = a[2];
    *global_out = sg;
    global_out->buf = global_keep->data;
    pl_error err;
    assert_int_equal(pl_block_open(&global_out->objs, global_keep->data + sg.hl, global_keep->len - sg.hl, PL_BLOCK_BARE,
                                   sg.nobj, &err), PL_OK);
    return names_answer;
}

/* Instance names cut at Samba's 255 bytes inside a character
 * (docs/samba.md, "Instance names"): files laid out from a made-up block
 * replace the bridge's. smbd must serve what the model does (a name Samba
 * could not convert would fail the whole answer), every name as the bytes
 * in names.tdb, whose lengths are worked out here, and NameLength the
 * UTF-16 of them; the layout's predicted size must be the answer's. */
static void cut_names_through_samba(env *e)
{
    char n2[300], n4[300], n3[300];
    memset(n2, 'a', 254);
    strcpy(n2 + 254, "\xc3\xa9zz"); /* a 2-byte character over byte 255: 254 bytes kept */
    for (int k = 0; k < 70; k++) memcpy(n4 + 4 * k, "\xf0\x9f\x98\x80", 4);
    n4[280] = '\0'; /* 4-byte characters only: 63 kept, 252 bytes, 126 UTF-16 units */
    memset(n3, 'a', 248);
    strcpy(n3 + 248, "\xe2\x82\xac" "zzzzzzzzzz"); /* 258 bytes: 255 kept */
    pl_builder *b = pl_builder_new();
    int p, t, c, i, rc = 0;
    rc |= pl_builder_add_object(b, &(pl_object_desc){.name_index = 230, .help_index = 231, .has_instances = 1}, &p);
    rc |= pl_builder_add_counter(b, p, &(pl_counter_desc){.name_index = 784, .type = PERF_COUNTER_RAWCOUNT}, &c);
    rc |= pl_builder_add_instance(b, p, n2, 0, 0, -1, &i);
    rc |= pl_builder_add_instance(b, p, n4, 0, 0, -1, &i);
    rc |= pl_builder_add_instance(b, p, n3, 0, 0, -1, &i);
    rc |= pl_builder_add_object(b, &(pl_object_desc){.name_index = 232, .help_index = 233, .has_instances = 1}, &t);
    rc |= pl_builder_add_counter(b, t, &(pl_counter_desc){.name_index = 804, .type = PERF_COUNTER_RAWCOUNT}, &c);
    /* the room "/12345" leaves (249 bytes) falls inside n3's 3-byte character */
    rc |= pl_builder_add_instance(b, t, "12345", 230, 2, -1, &i);
    rc |= pl_builder_add_instance(b, t, "0", 230, 1, -1, &i);
    assert_int_equal(rc, PL_OK);
    static const size_t want_len[5] = {254, 252, 255, 248 + 6, 252 + 2};
    uint8_t *buf;
    size_t len;
    pl_block blk;
    char why[512];
    if (model_block(b, &buf, &len, &blk, why, sizeof why) != 0) fail_msg("%s", why);
    sb_layout_cfg cfg = {.dword_size = sizeof(long)};
    sb_map map = {0};
    sb_recs names = {0}, data = {0};
    sb_stats st;
    if (sb_layout(&blk, &cfg, &map, &names, &data, &st, why, sizeof why) != 0) fail_msg("layout: %s", why);
    if (store_tdb(e->data, &data) != 0 || store_tdb(e->names, &names) != 0) fail_msg("cannot write the tdb files");
    static const char *const q[] = {"Global"};
    answer a;
    assert_int_equal(hkpd(e, q, 1, &a), 1);
    served sg, sm;
    open_served(&a, &sg);
    assert_int_equal(sg.nobj, 2);
    assert_int_equal(a.len - sg.hl, st.objects_bytes);
    uint8_t *m;
    size_t ml;
    if (model_global(&names, &data, sizeof(long), NETBIOS, &m, &ml, why, sizeof why) != 0 || ml == 0)
        fail_msg("model: %s", why);
    answer ma = {.ok = 1, .type = 3, .len = ml, .data = m};
    open_served(&ma, &sm);
    same_answer(&sg, &sm);
    pl_object o;
    int k = 0;
    for (int r = pl_block_object(&sg.objs, 0, &o); r == PL_OK; r = pl_object_next(&o, &o)) {
        pl_instance in;
        for (int ri = pl_object_instance(&o, 0, &in); ri == PL_OK; ri = pl_instance_next(&in, &in), k++) {
            char key[48], got[1024];
            snprintf(key, sizeof key, "%ui%dname", o.hdr.ObjectNameTitleIndex, k < 3 ? k : k - 3);
            const sb_rec *x = sb_recs_find(&names, key);
            assert_non_null(x);
            assert_int_equal(x->vlen, want_len[k]);
            assert_int_equal(pl_instance_name(&in, got, sizeof got), PL_OK);
            if (strlen(got) != x->vlen || memcmp(got, x->val, x->vlen) != 0)
                fail_msg("%s: Samba serves %zu bytes, names.tdb holds %zu", key, strlen(got), x->vlen);
            size_t units;
            assert_int_not_equal(pl__utf8_to_utf16(got, strlen(got), NULL, 0, &units), PL_E_ENCODING);
            assert_int_equal(in.def.NameLength, 2 * (units + 1));
        }
    }
    assert_int_equal(k, 5);
    free(m);
    free(a.data);
    free(buf);
    sb_recs_free(&names);
    sb_recs_free(&data);
    sb_map_free(&map);
}

/* --------------------------------------------------------------- cases */

/* --once: names, help, Global and "230 232" through Samba, the limits
 * Samba 4.17 has (docs/samba.md), and the answer's size the tool said;
 * then instance names cut inside characters, through the same smbd. */
static void live_samba_once(void **state)
{
    env *e = *state;
    local lo = take_local(e);
    bridge_once(e);
    local hi = take_local(e);
    served_names nm;
    served g;
    answer ga;
    answer c = check_served(e, &lo, &hi, &nm, &g, &ga);
    /* the tool's prediction of the answer's size */
    char *out = pq_read_file(e->bout, NULL);
    assert_non_null(out);
    char *p = strstr(out, "Samba's answer to Global: ");
    assert_non_null(p);
    assert_int_equal(strtoull(p + strlen("Samba's answer to Global: "), NULL, 10), ga.len - g.hl);
    free(out);
    /* the Perflib key: REG_MULTI_SZ there; Last Counter is 2N */
    static const char *const q[] = {PERFLIB_KEY "\\009:Counter", PERFLIB_KEY ":Last Counter", PERFLIB_KEY ":Last Help",
                                    "Costly", "Counter", "Explain"};
    answer a[6];
    assert_int_equal(hkpd(e, q, 6, a), 6);
    assert_true(a[0].ok);
    assert_int_equal(a[0].type, 7);
    assert_int_equal(a[0].len, c.len);
    assert_memory_equal(a[0].data, c.data, c.len);
    char *n1 = tdb_value(e->names, "1");
    assert_non_null(n1);
    uint32_t N = (uint32_t)atoi(n1), last, lasth;
    free(n1);
    assert_true(a[1].ok && a[1].len == 4 && a[2].ok && a[2].len == 4);
    memcpy(&last, a[1].data, 4);
    memcpy(&lasth, a[2].data, 4);
    assert_int_equal(last, 2 * N);
    assert_int_equal(lasth, 2 * N + 1);
    /* the list's entry "1" is N, not the last index (docs/samba.md) */
    char nbuf[16];
    snprintf(nbuf, sizeof nbuf, "%u", N);
    assert_string_equal(sname(&nm, 1), nbuf);
    /* Costly, and names without a language: not found */
    for (int k = 3; k < 6; k++) {
        assert_false(a[k].ok);
        if (!strstr(a[k].err, "WERR_FILE_NOT_FOUND")) fail_msg("%s: %s", q[k], a[k].err);
    }
    free_answers(a, 6);
    free(ga.data);
    free(c.data);
    free_names(&nm);
    cut_names_through_samba(e);
}

/* --interval: twice over an interval (values advance, each time agreeing
 * with local snapshots), then a restart: SIGTERM withdraws the objects,
 * the names stay, and the restarted bridge serves the same numbers. */
static void live_samba_interval_restart(void **state)
{
    env *e = *state;
    bridge_start(e, "1");
    local lo, hi;
    freeze_after_write(e, &lo, &hi);
    served_names nm1, nm2;
    served g1, g2;
    answer ga1, ga2;
    answer c1 = check_served(e, &lo, &hi, &nm1, &g1, &ga1);
    kill(e->bridge, SIGCONT);
    sleep_ms(1200);
    freeze_after_write(e, &lo, &hi);
    answer c2 = check_served(e, &lo, &hi, &nm2, &g2, &ga2);
    /* the same names; the values advance */
    assert_int_equal(c1.len, c2.len);
    assert_memory_equal(c1.data, c2.data, c1.len);
    int64_t dt = g2.hdr.PerfTime.QuadPart - g1.hdr.PerfTime.QuadPart;
    if (dt < 9000000) fail_msg("PerfTime advanced %lld (100 ns) only", (long long)dt);
    assert_true(g2.hdr.PerfTime100nSec.QuadPart > g1.hdr.PerfTime100nSec.QuadPart);
    uint64_t cpu1 = served_value(&g1, &nm1, "Processor", "% Processor Time", "_Total");
    uint64_t cpu2 = served_value(&g2, &nm2, "Processor", "% Processor Time", "_Total");
    assert_true(cpu2 > cpu1);
    uint64_t cs1 = served_value(&g1, &nm1, "System", "Context Switches/sec", NULL);
    uint64_t cs2 = served_value(&g2, &nm2, "System", "Context Switches/sec", NULL);
    assert_true(cs2 > cs1);
    free(ga1.data);
    free(ga2.data);
    free_names(&nm2);
    free(c2.data);

    /* stop: no object served, every name kept */
    bridge_stop(e);
    static const char *const q[] = {"Counter 009", "Global"};
    answer a[2];
    assert_int_equal(hkpd(e, q, 2, a), 2);
    assert_int_equal(a[0].len, c1.len);
    assert_memory_equal(a[0].data, c1.data, c1.len);
    served w;
    open_served(&a[1], &w);
    assert_int_equal(w.nobj, 0);
    free_answers(a, 2);

    /* restart: the same numbers, values that agree again */
    bridge_start(e, "1");
    freeze_after_write(e, &lo, &hi);
    answer c3 = check_served(e, &lo, &hi, &nm2, &g2, &ga2);
    assert_int_equal(c3.len, c1.len);
    assert_memory_equal(c3.data, c1.data, c1.len);
    free(ga2.data);
    free_names(&nm2);
    free_names(&nm1);
    free(c1.data);
    free(c3.data);
    bridge_stop(e);
}

/* Samba asked again and again while the bridge replaces the files five
 * times a second: every answer is a whole snapshot that perflib's reader
 * takes, or (a request that met a swap) none at all. */
static void live_samba_during_swaps(void **state)
{
    env *e = *state;
    bridge_start(e, "0.2");
    enum { REPEAT = 40 };
    static const char *const q[] = {"Global"};
    answer a[REPEAT];
    assert_int_equal(hkpd_as(e, READER, e->pw, REPEAT, q, 1, a, NULL, 0), REPEAT);
    int whole = 0, empty = 0;
    uint32_t nobj = 0;
    for (int k = 0; k < REPEAT; k++) {
        if (!a[k].ok) fail_msg("request %d: %s", k, a[k].err);
        if (a[k].len == 0) {
            empty++;
            continue;
        }
        served s;
        open_served(&a[k], &s); /* fails the test on anything malformed */
        if (s.nobj == 0) {
            empty++;
            continue;
        }
        if (nobj && s.nobj != nobj) fail_msg("request %d: %u objects, others %u", k, s.nobj, nobj);
        nobj = s.nobj;
        whole++;
    }
    free_answers(a, REPEAT);
    if (whole < REPEAT * 8 / 10) fail_msg("%d whole answers, %d empty of %d", whole, empty, REPEAT);
    char *err = pq_read_file(e->berr, NULL);
    if (err && strstr(err, "no file lease")) fail_msg("the bridge could not take its lease: %s", err);
    free(err);
    bridge_stop(e);
}

/* A buffer too small: Samba 4.17 answers success with the header and
 * zeros (docs/samba.md, "Answer size"); perflib's reader refuses what
 * follows the header, so nothing is misread. */
static void live_samba_small_buffer(void **state)
{
    env *e = *state;
    bridge_once(e);
    static const char *const q1[] = {"Global"};
    answer full;
    assert_int_equal(hkpd(e, q1, 1, &full), 1);
    served s;
    open_served(&full, &s);
    char q_exact[32], q_short[32];
    snprintf(q_exact, sizeof q_exact, "Global@%zu", full.len);
    snprintf(q_short, sizeof q_short, "Global@%zu", full.len - 8);
    const char *q2[] = {q_exact, q_short, "Global@100"};
    answer a[3];
    assert_int_equal(hkpd(e, q2, 3, a), 3);
    for (int k = 0; k < 2; k++) {
        assert_true(a[k].ok); /* success, not ERROR_MORE_DATA */
        assert_int_equal(a[k].len, k == 0 ? full.len : full.len - 8);
        /* the header of the whole answer (but its time), then zeros */
        assert_memory_equal(a[k].data, full.data, 36);
        assert_memory_equal(a[k].data + 52, full.data + 52, s.hl - 52);
        for (size_t i = s.hl; i < a[k].len; i++)
            if (a[k].data[i]) fail_msg("byte %zu of a cut answer is %u", i, a[k].data[i]);
        pl_block b;
        pl_error err;
        assert_int_not_equal(pl_block_open(&b, a[k].data + s.hl, a[k].len - s.hl, PL_BLOCK_BARE, s.nobj, &err), PL_OK);
    }
    assert_true(a[2].ok);
    assert_int_equal(a[2].len, 100);
    free_answers(a, 3);
    free(full.data);
}

/* Who may read: the Samba user [IPC$] lets in; not a session without a
 * password, not a wrong password, not another Samba user. The files: 0644
 * in a 0755 perfmon/, the bridge's. */
static void live_samba_security(void **state)
{
    env *e = *state;
    bridge_once(e);
    static const char *const q[] = {"Counter 009"};
    answer a[1];
    char refused[512];
    assert_int_equal(hkpd_as(e, NULL, NULL, 1, q, 1, a, refused, sizeof refused), 0);
    if (!strstr(refused, "CONNECT")) fail_msg("an anonymous session was let in");
    assert_int_equal(hkpd_as(e, READER, e->badpw, 1, q, 1, a, refused, sizeof refused), 0);
    if (!strstr(refused, "CONNECT")) fail_msg("a wrong password was let in");
    assert_int_equal(hkpd_as(e, OTHER, e->otherpw, 1, q, 1, a, refused, sizeof refused), 0);
    if (!strstr(refused, "CONNECT")) fail_msg("a Samba user outside [IPC$] valid users was let in");
    assert_int_equal(hkpd_as(e, READER, e->pw, 1, q, 1, a, refused, sizeof refused), 1);
    assert_true(a[0].ok);
    free_answers(a, 1);
    struct stat sb;
    assert_int_equal(stat(e->perfmon, &sb), 0);
    assert_int_equal(sb.st_mode & 07777, 0755);
    assert_int_equal(stat(e->names, &sb), 0);
    assert_int_equal(sb.st_mode & 07777, 0644);
    assert_int_equal(stat(e->data, &sb), 0);
    assert_int_equal(sb.st_mode & 07777, 0644);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(live_samba_once, setup, teardown),
        cmocka_unit_test_setup_teardown(live_samba_interval_restart, setup, teardown),
        cmocka_unit_test_setup_teardown(live_samba_during_swaps, setup, teardown),
        cmocka_unit_test_setup_teardown(live_samba_small_buffer, setup, teardown),
        cmocka_unit_test_setup_teardown(live_samba_security, setup, teardown),
    };
    return pl_test_run(tests, argc, argv);
}
