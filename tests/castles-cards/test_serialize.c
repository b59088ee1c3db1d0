/*
 * test_serialize.c — the state's bytes: damaged, truncated, padded or
 * foreign bytes are refused with the exact message and create no state;
 * any change the reader does accept is still a consistent state.
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

/* A game a few draws in, serialized into buf; returns the length. */
static size_t open_serialized(struct cas_test_game *g, uint8_t *buf, size_t cap)
{
    size_t len;
    cc_open(g, NULL);
    cas_test_play_record(g, "draw duke70\ndraw lands10\ndraw\ndraw count60\n");
    assert_int_equal(g->vt->serialize(g->state, CAS_SERIAL_FULL, buf, cap, &len), CAS_OK);
    return len;
}

/* deserialize must fail with `code` and exactly `message`, creating nothing. */
static void expect_refused(struct cas_test_game *g, const uint8_t *buf, size_t len, int code,
                           const char *message)
{
    cas_state *out = NULL;
    assert_int_equal(g->vt->deserialize(g->game, buf, len, &out), code);
    assert_null(out);
    assert_string_equal(g->error, message);
}

static void foreign_and_short_bytes_are_refused(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    uint8_t buf[8192];
    size_t len = open_serialized(&g, buf, sizeof buf);
    buf[0] ^= 0xFF; /* encoding version */
    expect_refused(&g, buf, len, CAS_EVERSION,
                   "castles state: unknown encoding (this build reads 1)");
    buf[0] ^= 0xFF;
    expect_refused(&g, buf, 3, CAS_EVERSION,
                   "castles state: unknown encoding (this build reads 1)");
    cas_test_game_close(&g);
}

/* deserialize of buf[0..len) must fail as damaged at `offset`. */
static void expect_damaged_at(struct cas_test_game *g, const uint8_t *buf, size_t len,
                              size_t offset)
{
    char message[128];
    snprintf(message, sizeof message,
             "castles state: damaged or inconsistent bytes (at offset %zu of %zu)", offset, len);
    expect_refused(g, buf, len, CAS_ECORRUPT, message);
}

static void truncated_and_padded_bytes_are_refused(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    uint8_t buf[8192];
    size_t len = open_serialized(&g, buf, sizeof buf);
    expect_damaged_at(&g, buf, len - 1, len - 1);
    buf[len] = 0;
    expect_damaged_at(&g, buf, len + 1, len);
    cas_test_game_close(&g);
}

/* The message tells where the first damage is, not where reading stopped. */
static void damage_is_told_at_its_offset(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    uint8_t buf[8192];
    size_t len = open_serialized(&g, buf, sizeof buf);
    buf[4] ^= 1; /* the deck's kind count */
    expect_damaged_at(&g, buf, len, 4);
    buf[4] ^= 1;
    buf[6] = 0xFF; /* the phase */
    expect_damaged_at(&g, buf, len, 6);
    cas_test_game_close(&g);
}

static void flipped_bytes_are_refused_or_consistent(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    uint8_t buf[8192], copy[8192];
    size_t len = open_serialized(&g, buf, sizeof buf);
    cas_state *out = NULL;
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
        cmocka_unit_test(foreign_and_short_bytes_are_refused),
        cmocka_unit_test(truncated_and_padded_bytes_are_refused),
        cmocka_unit_test(damage_is_told_at_its_offset),
        cmocka_unit_test(flipped_bytes_are_refused_or_consistent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
