/*
 * test_turn.c — the start (high card first, redraw on ties keeping the
 * cards, the CASTLE first, WIFE/HEIR discarded but counted), the turn's
 * one action (top off a stack; Move one card to an adjacent column, only
 * with a CASTLE and never leaving a hole; swap NOBLEs), a turn with
 * nothing to do, and the limits that close the rules' gaps: the deck
 * reshuffled a bounded number of times, and a turn limit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "castles_fixture.h"

static void high_card_goes_first(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open(&g, NULL);
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_CHANCE);
    cas_test_play_record(&g, "draw lands10\ndraw duke70\n");
    assert_int_equal(g.vt->current(g.state), 1);
    cc_expect_kingdom(&g, 0, "n1.lands=lands10");
    cc_expect_kingdom(&g, 1, "n1=duke70");
    cas_test_game_close(&g);
}

static void ties_draw_again_and_castle_goes_first(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open(&g, NULL);
    cas_test_play_record(&g, "draw lands10\ndraw lands10\n"
                             "# tie: both keep their cards and draw again\n"
                             "draw duke80\ndraw castle\n");
    assert_int_equal(g.vt->current(g.state), 1);
    cc_expect_kingdom(&g, 0, "n1=duke80 n1.lands=lands10");
    cc_expect_kingdom(&g, 1, "castle=castle n1.lands=lands10");
    cas_test_game_close(&g);
}

static void wife_and_heir_count_then_go(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open(&g, NULL);
    cas_test_play_record(&g, "draw heir30\ndraw wife40\n");
    assert_int_equal(g.vt->current(g.state), 1);
    cc_expect_kingdom(&g, 0, "");
    cc_expect_kingdom(&g, 1, "");
    assert_string_equal(cc_discards(&g), "heir30 wife40");
    cas_test_game_close(&g);
}

static void top_off_a_stack(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open(&g, NULL);
    cc_layout(&g, 0, "n1.lands=lands10,lands20,lands30");
    cc_start(&g, 0);
    cas_test_play(&g, "topoff n1.lands 3");
    cc_expect_kingdom(&g, 0, "n1.lands=lands20,lands30,lands10");
    cas_test_game_close(&g);
}

static void moves_need_a_castle_and_leave_no_hole(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open(&g, NULL);
    cc_layout(&g, 0, "n1=duke50 n2=count50 n1.lands=lands10,lands20 n1.fruits=fruits10");
    cc_start(&g, 0);
    cc_expect_legal(&g, "move n1.lands n2", 0); /* no CASTLE */
    cas_test_game_close(&g);

    cc_open(&g, NULL);
    cc_layout(&g, 0, "castle=castle n1=duke50 n2=count50 n1.lands=lands10,lands20 "
                     "n1.fruits=fruits10 w1.minion=minion10 general=general40");
    cc_start(&g, 0);
    cc_expect_legal(&g, "move n1.fruits n2", 0); /* would leave a hole behind in n1 */
    cc_expect_legal(&g, "move w1.minion w2", 1);
    cc_expect_legal(&g, "swap n1 n2", 1);
    assert_null(strstr(cc_legal(&g), "general")); /* the ARMY does not move */
    cas_test_play(&g, "move n1.lands n2");
    cc_expect_kingdom(&g, 0, "castle=castle n1=duke50 n2=count50 n1.lands=lands10 "
                             "n2.lands=lands20 n1.fruits=fruits10 general=general40 "
                             "w1.minion=minion10");
    cas_test_game_close(&g);

    /* the last LANDS of n1 may not leave: FRUITS would hang under a hole */
    cc_open(&g, NULL);
    cc_layout(&g, 0, "castle=castle n1=duke50 n2=count50 n1.lands=lands10 n1.fruits=fruits10");
    cc_start(&g, 0);
    cc_expect_legal(&g, "move n1.lands n2", 0);
    cc_expect_legal(&g, "move n1.fruits n2", 0); /* FRUITS beside an empty cell: a hole */
    cas_test_game_close(&g);
}

/* A Move may not make a hole where the card lands either (decision 16):
 * FRUITS under a NOBLE with no LANDS would hang under an empty cell. */
static void moves_make_no_hole_where_they_land(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open(&g, NULL);
    cc_layout(&g, 0, "castle=castle n1=duke50 n2=count50 n1.lands=lands10,lands20 "
                     "n1.fruits=fruits10,fruits20");
    cc_start(&g, 0);
    cc_expect_legal(&g, "move n1.fruits n2", 0);
    cas_test_play(&g, "move n1.lands n2");
    cc_draw(&g, "serfs10"); /* Blue's turn */
    cc_expect_legal(&g, "move n1.fruits n2", 1); /* now under n2's LANDS */
    cas_test_play(&g, "move n1.fruits n2");
    cc_expect_kingdom(&g, 0, "castle=castle n1=duke50 n2=count50 n1.lands=lands10 "
                             "n2.lands=lands20 n1.fruits=fruits10 n2.fruits=fruits20");
    cas_test_game_close(&g);
}

static void nothing_to_do_passes(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open(&g, NULL);
    cc_layout(&g, 0, "w1=magician20");
    cc_start(&g, 0);
    cc_draw(&g, "heir10");
    cas_test_play(&g, "magician w1");
    assert_string_equal(cc_legal(&g), "pass\n");
    cas_test_play(&g, "pass");
    assert_int_equal(g.vt->current(g.state), 0);
    cas_test_game_close(&g);
}

static void spent_deck_ends_the_game(void **unused)
{
    (void)unused;
    char path[1024], deck_opt[1100];
    cc_write_file("castles-small.cards", "provisional no\ncard DUKE 50 1\ncard COUNT 60 1\n"
               "card LANDS 10 2\ncard WIFE 10 2\n", path, sizeof path);
    snprintf(deck_opt, sizeof deck_opt, "deck=%s", path);
    const char *options[] = {deck_opt, "max-reshuffles=1", NULL};
    struct cas_test_game g;
    cc_open(&g, options);
    cas_test_play_record(&g, "draw count60\ndraw duke50\n"
                             "draw\ndraw wife10\n"   /* Red: no CASTLE, discarded */
                             "draw\ndraw wife10\n"   /* Blue: discarded */
                             "draw\ndraw lands10\n"
                             "draw\ndraw lands10\n"
                             "# the pile is empty: the discard pile becomes the pile once\n"
                             "draw\ndraw wife10\n"
                             "draw\ndraw wife10\n"
                             "# empty again, no reshuffle left: the game stops at this draw\n"
                             "draw\n");
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_TERMINAL);
    assert_int_equal(cc_state(&g)->end_reason, END_DECK);
    /* Blue's DUKE stands where a complete Kingdom needs it; Red's COUNT does not */
    int64_t scores[2] = {1, 100};
    cas_test_expect_scores(&g, scores);
    cas_test_game_close(&g);
    remove(path);
}

/* The deck runs out between the two draws of a WIZARD sacrifice: the card
 * already drawn goes to the discard pile, nothing vanishes. */
static void deck_spent_mid_sacrifice(void **unused)
{
    (void)unused;
    const char *options[] = {"max-reshuffles=0", NULL};
    struct cas_test_game g;
    cc_open(&g, options);
    cc_layout(&g, 0, "w1=mage20");
    cc_start(&g, 0);
    cas_state *s = cc_state(&g);
    for (int k = 0; k < s->game->deck.nkinds; k++) /* all but one card to the discard */
        while (s->pile[k] && s->npile > 1 &&
               (strcmp(s->game->deck.kind[k].name, "duke70") || s->pile[k] > 1)) {
            s->pile[k]--;
            s->npile--;
            discard_card(s, (uint8_t)k);
        }
    assert_int_equal(s->npile, 1);
    cas_test_play(&g, "sacrifice w1");
    cas_test_play(&g, "draw duke70");
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_TERMINAL);
    assert_int_equal(s->end_reason, END_DECK);
    assert_string_equal(s->game->deck.kind[s->discard[s->ndiscard - 1]].name, "duke70");
    cc_expect_kingdom(&g, 0, ""); /* also checks conservation and the round trip */
    cas_test_game_close(&g);
}

static void turn_limit_ends_the_game(void **unused)
{
    (void)unused;
    const char *options[] = {"max-turns=10", NULL};
    struct cas_test_game g;
    cc_open(&g, options);
    cc_layout(&g, 1, "castle=castle");
    cc_start(&g, 0);
    for (int turn = 0; turn < 10; turn++) {
        assert_int_not_equal(g.vt->current(g.state), CAS_ACTOR_TERMINAL);
        static const char *const heirs[] = {"heir10", "heir20", "heir30"};
        cc_draw(&g, heirs[turn % 3]); /* no WIFE: discarded */
    }
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_TERMINAL);
    assert_int_equal(cc_state(&g)->end_reason, END_TURNS);
    int64_t scores[2] = {0, 100}; /* Blue's CASTLE is the only progress */
    cas_test_expect_scores(&g, scores);
    assert_non_null(strstr(g.events, "Blue wins: Blue leads when the turn limit is reached"));
    cas_test_game_close(&g);
}

/* Both Kingdoms laid out, then ten turns of the same HEIR draws each (the
 * fourth HEIR is discarded) up to the turn limit of 10. */
static void play_level_to_turn_limit(struct cas_test_game *g, const char *red, const char *blue)
{
    static const char *const draws[] = {"heir10", "heir10", "heir20", "heir20", "heir30",
                                        "heir30", "heir10", "heir10", "heir20", "heir20"};
    const char *options[] = {"max-turns=10", NULL};
    cc_open(g, options);
    cc_layout(g, 0, red);
    cc_layout(g, 1, blue);
    cc_start(g, 0);
    for (int turn = 0; turn < 10; turn++)
        cc_draw(g, draws[turn]);
    assert_int_equal(g->vt->current(g->state), CAS_ACTOR_TERMINAL);
    assert_int_equal(cc_state(g)->end_reason, END_TURNS);
}

static void turn_limit_level_progress_more_points_win(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    play_level_to_turn_limit(&g, "castle=castle wife=wife40", "castle=castle wife=wife10");
    cc_expect_kingdom(&g, 0, "castle=castle wife=wife40 heir=heir10,heir20,heir30");
    int64_t scores[2] = {100, 3}; /* progress 3 each; Red's WIFE is worth 30 more */
    cas_test_expect_scores(&g, scores);
    assert_non_null(strstr(g.events, "Red wins: Red leads when the turn limit is reached"));
    cas_test_game_close(&g);
}

static void turn_limit_fully_level_is_a_draw(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    play_level_to_turn_limit(&g, "castle=castle wife=wife20", "castle=castle wife=wife20");
    cc_expect_kingdom(&g, 1, "castle=castle wife=wife20 heir=heir10,heir20,heir30");
    int64_t scores[2] = {3, 3};
    cas_test_expect_scores(&g, scores);
    assert_int_equal(cc_state(&g)->winner, -1);
    assert_non_null(strstr(g.events, "Draw: the game stops with both Kingdoms level"));
    cas_test_game_close(&g);
}

static void unknown_and_illegal_texts(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open(&g, NULL);
    assert_int_equal(cas_test_try_play(&g, "fly away"), CAS_EPARSE);
    assert_string_equal(g.error, "\"fly away\" is not a Castles action; examples: draw, "
                                 "move n1.lands n2, block champion, no block, lose army");
    assert_int_equal(cas_test_try_play(&g, "draw duke99"), CAS_EPARSE);
    assert_non_null(strstr(g.error, "\"draw duke99\" is not a Castles action"));
    assert_int_equal(cas_test_try_play(&g, "   "), CAS_EPARSE);
    assert_non_null(strstr(g.error, "\"   \" is not a Castles action"));
    assert_int_equal(cas_test_try_play(&g, "no block"), CAS_EILLEGAL);
    assert_string_equal(g.error, "\"no block\" is not legal now");
    char long_text[200];
    memset(long_text, 'x', sizeof long_text - 1);
    long_text[sizeof long_text - 1] = '\0';
    assert_int_equal(cas_test_try_play(&g, long_text), CAS_EPARSE);
    assert_string_equal(g.error, "action text too long: \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...\"");
    /* none of it changed the game: the opening chance draw is still to come */
    cc_expect_legal(&g, "draw duke70", 1);
    cas_test_game_close(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(high_card_goes_first),
        cmocka_unit_test(ties_draw_again_and_castle_goes_first),
        cmocka_unit_test(wife_and_heir_count_then_go),
        cmocka_unit_test(top_off_a_stack),
        cmocka_unit_test(moves_need_a_castle_and_leave_no_hole),
        cmocka_unit_test(moves_make_no_hole_where_they_land),
        cmocka_unit_test(nothing_to_do_passes),
        cmocka_unit_test(spent_deck_ends_the_game),
        cmocka_unit_test(deck_spent_mid_sacrifice),
        cmocka_unit_test(turn_limit_ends_the_game),
        cmocka_unit_test(turn_limit_level_progress_more_points_win),
        cmocka_unit_test(turn_limit_fully_level_is_a_draw),
        cmocka_unit_test(unknown_and_illegal_texts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
