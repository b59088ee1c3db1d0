/*
 * test_plugin.c — %%ID%%'s tests: castellan's conformance check of
 * %%GAME%% with this expansion over many random games, and a game between
 * bots with it.  For scenario tests with exact scores, drive the game
 * through castellan's record format: `castellan import` a hand-written
 * game record (docs/saves.md) and compare the scores it prints.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#define RUN(args) system("'" CASTELLAN "' " args " --plugin-path '" PLUGIN_PATH "'")

/* In the default mode: this expansion's folder is not castellan's, so the
 * game with it is loaded and played in a confined worker, as a user who
 * installs it will run it (docs/isolation.md). */
static void test_conformance(void **unused)
{
    (void)unused;
    assert_int_equal(RUN("check %%GAME%% --expansions %%ID%% --games 50"), 0);
}

static void test_bots_play_a_game(void **unused)
{
    (void)unused;
    assert_int_equal(RUN("play --game %%GAME%% --expansions %%ID%% --players greedy,random "
                         "--seed 1 --no-save >/dev/null"), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conformance),
        cmocka_unit_test(test_bots_play_a_game),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
