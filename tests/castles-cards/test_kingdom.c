/*
 * test_kingdom.c — the Kingdom layout: CASTLE, WIFE and HEIR limits,
 * NOBLEs left to right and their Upgrade, the LANDS/FRUITS/SERFS matrix
 * without holes (extra cards pile beneath the first NOBLE), Danglers, the
 * ARMY column, WIZARDs fanning out with MINION/MAGICK placed by choice,
 * and the win: the first complete Kingdom.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "castles_fixture.h"

/* Turns alternate: each is the turn player's draw of one card. */
#define red_draws cc_draw
#define blue_draws cc_draw

static void wife_and_heir_limits(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open(&g, NULL);
    cc_start(&g, 0);
    red_draws(&g, "wife20");       /* no CASTLE yet: discarded */
    blue_draws(&g, "heir10");      /* no WIFE: discarded */
    red_draws(&g, "castle");
    blue_draws(&g, "castle");
    red_draws(&g, "heir20");       /* still no WIFE */
    blue_draws(&g, "wife10");
    red_draws(&g, "wife30");
    blue_draws(&g, "heir10");
    red_draws(&g, "castle");       /* a second CASTLE is discarded */
    blue_draws(&g, "heir10");
    red_draws(&g, "heir10");
    blue_draws(&g, "heir20");
    red_draws(&g, "wife10");       /* lower WIFE: no Upgrade, discarded */
    blue_draws(&g, "heir30");      /* a fourth HEIR is discarded */
    red_draws(&g, "wife40");       /* higher WIFE: Upgrade or discard */
    cc_expect_legal(&g, "place wife40 wife", 1);
    cc_expect_legal(&g, "discard wife40", 1);
    cas_test_play(&g, "place wife40 wife");
    cc_expect_kingdom(&g, 0, "castle=castle wife=wife40 heir=heir10");
    cc_expect_kingdom(&g, 1, "castle=castle wife=wife10 heir=heir10,heir10,heir20");
    assert_string_equal(cc_discards(&g),
                        "wife20 heir10 heir20 castle wife10 heir30 wife30");
    cas_test_game_close(&g);
}

static void nobles_left_to_right_and_upgrade(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open(&g, NULL);
    cc_start(&g, 0);
    red_draws(&g, "count50");
    blue_draws(&g, "lands10");
    red_draws(&g, "duke70");
    blue_draws(&g, "lands10");
    red_draws(&g, "count60");
    blue_draws(&g, "lands10");
    cc_expect_kingdom(&g, 0, "n1=count50 n2=duke70 n3=count60");
    red_draws(&g, "baron70");
    assert_string_equal(cc_legal(&g), "place baron70 n1\nplace baron70 n2\n"
                                      "place baron70 n3\ndiscard baron70\n");
    cas_test_play(&g, "place baron70 n1");
    cc_expect_kingdom(&g, 0, "n1=baron70 n2=duke70 n3=count60");
    assert_string_equal(cc_discards(&g), "count50");
    cas_test_game_close(&g);
}

static void matrix_fills_without_holes(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open(&g, NULL);
    cc_layout(&g, 0, "n1=duke70 n2=count60");
    cc_start(&g, 0);
    const char *draws[] = {"fruits10", "lands10", "lands20", "fruits20", "lands30",
                           "serfs10", "serfs20", "fruits30"};
    const char *fillers[] = {"heir10", "heir20"}; /* Blue has no WIFE: discarded */
    for (size_t i = 0; i < sizeof draws / sizeof draws[0]; i++) {
        red_draws(&g, draws[i]);
        blue_draws(&g, fillers[i % 2]);
    }
    /* FRUITS before any LANDS cannot join a column: it piles beneath the
     * first NOBLE.  LANDS fill n1 then n2; n3 has no NOBLE, so the third
     * LANDS piles on n1 too.  FRUITS and SERFS fill each column below a
     * card, from the left; the third FRUITS piles on n1. */
    cc_expect_kingdom(&g, 0, "n1=duke70 n2=count60 n1.lands=lands10,lands30 n2.lands=lands20 "
                             "n1.fruits=fruits10,fruits30 n2.fruits=fruits20 "
                             "n1.serfs=serfs10 n2.serfs=serfs20");
    cas_test_game_close(&g);
}

static void dangling_stacks_and_army(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open(&g, NULL);
    cc_start(&g, 0);
    red_draws(&g, "serfs10");     /* no NOBLE, no LANDS, no FRUITS: a Dangler */
    blue_draws(&g, "champion20");
    cas_test_play(&g, "no block"); /* Blue could block with its CHAMPION */
    red_draws(&g, "arms10");
    blue_draws(&g, "general40");
    cc_expect_kingdom(&g, 0, "n1.serfs=serfs10 arms=arms10");
    cc_expect_kingdom(&g, 1, "general=general40 champion=champion20");
    const struct kingdom *red = &cc_state(&g)->k[0];
    assert_true(stack_dangles(red, MATRIX_STACK(2, 0)));
    /* ARMS with no GENERAL to stack beneath dangles, CASTLE or not (14) */
    assert_true(stack_dangles(red, S_ARMS));
    cc_give(&g, 0, "castle", "castle");
    assert_true(stack_dangles(red, S_ARMS));
    const struct kingdom *blue = &cc_state(&g)->k[1];
    assert_false(stack_dangles(blue, S_CHAMPION)); /* under a GENERAL */
    cas_test_game_close(&g);
}

static void wizards_fan_out_and_minions_choose(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open(&g, NULL);
    cc_start(&g, 0);
    red_draws(&g, "mage20");
    blue_draws(&g, "lands10");
    red_draws(&g, "witch40");
    blue_draws(&g, "lands10");
    red_draws(&g, "minion30");
    assert_string_equal(cc_legal(&g), "place minion30 w1\nplace minion30 w2\nplace minion30 w3\n");
    cas_test_play(&g, "place minion30 w2");
    cas_test_play(&g, "no block");
    blue_draws(&g, "lands10");
    red_draws(&g, "adept60");
    cas_test_play(&g, "no block");
    blue_draws(&g, "lands10");
    red_draws(&g, "sorcerer60");
    cc_expect_legal(&g, "place sorcerer60 w2", 1);
    cas_test_play(&g, "place sorcerer60 w2");
    cc_expect_kingdom(&g, 0, "w1=mage20 w2=sorcerer60 w3=adept60 w2.minion=minion30");
    assert_string_equal(cc_discards(&g), "witch40");
    cas_test_game_close(&g);
}

static void first_complete_kingdom_wins(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open(&g, NULL);
    cc_layout(&g, 0, "castle=castle wife=wife20 heir=heir10 n1=duke70 n2=count60 n3=baron50 "
                     "n1.lands=lands10 n2.lands=lands10 n3.lands=lands10 "
                     "n1.fruits=fruits10 n2.fruits=fruits10 n3.fruits=fruits10 "
                     "n1.serfs=serfs10 n2.serfs=serfs10 "
                     "general=general40 champion=champion10 arms=arms10");
    cc_start(&g, 0);
    int64_t before[2] = {17, 0};
    cas_test_expect_scores(&g, before);
    red_draws(&g, "serfs40");
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_TERMINAL);
    int64_t after[2] = {100, 0};
    cas_test_expect_scores(&g, after);
    assert_non_null(strstr(g.events, "Red wins: Red completes a Kingdom"));
    cas_test_game_close(&g);
}

static void nobles_out_of_order_do_not_win(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open(&g, NULL);
    cc_layout(&g, 0, "castle=castle wife=wife20 heir=heir10 n1=count60 n2=duke70 n3=baron50 "
                     "n1.lands=lands10 n2.lands=lands10 n3.lands=lands10 "
                     "n1.fruits=fruits10 n2.fruits=fruits10 n3.fruits=fruits10 "
                     "n1.serfs=serfs10 n2.serfs=serfs10 n3.serfs=serfs20 "
                     "general=general40 champion=champion10 arms=arms10");
    cc_start(&g, 0);
    int64_t before[2] = {16, 0};
    cas_test_expect_scores(&g, before);
    cas_test_play(&g, "swap n1 n2"); /* a Move: NOBLEs trade places, holdings stay */
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_TERMINAL);
    int64_t after[2] = {100, 0};
    cas_test_expect_scores(&g, after);
    cc_expect_kingdom(&g, 0, "castle=castle wife=wife20 heir=heir10 n1=duke70 n2=count60 "
                             "n3=baron50 n1.lands=lands10 n2.lands=lands10 n3.lands=lands10 "
                             "n1.fruits=fruits10 n2.fruits=fruits10 n3.fruits=fruits10 "
                             "n1.serfs=serfs10 n2.serfs=serfs10 n3.serfs=serfs20 "
                             "general=general40 champion=champion10 arms=arms10");
    cas_test_game_close(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(wife_and_heir_limits),
        cmocka_unit_test(nobles_left_to_right_and_upgrade),
        cmocka_unit_test(matrix_fills_without_holes),
        cmocka_unit_test(dangling_stacks_and_army),
        cmocka_unit_test(wizards_fan_out_and_minions_choose),
        cmocka_unit_test(first_complete_kingdom_wins),
        cmocka_unit_test(nobles_out_of_order_do_not_win),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
