/*
 * served.c — what `castellan serve` keeps beside the journal: which games
 * it hosts, their time control, each seat's invite token and whether the
 * seat is still open, so a restarted server brings every unfinished game
 * back with the links its players hold.
 *
 * All SQL is parameterized.
 */
#include <stdlib.h>
#include <string.h>

#include "saves_int.h"

void cas__saves_served_free(struct cas__saves_served *g)
{
    for (size_t i = 0; g->seats && i < g->n_seats; i++)
        free(g->seats[i].token);
    free(g->seats);
    free(g->seed_nonce);
    memset(g, 0, sizeof *g);
}

static int step_done(struct cas__saves *s, sqlite3_stmt *st, const char *what)
{
    int rc = sqlite3_step(st) == SQLITE_DONE ? CAS_OK : cas__saves_sql_fail(s, what);
    sqlite3_finalize(st);
    return rc;
}

static int insert_seats(struct cas__saves *s, const struct cas__saves_served *g)
{
    sqlite3_stmt *st;
    int rc = cas__saves_prepare(s,
        "INSERT INTO served_seats (game, seat, token, open) VALUES (?1, ?2, ?3, ?4);", &st);
    for (size_t i = 0; !rc && i < g->n_seats; i++) {
        sqlite3_bind_int64(st, 1, g->game);
        sqlite3_bind_int64(st, 2, (int64_t)i);
        sqlite3_bind_text(st, 3, g->seats[i].token, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 4, g->seats[i].open != 0);
        if (sqlite3_step(st) != SQLITE_DONE)
            rc = cas__saves_sql_fail(s, "saving the seats' tokens");
        sqlite3_reset(st);
    }
    if (st)
        sqlite3_finalize(st);
    return rc;
}

int cas__saves_served_insert(struct cas__saves *s, const struct cas__saves_served *g)
{
    if (s->pg)
        return cas__pg_served_insert(s, g);
    sqlite3_stmt *st;
    int rc = cas__saves_begin(s);
    if (rc)
        return rc;
    if ((rc = cas__saves_prepare(s,
             "INSERT INTO served_games (game, base_ms, increment_ms, flagged, practice,"
             " seed_nonce) VALUES (?1, ?2, ?3, NULL, ?4, ?5);", &st)))
        goto rollback;
    sqlite3_bind_int64(st, 1, g->game);
    sqlite3_bind_int64(st, 2, g->base_ms);
    sqlite3_bind_int64(st, 3, g->increment_ms);
    sqlite3_bind_int(st, 4, g->practice != 0);
    if (g->seed_nonce)
        sqlite3_bind_text(st, 5, g->seed_nonce, -1, SQLITE_STATIC);
    if ((rc = step_done(s, st, "saving the served game")) || (rc = insert_seats(s, g)))
        goto rollback;
    return cas__saves_commit(s);
rollback:
    cas__saves_rollback(s);
    return rc;
}

/* Run `sql` binding (game, seat[, text]) and require one changed row. */
static int update_one(struct cas__saves *s, const char *sql, int64_t game, int seat,
                      const char *text, const char *what)
{
    sqlite3_stmt *st;
    int rc = cas__saves_prepare(s, sql, &st);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, game);
    sqlite3_bind_int64(st, 2, seat);
    if (text)
        sqlite3_bind_text(st, 3, text, -1, SQLITE_STATIC);
    if ((rc = step_done(s, st, what)))
        return rc;
    if (sqlite3_changes(s->db) != 1)
        return cas__saves_fail(s, CAS_ENOTFOUND, "game %lld has no served seat %d",
                               (long long)game, seat);
    return CAS_OK;
}

int cas__saves_served_claim(struct cas__saves *s, int64_t game, int seat, const char *name,
                            const char *token_hash)
{
    if (s->pg)
        return cas__pg_served_claim(s, game, seat, name, token_hash);
    int rc = cas__saves_begin(s);
    if (rc)
        return rc;
    if ((rc = update_one(s, "UPDATE served_seats SET open = 0, token = ?3"
                         " WHERE game = ?1 AND seat = ?2;", game, seat, token_hash,
                         "claiming the seat")) ||
        (rc = update_one(s, "UPDATE players SET name = ?3 WHERE game = ?1 AND seat = ?2;",
                         game, seat, name, "naming the player"))) {
        cas__saves_rollback(s);
        return rc;
    }
    return cas__saves_commit(s);
}

int cas__saves_served_flag(struct cas__saves *s, int64_t game, int seat)
{
    if (s->pg)
        return cas__pg_served_flag(s, game, seat);
    sqlite3_stmt *st;
    int rc = cas__saves_prepare(s, "UPDATE served_games SET flagged = ?2 WHERE game = ?1;",
                                &st);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, game);
    sqlite3_bind_int64(st, 2, seat);
    return step_done(s, st, "recording the flag fall");
}

static int load_seats(struct cas__saves *s, struct cas__saves_served *out)
{
    sqlite3_stmt *st;
    size_t cap = 0;
    int rc = cas__saves_prepare(s,
        "SELECT seat, token, open FROM served_seats WHERE game = ?1 ORDER BY seat;", &st), step;
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, out->game);
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        if (sqlite3_column_int64(st, 0) != (int64_t)out->n_seats) {
            rc = cas__saves_fail(s, CAS_ECORRUPT, "served game %lld lacks seat %zu; the "
                                 "store is damaged", (long long)out->game, out->n_seats);
            goto finalize;
        }
        if (cas__saves_grow((void **)&out->seats, out->n_seats, &cap, sizeof *out->seats) ||
            !(out->seats[out->n_seats].token = cas__saves_column_text(st, 1))) {
            rc = cas__saves_fail(s, CAS_ENOMEM, "out of memory");
            goto finalize;
        }
        out->seats[out->n_seats++].open = sqlite3_column_int(st, 2);
    }
    if (step != SQLITE_DONE)
        rc = cas__saves_sql_fail(s, "reading the served seats");
finalize:
    sqlite3_finalize(st);
    return rc;
}

int cas__saves_served_load(struct cas__saves *s, int64_t game, struct cas__saves_served *out)
{
    if (s->pg)
        return cas__pg_served_load(s, game, out);
    sqlite3_stmt *st;
    memset(out, 0, sizeof *out);
    out->game = game;
    int rc = cas__saves_prepare(s,
        "SELECT base_ms, increment_ms, flagged, practice, seed_nonce FROM served_games"
        " WHERE game = ?1;", &st);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, game);
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW) {
        out->base_ms = sqlite3_column_int64(st, 0);
        out->increment_ms = sqlite3_column_int64(st, 1);
        out->flagged = sqlite3_column_type(st, 2) == SQLITE_NULL ? -1
                                                                : sqlite3_column_int(st, 2);
        out->practice = sqlite3_column_int(st, 3);
        if (sqlite3_column_type(st, 4) != SQLITE_NULL &&
            !(out->seed_nonce = cas__saves_column_text(st, 4)))
            rc = cas__saves_fail(s, CAS_ENOMEM, "out of memory");
    } else if (step == SQLITE_DONE) {
        rc = cas__saves_fail(s, CAS_ENOTFOUND, "game %lld is not a served game",
                             (long long)game);
    } else {
        rc = cas__saves_sql_fail(s, "reading the served game");
    }
    sqlite3_finalize(st);
    if (rc == CAS_OK && (rc = load_seats(s, out)))
        cas__saves_served_free(out);
    return rc;
}

int cas__saves_served_unfinished(struct cas__saves *s, int64_t **ids, size_t *n)
{
    if (s->pg)
        return cas__pg_ids(s, "SELECT g.id FROM games g JOIN served_games v ON v.game = g.id"
                           " WHERE g.status = 'playing' AND v.flagged IS NULL"
                           " ORDER BY g.id", 0, NULL, ids, n);
    return cas__saves_ids(s,
        "SELECT g.id FROM games g JOIN served_games v ON v.game = g.id"
        " WHERE g.status = 'playing' AND v.flagged IS NULL ORDER BY g.id;", NULL, ids, n);
}

int cas__saves_served_orphans(struct cas__saves *s, int64_t **ids, size_t *n)
{
    if (!s->pg)
        return cas__saves_served_unfinished(s, ids, n);
    /* A claim is the advisory lock (CASL, id): pg_locks shows it held. */
    return cas__pg_ids(s, "SELECT g.id FROM games g JOIN served_games v ON v.game = g.id"
                       " WHERE g.status = 'playing' AND v.flagged IS NULL AND NOT EXISTS"
                       " (SELECT 1 FROM pg_locks k WHERE k.locktype = 'advisory'"
                       " AND k.granted AND k.database = (SELECT oid FROM pg_database"
                       " WHERE datname = current_database())"
                       " AND k.classid = " CAS__PG_LOCK_SPACE "::bigint::oid"
                       " AND k.objid = g.id::oid AND k.objsubid = 2)"
                       " ORDER BY g.id", 0, NULL, ids, n);
}
