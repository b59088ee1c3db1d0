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

int main(void)
{
    const struct CMUnitTest tests[] = {
        CAS_TEST_IN_DIR(test_a_second_connection_keeps_the_first_ones_writes_visible),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
