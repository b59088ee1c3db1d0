/*
 * sqlite_served.c — what `castellan serve` keeps beside the journal, in a
 * SQLite store (served.c says what and why).
 *
 * All SQL is parameterized.
 */
#include <stdlib.h>
#include <string.h>

#include "sqlite_int.h"

static int insert_seats(struct cas__saves *s, const struct cas__saves_served *g)
{
    sqlite3_stmt *st;
    int rc = cas__sqlite_prepare(s, CAS__SQL_SEAT_INSERT, &st);
    for (size_t i = 0; !rc && i < g->n_seats; i++) {
        sqlite3_bind_int64(st, 1, g->game);
        sqlite3_bind_int64(st, 2, (int64_t)i);
        sqlite3_bind_text(st, 3, g->seats[i].token, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 4, g->seats[i].open != 0);
        if (g->seats[i].bot)
            sqlite3_bind_text(st, 5, g->seats[i].bot, -1, SQLITE_STATIC);
        else
            sqlite3_bind_null(st, 5);
        if (sqlite3_step(st) != SQLITE_DONE)
            rc = cas__sqlite_fail(s, "saving the seats' tokens");
        sqlite3_reset(st);
    }
    if (st)
        sqlite3_finalize(st);
    return rc;
}

int cas__sqlite_served_insert(struct cas__saves *s, const struct cas__saves_served *g)
{
    sqlite3_stmt *st;
    int rc = cas__sqlite_begin(s);
    if (rc)
        return rc;
    if ((rc = cas__sqlite_prepare(s, CAS__SQL_SERVED_INSERT, &st)))
        goto rollback;
    sqlite3_bind_int64(st, 1, g->game);
    sqlite3_bind_int64(st, 2, g->base_ms);
    sqlite3_bind_int64(st, 3, g->increment_ms);
    sqlite3_bind_int(st, 4, g->practice != 0);
    if (g->seed_nonce)
        sqlite3_bind_text(st, 5, g->seed_nonce, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 6, g->forfeit != 0);
    sqlite3_bind_int(st, 7, g->days_per_move);
    if (g->first_deadline)
        sqlite3_bind_int64(st, 8, g->first_deadline);
    if ((rc = cas__sqlite_step_done(s, st, "saving the served game")) || (rc = insert_seats(s, g)))
        goto rollback;
    return cas__sqlite_commit(s);
rollback:
    cas__sqlite_rollback(s);
    return rc;
}

/* Run `sql` binding (game, seat[, text]) and require one changed row. */
static int update_one(struct cas__saves *s, const char *sql, int64_t game, int seat,
                      const char *text, const char *what)
{
    sqlite3_stmt *st;
    int rc = cas__sqlite_prepare(s, sql, &st);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, game);
    sqlite3_bind_int64(st, 2, seat);
    if (text)
        sqlite3_bind_text(st, 3, text, -1, SQLITE_STATIC);
    if ((rc = cas__sqlite_step_done(s, st, what)))
        return rc;
    if (sqlite3_changes(cas__sqlite_db(s)) != 1)
        return cas__saves_fail(s, CAS_ENOTFOUND, "game %lld has no served seat %d",
                               (long long)game, seat);
    return CAS_OK;
}

int cas__sqlite_served_claim(struct cas__saves *s, int64_t game, int seat,
                             const char *name, const char *token_hash)
{
    int rc = cas__sqlite_begin(s);
    if (rc)
        return rc;
    if ((rc = update_one(s, CAS__SQL_SEAT_CLAIM, game, seat, token_hash,
                         "claiming the seat")) ||
        (rc = update_one(s, CAS__SQL_PLAYER_RENAME, game, seat, name, "naming the player"))) {
        cas__sqlite_rollback(s);
        return rc;
    }
    return cas__sqlite_commit(s);
}

int cas__sqlite_served_flag(struct cas__saves *s, int64_t game, int seat, int forfeit)
{
    sqlite3_stmt *st;
    int rc = cas__sqlite_prepare(s, CAS__SQL_SERVED_FLAG, &st);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, game);
    sqlite3_bind_int64(st, 2, seat);
    sqlite3_bind_int(st, 3, forfeit);
    return cas__sqlite_step_done(s, st, "recording the flag fall");
}

int cas__sqlite_served_start(struct cas__saves *s, int64_t game, int64_t first_deadline)
{
    sqlite3_stmt *st;
    int rc = cas__sqlite_prepare(s, CAS__SQL_SERVED_START, &st);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, game);
    sqlite3_bind_int64(st, 2, first_deadline);
    return cas__sqlite_step_done(s, st, "recording the correspondence clock's start");
}

int cas__sqlite_served_bot(struct cas__saves *s, int64_t game, int seat, const char *agent)
{
    return update_one(s, CAS__SQL_SEAT_BOT, game, seat, agent, "giving the seat to a bot");
}

static int load_seats(struct cas__saves *s, struct cas__saves_served *out)
{
    sqlite3_stmt *st;
    size_t cap = 0;
    int rc = cas__sqlite_prepare(s, CAS__SQL_SEATS_OF, &st), step;
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
            !(out->seats[out->n_seats].token = cas__sqlite_text(st, 1))) {
            rc = cas__saves_fail(s, CAS_ENOMEM, "out of memory");
            goto finalize;
        }
        struct cas__saves_served_seat *seat = &out->seats[out->n_seats++];
        seat->open = sqlite3_column_int(st, 2);
        if (sqlite3_column_type(st, 3) != SQLITE_NULL && !(seat->bot = cas__sqlite_text(st, 3))) {
            rc = cas__saves_fail(s, CAS_ENOMEM, "out of memory");
            goto finalize;
        }
    }
    if (step != SQLITE_DONE)
        rc = cas__sqlite_fail(s, "reading the served seats");
finalize:
    sqlite3_finalize(st);
    return rc;
}

int cas__sqlite_served_load(struct cas__saves *s, int64_t game,
                            struct cas__saves_served *out)
{
    sqlite3_stmt *st;
    memset(out, 0, sizeof *out);
    out->game = game;
    int rc = cas__sqlite_prepare(s, CAS__SQL_SERVED_GAME, &st);
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
        out->forfeit = sqlite3_column_int(st, 5);
        out->days_per_move = sqlite3_column_int(st, 6);
        out->first_deadline = sqlite3_column_int64(st, 7); /* NULL reads 0 */
        if (sqlite3_column_type(st, 4) != SQLITE_NULL &&
            !(out->seed_nonce = cas__sqlite_text(st, 4)))
            rc = cas__saves_fail(s, CAS_ENOMEM, "out of memory");
    } else if (step == SQLITE_DONE) {
        rc = cas__saves_fail(s, CAS_ENOTFOUND, "game %lld is not a served game",
                             (long long)game);
    } else {
        rc = cas__sqlite_fail(s, "reading the served game");
    }
    sqlite3_finalize(st);
    if (rc == CAS_OK && (rc = load_seats(s, out)))
        cas__saves_served_free(out);
    return rc;
}

/* One machine: no other server holds a game of this file, so every
 * unfinished served game is an orphan. */
int cas__sqlite_served_orphans(struct cas__saves *s, int64_t **ids, size_t *n)
{
    return cas__sqlite_ids(s, CAS__SQL_SERVED_UNFINISHED, 0, NULL, ids, n);
}
