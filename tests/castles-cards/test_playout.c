/*
 * test_playout.c — random playouts over the castles-cards vtable checking
 * what `castellan check` checks at every step: legal actions non-empty,
 * sorted and unique until TERMINAL; every action's text round-trips;
 * clone, copy, serialize/deserialize keep the hash; chance outcomes match
 * the legal list; every card copy stays accounted for; damaged bytes are
 * refused; the game ends; the same seed gives the same game; renders hide
 * the draw pile from the players; apply accepts exactly the listed turn
 * and chance actions.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "castles_fixture.h"

#define MAX_STEPS 200000

/* splitmix64: the test's own randomness (the plugin never has any). */
static uint64_t next_random(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void check_sorted_unique(const cas_action *a, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (a[i - 1] >= a[i])
            fail_msg("legal actions not sorted/unique at %zu", i);
}

static void check_round_trips(struct cas_test_game *g, const cas_action *a, size_t n)
{
    char text[128];
    for (size_t i = 0; i < n; i++) {
        int len = g->vt->action_text(g->state, a[i], text, sizeof text);
        assert_true(len > 0);
        assert_null(strchr(text, '\n'));
        cas_action back;
        if (g->vt->parse_action(g->state, text, &back) != CAS_OK || back != a[i])
            fail_msg("\"%s\" does not round-trip: %s", text, g->error);
    }
}

static void check_copies(struct cas_test_game *g)
{
    uint64_t h = g->vt->hash(g->state);
    cas_state *clone, *back, *fresh;
    assert_int_equal(g->vt->state_clone(g->state, &clone), CAS_OK);
    assert_true(g->vt->hash(clone) == h);
    assert_int_equal(g->vt->state_new(g->game, &fresh), CAS_OK);
    assert_int_equal(g->vt->state_copy(fresh, g->state), CAS_OK);
    assert_true(g->vt->hash(fresh) == h);
    uint8_t buf[8192];
    size_t len;
    assert_int_equal(g->vt->serialize(g->state, CAS_SERIAL_FULL, buf, sizeof buf, &len), CAS_OK);
    assert_int_equal(g->vt->deserialize(g->game, buf, len, &back), CAS_OK);
    assert_true(g->vt->hash(back) == h);
    /* a truncated copy is refused */
    cas_state *bad = NULL;
    assert_int_equal(g->vt->deserialize(g->game, buf, len - 1, &bad), CAS_ECORRUPT);
    assert_null(bad);
    g->vt->state_free(back);
    g->vt->state_free(fresh);
    g->vt->state_free(clone);
}

static cas_action pick_chance(struct cas_test_game *g, uint64_t *rng, const cas_action *legal,
                              size_t n)
{
    struct cas_outcome out[MAX_KINDS];
    size_t count;
    uint64_t total = 0;
    assert_int_equal(g->vt->chance_outcomes(g->state, out, MAX_KINDS, &count), CAS_OK);
    assert_int_equal(count, n);
    for (size_t i = 0; i < count; i++) {
        assert_true(out[i].action == legal[i] && out[i].weight > 0);
        total += out[i].weight;
    }
    uint64_t r = next_random(rng) % total;
    for (size_t i = 0; i < count; i++) {
        if (r < out[i].weight)
            return out[i].action;
        r -= out[i].weight;
    }
    return out[count - 1].action;
}

struct tally {
    int games, wins[2], draws, reasons[4];
    long steps;
};

/* One game from `seed`; returns the final hash. */
static uint64_t play(uint64_t seed, int full_checks, struct tally *t)
{
    struct cas_test_game g;
    cc_open(&g, NULL);
    uint64_t rng = seed;
    static cas_action legal[4096];
    int steps = 0;
    while (g.vt->current(g.state) != CAS_ACTOR_TERMINAL) {
        size_t n;
        assert_true(++steps < MAX_STEPS);
        assert_int_equal(g.vt->legal_actions(g.state, legal, 4096, &n), CAS_OK);
        assert_true(n > 0);
        check_sorted_unique(legal, n);
        if (full_checks) {
            check_round_trips(&g, legal, n);
            check_copies(&g);
        }
        assert_true(cards_conserved(cc_state(&g)));
        cas_action a = g.vt->current(g.state) == CAS_ACTOR_CHANCE
                           ? pick_chance(&g, &rng, legal, n)
                           : legal[next_random(&rng) % n];
        assert_int_equal(g.vt->apply(g.state, a, NULL), CAS_OK);
    }
    size_t n;
    assert_int_equal(g.vt->legal_actions(g.state, legal, 4096, &n), CAS_OK);
    assert_int_equal(n, 0);
    const cas_state *s = cc_state(&g);
    t->games++;
    t->steps += steps;
    t->reasons[s->end_reason]++;
    if (s->winner >= 0)
        t->wins[s->winner]++;
    else
        t->draws++;
    uint64_t h = g.vt->hash(g.state);
    cas_test_game_close(&g);
    return h;
}

static void playouts_keep_every_property(void **unused)
{
    (void)unused;
    struct tally t = {0};
    for (uint64_t seed = 1; seed <= 150; seed++)
        play(seed, 1, &t);
    print_message("full checks: %d games, %ld steps, wins %d/%d, draws %d, "
                  "by kingdom %d, by turns %d, by deck %d\n", t.games, t.steps, t.wins[0],
                  t.wins[1], t.draws, t.reasons[END_KINGDOM], t.reasons[END_TURNS],
                  t.reasons[END_DECK]);
}

static void many_playouts_terminate(void **unused)
{
    (void)unused;
    struct tally t = {0};
    for (uint64_t seed = 1000; seed < 1400; seed++)
        play(seed, 0, &t);
    assert_int_equal(t.games, 400);
    print_message("%d games, %ld steps, wins %d/%d, draws %d, by kingdom %d, by turns %d, "
                  "by deck %d\n", t.games, t.steps, t.wins[0], t.wins[1], t.draws,
                  t.reasons[END_KINGDOM], t.reasons[END_TURNS], t.reasons[END_DECK]);
}

static void same_seed_same_game(void **unused)
{
    (void)unused;
    struct tally t = {0};
    uint64_t a = play(77, 0, &t), b = play(77, 0, &t), c = play(78, 0, &t);
    assert_true(a == b);
    assert_true(a != c);
}

/* Two games side by side do not disturb each other. */
static void interleaved_games_are_independent(void **unused)
{
    (void)unused;
    struct tally t = {0};
    uint64_t alone = play(91, 0, &t);
    struct cas_test_game g[2];
    cc_open(&g[0], NULL);
    cc_open(&g[1], NULL);
    uint64_t rng[2] = {91, 92};
    static cas_action legal[4096];
    for (int turn = 0; g[0].vt->current(g[0].state) != CAS_ACTOR_TERMINAL; turn ^= 1) {
        struct cas_test_game *x = &g[turn];
        if (x->vt->current(x->state) == CAS_ACTOR_TERMINAL)
            continue;
        size_t n;
        assert_int_equal(x->vt->legal_actions(x->state, legal, 4096, &n), CAS_OK);
        cas_action a = x->vt->current(x->state) == CAS_ACTOR_CHANCE
                           ? pick_chance(x, &rng[turn], legal, n)
                           : legal[next_random(&rng[turn]) % n];
        assert_int_equal(x->vt->apply(x->state, a, NULL), CAS_OK);
    }
    assert_true(g[0].vt->hash(g[0].state) == alone);
    cas_test_game_close(&g[0]);
    cas_test_game_close(&g[1]);
}

static bool listed(const cas_action *legal, size_t n, cas_action a)
{
    for (size_t i = 0; i < n; i++)
        if (legal[i] == a)
            return true;
    return false;
}

/* apply accepts a turn or chance action exactly when legal_actions lists
 * it: every code of the kinds from `first` to `last` with small operands. */
static void check_codes(struct cas_test_game *g, const cas_action *legal, size_t n, int first,
                        int last, int max_a)
{
    cas_state *copy;
    assert_int_equal(g->vt->state_clone(g->state, &copy), CAS_OK);
    for (int kind = first; kind <= last; kind++)
        for (int a = 0; a <= max_a; a++)
            for (int b = 0; b <= STACK_CAP + 8; b++) {
                cas_action code = act(kind, a, b);
                bool ok = listed(legal, n, code);
                if (ok)
                    assert_int_equal(g->vt->state_copy(copy, g->state), CAS_OK);
                int rc = g->vt->apply(ok ? copy : g->state, code, NULL);
                if (rc != (ok ? CAS_OK : CAS_EILLEGAL))
                    fail_msg("apply of code %#llx gave %d, listed %d", (unsigned long long)code,
                             rc, ok);
            }
    g->vt->state_free(copy);
}

static void apply_accepts_exactly_the_listed_actions(void **unused)
{
    (void)unused;
    static cas_action legal[4096];
    int checked = 0, chance_checked = 0;
    for (uint64_t seed = 500; seed < 504; seed++) {
        struct cas_test_game g;
        cc_open(&g, NULL);
        uint64_t rng = seed;
        for (int step = 0; g.vt->current(g.state) != CAS_ACTOR_TERMINAL; step++) {
            size_t n;
            assert_int_equal(g.vt->legal_actions(g.state, legal, 4096, &n), CAS_OK);
            int phase = cc_state(&g)->phase;
            if (phase == PH_TURN && step % 7 == 0) {
                check_codes(&g, legal, n, K_DRAW, K_PASS, 31);
                checked++;
            }
            if (phase == PH_DRAW && step % 5 == 0) {
                check_codes(&g, legal, n, K_CHANCE, K_CHANCE, MAX_KINDS + 4);
                chance_checked++;
            }
            cas_action a = g.vt->current(g.state) == CAS_ACTOR_CHANCE
                               ? pick_chance(&g, &rng, legal, n)
                               : legal[next_random(&rng) % n];
            assert_int_equal(g.vt->apply(g.state, a, NULL), CAS_OK);
        }
        cas_test_game_close(&g);
    }
    assert_true(checked > 100 && chance_checked > 10);
}

static void players_never_see_the_draw_pile(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open(&g, NULL);
    cas_test_play(&g, "draw duke70");
    for (int viewer = CAS_VIEWER_PUBLIC; viewer < 2; viewer++)
        for (int f = CAS_RENDER_TEXT; f <= CAS_RENDER_JSON; f++) {
            char *text = cas_test_render(&g, viewer, (enum cas_render_format)f);
            assert_null(strstr(text, "draw_pile_cards"));
            assert_null(strstr(text, "Pile:"));
            assert_non_null(strstr(text, "duke70")); /* drawn cards are shown */
            free(text);
        }
    char *all = cas_test_render(&g, CAS_VIEWER_OMNISCIENT, CAS_RENDER_JSON);
    assert_non_null(strstr(all, "\"draw_pile_cards\":{"));
    free(all);
    cas_test_game_close(&g);
}

static void text_render_fits_80_columns(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open_with(&g, "castle=castle wife=wife40 heir=heir30,heir30,heir30 n1=duke80 "
                     "n1.lands=lands40,lands40,lands40,lands40,lands30,lands30,lands30,lands30 "
                     "n1.fruits=fruits40,fruits40,fruits40,fruits40,fruits30,fruits30 "
                     "n1.serfs=serfs40,serfs40,serfs40,serfs40,serfs30,serfs30,serfs30 "
                     "w1=sorcerer60 w1.minion=minion50,minion50,minion40,minion40,minion40 "
                     "w1.magick=magick30,magick30,magick30,magick30,magick20,magick20",
                 "", 0);
    char *text = cas_test_render(&g, 0, CAS_RENDER_TEXT);
    for (char *line = text; *line;) {
        size_t len = strcspn(line, "\n");
        if (len > 80)
            fail_msg("line of %zu columns: %.*s", len, (int)len, line);
        line += len + (line[len] == '\n');
    }
    assert_non_null(strstr(text, "lands30 lands30"));
    free(text);
    cas_test_game_close(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(playouts_keep_every_property),
        cmocka_unit_test(many_playouts_terminate),
        cmocka_unit_test(same_seed_same_game),
        cmocka_unit_test(interleaved_games_are_independent),
        cmocka_unit_test(apply_accepts_exactly_the_listed_actions),
        cmocka_unit_test(players_never_see_the_draw_pile),
        cmocka_unit_test(text_render_fits_80_columns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
