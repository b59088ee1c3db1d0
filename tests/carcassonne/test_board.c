/*
 * test_board.c — the open-spot groups behind placement listings: along
 * random games (base pool, an eightfold pool, and with both expansions'
 * tiles through a vetoing test-free pool), the placements listed are
 * exactly the open spot and rotation pairs whose edges fit, found the slow
 * way over the sorted frontier, and every code decodes to its spot.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "carc.h"
#include "plugin_harness.h"

const struct cas_plugin *cas_plugin_entry(void);

static int compare_codes(const void *a, const void *b)
{
    cas_action x = *(const cas_action *)a, y = *(const cas_action *)b;
    return x < y ? -1 : x > y;
}

/* Placements of s->drawn, slow: every frontier spot, every rotation, the
 * edge test, encoded as x,y,rot keys, sorted. */
static size_t slow_placements(const struct cas_state *s, cas_action *keys)
{
    const struct carc_kind *k = &s->game->kinds[s->drawn];
    size_t n = 0;
    for (int i = 0; i < s->nfront; i++) {
        const struct carc_cell *c = &C_CELLS(s)[C_FRONT(s)[i]];
        for (int rot = 0; rot < 4; rot++)
            if (cas__carc_fits_edges(s, k, c->x, c->y, rot))
                keys[n++] = ACT_PLACE_CODE(s->drawn, c->x, c->y, rot);
    }
    qsort(keys, n, sizeof *keys, compare_codes);
    return n;
}

static void expect_listing_complete(const struct cas_state *s, const cas_action *legal,
                                    size_t n, cas_action *keys, cas_action *want)
{
    for (size_t i = 0; i < n; i++) {
        int kind, x, y, rot;
        assert_int_equal(cas__carc_placement_of(s, legal[i], &kind, &x, &y, &rot), CAS_OK);
        assert_int_equal(kind, s->drawn);
        assert_int_equal(cas__carc_placement_code(s, kind, x, y, rot), legal[i]);
        keys[i] = ACT_PLACE_CODE(kind, x, y, rot);
    }
    qsort(keys, n, sizeof *keys, compare_codes);
    assert_int_equal(slow_placements(s, want), n);
    assert_memory_equal(keys, want, n * sizeof *keys);
}

static void play_checked(const char *const *options, uint64_t seed)
{
    enum { CAP = 8192 };
    static cas_action legal[CAP], keys[CAP], want[CAP];
    struct cas_test_game g;
    cas_test_game_open(&g, cas_plugin_entry(), 2, options, NULL, 0);
    for (uint64_t x = seed; g.vt->current(g.state) != CAS_ACTOR_TERMINAL;) {
        size_t n = 0;
        assert_int_equal(g.vt->legal_actions(g.state, legal, CAP, &n), CAS_OK);
        if (g.state->stage == ST_PLACE)
            expect_listing_complete(g.state, legal, n, keys, want);
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        assert_int_equal(g.vt->apply(g.state, legal[(x >> 33) % n], NULL), CAS_OK);
    }
    cas_test_game_close(&g);
}

static void test_base_pool(void **unused)
{
    (void)unused;
    for (uint64_t seed = 1; seed <= 20; seed++)
        play_checked(NULL, seed);
}

static void test_eightfold_pool(void **unused)
{
    (void)unused;
    const char *opts[] = {"tiles=A:16,B:32,C:8,D:32,E:40,F:16,G:8,H:24,I:16,J:24,K:24,"
                          "L:24,M:16,N:24,O:16,P:24,Q:8,R:24,S:16,T:8,U:64,V:72,W:32,X:8",
                          NULL};
    play_checked(opts, 3);
}

static int word_order(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* cas__carc_sort_words (the marks' and open spots' order) against qsort:
 * every length across its runs of 16 and merges, few and many distinct
 * values, ascending and descending input. */
static void test_sort_words(void **unused)
{
    (void)unused;
    uint64_t x = 7, words[300], scratch[300], want[300];
    for (size_t n = 0; n <= 300; n += n < 40 ? 1 : 13)
        for (int shape = 0; shape < 4; shape++) {
            for (size_t i = 0; i < n; i++) {
                x = x * 6364136223846793005ull + 1442695040888963407ull;
                words[i] = shape == 0   ? x
                           : shape == 1 ? x >> 62 /* many equal */
                           : shape == 2 ? i
                                        : (uint64_t)(n - i) << 40;
            }
            memcpy(want, words, n * sizeof *words);
            qsort(want, n, sizeof *want, word_order);
            cas__carc_sort_words(words, n, scratch);
            if (n)
                assert_memory_equal(words, want, n * sizeof *words);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sort_words),
        cmocka_unit_test(test_base_pool),
        cmocka_unit_test(test_eightfold_pool),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
