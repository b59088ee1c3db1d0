/*
 * results.c — the results of finished games in bulk (saves.h): ratings
 * read every finished game of a store, and one game_load per game (six
 * queries each) would make that minutes for a club's history; two queries
 * read them all.  The server's lobby reads the last few served ones the
 * same way.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "saves_int.h"
#include "sql.h"

struct reading {
    struct cas__saves *s;
    struct cas__saves_result *results;
    size_t n, cap;
    size_t cursor;                /* results[cursor] takes the next expansion */
};

static int out_of_memory(struct cas__saves *s)
{
    return cas__saves_fail(s, CAS_ENOMEM, "out of memory reading the results");
}

static int64_t number(const char *text)
{
    return text ? strtoll(text, NULL, 10) : 0;
}

static char *copy(const char *text)
{
    return strdup(text ? text : "");
}

/* A seat: cols = id, game_id, updated_at, flagged, forfeit, seat, name,
 * agent, score, registered name, served. */
static int take_seat(void *ctx, const char *const *cols, int n_cols)
{
    struct reading *r = ctx;
    if (n_cols < 11)
        return cas__saves_fail(r->s, CAS_ECORRUPT, "a result row has %d columns", n_cols);
    int64_t id = number(cols[0]);
    if (r->n == 0 || r->results[r->n - 1].id != id) {
        if (cas__saves_grow((void **)&r->results, r->n, &r->cap, sizeof *r->results))
            return out_of_memory(r->s);
        struct cas__saves_result *g = &r->results[r->n++];
        g->id = id;
        g->flagged = (int)number(cols[3]);
        g->forfeit = (int)number(cols[4]);
        g->served = number(cols[10]) != 0;
        if (!(g->game_id = copy(cols[1])) || !(g->finished = copy(cols[2])) ||
            !(g->expansions = copy("")))
            return out_of_memory(r->s);
    }
    struct cas__saves_result *g = &r->results[r->n - 1];
    struct cas__saves_player *more = realloc(g->players, (g->n_players + 1) * sizeof *more);
    if (!more)
        return out_of_memory(r->s);
    g->players = more;
    struct cas__saves_player *p = &more[g->n_players++];
    memset(p, 0, sizeof *p);
    p->has_score = cols[8] != NULL;
    p->score = number(cols[8]);
    if (!(p->name = copy(cols[6])) || !(p->agent = copy(cols[7])) ||
        (cols[9] && !(p->registered = copy(cols[9]))))
        return out_of_memory(r->s);
    return CAS_OK;
}

/* An expansion: cols = game, expansion_id; both queries go by game id. */
static int take_expansion(void *ctx, const char *const *cols, int n_cols)
{
    struct reading *r = ctx;
    if (n_cols < 2)
        return cas__saves_fail(r->s, CAS_ECORRUPT, "an expansion row has %d columns", n_cols);
    int64_t id = number(cols[0]);
    while (r->cursor < r->n && r->results[r->cursor].id < id)
        r->cursor++;
    if (r->cursor == r->n || r->results[r->cursor].id != id)
        return CAS_OK; /* a game finished between the two queries */
    struct cas__saves_result *g = &r->results[r->cursor];
    size_t had = strlen(g->expansions), len = strlen(cols[1] ? cols[1] : "");
    char *more = realloc(g->expansions, had + len + 2);
    if (!more)
        return out_of_memory(r->s);
    g->expansions = more;
    if (had)
        more[had++] = '+';
    memcpy(more + had, cols[1] ? cols[1] : "", len + 1);
    return CAS_OK;
}

static int by_finish(const void *a, const void *b)
{
    const struct cas__saves_result *x = a, *y = b;
    int c = strcmp(x->finished, y->finished);
    return c ? c : (x->id > y->id) - (x->id < y->id);
}

/* The results the two queries select with parameter `param`, in the
 * order they were finished. */
static int read_results(struct cas__saves *s, const char *seats_sql,
                        const char *expansions_sql, const char *param,
                        struct cas__saves_result **out, size_t *n)
{
    struct reading r = {.s = s};
    int rc = CAS__SAVES_METHOD(s, rows)(s, seats_sql, 1, param, take_seat, &r);
    if (rc == CAS_OK)
        rc = CAS__SAVES_METHOD(s, rows)(s, expansions_sql, 1, param, take_expansion, &r);
    if (rc) {
        cas__saves_results_free(r.results, r.n);
        return rc;
    }
    if (r.n) /* qsort's array may not be NULL, even empty */
        qsort(r.results, r.n, sizeof *r.results, by_finish);
    *out = r.results;
    *n = r.n;
    return CAS_OK;
}

int cas__saves_results(struct cas__saves *s, const char *since,
                       struct cas__saves_result **out, size_t *n)
{
    return read_results(s, CAS__SQL_RESULT_SEATS_WHERE(CAS__SQL_RESULT_SINCE),
                        CAS__SQL_RESULT_EXPANSIONS_WHERE(CAS__SQL_RESULT_SINCE), since,
                        out, n);
}

int cas__saves_served_recent(struct cas__saves *s, unsigned limit,
                             struct cas__saves_result **out, size_t *n)
{
    char text[16];
    snprintf(text, sizeof text, "%u", limit);
    return read_results(s, CAS__SQL_RESULT_SEATS_WHERE(CAS__SQL_RESULT_RECENT_SERVED),
                        CAS__SQL_RESULT_EXPANSIONS_WHERE(CAS__SQL_RESULT_RECENT_SERVED),
                        text, out, n);
}

void cas__saves_results_free(struct cas__saves_result *r, size_t n)
{
    for (size_t i = 0; r && i < n; i++) {
        for (size_t p = 0; p < r[i].n_players; p++) {
            free(r[i].players[p].name);
            free(r[i].players[p].agent);
            free(r[i].players[p].registered);
        }
        free(r[i].players);
        free(r[i].game_id);
        free(r[i].expansions);
        free(r[i].finished);
    }
    free(r);
}
