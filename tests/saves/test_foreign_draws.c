/*
 * test_foreign_draws.c — cas__foreign_restore_draws, the host's putting back
 * of draws a foreign record leaves out (JCloisterZone writes no tile it
 * discarded), on a small Carcassonne bag: after the record's last action
 * the tiles left are drawn only if that ends the game; mid-record a tile
 * is drawn only where the record's next action is then legal.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "import_foreign.h"
#include "plugin_harness.h"

const struct cas_plugin *cas_plugin_entry(void); /* carcassonne-objects' */

/* A record of the NULL-terminated action texts (chance's when they draw). */
static void record_of(struct cas__saves_game *g, const char *const *texts)
{
    memset(g, 0, sizeof *g);
    while (texts[g->n_actions])
        g->n_actions++;
    g->actions = calloc(g->n_actions, sizeof *g->actions);
    assert_non_null(g->actions);
    for (size_t i = 0; i < g->n_actions; i++) {
        g->actions[i] = (struct cas__saves_action){
            .ply = (uint32_t)i, .text = strdup(texts[i]), .hashless = 1, .line = (int)i + 1,
            .actor = strncmp(texts[i], "draw ", 5) == 0 ? CAS_ACTOR_CHANCE : 0};
        assert_non_null(g->actions[i].text);
    }
}

/* Put back the draws after the record's action played - 1, with the game
 * of `tiles` after its first `played` actions; how many; the game left as
 * the whole (new) record plays it in *over: terminal or not. */
static int restore_after(const char *tiles, struct cas__saves_game *g, size_t played,
                         int *over)
{
    const char *options[] = {tiles, NULL};
    struct cas_test_game t;
    cas_test_game_open(&t, cas_plugin_entry(), 2, options, NULL, 0);
    for (size_t i = 0; i < played; i++)
        cas_test_play(&t, g->actions[i].text);
    int n = cas__foreign_restore_draws(t.vt, t.state, g, played - 1);
    for (size_t i = played; i < played + (size_t)(n > 0 ? n : 0); i++)
        cas_test_play(&t, g->actions[i].text);
    *over = t.vt->current(t.state) == CAS_ACTOR_TERMINAL;
    cas_test_game_close(&t);
    return n;
}

static const char *const e_closes_the_city[] = {"draw E", "place E 0,-1 180", "pass", NULL};

/* The last tile, C, fits nowhere once E closed D's city: drawn after the
 * record's end, it is discarded and the game ends. */
static void test_the_rest_is_drawn_when_it_ends_the_game(void **unused)
{
    (void)unused;
    struct cas__saves_game g;
    int over;
    record_of(&g, e_closes_the_city);
    assert_int_equal(restore_after("tiles=*:0,D:1,E:1,C:1", &g, 3, &over), 1);
    assert_int_equal(g.n_actions, 4);
    assert_string_equal(g.actions[3].text, "draw C");
    assert_int_equal(g.actions[3].actor, CAS_ACTOR_CHANCE);
    assert_int_equal(g.actions[3].ply, 3);
    assert_true(over);
    cas__saves_game_free(&g);
}

/* U fits beside D: the game the record stops in is not over, and nothing
 * is drawn for it. */
static void test_nothing_is_drawn_for_an_unfinished_game(void **unused)
{
    (void)unused;
    struct cas__saves_game g;
    int over;
    record_of(&g, e_closes_the_city);
    assert_int_equal(restore_after("tiles=*:0,D:1,E:1,C:1,U:1", &g, 3, &over), 0);
    assert_int_equal(g.n_actions, 3);
    assert_false(over);
    cas__saves_game_free(&g);
}

/* Mid-record: C, which the record never places, fits nowhere after E, and
 * the record's next draw is legal after it: put back as action 3; U, which
 * fits, is not. */
static void test_a_discard_is_put_back_mid_record(void **unused)
{
    (void)unused;
    static const char *const texts[] = {"draw E", "place E 0,-1 180", "pass", "draw U",
                                        "place U 1,0 0", "pass", NULL};
    struct cas__saves_game g;
    int over;
    record_of(&g, texts);
    assert_int_equal(restore_after("tiles=*:0,D:1,E:1,C:1,U:2", &g, 3, &over), 1);
    assert_int_equal(g.n_actions, 7);
    assert_string_equal(g.actions[3].text, "draw C");
    assert_string_equal(g.actions[4].text, "draw U");
    assert_int_equal(g.actions[6].ply, 6);
    cas__saves_game_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_rest_is_drawn_when_it_ends_the_game),
        cmocka_unit_test(test_nothing_is_drawn_for_an_unfinished_game),
        cmocka_unit_test(test_a_discard_is_put_back_mid_record),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
