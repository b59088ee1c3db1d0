/*
 * sqlite_read.c — reading games back from a SQLite store (for resume,
 * replay, export and listings) and deleting them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sqlite_int.h"

static int out_of_memory(struct cas__saves *s)
{
    return cas__saves_fail(s, CAS_ENOMEM, "out of memory");
}

/* A file that is ours by its header may still hold rows our schema could
 * never have written (a table rebuilt by hand, a crafted file): say which. */
static int damaged(struct cas__saves *s, int64_t id, const char *what)
{
    return cas__saves_fail(s, CAS_ECORRUPT, "game %lld is damaged: %s; restore the "
                           "file from a backup, or remove the game with `castellan "
                           "saves delete %lld`", (long long)id, what, (long long)id);
}

/* The games columns of load_header's query that the schema makes NOT NULL. */
static const struct {
    int column;
    const char *name;
} required_columns[] = {
    {1, "castellan_version"}, {2, "game_id"}, {3, "game_version"}, {5, "seed"},
    {6, "status"}, {7, "created_at"}, {8, "updated_at"},
};

/* The row's required columns are there and its status is one we write. */
static int check_header_row(struct cas__saves *s, int64_t id, sqlite3_stmt *st)
{
    char what[96];
    for (size_t i = 0; i < sizeof required_columns / sizeof required_columns[0]; i++)
        if (sqlite3_column_type(st, required_columns[i].column) == SQLITE_NULL) {
            snprintf(what, sizeof what, "its %s is NULL", required_columns[i].name);
            return damaged(s, id, what);
        }
    const char *status = (const char *)sqlite3_column_text(st, 6);
    if (!status)
        return cas__saves_fail(s, CAS_ENOMEM, "out of memory");
    if (strcmp(status, "playing") != 0 && strcmp(status, "finished") != 0)
        return damaged(s, id, "its status is neither playing nor finished");
    return CAS_OK;
}

static int load_header(struct cas__saves *s, int64_t id, struct cas__saves_game *g)
{
    sqlite3_stmt *st;
    int rc = cas__sqlite_prepare(s, CAS__SQL_GAME_HEADER, &st);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    int step = sqlite3_step(st);
    if (step == SQLITE_DONE) {
        rc = cas__saves_fail(s, CAS_ENOTFOUND, "there is no game %lld; "
                             "`castellan saves list` shows the saved games",
                             (long long)id);
        goto finalize;
    }
    if (step != SQLITE_ROW) {
        rc = cas__sqlite_fail(s, "reading the game");
        goto finalize;
    }
    if ((rc = check_header_row(s, id, st)))
        goto finalize;
    g->id = id;
    if (sqlite3_column_type(st, 0) != SQLITE_NULL &&
        !(g->campaign = cas__sqlite_text(st, 0)))
        goto oom;
    if (sqlite3_column_type(st, 4) != SQLITE_NULL &&
        !(g->config_text = cas__sqlite_text(st, 4)))
        goto oom;
    g->seed = (uint64_t)sqlite3_column_int64(st, 5);
    g->status = strcmp((const char *)sqlite3_column_text(st, 6), "finished") == 0
                    ? CAS__SAVES_FINISHED : CAS__SAVES_PLAYING; /* checked above */
    g->n_actions = (size_t)sqlite3_column_int64(st, 9);
    if (!(g->castellan_version = cas__sqlite_text(st, 1)) ||
        !(g->game.id = cas__sqlite_text(st, 2)) ||
        !(g->game.version = cas__sqlite_text(st, 3)) ||
        !(g->created_at = cas__sqlite_text(st, 7)) ||
        !(g->updated_at = cas__sqlite_text(st, 8)))
        goto oom;
    goto finalize;
oom:
    rc = out_of_memory(s);
finalize:
    sqlite3_finalize(st);
    return rc;
}

/* A row with a NULL in one of its first n columns. */
static int has_null(sqlite3_stmt *st, int n)
{
    for (int i = 0; i < n; i++)
        if (sqlite3_column_type(st, i) == SQLITE_NULL)
            return 1;
    return 0;
}

/* Run a query of rows (a, b[, score]) of game `id` from `table` into a
 * grown array of elements of `size` bytes; the first `required` columns
 * must not be NULL; fill() stores one row and returns 0 or -1 on OOM. */
static int load_rows(struct cas__saves *s, const char *sql, int64_t id,
                     const char *table, int required, size_t size, void **items,
                     size_t *n, int (*fill)(void *item, sqlite3_stmt *st))
{
    char what[96];
    sqlite3_stmt *st;
    size_t cap = 0;
    int rc = cas__sqlite_prepare(s, sql, &st), step;
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        if (has_null(st, required)) {
            snprintf(what, sizeof what, "a row of its %s holds a NULL", table);
            rc = damaged(s, id, what);
            goto finalize;
        }
        if (cas__saves_grow(items, *n, &cap, size))
            goto oom;
        void *item = (char *)*items + (*n)++ * size;
        if (fill(item, st))
            goto oom;
    }
    if (step != SQLITE_DONE) {
        snprintf(what, sizeof what, "reading the %s", table);
        rc = cas__sqlite_fail(s, what);
    }
    goto finalize;
oom:
    rc = out_of_memory(s);
finalize:
    sqlite3_finalize(st);
    return rc;
}

static int fill_expansion(void *item, sqlite3_stmt *st)
{
    struct cas__saves_plugin_ref *e = item;
    e->id = cas__sqlite_text(st, 0);
    e->version = cas__sqlite_text(st, 1);
    return e->id && e->version ? 0 : -1;
}

static int fill_option(void *item, sqlite3_stmt *st)
{
    struct cas__saves_option *o = item;
    o->key = cas__sqlite_text(st, 0);
    o->value = cas__sqlite_text(st, 1);
    return o->key && o->value ? 0 : -1;
}

static int fill_player(void *item, sqlite3_stmt *st)
{
    struct cas__saves_player *p = item;
    p->name = cas__sqlite_text(st, 0);
    p->agent = cas__sqlite_text(st, 1);
    p->has_score = sqlite3_column_type(st, 2) != SQLITE_NULL;
    p->score = sqlite3_column_int64(st, 2);
    if (sqlite3_column_type(st, 3) != SQLITE_NULL && !(p->registered = cas__sqlite_text(st, 3)))
        return -1;
    return p->name && p->agent ? 0 : -1;
}

static int fill_action(void *item, sqlite3_stmt *st)
{
    struct cas__saves_action *a = item;
    a->ply = (uint32_t)sqlite3_column_int64(st, 0);
    a->actor = sqlite3_column_int(st, 1);
    a->text = cas__sqlite_text(st, 2);
    a->hash = (uint64_t)sqlite3_column_int64(st, 3);
    a->has_clock = sqlite3_column_type(st, 4) != SQLITE_NULL;
    a->clock_ms = sqlite3_column_int64(st, 4);
    return a->text ? 0 : -1;
}

static int load_actions(struct cas__saves *s, struct cas__saves_game *g)
{
    g->n_actions = 0;
    int rc = load_rows(s, CAS__SQL_ACTIONS_OF, g->id, "actions", 4, sizeof *g->actions, (void **)&g->actions, &g->n_actions,
        fill_action);
    for (size_t i = 0; !rc && i < g->n_actions; i++)
        if (g->actions[i].ply != i)
            rc = cas__saves_fail(s, CAS_ECORRUPT, "game %lld has no action "
                                 "for ply %zu; the journal is damaged",
                                 (long long)g->id, i);
    return rc;
}

int cas__sqlite_game_load(struct cas__saves *s, int64_t id, int with_actions,
                          struct cas__saves_game *out)
{
    memset(out, 0, sizeof *out);
    /* One read transaction: a consistent picture while a game is played. */
    int rc = cas__sqlite_exec(s, "BEGIN;", "starting to read");
    if (rc)
        return rc;
    if ((rc = load_header(s, id, out)) ||
        (rc = load_rows(s, CAS__SQL_EXPANSIONS_OF, id, "expansions", 2,
            sizeof *out->expansions, (void **)&out->expansions, &out->n_expansions,
            fill_expansion)) ||
        (rc = load_rows(s, CAS__SQL_OPTIONS_OF, id, "options", 2, sizeof *out->options, (void **)&out->options,
            &out->n_options, fill_option)) ||
        (rc = load_rows(s, CAS__SQL_PLAYERS_OF, id, "players", 2, sizeof *out->players, (void **)&out->players,
            &out->n_players, fill_player)) ||
        (with_actions && (rc = load_actions(s, out))))
        goto fail;
    cas__sqlite_rollback(s);
    return CAS_OK;
fail:
    cas__sqlite_rollback(s);
    cas__saves_game_free(out);
    return rc;
}

/* The most columns a rows query selects. */
#define MOST_COLUMNS 16

int cas__sqlite_statement(struct cas__saves *s, const char *sql, int n_params,
                          const char *const *params, cas__saves_row_fn fn, void *ctx,
                          int64_t *changed, const char *what)
{
    sqlite3_stmt *st;
    const char *cols[MOST_COLUMNS];
    int rc = cas__sqlite_prepare(s, sql, &st), step;
    if (rc)
        return rc;
    int n_cols = sqlite3_column_count(st);
    if (n_cols > MOST_COLUMNS)
        n_cols = MOST_COLUMNS;
    for (int i = 0; i < n_params; i++)
        if (params[i])
            sqlite3_bind_text(st, i + 1, params[i], -1, SQLITE_STATIC);
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        for (int i = 0; i < n_cols; i++)
            cols[i] = (const char *)sqlite3_column_text(st, i);
        if (fn && (rc = fn(ctx, cols, n_cols)))
            goto finalize;
    }
    if (step != SQLITE_DONE)
        rc = cas__sqlite_fail(s, what);
    else if (changed)
        *changed = sqlite3_changes(cas__sqlite_db(s));
finalize:
    sqlite3_finalize(st);
    return rc;
}

int cas__sqlite_rows(struct cas__saves *s, const char *sql, int n_params, const char *text,
                     cas__saves_row_fn fn, void *ctx)
{
    const char *params[] = {text};
    return cas__sqlite_statement(s, sql, n_params, params, fn, ctx, NULL, "reading the games");
}

int cas__sqlite_ids(struct cas__saves *s, const char *sql, int n_params, const char *text,
                    int64_t **ids, size_t *n)
{
    sqlite3_stmt *st;
    size_t cap = 0;
    int rc = cas__sqlite_prepare(s, sql, &st), step;
    *ids = NULL;
    *n = 0;
    if (rc)
        return rc;
    if (n_params && text)
        sqlite3_bind_text(st, 1, text, -1, SQLITE_STATIC);
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        if (cas__saves_grow((void **)ids, *n, &cap, sizeof **ids)) {
            rc = out_of_memory(s);
            goto finalize;
        }
        (*ids)[(*n)++] = sqlite3_column_int64(st, 0);
    }
    if (step != SQLITE_DONE)
        rc = cas__sqlite_fail(s, "listing the games");
finalize:
    sqlite3_finalize(st);
    if (rc) {
        free(*ids);
        *ids = NULL;
        *n = 0;
    }
    return rc;
}

int cas__sqlite_game_delete(struct cas__saves *s, int64_t id)
{
    sqlite3_stmt *st;
    int rc = cas__sqlite_prepare(s, CAS__SQL_GAME_DELETE, &st);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    if (sqlite3_step(st) != SQLITE_DONE)
        rc = cas__sqlite_fail(s, "deleting the game");
    else if (sqlite3_changes(cas__sqlite_db(s)) == 0)
        rc = cas__saves_fail(s, CAS_ENOTFOUND, "there is no game %lld; "
                             "`castellan saves list` shows the saved games",
                             (long long)id);
    sqlite3_finalize(st);
    return rc;
}
