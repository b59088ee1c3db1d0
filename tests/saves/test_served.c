/*
 * test_served.c — what the store keeps of castellan serve's games, on
 * SQLite and PostgreSQL: seat tokens kept only as their SHA-256 (a store
 * of schema 3, which held them in clear, is hashed in place by the normal
 * migration), a claim replacing the seat's token hash, a served
 * game's practice mark and seed commitment secret, a leaver's seat given
 * to a bot and a game claimed from a leaver, and the last served games
 * finished as the lobby reads them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>
#include <sqlite3.h>

#include "saves_fixture.h"

/* SHA-256 of "abc" and of "" (FIPS 180-2's and the empty message's). */
#define SHA256_ABC "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
#define SHA256_EMPTY "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

/* Run sql on the store at where with a plain connection of its own. */
static void exec_sql(const char *where, const char *sql)
{
    if (cas_test_on_pg()) {
        PGconn *pg = PQconnectdb(where);
        assert_int_equal(PQstatus(pg), CONNECTION_OK);
        PGresult *res = PQexec(pg, sql);
        if (PQresultStatus(res) != PGRES_COMMAND_OK)
            fail_msg("%s: %s", sql, PQerrorMessage(pg));
        PQclear(res);
        PQfinish(pg);
        return;
    }
    sqlite3 *db;
    assert_int_equal(sqlite3_open(where, &db), SQLITE_OK);
    if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
        fail_msg("%s: %s", sql, sqlite3_errmsg(db));
    sqlite3_close(db);
}

/* A game in store s served with seat tokens a and b (seat 1 open). */
static int64_t served_game(struct cas__saves *s, char *a, char *b)
{
    struct cas__saves_game g;
    cas_test_sample_game(&g, NULL, "Ada", "Bob", 2);
    assert_int_equal(cas__saves_game_insert(s, &g), CAS_OK);
    struct cas__saves_served_seat seats[2] = {{a, 0, NULL}, {b, 1, NULL}};
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
    struct cas__saves_game g;
    cas_test_sample_game(&g, NULL, "Ada", "Bob", 2);
    assert_int_equal(cas__saves_game_insert(s, &g), CAS_OK);
    int64_t id = g.id;
    cas__saves_game_free(&g);
    cas__saves_close(s);
    /* As castellan serve of schema 3 stored them: the tokens in clear. */
    char sql[512];
    snprintf(sql, sizeof sql, "INSERT INTO served_games (game, base_ms, increment_ms) "
             "VALUES (%lld, 0, 0); INSERT INTO served_seats (game, seat, token, open) "
             "VALUES (%lld, 0, '%s', 0), (%lld, 1, '%s', 1);", (long long)id,
             (long long)id, abc, (long long)id, empty);
    exec_sql(where, sql);

    s = cas_test_open(where);
    assert_int_equal(cas__saves_schema_version(s), CAS__SAVES_SCHEMA_VERSION);
    assert_int_equal(cas__saves_served_load(s, id, &back), CAS_OK);
    assert_int_equal(back.n_seats, 2);
    assert_string_equal(back.seats[0].token, SHA256_ABC);
    assert_string_equal(back.seats[1].token, SHA256_EMPTY);
    assert_int_equal(back.seats[1].open, 1);
    /* Served before schema 4: no practice game, no seed commitment; nor a
     * correspondence time control (schema 5). */
    assert_int_equal(back.practice, 0);
    assert_null(back.seed_nonce);
    assert_int_equal(back.days_per_move, 0);
    assert_int_equal(back.first_deadline, 0);
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

/* A practice game and a drawn seed's secret are kept with the game. */
static void test_practice_and_seed_nonce_round_trip(void **state)
{
    char where[512], a[] = SHA256_ABC, nonce[] = "00112233445566778899aabbccddeeff";
    struct cas__saves_game g;
    struct cas__saves_served back;
    struct cas__saves *s = cas_test_open(cas_test_store_where(state, "saves.db", where,
                                                              sizeof where));
    int64_t ids[2];
    for (int i = 0; i < 2; i++) {
        cas_test_sample_game(&g, NULL, "Ada", "Bob", 1);
        assert_int_equal(cas__saves_game_insert(s, &g), CAS_OK);
        struct cas__saves_served_seat seats[1] = {{a, 0, NULL}};
        struct cas__saves_served served = {.game = g.id, .seats = seats, .n_seats = 1,
                                           .practice = i == 0, .seed_nonce = i ? nonce : NULL};
        assert_int_equal(cas__saves_served_insert(s, &served), CAS_OK);
        ids[i] = g.id;
        cas__saves_game_free(&g);
    }
    assert_int_equal(cas__saves_served_load(s, ids[0], &back), CAS_OK);
    assert_int_equal(back.practice, 1);
    assert_null(back.seed_nonce);
    cas__saves_served_free(&back);
    assert_int_equal(cas__saves_served_load(s, ids[1], &back), CAS_OK);
    assert_int_equal(back.practice, 0);
    assert_string_equal(back.seed_nonce, nonce);
    cas__saves_served_free(&back);
    cas__saves_close(s);
}

/* A correspondence game's days per move, and its first deadline once its
 * clock started (none before). */
static void test_correspondence_round_trip(void **state)
{
    char where[512], a[] = SHA256_ABC;
    struct cas__saves_game g;
    struct cas__saves_served back;
    struct cas__saves *s = cas_test_open(cas_test_store_where(state, "saves.db", where,
                                                              sizeof where));
    cas_test_sample_game(&g, NULL, "Ada", "Bob", 1);
    assert_int_equal(cas__saves_game_insert(s, &g), CAS_OK);
    struct cas__saves_served_seat seats[1] = {{a, 0, NULL}};
    struct cas__saves_served served = {.game = g.id, .seats = seats, .n_seats = 1,
                                       .days_per_move = 14};
    assert_int_equal(cas__saves_served_insert(s, &served), CAS_OK);
    assert_int_equal(cas__saves_served_load(s, g.id, &back), CAS_OK);
    assert_int_equal(back.days_per_move, 14);
    assert_int_equal(back.first_deadline, 0);
    cas__saves_served_free(&back);
    /* A deadline past 2^32 seconds' worth of ms: 64 bits kept whole. */
    assert_int_equal(cas__saves_served_start(s, g.id, INT64_C(4102444800123)), CAS_OK);
    assert_int_equal(cas__saves_served_load(s, g.id, &back), CAS_OK);
    assert_int_equal(back.first_deadline, INT64_C(4102444800123));
    cas__saves_served_free(&back);
    cas__saves_game_free(&g);
    cas__saves_close(s);
}

/* A bot that took a leaver's seat and a game claimed from a leaver are
 * kept (schema 5), so a restarted server goes on the same way. */
static void test_a_leaver_bot_and_a_forfeit_are_kept(void **state)
{
    char where[512], a[] = SHA256_ABC, b[] = SHA256_EMPTY;
    struct cas__saves_served back;
    struct cas__saves *s = cas_test_open(cas_test_store_where(state, "saves.db", where,
                                                              sizeof where));
    int64_t id = served_game(s, a, b);
    assert_int_equal(cas__saves_served_load(s, id, &back), CAS_OK);
    assert_null(back.seats[0].bot);
    assert_null(back.seats[1].bot);
    assert_int_equal(back.forfeit, 0);
    cas__saves_served_free(&back);

    assert_int_equal(cas__saves_served_bot(s, id, 1, "greedy"), CAS_OK);
    assert_int_equal(cas__saves_served_bot(s, id, 5, "greedy"), CAS_ENOTFOUND);
    assert_int_equal(cas__saves_served_flag(s, id, 0, 1), CAS_OK);
    int64_t scores[2] = {3, 8};
    assert_int_equal(cas__saves_finish(s, id, scores, 2), CAS_OK);
    cas__saves_close(s);

    s = cas_test_open(where);
    assert_int_equal(cas__saves_served_load(s, id, &back), CAS_OK);
    assert_null(back.seats[0].bot);
    assert_string_equal(back.seats[1].bot, "greedy");
    assert_int_equal(back.flagged, 0);
    assert_int_equal(back.forfeit, 1);
    cas__saves_served_free(&back);
    struct cas__saves_result *results;
    size_t n;
    assert_int_equal(cas__saves_results(s, NULL, &results, &n), CAS_OK);
    assert_int_equal(n, 1);
    assert_int_equal(results[0].flagged, 0);
    assert_int_equal(results[0].forfeit, 1);
    cas__saves_results_free(results, n);
    cas__saves_close(s);
}

/* The lobby's recent games: the last `limit` served games finished, with
 * their players, scores and expansions; games not served and games still
 * played are not among them. */
static void test_recent_served_games(void **state)
{
    char where[512], a[] = SHA256_ABC, b[] = SHA256_EMPTY;
    struct cas__saves *s = cas_test_open(cas_test_store_where(state, "saves.db", where,
                                                              sizeof where));
    int64_t served[4];
    for (int i = 0; i < 4; i++)
        served[i] = served_game(s, a, b);
    struct cas__saves_game terminal;
    cas_test_sample_game(&terminal, NULL, "Cy", "Di", 2);
    assert_int_equal(cas__saves_game_insert(s, &terminal), CAS_OK);
    /* Finished in the order 1, 0, terminal, 2; game 3 is still played. */
    const int64_t order[] = {served[1], served[0], terminal.id, served[2]};
    for (int i = 0; i < 4; i++) {
        int64_t scores[2] = {10 * i, 10 * i + 1};
        assert_int_equal(cas__saves_finish(s, order[i], scores, 2), CAS_OK);
    }
    cas__saves_game_free(&terminal);

    struct cas__saves_result *r;
    size_t n;
    assert_int_equal(cas__saves_served_recent(s, 2, &r, &n), CAS_OK);
    assert_int_equal(n, 2);
    /* Served game 2 finished last and has the greatest id (a tie of
     * finishing times goes by id): the newest, given last. */
    assert_int_equal(r[1].id, served[2]);
    assert_true(r[0].id == served[0] || r[0].id == served[1]);
    assert_int_equal(r[1].n_players, 2);
    assert_string_equal(r[1].players[0].name, "Ada");
    assert_string_equal(r[1].players[1].name, "Bob");
    assert_int_equal(r[1].players[1].score, 31);
    assert_string_equal(r[1].game_id, "fixture");
    assert_string_equal(r[1].expansions, "fixture-extra");
    assert_int_equal(r[1].flagged, -1);
    cas__saves_results_free(r, n);

    assert_int_equal(cas__saves_served_recent(s, 10, &r, &n), CAS_OK);
    assert_int_equal(n, 3); /* every served game finished, no other */
    for (size_t i = 0; i < n; i++)
        assert_true(r[i].id != served[3] && r[i].id != order[2]);
    cas__saves_results_free(r, n);
    cas__saves_close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        CAS_TEST_IN_DIR(test_migration_hashes_clear_tokens_in_place),
        CAS_TEST_IN_DIR(test_a_claim_replaces_the_seat_token_hash),
        CAS_TEST_IN_DIR(test_practice_and_seed_nonce_round_trip),
        CAS_TEST_IN_DIR(test_a_leaver_bot_and_a_forfeit_are_kept),
        CAS_TEST_IN_DIR(test_recent_served_games),
        CAS_TEST_IN_DIR(test_correspondence_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
