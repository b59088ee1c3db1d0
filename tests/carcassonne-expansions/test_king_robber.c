/*
 * test_king_robber.c — King & Robber Baron scenarios with exact scores: the
 * first city taking the King (for the player who completes it, not the
 * city's owner), a larger city moving it, an equal one not, the Robber
 * Baron likewise for roads, the crossing tile KR-5 counted once, the
 * scoring options (per-feature, 10/20, 15/40, continuous), the tile pool,
 * the render and the state block's check.
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

/* Red's meeple holds the city D G(0,-1); Blue's E(0,-2) completes it (3
 * tiles): Red scores 6, Blue, who completed the first city, takes the King
 * and scores 1 for the one completed city at the end. */
#define FIRST_CITY_TILES "*:0,D:1,G:1,E:1"
#define FIRST_CITY_RECORD                                                  \
    "draw G\nplace G 0,-1 90\ndeploy meeple city N+S\n"                   \
    "draw E\nplace E 0,-2 180\npass\n"

static void test_first_city_king_to_completer(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    carcx_open(&g, 2, CARCX_KR, FIRST_CITY_TILES);
    cas_test_play_record(&g, FIRST_CITY_RECORD);
    assert_non_null(strstr(g.events, "Blue takes the King (city of 3 spaces)\n"
                                     "Red +6 city (3 tiles, 0 coats)\n"));
    assert_non_null(strstr(g.events, "Blue +1 King: 1 completed city\n"));
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_TERMINAL);
    cas_test_expect_scores(&g, (const int64_t[]){6, 1});
    cas_test_game_close(&g);
}

/* Red completes D E(0,-1) (2 spaces): the King.  Blue's city E(0,1)
 * G(0,2) E(0,3) of 3 spaces is larger: the King moves to Blue, who scores
 * 1 for each of the 2 completed cities. */
#define LARGER_CITY_TILES "*:0,D:1,E:3,G:1"
#define LARGER_CITY_RECORD                                                 \
    "draw E\nplace E 0,-1 180\npass\n"                                    \
    "draw E\nplace E 0,1 180\npass\n"                                     \
    "draw G\nplace G 0,2 90\npass\n"                                      \
    "draw E\nplace E 0,3 0\npass\n"

static void test_larger_city_moves_king(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    carcx_open(&g, 2, CARCX_KR, LARGER_CITY_TILES);
    cas_test_play_record(&g, LARGER_CITY_RECORD);
    assert_non_null(strstr(g.events, "Red takes the King (city of 2 spaces)\n"));
    assert_non_null(strstr(g.events, "Blue takes the King (city of 3 spaces)\n"));
    cas_test_expect_scores(&g, (const int64_t[]){0, 2});
    cas_test_game_close(&g);
}

/* Blue completes E(0,1) E(0,2), as large as Red's first city (2 spaces):
 * "larger" is strict, Red keeps the King and scores both cities. */
static void test_equal_city_keeps_king(void **unused)
{
    (void)unused;
    carcx_scenario(2, CARCX_KR, "*:0,D:1,E:3,U:1",
                   "draw E\nplace E 0,-1 180\npass\n"
                   "draw E\nplace E 0,1 180\npass\n"
                   "draw U\nplace U 1,0 0\npass\n"
                   "draw E\nplace E 0,2 0\npass\n",
                   (const int64_t[]){2, 0});
}

/* Blue's junction W(-1,0) closes the road W(1,0) D W(-1,0), 3 spaces:
 * the Robber Baron.  Red's road W(1,0) W(1,1), 2 spaces, is shorter and
 * does not move it; Blue scores 1 for each of the 2 completed roads. */
static void test_robber_baron_longest_road(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    carcx_open(&g, 2, CARCX_KR, "*:0,D:1,W:3");
    cas_test_play_record(&g, "draw W\nplace W 1,0 0\npass\n"
                             "draw W\nplace W -1,0 0\npass\n"
                             "draw W\nplace W 1,1 180\npass\n");
    assert_non_null(strstr(g.events, "Blue takes the Robber Baron (road of 3 spaces)\n"));
    assert_null(strstr(g.events, "Red takes"));
    assert_non_null(strstr(g.events, "Blue +2 Robber Baron: 2 completed roads\n"));
    cas_test_expect_scores(&g, (const int64_t[]){0, 2});
    cas_test_game_close(&g);
}

/* KR-5's two city segments, joined around N(1,-1) N(0,-2) N(1,-2) and
 * closed by E(-1,-1), make one city of 6 tiles in which KR-5 counts once:
 * Red scores 12 and takes the King (city of 6 spaces), 1 at the end. */
static void test_crossing_counts_once(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    carcx_open(&g, 2, CARCX_KR, "*:0,D:1,KR-5:1,N:3,E:1");
    cas_test_play_record(&g, "draw KR-5\nplace KR-5 0,-1 0\ndeploy meeple city N+S\n"
                             "draw N\nplace N 1,-1 0\npass\n"
                             "draw N\nplace N 0,-2 180\npass\n"
                             "draw N\nplace N 1,-2 270\npass\n"
                             "draw E\nplace E -1,-1 90\npass\n");
    assert_non_null(strstr(g.events, "Red takes the King (city of 6 spaces)\n"
                                     "Red +12 city (6 tiles, 0 coats)\n"));
    cas_test_expect_scores(&g, (const int64_t[]){13, 0});
    cas_test_game_close(&g);
}

/* Red completes the first city (E(0,-1), the King) and the first road
 * (W(1,0) D W(-1,0), the Robber Baron): both cards. */
#define BOTH_CARDS_TILES "*:0,D:1,E:1,W:2"
#define BOTH_CARDS_RECORD                                                  \
    "draw E\nplace E 0,-1 180\npass\n"                                    \
    "draw W\nplace W 1,0 0\npass\n"                                       \
    "draw W\nplace W -1,0 0\npass\n"

/* Red holds both cards: under `scoring` he ends with `red`, told by the
 * score events `scorings` (the category lines of the test harness). */
static void both_cards(const char *scoring, int64_t red, const char *scorings)
{
    const char *options[] = {scoring, NULL};
    struct cas_test_game g;
    carcx_open_with(&g, 2, CARCX_KR, BOTH_CARDS_TILES, options);
    cas_test_play_record(&g, BOTH_CARDS_RECORD);
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_TERMINAL);
    cas_test_expect_scorings(&g, scorings);
    cas_test_expect_scores(&g, (const int64_t[]){red, 0});
    cas_test_game_close(&g);
}

static void test_scoring_options_both_cards(void **unused)
{
    (void)unused;
    both_cards("king-robber.scoring=per-feature", 1 + 1, "0 +1 king final King\n"
                                 "0 +1 robber-baron final Robber Baron\n");
    both_cards("king-robber.scoring=10/20", 20, "0 +20 king-robber-baron final King and Robber Baron\n");
    both_cards("king-robber.scoring=15/40", 40, "0 +40 king-robber-baron final King and Robber Baron\n");
    both_cards("king-robber.scoring=continuous", 0, ""); /* each first completion pays
                                                           nobody: no card was held */
}

/* One card only: 10 under 10/20, 15 under 15/40 (Red keeps the city's 6). */
static void test_scoring_options_one_card(void **unused)
{
    (void)unused;
    const char *ten[] = {"king-robber.scoring=10/20", NULL};
    carcx_scenario_with(2, CARCX_KR, FIRST_CITY_TILES, ten, FIRST_CITY_RECORD,
                        (const int64_t[]){6, 10});
    const char *fifteen[] = {"king-robber.scoring=15/40", NULL};
    carcx_scenario_with(2, CARCX_KR, FIRST_CITY_TILES, fifteen, FIRST_CITY_RECORD,
                        (const int64_t[]){6, 15});
}

/* continuous, as JCloisterZone plays it: a completed city pays whoever
 * held the King when its tile was placed, before the card moves.  Red's
 * first city pays nobody (nobody held it); Blue's larger one pays Red, then
 * the King moves to Blue; nothing at the end. */
static void test_continuous_pays_holder_on_completion(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    const char *options[] = {"king-robber.scoring=continuous", NULL};
    carcx_open_with(&g, 2, CARCX_KR, LARGER_CITY_TILES, options);
    cas_test_play_record(&g, LARGER_CITY_RECORD);
    assert_non_null(strstr(g.events, "Red takes the King (city of 2 spaces)\n"));
    assert_non_null(strstr(g.events, "Red +1 King: a completed city\n"
                                     "Blue takes the King (city of 3 spaces)\n"));
    assert_null(strstr(g.events, "Blue +1 King"));
    cas_test_expect_scores(&g, (const int64_t[]){1, 0});
    cas_test_game_close(&g);
}

/* The game of issue 33 that JCloisterZone scores 2 and castellan scored 3:
 * after LARGER_CITY_RECORD Blue, holding the King, closes E(1,1) E(1,2), a
 * city of 2 spaces: Blue +1.  The King paid Red 1 and Blue 1, not 1 to Red
 * and 2 to Blue (the card's new holder paid for the city that moved it). */
static void test_continuous_scores_as_jcloisterzone(void **unused)
{
    (void)unused;
    const char *options[] = {"king-robber.scoring=continuous", NULL};
    carcx_scenario_with(2, CARCX_KR, "*:0,D:1,E:5,G:1", options,
                        LARGER_CITY_RECORD "draw E\nplace E 1,1 180\npass\n"
                                           "draw E\nplace E 1,2 0\npass\n",
                        (const int64_t[]){1, 1});
}

/* A scoring value the plugin does not know is refused at game creation. */
static void test_unknown_scoring_refused(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    char dir[1024];
    struct cas_expansion_ref ref = cas_test_expansion_ref(
        carcx_plugin(CARCX_KR), dir, sizeof dir);
    struct cas_option_value bad = {.struct_size = sizeof bad, .name = "scoring",
                                   .value = "12/24"};
    ref.options = &bad;
    ref.n_options = 1;
    assert_int_equal(cas_test_game_try_open(&g, cas_plugin_entry(), 2, NULL, &ref, 1),
                     CAS_EOPTION);
    assert_non_null(strstr(g.error, "scoring = '12/24' is not valid"));
    cas_test_game_close(&g);
}

/* The 5 tiles join the bag: 71 + 5 tiles of 24 + 5 kinds. */
static void test_tile_pool(void **unused)
{
    (void)unused;
    carcx_expect_pool(CARCX_KR, 71 + 5, 24 + 5);
}

/* The render names the holders; the state block travels with serialize and
 * a holder who is no player is refused. */
static void test_render_and_state_block(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    carcx_open(&g, 2, CARCX_KR, "*:0,D:1,E:1,U:1");
    cas_test_play_record(&g, "draw E\nplace E 0,-1 180\npass\n");
    char *text = cas_test_render(&g, CAS_VIEWER_PUBLIC, CAS_RENDER_TEXT);
    assert_non_null(strstr(text, "King: Red (city of 2 spaces)\n"
                                 "Robber Baron: nobody yet\n"));
    free(text);
    char *json = cas_test_render(&g, CAS_VIEWER_PUBLIC, CAS_RENDER_JSON);
    assert_non_null(strstr(json, "\"king-robber\":{\"king\":0,\"largest_city\":2,"
                                 "\"robber_baron\":-1,\"longest_road\":0}"));
    free(json);
    carcx_expect_block_checked(&g, 8, 0, 9); /* the King's holder, first in the block */
    cas_test_game_close(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_city_king_to_completer),
        cmocka_unit_test(test_larger_city_moves_king),
        cmocka_unit_test(test_equal_city_keeps_king),
        cmocka_unit_test(test_robber_baron_longest_road),
        cmocka_unit_test(test_crossing_counts_once),
        cmocka_unit_test(test_scoring_options_both_cards),
        cmocka_unit_test(test_scoring_options_one_card),
        cmocka_unit_test(test_continuous_pays_holder_on_completion),
        cmocka_unit_test(test_continuous_scores_as_jcloisterzone),
        cmocka_unit_test(test_unknown_scoring_refused),
        cmocka_unit_test(test_tile_pool),
        cmocka_unit_test(test_render_and_state_block),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
