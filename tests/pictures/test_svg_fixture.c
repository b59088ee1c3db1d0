/*
 * test_svg_fixture.c — the Ladder picture over random games: valid
 * self-contained SVG 1.1, the same bytes for the same state, and each hand
 * face up only for a viewer who may see it (backs for the others), read
 * against the plugin's own JSON observation.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "svg_check.h"

const struct cas_plugin *cas_plugin_entry(void);

static int json_write(void *ctx, const char *data, size_t len)
{
    char *buf = ctx;
    size_t have = strlen(buf);
    assert_true(have + len < 4096);
    memcpy(buf + have, data, len);
    buf[have + len] = '\0';
    return CAS_OK;
}

static void check_hands(struct cas_test_game *g, int viewer, xmlDocPtr doc)
{
    char json[4096] = "";
    struct cas_writer out = {.struct_size = sizeof out, .ctx = json, .write = json_write};
    assert_int_equal(g->vt->render(g->state, viewer, CAS_RENDER_JSON, &out), CAS_OK);
    int faces = strstr(json, "\"top\":0,") ? 0 : 1, backs = 0;
    for (const char *at = strstr(json, "\"cards\":"); at; at = strstr(at + 1, "\"cards\":")) {
        int cards = atoi(at + 8);
        const char *next = strstr(at + 1, "\"label\"");
        const char *hand = strstr(at, "\"hand\":");
        if (hand && (!next || hand < next))
            faces += cards;
        else
            backs += cards;
    }
    assert_int_equal(svg_count(doc, "//s:g[@class='card']"), faces);
    assert_int_equal(svg_count(doc, "//s:rect[@class='back']"), backs);
    assert_int_equal(svg_count(doc, "//s:g[@class='player']"), g->nplayers);
    if (viewer == CAS_VIEWER_PUBLIC)
        assert_true(backs > 0 || g->vt->current(g->state) == CAS_ACTOR_TERMINAL ||
                    faces <= 1);
}

static void test_random_games(void **state)
{
    (void)state;
    for (int players = 2; players <= 4; players++) {
        struct cas_test_game g;
        cas_test_game_open(&g, cas_plugin_entry(), players, NULL, NULL, 0);
        svg_check_walk(&g, 400 + (uint64_t)players, 200, 1, check_hands);
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
