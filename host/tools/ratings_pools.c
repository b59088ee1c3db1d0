/*
 * ratings_pools.c — ratings recomputed from the store (ratings.h): every
 * finished game read once, put in the order it was finished, and rated in
 * its pool.  Nothing is kept between runs, so a rating is always what the
 * store's games say.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ratings.h"
#include "saves.h"

/* What rating needs of one finished game. */
struct result {
    int64_t id;
    char *finished;            /* updated_at */
    char *pool;
    size_t n;
    char **names;
    int *bot;
    int *place;
};

/* A pool being built: its players, found by name through an open-addressed
 * index of (hash, player) slots, twice as many as players at least. */
struct building {
    struct cas__rating_pool pool;
    size_t cap;
    size_t *slot;              /* player index + 1; 0 is empty */
    size_t n_slots;
};

static void result_free(struct result *r)
{
    for (size_t i = 0; r->names && i < r->n; i++)
        free(r->names[i]);
    free(r->names);
    free(r->bot);
    free(r->place);
    free(r->finished);
    free(r->pool);
}

static void pool_free(struct cas__rating_pool *p)
{
    for (size_t i = 0; i < p->n_players; i++) {
        free(p->players[i].name);
        free(p->players[i].last_played);
    }
    free(p->players);
    free(p->name);
}

static char *pool_name(const struct cas__saves_game *g, enum cas__pool_by by)
{
    size_t len = strlen(g->game.id) + 1;
    if (by == CAS__POOL_MIX)
        for (size_t i = 0; i < g->n_expansions; i++)
            len += strlen(g->expansions[i].id) + 1;
    char *name = malloc(len);
    if (!name)
        return NULL;
    strcpy(name, g->game.id);
    if (by == CAS__POOL_MIX)
        for (size_t i = 0; i < g->n_expansions; i++) {
            strcat(name, "+");
            strcat(name, g->expansions[i].id);
        }
    return name;
}

/* Places by final score; the seat whose flag fell places last alone. */
static void places(const struct cas__saves_game *g, int flagged, int *place)
{
    long long scores[CAS__RATING_MAX_PLAYERS];
    for (size_t i = 0; i < g->n_players; i++)
        scores[i] = (long long)g->players[i].score;
    if (flagged >= 0 && (size_t)flagged < g->n_players) {
        long long lowest = scores[0];
        for (size_t i = 1; i < g->n_players; i++)
            lowest = scores[i] < lowest ? scores[i] : lowest;
        scores[flagged] = lowest - 1;
        for (size_t i = 0; i < g->n_players; i++)
            if ((int)i != flagged && scores[i] == scores[flagged])
                scores[i]++;
    }
    cas__rating_places(scores, place, g->n_players);
}

static int flagged_seat(struct cas__saves *s, int64_t id, int *flagged)
{
    struct cas__saves_served served;
    int rc = cas__saves_served_load(s, id, &served);
    if (rc == CAS_ENOTFOUND) {
        *flagged = -1;
        return CAS_OK;
    }
    if (rc)
        return rc;
    *flagged = served.flagged;
    cas__saves_served_free(&served);
    return CAS_OK;
}

static int rated(const struct cas__saves_game *g, const struct cas__ratings_query *q)
{
    if (g->status != CAS__SAVES_FINISHED || g->n_players < 2 ||
        g->n_players > CAS__RATING_MAX_PLAYERS)
        return 0;
    if (q->since && g->updated_at && strcmp(g->updated_at, q->since) < 0)
        return 0;
    for (size_t i = 0; i < g->n_players; i++)
        if (!g->players[i].has_score)
            return 0;
    return 1;
}

/* Fill r from g; CAS_ENOTFOUND when the query leaves g out. */
static int take_result(struct cas__saves *s, const struct cas__saves_game *g,
                       const struct cas__ratings_query *q, struct result *r)
{
    int flagged;
    memset(r, 0, sizeof *r);
    if (!rated(g, q))
        return CAS_ENOTFOUND;
    r->pool = pool_name(g, q->by);
    if (!r->pool)
        return CAS_ENOMEM;
    if (q->pool && strcmp(q->pool, r->pool) != 0) {
        free(r->pool);
        r->pool = NULL;
        return CAS_ENOTFOUND;
    }
    int rc = flagged_seat(s, g->id, &flagged);
    if (rc)
        return rc;
    r->id = g->id;
    r->n = g->n_players;
    r->finished = strdup(g->updated_at ? g->updated_at : "");
    r->names = calloc(r->n, sizeof *r->names);
    r->bot = calloc(r->n, sizeof *r->bot);
    r->place = calloc(r->n, sizeof *r->place);
    if (!r->finished || !r->names || !r->bot || !r->place)
        return CAS_ENOMEM;
    for (size_t i = 0; i < r->n; i++) {
        r->bot[i] = strcmp(g->players[i].agent, "human") != 0;
        r->names[i] = strdup(r->bot[i] ? g->players[i].agent : g->players[i].name);
        if (!r->names[i])
            return CAS_ENOMEM;
    }
    for (size_t i = 0; i < r->n; i++)
        for (size_t j = 0; j < i; j++)
            if (r->bot[i] == r->bot[j] && strcmp(r->names[i], r->names[j]) == 0)
                return CAS_ENOTFOUND; /* one player in two seats: nothing to learn */
    places(g, flagged, r->place);
    return CAS_OK;
}

static int by_finish(const void *a, const void *b)
{
    const struct result *x = a, *y = b;
    int c = strcmp(x->finished, y->finished);
    return c ? c : (x->id > y->id) - (x->id < y->id);
}

/* Every game the query selects, in the order it was finished. */
static int read_results(struct cas__saves *s, const struct cas__ratings_query *q,
                        struct result **out, size_t *n)
{
    int64_t *ids;
    size_t n_ids;
    int rc = cas__saves_game_ids(s, NULL, &ids, &n_ids);
    if (rc)
        return rc;
    struct result *results = calloc(n_ids ? n_ids : 1, sizeof *results);
    size_t kept = 0;
    rc = results ? CAS_OK : CAS_ENOMEM;
    for (size_t i = 0; i < n_ids && rc == CAS_OK; i++) {
        struct cas__saves_game g;
        rc = cas__saves_game_load(s, ids[i], 0, &g);
        if (rc)
            break;
        rc = take_result(s, &g, q, &results[kept]);
        if (rc == CAS_OK)
            kept++;
        else
            result_free(&results[kept]);
        if (rc == CAS_ENOTFOUND)
            rc = CAS_OK;
        cas__saves_game_free(&g);
    }
    free(ids);
    if (rc) {
        for (size_t i = 0; i < kept; i++)
            result_free(&results[i]);
        free(results);
        return rc;
    }
    qsort(results, kept, sizeof *results, by_finish);
    *out = results;
    *n = kept;
    return CAS_OK;
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

static int rate_one(struct building *b, const struct result *r,
                    const struct cas__rating_model *m)
{
    struct cas__rated_player *seat[CAS__RATING_MAX_PLAYERS];
    struct cas__rating rating[CAS__RATING_MAX_PLAYERS];
    for (size_t i = 0; i < r->n; i++) {
        seat[i] = player(b, r->names[i], r->bot[i], m);
        if (!seat[i])
            return CAS_ENOMEM;
        rating[i] = seat[i]->rating;
    }
    int rc = cas__rating_update(m, rating, r->place, r->n);
    if (rc)
        return rc;
    for (size_t i = 0; i < r->n; i++) {
        seat[i]->rating = rating[i];
        seat[i]->games++;
        free(seat[i]->last_played);
        seat[i]->last_played = strdup(r->finished);
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

static int rate_all(const struct result *results, size_t n_results,
                    const struct cas__rating_model *m, struct building **all, size_t *n)
{
    for (size_t i = 0; i < n_results; i++) {
        struct building *b = building_of(all, n, results[i].pool);
        if (!b)
            return CAS_ENOMEM;
        int rc = rate_one(b, &results[i], m);
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

int cas__ratings_recompute(struct cas__saves *s, const struct cas__ratings_query *q,
                           struct cas__rating_pool **pools, size_t *n)
{
    struct result *results;
    size_t n_results;
    int rc = read_results(s, q, &results, &n_results);
    if (rc)
        return rc;
    struct building *all = NULL;
    size_t n_all = 0;
    rc = rate_all(results, n_results, &q->model, &all, &n_all);
    for (size_t i = 0; i < n_results; i++)
        result_free(&results[i]);
    free(results);
    struct cas__rating_pool *out = finish_pools(all, n_all, &q->model);
    if (rc || !out) {
        cas__rating_pools_free(out, out ? n_all : 0);
        return rc ? rc : CAS_ENOMEM;
    }
    *pools = out;
    *n = n_all;
    return CAS_OK;
}

void cas__rating_pools_free(struct cas__rating_pool *pools, size_t n)
{
    for (size_t i = 0; pools && i < n; i++)
        pool_free(&pools[i]);
    free(pools);
}
