/*
 * saves_int.h — what the files of saves/ share among themselves: the open
 * store and small SQLite helpers that turn failures into messages naming
 * the database file.
 */
#ifndef CAS_SAVES_SAVES_INT_H
#define CAS_SAVES_SAVES_INT_H

#include <sqlite3.h>

#include "saves.h"

struct cas__saves {
    sqlite3 *db;
    char *path;                 /* owned */
    sqlite3_stmt *append;       /* kept prepared: the journal's hot path */
    sqlite3_stmt *append_timed; /* the same with the actor's clock (schema 3) */
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

/* Announce a moment of a phase to cas__saves_probe, if a test set it. */
static inline void cas__saves_announce(enum cas__saves_phase phase,
                                       enum cas__saves_moment moment)
{
    if (cas__saves_probe)
        cas__saves_probe(phase, moment);
}

#endif
