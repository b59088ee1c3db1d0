/*
 * test_traders_builders.c — Traders & Builders scenarios with exact scores:
 * each rulebook caption (the goods example, the 2-player goods final
 * scoring, the builder's turns 1 to 3b, the 8-point pig field), the
 * builder's and pig's placement rules, no chained builder tiles, a pig in a
 * field later joined to a rival's farmer, the bridge, the tile pool and the
 * expansion's serialized block.
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

/* Caption: Red completes Blue's city (D, TB-3 wine, TB-7 grain, TB-2 grain,
 * E): Blue scores 10, Red, the trader, takes 1 wine and 2 grain, worth 20
 * at the end. */
static void test_goods_go_to_trader(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    carcx_open(&g, 2, CARCX_TB, "*:0,D:1,TB-3:1,TB-7:1,TB-2:1,U:1,E:1");
    cas_test_play_record(&g, "draw TB-3\nplace TB-3 0,-1 90\npass\n"
                             "draw TB-7\nplace TB-7 0,-2 90\ndeploy meeple city N+S\n"
                             "draw TB-2\nplace TB-2 0,-3 180\npass\n"
                             "draw U\nplace U 1,0 0\npass\n"
                             "draw E\nplace E 1,-3 270\npass\n");
    assert_non_null(strstr(g.events, "Red takes goods: 1 wine 2 grain\n"
                                     "Blue +10 city (5 tiles, 0 coats)\n"));
    char *json = cas_test_render(&g, CAS_VIEWER_PUBLIC, CAS_RENDER_JSON);
    assert_non_null(strstr(json, "\"goods\":[[1,2,0],[0,0,0]]"));
    free(json);
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_TERMINAL);
    cas_test_expect_scores(&g, (const int64_t[]){20, 10});
    cas_test_game_close(&g);
}

/* Goods go to whoever completes the city even if nobody holds it: Blue
 * closes the empty wine city D, TB-3, E and wins the wine: 10. */
static void test_goods_from_unoccupied_city(void **unused)
{
    (void)unused;
    carcx_scenario(2, CARCX_TB, "*:0,D:1,TB-3:1,E:1",
                   "draw TB-3\nplace TB-3 0,-1 90\npass\n"
                   "draw E\nplace E 0,-2 180\npass\n",
                   (const int64_t[]){0, 10});
}

/* Goods come only with a completed city: Red's wine city (D, TB-3) still
 * open at the end scores 2 and gives nobody a token (no 10 for wine). */
static void test_open_goods_city_gives_no_goods(void **unused)
{
    (void)unused;
    carcx_scenario(2, CARCX_TB, "*:0,D:1,TB-3:1",
                   "draw TB-3\nplace TB-3 0,-1 90\ndeploy meeple city N+S\n",
                   (const int64_t[]){2, 0});
}

/* Caption (2 players): wine and grain tied, cloth Blue's: Red 20, Blue 30.
 * Red trades D, TB-3, TB-7, TB-20 + E (1 wine, 2 grain); Blue the ring
 * TB-1, TB-2, TB-19, TB-16 below D (1 wine, 2 grain, 1 cloth). */
#define GOODS_TIES_TILES "*:0,D:1,TB-3:1,TB-1:1,TB-7:1,TB-2:1,TB-20:1,TB-19:1,E:1,TB-16:1"
#define GOODS_TIES_RECORD                                                  \
    "draw TB-3\nplace TB-3 0,-1 90\npass\n"                                 \
    "draw TB-1\nplace TB-1 0,1 180\npass\n"                                 \
    "draw TB-7\nplace TB-7 0,-2 90\npass\n"                                 \
    "draw TB-2\nplace TB-2 1,1 270\npass\n"                                 \
    "draw TB-20\nplace TB-20 0,-3 180\npass\n"                              \
    "draw TB-19\nplace TB-19 0,2 90\npass\n"                                \
    "draw E\nplace E 1,-3 270\npass\n"                                      \
    "draw TB-16\nplace TB-16 1,2 0\npass\n"

static void test_goods_final_ties(void **unused)
{
    (void)unused;
    carcx_scenario(2, CARCX_TB, GOODS_TIES_TILES, GOODS_TIES_RECORD, (const int64_t[]){20, 30});
}

/* Red's farmer and pig; Blue's farmer in another field, joined later by
 * E(1,-1) (test_pig_field_joined_to_rival). */
#define PIG_RIVAL_TILES "*:0,D:1,U:2,E:3"
#define PIG_RIVAL_RECORD                                                   \
    "draw U\nplace U 1,0 0\ndeploy meeple field Nw+Ne+En+Wn\n"              \
    "draw E\nplace E 0,-1 180\ndeploy meeple field Nw+Ne+En+Es+Ws+Wn\n"     \
    "draw U\nplace U -1,0 0\ndeploy pig field Nw+Ne+En+Wn\n"                \
    "draw E\nplace E 1,-1 0\npass\n"                                        \
    "draw E\nplace E 1,-2 180\npass\n"

/* The goods majorities are told as "goods" of each kind in the final
 * scoring (the caption's ties: Red wine and grain, Blue all three), the
 * pig's field as a "pig-field" (8) beside a plain one. */
static void test_scorings_name_goods_and_pig_field(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    carcx_open(&g, 2, CARCX_TB, GOODS_TIES_TILES);
    cas_test_play_record(&g, GOODS_TIES_RECORD);
    cas_test_expect_scorings(&g, "0 +10 goods final wine\n"
                                 "1 +10 goods final wine\n"
                                 "0 +10 goods final grain\n"
                                 "1 +10 goods final grain\n"
                                 "1 +10 goods final cloth\n");
    cas_test_game_close(&g);
    carcx_open(&g, 2, CARCX_TB, PIG_RIVAL_TILES);
    cas_test_play_record(&g, PIG_RIVAL_RECORD);
    cas_test_expect_scorings(&g, "0 +8 pig-field final field at 1,0\n"
                                 "1 +6 field final field at 1,0\n");
    cas_test_expect_scores(&g, (const int64_t[]){8, 6});
    cas_test_game_close(&g);
}

/* Caption, turns 1 to 3b: highwayman (1), builder beside it (2), a tile
 * completing the road with a knight on it (3a: road 5, builder back),
 * the second tile with the builder on the knight's city (3b).  Later a
 * tile extending that city grants a second tile which completes it: no
 * third tile (no chains).  Red: 5 + 12 (4 tiles, 2 coats). */
static void test_builder_turns_1_to_3b(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    carcx_open(&g, 2, CARCX_TB, "*:0,D:1,W:1,U:5,TB-21:1,F:2,E:1");
    cas_test_play_record(&g, "draw U\nplace U 1,0 0\ndeploy meeple road E+W\n"
                             "draw W\nplace W -1,0 0\npass\n");
    char texts[1024];
    carcx_play_then_list(&g, "draw U\nplace U 2,0 0\n", texts, sizeof texts);
    assert_non_null(strstr(texts, "deploy builder road E+W\n"));
    cas_test_play_record(&g, "deploy builder road E+W\n"
                             "draw U\nplace U 0,1 0\npass\n"
                             "draw TB-21\nplace TB-21 3,0 180\ndeploy meeple city S\n");
    cas_test_expect_scores(&g, (const int64_t[]){5, 0});
    assert_non_null(strstr(g.events, "Red's builder: one more tile this turn\n"));
    cas_test_play(&g, "draw F");
    assert_int_equal(g.vt->current(g.state), 0); /* Red's second tile */
    cas_test_play_record(&g, "place F 3,1 90\ndeploy builder city N+S\n"
                             "draw U\n");
    assert_int_equal(g.vt->current(g.state), 1); /* Blue: no chain */
    cas_test_play_record(&g, "place U -2,0 0\npass\n"
                             "draw F\nplace F 3,2 90\npass\n"
                             "draw E\nplace E 3,3 0\npass\n"
                             "draw U\n");
    assert_int_equal(g.vt->current(g.state), 1); /* after the second tile: Blue */
    cas_test_play_record(&g, "place U -3,0 0\npass\n");
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_TERMINAL);
    cas_test_expect_scores(&g, (const int64_t[]){17, 0});
    cas_test_game_close(&g);
}

/* The builder's extra tile needs a tile in the bag: Red's U(3,0), the last
 * tile, extends the builder's road and the game ends; Red's open 6-tile
 * road scores 6. */
static void test_builder_with_empty_bag_ends_game(void **unused)
{
    (void)unused;
    carcx_scenario(2, CARCX_TB, "*:0,D:1,U:5",
                   "draw U\nplace U 1,0 0\ndeploy meeple road E+W\n"
                   "draw U\nplace U -1,0 0\npass\n"
                   "draw U\nplace U 2,0 0\ndeploy builder road E+W\n"
                   "draw U\nplace U -2,0 0\npass\n"
                   "draw U\nplace U 3,0 0\npass\n",
                   (const int64_t[]){6, 0});
}

/* builders = 2 (JCloisterZone games may give two): with one of Red's two
 * builders on her road, extending it still grants the second tile (the
 * hook compares the supply with the count, not with 0). */
static void test_second_builder_option(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    const char *options[] = {"traders-builders.builders=2", NULL};
    carcx_open_with(&g, 2, CARCX_TB, "*:0,D:1,U:6", options);
    cas_test_play_record(&g, "draw U\nplace U 1,0 0\ndeploy meeple road E+W\n"
                             "draw U\nplace U -1,0 0\npass\n"
                             "draw U\nplace U 2,0 0\ndeploy builder road E+W\n"
                             "draw U\nplace U -2,0 0\npass\n"
                             "draw U\nplace U 3,0 0\npass\n");
    assert_non_null(strstr(g.events, "Red's builder: one more tile this turn\n"));
    cas_test_play(&g, "draw U");
    assert_int_equal(g.vt->current(g.state), 0); /* Red's second tile */
    cas_test_game_close(&g);
}

/* The builder goes only beside its owner's meeple on a road or city: not
 * on an empty road, not on a rival's road, never on a field. */
static void test_builder_needs_own_meeple(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    carcx_open(&g, 2, CARCX_TB, "*:0,D:1,U:3");
    char texts[1024];
    carcx_play_then_list(&g, "draw U\nplace U 1,0 0\n", texts, sizeof texts);
    assert_null(strstr(texts, "builder"));
    /* Blue, on Red's road */
    carcx_play_then_list(&g, "deploy meeple road E+W\ndraw U\nplace U 2,0 0\n", texts,
                         sizeof texts);
    assert_null(strstr(texts, "builder"));
    /* Red, on Red's road */
    carcx_play_then_list(&g, "pass\ndraw U\nplace U -1,0 0\n", texts, sizeof texts);
    assert_string_equal(texts, "deploy meeple field Nw+Ne+En+Wn\n"
                               "deploy meeple field Es+Se+Sw+Ws\n"
                               "deploy builder road E+W\n"
                               "pass\n");
    cas_test_game_close(&g);
}

/* Caption: Red has the most farmers (2 against Blue's 1) in a field with
 * 2 completed cities and a pig: 4 per city, 8; Blue nothing.  Red's
 * fields join through E(1,-1) and B(0,-2). */
static void test_pig_field_8(void **unused)
{
    (void)unused;
    carcx_scenario(2, CARCX_TB, "*:0,D:1,U:3,E:3,B:1",
                   "draw U\nplace U 1,0 0\ndeploy meeple field Nw+Ne+En+Wn\n"
                   "draw E\nplace E 0,-1 180\ndeploy meeple field Nw+Ne+En+Es+Ws+Wn\n"
                   "draw E\nplace E 1,-1 0\npass\n"
                   "draw U\nplace U -1,0 0\npass\n"
                   "draw E\nplace E 1,-2 180\ndeploy meeple field Nw+Ne+En+Es+Ws+Wn\n"
                   "draw U\nplace U 2,0 0\npass\n"
                   "draw B\nplace B 0,-2 0\ndeploy pig field Nw+Ne+En+Es+Se+Sw+Ws+Wn\n",
                   (const int64_t[]){8, 0});
}

/* The pig goes only into a field holding its owner's farmer. */
static void test_pig_needs_own_farmer(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    carcx_open(&g, 2, CARCX_TB, "*:0,D:1,U:3");
    char texts[1024];
    carcx_play_then_list(&g, "draw U\nplace U 1,0 0\n", texts, sizeof texts);
    assert_null(strstr(texts, "pig"));
    /* Blue, in Red's field */
    carcx_play_then_list(&g, "deploy meeple field Nw+Ne+En+Wn\ndraw U\nplace U 2,0 0\n",
                         texts, sizeof texts);
    assert_null(strstr(texts, "pig"));
    /* Red, in Red's field */
    carcx_play_then_list(&g, "pass\ndraw U\nplace U -1,0 0\n", texts, sizeof texts);
    assert_non_null(strstr(texts, "deploy pig field Nw+Ne+En+Wn\n"));
    assert_null(strstr(texts, "deploy pig field Es+Se+Sw+Ws\n"));
    cas_test_game_close(&g);
}

/* Red's farmer and pig; Blue's farmer in another field, joined later by
 * E(1,-1): a 1-1 tie, both win, the pig only helps Red: 2 cities, Red 8,
 * Blue 6. */
static void test_pig_field_joined_to_rival(void **unused)
{
    (void)unused;
    carcx_scenario(2, CARCX_TB, PIG_RIVAL_TILES, PIG_RIVAL_RECORD, (const int64_t[]){8, 6});
}

/* Rulebook: the pig is worth nothing without the majority and does not
 * count for it.  Red's farmer and pig against Blue's two farmers, joined
 * by A(2,0) and E(1,-1) into one field touching the completed city D+E:
 * Blue alone scores 3, Red 0 (a pig counting 1 would tie and give 4). */
static void test_pig_without_majority_scores_nothing(void **unused)
{
    (void)unused;
    carcx_scenario(2, CARCX_TB, "*:0,D:1,U:2,E:2,B:1,A:1",
                   "draw U\nplace U 1,0 0\ndeploy meeple field Nw+Ne+En+Wn\n"
                   "draw E\nplace E 0,-1 180\ndeploy meeple field Nw+Ne+En+Es+Ws+Wn\n"
                   "draw U\nplace U -1,0 0\ndeploy pig field Nw+Ne+En+Wn\n"
                   "draw B\nplace B 0,1 0\ndeploy meeple field Nw+Ne+En+Es+Se+Sw+Ws+Wn\n"
                   "draw A\nplace A 2,0 90\npass\n"
                   "draw E\nplace E 1,-1 0\npass\n",
                   (const int64_t[]){0, 3});
}

/* The bridge: the E+W road and the N+S road cross without meeting, so
 * Blue may take the N+S road while Red holds the E+W one. */
static void test_bridge_roads_cross(void **unused)
{
    (void)unused;
    carcx_scenario(2, CARCX_TB, "*:0,D:1,TB-24:1,U:1",
                   "draw TB-24\nplace TB-24 1,0 0\ndeploy meeple road E+W\n"
                   "draw U\nplace U 1,1 90\ndeploy meeple road N+S\n",
                   (const int64_t[]){2, 2});
}

/* The pool: 71 base tiles in the bag plus the 24 of the expansion, of
 * 24 kinds. */
static void test_tile_pool(void **unused)
{
    (void)unused;
    carcx_expect_pool(CARCX_TB, 71 + 24, 24 + 24);
}

/* Goods travel with serialize/deserialize; a block claiming more tokens
 * than tiles, or a flag that is not 0/1, is refused. */
static void test_state_block_serialized(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    carcx_open(&g, 2, CARCX_TB, "*:0,D:1,TB-3:1,TB-7:1,TB-2:1,U:2,E:1");
    cas_test_play_record(&g, "draw TB-3\nplace TB-3 0,-1 90\npass\n"
                             "draw TB-7\nplace TB-7 0,-2 90\ndeploy meeple city N+S\n"
                             "draw TB-2\nplace TB-2 0,-3 180\npass\n"
                             "draw U\nplace U 1,0 0\npass\n"
                             "draw E\nplace E 1,-3 270\npass\n");
    /* the last bytes: 16-bit goods (little-endian here), then two flags */
    const size_t block = 6 * 3 * 2 + 2;
    carcx_expect_block_checked(&g, block, 1, 200); /* Red's wine */
    carcx_expect_block_checked(&g, 2, 0, 7);
    cas_test_game_close(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_goods_go_to_trader),
        cmocka_unit_test(test_goods_from_unoccupied_city),
        cmocka_unit_test(test_open_goods_city_gives_no_goods),
        cmocka_unit_test(test_goods_final_ties),
        cmocka_unit_test(test_scorings_name_goods_and_pig_field),
        cmocka_unit_test(test_builder_turns_1_to_3b),
        cmocka_unit_test(test_builder_with_empty_bag_ends_game),
        cmocka_unit_test(test_second_builder_option),
        cmocka_unit_test(test_builder_needs_own_meeple),
        cmocka_unit_test(test_pig_field_8),
        cmocka_unit_test(test_pig_needs_own_farmer),
        cmocka_unit_test(test_pig_field_joined_to_rival),
        cmocka_unit_test(test_pig_without_majority_scores_nothing),
        cmocka_unit_test(test_bridge_roads_cross),
        cmocka_unit_test(test_tile_pool),
        cmocka_unit_test(test_state_block_serialized),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
