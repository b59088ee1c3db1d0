/*
 * test_expansions_combined.c — Inns & Cathedrals and Traders & Builders in
 * one game: interactions with exact scores (a builder's second tile
 * completing a goods city on an inn road, a pig with a large farmer, a
 * builder beside a large meeple against two meeples), King & Robber Baron
 * with both (a builder's second tile and a cathedral city take the King),
 * Castles in Germany with each (an inn road to a castle, a castle
 * extending a builder's road, castle spaces for the King and the Robber
 * Baron), the combined pool,
 * six players, and random complete games checked at every decision (with
 * random_action drawing the listing's action at each index).
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

#define BOTH (CARCX_IC | CARCX_TB)

/* Red's builder rides an inn road; extending it (IC-15) grants a second
 * tile, which completes Blue's wine city: Blue scores 6, Red takes the
 * wine.  At the end the inn road is open (Red's meeple: 0) and Red's wine
 * is the majority: Red 10, Blue 6. */
static void test_builder_second_tile_completes_goods_city(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    carcx_open(&g, 2, BOTH, "*:0,D:1,U:3,TB-3:1,IC-15:1,E:1");
    cas_test_play_record(&g, "draw U\nplace U 1,0 0\ndeploy meeple road E+W\n"
                             "draw TB-3\nplace TB-3 0,-1 90\ndeploy meeple city N+S\n"
                             "draw U\nplace U 2,0 0\ndeploy builder road E+W\n"
                             "draw U\nplace U 0,1 0\npass\n"
                             "draw IC-15\nplace IC-15 3,0 0\npass\n"
                             "draw E\n");
    assert_int_equal(g.vt->current(g.state), 0); /* Red's second tile */
    cas_test_play_record(&g, "place E 0,-2 180\npass\n");
    assert_non_null(strstr(g.events, "Red takes goods: 1 wine\n"
                                     "Blue +6 city (3 tiles, 0 coats)\n"));
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_TERMINAL);
    cas_test_expect_scores(&g, (const int64_t[]){10, 6});
    cas_test_game_close(&g);
}

/* Red's large farmer and pig; Blue's farmer joins through E(1,-1): Red has
 * the majority (2 against 1) and the pig: 4 for each of 2 cities. */
static void test_pig_with_large_farmer(void **unused)
{
    (void)unused;
    carcx_scenario(2, BOTH, "*:0,D:1,U:2,E:3",
                   "draw U\nplace U 1,0 0\ndeploy large-meeple field Nw+Ne+En+Wn\n"
                   "draw E\nplace E 0,-1 180\ndeploy meeple field Nw+Ne+En+Es+Ws+Wn\n"
                   "draw U\nplace U -1,0 0\ndeploy pig field Nw+Ne+En+Wn\n"
                   "draw E\nplace E 1,-1 0\npass\n"
                   "draw E\nplace E 1,-2 180\npass\n",
                   (const int64_t[]){8, 0});
}

/* A builder beside Red's large meeple adds nothing to the majority: 2
 * against Blue's two meeples is still a tie, both score the 10. */
static void test_builder_beside_large_meeple_against_two_meeples(void **unused)
{
    (void)unused;
    carcx_scenario(2, BOTH, CARCX_TIE_CITY_TILES,
                   CARCX_TIE_CITY_RECORD "draw R\nplace R 1,-1 0\ndeploy builder city N+E+W\n",
                   (const int64_t[]){10, 10});
}

/* King & Robber Baron with Traders & Builders: the builder's second tile
 * completes Blue's wine city, so Red, who placed it, takes the King (city
 * of 3 spaces) as well as the wine; Red 10 + 1, Blue 6. */
static void test_builder_second_tile_takes_king(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    carcx_open(&g, 2, BOTH | CARCX_KR, "*:0,D:1,U:3,TB-3:1,IC-15:1,E:1");
    cas_test_play_record(&g, "draw U\nplace U 1,0 0\ndeploy meeple road E+W\n"
                             "draw TB-3\nplace TB-3 0,-1 90\ndeploy meeple city N+S\n"
                             "draw U\nplace U 2,0 0\ndeploy builder road E+W\n"
                             "draw U\nplace U 0,1 0\npass\n"
                             "draw IC-15\nplace IC-15 3,0 0\npass\n"
                             "draw E\nplace E 0,-2 180\npass\n");
    assert_non_null(strstr(g.events, "Red takes the King (city of 3 spaces)\n"
                                     "Red takes goods: 1 wine\n"
                                     "Blue +6 city (3 tiles, 0 coats)\n"));
    cas_test_expect_scores(&g, (const int64_t[]){10 + 1, 6});
    cas_test_game_close(&g);
}

/* King & Robber Baron with Inns & Cathedrals: Red's 27-point cathedral city
 * of 7 spaces gives Blue, who completes it, the King: Red 27, Blue 1. */
static void test_cathedral_city_takes_king(void **unused)
{
    (void)unused;
    carcx_scenario(2, CARCX_IC | CARCX_KR, CARCX_CATHEDRAL_CITY_TILES,
                   CARCX_CATHEDRAL_CITY_RECORD, (const int64_t[]){27, 1});
}

/* Castles in Germany with Inns & Cathedrals: the inn road from Red's castle
 * (CG-1 west of D: -2,0 and -1,0) through D and Blue's IC-15 to the
 * junction W(2,0), 4 spaces: 2 per space for the inn, then the castle's 3:
 * Blue 8 + 3 = 11. */
static void test_inn_road_to_castle(void **unused)
{
    (void)unused;
    carcx_scenario(2, CARCX_IC | CARCX_CG, "*:0,D:1,IC-15:1,W:1,CG-1:1",
                   "castle pick CG-1\ncastle CG-1 -2,0 0\npass\n"
                   "draw IC-15\nplace IC-15 1,0 0\ndeploy meeple road E+W\n"
                   "draw W\nplace W 2,0 0\npass\n",
                   (const int64_t[]){0, 8 + 3});
}

/* Castles in Germany with Traders & Builders: a castle from the hand that
 * extends the road of Red's builder is a tile placed like any other, so
 * Red places one more tile that turn.  The road D U(1,0) U(2,0) CG-1 is
 * open at the end: Red's meeple 4. */
static void test_castle_extends_builder_road(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    carcx_open(&g, 2, CARCX_TB | CARCX_CG, "*:0,D:1,U:2,E:2,B:1,CG-1:1");
    cas_test_play_record(&g, "castle pick CG-1\ncastle keep\n"
                             "draw U\nplace U 1,0 0\ndeploy meeple road E+W\n"
                             "draw E\nplace E 0,-1 180\npass\n"
                             "castle keep\ndraw U\nplace U 2,0 0\ndeploy builder road E+W\n"
                             "draw B\nplace B 0,1 0\npass\n"
                             "castle CG-1 3,0 0\npass\n");
    assert_non_null(strstr(g.events, "Red's builder: one more tile this turn\n"));
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_CHANCE);
    cas_test_play_record(&g, "draw E\n");
    assert_int_equal(g.vt->current(g.state), 0); /* Red places the second tile */
    cas_test_play_record(&g, "place E 1,1 180\npass\n");
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_TERMINAL);
    cas_test_expect_scores(&g, (const int64_t[]){4, 0});
    cas_test_game_close(&g);
}

/* King & Robber Baron with Castles in Germany: sizes count spaces, so the
 * road looping from one half of a castle to the other (example 5: 6
 * spaces, 9 points) is a road of 6 for the Robber Baron, and the castle's
 * city cap closed by D(-1,2) (2 spaces) the first city: Red takes both and
 * scores 9 + 1 + 1. */
static void test_castle_spaces_count_for_king_and_robber(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    carcx_open(&g, 2, CARCX_KR | CARCX_CG, "*:0,D:2,V:3,CG-1:1");
    cas_test_play_record(&g, "castle pick CG-1\ncastle CG-1 0,1 180\ndeploy meeple road S0\n"
                             "draw V\nplace V 0,2 90\npass\n"
                             "draw D\nplace D -1,2 0\npass\n"
                             "draw V\nplace V -2,2 180\npass\n"
                             "draw V\nplace V -2,1 270\npass\n");
    assert_non_null(strstr(g.events, "Red takes the King (city of 2 spaces)\n"));
    assert_non_null(strstr(g.events, "Red takes the Robber Baron (road of 6 spaces)\n"
                                     "Red +9 road (6 tiles) [castle-road]\n"));
    cas_test_expect_scores(&g, (const int64_t[]){9 + 1 + 1, 0});
    cas_test_game_close(&g);
}

/* Red's wagon as the lord of CG-1 below D (rotated 180: 0,1 and -1,1),
 * the castle completed by the last tile. */
#define CASTLE_WAGON_TILES "*:0,D:1,U:2,V:4,J:1,E:2,CG-1:1"
#define CASTLE_WAGON_RECORD                                                \
    "castle pick CG-1\ncastle CG-1 0,1 180\ndeploy wagon castle\n"         \
    "draw U\nplace U 1,0 0\npass\n"                                        \
    "draw V\nplace V 1,1 0\npass\n"                                        \
    "draw V\nplace V 0,2 90\npass\n"                                       \
    "draw J\nplace J -1,2 0\npass\n"                                       \
    "draw U\nplace U -2,1 0\npass\n"                                       \
    "draw V\nplace V -1,0 180\npass\n"                                     \
    "draw E\nplace E -2,0 0\npass\n"                                       \
    "draw E\nplace E -2,2 180\npass\n"                                     \
    "draw V\nplace V 1,2 180\npass\n"

/* Castles in Germany with Abbey & Mayor: Red's wagon as the castle's lord
 * (CG-1 below D, rotated 180: 0,1 and -1,1).  When the castle completes
 * (12) the wagon may move to any open feature on the castle tile or its 10
 * neighbours, here the cities of E(-2,0) and E(-2,2), which are not around
 * the castle's anchor space; at the end it scores E(-2,2)'s open city, 1. */
static void test_wagon_leaves_castle_over_its_ten_neighbours(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    carcx_open(&g, 2, CARCX_AM | CARCX_CG, CASTLE_WAGON_TILES);
    cas_test_play_record(&g, CASTLE_WAGON_RECORD);
    assert_non_null(strstr(g.events, "Red +12 castle (10 around)\n"));
    assert_int_equal(g.vt->current(g.state), 0);
    char texts[4096];
    cas_test_legal_texts(&g, texts, sizeof texts);
    assert_non_null(strstr(texts, "wagon -2,0 city N\n"));
    assert_non_null(strstr(texts, "wagon -2,2 city S\n"));
    cas_test_play(&g, "wagon -2,2 city S");
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_TERMINAL);
    cas_test_expect_scores(&g, (const int64_t[]){12 + 1, 0});
    cas_test_game_close(&g);
}

/* The same castle with wagon-move = C1: the castle tile's own data link
 * each road that heads into the castle to it (castles-germany.tiles), so
 * the freed wagon may take an open road of the castle tile and nothing
 * else: not the cities around, not the castle's city N1.  On W1 (open,
 * 2 tiles at the end) it scores 2. */
static void test_wagon_c1_leaves_castle_by_its_roads(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    const char *options[] = {"abbey-mayor.wagon-move=C1", NULL};
    carcx_open_with(&g, 2, CARCX_AM | CARCX_CG, CASTLE_WAGON_TILES, options);
    cas_test_play_record(&g, CASTLE_WAGON_RECORD);
    assert_non_null(strstr(g.events, "Red +12 castle (10 around)\n"));
    char texts[4096];
    cas_test_legal_texts(&g, texts, sizeof texts);
    assert_string_equal(texts, "wagon home\nwagon 0,1 road S0\nwagon 0,1 road W1\n"
                               "wagon 0,1 road E0\n");
    cas_test_play(&g, "wagon 0,1 road W1");
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_TERMINAL);
    cas_test_expect_scores(&g, (const int64_t[]){12 + 2, 0}); /* the road W1, open: 2 tiles */
    cas_test_game_close(&g);
}

/* Castles in Germany with Abbey & Mayor: a barn's corner may lie where a
 * castle tile meets two others, the castle (CG-1 west of D: -2,0 and -1,0)
 * holding two of its four corners, the middle of its south side.  Red's
 * barn there (E(-1,1) its north-west) scores 4 at the end for the city
 * E(-1,1) E(-1,2) its field touches. */
static void test_barn_on_castle_corners(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    carcx_open(&g, 2, CARCX_AM | CARCX_CG, "*:0,D:1,E:3,CG-1:1");
    cas_test_play_record(&g, "castle pick CG-1\ncastle CG-1 -2,0 0\npass\n"
                             "draw E\nplace E -2,1 180\npass\n"
                             "draw E\nplace E -1,1 180\n");
    char texts[4096];
    cas_test_legal_texts(&g, texts, sizeof texts);
    assert_non_null(strstr(texts, "deploy barn corner -1,1 NW\n"));
    cas_test_play_record(&g, "deploy barn corner -1,1 NW\n"
                             "draw E\nplace E -1,2 0\npass\n");
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_TERMINAL);
    cas_test_expect_scores(&g, (const int64_t[]){4, 0});
    cas_test_game_close(&g);
}

/* Both tile sets in one bag: 71 + 18 + 24 tiles of 24 + 17 + 24 kinds. */
static void test_combined_pool(void **unused)
{
    (void)unused;
    carcx_expect_pool(BOTH, 71 + 18 + 24, 24 + 17 + 24);
}

/* ------------------------------------------------------------ playouts */

static uint64_t next_random(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/* At one decision: the legal list is non-empty, sorted and unique; every
 * action's text parses back to it; the state survives serialize. */
static void check_decision(struct cas_test_game *g, const cas_action *legal, size_t n)
{
    assert_true(n > 0);
    char text[128];
    for (size_t i = 0; i < n; i++) {
        assert_true(i == 0 || legal[i - 1] < legal[i]);
        cas_action back;
        assert_true(g->vt->action_text(g->state, legal[i], text, sizeof text) > 0);
        assert_int_equal(g->vt->parse_action(g->state, text, &back), CAS_OK);
        assert_true(back == legal[i]);
    }
    static uint8_t bytes[1 << 17];
    size_t len;
    cas_state *back;
    assert_int_equal(g->vt->serialize(g->state, CAS_SERIAL_FULL, bytes, sizeof bytes, &len),
                     CAS_OK);
    assert_int_equal(g->vt->deserialize(g->game, bytes, len, &back), CAS_OK);
    assert_true(g->vt->hash(back) == g->vt->hash(g->state));
    g->vt->state_free(back);
}

/* A state restored from bytes at this decision must play on exactly like
 * the live one (caches rebuilt on deserialize: the bag's kinds, figure
 * counts). */
#define TWIN_FROM_DECISION 60

/* Random complete games, 2 to 6 players, with both expansions, with King &
 * Robber Baron and Castles in Germany besides, and with Abbey & Mayor too. */
static void test_random_games(void **unused)
{
    (void)unused;
    uint64_t seed = 0x9E3779B97F4A7C15u;
    static cas_action legal[4096];
    for (int game = 0; game < 20; game++) {
        struct cas_test_game g;
        static const unsigned sets[] = {BOTH, BOTH | CARCX_KR | CARCX_CG,
                                        BOTH | CARCX_AM | CARCX_KR | CARCX_CG};
        carcx_open(&g, 2 + game % 5, sets[game % 3], NULL);
        int decisions = 0;
        cas_state *twin = NULL; /* restored mid-game, then played alongside */
        while (g.vt->current(g.state) != CAS_ACTOR_TERMINAL) {
            size_t n;
            if (decisions == TWIN_FROM_DECISION)
                twin = cas_test_restored_twin(&g);
            assert_int_equal(g.vt->legal_actions(g.state, legal, 4096, &n), CAS_OK);
            if (decisions % 5 == 0)
                cas_test_expect_buffer_protocol(&g);
            if (decisions % 3 == 0)
                cas_test_expect_random_action_as_listed(&g);
            if (decisions++ % 7 == 0)
                check_decision(&g, legal, n);
            cas_action a = legal[next_random(&seed) % n];
            assert_int_equal(g.vt->apply(g.state, a, NULL), CAS_OK);
            if (twin) {
                assert_int_equal(g.vt->apply(twin, a, NULL), CAS_OK);
                cas_test_expect_same_choices(&g, twin);
            }
            assert_true(decisions < 2000);
        }
        g.vt->state_free(twin);
        int64_t scores[6];
        assert_int_equal(g.vt->returns(g.state, scores, 6), CAS_OK);
        for (int p = 0; p < g.nplayers; p++)
            assert_true(scores[p] >= 0);
        cas_test_game_close(&g);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_builder_second_tile_completes_goods_city),
        cmocka_unit_test(test_pig_with_large_farmer),
        cmocka_unit_test(test_builder_beside_large_meeple_against_two_meeples),
        cmocka_unit_test(test_builder_second_tile_takes_king),
        cmocka_unit_test(test_cathedral_city_takes_king),
        cmocka_unit_test(test_inn_road_to_castle),
        cmocka_unit_test(test_castle_extends_builder_road),
        cmocka_unit_test(test_castle_spaces_count_for_king_and_robber),
        cmocka_unit_test(test_wagon_leaves_castle_over_its_ten_neighbours),
        cmocka_unit_test(test_wagon_c1_leaves_castle_by_its_roads),
        cmocka_unit_test(test_barn_on_castle_corners),
        cmocka_unit_test(test_combined_pool),
        cmocka_unit_test(test_random_games),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
