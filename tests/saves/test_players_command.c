/*
 * test_players_command.c — `castellan players` run as a user would: add
 * prints a sign-in link on the address it says it used (--url, a settings
 * file's public-url, or serve's default), names are unique whatever their
 * case and checked, list, rename, link (a new key) and remove, and every
 * mistake is named with its fix and a nonzero status.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "cli_run.h"

#define castellan(state, r, ...) cas_test_castellan(*(state), r, __VA_ARGS__)

/* The key of the link in out ("...#signin=KEY"), into key[cap]. */
static void link_key(const char *out, char *key, size_t cap)
{
    const char *at = strstr(out, "#signin=");
    if (!at)
        fail_msg("no sign-in link in: %s", out);
    at += strlen("#signin=");
    size_t len = strcspn(at, "\n");
    assert_true(len < cap);
    memcpy(key, at, len);
    key[len] = '\0';
}

static void test_add_prints_a_link_on_the_address_it_names(void **state)
{
    struct cas_test_result r;
    char key[128], conf[512];
    castellan(state, &r, "players", "add", "Ada", NULL);
    assert_int_equal(r.status, 0);
    cas_test_expect_text(r.out, "Added player Ada");
    cas_test_expect_text(r.out, "http://127.0.0.1:8080/#signin=1.");
    cas_test_expect_text(r.out, "castellan serve's default address; give --url URL");
    link_key(r.out, key, sizeof key);
    assert_int_equal(strlen(key), 2 + 64);

    castellan(state, &r, "players", "add", "Bob", "--url", "https://games.example.org/", NULL);
    assert_int_equal(r.status, 0);
    cas_test_expect_text(r.out, "https://games.example.org/#signin=2.");
    cas_test_expect_text(r.out, "(address from --url)");

    cas_test_dir_file(*state, "serve.ini", conf, sizeof conf);
    const char ini[] = "[server]\npublic-url = https://club.example.net\n";
    cas_test_write_file(conf, ini, sizeof ini - 1);
    castellan(state, &r, "players", "add", "Cy", "--config", conf, NULL);
    assert_int_equal(r.status, 0);
    cas_test_expect_text(r.out, "https://club.example.net/#signin=3.");
    cas_test_expect_text(r.out, "public-url of --config");

    castellan(state, &r, "players", "add", "Di", "--url", "ftp://x", NULL);
    assert_int_equal(r.status, 2);
    cas_test_expect_text(r.err, "--url ftp://x: write the address browsers use");
    const char bad_ini[] = "[server]\npublic-url = https://a.example/#x\n";
    cas_test_write_file(conf, bad_ini, sizeof bad_ini - 1);
    castellan(state, &r, "players", "add", "Di", "--config", conf, NULL);
    assert_int_equal(r.status, 1);
    cas_test_expect_text(r.err, "serve.ini:2: public-url = https://a.example/#x: leave out");
}

static void test_names_mistakes_and_the_other_subcommands(void **state)
{
    struct cas_test_result r;
    char first[128], second[128];
    castellan(state, &r, "players", "--help", NULL);
    assert_int_equal(r.status, 0);
    cas_test_expect_text(r.out, "usage: castellan players add NAME");
    castellan(state, &r, "players", "list", NULL);
    assert_int_equal(r.status, 1); /* no store yet: list creates none */
    castellan(state, &r, "players", "add", "Ada Lovelace", NULL);
    assert_int_equal(r.status, 0);
    link_key(r.out, first, sizeof first);
    castellan(state, &r, "players", "add", "ADA lovelace", NULL);
    assert_int_equal(r.status, 1);
    cas_test_expect_text(r.err, "a player named \"ADA lovelace\" exists already");
    castellan(state, &r, "players", "add", "a:b", NULL);
    assert_int_equal(r.status, 1);
    cas_test_expect_text(r.err, "holds a colon");
    castellan(state, &r, "players", "add", NULL);
    assert_int_equal(r.status, 2);
    cas_test_expect_text(r.err, "takes one NAME");
    castellan(state, &r, "players", "promote", "Ada", NULL);
    assert_int_equal(r.status, 2);
    cas_test_expect_text(r.err, "unknown subcommand \"promote\"");

    castellan(state, &r, "players", "list", NULL);
    assert_int_equal(r.status, 0);
    cas_test_expect_text(r.out, "NAME");
    cas_test_expect_text(r.out, "Ada Lovelace");
    cas_test_expect_text(r.out, "never");

    castellan(state, &r, "players", "link", "ada lovelace", NULL);
    assert_int_equal(r.status, 0);
    cas_test_expect_text(r.out, "Ada Lovelace has a new key; the old one no longer works");
    link_key(r.out, second, sizeof second);
    assert_string_not_equal(first, second);

    castellan(state, &r, "players", "rename", "Ada Lovelace", "Ada", NULL);
    assert_int_equal(r.status, 0);
    castellan(state, &r, "players", "rename", "Nobody", "Eve", NULL);
    assert_int_equal(r.status, 1);
    cas_test_expect_text(r.err, "there is no player named \"Nobody\"");
    castellan(state, &r, "players", "remove", "ada", NULL);
    assert_int_equal(r.status, 0);
    cas_test_expect_text(r.out, "Removed player Ada; their key no longer works");
    cas_test_expect_text(r.out, "keep the name Ada in results");
    castellan(state, &r, "players", "list", NULL);
    assert_int_equal(r.status, 0);
    cas_test_expect_text(r.out, "no players in");
}

/* A rename onto a taken or bad name, and a remove or link of nobody, are
 * refused with their reason and change nothing. */
static void test_refused_changes_change_nothing(void **state)
{
    struct cas_test_result r;
    castellan(state, &r, "players", "add", "Ada", NULL);
    assert_int_equal(r.status, 0);
    castellan(state, &r, "players", "add", "Bob", NULL);
    assert_int_equal(r.status, 0);
    castellan(state, &r, "players", "rename", "Bob", "ADA", NULL);
    assert_int_equal(r.status, 1);
    cas_test_expect_text(r.err, "a player named \"ADA\" exists already (names are the same "
                                "whatever their case): choose another name");
    castellan(state, &r, "players", "rename", "Bob", "a:b", NULL);
    assert_int_equal(r.status, 1);
    cas_test_expect_text(r.err, "the name \"a:b\" holds a colon");
    castellan(state, &r, "players", "remove", "Nobody", NULL);
    assert_int_equal(r.status, 1);
    cas_test_expect_text(r.err, "there is no player named \"Nobody\"; `castellan players list` "
                                "shows them");
    castellan(state, &r, "players", "link", "Nobody", NULL);
    assert_int_equal(r.status, 1);
    cas_test_expect_text(r.err, "there is no player named \"Nobody\"");
    castellan(state, &r, "players", "list", NULL);
    assert_int_equal(r.status, 0);
    cas_test_expect_text(r.out, "Ada ");
    cas_test_expect_text(r.out, "Bob ");
}

/* saves migrate takes the players along, keys and seats included. */
static void test_migrate_copies_the_players(void **state)
{
    struct cas_test_result r;
    char from[512], to[512];
    castellan(state, &r, "players", "add", "Ada", NULL);
    assert_int_equal(r.status, 0);
    cas_test_dir_file(*state, "castellan/saves.db", from, sizeof from);
    cas_test_dir_file(*state, "to.db", to, sizeof to);
    struct cas__saves *s = cas_test_open(from);
    struct cas__saves_game g;
    struct cas__saves_registered ada;
    cas_test_sample_game(&g, NULL, "Ada", "Bob", 2);
    assert_int_equal(cas__saves_game_insert(s, &g), CAS_OK);
    assert_int_equal(cas__saves_registered_find(s, "ada", &ada), CAS_OK);
    assert_int_equal(cas__saves_seat_register(s, g.id, 0, ada.id), CAS_OK);
    cas__saves_close(s);
    castellan(state, &r, "saves", "migrate", from, to, NULL);
    if (r.status != 0)
        fail_msg("migrate: %s", r.err);
    cas_test_expect_text(r.out, "1 registered player copied and checked");
    castellan(state, &r, "players", "list", "--database", to, NULL);
    assert_int_equal(r.status, 0);
    cas_test_expect_text(r.out, "Ada");
    s = cas_test_open(to);
    struct cas__saves_registered back;
    assert_int_equal(cas__saves_registered_find(s, "Ada", &back), CAS_OK);
    assert_int_equal(back.id, ada.id);
    assert_string_equal(back.key_hash, ada.key_hash);
    assert_int_equal(back.games, 1);
    cas__saves_registered_free(&back);
    struct cas__saves_game copied;
    assert_int_equal(cas__saves_game_load(s, g.id, 0, &copied), CAS_OK);
    cas_test_assert_player(&copied.players[0], "Ada", "Ada");
    cas__saves_game_free(&copied);
    cas__saves_close(s);
    cas__saves_registered_free(&ada);
    cas__saves_game_free(&g);
    /* Again: everything is there already, the same. */
    castellan(state, &r, "saves", "migrate", from, to, NULL);
    assert_int_equal(r.status, 0);
    cas_test_expect_text(r.out, "already there, the same");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        CAS_TEST_IN_DIR(test_add_prints_a_link_on_the_address_it_names),
        CAS_TEST_IN_DIR(test_names_mistakes_and_the_other_subcommands),
        CAS_TEST_IN_DIR(test_refused_changes_change_nothing),
        CAS_TEST_IN_DIR(test_migrate_copies_the_players),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
