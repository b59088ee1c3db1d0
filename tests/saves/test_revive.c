/*
 * test_revive.c — journaled games brought back with the fixture plugin:
 * a journal replays to the same state, a game stopped half-way resumes to
 * the same end as an uninterrupted one, and every divergence (a changed
 * hash with the same or another plugin version, an illegal action, a
 * plugin that is not installed) is reported with its ply or record line.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "journal.h"
#include "revive.h"
#include "saves_fixture.h"

static char plugin_dir[1024];

static int find_plugins(void **state)
{
    (void)state;
    const char *build = getenv("CASTELLAN_BUILD_DIR");
    snprintf(plugin_dir, sizeof plugin_dir, "%s/plugins", build ? build : ".");
    return 0;
}

/* A fresh three-bot game of the fixture plugin with 12 card values. */
static void fixture_game(struct cas__saves_game *g)
{
    cas_test_sample_game(g, "tests", "Ada", "Bob", 0);
    free(g->game.version);
    g->game.version = strdup("1.0.0");
    for (size_t i = 0; i < g->n_expansions; i++) {
        free(g->expansions[i].id);
        free(g->expansions[i].version);
    }
    g->n_expansions = 0;
    free(g->options[0].key);
    free(g->options[0].value);
    g->options[0].key = strdup("cards");
    g->options[0].value = strdup("12");
    g->seed = 77;
}

static void revive_or_fail(struct cas__revived *r, const struct cas__saves_game *g,
                           int with_agents)
{
    if (cas__revive_open(r, g, "game", plugin_dir, with_agents ? cas__agent_new : NULL, NULL))
        fail_msg("%s", r->error);
}

/* Play g with its bots into store s, journaled: at most `steps` decisions
 * (0: to the end).  Returns the game's id. */
static int64_t play_journaled(struct cas__saves *s, struct cas__saves_game *g,
                              int steps)
{
    struct cas__revived r;
    struct cas__journal j;
    revive_or_fail(&r, g, 1);
    assert_int_equal(cas__journal_start(&j, s, g), CAS_OK);
    cas__journal_attach(&j, &r.session);
    if (steps == 0)
        assert_int_equal(cas__session_run(&r.session), CAS_OK);
    for (int i = 0; i < steps; i++)
        assert_int_equal(cas__session_step(&r.session), CAS_OK);
    assert_int_equal(cas__journal_end(&j, &r.session), CAS_OK);
    cas__revive_close(&r);
    return j.game;
}

static struct cas__saves *open_store(void **state)
{
    char path[512];
    return cas_test_open(cas_test_dir_file(*state, "saves.db", path, sizeof path));
}

static void load(struct cas__saves *s, int64_t id, struct cas__saves_game *g)
{
    assert_int_equal(cas__saves_game_load(s, id, 1, g), CAS_OK);
}

/* Change one thing in the store with plain SQL, as a newer plugin or a
 * damaged journal would have it. */
static void tamper(struct cas__saves *s, const char *sql)
{
    sqlite3 *db;
    assert_int_equal(sqlite3_open(cas__saves_path(s), &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
}

static void test_a_journal_replays_to_the_same_end(void **state)
{
    struct cas__saves *s = open_store(state);
    struct cas__saves_game g, back;
    struct cas__revived r;
    fixture_game(&g);
    int64_t id = play_journaled(s, &g, 0);
    load(s, id, &back);
    assert_int_equal(back.status, CAS__SAVES_FINISHED);
    assert_true(back.n_actions > 20);
    assert_true(back.players[0].has_score);

    revive_or_fail(&r, &back, 0);
    assert_int_equal(cas__revive_replay(&r, back.n_actions, 0, NULL, NULL), CAS_OK);
    assert_int_equal(r.session.match->vt->current(r.session.state), CAS_ACTOR_TERMINAL);
    assert_true(r.session.hash == back.actions[back.n_actions - 1].hash);
    assert_int_equal(r.version_changed, 0);
    cas__revive_close(&r);
    cas__saves_game_free(&back);
    cas__saves_game_free(&g);
    cas__saves_close(s);
}

static void test_a_stopped_game_resumes_to_the_uninterrupted_end(void **state)
{
    struct cas__saves *s = open_store(state);
    struct cas__saves_game g, whole, half;
    struct cas__revived r;
    struct cas__journal j;
    fixture_game(&g);
    load(s, play_journaled(s, &g, 0), &whole);
    cas__saves_game_free(&g);
    fixture_game(&g);
    int64_t id = play_journaled(s, &g, 17);
    load(s, id, &half);
    assert_int_equal(half.n_actions, 17);
    assert_int_equal(half.status, CAS__SAVES_PLAYING);

    revive_or_fail(&r, &half, 1);
    assert_int_equal(cas__revive_replay(&r, half.n_actions, 0, NULL, NULL), CAS_OK);
    j.store = s;
    j.game = id;
    cas__journal_attach(&j, &r.session);
    assert_int_equal(cas__session_run(&r.session), CAS_OK);
    assert_int_equal(cas__journal_end(&j, &r.session), CAS_OK);
    cas__revive_close(&r);
    cas__saves_game_free(&half);
    load(s, id, &half);
    /* The same game, move for move, hash for hash, score for score. */
    cas_test_assert_same_game(&whole, &half);
    cas__saves_game_free(&whole);
    cas__saves_game_free(&half);
    cas__saves_game_free(&g);
    cas__saves_close(s);
}

/* Replaying the stored game must fail with `code` and a message with
 * every one of the NULL-terminated words. */
static void expect_replay_failure(struct cas__saves *s, int64_t id, int code, ...)
{
    struct cas__saves_game g;
    struct cas__revived r;
    va_list words;
    load(s, id, &g);
    revive_or_fail(&r, &g, 0);
    assert_int_equal(cas__revive_replay(&r, g.n_actions, 0, NULL, NULL), code);
    va_start(words, code);
    for (const char *w = va_arg(words, const char *); w; w = va_arg(words, const char *))
        if (!strstr(r.error, w))
            fail_msg("message '%s' lacks '%s'", r.error, w);
    va_end(words);
    cas__revive_close(&r);
    cas__saves_game_free(&g);
}

static void test_a_changed_hash_with_the_same_version_is_a_bug(void **state)
{
    struct cas__saves *s = open_store(state);
    struct cas__saves_game g;
    fixture_game(&g);
    int64_t id = play_journaled(s, &g, 0);
    tamper(s, "UPDATE actions SET hash = hash + 1 WHERE ply = 5;");
    expect_replay_failure(s, id, CAS_EMISMATCH, "game, ply 5", "the journal says",
                          "fixture 1.0.0", "the versions it was saved with", NULL);
    cas__saves_game_free(&g);
    cas__saves_close(s);
}

static void test_a_new_plugin_version_stops_at_the_ply_or_is_forced(void **state)
{
    struct cas__saves *s = open_store(state);
    struct cas__saves_game g, back;
    struct cas__revived r;
    fixture_game(&g);
    int64_t id = play_journaled(s, &g, 0);
    tamper(s, "UPDATE games SET game_version = '0.9.0';"
              "UPDATE actions SET hash = ~hash WHERE ply >= 7;");
    expect_replay_failure(s, id, CAS_EMISMATCH, "ply 7", "saved with fixture 0.9.0",
                          "installed is fixture 1.0.0", NULL);

    /* --force: replay on from ply 7, then record the installed hashes. */
    load(s, id, &back);
    revive_or_fail(&r, &back, 0);
    assert_int_equal(r.version_changed, 1);
    assert_int_equal(cas__revive_replay(&r, back.n_actions, 1, NULL, NULL), CAS_OK);
    assert_int_equal(r.first_mismatch, 7);
    assert_int_equal(r.mismatches, back.n_actions - 7);
    struct cas__saves_game versions = {.game = {.version = "1.0.0"}};
    assert_int_equal(cas__saves_rebase(s, id, r.first_mismatch, r.new_hashes,
                                       r.mismatches, &versions), CAS_OK);
    cas__revive_close(&r);
    cas__saves_game_free(&back);

    load(s, id, &back);
    assert_string_equal(back.game.version, "1.0.0");
    revive_or_fail(&r, &back, 0);
    assert_int_equal(cas__revive_replay(&r, back.n_actions, 0, NULL, NULL), CAS_OK);
    cas__revive_close(&r);
    cas__saves_game_free(&back);
    cas__saves_game_free(&g);
    cas__saves_close(s);
}

static void test_an_illegal_action_names_its_ply(void **state)
{
    struct cas__saves *s = open_store(state);
    struct cas__saves_game g;
    fixture_game(&g);
    int64_t id = play_journaled(s, &g, 0);
    tamper(s, "UPDATE actions SET text = 'play 99' WHERE ply = 3;");
    expect_replay_failure(s, id, CAS_EPARSE, "game, ply 3", "\"play 99\" cannot be "
                          "replayed", NULL);
    cas__saves_game_free(&g);
    cas__saves_close(s);
}

static void test_records_name_the_line_of_what_is_wrong(void **state)
{
    (void)state;
    static const char record[] =
        "Castellan-Record: 1\n"
        "Game: fixtrue 1.0.0\n"
        "Seed: 1\n"
        "Player: random A\n"
        "Player: random B\n"
        "\n";
    struct cas__saves_game g;
    struct cas__revived r;
    char err[512];
    assert_int_equal(cas__record_parse(record, sizeof record - 1, "bug.txt", &g, err,
                                       sizeof err), CAS_OK);
    assert_int_not_equal(cas__revive_open(&r, &g, "bug.txt", plugin_dir, 0, NULL), CAS_OK);
    if (!strstr(r.error, "bug.txt:2") || !strstr(r.error, "fixture"))
        fail_msg("unclear: %s", r.error);
    cas__saves_game_free(&g);

    static const char robot[] =
        "Castellan-Record: 1\n"
        "Game: fixture 1.0.0\n"
        "Seed: 1\n"
        "Player: random A\n"
        "Player: robot B\n"
        "\n";
    assert_int_equal(cas__record_parse(robot, sizeof robot - 1, "bug.txt", &g, err,
                                       sizeof err), CAS_OK);
    assert_int_equal(cas__revive_open(&r, &g, "bug.txt", plugin_dir, 0, NULL), CAS_ENOTFOUND);
    if (!strstr(r.error, "player 2 (B) has agent \"robot\"") ||
        !strstr(r.error, "use human, random, greedy or mcts[-easy|-medium|-hard][@N|@Nms]"
                         "[/THREADS][+random|+greedy][+root|+tree][+win|+margin]"))
        fail_msg("unclear: %s", r.error);
    cas__saves_game_free(&g);

    /* any search bot spec a session accepts is an agent a record may name */
    static const char searcher[] =
        "Castellan-Record: 1\n"
        "Game: fixture 1.0.0\n"
        "Seed: 1\n"
        "Player: mcts-hard@20/1+greedy+tree A\n"
        "Player: mcts@5ms B\n"
        "\n";
    assert_int_equal(cas__record_parse(searcher, sizeof searcher - 1, "bots.txt", &g, err,
                                       sizeof err), CAS_OK);
    if (cas__revive_open(&r, &g, "bots.txt", plugin_dir, cas__agent_new, NULL) != CAS_OK)
        fail_msg("refused: %s", r.error);
    cas__revive_close(&r);
    cas__saves_game_free(&g);

    static const char illegal[] =
        "Castellan-Record: 1\n"
        "Game: fixture 1.0.0\n"
        "Seed: 1\n"
        "Player: random A\n"
        "Player: random B\n"
        "\n"
        "0 0 block 3 #0000000000000000\n";
    assert_int_equal(cas__record_parse(illegal, sizeof illegal - 1, "bug.txt", &g, err,
                                       sizeof err), CAS_OK);
    if (cas__revive_open(&r, &g, "bug.txt", plugin_dir, 0, NULL))
        fail_msg("%s", r.error);
    assert_int_not_equal(cas__revive_replay(&r, g.n_actions, 0, NULL, NULL), CAS_OK);
    if (!strstr(r.error, "bug.txt:7 (ply 0)") || !strstr(r.error, "block 3"))
        fail_msg("unclear: %s", r.error);
    cas__revive_close(&r);
    cas__saves_game_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        CAS_TEST_IN_DIR(test_a_journal_replays_to_the_same_end),
        CAS_TEST_IN_DIR(test_a_stopped_game_resumes_to_the_uninterrupted_end),
        CAS_TEST_IN_DIR(test_a_changed_hash_with_the_same_version_is_a_bug),
        CAS_TEST_IN_DIR(test_a_new_plugin_version_stops_at_the_ply_or_is_forced),
        CAS_TEST_IN_DIR(test_an_illegal_action_names_its_ply),
        CAS_TEST_IN_DIR(test_records_name_the_line_of_what_is_wrong),
    };
    return cmocka_run_group_tests(tests, find_plugins, NULL);
}
