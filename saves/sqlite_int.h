/*
 * sqlite_int.h — what the SQLite backend's files (sqlite_*.c) share: its
 * part of an open store and small helpers that turn SQLite's failures into
 * messages naming the database file.  Only these files include sqlite3.h.
 */
#ifndef CAS_SAVES_SQLITE_INT_H
#define CAS_SAVES_SQLITE_INT_H

#include <sys/types.h>

#include <sqlite3.h>

#include "saves_int.h"
#include "sql.h"

/* The SQLite backend's part of a store (s->backend). */
struct cas__sqlite {
    sqlite3 *db;
    sqlite3_stmt *append;       /* kept prepared: the journal's hot path */
    sqlite3_stmt *append_timed; /* the same with the actor's clock (schema 3) */
    sqlite3_stmt *touch;        /* a game's last-played time, with every append */
    sqlite3_stmt *begin;        /* BEGIN IMMEDIATE and COMMIT, kept prepared: */
    sqlite3_stmt *commit;       /* every journaled action runs both */
    sqlite3_stmt *touch_at;     /* a game's last-played time, given (group commit) */
    struct cas__saves_touched *touched; /* owned: what touch_at last wrote, or NULL */
    char *snapshot;             /* owned: the private folder of a read-only
                                   store's copy, removed on close; or NULL */
    dev_t file_dev;             /* the file, when counted among the files */
    ino_t file_ino;             /* open in this process (sqlite_store.c) */
    int counted;
};

static inline struct cas__sqlite *cas__sqlite(const struct cas__saves *s)
{
    return s->backend;
}

static inline sqlite3 *cas__sqlite_db(const struct cas__saves *s)
{
    return cas__sqlite(s)->db;
}

/* Explain the SQLite failure of `what` ("reading game 3") in s->err and
 * return the matching CAS_E* code: CAS_ECORRUPT for a damaged file,
 * CAS_ECONFLICT for a busy or locked database or a duplicate key,
 * CAS_ENOMEM, else CAS_EIO. */
int cas__sqlite_fail(struct cas__saves *s, const char *what);

/* Prepare sql on the store's connection, its $N parameters (sql.h) as
 * ?N; on failure explains it and returns the code. */
int cas__sqlite_prepare(struct cas__saves *s, const char *sql, sqlite3_stmt **out);

/* Run statements without parameters (schema, transactions). */
int cas__sqlite_exec(struct cas__saves *s, const char *sql, const char *what);

/* BEGIN IMMEDIATE / COMMIT / ROLLBACK.  rollback never fails: it is the
 * cleanup path, and SQLite has already rolled back if it cannot. */
int cas__sqlite_begin(struct cas__saves *s);
int cas__sqlite_commit(struct cas__saves *s);
void cas__sqlite_rollback(struct cas__saves *s);

/* A copy of text column i, "" for NULL; NULL only on OOM.  Caller frees. */
char *cas__sqlite_text(sqlite3_stmt *st, int i);

/* Run a prepared statement to completion and finalize it. */
int cas__sqlite_step_done(struct cas__saves *s, sqlite3_stmt *st, const char *what);

/* The methods, by file. */
int cas__sqlite_game_put(struct cas__saves *s, struct cas__saves_game *g, int keep_id);
int cas__sqlite_append(struct cas__saves *s, int64_t id, uint32_t ply, int actor,
                       const char *text, uint64_t hash, int64_t clock_ms);
int cas__sqlite_append_batch(struct cas__saves *s, struct cas__saves_entry *list);
int cas__sqlite_take_back(struct cas__saves *s, int64_t id, uint32_t from_ply);
int cas__sqlite_finish(struct cas__saves *s, int64_t id, const int64_t *scores, size_t n);
int cas__sqlite_touch(struct cas__saves *s, int64_t id);
int cas__sqlite_rebase(struct cas__saves *s, int64_t id, uint32_t from_ply,
                       const uint64_t *hashes, size_t n,
                       const struct cas__saves_game *versions);
int cas__sqlite_game_load(struct cas__saves *s, int64_t id, int with_actions,
                          struct cas__saves_game *out);
int cas__sqlite_rows(struct cas__saves *s, const char *sql, int n_params, const char *text,
                     cas__saves_row_fn fn, void *ctx);
int cas__sqlite_ids(struct cas__saves *s, const char *sql, int n_params, const char *text,
                    int64_t **ids, size_t *n);
int cas__sqlite_statement(struct cas__saves *s, const char *sql, int n_params,
                          const char *const *params, cas__saves_row_fn fn, void *ctx,
                          int64_t *changed, const char *what);
int cas__sqlite_game_delete(struct cas__saves *s, int64_t id);
int cas__sqlite_campaigns(struct cas__saves *s, struct cas__saves_campaign **out, size_t *n);
int cas__sqlite_campaign_standings(struct cas__saves *s, const char *name,
                                   struct cas__saves_campaign *summary,
                                   struct cas__saves_standing **out, size_t *n);
int cas__sqlite_served_insert(struct cas__saves *s, const struct cas__saves_served *g);
int cas__sqlite_served_claim(struct cas__saves *s, int64_t game, int seat,
                             const char *name, const char *token_hash);
int cas__sqlite_served_flag(struct cas__saves *s, int64_t game, int seat, int forfeit);
int cas__sqlite_served_bot(struct cas__saves *s, int64_t game, int seat, const char *agent);
int cas__sqlite_served_start(struct cas__saves *s, int64_t game, int64_t first_deadline);
int cas__sqlite_served_load(struct cas__saves *s, int64_t game,
                            struct cas__saves_served *out);
int cas__sqlite_served_orphans(struct cas__saves *s, int64_t **ids, size_t *n);

/* The open method: a file (sqlite_store.c). */
int cas__sqlite_open(const char *path, int target, int read_only, struct cas__saves **out,
                     char *err, size_t errlen);

#endif
