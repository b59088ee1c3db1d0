/*
 * test_ratings_pools.c — ratings recomputed from a store (ratings_pools.c),
 * on SQLite and on PostgreSQL: games rated in the order they were
 * finished, one player per name and one per bot agent, pools by game or by
 * exact mix, a fallen flag placing last, and the games left out (unfinished,
 * other pools, before --since, one player in two seats).  Every expected
 * rating is the update applied by hand in the same order.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "commands.h"
#include "ratings.h"
#include "saves_fixture.h"

/* A finished game of `game` (with expansion `expansion`, or none) between
 * seats "Name" (a human) or "@agent" (a bot), with these scores; or
 * unfinished when scores is NULL.  Returns its id. */
static int64_t store_game(struct cas__saves *s, const char *game, const char *expansion,
                          const char *const *seats, size_t n, const int64_t *scores)
{
    struct cas__saves_game g;
    cas_test_sample_game(&g, NULL, "x", "y", 2);
    free(g.game.id);
    g.game.id = strdup(game);
    if (!expansion) {
        free(g.expansions[0].id);
        free(g.expansions[0].version);
        g.n_expansions = 0;
    } else {
        free(g.expansions[0].id);
        g.expansions[0].id = strdup(expansion);
    }
    cas_test_seat_players(&g, seats, n);
    assert_int_equal(cas__saves_game_insert(s, &g), CAS_OK);
    if (scores)
        assert_int_equal(cas__saves_finish(s, g.id, scores, n), CAS_OK);
    int64_t id = g.id;
    cas__saves_game_free(&g);
    return id;
}

static struct cas__saves *open_store(void **state)
{
    char where[512];
    return cas_test_open(cas_test_store_where(state, "saves.db", where, sizeof where));
}

static struct cas__ratings_query query(enum cas__pool_by by)
{
    struct cas__ratings_query q = {.by = by};
    cas__rating_model_default(&q.model);
    return q;
}

static const struct cas__rated_player *find(const struct cas__rating_pool *p,
                                            const char *name, int bot)
{
    for (size_t i = 0; i < p->n_players; i++)
        if (p->players[i].bot == bot && strcmp(p->players[i].name, name) == 0)
            return &p->players[i];
    fail_msg("no player %s in pool %s", name, p->name);
    return NULL;
}

static void assert_rating(const struct cas__rated_player *p, struct cas__rating want,
                          size_t games)
{
    assert_true(fabs(p->rating.mu - want.mu) < 1e-12);
    assert_true(fabs(p->rating.sigma - want.sigma) < 1e-12);
    assert_int_equal(p->games, games);
}

/* Ada beats Bob, then Bob, Ada and mcts-hard (two seats' names "Bot", one
 * player) play three-handed with a tie for first; an unfinished game and a
 * game of another pool change nothing. */
static void a_pool_rates_its_games_in_order(void **state)
{
    struct cas__saves *s = open_store(state);
    store_game(s, "fixture", NULL, (const char *[]){"Ada", "Bob"}, 2, (int64_t[]){30, 20});
    store_game(s, "fixture", "fixture-extra", (const char *[]){"Bob", "Ada", "@mcts-hard"}, 3,
               (int64_t[]){12, 12, 5});
    store_game(s, "fixture", NULL, (const char *[]){"Ada", "Bob"}, 2, NULL);
    store_game(s, "other", NULL, (const char *[]){"Ada", "Bob"}, 2, (int64_t[]){0, 50});

    struct cas__rating_model m;
    cas__rating_model_default(&m);
    struct cas__rating ada = cas__rating_new(&m), bob = ada, bot = ada;
    struct cas__rating first[2] = {ada, bob};
    assert_int_equal(cas__rating_update(&m, first, (int[]){0, 1}, 2), 0);
    struct cas__rating second[3] = {first[1], first[0], bot};
    assert_int_equal(cas__rating_update(&m, second, (int[]){0, 0, 2}, 3), 0);

    struct cas__ratings_query q = query(CAS__POOL_GAME);
    q.pool = "fixture";
    struct cas__rating_pool *pools;
    size_t n;
    assert_int_equal(cas__ratings_recompute(s, &q, &pools, &n), CAS_OK);
    assert_int_equal(n, 1);
    assert_string_equal(pools[0].name, "fixture");
    assert_int_equal(pools[0].games, 2);
    assert_int_equal(pools[0].n_players, 3);
    assert_rating(find(&pools[0], "Ada", 0), second[1], 2);
    assert_rating(find(&pools[0], "Bob", 0), second[0], 2);
    assert_rating(find(&pools[0], "mcts-hard", 1), second[2], 1);
    for (size_t i = 1; i < pools[0].n_players; i++)
        assert_true(pools[0].players[i - 1].shown >= pools[0].players[i].shown);
    cas__rating_pools_free(pools, n);
    cas__saves_close(s);
}

/* A seat's player found before the pool's array grows for a later seat's
 * new player keeps its update: 15 players, then P00 meets two new ones,
 * the second of whom fills the first array of 16. */
static void a_growing_pool_keeps_every_seat(void **state)
{
    struct cas__saves *s = open_store(state);
    char names[17][8];
    for (int i = 0; i < 17; i++)
        snprintf(names[i], sizeof names[i], "P%02d", i);
    for (int i = 0; i < 14; i += 2)
        store_game(s, "fixture", NULL, (const char *[]){names[i], names[i + 1]}, 2,
                   (int64_t[]){3, 1});
    store_game(s, "fixture", NULL, (const char *[]){names[14], names[13]}, 2, (int64_t[]){3, 1});
    store_game(s, "fixture", NULL, (const char *[]){names[0], names[15], names[16]}, 3,
               (int64_t[]){3, 2, 1});
    struct cas__rating_model m;
    cas__rating_model_default(&m);
    struct cas__rating first[2] = {cas__rating_new(&m), cas__rating_new(&m)};
    assert_int_equal(cas__rating_update(&m, first, (int[]){0, 1}, 2), 0);
    struct cas__rating last[3] = {first[0], cas__rating_new(&m), cas__rating_new(&m)};
    assert_int_equal(cas__rating_update(&m, last, (int[]){0, 1, 2}, 3), 0);

    struct cas__ratings_query q = query(CAS__POOL_GAME);
    struct cas__rating_pool *pools;
    size_t n;
    assert_int_equal(cas__ratings_recompute(s, &q, &pools, &n), CAS_OK);
    assert_int_equal(pools[0].n_players, 17);
    assert_rating(find(&pools[0], "P00", 0), last[0], 2);
    assert_rating(find(&pools[0], "P15", 0), last[1], 1);
    assert_rating(find(&pools[0], "P16", 0), last[2], 1);
    cas__rating_pools_free(pools, n);
    cas__saves_close(s);
}

/* A registered player is rated under their name now: a rename carries
 * their games along; a guest's seat keeps its own name. */
static void a_registered_player_is_rated_by_name_now(void **state)
{
    struct cas__saves *s = open_store(state);
    int64_t ada;
    int64_t id = store_game(s, "fixture", NULL, (const char *[]){"Ada", "Bob"}, 2,
                            (int64_t[]){30, 20});
    assert_int_equal(cas__saves_registered_add(s, "Ada", "00", &ada), CAS_OK);
    assert_int_equal(cas__saves_seat_register(s, id, 0, ada), CAS_OK);
    assert_int_equal(cas__saves_registered_rename(s, "Ada", "Ada L."), CAS_OK);
    struct cas__ratings_query q = query(CAS__POOL_GAME);
    struct cas__rating_pool *pools;
    size_t n;
    assert_int_equal(cas__ratings_recompute(s, &q, &pools, &n), CAS_OK);
    assert_int_equal(pools[0].n_players, 2);
    assert_int_equal(find(&pools[0], "Ada L.", 0)->games, 1);
    assert_int_equal(find(&pools[0], "Bob", 0)->games, 1);
    cas__rating_pools_free(pools, n);
    cas__saves_close(s);
}

static void pools_by_mix_keep_expansions_apart(void **state)
{
    struct cas__saves *s = open_store(state);
    store_game(s, "fixture", NULL, (const char *[]){"Ada", "Bob"}, 2, (int64_t[]){30, 20});
    store_game(s, "fixture", "fixture-extra", (const char *[]){"Ada", "Bob"}, 2,
               (int64_t[]){10, 20});
    struct cas__ratings_query q = query(CAS__POOL_MIX);
    struct cas__rating_pool *pools;
    size_t n;
    assert_int_equal(cas__ratings_recompute(s, &q, &pools, &n), CAS_OK);
    assert_int_equal(n, 2);
    assert_string_equal(pools[0].name, "fixture");
    assert_string_equal(pools[1].name, "fixture+fixture-extra");
    assert_string_equal(pools[0].players[0].name, "Ada");
    assert_string_equal(pools[1].players[0].name, "Bob");
    cas__rating_pools_free(pools, n);

    q = query(CAS__POOL_GAME);
    assert_int_equal(cas__ratings_recompute(s, &q, &pools, &n), CAS_OK);
    assert_int_equal(n, 1);
    assert_int_equal(pools[0].games, 2);
    cas__rating_pools_free(pools, n);
    cas__saves_close(s);
}

/* Ada leads on points when her flag falls: she places last. */
static void a_fallen_flag_places_last(void **state)
{
    struct cas__saves *s = open_store(state);
    int64_t id = store_game(s, "fixture", NULL, (const char *[]){"Ada", "Bob", "Cy"}, 3,
                            (int64_t[]){40, 10, 10});
    struct cas__saves_served_seat seats[3] = {{.token = "a"}, {.token = "b"}, {.token = "c"}};
    struct cas__saves_served served = {.game = id, .base_ms = 60000, .flagged = -1,
                                       .seats = seats, .n_seats = 3};
    assert_int_equal(cas__saves_served_insert(s, &served), CAS_OK);
    assert_int_equal(cas__saves_served_flag(s, id, 0, 0), CAS_OK);

    struct cas__rating_model m;
    cas__rating_model_default(&m);
    struct cas__rating want[3] = {cas__rating_new(&m), cas__rating_new(&m), cas__rating_new(&m)};
    assert_int_equal(cas__rating_update(&m, want, (int[]){2, 0, 0}, 3), 0);

    struct cas__ratings_query q = query(CAS__POOL_GAME);
    struct cas__rating_pool *pools;
    size_t n;
    assert_int_equal(cas__ratings_recompute(s, &q, &pools, &n), CAS_OK);
    assert_int_equal(n, 1);
    assert_rating(find(&pools[0], "Ada", 0), want[0], 1);
    assert_rating(find(&pools[0], "Bob", 0), want[1], 1);
    assert_string_equal(pools[0].players[2].name, "Ada");
    cas__rating_pools_free(pools, n);
    cas__saves_close(s);
}

/* Games before --since, and a game where one player held two seats, teach
 * nothing. */
static void games_left_out(void **state)
{
    struct cas__saves *s = open_store(state);
    store_game(s, "fixture", NULL, (const char *[]){"Ada", "Ada"}, 2, (int64_t[]){3, 1});
    struct cas__ratings_query q = query(CAS__POOL_GAME);
    struct cas__rating_pool *pools;
    size_t n;
    assert_int_equal(cas__ratings_recompute(s, &q, &pools, &n), CAS_OK);
    assert_int_equal(n, 0);
    cas__rating_pools_free(pools, n);

    store_game(s, "fixture", NULL, (const char *[]){"Ada", "Bob"}, 2, (int64_t[]){3, 1});
    q.since = "9999-01-01";
    assert_int_equal(cas__ratings_recompute(s, &q, &pools, &n), CAS_OK);
    assert_int_equal(n, 0);
    cas__rating_pools_free(pools, n);
    q.since = "2000-01-01";
    assert_int_equal(cas__ratings_recompute(s, &q, &pools, &n), CAS_OK);
    assert_int_equal(n, 1);
    assert_int_equal(pools[0].games, 1);
    cas__rating_pools_free(pools, n);
    cas__saves_close(s);
}

static int run(int argc, const char **argv)
{
    return cas__cmd_ratings(argc, (char **)argv);
}

/* castellan ratings: a bad argument is usage (2) and names the fix; a
 * store with games prints its pools (0); a missing store fails (1). */
static void the_command_checks_its_arguments(void **state)
{
    char where[512];
    cas_test_store_where(state, "saves.db", where, sizeof where);
    struct cas__saves *s = cas_test_open(where);
    store_game(s, "fixture", NULL, (const char *[]){"Ada", "Bob"}, 2, (int64_t[]){3, 1});
    cas__saves_close(s);
    assert_int_equal(run(3, (const char *[]){"ratings", "--by", "max"}), 2);
    assert_int_equal(run(3, (const char *[]){"ratings", "--since", "yesterday"}), 2);
    assert_int_equal(run(3, (const char *[]){"ratings", "--since", "2026-12-01 25"}), 2);
    assert_int_equal(run(2, (const char *[]){"ratings", "--pool"}), 2);
    assert_int_equal(run(2, (const char *[]){"ratings", "extra"}), 2);
    assert_int_equal(run(2, (const char *[]){"ratings", "--help"}), 0);
    assert_int_equal(run(7, (const char *[]){"ratings", "--database", where, "--by", "mix",
                                             "--since", "2026-01-01 10:00"}), 0);
    if (!cas_test_on_pg()) {
        char missing[600];
        snprintf(missing, sizeof missing, "%s.none", where);
        assert_int_equal(run(3, (const char *[]){"ratings", "--database", missing}), 1);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        CAS_TEST_IN_DIR(a_pool_rates_its_games_in_order),
        CAS_TEST_IN_DIR(pools_by_mix_keep_expansions_apart),
        CAS_TEST_IN_DIR(a_growing_pool_keeps_every_seat),
        CAS_TEST_IN_DIR(a_registered_player_is_rated_by_name_now),
        CAS_TEST_IN_DIR(a_fallen_flag_places_last),
        CAS_TEST_IN_DIR(games_left_out),
        CAS_TEST_IN_DIR(the_command_checks_its_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
