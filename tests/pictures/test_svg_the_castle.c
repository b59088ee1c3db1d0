/*
 * test_svg_the_castle.c — the picture of Carcassonne: The Castle over random
 * games: valid self-contained SVG 1.1, the same bytes for the same state,
 * every placed tile and follower, both scores, and the spaces the drawn
 * tile fits marked exactly when a tile is to be placed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "castle.h"
#include "svg_check.h"

const struct cas_plugin *cas_plugin_entry(void);

static void check_castle(struct cas_test_game *g, int viewer, xmlDocPtr doc)
{
    const cas_state *s = g->state;
    char expr[128];
    (void)viewer;
    assert_int_equal(svg_count(doc, "//s:g[@class='tile']"), s->nplaced);
    /* keyed (docs/abi.md "Keyed pictures"): every top-level element */
    assert_int_equal(svg_count(doc, "/s:svg/*[not(@data-cas-key)]"), 0);
    assert_int_equal(svg_count(doc, "//s:use[@class='figure follower']"), s->nfigs);
    for (int p = 0; p < NPLAYERS; p++) {
        snprintf(expr, sizeof expr, "(//s:g[@class='player'])[%d]/s:text[@class='score']", p + 1);
        char *score = svg_string(doc, expr);
        assert_int_equal(atoi(score), s->p[p].score);
        xmlFree(score);
    }
    /* the score track: every position, a marker per player; coordinates
     * for every column and row; the legend */
    const struct board *b = &s->game->board;
    assert_int_equal(svg_count(doc, "//s:g[@class='track']/s:rect[starts-with(@class,'pos')]"),
                     b->track);
    assert_int_equal(svg_count(doc, "//s:g[@class='track']/s:circle[@class='marker']"), NPLAYERS);
    assert_int_equal(svg_count(doc, "//s:g[@class='coords']/s:text"), b->w + b->h);
    assert_int_equal(svg_count(doc, "//s:g[@class='legend']/s:text"), 9);
    int fits = svg_count(doc, "//s:g[@class='grid']/s:rect[@class='fits']");
    if (s->phase == PH_PLACE)
        assert_true(fits >= 1);
    else
        assert_int_equal(fits, 0);
}

static void test_random_games(void **state)
{
    (void)state;
    for (int game = 0; game < 3; game++) {
        struct cas_test_game g;
        cas_test_game_open(&g, cas_plugin_entry(), 2, NULL, NULL, 0);
        svg_check_walk(&g, 500 + (uint64_t)game, 400, 5, check_castle);
        cas_test_game_close(&g);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_games),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
