/*
 * test_war.c — Waging War: it needs a CASTLE and a whole ARMY; the attacker
 * sacrifices its top GENERAL, CHAMPION and ARMS; the victim covers their
 * value from Danglers, its ARMY (in layers: ARMS, CHAMPION, GENERAL, ARMS
 * again) or the attacked side, which loses from the outermost column,
 * lowest stack first; a shortfall nothing can cover is forgiven.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "castles_fixture.h"

static void war_needs_castle_and_whole_army(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open_with(&g, "general=general50 champion=champion30 arms=arms20", "n1=duke70", 0);
    cc_expect_legal(&g, "war nobles", 0);
    cas_test_game_close(&g);
    cc_open_with(&g, "castle=castle general=general50 champion=champion30", "n1=duke70", 0);
    cc_expect_legal(&g, "war nobles", 0);
    cas_test_game_close(&g);
    cc_open_with(&g, "castle=castle general=general50 champion=champion30 arms=arms20",
              "n1=duke70", 0);
    cc_expect_legal(&g, "war nobles", 1);
    cc_expect_legal(&g, "war wizards", 0); /* Blue has no wizard column to attack */
    cas_test_game_close(&g);
}

static void war_on_nobles_outer_column_first(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open_with(&g, "castle=castle general=general50 champion=champion30 arms=arms20",
              "castle=castle wife=wife10 n1=duke70 n1.lands=lands10 n1.fruits=fruits20 "
              "n2=count60 n2.lands=lands30", 0);
    cas_test_play(&g, "war nobles"); /* 50 + 30 + 20 = 100 */
    assert_int_equal(g.vt->current(g.state), 1);
    assert_string_equal(cc_legal(&g), "lose wife\nlose nobles\n");
    cas_test_play(&g, "lose nobles"); /* n2's LANDS 30: 70 left */
    cas_test_play(&g, "lose nobles"); /* n2's COUNT 60: 10 left */
    cas_test_play(&g, "lose wife");   /* WIFE 10: covered */
    cc_expect_kingdom(&g, 0, "castle=castle");
    cc_expect_kingdom(&g, 1, "castle=castle n1=duke70 n1.lands=lands10 n1.fruits=fruits20");
    assert_string_equal(cc_discards(&g), "general50 champion30 arms20 lands30 count60 wife10");
    assert_int_equal(g.vt->current(g.state), 1); /* Blue's turn next */
    assert_int_equal(cc_state(&g)->phase, PH_TURN);
    cas_test_game_close(&g);
}

static void army_defends_in_layers(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open_with(&g, "castle=castle general=general40 champion=champion10 arms=arms10",
              "w1=adept20 w1.minion=minion20 general=general40 champion=champion10,champion20 "
              "arms=arms10,arms20", 0);
    cas_test_play(&g, "war wizards"); /* 60 */
    assert_string_equal(cc_legal(&g), "lose army\nlose wizards\n");
    cas_test_play(&g, "lose army"); /* ARMS 20: 40 left */
    cas_test_play(&g, "lose army"); /* CHAMPION 20: 20 left */
    cas_test_play(&g, "lose army"); /* GENERAL 40: covered */
    cc_expect_kingdom(&g, 1, "w1=adept20 champion=champion10 arms=arms10 w1.minion=minion20");
    assert_string_equal(cc_discards(&g),
                        "general40 champion10 arms10 arms20 champion20 general40");
    cas_test_game_close(&g);
}

static void war_on_wizards_magick_minion_wizard(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open_with(&g, "castle=castle general=general40 champion=champion10 arms=arms10",
              "w1=adept20 w1.minion=minion20 w2=mage40 w2.minion=minion30 w2.magick=magick10 "
              "arms=arms30", 0);
    cas_test_play(&g, "war wizards"); /* 60 */
    cas_test_play(&g, "lose wizards"); /* MAGICK 10: 50 left */
    cas_test_play(&g, "lose wizards"); /* MINION 30: 20 left */
    cas_test_play(&g, "lose wizards"); /* MAGE 40: covered */
    cc_expect_kingdom(&g, 1, "w1=adept20 arms=arms30 w1.minion=minion20");
    assert_string_equal(cc_discards(&g), "general40 champion10 arms10 magick10 minion30 mage40");
    cas_test_game_close(&g);
}

static void danglers_cover_war_heirs_last_first(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open_with(&g, "castle=castle general=general50 champion=champion30 arms=arms20",
                 "castle=castle wife=wife10 heir=heir10,heir20,heir30 n1=duke50", 0);
    cas_test_play(&g, "war nobles"); /* 100 */
    assert_string_equal(cc_legal(&g), "lose wife\nlose heir\nlose nobles\n");
    cas_test_play(&g, "lose heir"); /* HEIR 30: 70 left */
    cas_test_play(&g, "lose heir"); /* HEIR 20: 50 left */
    cc_expect_kingdom(&g, 1, "castle=castle wife=wife10 heir=heir10 n1=duke50");
    cas_test_play(&g, "lose wife"); /* WIFE 10: 40 left */
    cas_test_play(&g, "lose heir"); /* HEIR 10: 30 left; only the DUKE remains */
    cc_expect_kingdom(&g, 1, "castle=castle");
    assert_string_equal(cc_discards(&g),
                        "general50 champion30 arms20 heir30 heir20 wife10 heir10 duke50");
    cas_test_game_close(&g);
}

/* A victim without a CASTLE: its CHAMPION with no GENERAL above it is a
 * Dangler all the same (decision 14), offered beside the ARMY as a source. */
static void castleless_victim_gives_a_dangling_champion(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open_with(&g, "castle=castle general=general50 champion=champion30 arms=arms20",
                 "n1=duke70 champion=champion20", 0);
    cas_test_play(&g, "war nobles"); /* 100 */
    assert_string_equal(cc_legal(&g), "lose champion\nlose army\nlose nobles\n");
    cas_test_play(&g, "lose champion"); /* CHAMPION 20: 80 left; only the DUKE remains */
    cc_expect_kingdom(&g, 1, "");
    assert_string_equal(cc_discards(&g), "general50 champion30 arms20 champion20 duke70");
    cas_test_game_close(&g);
}

static void shortfall_nothing_covers_is_forgiven(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open_with(&g, "castle=castle general=general60 champion=champion50 arms=arms30",
              "castle=castle n1=baron50", 0);
    cas_test_play(&g, "war nobles"); /* 140 against a lone 50 BARON */
    cc_expect_kingdom(&g, 1, "castle=castle");
    assert_non_null(strstr(g.events, "90 points are forgiven"));
    assert_int_equal(g.vt->current(g.state), 1);
    cas_test_game_close(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(war_needs_castle_and_whole_army),
        cmocka_unit_test(war_on_nobles_outer_column_first),
        cmocka_unit_test(army_defends_in_layers),
        cmocka_unit_test(war_on_wizards_magick_minion_wizard),
        cmocka_unit_test(danglers_cover_war_heirs_last_first),
        cmocka_unit_test(castleless_victim_gives_a_dangling_champion),
        cmocka_unit_test(shortfall_nothing_covers_is_forgiven),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
