/*
 * test_determinize.c — castles-cards' determinize (ABI 1.1): the draw pile
 * is the only secret and the state keeps no order for it, so every
 * player's determinization is the state itself, byte for byte.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "castles_fixture.h"

static uint64_t never_called(void *ctx, uint64_t n)
{
    (void)ctx;
    (void)n;
    fail_msg("castles-cards has nothing to draw in a determinization");
    return 0;
}

static void determinization_is_the_state(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    uint8_t want[8192], got[8192];
    size_t want_len, got_len;
    struct cas_rng rng = {.struct_size = sizeof rng, .ctx = NULL, .below = never_called};
    cc_open(&g, NULL);
    cas_test_play_record(&g, "draw duke70\ndraw lands10\ndraw\ndraw count60\n");
    cas_state *out = cas_test_restored_twin(&g);
    assert_int_equal(g.vt->serialize(g.state, CAS_SERIAL_FULL, want, sizeof want, &want_len),
                     CAS_OK);
    for (int viewer = 0; viewer < 2; viewer++) {
        memset(got, 0, sizeof got);
        assert_int_equal(g.vt->determinize(g.state, viewer, &rng, out), CAS_OK);
        assert_int_equal(g.vt->serialize(out, CAS_SERIAL_FULL, got, sizeof got, &got_len),
                         CAS_OK);
        assert_int_equal(got_len, want_len);
        assert_memory_equal(got, want, want_len);
    }
    assert_int_equal(g.vt->determinize(g.state, 2, &rng, out), CAS_EINVAL);
    assert_int_equal(g.vt->determinize(g.state, CAS_VIEWER_OMNISCIENT, &rng, out), CAS_EINVAL);
    g.vt->state_free(out);
    cas_test_game_close(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(determinization_is_the_state),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
