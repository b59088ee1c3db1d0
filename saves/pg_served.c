/*
 * pg_served.c — what `castellan serve` keeps beside the journal, in a
 * PostgreSQL store: served.c's tables (time controls, seats' invite tokens
 * and whether they are open) with the same transactions.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_int.h"


int cas__pg_served_insert(struct cas__saves *s, const struct cas__saves_served *g)
{
    cas__pg_num game, base, inc, seat, days, first;
    const char *p[] = {cas__pg_dec(game, g->game), cas__pg_dec(base, g->base_ms),
                       cas__pg_dec(inc, g->increment_ms), g->practice ? "1" : "0",
                       g->seed_nonce, g->forfeit ? "1" : "0",
                       cas__pg_dec(days, g->days_per_move),
                       g->first_deadline ? cas__pg_dec(first, g->first_deadline) : NULL};
    int rc = cas__pg_begin(s, 0);
    if (rc)
        return rc;
    rc = cas__pg_run(s, CAS__SQL_SERVED_INSERT, 8, p, NULL, "saving the served game");
    for (size_t i = 0; !rc && i < g->n_seats; i++) {
        const char *q[] = {game, cas__pg_dec(seat, (int64_t)i), g->seats[i].token,
                           g->seats[i].open ? "1" : "0", g->seats[i].bot};
        rc = cas__pg_run(s, CAS__SQL_SEAT_INSERT, 5, q, NULL, "saving the seats' tokens");
    }
    if (rc) {
        cas__pg_rollback(s);
        return rc;
    }
    return cas__pg_commit(s, -1);
}

/* Run sql with (game, seat[, text]); it must change exactly one row. */
static int update_one(struct cas__saves *s, const char *sql, int64_t game, int seat,
                      const char *text, const char *what)
{
    cas__pg_num g, st;
    PGresult *res = NULL;
    const char *p[] = {cas__pg_dec(g, game), cas__pg_dec(st, seat), text};
    int rc = cas__pg_run(s, sql, text ? 3 : 2, p, &res, what);
    if (rc)
        return rc;
    if (strcmp(PQcmdTuples(res), "1") != 0)
        rc = cas__saves_fail(s, CAS_ENOTFOUND, "game %lld has no served seat %d",
                             (long long)game, seat);
    PQclear(res);
    return rc;
}

int cas__pg_served_claim(struct cas__saves *s, int64_t game, int seat, const char *name,
                         const char *token_hash)
{
    int rc = cas__pg_begin(s, 0);
    if (rc)
        return rc;
    if ((rc = update_one(s, CAS__SQL_SEAT_CLAIM, game, seat, token_hash,
                         "claiming the seat")) ||
        (rc = update_one(s, CAS__SQL_PLAYER_RENAME, game, seat, name, "naming the player"))) {
        cas__pg_rollback(s);
        return rc;
    }
    return cas__pg_commit(s, -1);
}

int cas__pg_served_flag(struct cas__saves *s, int64_t game, int seat, int forfeit)
{
    cas__pg_num g, st;
    const char *p[] = {cas__pg_dec(g, game), cas__pg_dec(st, seat), forfeit ? "1" : "0"};
    return cas__pg_run(s, CAS__SQL_SERVED_FLAG, 3, p, NULL, "recording the flag fall");
}

int cas__pg_served_bot(struct cas__saves *s, int64_t game, int seat, const char *agent)
{
    return update_one(s, CAS__SQL_SEAT_BOT, game, seat, agent, "giving the seat to a bot");
}

int cas__pg_served_start(struct cas__saves *s, int64_t game, int64_t first_deadline)
{
    cas__pg_num g, first;
    const char *p[] = {cas__pg_dec(g, game), cas__pg_dec(first, first_deadline)};
    return cas__pg_run(s, CAS__SQL_SERVED_START, 2, p, NULL,
                       "recording the correspondence clock's start");
}

static int load_seats(struct cas__saves *s, const char *game, struct cas__saves_served *out)
{
    PGresult *res = NULL;
    const char *p[] = {game};
    int rc = cas__pg_run(s, CAS__SQL_SEATS_OF, 1, p, &res, "reading the served seats");
    if (rc)
        return rc;
    int rows = PQntuples(res);
    if (!(out->seats = calloc(rows ? (size_t)rows : 1, sizeof *out->seats)))
        rc = cas__saves_fail(s, CAS_ENOMEM, "out of memory");
    for (int i = 0; !rc && i < rows; i++) {
        if (cas__pg_int(res, i, 0) != i) {
            rc = cas__saves_fail(s, CAS_ECORRUPT, "served game %lld lacks seat %d; the "
                                 "store is damaged", (long long)out->game, i);
            break;
        }
        out->seats[i].open = (int)cas__pg_int(res, i, 2);
        struct cas__saves_served_seat *seat = &out->seats[out->n_seats++];
        if (!(seat->token = cas__pg_text(res, i, 1)) ||
            (!PQgetisnull(res, i, 3) && !(seat->bot = cas__pg_text(res, i, 3))))
            rc = cas__saves_fail(s, CAS_ENOMEM, "out of memory");
    }
    PQclear(res);
    return rc;
}

int cas__pg_served_load(struct cas__saves *s, int64_t game, struct cas__saves_served *out)
{
    cas__pg_num g;
    PGresult *res = NULL;
    const char *p[] = {cas__pg_dec(g, game)};
    memset(out, 0, sizeof *out);
    out->game = game;
    int rc = cas__pg_begin(s, 1);
    if (rc)
        return rc;
    if ((rc = cas__pg_run(s, CAS__SQL_SERVED_GAME, 1, p, &res, "reading the served game")))
        goto rollback;
    if (PQntuples(res) == 1) {
        out->base_ms = cas__pg_int(res, 0, 0);
        out->increment_ms = cas__pg_int(res, 0, 1);
        out->flagged = PQgetisnull(res, 0, 2) ? -1 : (int)cas__pg_int(res, 0, 2);
        out->practice = (int)cas__pg_int(res, 0, 3);
        out->forfeit = (int)cas__pg_int(res, 0, 5);
        out->days_per_move = (int)cas__pg_int(res, 0, 6);
        out->first_deadline = PQgetisnull(res, 0, 7) ? 0 : cas__pg_int(res, 0, 7);
        if (!PQgetisnull(res, 0, 4) && !(out->seed_nonce = cas__pg_text(res, 0, 4)))
            rc = cas__saves_fail(s, CAS_ENOMEM, "out of memory");
    } else {
        rc = cas__saves_fail(s, CAS_ENOTFOUND, "game %lld is not a served game",
                             (long long)game);
    }
    PQclear(res);
    if (rc == CAS_OK && (rc = load_seats(s, g, out)))
        cas__saves_served_free(out);
rollback:
    cas__pg_rollback(s);
    return rc;
}

/* A claim is the advisory lock (CASL, id): pg_locks shows it held. */
int cas__pg_served_orphans(struct cas__saves *s, int64_t **ids, size_t *n)
{
    return cas__pg_ids(s, CAS__SQL_SERVED_PLAYING " AND NOT EXISTS"
                       " (SELECT 1 FROM pg_locks k WHERE k.locktype = 'advisory'"
                       " AND k.granted AND k.database = (SELECT oid FROM pg_database"
                       " WHERE datname = current_database())"
                       " AND k.classid = " CAS__PG_LOCK_SPACE "::bigint::oid"
                       " AND k.objid = g.id::oid AND k.objsubid = 2)"
                       " ORDER BY g.id", 0, NULL, ids, n);
}
