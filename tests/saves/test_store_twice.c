/*
 * test_store_twice.c — a SQLite store opened twice by one process (castellan
 * serve opens the loop's store, then the journal writer's) while other
 * castellans open and close it: every write of the first connection stays
 * visible to them.  Opening the second store once read the file's header
 * with open() and close(), and closing that descriptor dropped every POSIX
 * lock the process held on the file; the next castellan to close the store
 * then took the last connection's exclusive lock, checkpointed and deleted
 * the -wal and -shm under the server, whose later writes went to deleted
 * files without an error.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "cli_run.h"

#define castellan(state, r, ...) cas_test_castellan(*(state), r, __VA_ARGS__)

/* The PLIES column of game id's row in `castellan saves list`. */
static long plies_listed(void **state, const char *db, int64_t id)
{
    struct cas_test_result r;
    castellan(state, &r, "saves", "list", "--database", db, NULL);
    assert_int_equal(r.status, 0);
    for (const char *line = r.out; line && *line; line = strchr(line, '\n') + 1) {
        long long game;
        long plies;
        char status[32];
        if (sscanf(line, "%lld %31s %ld", &game, status, &plies) == 3 && game == id)
            return plies;
        if (!strchr(line, '\n'))
            break;
    }
    fail_msg("game %lld is not in castellan saves list:\n%s", (long long)id, r.out);
    return -1;
}

static void test_a_second_connection_keeps_the_first_ones_writes_seen(void **state)
{
    struct cas_test_result r;
    struct cas__saves_game g;
    char db[512];
    cas_test_dir_file(*state, "saves.db", db, sizeof db);
    struct cas__saves *loop = cas_test_open(db);
    cas_test_sample_game(&g, NULL, "Ada", "Bob", 3);
    assert_int_equal(cas__saves_game_insert(loop, &g), CAS_OK);
    struct cas__saves *writer = cas_test_open(db);

    /* Another castellan writes and closes, as `players add` does while
     * serve runs. */
    castellan(state, &r, "players", "add", "Cleo", "--database", db, NULL);
    assert_int_equal(r.status, 0);

    assert_int_equal(cas__saves_append(loop, g.id, 3, 0, "move 3", 3), CAS_OK);
    assert_int_equal(plies_listed(state, db, g.id), 4);
    int64_t cleo;
    struct cas__saves_registered who;
    assert_int_equal(cas__saves_registered_find(loop, "Cleo", &who), CAS_OK);
    cleo = who.id;
    cas__saves_registered_free(&who);
    assert_int_equal(cas__saves_registered_seen(loop, cleo), CAS_OK);
    castellan(state, &r, "players", "list", "--database", db, NULL);
    assert_int_equal(r.status, 0);
    assert_null(strstr(r.out, "never"));

    /* And the second connection's, after the first closed. */
    cas__saves_close(loop);
    assert_int_equal(cas__saves_append(writer, g.id, 4, 1, "move 4", 4), CAS_OK);
    assert_int_equal(plies_listed(state, db, g.id), 5);
    cas__saves_close(writer);
    cas__saves_game_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        CAS_TEST_IN_DIR(test_a_second_connection_keeps_the_first_ones_writes_seen),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
