/*
 * bench_ratings.c — the ratings figure of `castellan bench --only ratings`:
 * a club's history of 100,000 finished games (2 to 5 seats from 60 people
 * and 3 bots, with and without expansions) stored in a SQLite file of its
 * own, then every rating recomputed from it, timed whole and split into
 * reading the store and rating; then the club pages' snapshot of it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "prng.h"
#include "ratings.h"
#include "saves.h"

#define HISTORY 100000
#define PEOPLE 60

static const char *const bots[] = {"greedy", "mcts-easy", "mcts-hard"};

static CAS_PRINTF(2, 3) void ratings_line(struct cas__bench *b, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    cas__bench_vprint(b, (int)strlen("ratings: "), fmt, args);
    va_end(args);
}

static double cpu_now(void)
{
    return (double)clock() / CLOCKS_PER_SEC;
}

/* One finished game of the history: game i, seats and scores from rng. */
static int history_game(struct cas__saves *s, struct cas__prng *rng, size_t i)
{
    struct cas__saves_game g = {.seed = i, .castellan_version = strdup("bench")};
    size_t n = 2 + (size_t)cas__prng_below(rng, 4);
    int64_t scores[5];
    int rc = CAS_ENOMEM;
    g.game.id = strdup("carcassonne");
    g.game.version = strdup("1.0.0");
    g.players = calloc(n, sizeof *g.players);
    if (i % 3 == 0 && (g.expansions = calloc(1, sizeof *g.expansions))) {
        g.n_expansions = 1;
        g.expansions[0].id = strdup("inns-cathedrals");
        g.expansions[0].version = strdup("1.0.0");
    }
    if (!g.castellan_version || !g.game.id || !g.game.version || !g.players)
        goto free_game;
    for (; g.n_players < n; g.n_players++) {
        uint64_t who = cas__prng_below(rng, PEOPLE + 3);
        char name[32];
        snprintf(name, sizeof name, "Player %llu", (unsigned long long)who);
        struct cas__saves_player *p = &g.players[g.n_players];
        p->name = strdup(who < PEOPLE ? name : "Bot");
        p->agent = strdup(who < PEOPLE ? "human" : bots[who - PEOPLE]);
        scores[g.n_players] = (int64_t)cas__prng_below(rng, 120);
        if (!p->name || !p->agent)
            goto free_game;
    }
    rc = cas__saves_game_insert(s, &g);
    if (rc == CAS_OK)
        rc = cas__saves_finish(s, g.id, scores, n);
free_game:
    cas__saves_game_free(&g);
    return rc;
}

static int store_history(struct cas__bench *b, struct cas__saves *s)
{
    struct cas__prng rng;
    cas__prng_init(&rng, b->seed, 0, 0);
    double t0 = cas__bench_now();
    for (size_t i = 0; i < HISTORY; i++) {
        if (history_game(s, &rng, i)) {
            ratings_line(b, "ratings: storing the history: %s\n", cas__saves_errmsg(s));
            return CAS_EIO;
        }
        if ((i + 1) % 20000 == 0)
            fprintf(stderr, "ratings: %zu of %d games stored\n", i + 1, HISTORY);
    }
    ratings_line(b, "ratings: %d finished games stored in %.1f s (the history)\n", HISTORY,
                 cas__bench_now() - t0);
    return CAS_OK;
}

static int time_recompute(struct cas__bench *b, struct cas__saves *s)
{
    struct cas__ratings_query q = {.by = CAS__POOL_GAME};
    cas__rating_model_default(&q.model);
    struct cas__saves_result *results;
    struct cas__rating_pool *pools;
    size_t n_results, n_pools;

    double wall = cas__bench_now(), cpu = cpu_now();
    int rc = cas__saves_results(s, NULL, &results, &n_results);
    double read_wall = cas__bench_now() - wall, read_cpu = cpu_now() - cpu;
    if (rc == CAS_OK)
        cas__saves_results_free(results, n_results);

    wall = cas__bench_now();
    cpu = cpu_now();
    if (rc == CAS_OK)
        rc = cas__ratings_recompute(s, &q, &pools, &n_pools);
    wall = cas__bench_now() - wall;
    cpu = cpu_now() - cpu;
    if (rc) {
        ratings_line(b, "ratings: %s\n", cas__saves_errmsg(s));
        return rc;
    }
    size_t players = 0;
    for (size_t i = 0; i < n_pools; i++)
        players += pools[i].n_players;
    cas__rating_pools_free(pools, n_pools);
    ratings_line(b, "ratings: %zu games recomputed in %.3f s (%.3f s of CPU; target <= 2 s), "
                 "%.0f games/s; reading them %.3f s (%.3f s of CPU), rating the rest; "
                 "%zu pool%s, %zu players\n", n_results, wall, cpu, n_results / wall,
                 read_wall, read_cpu, n_pools, n_pools == 1 ? "" : "s", players);
    return CAS_OK;
}

/* The history is thrown away after: it goes to memory (/dev/shm) when the
 * machine has it and TMPDIR does not say otherwise, since a commit per game
 * waiting on the disk would make storing it take minutes.  NULL: the
 * bench's default. */
static const char *history_folder(void)
{
    const char *tmp = getenv("TMPDIR");
    return (!tmp || !*tmp) && access("/dev/shm", W_OK) == 0 ? "/dev/shm" : NULL;
}

int cas__bench_ratings(struct cas__bench *b)
{
    char dir[512], db[600], err[1024];
    struct cas__saves *s;
    if (cas__bench_scratch(history_folder(), "ratings.db", dir, db)) {
        ratings_line(b, "ratings: cannot create a temporary folder in %s\n", dir);
        return CAS_EIO;
    }
    int rc = cas__saves_open(db, &s, err, sizeof err);
    if (rc)
        ratings_line(b, "ratings: %s\n", err);
    if (rc == CAS_OK) {
        rc = store_history(b, s);
        if (rc == CAS_OK)
            rc = time_recompute(b, s);
        cas__saves_close(s);
        if (rc == CAS_OK && b->club)
            rc = b->club(b, db);
    }
    cas__bench_scratch_remove(dir, db);
    return rc;
}
