/*
 * test_floor.c — the bare placement loop of `castellan bench --floor`
 * (bench_floor, plugin ABI 1.1): it plays the game's own tile pool, takes
 * one random number per draw and one per placement, sets a tile that fits
 * nowhere aside, and repeats itself for the same random numbers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "plugin_harness.h"

const struct cas_plugin *cas_plugin_entry(void);

/* below() for the floor: a fixed 64-bit LCG, or always 0 with zero_only. */
struct numbers {
    uint64_t x;
    int zero_only;
};

static uint64_t below(void *ctx, uint64_t n)
{
    struct numbers *r = ctx;
    r->x = r->x * 6364136223846793005ull + 1442695040888963407ull;
    return r->zero_only ? 0 : (r->x >> 33) % n;
}

/* games of the floor of a game opened with `options`. */
static struct cas_floor_run run_floor(const char *const *options, int games, int zero_only)
{
    struct cas_test_game g;
    struct numbers r = {.x = 7, .zero_only = zero_only};
    struct cas_rng rng = {.struct_size = sizeof rng, .ctx = &r, .below = below};
    struct cas_floor_run run = {.struct_size = sizeof run, .games = games, .rng = &rng};
    cas_test_game_open(&g, cas_plugin_entry(), 2, options, NULL, 0);
    assert_non_null(g.vt->bench_floor);
    assert_int_equal(g.vt->bench_floor(g.game, &run), CAS_OK);
    cas_test_game_close(&g);
    return run;
}

/* Two more copies of the start tile: two draws, two placements a game. */
static void test_every_tile_placed(void **unused)
{
    (void)unused;
    const char *opts[] = {"tiles=*:0,D:3", NULL};
    struct cas_floor_run a = run_floor(opts, 5, 1), b = run_floor(opts, 5, 1);
    assert_int_equal(a.steps, 5 * 4);
    assert_int_equal(a.checksum, b.checksum);
}

/* The base pool: 71 draws a game and a placement for most; the same
 * numbers give the same games. */
static void test_base_pool_repeats(void **unused)
{
    (void)unused;
    struct cas_floor_run a = run_floor(NULL, 20, 0), b = run_floor(NULL, 20, 0);
    assert_true(a.steps > 20 * (71 + 60) && a.steps <= 20 * 2 * 71);
    assert_int_equal(a.steps, b.steps);
    assert_int_equal(a.checksum, b.checksum);
}

/* A pool in which cities run out of room: some draws place nothing. */
static void test_misfits_set_aside(void **unused)
{
    (void)unused;
    const char *opts[] = {"tiles=*:0,D:1,C:6,E:3,B:2", NULL};
    struct cas_floor_run run = run_floor(opts, 40, 0);
    assert_true(run.steps >= 40 * 11 && run.steps < 40 * 2 * 11);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_tile_placed),
        cmocka_unit_test(test_base_pool_repeats),
        cmocka_unit_test(test_misfits_set_aside),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
