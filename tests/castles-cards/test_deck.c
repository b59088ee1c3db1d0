/*
 * test_deck.c — the deck as data: the shipped provisional deck loads with
 * the documented totals; every kind of bad deck file is refused with
 * file:line, the bad value and the fix; bad options and player counts
 * are refused too, and nothing is created.  Bad state bytes are in
 * test_serialize.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "castles_fixture.h"

static void shipped_deck_is_provisional_168(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open(&g, NULL);
    const struct deck *d = &cc_state(&g)->game->deck;
    assert_true(d->provisional);
    assert_int_equal(d->total, 168);
    int per_type[N_TYPES] = {0};
    for (int k = 0; k < d->nkinds; k++)
        per_type[d->kind[k].type] += d->kind[k].copies;
    assert_int_equal(per_type[T_CASTLE], 4);
    assert_int_equal(per_type[T_DUKE], 8);
    assert_int_equal(per_type[T_LANDS], 16);
    assert_int_equal(per_type[T_WARLOCK] + per_type[T_WITCH] + per_type[T_MAGICIAN] +
                     per_type[T_MAGE] + per_type[T_SORCERER] + per_type[T_ADEPT], 18);
    assert_int_equal(cc_state(&g)->npile, 168);
    cas_test_game_close(&g);
}

/* Open a game on a deck file with `text`; return game_new's code and the
 * file's path in `path`. */
static int open_deck(struct cas_test_game *g, const char *text, char *path, size_t cap)
{
    char option[1100];
    cc_write_file("castles-bad.cards", text, path, cap);
    snprintf(option, sizeof option, "deck=%s", path);
    const char *options[] = {option, NULL};
    int rc = cas_test_game_try_open(g, cas_plugin_entry(), 2, options, NULL, 0);
    remove(path);
    return rc;
}

static void expect_refused(const char *text, int code, const char *where, const char *words)
{
    struct cas_test_game g;
    char path[1024];
    int rc = open_deck(&g, text, path, sizeof path);
    if (rc != code || !strstr(g.error, where) || !strstr(g.error, words))
        fail_msg("deck \"%s\": code %d, error \"%s\"; expected %d with \"%s\" and \"%s\"", text,
                 rc, g.error, code, where, words);
    assert_null(g.game);
    cas_test_game_close(&g);
}

static void bad_deck_files_are_refused(void **unused)
{
    (void)unused;
    expect_refused("provisional yes\ncard DUK 70 2\n", CAS_EDATA, "castles-bad.cards:2",
                   "unknown card type 'DUK'");
    expect_refused("provisional yes\n\ncard DUKE seventy 2\n", CAS_EDATA,
                   "castles-bad.cards:3", "bad value 'seventy'");
    expect_refused("provisional yes\ncard CASTLE 10 2\n", CAS_EDATA, ":2",
                   "a CASTLE has no value: write '-'");
    expect_refused("provisional yes\ncard DUKE 70 0\n", CAS_EDATA, ":2", "bad copy count '0'");
    expect_refused("provisional yes\ncard DUKE 70 1\ncard DUKE 70 1\n", CAS_EDATA, ":3",
                   "listed twice");
    expect_refused("provisional yes\ncard LANDS 10 60\ncard LANDS 20 10\n", CAS_EDATA, ":3",
                   "more than 64 LANDS");
    expect_refused("provisional yes\ncard DUKE 70\n", CAS_EDATA, ":2", "TYPE VALUE COPIES");
    expect_refused("provisional maybe\n", CAS_EDATA, ":1", "'provisional yes'");
    expect_refused("deal 5\n", CAS_EDATA, ":1", "unknown statement 'deal'");
    expect_refused("card DUKE 70 2\n", CAS_EDATA, "castles-bad.cards", "missing 'provisional");
    expect_refused("provisional no\ncard DUKE 70 1\n", CAS_EDATA, "castles-bad.cards",
                   "at least 2");
}

/* The whole message must be "<path>:`line`: `rest`", and nothing created. */
static void expect_error_text(const char *text, int line, const char *rest)
{
    struct cas_test_game g;
    char path[1024], expected[1400];
    assert_int_equal(open_deck(&g, text, path, sizeof path), CAS_EDATA);
    snprintf(expected, sizeof expected, "%s:%d: %s", path, line, rest);
    assert_string_equal(g.error, expected);
    assert_null(g.game);
    cas_test_game_close(&g);
}

static void out_of_range_and_oversized_lines_are_refused(void **unused)
{
    (void)unused;
    expect_error_text("provisional yes\ncard DUKE 1000 2\n", 2,
                      "bad value '1000' for DUKE; write a whole number from 1 to 999");
    expect_error_text("provisional yes\ncard DUKE 70 65\n", 2,
                      "bad copy count '65'; write a whole number from 1 to 64");
    expect_error_text("provisional yes\ncard DUKE 70 2 extra words here\n", 2,
                      "'card' takes TYPE VALUE COPIES, got 6 word(s); write e.g. 'card DUKE 70 2'");
    expect_error_text("provisional yes no\n", 1, "write 'provisional yes' or 'provisional no'");
    expect_error_text("provisional yes\ncard DUKE 70 2\nprovisional no\n", 3,
                      "a second 'provisional' line; keep only one");
    expect_error_text("provisional yes\ncard DUKE 10 64\ncard DUKE 20 64\ncard DUKE 30 64\n"
                      "card DUKE 40 64\n",
                      5, "deck too large (at most 128 distinct cards and 250 copies); remove cards");
    char long_line[700];
    memset(long_line, '#', sizeof long_line - 2);
    long_line[sizeof long_line - 2] = '\n';
    long_line[sizeof long_line - 1] = '\0';
    expect_error_text(long_line, 1, "line longer than 510 bytes; shorten it");
}

/* A directory opens but cannot be read: the read error is reported. */
static void unreadable_deck_is_refused(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    const char *dir = getenv("CASTELLAN_BUILD_DIR");
    assert_non_null(dir);
    char option[1100], expected[1200];
    snprintf(option, sizeof option, "deck=%s", dir);
    snprintf(expected, sizeof expected, "%s: read error (Is a directory); check the 'deck' option",
             dir);
    const char *options[] = {option, NULL};
    assert_int_equal(cas_test_game_try_open(&g, cas_plugin_entry(), 2, options, NULL, 0),
                     CAS_EIO);
    assert_string_equal(g.error, expected);
    assert_null(g.game);
    cas_test_game_close(&g);
}

static void missing_file_bad_options_and_players(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    const char *missing[] = {"deck=no-such.cards", NULL};
    assert_int_equal(cas_test_game_try_open(&g, cas_plugin_entry(), 2, missing, NULL, 0),
                     CAS_EIO);
    assert_non_null(strstr(g.error, "no-such.cards: cannot open deck file"));
    cas_test_game_close(&g);

    const char *turns[] = {"max-turns=5", NULL};
    assert_int_equal(cas_test_game_try_open(&g, cas_plugin_entry(), 2, turns, NULL, 0),
                     CAS_EOPTION);
    assert_non_null(strstr(g.error, "max-turns = '5'"));
    cas_test_game_close(&g);

    assert_int_equal(cas_test_game_try_open(&g, cas_plugin_entry(), 3, NULL, NULL, 0),
                     CAS_EINVAL);
    assert_non_null(strstr(g.error, "exactly 2 players"));
    cas_test_game_close(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shipped_deck_is_provisional_168),
        cmocka_unit_test(bad_deck_files_are_refused),
        cmocka_unit_test(out_of_range_and_oversized_lines_are_refused),
        cmocka_unit_test(unreadable_deck_is_refused),
        cmocka_unit_test(missing_file_bad_options_and_players),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
