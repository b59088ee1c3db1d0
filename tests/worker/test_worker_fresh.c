/*
 * test_worker_fresh.c — a worker is a fresh program, not a fork of
 * castellan (issue 41, item 3): the rogue-spy plugin (spy.c) reports,
 * from its game_new, what the process it runs in holds.  With a secret
 * in this process's heap, a SQLite store open in WAL mode (its -shm
 * index mapped) and a variable in the environment, the worker holds none
 * of them: it is castellan-worker, with the socket and the plugin's
 * library as its only descriptors and no variable but the sanitizer's.
 * The same spy loaded into this process finds all of them, so the search
 * is shown to work.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "target.h"

/* The spy's report when the rogue-spy game is opened with iso: its
 * game_new fails on purpose, its error the report. */
static void spy(enum cas__isolation_mode mode, char *report, size_t cap)
{
    struct cas__target t;
    struct cas__match m;
    char err[2048];
    struct cas__target_request req = {
        .plugin_path = ROGUE_PLUGIN_DIR, .game = "rogue-spy", .game_flag = "--game",
        /* The spy reads the worker's whole memory: under a sanitizer on a
         * busy machine that outlasts the 5 s a game's call gets by default,
         * and how busy the machine is must not decide the test. */
        .isolation = {.mode = mode, .deadline_ms = 300000},
    };
    assert_int_equal(cas__target_open(&t, &req, err, sizeof err), CAS_OK);
    assert_int_not_equal(cas__target_match(&t, &m, 2, err, sizeof err), CAS_OK);
    const char *at = strstr(err, "exe=");
    if (!at)
        fail_msg("no report from the spy: %s", err);
    snprintf(report, cap, "%s", at);
    cas__target_close(&t);
}

/* A secret in the heap, its XOR 0x5a for the spy in ROGUE_KEY; a store in
 * WAL mode, open; a variable in the environment. */
static void test_worker_holds_nothing_of_castellan(void **unused)
{
    (void)unused;
    unsigned char random[16];
    assert_int_equal(getrandom(random, sizeof random, 0), (ssize_t)sizeof random);
    char *secret = malloc(64);
    assert_non_null(secret);
    int len = snprintf(secret, 64, "seat-token-");
    for (size_t i = 0; i < sizeof random; i++)
        len += snprintf(secret + len, 64 - (size_t)len, "%02x", random[i]);
    FILE *key = fopen("ROGUE_KEY", "w");
    assert_non_null(key);
    for (int i = 0; i < len; i++)
        fprintf(key, "%02x", (unsigned char)secret[i] ^ 0x5a);
    fclose(key);
    assert_int_equal(setenv("CASTELLAN_TEST_SECRET", "in the environment", 1), 0);

    sqlite3 *db;
    unlink("spy.db");
    unlink("spy.db-wal");
    unlink("spy.db-shm");
    assert_int_equal(sqlite3_open("spy.db", &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "PRAGMA journal_mode=WAL; CREATE TABLE t(x); "
                                      "INSERT INTO t VALUES (1);", NULL, NULL, NULL),
                     SQLITE_OK);

    char report[2048];
    spy(CAS__ISOLATE_WORKER, report, sizeof report);
    assert_string_equal(report, "exe=castellan-worker marker=absent control=found "
                                "shm=absent fds=socket,lib env=0");

    /* in process the spy is castellan: everything is there */
    spy(CAS__ISOLATE_IN_PROCESS, report, sizeof report);
    assert_non_null(strstr(report, " marker=found control=found shm=found fds="));
    assert_null(strstr(report, " env=0"));

    sqlite3_close(db);
    unsetenv("CASTELLAN_TEST_SECRET");
    memset(secret, 0, 64);
    free(secret);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_worker_holds_nothing_of_castellan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
