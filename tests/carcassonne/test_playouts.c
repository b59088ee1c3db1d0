/*
 * test_playouts.c — random complete games of the base game, checking at
 * every decision what `castellan check` checks: legal actions non-empty,
 * sorted and unique until the end; text round-trips; clone and
 * serialize/deserialize keep the hash and, played on, the same choices;
 * buffers too small get CAS_ENOSPC and a filled prefix; corrupted bytes
 * are refused; random_action draws the listing's action at each index; at
 * the end every figure is back in its supply.  The PRNG is the test's own.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "plugin_harness.h"

const struct cas_plugin *cas_plugin_entry(void);

static uint64_t next_random(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static void check_sorted_unique(const cas_action *a, size_t n)
{
    assert_true(n > 0);
    for (size_t i = 1; i < n; i++)
        assert_true(a[i - 1] < a[i]);
}

static void check_text_round_trip(struct cas_test_game *g, cas_action a)
{
    char text[128];
    cas_action back;
    assert_true(g->vt->action_text(g->state, a, text, sizeof text) > 0);
    assert_int_equal(g->vt->parse_action(g->state, text, &back), CAS_OK);
    assert_true(back == a);
}

static void check_copies(struct cas_test_game *g)
{
    uint64_t hash = g->vt->hash(g->state);
    cas_state *clone;
    assert_int_equal(g->vt->state_clone(g->state, &clone), CAS_OK);
    assert_true(g->vt->hash(clone) == hash);
    static uint8_t bytes[1 << 16];
    size_t len;
    assert_int_equal(g->vt->serialize(g->state, CAS_SERIAL_FULL, bytes, sizeof bytes, &len),
                     CAS_OK);
    cas_state *back;
    int rc = g->vt->deserialize(g->game, bytes, len, &back);
    if (rc != CAS_OK)
        fail_msg("deserialize failed (%d): %s", rc, g->error);
    assert_true(g->vt->hash(back) == hash);
    g->vt->state_free(back);
    assert_int_not_equal(g->vt->deserialize(g->game, bytes, len - 1, &back), CAS_OK);
    bytes[4] ^= 0x7F; /* encoding version */
    assert_int_equal(g->vt->deserialize(g->game, bytes, len, &back), CAS_EVERSION);
    assert_int_equal(g->vt->state_copy(clone, g->state), CAS_OK);
    g->vt->state_free(clone);
}

/* Text fits 80 columns; ANSI adds colours; JSON is one object. */
static void check_renders(struct cas_test_game *g)
{
    char *text = cas_test_render(g, CAS_VIEWER_PUBLIC, CAS_RENDER_TEXT);
    for (const char *line = text; *line;) {
        size_t len = strcspn(line, "\n");
        if (len > 80)
            fail_msg("render line of %zu columns:\n%.*s", len, (int)len, line);
        line += len + (line[len] == '\n');
    }
    assert_non_null(strstr(text, "Red "));
    assert_non_null(strstr(text, "\nkey: # city  -|+ road  . field  m monastery"));
    free(text);
    char *ansi = cas_test_render(g, CAS_VIEWER_PUBLIC, CAS_RENDER_ANSI);
    assert_non_null(strstr(ansi, "\x1b["));
    free(ansi);
    char *json = cas_test_render(g, 0, CAS_RENDER_JSON);
    assert_true(json[0] == '{' && strcmp(json + strlen(json) - 2, "}\n") == 0);
    assert_non_null(strstr(json, "\"tiles\":[{\"id\":\"D\",\"x\":0,\"y\":0,\"rotation\":0"));
    free(json);
}

static cas_action pick(struct cas_test_game *g, const cas_action *legal, size_t n,
                       uint64_t *rng)
{
    if (g->vt->current(g->state) != CAS_ACTOR_CHANCE)
        return legal[next_random(rng) % n];
    struct cas_outcome out[64];
    size_t count;
    assert_int_equal(g->vt->chance_outcomes(g->state, out, 64, &count), CAS_OK);
    assert_int_equal(count, n);
    uint64_t total = 0;
    for (size_t i = 0; i < count; i++)
        total += out[i].weight;
    uint64_t r = next_random(rng) % total;
    for (size_t i = 0;; i++) {
        if (r < out[i].weight)
            return out[i].action;
        r -= out[i].weight;
    }
}

/* A state restored from bytes at this step must play on exactly like the
 * live one (caches rebuilt on deserialize: the bag's kinds, figure counts). */
#define TWIN_FROM_STEP 40

/* Returns how many tiles were discarded as fitting nowhere. */
static int play_random_game(int nplayers, uint64_t seed, const char *const *options,
                            int min_steps)
{
    struct cas_test_game g;
    cas_test_game_open(&g, cas_plugin_entry(), nplayers, options, NULL, 0);
    uint64_t rng = seed * 0x9E3779B97F4A7C15ull + 1;
    static cas_action legal[4096];
    int steps = 0;
    cas_state *twin = NULL; /* restored mid-game, then played alongside */
    while (g.vt->current(g.state) != CAS_ACTOR_TERMINAL) {
        if (steps == TWIN_FROM_STEP)
            twin = cas_test_restored_twin(&g);
        size_t n;
        assert_int_equal(g.vt->legal_actions(g.state, legal, 4096, &n), CAS_OK);
        check_sorted_unique(legal, n);
        cas_action a = pick(&g, legal, n, &rng);
        check_text_round_trip(&g, a);
        if (steps % 7 == 0)
            check_copies(&g);
        if (steps % 3 == 0)
            cas_test_expect_random_action_as_listed(&g);
        if (steps++ % 5 == 0)
            cas_test_expect_buffer_protocol(&g);
        if (steps % 61 == 0)
            check_renders(&g);
        assert_int_equal(g.vt->apply(g.state, a, NULL), CAS_OK);
        if (twin) {
            assert_int_equal(g.vt->apply(twin, a, NULL), CAS_OK);
            cas_test_expect_same_choices(&g, twin);
        }
    }
    g.vt->state_free(twin);
    assert_true(steps >= min_steps);
    check_copies(&g);
    check_renders(&g);
    char *json = cas_test_render(&g, CAS_VIEWER_PUBLIC, CAS_RENDER_JSON);
    int full = 0;
    for (const char *at = json; (at = strstr(at, "\"meeple\":7")); at++)
        full++;
    assert_int_equal(full, nplayers);
    const char *discarded = strstr(json, "\"discarded\":");
    assert_non_null(discarded);
    int misfits = atoi(discarded + strlen("\"discarded\":"));
    free(json);
    cas_test_game_close(&g);
    return misfits;
}

/* Every single-byte corruption of a mid-game state is refused or gives a
 * state that still works (no crash under ASan). */
static void test_corrupted_bytes(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cas_test_game_open(&g, cas_plugin_entry(), 3, NULL, NULL, 0);
    uint64_t rng = 99;
    static cas_action legal[4096];
    size_t n;
    for (int step = 0; step < 60; step++) {
        assert_int_equal(g.vt->legal_actions(g.state, legal, 4096, &n), CAS_OK);
        assert_int_equal(g.vt->apply(g.state, pick(&g, legal, n, &rng), NULL), CAS_OK);
    }
    static uint8_t bytes[1 << 16], bad[1 << 16];
    size_t len;
    assert_int_equal(g.vt->serialize(g.state, CAS_SERIAL_FULL, bytes, sizeof bytes, &len),
                     CAS_OK);
    static const uint8_t flips[] = {0x01, 0x80, 0xFF};
    int accepted = 0;
    for (size_t i = 0; i < len; i++)
        for (size_t f = 0; f < sizeof flips; f++) {
            memcpy(bad, bytes, len);
            bad[i] ^= flips[f];
            cas_state *back;
            if (g.vt->deserialize(g.game, bad, len, &back) != CAS_OK)
                continue;
            accepted++;
            g.vt->hash(back);
            if (g.vt->current(back) != CAS_ACTOR_TERMINAL &&
                g.vt->legal_actions(back, legal, 4096, &n) == CAS_OK && n > 0)
                g.vt->apply(back, legal[0], NULL);
            cas_state *kept = g.state;
            g.state = back;
            free(cas_test_render(&g, CAS_VIEWER_PUBLIC, CAS_RENDER_TEXT));
            g.state = kept;
            g.vt->state_free(back);
        }
    assert_true(accepted < (int)len); /* most damage is detected */
    cas_test_game_close(&g);
}

static void test_random_games_two_players(void **unused)
{
    (void)unused;
    for (uint64_t seed = 1; seed <= 40; seed++)
        play_random_game(2, seed, NULL, 71 * 3 - 10);
}

static void test_random_games_five_players_no_farmers(void **unused)
{
    (void)unused;
    const char *opts[] = {"farmers=off", NULL};
    for (uint64_t seed = 100; seed <= 110; seed++)
        play_random_game(5, seed, opts, 71 * 3 - 10);
}

/* A game whose tile sets leave a tile that fits nowhere still ends. */
static void test_random_games_with_misfits(void **unused)
{
    (void)unused;
    const char *opts[] = {"tiles=*:0,D:1,C:6,E:3,B:2", NULL};
    int misfits = 0;
    for (uint64_t seed = 200; seed <= 230; seed++)
        misfits += play_random_game(3, seed, opts, 11);
    assert_true(misfits > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_games_two_players),
        cmocka_unit_test(test_random_games_five_players_no_farmers),
        cmocka_unit_test(test_random_games_with_misfits),
        cmocka_unit_test(test_corrupted_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
