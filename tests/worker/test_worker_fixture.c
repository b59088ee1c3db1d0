/*
 * test_worker_fixture.c — the fixture game (hidden hands, chance, an
 * out-of-turn decision) run in a worker process: whole games between bots
 * journal the same actions and hashes as in process (the search bot's
 * determinizations draw their random numbers from the host across the
 * socket), and every vtable call answers as the plugin does.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "worker_games.h"


/* The fixture game's library, as castellan loads it. */
static const struct cas_plugin *fixture(void)
{
    const char *data;
    return worker_games_plugin("fixture", &data);
}

static void test_greedy_games_match(void **unused)
{
    (void)unused;
    for (uint64_t seed = 1; seed <= 3; seed++)
        worker_games_compare(fixture(), "", "greedy", "random", seed);
}

static void test_search_bot_games_match(void **unused)
{
    (void)unused;
    worker_games_compare(fixture(), "", "mcts@40/1", "greedy", 11);
}

static int write_text(void *ctx, const char *data, size_t len)
{
    return fwrite(data, 1, len, ctx) == len ? CAS_OK : CAS_EIO;
}

/* Every call of the vtable on the same states, in process and through
 * the worker, gives the same answers. */
static void test_calls_answer_alike(void **unused)
{
    (void)unused;
    struct cas__isolation worker = {.mode = CAS__ISOLATE_WORKER};
    struct cas__match a, b;
    char err[512];
    size_t n;
    struct cas_option_value *options = cas__option_defaults(fixture(), &n);
    assert_int_equal(cas__match_open(&a, fixture(), "", options, n, NULL, 0, 3, err,
                                     sizeof err), CAS_OK);
    assert_int_equal(cas__match_open_isolated(&b, &worker, fixture(), "", options, n,
                                              NULL, 0, 3, err, sizeof err), CAS_OK);
    free(options);
    assert_true(b.isolated);
    cas_state *sa, *sb;
    assert_int_equal(a.vt->state_new(a.game, &sa), CAS_OK);
    assert_int_equal(b.vt->state_new(b.game, &sb), CAS_OK);
    for (int p = 0; p < 3; p++)
        assert_string_equal(cas__match_label(&a, p), cas__match_label(&b, p));
    struct cas__actions la = {0}, lb = {0};
    for (int ply = 0; ply < 40 && a.vt->current(sa) != CAS_ACTOR_TERMINAL; ply++) {
        assert_int_equal(a.vt->current(sa), b.vt->current(sb));
        assert_int_equal(a.vt->hash(sa), b.vt->hash(sb));
        cas_action pick;
        if (a.vt->current(sa) == CAS_ACTOR_CHANCE) {
            assert_int_equal(cas__match_outcomes(&a, sa, &la), CAS_OK);
            assert_int_equal(cas__match_outcomes(&b, sb, &lb), CAS_OK);
            assert_int_equal(la.n_outcomes, lb.n_outcomes);
            assert_memory_equal(la.outcomes, lb.outcomes, la.n_outcomes * sizeof *la.outcomes);
            pick = la.outcomes[(size_t)ply % la.n_outcomes].action;
        } else {
            assert_int_equal(cas__match_legal(&a, sa, &la), CAS_OK);
            assert_int_equal(cas__match_legal(&b, sb, &lb), CAS_OK);
            assert_int_equal(la.count, lb.count);
            assert_memory_equal(la.items, lb.items, la.count * sizeof *la.items);
            pick = la.items[(size_t)ply % la.count];
        }
        char ta[128], tb[128];
        assert_int_equal(cas__match_action_text(&a, sa, pick, ta, sizeof ta), CAS_OK);
        assert_int_equal(cas__match_action_text(&b, sb, pick, tb, sizeof tb), CAS_OK);
        assert_string_equal(ta, tb);
        cas_action parsed;
        assert_int_equal(b.vt->parse_action(sb, tb, &parsed), CAS_OK);
        assert_int_equal(parsed, pick);
        assert_int_equal(b.vt->parse_action(sb, "no such action", &parsed),
                         a.vt->parse_action(sa, "no such action", &parsed));
        assert_string_equal(b.error, a.error);
        assert_int_equal(a.vt->apply(sa, pick, NULL), CAS_OK);
        assert_int_equal(b.vt->apply(sb, pick, NULL), CAS_OK);
    }
    /* serialize, deserialize, clone and copy */
    uint8_t bytes_a[4096], bytes_b[4096], tiny[1];
    size_t len_a, len_b;
    assert_int_equal(a.vt->serialize(sa, CAS_SERIAL_FULL, bytes_a, sizeof bytes_a, &len_a),
                     CAS_OK);
    assert_int_equal(b.vt->serialize(sb, CAS_SERIAL_FULL, bytes_b, sizeof bytes_b, &len_b),
                     CAS_OK);
    assert_int_equal(len_a, len_b);
    assert_memory_equal(bytes_a, bytes_b, len_a);
    assert_int_equal(b.vt->serialize(sb, CAS_SERIAL_FULL, tiny, sizeof tiny, &len_b),
                     CAS_ENOSPC);
    assert_int_equal(len_b, len_a);
    cas_state *back, *clone, *fresh;
    assert_int_equal(b.vt->deserialize(b.game, bytes_a, len_a, &back), CAS_OK);
    assert_int_equal(b.vt->hash(back), a.vt->hash(sa));
    int truncated = a.vt->deserialize(a.game, bytes_a, 1, &fresh);
    assert_true(truncated < 0);
    assert_int_equal(b.vt->deserialize(b.game, bytes_a, 1, &clone), truncated);
    assert_int_equal(b.vt->state_clone(sb, &clone), CAS_OK);
    assert_int_equal(b.vt->state_new(b.game, &fresh), CAS_OK);
    assert_int_not_equal(b.vt->hash(fresh), b.vt->hash(clone));
    assert_int_equal(b.vt->state_copy(fresh, clone), CAS_OK);
    assert_int_equal(b.vt->hash(fresh), a.vt->hash(sa));
    int64_t ra[3], rb[3];
    assert_int_equal(a.vt->returns(sa, ra, 3), CAS_OK);
    assert_int_equal(b.vt->returns(sb, rb, 3), CAS_OK);
    assert_memory_equal(ra, rb, sizeof ra);
    /* render */
    char *text_a = NULL, *text_b = NULL;
    size_t size_a, size_b;
    FILE *fa = open_memstream(&text_a, &size_a), *fb = open_memstream(&text_b, &size_b);
    struct cas_writer wa = {.struct_size = sizeof wa, .ctx = fa, .write = write_text};
    struct cas_writer wb = {.struct_size = sizeof wb, .ctx = fb, .write = write_text};
    assert_int_equal(a.vt->render(sa, 0, CAS_RENDER_TEXT, &wa), CAS_OK);
    assert_int_equal(b.vt->render(sb, 0, CAS_RENDER_TEXT, &wb), CAS_OK);
    fclose(fa);
    fclose(fb);
    assert_true(size_a > 0);
    assert_string_equal(text_a, text_b);
    free(text_a);
    free(text_b);
    b.vt->state_free(back);
    b.vt->state_free(clone);
    b.vt->state_free(fresh);
    a.vt->state_free(sa);
    b.vt->state_free(sb);
    cas__actions_free(&la);
    cas__actions_free(&lb);
    cas__match_close(&a);
    cas__match_close(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_greedy_games_match),
        cmocka_unit_test(test_search_bot_games_match),
        cmocka_unit_test(test_calls_answer_alike),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
