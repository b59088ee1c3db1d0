/*
 * test_prng.c — the counter-based PRNG: a pure function of (seed, ply,
 * stream, counter), bounded draws in range and unbiased enough to see,
 * weighted picks that follow the weights and refuse bad ones.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "prng.h"

static void test_same_key_same_numbers(void **unused)
{
    (void)unused;
    struct cas__prng a, b;
    cas__prng_init(&a, 20261129, 17, 2);
    uint64_t first = cas__prng_next(&a), second = cas__prng_next(&a);
    assert_true(first != second);
    cas__prng_init(&b, 20261129, 17, 2);
    assert_int_equal(cas__prng_next(&b), first);
    assert_int_equal(cas__prng_next(&b), second);
}

static void test_each_key_part_matters(void **unused)
{
    (void)unused;
    struct cas__prng r;
    uint64_t base, other;
    cas__prng_init(&r, 1, 1, 1);
    base = cas__prng_next(&r);
    cas__prng_init(&r, 2, 1, 1);
    assert_true((other = cas__prng_next(&r)) != base);
    cas__prng_init(&r, 1, 2, 1);
    assert_true((other = cas__prng_next(&r)) != base);
    cas__prng_init(&r, 1, 1, 2);
    assert_true((other = cas__prng_next(&r)) != base);
    /* ply and stream do not simply trade places */
    cas__prng_init(&r, 1, 2, 3);
    base = cas__prng_next(&r);
    cas__prng_init(&r, 1, 3, 2);
    assert_true(cas__prng_next(&r) != base);
}

/* 60000 draws below 6 land within 5% of 10000 each; below 1 is always 0. */
static void test_below_is_in_range_and_even(void **unused)
{
    (void)unused;
    struct cas__prng r;
    int counts[6] = {0};
    cas__prng_init(&r, 99, 0, 0);
    for (int i = 0; i < 60000; i++) {
        uint64_t x = cas__prng_below(&r, 6);
        assert_true(x < 6);
        counts[x]++;
    }
    for (int i = 0; i < 6; i++)
        assert_true(counts[i] > 9500 && counts[i] < 10500);
    assert_int_equal(cas__prng_below(&r, 1), 0);
    assert_true(cas__prng_below(&r, UINT64_MAX) < UINT64_MAX);
}

/* below() takes the same numbers as the plain rejection it replaced
 * (draw until at least 2^64 mod n, then reduce), so seeded games stay the
 * same: for bounds where a draw below n is rare and where it is half the
 * draws (n just above 2^63, whose threshold is 2^63 - 1). */
static void test_below_draws_as_plain_rejection(void **unused)
{
    (void)unused;
    static const uint64_t bounds[] = {1, 2, 3, 6, 33, 1000003, (1ull << 63) + 1,
                                      (1ull << 63) + 12345, UINT64_MAX - 1, UINT64_MAX};
    for (size_t b = 0; b < sizeof bounds / sizeof bounds[0]; b++) {
        uint64_t n = bounds[b], threshold = (0 - n) % n;
        struct cas__prng r, plain;
        cas__prng_init(&r, 7 + b, 3, 1);
        plain = r;
        for (int i = 0; i < 2000; i++) {
            uint64_t x;
            do
                x = cas__prng_next(&plain);
            while (x < threshold);
            assert_true(cas__prng_below(&r, n) == x % n);
            assert_true(r.counter == plain.counter);
        }
    }
}

static void test_weighted_pick_follows_weights(void **unused)
{
    (void)unused;
    struct cas__prng r;
    const struct cas_outcome outcomes[] = {{10, 1}, {20, 3}, {30, 6}};
    int counts[3] = {0};
    cas__prng_init(&r, 5, 0, 0);
    for (int i = 0; i < 10000; i++) {
        size_t index;
        assert_int_equal(cas__prng_pick_weighted(&r, outcomes, 3, &index), CAS_OK);
        counts[index]++;
    }
    assert_true(counts[0] > 850 && counts[0] < 1150);
    assert_true(counts[1] > 2800 && counts[1] < 3200);
    assert_true(counts[2] > 5800 && counts[2] < 6200);
}

static void test_weighted_pick_refuses_bad_weights(void **unused)
{
    (void)unused;
    struct cas__prng r;
    size_t index = 7;
    const struct cas_outcome zero[] = {{1, 1}, {2, 0}};
    const struct cas_outcome huge[] = {{1, UINT64_MAX}, {2, 1}};
    cas__prng_init(&r, 5, 0, 0);
    assert_int_equal(cas__prng_pick_weighted(&r, zero, 2, &index), CAS_EINVAL);
    assert_int_equal(cas__prng_pick_weighted(&r, huge, 2, &index), CAS_EINVAL);
    assert_int_equal(cas__prng_pick_weighted(&r, zero, 0, &index), CAS_EINVAL);
    assert_int_equal(index, 7);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_key_same_numbers),
        cmocka_unit_test(test_each_key_part_matters),
        cmocka_unit_test(test_below_is_in_range_and_even),
        cmocka_unit_test(test_below_draws_as_plain_rejection),
        cmocka_unit_test(test_weighted_pick_follows_weights),
        cmocka_unit_test(test_weighted_pick_refuses_bad_weights),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
