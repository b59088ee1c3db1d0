/*
 * pg_journal.c — writing games into a PostgreSQL store: a game's header
 * with its players, each action in its own transaction as it happens, the
 * final scores, take-backs and the re-hashing a forced resume needs; the
 * same semantics as journal.c gives them in SQLite.
 *
 * All SQL is parameterized (text parameters, 64-bit values as decimal
 * text, uint64 hashes and seeds bit for bit through int64).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pg_int.h"

#define NOW CAS__PG_NOW


/* How many rows the command res changed. */
static long changed(PGresult *res)
{
    return strtol(PQcmdTuples(res), NULL, 10);
}

/* Run a command of game id that must change a row of it, else
 * CAS_ENOTFOUND naming the game. */
static int change_game(struct cas__saves *s, const char *sql, int n, const char *const *p,
                       int64_t id, const char *what)
{
    PGresult *res = NULL;
    int rc = cas__pg_run(s, sql, n, p, &res, what);
    if (rc)
        return rc;
    long rows = changed(res);
    PQclear(res);
    if (rows == 0)
        return cas__saves_fail(s, CAS_ENOTFOUND, "there is no game %lld", (long long)id);
    return CAS_OK;
}

static int touch_game(struct cas__saves *s, int64_t id, const char *status)
{
    cas__pg_num gid;
    const char *p[] = {cas__pg_dec(gid, id), status};
    return change_game(s, CAS__SQL_GAME_TOUCH(NOW), 2, p, id, "updating the game");
}

/* The campaign's id as text into idbuf (NULL for none), creating it. */
static int campaign_id(struct cas__saves *s, const char *name, char *idbuf, size_t cap,
                       const char **id)
{
    PGresult *res = NULL;
    const char *p[] = {name};
    *id = NULL;
    if (!name)
        return CAS_OK;
    int rc = cas__pg_run(s, CAS__SQL_CAMPAIGN_CREATE(NOW), 1, p, NULL,
                         "creating the campaign");
    if (rc || (rc = cas__pg_run(s, CAS__SQL_CAMPAIGN_ID, 1, p, &res, "finding the campaign")))
        return rc;
    if (PQntuples(res) == 1) {
        snprintf(idbuf, cap, "%s", PQgetvalue(res, 0, 0));
        *id = idbuf;
    } else {
        rc = cas__saves_fail(s, CAS_EIO, "finding the campaign failed: it is gone");
    }
    PQclear(res);
    return rc;
}

static int insert_header(struct cas__saves *s, struct cas__saves_game *g,
                         const char *campaign, int keep_id)
{
    cas__pg_num seed, gid;
    PGresult *res = NULL;
    const char *p[] = {
        campaign, g->castellan_version ? g->castellan_version : "", g->game.id,
        g->game.version, g->config_text, cas__pg_dec(seed, (int64_t)g->seed),
        g->status == CAS__SAVES_FINISHED ? "finished" : "playing", g->created_at,
        g->updated_at, keep_id ? cas__pg_dec(gid, g->id) : NULL,
    };
    int rc = cas__pg_run(s, CAS__SQL_GAME_INSERT(NOW, CAS__PG_NEW_GAME_ID), 10, p, &res,
                         "saving the game");
    if (rc)
        return rc;
    g->id = cas__pg_int(res, 0, 0);
    PQclear(res);
    /* A kept id must not be handed out again to a new game. */
    if (keep_id)
        rc = cas__pg_run(s, "SELECT setval(pg_get_serial_sequence('games', 'id'),"
                         " (SELECT max(id) FROM games))", 0, NULL, NULL,
                         "advancing the game ids");
    return rc;
}

/* Insert rows (game, position, a, b) for each of n items. */
static int insert_pairs(struct cas__saves *s, const char *sql, int64_t game, size_t n,
                        const char *(*field)(const void *, size_t, int), const void *items,
                        const char *what)
{
    cas__pg_num gid, pos;
    int rc = CAS_OK;
    for (size_t i = 0; i < n && !rc; i++) {
        const char *p[] = {cas__pg_dec(gid, game), cas__pg_dec(pos, (int64_t)i), field(items, i, 0),
                           field(items, i, 1)};
        rc = cas__pg_run(s, sql, 4, p, NULL, what);
    }
    return rc;
}

static int set_score(struct cas__saves *s, int64_t game, size_t seat, int64_t score)
{
    cas__pg_num gid, pos, value;
    const char *p[] = {cas__pg_dec(gid, game), cas__pg_dec(pos, (int64_t)seat), cas__pg_dec(value, score)};
    return cas__pg_run(s, CAS__SQL_SCORE_SET, 3, p, NULL, "saving the scores");
}

/* The parameters of an action's row; clock_ms < 0: no clock (NULL). */
/* An action's parameters, and APPEND_SQL's last: whether the append
 * writes the game's last-played time too. */
struct action_params {
    cas__pg_num gid, ply, actor, hash, clock;
    const char *p[7];
};

static void action_params(struct action_params *a, int64_t id, uint32_t ply, int actor,
                          const char *text, uint64_t hash, int64_t clock_ms)
{
    a->p[0] = cas__pg_dec(a->gid, id);
    a->p[1] = cas__pg_dec(a->ply, ply);
    a->p[2] = cas__pg_dec(a->actor, actor);
    a->p[3] = text;
    a->p[4] = cas__pg_dec(a->hash, (int64_t)hash);
    a->p[5] = clock_ms >= 0 ? cas__pg_dec(a->clock, clock_ms) : NULL;
    a->p[6] = "t";
}

static int insert_action(struct cas__saves *s, const struct cas__saves_action *a,
                         int64_t id)
{
    struct action_params ap;
    action_params(&ap, id, a->ply, a->actor, a->text, a->hash,
                  a->has_clock ? a->clock_ms : -1);
    return a->has_clock ? cas__pg_run(s, CAS__SQL_ACTION_INSERT_TIMED, 6, ap.p, NULL,
                                      "saving an action")
                        : cas__pg_run(s, CAS__SQL_ACTION_INSERT, 5, ap.p, NULL,
                                      "saving an action");
}

static int insert_rest(struct cas__saves *s, const struct cas__saves_game *g)
{
    int rc;
    if ((rc = insert_pairs(s, CAS__SQL_EXPANSION_INSERT, g->id, g->n_expansions,
                           cas__saves_expansion_field, g->expansions,
                           "saving the expansions")) ||
        (rc = insert_pairs(s, CAS__SQL_OPTION_INSERT, g->id, g->n_options,
                           cas__saves_option_field, g->options, "saving the options")) ||
        (rc = insert_pairs(s, CAS__SQL_PLAYER_INSERT, g->id, g->n_players,
                           cas__saves_player_field, g->players, "saving the players")))
        return rc;
    for (size_t i = 0; i < g->n_players && !rc; i++)
        if (g->players[i].has_score)
            rc = set_score(s, g->id, i, g->players[i].score);
    for (size_t i = 0; i < g->n_actions && !rc; i++)
        rc = insert_action(s, &g->actions[i], g->id);
    return rc;
}

int cas__pg_game_put(struct cas__saves *s, struct cas__saves_game *g, int keep_id)
{
    char campaign_buf[24];
    const char *campaign;
    cas__saves_announce(CAS__SAVES_START, CAS__SAVES_BEGIN);
    int rc = cas__pg_begin(s, 0);
    if (rc)
        return rc;
    if ((rc = campaign_id(s, g->campaign, campaign_buf, sizeof campaign_buf, &campaign)) ||
        (rc = insert_header(s, g, campaign, keep_id)) || (rc = insert_rest(s, g)))
        goto rollback;
    if ((rc = cas__pg_commit(s, CAS__SAVES_START))) {
        g->id = 0;
        return rc;
    }
    cas__saves_announce(CAS__SAVES_START, CAS__SAVES_END);
    return CAS_OK;
rollback:
    cas__pg_rollback(s);
    g->id = 0;
    return rc;
}

/* The action and, unless $7 is false, the game's last-played time in one
 * statement, which is one transaction of its own: one round trip per
 * action.  A ply saved before breaks the primary key (another castellan
 * plays the game); a game that is gone, the foreign key. */
#define APPEND_SQL                                                            \
    "WITH a AS (" CAS__SQL_ACTION_INSERT_TIMED " RETURNING game)"            \
    " UPDATE games SET updated_at = " NOW " WHERE $7 AND id = (SELECT game FROM a)"

/* After an append whose answer never came (the server went away with it),
 * the same action again may find it committed: when the row holds it,
 * actor, text and hash, it was this castellan's, and is not doubled. */
static int committed_before(struct cas__saves *s, const struct action_params *ap)
{
    PGresult *res = NULL;
    int rc = cas__pg_run(s, "SELECT actor, text, hash FROM actions WHERE game = $1 AND ply = $2",
                         2, ap->p, &res, "reading back an action");
    if (rc)
        return 0;
    int same = PQntuples(res) == 1 && strcmp(PQgetvalue(res, 0, 0), ap->p[2]) == 0 &&
               strcmp(PQgetvalue(res, 0, 1), ap->p[3]) == 0 &&
               strcmp(PQgetvalue(res, 0, 2), ap->p[4]) == 0;
    PQclear(res);
    return same;
}

/* Send the prepared append and read its answer: 1 in *sent when the
 * server may have it, whatever came back. */
static int send_append(struct cas__saves *s, const struct action_params *ap, int *sent)
{
    PGresult *res = NULL, *last = NULL;
    int rc;
    *sent = 0;
    cas__saves_announce(CAS__SAVES_APPEND, CAS__SAVES_STEP);
    if (!PQsendQueryPrepared(cas__pg_conn(s), "castellan_append", 7, ap->p, NULL, NULL, 0))
        return cas__pg_explain(s, NULL, "saving an action");
    *sent = 1;
    /* Sent: a kill now leaves the commit to the server, done or not. */
    cas__saves_announce(CAS__SAVES_APPEND, CAS__SAVES_STEP);
    while ((res = PQgetResult(cas__pg_conn(s)))) {
        PQclear(last);
        last = res;
    }
    rc = last && PQresultStatus(last) == PGRES_COMMAND_OK ? CAS_OK
                                                          : cas__pg_explain(s, last, "saving an action");
    PQclear(last);
    return rc;
}

/* The append statement, prepared once per connection. */
static int prepare_append(struct cas__saves *s)
{
    struct cas__pg *pg = s->backend;
    if (pg->append_prepared)
        return CAS_OK;
    int rc = cas__pg_run(s, "PREPARE castellan_append AS " APPEND_SQL, 0, NULL, NULL,
                         "preparing to save actions");
    pg->append_prepared = rc == CAS_OK;
    return rc;
}

/* The index of (game, ply) among the actions in doubt; n_doubts if none. */
static size_t find_doubt(const struct cas__pg *pg, int64_t game, uint32_t ply)
{
    size_t i = 0;
    while (i < pg->n_doubts && (pg->doubts[i].game != game || pg->doubts[i].ply != ply))
        i++;
    return i;
}

/* Remember (game, ply) as sent and unanswered: it may be committed. */
static void add_doubt(struct cas__pg *pg, int64_t game, uint32_t ply)
{
    if (find_doubt(pg, game, ply) == pg->n_doubts &&
        cas__saves_grow((void **)&pg->doubts, pg->n_doubts, &pg->cap_doubts,
                        sizeof *pg->doubts) == 0)
        pg->doubts[pg->n_doubts++] = (struct cas__pg_doubt){game, ply};
}

int cas__pg_append(struct cas__saves *s, int64_t id, uint32_t ply, int actor,
                   const char *text, uint64_t hash, int64_t clock_ms)
{
    struct cas__pg *pg = s->backend;
    struct action_params ap;
    action_params(&ap, id, ply, actor, text, hash, clock_ms);
    int rc, sent = 0;
    cas__saves_announce(CAS__SAVES_APPEND, CAS__SAVES_BEGIN);
    if ((rc = cas__pg_ready(s)) || (rc = cas__pg_check_lost(s, id)) ||
        (rc = prepare_append(s)))
        return rc;
    size_t doubt = find_doubt(pg, id, ply);
    rc = send_append(s, &ap, &sent);
    if (rc == CAS_ECONFLICT && doubt < pg->n_doubts && committed_before(s, &ap))
        rc = CAS_OK;
    if (rc == CAS_EUNAVAILABLE && sent) {
        /* Unanswered: the server may have committed it before it went away. */
        add_doubt(pg, id, ply);
    } else if (rc != CAS_EUNAVAILABLE && doubt < pg->n_doubts) {
        pg->doubts[doubt] = pg->doubts[--pg->n_doubts];
    }
    if (rc == CAS_OK)
        cas__saves_announce(CAS__SAVES_APPEND, CAS__SAVES_END);
    return rc;
}

/* Queue BEGIN, the append of every entry and COMMIT on the pipeline, and
 * the sync that sends them: 1 when all are queued.  A game's last-played
 * time is written once a second (cas__saves_touched_before), as SQLite's
 * group commit writes it. */
static int queue_batch(struct cas__pg *pg, const struct cas__saves_entry *list)
{
    PGconn *conn = pg->conn;
    int64_t second = (int64_t)time(NULL);
    if (!PQsendQueryParams(conn, "BEGIN", 0, NULL, NULL, NULL, NULL, 0))
        return 0;
    for (const struct cas__saves_entry *e = list; e; e = e->next) {
        struct action_params ap;
        action_params(&ap, e->game, e->ply, e->actor, e->text, e->hash, e->clock_ms);
        if (cas__saves_touched_before(&pg->touched, e->game, second))
            ap.p[6] = "f";
        if (!PQsendQueryPrepared(conn, "castellan_append", 7, ap.p, NULL, NULL, 0))
            return 0;
    }
    return PQsendQueryParams(conn, "COMMIT", 0, NULL, NULL, NULL, NULL, 0) &&
           PQpipelineSync(conn);
}

/* Read the pipeline's answers up to its sync: CAS_OK when every statement
 * succeeded, else the first failure explained. */
static int read_batch(struct cas__saves *s)
{
    PGconn *conn = cas__pg_conn(s);
    PGresult *res, *failed = NULL;
    int rc = CAS_OK, nulls = 0;
    for (;;) {
        if (!(res = PQgetResult(conn))) {
            /* One NULL ends each statement's results; two in a row, or a
             * connection gone, and the sync never comes. */
            if (PQstatus(conn) == CONNECTION_BAD || ++nulls > 1)
                break;
            continue;
        }
        nulls = 0;
        ExecStatusType status = PQresultStatus(res);
        if (status == PGRES_PIPELINE_SYNC) {
            PQclear(res);
            break;
        }
        if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK && !failed)
            failed = res;
        else
            PQclear(res);
    }
    if (failed || !res)
        rc = cas__pg_explain(s, failed, "saving actions");
    PQclear(failed);
    return rc;
}

/* Group commit through libpq's pipeline mode: BEGIN, every entry's
 * prepared append and COMMIT go out at once on this connection and their
 * answers come back together, one round trip and one commit (one flush of
 * the server's WAL) for them all.  An entry whose earlier answer was lost
 * (in doubt) makes the list go one by one (CAS_ECONFLICT), where
 * cas__pg_append recognizes it; a connection lost after sending puts
 * every entry in doubt. */
int cas__pg_append_batch(struct cas__saves *s, struct cas__saves_entry *list)
{
    struct cas__pg *pg = s->backend;
    int rc;
    if ((rc = cas__pg_ready(s)) || (rc = prepare_append(s)))
        return rc;
    for (const struct cas__saves_entry *e = list; e; e = e->next) {
        if ((rc = cas__pg_check_lost(s, e->game)))
            return rc;
        if (find_doubt(pg, e->game, e->ply) < pg->n_doubts)
            return cas__saves_fail(s, CAS_ECONFLICT, "game %lld's ply %" PRIu32 " may be "
                                   "saved already (its answer was lost): it is saved alone",
                                   (long long)e->game, e->ply);
    }
    PGconn *conn = cas__pg_conn(s);
    if (!PQenterPipelineMode(conn))
        return cas__pg_explain(s, NULL, "saving actions");
    rc = queue_batch(pg, list) ? read_batch(s) : cas__pg_explain(s, NULL, "saving actions");
    PQexitPipelineMode(conn);
    if (rc != CAS_OK)
        cas__saves_touched_forget(&pg->touched); /* not committed */
    if (rc == CAS_EUNAVAILABLE)
        for (const struct cas__saves_entry *e = list; e; e = e->next)
            add_doubt(pg, e->game, e->ply);
    else if (rc != CAS_OK)
        cas__pg_rollback(s);
    return rc;
}

int cas__pg_take_back(struct cas__saves *s, int64_t id, uint32_t from_ply)
{
    cas__pg_num gid, ply;
    const char *p[] = {cas__pg_dec(gid, id), cas__pg_dec(ply, from_ply)};
    int rc = cas__pg_ready(s);
    if (rc || (rc = cas__pg_check_lost(s, id)) || (rc = cas__pg_begin(s, 0)))
        return rc;
    if ((rc = touch_game(s, id, NULL)) ||
        (rc = cas__pg_run(s, CAS__SQL_ACTIONS_TAKE_BACK, 2, p, NULL, "taking back actions")) ||
        (rc = cas__pg_run(s, CAS__SQL_SNAPSHOTS_TAKE_BACK, 2, p, NULL,
                          "dropping snapshots of taken-back actions"))) {
        cas__pg_rollback(s);
        return rc;
    }
    return cas__pg_commit(s, -1);
}

int cas__pg_touch(struct cas__saves *s, int64_t id)
{
    return touch_game(s, id, NULL);
}

int cas__pg_finish(struct cas__saves *s, int64_t id, const int64_t *scores, size_t n)
{
    cas__saves_announce(CAS__SAVES_FINISH, CAS__SAVES_BEGIN);
    int rc = cas__pg_ready(s);
    if (rc || (rc = cas__pg_check_lost(s, id)) || (rc = cas__pg_begin(s, 0)))
        return rc;
    rc = touch_game(s, id, "finished");
    for (size_t i = 0; i < n && !rc; i++)
        rc = set_score(s, id, i, scores[i]);
    if (rc) {
        cas__pg_rollback(s);
        return rc;
    }
    if ((rc = cas__pg_commit(s, CAS__SAVES_FINISH)))
        return rc;
    cas__saves_announce(CAS__SAVES_FINISH, CAS__SAVES_END);
    return CAS_OK;
}

static int update_versions(struct cas__saves *s, int64_t id,
                           const struct cas__saves_game *v)
{
    cas__pg_num gid, pos;
    const char *p[] = {cas__pg_dec(gid, id), v->game.version, NULL};
    int rc = cas__pg_run(s, CAS__SQL_GAME_VERSION_SET, 2, p, NULL,
                         "recording the game version");
    for (size_t i = 0; i < v->n_expansions && !rc; i++) {
        const char *q[] = {gid, cas__pg_dec(pos, (int64_t)i), v->expansions[i].version};
        rc = cas__pg_run(s, CAS__SQL_EXPANSION_VERSION_SET, 3, q, NULL,
                         "recording an expansion version");
    }
    return rc;
}

int cas__pg_rebase(struct cas__saves *s, int64_t id, uint32_t from_ply,
                   const uint64_t *hashes, size_t n, const struct cas__saves_game *versions)
{
    cas__pg_num gid, ply, hash;
    int rc = cas__pg_begin(s, 0);
    if (rc)
        return rc;
    if ((rc = touch_game(s, id, NULL)) || (rc = update_versions(s, id, versions)))
        goto rollback;
    for (size_t i = 0; i < n && !rc; i++) {
        const char *p[] = {cas__pg_dec(gid, id), cas__pg_dec(ply, (int64_t)from_ply + (int64_t)i),
                           cas__pg_dec(hash, (int64_t)hashes[i])};
        rc = cas__pg_run(s, CAS__SQL_ACTION_HASH_SET, 3, p, NULL, "saving a new hash");
    }
    if (rc)
        goto rollback;
    return cas__pg_commit(s, -1);
rollback:
    cas__pg_rollback(s);
    return rc;
}
