/*
 * test_final.c — the end: the game ends when every tile is placed or set
 * aside (a tile that fits nowhere is set aside and another drawn), then the
 * final scoring in order: the larger keep takes the largest group of empty
 * spaces (a tie: nobody), incomplete paths, houses and towers score only
 * through wall tiles 4-6, courts 3 a market to the majority of merchants
 * (the start space's market counts; wall tile 7: 4 on one court), wall
 * tile 9's bonus (rules summary, last paragraphs; reference §1.9).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "castle_fixture.h"

static void expect_over(struct cas_test_game *g)
{
    assert_int_equal(g->vt->current(g->state), CAS_ACTOR_TERMINAL);
    tc_expect_legal(g, "pass", 0);
}

/* Blue's keep (2) beats Red's (1): Blue adds the 31 empty spaces, which
 * are one group (36 spaces, 5 tiles). */
static void test_keep_bonus(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    tc_open(&g, "test.board", "test.tiles");
    tc_keep_only(&g, "straight=1 house=4");
    tc_turn(&g, "straight", "c2", 0, NULL);
    tc_turn(&g, "house", "b2", 0, "squire N");
    tc_turn(&g, "house", "d2", 0, "squire N");
    tc_turn(&g, "house", "d3", 180, "squire S");
    tc_turn(&g, "house", "d4", 0, NULL);
    expect_over(&g);
    tc_expect_event(&g, "Blue +31 keep bonus: the larger keep (2 against 1) times the "
                        "largest group of empty spaces (31)");
    tc_expect_scores(&g, 1, 34);
    cas_test_game_close(&g);
}

/* Equal keeps: nobody scores the keep bonus. */
static void test_keep_tie(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    tc_open(&g, "test.board", "test.tiles");
    tc_keep_only(&g, "straight=1 house=2");
    tc_turn(&g, "straight", "c2", 0, NULL);
    tc_turn(&g, "house", "b2", 0, "squire N");
    tc_turn(&g, "house", "d2", 0, "squire N");
    expect_over(&g);
    tc_expect_event(&g, "keeps 1 and 1: a tie, nobody scores the keep bonus");
    tc_expect_scores(&g, 1, 1);
    cas_test_game_close(&g);
}

/* Wall tile 8 enlarges Red's keep by 5 (board file): 6 against 1, so Red
 * adds the 33 empty spaces. */
static void test_keep_enlarged_by_wall_tile(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    tc_open(&g, "test.board", "test.tiles");
    tc_give_wall(&g, 0, 8);
    tc_keep_only(&g, "straight=1 house=2");
    tc_turn(&g, "straight", "c2", 0, NULL);
    tc_turn(&g, "house", "b2", 0, "squire N");
    tc_turn(&g, "house", "d2", 0, "squire N");
    tc_expect_event(&g, "Red +33 keep bonus: the larger keep (6 against 1)");
    tc_expect_scores(&g, 34, 1);
    cas_test_game_close(&g);
}

/* The rulebook's example court: 5 markets, one on the start space: 15 to
 * Red's merchant, which stays to the end; Blue's open path scores nothing. */
static void set_up_court(struct cas_test_game *g)
{
    tc_open(g, "test.board", "test.tiles");
    tc_keep_only(g, "market=2 straight=1");
}

static void play_court(struct cas_test_game *g)
{
    tc_turn(g, "market", "j3", 0, "merchant N+E+S+W");
    tc_turn(g, "straight", "c2", 0, "herald N+S");
    tc_turn(g, "market", "i3", 0, NULL);
    expect_over(g);
}

static void test_court_markets(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    set_up_court(&g);
    play_court(&g);
    tc_expect_event(&g, "Red +15 court i3 N+E+S+W (5 markets x 3)");
    tc_expect_scores(&g, 15, 0);
    /* the merchant stayed on its court to the end */
    assert_int_equal(tc_state(&g)->p[0].supply, FOLLOWERS - 1);
    cas_test_game_close(&g);
}

/* The same with wall tiles: Red's 7 makes the court 4 a market, 20
 * instead of 15 (the rulebook's example); Blue's 4 scores the open path
 * (A, c2: 2) and 9 adds 5. */
static void test_court_and_end_wall_tiles(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    set_up_court(&g);
    tc_give_wall(&g, 0, 7);
    tc_give_wall(&g, 1, 4);
    tc_give_wall(&g, 1, 9);
    play_court(&g);
    tc_expect_event(&g, "Blue +2 path c1 S (incomplete, scored by a wall tile)");
    tc_expect_event(&g, "Red +20 court i3 N+E+S+W (5 markets x 4, a wall tile's market bonus)");
    tc_expect_event(&g, "Blue +5 from 1 bonus-point wall tile");
    tc_expect_scores(&g, 20, 7);
    cas_test_game_close(&g);
}

/* Two courts with a merchant each are joined: a tie, nobody scores. */
static void test_court_tie(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    tc_open(&g, "test.board", "test.tiles");
    tc_keep_only(&g, "straight=2 deadend=1");
    tc_turn(&g, "straight", "c2", 0, "merchant Ne+E+Se");
    tc_turn(&g, "straight", "d2", 0, "merchant Ne+E+Se");
    tc_turn(&g, "deadend", "d3", 0, NULL);
    expect_over(&g);
    tc_expect_event(&g, "a tie of merchants (1-1), nobody scores its 1 market");
    tc_expect_scores(&g, 0, 0);
    cas_test_game_close(&g);
}

/* An open house and an open tower score nothing at the end ... */
static void play_open_buildings(struct cas_test_game *g)
{
    tc_keep_only(g, "straight=1 house=1 tower=1");
    tc_turn(g, "straight", "c2", 0, NULL);
    tc_turn(g, "house", "d2", 90, "squire E");
    tc_turn(g, "tower", "d3", 90, "knight E");
    expect_over(g);
}

static void test_incomplete_scores_nothing(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    tc_open(&g, "test.board", "test.tiles");
    play_open_buildings(&g);
    tc_expect_scores(&g, 0, 0);
    cas_test_game_close(&g);
}

/* ... unless the owner holds the wall tile for it: 6 (tower) gives Red 2,
 * 5 (house) gives Blue 1. */
static void test_incomplete_by_wall_tiles(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    tc_open(&g, "test.board", "test.tiles");
    tc_give_wall(&g, 0, 6);
    tc_give_wall(&g, 1, 5);
    play_open_buildings(&g);
    tc_expect_event(&g, "Red +2 tower d3 E (incomplete, scored by a wall tile)");
    tc_expect_event(&g, "Blue +1 house d2 E (incomplete, scored by a wall tile)");
    tc_expect_scores(&g, 2, 1);
    cas_test_game_close(&g);
}

/* A tile with paths on all four sides fits nowhere beside a court start
 * space: it is set aside and chance draws again. */
static void test_set_aside_then_draw_again(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    tc_open(&g, "aside.board", "aside.tiles");
    cas_test_play(&g, "draw cross");
    tc_expect_event(&g, "cross cannot be placed anywhere: set aside for the rest of the game");
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_CHANCE);
    assert_int_equal(tc_state(&g)->set_aside, 1);
    tc_turn(&g, "house", "d3", 0, NULL);
    expect_over(&g);
    tc_expect_scores(&g, 0, 0);
    cas_test_game_close(&g);
}

/* Setting aside the last tile ends the game too. */
static void test_last_tile_set_aside_ends_game(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    tc_open(&g, "aside.board", "aside.tiles");
    tc_turn(&g, "house", "d3", 0, NULL);
    cas_test_play(&g, "draw cross");
    expect_over(&g);
    tc_expect_event(&g, "every tile is placed or set aside: final scoring");
    tc_expect_scores(&g, 0, 0);
    cas_test_game_close(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keep_bonus),
        cmocka_unit_test(test_keep_tie),
        cmocka_unit_test(test_keep_enlarged_by_wall_tile),
        cmocka_unit_test(test_court_markets),
        cmocka_unit_test(test_court_and_end_wall_tiles),
        cmocka_unit_test(test_court_tie),
        cmocka_unit_test(test_incomplete_scores_nothing),
        cmocka_unit_test(test_incomplete_by_wall_tiles),
        cmocka_unit_test(test_set_aside_then_draw_again),
        cmocka_unit_test(test_last_tile_set_aside_ends_game),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
