/*
 * test_marks_castles.c — click to play in the Castles card game's decision
 * picture (CAS_RENDER_SVG_ACTIONS): random games where at every decision
 * every legal action is reachable by clicks or a button by design (pass,
 * let go, no block, accept), and the marks of a known turn exactly.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "castles_fixture.h"
#include "svg_check.h"

static int is_button(const char *text)
{
    return strcmp(text, "pass") == 0 || strcmp(text, "let go") == 0 ||
           strcmp(text, "no block") == 0 || strcmp(text, "accept") == 0;
}

static void test_random_games(void **state)
{
    (void)state;
    for (int game = 0; game < 4; game++) {
        struct cas_test_game g;
        cc_open(&g, NULL);
        struct marks_tally t = {0};
        svg_marks_walk(&g, 400 + (uint64_t)game, 3000, is_button, &t);
        assert_true(t.decisions > 20);
        assert_true(t.reachable + t.buttons == t.actions);
        print_message("game %d: %d decisions, %ld actions, %ld by clicks, %ld buttons\n", game,
                      t.decisions, t.actions, t.reachable, t.buttons);
        cas_test_game_close(&g);
    }
}

/* Red's turn with three LANDS in n1 and no CASTLE: draw, or top off n1's
 * LANDS 2 or 3 deep.  The draw pile names the draw; n1.lands names both
 * top-offs, and a chip for each depth tells them apart. */
static void test_top_off_turn(void **state)
{
    (void)state;
    struct cas_test_game g;
    cc_open(&g, NULL);
    cc_layout(&g, 0, "n1.lands=lands10,lands20,lands30");
    cc_start(&g, 0);
    assert_string_equal(cc_legal(&g), "draw\ntopoff n1.lands 2\ntopoff n1.lands 3\n");
    cas_action legal[8];
    size_t n;
    assert_int_equal(g.vt->legal_actions(g.state, legal, 8, &n), CAS_OK);
    struct marks_tally t = {0};
    svg_check_marks(&g, legal, n, is_button, &t);
    assert_int_equal(t.reachable, 3);
    xmlDocPtr doc = svg_marks_doc(&g, legal, n);
    assert_int_equal(svg_count(doc, "//s:g[@class='mark card-place'][@data-cas-step='1']"), 2);
    assert_int_equal(svg_count(doc, "//s:g[@class='mark card-place'][@data-cas-choices='0']"), 1);
    assert_int_equal(svg_count(doc, "//s:g[@class='mark card-place'][@data-cas-choices='1 2']"), 1);
    assert_int_equal(svg_count(doc, "//s:g[@class='mark chip'][@data-cas-step='2']"), 2);
    char *chip = svg_string(doc, "//s:g[@data-cas-choices='2']/s:text[1]");
    assert_string_equal(chip, "top off 3");
    xmlFree(chip);
    /* for a pointer: no typed numbers on the cards or chips */
    assert_int_equal(svg_count(doc, "//s:text[contains(@class,'choice') or "
                                    "contains(@class,'numbers')][normalize-space(.)!='']"),
                     0);
    xmlFreeDoc(doc);
    cas_test_game_close(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_games),
        cmocka_unit_test(test_top_off_turn),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
