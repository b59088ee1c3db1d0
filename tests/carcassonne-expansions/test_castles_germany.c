/*
 * test_castles_germany.c — Castles in Germany scenarios with exact scores,
 * on the provisional castle layout of data/castles-germany.tiles (edges
 * N0 N1 E1 S1 S0 W0 = road city road field field road): every example of
 * the rules (the castle's 8 points at the end, the 16/6/10 of the road and
 * city example, the looping roads of 7 and 9, monasteries A and B with 9),
 * a completed castle's 12, the pick at setup, the no-touch rule diagonally,
 * a castle that cannot be placed anywhere, the bag running out with
 * castles in hand (the final round, and giving them up), the render.
 * Coordinates: start tile D at 0,0 (city N, road E+W), x east, y south.
 * A castle rotated 0 lies on its anchor and the space east of it; rotated
 * 90 on its anchor and the space south, 180 west, 270 north.
 */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <castellan/carcassonne.h>
#include <unistd.h>

#include "scenario.h"

/* Example 2: Red's lord on CG-1 below D (0,1 and -1,1, rotated 180); six
 * of its ten neighbours get filled: D, U(1,0), V(1,1), V(0,2), J(-1,2),
 * U(-2,1).  At the end the castle scores 6 + 2 = 8. */
#define CASTLE_8_TILES "*:0,D:1,U:2,V:2,J:1,CG-1:1"
#define CASTLE_8_RECORD                                                    \
    "castle pick CG-1\ncastle CG-1 0,1 180\ndeploy meeple castle\n"       \
    "draw U\nplace U 1,0 0\npass\n"                                       \
    "draw V\nplace V 1,1 0\npass\n"                                       \
    "draw V\nplace V 0,2 90\npass\n"                                      \
    "draw J\nplace J -1,2 0\npass\n"                                      \
    "draw U\nplace U -2,1 0\npass\n"

static void test_example_2_castle_8_at_the_end(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    carcx_open(&g, 2, CARCX_CG, CASTLE_8_TILES);
    cas_test_play_record(&g, CASTLE_8_RECORD);
    assert_non_null(strstr(g.events, "Red +8 castle (6 around, incomplete)\n"));
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_TERMINAL);
    cas_test_expect_scores(&g, (const int64_t[]){8, 0});
    cas_test_game_close(&g);
}

/* The same castle surrounded by all ten (V(-1,0), E(-2,0), E(-2,2) and
 * V(1,2) the last): 12 to its lord as soon as it is complete. */
static void test_complete_castle_12(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    carcx_open(&g, 2, CARCX_CG, "*:0,D:1,U:2,V:4,J:1,E:2,CG-1:1");
    cas_test_play_record(&g, CASTLE_8_RECORD "draw V\nplace V -1,0 180\npass\n"
                                             "draw E\nplace E -2,0 0\npass\n"
                                             "draw E\nplace E -2,2 180\npass\n"
                                             "draw V\nplace V 1,2 180\npass\n");
    assert_non_null(strstr(g.events, "Red +12 castle (10 around)\n"));
    cas_test_expect_scores(&g, (const int64_t[]){12, 0});
    cas_test_game_close(&g);
}

/* Example 3, three players.  Blue's castle CG-2 lies east of D (1,0 and
 * 2,0); Red places CG-1 (4,-1 rotated 270: 4,-1 and 4,-2) last, with his
 * lord, completing three features at once:
 *  - the city CG-2, G(2,-1), N(2,-2), G(3,-2), CG-1: 5 spaces, Green and
 *    Blue one knight each: 10 + 2 x 3 = 16 each;
 *  - Blue's road CG-2, V(3,0), V(3,-1), CG-1: 4 spaces, 4 + 2 x 3 = 10;
 *  - Red's road CG-1, U(4,0), W(4,1): 3 spaces, 3 + 3 = 6.
 * The bag is empty by then: Red places the castle in the final round, and
 * at the end the lord scores the open castle, 4 around + 2 = 6. */
static void test_example_3_road_and_city_bonus(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    carcx_open(&g, 3, CARCX_CG, "*:0,D:1,U:5,G:2,V:2,N:1,W:1,CG-1:1,CG-2:1");
    cas_test_play_record(&g, "castle pick CG-1\ncastle pick CG-2\n"
                             "castle keep\ndraw U\nplace U -1,0 0\npass\n"
                             "castle CG-2 1,0 0\npass\n"
                             "draw G\nplace G 2,-1 90\ndeploy meeple city N+S\n"
                             "castle keep\ndraw V\nplace V 3,0 90\npass\n"
                             "draw V\nplace V 3,-1 270\ndeploy meeple road E+S\n"
                             "draw U\nplace U -2,0 0\npass\n"
                             "castle keep\ndraw U\nplace U 4,0 90\ndeploy meeple road N+S\n"
                             "draw G\nplace G 3,-2 0\ndeploy meeple city E+W\n"
                             "draw N\nplace N 2,-2 180\npass\n"
                             "castle keep\ndraw W\nplace W 4,1 180\npass\n"
                             "draw U\nplace U -3,0 0\npass\n"
                             "draw U\nplace U -4,0 0\npass\n"
                             "castle CG-1 4,-1 270\ndeploy meeple castle\n");
    cas_test_expect_scorings(&g, "1 +10 castle-road play road at 3,0\n"
                                 "0 +6 castle-road play road at 4,1\n"
                                 "1 +16 castle-city play city at 2,-2\n"
                                 "2 +16 castle-city play city at 2,-2\n"
                                 "0 +6 castle final castle at 4,-1\n");
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_TERMINAL);
    cas_test_expect_scores(&g, (const int64_t[]){6 + 6, 16 + 10, 16});
    cas_test_game_close(&g);
}

/* Example 4: a road from the castle's west half (CG-1 west of D: -2,0 and
 * -1,0) loops back to the same half, N0 to W0, round V(-2,-1) V(-3,-1)
 * V(-3,0): 4 spaces, 4 + 3 = 7. */
static void test_example_4_loop_to_same_half_7(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    carcx_open(&g, 2, CARCX_CG, "*:0,D:1,V:3,CG-1:1");
    cas_test_play_record(&g, "castle pick CG-1\ncastle CG-1 -2,0 0\ndeploy meeple road N0\n"
                             "draw V\nplace V -2,-1 0\npass\n"
                             "draw V\nplace V -3,-1 270\npass\n"
                             "draw V\nplace V -3,0 180\npass\n");
    cas_test_expect_scorings(&g, "0 +7 castle-road play road at -2,-1\n");
    cas_test_expect_scores(&g, (const int64_t[]){7, 0});
    cas_test_game_close(&g);
}

/* Example 5: a road from the castle's east half (CG-1 below D, rotated
 * 180: 0,1 and -1,1) loops back to its west half round V(0,2) D(-1,2)
 * V(-2,2) V(-2,1): both halves count, 6 spaces, 6 + 3 = 9 (D(-1,2) also
 * closes the castle's city, nobody's). */
#define LOOP_9_TILES "*:0,D:2,V:3,CG-1:1"
#define LOOP_9_RECORD                                                      \
    "castle pick CG-1\ncastle CG-1 0,1 180\ndeploy meeple road S0\n"      \
    "draw V\nplace V 0,2 90\npass\n"                                      \
    "draw D\nplace D -1,2 0\npass\n"                                      \
    "draw V\nplace V -2,2 180\npass\n"                                    \
    "draw V\nplace V -2,1 270\npass\n"

static void test_example_5_loop_to_other_half_9(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    carcx_open(&g, 2, CARCX_CG, LOOP_9_TILES);
    cas_test_play_record(&g, LOOP_9_RECORD);
    cas_test_expect_scorings(&g, "0 +9 castle-road play road at 0,2\n");
    cas_test_expect_scores(&g, (const int64_t[]){9, 0});
    cas_test_game_close(&g);
}

/* Monastery example A: Red's monastery B(0,1) below D, completed with three
 * castles among its neighbours (CG-2 at 2,0 and 1,0; CG-1 at -2,0 and
 * -1,0; CG-3 at 1,2 and 0,2), each space of a castle counting: 8 + 1 = 9. */
static void test_monastery_a_three_castles_9(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    carcx_open(&g, 2, CARCX_CG, "*:0,D:1,B:1,E:2,V:1,CG-1:1,CG-2:1,CG-3:1");
    cas_test_play_record(&g, "castle pick CG-1\ncastle pick CG-2\ncastle pick CG-3\n"
                             "castle keep\ndraw B\nplace B 0,1 0\ndeploy meeple monastery\n"
                             "castle CG-2 2,0 180\npass\n"
                             "castle CG-1 -2,0 0\npass\n"
                             "draw E\nplace E 1,1 0\npass\n"
                             "castle CG-3 1,2 180\npass\n"
                             "draw E\nplace E -1,1 270\npass\n"
                             "draw V\nplace V -1,2 270\npass\n");
    assert_non_null(strstr(g.events, "Red +9 monastery (8 around)\n"));
    cas_test_expect_scores(&g, (const int64_t[]){9, 0});
    cas_test_game_close(&g);
}

/* Monastery example B: the same monastery with two castles around it
 * (CG-2 at 2,0 and 1,0; CG-1 at 1,2 and 0,2) and V(-1,0): 9. */
static void test_monastery_b_two_castles_9(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    carcx_open(&g, 2, CARCX_CG, "*:0,D:1,B:1,E:2,V:2,CG-1:1,CG-2:1");
    cas_test_play_record(&g, "castle pick CG-1\ncastle pick CG-2\n"
                             "castle keep\ndraw B\nplace B 0,1 0\ndeploy meeple monastery\n"
                             "castle CG-2 2,0 180\npass\n"
                             "castle CG-1 1,2 180\npass\n"
                             "draw E\nplace E 1,1 0\npass\n"
                             "draw V\nplace V -1,0 180\npass\n"
                             "draw E\nplace E -1,1 270\npass\n"
                             "draw V\nplace V -1,2 270\npass\n");
    assert_non_null(strstr(g.events, "Red +9 monastery (8 around)\n"));
    cas_test_expect_scores(&g, (const int64_t[]){9, 0});
    cas_test_game_close(&g);
}

/* Setup: with two players each picks two castles, in seat order; the
 * castles in hand are public (every viewer's render). */
static void test_pick_two_each_public(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    carcx_open(&g, 2, CARCX_CG, "*:0,D:1,U:2,CG-1:1,CG-2:1,CG-3:1,CG-4:1,CG-5:1");
    char texts[4096];
    cas_test_legal_texts(&g, texts, sizeof texts);
    assert_string_equal(texts, "castle pick CG-1\ncastle pick CG-2\ncastle pick CG-3\n"
                               "castle pick CG-4\ncastle pick CG-5\n");
    cas_test_play_record(&g, "castle pick CG-3\ncastle pick CG-1\ncastle pick CG-5\n");
    assert_int_equal(g.vt->current(g.state), 1); /* Blue's second pick */
    cas_test_play(&g, "castle pick CG-2");
    assert_int_equal(g.vt->current(g.state), 0); /* Red's turn: castle or draw */
    char *text = cas_test_render(&g, 1, CAS_RENDER_TEXT);
    assert_non_null(strstr(text, "Red      castles in hand: CG-3 CG-5\n"
                                 "Blue     castles in hand: CG-1 CG-2\n"));
    free(text);
    char *json = cas_test_render(&g, CAS_VIEWER_PUBLIC, CAS_RENDER_JSON);
    assert_non_null(strstr(json, "\"castles-germany\":{\"hands\":[[\"CG-3\",\"CG-5\"],"
                                 "[\"CG-1\",\"CG-2\"]],\"gave_up\":0}"));
    free(json);
    cas_test_game_close(&g);
}

/* With four players, one castle each. */
static void test_pick_one_each_with_four(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    carcx_open(&g, 4, CARCX_CG, NULL);
    cas_test_play_record(&g, "castle pick CG-6\ncastle pick CG-5\ncastle pick CG-4\n"
                             "castle pick CG-3\n");
    assert_int_equal(g.vt->current(g.state), 0);
    char texts[65536];
    cas_test_legal_texts(&g, texts, sizeof texts);
    const char *first = "castle keep\ncastle CG-6 ";
    assert_true(strncmp(texts, first, strlen(first)) == 0);
    cas_test_game_close(&g);
}

/* No castle may touch another diagonally: with Red's CG-1 east of D (1,0
 * and 2,0) and U(3,0), Blue's CG-2 rotated 180 at 4,1 would fit its edges
 * (its west half at 3,1 under U's field) but touches CG-1's corner at 2,0;
 * at 4,0 rotated 0 (two spaces off) it may go. */
#define NO_TOUCH_TILES "*:0,D:1,U:3,CG-1:1,CG-2:1"
#define NO_TOUCH_RECORD                                                    \
    "castle pick CG-1\ncastle pick CG-2\n"                                \
    "castle CG-1 1,0 0\npass\n"                                           \
    "castle keep\ndraw U\nplace U 3,0 0\npass\n"                          \
    "draw U\nplace U -1,0 0\npass\n"

static void expect_no_touch(struct cas_test_game *g)
{
    cas_test_play_record(g, NO_TOUCH_RECORD);
    assert_int_equal(g->vt->current(g->state), 1);
    char texts[65536];
    cas_test_legal_texts(g, texts, sizeof texts);
    assert_null(strstr(texts, "castle CG-2 4,1 180\n"));
    assert_non_null(strstr(texts, "castle CG-2 4,0 0\n"));
    assert_int_equal(cas_test_try_play(g, "castle CG-2 4,1 180"), CAS_EILLEGAL);
}

static void test_no_touch_diagonally(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    carcx_open(&g, 2, CARCX_CG, NO_TOUCH_TILES);
    expect_no_touch(&g);
    cas_test_game_close(&g);
}

/* castles-germany as an engine before 1.4 sees it: hooks that end before
 * veto_area, so the no-touch rule is asked through veto_placement for
 * each placement. */
static void open_without_veto_area(struct cas_test_game *g, const char *tiles)
{
    static struct cas_carc_hooks hooks;
    static struct cas_carc_expansion extension;
    static struct cas_plugin plugin;
    static char dir[1024];
    plugin = *carcx_plugin(CARCX_CG);
    extension = *(const struct cas_carc_expansion *)plugin.extension;
    hooks = *extension.hooks;
    hooks.struct_size = offsetof(struct cas_carc_hooks, veto_area);
    extension.hooks = &hooks;
    plugin.extension = &extension;
    struct cas_expansion_ref ref = cas_test_expansion_ref(&plugin, dir, sizeof dir);
    char option[256];
    snprintf(option, sizeof option, "tiles=%s", tiles);
    const char *opts[] = {option, NULL};
    cas_test_game_open(g, cas_plugin_entry(), 2, opts, &ref, 1);
}

/* veto_placement, which engines before 1.4 ask, keeps the rule veto_area
 * gives: the same castle placements, diagonal touch forbidden. */
static void test_no_touch_through_veto_placement(void **unused)
{
    (void)unused;
    struct cas_test_game by_area, by_placement;
    carcx_open(&by_area, 2, CARCX_CG, NO_TOUCH_TILES);
    open_without_veto_area(&by_placement, NO_TOUCH_TILES);
    expect_no_touch(&by_area);
    expect_no_touch(&by_placement);
    static char area_texts[65536], placement_texts[65536];
    cas_test_legal_texts(&by_area, area_texts, sizeof area_texts);
    cas_test_legal_texts(&by_placement, placement_texts, sizeof placement_texts);
    assert_string_equal(area_texts, placement_texts);
    cas_test_game_close(&by_placement);
    cas_test_game_close(&by_area);
}

/* Red's CG-1 east of D and Blue's CG-2 west of it: every open spot lies
 * next to one of them, so Red's CG-3 fits nowhere.  Red is not asked; with
 * the bag empty and nobody else holding a castle the game ends, CG-3 still
 * in Red's hand, worth nothing. */
static void test_castle_that_fits_nowhere(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    carcx_open(&g, 2, CARCX_CG, "*:0,D:1,CG-1:1,CG-2:1,CG-3:1");
    cas_test_play_record(&g, "castle pick CG-1\ncastle pick CG-2\ncastle pick CG-3\n"
                             "castle CG-1 1,0 0\npass\n"
                             "castle CG-2 -2,0 0\npass\n");
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_TERMINAL);
    char *text = cas_test_render(&g, CAS_VIEWER_PUBLIC, CAS_RENDER_TEXT);
    assert_non_null(strstr(text, "Red      castles in hand: CG-3\n"));
    free(text);
    cas_test_expect_scores(&g, (const int64_t[]){0, 0});
    cas_test_game_close(&g);
}

/* The same board with one tile in the bag: CG-3 still fits nowhere, so
 * Red draws (U below D).  Now the bag is empty, Blue has no castle, and
 * the turn passes on to Red, whose CG-3 now fits below U: the final round.
 * Placed with his lord (0,2 and -1,2, rotated 180), it scores 1 around + 2
 * at the end. */
#define FINAL_ROUND_TILES "*:0,D:1,U:1,CG-1:1,CG-2:1,CG-3:1"
#define FINAL_ROUND_RECORD                                                 \
    "castle pick CG-1\ncastle pick CG-2\ncastle pick CG-3\n"              \
    "castle CG-1 1,0 0\npass\n"                                           \
    "castle CG-2 -2,0 0\npass\n"

static void test_bag_empty_castle_in_hand_placed(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    carcx_open(&g, 2, CARCX_CG, FINAL_ROUND_TILES);
    cas_test_play_record(&g, FINAL_ROUND_RECORD);
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_CHANCE); /* not asked */
    cas_test_play_record(&g, "draw U\nplace U 0,1 0\npass\n");
    assert_int_equal(g.vt->current(g.state), 0); /* Red again, Blue skipped */
    cas_test_play_record(&g, "castle CG-3 0,2 180\ndeploy meeple castle\n");
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_TERMINAL);
    assert_non_null(strstr(g.events, "Red +3 castle (1 around, incomplete)\n"));
    cas_test_expect_scores(&g, (const int64_t[]){3, 0});
    cas_test_game_close(&g);
}

/* In the final round `castle keep` gives the castles up: the game ends,
 * CG-3 shown as given up, worth nothing. */
static void test_bag_empty_castle_given_up(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    carcx_open(&g, 2, CARCX_CG, FINAL_ROUND_TILES);
    cas_test_play_record(&g, FINAL_ROUND_RECORD "draw U\nplace U 0,1 0\npass\n"
                                                "castle keep\n");
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_TERMINAL);
    char *text = cas_test_render(&g, CAS_VIEWER_PUBLIC, CAS_RENDER_TEXT);
    assert_non_null(strstr(text, "Red      castles in hand: CG-3 (given up)\n"));
    free(text);
    cas_test_expect_scores(&g, (const int64_t[]){0, 0});
    cas_test_game_close(&g);
}

/* A castle counts nothing for farmers: Red's farmer on the castle tile's
 * field beside its city cap (CG-1 at 0,1 rotated 180; D(-1,2) closes the
 * cap) scores 3 for that one completed city, nothing for the castle. */
static void test_castle_not_a_city_for_farmers(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    carcx_open(&g, 2, CARCX_CG, LOOP_9_TILES);
    cas_test_play_record(&g, "castle pick CG-1\ncastle CG-1 0,1 180\n"
                             "deploy meeple field Sw0+Ws1\n"
                             "draw V\nplace V 0,2 90\npass\n"
                             "draw D\nplace D -1,2 0\npass\n"
                             "draw V\nplace V -2,2 180\npass\n"
                             "draw V\nplace V -2,1 270\npass\n");
    cas_test_expect_scores(&g, (const int64_t[]){3, 0});
    cas_test_game_close(&g);
}

/* A castle id that names no tile is refused when the game is created,
 * naming the option (the data file may have been replaced). */
static void test_unknown_castle_id_refused(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    char dir[1024];
    struct cas_expansion_ref ref = cas_test_expansion_ref(carcx_plugin(CARCX_CG), dir,
                                                          sizeof dir);
    struct cas_option_value bad = {.struct_size = sizeof bad, .name = "castles",
                                   .value = "CG-1,CG-9"};
    ref.options = &bad;
    ref.n_options = 1;
    assert_int_equal(cas_test_game_try_open(&g, cas_plugin_entry(), 2, NULL, &ref, 1),
                     CAS_EOPTION);
    assert_non_null(strstr(g.error, "no tile CG-9 in the game's tile sets"));
    cas_test_game_close(&g);
}

/* A tile file may give an id no control character, '"' or '\\' (ids reach
 * JSON renders, notation and messages; renders escape them as well): a
 * replaced, provisional data file with such a castle id is refused when
 * the game opens, the error naming the file, the line, the id and the fix,
 * and no game is made of it. */
#define ODD_CASTLE "Q\"\\\x01"
static void test_odd_tile_id_refused(void **unused)
{
    (void)unused;
    char source[1024], dir[] = "/tmp/castles_germany_XXXXXX", path[1100];
    snprintf(path, sizeof path, "%s/castles-germany.tiles",
             cas_test_data_dir("castles-germany", source, sizeof source));
    FILE *in = fopen(path, "r");
    assert_non_null(in);
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/castles-germany.tiles", dir);
    FILE *out = fopen(path, "w");
    assert_non_null(out);
    char line[512];
    int n = 0, odd_line = 0;
    while (fgets(line, sizeof line, in)) {
        n++;
        bool first_castle = strncmp(line, "tile CG-1 ", 10) == 0;
        if (first_castle) {
            fputs("tile " ODD_CASTLE " ", out);
            odd_line = n;
        }
        fputs(first_castle ? line + 10 : line, out);
    }
    fclose(in);
    assert_int_equal(fclose(out), 0);
    assert_true(odd_line > 0);

    struct cas_test_game g;
    struct cas_expansion_ref ref = cas_test_expansion_ref(carcx_plugin(CARCX_CG), source,
                                                          sizeof source);
    ref.data_dir = dir;
    assert_int_equal(cas_test_game_try_open(&g, cas_plugin_entry(), 2, NULL, &ref, 1),
                     CAS_EDATA);
    char want[1300];
    snprintf(want, sizeof want,
             "%s:%d: tile id 'Q\"\\\\x01' contains '\"'; an id may not contain control "
             "characters, '\"' or '\\'; use letters, digits or '-'", path, odd_line);
    assert_string_equal(g.error, want);
    assert_null(g.state);
    cas_test_game_close(&g);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* The state block travels with serialize; castles in two hands at once
 * are refused. */
static void test_state_block_checked(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    carcx_open(&g, 2, CARCX_CG, "*:0,D:1,U:2,CG-1:1,CG-2:1");
    cas_test_play_record(&g, "castle pick CG-1\ncastle pick CG-2\n");
    /* the block: 6 hands, 2 flags, 6 placements (16-bit), 6 placed castles
     * (12 bytes); Blue's hand second: Blue holds Red's CG-1 too */
    const size_t block = 6 + 2 + 6 * 2 + 6 * 12;
    carcx_expect_block_checked(&g, block - 1, 2, 3);
    cas_test_game_close(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_example_2_castle_8_at_the_end),
        cmocka_unit_test(test_complete_castle_12),
        cmocka_unit_test(test_example_3_road_and_city_bonus),
        cmocka_unit_test(test_example_4_loop_to_same_half_7),
        cmocka_unit_test(test_example_5_loop_to_other_half_9),
        cmocka_unit_test(test_monastery_a_three_castles_9),
        cmocka_unit_test(test_monastery_b_two_castles_9),
        cmocka_unit_test(test_pick_two_each_public),
        cmocka_unit_test(test_pick_one_each_with_four),
        cmocka_unit_test(test_no_touch_diagonally),
        cmocka_unit_test(test_no_touch_through_veto_placement),
        cmocka_unit_test(test_castle_that_fits_nowhere),
        cmocka_unit_test(test_bag_empty_castle_in_hand_placed),
        cmocka_unit_test(test_bag_empty_castle_given_up),
        cmocka_unit_test(test_castle_not_a_city_for_farmers),
        cmocka_unit_test(test_unknown_castle_id_refused),
        cmocka_unit_test(test_odd_tile_id_refused),
        cmocka_unit_test(test_state_block_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
