/*
 * pg_read.c — reading games and campaigns back from a PostgreSQL store,
 * and deleting games: what games.c and campaign.c do for SQLite, each
 * read in one snapshot (repeatable read) while games are being played.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_int.h"

static int out_of_memory(struct cas__saves *s)
{
    return cas__saves_fail(s, CAS_ENOMEM, "out of memory");
}

static int load_header(struct cas__saves *s, int64_t id, const char *gid,
                       struct cas__saves_game *g)
{
    PGresult *res = NULL;
    const char *p[] = {gid};
    int rc = cas__pg_run(s, CAS__SQL_GAME_HEADER, 1, p, &res, "reading the game");
    if (rc)
        return rc;
    if (PQntuples(res) == 0) {
        rc = cas__saves_fail(s, CAS_ENOTFOUND, "there is no game %lld; "
                             "`castellan saves list` shows the saved games",
                             (long long)id);
        goto clear;
    }
    g->id = id;
    if ((!PQgetisnull(res, 0, 0) && !(g->campaign = cas__pg_text(res, 0, 0))) ||
        (!PQgetisnull(res, 0, 4) && !(g->config_text = cas__pg_text(res, 0, 4))) ||
        !(g->castellan_version = cas__pg_text(res, 0, 1)) ||
        !(g->game.id = cas__pg_text(res, 0, 2)) ||
        !(g->game.version = cas__pg_text(res, 0, 3)) ||
        !(g->created_at = cas__pg_text(res, 0, 7)) ||
        !(g->updated_at = cas__pg_text(res, 0, 8))) {
        rc = out_of_memory(s);
        goto clear;
    }
    g->seed = (uint64_t)cas__pg_int(res, 0, 5);
    /* the schema's CHECK allows only these two */
    g->status = strcmp(PQgetvalue(res, 0, 6), "finished") == 0 ? CAS__SAVES_FINISHED
                                                               : CAS__SAVES_PLAYING;
    g->n_actions = (size_t)cas__pg_int(res, 0, 9);
clear:
    PQclear(res);
    return rc;
}

/* Run a query of game gid's rows into a new array of n elements of `size`
 * bytes; fill() stores row i and returns 0 or -1 on OOM. */
static int load_rows(struct cas__saves *s, const char *sql, const char *gid,
                     const char *what, size_t size, void **items, size_t *n,
                     int (*fill)(void *item, const PGresult *res, int row))
{
    PGresult *res = NULL;
    const char *p[] = {gid};
    int rc = cas__pg_run(s, sql, 1, p, &res, what);
    if (rc)
        return rc;
    int rows = PQntuples(res);
    *items = calloc(rows ? (size_t)rows : 1, size);
    if (!*items)
        rc = out_of_memory(s);
    for (int i = 0; !rc && i < rows; i++, (*n)++)
        if (fill((char *)*items + (size_t)i * size, res, i))
            rc = out_of_memory(s);
    PQclear(res);
    return rc;
}

static int fill_expansion(void *item, const PGresult *res, int row)
{
    struct cas__saves_plugin_ref *e = item;
    e->id = cas__pg_text(res, row, 0);
    e->version = cas__pg_text(res, row, 1);
    return e->id && e->version ? 0 : -1;
}

static int fill_option(void *item, const PGresult *res, int row)
{
    struct cas__saves_option *o = item;
    o->key = cas__pg_text(res, row, 0);
    o->value = cas__pg_text(res, row, 1);
    return o->key && o->value ? 0 : -1;
}

static int fill_player(void *item, const PGresult *res, int row)
{
    struct cas__saves_player *p = item;
    p->name = cas__pg_text(res, row, 0);
    p->agent = cas__pg_text(res, row, 1);
    p->has_score = !PQgetisnull(res, row, 2);
    p->score = cas__pg_int(res, row, 2);
    if (!PQgetisnull(res, row, 3) && !(p->registered = cas__pg_text(res, row, 3)))
        return -1;
    return p->name && p->agent ? 0 : -1;
}

static int fill_action(void *item, const PGresult *res, int row)
{
    struct cas__saves_action *a = item;
    a->ply = (uint32_t)cas__pg_int(res, row, 0);
    a->actor = (int)cas__pg_int(res, row, 1);
    a->text = cas__pg_text(res, row, 2);
    a->hash = (uint64_t)cas__pg_int(res, row, 3);
    a->has_clock = !PQgetisnull(res, row, 4);
    a->clock_ms = cas__pg_int(res, row, 4);
    return a->text ? 0 : -1;
}

static int load_actions(struct cas__saves *s, const char *gid, struct cas__saves_game *g)
{
    g->n_actions = 0;
    int rc = load_rows(s, CAS__SQL_ACTIONS_OF, gid, "reading the actions", sizeof *g->actions,
                       (void **)&g->actions, &g->n_actions, fill_action);
    for (size_t i = 0; !rc && i < g->n_actions; i++)
        if (g->actions[i].ply != i)
            rc = cas__saves_fail(s, CAS_ECORRUPT, "game %lld has no action for ply %zu; "
                                 "the journal is damaged", (long long)g->id, i);
    return rc;
}

int cas__pg_game_load(struct cas__saves *s, int64_t id, int with_actions,
                      struct cas__saves_game *out)
{
    char gid[24];
    memset(out, 0, sizeof *out);
    snprintf(gid, sizeof gid, "%" PRId64, id);
    int rc = cas__pg_begin(s, 1);
    if (rc)
        return rc;
    if ((rc = load_header(s, id, gid, out)) ||
        (rc = load_rows(s, CAS__SQL_EXPANSIONS_OF, gid, "reading the expansions",
                        sizeof *out->expansions, (void **)&out->expansions,
                        &out->n_expansions, fill_expansion)) ||
        (rc = load_rows(s, CAS__SQL_OPTIONS_OF, gid, "reading the options",
                        sizeof *out->options, (void **)&out->options, &out->n_options,
                        fill_option)) ||
        (rc = load_rows(s, CAS__SQL_PLAYERS_OF, gid, "reading the players", sizeof *out->players,
                        (void **)&out->players, &out->n_players, fill_player)) ||
        (with_actions && (rc = load_actions(s, gid, out)))) {
        cas__pg_rollback(s);
        cas__saves_game_free(out);
        return rc;
    }
    cas__pg_rollback(s);
    return CAS_OK;
}

/* The most columns a rows query selects. */
#define MOST_COLUMNS 16

int cas__pg_statement(struct cas__saves *s, const char *sql, int n_params,
                      const char *const *params, cas__saves_row_fn fn, void *ctx,
                      int64_t *changed, const char *what)
{
    PGresult *res = NULL;
    const char *cols[MOST_COLUMNS];
    int rc = cas__pg_run(s, sql, n_params, params, &res, what);
    if (rc)
        return rc;
    int rows = PQntuples(res), n_cols = PQnfields(res);
    if (n_cols > MOST_COLUMNS)
        n_cols = MOST_COLUMNS;
    for (int r = 0; fn && !rc && r < rows; r++) {
        for (int i = 0; i < n_cols; i++)
            cols[i] = PQgetisnull(res, r, i) ? NULL : PQgetvalue(res, r, i);
        rc = fn(ctx, cols, n_cols);
    }
    if (!rc && changed)
        *changed = strtoll(PQcmdTuples(res), NULL, 10);
    PQclear(res);
    return rc;
}

int cas__pg_rows(struct cas__saves *s, const char *sql, int n_params, const char *text,
                 cas__saves_row_fn fn, void *ctx)
{
    const char *params[] = {text};
    return cas__pg_statement(s, sql, n_params, params, fn, ctx, NULL, "reading the games");
}

int cas__pg_ids(struct cas__saves *s, const char *sql, int n_params, const char *text,
                int64_t **ids, size_t *n)
{
    PGresult *res = NULL;
    const char *p[] = {text};
    *ids = NULL;
    *n = 0;
    int rc = cas__pg_run(s, sql, n_params, p, &res, "listing the games");
    if (rc)
        return rc;
    int rows = PQntuples(res);
    if (!(*ids = calloc(rows ? (size_t)rows : 1, sizeof **ids)))
        rc = out_of_memory(s);
    for (int i = 0; !rc && i < rows; i++)
        (*ids)[(*n)++] = cas__pg_int(res, i, 0);
    PQclear(res);
    return rc;
}

int cas__pg_game_delete(struct cas__saves *s, int64_t id)
{
    char gid[24];
    PGresult *res = NULL;
    const char *p[] = {gid};
    snprintf(gid, sizeof gid, "%" PRId64, id);
    int rc = cas__pg_run(s, CAS__SQL_GAME_DELETE, 1, p, &res, "deleting the game");
    if (rc)
        return rc;
    if (strcmp(PQcmdTuples(res), "0") == 0)
        rc = cas__saves_fail(s, CAS_ENOTFOUND, "there is no game %lld; "
                             "`castellan saves list` shows the saved games", (long long)id);
    PQclear(res);
    return rc;
}

/* ----------------------------------------------------------- campaigns */

static int fill_summary(const PGresult *res, int row, struct cas__saves_campaign *c)
{
    memset(c, 0, sizeof *c);
    c->name = cas__pg_text(res, row, 0);
    c->games = (size_t)cas__pg_int(res, row, 1);
    c->finished = (size_t)cas__pg_int(res, row, 2);
    c->unfinished = cas__pg_int(res, row, 3);
    c->last_played = cas__pg_text(res, row, 4);
    return c->name && c->last_played ? CAS_OK : CAS_ENOMEM;
}

int cas__pg_campaigns(struct cas__saves *s, struct cas__saves_campaign **out, size_t *n)
{
    PGresult *res = NULL;
    *out = NULL;
    *n = 0;
    int rc = cas__pg_run(s, CAS__SQL_CAMPAIGNS(CAS__PG_BYTEWISE), 0, NULL, &res,
                         "listing the campaigns");
    if (rc)
        return rc;
    int rows = PQntuples(res);
    if (!(*out = calloc(rows ? (size_t)rows : 1, sizeof **out)))
        rc = out_of_memory(s);
    for (int i = 0; !rc && i < rows; i++, (*n)++)
        if (fill_summary(res, i, &(*out)[i]))
            rc = out_of_memory(s);
    PQclear(res);
    if (rc) {
        cas__saves_campaigns_free(*out, *n);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

static int load_standings(struct cas__saves *s, const char *const *p,
                          struct cas__saves_standing **out, size_t *n)
{
    PGresult *res = NULL;
    int rc = cas__pg_run(s, CAS__SQL_STANDINGS(CAS__PG_BYTEWISE), 1, p, &res,
                         "reading the standings");
    if (rc)
        return rc;
    int rows = PQntuples(res);
    if (!(*out = calloc(rows ? (size_t)rows : 1, sizeof **out)))
        rc = out_of_memory(s);
    for (int i = 0; !rc && i < rows; i++, (*n)++) {
        struct cas__saves_standing *row = &(*out)[i];
        row->games = (size_t)cas__pg_int(res, i, 1);
        row->wins = (size_t)cas__pg_int(res, i, 2);
        row->points = cas__pg_int(res, i, 3);
        if (!(row->player = cas__pg_text(res, i, 0)))
            rc = out_of_memory(s);
    }
    PQclear(res);
    return rc;
}

int cas__pg_campaign_standings(struct cas__saves *s, const char *name,
                               struct cas__saves_campaign *summary,
                               struct cas__saves_standing **out, size_t *n)
{
    PGresult *res = NULL;
    const char *p[] = {name};
    *out = NULL;
    *n = 0;
    memset(summary, 0, sizeof *summary);
    int rc = cas__pg_begin(s, 1);
    if (rc)
        return rc;
    if ((rc = cas__pg_run(s, CAS__SQL_CAMPAIGN, 1, p, &res, "reading the campaign")))
        goto rollback;
    if (PQntuples(res) == 0)
        rc = cas__saves_fail(s, CAS_ENOTFOUND, "there is no campaign '%s'; "
                             "`castellan campaign list` shows them", name);
    else if (fill_summary(res, 0, summary))
        rc = out_of_memory(s);
    PQclear(res);
    if (rc || (rc = load_standings(s, p, out, n)))
        goto rollback;
    cas__pg_rollback(s);
    return CAS_OK;
rollback:
    cas__pg_rollback(s);
    free(summary->name);
    free(summary->last_played);
    memset(summary, 0, sizeof *summary);
    cas__saves_standings_free(*out, *n);
    *out = NULL;
    *n = 0;
    return rc;
}
