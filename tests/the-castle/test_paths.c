/*
 * test_paths.c — placement and paths: only paths must match, a tile must
 * touch a start space or a tile along an edge, a path ends at the wall, a
 * start space (counted as a tile), a square, or closes in a loop; 1 point a
 * tile, 2 with a fountain; followers on a claimed path are refused; the
 * majority scores and a tie scores nothing (rules summary, "Roads are
 * considered completed ..." and "if both players have the same number").
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "castle_fixture.h"

/* At the start only the spaces next to the start spaces take a tile, and
 * only where the paths agree: c2 (A's path from the north), d5 (C's path
 * from the south) and j3 (B's court from the east). */
static void test_only_paths_must_match(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    tc_open(&g, "test.board", "test.tiles");
    cas_test_play(&g, "draw house");
    tc_expect_legal(&g, "place house j3 0", 1);
    tc_expect_legal(&g, "place house j3 270", 1);
    tc_expect_legal(&g, "place house c2 0", 0); /* A's path meets no path */
    tc_expect_legal(&g, "place house b2 0", 0); /* touches nothing */
    cas_test_play(&g, "place house j3 270");
    cas_test_play(&g, "pass");
    cas_test_play(&g, "draw straight");
    tc_expect_legal(&g, "place straight c2 0", 1);
    tc_expect_legal(&g, "place straight c2 90", 0); /* A's path would meet a court */
    tc_expect_legal(&g, "place straight i3 90", 0); /* path into the house: no */
    tc_expect_legal(&g, "place straight i3 0", 1);  /* court meets house: fine */
    tc_expect_legal(&g, "place straight j2 0", 0);  /* path into j3's court: no */
    tc_expect_legal(&g, "place straight j2 90", 1); /* path into the wall: fine */
    tc_expect_legal(&g, "place straight i2 0", 0);  /* only a corner touches j3 */
    tc_expect_scores(&g, 0, 0);
    cas_test_game_close(&g);
}

/* A path from start space A runs south, turns west and ends in the wall:
 * A + c2 + c3 + b3 = 4 tiles, 4 points to Red, whose herald comes home. */
static void test_path_from_start_space_to_wall(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    tc_open(&g, "test.board", "test.tiles");
    tc_turn(&g, "straight", "c2", 0, "herald N+S");
    tc_turn(&g, "curve", "c3", 270, NULL);
    tc_turn(&g, "straight", "b3", 90, NULL);
    tc_expect_event(&g, "Red +4 path c1 S (4 tiles) 0 -> 4");
    tc_expect_scores(&g, 4, 0);
    assert_int_equal(tc_state(&g)->p[0].supply, FOLLOWERS);
    cas_test_game_close(&g);
}

/* A fountain doubles: A + c2 (fountain) + c3, ended by c3's square, is 3
 * tiles at 2: 6 points, scored for Red in Blue's turn. */
static void test_fountain_and_square(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    tc_open(&g, "test.board", "test.tiles");
    tc_turn(&g, "fountain", "c2", 0, "herald N+S");
    tc_turn(&g, "stop", "c3", 0, NULL);
    tc_expect_event(&g, "Red +6 path c1 S (3 tiles, fountain)");
    tc_expect_scores(&g, 6, 0);
    cas_test_game_close(&g);
}

/* Four curves close a loop: 4 tiles, 4 points to Blue's herald. */
static void test_loop(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    tc_open(&g, "test.board", "test.tiles");
    tc_turn(&g, "straight", "c2", 0, NULL);
    tc_turn(&g, "curve", "d2", 90, "herald E+S");
    tc_turn(&g, "curve", "e2", 180, NULL);
    tc_turn(&g, "curve", "e3", 270, NULL);
    tc_expect_scores(&g, 0, 0);
    tc_turn(&g, "curve", "d3", 0, NULL);
    tc_expect_event(&g, "Blue +4 path d2 E+S (4 tiles)");
    tc_expect_scores(&g, 0, 4);
    cas_test_game_close(&g);
}

/* A figure-eight through e3, whose two curves are both on the path: 8
 * pieces of path on 7 tiles, so 7 points: a tile counts once. */
static void test_tile_crossed_twice_counts_once(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    tc_open(&g, "test.board", "test.tiles");
    tc_turn(&g, "straight", "c2", 0, NULL);
    tc_turn(&g, "curve", "d2", 90, "herald E+S");
    tc_turn(&g, "curve", "e2", 180, NULL);
    tc_turn(&g, "curve", "d3", 0, NULL);
    tc_turn(&g, "bend2", "e3", 0, NULL);
    tc_turn(&g, "curve", "f3", 180, NULL);
    tc_turn(&g, "curve", "f4", 270, NULL);
    tc_expect_scores(&g, 0, 0);
    tc_turn(&g, "curve", "e4", 0, NULL);
    tc_expect_event(&g, "Blue +7 path d2 E+S (7 tiles)");
    tc_expect_scores(&g, 0, 7);
    cas_test_game_close(&g);
}

/* Red's herald from A and Blue's from C meet: 7 tiles (both start spaces
 * included), one follower each, so nobody scores; both come home. */
static void test_tie_scores_nothing(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    tc_open(&g, "test.board", "test.tiles");
    tc_turn(&g, "straight", "c2", 0, "herald N+S");
    tc_turn(&g, "straight", "d5", 0, "herald N+S");
    tc_turn(&g, "curve", "c3", 0, NULL);
    tc_turn(&g, "curve", "d3", 180, NULL);
    tc_turn(&g, "straight", "d4", 0, NULL);
    tc_expect_event(&g, "path c1 S completed: a tie (1-1), nobody scores");
    tc_expect_scores(&g, 0, 0);
    assert_int_equal(tc_state(&g)->p[0].supply, FOLLOWERS);
    assert_int_equal(tc_state(&g)->p[1].supply, FOLLOWERS);
    cas_test_game_close(&g);
}

/* Three paths meet at a junction without a square (it does not end them):
 * Red's two heralds beat Blue's one and Red takes all 9 tiles.  A follower
 * may not go on a path that already has one. */
static void test_majority_takes_all(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    tc_open(&g, "test.board", "test.tiles");
    tc_turn(&g, "straight", "c2", 0, "herald N+S");
    tc_turn(&g, "straight", "d5", 0, "herald N+S");
    tc_turn(&g, "straight", "e5", 0, "herald N+S");
    cas_test_play(&g, "draw curve");
    cas_test_play(&g, "place curve c3 0");
    tc_expect_legal(&g, "herald N+E", 0); /* joined to Red's herald */
    tc_expect_legal(&g, "merchant Ne+En", 1);
    cas_test_play(&g, "pass");
    tc_turn(&g, "curve", "d3", 180, NULL);
    tc_turn(&g, "curve", "e4", 180, NULL);
    tc_turn(&g, "tee", "d4", 0, NULL);
    tc_expect_event(&g, "Red +9 path c1 S (9 tiles)");
    tc_expect_scores(&g, 9, 0);
    cas_test_game_close(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_only_paths_must_match),
        cmocka_unit_test(test_path_from_start_space_to_wall),
        cmocka_unit_test(test_fountain_and_square),
        cmocka_unit_test(test_loop),
        cmocka_unit_test(test_tile_crossed_twice_counts_once),
        cmocka_unit_test(test_tie_scores_nothing),
        cmocka_unit_test(test_majority_takes_all),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
