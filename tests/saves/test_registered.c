/*
 * test_registered.c — the players registered on a server, on SQLite and
 * PostgreSQL: add, rename, remove and a new key; names unique whatever
 * their case and checked; keys kept only as the hash of their secret
 * (player_key.c issues and checks them); a seat taken by a registered
 * player followed by ratings' reading and game loads across a rename, and
 * kept, unlinked, when the player is removed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "player_key.h"
#include "saves_fixture.h"
#include "server.h"

#define HASH_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define HASH_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

static struct cas__saves *open_store(void **state, char *where, size_t cap)
{
    return cas_test_open(cas_test_store_where(state, "saves.db", where, cap));
}

static void test_names_are_checked(void **state)
{
    (void)state;
    char err[256];
    const char *good[] = {"Ada", "Ada Lovelace", "Zoë", "ÉLODIE-2", "x",
                          "12345678901234567890123456789012"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++)
        if (cas__saves_name_check(good[i], err, sizeof err))
            fail_msg("\"%s\" refused: %s", good[i], err);
    const struct {
        const char *name, *words;
    } bad[] = {
        {"", "may not be empty"},
        {" Ada", "begins or ends with a space"},
        {"Ada ", "begins or ends with a space"},
        {"a,b", "comma"},
        {"a:b", "colon"},
        {"a\tb", "control character"},
        {"a\x7f", "control character"},
        {"a\xc2\x85", "control character"},   /* U+0085, a C1 control */
        {"a\xff", "not UTF-8"},
        {"a\xc0\xaf", "not UTF-8"},            /* an overlong '/' */
        {"a\xed\xa0\x80", "not UTF-8"},        /* a surrogate */
        {"123456789012345678901234567890123", "33 characters; at most 32"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = '\0';
        assert_int_equal(cas__saves_name_check(bad[i].name, err, sizeof err), CAS_EINVAL);
        if (!strstr(err, bad[i].words))
            fail_msg("name %zu: \"%s\" does not say \"%s\"", i, err, bad[i].words);
    }
    char key[64];
    cas__saves_name_key("ÉLODIE Ada", key, sizeof key);
    assert_string_equal(key, "Élodie ada"); /* ASCII letters folded, the rest kept */
}

static void test_add_list_rename_link_remove(void **state)
{
    char where[512];
    int64_t ada, bob, again;
    struct cas__saves *s = open_store(state, where, sizeof where);
    assert_int_equal(cas__saves_registered_add(s, "Ada", HASH_A, &ada), CAS_OK);
    assert_int_equal(cas__saves_registered_add(s, "bob", HASH_B, &bob), CAS_OK);
    assert_true(ada > 0 && bob > 0 && ada != bob);

    struct cas__saves_registered *all;
    size_t n;
    assert_int_equal(cas__saves_registered_list(s, &all, &n), CAS_OK);
    assert_int_equal(n, 2);
    assert_string_equal(all[0].name, "Ada");
    assert_string_equal(all[0].key_hash, HASH_A);
    assert_null(all[0].last_seen);
    assert_int_equal(all[0].games, 0);
    assert_string_equal(all[1].name, "bob");
    cas__saves_registered_list_free(all, n);

    struct cas__saves_registered r;
    assert_int_equal(cas__saves_registered_find(s, "ADA", &r), CAS_OK);
    assert_int_equal(r.id, ada);
    cas__saves_registered_free(&r);

    assert_int_equal(cas__saves_registered_seen(s, ada), CAS_OK);
    assert_int_equal(cas__saves_registered_get(s, ada, &r), CAS_OK);
    assert_non_null(r.last_seen);
    cas__saves_registered_free(&r);

    /* Rename, also a change of case only; not onto another's name. */
    assert_int_equal(cas__saves_registered_rename(s, "bob", "Bob"), CAS_OK);
    assert_int_equal(cas__saves_registered_rename(s, "Bob", "ADA"), CAS_ECONFLICT);
    assert_non_null(strstr(cas__saves_errmsg(s), "a player named \"ADA\" exists already"));
    assert_int_equal(cas__saves_registered_rename(s, "Bob", "Robert"), CAS_OK);
    assert_int_equal(cas__saves_registered_find(s, "bob", &r), CAS_ENOTFOUND);
    assert_non_null(strstr(cas__saves_errmsg(s), "no player named \"bob\""));
    assert_int_equal(cas__saves_registered_rename(s, "nobody", "Eve"), CAS_ENOTFOUND);
    assert_int_equal(cas__saves_registered_rename(s, "Robert", "Ro,bert"), CAS_EINVAL);

    /* A new key replaces the hash of the old. */
    assert_int_equal(cas__saves_registered_rekey(s, "robert", HASH_A, &again), CAS_OK);
    assert_int_equal(again, bob);
    assert_int_equal(cas__saves_registered_get(s, bob, &r), CAS_OK);
    assert_string_equal(r.key_hash, HASH_A);
    assert_string_equal(r.name, "Robert");
    cas__saves_registered_free(&r);
    assert_int_equal(cas__saves_registered_rekey(s, "nobody", HASH_A, &again), CAS_ENOTFOUND);

    assert_int_equal(cas__saves_registered_remove(s, "ROBERT"), CAS_OK);
    assert_int_equal(cas__saves_registered_remove(s, "Robert"), CAS_ENOTFOUND);
    assert_int_equal(cas__saves_registered_get(s, bob, &r), CAS_ENOTFOUND);
    /* The name is free again. */
    assert_int_equal(cas__saves_registered_add(s, "robert", HASH_B, &again), CAS_OK);
    cas__saves_close(s);
}

static void test_names_are_unique_whatever_their_case(void **state)
{
    char where[512];
    int64_t id;
    struct cas__saves *s = open_store(state, where, sizeof where);
    assert_int_equal(cas__saves_registered_add(s, "Ada Lovelace", HASH_A, &id), CAS_OK);
    assert_int_equal(cas__saves_registered_add(s, "ada LOVELACE", HASH_B, &id), CAS_ECONFLICT);
    assert_non_null(strstr(cas__saves_errmsg(s), "choose another name"));
    assert_int_equal(cas__saves_registered_add(s, "Ada,", HASH_B, &id), CAS_EINVAL);
    assert_non_null(strstr(cas__saves_errmsg(s), "comma"));
    assert_int_equal(cas_test_query_int(where, "SELECT count(*) FROM registered_players"), 1);
    cas__saves_close(s);
}

static void test_keys_are_kept_as_hashes(void **state)
{
    char where[512], key[CAS__PLAYER_KEY_MAX], sql[512], hash[CAS__HASH_LEN + 1];
    const char *why = NULL;
    struct cas__saves *s = open_store(state, where, sizeof where);
    struct cas__saves_registered r;
    assert_int_equal(cas__player_key_issue(s, "Ada", 0, key), CAS_OK);
    const char *secret = strchr(key, '.') + 1;
    assert_int_equal(strlen(secret), CAS__PLAYER_SECRET_LEN);
    /* The store holds SHA-256(secret) and no column holds the secret. */
    assert_int_equal(cas__sha256_hex(secret, hash), CAS_OK);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM registered_players WHERE key_hash = '%s'",
             hash);
    assert_int_equal(cas_test_query_int(where, sql), 1);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM registered_players WHERE key_hash LIKE "
             "'%%%s%%' OR name LIKE '%%%s%%'", secret, secret);
    assert_int_equal(cas_test_query_int(where, sql), 0);

    assert_int_equal(cas__player_key_check(s, key, &r, &why), CAS_OK);
    assert_string_equal(r.name, "Ada");
    cas__saves_registered_free(&r);

    /* A wrong secret, another player's number, a malformed key. */
    char wrong[CAS__PLAYER_KEY_MAX];
    snprintf(wrong, sizeof wrong, "%s", key);
    wrong[strlen(wrong) - 1] = wrong[strlen(wrong) - 1] == '0' ? '1' : '0';
    assert_int_equal(cas__player_key_check(s, wrong, &r, &why), CAS_EMISMATCH);
    assert_non_null(strstr(why, "no longer works"));
    assert_null(strstr(why, secret));
    char other[CAS__PLAYER_KEY_MAX + 8];
    snprintf(other, sizeof other, "99%s", key);
    assert_int_equal(cas__player_key_check(s, other, &r, &why), CAS_EMISMATCH);
    const char *malformed[] = {"", ".", "1.", "abc", "1.XYZ", "-1.00", NULL};
    for (size_t i = 0; i < sizeof malformed / sizeof *malformed; i++) {
        assert_int_equal(cas__player_key_check(s, malformed[i], &r, &why),
                         CAS_EMISMATCH);
        assert_non_null(strstr(why, "not one castellan makes"));
    }

    /* A new key revokes the old one. */
    char fresh[CAS__PLAYER_KEY_MAX];
    assert_int_equal(cas__player_key_issue(s, "ada", 1, fresh), CAS_OK);
    assert_string_not_equal(fresh, key);
    assert_int_equal(cas__player_key_check(s, key, &r, &why), CAS_EMISMATCH);
    assert_int_equal(cas__player_key_check(s, fresh, &r, &why), CAS_OK);
    cas__saves_registered_free(&r);
    /* A removed player's key works no more. */
    assert_int_equal(cas__saves_registered_remove(s, "Ada"), CAS_OK);
    assert_int_equal(cas__player_key_check(s, fresh, &r, &why), CAS_EMISMATCH);
    cas__saves_close(s);
}

/* The registered name of seat `seat` of game id as loads and results see it. */
static void assert_seat(struct cas__saves *s, int64_t id, int seat, const char *name,
                        const char *registered)
{
    struct cas__saves_game g;
    assert_int_equal(cas__saves_game_load(s, id, 0, &g), CAS_OK);
    cas_test_assert_player(&g.players[seat], name, registered);
    cas__saves_game_free(&g);
    struct cas__saves_result *r;
    size_t n;
    assert_int_equal(cas__saves_results(s, NULL, &r, &n), CAS_OK);
    assert_int_equal(n, 1);
    cas_test_assert_player(&r[0].players[seat], name, registered);
    cas__saves_results_free(r, n);
}

static void test_a_seat_follows_its_player(void **state)
{
    char where[512];
    int64_t ada;
    struct cas__saves *s = open_store(state, where, sizeof where);
    struct cas__saves_game g;
    cas_test_sample_game(&g, NULL, "Ada", "Bob", 2);
    assert_int_equal(cas__saves_game_insert(s, &g), CAS_OK);
    int64_t scores[2] = {10, 7};
    assert_int_equal(cas__saves_finish(s, g.id, scores, 2), CAS_OK);
    assert_int_equal(cas__saves_registered_add(s, "Ada", HASH_A, &ada), CAS_OK);
    assert_seat(s, g.id, 0, "Ada", NULL);

    assert_int_equal(cas__saves_seat_register(s, g.id, 0, ada), CAS_OK);
    assert_seat(s, g.id, 0, "Ada", "Ada");
    struct cas__saves_registered r;
    assert_int_equal(cas__saves_registered_find(s, "ada", &r), CAS_OK);
    assert_int_equal(r.games, 1);
    cas__saves_registered_free(&r);

    /* Renamed: the seat keeps its name, the player's games follow. */
    assert_int_equal(cas__saves_registered_rename(s, "Ada", "Ada L."), CAS_OK);
    assert_seat(s, g.id, 0, "Ada", "Ada L.");
    assert_seat(s, g.id, 1, "Bob", NULL);

    /* Removed: the game and the seat's name stay, unlinked. */
    assert_int_equal(cas__saves_registered_remove(s, "Ada L."), CAS_OK);
    assert_seat(s, g.id, 0, "Ada", NULL);
    cas__saves_game_free(&g);
    cas__saves_close(s);
}

/* A player copied into another store keeps number, name and key; copying
 * again is a no-op; another player under that number or name is refused;
 * a player added afterwards gets a new number. */
static void test_a_copy_keeps_the_key(void **state)
{
    char where[512], there_at[512], err[1024], key[CAS__PLAYER_KEY_MAX];
    const char *why;
    struct cas__saves *s = open_store(state, where, sizeof where), *there;
    struct cas__saves_registered ada, back;
    int64_t id;
    assert_int_equal(cas__player_key_issue(s, "Ada", 0, key), CAS_OK);
    assert_int_equal(cas__saves_registered_find(s, "Ada", &ada), CAS_OK);
    if (cas_test_on_pg())
        cas_test_pg_database(there_at, sizeof there_at);
    else
        cas_test_dir_file(*state, "there.db", there_at, sizeof there_at);
    assert_int_equal(cas__saves_open(there_at, &there, err, sizeof err), CAS_OK);
    assert_int_equal(cas__saves_registered_copy(there, &ada), CAS_OK);
    assert_int_equal(cas__saves_registered_copy(there, &ada), CAS_OK);
    assert_int_equal(cas__player_key_check(there, key, &back, &why), CAS_OK);
    assert_int_equal(back.id, ada.id);
    assert_string_equal(back.created_at, ada.created_at);
    cas__saves_registered_free(&back);
    assert_int_equal(cas__saves_registered_add(there, "Bob", HASH_B, &id), CAS_OK);
    assert_true(id > ada.id);
    struct cas__saves_registered other = ada;
    other.name = "Eve";
    assert_int_equal(cas__saves_registered_copy(there, &other), CAS_ECONFLICT);
    other = ada;
    other.id = id + 1;
    assert_int_equal(cas__saves_registered_copy(there, &other), CAS_ECONFLICT);
    assert_non_null(strstr(cas__saves_errmsg(there), "exists already"));
    cas__saves_registered_free(&ada);
    cas__saves_close(there);
    cas__saves_close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_are_checked),
        CAS_TEST_IN_DIR(test_add_list_rename_link_remove),
        CAS_TEST_IN_DIR(test_names_are_unique_whatever_their_case),
        CAS_TEST_IN_DIR(test_keys_are_kept_as_hashes),
        CAS_TEST_IN_DIR(test_a_seat_follows_its_player),
        CAS_TEST_IN_DIR(test_a_copy_keeps_the_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
