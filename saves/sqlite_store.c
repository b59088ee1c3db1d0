/*
 * sqlite_store.c — the SQLite backend: opening the save database safely,
 * its messages and helpers, its schema's steps and its method table.
 *
 * A save file may come from anyone (a bug report, another program, a disk
 * that failed), so an existing file is judged from its raw 100-byte header
 * before SQLite is allowed to touch it: not SQLite, truncated, another
 * application's or a newer castellan's files are refused and left as they
 * were.  Only then is it opened, defensively, and migrated.  A new file
 * is built aside and linked into place whole, so nobody ever meets one half
 * made.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "sqlite_int.h"

#define HEADER_SIZE 100
/* How long castellan waits for another program's lock on the store. */
#define BUSY_TIMEOUT_MS 5000
#define STR(x) #x
#define XSTR(x) STR(x)

/* ------------------------------------------------------------ messages */

static int code_of_sqlite(int rc)
{
    switch (rc & 0xff) {
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
        return CAS_ECORRUPT;
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_CONSTRAINT:
        return CAS_ECONFLICT;
    case SQLITE_NOMEM:
        return CAS_ENOMEM;
    default:
        return CAS_EIO;
    }
}

/* The largest of the store's files (the database, its WAL) in bytes. */
static off_t largest_file(const char *path)
{
    static const char *const suffixes[] = {"", "-wal", "-journal"};
    char name[4096];
    struct stat st;
    off_t largest = 0;
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        snprintf(name, sizeof name, "%s%s", path, suffixes[i]);
        if (stat(name, &st) == 0 && st.st_size > largest)
            largest = st.st_size;
    }
    return largest;
}

/* SQLite does not keep the errno of a failed write (a full disk, `ulimit
 * -f`): look at the limit and the files for what is likely. */
static const char *why_writing_failed(const char *path)
{
    struct rlimit limit;
    if (getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
        (uint64_t)largest_file(path) + 65536 >= (uint64_t)limit.rlim_cur)
        return "; the file size limit (`ulimit -f`) is reached: raise it";
    return "; is the disk full, or failing?";
}

/* What to do about a failure with SQLite's extended result code rc and
 * the errno behind it (sqlite3_system_errno). */
static const char *hint_for(const char *path, int rc, int sys_errno)
{
    if ((rc & 0xff) == SQLITE_IOERR && (sys_errno == ENOSPC || sys_errno == EDQUOT))
        return sys_errno == ENOSPC ? "; the disk is full: free some space"
                                   : "; your disk quota is used up: free some space";
    if (rc == SQLITE_IOERR_WRITE || rc == SQLITE_IOERR_TRUNCATE)
        return why_writing_failed(path);
    if (rc == SQLITE_CONSTRAINT_PRIMARYKEY || rc == SQLITE_CONSTRAINT_UNIQUE)
        return "; another castellan saved it first: it is playing the same game";
    switch (rc & 0xff) {
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
        return "; the file is damaged: restore a backup or try `sqlite3 FILE .recover`";
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return "; another program (another castellan?) kept the database locked for "
               "longer than the " XSTR(BUSY_TIMEOUT_MS) " ms castellan waits: try again "
               "once it is done";
    case SQLITE_FULL:
        return "; the disk is full: free some space";
    case SQLITE_READONLY:
        return "; castellan may not write the file or its folder";
    default:
        return "";
    }
}

int cas__sqlite_fail(struct cas__saves *s, const char *what)
{
    sqlite3 *db = cas__sqlite_db(s);
    int rc = sqlite3_extended_errcode(db), sys = sqlite3_system_errno(db);
    /* A full disk SQLite calls an I/O error is named as what it is. */
    const char *text = (rc & 0xff) == SQLITE_IOERR && (sys == ENOSPC || sys == EDQUOT)
                           ? "no space left on the disk"
                           : sqlite3_errmsg(db);
    return cas__saves_fail(s, code_of_sqlite(rc), "%s failed: %s%s", what, text,
                           hint_for(s->path, rc, sys));
}

/* ------------------------------------------------------------ helpers */

int cas__sqlite_prepare(struct cas__saves *s, const char *sql, sqlite3_stmt **out)
{
    /* sql.h numbers parameters $N, as PostgreSQL does; SQLite would number
     * $N by first appearance, ?N by N. */
    char local[2048], *text = local;
    size_t len = strlen(sql);
    if (len >= sizeof local && !(text = malloc(len + 1)))
        return cas__saves_fail(s, CAS_ENOMEM, "out of memory");
    for (size_t i = 0; i <= len; i++)
        text[i] = sql[i] == '$' ? '?' : sql[i];
    int rc = sqlite3_prepare_v2(cas__sqlite_db(s), text, (int)len, out, NULL);
    if (text != local)
        free(text);
    if (rc != SQLITE_OK)
        return cas__sqlite_fail(s, "preparing a query");
    return CAS_OK;
}

int cas__sqlite_exec(struct cas__saves *s, const char *sql, const char *what)
{
    if (sqlite3_exec(cas__sqlite_db(s), sql, NULL, NULL, NULL) != SQLITE_OK)
        return cas__sqlite_fail(s, what);
    return CAS_OK;
}

/* Run one of the transaction's statements, prepared once per connection
 * and kept (*kept): every journaled action begins and commits one, and
 * parsing them each time cost as much as running them. */
static int run_kept(struct cas__saves *s, sqlite3_stmt **kept, const char *sql,
                    const char *what)
{
    int rc = *kept ? CAS_OK : cas__sqlite_prepare(s, sql, kept);
    if (rc)
        return rc;
    rc = sqlite3_step(*kept) == SQLITE_DONE ? CAS_OK : cas__sqlite_fail(s, what);
    sqlite3_reset(*kept);
    return rc;
}

int cas__sqlite_begin(struct cas__saves *s)
{
    return run_kept(s, &cas__sqlite(s)->begin, "BEGIN IMMEDIATE;", "starting a transaction");
}

int cas__sqlite_commit(struct cas__saves *s)
{
    int rc = run_kept(s, &cas__sqlite(s)->commit, "COMMIT;", "committing");
    if (rc)
        cas__sqlite_rollback(s);
    return rc;
}

void cas__sqlite_rollback(struct cas__saves *s)
{
    if (!sqlite3_get_autocommit(cas__sqlite_db(s)))
        sqlite3_exec(cas__sqlite_db(s), "ROLLBACK;", NULL, NULL, NULL);
}

char *cas__sqlite_text(sqlite3_stmt *st, int i)
{
    const unsigned char *text = sqlite3_column_text(st, i);
    return strdup(text ? (const char *)text : "");
}

int cas__sqlite_step_done(struct cas__saves *s, sqlite3_stmt *st, const char *what)
{
    int rc = sqlite3_step(st) == SQLITE_DONE ? CAS_OK : cas__sqlite_fail(s, what);
    sqlite3_finalize(st);
    return rc;
}

/* mkdir -p of the folder holding path; private, as saves are personal. */
static int make_parent_dirs(const char *path, char *err, size_t errlen)
{
    char *dir = strdup(path);
    if (!dir) {
        snprintf(err, errlen, "%s: out of memory", path);
        return CAS_ENOMEM;
    }
    char *slash = strrchr(dir, '/');
    int rc = CAS_OK;
    if (!slash || slash == dir)
        goto free_dir;
    *slash = '\0';
    for (char *p = dir + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char keep = *p;
        *p = '\0';
        if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
            snprintf(err, errlen, "%s: cannot create folder %s: %s", path, dir,
                     strerror(errno));
            rc = CAS_EIO;
            goto free_dir;
        }
        *p = keep;
        if (keep == '\0')
            break;
    }
free_dir:
    free(dir);
    return rc;
}

/* ---------------------------------------------------- header judgement */

enum verdict { FILE_NEW, FILE_OURS, FILE_ASK_SQLITE };

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* A non-empty -wal or -journal beside the file: its header may be stale. */
static int has_side_file(const char *path, const char *suffix)
{
    char side[4096];
    struct stat st;
    snprintf(side, sizeof side, "%s%s", path, suffix);
    return stat(side, &st) == 0 && st.st_size > 0;
}

static int judge_header(const char *path, const unsigned char *h, size_t got,
                        off_t size, enum verdict *v, char *err, size_t errlen)
{
    static const char magic[16] = "SQLite format 3";
    if (got < sizeof magic || memcmp(h, magic, sizeof magic) != 0) {
        snprintf(err, errlen, "%s is not a castellan save database (not an "
                 "SQLite file); name another file in [saves] database", path);
        return CAS_EMISMATCH;
    }
    unsigned page = (unsigned)h[16] << 8 | h[17];
    if (page == 1)
        page = 65536;
    if (got < HEADER_SIZE || page < 512 || (page & (page - 1)) != 0) {
        snprintf(err, errlen, "%s is truncated or damaged (its SQLite header is "
                 "incomplete); restore it from a backup", path);
        return CAS_ECORRUPT;
    }
    int side = has_side_file(path, "-wal") || has_side_file(path, "-journal");
    uint32_t pages = be32(h + 28);
    int pages_valid = pages != 0 && be32(h + 24) == be32(h + 92);
    if (size % page != 0 ||
        (!side && pages_valid && (uint64_t)pages * page > (uint64_t)size)) {
        snprintf(err, errlen, "%s is truncated (%lld bytes, but its header "
                 "says %u pages of %u bytes); restore it from a backup", path,
                 (long long)size, pages, page);
        return CAS_ECORRUPT;
    }
    uint32_t app = be32(h + 68), version = be32(h + 60);
    if (app == 0 && version == 0 && side) {
        *v = FILE_ASK_SQLITE; /* possibly ours, created by a killed process */
        return CAS_OK;
    }
    if (app != CAS__SAVES_APPLICATION_ID) {
        snprintf(err, errlen, "%s belongs to another application "
                 "(application_id 0x%08x, castellan's is 0x%08x); name another "
                 "file in [saves] database", path, app,
                 (unsigned)CAS__SAVES_APPLICATION_ID);
        return CAS_EMISMATCH;
    }
    if (version > CAS__SAVES_SCHEMA_VERSION) {
        snprintf(err, errlen, "%s was written by a newer castellan (save schema "
                 "%u; this castellan knows up to %d); upgrade castellan to "
                 "open it", path, version, CAS__SAVES_SCHEMA_VERSION);
        return CAS_EVERSION;
    }
    *v = FILE_OURS;
    return CAS_OK;
}

/* ------------------------------------------------- files open here */

/* The store files this process has open, by device and inode, with how
 * many connections each.  Closing any descriptor of a file drops every
 * POSIX lock this process holds on it, the open connections' included,
 * after which another castellan may take the store for unused and
 * checkpoint its WAL away under them.  So a file open here already is
 * never opened again outside SQLite (which shares its descriptors between
 * its connections): it was judged when first opened. */
#define MOST_FILES_OPEN 16

static struct open_file {
    dev_t dev;
    ino_t ino;
    unsigned connections;
} files_open[MOST_FILES_OPEN];
static pthread_mutex_t files_open_lock = PTHREAD_MUTEX_INITIALIZER;

static struct open_file *find_open_file(dev_t dev, ino_t ino)
{
    for (size_t i = 0; i < MOST_FILES_OPEN; i++)
        if (files_open[i].connections && files_open[i].dev == dev && files_open[i].ino == ino)
            return &files_open[i];
    return NULL;
}

static int is_open_here(const struct stat *st)
{
    pthread_mutex_lock(&files_open_lock);
    int open = find_open_file(st->st_dev, st->st_ino) != NULL;
    pthread_mutex_unlock(&files_open_lock);
    return open;
}

/* Count q's connection to path; a file past the table's room is not
 * counted, and is judged again as before (the table holds what one
 * process has open, a few files at most). */
static void count_open(struct cas__sqlite *q, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return;
    pthread_mutex_lock(&files_open_lock);
    struct open_file *f = find_open_file(st.st_dev, st.st_ino);
    for (size_t i = 0; !f && i < MOST_FILES_OPEN; i++)
        if (!files_open[i].connections)
            f = &files_open[i];
    if (f) {
        f->dev = st.st_dev;
        f->ino = st.st_ino;
        f->connections++;
        q->file_dev = st.st_dev;
        q->file_ino = st.st_ino;
        q->counted = 1;
    }
    pthread_mutex_unlock(&files_open_lock);
}

static void uncount_open(struct cas__sqlite *q)
{
    if (!q->counted)
        return;
    pthread_mutex_lock(&files_open_lock);
    struct open_file *f = find_open_file(q->file_dev, q->file_ino);
    if (f)
        f->connections--;
    pthread_mutex_unlock(&files_open_lock);
    q->counted = 0;
}

/* Decide from the raw file, without SQLite, whether we may open it. */
static int judge_file(const char *path, enum verdict *v, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        if (errno == ENOENT) {
            *v = FILE_NEW;
            return CAS_OK;
        }
        snprintf(err, errlen, "%s: cannot reach it: %s%s", path, strerror(errno),
                 errno == EACCES ? " (castellan needs search permission, x, on every "
                                   "folder above it)" : "");
        return CAS_EIO;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s is not a regular file; name a save database "
                 "file in [saves] database", path);
        return CAS_EIO;
    }
    if (st.st_size == 0) { /* SQLite's own view: an empty database */
        *v = FILE_NEW;
        return CAS_OK;
    }
    if (is_open_here(&st)) {
        *v = FILE_OURS;
        return CAS_OK;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return CAS_EIO;
    }
    unsigned char header[HEADER_SIZE];
    ssize_t got = read(fd, header, sizeof header);
    close(fd);
    if (got < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return CAS_EIO;
    }
    return judge_header(path, header, (size_t)got, st.st_size, v, err, errlen);
}

/* ------------------------------------------------------------ opening */

static int pragma_int(struct cas__saves *s, const char *sql, int *out)
{
    sqlite3_stmt *st;
    int rc = cas__sqlite_prepare(s, sql, &st);
    *out = 0; /* defined on every path, which -O3 cannot see through the fail */
    if (rc)
        return rc;
    if (sqlite3_step(st) == SQLITE_ROW) {
        *out = sqlite3_column_int(st, 0);
    } else {
        rc = cas__sqlite_fail(s, "reading the database header");
    }
    sqlite3_finalize(st);
    return rc;
}

static int schema_version(struct cas__saves *s)
{
    int version = -1;
    pragma_int(s, "PRAGMA user_version;", &version);
    return version;
}

static int configure_defensively(struct cas__saves *s)
{
    sqlite3 *db = cas__sqlite_db(s);
    sqlite3_extended_result_codes(db, 1);
    if (sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)0) ||
        sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)0) ||
        sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, (int *)0) ||
        sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, (int *)0) ||
        sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, (int *)0))
        return cas__sqlite_fail(s, "configuring the connection");
    sqlite3_busy_timeout(db, BUSY_TIMEOUT_MS);
    return cas__sqlite_exec(s,
                           "PRAGMA trusted_schema = OFF;"
                           "PRAGMA cell_size_check = ON;"
                           "PRAGMA mmap_size = 0;"
                           "PRAGMA foreign_keys = ON;",
                           "configuring the connection");
}

/* What SQLite itself says about the file (it has replayed any journal). */
static int check_identity(struct cas__saves *s, int *version)
{
    int app, objects, rc;
    if ((rc = pragma_int(s, "PRAGMA application_id;", &app)) ||
        (rc = pragma_int(s, "PRAGMA user_version;", version)) ||
        (rc = pragma_int(s, "SELECT count(*) FROM sqlite_schema;", &objects)))
        return rc;
    if (app == 0 && *version == 0 && objects == 0)
        return CAS_OK; /* empty: ours to create */
    if ((uint32_t)app != CAS__SAVES_APPLICATION_ID)
        return cas__saves_fail(s, CAS_EMISMATCH,
                               "belongs to another application (application_id "
                               "0x%08x, castellan's is 0x%08x); name another "
                               "file in [saves] database",
                               (uint32_t)app, (unsigned)CAS__SAVES_APPLICATION_ID);
    if (*version > CAS__SAVES_SCHEMA_VERSION)
        return cas__saves_fail(s, CAS_EVERSION,
                               "was written by a newer castellan (save schema "
                               "%d; this castellan knows up to %d); upgrade "
                               "castellan to open it",
                               *version, CAS__SAVES_SCHEMA_VERSION);
    return CAS_OK;
}

static int enter_wal(struct cas__saves *s)
{
    sqlite3_stmt *st;
    int rc = cas__sqlite_prepare(s, "PRAGMA journal_mode = WAL;", &st);
    if (rc)
        return rc;
    if (sqlite3_step(st) != SQLITE_ROW)
        rc = cas__sqlite_fail(s, "switching to WAL mode");
    else if (strcmp((const char *)sqlite3_column_text(st, 0), "wal") != 0)
        rc = cas__saves_fail(s, CAS_EIO, "cannot use WAL mode (got %s)",
                             sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    if (rc)
        return rc;
    /* In WAL mode NORMAL keeps every commit across a killed process; only
     * a power loss may lose the last few, never the file's consistency. */
    return cas__sqlite_exec(s, "PRAGMA synchronous = NORMAL;",
                           "setting synchronous mode");
}

static const char *const side_suffixes[] = {"", "-wal", "-shm"};

/* Remove a read-only store's private copy and its folder. */
static void remove_snapshot(const char *dir)
{
    char name[4200];
    for (size_t i = 0; i < sizeof side_suffixes / sizeof side_suffixes[0]; i++) {
        snprintf(name, sizeof name, "%s/saves.db%s", dir, side_suffixes[i]);
        unlink(name);
    }
    rmdir(dir);
}

/* Close s (NULL is fine) without announcing it: a store being built or
 * failing to open is not a phase of its own. */
static void release_store(struct cas__saves *s)
{
    if (!s)
        return;
    struct cas__sqlite *q = cas__sqlite(s);
    sqlite3_finalize(q->append);
    sqlite3_finalize(q->append_timed);
    sqlite3_finalize(q->touch);
    sqlite3_finalize(q->begin);
    sqlite3_finalize(q->commit);
    sqlite3_finalize(q->touch_at);
    cas__saves_touched_forget(&q->touched);
    sqlite3_close_v2(q->db);
    uncount_open(q);
    if (q->snapshot)
        remove_snapshot(q->snapshot);
    free(q->snapshot);
    cas__saves_free(s);
}

/* Open `file` with SQLite's flags into a new store named `path` in
 * messages, configured, with what SQLite says the file is checked. */
static int open_connection(const char *path, const char *file, int flags,
                           struct cas__saves **out, int *version)
{
    struct cas__saves *s = cas__saves_new(&cas__sqlite_methods, path, sizeof(struct cas__sqlite));
    *out = s;
    if (!s)
        return CAS_ENOMEM;
    if (sqlite3_open_v2(file, &cas__sqlite(s)->db, flags | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK)
        return cas__sqlite_db(s) ? cas__sqlite_fail(s, "opening")
                     : cas__saves_fail(s, CAS_ENOMEM, "out of memory");
    if (file == path)
        count_open(cas__sqlite(s), path);
    int rc = configure_defensively(s);
    return rc ? rc : check_identity(s, version);
}

/* After a failed open: the message into err, the store released. */
static int open_failed(struct cas__saves *s, const char *path, int rc, char *err,
                       size_t errlen)
{
    if (rc == CAS_ENOMEM)
        snprintf(err, errlen, "%s: out of memory", path);
    else
        snprintf(err, errlen, "%s", s->err);
    release_store(s);
    return rc;
}

/* Open path as it is (creating it if create), configure the connection,
 * check what SQLite says the file is, migrate and enter WAL mode. */
static int open_store(const char *path, int create, int target,
                      struct cas__saves **out, char *err, size_t errlen)
{
    struct cas__saves *s;
    int version = 0;
    int rc = open_connection(path, path, SQLITE_OPEN_READWRITE |
                             (create ? SQLITE_OPEN_CREATE : 0), &s, &version);
    if (rc || (rc = cas__saves_migrate(s, version, target)) || (rc = enter_wal(s)))
        return open_failed(s, path, rc, err, errlen);
    *out = s;
    return CAS_OK;
}

/* The pid in name if name is base ".new-" pid, with an optional SQLite
 * side suffix; 0 otherwise. */
static long creator_pid(const char *name, const char *base)
{
    size_t len = strlen(base);
    if (strncmp(name, base, len) != 0 || strncmp(name + len, ".new-", 5) != 0)
        return 0;
    char *end;
    errno = 0;
    long pid = strtol(name + len + 5, &end, 10);
    if (errno || pid <= 0 || end == name + len + 5)
        return 0;
    static const char *const sides[] = {"", "-wal", "-shm", "-journal"};
    for (size_t i = 0; i < sizeof sides / sizeof sides[0]; i++)
        if (strcmp(end, sides[i]) == 0)
            return pid;
    return 0;
}

/* Cut a writable copy of a file's path to its folder's; returns the folder. */
static const char *cut_to_folder(char *path)
{
    char *slash = strrchr(path, '/');
    if (!slash)
        return ".";
    if (slash == path)
        return "/";
    *slash = '\0';
    return path;
}

/* Remove the private files of creations whose process is gone (killed
 * mid-creation; one with our pid is gone too, as we have not begun); a live
 * creator's files, or ones we cannot tell, stay. */
static void sweep_dead_creations(const char *path)
{
    char *dir = strdup(path);
    if (!dir)
        return;
    char *slash = strrchr(dir, '/');
    const char *base = slash ? slash + 1 : dir;
    const char *folder = cut_to_folder(dir);
    DIR *d = opendir(folder);
    struct dirent *e;
    char stale[4096];
    while (d && (e = readdir(d))) {
        long pid = creator_pid(e->d_name, base);
        int gone = pid == (long)getpid() || (kill((pid_t)pid, 0) != 0 && errno == ESRCH);
        if (pid && gone &&
            snprintf(stale, sizeof stale, "%s/%s", folder, e->d_name) < (int)sizeof stale)
            unlink(stale);
    }
    if (d)
        closedir(d);
    free(dir);
}

/* The store's files are private (0600): what it holds is the user's,
 * and a served game's seed stays secret until the game ends.  SQLite
 * gives its -wal and -shm the database file's mode. */
#define STORE_MODE 0600

/* Make the existing files of the store at path (the database, its -wal
 * and -shm) no more open than STORE_MODE: another user's file, which we
 * may not change, is left as it is. */
static void tighten_modes(const char *path)
{
    char name[4200];
    struct stat st;
    for (size_t i = 0; i < sizeof side_suffixes / sizeof side_suffixes[0]; i++) {
        snprintf(name, sizeof name, "%s%s", path, side_suffixes[i]);
        if (lstat(name, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
            (st.st_mode & 0777 & ~STORE_MODE))
            chmod(name, st.st_mode & 0777 & STORE_MODE);
    }
}

/* A new store appears whole: it is built under a private name and then
 * linked into place, so no other castellan (and no kill) ever leaves or
 * sees it half made.  Losing the race to another castellan is fine: the
 * store it linked is used. */
static int create_store(const char *path, int target, char *err, size_t errlen)
{
    char tmp[4096];
    struct cas__saves *s;
    cas__saves_announce(CAS__SAVES_CREATE, CAS__SAVES_BEGIN);
    snprintf(tmp, sizeof tmp, "%s.new-%ld", path, (long)getpid());
    sweep_dead_creations(path);
    /* Made here with its mode: SQLite would create it 0644. */
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, STORE_MODE);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot create it: %s", path, strerror(errno));
        return CAS_EIO;
    }
    close(fd);
    int rc = open_store(tmp, 1, target, &s, err, errlen);
    if (rc == CAS_OK) {
        release_store(s); /* checkpoints the WAL into tmp */
        cas__saves_announce(CAS__SAVES_CREATE, CAS__SAVES_STEP);
        if (link(tmp, path) != 0 && errno != EEXIST) {
            snprintf(err, errlen, "%s: cannot create it: %s", path, strerror(errno));
            rc = CAS_EIO;
        }
    }
    cas__saves_announce(CAS__SAVES_CREATE, CAS__SAVES_STEP);
    unlink(tmp);
    if (rc == CAS_OK)
        cas__saves_announce(CAS__SAVES_CREATE, CAS__SAVES_END);
    return rc;
}

/* A store castellan may read but not write (the file, or the folder that
 * holds its WAL) is refused before SQLite would fail at the first write. */
static int check_writable(const char *path, char *err, size_t errlen)
{
    char *dir = strdup(path);
    if (!dir) {
        snprintf(err, errlen, "%s: out of memory", path);
        return CAS_ENOMEM;
    }
    const char *folder = cut_to_folder(dir);
    int rc = CAS_OK;
    if (access(path, W_OK) != 0 || access(folder, W_OK) != 0) {
        snprintf(err, errlen, "%s: castellan may not write %s (%s); `castellan saves "
                 "list`, `saves show`, `export` and `replay` can still read it; make it "
                 "writable to change it", path, access(path, W_OK) != 0 ? "the file" :
                 "its folder, where the journal (-wal) goes", strerror(errno));
        rc = CAS_EIO;
    }
    free(dir);
    return rc;
}

static int open_write(const char *path, int target, struct cas__saves **out, char *err,
                      size_t errlen)
{
    struct stat st;
    enum verdict verdict;
    int rc = judge_file(path, &verdict, err, errlen);
    if (rc || (verdict != FILE_NEW && (rc = check_writable(path, err, errlen))))
        return rc;
    if (verdict == FILE_NEW) {
        if ((rc = make_parent_dirs(path, err, errlen)))
            return rc;
        /* Absent (not an empty file): build it aside, then judge it again. */
        if (stat(path, &st) != 0 && ((rc = create_store(path, target, err, errlen)) ||
                                     (rc = judge_file(path, &verdict, err, errlen))))
            return rc;
    }
    tighten_modes(path);
    return open_store(path, verdict == FILE_NEW, target, out, err, errlen);
}

/* Copy the file `from` to a new file `to` (private); a missing `from` is
 * fine when optional.  CAS_EIO with errno set. */
static int copy_file(const char *from, const char *to, int optional)
{
    char buf[65536];
    int in = open(from, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return optional && errno == ENOENT ? CAS_OK : CAS_EIO;
    int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    int rc = out < 0 ? CAS_EIO : CAS_OK;
    ssize_t got;
    while (rc == CAS_OK && (got = read(in, buf, sizeof buf)) != 0)
        if (got < 0 || write(out, buf, (size_t)got) != got)
            rc = CAS_EIO;
    if (out >= 0 && close(out) != 0)
        rc = CAS_EIO;
    close(in);
    return rc;
}

/* Copy path (and its WAL, if any) into a new private folder; its name
 * into *dir (caller frees), the copy at DIR/saves.db. */
static int copy_aside(const char *path, char **dir, char *err, size_t errlen)
{
    const char *tmp = getenv("TMPDIR");
    char folder[4096], from[4200], to[4200];
    snprintf(folder, sizeof folder, "%s/castellan-read-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(folder)) {
        snprintf(err, errlen, "%s: cannot make a private copy to read: %s", path,
                 strerror(errno));
        return CAS_EIO;
    }
    int rc = CAS_OK;
    for (size_t i = 0; i < 2 && rc == CAS_OK; i++) {
        snprintf(from, sizeof from, "%s%s", path, side_suffixes[i]);
        snprintf(to, sizeof to, "%s/saves.db%s", folder, side_suffixes[i]);
        rc = copy_file(from, to, i > 0);
        if (rc)
            snprintf(err, errlen, "%s: cannot make a private copy to read: %s", from,
                     strerror(errno));
    }
    if (rc == CAS_OK && !(*dir = strdup(folder)))
        rc = CAS_ENOMEM;
    if (rc)
        remove_snapshot(folder);
    return rc;
}

/* A store open in this process already is read in place: its private
 * copy would open and close the file (see "files open here"). */
static int open_read(const char *path, struct cas__saves **out, char *err, size_t errlen)
{
    enum verdict verdict = FILE_OURS;
    struct cas__saves *s;
    struct stat st;
    int version = 0;
    int again = stat(path, &st) == 0 && is_open_here(&st);
    int rc = judge_file(path, &verdict, err, errlen);
    if (rc)
        return rc;
    if (verdict == FILE_NEW) {
        snprintf(err, errlen, "there is no save database %s yet; `castellan play` "
                 "creates it, or name one with --database FILE", path);
        return CAS_ENOTFOUND;
    }
    rc = open_connection(path, path, SQLITE_OPEN_READONLY, &s, &version);
    if (rc && !again && rc != CAS_ENOMEM && rc != CAS_EMISMATCH && rc != CAS_EVERSION &&
        rc != CAS_ECORRUPT) {
        /* SQLite cannot read a WAL database in place when it may neither
         * open nor create the -shm beside it: read a private copy. */
        release_store(s);
        char *dir = NULL;
        char copy[4200];
        if ((rc = copy_aside(path, &dir, err, errlen)))
            return rc;
        snprintf(copy, sizeof copy, "%s/saves.db", dir);
        rc = open_connection(path, copy, SQLITE_OPEN_READWRITE, &s, &version);
        if (s) {
            cas__sqlite(s)->snapshot = dir;
        } else {
            remove_snapshot(dir);
            free(dir);
        }
    }
    if (rc == CAS_OK && version != CAS__SAVES_SCHEMA_VERSION)
        rc = cas__saves_fail(s, CAS_EVERSION, "has save schema %d and castellan %d: "
                             "open it once where castellan may write it, to bring it "
                             "up to date", version, CAS__SAVES_SCHEMA_VERSION);
    if (rc)
        return open_failed(s, path, rc, err, errlen);
    *out = s;
    return CAS_OK;
}

int cas__sqlite_open(const char *path, int target, int read_only, struct cas__saves **out,
                     char *err, size_t errlen)
{
    return read_only ? open_read(path, out, err, errlen)
                     : open_write(path, target, out, err, errlen);
}

static int integrity_check(struct cas__saves *s)
{
    sqlite3_stmt *st;
    int rc = cas__sqlite_prepare(s, "PRAGMA integrity_check;", &st);
    if (rc)
        return rc;
    if (sqlite3_step(st) != SQLITE_ROW)
        rc = cas__sqlite_fail(s, "checking integrity");
    else if (strcmp((const char *)sqlite3_column_text(st, 0), "ok") != 0)
        rc = cas__saves_fail(s, CAS_ECORRUPT, "integrity check failed: %s",
                             sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return rc;
}

/* sha256_hex(TEXT): the lowercase hex SHA-256 of the text's bytes, what
 * castellan serve keeps of a token (host/server/token.c hashes the same). */
static void sha256_hex(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    static const char hex[] = "0123456789abcdef";
    unsigned char digest[32];
    char out[65];
    unsigned int len = 0;
    const unsigned char *text = sqlite3_value_text(argv[0]);
    (void)argc;
    if (!text || !EVP_Digest(text, (size_t)sqlite3_value_bytes(argv[0]), digest, &len,
                             EVP_sha256(), NULL)) {
        sqlite3_result_error(ctx, "sha256_hex: no text, or no SHA-256", -1);
        return;
    }
    for (unsigned int i = 0; i < len; i++) {
        out[2 * i] = hex[digest[i] >> 4];
        out[2 * i + 1] = hex[digest[i] & 15];
    }
    sqlite3_result_text(ctx, out, 2 * (int)len, SQLITE_TRANSIENT);
}

/* Migration m: application_id with the first, user_version with each;
 * sha256_hex for the migrations' SQL (schema 4). */
static int migration(struct cas__saves *s, const struct cas__saves_migration *m,
                     const char *text)
{
    char sql[128];
    if (sqlite3_create_function_v2(cas__sqlite_db(s), "sha256_hex", 1,
                                   SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, NULL,
                                   sha256_hex, NULL, NULL, NULL) != SQLITE_OK)
        return cas__sqlite_fail(s, "preparing the migrations");
    int rc = cas__sqlite_begin(s);
    if (rc)
        return rc;
    /* Another castellan may have migrated while we waited for the lock. */
    if (schema_version(s) >= m->version)
        return cas__sqlite_commit(s);
    if (m->version == 1) {
        snprintf(sql, sizeof sql, "PRAGMA application_id = %d;",
                 (int)CAS__SAVES_APPLICATION_ID);
        rc = cas__sqlite_exec(s, sql, "setting the application id");
        if (rc)
            goto rollback;
    }
    rc = cas__sqlite_exec(s, text, m->what);
    if (rc)
        goto rollback;
    snprintf(sql, sizeof sql, "PRAGMA user_version = %d;", m->version);
    rc = cas__sqlite_exec(s, sql, "recording the schema version");
    if (rc)
        goto rollback;
    return cas__sqlite_commit(s);
rollback:
    cas__sqlite_rollback(s);
    return rc;
}

/* One machine: nobody else plays a game of this file at the same time
 * (the journal's primary key still refuses a second writer). */
static int claim(struct cas__saves *s, int64_t id, int claim)
{
    (void)s;
    (void)id;
    (void)claim;
    return CAS_OK;
}

/* A file on this machine does not go away and come back. */
static int ready(struct cas__saves *s)
{
    (void)s;
    return CAS_OK;
}

const struct cas__saves_methods cas__sqlite_methods = {
    .name = "SQLite",
    .dialect = CAS__SAVES_SQLITE,
    .shared = 0,
    .open = cas__sqlite_open,
    .close = release_store,
    .schema_version = schema_version,
    .integrity_check = integrity_check,
    .migration = migration,
    .game_put = cas__sqlite_game_put,
    .append = cas__sqlite_append,
    .append_batch = cas__sqlite_append_batch,
    .take_back = cas__sqlite_take_back,
    .finish = cas__sqlite_finish,
    .touch = cas__sqlite_touch,
    .rebase = cas__sqlite_rebase,
    .claim = claim,
    .ready = ready,
    .game_load = cas__sqlite_game_load,
    .ids = cas__sqlite_ids,
    .rows = cas__sqlite_rows,
    .statement = cas__sqlite_statement,
    .game_delete = cas__sqlite_game_delete,
    .campaigns = cas__sqlite_campaigns,
    .campaign_standings = cas__sqlite_campaign_standings,
    .served_insert = cas__sqlite_served_insert,
    .served_claim = cas__sqlite_served_claim,
    .served_flag = cas__sqlite_served_flag,
    .served_bot = cas__sqlite_served_bot,
    .served_start = cas__sqlite_served_start,
    .served_load = cas__sqlite_served_load,
    .served_orphans = cas__sqlite_served_orphans,
};
