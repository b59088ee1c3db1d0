/*
 * sqlite_journal.c — writing games into a SQLite store: a game's header with its
 * players, each action in its own transaction as it happens, the final
 * scores, and the re-hashing a forced resume needs.
 *
 * All SQL is parameterized; names and action texts never become SQL.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sqlite_int.h"

#define NOW CAS__SQLITE_NOW

/* Text is bound SQLITE_STATIC throughout saves/: every string outlives the
 * step that reads it, and a copy could fail unnoticed (binds are not
 * checked), leaving the parameter NULL. */
static void bind_text_or_null(sqlite3_stmt *st, int i, const char *text)
{
    if (text)
        sqlite3_bind_text(st, i, text, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, i);
}

/* The campaign's id, creating it if it is new; 0 for no campaign. */
static int campaign_id(struct cas__saves *s, const char *name, int64_t *id)
{
    sqlite3_stmt *st;
    *id = 0;
    if (!name)
        return CAS_OK;
    int rc = cas__sqlite_prepare(s, CAS__SQL_CAMPAIGN_CREATE(NOW), &st);
    if (rc)
        return rc;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    if ((rc = cas__sqlite_step_done(s, st, "creating the campaign")))
        return rc;
    if ((rc = cas__sqlite_prepare(s, CAS__SQL_CAMPAIGN_ID, &st)))
        return rc;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW)
        *id = sqlite3_column_int64(st, 0);
    else
        rc = cas__sqlite_fail(s, "finding the campaign");
    sqlite3_finalize(st);
    return rc;
}

/* The game's row, under a new id or (keep_id) under g->id. */
static int insert_header(struct cas__saves *s, struct cas__saves_game *g,
                         int64_t campaign, int keep_id)
{
    sqlite3_stmt *st;
    int rc = cas__sqlite_prepare(s, CAS__SQL_GAME_INSERT(NOW, CAS__SQLITE_NEW_GAME_ID), &st);
    if (rc)
        return rc;
    if (keep_id)
        sqlite3_bind_int64(st, 10, g->id);
    else
        sqlite3_bind_null(st, 10);
    if (campaign)
        sqlite3_bind_int64(st, 1, campaign);
    else
        sqlite3_bind_null(st, 1);
    sqlite3_bind_text(st, 2, g->castellan_version ? g->castellan_version : "", -1,
                      SQLITE_STATIC);
    sqlite3_bind_text(st, 3, g->game.id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, g->game.version, -1, SQLITE_STATIC);
    bind_text_or_null(st, 5, g->config_text);
    sqlite3_bind_int64(st, 6, (int64_t)g->seed);
    sqlite3_bind_text(st, 7, g->status == CAS__SAVES_FINISHED ? "finished" : "playing",
                      -1, SQLITE_STATIC);
    bind_text_or_null(st, 8, g->created_at);
    bind_text_or_null(st, 9, g->updated_at);
    if (sqlite3_step(st) == SQLITE_ROW)
        g->id = sqlite3_column_int64(st, 0);
    else
        rc = cas__sqlite_fail(s, "saving the game");
    sqlite3_finalize(st);
    return rc;
}

/* Insert rows (game, position, a, b[, score]) for each of n items. */
static int insert_pairs(struct cas__saves *s, const char *sql, int64_t game,
                        size_t n, const char *(*field)(const void *, size_t, int),
                        const void *items, const char *what)
{
    sqlite3_stmt *st;
    int rc = cas__sqlite_prepare(s, sql, &st);
    if (rc)
        return rc;
    for (size_t i = 0; i < n && !rc; i++) {
        sqlite3_bind_int64(st, 1, game);
        sqlite3_bind_int64(st, 2, (int64_t)i);
        sqlite3_bind_text(st, 3, field(items, i, 0), -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 4, field(items, i, 1), -1, SQLITE_STATIC);
        if (sqlite3_step(st) != SQLITE_DONE)
            rc = cas__sqlite_fail(s, what);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return rc;
}

/* Scores are set separately: they exist only for finished games. */
static int update_scores(struct cas__saves *s, int64_t game,
                         const int64_t *scores, const int *has, size_t n)
{
    sqlite3_stmt *st;
    int rc = cas__sqlite_prepare(s, CAS__SQL_SCORE_SET, &st);
    if (rc)
        return rc;
    for (size_t i = 0; i < n && !rc; i++) {
        if (has && !has[i])
            continue;
        sqlite3_bind_int64(st, 1, game);
        sqlite3_bind_int64(st, 2, (int64_t)i);
        sqlite3_bind_int64(st, 3, scores[i]);
        if (sqlite3_step(st) != SQLITE_DONE)
            rc = cas__sqlite_fail(s, "saving the scores");
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return rc;
}

static int insert_players(struct cas__saves *s, const struct cas__saves_game *g)
{
    int rc = insert_pairs(s, CAS__SQL_PLAYER_INSERT, g->id, g->n_players,
                          cas__saves_player_field, g->players, "saving the players");
    if (rc || g->n_players == 0)
        return rc;
    int64_t *scores = calloc(g->n_players, sizeof *scores);
    int *has = calloc(g->n_players, sizeof *has);
    if (!scores || !has) {
        rc = cas__saves_fail(s, CAS_ENOMEM, "out of memory");
        goto free_scores;
    }
    for (size_t i = 0; i < g->n_players; i++) {
        scores[i] = g->players[i].score;
        has[i] = g->players[i].has_score;
    }
    rc = update_scores(s, g->id, scores, has, g->n_players);
free_scores:
    free(scores);
    free(has);
    return rc;
}

/* The kept statement that appends an action, timed or not (sql.h). */
static int prepare_append(struct cas__saves *s, int timed, sqlite3_stmt **out)
{
    struct cas__sqlite *q = cas__sqlite(s);
    sqlite3_stmt **kept = timed ? &q->append_timed : &q->append;
    int rc = *kept ? CAS_OK
                   : cas__sqlite_prepare(s, timed ? CAS__SQL_ACTION_INSERT_TIMED
                                                  : CAS__SQL_ACTION_INSERT, kept);
    *out = *kept;
    return rc;
}

/* Insert one action with the kept statement, inside or outside a
 * transaction; clock_ms < 0: no clock. */
static int insert_action(struct cas__saves *s, int64_t id, uint32_t ply,
                         int actor, const char *text, uint64_t hash, int64_t clock_ms)
{
    sqlite3_stmt *st;
    int rc = prepare_append(s, clock_ms >= 0, &st);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_int64(st, 2, ply);
    sqlite3_bind_int(st, 3, actor);
    sqlite3_bind_text(st, 4, text, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 5, (int64_t)hash);
    if (clock_ms >= 0)
        sqlite3_bind_int64(st, 6, clock_ms);
    if (sqlite3_step(st) != SQLITE_DONE)
        rc = cas__sqlite_fail(s, "saving an action");
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc;
}

int cas__sqlite_game_put(struct cas__saves *s, struct cas__saves_game *g, int keep_id)
{
    int64_t campaign;
    int rc;
    cas__saves_announce(CAS__SAVES_START, CAS__SAVES_BEGIN);
    if ((rc = cas__sqlite_begin(s)))
        return rc;
    if ((rc = campaign_id(s, g->campaign, &campaign)) ||
        (rc = insert_header(s, g, campaign, keep_id)) ||
        (rc = insert_pairs(s, CAS__SQL_EXPANSION_INSERT, g->id, g->n_expansions,
                           cas__saves_expansion_field, g->expansions,
                           "saving the expansions")) ||
        (rc = insert_pairs(s, CAS__SQL_OPTION_INSERT, g->id, g->n_options,
                           cas__saves_option_field, g->options, "saving the options")) ||
        (rc = insert_players(s, g)))
        goto rollback;
    for (size_t i = 0; i < g->n_actions; i++) {
        const struct cas__saves_action *a = &g->actions[i];
        if ((rc = insert_action(s, g->id, a->ply, a->actor, a->text, a->hash,
                                a->has_clock ? a->clock_ms : -1)))
            goto rollback;
    }
    if ((rc = cas__sqlite_commit(s))) {
        g->id = 0;
        return rc;
    }
    cas__saves_announce(CAS__SAVES_START, CAS__SAVES_END);
    return CAS_OK;
rollback:
    cas__sqlite_rollback(s);
    g->id = 0;
    return rc;
}

static int touch_game(struct cas__saves *s, int64_t id, const char *status);

int cas__sqlite_append(struct cas__saves *s, int64_t id, uint32_t ply, int actor,
                       const char *text, uint64_t hash, int64_t clock_ms)
{
    /* One transaction: the action and the game's last-played time. */
    cas__saves_announce(CAS__SAVES_APPEND, CAS__SAVES_BEGIN);
    int rc = cas__sqlite_begin(s);
    if (rc)
        return rc;
    if ((rc = insert_action(s, id, ply, actor, text, hash, clock_ms)) || (rc = touch_game(s, id, NULL))) {
        cas__sqlite_rollback(s);
        return rc;
    }
    if ((rc = cas__sqlite_commit(s)) == CAS_OK)
        cas__saves_announce(CAS__SAVES_APPEND, CAS__SAVES_END);
    return rc;
}

/* Run the kept statement *kept (sql, prepared on first use) that updates
 * game id's row with $2 = text; CAS_ENOTFOUND when there is no such game.
 * Kept prepared, as the append is: every journaled action touches its
 * game, and preparing the statement cost as much as running it. */
static int run_touch(struct cas__saves *s, sqlite3_stmt **kept, const char *sql, int64_t id,
                     const char *text)
{
    int rc = *kept ? CAS_OK : cas__sqlite_prepare(s, sql, kept);
    if (rc)
        return rc;
    sqlite3_stmt *st = *kept;
    sqlite3_bind_int64(st, 1, id);
    bind_text_or_null(st, 2, text);
    rc = sqlite3_step(st) == SQLITE_DONE ? CAS_OK : cas__sqlite_fail(s, "updating the game");
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc)
        return rc;
    if (sqlite3_changes(cas__sqlite_db(s)) == 0)
        return cas__saves_fail(s, CAS_ENOTFOUND, "there is no game %lld", (long long)id);
    return CAS_OK;
}

/* Set game id's last-played time to `now` (second `second`) unless this
 * connection's group commits wrote that time for it already
 * (cas__saves_touched_before); a game that is gone shows there
 * (CAS_ENOTFOUND) or in its action's foreign key. */
static int touch_game_at(struct cas__saves *s, int64_t id, int64_t second, const char *now)
{
    struct cas__sqlite *q = cas__sqlite(s);
    if (cas__saves_touched_before(&q->touched, id, second))
        return CAS_OK;
    return run_touch(s, &q->touch_at, "UPDATE games SET updated_at = $2 WHERE id = $1", id, now);
}

/* Group commit: the actions of several games (or several of one) and
 * their games' last-played times in one transaction, so one WAL append
 * serves them all.  A failure of any rolls back all: the caller learns
 * which one by appending them one at a time. */
int cas__sqlite_append_batch(struct cas__saves *s, struct cas__saves_entry *list)
{
    /* One time for the batch, as SQLite's 'now' would write it
     * (CAS__SQLITE_NOW): the batch is one moment. */
    time_t second = time(NULL);
    struct tm utc;
    char now[32];
    if (!gmtime_r(&second, &utc) || !strftime(now, sizeof now, CAS__SAVES_TIME_FORMAT, &utc))
        return cas__saves_fail(s, CAS_EIO, "the system clock cannot be read as a date");
    int rc = cas__sqlite_begin(s);
    if (rc)
        return rc;
    for (const struct cas__saves_entry *e = list; e; e = e->next)
        if ((rc = insert_action(s, e->game, e->ply, e->actor, e->text, e->hash,
                                e->clock_ms)) ||
            (rc = touch_game_at(s, e->game, (int64_t)second, now)))
            goto rollback;
    if ((rc = cas__sqlite_commit(s)) == CAS_OK)
        return CAS_OK;
rollback:
    cas__sqlite_rollback(s);
    cas__saves_touched_forget(&cas__sqlite(s)->touched); /* not committed */
    return rc;
}

/* Delete game id's rows of `what` (actions, snapshots) from `from_ply`
 * on (for snapshots: taken after more plies than from_ply). */
static int delete_from(struct cas__saves *s, int64_t id, uint32_t from_ply, const char *sql,
                       const char *what)
{
    sqlite3_stmt *st;
    int rc = cas__sqlite_prepare(s, sql, &st);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_int64(st, 2, from_ply);
    return cas__sqlite_step_done(s, st, what);
}

int cas__sqlite_take_back(struct cas__saves *s, int64_t id, uint32_t from_ply)
{
    int rc = cas__sqlite_begin(s);
    if (rc)
        return rc;
    if ((rc = touch_game(s, id, NULL)) ||
        (rc = delete_from(s, id, from_ply, CAS__SQL_ACTIONS_TAKE_BACK,
                          "taking back actions")) ||
        (rc = delete_from(s, id, from_ply, CAS__SQL_SNAPSHOTS_TAKE_BACK,
                          "dropping snapshots of taken-back actions")))
        goto rollback;
    return cas__sqlite_commit(s);
rollback:
    cas__sqlite_rollback(s);
    return rc;
}

static int touch_game(struct cas__saves *s, int64_t id, const char *status)
{
    return run_touch(s, &cas__sqlite(s)->touch, CAS__SQL_GAME_TOUCH(NOW), id, status);
}

int cas__sqlite_touch(struct cas__saves *s, int64_t id)
{
    return touch_game(s, id, NULL);
}

int cas__sqlite_finish(struct cas__saves *s, int64_t id, const int64_t *scores, size_t n)
{
    cas__saves_announce(CAS__SAVES_FINISH, CAS__SAVES_BEGIN);
    int rc = cas__sqlite_begin(s);
    if (rc)
        return rc;
    if ((rc = touch_game(s, id, "finished")) ||
        (rc = update_scores(s, id, scores, NULL, n)))
        goto rollback;
    if ((rc = cas__sqlite_commit(s)))
        return rc;
    cas__saves_announce(CAS__SAVES_FINISH, CAS__SAVES_END);
    return CAS_OK;
rollback:
    cas__sqlite_rollback(s);
    return rc;
}

static int update_versions(struct cas__saves *s, int64_t id,
                           const struct cas__saves_game *v)
{
    sqlite3_stmt *st;
    int rc = cas__sqlite_prepare(s, CAS__SQL_GAME_VERSION_SET, &st);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_text(st, 2, v->game.version, -1, SQLITE_STATIC);
    if ((rc = cas__sqlite_step_done(s, st, "recording the game version")))
        return rc;
    if ((rc = cas__sqlite_prepare(s, CAS__SQL_EXPANSION_VERSION_SET, &st)))
        return rc;
    for (size_t i = 0; i < v->n_expansions && !rc; i++) {
        sqlite3_bind_int64(st, 1, id);
        sqlite3_bind_int64(st, 2, (int64_t)i);
        sqlite3_bind_text(st, 3, v->expansions[i].version, -1, SQLITE_STATIC);
        if (sqlite3_step(st) != SQLITE_DONE)
            rc = cas__sqlite_fail(s, "recording an expansion version");
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return rc;
}

static int update_hashes(struct cas__saves *s, int64_t id, uint32_t from_ply,
                         const uint64_t *hashes, size_t n)
{
    sqlite3_stmt *st;
    int rc = cas__sqlite_prepare(s, CAS__SQL_ACTION_HASH_SET, &st);
    if (rc)
        return rc;
    for (size_t i = 0; i < n && !rc; i++) {
        sqlite3_bind_int64(st, 1, id);
        sqlite3_bind_int64(st, 2, (int64_t)from_ply + (int64_t)i);
        sqlite3_bind_int64(st, 3, (int64_t)hashes[i]);
        if (sqlite3_step(st) != SQLITE_DONE)
            rc = cas__sqlite_fail(s, "saving a new hash");
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return rc;
}

int cas__sqlite_rebase(struct cas__saves *s, int64_t id, uint32_t from_ply,
                       const uint64_t *hashes, size_t n,
                       const struct cas__saves_game *versions)
{
    int rc = cas__sqlite_begin(s);
    if (rc)
        return rc;
    if ((rc = touch_game(s, id, NULL)) ||
        (rc = update_versions(s, id, versions)) ||
        (rc = update_hashes(s, id, from_ply, hashes, n)))
        goto rollback;
    return cas__sqlite_commit(s);
rollback:
    cas__sqlite_rollback(s);
    return rc;
}
