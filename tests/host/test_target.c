/*
 * test_target.c — what check and bench run: --rule values checked as play
 * checks them and applied to the game and to an expansion (the test-only
 * rule-probe), the options not at their default listed for headers, play's
 * errors for bad rules, the game alone that bench compares with, and the
 * session without one expansion (bench's marginal section).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "agent.h"
#include "target.h"

#define TILES "tiles=*:0,D:2,E:3"

static int open_target(struct cas__target *t, const char *expansions,
                       const char *const *rules, size_t n_rules, char *err, size_t errlen)
{
    struct cas__target_request req = {
        .plugin_path = RULES_PLUGIN_DIR, .game = "carcassonne", .game_flag = "--game",
        .expansions = expansions, .rules = rules, .n_rules = n_rules,
    };
    return cas__target_open(t, &req, err, errlen);
}

static const char *value_of(const struct cas_option_value *values, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(values[i].name, name) == 0)
            return values[i].value;
    fail_msg("option %s missing", name);
    return NULL;
}

static void assert_rules(const struct cas__target *t, const char *const *expected, size_t n)
{
    assert_int_equal(t->rules.count, n);
    for (size_t i = 0; i < n; i++)
        assert_string_equal(t->rules.items[i], expected[i]);
}

/* Actions of one random game of m, seed 1. */
static uint32_t actions_of_a_game(struct cas__match *m)
{
    struct cas__actions list = {0};
    cas_state *s = NULL;
    assert_int_equal(m->vt->state_new(m->game, &s), CAS_OK);
    uint32_t ply = 0;
    while (m->vt->current(s) != CAS_ACTOR_TERMINAL)
        assert_int_equal(cas__random_step(m, s, &list, 1, ply++), CAS_OK);
    m->vt->state_free(s);
    cas__actions_free(&list);
    return ply;
}

static void test_defaults_without_rules(void **unused)
{
    (void)unused;
    struct cas__target t;
    char err[1024];
    assert_int_equal(open_target(&t, NULL, NULL, 0, err, sizeof err), CAS_OK);
    assert_int_equal(t.rules.count, 0);
    assert_string_equal(value_of(t.plan.game_options.values, t.plan.game_options.count,
                                 "tiles"), "");
    assert_int_equal(t.min_players, 2);
    assert_int_equal(t.max_players, 5);
    cas__target_close(&t);
}

/* The tile rule reaches the game: five tiles make a 12-action game (four
 * draws, placements and figure decisions). */
static void test_game_rule_applied(void **unused)
{
    (void)unused;
    const char *rules[] = {TILES, "farmers=on"};
    struct cas__target t;
    struct cas__match m;
    char err[1024];
    assert_int_equal(open_target(&t, NULL, rules, 2, err, sizeof err), CAS_OK);
    assert_rules(&t, (const char *const[]){TILES}, 1); /* farmers=on is the default */
    assert_int_equal(cas__target_match(&t, &m, 2, err, sizeof err), CAS_OK);
    assert_int_equal(actions_of_a_game(&m), 12);
    cas__match_close(&m);
    cas__target_close(&t);
}

/* An expansion's option by its bare name, or as ID.NAME where the game
 * declares the name too; the bare name is then the game's. */
static void test_expansion_rules_applied(void **unused)
{
    (void)unused;
    const char *rules[] = {"note=hello", "rule-probe.farmers=on", "farmers=off"};
    struct cas__target t;
    char err[1024];
    if (open_target(&t, "rule-probe", rules, 3, err, sizeof err) != CAS_OK)
        fail_msg("%s", err);
    assert_int_equal(t.plan.n_expansions, 1);
    const struct cas_expansion_ref *probe = &t.refs[0];
    assert_string_equal(probe->id, "rule-probe");
    assert_string_equal(value_of(probe->options, probe->n_options, "note"), "hello");
    assert_string_equal(value_of(probe->options, probe->n_options, "farmers"), "on");
    assert_string_equal(value_of(t.plan.game_options.values, t.plan.game_options.count,
                                 "farmers"), "off");
    assert_rules(&t, (const char *const[]){"farmers=off", "rule-probe.note=hello",
                                            "rule-probe.farmers=on"}, 3);
    struct cas__check_target check = cas__target_check(&t);
    assert_int_equal(check.n_rules, 3);
    assert_string_equal(check.rules[1], "rule-probe.note=hello");
    assert_ptr_equal(check.expansions, t.refs);
    cas__target_close(&t);
}

static void expect_refused(const char *expansions, const char *rule, int rc,
                           const char *message)
{
    struct cas__target t;
    char err[1024];
    assert_int_equal(open_target(&t, expansions, &rule, 1, err, sizeof err), rc);
    if (!strstr(err, message))
        fail_msg("--rule %s: \"%s\" does not say \"%s\"", rule, err, message);
    assert_null(t.reg);
    assert_null(t.plan.game);
}

/* Play's messages; only a malformed flag is CAS_EPARSE (bad usage). */
static void test_bad_rules(void **unused)
{
    (void)unused;
    expect_refused(NULL, "tils=3", CAS_EOPTION,
                   "--rule tils: unknown rule option \"tils\"; closest: tiles");
    expect_refused(NULL, "farmers=offf", CAS_EOPTION,
                   "--rule farmers: farmers = \"offf\" is not valid; use on or off "
                   "(closest: off)");
    expect_refused(NULL, "tiles", CAS_EPARSE, "--rule tiles: no value; write --rule "
                   "NAME=VALUE");
    /* an option of an expansion the session leaves out names it */
    expect_refused(NULL, "note=x", CAS_EOPTION,
                   "--rule note: note is an option of rule-probe, which is not in this "
                   "session; add rule-probe to the expansions");
    expect_refused("rule-probe", "rule-probe.farmers=yes", CAS_EOPTION,
                   "farmers = \"yes\" is not valid; use on or off");
    /* values only the plugins can judge: the game opened once says */
    expect_refused(NULL, "tiles=zz", CAS_EOPTION, "tiles: bad entry 'zz'");
    expect_refused("rule-probe", "note=refuse", CAS_EOPTION,
                   "rule-probe: option note = refuse: rule-probe refuses this note");
}

/* The game alone keeps the game's own rules and drops the expansions. */
static void test_match_alone(void **unused)
{
    (void)unused;
    const char *rules[] = {TILES};
    struct cas__target t;
    struct cas__match with, alone;
    char err[1024];
    assert_int_equal(open_target(&t, "inns-cathedrals", rules, 1, err, sizeof err), CAS_OK);
    assert_int_equal(cas__target_match(&t, &with, 2, err, sizeof err), CAS_OK);
    assert_int_equal(cas__target_match_alone(&t, &alone, 2, err, sizeof err), CAS_OK);
    assert_string_equal(with.title, "carcassonne + inns-cathedrals");
    assert_string_equal(alone.title, "carcassonne");
    assert_int_equal(actions_of_a_game(&alone), 12);
    cas__match_close(&alone);
    cas__match_close(&with);
    /* six players need the expansion's sixth colour */
    assert_int_equal(cas__target_match(&t, &with, 6, err, sizeof err), CAS_OK);
    cas__match_close(&with);
    assert_true(cas__target_match_alone(&t, &alone, 6, err, sizeof err) < 0);
    print_message("alone for 6: %s\n", err);
    cas__target_close(&t);
}

/* Leaving one expansion out keeps the others, in order, with their
 * options, and the game's own rules. */
static void test_match_without(void **unused)
{
    (void)unused;
    const char *rules[] = {TILES, "rule-probe.note=kept"};
    struct cas__target t;
    struct cas__match without;
    struct cas_expansion_ref refs[1];
    char err[1024];
    assert_int_equal(open_target(&t, "inns-cathedrals,rule-probe", rules, 2, err, sizeof err),
                     CAS_OK);
    assert_int_equal(t.plan.n_expansions, 2);
    size_t probe = strcmp(t.plan.expansions[0]->id, "rule-probe") == 0 ? 0 : 1;
    assert_int_equal(cas__target_match_without(&t, probe, refs, &without, 2, err, sizeof err),
                     CAS_OK);
    assert_string_equal(without.title, "carcassonne + inns-cathedrals");
    /* plays as inns-cathedrals alone does, with the game's tile rule */
    struct cas__target only;
    struct cas__match with_only;
    assert_int_equal(open_target(&only, "inns-cathedrals", rules, 1, err, sizeof err), CAS_OK);
    assert_int_equal(cas__target_match(&only, &with_only, 2, err, sizeof err), CAS_OK);
    assert_int_equal(actions_of_a_game(&without), actions_of_a_game(&with_only));
    cas__match_close(&with_only);
    cas__target_close(&only);
    cas__match_close(&without);
    assert_int_equal(cas__target_match_without(&t, 1 - probe, refs, &without, 2, err,
                                               sizeof err), CAS_OK);
    assert_string_equal(without.title, "carcassonne + rule-probe");
    assert_string_equal(value_of(refs[0].options, refs[0].n_options, "note"), "kept");
    cas__match_close(&without);
    /* six players need inns-cathedrals' sixth colour */
    assert_true(cas__target_match_without(&t, 1 - probe, refs, &without, 6, err,
                                          sizeof err) < 0);
    cas__target_close(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults_without_rules),
        cmocka_unit_test(test_game_rule_applied),
        cmocka_unit_test(test_expansion_rules_applied),
        cmocka_unit_test(test_bad_rules),
        cmocka_unit_test(test_match_alone),
        cmocka_unit_test(test_match_without),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
