/*
 * test_ratings.c — the Weng-Lin update (host/tools/ratings.c): its
 * invariants on small games worked by hand, ties, places from scores, and
 * the inputs it refuses.  The comparison with the reference implementation
 * over thousands of random games is test_ratings_reference.c.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "ratings.h"

static struct cas__rating_model model(void)
{
    struct cas__rating_model m;
    cas__rating_model_default(&m);
    return m;
}

/* Two new players, one win: the paper's two-player case in closed form.
 * With tau, each variance is s2 = (25/3)^2 + (25/300)^2, c^2 = 2 s2 + 2
 * beta^2; the winner's strength share is 1/2, so mu moves by s2/c * 1/2 and
 * the variance shrinks by gamma * s2/c^2 * 1/4 with gamma = sqrt(s2)/c. */
static void one_win_between_new_players(void **unused)
{
    (void)unused;
    struct cas__rating_model m = model();
    struct cas__rating r[2] = {cas__rating_new(&m), cas__rating_new(&m)};
    int place[2] = {0, 1};
    assert_int_equal(cas__rating_update(&m, r, place, 2), 0);

    double s2 = m.sigma * m.sigma + m.tau * m.tau;
    double c2 = 2 * s2 + 2 * m.beta * m.beta, c = sqrt(c2);
    double moved = s2 / c * 0.5;
    double sigma = sqrt(s2) * sqrt(1 - sqrt(s2) / c * s2 / c2 * 0.25);
    assert_true(fabs(r[0].mu - (25 + moved)) < 1e-12);
    assert_true(fabs(r[1].mu - (25 - moved)) < 1e-12);
    assert_true(fabs(r[0].sigma - sigma) < 1e-12);
    assert_true(fabs(r[1].sigma - sigma) < 1e-12);
}

/* A tie between equals moves no mean; only the uncertainty shrinks. */
static void a_tie_between_equals_moves_no_mean(void **unused)
{
    (void)unused;
    struct cas__rating_model m = model();
    struct cas__rating r[3] = {cas__rating_new(&m), cas__rating_new(&m), cas__rating_new(&m)};
    int place[3] = {0, 0, 0};
    assert_int_equal(cas__rating_update(&m, r, place, 3), 0);
    for (int i = 0; i < 3; i++) {
        assert_true(fabs(r[i].mu - 25) < 1e-12);
        assert_true(r[i].sigma < m.sigma);
    }
}

/* Four players in order: the means fall with the place, and the total
 * skill moves by no more than rounding (what one gains others lose, for
 * equal variances). */
static void places_order_the_means(void **unused)
{
    (void)unused;
    struct cas__rating_model m = model();
    struct cas__rating r[4];
    for (int i = 0; i < 4; i++)
        r[i] = cas__rating_new(&m);
    int place[4] = {2, 0, 3, 1};
    assert_int_equal(cas__rating_update(&m, r, place, 4), 0);
    assert_true(r[1].mu > r[3].mu);
    assert_true(r[3].mu > r[0].mu);
    assert_true(r[0].mu > r[2].mu);
    assert_true(fabs(r[0].mu + r[1].mu + r[2].mu + r[3].mu - 100) < 1e-9);
}

/* An upset moves more than the expected result does. */
static void an_upset_moves_more(void **unused)
{
    (void)unused;
    struct cas__rating_model m = model();
    struct cas__rating strong = {35, 3}, weak = {20, 3};
    struct cas__rating expected[2] = {strong, weak}, upset[2] = {strong, weak};
    int strong_wins[2] = {0, 1}, weak_wins[2] = {1, 0};
    assert_int_equal(cas__rating_update(&m, expected, strong_wins, 2), 0);
    assert_int_equal(cas__rating_update(&m, upset, weak_wins, 2), 0);
    assert_true(upset[1].mu - weak.mu > expected[0].mu - strong.mu);
}

static void the_shown_rating_starts_at_zero(void **unused)
{
    (void)unused;
    struct cas__rating_model m = model();
    assert_true(fabs(cas__rating_shown(&m, cas__rating_new(&m))) < 1e-12);
}

static void places_come_from_scores_with_ties(void **unused)
{
    (void)unused;
    long long scores[5] = {40, 72, 40, 15, 72};
    int place[5];
    cas__rating_places(scores, place, 5);
    assert_int_equal(place[0], 2);
    assert_int_equal(place[1], 0);
    assert_int_equal(place[2], 2);
    assert_int_equal(place[3], 4);
    assert_int_equal(place[4], 0);
}

static void bad_input_is_refused_and_changes_nothing(void **unused)
{
    (void)unused;
    struct cas__rating_model m = model();
    struct cas__rating r[2] = {{25, 8}, {25, -1}};
    int place[2] = {0, 1};
    assert_int_equal(cas__rating_update(&m, r, place, 2), -1);
    assert_true(r[0].mu == 25 && r[0].sigma == 8 && r[1].sigma == -1);
    r[1].sigma = NAN;
    assert_int_equal(cas__rating_update(&m, r, place, 2), -1);
    r[1].sigma = 8;
    assert_int_equal(cas__rating_update(&m, r, place, 1), -1);
    assert_int_equal(cas__rating_update(&m, r, place, CAS__RATING_MAX_PLAYERS + 1), -1);
    assert_true(r[0].mu == 25 && r[1].mu == 25);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_win_between_new_players),
        cmocka_unit_test(a_tie_between_equals_moves_no_mean),
        cmocka_unit_test(places_order_the_means),
        cmocka_unit_test(an_upset_moves_more),
        cmocka_unit_test(the_shown_rating_starts_at_zero),
        cmocka_unit_test(places_come_from_scores_with_ties),
        cmocka_unit_test(bad_input_is_refused_and_changes_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
