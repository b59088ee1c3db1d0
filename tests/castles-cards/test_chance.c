/*
 * test_chance.c — chance without a listing (chance_total, chance_pick,
 * plugin ABI 1.1) in castles-cards: at every draw of random games the
 * total is the draw pile's size and each kind left gets exactly its
 * copies in tickets, in the listed order, so the host draws the card the
 * listing would give; a deserialized twin picks the same; outside a draw
 * there is nothing to pick.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "castles_fixture.h"

static void every_draw_of_random_games(void **unused)
{
    (void)unused;
    int draws = 0;
    for (uint64_t game = 0; game < 3; game++) {
        struct cas_test_game g;
        cc_open(&g, NULL);
        for (uint64_t step = game; g.vt->current(g.state) != CAS_ACTOR_TERMINAL; step++) {
            static cas_action legal[4096];
            size_t n = 0;
            if (g.vt->current(g.state) != CAS_ACTOR_CHANCE) {
                cas_action none;
                assert_int_equal(g.vt->chance_total(g.state), 0);
                assert_int_equal(g.vt->chance_pick(g.state, 0, &none), CAS_EINVAL);
                assert_int_equal(g.vt->legal_actions(g.state, legal, 4096, &n), CAS_OK);
                assert_int_equal(g.vt->apply(g.state, legal[(step * 31) % n], NULL), CAS_OK);
                continue;
            }
            assert_int_equal(g.vt->chance_total(g.state), cc_state(&g)->npile);
            cas_test_draw_by_ticket(&g, step * 7919);
            draws++;
        }
        cas_test_game_close(&g);
    }
    assert_true(draws > 100);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_draw_of_random_games),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
