/*
 * test_buildings.c — houses and towers: complete when every side meets a
 * different feature or the wall, 1 and 2 points a tile, joined across
 * edges; quick points (a follower on a feature its own tile completes comes
 * home at once); the keep on the first house scored, moved to each larger
 * one; the doubling wall tiles (rules summary: "Houses and towers are
 * considered complete if they are surrounded on all sides by different
 * features"; "a player places a keep marker upon completion of their first
 * house, and then moves the marker to every subsequent larger house").
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "castle_fixture.h"

/* A one-tile house against the wall is complete as it is placed: Blue's
 * squire scores 1 and comes home, and Blue's keep goes on it. */
static void test_house_against_wall(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    tc_open(&g, "test.board", "test.tiles");
    tc_turn(&g, "straight", "c2", 0, NULL);
    tc_turn(&g, "house", "b2", 0, "squire N");
    tc_expect_event(&g, "Blue +1 house b2 N (1 tile) 0 -> 1");
    tc_expect_event(&g, "Blue's keep is placed on house b2 N (1 tile)");
    tc_expect_scores(&g, 0, 1);
    assert_int_equal(tc_state(&g)->p[1].supply, FOLLOWERS);
    assert_int_equal(tc_state(&g)->p[1].keep_size, 1);
    cas_test_game_close(&g);
}

/* A tower scores 2 a tile. */
static void test_tower_two_a_tile(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    tc_open(&g, "test.board", "test.tiles");
    tc_turn(&g, "straight", "c2", 0, NULL);
    tc_turn(&g, "tower", "b2", 0, "knight N");
    tc_expect_scores(&g, 0, 2);
    cas_test_game_close(&g);
}

/* Blue's house faces an empty space; Red's court closes it: 1 point to
 * Blue, in Red's turn. */
static void test_house_closed_by_other_feature(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    tc_open(&g, "test.board", "test.tiles");
    tc_turn(&g, "straight", "c2", 0, NULL);
    tc_turn(&g, "house", "d2", 90, "squire E");
    tc_expect_scores(&g, 0, 0);
    tc_turn(&g, "market", "e2", 0, NULL);
    tc_expect_scores(&g, 0, 1);
    cas_test_game_close(&g);
}

/* Two towers face each other across an edge and become one tower of 2
 * tiles: 4 points. */
static void test_towers_join(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    tc_open(&g, "test.board", "test.tiles");
    tc_turn(&g, "straight", "c2", 0, NULL);
    tc_turn(&g, "tower", "d2", 90, "knight E");
    tc_turn(&g, "tower", "e2", 270, NULL);
    tc_expect_event(&g, "Blue +4 tower d2 E (2 tiles)");
    tc_expect_scores(&g, 0, 4);
    cas_test_game_close(&g);
}

/* Blue's keep goes on a 1-tile house, then moves to a 2-tile one; Red's
 * keep goes on a 2-tile house and stays when Red scores a 1-tile house. */
static void test_keep_moves_to_larger_house(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    tc_open(&g, "test.board", "test.tiles");
    tc_turn(&g, "straight", "c2", 0, NULL);
    tc_turn(&g, "house", "b2", 0, "squire N");         /* Blue +1, keep 1 */
    tc_turn(&g, "house", "d2", 90, "squire E");
    tc_turn(&g, "house", "e2", 270, NULL);              /* Red +2, keep 2  */
    tc_expect_event(&g, "Red's keep is placed on house d2 E (2 tiles)");
    tc_turn(&g, "house", "f2", 0, "squire N");          /* Red +1, keep stays */
    assert_int_equal(tc_state(&g)->p[0].keep_size, 2);
    tc_turn(&g, "house", "d3", 180, "squire S");
    tc_turn(&g, "house", "d4", 0, NULL);                /* Blue +2, keep moves */
    tc_expect_event(&g, "Blue's keep moves to the larger house d3 S (2 tiles)");
    assert_int_equal(tc_state(&g)->p[1].keep_size, 2);
    assert_int_equal(tc_state(&g)->p[0].keep_size, 2);
    tc_expect_scores(&g, 3, 3);
    cas_test_game_close(&g);
}

/* With a usable double-house wall tile (2) Red may score a completed house
 * twice over; the tile is handed in. */
static void test_double_house(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    tc_open(&g, "test.board", "test.tiles");
    tc_give_wall(&g, 0, 2);
    tc_turn(&g, "straight", "c2", 0, NULL);
    tc_turn(&g, "market", "j3", 0, NULL);
    tc_turn(&g, "house", "b2", 0, "squire N");
    tc_expect_legal(&g, "score house b2 N", 1);
    tc_expect_legal(&g, "score house b2 N double", 1);
    cas_test_play(&g, "score house b2 N double");
    tc_expect_event(&g, "Red +2 house b2 N (1 tile, doubled by a wall tile)");
    tc_expect_scores(&g, 2, 0);
    assert_int_equal(tc_state(&g)->p[0].held[2], 0);
    cas_test_game_close(&g);
}

/* The double-tower wall tile (3) doubles a tower and not a house. */
static void test_double_tower(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    tc_open(&g, "test.board", "test.tiles");
    tc_give_wall(&g, 0, 3);
    tc_turn(&g, "straight", "c2", 0, NULL);
    tc_turn(&g, "market", "j3", 0, NULL);
    tc_turn(&g, "house", "b2", 0, "squire N"); /* no choice: scored at once */
    tc_expect_scores(&g, 1, 0);
    tc_turn(&g, "market", "i3", 0, NULL);
    tc_turn(&g, "tower", "d2", 0, "knight N");
    cas_test_play(&g, "score tower d2 N double");
    tc_expect_scores(&g, 5, 0);
    cas_test_game_close(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_house_against_wall),
        cmocka_unit_test(test_tower_two_a_tile),
        cmocka_unit_test(test_house_closed_by_other_feature),
        cmocka_unit_test(test_towers_join),
        cmocka_unit_test(test_keep_moves_to_larger_house),
        cmocka_unit_test(test_double_house),
        cmocka_unit_test(test_double_tower),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
