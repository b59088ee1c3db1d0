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

/* Every ticket of a draw against the listed outcomes. */
static void expect_tickets_follow_listing(struct cas_test_game *g, const cas_state *s)
{
    struct cas_outcome outcomes[128];
    size_t n = 0;
    assert_int_equal(g->vt->chance_outcomes(s, outcomes, 128, &n), CAS_OK);
    uint64_t ticket = 0;
    for (size_t i = 0; i < n; i++)
        for (uint64_t w = 0; w < outcomes[i].weight; w++, ticket++) {
            cas_action got = 0;
            assert_int_equal(g->vt->chance_pick(s, ticket, &got), CAS_OK);
            assert_int_equal(got, outcomes[i].action);
        }
    assert_int_equal(g->vt->chance_total(s), ticket);
    cas_action none;
    assert_int_equal(g->vt->chance_pick(s, ticket, &none), CAS_EINVAL);
}

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
        expect_tickets_follow_listing(&g, g.state);
        cas_state *twin = cas_test_restored_twin(&g);
        expect_tickets_follow_listing(&g, twin);
        g.vt->state_free(twin);
        cas_action draw;
        uint64_t total = g.vt->chance_total(g.state);
        assert_int_equal(g.vt->chance_pick(g.state, (turn * 7919) % total, &draw), CAS_OK);
        assert_int_equal(g.vt->apply(g.state, draw, NULL), CAS_OK);
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
