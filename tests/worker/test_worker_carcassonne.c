/*
 * test_worker_carcassonne.c — Carcassonne (its full vtable: chance by
 * ticket, projected returns, pictures of choices) in a worker process:
 * whole games between the greedy bot, whose lookahead clones and applies
 * every legal action, and a random one journal the same actions and
 * hashes, end with the same scores and print the same transcript as in
 * process.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "worker_games.h"


static void test_games_match(void **unused)
{
    (void)unused;
    const char *data;
    const struct cas_plugin *carcassonne = worker_games_plugin("carcassonne", &data);
    for (uint64_t seed = 1; seed <= 2; seed++)
        worker_games_compare(carcassonne, data, "greedy", "random", seed);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_games_match),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
