/*
 * test_wizards.c — the six WIZARD powers and the sacrifice: WARLOCK stops a
 * block (decided by the blocked player, out of the blocker's turn),
 * WITCH flies a card over a column, MAGICIAN blocks the next draw, MAGE
 * takes the top discard (unblockable), SORCERER snatches the opponent's
 * draw (even a winning one), ADEPT blocks the next move; any WIZARD may be
 * sacrificed to draw two and keep one, which the normal block still meets.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "castles_fixture.h"

static void warlock_stops_a_block(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open_with(&g, "champion=champion30", "w1=warlock40", 0);
    cc_draw(&g, "lands10");
    cas_test_play(&g, "block champion");
    assert_int_equal(g.vt->current(g.state), 1); /* the blocked player decides */
    assert_string_equal(cc_legal(&g), "warlock w1\naccept\n");
    cas_test_play(&g, "warlock w1");
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_CHANCE);
    cas_test_play(&g, "draw lands20"); /* lower than 30, but drawn freely */
    cc_expect_kingdom(&g, 0, "n1.lands=lands10 champion=champion30");
    cc_expect_kingdom(&g, 1, "n1.lands=lands20");
    assert_string_equal(cc_discards(&g), "warlock40");
    assert_int_equal(g.vt->current(g.state), 0); /* Blue's turn was that draw */
    cas_test_game_close(&g);
}

static void warlock_castle_costs_blocker_nothing(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open_with(&g, "general=general40 champion=champion30", "w1=warlock40", 0);
    cc_draw(&g, "lands10");
    cas_test_play(&g, "block champion");
    cas_test_play(&g, "warlock w1");
    cas_test_play(&g, "draw castle");
    cc_expect_kingdom(&g, 0, "n1.lands=lands10 general=general40 champion=champion30");
    cc_expect_kingdom(&g, 1, "castle=castle");
    cas_test_game_close(&g);
}

static void warlock_answers_a_magician(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open_with(&g, "w1=magician40", "w1=warlock20", 0);
    cc_draw(&g, "lands10");
    cas_test_play(&g, "magician w1");
    assert_string_equal(cc_legal(&g), "warlock w1\naccept\n");
    cas_test_play(&g, "warlock w1");
    cas_test_play(&g, "draw duke60");
    cc_expect_kingdom(&g, 1, "n1=duke60");
    assert_string_equal(cc_discards(&g), "magician40 warlock20");
    cas_test_game_close(&g);
}

static void accepted_block_holds(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open_with(&g, "champion=champion30", "w1=warlock40", 0);
    cc_draw(&g, "lands10");
    cas_test_play(&g, "block champion");
    cas_test_play(&g, "accept");
    cc_draw(&g, "lands20");
    cc_expect_kingdom(&g, 1, "w1=warlock40");
    assert_string_equal(cc_discards(&g), "lands20");
    cas_test_game_close(&g);
}

static void witch_skips_a_row(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open_with(&g, "castle=castle w1=witch20 n1=duke50 n2=count50 n1.lands=lands10,lands30 "
                  "n2.lands=lands20", "", 0);
    cas_test_play(&g, "witch w1 n1.lands");
    cc_expect_kingdom(&g, 0, "castle=castle n1=duke50 n2=count50 n1.lands=lands10 "
                             "n2.lands=lands20 n3.lands=lands30");
    assert_string_equal(cc_discards(&g), "witch20");
    cas_test_game_close(&g);

    /* the last LANDS of n1 may not fly: it would leave a hole */
    cc_open_with(&g, "castle=castle w1=witch20 n1=duke50 n2=count50 n1.lands=lands10 "
                  "n2.lands=lands20", "", 0);
    cc_expect_legal(&g, "witch w1 n1.lands", 0);
    cas_test_game_close(&g);

    /* the middle column must hold a card */
    cc_open_with(&g, "castle=castle w1=witch20 w1.minion=minion10,minion20", "", 0);
    cc_expect_legal(&g, "witch w1 w1.minion", 0);
    cas_test_game_close(&g);
    cc_open_with(&g, "castle=castle w1=witch20 w2=mage20 w1.minion=minion10,minion20", "", 0);
    cas_test_play(&g, "witch w1 w1.minion");
    cc_expect_kingdom(&g, 0, "castle=castle w2=mage20 w1.minion=minion10 w3.minion=minion20");
    cas_test_game_close(&g);
}

/* A WITCH is no middle card of its own flight: it is discarded as its power
 * is used, so a middle column holding only the WITCH is empty (decision 29). */
static void witch_is_not_its_own_middle_card(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open_with(&g, "castle=castle w1=mage20 w2=witch20 w1.minion=minion10,minion20", "", 0);
    cc_expect_legal(&g, "witch w2 w1.minion", 0);
    cas_test_game_close(&g);

    cc_open_with(&g, "castle=castle w1=mage20 w2=witch20 w1.minion=minion10,minion20 "
                     "w2.minion=minion30", "", 0);
    cas_test_play(&g, "witch w2 w1.minion");
    cc_expect_kingdom(&g, 0, "castle=castle w1=mage20 w1.minion=minion10 w2.minion=minion30 "
                             "w3.minion=minion20");
    assert_string_equal(cc_discards(&g), "witch20");
    cas_test_game_close(&g);
}

static void magician_blocks_the_next_draw(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open_with(&g, "w1=magician40", "w1=mage20 n1.lands=lands10,lands20", 0);
    cc_draw(&g, "lands30");
    cas_test_play(&g, "magician w1");
    assert_int_equal(g.vt->current(g.state), 1);
    /* no draw, no sacrifice; the MAGE's Draw Discard is not a Draw */
    assert_string_equal(cc_legal(&g), "topoff n1.lands 2\nmage w1\n");
    cas_test_play(&g, "topoff n1.lands 2");
    assert_string_equal(cc_discards(&g), "magician40");
    cc_draw(&g, "lands40"); /* Red's turn: Red draws as usual */
    cas_test_game_close(&g);
}

static void mage_takes_top_discard_unblocked(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open_with(&g, "w1=mage20", "champion=champion30", 1);
    cc_discard(&g, "lands10");
    cc_discard(&g, "duke70");
    cc_draw(&g, "lands20");
    cas_test_play(&g, "block champion");
    cas_test_play(&g, "mage w1");
    cc_expect_kingdom(&g, 0, "n1=duke70");
    cc_expect_kingdom(&g, 1, "n1.lands=lands20 champion=champion30");
    assert_string_equal(cc_discards(&g), "lands10 mage20");
    cas_test_game_close(&g);
}

static void sacrifice_draws_two_keeps_one(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open_with(&g, "w2=adept60", "", 0);
    cas_test_play(&g, "sacrifice w2");
    cas_test_play(&g, "draw lands10");
    cas_test_play(&g, "draw duke70");
    assert_string_equal(cc_legal(&g), "keep duke70\nkeep lands10\n");
    cas_test_play(&g, "keep duke70");
    cc_expect_kingdom(&g, 0, "n1=duke70");
    assert_string_equal(cc_discards(&g), "adept60 lands10");
    cas_test_game_close(&g);
}

static void sacrifice_meets_the_block(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open_with(&g, "w1=mage20", "champion=champion50", 1);
    cc_draw(&g, "lands10");
    cas_test_play(&g, "block champion");
    cas_test_play(&g, "sacrifice w1");
    cas_test_play(&g, "draw lands40");
    cas_test_play(&g, "draw duke70");
    cas_test_play(&g, "keep lands40"); /* 40 against 50: blocked */
    cc_expect_kingdom(&g, 0, "");
    cc_expect_kingdom(&g, 1, "n1.lands=lands10 champion=champion50");
    assert_string_equal(cc_discards(&g), "mage20 duke70 lands40");
    cas_test_game_close(&g);
}

static void sorcerer_snatches_the_draw(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open_with(&g, "", "w2=sorcerer40", 0);
    cc_draw(&g, "duke70");
    assert_int_equal(g.vt->current(g.state), 1); /* out of Red's turn */
    assert_string_equal(cc_legal(&g), "snatch w2\nlet go\n");
    cas_test_play(&g, "snatch w2");
    cc_expect_kingdom(&g, 0, "");
    cc_expect_kingdom(&g, 1, "n1=duke70");
    assert_string_equal(cc_discards(&g), "sorcerer40");
    assert_int_equal(g.vt->current(g.state), 1); /* Red's turn ended: Blue's turn */
    assert_int_equal(cc_state(&g)->phase, PH_TURN);
    cas_test_game_close(&g);

    cc_open_with(&g, "", "w2=sorcerer40", 0);
    cc_draw(&g, "duke70");
    cas_test_play(&g, "let go");
    cc_expect_kingdom(&g, 0, "n1=duke70");
    cc_expect_kingdom(&g, 1, "w2=sorcerer40");
    cas_test_game_close(&g);
}

static void sorcerer_snatches_victory(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open_with(&g, "castle=castle wife=wife20 heir=heir10 n1=duke70 n2=count60 n3=baron50 "
                  "n1.lands=lands10 n2.lands=lands10 n3.lands=lands10 "
                  "n1.fruits=fruits10 n2.fruits=fruits10 n3.fruits=fruits10 "
                  "n1.serfs=serfs10 n2.serfs=serfs10 "
                  "general=general40 champion=champion10 arms=arms10",
              "w1=sorcerer20", 0);
    cc_draw(&g, "serfs40");
    cas_test_play(&g, "snatch w1");
    assert_int_not_equal(g.vt->current(g.state), CAS_ACTOR_TERMINAL);
    cc_expect_kingdom(&g, 1, "n1.serfs=serfs40");
    int64_t scores[2] = {17, 0};
    cas_test_expect_scores(&g, scores);
    cas_test_game_close(&g);
}

/* A snatched card that completes the snatcher's Kingdom wins the game. */
static void snatched_card_wins_for_the_sorcerer(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open_with(&g, "",
                 "castle=castle wife=wife20 heir=heir10 n1=duke70 n2=count60 n3=baron50 "
                 "n1.lands=lands10 n2.lands=lands10 n3.lands=lands10 "
                 "n1.fruits=fruits10 n2.fruits=fruits10 n3.fruits=fruits10 "
                 "n1.serfs=serfs10 n2.serfs=serfs10 w1=sorcerer20 "
                 "general=general40 champion=champion10 arms=arms10", 0);
    cc_draw(&g, "serfs40");
    cas_test_play(&g, "snatch w1");
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_TERMINAL);
    int64_t scores[2] = {0, 100};
    cas_test_expect_scores(&g, scores);
    assert_non_null(strstr(g.events, "Blue wins: Blue completes a Kingdom"));
    cas_test_game_close(&g);
}

/* A snatch is offered even for a card the snatcher cannot keep — denying it
 * is the point — and the event says the card is lost (decision 32). */
static void sorcerer_snatch_of_an_unkeepable_card_says_so(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open_with(&g, "castle=castle", "w1=sorcerer20", 0);
    cc_draw(&g, "wife30");
    assert_string_equal(cc_legal(&g), "snatch w1\nlet go\n");
    cas_test_play(&g, "snatch w1");
    assert_non_null(strstr(g.events, "Blue's SORCERER snatches wife30, which Blue cannot keep "
                                     "(a WIFE needs a CASTLE)"));
    cc_expect_kingdom(&g, 0, "castle=castle");
    cc_expect_kingdom(&g, 1, "");
    assert_string_equal(cc_discards(&g), "sorcerer20 wife30");
    cas_test_game_close(&g);
}

/* A MAGE's Draw Discard is a draw the SORCERER may snatch. */
static void sorcerer_snatches_a_mage_draw(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open_with(&g, "w1=mage20", "w3=sorcerer60", 0);
    cc_discard(&g, "count70");
    cas_test_play(&g, "mage w1");
    cas_test_play(&g, "snatch w3");
    cc_expect_kingdom(&g, 0, "");
    cc_expect_kingdom(&g, 1, "n1=count70");
    assert_string_equal(cc_discards(&g), "mage20 sorcerer60");
    cas_test_game_close(&g);
}

static void adept_blocks_the_next_move(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open_with(&g, "w1=adept20", "castle=castle n1=duke50 n2=count50 n1.lands=lands10,lands20 "
                                "w1=witch20 w2=mage20 w1.minion=minion10,minion20", 0);
    cc_draw(&g, "lands30");
    cas_test_play(&g, "adept w1");
    assert_int_equal(g.vt->current(g.state), 1);
    cc_expect_legal(&g, "move n1.lands n2", 0);
    cc_expect_legal(&g, "swap n1 n2", 0);
    cc_expect_legal(&g, "witch w1 w1.minion", 0);
    cc_expect_legal(&g, "draw", 1);
    cc_draw(&g, "lands40");
    cas_test_play(&g, "no block");
    cc_draw(&g, "heir10");
    /* the ADEPT held for one turn only */
    cc_expect_legal(&g, "move n1.lands n2", 1);
    cc_expect_legal(&g, "swap n1 n2", 1);
    cas_test_game_close(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(warlock_stops_a_block),
        cmocka_unit_test(warlock_castle_costs_blocker_nothing),
        cmocka_unit_test(warlock_answers_a_magician),
        cmocka_unit_test(accepted_block_holds),
        cmocka_unit_test(witch_skips_a_row),
        cmocka_unit_test(witch_is_not_its_own_middle_card),
        cmocka_unit_test(magician_blocks_the_next_draw),
        cmocka_unit_test(mage_takes_top_discard_unblocked),
        cmocka_unit_test(sacrifice_draws_two_keeps_one),
        cmocka_unit_test(sacrifice_meets_the_block),
        cmocka_unit_test(sorcerer_snatches_the_draw),
        cmocka_unit_test(sorcerer_snatches_victory),
        cmocka_unit_test(snatched_card_wins_for_the_sorcerer),
        cmocka_unit_test(sorcerer_snatches_a_mage_draw),
        cmocka_unit_test(sorcerer_snatch_of_an_unkeepable_card_says_so),
        cmocka_unit_test(adept_blocks_the_next_move),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
