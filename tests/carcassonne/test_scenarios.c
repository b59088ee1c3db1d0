/*
 * test_scenarios.c — Carcassonne scoring scenarios as game records with
 * exact expected scores.  Each record restricts the tile pool with the
 * `tiles` option and names every draw, so it is fully deterministic.
 * Coordinates: start tile D at 0,0 (city N, road E+W), x east, y south.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "plugin_harness.h"

const struct cas_plugin *cas_plugin_entry(void);

/* Play `record` in a game of nplayers with the given options; check the
 * final scores and that the game is over. */
static void play_scenario(int nplayers, const char *const *options, const char *record,
                          const int64_t *expected)
{
    struct cas_test_game g;
    cas_test_game_open(&g, cas_plugin_entry(), nplayers, options, NULL, 0);
    cas_test_play_record(&g, record);
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_TERMINAL);
    cas_test_expect_scores(&g, expected);
    assert_non_null(strstr(g.events, "game over; winner:"));
    cas_test_game_close(&g);
}

/* Rulebook: a road over three tiles scores 3 for its highwayman. */
static void test_three_tile_road(void **unused)
{
    (void)unused;
    const char *opts[] = {"tiles=*:0,D:1,L:1,W:1", NULL};
    play_scenario(2, opts,
                  "draw L\nplace L 1,0 0\ndeploy meeple road W\n"
                  "draw W\nplace W -1,0 0\npass\n",
                  (const int64_t[]){3, 0});
}

/* Rulebook: a road ends at a monastery.  W(-1,0) D U(1,0) A(2,0): the road
 * runs from the crossing into A's monastery, 4 tiles, 4 points. */
static void test_road_ends_at_monastery(void **unused)
{
    (void)unused;
    const char *opts[] = {"tiles=*:0,D:1,U:1,A:1,W:1", NULL};
    play_scenario(2, opts,
                  "draw U\nplace U 1,0 0\ndeploy meeple road E+W\n"
                  "draw A\nplace A 2,0 90\npass\n"
                  "draw W\nplace W -1,0 0\npass\n",
                  (const int64_t[]){4, 0});
}

/* Rulebook: a 3-tile city with one coat of arms scores 8. */
static void test_eight_point_city(void **unused)
{
    (void)unused;
    const char *opts[] = {"tiles=*:0,D:1,F:1,E:1", NULL};
    play_scenario(2, opts,
                  "draw F\nplace F 0,-1 90\ndeploy meeple city N+S\n"
                  "draw E\nplace E 0,-2 180\npass\n",
                  (const int64_t[]){8, 0});
}

/* Rulebook: a surrounded monastery scores 9. */
static void test_nine_point_monastery(void **unused)
{
    (void)unused;
    const char *opts[] = {"tiles=*:0,D:1,B:6,U:2", NULL};
    play_scenario(2, opts,
                  "draw B\nplace B 0,1 0\ndeploy meeple monastery\n"
                  "draw U\nplace U -1,0 0\npass\n"
                  "draw U\nplace U 1,0 0\npass\n"
                  "draw B\nplace B -1,1 0\npass\n"
                  "draw B\nplace B 1,1 0\npass\n"
                  "draw B\nplace B -1,2 0\npass\n"
                  "draw B\nplace B 0,2 0\npass\n"
                  "draw B\nplace B 1,2 0\npass\n",
                  (const int64_t[]){9, 0});
}

/* Once more than 8 monasteries stand, the ones a tile completes are found
 * among its 8 neighbours rather than by a walk of all of them: a block of
 * monasteries under the start tile.  Red's at 0,2 is completed by its
 * diagonal 1,3 and scores 9 at once, Blue's at 0,3 by the tile on its south
 * side, 0,4; Red's at 1,4 ends incomplete with 3 neighbours (4).  The
 * scores are checked mid-game, as a missed completion would still score 9
 * at the end. */
static void test_monasteries_completed_on_a_crowded_board(void **unused)
{
    (void)unused;
    const char *opts[] = {"tiles=*:0,D:1,B:13", NULL};
    struct cas_test_game g;
    cas_test_game_open(&g, cas_plugin_entry(), 2, opts, NULL, 0);
    cas_test_play_record(&g, "draw B\nplace B 0,1 0\npass\n"
                             "draw B\nplace B -1,1 0\npass\n"
                             "draw B\nplace B 1,1 0\npass\n"
                             "draw B\nplace B -1,2 0\npass\n"
                             "draw B\nplace B 0,2 0\ndeploy meeple monastery\n"
                             "draw B\nplace B 1,2 0\npass\n"
                             "draw B\nplace B -1,3 0\npass\n"
                             "draw B\nplace B 0,3 0\ndeploy meeple monastery\n"
                             "draw B\nplace B 1,3 0\npass\n");
    cas_test_expect_scores(&g, (const int64_t[]){9, 0});
    cas_test_play_record(&g, "draw B\nplace B -1,4 0\npass\n"
                             "draw B\nplace B 1,4 0\ndeploy meeple monastery\n"
                             "draw B\nplace B 0,4 0\npass\n");
    cas_test_expect_scores(&g, (const int64_t[]){9, 9});
    cas_test_play_record(&g, "draw B\nplace B 2,1 0\npass\n");
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_TERMINAL);
    cas_test_expect_scores(&g, (const int64_t[]){13, 9});
    cas_test_game_close(&g);
}

/* Rulebook: deploy on the feature the tile completes, score it, and get the
 * meeple back in the same turn. */
static void test_place_and_score_same_turn(void **unused)
{
    (void)unused;
    const char *opts[] = {"tiles=*:0,D:1,E:1,U:1", NULL};
    struct cas_test_game g;
    cas_test_game_open(&g, cas_plugin_entry(), 2, opts, NULL, 0);
    cas_test_play_record(&g, "draw E\nplace E 0,-1 180\ndeploy meeple city S\n");
    cas_test_expect_scores(&g, (const int64_t[]){4, 0});
    char *json = cas_test_render(&g, CAS_VIEWER_PUBLIC, CAS_RENDER_JSON);
    assert_non_null(strstr(json, "{\"name\":\"Red\",\"score\":4,\"supply\":{\"meeple\":7}}"));
    free(json);
    cas_test_play_record(&g, "draw U\nplace U 1,0 0\npass\n");
    cas_test_expect_scores(&g, (const int64_t[]){4, 0});
    cas_test_game_close(&g);
}

/* The option meeples (JCloisterZone games may give other counts): 2 per
 * player: Red's two monks empty her supply; 13 is out of bounds. */
static void test_meeples_option_sets_the_supply(void **unused)
{
    (void)unused;
    const char *opts[] = {"tiles=*:0,D:1,B:4", "meeples=2", NULL};
    struct cas_test_game g;
    cas_test_game_open(&g, cas_plugin_entry(), 2, opts, NULL, 0);
    char *json = cas_test_render(&g, CAS_VIEWER_PUBLIC, CAS_RENDER_JSON);
    assert_non_null(strstr(json, "{\"name\":\"Red\",\"score\":0,\"supply\":{\"meeple\":2}}"));
    free(json);
    cas_test_play_record(&g, "draw B\nplace B 0,1 0\ndeploy meeple monastery\n"
                             "draw B\nplace B 1,1 0\npass\n"
                             "draw B\nplace B -1,1 0\ndeploy meeple monastery\n");
    json = cas_test_render(&g, CAS_VIEWER_PUBLIC, CAS_RENDER_JSON);
    assert_non_null(strstr(json, "\"supply\":{\"meeple\":0}"));
    free(json);
    cas_test_game_close(&g);
    const char *too_many[] = {"meeples=13", NULL};
    assert_int_equal(cas_test_game_try_open(&g, cas_plugin_entry(), 2, too_many, NULL, 0),
                     CAS_EOPTION);
    assert_non_null(strstr(g.error, "meeples 1 to 12"));
    cas_test_game_close(&g);
}

/* Rulebook: no meeple on a feature already occupied.  Blue's U(2,0)
 * extends Red's road: its road is refused; at the end Red's open road of
 * 3 tiles scores 3. */
static void test_occupied_feature_refused(void **unused)
{
    (void)unused;
    const char *opts[] = {"tiles=*:0,D:1,U:2", NULL};
    struct cas_test_game g;
    cas_test_game_open(&g, cas_plugin_entry(), 2, opts, NULL, 0);
    cas_test_play_record(&g, "draw U\nplace U 1,0 0\ndeploy meeple road E+W\n"
                             "draw U\nplace U 2,0 0\n");
    assert_int_equal(cas_test_try_play(&g, "deploy meeple road E+W"), CAS_EILLEGAL);
    cas_test_play(&g, "pass");
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_TERMINAL);
    cas_test_expect_scores(&g, (const int64_t[]){3, 0});
    cas_test_game_close(&g);
}

/* One meeple each in a city joined later: both score the full 10. */
static void test_city_tie_shares_full_points(void **unused)
{
    (void)unused;
    const char *opts[] = {"tiles=*:0,D:1,G:1,E:1,N:2", NULL};
    play_scenario(2, opts,
                  "draw G\nplace G 0,-1 90\ndeploy meeple city N+S\n"
                  "draw E\nplace E 1,-1 0\ndeploy meeple city N\n"
                  "draw N\nplace N 0,-2 180\npass\n"
                  "draw N\nplace N 1,-2 270\npass\n",
                  (const int64_t[]){10, 10});
}

/* Two of Red's knights against one of Blue's: Red alone scores 14. */
static void test_city_majority(void **unused)
{
    (void)unused;
    const char *opts[] = {"tiles=*:0,D:1,G:1,E:2,N:2,R:1", NULL};
    play_scenario(2, opts,
                  "draw G\nplace G 0,-1 90\ndeploy meeple city N+S\n"
                  "draw E\nplace E 1,-1 0\ndeploy meeple city N\n"
                  "draw E\nplace E -1,-1 0\ndeploy meeple city N\n"
                  "draw N\nplace N 1,-2 270\npass\n"
                  "draw N\nplace N -1,-2 180\npass\n"
                  "draw R\nplace R 0,-2 180\npass\n",
                  (const int64_t[]){14, 0});
}

/* Final scoring: incomplete road 1/tile, city 1/tile + 1/coat, monastery
 * 1 + 1 per neighbour. */
static void test_final_scoring_incomplete(void **unused)
{
    (void)unused;
    const char *opts[] = {"tiles=*:0,D:1,U:1,F:1,B:1", NULL};
    play_scenario(2, opts,
                  "draw U\nplace U 1,0 0\ndeploy meeple road E+W\n"
                  "draw F\nplace F 0,-1 90\ndeploy meeple city N+S\n"
                  "draw B\nplace B 0,1 0\ndeploy meeple monastery\n",
                  (const int64_t[]){2 + 3, 3});
}

/* projected_returns (ABI 1.1): the same position scored as if the game ended
 * before B is drawn: Red's road D-U 2, Blue's city D-F with its coat 3;
 * the state itself is untouched and still scores 0 each. */
static void test_projected_returns_score_as_if_over(void **unused)
{
    (void)unused;
    const char *opts[] = {"tiles=*:0,D:1,U:1,F:1,B:1", NULL};
    struct cas_test_game g;
    int64_t projected[2];
    cas_test_game_open(&g, cas_plugin_entry(), 2, opts, NULL, 0);
    cas_test_play_record(&g, "draw U\nplace U 1,0 0\ndeploy meeple road E+W\n"
                             "draw F\nplace F 0,-1 90\ndeploy meeple city N+S\n");
    uint64_t hash = g.vt->hash(g.state);
    assert_int_equal(g.vt->projected_returns(g.state, projected, 2), CAS_OK);
    assert_int_equal(projected[0], 2);
    assert_int_equal(projected[1], 3);
    assert_int_equal(g.vt->hash(g.state), hash);
    cas_test_expect_scores(&g, (const int64_t[]){0, 0});
    assert_int_equal(g.vt->projected_returns(g.state, projected, 1), CAS_EINVAL);
    /* over: the final scores themselves */
    cas_test_play_record(&g, "draw B\nplace B 0,1 0\ndeploy meeple monastery\n");
    assert_int_equal(g.vt->projected_returns(g.state, projected, 2), CAS_OK);
    assert_int_equal(projected[0], 2 + 3);
    assert_int_equal(projected[1], 3);
    cas_test_game_close(&g);
}

/* Farmers: 3 per completed city touching the field, at the end. */
static void test_farmer_scores_completed_city(void **unused)
{
    (void)unused;
    const char *opts[] = {"tiles=*:0,D:1,E:1,U:1", NULL};
    play_scenario(2, opts,
                  "draw E\nplace E 0,-1 180\npass\n"
                  "draw U\nplace U 1,0 0\ndeploy meeple field Nw+Ne+En+Wn\n",
                  (const int64_t[]){0, 3});
}

/* A road splits fields: the farmer south of it touches no city. */
static void test_field_split_by_road(void **unused)
{
    (void)unused;
    const char *opts[] = {"tiles=*:0,D:1,U:2,E:1", NULL};
    play_scenario(2, opts,
                  "draw U\nplace U 1,0 0\ndeploy meeple field Es+Se+Sw+Ws\n"
                  "draw U\nplace U -1,0 0\ndeploy meeple field Nw+Ne+En+Wn\n"
                  "draw E\nplace E 0,-1 180\npass\n",
                  (const int64_t[]){0, 3});
}

/* Two farmers in fields joined around a road end: a tie, both score. */
static void test_farmer_tie(void **unused)
{
    (void)unused;
    const char *opts[] = {"tiles=*:0,D:1,U:2,A:1,E:1", NULL};
    play_scenario(2, opts,
                  "draw U\nplace U 1,0 0\ndeploy meeple field Nw+Ne+En+Wn\n"
                  "draw U\nplace U -1,0 0\ndeploy meeple field Es+Se+Sw+Ws\n"
                  "draw A\nplace A 2,0 90\npass\n"
                  "draw E\nplace E 0,-1 180\npass\n",
                  (const int64_t[]){3, 3});
}

/* One field touching two completed cities: 6 for its farmer. */
static void test_farmer_two_cities(void **unused)
{
    (void)unused;
    const char *opts[] = {"tiles=*:0,D:1,K:1,E:2", NULL};
    play_scenario(2, opts,
                  "draw K\nplace K 1,0 0\ndeploy meeple field En+Es+Se+Wn\n"
                  "draw E\nplace E 0,-1 180\npass\n"
                  "draw E\nplace E 1,-1 180\npass\n",
                  (const int64_t[]){6, 0});
}

/* Three fields with farmers (Red, Blue, Red) joined: Red alone scores. */
static void test_farmer_majority(void **unused)
{
    (void)unused;
    const char *opts[] = {"tiles=*:0,D:1,E:1,U:2,B:1,A:1", NULL};
    play_scenario(2, opts,
                  "draw E\nplace E 0,-1 180\ndeploy meeple field Nw+Ne+En+Es+Ws+Wn\n"
                  "draw U\nplace U 1,0 0\ndeploy meeple field Nw+Ne+En+Wn\n"
                  "draw U\nplace U -1,0 0\ndeploy meeple field Es+Se+Sw+Ws\n"
                  "draw B\nplace B 1,-1 0\npass\n"
                  "draw A\nplace A 2,0 90\npass\n",
                  (const int64_t[]){3, 0});
}

/* Rulebook: a completed city scores 2 per coat of arms.  D, M(0,-1) coat,
 * M(1,-1) coat, E(1,-2): 4 tiles and 2 coats, 4 x 2 + 2 x 2 = 12. */
static void test_city_two_coats(void **unused)
{
    (void)unused;
    const char *opts[] = {"tiles=*:0,D:1,M:2,E:1", NULL};
    play_scenario(2, opts,
                  "draw M\nplace M 0,-1 180\ndeploy meeple city E+S\n"
                  "draw M\nplace M 1,-1 0\npass\n"
                  "draw E\nplace E 1,-2 180\npass\n",
                  (const int64_t[]){12, 0});
}

/* Farmers: a field that touches one completed city on two tiles counts it
 * once.  Blue's field (U north, D north, B, E around the city) touches the
 * city D+E(0,-1) through D and through E: 3, not 6. */
static void test_farmer_same_city_twice(void **unused)
{
    (void)unused;
    const char *opts[] = {"tiles=*:0,D:1,E:1,U:1,B:1", NULL};
    play_scenario(2, opts,
                  "draw E\nplace E 0,-1 180\npass\n"
                  "draw U\nplace U 1,0 0\ndeploy meeple field Nw+Ne+En+Wn\n"
                  "draw B\nplace B 1,-1 0\npass\n",
                  (const int64_t[]){0, 3});
}

/* Farmers: cities still open at the end are worth nothing to a field.
 * Red's field touches D's and E(1,-1)'s open cities: 0; Blue's knight in
 * the open city E scores 1. */
static void test_farmer_open_cities_worth_nothing(void **unused)
{
    (void)unused;
    const char *opts[] = {"tiles=*:0,D:1,U:1,E:1", NULL};
    play_scenario(2, opts,
                  "draw U\nplace U 1,0 0\ndeploy meeple field Nw+Ne+En+Wn\n"
                  "draw E\nplace E 1,-1 0\ndeploy meeple city N\n",
                  (const int64_t[]){0, 1});
}

/* With farmers off no field can be chosen. */
static void test_farmers_off(void **unused)
{
    (void)unused;
    const char *opts[] = {"tiles=*:0,D:1,U:1", "farmers=off", NULL};
    struct cas_test_game g;
    cas_test_game_open(&g, cas_plugin_entry(), 2, opts, NULL, 0);
    cas_test_play_record(&g, "draw U\nplace U 1,0 0\n");
    char texts[512];
    cas_test_legal_texts(&g, texts, sizeof texts);
    assert_string_equal(texts, "deploy meeple road E+W\npass\n");
    assert_int_equal(cas_test_try_play(&g, "deploy meeple field Nw+Ne+En+Wn"), CAS_EILLEGAL);
    cas_test_game_close(&g);
}

/* A tile that fits nowhere is removed and chance draws again. */
static void test_tile_fits_nowhere(void **unused)
{
    (void)unused;
    const char *opts[] = {"tiles=*:0,D:1,E:1,C:1,U:1", NULL};
    struct cas_test_game g;
    cas_test_game_open(&g, cas_plugin_entry(), 2, opts, NULL, 0);
    cas_test_play_record(&g, "draw E\nplace E 0,-1 180\npass\ndraw C\n");
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_CHANCE);
    assert_non_null(strstr(g.events, "tile C fits nowhere: removed from the game"));
    assert_int_equal(cas_test_try_play(&g, "draw C"), CAS_EILLEGAL);
    cas_test_play_record(&g, "draw U\nplace U 1,0 0\ndeploy meeple road E+W\n");
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_TERMINAL);
    cas_test_expect_scores(&g, (const int64_t[]){0, 2});
    cas_test_game_close(&g);
}

/* Four curves close a road loop of 4 tiles. */
static void test_road_loop(void **unused)
{
    (void)unused;
    const char *opts[] = {"tiles=*:0,D:1,V:4", NULL};
    play_scenario(2, opts,
                  "draw V\nplace V 0,1 270\ndeploy meeple road E+S\n"
                  "draw V\nplace V 1,1 0\npass\n"
                  "draw V\nplace V 1,2 90\npass\n"
                  "draw V\nplace V 0,2 180\npass\n",
                  (const int64_t[]){4, 0});
}

/* A city that passes through one tile twice counts that tile once: the
 * ring N(0,1), N(1,1), N(0,2) closed by I(1,2), whose two city parts both
 * join it, is 4 tiles, 8 points (not 10). */
static void test_city_through_one_tile_twice(void **unused)
{
    (void)unused;
    const char *opts[] = {"tiles=*:0,D:1,N:3,I:1", NULL};
    play_scenario(2, opts,
                  "draw N\nplace N 0,1 180\ndeploy meeple city E+S\n"
                  "draw N\nplace N 1,1 270\npass\n"
                  "draw N\nplace N 0,2 90\npass\n"
                  "draw I\nplace I 1,2 0\npass\n",
                  (const int64_t[]){8, 0});
}

/* One tile closes a city on three sides at once: 4 tiles, 8 points. */
static void test_city_closed_on_three_sides(void **unused)
{
    (void)unused;
    const char *opts[] = {"tiles=*:0,D:1,U:2,E:2,R:1", NULL};
    play_scenario(2, opts,
                  "draw U\nplace U -1,0 0\npass\n"
                  "draw E\nplace E -1,-1 90\ndeploy meeple city E\n"
                  "draw U\nplace U 1,0 0\npass\n"
                  "draw E\nplace E 1,-1 270\ndeploy meeple city W\n"
                  "draw R\nplace R 0,-1 180\npass\n",
                  (const int64_t[]){0, 8});
}

/* Five players, each scoring a different way; the END event names the
 * three tied winners. */
static void test_five_players(void **unused)
{
    (void)unused;
    const char *opts[] = {"tiles=*:0,D:1,U:2,E:1,B:1,V:1", NULL};
    struct cas_test_game g;
    cas_test_game_open(&g, cas_plugin_entry(), 5, opts, NULL, 0);
    cas_test_play_record(&g, "draw U\nplace U 1,0 0\ndeploy meeple road E+W\n"
                             "draw E\nplace E 0,-1 180\ndeploy meeple city S\n"
                             "draw B\nplace B 0,1 0\ndeploy meeple monastery\n"
                             "draw U\nplace U -1,0 0\ndeploy meeple field Nw+Ne+En+Wn\n"
                             "draw V\nplace V 2,0 0\npass\n");
    cas_test_expect_scores(&g, (const int64_t[]){4, 4, 4, 3, 0});
    assert_non_null(strstr(g.events, "game over; winner: Red Blue Green with 4\n"));
    cas_test_game_close(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_three_tile_road),
        cmocka_unit_test(test_road_ends_at_monastery),
        cmocka_unit_test(test_eight_point_city),
        cmocka_unit_test(test_nine_point_monastery),
        cmocka_unit_test(test_monasteries_completed_on_a_crowded_board),
        cmocka_unit_test(test_place_and_score_same_turn),
        cmocka_unit_test(test_meeples_option_sets_the_supply),
        cmocka_unit_test(test_occupied_feature_refused),
        cmocka_unit_test(test_city_tie_shares_full_points),
        cmocka_unit_test(test_city_majority),
        cmocka_unit_test(test_final_scoring_incomplete),
        cmocka_unit_test(test_projected_returns_score_as_if_over),
        cmocka_unit_test(test_farmer_scores_completed_city),
        cmocka_unit_test(test_field_split_by_road),
        cmocka_unit_test(test_farmer_tie),
        cmocka_unit_test(test_farmer_two_cities),
        cmocka_unit_test(test_farmer_majority),
        cmocka_unit_test(test_city_two_coats),
        cmocka_unit_test(test_farmer_same_city_twice),
        cmocka_unit_test(test_farmer_open_cities_worth_nothing),
        cmocka_unit_test(test_farmers_off),
        cmocka_unit_test(test_tile_fits_nowhere),
        cmocka_unit_test(test_road_loop),
        cmocka_unit_test(test_city_through_one_tile_twice),
        cmocka_unit_test(test_city_closed_on_three_sides),
        cmocka_unit_test(test_five_players),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
