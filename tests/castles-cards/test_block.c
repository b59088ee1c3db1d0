/*
 * test_block.c — Blocking: lower, equal and higher draws; before a CASTLE
 * only the Blockers are at risk; after it the blocker digs deeper (ARMY
 * Blockers: Danglers and ARMY by choice, then the NOBLE columns from the
 * outside; wizard Blockers: MAGICK, then MINION, then the WIZARD or
 * Danglers); a lone linked MAGICK blocks only before a CASTLE; no WIZARD
 * or GENERAL means no Blocking after a CASTLE; the CASTLE cannot be
 * blocked and costs the blocker the whole blocking column.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "castles_fixture.h"

/* Red takes a turn drawing `card`, then announces `block` ("no block" to
 * pass); Blue then draws `blue_card` into the block. */
static void red_blocks_blue(struct cas_test_game *g, const char *card, const char *block,
                            const char *blue_card)
{
    cc_draw(g, card);
    cas_test_play(g, block);
    assert_int_equal(g->vt->current(g->state), 1);
    cc_draw(g, blue_card);
}

static void lower_draw_is_discarded(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open_with(&g, "champion=champion30", "", 0);
    red_blocks_blue(&g, "lands10", "block champion", "lands20");
    cc_expect_kingdom(&g, 0, "n1.lands=lands10 champion=champion30");
    cc_expect_kingdom(&g, 1, "");
    assert_string_equal(cc_discards(&g), "lands20");
    assert_int_equal(g.vt->current(g.state), 0); /* Blue's turn is over */
    cas_test_game_close(&g);
}

static void equal_draw_loses_both(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open_with(&g, "champion=champion30", "", 0);
    red_blocks_blue(&g, "lands10", "block champion", "lands30");
    cc_expect_kingdom(&g, 0, "n1.lands=lands10");
    cc_expect_kingdom(&g, 1, "");
    assert_string_equal(cc_discards(&g), "champion30 lands30");
    cas_test_game_close(&g);
}

static void higher_draw_before_castle_costs_only_blockers(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open_with(&g, "champion=champion10,champion30 arms=arms20 n1.fruits=fruits10", "", 0);
    red_blocks_blue(&g, "lands10", "block champion+arms", "duke70");
    cc_expect_kingdom(&g, 0, "n1.lands=lands10 n1.fruits=fruits10 champion=champion10");
    cc_expect_kingdom(&g, 1, "n1=duke70");
    assert_string_equal(cc_discards(&g), "champion30 arms20");
    cas_test_game_close(&g);
}

/* The rules' example: Block 30 against a 70-point DUKE; 70 must be lost. */
static void army_block_after_castle_loses_danglers_and_army_by_choice(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open_with(&g, "castle=castle wife=wife20 general=general50 champion=champion30 arms=arms10",
              "", 0);
    red_blocks_blue(&g, "duke50", "block champion", "duke70");
    assert_int_equal(g.vt->current(g.state), 0); /* the loser chooses */
    assert_string_equal(cc_legal(&g), "lose wife\nlose army\n");
    cas_test_play(&g, "lose wife");
    /* 20 still to cover: the ARMY goes in layers, ARMS first, then GENERAL */
    cc_expect_kingdom(&g, 0, "castle=castle n1=duke50");
    cc_expect_kingdom(&g, 1, "n1=duke70");
    assert_string_equal(cc_discards(&g), "champion30 wife20 arms10 general50");
    cas_test_game_close(&g);
}

static void army_block_carries_over_to_outer_noble_column(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open_with(&g, "castle=castle general=general40 champion=champion30 n1=baron50 "
                  "n1.lands=lands10 n1.fruits=fruits10 n2=count50 n2.lands=lands20 "
                  "n2.fruits=fruits30", "", 0);
    red_blocks_blue(&g, "heir10", "block champion", "duke80");
    /* 80 - 30 = 50: GENERAL 40, then n2 from its lowest stack up: FRUITS 30 */
    cc_expect_kingdom(&g, 0, "castle=castle n1=baron50 n2=count50 n1.lands=lands10 "
                             "n2.lands=lands20 n1.fruits=fruits10");
    cc_expect_kingdom(&g, 1, "n1=duke80");
    assert_string_equal(cc_discards(&g), "heir10 champion30 general40 fruits30");
    cas_test_game_close(&g);
}

static void wizard_block_after_castle_loses_magick_minion_then_choice(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open_with(&g, "castle=castle wife=wife30 w1=witch20 w1.minion=minion10,minion30 "
                  "w1.magick=magick20,magick10 n1.fruits=fruits10", "", 0);
    cas_test_play(&g, "topoff w1.magick 2"); /* MAGICK 20 to the top */
    cc_expect_legal(&g, "block w1.magick", 0); /* alone only before a CASTLE */
    cas_test_play(&g, "block w1.minion+magick");  /* 30 + 20 */
    cc_draw(&g, "duke80");
    /* 30 to cover: MAGICK 10, MINION 10 forced; then WIZARD or Danglers */
    assert_string_equal(cc_legal(&g), "lose n1.fruits\nlose wife\nlose w1.wizard\n");
    cas_test_play(&g, "lose n1.fruits");
    cc_expect_kingdom(&g, 0, "castle=castle wife=wife30 w1=witch20");
    cc_expect_kingdom(&g, 1, "n1=duke80");
    assert_string_equal(cc_discards(&g), "minion30 magick20 magick10 minion10 fruits10");
    cas_test_game_close(&g);
}

static void linked_magick_blocks_alone_before_castle(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open_with(&g, "w1.minion=minion10 w1.magick=magick30", "", 0);
    red_blocks_blue(&g, "lands10", "block w1.magick", "lands40");
    cc_expect_kingdom(&g, 0, "n1.lands=lands10 w1.minion=minion10");
    cc_expect_kingdom(&g, 1, "n1.lands=lands40");
    assert_string_equal(cc_discards(&g), "magick30");
    cas_test_game_close(&g);
}

static void no_wizard_or_general_no_block_after_castle(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open_with(&g, "castle=castle w1.minion=minion20 champion=champion20", "", 0);
    cc_draw(&g, "lands10");
    /* nothing may block: the turn passes straight to Blue */
    assert_int_equal(g.vt->current(g.state), 1);
    assert_int_equal(cc_state(&g)->phase, PH_TURN);
    cas_test_game_close(&g);

    cc_open_with(&g, "w1.minion=minion20 champion=champion20", "", 0);
    cc_draw(&g, "lands10");
    assert_string_equal(cc_legal(&g), "block champion\nblock w1.minion\nno block\n");
    cas_test_game_close(&g);
}

static void castle_cannot_be_blocked_army_column_lost(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open_with(&g, "general=general40 champion=champion20,champion30 arms=arms10,arms20", "", 0);
    red_blocks_blue(&g, "lands10", "block champion+arms", "castle");
    cc_expect_kingdom(&g, 0, "n1.lands=lands10");
    cc_expect_kingdom(&g, 1, "castle=castle");
    assert_string_equal(cc_discards(&g), "general40 champion30 champion20 arms20 arms10");
    cas_test_game_close(&g);
}

static void castle_cannot_be_blocked_wizard_stays(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open_with(&g, "w2=mage40 w2.minion=minion10,minion50 w2.magick=magick10 "
                  "w1.minion=minion20", "", 0);
    red_blocks_blue(&g, "lands10", "block w2.minion", "castle");
    cc_expect_kingdom(&g, 0, "w2=mage40 n1.lands=lands10 w1.minion=minion20");
    cc_expect_kingdom(&g, 1, "castle=castle");
    assert_string_equal(cc_discards(&g), "minion50 minion10 magick10");
    cas_test_game_close(&g);
}

static void block_lapses_when_blocked_player_does_not_draw(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open_with(&g, "champion=champion30", "n1.lands=lands10,lands20", 0);
    cc_draw(&g, "lands30");
    cas_test_play(&g, "block champion");
    cas_test_play(&g, "topoff n1.lands 2"); /* Blue does not draw: lands10 to the top */
    assert_int_equal(cc_state(&g)->pending, PEND_NONE);
    assert_int_equal(g.vt->current(g.state), 0); /* Red's next turn */
    assert_int_equal(cc_state(&g)->phase, PH_TURN);
    cc_expect_kingdom(&g, 1, "n1.lands=lands20,lands10");
    cas_test_game_close(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lower_draw_is_discarded),
        cmocka_unit_test(equal_draw_loses_both),
        cmocka_unit_test(higher_draw_before_castle_costs_only_blockers),
        cmocka_unit_test(army_block_after_castle_loses_danglers_and_army_by_choice),
        cmocka_unit_test(army_block_carries_over_to_outer_noble_column),
        cmocka_unit_test(wizard_block_after_castle_loses_magick_minion_then_choice),
        cmocka_unit_test(linked_magick_blocks_alone_before_castle),
        cmocka_unit_test(no_wizard_or_general_no_block_after_castle),
        cmocka_unit_test(castle_cannot_be_blocked_army_column_lost),
        cmocka_unit_test(castle_cannot_be_blocked_wizard_stays),
        cmocka_unit_test(block_lapses_when_blocked_player_does_not_draw),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
