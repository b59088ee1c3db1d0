/*
 * saves_int.h — what the files of saves/ share among themselves: the open
 * store and small SQLite helpers that turn failures into messages naming
 * the database file; and the entry points of the PostgreSQL backend
 * (pg_*.c), which the public functions dispatch to when s->pg is set.
 */
#ifndef CAS_SAVES_SAVES_INT_H
#define CAS_SAVES_SAVES_INT_H

#include <libpq-fe.h>
#include <sqlite3.h>

#include "saves.h"

struct cas__saves {
    sqlite3 *db;                /* the SQLite backend's, or NULL */
    PGconn *pg;                 /* the PostgreSQL backend's, or NULL */
    char *path;                 /* owned; a URL without its password for PG */
    sqlite3_stmt *append;       /* kept prepared: the journal's hot path */
    sqlite3_stmt *append_timed; /* the same with the actor's clock (schema 3) */
    int pg_append_prepared;     /* PG: the same, prepared on the server */
    char err[1024];
    char *snapshot;             /* owned: the private folder of a read-only
                                   store's copy, removed on close; or NULL */
};

/* Format a message into s->err, prefixed with the database path, and
 * return code. */
int cas__saves_fail(struct cas__saves *s, int code, const char *fmt, ...)
    CAS_PRINTF(3, 4);

/* Explain the SQLite failure of `what` ("reading game 3") in s->err and
 * return the matching CAS_E* code: CAS_ECORRUPT for a damaged file,
 * CAS_ECONFLICT for a busy or locked database or a duplicate key,
 * CAS_ENOMEM, else CAS_EIO. */
int cas__saves_sql_fail(struct cas__saves *s, const char *what);

/* Prepare sql on s->db; on failure explains it and returns the code. */
int cas__saves_prepare(struct cas__saves *s, const char *sql,
                       sqlite3_stmt **out);

/* Run statements without parameters (schema, transactions). */
int cas__saves_exec(struct cas__saves *s, const char *sql, const char *what);

/* BEGIN IMMEDIATE / COMMIT / ROLLBACK.  rollback never fails: it is the
 * cleanup path, and SQLite has already rolled back if it cannot. */
int cas__saves_begin(struct cas__saves *s);
int cas__saves_commit(struct cas__saves *s);
void cas__saves_rollback(struct cas__saves *s);

/* A copy of text column i, "" for NULL; NULL only on OOM.  Caller frees. */
char *cas__saves_column_text(sqlite3_stmt *st, int i);

/* Make room for one more element of `size` bytes in *items holding n of
 * *cap, doubling; new room is zeroed.  0, or -1 on OOM (*items intact). */
int cas__saves_grow(void **items, size_t n, size_t *cap, size_t size);

/* The ids of the rows sql selects (one column), binding text (may be
 * NULL) to ?1.  Caller frees *ids with free(). */
int cas__saves_ids(struct cas__saves *s, const char *sql, const char *text, int64_t **ids,
                   size_t *n);

/* Bring the schema from its current user_version up to `target`, each
 * migration in its own transaction.  The first also sets application_id. */
int cas__saves_migrate(struct cas__saves *s, int from, int target);

/* Columns: name, games, finished, newest unfinished id, last played; both
 * backends read campaign summaries with it. */
#define CAS__SAVES_SUMMARY_SQL                                              \
    "SELECT c.name, count(g.id),"                                           \
    " count(CASE WHEN g.status = 'finished' THEN 1 END),"                   \
    " coalesce(max(CASE WHEN g.status = 'playing' THEN g.id END), 0),"      \
    " coalesce(max(g.updated_at), c.created_at)"                            \
    " FROM campaigns c LEFT JOIN games g ON g.campaign_id = c.id"

/* Field `which` (0: id, key or name; 1: version, value or agent) of item i
 * of a game's expansions, options or players, for code that inserts them
 * as rows (game, position, a, b). */
const char *cas__saves_expansion_field(const void *items, size_t i, int which);
const char *cas__saves_option_field(const void *items, size_t i, int which);
const char *cas__saves_player_field(const void *items, size_t i, int which);

/* One step of a schema: brings it from version - 1 to version in one
 * transaction.  Released ones are never edited (schema.c, pg_store.c). */
struct cas__saves_migration {
    int version;
    const char *what;
    const char *sql;
};

/* Insert g as cas__saves_game_insert does; with keep_id under g->id. */
int cas__saves_game_put(struct cas__saves *s, struct cas__saves_game *g, int keep_id);

/* ----------------------------------------- the PostgreSQL backend */

/* Connect to the database at url, check it is castellan's (schema_version)
 * and not newer, and unless read_only create or migrate its schema up to
 * target.  As cas__saves_open otherwise. */
int cas__pg_open(const char *url, int target, int read_only, struct cas__saves **out,
                 char *err, size_t errlen);
void cas__pg_close(struct cas__saves *s);
int cas__pg_schema_version(struct cas__saves *s);
int cas__pg_integrity_check(struct cas__saves *s);
int cas__pg_game_put(struct cas__saves *s, struct cas__saves_game *g, int keep_id);
int cas__pg_append(struct cas__saves *s, int64_t id, uint32_t ply, int actor,
                   const char *text, uint64_t hash, int64_t clock_ms);
int cas__pg_take_back(struct cas__saves *s, int64_t id, uint32_t from_ply);
int cas__pg_finish(struct cas__saves *s, int64_t id, const int64_t *scores, size_t n);
int cas__pg_touch(struct cas__saves *s, int64_t id);
int cas__pg_game_claim(struct cas__saves *s, int64_t id, int claim);
int cas__pg_served_insert(struct cas__saves *s, const struct cas__saves_served *g);
int cas__pg_served_claim(struct cas__saves *s, int64_t game, int seat, const char *name,
                         const char *token_hash);
int cas__pg_served_flag(struct cas__saves *s, int64_t game, int seat);
int cas__pg_served_load(struct cas__saves *s, int64_t game, struct cas__saves_served *out);
int cas__pg_rebase(struct cas__saves *s, int64_t id, uint32_t from_ply,
                   const uint64_t *hashes, size_t n, const struct cas__saves_game *versions);
int cas__pg_game_load(struct cas__saves *s, int64_t id, int with_actions,
                      struct cas__saves_game *out);
/* As cas__saves_ids: with n_params 1, text is $1 (NULL is SQL's NULL);
 * with 0, sql has no parameter. */
int cas__pg_ids(struct cas__saves *s, const char *sql, int n_params, const char *text,
                int64_t **ids, size_t *n);
int cas__pg_game_delete(struct cas__saves *s, int64_t id);
int cas__pg_campaigns(struct cas__saves *s, struct cas__saves_campaign **out, size_t *n);
int cas__pg_campaign_standings(struct cas__saves *s, const char *name,
                               struct cas__saves_campaign *summary,
                               struct cas__saves_standing **out, size_t *n);

/* The first key of castellan's advisory locks ("CASL"): the schema's lock
 * (pg_store.c) is (CASL, 0), a game's claim (CASL, game id). */
#define CAS__PG_LOCK_SPACE "1128354636"

/* Helpers the pg_*.c files share (pg_store.c). */

/* Run sql with text parameters; on success *res holds the result (caller
 * PQclear()s it; NULL to have it cleared).  On failure explains `what`
 * with the server's message and returns the CAS_E* code:
 * CAS_ECONFLICT for a duplicate key or a lock, CAS_ECORRUPT for damaged
 * data, CAS_ENOMEM, else CAS_EIO. */
int cas__pg_run(struct cas__saves *s, const char *sql, int n, const char *const *params,
                PGresult **res, const char *what);
/* Explain the failure of res (NULL: of the connection) as cas__pg_run
 * does and return its code. */
int cas__pg_explain(struct cas__saves *s, PGresult *res, const char *what);
/* BEGIN (read_only: a repeatable-read snapshot), COMMIT (announcing the
 * moments before and after it is sent to `phase`'s probe when phase >= 0),
 * ROLLBACK (never fails: the cleanup path). */
int cas__pg_begin(struct cas__saves *s, int read_only);
int cas__pg_commit(struct cas__saves *s, int phase);
void cas__pg_rollback(struct cas__saves *s);
/* A decimal int64 field of res, 0 when NULL or not a number. */
int64_t cas__pg_int(const PGresult *res, int row, int col);
/* A copy of a text field, "" for NULL; NULL only on OOM.  Caller frees. */
char *cas__pg_text(const PGresult *res, int row, int col);

/* Announce a moment of a phase to cas__saves_probe, if a test set it. */
static inline void cas__saves_announce(enum cas__saves_phase phase,
                                       enum cas__saves_moment moment)
{
    if (cas__saves_probe)
        cas__saves_probe(phase, moment);
}

#endif
