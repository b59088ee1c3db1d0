/*
 * test_marks_the_castle.c — click to play in The Castle's decision picture
 * (CAS_RENDER_SVG_ACTIONS): random games where at every decision every
 * legal action is reachable by clicks or a button by design (pass, extra
 * turn, end turn); and the first placement's marks exactly.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "svg_check.h"

const struct cas_plugin *cas_plugin_entry(void);

static int is_button(const char *text)
{
    return strcmp(text, "pass") == 0 || strcmp(text, "extra turn") == 0 ||
           strcmp(text, "end turn") == 0;
}

static void test_random_games(void **state)
{
    (void)state;
    for (int game = 0; game < 4; game++) {
        struct cas_test_game g;
        cas_test_game_open(&g, cas_plugin_entry(), 2, NULL, NULL, 0);
        struct marks_tally t = {0};
        svg_marks_walk(&g, 500 + (uint64_t)game, 3000, is_button, &t);
        assert_int_equal(g.vt->current(g.state), CAS_ACTOR_TERMINAL);
        assert_true(t.decisions > 20);
        assert_true(t.reachable + t.buttons == t.actions);
        print_message("game %d: %d decisions, %ld actions, %ld by clicks, %ld buttons\n", game,
                      t.decisions, t.actions, t.reachable, t.buttons);
        cas_test_game_close(&g);
    }
}

/* The first placement: one space element per cell the legal texts name
 * ("place T06 d4 90"), one rotation element per angle they use, and the
 * space's choices exactly the placements on that cell. */
static void test_first_placement(void **state)
{
    (void)state;
    struct cas_test_game g;
    cas_test_game_open(&g, cas_plugin_entry(), 2, NULL, NULL, 0);
    cas_action legal[1024];
    size_t n;
    while (g.vt->current(g.state) == CAS_ACTOR_CHANCE) {
        assert_int_equal(g.vt->legal_actions(g.state, legal, 1024, &n), CAS_OK);
        assert_int_equal(g.vt->apply(g.state, legal[0], NULL), CAS_OK);
    }
    assert_int_equal(g.vt->legal_actions(g.state, legal, 1024, &n), CAS_OK);
    char cells[1024][8], text[64];
    int ncells = 0, angles[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < n; i++) {
        char id[16], cell[8];
        int deg;
        assert_true(g.vt->action_text(g.state, legal[i], text, sizeof text) > 0);
        assert_int_equal(sscanf(text, "place %15s %7s %d", id, cell, &deg), 3);
        int known = 0;
        for (int c = 0; c < ncells; c++)
            known |= strcmp(cells[c], cell) == 0;
        if (!known)
            snprintf(cells[ncells++], sizeof cells[0], "%s", cell);
        angles[deg / 90] = 1;
    }
    struct marks_tally t = {0};
    svg_check_marks(&g, legal, n, is_button, &t);
    assert_int_equal(t.reachable, (long)n);
    xmlDocPtr doc = svg_marks_doc(&g, legal, n);
    assert_int_equal(svg_count(doc, "//s:g[@class='mark space'][@data-cas-step='1']"), ncells);
    assert_int_equal(svg_count(doc, "//s:g[@class='mark rotation'][@data-cas-step='2']"),
                     angles[0] + angles[1] + angles[2] + angles[3]);
    /* for a pointer: no numbers; each space its box, each rotation a ghost */
    assert_int_equal(svg_count(doc, "//s:text[@class='choice'][normalize-space(.)!='']"), 0);
    assert_int_equal(svg_count(doc, "//s:g[@class='mark space'][@data-cas-box]"), ncells);
    assert_int_equal(svg_count(doc, "//s:g[@class='mark rotation']//s:g[@data-cas-ghost]"),
                     angles[0] + angles[1] + angles[2] + angles[3]);
    xmlFreeDoc(doc);
    doc = svg_choices_doc(&g, legal, n); /* the typed picture keeps its numbers */
    assert_true(svg_count(doc, "//s:text[@class='choice'][normalize-space(.)!='']") >= ncells);
    xmlFreeDoc(doc);
    cas_test_game_close(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_games),
        cmocka_unit_test(test_first_placement),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
