/*
 * test_svg_carcassonne.c — the Carcassonne board picture over random games,
 * base and with both expansions: valid self-contained SVG 1.1, the same
 * bytes for the same state, and exactly the tiles, figures, scores, last
 * tile and open spots the state holds, the spots the tile to place fits
 * marked.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "abbey_mayor.h"
#include "carc.h"
#include "castles_germany.h"
#include "inns_cathedrals.h"
#include "king_robber.h"
#include "svg_check.h"
#include "traders_builders.h"

const struct cas_plugin *cas_plugin_entry(void);

#define MIN_SHOWN 5 /* the board area is at least 5x5 spaces */

static void check_board(struct cas_test_game *g, int viewer, xmlDocPtr doc)
{
    const struct cas_state *s = g->state;
    char expr[128];
    (void)viewer;
    assert_int_equal(svg_count(doc, "//s:g[@class='tile']"), s->ntiles);
    /* keyed (docs/abi.md "Keyed pictures"): every top-level element */
    assert_int_equal(svg_count(doc, "/s:svg/*[not(@data-cas-key)]"), 0);
    assert_int_equal(svg_count(doc, "//s:use[starts-with(@class,'figure ')]"), s->nfigs);
    for (int i = 0; i < s->nfigs; i++) {
        const struct carc_fig *f = &C_FIGS(s)[i];
        snprintf(expr, sizeof expr, "//s:use[@class='figure %s']",
                 s->game->fig[f->kind].def.name);
        assert_true(svg_count(doc, expr) >= 1);
    }
    assert_int_equal(svg_count(doc, "//s:g[@class='player']"), s->game->nplayers);
    for (int p = 0; p < s->game->nplayers; p++) {
        snprintf(expr, sizeof expr, "(//s:g[@class='player'])[%d]/s:text[@class='score']", p + 1);
        char *score = svg_string(doc, expr);
        assert_int_equal(atoll(score), s->score[p]);
        xmlFree(score);
    }
    /* every open spot is drawn, and exactly those the drawn tile fits in
     * some rotation (by the rules' own edge test) marked */
    int fits = svg_count(doc, "//s:use[@class='fits']"), fitting = 0;
    assert_int_equal(svg_count(doc, "//s:rect[@class='open']"), s->nfront);
    for (int i = 0; s->stage == ST_PLACE && i < s->nfront; i++) {
        const struct carc_cell *c = &C_CELLS(s)[C_FRONT(s)[i]];
        int rot = 0;
        while (rot < 4 && !cas__carc_fits(s, s->drawn, c->x, c->y, rot))
            rot++;
        snprintf(expr, sizeof expr, "//s:use[@class='fits'][@data-cas-key='x%d,%d']", c->x,
                 c->y);
        assert_int_equal(svg_count(doc, expr), rot < 4);
        fitting += rot < 4;
    }
    assert_int_equal(fits, fitting);
    if (s->stage == ST_PLACE)
        assert_true(fits >= 1);
    int last = s->placed >= 0 ? s->placed : s->ntiles - 1;
    int cells = s->ntiles < 2 ? 0 : s->game->kinds[C_TILES(s)[last].kind].ncells;
    assert_int_equal(svg_count(doc, "//s:rect[@class='last']"), cells);
    /* coordinates along the top and left edges: at least every column and
     * row the board's spaces (tiles and open spots) take */
    int minx = 0, maxx = 0, miny = 0, maxy = 0;
    for (int i = 0; i < s->ncells; i++) {
        const struct carc_cell *c = &C_CELLS(s)[i];
        minx = c->x < minx ? c->x : minx;
        maxx = c->x > maxx ? c->x : maxx;
        miny = c->y < miny ? c->y : miny;
        maxy = c->y > maxy ? c->y : maxy;
    }
    int coords = svg_count(doc, "/s:svg/s:text[starts-with(@class,'coords')]");
    assert_true(coords >= (maxx - minx + 1) + (maxy - miny + 1));
    assert_true(coords <= 2 * (maxx - minx + 1) + 2 * (maxy - miny + 1) + 2 * MIN_SHOWN);
    /* a symbol for every kind on the board or in a hand shown under the
     * notes (castles), and no more */
    int hand = svg_count(doc, "//s:g[@class='hand-tile']");
    assert_true(svg_count(doc, "//s:defs/s:symbol[starts-with(@id,'k')]") <=
                s->ntiles + 1 + hand);
}

static void test_base_games(void **state)
{
    (void)state;
    for (int game = 0; game < 2; game++) {
        struct cas_test_game g;
        cas_test_game_open(&g, cas_plugin_entry(), 2 + 3 * game, NULL, NULL, 0);
        svg_check_walk(&g, 100 + (uint64_t)game, 400, 10, check_board);
        cas_test_game_close(&g);
    }
}

static void test_with_expansions(void **state)
{
    (void)state;
    char dir1[1024], dir2[1024], dir3[1024];
    struct cas_expansion_ref refs[3] = {
        cas_test_expansion_ref(cas__ic_plugin(), dir1, sizeof dir1),
        cas_test_expansion_ref(cas__tb_plugin(), dir2, sizeof dir2),
        cas_test_expansion_ref(cas__am_plugin(), dir3, sizeof dir3),
    };
    /* two expansions, then all three (Abbey & Mayor: abbeys, mayor, wagon, barn) */
    for (int game = 0; game < 2; game++) {
        struct cas_test_game g;
        cas_test_game_open(&g, cas_plugin_entry(), 2 + game, NULL, refs, 2 + (size_t)game);
        svg_check_walk(&g, 200 + (uint64_t)game, 500, 13, check_board);
        cas_test_game_close(&g);
    }
}

/* Castles in Germany: the castles each player holds are drawn under the
 * notes that name them, as castles, from the first picture on. */
static void check_castles(struct cas_test_game *g, int viewer, xmlDocPtr doc)
{
    check_board(g, viewer, doc);
    const struct cas_state *s = g->state;
    int castles_on_board = 0;
    for (int i = 0; i < s->ntiles; i++)
        castles_on_board += strncmp(s->game->kinds[C_TILES(s)[i].kind].id, "CG-", 3) == 0;
    assert_true(svg_count(doc, "//s:g[@class='tile']//s:g[@class='castle']") >=
                castles_on_board);
    assert_int_equal(svg_count(doc, "//s:g[@class='tile']//s:g[@class='monastery']/s:text"), 0);
}

static void test_castles_germany(void **state)
{
    (void)state;
    char dir1[1024], dir2[1024];
    struct cas_expansion_ref refs[2] = {
        cas_test_expansion_ref(cas__cg_plugin(), dir1, sizeof dir1),
        cas_test_expansion_ref(cas__kr_plugin(), dir2, sizeof dir2),
    };
    struct cas_test_game g;
    cas_test_game_open(&g, cas_plugin_entry(), 3, NULL, refs, 2);
    xmlDocPtr doc = svg_check_render(&g, CAS_VIEWER_PUBLIC);
    /* the picks come first: every castle of the pool is still to pick */
    assert_int_equal(svg_count(doc, "//s:g[@class='hand-tile']"), 0);
    xmlFreeDoc(doc);
    svg_check_walk(&g, 300, 400, 7, check_castles);
    cas_test_game_close(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_base_games),
        cmocka_unit_test(test_with_expansions),
        cmocka_unit_test(test_castles_germany),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
