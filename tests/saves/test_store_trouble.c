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

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* A fixture game between bots, saved to the default store: 49 actions, a
 * store of 44 KiB and a WAL that grows by about 4 KiB an action, so a limit
 * of 100 KiB on file sizes is reached halfway. */
#define FILE_LIMIT (100 * 1024)
/* A fixture game between bots, saved to the default store. */
static char *const bot_game[] = {"play", "--game", "fixture", "--players",
                                 "Ada:random,Bob:greedy", "--seed", "7", "--rule",
                                 "cards=12", NULL};

/* The store keeps what was saved, says so truly, and resumes once the
 * trouble is gone. */
static void expect_saved_and_resumable(void **state, const struct cas_test_result *r,
                                       const char *trouble)
{
    char db[512], saved[128];
    long long n = cas_test_query_int(default_db(state, db, sizeof db),
                                     "SELECT count(*) FROM actions;");
    assert_int_equal(r->signal, 0);
    assert_int_equal(r->status, 1);
    cas_test_expect_text(r->err, db);
    cas_test_expect_text(r->err, trouble);
    snprintf(saved, sizeof saved, "Game 1 is saved at ply %lld; continue with: "
             "castellan resume 1", n);
    cas_test_expect_text(r->err, saved);
    struct cas_test_result on;
    char *resume[] = {"resume", "1", NULL};
    cas_test_run(*state, NULL, resume, &on);
    assert_int_equal(on.status, 0);
    cas_test_expect_text(on.err, "Game 1 is finished and saved.");
}

/* The disk fills up at the tenth action: play says which action could not
 * be saved and why, and that the game is saved at ply 9, as it is. */
static void test_a_full_disk_mid_game(void **state)
{
    struct cas_test_result r;
    struct cas_test_how full = {.faults = 1, .fault = "full:append:10:1"};
    cas_test_run(*state, &full, bot_game, &r);
    cas_test_expect_text(r.err, "castellan-faults: disk full from change 1 of append 10");
    cas_test_expect_text(r.err, "castellan play: action 9 ");
    expect_saved_and_resumable(state, &r, "the disk is full");
}

/* D9 of issue 32: the disk is full when the store is created, and SQLite
 * calls it an I/O error: castellan says the disk is full. */
static void test_a_full_disk_at_open(void **state)
{
    struct cas_test_result r;
    struct cas_test_how full = {.faults = 1, .fault = "nosp:create:1:1"};
    cas_test_run(*state, &full, bot_game, &r);
    cas_test_expect_text(r.err, "castellan-faults: disk full from change 1 of create 1");
    cas_test_expect_text(r.err, "failed: no space left on the disk; the disk is full: free "
                                "some space");
}

/* Another program holds the store's write lock from the fifth action on:
 * play waits its bounded time (no time at all in castellan-faults), then
 * says so, with the saved ply. */
static void test_a_busy_store_mid_game(void **state)
{
    struct cas_test_result r;
    struct cas_test_how busy = {.faults = 1, .fault = "busy:append:5:0"};
    cas_test_run(*state, &busy, bot_game, &r);
    cas_test_expect_text(r.err, "castellan-faults: busy from append 5");
    cas_test_expect_text(r.err, "database is locked; another program (another "
                                "castellan?) kept the database locked for longer than "
                                "the 5000 ms castellan waits");
    expect_saved_and_resumable(state, &r, "Game 1 is saved at ply 4;");
}

/* `ulimit -f` is reached mid-game: no SIGXFSZ death, the limit is named. */
static void test_the_file_size_limit_mid_game(void **state)
{
    struct cas_test_result r;
    struct cas_test_how limited = {.file_limit = FILE_LIMIT};
    cas_test_run(*state, &limited, bot_game, &r);
    expect_saved_and_resumable(state, &r, "file size limit");
}

/* Run castellan unprivileged with args; its exit status, r filled. */
static int run_unprivileged(void **state, struct cas_test_result *r, char *const *args)
{
    struct cas_test_how how = {.unprivileged = 1};
    cas_test_run(*state, &how, args, r);
    assert_int_equal(r->signal, 0);
    return r->status;
}

/* Nothing of a private copy of the store is left in TMPDIR (the folder). */
static void expect_no_copy_left(void **state)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "ls -a '%s' | grep -q castellan-read-",
             ((const struct cas_test_dir *)*state)->path);
    assert_int_not_equal(system(cmd), 0);
}

/* A store castellan may read but not write, stopped mid-game so that its
 * journal (-wal) holds the actions: list, show, export and replay read it,
 * with or without the -shm SQLite would want to create beside it; resume
 * and delete refuse, saying why; nothing changes. */
static void test_a_read_only_store_is_read(void **state)
{
    struct cas_test_result r;
    char db[512], folder[512], side[600];
    struct cas_test_how stop = {.faults = 1, .fault = "kill:append:10:0"};
    cas_test_run(*state, &stop, bot_game, &r);
    assert_int_equal(r.signal, SIGKILL);
    cas_test_dir_file(*state, "castellan", folder, sizeof folder);
    default_db(state, db, sizeof db);
    snprintf(side, sizeof side, "%s-shm", db);
    cas_test_hand_over(*state);
    char *list[] = {"saves", "list", NULL}, *show[] = {"saves", "show", "1", NULL};
    char *export[] = {"export", "1", NULL}, *replay[] = {"replay", "1", NULL};
    char *resume[] = {"resume", "1", NULL}, *delete[] = {"saves", "delete", "1", NULL};
    for (int without_shm = 0; without_shm < 2; without_shm++) {
        if (without_shm)
            assert_int_equal(unlink(side), 0);
        assert_int_equal(chmod(db, 0444), 0);
        assert_int_equal(chmod(folder, 0555), 0);
        struct cas_test_file_print before;
        cas_test_file_print(db, &before);
        assert_int_equal(run_unprivileged(state, &r, list), 0);
        cas_test_expect_text(r.out, "playing      10");
        assert_int_equal(run_unprivileged(state, &r, show), 0);
        cas_test_expect_text(r.out, "unfinished after 10 plies");
        assert_int_equal(run_unprivileged(state, &r, export), 0);
        cas_test_expect_text(r.out, "\n9 ");
        assert_int_equal(run_unprivileged(state, &r, replay), 0);
        cas_test_expect_text(r.out, "10 plies");
        assert_int_equal(run_unprivileged(state, &r, resume), 1);
        cas_test_expect_text(r.err, "castellan may not write the file");
        assert_int_equal(run_unprivileged(state, &r, delete), 1);
        cas_test_expect_text(r.err, "castellan may not write the file");
        cas_test_file_unchanged(db, &before);
        expect_no_copy_left(state);
        assert_int_equal(chmod(folder, 0700), 0);
        assert_int_equal(chmod(db, 0644), 0);
    }
}

/* A folder castellan may not search is not "no save database yet". */
static void test_a_folder_without_search_permission(void **state)
{
    struct cas_test_result r;
    char folder[512];
    cas_test_run(*state, NULL, bot_game, &r);
    assert_int_equal(r.status, 0);
    cas_test_hand_over(*state);
    cas_test_dir_file(*state, "castellan", folder, sizeof folder);
    assert_int_equal(chmod(folder, 0600), 0);
    char *list[] = {"saves", "list", NULL};
    char *play[] = {"play", "--game", "fixture", "--players", "random,random", NULL};
    assert_int_equal(run_unprivileged(state, &r, list), 1);
    cas_test_expect_text(r.err, "saves.db: cannot reach it: Permission denied (castellan "
                                "needs search permission, x, on every folder above it)");
    assert_int_equal(run_unprivileged(state, &r, play), 1);
    cas_test_expect_text(r.err, "cannot reach it: Permission denied");
    assert_int_equal(chmod(folder, 0700), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        CAS_TEST_IN_DIR(test_two_resumes_of_one_game),
        CAS_TEST_IN_DIR(test_a_full_disk_mid_game),
        CAS_TEST_IN_DIR(test_a_full_disk_at_open),
        CAS_TEST_IN_DIR(test_a_busy_store_mid_game),
        CAS_TEST_IN_DIR(test_the_file_size_limit_mid_game),
        CAS_TEST_IN_DIR(test_a_read_only_store_is_read),
        CAS_TEST_IN_DIR(test_a_folder_without_search_permission),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
