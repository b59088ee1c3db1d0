/*
 * castle_fixture.c — scenario helpers for the the-castle tests.
 */
#include "castle_fixture.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

const char *tc_data_path(const char *name, char *buf, size_t cap)
{
    const char *src = getenv("CASTELLAN_SOURCE_DIR");
    snprintf(buf, cap, "%s/tests/the-castle/data/%s", src ? src : "..", name);
    return buf;
}

void tc_open(struct cas_test_game *g, const char *board, const char *tiles)
{
    char board_opt[1200], tiles_opt[1200], path[1024];
    snprintf(board_opt, sizeof board_opt, "board=%s", tc_data_path(board, path, sizeof path));
    snprintf(tiles_opt, sizeof tiles_opt, "tiles=%s", tc_data_path(tiles, path, sizeof path));
    const char *const options[] = {board_opt, tiles_opt, NULL};
    cas_test_game_open(g, cas_plugin_entry(), 2, options, NULL, 0);
}

void tc_open_shipped(struct cas_test_game *g)
{
    cas_test_game_open(g, cas_plugin_entry(), 2, NULL, NULL, 0);
}

void tc_turn(struct cas_test_game *g, const char *tile, const char *cell, int deg,
             const char *follower)
{
    char text[128];
    snprintf(text, sizeof text, "draw %s", tile);
    cas_test_play(g, text);
    snprintf(text, sizeof text, "place %s %s %d", tile, cell, deg);
    cas_test_play(g, text);
    cas_test_play(g, follower ? follower : "pass");
}

void tc_keep_only(struct cas_test_game *g, const char *spec)
{
    cas_state *s = tc_state(g);
    const struct tileset *t = &s->game->tiles;
    uint8_t want[MAX_KINDS] = {0};
    char copy[512], *save = NULL;
    snprintf(copy, sizeof copy, "%s", spec);
    for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(w, '=');
        assert_non_null(eq);
        *eq = '\0';
        int k = tiles_find(t, w);
        if (k < 0) {
            fail_msg("no tile %s in the test tiles", w);
            return; /* cmocka's fail_msg is not declared noreturn */
        }
        want[k] = (uint8_t)atoi(eq + 1);
    }
    s->nbag = 0;
    for (int k = 0; k < t->nkinds; k++) {
        assert_true(want[k] <= s->bag[k]);
        s->set_aside = (uint8_t)(s->set_aside + s->bag[k] - want[k]);
        s->bag[k] = want[k];
        s->nbag = (uint8_t)(s->nbag + want[k]);
    }
}

void tc_give_wall(struct cas_test_game *g, int p, int number)
{
    cas_state *s = tc_state(g);
    assert_true(s->pool[number] > 0);
    s->pool[number]--;
    s->p[p].held[number]++;
}

void tc_set_score(struct cas_test_game *g, int p, int score)
{
    tc_state(g)->p[p].score = score;
}

static void expect_round_trip(struct cas_test_game *g)
{
    cas_state *back = cas_test_restored_twin(g);
    assert_true(g->vt->hash(back) == g->vt->hash(g->state));
    cas_test_expect_same_choices(g, back);
    g->vt->state_free(back);
}

void tc_expect_scores(struct cas_test_game *g, int red, int blue)
{
    const int64_t expected[2] = {red, blue};
    cas_test_expect_scores(g, expected);
    expect_round_trip(g);
}

const char *tc_legal(struct cas_test_game *g)
{
    static char buf[65536];
    cas_test_legal_texts(g, buf, sizeof buf);
    return buf;
}

void tc_expect_legal(struct cas_test_game *g, const char *text, int legal)
{
    const char *all = tc_legal(g);
    size_t n = strlen(text);
    int found = 0;
    for (const char *p = all; *p; p = strchr(p, '\n') + 1)
        if (strncmp(p, text, n) == 0 && p[n] == '\n')
            found = 1;
    if (found != legal)
        fail_msg("\"%s\" should%s be legal; legal now:\n%s", text, legal ? "" : " not", all);
}

void tc_expect_event(struct cas_test_game *g, const char *text)
{
    if (!g->events || !strstr(g->events, text))
        fail_msg("no event \"%s\"; events:\n%s", text, g->events ? g->events : "");
}
