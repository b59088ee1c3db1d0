/*
 * test_decision_view.c — what a person sees before choosing (ABI 1.1
 * render_choices): the choices numbered on the open spots, the drawn tile
 * in each rotation titled with the choices turning it so, the placed tile
 * with its deploy choices, glyphs that cannot be confused (no tile ids on
 * the board, figures the only upper-case letters), a legend, and colour
 * that adds nothing the plain text lacks.  Also notation help and the
 * projected final scores.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "plugin_harness.h"

const struct cas_plugin *cas_plugin_entry(void);

static void open_game(struct cas_test_game *g)
{
    cas_test_game_open(g, cas_plugin_entry(), 2, NULL, NULL, 0);
}

/* The first place decision after drawing E: four choices, three
 * rotations south of the start tile and one north of it (placements are
 * listed by the requirement of their spot: field before city). */
static void place_view_numbers_spots_and_turns_the_tile(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    open_game(&g);
    cas_test_play(&g, "draw E");
    char legal[512];
    cas_test_legal_texts(&g, legal, sizeof legal);
    assert_string_equal(legal, "place E 0,1 90\nplace E 0,1 180\nplace E 0,1 270\n"
                               "place E 0,-1 180\n");
    char *text = cas_test_render_choices(&g, 0, CAS_RENDER_TEXT);
    static const char board[] =
        "board x -1..1, y -1..1 (north up)\n"
        "         \n"
        "    4    \n"
        "         \n"
        "   .#.   \n"
        " o --- o \n"
        "   ...   \n"
        "         \n"
        "    1    \n"
        "   -3    \n"
        "key: # city  -|+ road  . field  m monastery  ~ river  o open\n"
        "     3 over -4: choices 3 to 4 place the tile there\n"
        "     figures: R Red B Blue\n";
    assert_memory_equal(text, board, sizeof board - 1);
    static const char tile[] =
        "Tile E turned 0, 90, 180, 270 degrees clockwise; under each, its choices:\n"
        "0        90       180      270      \n"
        ".###.    .....    .....    .....\n"
        "..#..    ....#    .....    #....\n"
        ".....    ...##    .....    ##...\n"
        ".....    ....#    ..#..    #....\n"
        ".....    .....    .###.    .....\n"
        "         1        2,4      3\n";
    const char *at = strstr(text, "Tile E turned");
    assert_non_null(at);
    assert_string_equal(at, tile);
    cas_test_expect_width(text, 80);
    char *ansi = cas_test_render_choices(&g, 0, CAS_RENDER_ANSI);
    assert_non_null(strstr(ansi, "\x1b[1;33m"));
    char *plain = cas_test_strip_ansi(ansi);
    assert_string_equal(plain, text);
    free(plain);
    free(ansi);
    free(text);
    cas_test_game_close(&g);
}

/* After placing E north of the start, the city S and the field are the
 * deploy choices, numbered where the meeple would stand. */
static void deploy_view_numbers_features(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    open_game(&g);
    cas_test_play(&g, "draw E");
    cas_test_play(&g, "place E 0,-1 180");
    char legal[512];
    cas_test_legal_texts(&g, legal, sizeof legal);
    assert_string_equal(legal, "deploy meeple city S\ndeploy meeple field "
                               "Nw+Ne+En+Es+Ws+Wn\npass\n");
    char *text = cas_test_render_choices(&g, 0, CAS_RENDER_TEXT);
    static const char tile[] =
        "Tile E as placed; the first choice on each feature (1-9, then a-z):\n"
        "at 0,-1  \n"
        ".2...\n"
        ".....\n"
        ".....\n"
        "..#..\n"
        ".#1#.\n";
    const char *at = strstr(text, "Tile E as placed");
    assert_non_null(at);
    assert_string_equal(at, tile);
    free(text);
    cas_test_game_close(&g);
}

/* A figure on the board is the only upper-case letter there: tile ids are
 * gone (the start tile D shows its road, not 'D'). */
static void board_shows_figures_apart_from_tiles(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    open_game(&g);
    cas_test_play_record(&g, "draw E\nplace E 0,-1 180\ndeploy meeple field Nw+Ne+En+Es+Ws+Wn\n"
                             "draw D\n");
    char *text = cas_test_render(&g, CAS_VIEWER_PUBLIC, CAS_RENDER_TEXT);
    const char *key = strstr(text, "key:");
    assert_non_null(key);
    size_t letters = 0;
    for (const char *c = text; c < key; c++)
        if (*c >= 'A' && *c <= 'Z') {
            assert_int_equal(*c, 'R');
            letters++;
        }
    assert_int_equal(letters, 1);
    assert_non_null(strstr(text, "\n   R..   \n"));
    free(text);
    cas_test_game_close(&g);
}

/* `help` at the table explains the game's own notation. */
static void notation_help_names_every_player_action(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    open_game(&g);
    char *help = cas_test_notation_help(&g);
    assert_non_null(strstr(help, "\n  place ID X,Y ROT "));
    assert_non_null(strstr(help, "\n  deploy FIGURE WHERE "));
    assert_non_null(strstr(help, "\n  pass "));
    cas_test_expect_width(help, 80);
    free(help);
    cas_test_game_close(&g);
}

/* The projected final score is the final scoring of now: Red's meeple on
 * the unfinished road through D and U (2 tiles) would score 2, Blue
 * nothing; the state itself keeps its scores. */
static void projected_scores_apply_final_scoring(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    open_game(&g);
    cas_test_play_record(&g, "draw U\nplace U 1,0 0\ndeploy meeple road E+W\n");
    int64_t now[2], projected[2];
    assert_int_equal(g.vt->returns(g.state, now, 2), CAS_OK);
    assert_non_null(g.vt->projected_returns);
    assert_int_equal(g.vt->projected_returns(g.state, projected, 2), CAS_OK);
    assert_int_equal(now[0], 0);
    assert_int_equal(projected[0], 2);
    assert_int_equal(projected[1], 0);
    assert_int_equal(g.vt->returns(g.state, now, 2), CAS_OK);
    assert_int_equal(now[0], 0);
    cas_test_game_close(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(place_view_numbers_spots_and_turns_the_tile),
        cmocka_unit_test(deploy_view_numbers_features),
        cmocka_unit_test(board_shows_figures_apart_from_tiles),
        cmocka_unit_test(notation_help_names_every_player_action),
        cmocka_unit_test(projected_scores_apply_final_scoring),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
