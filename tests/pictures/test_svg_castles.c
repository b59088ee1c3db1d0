/*
 * test_svg_castles.c — the Castles picture over random games: valid
 * self-contained SVG 1.1, the same bytes for the same state, exactly the
 * cards the Kingdoms, the discard pile and the cards in play show, and the
 * draw pile's make-up for the omniscient viewer alone.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "castles_fixture.h"
#include "svg_check.h"

/* Card faces a viewer sees: every Kingdom card but those under a stack's
 * top, the discard pile's top and the cards in play. */
static int faces(const cas_state *s)
{
    int n = s->nhand + (s->ndiscard > 0);
    for (int p = 0; p < NPLAYERS; p++) {
        const struct kingdom *k = &s->k[p];
        n += (k->castle != NO_CARD) + (k->wife != NO_CARD) + k->nheirs;
        for (int c = 0; c < COLS; c++)
            n += (k->noble[c] != NO_CARD) + (k->wizard[c] != NO_CARD);
        for (int st = 0; st < N_STACKS; st++)
            n += k->st[st].n > 0;
    }
    return n;
}

static void check_kingdoms(struct cas_test_game *g, int viewer, xmlDocPtr doc)
{
    const cas_state *s = g->state;
    assert_int_equal(svg_count(doc, "//s:g[starts-with(@class,'card ')]"), faces(s));
    /* keyed (docs/abi.md "Keyed pictures"): every top-level element */
    assert_int_equal(svg_count(doc, "/s:svg/*[not(@data-cas-key)]"), 0);
    assert_int_equal(svg_count(doc, "//s:g[starts-with(@class,'kingdom ')]"), NPLAYERS);
    assert_int_equal(svg_count(doc, "//s:text[.='in the draw pile:']"),
                     viewer == CAS_VIEWER_OMNISCIENT);
    char *pile = svg_string(doc, "//s:g[@class='pile']/s:text[@class='back-text']");
    assert_int_equal(atoi(pile), s->npile);
    xmlFree(pile);
    /* the viewer's own Kingdom is at the bottom: drawn second */
    char *second = svg_string(doc, "(//s:g[starts-with(@class,'kingdom ')])[2]/s:text[@class='name']");
    assert_string_equal(second, player_name(viewer == 1 ? 1 : 0));
    xmlFree(second);
}

static void test_random_games(void **state)
{
    (void)state;
    for (int game = 0; game < 3; game++) {
        struct cas_test_game g;
        cc_open(&g, NULL);
        svg_check_walk(&g, 300 + (uint64_t)game, 700, 17, check_kingdoms);
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
