/*
 * test_store.c — opening the save database: schema creation, migration
 * from an older schema, and refusal (with the file left untouched) of
 * files that are not ours: not SQLite, truncated, damaged, another
 * application's, or from a newer castellan.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "saves_fixture.h"

static void exec_plain(const char *path, const char *sql)
{
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
}

/* A store holding one sample game of n actions, closed again. */
static void make_store(const char *path, size_t n_actions)
{
    struct cas__saves *s = cas_test_open(path);
    struct cas__saves_game g;
    cas_test_sample_game(&g, NULL, "Ada", "Bob", n_actions);
    assert_int_equal(cas__saves_game_insert(s, &g), CAS_OK);
    cas__saves_game_free(&g);
    cas__saves_close(s);
}

/* Opening must fail with `code`, a message naming the file and containing
 * `words`, and leave the file exactly as it was. */
static void expect_refusal(const char *path, int code, const char *words)
{
    struct cas_test_file_print before;
    struct cas__saves *s = NULL;
    char err[1024] = "";
    cas_test_file_print(path, &before);
    assert_int_equal(cas__saves_open(path, &s, err, sizeof err), code);
    assert_null(s);
    if (!strstr(err, path) || !strstr(err, words))
        fail_msg("message '%s' should name %s and say '%s'", err, path, words);
    cas_test_file_unchanged(path, &before);
}

static void test_creates_schema_in_new_folders(void **state)
{
    char path[512];
    cas_test_dir_file(*state, "a/b/saves.db", path, sizeof path);
    struct cas__saves *s = cas_test_open(path);
    assert_int_equal(cas__saves_schema_version(s), CAS__SAVES_SCHEMA_VERSION);
    assert_int_equal(cas__saves_integrity_check(s), CAS_OK);
    assert_string_equal(cas__saves_path(s), path);
    cas__saves_close(s);
    assert_int_equal(cas_test_query_int(path, "PRAGMA application_id;"),
                     CAS__SAVES_APPLICATION_ID);
    assert_int_equal(cas_test_query_int(path, "PRAGMA user_version;"), CAS__SAVES_SCHEMA_VERSION);
    assert_int_equal(cas_test_query_int(path, "SELECT count(*) FROM sqlite_schema WHERE "
                                     "name IN ('campaigns', 'games', 'game_expansions',"
                                     " 'game_options', 'players', 'actions', 'snapshots');"),
                     7);
    /* WAL mode is persistent: a plain connection sees it. */
    assert_int_equal(cas_test_query_int(path, "SELECT journal_mode = 'wal' FROM "
                                     "pragma_journal_mode;"), 1);
}

/* The permission bits of path's mode. */
static unsigned mode_of(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        fail_msg("%s: cannot stat it", path);
    return (unsigned)(st.st_mode & 07777);
}

/* The store's files are 0600 whatever the umask: the database, and its
 * -wal and -shm while it is open; an existing looser store is tightened
 * when castellan opens it. */
static void test_store_files_are_private(void **state)
{
    char path[512], side[600];
    struct cas__saves_game g;
    mode_t old = umask(022);
    cas_test_dir_file(*state, "saves.db", path, sizeof path);
    struct cas__saves *s = cas_test_open(path);
    cas_test_sample_game(&g, NULL, "Ada", "Bob", 2);
    assert_int_equal(cas__saves_game_insert(s, &g), CAS_OK);
    cas__saves_game_free(&g);
    assert_int_equal(mode_of(path), 0600);
    static const char *const sides[] = {"-wal", "-shm"};
    for (size_t i = 0; i < 2; i++) {
        snprintf(side, sizeof side, "%s%s", path, sides[i]);
        assert_int_equal(mode_of(side), 0600);
    }
    /* An older castellan made it 0644 and left a -wal 0664 beside it. */
    snprintf(side, sizeof side, "%s-wal", path);
    assert_int_equal(chmod(side, 0664), 0);
    assert_int_equal(chmod(path, 0644), 0);
    struct cas__saves *again = cas_test_open(path);
    assert_int_equal(mode_of(path), 0600);
    assert_int_equal(mode_of(side), 0600);
    cas__saves_close(again);
    cas__saves_close(s);
    umask(old);
}

static void test_empty_file_becomes_a_store(void **state)
{
    char path[512];
    cas_test_dir_file(*state, "empty.db", path, sizeof path);
    cas_test_write_file(path, "", 0);
    struct cas__saves *s = cas_test_open(path);
    assert_int_equal(cas__saves_schema_version(s), CAS__SAVES_SCHEMA_VERSION);
    cas__saves_close(s);
}

static void test_reopen_keeps_games(void **state)
{
    char path[512];
    cas_test_dir_file(*state, "saves.db", path, sizeof path);
    make_store(path, 5);
    struct cas__saves *s = cas_test_open(path);
    struct cas__saves_game g;
    assert_int_equal(cas__saves_game_load(s, 1, 1, &g), CAS_OK);
    assert_int_equal(g.n_actions, 5);
    assert_string_equal(g.actions[4].text, "move 4");
    cas__saves_game_free(&g);
    cas__saves_close(s);
}

static void test_migrates_an_older_schema(void **state)
{
    char path[512], err[1024];
    struct cas__saves *s;
    cas_test_dir_file(*state, "old.db", path, sizeof path);
    assert_int_equal(cas__saves_open_at(path, 1, &s, err, sizeof err), CAS_OK);
    assert_int_equal(cas__saves_schema_version(s), 1);
    struct cas__saves_game g, back;
    cas_test_sample_game(&g, "league", "Ada", "Bob", 3);
    assert_int_equal(cas__saves_game_insert(s, &g), CAS_OK);
    cas__saves_close(s);
    assert_int_equal(cas_test_query_int(path, "SELECT count(*) FROM sqlite_schema WHERE "
                                     "name = 'players_by_name';"), 0);

    s = cas_test_open(path);
    assert_int_equal(cas__saves_schema_version(s), CAS__SAVES_SCHEMA_VERSION);
    assert_int_equal(cas__saves_game_load(s, g.id, 1, &back), CAS_OK);
    cas_test_assert_same_game(&g, &back);
    assert_int_equal(cas__saves_integrity_check(s), CAS_OK);
    cas__saves_close(s);
    assert_int_equal(cas_test_query_int(path, "SELECT count(*) FROM sqlite_schema WHERE "
                                     "name = 'players_by_name';"), 1);
    /* Schema 3: the served games' tables and the actions' clocks. */
    assert_int_equal(cas_test_query_int(path, "SELECT count(*) FROM sqlite_schema WHERE "
                                     "name IN ('served_games', 'served_seats');"), 2);
    assert_int_equal(cas_test_query_int(path, "SELECT count(*) FROM actions WHERE "
                                     "clock_ms IS NULL;"), 3);
    cas__saves_game_free(&g);
    cas__saves_game_free(&back);
}

static void test_refuses_a_file_that_is_not_sqlite(void **state)
{
    char path[512];
    static const char text[] = "[session]\ngame = carcassonne\n";
    cas_test_dir_file(*state, "notes.ini", path, sizeof path);
    cas_test_write_file(path, text, sizeof text - 1);
    expect_refusal(path, CAS_EMISMATCH, "not an SQLite file");
}

static void test_refuses_another_applications_database(void **state)
{
    char path[512];
    cas_test_dir_file(*state, "other.db", path, sizeof path);
    exec_plain(path, "CREATE TABLE games (id INTEGER PRIMARY KEY, name TEXT);"
                     "INSERT INTO games (name) VALUES ('chess');");
    expect_refusal(path, CAS_EMISMATCH, "application_id 0x00000000");

    cas_test_dir_file(*state, "tagged.db", path, sizeof path);
    exec_plain(path, "PRAGMA application_id = 305419896;"
                     "CREATE TABLE t (x);");
    expect_refusal(path, CAS_EMISMATCH, "another application (application_id 0x12345678");
}

static void test_refuses_a_newer_schema(void **state)
{
    char path[512];
    cas_test_dir_file(*state, "newer.db", path, sizeof path);
    make_store(path, 2);
    exec_plain(path, "PRAGMA user_version = 99;");
    expect_refusal(path, CAS_EVERSION, "newer castellan (save schema 99");
}

static void test_refuses_a_truncated_file(void **state)
{
    char path[512];
    struct cas_test_file_print full;
    cas_test_dir_file(*state, "cut.db", path, sizeof path);
    make_store(path, 400);
    cas_test_file_print(path, &full);
    unsigned page = (unsigned)full.bytes[16] << 8 | full.bytes[17];
    assert_true(full.len >= 4 * page);

    cas_test_write_file(path, full.bytes, full.len / page / 2 * page);
    expect_refusal(path, CAS_ECORRUPT, "truncated");
    cas_test_write_file(path, full.bytes, full.len - 100);
    expect_refusal(path, CAS_ECORRUPT, "truncated");
    cas_test_write_file(path, full.bytes, 60);
    expect_refusal(path, CAS_ECORRUPT, "truncated");
    free(full.bytes);
}

static void test_a_damaged_file_fails_clearly_and_stays_as_is(void **state)
{
    char path[512];
    struct cas_test_file_print full;
    cas_test_dir_file(*state, "bad.db", path, sizeof path);
    make_store(path, 50);
    cas_test_file_print(path, &full);
    unsigned page = (unsigned)full.bytes[16] << 8 | full.bytes[17];
    memset(full.bytes + page, 0xAB, full.len - page);
    cas_test_write_file(path, full.bytes, full.len);
    free(full.bytes);

    struct cas_test_file_print before;
    cas_test_file_print(path, &before);
    struct cas__saves *s = NULL;
    struct cas__saves_game g;
    char err[1024];
    int rc = cas__saves_open(path, &s, err, sizeof err);
    if (rc == CAS_OK) { /* the header is intact: damage shows when read */
        rc = cas__saves_game_load(s, 1, 1, &g);
        snprintf(err, sizeof err, "%s", cas__saves_errmsg(s));
        cas__saves_close(s);
    }
    assert_int_equal(rc, CAS_ECORRUPT);
    if (!strstr(err, path) || !strstr(err, "damaged"))
        fail_msg("unclear message: %s", err);
    cas_test_file_unchanged(path, &before);
}

/* Several castellans creating the same new store at once: every one
 * migrates or finds it migrated, and every game is kept. */
static void test_concurrent_creation_keeps_every_game(void **state)
{
    char path[512];
    cas_test_dir_file(*state, "shared/saves.db", path, sizeof path);
    pid_t pids[6];
    int start[2];
    assert_int_equal(pipe(start), 0);
    for (size_t i = 0; i < 6; i++) {
        pids[i] = fork();
        assert_true(pids[i] >= 0);
        if (pids[i] == 0) {
            struct cas__saves *s;
            struct cas__saves_game g;
            char err[1024], go;
            close(start[1]);
            if (read(start[0], &go, 1) != 0) /* all start when the pipe closes */
                _exit(3);
            if (cas__saves_open(path, &s, err, sizeof err) != CAS_OK) {
                fprintf(stderr, "%s\n", err);
                _exit(1);
            }
            cas_test_sample_game(&g, "race", "Ada", "Bob", 20);
            int rc = cas__saves_game_insert(s, &g);
            cas__saves_game_free(&g);
            cas__saves_close(s);
            _exit(rc == CAS_OK ? 0 : 2);
        }
    }
    close(start[0]);
    close(start[1]);
    for (size_t i = 0; i < 6; i++) {
        int status;
        assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
    }
    assert_int_equal(cas_test_query_int(path, "SELECT count(*) FROM games;"), 6);
    assert_int_equal(cas_test_query_int(path, "SELECT count(*) FROM actions;"), 120);
    assert_int_equal(cas_test_query_int(path, "PRAGMA user_version;"),
                     CAS__SAVES_SCHEMA_VERSION);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        CAS_TEST_IN_DIR(test_creates_schema_in_new_folders),
        CAS_TEST_IN_DIR(test_store_files_are_private),
        CAS_TEST_IN_DIR(test_empty_file_becomes_a_store),
        CAS_TEST_IN_DIR(test_reopen_keeps_games),
        CAS_TEST_IN_DIR(test_migrates_an_older_schema),
        CAS_TEST_IN_DIR(test_refuses_a_file_that_is_not_sqlite),
        CAS_TEST_IN_DIR(test_refuses_another_applications_database),
        CAS_TEST_IN_DIR(test_refuses_a_newer_schema),
        CAS_TEST_IN_DIR(test_refuses_a_truncated_file),
        CAS_TEST_IN_DIR(test_a_damaged_file_fails_clearly_and_stays_as_is),
        CAS_TEST_IN_DIR(test_concurrent_creation_keeps_every_game),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
