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

const struct cas_plugin *cas_plugin_entry(void);

static void test_games_match(void **unused)
{
    (void)unused;
    char data[1024];
    const char *source = getenv("CASTELLAN_SOURCE_DIR");
    assert_non_null(source);
    snprintf(data, sizeof data, "%s/plugins/carcassonne/data", source);
    for (uint64_t seed = 1; seed <= 2; seed++)
        worker_games_compare(cas_plugin_entry(), data, "greedy", "random", seed);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_games_match),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
