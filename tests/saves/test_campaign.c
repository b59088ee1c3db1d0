/*
 * test_campaign.c — campaigns: the list with counts and the game to resume,
 * and standings (finished games, wins with shared first places, points).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "saves_fixture.h"

/* Store a game of campaign between a and b; finished with the scores
 * unless scores is NULL.  Returns its id. */
static int64_t play(struct cas__saves *s, const char *campaign, const char *a,
                    const char *b, const int64_t *scores)
{
    struct cas__saves_game g;
    cas_test_sample_game(&g, campaign, a, b, 3);
    assert_int_equal(cas__saves_game_insert(s, &g), CAS_OK);
    if (scores)
        assert_int_equal(cas__saves_finish(s, g.id, scores, 2), CAS_OK);
    int64_t id = g.id;
    cas__saves_game_free(&g);
    return id;
}

static struct cas__saves *league(void **state, int64_t *unfinished)
{
    char path[512];
    struct cas__saves *s =
        cas_test_open(cas_test_store_where(state, "saves.db", path, sizeof path));
    play(s, "league", "Ada", "Bob", (const int64_t[]){30, 20});
    play(s, "league", "Bob", "Ada", (const int64_t[]){25, 25}); /* a tie */
    play(s, "league", "Cy", "Bob", (const int64_t[]){12, 40});
    *unfinished = play(s, "league", "Ada", "Cy", NULL);
    play(s, "cup", "Ada", "Bob", (const int64_t[]){1, 99});
    play(s, NULL, "Ada", "Bob", (const int64_t[]){1, 99});
    return s;
}

static void expect_standing(const struct cas__saves_standing *st,
                            const char *player, size_t games, size_t wins,
                            int64_t points)
{
    assert_string_equal(st->player, player);
    assert_int_equal(st->games, games);
    assert_int_equal(st->wins, wins);
    assert_int_equal(st->points, points);
}

static void test_standings_count_games_wins_and_points(void **state)
{
    int64_t unfinished;
    struct cas__saves *s = league(state, &unfinished);
    struct cas__saves_campaign summary;
    struct cas__saves_standing *st;
    size_t n;
    assert_int_equal(cas__saves_campaign_standings(s, "league", &summary, &st, &n),
                     CAS_OK);
    assert_string_equal(summary.name, "league");
    assert_int_equal(summary.games, 4);
    assert_int_equal(summary.finished, 3);
    assert_int_equal(summary.unfinished, unfinished);
    assert_int_equal(n, 3);
    /* Bob: 3 games, wins the tie and the 40-12, 85 points. */
    expect_standing(&st[0], "Bob", 3, 2, 85);
    /* Ada: 2 games, the 30-20 and the tie, 55 points. */
    expect_standing(&st[1], "Ada", 2, 2, 55);
    expect_standing(&st[2], "Cy", 1, 0, 12);
    cas__saves_standings_free(st, n);
    free(summary.name);
    free(summary.last_played);
    cas__saves_close(s);
}

static void test_campaign_list_names_every_campaign(void **state)
{
    int64_t unfinished;
    struct cas__saves *s = league(state, &unfinished);
    struct cas__saves_campaign *c;
    size_t n;
    assert_int_equal(cas__saves_campaigns(s, &c, &n), CAS_OK);
    assert_int_equal(n, 2);
    assert_string_equal(c[0].name, "cup");
    assert_int_equal(c[0].games, 1);
    assert_int_equal(c[0].finished, 1);
    assert_int_equal(c[0].unfinished, 0);
    assert_string_equal(c[1].name, "league");
    assert_int_equal(c[1].games, 4);
    assert_int_equal(c[1].unfinished, unfinished);
    assert_int_equal(strlen(c[1].last_played), strlen("2026-11-29T15:00:00Z"));
    cas__saves_campaigns_free(c, n);
    cas__saves_close(s);
}

static void test_unknown_campaign_is_named(void **state)
{
    int64_t unfinished;
    struct cas__saves *s = league(state, &unfinished);
    struct cas__saves_campaign summary;
    struct cas__saves_standing *st;
    size_t n;
    assert_int_equal(cas__saves_campaign_standings(s, "leauge", &summary, &st, &n),
                     CAS_ENOTFOUND);
    assert_non_null(strstr(cas__saves_errmsg(s), "no campaign 'leauge'"));
    assert_null(st);
    assert_int_equal(n, 0);
    cas__saves_close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        CAS_TEST_IN_DIR(test_standings_count_games_wins_and_points),
        CAS_TEST_IN_DIR(test_campaign_list_names_every_campaign),
        CAS_TEST_IN_DIR(test_unknown_campaign_is_named),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
