/*
 * ratings_pools.c — ratings recomputed from the store (ratings.h): every
 * finished game read once, put in the order it was finished, and rated in
 * its pool.  Nothing is kept between runs, so a rating is always what the
 * store's games say.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ratings.h"
#include "saves.h"

/* A pool being built: its players, found by name through an open-addressed
 * index of (hash, player) slots, twice as many as players at least. */
struct building {
    struct cas__rating_pool pool;
    size_t cap;
    size_t *slot;              /* player index + 1; 0 is empty */
    size_t n_slots;
};

static void pool_free(struct cas__rating_pool *p)
{
    for (size_t i = 0; i < p->n_players; i++) {
        free(p->players[i].name);
        free(p->players[i].last_played);
    }
    free(p->players);
    free(p->name);
}

/* The pool a game belongs to, into buf. */
static const char *pool_name(const struct cas__saves_result *g, enum cas__pool_by by,
                             char *buf, size_t cap)
{
    if (by == CAS__POOL_MIX && g->expansions[0])
        snprintf(buf, cap, "%s+%s", g->game_id, g->expansions);
    else
        snprintf(buf, cap, "%s", g->game_id);
    return buf;
}

int cas__rating_is_bot(const struct cas__saves_player *p)
{
    return strcmp(p->agent, "human") != 0;
}

const char *cas__rating_identity(const struct cas__saves_player *p)
{
    if (cas__rating_is_bot(p))
        return p->agent;
    return p->registered ? p->registered : p->name;
}

static int same_player(const struct cas__saves_player *a, const struct cas__saves_player *b)
{
    return cas__rating_is_bot(a) == cas__rating_is_bot(b) &&
           strcmp(cas__rating_identity(a), cas__rating_identity(b)) == 0;
}

/* Places by final score; the seat whose flag fell places last alone. */
static void places(const struct cas__saves_result *g, int *place)
{
    long long scores[CAS__RATING_MAX_PLAYERS];
    for (size_t i = 0; i < g->n_players; i++)
        scores[i] = (long long)g->players[i].score;
    int flagged = g->flagged;
    if (flagged >= 0 && (size_t)flagged < g->n_players) {
        long long lowest = scores[0];
        for (size_t i = 1; i < g->n_players; i++)
            lowest = scores[i] < lowest ? scores[i] : lowest;
        scores[flagged] = lowest - 1;
    }
    cas__rating_places(scores, place, g->n_players);
}

/* Whether g teaches anything: two players or more, every score known, no
 * player in two seats. */
static int rated(const struct cas__saves_result *g)
{
    if (g->n_players < 2 || g->n_players > CAS__RATING_MAX_PLAYERS)
        return 0;
    for (size_t i = 0; i < g->n_players; i++) {
        if (!g->players[i].has_score)
            return 0;
        for (size_t j = 0; j < i; j++)
            if (same_player(&g->players[i], &g->players[j]))
                return 0;
    }
    return 1;
}

static uint64_t name_hash(const char *name, int bot)
{
    uint64_t h = 1469598103934665603ull ^ (uint64_t)bot;
    for (; *name; name++)
        h = (h ^ (unsigned char)*name) * 1099511628211ull;
    return h;
}

static int grow(struct building *b)
{
    size_t cap = b->cap ? b->cap * 2 : 16;
    struct cas__rated_player *players = realloc(b->pool.players, cap * sizeof *players);
    if (!players)
        return CAS_ENOMEM;
    b->pool.players = players;
    b->cap = cap;
    size_t *slot = calloc(cap * 2, sizeof *slot);
    if (!slot)
        return CAS_ENOMEM;
    for (size_t p = 0; p < b->pool.n_players; p++) {
        size_t at = name_hash(players[p].name, players[p].bot) & (cap * 2 - 1);
        while (slot[at])
            at = (at + 1) & (cap * 2 - 1);
        slot[at] = p + 1;
    }
    free(b->slot);
    b->slot = slot;
    b->n_slots = cap * 2;
    return CAS_OK;
}

/* The pool's player of that name, added with a new rating if need be. */
static struct cas__rated_player *player(struct building *b, const char *name, int bot,
                                        const struct cas__rating_model *m)
{
    if (b->pool.n_players == b->cap && grow(b))
        return NULL;
    size_t at = name_hash(name, bot) & (b->n_slots - 1);
    for (; b->slot[at]; at = (at + 1) & (b->n_slots - 1)) {
        struct cas__rated_player *p = &b->pool.players[b->slot[at] - 1];
        if (p->bot == bot && strcmp(p->name, name) == 0)
            return p;
    }
    struct cas__rated_player *p = &b->pool.players[b->pool.n_players];
    memset(p, 0, sizeof *p);
    p->name = strdup(name);
    if (!p->name)
        return NULL;
    p->bot = bot;
    p->rating = cas__rating_new(m);
    b->slot[at] = ++b->pool.n_players;
    return p;
}

static int rate_one(struct building *b, const struct cas__saves_result *g,
                    const struct cas__rating_model *m)
{
    /* Indices, not pointers: finding a later seat's player may move the
     * pool's array. */
    size_t seat_index[CAS__RATING_MAX_PLAYERS];
    struct cas__rated_player *seat[CAS__RATING_MAX_PLAYERS];
    struct cas__rating rating[CAS__RATING_MAX_PLAYERS];
    int place[CAS__RATING_MAX_PLAYERS];
    for (size_t i = 0; i < g->n_players; i++) {
        const struct cas__saves_player *p = &g->players[i];
        struct cas__rated_player *found =
            player(b, cas__rating_identity(p), cas__rating_is_bot(p), m);
        if (!found)
            return CAS_ENOMEM;
        seat_index[i] = (size_t)(found - b->pool.players);
    }
    for (size_t i = 0; i < g->n_players; i++) {
        seat[i] = &b->pool.players[seat_index[i]];
        rating[i] = seat[i]->rating;
    }
    places(g, place);
    int rc = cas__rating_update(m, rating, place, g->n_players);
    if (rc)
        return rc;
    for (size_t i = 0; i < g->n_players; i++) {
        seat[i]->rating = rating[i];
        seat[i]->games++;
        free(seat[i]->last_played);
        seat[i]->last_played = strdup(g->finished);
        if (!seat[i]->last_played)
            return CAS_ENOMEM;
    }
    b->pool.games++;
    return CAS_OK;
}

static int by_shown(const void *a, const void *b)
{
    const struct cas__rated_player *x = a, *y = b;
    if (x->shown != y->shown)
        return x->shown > y->shown ? -1 : 1;
    return strcmp(x->name, y->name);
}

static int by_pool_name(const void *a, const void *b)
{
    const struct building *x = a, *y = b;
    return strcmp(x->pool.name, y->pool.name);
}

static struct building *building_of(struct building **all, size_t *n, const char *name)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp((*all)[i].pool.name, name) == 0)
            return &(*all)[i];
    struct building *more = realloc(*all, (*n + 1) * sizeof *more);
    if (!more)
        return NULL;
    *all = more;
    struct building *b = &more[*n];
    memset(b, 0, sizeof *b);
    b->pool.name = strdup(name);
    if (!b->pool.name)
        return NULL;
    ++*n;
    return b;
}

static int rate_all(const struct cas__saves_result *games, size_t n_games,
                    const struct cas__ratings_query *q, struct building **all, size_t *n)
{
    char name[512];
    for (size_t i = 0; i < n_games; i++) {
        const char *pool = pool_name(&games[i], q->by, name, sizeof name);
        if (!rated(&games[i]) || (q->pool && strcmp(q->pool, pool) != 0))
            continue;
        struct building *b = building_of(all, n, pool);
        if (!b)
            return CAS_ENOMEM;
        int rc = rate_one(b, &games[i], &q->model);
        if (rc)
            return rc;
    }
    return CAS_OK;
}

/* The pools built, as the caller's sorted array (all is freed). */
static struct cas__rating_pool *finish_pools(struct building *all, size_t n,
                                             const struct cas__rating_model *m)
{
    struct cas__rating_pool *out = calloc(n ? n : 1, sizeof *out);
    if (n) /* qsort's array may not be NULL, even empty */
        qsort(all, n, sizeof *all, by_pool_name);
    for (size_t i = 0; i < n; i++) {
        free(all[i].slot);
        struct cas__rating_pool *p = &all[i].pool;
        for (size_t j = 0; j < p->n_players; j++)
            p->players[j].shown = cas__rating_shown(m, p->players[j].rating);
        qsort(p->players, p->n_players, sizeof *p->players, by_shown);
        if (out)
            out[i] = *p;
        else
            pool_free(p);
    }
    free(all);
    return out;
}

int cas__ratings_rate(const struct cas__saves_result *games, size_t n_games,
                      const struct cas__ratings_query *q, struct cas__rating_pool **pools,
                      size_t *n)
{
    struct building *all = NULL;
    size_t n_all = 0;
    int rc = rate_all(games, n_games, q, &all, &n_all);
    struct cas__rating_pool *out = finish_pools(all, n_all, &q->model);
    if (rc || !out) {
        cas__rating_pools_free(out, out ? n_all : 0);
        return rc ? rc : CAS_ENOMEM;
    }
    *pools = out;
    *n = n_all;
    return CAS_OK;
}

int cas__ratings_recompute(struct cas__saves *s, const struct cas__ratings_query *q,
                           struct cas__rating_pool **pools, size_t *n)
{
    struct cas__saves_result *games;
    size_t n_games;
    int rc = cas__saves_results(s, q->since, &games, &n_games);
    if (rc)
        return rc;
    rc = cas__ratings_rate(games, n_games, q, pools, n);
    cas__saves_results_free(games, n_games);
    return rc;
}

void cas__rating_pools_free(struct cas__rating_pool *pools, size_t n)
{
    for (size_t i = 0; pools && i < n; i++)
        pool_free(&pools[i]);
    free(pools);
}
