/*
 * test_alloc_failures.c — a failed allocation anywhere in a game, as
 * SQLite's malloc tests do it: castellan-faults fails the N-th allocation
 * (CASTELLAN_FAULT=alloc:N) for a sweep of N over a whole fixture bot game.
 * Every run must end by itself (no signal, no sanitizer report, so no leak
 * in the ASan build), finish the game or exit 1 saying "out of memory",
 * and leave a store that passes integrity_check and from which `castellan
 * resume` finishes exactly the uninterrupted game.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_run.h"

/* Runs in the sweep: every allocation of the first ones (start-up), then
 * evenly spread over the rest of the game. */
#define FIRST_ALLOCATIONS 40
#define SPREAD_RUNS 60

static char *const bot_game[] = {"play", "--game", "fixture", "--players",
                                 "Ada:random,Bob:greedy", "--seed", "7", "--rule",
                                 "cards=12", NULL};

static const char *store_path(void **state, char *buf, size_t cap)
{
    return cas_test_dir_file(*state, "castellan/saves.db", buf, cap);
}

static void remove_store(void **state)
{
    static const char *const sides[] = {"", "-wal", "-shm"};
    char db[512], path[600];
    store_path(state, db, sizeof db);
    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s%s", db, sides[i]);
        unlink(path);
    }
}

/* The one game in the store, or 0 when there is none. */
static int load_only_game(void **state, struct cas__saves_game *g)
{
    char db[512];
    if (access(store_path(state, db, sizeof db), F_OK) != 0)
        return 0;
    struct cas__saves *s = cas_test_open(db);
    int64_t *ids;
    size_t n;
    assert_int_equal(cas__saves_integrity_check(s), CAS_OK);
    assert_int_equal(cas__saves_game_ids(s, NULL, &ids, &n), CAS_OK);
    assert_true(n <= 1);
    if (n == 1)
        assert_int_equal(cas__saves_game_load(s, ids[0], 1, g), CAS_OK);
    free(ids);
    cas__saves_close(s);
    return n == 1;
}

/* One run with allocation n failing, then its store finished and checked. */
static void fail_allocation(void **state, unsigned long n,
                            const struct cas__saves_game *expected, int *failed)
{
    char fault[32];
    struct cas_test_result r;
    snprintf(fault, sizeof fault, "alloc:%lu", n);
    struct cas_test_how how = {.faults = 1, .fault = fault};
    remove_store(state);
    cas_test_run(*state, &how, bot_game, &r);
    if (r.signal || strstr(r.err, "Sanitizer"))
        fail_msg("%s: signal %d\n%s", fault, r.signal, r.err);
    if (r.status != 0) {
        assert_int_equal(r.status, 1);
        if (!strstr(r.err, "out of memory"))
            fail_msg("%s: exit 1 without saying so:\n%s", fault, r.err);
        ++*failed;
    }
    struct cas__saves_game g = {0};
    if (!load_only_game(state, &g))
        return; /* it stopped before the game was saved */
    if (g.status != CAS__SAVES_FINISHED) {
        char id[32];
        snprintf(id, sizeof id, "%lld", (long long)g.id);
        char *resume[] = {"resume", id, NULL};
        cas__saves_game_free(&g);
        cas_test_run(*state, NULL, resume, &r);
        if (r.status != 0)
            fail_msg("%s: resume failed:\n%s", fault, r.err);
        assert_true(load_only_game(state, &g));
    }
    g.id = expected->id;
    free(g.created_at);
    free(g.updated_at);
    g.created_at = g.updated_at = NULL;
    cas_test_assert_same_game(expected, &g);
    cas__saves_game_free(&g);
}

static void test_every_failed_allocation_is_survived(void **state)
{
    struct cas_test_result r;
    struct cas_test_how count = {.faults = 1, .fault = "alloc:0"};
    struct cas__saves_game expected = {0};
    unsigned long total = 0;
    cas_test_run(*state, &count, bot_game, &r);
    assert_int_equal(r.status, 0);
    const char *said = strstr(r.err, "castellan-faults: ");
    assert_non_null(said);
    assert_int_equal(sscanf(said, "castellan-faults: %lu allocations", &total), 1);
    assert_true(total > FIRST_ALLOCATIONS + SPREAD_RUNS);
    assert_true(load_only_game(state, &expected));
    free(expected.created_at);
    free(expected.updated_at);
    expected.created_at = expected.updated_at = NULL;

    int failed = 0, runs = 0;
    for (unsigned long n = 1; n <= FIRST_ALLOCATIONS; n++, runs++)
        fail_allocation(state, n, &expected, &failed);
    for (int i = 0; i < SPREAD_RUNS; i++, runs++)
        fail_allocation(state, FIRST_ALLOCATIONS + 1 +
                        (total - FIRST_ALLOCATIONS - 1) * (unsigned long)i / SPREAD_RUNS,
                        &expected, &failed);
    print_message("%lu allocations in the game; %d runs with one failing, %d of them "
                  "stopped with \"out of memory\"\n", total, runs, failed);
    assert_true(failed > 0);
    cas__saves_game_free(&expected);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        CAS_TEST_IN_DIR(test_every_failed_allocation_is_survived),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
