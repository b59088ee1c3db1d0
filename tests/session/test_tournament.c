/*
 * test_tournament.c — the tournament's statistics: the Wilson interval
 * against worked values, and a seeded fixture tournament that counts every
 * game once, alternates seats and repeats exactly.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "match_support.h"
#include "tournament.h"

const struct cas_plugin *cas_plugin_entry(void);

static void test_wilson_interval(void **unused)
{
    (void)unused;
    double low, high;
    /* 50 of 100: centre 0.5, half-width 1.96/(1 + z²/n) sqrt(pq/n + z²/4n²) */
    cas__wilson(0.5, 100, 1.96, &low, &high);
    assert_float_equal(low, 0.40383, 1e-5);
    assert_float_equal(high, 0.59617, 1e-5);
    /* 9 of 10: the interval is not symmetric about 0.9 */
    cas__wilson(0.9, 10, 1.96, &low, &high);
    assert_float_equal(low, 0.59585, 1e-5);
    assert_float_equal(high, 0.98212, 1e-5);
    /* 0 of 20 and 20 of 20 stay within [0, 1] */
    cas__wilson(0.0, 20, 1.96, &low, &high);
    assert_float_equal(low, 0.0, 1e-12);
    assert_float_equal(high, 0.16113, 1e-5);
    cas__wilson(1.0, 20, 1.96, &low, &high);
    assert_float_equal(low, 0.83887, 1e-5);
    assert_float_equal(high, 1.0, 1e-12);
}

static int progress_calls;

static void count_progress(void *ctx, const struct cas__tournament_result *r, int total)
{
    (void)ctx;
    assert_int_equal(r->games, ++progress_calls);
    assert_int_equal(total, 12);
}

static void test_fixture_tournament(void **unused)
{
    (void)unused;
    struct cas__match m;
    char err[512];
    cas_test_match_open(&m, cas_plugin_entry(), 2, NULL);
    struct cas__tournament t = {.match = &m, .agent_a = "greedy", .agent_b = "random",
                                .games = 12, .seed = 40, .progress = count_progress};
    struct cas__tournament_result first, again;
    assert_int_equal(cas__tournament_run(&t, &first, err, sizeof err), CAS_OK);
    assert_int_equal(progress_calls, 12);
    assert_int_equal(first.games, 12);
    assert_int_equal(first.wins + first.draws + first.losses, 12);
    assert_float_equal(first.diff_sum, first.a_sum - first.b_sum, 1e-9);
    assert_true(first.a_decisions > 0);
    t.progress = NULL;
    assert_int_equal(cas__tournament_run(&t, &again, err, sizeof err), CAS_OK);
    assert_int_equal(again.wins, first.wins);
    assert_int_equal(again.draws, first.draws);
    assert_float_equal(again.diff_sum, first.diff_sum, 1e-9);
    assert_float_equal(cas__tournament_rate(&first),
                       (first.wins + 0.5 * first.draws) / 12.0, 1e-12);
    cas__match_close(&m);
}

static void test_three_players_refused(void **unused)
{
    (void)unused;
    struct cas__match m;
    char err[512];
    struct cas__tournament_result r;
    cas_test_match_open(&m, cas_plugin_entry(), 3, NULL);
    struct cas__tournament t = {.match = &m, .agent_a = "greedy", .agent_b = "random",
                                .games = 2, .seed = 1};
    assert_int_equal(cas__tournament_run(&t, &r, err, sizeof err), CAS_EINVAL);
    assert_string_equal(err, "a tournament is for 2 players, not 3");
    cas__match_close(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wilson_interval),
        cmocka_unit_test(test_fixture_tournament),
        cmocka_unit_test(test_three_players_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
