/*
 * test_chance.c — chance without a listing (chance_total, chance_pick,
 * plugin ABI 1.1): at every draw the total is the bag's size, each kind
 * left gets exactly its copies in tickets, in the listed order, so the host
 * draws the outcome the listing would give; a deserialized twin picks the
 * same; outside a draw there is nothing to pick.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "plugin_harness.h"

const struct cas_plugin *cas_plugin_entry(void);

/* Draw ticket `ticket` of the current draw and play the first placement
 * and pass, through a whole game. */
static void test_every_draw_of_a_game(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cas_test_game_open(&g, cas_plugin_entry(), 2, NULL, NULL, 0);
    for (uint64_t turn = 0; g.vt->current(g.state) != CAS_ACTOR_TERMINAL; turn++) {
        if (g.vt->current(g.state) != CAS_ACTOR_CHANCE) {
            cas_action legal[512];
            size_t n = 0;
            assert_int_equal(g.vt->chance_total(g.state), 0);
            assert_int_equal(g.vt->legal_actions(g.state, legal, 512, &n), CAS_OK);
            assert_int_equal(g.vt->apply(g.state, legal[turn % n], NULL), CAS_OK);
            continue;
        }
        cas_test_draw_by_ticket(&g, turn * 7919);
    }
    cas_test_game_close(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_draw_of_a_game),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
