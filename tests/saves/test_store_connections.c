/*
 * test_store_connections.c — several connections to one store in one
 * process (castellan serve's loop, its journal writer and its club
 * thread): opening the second must not drop the locks of the first, or
 * another castellan that opens and closes the store meanwhile takes it for
 * unused, checkpoints its WAL away, and the first connection's later
 * writes are lost to every other reader.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "cli_run.h"

#define HASH_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define HASH_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

static void test_a_second_connection_keeps_the_first_ones_writes_visible(void **state)
{
    char path[512];
    int64_t id;
    struct cas_test_result r;
    cas_test_dir_file(*state, "club.db", path, sizeof path);
    struct cas__saves *loop = cas_test_open(path);
    assert_int_equal(cas__saves_registered_add(loop, "Ada", HASH_A, &id), CAS_OK);

    struct cas__saves *writer = cas_test_open(path);
    struct cas__saves *reader;
    char err[512];
    assert_int_equal(cas__saves_open_read(path, &reader, err, sizeof err), CAS_OK);

    /* Another castellan writes the store and closes it while all three are
     * open: it must not take itself for the last one. */
    cas_test_castellan(*state, &r, "players", "add", "Cy", "--database", path, NULL);
    assert_int_equal(r.status, 0);

    assert_int_equal(cas__saves_registered_add(loop, "Bob", HASH_B, &id), CAS_OK);
    cas_test_castellan(*state, &r, "players", "list", "--database", path, NULL);
    assert_int_equal(r.status, 0);
    cas_test_expect_text(r.out, "Bob");

    cas__saves_close(reader);
    cas__saves_close(writer);
    cas__saves_close(loop);
}

/* The PLIES column of game id's row in `castellan saves list`. */
static long plies_listed(void **state, const char *db, int64_t id)
{
    struct cas_test_result r;
    cas_test_castellan(*state, &r, "saves", "list", "--database", db, NULL);
    assert_int_equal(r.status, 0);
    for (const char *line = r.out; *line;) {
        long long game;
        long plies;
        char status[32];
        if (sscanf(line, "%lld %31s %ld", &game, status, &plies) == 3 && game == id)
            return plies;
        const char *end = strchr(line, '\n');
        line = end ? end + 1 : line + strlen(line);
    }
    fail_msg("game %lld is not in castellan saves list:\n%s", (long long)id, r.out);
    return -1;
}

/* The journal too: a move appended on the loop's connection after another
 * castellan closed the store is durable, and so is one of the writer's
 * after the loop's connection closed. */
static void test_moves_stay_durable_beside_another_connection(void **state)
{
    char path[512];
    struct cas_test_result r;
    struct cas__saves_game g;
    cas_test_dir_file(*state, "moves.db", path, sizeof path);
    struct cas__saves *loop = cas_test_open(path);
    cas_test_sample_game(&g, NULL, "Ada", "Bob", 3);
    assert_int_equal(cas__saves_game_insert(loop, &g), CAS_OK);
    struct cas__saves *writer = cas_test_open(path);

    cas_test_castellan(*state, &r, "players", "add", "Cy", "--database", path, NULL);
    assert_int_equal(r.status, 0);
    assert_int_equal(cas__saves_append(loop, g.id, 3, 1, "move 3", 3), CAS_OK);
    assert_int_equal(plies_listed(state, path, g.id), 4);

    cas__saves_close(loop);
    assert_int_equal(cas__saves_append(writer, g.id, 4, 0, "move 4", 4), CAS_OK);
    assert_int_equal(plies_listed(state, path, g.id), 5);
    cas__saves_close(writer);
    cas__saves_game_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        CAS_TEST_IN_DIR(test_a_second_connection_keeps_the_first_ones_writes_visible),
        CAS_TEST_IN_DIR(test_moves_stay_durable_beside_another_connection),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
