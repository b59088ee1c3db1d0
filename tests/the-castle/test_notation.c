/*
 * test_notation.c — canonical action texts (docs/notation/the-castle.md):
 * every kind of action reads as documented and parses back; text that is
 * no action is CAS_EPARSE, a well-formed action not legal now CAS_EILLEGAL,
 * both explained and leaving the state as it was; and the renders show the
 * board in its wall, the track, scores and wall tiles.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "castle_fixture.h"

static void test_texts_of_a_turn(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    tc_open(&g, "test.board", "test.tiles");
    tc_expect_legal(&g, "draw straight", 1);
    cas_test_play(&g, "draw straight");
    /* beside A and C the path must go on; beside B the path runs along */
    assert_string_equal(tc_legal(&g), "place straight c2 0\nplace straight c2 180\n"
                                      "place straight j3 0\nplace straight j3 180\n"
                                      "place straight d5 0\nplace straight d5 180\n");
    cas_test_play(&g, "place straight c2 180");
    assert_string_equal(tc_legal(&g), "herald N+S\nmerchant Ne+E+Se\nmerchant Nw+Sw+W\npass\n");
    cas_test_play(&g, "merchant Nw+Sw+W");
    /* both of c2's courts meet start space A's court: one court, named at A */
    tc_expect_event(&g, "Red puts a merchant on court c1 N+E+S+W");
    cas_test_game_close(&g);
}

static void test_parse_errors_change_nothing(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    tc_open(&g, "test.board", "test.tiles");
    uint64_t before = g.vt->hash(g.state);
    cas_action a;
    assert_int_equal(g.vt->parse_action(g.state, "fly to the moon", &a), CAS_EPARSE);
    assert_non_null(strstr(g.error, "is not an action of The Castle"));
    assert_int_equal(g.vt->parse_action(g.state, "place straight c2 0", &a), CAS_EILLEGAL);
    assert_non_null(strstr(g.error, "is not legal now"));
    assert_int_equal(g.vt->parse_action(g.state, "draw dragon", &a), CAS_EILLEGAL);
    assert_int_equal(g.vt->apply(g.state, 12345, NULL), CAS_EILLEGAL);
    assert_true(g.vt->hash(g.state) == before);
    cas_test_game_close(&g);
}

static void test_every_text_round_trips_in_a_game(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    tc_open_shipped(&g);
    uint64_t seed = 7;
    for (int step = 0; step < 2000 && g.vt->current(g.state) != CAS_ACTOR_TERMINAL; step++) {
        cas_action buf[1024];
        size_t n;
        assert_int_equal(g.vt->legal_actions(g.state, buf, 1024, &n), CAS_OK);
        assert_true(n > 0);
        for (size_t i = 0; i < n; i++) {
            char text[128];
            cas_action back;
            assert_true(g.vt->action_text(g.state, buf[i], text, sizeof text) > 0);
            assert_int_equal(g.vt->parse_action(g.state, text, &back), CAS_OK);
            assert_true(back == buf[i]);
        }
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        assert_int_equal(g.vt->apply(g.state, buf[(seed >> 33) % n], NULL), CAS_OK);
    }
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_TERMINAL);
    cas_test_game_close(&g);
}

static void test_render(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    tc_open(&g, "test.board", "test.tiles");
    tc_give_wall(&g, 1, 9);
    tc_turn(&g, "straight", "c2", 0, "herald N+S");
    char *text = cas_test_render(&g, CAS_VIEWER_PUBLIC, CAS_RENDER_TEXT);
    assert_non_null(strstr(text, "  1 ###### A ####"));   /* start space A in the wall */
    assert_non_null(strstr(text, "  2 ### .  R  .  . ")); /* c2 with Red's herald */
    assert_non_null(strstr(text, "Red  score   0 (track  0)  followers 5  keep 0  wall tiles: none"));
    assert_non_null(strstr(text, "Blue score   0 (track  0)  followers 6  keep 0  wall tiles: 9"));
    assert_non_null(strstr(text, "towers: 0/1 12/13[?] 20/21[?]"));
    assert_non_null(strstr(text, "Red herald on path c1 S"));
    free(text);
    char *json = cas_test_render(&g, 0, CAS_RENDER_JSON);
    assert_true(json[0] == '{');
    assert_non_null(strstr(json, "\"game\":\"the-castle\""));
    assert_non_null(strstr(json, "{\"number\":9,\"effect\":\"points\",\"usable\":true}"));
    assert_non_null(strstr(json, "{\"cell\":\"c2\",\"tile\":\"straight\",\"rotation\":0"));
    free(json);
    cas_test_game_close(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_texts_of_a_turn),
        cmocka_unit_test(test_parse_errors_change_nothing),
        cmocka_unit_test(test_every_text_round_trips_in_a_game),
        cmocka_unit_test(test_render),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
