/*
 * test_store_trouble.c — what the commands say and which exit status they
 * give when the save store is in trouble: another castellan playing the
 * same game, a full disk, a file-size limit, a read-only store, a folder
 * castellan may not search.  Every trouble is explained with the file
 * named, is never exit 0, and the store keeps exactly what was saved.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "cli_run.h"

static const char *default_db(void **state, char *buf, size_t cap)
{
    return cas_test_dir_file(*state, "castellan/saves.db", buf, cap);
}

/* Game 1: a bot and then Ada, a human who has not moved yet: it stops at
 * her first turn, saved. */
static void save_a_game_at_a_human_turn(void **state)
{
    struct cas_test_result r;
    char *play[] = {"play", "--game", "fixture", "--players", "Bot:greedy,Ada:human",
                    "--seed", "3", NULL};
    cas_test_run(*state, NULL, play, &r);
    assert_int_equal(r.status, 0);
    cas_test_expect_text(r.err, "continue with: castellan resume 1");
}

/* Two resumes of one game: the first waits for Ada while the second plays
 * her move and goes on; when the first then saves its own move for that
 * ply, it must say that another castellan played the game, and exit 1. */
static void test_two_resumes_of_one_game(void **state)
{
    struct cas_test_result r;
    struct cas_test_running first;
    char db[512];
    char *resume[] = {"resume", "1", NULL};
    save_a_game_at_a_human_turn(state);
    long long saved = cas_test_query_int(default_db(state, db, sizeof db),
                                         "SELECT count(*) FROM actions;");
    cas_test_start(*state, resume, &first);
    cas_test_wait_for(&first, "Ada> ");
    struct cas_test_how move = {.input = "1\n"};
    cas_test_run(*state, &move, resume, &r);
    assert_int_equal(r.status, 0);
    long long second_saved = cas_test_query_int(db, "SELECT count(*) FROM actions;");
    assert_true(second_saved > saved);

    cas_test_finish(&first, "1\n", &r);
    assert_int_equal(r.signal, 0);
    assert_int_equal(r.status, 1);
    cas_test_expect_text(r.err, db);
    cas_test_expect_text(r.err, "another castellan");
    assert_int_equal(cas_test_query_int(db, "SELECT count(*) FROM actions;"), second_saved);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        CAS_TEST_IN_DIR(test_two_resumes_of_one_game),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
