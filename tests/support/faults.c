/*
 * faults.c — fault injection for the test build `castellan-faults`, never
 * part of the shipped castellan.
 *
 * In the spirit of SQLite's crash and I/O error tests, the environment
 * variable CASTELLAN_FAULT=WHAT:PHASE:N:K picks a moment of the store's
 * work: the K-th change to the store's files (from 1) made in the N-th
 * (from 1) occurrence of PHASE (create, start, append, finish, close: see
 * cas__saves_phase in saves.h).  A change is a write, truncation or
 * deletion by SQLite (seen through a VFS that forwards everything to the
 * default one) or a link or unlink by the store itself.  WHAT is
 *
 *   kill  SIGKILL the process just before that change, or at the phase's
 *         end when K is 0 or the phase makes fewer changes.  Since a
 *         SIGKILL loses nothing the kernel has been given, the files after
 *         a kill anywhere between two changes are exactly the files after
 *         a kill just before the second: these points reach every state a
 *         kill at a random instant can leave.
 *   full  from that change on, every write fails as on a full disk
 *         (SQLITE_FULL); truncations and deletions still work.
 *   nosp  the same, but each write fails as an I/O error whose errno is
 *         ENOSPC (SQLITE_IOERR_WRITE), as where SQLite does not map a full
 *         disk to SQLITE_FULL itself (the -shm file, at open).
 *   busy  from the start of that phase (K must be 0), every write lock is
 *         refused as if another castellan held it, and SQLite's waits for
 *         it take no time: its busy timeout runs out at once, in full.
 *
 * CASTELLAN_FAULT=alloc:N makes the N-th allocation (from 1) fail, once:
 * malloc, calloc, realloc, strdup and strndup called by castellan's own
 * code (linked with --wrap, which takes in the plugins' host->alloc) and
 * SQLite's allocations.  alloc:0 fails none and says at exit how many
 * there were, so a test can sweep N over a whole run.
 *
 * The process says on stderr what it did, one line:
 *     castellan-faults: SIGKILL in append 5 before change 2
 *     castellan-faults: SIGKILL at the end of append 5
 *     castellan-faults: disk full from change 2 of append 5
 *     castellan-faults: busy from append 5
 *     castellan-faults: allocation 120 fails
 *     castellan-faults: 5321 allocations
 * An unreadable CASTELLAN_FAULT stops the process with exit status 99.
 */
#include <signal.h>
#include <sqlite3.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "saves.h"

static const char *const phase_names[] = {"create", "start", "append", "finish", "close"};
#define N_PHASES (sizeof phase_names / sizeof phase_names[0])

enum fault_kind { FAULT_KILL, FAULT_FULL, FAULT_BUSY, FAULT_NOSPACE };
static const char *const kind_names[] = {"kill", "full", "busy", "nosp"};
#define N_KINDS (sizeof kind_names / sizeof kind_names[0])

static struct {
    enum fault_kind kind;
    enum cas__saves_phase phase;
    unsigned long occurrence, change; /* N and K */
    unsigned long seen[N_PHASES];     /* occurrences of each phase so far */
    unsigned long changes;            /* in the target occurrence so far */
    int active;                       /* inside the target occurrence */
    int disk_full;                    /* writes fail from now on */
    int busy;                         /* write locks are refused from now on */
} target;

static void say(const char *line)
{
    if (write(STDERR_FILENO, line, strlen(line)) < 0) {
        /* nobody to tell; go on all the same */
    }
}

/* Say where on stderr, then die as a kill -9 would. */
static void die(const char *where, const char *before)
{
    char line[320];
    snprintf(line, sizeof line, "castellan-faults: SIGKILL %s %s %lu%s\n", where,
             phase_names[target.phase], target.occurrence, before);
    say(line);
    raise(SIGKILL);
}

/* A change to the store's files is about to happen: 1 if a write must fail. */
static int on_change(void)
{
    char line[160];
    if (target.disk_full)
        return 1;
    if (!target.active || ++target.changes != target.change)
        return 0;
    if (target.kind == FAULT_KILL) {
        snprintf(line, sizeof line, " before change %lu", target.change);
        die("in", line);
    }
    snprintf(line, sizeof line, "castellan-faults: disk full from change %lu of %s %lu\n",
             target.change, phase_names[target.phase], target.occurrence);
    say(line);
    target.disk_full = 1;
    return 1;
}

static void probe(enum cas__saves_phase phase, enum cas__saves_moment moment)
{
    if ((size_t)phase >= N_PHASES)
        return;
    switch (moment) {
    case CAS__SAVES_BEGIN:
        target.seen[phase]++;
        if (phase == target.phase) {
            target.active = target.seen[phase] == target.occurrence;
            target.changes = 0;
            if (target.active && target.kind == FAULT_BUSY && !target.busy) {
                char line[96];
                snprintf(line, sizeof line, "castellan-faults: busy from %s %lu\n",
                         phase_names[phase], target.occurrence);
                say(line);
                target.busy = 1;
            }
        }
        break;
    case CAS__SAVES_STEP:
        on_change();
        break;
    case CAS__SAVES_END:
        if (phase == target.phase && target.active) {
            target.active = 0;
            if (target.kind == FAULT_KILL)
                die("at the end of", "");
        }
        break;
    }
}

/* ------------------------------------------------------------- the VFS */

/* A file of the forwarding VFS: the default VFS's file follows it. */
struct fault_file {
    sqlite3_file base;
    sqlite3_file *real;
};

static sqlite3_vfs *real_vfs;

#define REAL(f) (((struct fault_file *)(f))->real)

static int f_close(sqlite3_file *f)
{
    return REAL(f)->pMethods->xClose(REAL(f));
}

static int f_read(sqlite3_file *f, void *buf, int n, sqlite3_int64 off)
{
    return REAL(f)->pMethods->xRead(REAL(f), buf, n, off);
}

static int f_write(sqlite3_file *f, const void *buf, int n, sqlite3_int64 off)
{
    if (on_change() && target.kind == FAULT_NOSPACE) {
        errno = ENOSPC; /* what xGetLastError, and so sqlite3_system_errno, tells */
        return SQLITE_IOERR_WRITE;
    }
    if (target.disk_full)
        return SQLITE_FULL;
    return REAL(f)->pMethods->xWrite(REAL(f), buf, n, off);
}

static int f_truncate(sqlite3_file *f, sqlite3_int64 size)
{
    on_change();
    return REAL(f)->pMethods->xTruncate(REAL(f), size);
}

static int f_sync(sqlite3_file *f, int flags)
{
    return REAL(f)->pMethods->xSync(REAL(f), flags);
}

static int f_size(sqlite3_file *f, sqlite3_int64 *size)
{
    return REAL(f)->pMethods->xFileSize(REAL(f), size);
}

static int f_lock(sqlite3_file *f, int level)
{
    if (target.busy && level >= SQLITE_LOCK_RESERVED)
        return SQLITE_BUSY;
    return REAL(f)->pMethods->xLock(REAL(f), level);
}

static int f_unlock(sqlite3_file *f, int level)
{
    return REAL(f)->pMethods->xUnlock(REAL(f), level);
}

static int f_check_lock(sqlite3_file *f, int *out)
{
    return REAL(f)->pMethods->xCheckReservedLock(REAL(f), out);
}

static int f_control(sqlite3_file *f, int op, void *arg)
{
    return REAL(f)->pMethods->xFileControl(REAL(f), op, arg);
}

static int f_sector(sqlite3_file *f)
{
    return REAL(f)->pMethods->xSectorSize(REAL(f));
}

static int f_device(sqlite3_file *f)
{
    return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f));
}

static int f_shm_map(sqlite3_file *f, int page, int size, int extend, void volatile **out)
{
    return REAL(f)->pMethods->xShmMap(REAL(f), page, size, extend, out);
}

static int f_shm_lock(sqlite3_file *f, int offset, int n, int flags)
{
    if (target.busy && (flags & SQLITE_SHM_LOCK) && (flags & SQLITE_SHM_EXCLUSIVE))
        return SQLITE_BUSY; /* a WAL writer's lock */
    return REAL(f)->pMethods->xShmLock(REAL(f), offset, n, flags);
}

static void f_shm_barrier(sqlite3_file *f)
{
    REAL(f)->pMethods->xShmBarrier(REAL(f));
}

static int f_shm_unmap(sqlite3_file *f, int delete_flag)
{
    return REAL(f)->pMethods->xShmUnmap(REAL(f), delete_flag);
}

/* Version 2: no xFetch, so SQLite never maps the database into memory
 * (castellan sets mmap_size = 0 anyway) and every change is a write. */
static const sqlite3_io_methods fault_io = {
    2, f_close, f_read, f_write, f_truncate, f_sync, f_size, f_lock, f_unlock,
    f_check_lock, f_control, f_sector, f_device, f_shm_map, f_shm_lock,
    f_shm_barrier, f_shm_unmap, NULL, NULL,
};

static int v_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *out)
{
    (void)vfs;
    struct fault_file *ff = (struct fault_file *)f;
    ff->real = (sqlite3_file *)(ff + 1);
    int rc = real_vfs->xOpen(real_vfs, name, ff->real, flags, out);
    ff->base.pMethods = ff->real->pMethods ? &fault_io : NULL;
    return rc;
}

static int v_delete(sqlite3_vfs *vfs, const char *name, int sync_dir)
{
    (void)vfs;
    on_change();
    return real_vfs->xDelete(real_vfs, name, sync_dir);
}

static int v_access(sqlite3_vfs *vfs, const char *name, int flags, int *out)
{
    (void)vfs;
    return real_vfs->xAccess(real_vfs, name, flags, out);
}

static int v_full_path(sqlite3_vfs *vfs, const char *name, int n, char *out)
{
    (void)vfs;
    return real_vfs->xFullPathname(real_vfs, name, n, out);
}

static int v_randomness(sqlite3_vfs *vfs, int n, char *out)
{
    (void)vfs;
    return real_vfs->xRandomness(real_vfs, n, out);
}

static int v_sleep(sqlite3_vfs *vfs, int micros)
{
    (void)vfs;
    if (target.busy)
        return micros; /* as if it had slept */
    return real_vfs->xSleep(real_vfs, micros);
}

static int v_time(sqlite3_vfs *vfs, double *out)
{
    (void)vfs;
    return real_vfs->xCurrentTime(real_vfs, out);
}

static int v_last_error(sqlite3_vfs *vfs, int n, char *out)
{
    (void)vfs;
    return real_vfs->xGetLastError(real_vfs, n, out);
}

static int v_time64(sqlite3_vfs *vfs, sqlite3_int64 *out)
{
    (void)vfs;
    return real_vfs->xCurrentTimeInt64(real_vfs, out);
}

static sqlite3_vfs fault_vfs = {
    .iVersion = 2, .mxPathname = 0, .zName = "castellan-faults",
    .xOpen = v_open, .xDelete = v_delete, .xAccess = v_access,
    .xFullPathname = v_full_path, .xRandomness = v_randomness, .xSleep = v_sleep,
    .xCurrentTime = v_time, .xGetLastError = v_last_error,
    .xCurrentTimeInt64 = v_time64,
};

/* ---------------------------------------------------------- allocations */

static struct {
    int on;                   /* CASTELLAN_FAULT is alloc:N */
    unsigned long target, n;  /* N, and allocations so far */
} allocs;

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *block, size_t size);
char *__real_strdup(const char *text);
char *__real_strndup(const char *text, size_t n);

/* This allocation is the one to fail. */
static int allocation_fails(void)
{
    if (!allocs.on || ++allocs.n != allocs.target)
        return 0;
    char line[96];
    snprintf(line, sizeof line, "castellan-faults: allocation %lu fails\n", allocs.n);
    say(line);
    return 1;
}

void *__wrap_malloc(size_t size)
{
    return allocation_fails() ? NULL : __real_malloc(size);
}

void *__wrap_calloc(size_t n, size_t size)
{
    return allocation_fails() ? NULL : __real_calloc(n, size);
}

void *__wrap_realloc(void *block, size_t size)
{
    return allocation_fails() ? NULL : __real_realloc(block, size);
}

char *__wrap_strdup(const char *text)
{
    return allocation_fails() ? NULL : __real_strdup(text);
}

char *__wrap_strndup(const char *text, size_t n)
{
    return allocation_fails() ? NULL : __real_strndup(text, n);
}

static sqlite3_mem_methods sqlite_memory;

static void *sqlite_malloc(int size)
{
    return allocation_fails() ? NULL : sqlite_memory.xMalloc(size);
}

static void *sqlite_realloc(void *block, int size)
{
    return allocation_fails() ? NULL : sqlite_memory.xRealloc(block, size);
}

static void count_at_exit(void)
{
    char line[96];
    snprintf(line, sizeof line, "castellan-faults: %lu allocations\n", allocs.n);
    say(line);
}

/* Count, and fail the target, from now on; SQLite's allocations too. */
static void start_failing_allocations(unsigned long target)
{
    static sqlite3_mem_methods counted;
    if (sqlite3_config(SQLITE_CONFIG_GETMALLOC, &sqlite_memory) != SQLITE_OK) {
        fprintf(stderr, "castellan-faults: cannot read SQLite's allocator\n");
        _exit(99);
    }
    counted = sqlite_memory;
    counted.xMalloc = sqlite_malloc;
    counted.xRealloc = sqlite_realloc;
    if (sqlite3_config(SQLITE_CONFIG_MALLOC, &counted) != SQLITE_OK) {
        fprintf(stderr, "castellan-faults: cannot set SQLite's allocator\n");
        _exit(99);
    }
    allocs.target = target;
    allocs.on = 1;
    if (target == 0)
        atexit(count_at_exit);
}

/* ------------------------------------------------------------ the spec */

static int parse_count(const char *text, char **end, unsigned long *out)
{
    if (*text < '0' || *text > '9')
        return -1;
    *out = strtoul(text, end, 10);
    return 0;
}

/* "WHAT:PHASE:N:K" into target; -1 if it is not that. */
static int parse_spec(const char *spec)
{
    char *end;
    size_t i = 0;
    while (i < N_KINDS && (strncmp(spec, kind_names[i], 4) != 0 || spec[4] != ':'))
        i++;
    if (i == N_KINDS)
        return -1;
    target.kind = (enum fault_kind)i;
    spec += 5;
    i = 0;
    while (i < N_PHASES && (strncmp(spec, phase_names[i], strlen(phase_names[i])) != 0 ||
                            spec[strlen(phase_names[i])] != ':'))
        i++;
    if (i == N_PHASES)
        return -1;
    target.phase = (enum cas__saves_phase)i;
    spec += strlen(phase_names[i]) + 1;
    if (parse_count(spec, &end, &target.occurrence) || target.occurrence == 0 ||
        *end != ':' || parse_count(end + 1, &end, &target.change) || *end ||
        ((target.kind == FAULT_FULL || target.kind == FAULT_NOSPACE) && target.change == 0) ||
        (target.kind == FAULT_BUSY && target.change != 0))
        return -1;
    return 0;
}

__attribute__((constructor)) static void faults_from_environment(void)
{
    const char *spec = getenv("CASTELLAN_FAULT");
    unsigned long target;
    char *end;
    if (!spec || !*spec)
        return;
    if (strncmp(spec, "alloc:", 6) == 0 && parse_count(spec + 6, &end, &target) == 0 &&
        *end == '\0') {
        start_failing_allocations(target);
        return;
    }
    if (parse_spec(spec) != 0) {
        fprintf(stderr, "castellan-faults: CASTELLAN_FAULT=\"%s\" is not "
                "alloc:N, or WHAT:PHASE:N:K with WHAT kill, full or busy, PHASE create, start, "
                "append, finish or close, N >= 1 and K >= 0 (>= 1 for full, 0 for "
                "busy)\n", spec);
        _exit(99);
    }
    real_vfs = sqlite3_vfs_find(NULL);
    if (!real_vfs) {
        fprintf(stderr, "castellan-faults: SQLite has no default VFS\n");
        _exit(99);
    }
    fault_vfs.szOsFile = (int)sizeof(struct fault_file) + real_vfs->szOsFile;
    fault_vfs.mxPathname = real_vfs->mxPathname;
    if (sqlite3_vfs_register(&fault_vfs, 1) != SQLITE_OK) {
        fprintf(stderr, "castellan-faults: cannot register the VFS\n");
        _exit(99);
    }
    cas__saves_probe = probe;
}
