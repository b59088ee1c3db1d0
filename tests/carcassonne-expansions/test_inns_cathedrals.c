/*
 * test_inns_cathedrals.c — Inns & Cathedrals scenarios with exact scores:
 * each rulebook caption (10-point inn roads, 27-point cathedral city, open
 * inn road and cathedral city worth 0, the 8-point large-meeple city, the
 * 9-point large farmer), inns and cathedrals not stacking, the inn on two
 * arms of the junction tile, a large meeple against two meeples, the tile
 * pool and the sixth colour.
 * Coordinates: start tile D at 0,0 (city N, road E+W), x east, y south.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "scenario.h"

/* Caption: a 5-tile road with an inn scores 10.  W(-1,0) D IC-15 U W(3,0). */
static void test_inn_road_scores_two_per_tile(void **unused)
{
    (void)unused;
    carcx_scenario(2, CARCX_IC, "*:0,D:1,IC-15:1,U:1,W:2",
                   "draw IC-15\nplace IC-15 1,0 0\ndeploy meeple road E+W\n"
                   "draw U\nplace U 2,0 0\npass\n"
                   "draw W\nplace W 3,0 0\npass\n"
                   "draw W\nplace W -1,0 0\npass\n",
                   (const int64_t[]){10, 0});
}

/* Caption: two inns on a 5-tile road still score 10 (no stacking).
 * W(-1,0) D IC-15 IC-12(2,0, turning south) W(2,1). */
static void test_two_inns_do_not_stack(void **unused)
{
    (void)unused;
    carcx_scenario(2, CARCX_IC, "*:0,D:1,IC-15:1,IC-12:1,W:2",
                   "draw IC-15\nplace IC-15 1,0 0\ndeploy meeple road E+W\n"
                   "draw IC-12\nplace IC-12 2,0 0\npass\n"
                   "draw W\nplace W 2,1 180\npass\n"
                   "draw W\nplace W -1,0 0\npass\n",
                   (const int64_t[]){10, 0});
}

/* Caption: an inn road still open at the end scores nothing, while Blue's
 * plain open road scores its tile. */
static void test_open_inn_road_scores_nothing(void **unused)
{
    (void)unused;
    carcx_scenario(2, CARCX_IC, "*:0,D:1,IC-15:1,U:1",
                   "draw IC-15\nplace IC-15 1,0 0\ndeploy meeple road E+W\n"
                   "draw U\nplace U 0,1 0\ndeploy meeple road E+W\n",
                   (const int64_t[]){0, 1});
}

/* A scoring worth nothing is still told: the open inn road's and the open
 * cathedral city's owners get a +0 event in the final scoring. */
static void test_zero_point_scorings_are_told(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    carcx_open(&g, 2, CARCX_IC, "*:0,D:1,IC-15:1,U:1");
    cas_test_play_record(&g, "draw IC-15\nplace IC-15 1,0 0\ndeploy meeple road E+W\n"
                             "draw U\nplace U 0,1 0\ndeploy meeple road E+W\n");
    if (!strstr(g.events, "Red +0 road ("))
        fail_msg("no 0-point event for the open inn road:\n%s", g.events);
    cas_test_expect_scorings(&g, "0 +0 inn-road final road at 1,0\n"
                                 "1 +1 road final road at 0,1\n");
    cas_test_game_close(&g);
    carcx_open(&g, 2, CARCX_IC, "*:0,D:1,IC-1:1,E:1");
    cas_test_play_record(&g, "draw IC-1\nplace IC-1 0,-1 0\ndeploy meeple city N+E+S+W\n"
                             "draw E\nplace E 0,1 180\ndeploy meeple city S\n");
    if (!strstr(g.events, "Red +0 city ("))
        fail_msg("no 0-point event for the open cathedral city:\n%s", g.events);
    cas_test_expect_scorings(&g, "0 +0 cathedral-city final city at 0,-1\n"
                                 "1 +1 city final city at 0,1\n");
    cas_test_game_close(&g);
}

/* Completed during the game, the inn road (10) and the cathedral city
 * (27) are told as such, to the player and in play. */
static void test_scorings_name_inn_road_and_cathedral_city(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    carcx_open(&g, 2, CARCX_IC, "*:0,D:1,IC-15:1,U:1,W:2");
    cas_test_play_record(&g, "draw IC-15\nplace IC-15 1,0 0\ndeploy meeple road E+W\n"
                             "draw U\nplace U 2,0 0\npass\n"
                             "draw W\nplace W 3,0 0\npass\n"
                             "draw W\nplace W -1,0 0\npass\n");
    cas_test_expect_scorings(&g, "0 +10 inn-road play road at 1,0\n");
    cas_test_game_close(&g);
    carcx_open(&g, 2, CARCX_IC, CARCX_CATHEDRAL_CITY_TILES);
    cas_test_play_record(&g, CARCX_CATHEDRAL_CITY_RECORD);
    cas_test_expect_scorings(&g, "0 +27 cathedral-city play city at 0,-1\n");
    cas_test_game_close(&g);
}

/* The junction tile's inn serves its E and W arms, not its S arm: Red's
 * W arm road (3 tiles) scores 6, Blue's S arm road (2 tiles) 2. */
static void test_junction_inn_serves_two_arms(void **unused)
{
    (void)unused;
    carcx_scenario(2, CARCX_IC, "*:0,D:1,IC-14:1,W:2",
                   "draw IC-14\nplace IC-14 1,0 0\ndeploy meeple road W\n"
                   "draw W\nplace W 1,1 180\ndeploy meeple road N\n"
                   "draw W\nplace W -1,0 0\npass\n",
                   (const int64_t[]){6, 2});
}

/* Caption: IC-2's monastery cuts its road in two.  Red's west road
 * W(-1,0) D IC-2(1,0) ends there: complete, 3 points, though IC-2's east
 * road is still open. */
static void test_monastery_cuts_road(void **unused)
{
    (void)unused;
    carcx_scenario(2, CARCX_IC, "*:0,D:1,IC-2:1,W:1",
                   "draw IC-2\nplace IC-2 1,0 0\ndeploy meeple road W\n"
                   "draw W\nplace W -1,0 0\npass\n",
                   (const int64_t[]){3, 0});
}

/* Caption: a cathedral city of 7 tiles and 2 coats scores 9 x 3 = 27.
 * D, IC-1(0,-1), F(0,-2) coat, E(0,-3), E(-1,-1), F(1,-1) coat, E(2,-1). */
static void test_cathedral_city_27(void **unused)
{
    (void)unused;
    carcx_scenario(2, CARCX_IC, CARCX_CATHEDRAL_CITY_TILES, CARCX_CATHEDRAL_CITY_RECORD,
                   (const int64_t[]){27, 0});
}

/* Both cathedrals in one 8-tile city: 3 per tile, not more. */
static void test_two_cathedrals_do_not_stack(void **unused)
{
    (void)unused;
    carcx_scenario(2, CARCX_IC, "*:0,D:1,IC-1:2,E:5",
                   "draw IC-1\nplace IC-1 0,-1 0\ndeploy meeple city N+E+S+W\n"
                   "draw IC-1\nplace IC-1 0,-2 0\npass\n"
                   "draw E\nplace E -1,-1 90\npass\n"
                   "draw E\nplace E 1,-1 270\npass\n"
                   "draw E\nplace E -1,-2 90\npass\n"
                   "draw E\nplace E 1,-2 270\npass\n"
                   "draw E\nplace E 0,-3 180\npass\n",
                   (const int64_t[]){24, 0});
}

/* Caption: a cathedral city still open at the end scores nothing, while
 * Blue's plain open city scores 1. */
static void test_open_cathedral_city_scores_nothing(void **unused)
{
    (void)unused;
    carcx_scenario(2, CARCX_IC, "*:0,D:1,IC-1:1,E:1",
                   "draw IC-1\nplace IC-1 0,-1 0\ndeploy meeple city N+E+S+W\n"
                   "draw E\nplace E 0,1 180\ndeploy meeple city S\n",
                   (const int64_t[]){0, 1});
}

/* Caption: Red's large meeple against Black's meeple in a completed city:
 * Red alone scores 8 (4 tiles: D, N(0,-1), G(1,-1), E(2,-1)). */
static void test_large_meeple_city_8(void **unused)
{
    (void)unused;
    carcx_scenario(2, CARCX_IC, "*:0,D:1,N:1,U:2,E:1,G:1",
                   "draw N\nplace N 0,-1 180\ndeploy large-meeple city E+S\n"
                   "draw U\nplace U 1,0 0\npass\n"
                   "draw U\nplace U 2,0 0\npass\n"
                   "draw E\nplace E 2,-1 270\ndeploy meeple city W\n"
                   "draw G\nplace G 1,-1 0\npass\n",
                   (const int64_t[]){8, 0});
}

/* A large meeple against two meeples is a tie: both score the full 10 for
 * a 5-tile city joined by R(1,-1). */
static void test_large_meeple_ties_two_meeples(void **unused)
{
    (void)unused;
    carcx_scenario(2, CARCX_IC, CARCX_TIE_CITY_TILES,
                   CARCX_TIE_CITY_RECORD "draw R\nplace R 1,-1 0\npass\n",
                   (const int64_t[]){10, 10});
}

/* The large meeple on a monastery scores it like a meeple (it only counts
 * twice for majority): at the end B(0,1) with D and U(1,0) around it is
 * 1 + 2 = 3, not 6; Blue's open road D+U scores 2. */
static void test_large_meeple_monastery_3(void **unused)
{
    (void)unused;
    carcx_scenario(2, CARCX_IC, "*:0,D:1,B:1,U:1",
                   "draw B\nplace B 0,1 0\ndeploy large-meeple monastery\n"
                   "draw U\nplace U 1,0 0\ndeploy meeple road E+W\n",
                   (const int64_t[]){3, 2});
}

/* FAQ: the cathedral does not change farmers.  Blue's cathedral city of 5
 * tiles (D, IC-1, three E) scores 15; Red's farmer beside it scores 3. */
static void test_cathedral_city_worth_3_to_farmer(void **unused)
{
    (void)unused;
    carcx_scenario(2, CARCX_IC, "*:0,D:1,IC-1:1,E:3,U:1",
                   "draw U\nplace U 1,0 0\ndeploy meeple field Nw+Ne+En+Wn\n"
                   "draw IC-1\nplace IC-1 0,-1 0\ndeploy meeple city N+E+S+W\n"
                   "draw E\nplace E -1,-1 90\npass\n"
                   "draw E\nplace E 1,-1 270\npass\n"
                   "draw E\nplace E 0,-2 180\npass\n",
                   (const int64_t[]){3, 15});
}

/* Caption: Red's large farmer against Blue's farmer in a field touching 3
 * completed cities: Red alone scores 9.  The fields join at E(1,-1). */
static void test_large_farmer_9(void **unused)
{
    (void)unused;
    carcx_scenario(2, CARCX_IC, "*:0,D:1,U:2,E:5",
                   "draw U\nplace U 1,0 0\ndeploy large-meeple field Nw+Ne+En+Wn\n"
                   "draw E\nplace E 0,-1 180\ndeploy meeple field Nw+Ne+En+Es+Ws+Wn\n"
                   "draw E\nplace E 1,-1 0\npass\n"
                   "draw E\nplace E 1,-2 180\npass\n"
                   "draw U\nplace U -1,0 0\npass\n"
                   "draw E\nplace E -1,-1 0\npass\n"
                   "draw E\nplace E -1,-2 180\npass\n",
                   (const int64_t[]){9, 0});
}

/* The large meeple is one per player: after deploying it, it is no longer
 * offered, and it is offered beside the meeple before. */
static void test_large_meeple_offered_once(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    carcx_open(&g, 2, CARCX_IC, "*:0,D:1,IC-15:1,U:3");
    char texts[1024];
    carcx_play_then_list(&g, "draw IC-15\nplace IC-15 1,0 0\n", texts, sizeof texts);
    assert_non_null(strstr(texts, "deploy large-meeple road E+W\n"));
    assert_non_null(strstr(texts, "deploy large-meeple field Nw+Ne+En+Wn\n"));
    carcx_play_then_list(&g, "deploy large-meeple field Es+Se+Sw+Ws\n"
                             "draw U\nplace U 0,1 0\npass\n"
                             "draw U\nplace U 2,0 0\n", texts, sizeof texts);
    assert_null(strstr(texts, "large-meeple"));
    assert_non_null(strstr(texts, "deploy meeple road E+W\n"));
    cas_test_game_close(&g);
}

/* Caption: nobody may stand on IC-5's two road stubs (they only cut the
 * field); the road a stub ends is taken from its own tile as usual, and
 * counts IC-5 as one of its tiles (U 2,0 + IC-5: 2 points at the end). */
static void test_crossing_stubs_take_no_one(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    carcx_open(&g, 2, CARCX_IC, "*:0,D:1,IC-5:1,U:1");
    char texts[2048];
    carcx_play_then_list(&g, "draw IC-5\nplace IC-5 1,0 0\n", texts, sizeof texts);
    assert_null(strstr(texts, "road"));
    assert_non_null(strstr(texts, "deploy meeple city N\n"));
    assert_non_null(strstr(texts, "deploy meeple field Wn\n"));
    carcx_play_then_list(&g, "pass\ndraw U\nplace U 2,0 0\n", texts, sizeof texts);
    assert_non_null(strstr(texts, "deploy meeple road E+W\n"));
    cas_test_play(&g, "deploy meeple road E+W");
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_TERMINAL);
    cas_test_expect_scores(&g, (const int64_t[]){0, 2});
    cas_test_game_close(&g);
}

/* The pool: 71 base tiles in the bag plus the 18 of the expansion, of
 * 17 kinds. */
static void test_tile_pool(void **unused)
{
    (void)unused;
    carcx_expect_pool(CARCX_IC, 71 + 18, 24 + 17);
}

/* Six players with the expansion (the sixth is Pink); not without it. */
static void test_sixth_colour(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    carcx_open(&g, 6, CARCX_IC, NULL);
    assert_string_equal(g.vt->player_label(g.game, 5), "Pink");
    cas_test_game_close(&g);
    assert_int_equal(cas_test_game_try_open(&g, cas_plugin_entry(), 6, NULL, NULL, 0),
                     CAS_EINVAL);
    assert_non_null(strstr(g.error, "Carcassonne takes 2 to 5"));
    cas_test_game_close(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inn_road_scores_two_per_tile),
        cmocka_unit_test(test_two_inns_do_not_stack),
        cmocka_unit_test(test_open_inn_road_scores_nothing),
        cmocka_unit_test(test_zero_point_scorings_are_told),
        cmocka_unit_test(test_scorings_name_inn_road_and_cathedral_city),
        cmocka_unit_test(test_junction_inn_serves_two_arms),
        cmocka_unit_test(test_monastery_cuts_road),
        cmocka_unit_test(test_cathedral_city_27),
        cmocka_unit_test(test_two_cathedrals_do_not_stack),
        cmocka_unit_test(test_open_cathedral_city_scores_nothing),
        cmocka_unit_test(test_large_meeple_city_8),
        cmocka_unit_test(test_large_meeple_ties_two_meeples),
        cmocka_unit_test(test_large_meeple_monastery_3),
        cmocka_unit_test(test_cathedral_city_worth_3_to_farmer),
        cmocka_unit_test(test_large_farmer_9),
        cmocka_unit_test(test_large_meeple_offered_once),
        cmocka_unit_test(test_crossing_stubs_take_no_one),
        cmocka_unit_test(test_tile_pool),
        cmocka_unit_test(test_sixth_colour),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
