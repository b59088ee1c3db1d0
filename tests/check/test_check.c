/*
 * test_check.c — the conformance checker passes the fixture game and fails
 * each broken copy of it, naming the property the copy breaks (render-since
 * through a vtable copy with a render_since that draws another picture).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "check.h"
#include "match.h"

const struct cas_plugin *cas_plugin_entry(void);
const struct cas_plugin *fixture_broken_text_entry(void);
const struct cas_plugin *fixture_broken_hash_entry(void);
const struct cas_plugin *fixture_broken_weak_hash_entry(void);
const struct cas_plugin *fixture_broken_score_hash_entry(void);
const struct cas_plugin *fixture_broken_clone_legal_entry(void);
const struct cas_plugin *fixture_broken_shared_entry(void);
const struct cas_plugin *fixture_broken_game_state_entry(void);
const struct cas_plugin *fixture_broken_unsorted_entry(void);
const struct cas_plugin *fixture_broken_duplicate_entry(void);
const struct cas_plugin *fixture_broken_random_entry(void);
const struct cas_plugin *fixture_random_rejection_entry(void);

/* Check `plugin` with its default options over 2-4 players. */
static int run_check(const struct cas_plugin *plugin, int games,
                     struct cas__check_report *report)
{
    size_t n = 0;
    struct cas_option_value *options = cas__option_defaults(plugin, &n);
    struct cas__check_target target = {
        .plugin = plugin, .data_dir = "", .options = options, .n_options = n,
        .min_players = plugin->min_players, .max_players = plugin->max_players,
    };
    struct cas__check_options opt = {.games = games, .seed = 1};
    int rc = cas__check_run(&target, &opt, report);
    free(options);
    return rc;
}

/* The report printed as a person reads it, for failure messages. */
static char *printed(const struct cas__check_report *report)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    cas__check_print(report, out);
    fclose(out);
    return text;
}

/* Every property holds in 12 games of `plugin`; the report's text. */
static char *expect_passes(const struct cas_plugin *plugin)
{
    struct cas__check_report report;
    int rc = run_check(plugin, 12, &report);
    char *text = printed(&report);
    if (rc != CAS_OK)
        fail_msg("%s", text);
    assert_int_equal(report.failed, 0);
    assert_int_equal(report.games, 12);
    assert_true(report.plies > 12 * 30);
    return text;
}

static void test_good_fixture_passes(void **unused)
{
    (void)unused;
    char *text = expect_passes(cas_plugin_entry());
    assert_non_null(strstr(text, "fixture: every property held in 12 games"));
    free(text);
}

static void expect_broken(const struct cas_plugin *plugin, const char *property)
{
    struct cas__check_report report;
    assert_int_equal(run_check(plugin, 20, &report), CAS_EMISMATCH);
    char *text = printed(&report);
    if (strcmp(report.property, property) != 0)
        fail_msg("expected %s to break %s, the checker said:\n%s", plugin->id, property, text);
    char headline[128];
    snprintf(headline, sizeof headline, "%s: FAILED %s\n", plugin->id, property);
    assert_non_null(strstr(text, headline));
    assert_non_null(strstr(text, "game with seed "));
    assert_non_null(strstr(text, "reproduce: castellan check "));
    free(text);
}

static void test_text_that_does_not_round_trip(void **unused)
{
    (void)unused;
    expect_broken(fixture_broken_text_entry(), "text-round-trip");
}

static void test_hash_that_changes_after_deserialize(void **unused)
{
    (void)unused;
    expect_broken(fixture_broken_hash_entry(), "serialize-hash");
}

static void test_hash_that_misses_changes(void **unused)
{
    (void)unused;
    expect_broken(fixture_broken_weak_hash_entry(), "hash-sensitive");
}

/* A hash that ignores the scores: no two states in a row share one (every
 * action moves a card), so only the table of every state of the run finds
 * two states of different games that differ in their scores alone.  The
 * reproduce line replays both games. */
static void test_hash_that_ignores_a_part_seen_apart(void **unused)
{
    (void)unused;
    expect_broken(fixture_broken_score_hash_entry(), "hash-sensitive");
    struct cas__check_report report;
    run_check(fixture_broken_score_hash_entry(), 20, &report);
    char *text = printed(&report);
    char want[256];
    snprintf(want, sizeof want, "--seed %" PRIu64 " --games %" PRIu64 " --players %d\n",
             report.first_seed, report.seed - report.first_seed + 1, report.nplayers);
    assert_true(report.first_seed < report.seed);
    assert_non_null(strstr(text, want));
    free(text);
}

/* A clone whose legal actions differ from its original's (its hash, bytes
 * and play are the same). */
static void test_clone_that_lists_other_actions(void **unused)
{
    (void)unused;
    expect_broken(fixture_broken_clone_legal_entry(), "clone-legal-actions");
}

static void test_state_shared_between_instances(void **unused)
{
    (void)unused;
    expect_broken(fixture_broken_shared_entry(), "interleaved-games");
}

static void test_state_shared_through_the_game(void **unused)
{
    (void)unused;
    expect_broken(fixture_broken_game_state_entry(), "interleaved-games");
}

static void test_unsorted_legal_actions(void **unused)
{
    (void)unused;
    expect_broken(fixture_broken_unsorted_entry(), "legal-actions-sorted");
}

static void test_duplicated_legal_actions(void **unused)
{
    (void)unused;
    expect_broken(fixture_broken_duplicate_entry(), "legal-actions-unique");
}

/* random_action's draws are enumerated, not sampled: a sampler that
 * draws again after a miss passes (its retries cut at a depth), and one
 * that gives the last action the miss as well is caught. */
static void test_random_action_by_rejection_passes(void **unused)
{
    (void)unused;
    free(expect_passes(fixture_random_rejection_entry()));
}

static void test_biased_random_action(void **unused)
{
    (void)unused;
    expect_broken(fixture_broken_random_entry(), "random-action-uniform");
}

/* The failing action is named by its text. */
static void test_failure_names_the_action(void **unused)
{
    (void)unused;
    struct cas__check_report report;
    run_check(fixture_broken_text_entry(), 1, &report);
    assert_int_equal(strncmp(report.action, "Play ", 5), 0);
    assert_non_null(strstr(report.detail, "parse_action(\"Play "));
    assert_int_equal(report.seed, 1);
}

/* A game that cannot be opened is reported, not crashed on. */
static void test_game_that_cannot_open(void **unused)
{
    (void)unused;
    const struct cas_plugin *plugin = cas_plugin_entry();
    const struct cas_option_value options[] = {
        {sizeof options[0], "cards", "3"}, {sizeof options[0], "hand", "5"},
    };
    struct cas__check_target target = {
        .plugin = plugin, .data_dir = "", .options = options, .n_options = 2,
        .min_players = 2, .max_players = 2,
    };
    struct cas__check_options opt = {.games = 1, .seed = 3};
    struct cas__check_report report;
    assert_int_equal(cas__check_run(&target, &opt, &report), CAS_EOPTION);
    assert_string_equal(report.property, "game-new");
    assert_non_null(strstr(report.detail, "option cards = 3"));
}

/* The fixture with an ABI 1.4 render_since added: `since_fn` in a copy of
 * its vtable (the fixture's own render is that of real_vt). */
static const struct cas_game_vtable *real_vt;
static struct cas_game_vtable since_vt;
static struct cas_plugin since_plugin;

static const struct cas_plugin *with_render_since(int (*since_fn)(const cas_state *,
                                                                  struct cas_render_since *))
{
    since_plugin = *cas_plugin_entry();
    real_vt = since_plugin.game;
    since_vt = *real_vt;
    since_vt.struct_size = sizeof since_vt;
    since_vt.render_since = since_fn;
    since_plugin.game = &since_vt;
    return &since_plugin;
}

/* A keyed picture that is not the fixture's render. */
static int since_draws_another_picture(const cas_state *state, struct cas_render_since *req)
{
    (void)state;
    static const char svg[] = "<svg viewBox=\"0 0 1 1\">\n<g data-cas-key=\"a\">A</g>\n</svg>\n";
    req->stamp[0] = 1;
    req->stamp_len = 1;
    return req->out->write(req->out->ctx, svg, sizeof svg - 1);
}

/* The fixture's own (unkeyed) picture, with a stamp: drawn relative, it
 * cannot be filled in. */
static int since_draws_unkeyed(const cas_state *state, struct cas_render_since *req)
{
    req->stamp[0] = 1;
    req->stamp_len = 1;
    return real_vt->render(state, req->viewer, req->format, req->out);
}

/* A render_since whose picture is not the whole render, or whose relative
 * picture cannot be filled in (not keyed), breaks render-since, saying
 * why. */
static void test_render_since_that_differs(void **unused)
{
    (void)unused;
    struct cas__check_report report;
    assert_int_equal(run_check(with_render_since(since_draws_another_picture), 1, &report),
                     CAS_EMISMATCH);
    assert_string_equal(report.property, "render-since");
    assert_non_null(strstr(report.detail, "drawn from no stamp, filled in, differs from the "
                                          "whole one from byte "));
    assert_int_equal(run_check(with_render_since(since_draws_unkeyed), 1, &report),
                     CAS_EMISMATCH);
    assert_string_equal(report.property, "render-since");
    assert_non_null(strstr(report.detail, "drawn relative to the last does not fit it: the "
                                          "last picture is not keyed"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_fixture_passes),
        cmocka_unit_test(test_render_since_that_differs),
        cmocka_unit_test(test_text_that_does_not_round_trip),
        cmocka_unit_test(test_hash_that_changes_after_deserialize),
        cmocka_unit_test(test_hash_that_misses_changes),
        cmocka_unit_test(test_hash_that_ignores_a_part_seen_apart),
        cmocka_unit_test(test_clone_that_lists_other_actions),
        cmocka_unit_test(test_state_shared_between_instances),
        cmocka_unit_test(test_state_shared_through_the_game),
        cmocka_unit_test(test_unsorted_legal_actions),
        cmocka_unit_test(test_duplicated_legal_actions),
        cmocka_unit_test(test_random_action_by_rejection_passes),
        cmocka_unit_test(test_biased_random_action),
        cmocka_unit_test(test_failure_names_the_action),
        cmocka_unit_test(test_game_that_cannot_open),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
