/*
 * saves_int.h — what the files of saves/ share among themselves: the open
 * store, the method table every backend fills, and the helpers of the
 * shared files.  No client library appears here.
 *
 * The store is split as SQLite splits its core from its OS layer: the
 * public functions (store.c, journal.c, games.c, campaign.c, served.c)
 * check what they are given and call the open store's methods, as
 * SQLite's pager calls a file through sqlite3_io_methods; each backend
 * (sqlite_*.c through sqlite3.h, pg_*.c through libpq-fe.h, their own
 * sqlite_int.h and pg_int.h) fills one table and keeps its connection
 * behind s->backend.  The SQL both backends speak is written once (sql.h),
 * and so is the list of migrations (schema.c).
 */
#ifndef CAS_SAVES_SAVES_INT_H
#define CAS_SAVES_SAVES_INT_H

#include "saves.h"

/* The SQL dialects of the backends, to pick a migration's text. */
enum cas__saves_dialect { CAS__SAVES_SQLITE, CAS__SAVES_PG, CAS__SAVES_DIALECTS };

/* One step of a schema: brings it from version - 1 to version in one
 * transaction.  Released ones are never edited (schema.c).  sql is the
 * text both dialects run; where they differ, sql is NULL and each
 * dialect has its own text. */
struct cas__saves_migration {
    int version;
    const char *what;
    const char *sql;
    const char *dialect[CAS__SAVES_DIALECTS];
};

/* X(RETURN, NAME, (PARAMETERS)): every method of a backend.  The table's
 * members and the check that none is missing (cas__saves_missing_method)
 * are both made from this one list.  Each method has the contract of the
 * public function of the same name in saves.h, except where said. */
/* Called for each row a query returns, with its columns as text (NULL for
 * SQL's NULL), valid only during the call; a nonzero return stops the
 * query and is returned by the rows method. */
typedef int (*cas__saves_row_fn)(void *ctx, const char *const *cols, int n_cols);

#define CAS__SAVES_METHODS(X)                                                          \
    /* Open the store `where` names (a file, a URL) into a new *out, migrated          \
     * up to schema `target` unless read_only (cas__saves_open_at,                      \
     * cas__saves_open_read); on failure *out is NULL and err says why. */          \
    X(int, open, (const char *where, int target, int read_only, struct cas__saves **out, \
                  char *err, size_t errlen))                                            \
    /* Close the connection and free s (cas__saves_close announces it). */           \
    X(void, close, (struct cas__saves *s))                                            \
    X(int, ready, (struct cas__saves *s))                                             \
    X(int, schema_version, (struct cas__saves *s))                                    \
    X(int, integrity_check, (struct cas__saves *s))                                   \
    /* Run migration m (its text for this dialect: sql) in one transaction,           \
     * unless another castellan has applied it meanwhile. */                          \
    X(int, migration, (struct cas__saves *s, const struct cas__saves_migration *m,    \
                       const char *sql))                                               \
    /* cas__saves_game_insert (keep_id 0) and cas__saves_game_copy (1); g's plies       \
     * are checked already. */                                                         \
    X(int, game_put, (struct cas__saves *s, struct cas__saves_game *g, int keep_id))  \
    /* cas__saves_append_timed. */                                                     \
    X(int, append, (struct cas__saves *s, int64_t id, uint32_t ply, int actor,         \
                    const char *text, uint64_t hash, int64_t clock_ms))                 \
    /* cas__saves_append_batch: all of list in one transaction, or none. */          \
    X(int, append_batch, (struct cas__saves *s, struct cas__saves_entry *list))       \
    X(int, take_back, (struct cas__saves *s, int64_t id, uint32_t from_ply))          \
    X(int, finish, (struct cas__saves *s, int64_t id, const int64_t *scores, size_t n))\
    X(int, touch, (struct cas__saves *s, int64_t id))                                 \
    X(int, rebase, (struct cas__saves *s, int64_t id, uint32_t from_ply,              \
                    const uint64_t *hashes, size_t n,                                   \
                    const struct cas__saves_game *versions))                            \
    /* cas__saves_game_claim (claim 1) and cas__saves_game_release (0). */             \
    X(int, claim, (struct cas__saves *s, int64_t id, int claim))                      \
    X(int, game_load, (struct cas__saves *s, int64_t id, int with_actions,            \
                       struct cas__saves_game *out))                                   \
    /* The ids the query sql (sql.h) selects in its one column; with n_params         \
     * 1, text is $1 (NULL: SQL's NULL), with 0 sql has no parameter.  Caller         \
     * frees *ids. */                                                                  \
    X(int, ids, (struct cas__saves *s, const char *sql, int n_params, const char *text,\
                 int64_t **ids, size_t *n))                                             \
    /* Every row the query sql (sql.h) selects, in order, to fn; parameters as     \
     * for ids. */                                                                     \
    X(int, rows, (struct cas__saves *s, const char *sql, int n_params, const char *text,\
                  cas__saves_row_fn fn, void *ctx))                                     \
    /* One statement sql (sql.h) with n_params text parameters (NULL: SQL's        \
     * NULL): each row it returns to fn (NULL: rows are ignored), the number of        \
     * rows it changed into *changed (NULL: not wanted); `what` names it in a          \
     * failure ("renaming the player").  A duplicate key is CAS_ECONFLICT. */          \
    X(int, statement, (struct cas__saves *s, const char *sql, int n_params,            \
                       const char *const *params, cas__saves_row_fn fn, void *ctx,      \
                       int64_t *changed, const char *what))                             \
    X(int, game_delete, (struct cas__saves *s, int64_t id))                           \
    X(int, campaigns, (struct cas__saves *s, struct cas__saves_campaign **out,        \
                       size_t *n))                                                     \
    X(int, campaign_standings, (struct cas__saves *s, const char *name,               \
                                struct cas__saves_campaign *summary,                    \
                                struct cas__saves_standing **out, size_t *n))           \
    X(int, served_insert, (struct cas__saves *s, const struct cas__saves_served *g))  \
    X(int, served_claim, (struct cas__saves *s, int64_t game, int seat,               \
                          const char *name, const char *token_hash))                    \
    X(int, served_flag, (struct cas__saves *s, int64_t game, int seat, int forfeit))  \
    X(int, served_bot, (struct cas__saves *s, int64_t game, int seat,                 \
                        const char *agent))                                             \
    X(int, served_start, (struct cas__saves *s, int64_t game, int64_t first_deadline))\
    X(int, served_load, (struct cas__saves *s, int64_t game,                          \
                         struct cas__saves_served *out))                               \
    X(int, served_orphans, (struct cas__saves *s, int64_t **ids, size_t *n))

#define CAS__SAVES_METHOD_MEMBER(ret, name, params) ret(*name) params;

/* A backend: its name, dialect and methods.  Each backend defines one
 * with designated initializers (sqlite_store.c, pg_store.c). */
struct cas__saves_methods {
    const char *name;                 /* "SQLite", "PostgreSQL" */
    enum cas__saves_dialect dialect;
    /* Other castellans may use the store at the same time from other
     * machines (cas__saves_shared). */
    int shared;
    CAS__SAVES_METHODS(CAS__SAVES_METHOD_MEMBER)
};

extern const struct cas__saves_methods cas__sqlite_methods;
extern const struct cas__saves_methods cas__pg_methods;

/* The name of the first method m lacks, or NULL when it has them all:
 * the stores refuse to open with such a table, and a test checks every
 * backend's. */
const char *cas__saves_missing_method(const struct cas__saves_methods *m);

struct cas__saves {
    const struct cas__saves_methods *methods;
    void *backend;              /* the backend's own: struct cas__sqlite, cas__pg */
    char *path;                 /* owned; a URL without its password for PG */
    uint64_t journal_commits;   /* cas__saves_journal_commits */
    /* A reference: the writer's connection that holds this store's claims
     * (cas__saves_writer_hold_claims); NULL: its own. */
    struct cas__saves_claims *claims;
    char err[1024];
};

/* The connection a journal writer shares with the stores whose claims it
 * holds (writer.c): its thread's batches and their claims take turns on
 * it.  Counted: the writer and each such store hold a reference. */
struct cas__saves_claims;
/* cas__saves_game_claim (claim 1) or _release (0) of s, whose claims are
 * held elsewhere: on that connection while its writer runs (a failure's
 * message copied into s), else on s's own. */
int cas__saves_claim_through(struct cas__saves *s, int64_t id, int claim);
/* Whether the connection holding s's claims is ready (cas__saves_ready),
 * made again if the database server closed it: a failure's message copied
 * into s.  CAS_OK once its writer stopped. */
int cas__saves_claims_ready(struct cas__saves *s);
/* Let go of a reference (NULL is fine); the last frees it. */
void cas__saves_claims_drop(struct cas__saves_claims *c);

/* The last-played times a connection's group commits wrote, by game (a
 * slot per hash of its id; a game whose slot another took is written
 * again): updated_at counts whole seconds, so a game that moves several
 * times a second has the same time written once, not at every action.
 * Only committed times are kept: a failed batch forgets them all. */
struct cas__saves_touched;
/* 1 when *t holds game's time of `second` (no need to write it again);
 * else 0, and *t holds it from now on (made on first use; out of memory,
 * it holds nothing). */
int cas__saves_touched_before(struct cas__saves_touched **t, int64_t game, int64_t second);
/* Forget every time (*t freed and NULL). */
void cas__saves_touched_forget(struct cas__saves_touched **t);

/* A new store of backend m named path in messages (copied), with a zeroed
 * backend part of backend_size bytes; NULL on OOM.  cas__saves_free frees
 * both (the backend first closes what it holds). */
struct cas__saves *cas__saves_new(const struct cas__saves_methods *m, const char *path,
                                  size_t backend_size);
void cas__saves_free(struct cas__saves *s);

/* Format a message into s->err, prefixed with the database path, and
 * return code. */
int cas__saves_fail(struct cas__saves *s, int code, const char *fmt, ...)
    CAS_PRINTF(3, 4);

/* Make room for one more element of `size` bytes in *items holding n of
 * *cap, doubling; new room is zeroed.  0, or -1 on OOM (*items intact). */
int cas__saves_grow(void **items, size_t n, size_t *cap, size_t size);

/* Bring the schema from version `from` up to `target`, each migration in
 * its own transaction (the backend's migration method). */
int cas__saves_migrate(struct cas__saves *s, int from, int target);

/* The migrations, oldest first (n of them), and the text one runs in a
 * dialect (NULL: it has none, which cas__saves_migrate refuses). */
const struct cas__saves_migration *cas__saves_migrations(size_t *n);
const char *cas__saves_migration_sql(const struct cas__saves_migration *m,
                                     enum cas__saves_dialect dialect);

/* Field `which` (0: id, key or name; 1: version, value or agent) of item i
 * of a game's expansions, options or players, for code that inserts them
 * as rows (game, position, a, b). */
const char *cas__saves_expansion_field(const void *items, size_t i, int which);
const char *cas__saves_option_field(const void *items, size_t i, int which);
const char *cas__saves_player_field(const void *items, size_t i, int which);

/* s's method name, told to cas__saves_call_hook first: every public
 * function reaches its backend through this. */
#define CAS__SAVES_METHOD(s, name) (cas__saves_calling(#name), (s)->methods->name)
static inline void cas__saves_calling(const char *method)
{
    if (cas__saves_call_hook)
        cas__saves_call_hook(method);
}

/* Announce a moment of a phase to cas__saves_probe, if a test set it. */
static inline void cas__saves_announce(enum cas__saves_phase phase,
                                       enum cas__saves_moment moment)
{
    if (cas__saves_probe)
        cas__saves_probe(phase, moment);
}

#endif
