/*
 * test_marks_the_castle.c — click to play in The Castle's decision picture
 * (CAS_RENDER_SVG_ACTIONS): random games where at every decision every
 * legal action is reachable by clicks or a button by design (pass, extra
 * turn, end turn).
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_games),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
