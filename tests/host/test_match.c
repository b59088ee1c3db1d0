/*
 * test_match.c — a match of the fixture game: option errors name the
 * option, the allocator counts the plugin's bytes exactly, two matches are
 * independent, buffers grow for the plugin's buffer protocol; a 1.0
 * vtable's shorter struct_size keeps the host off the 1.1 entries; a 1.4
 * stamp past its room is an ABI violation.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "match_support.h"

const struct cas_plugin *cas_plugin_entry(void);

static void test_bad_option_is_named(void **unused)
{
    (void)unused;
    static const char *const options[] = {"hand=9", NULL};
    struct cas__match m;
    char err[512];
    assert_int_equal(cas_test_match_try_open(&m, cas_plugin_entry(), 2, options, err,
                                             sizeof err), CAS_EOPTION);
    assert_string_equal(err, "fixture: option hand = 9: hand must be a whole number "
                             "from 1 to 5, not \"9\"");
    assert_null(m.game);
    assert_null(m.data_dir);
}

static void test_bad_player_count_is_explained(void **unused)
{
    (void)unused;
    struct cas__match m;
    char err[512];
    assert_int_equal(cas_test_match_try_open(&m, cas_plugin_entry(), 5, NULL, err, sizeof err),
                     CAS_EINVAL);
    assert_non_null(strstr(err, "Ladder is for 2 to 4 players, not 5"));
}

static void test_allocator_counts_bytes(void **unused)
{
    (void)unused;
    struct cas__match m;
    cas_state *a, *b;
    cas_test_match_open(&m, cas_plugin_entry(), 3, NULL);
    size_t game_bytes = m.heap_bytes;
    assert_true(game_bytes > 0);
    assert_int_equal(m.vt->state_new(m.game, &a), CAS_OK);
    size_t state_bytes = m.heap_bytes - game_bytes;
    assert_true(state_bytes > 0);
    assert_int_equal(m.vt->state_clone(a, &b), CAS_OK);
    assert_int_equal(m.heap_bytes, game_bytes + 2 * state_bytes);
    m.vt->state_free(a);
    m.vt->state_free(b);
    assert_int_equal(m.heap_bytes, game_bytes);
    assert_int_equal(m.heap_peak, game_bytes + 2 * state_bytes);
    void *block = m.host.alloc(m.host.ctx, 10);
    block = m.host.realloc(m.host.ctx, block, 1000);
    assert_non_null(block);
    assert_int_equal(m.heap_bytes, game_bytes + 1000);
    m.host.release(m.host.ctx, block);
    m.host.release(m.host.ctx, NULL);
    assert_int_equal(m.heap_bytes, game_bytes);
    cas__match_close(&m);
    assert_int_equal(m.heap_bytes, 0);
}

/* The buffers start small and grow to what the plugin asks for. */
static void test_legal_actions_buffer_grows(void **unused)
{
    (void)unused;
    static const char *const options[] = {"cards=20", NULL};
    struct cas__match m;
    struct cas__actions list = {0};
    cas_state *s;
    cas_test_match_open(&m, cas_plugin_entry(), 2, options);
    assert_int_equal(m.vt->state_new(m.game, &s), CAS_OK);
    list.items = malloc(2 * sizeof *list.items);
    list.cap = 2;
    assert_int_equal(cas__match_legal(&m, s, &list), CAS_OK);
    assert_int_equal(list.count, 20);
    assert_true(list.cap >= 20);
    assert_int_equal(cas__match_outcomes(&m, s, &list), CAS_OK);
    assert_int_equal(list.n_outcomes, 20);
    assert_int_equal(list.outcomes[19].weight, 2);
    char text[8];
    assert_int_equal(cas__match_action_text(&m, s, list.items[0], text, sizeof text), CAS_OK);
    assert_string_equal(text, "draw 1");
    assert_int_equal(cas__match_action_text(&m, s, list.items[19], text, 4), CAS_ENOSPC);
    assert_int_equal(cas__match_action_text(&m, s, 0xdead0000, text, sizeof text), CAS_EINVAL);
    cas__actions_free(&list);
    m.vt->state_free(s);
    cas__match_close(&m);
}

static int must_not_render(const cas_state *state, int viewer, enum cas_render_format format,
                           const cas_action *actions, size_t n, const struct cas_writer *out)
{
    (void)state, (void)viewer, (void)format, (void)actions, (void)n, (void)out;
    fail_msg("render_choices read past a 1.0 vtable");
    return CAS_EINVAL;
}

static int must_not_help(const cas_game *game, const struct cas_writer *out)
{
    (void)game, (void)out;
    fail_msg("notation_help read past a 1.0 vtable");
    return CAS_EINVAL;
}

static int must_not_project(const cas_state *state, int64_t *scores, size_t n)
{
    (void)state, (void)scores, (void)n;
    fail_msg("projected_returns read past a 1.0 vtable");
    return CAS_EINVAL;
}

static char *render_with(struct cas__match *m, const cas_state *s, int choices,
                         const struct cas__actions *legal)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    if (choices)
        assert_int_equal(cas__match_render_choices(m, s, 0, CAS_RENDER_TEXT, legal, out), CAS_OK);
    else
        assert_int_equal(cas__match_render(m, s, 0, CAS_RENDER_TEXT, out), CAS_OK);
    fclose(out);
    return text;
}

/* A plugin built against 1.0: its vtable ends at player_label, so whatever
 * lies after it is never read; the host falls back to render, its own
 * help and no projection. */
static void test_a_1_0_vtable_gets_the_fallbacks(void **unused)
{
    (void)unused;
    struct cas__match m;
    struct cas__actions legal = {0};
    cas_state *s;
    cas_test_match_open(&m, cas_plugin_entry(), 2, NULL);
    struct cas_game_vtable old = *m.vt;
    old.struct_size = offsetof(struct cas_game_vtable, determinize);
    old.render_choices = must_not_render;
    old.notation_help = must_not_help;
    old.projected_returns = must_not_project;
    const struct cas_game_vtable *real = m.vt;
    m.vt = &old;
    assert_int_equal(m.vt->state_new(m.game, &s), CAS_OK);
    assert_int_equal(cas__match_legal(&m, s, &legal), CAS_OK);
    char *view = render_with(&m, s, 1, &legal), *plain = render_with(&m, s, 0, &legal);
    assert_string_equal(view, plain);
    free(view);
    free(plain);
    FILE *sink = fopen("/dev/null", "w");
    assert_int_equal(cas__match_notation_help(&m, sink), CAS_ENOTFOUND);
    fclose(sink);
    int64_t scores[2];
    assert_int_equal(cas__match_projected(&m, s, scores), CAS_ENOTFOUND);
    m.vt->state_free(s);
    cas__actions_free(&legal);
    m.vt = real;
    cas__match_close(&m);
}

/* A render_since that claims a stamp longer than the room it was given. */
static int stamp_too_long(const cas_state *state, struct cas_render_since *req)
{
    (void)state;
    req->stamp_len = req->stamp_cap + 1;
    return CAS_OK;
}

static void count_fault(void *ctx, const struct cas__worker_fault *fault)
{
    assert_string_equal(fault->call, "render_since");
    ++*(int *)ctx;
}

/* A plugin's stamp longer than its room (ABI 1.4 render_since) is an ABI
 * violation: reported as one, the call fails and no stamp is kept. */
static void test_a_stamp_past_its_room_is_a_violation(void **unused)
{
    (void)unused;
    struct cas__match m;
    cas_state *s;
    int faults = 0;
    cas_test_match_open(&m, cas_plugin_entry(), 2, NULL);
    struct cas_game_vtable vt = *m.vt;
    vt.struct_size = sizeof vt;
    vt.render_since = stamp_too_long;
    const struct cas_game_vtable *real = m.vt;
    m.vt = &vt;
    m.on_fault = (struct cas__fault_handler){.fault = count_fault, .ctx = &faults};
    assert_int_equal(m.vt->state_new(m.game, &s), CAS_OK);
    assert_true(cas__match_has_render_since(&m));
    FILE *sink = fopen("/dev/null", "w");
    assert_non_null(sink);
    struct cas_writer out = {.struct_size = sizeof out, .ctx = sink, .write = NULL};
    unsigned char stamp[CAS_RENDER_STAMP_MIN];
    size_t stamp_len = 99;
    assert_int_equal(cas__match_render_since(&m, s, 0, CAS_RENDER_SVG, NULL, NULL, 0, stamp,
                                             sizeof stamp, &stamp_len, &out),
                     CAS_EINVAL);
    assert_int_equal(stamp_len, 0);
    assert_int_equal(faults, 1);
    assert_non_null(strstr(m.error, "broke the ABI (a stamp of 257 bytes was returned in a "
                                    "room of 256) in render_since"));
    fclose(sink);
    m.vt->state_free(s);
    m.vt = real;
    cas__match_close(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_option_is_named),
        cmocka_unit_test(test_bad_player_count_is_explained),
        cmocka_unit_test(test_allocator_counts_bytes),
        cmocka_unit_test(test_legal_actions_buffer_grows),
        cmocka_unit_test(test_a_1_0_vtable_gets_the_fallbacks),
        cmocka_unit_test(test_a_stamp_past_its_room_is_a_violation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
