/*
 * test_pg_commands.c — the commands on a PostgreSQL store, run as a user
 * would on the `pg` test cluster: a game played with [saves] url and
 * resumed with --database URL; two resumes of one game, the second writer
 * refused with SQLite's words and exit status; `castellan saves migrate`
 * both ways, hash-checked, keeping ids, refusing another game's id.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_run.h"

/* A session config in the test folder that journals to url; players as
 * "[player.1]..." lines. */
static const char *write_config(void **state, const char *url, const char *players,
                                char *path, size_t cap)
{
    char text[2048];
    int len = snprintf(text, sizeof text, "[session]\ngame = fixture\nseed = 3\n"
                       "[rules]\ncards = 12\n%s[saves]\nurl = %s\n", players, url);
    cas_test_dir_file(*state, "session.ini", path, cap);
    cas_test_write_file(path, text, (size_t)len);
    return path;
}

/* Game 1 in a new database (its URL into url): a bot and then Ada, a
 * human who has not moved yet; it stops at her first turn, saved.
 * Returns how many actions are saved. */
static long long save_a_game_at_a_human_turn(void **state, char *url, size_t cap)
{
    char config[512];
    struct cas_test_result r;
    cas_test_pg_database(url, cap);
    write_config(state, url, "[player.1]\nname = Bot\nagent = greedy\n"
                 "[player.2]\nname = Ada\nagent = human\n", config, sizeof config);
    char *play[] = {"play", "--config", config, NULL};
    cas_test_run(*state, NULL, play, &r);
    assert_int_equal(r.status, 0);
    cas_test_expect_text(r.err, "continue with: castellan resume 1");
    long long saved = cas_test_query_int(url, "SELECT count(*) FROM actions");
    assert_true(saved > 0);
    return saved;
}

static void test_play_and_resume_on_postgresql(void **state)
{
    CAS_TEST_NEED_PG();
    char url[512];
    struct cas_test_result r;
    save_a_game_at_a_human_turn(state, url, sizeof url);

    /* The default store was never made: the game is in PostgreSQL only. */
    char *list[] = {"saves", "list", "--database", url, NULL};
    cas_test_run(*state, NULL, list, &r);
    assert_int_equal(r.status, 0);
    cas_test_expect_text(r.out, "playing");
    cas_test_expect_text(r.out, "Bot (greedy), Ada (human)");

    /* Ada always takes her first choice until the game ends. */
    struct cas_test_how ada = {.input = "1\n1\n1\n1\n1\n1\n1\n1\n1\n1\n1\n1\n1\n1\n1\n1\n"};
    char *resume[] = {"resume", "1", "--database", url, NULL};
    cas_test_run(*state, &ada, resume, &r);
    assert_int_equal(r.status, 0);
    cas_test_expect_text(r.err, "Game 1 is finished and saved.");
    assert_int_equal(cas_test_query_int(url, "SELECT count(*) FROM games WHERE status ="
                                        " 'finished'"), 1);
}

/* As test_store_trouble's two resumes on SQLite: the first waits for Ada
 * while the second plays her move; the first's save of that ply is then
 * refused, it says another castellan played the game and exits 1. */
static void test_two_resumes_of_one_game(void **state)
{
    CAS_TEST_NEED_PG();
    char url[512];
    struct cas_test_result r;
    struct cas_test_running first;
    long long saved = save_a_game_at_a_human_turn(state, url, sizeof url);

    char *resume[] = {"resume", "1", "--database", url, NULL};
    cas_test_start(*state, resume, &first);
    cas_test_wait_for(&first, "Ada> ");
    struct cas_test_how move = {.input = "1\n"};
    cas_test_run(*state, &move, resume, &r);
    assert_int_equal(r.status, 0);
    long long second_saved = cas_test_query_int(url, "SELECT count(*) FROM actions");
    assert_true(second_saved > saved);

    cas_test_finish(&first, "1\n", &r);
    assert_int_equal(r.signal, 0);
    assert_int_equal(r.status, 1);
    cas_test_expect_text(r.err, url);
    cas_test_expect_text(r.err, "another castellan saved it first");
    assert_int_equal(cas_test_query_int(url, "SELECT count(*) FROM actions"), second_saved);
}

/* Bot games into PostgreSQL, migrated to SQLite and back to another
 * database: every game arrives under its id, checked; running it again
 * skips them; a different game under a taken id is refused, nothing
 * copied. */
static void test_migrate_both_ways(void **state)
{
    CAS_TEST_NEED_PG();
    char url[512], back[512], config[512], file[512];
    struct cas_test_result r;
    cas_test_pg_database(url, sizeof url);
    cas_test_pg_database(back, sizeof back);
    cas_test_dir_file(*state, "copy.db", file, sizeof file);
    write_config(state, url, "[player.1]\nagent = random\n[player.2]\nagent = greedy\n",
                 config, sizeof config);
    char *play[] = {"play", "--config", config, NULL};
    for (int i = 0; i < 3; i++) {
        cas_test_run(*state, NULL, play, &r);
        assert_int_equal(r.status, 0);
    }
    char *del[] = {"saves", "delete", "2", "--database", url, NULL};
    cas_test_run(*state, NULL, del, &r); /* ids 1 and 3 are left */
    assert_int_equal(r.status, 0);

    char *to_file[] = {"saves", "migrate", url, file, NULL};
    cas_test_run(*state, NULL, to_file, &r);
    assert_int_equal(r.status, 0);
    cas_test_expect_text(r.out, "[1/2] game 1: ");
    cas_test_expect_text(r.out, "[2/2] game 3: ");
    cas_test_expect_text(r.out, "copied and checked (record ");
    cas_test_expect_text(r.out, "2 games copied into");
    assert_int_equal(cas_test_query_int(file, "SELECT count(*) FROM games WHERE id IN (1, 3)"),
                     2);
    assert_int_equal(cas_test_query_int(file, "SELECT count(*) FROM actions"),
                     cas_test_query_int(url, "SELECT count(*) FROM actions"));

    cas_test_run(*state, NULL, to_file, &r); /* again: nothing to do */
    assert_int_equal(r.status, 0);
    cas_test_expect_text(r.out, "[2/2] game 3: already there, the same");

    char *to_pg[] = {"saves", "migrate", file, back, NULL};
    cas_test_run(*state, NULL, to_pg, &r);
    assert_int_equal(r.status, 0);
    assert_int_equal(cas_test_query_int(back, "SELECT sum(hash % 1000003) FROM actions"),
                     cas_test_query_int(url, "SELECT sum(hash % 1000003) FROM actions"));
    /* New games are numbered after the copied ones: back's next is 4. */
    write_config(state, back, "[player.1]\nagent = random\n[player.2]\nagent = greedy\n",
                 config, sizeof config);
    cas_test_run(*state, NULL, play, &r);
    assert_int_equal(r.status, 0);
    assert_int_equal(cas_test_query_int(back, "SELECT max(id) FROM games"), 4);

    /* url's own game 4 is another game (other players): back cannot be
     * migrated into url, and nothing is copied. */
    write_config(state, url, "[player.1]\nagent = greedy\n[player.2]\nagent = greedy\n",
                 config, sizeof config);
    cas_test_run(*state, NULL, play, &r);
    assert_int_equal(r.status, 0);
    assert_int_equal(cas_test_query_int(url, "SELECT max(id) FROM games"), 4);
    long long actions = cas_test_query_int(url, "SELECT count(*) FROM actions");
    char *refused[] = {"saves", "migrate", back, url, NULL};
    cas_test_run(*state, NULL, refused, &r);
    assert_int_equal(r.status, 1);
    cas_test_expect_text(r.err, "already holds another game with id 4; nothing was copied");
    assert_int_equal(cas_test_query_int(url, "SELECT count(*) FROM actions"), actions);
}

/* What serve keeps of a game (time control, seats' tokens, a flag fall)
 * and the clocks of timed actions come along too, and are checked. */
static void test_migrate_keeps_served_games(void **state)
{
    CAS_TEST_NEED_PG();
    char url[512], file[512];
    struct cas_test_result r;
    struct cas__saves *s = cas_test_open(cas_test_pg_database(url, sizeof url));
    struct cas__saves_game g, back;
    cas_test_sample_game(&g, NULL, "Ada", "Bob", 2);
    assert_int_equal(cas__saves_game_insert(s, &g), CAS_OK);
    char tokens[2][8] = {"aa11", "bb22"};
    char bot[] = "greedy";
    struct cas__saves_served_seat seats[2] = {{tokens[0], 0, NULL}, {tokens[1], 1, bot}};
    struct cas__saves_served served = {.game = g.id, .base_ms = 60000, .increment_ms = 2000,
                                       .seats = seats, .n_seats = 2};
    assert_int_equal(cas__saves_served_insert(s, &served), CAS_OK);
    assert_int_equal(cas__saves_append_timed(s, g.id, 2, 0, "late", 9, 41234), CAS_OK);
    assert_int_equal(cas__saves_served_flag(s, g.id, 1, 1), CAS_OK);
    cas__saves_close(s);

    cas_test_dir_file(*state, "served.db", file, sizeof file);
    char *migrate[] = {"saves", "migrate", url, file, NULL};
    cas_test_run(*state, NULL, migrate, &r);
    assert_int_equal(r.status, 0);
    cas_test_expect_text(r.out, "[1/1] game 1: 3 actions copied and checked");

    struct cas__saves_served copy;
    s = cas_test_open(file);
    assert_int_equal(cas__saves_served_load(s, g.id, &copy), CAS_OK);
    assert_int_equal(copy.base_ms, 60000);
    assert_int_equal(copy.increment_ms, 2000);
    assert_int_equal(copy.flagged, 1);
    assert_int_equal(copy.forfeit, 1); /* it left, the other claimed the game */
    assert_int_equal(copy.n_seats, 2);
    assert_string_equal(copy.seats[1].token, "bb22");
    assert_int_equal(copy.seats[1].open, 1);
    assert_null(copy.seats[0].bot);
    assert_string_equal(copy.seats[1].bot, "greedy");
    cas__saves_served_free(&copy);
    assert_int_equal(cas__saves_game_load(s, g.id, 1, &back), CAS_OK);
    assert_true(back.actions[2].has_clock && back.actions[2].clock_ms == 41234);
    assert_false(back.actions[1].has_clock);
    cas__saves_game_free(&back);
    cas__saves_game_free(&g);
    cas__saves_close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        CAS_TEST_IN_DIR(test_play_and_resume_on_postgresql),
        CAS_TEST_IN_DIR(test_two_resumes_of_one_game),
        CAS_TEST_IN_DIR(test_migrate_both_ways),
        CAS_TEST_IN_DIR(test_migrate_keeps_served_games),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
