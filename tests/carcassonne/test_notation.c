/*
 * test_notation.c — reading Carcassonne actions as people and other
 * programs write them: a field named by any of its half-edges, parts in any
 * order, `place X,Y ROT` for the tile just drawn; each read gives the one
 * canonical text back, and a name that fits nothing lists the tile's
 * features.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "plugin_harness.h"

const struct cas_plugin *cas_plugin_entry(void);

/* The canonical text of what `written` parses to in g's state. */
static const char *canonical(struct cas_test_game *g, const char *written)
{
    static char text[128];
    cas_action a;
    int rc = g->vt->parse_action(g->state, written, &a);
    if (rc != CAS_OK)
        fail_msg("\"%s\" did not parse (%d): %s", written, rc, g->error);
    assert_true(g->vt->action_text(g->state, a, text, sizeof text) > 0);
    return text;
}

static void open_on_u(struct cas_test_game *g)
{
    const char *opts[] = {"tiles=*:0,D:1,U:2", NULL};
    cas_test_game_open(g, cas_plugin_entry(), 2, opts, NULL, 0);
    cas_test_play(g, "draw U");
}

static void test_place_may_leave_out_the_drawn_tile(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    open_on_u(&g);
    assert_string_equal(canonical(&g, "place 1,0 0"), "place U 1,0 0");
    assert_string_equal(canonical(&g, "place U 1,0 0"), "place U 1,0 0");
    cas_test_game_close(&g);
}

/* Tile U at 1,0: a road E+W splits two fields, Nw+Ne+En+Wn and Es+Se+Sw+Ws. */
static void test_fields_by_any_half_edge_and_parts_in_any_order(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    open_on_u(&g);
    cas_test_play(&g, "place 1,0 0");
    assert_string_equal(canonical(&g, "deploy meeple field Nw+Ne+En+Wn"),
                        "deploy meeple field Nw+Ne+En+Wn");
    assert_string_equal(canonical(&g, "deploy meeple field En"),
                        "deploy meeple field Nw+Ne+En+Wn");
    assert_string_equal(canonical(&g, "deploy meeple field Wn+Nw"),
                        "deploy meeple field Nw+Ne+En+Wn");
    assert_string_equal(canonical(&g, "deploy meeple field Sw"),
                        "deploy meeple field Es+Se+Sw+Ws");
    assert_string_equal(canonical(&g, "deploy meeple road W+E"), "deploy meeple road E+W");
    cas_test_game_close(&g);
}

/* A name that fits no feature — half-edges of two fields, a road by one of
 * its edges, a part twice — is refused with the tile's features listed. */
static void test_wrong_names_list_the_features(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    open_on_u(&g);
    cas_test_play(&g, "place 1,0 0");
    static const char *const wrong[] = {"deploy meeple field Nw+Sw", "deploy meeple road E",
                                        "deploy meeple field Nw+Nw", "deploy meeple city N"};
    for (size_t i = 0; i < sizeof wrong / sizeof wrong[0]; i++) {
        cas_action a;
        assert_int_equal(g.vt->parse_action(g.state, wrong[i], &a), CAS_EILLEGAL);
        assert_non_null(strstr(g.error, "tile U has no such feature; it has 'road E+W', "));
        assert_non_null(strstr(g.error, "'field Nw+Ne+En+Wn'"));
    }
    cas_test_game_close(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_place_may_leave_out_the_drawn_tile),
        cmocka_unit_test(test_fields_by_any_half_edge_and_parts_in_any_order),
        cmocka_unit_test(test_wrong_names_list_the_features),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
