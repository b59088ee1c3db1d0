/*
 * test_deck.c — the deck as data: the shipped provisional deck loads with
 * the documented totals; every kind of bad deck file is refused with
 * file:line, the bad value and the fix; bad options and player counts
 * are refused too, and nothing is created.
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

/* Open a game on a deck file with `text`; return game_new's code. */
static int open_deck(struct cas_test_game *g, const char *text)
{
    char path[1024], option[1100];
    cc_write_file("castles-bad.cards", text, path, sizeof path);
    snprintf(option, sizeof option, "deck=%s", path);
    const char *options[] = {option, NULL};
    int rc = cas_test_game_try_open(g, cas_plugin_entry(), 2, options, NULL, 0);
    remove(path);
    return rc;
}

static void expect_refused(const char *text, int code, const char *where, const char *words)
{
    struct cas_test_game g;
    int rc = open_deck(&g, text);
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

static void damaged_state_bytes_are_refused(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open(&g, NULL);
    cas_test_play_record(&g, "draw duke70\ndraw lands10\ndraw\ndraw count60\n");
    uint8_t buf[8192];
    size_t len;
    assert_int_equal(g.vt->serialize(g.state, CAS_SERIAL_FULL, buf, sizeof buf, &len), CAS_OK);
    cas_state *out = NULL;
    buf[0] ^= 0xFF; /* encoding version */
    assert_int_equal(g.vt->deserialize(g.game, buf, len, &out), CAS_EVERSION);
    buf[0] ^= 0xFF;
    uint8_t copy[8192];
    for (size_t i = 6; i < len; i++) { /* flip every byte after the header in turn */
        memcpy(copy, buf, len);
        copy[i] ^= 0x5A;
        if (g.vt->deserialize(g.game, copy, len, &out) == CAS_OK) {
            /* an accepted change must still be a consistent state */
            assert_true(cards_conserved(out));
            g.vt->state_free(out);
            out = NULL;
        }
    }
    /* the undamaged bytes still load */
    assert_int_equal(g.vt->deserialize(g.game, buf, len, &out), CAS_OK);
    g.vt->state_free(out);
    cas_test_game_close(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shipped_deck_is_provisional_168),
        cmocka_unit_test(bad_deck_files_are_refused),
        cmocka_unit_test(missing_file_bad_options_and_players),
        cmocka_unit_test(damaged_state_bytes_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
