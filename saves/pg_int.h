/*
 * pg_int.h — what the PostgreSQL backend's files (pg_*.c) share: its part
 * of an open store and the helpers that run SQL through libpq and turn the
 * server's failures into messages naming the database.  Only these files
 * include libpq-fe.h.
 */
#ifndef CAS_SAVES_PG_INT_H
#define CAS_SAVES_PG_INT_H

#include <libpq-fe.h>

#include "saves_int.h"
#include "sql.h"

/* The PostgreSQL backend's part of a store (s->backend). */
struct cas__pg {
    PGconn *conn;
    char *url;                  /* owned: as given (a password too), to connect again */
    int append_prepared;        /* the journal's hot path, prepared on the server */
    int in_tx;                  /* a transaction of castellan's is open on conn */
    /* The server went away (pg_store.c): why, a connection being made
     * again without blocking, when the next attempt may start and the
     * wait after a failed one (doubling up to a bound). */
    char away[256];
    int connecting;
    PostgresPollingStatusType polling;
    int64_t connect_started_ms, slice_at_ms, retry_at_ms, backoff_ms;
    /* The games claimed through this store, once per claim (the server
     * holds each once; taken again on a new connection), and those another
     * castellan took meanwhile. */
    int64_t *claims, *lost;
    size_t n_claims, cap_claims, n_lost, cap_lost;
    /* Actions sent whose answer never came: each may be committed. */
    struct cas__pg_doubt {
        int64_t game;
        uint32_t ply;
    } *doubts;
    size_t n_doubts, cap_doubts;
    struct cas__saves_touched *touched; /* owned: the group commits' last-played times */
};

static inline PGconn *cas__pg_conn(const struct cas__saves *s)
{
    return ((struct cas__pg *)s->backend)->conn;
}

/* The first key of castellan's advisory locks ("CASL"): the schema's lock
 * (pg_store.c) is (CASL, 0), a game's claim (CASL, game id). */
#define CAS__PG_LOCK_SPACE "1128354636"

/* Room for a decimal int64, and v written into it. */
typedef char cas__pg_num[24];
const char *cas__pg_dec(cas__pg_num buf, int64_t v);

/* CAS_OK when the connection is there; otherwise it is made again,
 * blocking for 20 ms in 100 ms at most, and never sooner than
 * the wait after the last failed attempt: CAS_EUNAVAILABLE (explained)
 * until it is.  Never inside a transaction: its connection is gone. */
int cas__pg_ready(struct cas__saves *s);

/* CAS_ECONFLICT (explained) when another castellan took game id over
 * while the connection was away, else CAS_OK. */
int cas__pg_check_lost(struct cas__saves *s, int64_t id);

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

/* The methods, by file. */
int cas__pg_game_put(struct cas__saves *s, struct cas__saves_game *g, int keep_id);
int cas__pg_append(struct cas__saves *s, int64_t id, uint32_t ply, int actor,
                   const char *text, uint64_t hash, int64_t clock_ms);
int cas__pg_append_batch(struct cas__saves *s, struct cas__saves_entry *list);
int cas__pg_take_back(struct cas__saves *s, int64_t id, uint32_t from_ply);
int cas__pg_finish(struct cas__saves *s, int64_t id, const int64_t *scores, size_t n);
int cas__pg_touch(struct cas__saves *s, int64_t id);
int cas__pg_rebase(struct cas__saves *s, int64_t id, uint32_t from_ply,
                   const uint64_t *hashes, size_t n, const struct cas__saves_game *versions);
int cas__pg_game_load(struct cas__saves *s, int64_t id, int with_actions,
                      struct cas__saves_game *out);
int cas__pg_rows(struct cas__saves *s, const char *sql, int n_params, const char *text,
                 cas__saves_row_fn fn, void *ctx);
int cas__pg_ids(struct cas__saves *s, const char *sql, int n_params, const char *text,
                int64_t **ids, size_t *n);
int cas__pg_statement(struct cas__saves *s, const char *sql, int n_params,
                      const char *const *params, cas__saves_row_fn fn, void *ctx,
                      int64_t *changed, const char *what);
int cas__pg_game_delete(struct cas__saves *s, int64_t id);
int cas__pg_campaigns(struct cas__saves *s, struct cas__saves_campaign **out, size_t *n);
int cas__pg_campaign_standings(struct cas__saves *s, const char *name,
                               struct cas__saves_campaign *summary,
                               struct cas__saves_standing **out, size_t *n);
int cas__pg_served_insert(struct cas__saves *s, const struct cas__saves_served *g);
int cas__pg_served_claim(struct cas__saves *s, int64_t game, int seat, const char *name,
                         const char *token_hash);
int cas__pg_served_flag(struct cas__saves *s, int64_t game, int seat, int forfeit);
int cas__pg_served_bot(struct cas__saves *s, int64_t game, int seat, const char *agent);
int cas__pg_served_start(struct cas__saves *s, int64_t game, int64_t first_deadline);
int cas__pg_served_load(struct cas__saves *s, int64_t game, struct cas__saves_served *out);
int cas__pg_served_orphans(struct cas__saves *s, int64_t **ids, size_t *n);

#endif
