/*
 * test_abbey_mayor.c — Abbey & Mayor scenarios with exact scores: each
 * rulebook caption (the 3-point road closed by an abbey, the 20-point mayor
 * city, the mayor-only city, the 6-point barn placement, the 2+2 barn join,
 * the wagon's two moves), and wagons of two players freed by one scoring
 * asked in clockwise order, a wagon with nowhere to go, an abbey closing
 * three features, barn and pig in both scorings, a large meeple against a
 * mayor, the final abbey round on and off, the wagon's C1 reach, the pool,
 * notation and the state block.
 * Coordinates: start tile D at 0,0 (city N, road E+W), x east, y south.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <stdio.h>

#include <castellan/carcassonne.h>

#include "scenario.h"

/* A hole at 1,1 below V(1,0), whose road runs west through D to A(-1,0)'s
 * monastery: A, V and five B around the hole; Blue's meeple on the road.
 * The last B closes the hole's ring of neighbours. */
#define HOLE_RECORD                                                        \
    "draw A\nplace A -1,0 270\npass\n"                                     \
    "draw V\nplace V 1,0 0\ndeploy meeple road S+W\n"                      \
    "draw B\nplace B 2,0 0\npass\n"                                        \
    "draw B\nplace B 2,1 0\npass\n"                                        \
    "draw B\nplace B 0,1 0\npass\n"                                        \
    "draw B\nplace B 0,2 0\npass\n"                                        \
    "draw B\nplace B 1,2 0\npass\n"

static int has_line(const char *texts, const char *line)
{
    size_t len = strlen(line);
    for (const char *at = strstr(texts, line); at; at = strstr(at + 1, line))
        if ((at == texts || at[-1] == '\n') && (at[len] == '\n' || at[len] == '\0'))
            return 1;
    return 0;
}

/* ------------------------------------------------------------ abbey */

/* Open a game and play HOLE_RECORD: Blue decides on her abbey. */
static void open_at_the_hole(struct cas_test_game *g)
{
    char texts[512];
    carcx_open(g, 2, CARCX_AM, "*:0,ABBEY:6,D:1,A:1,V:1,B:6");
    carcx_play_then_list(g, HOLE_RECORD, texts, sizeof texts);
    assert_string_equal(texts, "abbey keep\nabbey 1,1\n");
}

/* Caption: "The road with the blue meeple is complete. Blue scores 3
 * points."  Blue fills the hole with her abbey instead of drawing; the
 * abbey closes the road A-D-V: 3. */
static void test_abbey_closes_road_3(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    open_at_the_hole(&g);
    cas_test_play_record(&g, "abbey 1,1\npass\n");
    assert_non_null(strstr(g.events, "Blue +3 road (3 tiles)\n"));
    cas_test_play_record(&g, "draw B\nplace B 3,0 0\npass\n");
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_TERMINAL);
    cas_test_expect_scores(&g, (const int64_t[]){0, 3});
    cas_test_game_close(&g);
}

/* Lenient input: `pass` at the abbey decision is `abbey keep` (the draw
 * follows), at a wagon's `wagon home`; the canonical texts stay. */
static void test_pass_declines_abbey_and_wagon(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    open_at_the_hole(&g);
    cas_test_play(&g, "pass");
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_CHANCE);
    cas_test_game_close(&g);
    carcx_open(&g, 2, CARCX_AM, "*:0,ABBEY:6,D:1,G:1,E:2,B:1,A:2");
    cas_test_play_record(&g, "draw G\nplace G 0,-1 90\ndeploy wagon city N+S\n"
                             "draw E\nplace E -1,-1 0\ndeploy meeple city N\n"
                             "draw B\nplace B 1,-1 0\npass\n"
                             "draw E\nplace E 0,-2 180\npass\n");
    assert_int_equal(g.vt->current(g.state), 0); /* Red's wagon decides */
    cas_test_play(&g, "pass");
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_CHANCE); /* went home: next draw */
    char *json = cas_test_render(&g, CAS_VIEWER_PUBLIC, CAS_RENDER_JSON);
    assert_null(strstr(json, "\"kind\":\"wagon\""));
    free(json);
    cas_test_game_close(&g);
}

/* Every hole is offered, in x then y order, numbered on the board of the
 * decision view, and a filled one no longer:
 * five more monasteries make a second hole at 1,3 below the first. */
static void test_abbey_lists_every_hole(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    char texts[512];
    carcx_open(&g, 2, CARCX_AM, "*:0,ABBEY:6,D:1,A:1,V:1,B:12");
    carcx_play_then_list(&g, HOLE_RECORD "abbey keep\ndraw B\nplace B 2,2 0\npass\n"
                                        "abbey keep\ndraw B\nplace B 2,3 0\npass\n"
                                        "abbey keep\ndraw B\nplace B 0,3 0\npass\n"
                                        "abbey keep\ndraw B\nplace B 0,4 0\npass\n"
                                        "abbey keep\ndraw B\nplace B 1,4 0\npass\n",
                         texts, sizeof texts);
    assert_string_equal(texts, "abbey keep\nabbey 1,1\nabbey 1,3\n");
    /* the decision view numbers the holes on the board: choices 2 and 3 */
    char *view = cas_test_render_choices(&g, 1, CAS_RENDER_TEXT);
    if (!strstr(view, "\n    o .m. 2 .m. o \n") || !strstr(view, "\n    o .m. 3 .m. o \n") ||
        !strstr(view, "\n     3 over -4: choices 3 to 4 place the tile there\n"))
        fail_msg("the holes are not numbered:\n%s", view);
    free(view);
    carcx_play_then_list(&g, "abbey 1,3\npass\n", texts, sizeof texts);
    assert_string_equal(texts, "abbey keep\nabbey 1,1\n"); /* Red's turn, his abbey */
    cas_test_game_close(&g);
}

/* No hole, no abbey decision: the first turn goes straight to the draw. */
static void test_abbey_needs_a_hole(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    carcx_open(&g, 2, CARCX_AM, "*:0,ABBEY:6,D:1,U:1");
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_CHANCE);
    cas_test_game_close(&g);
}

/* One abbey closes three features at once: Blue's road from the north (3),
 * Blue's city from the east (E, 2) and Red's road from the south (A, 1),
 * scored north, east, south. */
static void test_abbey_closes_three_features(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    carcx_open(&g, 2, CARCX_AM, "*:0,ABBEY:6,D:1,A:2,V:1,B:4,E:1");
    cas_test_play_record(&g, "draw A\nplace A -1,0 270\npass\n"
                             "draw V\nplace V 1,0 0\ndeploy meeple road S+W\n"
                             "draw B\nplace B 2,0 0\npass\n"
                             "draw E\nplace E 2,1 270\ndeploy meeple city W\n"
                             "draw B\nplace B 0,1 0\npass\n"
                             "draw B\nplace B 0,2 0\npass\n"
                             "draw A\nplace A 1,2 180\ndeploy meeple road N\n"
                             "abbey 1,1\npass\n");
    assert_non_null(strstr(g.events, "Blue +3 road (3 tiles)\n"
                                     "Blue +2 city (1 tile, 0 coats)\n"
                                     "Red +1 road (1 tile)\n"));
    cas_test_play_record(&g, "draw B\nplace B 3,0 0\npass\n");
    cas_test_expect_scores(&g, (const int64_t[]){1, 5});
    cas_test_game_close(&g);
}

/* The printed rules have no final abbey round (option off, the default):
 * once Red places the last tile the game ends; Blue's open road scores 3
 * at the end and her abbey stays in hand. */
static void test_final_abbey_round_off(void **unused)
{
    (void)unused;
    carcx_scenario(2, CARCX_AM, "*:0,ABBEY:6,D:1,A:1,V:1,B:5", HOLE_RECORD,
                   (const int64_t[]){0, 3});
}

/* With final-abbey-round on, Blue (after Red, who placed the last tile)
 * still places her abbey: the road scores 3, her monk on the abbey 8 at
 * the end (7 around it).  Red has no hole left; the round ends with him. */
static void test_final_abbey_round_on(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    char texts[512];
    carcx_open_am(&g, 2, CARCX_AM, "*:0,ABBEY:6,D:1,A:1,V:1,B:5", "on", NULL);
    carcx_play_then_list(&g, HOLE_RECORD, texts, sizeof texts);
    assert_string_equal(texts, "abbey keep\nabbey 1,1\n");
    cas_test_play_record(&g, "abbey 1,1\ndeploy meeple monastery\n");
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_TERMINAL);
    cas_test_expect_scorings(&g, "1 +3 road play road at -1,0\n"
                                 "1 +8 abbey final monastery at 1,1\n");
    cas_test_expect_scores(&g, (const int64_t[]){0, 11});
    cas_test_game_close(&g);
}

/* The final round asks each seat once: Blue keeps her abbey and the game
 * ends after Red's turn comes round without a hole to fill. */
static void test_final_abbey_round_kept(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    carcx_open_am(&g, 2, CARCX_AM, "*:0,ABBEY:6,D:1,A:1,V:1,B:5", "on", NULL);
    cas_test_play_record(&g, HOLE_RECORD);
    cas_test_play(&g, "abbey keep");
    assert_int_equal(g.vt->current(g.state), 0); /* Red may still fill it */
    cas_test_play(&g, "abbey keep");
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_TERMINAL);
    cas_test_expect_scores(&g, (const int64_t[]){0, 3});
    cas_test_game_close(&g);
}

/* ------------------------------------------------------------ mayor */

/* The arms of a city around the hole 0,-1: Red's mayor on AM-9 (coat) at
 * -1,-1, Blue's meeple on G at 1,-1 (with AM-9, coat, at 2,-1), the north
 * arm G, E above B(1,-2); C (coat) joins them all. */
#define MAYOR_CITY_TILES "*:0,ABBEY:6,D:1,U:2,AM-9:2,G:2,B:1,E:1,C:1"

/* Caption: "Your mayor has 3 strength (3 coats of arms).  The 2 blue
 * meeples add up to 2 strength.  You alone score 20 points."  7 tiles and
 * 3 coats: 2 x 10. */
static void test_mayor_city_20(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    carcx_open(&g, 2, CARCX_AM, MAYOR_CITY_TILES);
    cas_test_play_record(&g, "draw U\nplace U -1,0 0\npass\n"
                             "draw U\nplace U 1,0 0\npass\n"
                             "draw AM-9\nplace AM-9 -1,-1 180\ndeploy mayor city E\n"
                             "draw G\nplace G 1,-1 0\ndeploy meeple city E+W\n"
                             "draw B\nplace B 1,-2 0\npass\n"
                             "draw G\nplace G 0,-2 90\ndeploy meeple city N+S\n"
                             "abbey keep\ndraw AM-9\nplace AM-9 2,-1 0\npass\n"
                             "abbey keep\ndraw E\nplace E 0,-3 180\npass\n"
                             "abbey keep\ndraw C\nplace C 0,-1 0\npass\n");
    assert_non_null(strstr(g.events, "Red +20 city (7 tiles, 3 coats) [mayor-city]\n"));
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_TERMINAL);
    cas_test_expect_scorings(&g, "0 +20 mayor-city play city at 0,-3\n");
    cas_test_expect_scores(&g, (const int64_t[]){20, 0});
    cas_test_game_close(&g);
}

/* Caption: a completed city holding only mayors and no coat of arms scores
 * nothing (the mayor's strength is 0); the mayor returns to the supply.
 * The scoring is still told: Red +0 for a mayor-city. */
static void test_mayor_only_city_scores_nothing(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    char texts[1024];
    carcx_open(&g, 2, CARCX_AM, "*:0,ABBEY:6,D:1,E:2,U:1");
    cas_test_play_record(&g, "draw E\nplace E 0,-1 180\ndeploy mayor city S\n"
                             "draw U\nplace U 1,0 0\npass\n");
    /* told, with 0 points: the city scored and the mayor goes home */
    cas_test_expect_scorings(&g, "0 +0 mayor-city play city at 0,-1\n");
    carcx_play_then_list(&g, "draw E\nplace E 1,1 180\n", texts, sizeof texts);
    assert_true(has_line(texts, "deploy mayor city S")); /* it came back */
    cas_test_play(&g, "pass");
    cas_test_expect_scores(&g, (const int64_t[]){0, 0});
    cas_test_game_close(&g);
}

/* A mayor goes only into a city nobody holds: with Red's meeple on D's
 * city, Blue's tile extending it offers no mayor there. */
static void test_mayor_only_in_empty_city(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    char texts[1024];
    carcx_open(&g, 2, CARCX_AM, "*:0,ABBEY:6,D:1,G:2");
    carcx_play_then_list(&g, "draw G\nplace G 0,-1 90\n", texts, sizeof texts);
    assert_true(has_line(texts, "deploy mayor city N+S"));
    cas_test_play_record(&g, "deploy meeple city N+S\ndraw G\nplace G 0,-2 90\n");
    cas_test_legal_texts(&g, texts, sizeof texts);
    assert_false(has_line(texts, "deploy mayor city N+S"));
    cas_test_play(&g, "pass");
    cas_test_expect_scores(&g, (const int64_t[]){3, 0});
    cas_test_game_close(&g);
}

/* With Inns & Cathedrals: a mayor with 3 coats (3) beats a large meeple
 * (2); Red alone scores the 6-tile, 3-coat city: 18. */
static void test_mayor_beats_large_meeple(void **unused)
{
    (void)unused;
    carcx_scenario(2, CARCX_IC | CARCX_AM, "*:0,ABBEY:6,D:1,U:2,AM-9:2,G:1,B:1,E:1,C:1",
                   "draw U\nplace U -1,0 0\npass\n"
                   "draw U\nplace U 1,0 0\npass\n"
                   "draw AM-9\nplace AM-9 -1,-1 180\ndeploy mayor city E\n"
                   "draw G\nplace G 1,-1 0\ndeploy large-meeple city E+W\n"
                   "draw B\nplace B 1,-2 0\npass\n"
                   "draw E\nplace E 0,-2 180\npass\n"
                   "abbey keep\ndraw AM-9\nplace AM-9 2,-1 0\npass\n"
                   "abbey keep\ndraw C\nplace C 0,-1 0\npass\n",
                   (const int64_t[]){18, 0});
}

/* ------------------------------------------------------------ barn */

/* Two completed cities (D + E above it; E at 1,-1 + E at 2,-1) around the
 * field of E(0,-1)'s north, B(0,-2), B(1,-2) and E(1,-1); B(1,-2) closes
 * the corner 1,-1 NW where four fields meet. */
#define BARN_TILES_BEFORE_CORNER                                           \
    "draw E\nplace E 0,-1 180\npass\n"                                     \
    "draw E\nplace E 1,-1 90\n"

/* Caption: "You place a barn.  Blue scores 6 points for the 2 completed
 * cities in the same field and returns her farmer."  At the end Red's barn
 * scores 4 per city of its field: 8. */
static void test_barn_placement_scores_6(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    char texts[1024];
    carcx_open(&g, 2, CARCX_AM, "*:0,ABBEY:6,D:1,E:3,B:2");
    cas_test_play_record(&g, BARN_TILES_BEFORE_CORNER
                         "deploy meeple field Nw+Ne+Se+Sw+Ws+Wn\n"
                         "draw E\nplace E 2,-1 270\npass\n"
                         "draw B\nplace B 0,-2 0\npass\n");
    carcx_play_then_list(&g, "draw B\nplace B 1,-2 0\n", texts, sizeof texts);
    assert_true(has_line(texts, "deploy barn corner 1,-1 NW"));
    assert_false(has_line(texts, "deploy barn corner 1,-2 NW")); /* 3 tiles there */
    cas_test_play(&g, "deploy barn corner 1,-1 NW");
    assert_non_null(strstr(g.events, "Red places a barn\n"
                                     "Blue +6 field (2 completed cities) [barn-field]\n"));
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_TERMINAL);
    assert_non_null(strstr(g.events, "Red +8 barn (2 completed cities)\n"));
    cas_test_expect_scorings(&g, "1 +6 barn-field play field at 1,-1\n"
                                 "0 +8 barn final field at 1,-1\n");
    cas_test_expect_scores(&g, (const int64_t[]){8, 6});
    cas_test_game_close(&g);
}

/* A barn whose field touches no completed city scores nothing at the end,
 * and that is told: Red's barn at the corner of D, U(-1,0), B(0,1) and
 * B(-1,1), below the road, with D's city still open. */
static void test_barn_without_cities_told_zero(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    carcx_open(&g, 2, CARCX_AM, "*:0,ABBEY:6,D:1,B:2,U:1");
    cas_test_play_record(&g, "draw B\nplace B 0,1 0\npass\n"
                             "draw U\nplace U -1,0 0\npass\n"
                             "draw B\nplace B -1,1 0\ndeploy barn corner 0,1 NW\n");
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_TERMINAL);
    cas_test_expect_scorings(&g, "0 +0 barn final field at 0,1\n");
    cas_test_expect_scores(&g, (const int64_t[]){0, 0});
    cas_test_game_close(&g);
}

/* The option barns = 2 (JCloisterZone games may give two): Red's first
 * barn south of the road, at 0,1 NW; her second north of it, at -1,0 NW
 * (B(-2,-1), B(-1,-1), U(-2,0), U(-1,0)).  With one barn the second is no
 * choice; with two both are placed and both score (0: no completed city)
 * at the end. */
#define TWO_BARNS_RECORD                                                   \
    "draw B\nplace B 0,1 0\npass\n"                                         \
    "draw U\nplace U -1,0 0\npass\n"                                        \
    "draw B\nplace B -1,1 0\ndeploy barn corner 0,1 NW\n"                   \
    "draw B\nplace B -1,-1 0\npass\n"                                       \
    "draw U\nplace U -2,0 0\npass\n"                                        \
    "draw B\nplace B 1,1 0\npass\n"                                         \
    "draw B\nplace B -2,-1 0\n"
#define TWO_BARNS_TILES "*:0,ABBEY:6,D:1,B:5,U:2"

static void test_second_barn_with_option_barns(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    char texts[1024];
    carcx_open(&g, 2, CARCX_AM, TWO_BARNS_TILES);
    carcx_play_then_list(&g, TWO_BARNS_RECORD, texts, sizeof texts);
    assert_false(has_line(texts, "deploy barn corner -1,0 NW"));
    cas_test_game_close(&g);
    const char *options[] = {"abbey-mayor.barns=2", NULL};
    carcx_open_with(&g, 2, CARCX_AM, TWO_BARNS_TILES, options);
    cas_test_play_record(&g, TWO_BARNS_RECORD "deploy barn corner -1,0 NW\n");
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_TERMINAL);
    assert_non_null(strstr(g.events, "Red places a barn\n"));
    cas_test_expect_scorings(&g, "0 +0 barn final field at 0,1\n"
                                 "0 +0 barn final field at -1,0\n");
    cas_test_game_close(&g);
}

/* The caption's board with barns = 2: Red's first barn on the field of the
 * two completed cities (corner 1,-1 NW), her second on the field east of
 * E(2,-1) (corner 3,0 NW: E, B(3,-1), B(2,0), B(3,0)), Blue's below the
 * road (corner 0,1 NW); V(1,0) joins Red's two fields and the strip north
 * of D's road, A(-2,0) ends the road so its field joins north and south.
 * One field, two completed cities, three barns: "If multiple barns occupy
 * the same field, all concerned players score full points", each once:
 * Red 8 (not 16), Blue 8. */
static void test_two_barns_of_one_player_score_once(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    const char *options[] = {"abbey-mayor.barns=2", NULL};
    carcx_open_with(&g, 2, CARCX_AM, "*:0,ABBEY:6,D:1,E:3,B:7,U:1,V:1,A:1", options);
    cas_test_play_record(&g, BARN_TILES_BEFORE_CORNER "pass\n"
                             "draw E\nplace E 2,-1 270\npass\n"
                             "draw B\nplace B 0,-2 0\npass\n"
                             "draw B\nplace B 1,-2 0\ndeploy barn corner 1,-1 NW\n"
                             "draw B\nplace B 3,-1 0\npass\n"
                             "draw B\nplace B 2,0 0\npass\n"
                             "draw U\nplace U -1,0 0\npass\n"
                             "draw B\nplace B 3,0 0\ndeploy barn corner 3,0 NW\n"
                             "draw B\nplace B 0,1 0\npass\n"
                             "draw V\nplace V 1,0 0\npass\n"
                             "draw B\nplace B -1,1 0\ndeploy barn corner 0,1 NW\n"
                             "draw A\nplace A -2,0 270\npass\n");
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_TERMINAL);
    cas_test_expect_scorings(&g, "0 +8 barn final field at 1,-1\n"
                                 "1 +8 barn final field at 1,-1\n");
    cas_test_expect_scores(&g, (const int64_t[]){8, 8});
    cas_test_game_close(&g);
}

/* Abbey & Mayor with its init spied on, for the engine's services it is
 * lent: a test asks them what the board holds. */
static const struct cas_carc_api *am_api;
static int (*am_real_init)(const struct cas_carc_api *, const struct cas_host *,
                           const cas_carc_game *, const struct cas_option_value *, size_t,
                           void **, size_t *);

static int spying_init(const struct cas_carc_api *api, const struct cas_host *host,
                       const cas_carc_game *game, const struct cas_option_value *options,
                       size_t n_options, void **xctx, size_t *bad_option)
{
    am_api = api;
    return am_real_init(api, host, game, options, n_options, xctx, bad_option);
}

static void open_am_spied(struct cas_test_game *g, const char *barns)
{
    static struct cas_carc_expansion extension;
    static struct cas_plugin plugin;
    static char dir[1024];
    static struct cas_option_value option = {.struct_size = sizeof option, .name = "barns"};
    plugin = *carcx_plugin(CARCX_AM);
    extension = *(const struct cas_carc_expansion *)plugin.extension;
    am_real_init = extension.init;
    extension.init = spying_init;
    plugin.extension = &extension;
    option.value = barns;
    struct cas_expansion_ref ref = cas_test_expansion_ref(&plugin, dir, sizeof dir);
    ref.options = &option;
    ref.n_options = 1;
    cas_test_game_open(g, cas_plugin_entry(), 2, NULL, &ref, 1);
}

/* What the barns on the board are worth at the end for `seat`, each field
 * once however many of its barns stand there (4 per completed city), and
 * on how many fields it has barns. */
static int64_t barn_fields_worth(const cas_carc *c, int seat, int *fields)
{
    const struct cas_carc_api *api = am_api;
    int barn = api->figure_kind_index(api->game(c), "barn");
    cas_carc_feature mine[6]; /* barns of one seat, at most */
    int64_t worth = 0;
    *fields = 0;
    for (int t = 0; t < api->tile_count(c); t++) {
        cas_carc_feature first;
        unsigned parts = api->tile_parts_of(c, t, CAS_CARC_CLASS_BIT(CAS_CARC_FIELD), &first);
        for (; parts; parts &= parts - 1) {
            cas_carc_feature part = first + __builtin_ctz(parts);
            struct cas_carc_figure on[16];
            size_t n, seen = 0;
            assert_int_equal(api->figures_on(c, part, on, 16, &n), CAS_OK);
            int here = 0;
            for (size_t i = 0; i < n; i++)
                here |= on[i].kind == barn && on[i].player == seat &&
                        api->figure_part(c, on[i].id) == part;
            while (here && seen < (size_t)*fields && !api->same_feature(c, mine[seen], part))
                seen++;
            if (!here || seen < (size_t)*fields)
                continue;
            struct cas_carc_feature_info info = {.struct_size = sizeof info};
            assert_int_equal(api->feature_info(c, part, &info), CAS_OK);
            worth += 4 * info.completed_cities;
            mine[(*fields)++] = part;
        }
    }
    return worth;
}

/* Random complete games with three barns a seat, a barn placed wherever
 * one may go: at the end each seat scores each of its barns' fields once,
 * in full, told once per field, as the board itself says.  Bounded: 40
 * games of the full pool.  (One seat's two barns rarely end on one field
 * in random play, about once in 600 seat-games:
 * test_two_barns_of_one_player_score_once sets that up; these games
 * caught a second barn recorded on the field of the first.) */
static void test_random_games_score_a_field_once_a_seat(void **unused)
{
    (void)unused;
    uint64_t seed = 0x2545F4914F6CDD1Du;
    static cas_action legal[4096];
    int several = 0; /* seats that ended a game with two barns or more */
    for (int game = 0; game < 40; game++) {
        struct cas_test_game g;
        open_am_spied(&g, "3");
        for (int decisions = 0; g.vt->current(g.state) != CAS_ACTOR_TERMINAL; decisions++) {
            size_t n;
            char text[128];
            assert_int_equal(g.vt->legal_actions(g.state, legal, 4096, &n), CAS_OK);
            seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
            size_t pick = seed % n;
            for (size_t i = 0; i < n; i++)
                if (g.vt->action_text(g.state, legal[i], text, sizeof text) > 0 &&
                    strncmp(text, "deploy barn", 11) == 0)
                    pick = i;
            assert_true(g.vt->action_text(g.state, legal[pick], text, sizeof text) > 0);
            cas_test_play(&g, text);
            assert_true(decisions < 2000);
        }
        const cas_carc *c = (const cas_carc *)g.state;
        for (int seat = 0; seat < 2; seat++) {
            int64_t told = 0;
            int lines = 0, fields;
            for (const char *at = g.scorings; at && *at; at += strcspn(at, "\n") + 1) {
                int who;
                long long points;
                char category[32], when[8];
                if (sscanf(at, "%d %lld %31s %7s", &who, &points, category, when) == 4 &&
                    who == seat && strcmp(category, "barn") == 0 &&
                    strcmp(when, "final") == 0) {
                    told += points;
                    lines++;
                }
            }
            int64_t worth = barn_fields_worth(c, seat, &fields);
            if (lines != fields || told != worth)
                fail_msg("game %d: seat %d told %d barn scorings, %lld points, for barns on "
                         "%d fields worth %lld:\n%s", game, seat, lines, (long long)told,
                         fields, (long long)worth, g.scorings);
            several += 3 - am_api->supply(c, seat, am_api->figure_kind_index(
                                                       am_api->game(c), "barn")) >= 2;
        }
        cas_test_game_close(&g);
    }
    assert_true(several > 0);
}

/* The 2+2 board: Red's barn (no farmer yet), Blue's farmer east of E(2,-1)
 * on B(2,0), Red's farmer on U(-1,0) north of the road; V at 1,0 joins
 * both fields to the barn's. */
#define BARN_JOIN_RECORD                                                   \
    BARN_TILES_BEFORE_CORNER "pass\n"                                      \
    "draw E\nplace E 2,-1 270\npass\n"                                     \
    "draw B\nplace B 0,-2 0\npass\n"                                       \
    "draw B\nplace B 1,-2 0\ndeploy barn corner 1,-1 NW\n"                 \
    "draw B\nplace B 2,0 0\ndeploy meeple field Nw+Ne+En+Es+Se+Sw+Ws+Wn\n" \
    "draw U\nplace U -1,0 0\ndeploy meeple field Nw+Ne+En+Wn\n"            \
    "draw V\nplace V 1,0 0\n"

/* Caption: "The tile placed this turn connects both meeples to the barn's
 * field.  You and Blue each score 2 points for the 2 completed cities."
 * The farmers go home; Red's barn scores 8 at the end. */
static void test_barn_join_scores_2_and_2(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    char texts[1024];
    carcx_open(&g, 2, CARCX_AM, "*:0,ABBEY:6,D:1,E:3,B:3,U:1,V:1");
    carcx_play_then_list(&g, BARN_JOIN_RECORD, texts, sizeof texts);
    /* no farmer into the barn's field, now joined by V's big field */
    assert_false(has_line(texts, "deploy meeple field Nw+Ne+En+Es+Se+Wn"));
    assert_true(has_line(texts, "deploy meeple field Sw+Ws"));
    cas_test_play(&g, "pass");
    assert_non_null(strstr(g.events, "Red +2 field (2 completed cities) [barn-join-field]\n"));
    assert_non_null(strstr(g.events, "Blue +2 field (2 completed cities) [barn-join-field]\n"));
    cas_test_expect_scorings(&g, "0 +2 barn-join-field play field at 1,-1\n"
                                 "1 +2 barn-join-field play field at 1,-1\n"
                                 "0 +8 barn final field at 1,-1\n");
    cas_test_expect_scores(&g, (const int64_t[]){10, 2});
    cas_test_game_close(&g);
}

/* One turn both places a barn and joins farmers to another barn's field
 * (JCloisterZone scores both): on the 2+2 board with B(0,1) and U(1,1)
 * (road N+S) below the road, Blue's V(1,0) joins both farmers to Red's
 * barn's field and takes Blue's barn into its other field, below the road
 * (corner 1,1 NW: D, V, B(0,1), U(1,1)).  The join scores 2 and 2 and both farmers
 * go home, so each seat has all 7 meeples again; at the end Red's barn 8,
 * Blue's 0 (no completed city below the road), Red's monk on B(2,1) 4 (its meeple back). */
static void test_barn_placed_while_joining_another(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    carcx_open(&g, 2, CARCX_AM, "*:0,ABBEY:6,D:1,E:3,B:5,U:2,V:1");
    cas_test_play_record(&g, BARN_TILES_BEFORE_CORNER "pass\n"
                             "draw E\nplace E 2,-1 270\npass\n"
                             "draw B\nplace B 0,-2 0\npass\n"
                             "draw B\nplace B 1,-2 0\ndeploy barn corner 1,-1 NW\n"
                             "draw B\nplace B 2,0 0\n"
                             "deploy meeple field Nw+Ne+En+Es+Se+Sw+Ws+Wn\n"
                             "draw U\nplace U -1,0 0\ndeploy meeple field Nw+Ne+En+Wn\n"
                             "draw B\nplace B 0,1 0\npass\n"
                             "draw U\nplace U 1,1 90\npass\n"
                             "abbey keep\ndraw V\nplace V 1,0 0\n");
    free(g.events);
    g.events = NULL;
    g.events_len = g.events_cap = 0;
    cas_test_play(&g, "deploy barn corner 1,1 NW");
    if (!strstr(g.events, "Blue places a barn\n") ||
        !strstr(g.events, "Red +2 field (2 completed cities) [barn-join-field]\n") ||
        !strstr(g.events, "Blue +2 field (2 completed cities) [barn-join-field]\n"))
        fail_msg("the turn's events:\n%s", g.events);
    char *json = cas_test_render(&g, CAS_VIEWER_PUBLIC, CAS_RENDER_JSON);
    if (!strstr(json, "{\"name\":\"Red\",\"score\":2,\"supply\":{\"meeple\":7,") ||
        !strstr(json, "{\"name\":\"Blue\",\"score\":2,\"supply\":{\"meeple\":7,"))
        fail_msg("the farmers are not back:\n%s", json);
    free(json);
    cas_test_play_record(&g, "draw B\nplace B 2,1 0\ndeploy meeple monastery\n");
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_TERMINAL);
    cas_test_expect_scorings(&g, "0 +2 barn-join-field play field at 1,-1\n"
                                 "1 +2 barn-join-field play field at 1,-1\n"
                                 "0 +4 monastery final monastery at 2,1\n"
                                 "0 +8 barn final field at 1,-1\n"
                                 "1 +0 barn final field at -1,0\n");
    cas_test_expect_scores(&g, (const int64_t[]){14, 2});
    cas_test_game_close(&g);
}

/* A barn needs field in all four corners: B(2,-2)'s south-west corner
 * meets E(1,-1)'s and E(2,-1)'s city edges.  A field already holding a
 * barn takes no second barn, nor a farmer (the barn occupies it): corner
 * 1,-2 NW, four B, is refused for Blue only because of Red's barn. */
static void test_barn_placement_rules(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    char texts[1024];
    carcx_open(&g, 2, CARCX_AM, "*:0,ABBEY:6,D:1,E:3,B:5");
    carcx_play_then_list(&g, BARN_TILES_BEFORE_CORNER "pass\n"
                             "draw E\nplace E 2,-1 270\npass\n"
                             "draw B\nplace B 0,-2 0\npass\n"
                             "draw B\nplace B 1,-2 0\ndeploy barn corner 1,-1 NW\n"
                             "draw B\nplace B 2,-2 0\n",
                         texts, sizeof texts);
    assert_false(has_line(texts, "deploy barn corner 2,-1 NW"));
    assert_true(has_line(texts, "deploy meeple monastery"));
    cas_test_play_record(&g, "pass\ndraw B\nplace B 1,-3 0\npass\n"
                             "draw B\nplace B 0,-3 0\n");
    cas_test_legal_texts(&g, texts, sizeof texts);
    assert_false(has_line(texts, "deploy barn corner 1,-2 NW"));
    assert_false(has_line(texts, "deploy meeple field Nw+Ne+En+Es+Se+Sw+Ws+Wn"));
    assert_true(has_line(texts, "deploy meeple monastery"));
    cas_test_game_close(&g);
}

/* With Traders & Builders, barn placement: Blue's farmer and pig in the
 * field score 4 per city: 8; Red's barn 8 at the end. */
static void test_barn_placement_with_pig(void **unused)
{
    (void)unused;
    carcx_scenario(2, CARCX_TB | CARCX_AM, "*:0,ABBEY:6,D:1,E:3,B:2",
                   BARN_TILES_BEFORE_CORNER "deploy meeple field Nw+Ne+Se+Sw+Ws+Wn\n"
                   "draw E\nplace E 2,-1 270\npass\n"
                   "draw B\nplace B 0,-2 0\ndeploy pig field Nw+Ne+En+Es+Se+Sw+Ws+Wn\n"
                   "draw B\nplace B 1,-2 0\ndeploy barn corner 1,-1 NW\n",
                   (const int64_t[]){8, 8});
}

/* With Traders & Builders, joining: Blue puts her pig on the joining tile
 * beside her farmer, now in the barn's field: 2 per city, 4; Red 2; the
 * pig goes home with the farmer; Red's barn 8 at the end. */
static void test_barn_join_with_pig(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    carcx_open(&g, 2, CARCX_TB | CARCX_AM, "*:0,ABBEY:6,D:1,E:3,B:3,U:1,V:1");
    cas_test_play_record(&g, BARN_JOIN_RECORD "deploy pig field Nw+Ne+En+Es+Se+Wn\n");
    assert_non_null(strstr(g.events, "Blue +4 field (2 completed cities) [barn-join-field]\n"));
    cas_test_expect_scores(&g, (const int64_t[]){10, 4});
    cas_test_game_close(&g);
}

/* With Traders & Builders, a barn is no farmer: Red, beside only his own
 * barn, may not put his pig there; his pig on the joining tile V (beside
 * his farmer) makes the join 2 per city for him, 4, and goes home with the
 * farmer although his barn stays in the field; Red's barn 8 at the end. */
static void test_barn_is_no_escort_for_a_pig(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    char texts[1024];
    carcx_open(&g, 2, CARCX_TB | CARCX_AM, "*:0,ABBEY:6,D:1,E:3,B:5,U:2,V:1");
    carcx_play_then_list(&g, BARN_TILES_BEFORE_CORNER "pass\n"
                             "draw E\nplace E 2,-1 270\npass\n"
                             "draw B\nplace B 0,-2 0\npass\n"
                             "draw B\nplace B 1,-2 0\ndeploy barn corner 1,-1 NW\n"
                             "draw B\nplace B 2,0 0\n"
                             "deploy meeple field Nw+Ne+En+Es+Se+Sw+Ws+Wn\n"
                             "draw B\nplace B -1,-2 0\n",
                         texts, sizeof texts);
    assert_false(has_line(texts, "deploy pig field Nw+Ne+En+Es+Se+Sw+Ws+Wn"));
    cas_test_play_record(&g, "pass\n"
                             "draw U\nplace U -1,0 0\npass\n"
                             "draw U\nplace U -2,0 0\ndeploy meeple field Nw+Ne+En+Wn\n"
                             "draw B\nplace B -1,-3 0\npass\n"
                             "draw V\nplace V 1,0 0\ndeploy pig field Nw+Ne+En+Es+Se+Wn\n");
    assert_non_null(strstr(g.events, "Red +4 field (2 completed cities) [barn-join-field]\n"));
    assert_non_null(strstr(g.events, "Blue +2 field (2 completed cities) [barn-join-field]\n"));
    char *json = cas_test_render(&g, CAS_VIEWER_PUBLIC, CAS_RENDER_JSON);
    assert_null(strstr(json, "\"kind\":\"pig\""));
    assert_non_null(strstr(json, "\"kind\":\"barn\""));
    free(json);
    cas_test_expect_scores(&g, (const int64_t[]){12, 2});
    cas_test_game_close(&g);
}

/* ------------------------------------------------------------ wagon */

/* Caption 1: Red's wagon scores the city D-G-E (3 tiles, 6) and may move
 * to the monastery B(1,-1) or the road below (D), not to Blue's city on the
 * left; caption 2: on the road A-D-A it scores 3 and may move to a
 * monastery (B, or an A beside it), not to Blue's city.  Its monastery
 * A(1,0), 3 around, scores 4 at the end; Blue's open city 1. */
static void test_wagon_two_moves(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    char texts[1024];
    carcx_open(&g, 2, CARCX_AM, "*:0,ABBEY:6,D:1,G:1,E:2,B:1,A:2");
    carcx_play_then_list(&g, "draw G\nplace G 0,-1 90\ndeploy wagon city N+S\n"
                             "draw E\nplace E -1,-1 0\ndeploy meeple city N\n"
                             "draw B\nplace B 1,-1 0\npass\n"
                             "draw E\nplace E 0,-2 180\npass\n",
                         texts, sizeof texts);
    assert_non_null(strstr(g.events, "Red +6 city (3 tiles, 0 coats)\n"));
    assert_int_equal(g.vt->current(g.state), 0); /* Red decides in Blue's turn */
    char *text = cas_test_render(&g, CAS_VIEWER_PUBLIC, CAS_RENDER_TEXT);
    assert_non_null(strstr(text, "Red decides: wagon (in Blue's turn)\n"));
    free(text);
    assert_string_equal(texts, "wagon home\nwagon 0,0 road E+W\nwagon 1,-1 monastery\n");
    cas_test_play_record(&g, "wagon 0,0 road E+W\n"
                             "draw A\nplace A -1,0 270\npass\n");
    carcx_play_then_list(&g, "draw A\nplace A 1,0 90\npass\n", texts, sizeof texts);
    assert_non_null(strstr(g.events, "Red +3 road (3 tiles)\n"));
    assert_string_equal(texts, "wagon home\nwagon 1,-1 monastery\nwagon -1,0 monastery\n"
                               "wagon 1,0 monastery\n");
    cas_test_play(&g, "wagon 1,0 monastery");
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_TERMINAL);
    cas_test_expect_scores(&g, (const int64_t[]){13, 1});
    cas_test_game_close(&g);
}

/* Three players: Blue's N at 0,-2 completes the city holding Red's and
 * Green's wagons (8 each).  Clockwise from Blue: Green decides first (to
 * the monastery B), then Red, who may no longer go there and goes home.
 * Green's monastery, 5 around, scores 6 at the end. */
static void test_wagons_decide_clockwise(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    char texts[1024];
    carcx_open(&g, 3, CARCX_AM, "*:0,ABBEY:6,D:1,G:1,B:1,E:1,U:1,N:1");
    cas_test_play_record(&g, "draw G\nplace G 0,-1 90\ndeploy wagon city N+S\n"
                             "draw B\nplace B 1,-1 0\npass\n"
                             "draw E\nplace E 1,-2 270\ndeploy wagon city W\n"
                             "draw U\nplace U 1,0 0\npass\n");
    carcx_play_then_list(&g, "draw N\nplace N 0,-2 180\npass\n", texts, sizeof texts);
    assert_int_equal(g.vt->current(g.state), 2);
    assert_string_equal(texts, "wagon home\nwagon 1,-1 monastery\n");
    cas_test_play(&g, "wagon 1,-1 monastery");
    assert_int_equal(g.vt->current(g.state), 0);
    cas_test_legal_texts(&g, texts, sizeof texts);
    assert_string_equal(texts, "wagon home\nwagon 0,0 road E+W\nwagon 1,0 road E+W\n");
    cas_test_play(&g, "wagon home");
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_TERMINAL);
    cas_test_expect_scores(&g, (const int64_t[]){8, 0, 14});
    cas_test_game_close(&g);
}

/* A wagon with nowhere to go (Blue holds the road, the city is complete)
 * goes home without a decision: Red deploys it again next turn. */
static void test_wagon_without_destination_goes_home(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    char texts[1024];
    carcx_open(&g, 2, CARCX_AM, "*:0,ABBEY:6,D:1,U:3,E:2");
    cas_test_play_record(&g, "draw U\nplace U 1,0 0\npass\n"
                             "draw U\nplace U -1,0 0\ndeploy meeple road E+W\n"
                             "draw E\nplace E 0,-1 180\ndeploy wagon city S\n");
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_CHANCE);
    carcx_play_then_list(&g, "draw U\nplace U 2,0 0\npass\n"
                             "draw E\nplace E 1,1 180\n",
                         texts, sizeof texts);
    assert_true(has_line(texts, "deploy wagon city S"));
    cas_test_play(&g, "pass");
    cas_test_expect_scores(&g, (const int64_t[]){4, 4});
    cas_test_game_close(&g);
}

/* With Inns & Cathedrals: nobody may stand on IC-5's road stubs, so Red's
 * wagon, freed by the city D-E (4), may go to IC-5's cities but to neither
 * stub: not the open one (E), nor the one joined to D's road (W), which it
 * may reach on D or U instead.  It takes the city N of IC-5 (open at the
 * end: 1); Red 5. */
static void test_wagon_keeps_off_the_crossing_stubs(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    char texts[1024];
    carcx_open(&g, 2, CARCX_IC | CARCX_AM, "*:0,ABBEY:6,D:1,IC-5:1,U:1,E:1");
    carcx_play_then_list(&g, "draw IC-5\nplace IC-5 1,0 0\npass\n"
                             "draw U\nplace U -1,0 0\npass\n"
                             "draw E\nplace E 0,-1 180\ndeploy wagon city S\n",
                         texts, sizeof texts);
    assert_non_null(strstr(g.events, "Red +4 city (2 tiles, 0 coats)\n"));
    assert_string_equal(texts, "wagon home\nwagon 0,0 road E+W\nwagon 1,0 city N\n"
                               "wagon 1,0 city S\nwagon -1,0 road E+W\n");
    cas_test_play(&g, "wagon 1,0 city N");
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_TERMINAL);
    cas_test_expect_scores(&g, (const int64_t[]){4 + 1, 0});
    cas_test_game_close(&g);
}

/* wagon-move = C1: only features joined to the scored city by a road that
 * ends on one of its tiles.  The city D-G-E has none (D's road runs
 * through), so the wagon of test_wagon_two_moves is not asked. */
static void test_wagon_c1_reach(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    carcx_open_am(&g, 2, CARCX_AM, "*:0,ABBEY:6,D:1,G:1,E:2,B:1,A:2", NULL, "C1");
    cas_test_play_record(&g, "draw G\nplace G 0,-1 90\ndeploy wagon city N+S\n"
                             "draw E\nplace E -1,-1 0\ndeploy meeple city N\n"
                             "draw B\nplace B 1,-1 0\npass\n"
                             "draw E\nplace E 0,-2 180\npass\n");
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_CHANCE);
    cas_test_game_close(&g);
}

/* IC-5 under C1 in both readings (docs/rules/abbey-mayor.md 15): Red's
 * wagon on IC-5's city N is freed when E(1,-1) closes it (4).  The FAQ's
 * reading (c1-reach = faq, the default) joins only the two road stubs, so
 * the wagon has nowhere to go and goes home; JCloisterZone's data
 * (c1-reach = jcz) join both cities and both stubs, so it may go to the
 * city S (open at the end: 1), never to a stub. */
static void test_wagon_c1_reach_on_ic5_in_both_readings(void **unused)
{
    (void)unused;
    static const char *const readings[] = {"abbey-mayor.c1-reach=faq",
                                           "abbey-mayor.c1-reach=jcz"};
    for (int jcz = 0; jcz < 2; jcz++) {
        struct cas_test_game g;
        char texts[512];
        const char *options[] = {"abbey-mayor.wagon-move=C1", readings[jcz], NULL};
        carcx_open_with(&g, 2, CARCX_IC | CARCX_AM, "*:0,ABBEY:6,D:1,IC-5:1,E:1", options);
        cas_test_play_record(&g, "draw IC-5\nplace IC-5 1,0 0\ndeploy wagon city N\n"
                                 "draw E\nplace E 1,-1 180\npass\n");
        assert_non_null(strstr(g.events, "Red +4 city (2 tiles, 0 coats)\n"));
        if (!jcz) {
            assert_int_equal(g.vt->current(g.state), CAS_ACTOR_TERMINAL);
            cas_test_expect_scores(&g, (const int64_t[]){4, 0});
        } else {
            cas_test_legal_texts(&g, texts, sizeof texts);
            assert_string_equal(texts, "wagon home\nwagon 1,0 city S\n");
            cas_test_play(&g, "wagon 1,0 city S");
            assert_int_equal(g.vt->current(g.state), CAS_ACTOR_TERMINAL);
            cas_test_expect_scores(&g, (const int64_t[]){4 + 1, 0});
        }
        cas_test_game_close(&g);
    }
}

/* C1 from a road: the road A-D-A ends at both monasteries, so the wagon
 * may go to either; B(0,1), beside but not joined, is out of reach. */
static void test_wagon_c1_road_to_monastery(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    char texts[512];
    carcx_open_am(&g, 2, CARCX_AM, "*:0,ABBEY:6,D:1,A:2,B:1", NULL, "C1");
    cas_test_play_record(&g, "draw A\nplace A -1,0 270\ndeploy wagon road E\n"
                             "draw B\nplace B 0,1 0\npass\n");
    carcx_play_then_list(&g, "draw A\nplace A 1,0 90\npass\n", texts, sizeof texts);
    assert_string_equal(texts, "wagon home\nwagon -1,0 monastery\nwagon 1,0 monastery\n");
    cas_test_play(&g, "wagon -1,0 monastery");
    cas_test_expect_scores(&g, (const int64_t[]){3 + 3, 0});
    cas_test_game_close(&g);
}

/* wagons = 2: Red's second wagon goes out while her first is on the
 * board; a third is no choice. */
static void test_second_wagon_with_option_wagons(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    char texts[512];
    const char *options[] = {"abbey-mayor.wagons=2", NULL};
    carcx_open_with(&g, 2, CARCX_AM, "*:0,ABBEY:6,D:1,U:2,B:2,E:1", options);
    cas_test_play_record(&g, "draw U\nplace U 1,0 0\ndeploy wagon road E+W\n"
                             "draw B\nplace B 0,1 0\npass\n");
    carcx_play_then_list(&g, "draw B\nplace B 1,1 0\n", texts, sizeof texts);
    assert_true(has_line(texts, "deploy wagon monastery"));
    cas_test_play_record(&g, "deploy wagon monastery\n"
                             "draw U\nplace U 2,0 0\npass\n");
    carcx_play_then_list(&g, "draw E\nplace E 0,-1 180\n", texts, sizeof texts);
    assert_true(has_line(texts, "deploy meeple city S"));
    assert_false(has_line(texts, "deploy wagon city S")); /* both are out */
    cas_test_game_close(&g);
}

/* wagons = 2: L(2,0) closes Red's road U(1,0) (its W end, W(-1,0) closed
 * the other) and her city E(2,-1) at once: both wagons are freed, each in
 * a slot of its own, and Red decides for one, then the other. */
static void test_two_wagons_freed_at_once(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    const char *options[] = {"abbey-mayor.wagons=2", NULL};
    carcx_open_with(&g, 2, CARCX_AM, "*:0,ABBEY:6,D:1,U:2,W:1,B:3,E:1,L:1", options);
    cas_test_play_record(&g, "draw U\nplace U 1,0 0\ndeploy wagon road E+W\n"
                             "draw W\nplace W -1,0 0\npass\n"
                             "draw B\nplace B 1,-1 0\npass\n"
                             "draw B\nplace B 0,1 0\npass\n"
                             "draw E\nplace E 2,-1 180\ndeploy wagon city S\n"
                             "draw B\nplace B 1,1 0\npass\n"
                             "draw L\nplace L 2,0 0\npass\n");
    assert_int_equal(g.vt->current(g.state), 0);
    cas_test_play(&g, "wagon home");
    assert_int_equal(g.vt->current(g.state), 0); /* her second wagon */
    cas_test_play(&g, "wagon home");
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_CHANCE);
    cas_test_game_close(&g);
}

/* C1 and the abbey (the FAQ: a road heading into a cloister is connected
 * to it): Blue's wagon on the road A-D-V, which Blue's abbey at 1,1 closes
 * by its S end, may move onto the abbey's monastery as onto A's. */
static void test_wagon_c1_road_into_the_abbey(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    char texts[512];
    carcx_open_am(&g, 2, CARCX_AM, "*:0,ABBEY:6,D:1,A:1,V:1,B:6", NULL, "C1");
    cas_test_play_record(&g, "draw A\nplace A -1,0 270\npass\n"
                             "draw V\nplace V 1,0 0\ndeploy wagon road S+W\n"
                             "draw B\nplace B 2,0 0\npass\n"
                             "draw B\nplace B 2,1 0\npass\n"
                             "draw B\nplace B 0,1 0\npass\n"
                             "draw B\nplace B 0,2 0\npass\n"
                             "draw B\nplace B 1,2 0\npass\n");
    carcx_play_then_list(&g, "abbey 1,1\npass\n", texts, sizeof texts);
    assert_string_equal(texts, "wagon home\nwagon -1,0 monastery\nwagon 1,1 monastery\n");
    cas_test_play(&g, "wagon 1,1 monastery");
    cas_test_game_close(&g);
}

/* C1 on tile L (city N, three roads meeting at a crossing): the roads
 * connect to each other, not to the city, which no road heads into (the
 * FAQ; JCloisterZone's tile data).  Red's wagon on the road W(-1,0) D
 * L(1,0), closed by L's crossing and W's: the city of L is no destination. */
static void test_wagon_c1_crossing_is_not_the_city(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    char texts[512];
    carcx_open_am(&g, 2, CARCX_AM, "*:0,ABBEY:6,D:1,L:1,W:1,B:1", NULL, "C1");
    cas_test_play_record(&g, "draw L\nplace L 1,0 0\ndeploy wagon road W\n"
                             "draw B\nplace B 0,1 0\npass\n");
    carcx_play_then_list(&g, "draw W\nplace W -1,0 0\npass\n", texts, sizeof texts);
    assert_false(has_line(texts, "wagon 1,0 city N"));
    assert_true(has_line(texts, "wagon 1,0 road E"));
    cas_test_game_close(&g);
}

/* ------------------------------------------------------------ content */

/* 71 base tiles plus the 12 land tiles in the bag, of 24 + 12 kinds; the
 * abbeys stay out of the bag. */
static void test_tile_pool(void **unused)
{
    (void)unused;
    carcx_expect_pool(CARCX_AM, 71 + 12, 24 + 12);
}

/* Notation reads back: a corner other than the placed tile's is refused
 * with a clear error, and the state block survives serialize/deserialize;
 * a block with an out-of-range seat bit is refused. */
static void test_notation_and_state_block(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    carcx_open(&g, 2, CARCX_AM, "*:0,ABBEY:6,D:1,E:3,B:3,U:1,V:1");
    cas_test_play_record(&g, BARN_TILES_BEFORE_CORNER "pass\n"
                             "draw E\nplace E 2,-1 270\npass\n"
                             "draw B\nplace B 0,-2 0\npass\n"
                             "draw B\nplace B 1,-2 0\n");
    cas_action a;
    assert_int_equal(g.vt->parse_action(g.state, "deploy barn corner 5,5 NW", &a),
                     CAS_EILLEGAL);
    assert_int_equal(g.vt->parse_action(g.state, "deploy barn corner 1,-1 SE", &a),
                     CAS_EPARSE);
    cas_test_play(&g, "deploy barn corner 1,-1 NW");
    cas_state *twin = cas_test_restored_twin(&g);
    assert_true(g.vt->hash(twin) == g.vt->hash(g.state));
    cas_test_expect_same_choices(&g, twin);
    g.vt->state_free(twin);
    uint8_t bytes[16384];
    size_t len;
    assert_int_equal(g.vt->serialize(g.state, CAS_SERIAL_FULL, bytes, sizeof bytes, &len),
                     CAS_OK);
    /* the block is the last bytes: abbey_used first */
    const size_t block = 4 + 2 * 2 + 6 * 4 + 6 * 2;
    bytes[len - block] = 0x80;
    cas_state *back;
    assert_int_equal(g.vt->deserialize(g.game, bytes, len, &back), CAS_ECORRUPT);
    cas_test_game_close(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_abbey_closes_road_3),
        cmocka_unit_test(test_pass_declines_abbey_and_wagon),
        cmocka_unit_test(test_abbey_needs_a_hole),
        cmocka_unit_test(test_abbey_lists_every_hole),
        cmocka_unit_test(test_abbey_closes_three_features),
        cmocka_unit_test(test_final_abbey_round_off),
        cmocka_unit_test(test_final_abbey_round_on),
        cmocka_unit_test(test_final_abbey_round_kept),
        cmocka_unit_test(test_mayor_city_20),
        cmocka_unit_test(test_mayor_only_city_scores_nothing),
        cmocka_unit_test(test_mayor_only_in_empty_city),
        cmocka_unit_test(test_mayor_beats_large_meeple),
        cmocka_unit_test(test_barn_placement_scores_6),
        cmocka_unit_test(test_barn_without_cities_told_zero),
        cmocka_unit_test(test_second_barn_with_option_barns),
        cmocka_unit_test(test_two_barns_of_one_player_score_once),
        cmocka_unit_test(test_random_games_score_a_field_once_a_seat),
        cmocka_unit_test(test_barn_join_scores_2_and_2),
        cmocka_unit_test(test_barn_placed_while_joining_another),
        cmocka_unit_test(test_barn_placement_rules),
        cmocka_unit_test(test_barn_placement_with_pig),
        cmocka_unit_test(test_barn_join_with_pig),
        cmocka_unit_test(test_barn_is_no_escort_for_a_pig),
        cmocka_unit_test(test_wagon_two_moves),
        cmocka_unit_test(test_wagons_decide_clockwise),
        cmocka_unit_test(test_wagon_without_destination_goes_home),
        cmocka_unit_test(test_wagon_keeps_off_the_crossing_stubs),
        cmocka_unit_test(test_wagon_c1_reach),
        cmocka_unit_test(test_wagon_c1_reach_on_ic5_in_both_readings),
        cmocka_unit_test(test_wagon_c1_road_to_monastery),
        cmocka_unit_test(test_wagon_c1_road_into_the_abbey),
        cmocka_unit_test(test_second_wagon_with_option_wagons),
        cmocka_unit_test(test_two_wagons_freed_at_once),
        cmocka_unit_test(test_wagon_c1_crossing_is_not_the_city),
        cmocka_unit_test(test_tile_pool),
        cmocka_unit_test(test_notation_and_state_block),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
