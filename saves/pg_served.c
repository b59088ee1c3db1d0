/*
 * pg_served.c — what `castellan serve` keeps beside the journal, in a
 * PostgreSQL store: served.c's tables (time controls, seats' invite tokens
 * and whether they are open) with the same transactions.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "saves_int.h"

typedef char num_t[24];

static const char *num(num_t buf, int64_t v)
{
    snprintf(buf, sizeof(num_t), "%" PRId64, v);
    return buf;
}

int cas__pg_served_insert(struct cas__saves *s, const struct cas__saves_served *g)
{
    num_t game, base, inc, seat;
    const char *p[] = {num(game, g->game), num(base, g->base_ms), num(inc, g->increment_ms),
                       g->practice ? "1" : "0", g->seed_nonce};
    int rc = cas__pg_begin(s, 0);
    if (rc)
        return rc;
    rc = cas__pg_run(s, "INSERT INTO served_games (game, base_ms, increment_ms, flagged,"
                     " practice, seed_nonce) VALUES ($1, $2, $3, NULL, $4, $5)", 5, p, NULL,
                     "saving the served game");
    for (size_t i = 0; !rc && i < g->n_seats; i++) {
        const char *q[] = {game, num(seat, (int64_t)i), g->seats[i].token,
                           g->seats[i].open ? "1" : "0"};
        rc = cas__pg_run(s, "INSERT INTO served_seats (game, seat, token, open)"
                         " VALUES ($1, $2, $3, $4)", 4, q, NULL, "saving the seats' tokens");
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
    num_t g, st;
    PGresult *res = NULL;
    const char *p[] = {num(g, game), num(st, seat), text};
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
    if ((rc = update_one(s, "UPDATE served_seats SET open = 0, token = $3"
                         " WHERE game = $1 AND seat = $2", game, seat, token_hash,
                         "claiming the seat")) ||
        (rc = update_one(s, "UPDATE players SET name = $3 WHERE game = $1 AND seat = $2",
                         game, seat, name, "naming the player"))) {
        cas__pg_rollback(s);
        return rc;
    }
    return cas__pg_commit(s, -1);
}

int cas__pg_served_flag(struct cas__saves *s, int64_t game, int seat)
{
    num_t g, st;
    const char *p[] = {num(g, game), num(st, seat)};
    return cas__pg_run(s, "UPDATE served_games SET flagged = $2 WHERE game = $1", 2, p, NULL,
                       "recording the flag fall");
}

static int load_seats(struct cas__saves *s, const char *game, struct cas__saves_served *out)
{
    PGresult *res = NULL;
    const char *p[] = {game};
    int rc = cas__pg_run(s, "SELECT seat, token, open FROM served_seats WHERE game = $1"
                         " ORDER BY seat", 1, p, &res, "reading the served seats");
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
        if (!(out->seats[out->n_seats++].token = cas__pg_text(res, i, 1)))
            rc = cas__saves_fail(s, CAS_ENOMEM, "out of memory");
    }
    PQclear(res);
    return rc;
}

int cas__pg_served_load(struct cas__saves *s, int64_t game, struct cas__saves_served *out)
{
    num_t g;
    PGresult *res = NULL;
    const char *p[] = {num(g, game)};
    memset(out, 0, sizeof *out);
    out->game = game;
    int rc = cas__pg_begin(s, 1);
    if (rc)
        return rc;
    if ((rc = cas__pg_run(s, "SELECT base_ms, increment_ms, flagged, practice, seed_nonce"
                          " FROM served_games WHERE game = $1", 1, p, &res,
                          "reading the served game")))
        goto rollback;
    if (PQntuples(res) == 1) {
        out->base_ms = cas__pg_int(res, 0, 0);
        out->increment_ms = cas__pg_int(res, 0, 1);
        out->flagged = PQgetisnull(res, 0, 2) ? -1 : (int)cas__pg_int(res, 0, 2);
        out->practice = (int)cas__pg_int(res, 0, 3);
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
