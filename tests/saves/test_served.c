/*
 * test_served.c — what the store keeps of castellan serve's games, on
 * SQLite and PostgreSQL: seat tokens kept only as their SHA-256 (a store
 * of schema 3, which held them in clear, is hashed in place by the normal
 * migration), and a claim replacing the seat's token hash.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "saves_fixture.h"

/* SHA-256 of "abc" and of "" (FIPS 180-2's and the empty message's). */
#define SHA256_ABC "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
#define SHA256_EMPTY "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

/* A game in store s served with seat tokens a and b (seat 1 open). */
static int64_t served_game(struct cas__saves *s, char *a, char *b)
{
    struct cas__saves_game g;
    cas_test_sample_game(&g, NULL, "Ada", "Bob", 2);
    assert_int_equal(cas__saves_game_insert(s, &g), CAS_OK);
    struct cas__saves_served_seat seats[2] = {{a, 0}, {b, 1}};
    struct cas__saves_served served = {.game = g.id, .seats = seats, .n_seats = 2};
    assert_int_equal(cas__saves_served_insert(s, &served), CAS_OK);
    int64_t id = g.id;
    cas__saves_game_free(&g);
    return id;
}

static void test_migration_hashes_clear_tokens_in_place(void **state)
{
    char where[512], err[1024], abc[] = "abc", empty[] = "";
    struct cas__saves *s;
    struct cas__saves_served back;
    cas_test_store_where(state, "saves.db", where, sizeof where);
    assert_int_equal(cas__saves_open_at(where, 3, &s, err, sizeof err), CAS_OK);
    int64_t id = served_game(s, abc, empty);
    cas__saves_close(s);

    s = cas_test_open(where);
    assert_int_equal(cas__saves_schema_version(s), 4);
    assert_int_equal(cas__saves_served_load(s, id, &back), CAS_OK);
    assert_int_equal(back.n_seats, 2);
    assert_string_equal(back.seats[0].token, SHA256_ABC);
    assert_string_equal(back.seats[1].token, SHA256_EMPTY);
    assert_int_equal(back.seats[1].open, 1);
    cas__saves_served_free(&back);
    assert_int_equal(cas_test_query_int(where, "SELECT count(*) FROM served_seats WHERE "
                                        "token = 'abc'"), 0);
    cas__saves_close(s);

    /* Opened again, nothing is hashed twice. */
    s = cas_test_open(where);
    assert_int_equal(cas__saves_served_load(s, id, &back), CAS_OK);
    assert_string_equal(back.seats[0].token, SHA256_ABC);
    cas__saves_served_free(&back);
    cas__saves_close(s);
}

static void test_a_claim_replaces_the_seat_token_hash(void **state)
{
    char where[512], first[] = SHA256_ABC, second[] = SHA256_EMPTY;
    struct cas__saves_served back;
    struct cas__saves_game g;
    struct cas__saves *s = cas_test_open(cas_test_store_where(state, "saves.db", where,
                                                              sizeof where));
    int64_t id = served_game(s, first, second);
    assert_int_equal(cas__saves_served_claim(s, id, 1, "Carol", SHA256_ABC), CAS_OK);
    assert_int_equal(cas__saves_served_load(s, id, &back), CAS_OK);
    assert_string_equal(back.seats[1].token, SHA256_ABC);
    assert_int_equal(back.seats[1].open, 0);
    assert_string_equal(back.seats[0].token, SHA256_ABC);
    cas__saves_served_free(&back);
    assert_int_equal(cas__saves_game_load(s, id, 0, &g), CAS_OK);
    assert_string_equal(g.players[1].name, "Carol");
    cas__saves_game_free(&g);
    assert_int_equal(cas__saves_served_claim(s, id, 7, "Dan", SHA256_ABC), CAS_ENOTFOUND);
    cas__saves_close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        CAS_TEST_IN_DIR(test_migration_hashes_clear_tokens_in_place),
        CAS_TEST_IN_DIR(test_a_claim_replaces_the_seat_token_hash),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
