/*
 * test_journal.c — writing and reading games: the header, the action
 * journal one transaction at a time, final scores, deletion, re-hashing
 * after a forced resume, and names that try to be SQL.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "saves_fixture.h"

static struct cas__saves *open_in(void **state)
{
    char path[512];
    return cas_test_open(cas_test_store_where(state, "saves.db", path, sizeof path));
}

static long long count_rows(struct cas__saves *s, const char *table)
{
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM %s;", table);
    return cas_test_query_int(cas__saves_path(s), sql);
}

static void test_game_round_trips_through_the_store(void **state)
{
    struct cas__saves *s = open_in(state);
    struct cas__saves_game g, back;
    cas_test_sample_game(&g, "league", "Ada", "Bob", 7);
    assert_int_equal(cas__saves_game_insert(s, &g), CAS_OK);
    assert_int_equal(g.id, 1);
    assert_int_equal(cas__saves_game_load(s, g.id, 1, &back), CAS_OK);
    cas_test_assert_same_game(&g, &back);
    assert_non_null(back.created_at);
    assert_int_equal(strlen(back.created_at), strlen("2026-11-29T15:00:00Z"));
    cas__saves_game_free(&back);

    /* Without actions only their count comes back. */
    assert_int_equal(cas__saves_game_load(s, g.id, 0, &back), CAS_OK);
    assert_int_equal(back.n_actions, 7);
    assert_null(back.actions);
    cas__saves_game_free(&back);
    cas__saves_game_free(&g);
    cas__saves_close(s);
}

static void test_appended_actions_are_journaled_in_order(void **state)
{
    struct cas__saves *s = open_in(state);
    struct cas__saves_game g, back;
    cas_test_sample_game(&g, NULL, "Ada", "Bob", 0);
    assert_int_equal(cas__saves_game_insert(s, &g), CAS_OK);
    assert_int_equal(cas__saves_append(s, g.id, 0, -1, "draw D", 0xfedcba9876543210u), CAS_OK);
    assert_int_equal(cas__saves_append(s, g.id, 1, 0, "place 0 1 N", 42), CAS_OK);
    /* The same ply twice: someone else is playing this game. */
    assert_int_equal(cas__saves_append(s, g.id, 1, 1, "pass", 43), CAS_ECONFLICT);
    assert_non_null(strstr(cas__saves_errmsg(s), "another castellan"));

    assert_int_equal(cas__saves_game_load(s, g.id, 1, &back), CAS_OK);
    assert_int_equal(back.n_actions, 2);
    assert_int_equal(back.actions[0].actor, CAS_ACTOR_CHANCE);
    assert_string_equal(back.actions[0].text, "draw D");
    assert_true(back.actions[0].hash == 0xfedcba9876543210u);
    assert_string_equal(back.actions[1].text, "place 0 1 N");
    assert_int_equal(back.status, CAS__SAVES_PLAYING);
    assert_false(back.players[0].has_score);
    cas__saves_game_free(&back);
    cas__saves_game_free(&g);
    cas__saves_close(s);
}

/* An undo removes the taken-back plies in one transaction; the game goes
 * on from there with new actions at those plies. */
static void test_take_back_removes_the_undone_plies(void **state)
{
    struct cas__saves *s = open_in(state);
    struct cas__saves_game g, back;
    cas_test_sample_game(&g, NULL, "Ada", "Bob", 0);
    assert_int_equal(cas__saves_game_insert(s, &g), CAS_OK);
    assert_int_equal(cas__saves_append(s, g.id, 0, -1, "draw E", 1), CAS_OK);
    assert_int_equal(cas__saves_append(s, g.id, 1, 0, "place E 0,-1 180", 2), CAS_OK);
    assert_int_equal(cas__saves_append(s, g.id, 2, 0, "deploy meeple city S", 3), CAS_OK);
    assert_int_equal(cas__saves_take_back(s, g.id, 1), CAS_OK);
    assert_int_equal(cas__saves_game_load(s, g.id, 1, &back), CAS_OK);
    assert_int_equal(back.n_actions, 1);
    assert_string_equal(back.actions[0].text, "draw E");
    cas__saves_game_free(&back);
    assert_int_equal(cas__saves_append(s, g.id, 1, 0, "place E 0,1 90", 4), CAS_OK);
    assert_int_equal(cas__saves_game_load(s, g.id, 1, &back), CAS_OK);
    assert_int_equal(back.n_actions, 2);
    assert_string_equal(back.actions[1].text, "place E 0,1 90");
    assert_true(back.actions[1].hash == 4);
    cas__saves_game_free(&back);
    cas__saves_game_free(&g);
    cas__saves_close(s);
}

/* Every journaled action moves the game's last-played time to now. */
static void test_append_updates_the_last_played_time(void **state)
{
    struct cas__saves *s = open_in(state);
    struct cas__saves_game g, back;
    cas_test_sample_game(&g, NULL, "Ada", "Bob", 0);
    g.updated_at = strdup("2001-02-03T04:05:06Z");
    assert_int_equal(cas__saves_game_insert(s, &g), CAS_OK);
    assert_int_equal(cas__saves_game_load(s, g.id, 0, &back), CAS_OK);
    assert_string_equal(back.updated_at, "2001-02-03T04:05:06Z");
    cas__saves_game_free(&back);
    assert_int_equal(cas__saves_append(s, g.id, 0, -1, "draw E", 1), CAS_OK);
    assert_int_equal(cas__saves_game_load(s, g.id, 0, &back), CAS_OK);
    assert_true(strcmp(back.updated_at, "2001-02-03T04:05:06Z") > 0);
    cas__saves_game_free(&back);
    cas__saves_game_free(&g);
    cas__saves_close(s);
}

static void test_finish_records_scores_and_status(void **state)
{
    struct cas__saves *s = open_in(state);
    struct cas__saves_game g, back;
    const int64_t scores[2] = {-3, 41};
    cas_test_sample_game(&g, NULL, "Ada", "Bob", 4);
    assert_int_equal(cas__saves_game_insert(s, &g), CAS_OK);
    assert_int_equal(cas__saves_finish(s, g.id, scores, 2), CAS_OK);
    assert_int_equal(cas__saves_game_load(s, g.id, 0, &back), CAS_OK);
    assert_int_equal(back.status, CAS__SAVES_FINISHED);
    assert_true(back.players[0].has_score && back.players[1].has_score);
    assert_int_equal(back.players[0].score, -3);
    assert_int_equal(back.players[1].score, 41);
    cas__saves_game_free(&back);
    assert_int_equal(cas__saves_finish(s, 99, scores, 2), CAS_ENOTFOUND);
    cas__saves_game_free(&g);
    cas__saves_close(s);
}

static void test_a_bad_game_stores_nothing(void **state)
{
    struct cas__saves *s = open_in(state);
    struct cas__saves_game g;
    cas_test_sample_game(&g, "league", "Ada", "Bob", 3);
    g.actions[2].ply = 5;
    assert_int_equal(cas__saves_game_insert(s, &g), CAS_EINVAL);
    assert_non_null(strstr(cas__saves_errmsg(s), "ply 5"));
    /* A failure inside the transaction rolls back everything. */
    g.actions[2].ply = 2;
    free(g.players[1].agent);
    g.players[1].agent = NULL; /* NOT NULL column: fails mid-transaction */
    assert_int_not_equal(cas__saves_game_insert(s, &g), CAS_OK);
    assert_int_equal(g.id, 0);
    assert_int_equal(count_rows(s, "games"), 0);
    assert_int_equal(count_rows(s, "campaigns"), 0);
    assert_int_equal(count_rows(s, "players"), 0);
    assert_int_equal(count_rows(s, "actions"), 0);
    cas__saves_game_free(&g);
    cas__saves_close(s);
}

static void test_delete_removes_everything_of_one_game(void **state)
{
    struct cas__saves *s = open_in(state);
    struct cas__saves_game a, b, back;
    cas_test_sample_game(&a, NULL, "Ada", "Bob", 5);
    cas_test_sample_game(&b, NULL, "Cy", "Di", 6);
    assert_int_equal(cas__saves_game_insert(s, &a), CAS_OK);
    assert_int_equal(cas__saves_game_insert(s, &b), CAS_OK);
    assert_int_equal(cas__saves_game_delete(s, a.id), CAS_OK);
    assert_int_equal(cas__saves_game_load(s, a.id, 1, &back), CAS_ENOTFOUND);
    assert_non_null(strstr(cas__saves_errmsg(s), "saves list"));
    assert_int_equal(cas__saves_game_delete(s, a.id), CAS_ENOTFOUND);
    assert_int_equal(count_rows(s, "actions"), 6);
    assert_int_equal(count_rows(s, "players"), 2);
    assert_int_equal(count_rows(s, "game_expansions"), 1);
    assert_int_equal(count_rows(s, "game_options"), 1);
    assert_int_equal(cas__saves_game_load(s, b.id, 1, &back), CAS_OK);
    cas_test_assert_same_game(&b, &back);
    cas__saves_game_free(&back);
    cas__saves_game_free(&a);
    cas__saves_game_free(&b);
    cas__saves_close(s);
}

static void test_game_ids_filter_by_campaign_newest_first(void **state)
{
    struct cas__saves *s = open_in(state);
    const char *campaigns[] = {"league", NULL, "league", "cup"};
    for (size_t i = 0; i < 4; i++) {
        struct cas__saves_game g;
        cas_test_sample_game(&g, campaigns[i], "Ada", "Bob", 1);
        assert_int_equal(cas__saves_game_insert(s, &g), CAS_OK);
        cas__saves_game_free(&g);
    }
    int64_t *ids;
    size_t n;
    assert_int_equal(cas__saves_game_ids(s, NULL, &ids, &n), CAS_OK);
    assert_int_equal(n, 4);
    assert_int_equal(ids[0], 4);
    assert_int_equal(ids[3], 1);
    free(ids);
    assert_int_equal(cas__saves_game_ids(s, "league", &ids, &n), CAS_OK);
    assert_int_equal(n, 2);
    assert_int_equal(ids[0], 3);
    assert_int_equal(ids[1], 1);
    free(ids);
    assert_int_equal(cas__saves_game_ids(s, "nobody", &ids, &n), CAS_OK);
    assert_int_equal(n, 0);
    free(ids);
    cas__saves_close(s);
}

static void test_rebase_replaces_hashes_and_versions(void **state)
{
    struct cas__saves *s = open_in(state);
    struct cas__saves_game g, back;
    const uint64_t hashes[2] = {111, 222};
    cas_test_sample_game(&g, NULL, "Ada", "Bob", 4);
    assert_int_equal(cas__saves_game_insert(s, &g), CAS_OK);
    free(g.game.version);
    g.game.version = strdup("1.3.0");
    free(g.expansions[0].version);
    g.expansions[0].version = strdup("1.0.0");
    assert_int_equal(cas__saves_rebase(s, g.id, 2, hashes, 2, &g), CAS_OK);
    assert_int_equal(cas__saves_game_load(s, g.id, 1, &back), CAS_OK);
    assert_string_equal(back.game.version, "1.3.0");
    assert_string_equal(back.expansions[0].version, "1.0.0");
    assert_true(back.actions[1].hash == g.actions[1].hash);
    assert_true(back.actions[2].hash == 111);
    assert_true(back.actions[3].hash == 222);
    cas__saves_game_free(&back);
    cas__saves_game_free(&g);
    cas__saves_close(s);
}

/* Names are data, never SQL: quotes, semicolons, comments and line breaks
 * come back exactly and the schema survives them. */
static void test_hostile_names_are_only_data(void **state)
{
    static const char *const names[] = {
        "Robert'); DROP TABLE games;--",
        "\"; DELETE FROM actions; --",
        "x' OR '1'='1",
        "line\nbreak\\and\ttab",
        "Zoë 🏰",
    };
    struct cas__saves *s = open_in(state);
    for (size_t i = 0; i + 1 < sizeof names / sizeof names[0]; i++) {
        struct cas__saves_game g, back;
        cas_test_sample_game(&g, names[i], names[i], names[i + 1], 2);
        free(g.actions[1].text);
        g.actions[1].text = strdup(names[i]);
        assert_int_equal(cas__saves_game_insert(s, &g), CAS_OK);
        assert_int_equal(cas__saves_append(s, g.id, 2, 0, names[i + 1], 7), CAS_OK);
        assert_int_equal(cas__saves_game_load(s, g.id, 1, &back), CAS_OK);
        assert_string_equal(back.campaign, names[i]);
        assert_string_equal(back.players[0].name, names[i]);
        assert_string_equal(back.players[1].name, names[i + 1]);
        assert_string_equal(back.actions[1].text, names[i]);
        assert_string_equal(back.actions[2].text, names[i + 1]);
        cas__saves_game_free(&back);
        cas__saves_game_free(&g);
    }
    assert_int_equal(count_rows(s, "games"), 4);
    assert_int_equal(count_rows(s, "actions"), 12);
    assert_int_equal(cas__saves_integrity_check(s), CAS_OK);
    cas__saves_close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        CAS_TEST_IN_DIR(test_game_round_trips_through_the_store),
        CAS_TEST_IN_DIR(test_appended_actions_are_journaled_in_order),
        CAS_TEST_IN_DIR(test_take_back_removes_the_undone_plies),
        CAS_TEST_IN_DIR(test_append_updates_the_last_played_time),
        CAS_TEST_IN_DIR(test_finish_records_scores_and_status),
        CAS_TEST_IN_DIR(test_a_bad_game_stores_nothing),
        CAS_TEST_IN_DIR(test_delete_removes_everything_of_one_game),
        CAS_TEST_IN_DIR(test_game_ids_filter_by_campaign_newest_first),
        CAS_TEST_IN_DIR(test_rebase_replaces_hashes_and_versions),
        CAS_TEST_IN_DIR(test_hostile_names_are_only_data),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
