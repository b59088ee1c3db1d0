/*
 * test_keys_carcassonne.c — how Carcassonne keys its picture's top-level
 * elements (docs/abi.md "Keyed pictures"), checked as the server sends
 * them (host/tools/picture_changes.c): the marks' stylesheet is in every
 * picture and never changes, so it never travels again; the ruler is one
 * element per column and row label, so a board that grows sends its new
 * labels, not the whole ruler; the status line is apart from the heading.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "carc.h"
#include "carcassonne_five.h"
#include "picture_changes.h"
#include "plugin_harness.h"

const struct cas_plugin *cas_plugin_entry(void);

/* The picture the server sends viewer now (host/server/message.c), cut:
 * the decision view with its marks when viewer decides and something is
 * marked, else the plain one. */
static void picture_now(struct cas_test_game *g, int viewer, struct cas__picture *pic)
{
    int rc;
    char *svg = g->vt->current(g->state) == viewer
                    ? cas_test_try_render_choices(g, viewer, CAS_RENDER_SVG_ACTIONS, &rc)
                    : NULL;
    if (!svg)
        svg = cas_test_render(g, viewer, CAS_RENDER_SVG);
    cas__picture_take(pic, svg, strlen(svg));
    assert_true(pic->keyed);
}

/* The element keyed `key` in pic, or NULL. */
static const struct cas__pic_part *part_keyed(const struct cas__picture *pic, const char *key)
{
    for (size_t i = 0; i < pic->n; i++)
        if (pic->parts[i].key_len == strlen(key) &&
            memcmp(cas__picture_bytes(pic) + pic->parts[i].key, key, pic->parts[i].key_len) == 0)
            return &pic->parts[i];
    return NULL;
}

static int same_part(const struct cas__picture *a, const struct cas__pic_part *pa,
                     const struct cas__picture *b, const struct cas__pic_part *pb)
{
    return pa && pb && pa->len == pb->len &&
           memcmp(cas__picture_bytes(a) + pa->at, cas__picture_bytes(b) + pb->at, pa->len) == 0;
}

static int is_label(const char *key)
{
    return key[0] == 'c' && (key[1] == 'x' || key[1] == 'y');
}

/* The ruler's labels that the changes from old to new put (added or
 * changed) and remove, each list space-separated in the picture's order. */
static void ruler_changes(const struct cas__picture *old, const struct cas__picture *new,
                          char *put, char *removed, size_t cap)
{
    put[0] = removed[0] = '\0';
    char key[64];
    for (size_t i = 0; i < new->n; i++) {
        const struct cas__pic_part *p = &new->parts[i];
        snprintf(key, sizeof key, "%.*s", (int)p->key_len, cas__picture_bytes(new) + p->key);
        if (is_label(key) && !same_part(old, part_keyed(old, key), new, p))
            snprintf(put + strlen(put), cap - strlen(put), "%s%s", put[0] ? " " : "", key);
    }
    for (size_t i = 0; i < old->n; i++) {
        const struct cas__pic_part *p = &old->parts[i];
        snprintf(key, sizeof key, "%.*s", (int)p->key_len, cas__picture_bytes(old) + p->key);
        if (is_label(key) && !part_keyed(new, key))
            snprintf(removed + strlen(removed), cap - strlen(removed), "%s%s",
                     removed[0] ? " " : "", key);
    }
}

/* Each seat's pictures over a whole game (random legal actions, seeded):
 * the stylesheet of the marks is the same bytes in each, whether the seat
 * decides or not, so no change from one to the next puts or removes it. */

static void stylesheet_stays(size_t nexp, uint64_t seed)
{
    struct cas_test_game g;
    cas_test_carcassonne_five_open(&g, nexp);
    struct cas__picture first[2], last[2];
    for (int seat = 0; seat < 2; seat++) {
        picture_now(&g, seat, &first[seat]);
        assert_non_null(part_keyed(&first[seat], "choice-style"));
        picture_now(&g, seat, &last[seat]);
    }
    int decided[2] = {0, 0}, plain[2] = {0, 0};
    uint64_t r = seed;
    for (int ply = 0; g.vt->current(g.state) != CAS_ACTOR_TERMINAL && ply < 5000; ply++) {
        cas_action legal[512];
        size_t n;
        assert_int_equal(g.vt->legal_actions(g.state, legal, 512, &n), CAS_OK);
        r = r * 6364136223846793005u + 1442695040888963407u;
        assert_int_equal(g.vt->apply(g.state, legal[(r >> 33) % n], NULL), CAS_OK);
        for (int seat = 0; seat < 2; seat++) {
            struct cas__picture now;
            picture_now(&g, seat, &now);
            const struct cas__pic_part *style = part_keyed(&now, "choice-style");
            assert_true(same_part(&first[seat], part_keyed(&first[seat], "choice-style"), &now,
                                  style));
            assert_true(same_part(&last[seat], part_keyed(&last[seat], "choice-style"), &now,
                                  style));
            if (g.vt->current(g.state) == seat)
                decided[seat]++;
            else
                plain[seat]++;
            cas__picture_free(&last[seat]);
            last[seat] = now;
        }
    }
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_TERMINAL);
    for (int seat = 0; seat < 2; seat++) {
        assert_true(decided[seat] > 10 && plain[seat] > 10); /* both kinds of picture seen */
        cas__picture_free(&first[seat]);
        cas__picture_free(&last[seat]);
    }
    cas_test_game_close(&g);
}

static void test_the_marks_stylesheet_never_travels_again(void **state)
{
    (void)state;
    stylesheet_stays(0, 3);
}

static void test_the_marks_stylesheet_stays_with_five_expansions(void **state)
{
    (void)state;
    stylesheet_stays(5, 4);
}

/* The start tile D at 0,0 and straight roads (U: road E-W) placed east of
 * it, one after another: the board (tiles and open spots) is five spaces
 * wide, the least shown, once the second road lies; from then on each
 * tile further east adds one column label and sends nothing else of the
 * ruler.  Before that the narrow board is centred, and the row labels
 * move with its left edge. */
static void test_a_grown_board_sends_only_its_new_labels(void **state)
{
    (void)state;
    struct cas_test_game g;
    cas_test_game_open(&g, cas_plugin_entry(), 2, NULL, NULL, 0);
    struct cas__picture before, after;
    char put[512], removed[512], place[32];
    cas_test_play(&g, "draw U");
    picture_now(&g, CAS_VIEWER_PUBLIC, &before);
    /* the board -1..1 both ways, centred in 5x5 spaces: labels -2..2 */
    ruler_changes(&(struct cas__picture){.keyed = 1}, &before, put, removed, sizeof put);
    assert_string_equal(put, "cx-2 cx-1 cx0 cx1 cx2 cy-2 cy-1 cy0 cy1 cy2");
    static const char *const expected[][2] = {
        /* 1,0: the board -1..2 wide, still centred in five columns: the
         * columns' labels stay where they were but -2, which leaves; the
         * rows' labels follow the board's left edge */
        {"cy-2 cy-1 cy0 cy1 cy2", "cx-2"},
        /* 2,0: -1..3, five columns exactly: 3 comes, the rows move again */
        {"cx3 cy-2 cy-1 cy0 cy1 cy2", ""},
        /* 3,0 onwards: wider than the least shown, its left edge stays at
         * -1: one label more, nothing else (the heading stays too) */
        {"cx4", ""},
        {"cx5", ""},
        {"cx6", ""},
    };
    for (int x = 1; x <= 5; x++) {
        snprintf(place, sizeof place, "place U %d,0 0", x);
        cas_test_play(&g, place);
        picture_now(&g, CAS_VIEWER_PUBLIC, &after);
        ruler_changes(&before, &after, put, removed, sizeof put);
        assert_string_equal(put, expected[x - 1][0]);
        assert_string_equal(removed, expected[x - 1][1]);
        /* the heading stays as it is; the status line says what is next */
        assert_true(same_part(&before, part_keyed(&before, "head"), &after,
                              part_keyed(&after, "head")) == (x >= 3));
        assert_false(same_part(&before, part_keyed(&before, "status"), &after,
                               part_keyed(&after, "status")));
        cas__picture_free(&before);
        before = after;
        cas_test_play(&g, "pass");
        cas_test_play(&g, "draw U");
        cas__picture_free(&before);
        picture_now(&g, CAS_VIEWER_PUBLIC, &before);
    }
    cas__picture_free(&before);
    cas_test_game_close(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_marks_stylesheet_never_travels_again),
        cmocka_unit_test(test_the_marks_stylesheet_stays_with_five_expansions),
        cmocka_unit_test(test_a_grown_board_sends_only_its_new_labels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
