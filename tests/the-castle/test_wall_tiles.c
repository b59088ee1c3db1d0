/*
 * test_wall_tiles.c — the towers on the track and their wall tiles: a
 * score landing exactly on a tower holding one takes it (passing over
 * takes nothing), the tile is usable from the taker's next own turn, the
 * placer picks the order when one placement completes several features
 * (own features first), and that order decides who takes a tile; the
 * extra-turn tile (reference §1.8; rules summary "if a player scores so as
 * to finish with exactly a certain number of points, they may take").
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "castle_fixture.h"

/* Red at 10 scores 3 and lands on 13, the tower 12/13's second space: the
 * tile is taken and turned up (a chance decision). */
static void test_exact_landing_takes_tile(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    tc_open(&g, "test.board", "test.tiles");
    tc_set_score(&g, 0, 10);
    tc_turn(&g, "straight", "c2", 0, "herald N+S");
    tc_turn(&g, "stop", "c3", 0, NULL);
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_CHANCE);
    tc_expect_legal(&g, "reveal 9", 1);
    cas_test_play(&g, "reveal 9");
    tc_expect_event(&g, "Red takes wall tile 9 (points) from its tower");
    tc_expect_scores(&g, 13, 0);
    assert_int_equal(tc_state(&g)->p[0].held[9], 1);
    assert_int_equal(tc_state(&g)->tower_holds[1], 0);
    cas_test_game_close(&g);
}

/* Red at 11 scores 3 and passes over 12/13 to 14: nothing is taken. */
static void test_passing_over_takes_nothing(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    tc_open(&g, "test.board", "test.tiles");
    tc_set_score(&g, 0, 11);
    tc_turn(&g, "straight", "c2", 0, "herald N+S");
    tc_turn(&g, "stop", "c3", 0, NULL);
    /* no reveal: Red's next turn begins with its draw */
    assert_int_equal(tc_state(&g)->phase, PH_DRAW);
    assert_int_equal(tc_state(&g)->turn, 0);
    tc_expect_scores(&g, 14, 0);
    assert_int_equal(tc_state(&g)->tower_holds[1], 1);
    cas_test_game_close(&g);
}

/* The board before Red's last placement: Red's path d2-d3 and house e4 and
 * Blue's path from C all wait for d4; Red 10, Blue 9. */
static void set_up_three_features(struct cas_test_game *g)
{
    tc_open(g, "test.board", "test.tiles");
    tc_turn(g, "straight", "c2", 0, NULL);
    tc_turn(g, "straight", "d5", 0, "herald N+S");
    tc_turn(g, "straight", "d2", 0, "herald N+S");
    tc_turn(g, "straight", "d3", 0, NULL);
    tc_turn(g, "market", "e3", 0, NULL);
    tc_turn(g, "market", "f3", 0, NULL);
    tc_turn(g, "house", "e4", 270, "squire W");
    tc_turn(g, "house", "b2", 0, NULL);
    tc_set_score(g, 0, 10);
    tc_set_score(g, 1, 9);
    tc_turn(g, "stop", "d4", 0, NULL);
    /* Red's own two first, in Red's order; Blue's path waits */
    const char *legal = tc_legal(g);
    assert_string_equal(legal, "score path d2 N+S\nscore house e4 W\n");
}

/* Path first: Red 13 takes 12/13's tile, the house brings 14, then Blue's
 * path (C, d5, d4: 3) lands on 12, where no tile is left. */
static void test_order_gives_red_the_tile(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    set_up_three_features(&g);
    cas_test_play(&g, "score path d2 N+S");
    cas_test_play(&g, "reveal 2");
    /* taken this turn: not usable for the house that follows */
    tc_expect_event(&g, "Red +1 house e4 W (1 tile) 13 -> 14");
    tc_expect_event(&g, "Blue +3 path d4 S (3 tiles) 9 -> 12");
    tc_expect_scores(&g, 14, 12);
    assert_int_equal(tc_state(&g)->p[0].held[2], 1);
    assert_int_equal(tc_state(&g)->p[1].held[2] + tc_state(&g)->p[1].held[5], 0);
    /* from Red's next turn on it doubles a house */
    tc_turn(&g, "market", "g3", 0, NULL);
    tc_turn(&g, "house", "f2", 0, "squire N");
    cas_test_play(&g, "score house f2 N double");
    tc_expect_scores(&g, 16, 12);
    assert_int_equal(tc_state(&g)->p[0].held[2], 0);
    cas_test_game_close(&g);
}

/* House first: Red 11, path 14 (past the tower); Blue's path lands on 12
 * and Blue takes the tile. */
static void test_order_gives_blue_the_tile(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    set_up_three_features(&g);
    cas_test_play(&g, "score house e4 W");
    tc_expect_event(&g, "Red +3 path d2 N+S (3 tiles) 11 -> 14");
    cas_test_play(&g, "reveal 5");
    tc_expect_event(&g, "Blue takes wall tile 5 (incomplete-house)");
    tc_expect_scores(&g, 14, 12);
    assert_int_equal(tc_state(&g)->p[0].held[5], 0);
    assert_int_equal(tc_state(&g)->p[1].held[5], 1);
    cas_test_game_close(&g);
}

/* An extra-turn tile taken in a turn is not usable at that turn's end; at
 * the end of Red's next turn it is: Red plays again, and the tile is gone. */
static void test_extra_turn(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    tc_open(&g, "test.board", "test.tiles");
    tc_set_score(&g, 0, 10);
    tc_turn(&g, "straight", "c2", 0, "herald N+S");
    tc_turn(&g, "market", "j3", 0, NULL);
    tc_turn(&g, "stop", "c3", 0, NULL); /* Red's own path: 13 */
    cas_test_play(&g, "reveal 1");
    assert_int_equal(tc_state(&g)->turn, 1); /* no extra turn yet */
    tc_turn(&g, "market", "i3", 0, NULL);
    tc_turn(&g, "market", "h3", 0, NULL);
    assert_string_equal(tc_legal(&g), "extra turn\nend turn\n");
    cas_test_play(&g, "extra turn");
    assert_int_equal(tc_state(&g)->turn, 0);
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_CHANCE);
    assert_int_equal(tc_state(&g)->p[0].held[1], 0);
    tc_turn(&g, "market", "g3", 0, NULL);
    assert_int_equal(tc_state(&g)->turn, 1);
    tc_expect_scores(&g, 13, 0);
    cas_test_game_close(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_landing_takes_tile),
        cmocka_unit_test(test_passing_over_takes_nothing),
        cmocka_unit_test(test_order_gives_red_the_tile),
        cmocka_unit_test(test_order_gives_blue_the_tile),
        cmocka_unit_test(test_extra_turn),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
