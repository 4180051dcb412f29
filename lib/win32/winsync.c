/* Named shared memory and events of include/win32/winbase.h, for providers
 * that talk to their service: CreateFileMapping/OpenFileMapping/
 * MapViewOfFile/UnmapViewOfFile over POSIX shared memory, CreateEvent/
 * OpenEvent/SetEvent/ResetEvent/WaitForSingleObject over a process-shared
 * robust mutex and condition variable, and CloseHandle.
 *
 * A shared segment another process made is hostile: an event segment is used
 * only when it has exactly the size and the ready mark this code writes. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pl_internal.h"
#include "win32/winbase.h"
#include "win32_internal.h"

#define SHM_PREFIX_MAP "/perflib-w32-map-"
#define SHM_PREFIX_EVT "/perflib-w32-evt-"
#define NAME_CAP 240
#define EVT_READY 0x45565459u /* "EVTY" */
#define OPEN_WAIT_MS 1000     /* for a creator still initialising an event */

/* ------------------------------------------------------------ names */

/* The shm name of a Windows object name: the prefix, then the name without
 * "Global\" / "Local\", '/' and '\' as '_'. 0 for an empty or too long name. */
static int shm_name(const char *prefix, const char *name, char *out, size_t cap)
{
    if (strncasecmp(name, "Global\\", 7) == 0) name += 7;
    else if (strncasecmp(name, "Local\\", 6) == 0) name += 6;
    size_t pl = strlen(prefix), n = strlen(name);
    if (!n || n > NAME_CAP || pl + n + 1 > cap) return 0;
    memcpy(out, prefix, pl);
    for (size_t i = 0; i < n; i++) out[pl + i] = name[i] == '/' || name[i] == '\\' ? '_' : name[i];
    out[pl + n] = '\0';
    return 1;
}

static DWORD errno_error(int e)
{
    switch (e) {
    case ENOENT: return ERROR_FILE_NOT_FOUND;
    case EACCES:
    case EPERM: return ERROR_ACCESS_DENIED;
    case ENAMETOOLONG:
    case EINVAL: return ERROR_INVALID_NAME;
    case ENOMEM:
    case ENOSPC: return ERROR_NOT_ENOUGH_MEMORY;
    default: return ERROR_GEN_FAILURE;
    }
}

/* A W name as UTF-8 (NULL stays NULL); 0 on invalid UTF-16. */
static int narrow_name(LPCWSTR w, char **out)
{
    int rc;
    *out = pl__w32_narrow(w, &rc);
    if (rc != PL_OK) {
        SetLastError(rc == PL_E_NOMEM ? ERROR_NOT_ENOUGH_MEMORY : ERROR_INVALID_NAME);
        return 0;
    }
    return 1;
}

/* ------------------------------------------------------------ mappings */

typedef struct mapping {
    int fd;
    int writable;
    int creator;              /* created the name: unlinks it on close */
    char name[NAME_CAP + 32]; /* "" when unnamed */
} mapping;

static HANDLE new_mapping(int fd, int writable, int creator, const char *name)
{
    mapping *m = calloc(1, sizeof *m);
    if (!m || pl__w32_handle_add(m, PL__W32_H_MAPPING) != PL_OK) {
        free(m);
        if (creator && name[0]) shm_unlink(name);
        close(fd);
        SetLastError(ERROR_NOT_ENOUGH_MEMORY);
        return NULL;
    }
    m->fd = fd;
    m->writable = writable;
    m->creator = creator;
    memcpy(m->name, name, strlen(name) + 1);
    return m;
}

static HANDLE create_mapping(HANDLE hFile, DWORD prot, DWORD hi, DWORD lo, const char *name)
{
    if (hFile != INVALID_HANDLE_VALUE) {
        SetLastError(hFile ? ERROR_NOT_SUPPORTED : ERROR_INVALID_HANDLE); /* only page-file mappings */
        return NULL;
    }
    uint64_t size = ((uint64_t)hi << 32) | lo;
    int writable = (prot & 0xFFu) == PAGE_READWRITE;
    if (size == 0 || size > (uint64_t)INT64_MAX || (!writable && (prot & 0xFFu) != PAGE_READONLY)) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return NULL;
    }
    char sn[NAME_CAP + 32] = "";
    int fd;
    if (!name) {
        fd = memfd_create("perflib-w32-map", MFD_CLOEXEC);
    } else {
        if (!shm_name(SHM_PREFIX_MAP, name, sn, sizeof sn)) {
            SetLastError(ERROR_INVALID_NAME);
            return NULL;
        }
        fd = shm_open(sn, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0 && errno == EEXIST) {
            /* Windows: the existing object, its size, ERROR_ALREADY_EXISTS. */
            fd = shm_open(sn, (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC, 0);
            if (fd < 0) {
                SetLastError(errno_error(errno));
                return NULL;
            }
            HANDLE h = new_mapping(fd, writable, 0, sn);
            if (h) SetLastError(ERROR_ALREADY_EXISTS);
            return h;
        }
    }
    if (fd < 0) {
        SetLastError(errno_error(errno));
        return NULL;
    }
    if (ftruncate(fd, (off_t)size) != 0) {
        int e = errno;
        if (sn[0]) shm_unlink(sn);
        close(fd);
        SetLastError(errno_error(e));
        return NULL;
    }
    HANDLE h = new_mapping(fd, writable, 1, sn);
    if (h) SetLastError(ERROR_SUCCESS);
    return h;
}

PL_EXTERN HANDLE WINAPI CreateFileMappingA(HANDLE hFile, LPSECURITY_ATTRIBUTES sa, DWORD prot, DWORD hi, DWORD lo,
                                           LPCSTR name)
{
    (void)sa;
    return create_mapping(hFile, prot, hi, lo, name);
}

PL_EXTERN HANDLE WINAPI CreateFileMappingW(HANDLE hFile, LPSECURITY_ATTRIBUTES sa, DWORD prot, DWORD hi, DWORD lo,
                                           LPCWSTR name)
{
    (void)sa;
    char *n;
    if (!narrow_name(name, &n)) return NULL;
    HANDLE h = create_mapping(hFile, prot, hi, lo, n);
    free(n);
    return h;
}

static HANDLE open_mapping(DWORD access, const char *name)
{
    char sn[NAME_CAP + 32];
    if (!name || !shm_name(SHM_PREFIX_MAP, name, sn, sizeof sn)) {
        SetLastError(name ? ERROR_INVALID_NAME : ERROR_INVALID_PARAMETER);
        return NULL;
    }
    int writable = (access & FILE_MAP_WRITE) != 0;
    int fd = shm_open(sn, (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC, 0);
    if (fd < 0) {
        SetLastError(errno_error(errno));
        return NULL;
    }
    return new_mapping(fd, writable, 0, sn);
}

PL_EXTERN HANDLE WINAPI OpenFileMappingA(DWORD access, BOOL inherit, LPCSTR name)
{
    (void)inherit;
    return open_mapping(access, name);
}

PL_EXTERN HANDLE WINAPI OpenFileMappingW(DWORD access, BOOL inherit, LPCWSTR name)
{
    (void)inherit;
    char *n;
    if (!narrow_name(name, &n)) return NULL;
    HANDLE h = open_mapping(access, n);
    free(n);
    return h;
}

/* Views: address -> length, for UnmapViewOfFile. */
#define MAX_VIEWS 1024
static pthread_mutex_t g_view_mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
    void *addr;
    size_t len;
} g_views[MAX_VIEWS];
static size_t g_nviews;

PL_EXTERN LPVOID WINAPI MapViewOfFile(HANDLE h, DWORD access, DWORD offhi, DWORD offlo, SIZE_T n)
{
    mapping m;
    if (!pl__w32_handle_get(h, PL__W32_H_MAPPING, &m, sizeof m)) {
        SetLastError(ERROR_INVALID_HANDLE);
        return NULL;
    }
    int write = (access & FILE_MAP_WRITE) != 0;
    if (write && !m.writable) {
        SetLastError(ERROR_ACCESS_DENIED);
        return NULL;
    }
    uint64_t off = ((uint64_t)offhi << 32) | offlo;
    struct stat sb;
    if (fstat(m.fd, &sb) != 0) {
        SetLastError(errno_error(errno));
        return NULL;
    }
    uint64_t size = (uint64_t)sb.st_size;
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0) page = 4096;
    /* Windows wants the offset a multiple of the allocation granularity
     * (64 KiB); a page multiple is enough here. */
    if (off % (uint64_t)page || off >= size || (n && n > size - off)) {
        SetLastError(off % (uint64_t)page ? ERROR_MAPPED_ALIGNMENT : ERROR_ACCESS_DENIED);
        return NULL;
    }
    size_t len = n ? n : (size_t)(size - off);
    void *p = mmap(NULL, len, PROT_READ | (write ? PROT_WRITE : 0), MAP_SHARED, m.fd, (off_t)off);
    if (p == MAP_FAILED) {
        SetLastError(errno_error(errno));
        return NULL;
    }
    pthread_mutex_lock(&g_view_mu);
    int ok = g_nviews < MAX_VIEWS;
    if (ok) {
        g_views[g_nviews].addr = p;
        g_views[g_nviews].len = len;
        g_nviews++;
    }
    pthread_mutex_unlock(&g_view_mu);
    if (!ok) {
        munmap(p, len);
        SetLastError(ERROR_NOT_ENOUGH_MEMORY);
        return NULL;
    }
    return p;
}

PL_EXTERN BOOL WINAPI UnmapViewOfFile(LPCVOID addr)
{
    pthread_mutex_lock(&g_view_mu);
    size_t len = 0;
    void *p = NULL;
    for (size_t i = 0; i < g_nviews; i++) {
        if (g_views[i].addr == addr) {
            p = g_views[i].addr;
            len = g_views[i].len;
            g_views[i] = g_views[--g_nviews];
            break;
        }
    }
    pthread_mutex_unlock(&g_view_mu);
    if (!p) {
        SetLastError(ERROR_INVALID_ADDRESS);
        return FALSE;
    }
    munmap(p, len);
    return TRUE;
}

/* ------------------------------------------------------------ events */

typedef struct ev_shared {
    uint32_t ready;           /* EVT_READY once initialised */
    uint32_t manual;
    uint32_t signaled;
    uint32_t pad;
    pthread_mutex_t mu;       /* process-shared, robust */
    pthread_cond_t cv;        /* process-shared, CLOCK_MONOTONIC */
} ev_shared;

typedef struct event {
    ev_shared *sh;
    int named;
    int creator;
    char name[NAME_CAP + 32];
} event;

static int ev_init(ev_shared *sh, int manual, int initial, int pshared)
{
    pthread_mutexattr_t ma;
    pthread_condattr_t ca;
    pthread_mutexattr_init(&ma);
    pthread_condattr_init(&ca);
    if (pshared) {
        pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
        pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
    }
    pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    int rc = pthread_mutex_init(&sh->mu, &ma);
    if (rc == 0 && (rc = pthread_cond_init(&sh->cv, &ca)) != 0) pthread_mutex_destroy(&sh->mu);
    pthread_mutexattr_destroy(&ma);
    pthread_condattr_destroy(&ca);
    if (rc != 0) return rc;
    sh->manual = manual ? 1 : 0;
    sh->signaled = initial ? 1 : 0;
    __atomic_store_n(&sh->ready, EVT_READY, __ATOMIC_RELEASE);
    return 0;
}

static int ev_lock(ev_shared *sh)
{
    int rc = pthread_mutex_lock(&sh->mu);
    if (rc == EOWNERDEAD) rc = pthread_mutex_consistent(&sh->mu); /* a process died holding it */
    return rc;
}

static HANDLE new_event(ev_shared *sh, int named, int creator, const char *name)
{
    event *e = calloc(1, sizeof *e);
    if (!e || pl__w32_handle_add(e, PL__W32_H_EVENT) != PL_OK) {
        free(e);
        SetLastError(ERROR_NOT_ENOUGH_MEMORY);
        return NULL;
    }
    e->sh = sh;
    e->named = named;
    e->creator = creator;
    memcpy(e->name, name, strlen(name) + 1);
    return e;
}

/* Map an existing event segment, waiting (bounded) for its creator to mark
 * it ready; NULL with the error set. */
static ev_shared *map_existing_event(int fd)
{
    struct stat sb;
    if (fstat(fd, &sb) != 0 || (size_t)sb.st_size != sizeof(ev_shared)) {
        SetLastError(ERROR_INVALID_HANDLE); /* not an event made here */
        return NULL;
    }
    ev_shared *sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (sh == MAP_FAILED) {
        SetLastError(errno_error(errno));
        return NULL;
    }
    for (int i = 0; i < OPEN_WAIT_MS && __atomic_load_n(&sh->ready, __ATOMIC_ACQUIRE) != EVT_READY; i++) {
        struct timespec ts = {0, 1000000L};
        nanosleep(&ts, NULL);
    }
    if (__atomic_load_n(&sh->ready, __ATOMIC_ACQUIRE) != EVT_READY) {
        munmap(sh, sizeof *sh);
        SetLastError(ERROR_INVALID_HANDLE);
        return NULL;
    }
    return sh;
}

static HANDLE create_event(BOOL manual, BOOL initial, const char *name)
{
    if (!name) {
        ev_shared *sh = calloc(1, sizeof *sh);
        if (!sh || ev_init(sh, manual, initial, 0) != 0) {
            free(sh);
            SetLastError(ERROR_NOT_ENOUGH_MEMORY);
            return NULL;
        }
        HANDLE h = new_event(sh, 0, 1, "");
        if (!h) {
            pthread_cond_destroy(&sh->cv);
            pthread_mutex_destroy(&sh->mu);
            free(sh);
        } else {
            SetLastError(ERROR_SUCCESS);
        }
        return h;
    }
    char sn[NAME_CAP + 32];
    if (!shm_name(SHM_PREFIX_EVT, name, sn, sizeof sn)) {
        SetLastError(ERROR_INVALID_NAME);
        return NULL;
    }
    int fd = shm_open(sn, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    int creator = fd >= 0;
    if (fd < 0 && errno == EEXIST) fd = shm_open(sn, O_RDWR | O_CLOEXEC, 0);
    if (fd < 0) {
        SetLastError(errno_error(errno));
        return NULL;
    }
    ev_shared *sh;
    if (creator) {
        if (ftruncate(fd, sizeof *sh) != 0 ||
            (sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
            int e = errno;
            shm_unlink(sn);
            close(fd);
            SetLastError(errno_error(e));
            return NULL;
        }
        if (ev_init(sh, manual, initial, 1) != 0) {
            munmap(sh, sizeof *sh);
            shm_unlink(sn);
            close(fd);
            SetLastError(ERROR_NOT_ENOUGH_MEMORY);
            return NULL;
        }
    } else {
        sh = map_existing_event(fd);
    }
    close(fd);
    if (!sh) return NULL;
    HANDLE h = new_event(sh, 1, creator, sn);
    if (!h) {
        munmap(sh, sizeof *sh);
        if (creator) shm_unlink(sn);
        return NULL;
    }
    SetLastError(creator ? ERROR_SUCCESS : ERROR_ALREADY_EXISTS);
    return h;
}

PL_EXTERN HANDLE WINAPI CreateEventA(LPSECURITY_ATTRIBUTES sa, BOOL manual, BOOL initial, LPCSTR name)
{
    (void)sa;
    return create_event(manual, initial, name);
}

PL_EXTERN HANDLE WINAPI CreateEventW(LPSECURITY_ATTRIBUTES sa, BOOL manual, BOOL initial, LPCWSTR name)
{
    (void)sa;
    char *n;
    if (!narrow_name(name, &n)) return NULL;
    HANDLE h = create_event(manual, initial, n);
    free(n);
    return h;
}

static HANDLE open_event(const char *name)
{
    char sn[NAME_CAP + 32];
    if (!name || !shm_name(SHM_PREFIX_EVT, name, sn, sizeof sn)) {
        SetLastError(name ? ERROR_INVALID_NAME : ERROR_INVALID_PARAMETER);
        return NULL;
    }
    int fd = shm_open(sn, O_RDWR | O_CLOEXEC, 0);
    if (fd < 0) {
        SetLastError(errno_error(errno));
        return NULL;
    }
    ev_shared *sh = map_existing_event(fd);
    close(fd);
    if (!sh) return NULL;
    HANDLE h = new_event(sh, 1, 0, sn);
    if (!h) munmap(sh, sizeof *sh);
    return h;
}

PL_EXTERN HANDLE WINAPI OpenEventA(DWORD access, BOOL inherit, LPCSTR name)
{
    (void)access;
    (void)inherit;
    return open_event(name);
}

PL_EXTERN HANDLE WINAPI OpenEventW(DWORD access, BOOL inherit, LPCWSTR name)
{
    (void)access;
    (void)inherit;
    char *n;
    if (!narrow_name(name, &n)) return NULL;
    HANDLE h = open_event(n);
    free(n);
    return h;
}

static BOOL set_state(HANDLE h, int on)
{
    event e;
    if (!pl__w32_handle_get(h, PL__W32_H_EVENT, &e, sizeof e)) {
        SetLastError(ERROR_INVALID_HANDLE);
        return FALSE;
    }
    if (ev_lock(e.sh) != 0) {
        SetLastError(ERROR_GEN_FAILURE);
        return FALSE;
    }
    e.sh->signaled = on ? 1 : 0;
    if (on) {
        if (e.sh->manual) pthread_cond_broadcast(&e.sh->cv);
        else pthread_cond_signal(&e.sh->cv);
    }
    pthread_mutex_unlock(&e.sh->mu);
    return TRUE;
}

PL_EXTERN BOOL WINAPI SetEvent(HANDLE h) { return set_state(h, 1); }
PL_EXTERN BOOL WINAPI ResetEvent(HANDLE h) { return set_state(h, 0); }

PL_EXTERN DWORD WINAPI WaitForSingleObject(HANDLE h, DWORD ms)
{
    event e;
    if (!pl__w32_handle_get(h, PL__W32_H_EVENT, &e, sizeof e)) {
        SetLastError(ERROR_INVALID_HANDLE);
        return WAIT_FAILED;
    }
    struct timespec dl;
    clock_gettime(CLOCK_MONOTONIC, &dl);
    if (ms != INFINITE) {
        dl.tv_sec += (time_t)(ms / 1000u);
        dl.tv_nsec += (long)(ms % 1000u) * 1000000L;
        if (dl.tv_nsec >= 1000000000L) {
            dl.tv_sec++;
            dl.tv_nsec -= 1000000000L;
        }
    }
    if (ev_lock(e.sh) != 0) {
        SetLastError(ERROR_GEN_FAILURE);
        return WAIT_FAILED;
    }
    DWORD ret = WAIT_OBJECT_0;
    while (!e.sh->signaled) {
        int rc = ms == INFINITE ? pthread_cond_wait(&e.sh->cv, &e.sh->mu)
                                : pthread_cond_timedwait(&e.sh->cv, &e.sh->mu, &dl);
        if (rc == EOWNERDEAD) {
            pthread_mutex_consistent(&e.sh->mu);
        } else if (rc == ETIMEDOUT) {
            ret = WAIT_TIMEOUT;
            break;
        } else if (rc != 0) {
            ret = WAIT_FAILED;
            SetLastError(ERROR_GEN_FAILURE);
            break;
        }
    }
    if (ret == WAIT_OBJECT_0 && !e.sh->manual) e.sh->signaled = 0; /* auto-reset: one waiter released */
    pthread_mutex_unlock(&e.sh->mu);
    return ret;
}

/* ------------------------------------------------------------ CloseHandle */

PL_EXTERN BOOL WINAPI CloseHandle(HANDLE h)
{
    int kind = pl__w32_handle_kind(h);
    if (kind == PL__W32_H_MAPPING) {
        mapping *m = pl__w32_handle_remove(h, kind);
        if (m) {
            close(m->fd);
            if (m->creator && m->name[0]) shm_unlink(m->name);
            free(m);
            return TRUE;
        }
    } else if (kind == PL__W32_H_EVENT) {
        event *e = pl__w32_handle_remove(h, kind);
        if (e) {
            if (e->named) {
                munmap(e->sh, sizeof *e->sh);
                if (e->creator) shm_unlink(e->name);
            } else {
                pthread_cond_destroy(&e->sh->cv);
                pthread_mutex_destroy(&e->sh->mu);
                free(e->sh);
            }
            free(e);
            return TRUE;
        }
    }
    SetLastError(ERROR_INVALID_HANDLE);
    return FALSE;
}
