/*
 * test_session_validate.c — sessions against the loader's fixture plugins
 * (tests/plugins/loader/good): resolved order, option values with defaults,
 * every option error with the closest valid choice, player limits, and
 * where each error points (file line or flag).
 */
#include <stdio.h>
#include <string.h>

#include "session_files.h"
#include "session_plan.h"

struct validated {
    struct session_file file;
    struct cas__registry *reg;
    struct cas__session_plan plan;
    char err[2048];
    int rc;
};

/* Two sessions of different isolations resolved in one registry that no
 * flag told where foreign plugins load (castellan serve's, whose games
 * open on several threads at once): each load follows its own session,
 * and the registry keeps no choice the other could see. */
static void test_each_session_chooses_where_its_plugins_load(void **state)
{
    (void)state;
    struct session_file here, confined;
    struct cas__session_plan plans[2];
    struct cas__strlist path = {0};
    struct cas__registry *reg = NULL;
    char folder[4096], err[2048];
    snprintf(folder, sizeof folder, "%s/good", fixture_base());
    assert_int_equal(cas__strlist_push(&path, folder), CAS_OK);
    assert_int_equal(cas__registry_scan(&path, &reg), CAS_OK);
    const char *two = "[player.1]\nagent = human\n[player.2]\nagent = human\n";
    char text[2][256];
    snprintf(text[0], sizeof text[0], "[session]\ngame = fixgame\nisolation = in-process\n%s",
             two);
    snprintf(text[1], sizeof text[1], "[session]\ngame = othergame\nisolation = worker\n%s",
             two);
    session_file_load(&here, text[0]);
    session_file_load(&confined, text[1]);
    if (here.rc || confined.rc)
        fail_msg("%s%s", here.err, confined.err);
    assert_int_equal(cas__session_desc_validate(&here.desc, reg, &plans[0], err, sizeof err),
                     CAS_OK);
    assert_false(cas__registry_foreign_said(reg));
    assert_int_equal(cas__session_desc_validate(&confined.desc, reg, &plans[1], err,
                                                sizeof err), CAS_OK);
    assert_false(cas__registry_foreign_said(reg));
    assert_non_null(plans[0].game->dl);       /* in castellan, as its session said */
    assert_null(plans[0].game->probed);
    assert_null(plans[1].game->dl);           /* in a confined child only */
    assert_non_null(plans[1].game->probed);
    for (int i = 0; i < 2; i++)
        cas__session_plan_free(&plans[i]);
    session_file_done(&here);
    session_file_done(&confined);
    cas__registry_free(reg);
    cas__strlist_free(&path);
}

/* Validate text against the fixture folders dirs (see scan_fixtures). */
static void validate_text_in(struct validated *v, const char *dirs, const char *text)
{
    session_file_load(&v->file, text);
    assert_int_equal(v->file.rc, CAS_OK);
    v->reg = scan_fixtures(dirs);
    v->rc = cas__session_desc_validate(&v->file.desc, v->reg, &v->plan, v->err,
                                       sizeof v->err);
}

static void validate_text(struct validated *v, const char *text)
{
    validate_text_in(v, "good", text);
}

static void validated_done(struct validated *v)
{
    cas__session_plan_free(&v->plan);
    cas__registry_free(v->reg);
    session_file_done(&v->file);
}

/* Validating text fails with "<the file's path>:<rest>". */
static void expect_invalid(const char *text, const char *rest)
{
    struct validated v;
    validate_text(&v, text);
    char expected[4096];
    snprintf(expected, sizeof expected, "%s:%s", v.file.path, rest);
    assert_true(v.rc < 0);
    assert_string_equal(v.err, expected);
    assert_null(v.plan.game);
    assert_null(v.plan.expansions);
    validated_done(&v);
}

static const char *value_of(const struct cas__plugin_options *o, const char *name)
{
    for (size_t i = 0; i < o->count; i++)
        if (strcmp(o->values[i].name, name) == 0)
            return o->values[i].value;
    fail_msg("option %s missing", name);
    return NULL;
}

#define TWO "[player.1]\nagent = human\n[player.2]\nagent = greedy\n"

static void test_plan_with_values_and_defaults(void **state)
{
    (void)state;
    struct validated v;
    validate_text(&v, "[session]\ngame = fixgame\nexpansions = exp-c, exp-a, exp-b\n"
                      "[rules]\nfarmers = off\nbonus = 10\nmode = fast\nexp-a.tokens = 9\n"
                      "exp-b.farmers = on\ntokens = 2\n" TWO);
    /* tokens alone is ambiguous among three expansions */
    assert_int_equal(v.rc, CAS_EOPTION);
    char expected[4096];
    snprintf(expected, sizeof expected,
             "%s:10: rule option \"tokens\" is declared by exp-b and exp-a; write "
             "exp-b.tokens or exp-a.tokens",
             v.file.path);
    assert_string_equal(v.err, expected);
    validated_done(&v);

    validate_text(&v, "[session]\ngame = fixgame\nexpansions = exp-c, exp-a, exp-b\n"
                      "[rules]\nfarmers = off\nbonus = 10\nmode = fast\nexp-a.tokens = 9\n"
                      "exp-b.farmers = on\n" TWO "[player.3]\nagent = random\n"
                      "[player.4]\nagent = random\n[player.5]\nagent = random\n");
    assert_int_equal(v.rc, CAS_OK);
    struct cas__session_plan *p = &v.plan;
    assert_string_equal(p->game->id, "fixgame");
    assert_int_equal(p->n_expansions, 3);
    assert_string_equal(p->expansions[0]->id, "exp-b");
    assert_string_equal(p->expansions[1]->id, "exp-a");
    assert_string_equal(p->expansions[2]->id, "exp-c");
    assert_int_equal(p->nplayers, 5); /* exp-c raises the game's 4 to 6 */
    assert_int_equal(p->game_options.count, 4);
    assert_string_equal(p->game_options.values[0].name, "farmers");
    assert_int_equal(p->game_options.values[0].struct_size, sizeof(struct cas_option_value));
    assert_string_equal(value_of(&p->game_options, "farmers"), "off");
    assert_string_equal(value_of(&p->game_options, "bonus"), "10");
    assert_string_equal(value_of(&p->game_options, "mode"), "fast");
    assert_string_equal(value_of(&p->game_options, "motto"), "");
    assert_string_equal(value_of(&p->expansion_options[0], "farmers"), "on");
    assert_string_equal(value_of(&p->expansion_options[0], "tokens"), "5");
    assert_string_equal(value_of(&p->expansion_options[1], "tokens"), "9");
    assert_string_equal(value_of(&p->expansion_options[1], "farmers"), "off");
    assert_string_equal(value_of(&p->expansion_options[2], "tokens"), "5");
    validated_done(&v);
}

static void test_bare_name_of_one_expansion(void **state)
{
    (void)state;
    struct validated v;
    validate_text(&v, "[session]\ngame = fixgame\nexpansions = exp-a\n[rules]\ntokens = 1\n"
                      TWO);
    assert_int_equal(v.rc, CAS_OK);
    assert_string_equal(value_of(&v.plan.expansion_options[0], "tokens"), "1");
    validated_done(&v);
}

/* A bare name only an expansion left out of the session declares names
 * that expansion. */
static void test_bare_name_of_an_expansion_left_out(void **state)
{
    (void)state;
    expect_invalid("[session]\ngame = fixgame\n[rules]\ntokens = 1\n" TWO,
                   "4: tokens is an option of exp-a, which is not in this session; add "
                   "exp-a to the expansions (--expansions, or expansions in [session]) or "
                   "drop this rule");
}

static void test_option_errors(void **state)
{
    (void)state;
    const char *head = "[session]\ngame = fixgame\nexpansions = exp-a\n[rules]\n";
    char text[1024];
#define INVALID(rule, rest)                                            \
    snprintf(text, sizeof text, "%s%s\n" TWO, head, rule);             \
    expect_invalid(text, rest)
    INVALID("farmer = on", "5: unknown rule option \"farmer\"; closest: farmers");
    INVALID("exp-q.tokens = 1", "5: unknown rule option \"exp-q.tokens\"; closest: "
                                "exp-a.tokens");
    /* an installed expansion left out of the session is named, not guessed at */
    INVALID("exp-c.tokens = 1", "5: exp-c is not in this session; add it to the expansions "
                                "(--expansions, or expansions in [session]) or drop this rule");
    /* no far-fetched guess */
    INVALID("zzzzzz = 1", "5: unknown rule option \"zzzzzz\"; `castellan rules fixgame` lists "
                          "them");
    INVALID("farmers = x", "5: farmers = \"x\" is not valid; use on or off");
    INVALID("farmers = onn", "5: farmers = \"onn\" is not valid; use on or off (closest: on)");
    INVALID("bonus = 11", "5: bonus = \"11\" is not valid; use an integer from 0 to 10");
    INVALID("bonus = 1x", "5: bonus = \"1x\" is not valid; use an integer from 0 to 10");
    INVALID("exp-a.tokens = 0", "5: tokens = \"0\" is not valid; use an integer from 1 to 9");
    INVALID("mode = fats", "5: mode = \"fats\" is not valid; use one of classic, fast, long "
                           "(closest: fast)");
    INVALID("farmers = on\nfixgame.farmers = off",
            "6: option farmers of fixgame is already set at line 5; keep one");
#undef INVALID
}

/* A rule for a session whose plugins have no options has nothing to suggest. */
static void test_rule_when_no_option_is_declared(void **state)
{
    (void)state;
    struct validated v;
    validate_text_in(&v, "no-options", "[session]\ngame = bare\n[rules]\nfarmers = on\n" TWO);
    char expected[4096];
    snprintf(expected, sizeof expected,
             "%s:4: unknown rule option \"farmers\"; this session's plugins declare no options",
             v.file.path);
    assert_int_equal(v.rc, CAS_EOPTION);
    assert_string_equal(v.err, expected);
    assert_null(v.plan.game);
    validated_done(&v);
}

static void test_resolution_errors_point_at_their_line(void **state)
{
    (void)state;
    expect_invalid("[session]\ngame = fixgam\n" TWO,
                   "2: unknown game \"fixgam\"; closest: fixgame (castellan plugins lists "
                   "them all)");
    struct validated v;
    validate_text(&v, "[session]\ngame = fixgame\nexpansions = exp-a, exp-d\n" TWO);
    char expected[4096];
    snprintf(expected, sizeof expected,
             "%s:3: expansions \"exp-d\" and \"exp-a\" conflict (conflicts in "
             "%s/good/exp-d/exp-d.ini); drop one of them",
             v.file.path, fixture_base());
    assert_string_equal(v.err, expected);
    validated_done(&v);
}

static void test_player_limits(void **state)
{
    (void)state;
    expect_invalid("[session]\ngame = fixgame\n[player.1]\nagent = human\n",
                   "3: 1 player, but fixgame allows 2 to 4; add players");
    expect_invalid("[session]\ngame = fixgame\nexpansions = exp-a\n" TWO
                   "[player.3]\nagent = random\n[player.4]\nagent = random\n"
                   "[player.5]\nagent = random\n",
                   "12: 5 players, but fixgame with exp-a allows 2 to 4; remove players, or "
                   "add the expansion exp-c, which allows more");
    /* no expansion of othergame allows more: none is suggested */
    expect_invalid("[session]\ngame = othergame\n" TWO "[player.3]\nagent = random\n",
                   "7: 3 players, but othergame allows 1 to 2; remove players");
}

static void test_flags_errors_name_the_flag(void **state)
{
    (void)state;
    const char *rules[] = {"bonus=12"};
    struct cas__session_flags flags = {
        .game = "fixgame", .players = "human,greedy", .rules = rules, .n_rules = 1};
    struct cas__session_desc d;
    struct cas__session_plan plan;
    char err[1024];
    assert_int_equal(cas__session_desc_from_flags(&flags, &d, err, sizeof err), CAS_OK);
    struct cas__registry *reg = scan_fixtures("good");
    assert_int_equal(cas__session_desc_validate(&d, reg, &plan, err, sizeof err), CAS_EOPTION);
    assert_string_equal(err, "--rule bonus: bonus = \"12\" is not valid; use an integer from "
                             "0 to 10");
    cas__session_desc_free(&d);
    const char *twice[] = {"bonus=1", "fixgame.bonus=2"};
    flags.rules = twice;
    flags.n_rules = 2;
    assert_int_equal(cas__session_desc_from_flags(&flags, &d, err, sizeof err), CAS_OK);
    assert_int_equal(cas__session_desc_validate(&d, reg, &plan, err, sizeof err), CAS_EOPTION);
    assert_string_equal(err, "--rule fixgame.bonus: option bonus of fixgame is already set by "
                             "--rule bonus; keep one");
    cas__session_desc_free(&d);
    flags = (struct cas__session_flags){.game = "fixgame", .expansions = "exp-e",
                                        .players = "human,greedy,random,random,greedy"};
    assert_int_equal(cas__session_desc_from_flags(&flags, &d, err, sizeof err), CAS_OK);
    assert_int_equal(cas__session_desc_validate(&d, reg, &plan, err, sizeof err),
                     CAS_ECONFLICT);
    char expected[4096];
    snprintf(expected, sizeof expected,
             "--expansions: expansion \"exp-e\" requires \"exp-c\" (requires in "
             "%s/good/exp-e/exp-e.ini), which the session does not include; add exp-c to "
             "the expansions",
             fixture_base());
    assert_string_equal(err, expected);
    cas__session_desc_free(&d);
    flags.expansions = NULL;
    assert_int_equal(cas__session_desc_from_flags(&flags, &d, err, sizeof err), CAS_OK);
    assert_int_equal(cas__session_desc_validate(&d, reg, &plan, err, sizeof err), CAS_EINVAL);
    assert_string_equal(err, "--players: 5 players, but fixgame allows 2 to 4; remove "
                             "players, or add the expansion exp-c, which allows more");
    cas__session_desc_free(&d);
    cas__registry_free(reg);
}

/* Without seats only the options are validated: the player count is the
 * caller's (check, bench). */
static void test_rules_without_players(void **state)
{
    (void)state;
    const char *rules[] = {"tokens=7", "bonus=1"};
    struct cas__session_flags flags = {
        .game = "fixgame", .expansions = "exp-a", .rules = rules, .n_rules = 2};
    struct cas__session_desc d;
    struct cas__session_plan plan;
    char err[1024];
    assert_int_equal(cas__session_desc_from_flags(&flags, &d, err, sizeof err), CAS_OK);
    struct cas__registry *reg = scan_fixtures("good");
    assert_int_equal(cas__session_desc_validate_rules(&d, reg, &plan, err, sizeof err),
                     CAS_OK);
    assert_int_equal(plan.nplayers, 0);
    assert_string_equal(value_of(&plan.game_options, "bonus"), "1");
    assert_string_equal(value_of(&plan.expansion_options[0], "tokens"), "7");
    cas__session_plan_free(&plan);
    assert_int_equal(cas__session_desc_validate(&d, reg, &plan, err, sizeof err), CAS_EINVAL);
    assert_string_equal(err, "--players: 0 players, but fixgame with exp-a allows 2 to 4; "
                             "add players");
    cas__session_desc_free(&d);
    rules[0] = "tokns=7";
    assert_int_equal(cas__session_desc_from_flags(&flags, &d, err, sizeof err), CAS_OK);
    assert_int_equal(cas__session_desc_validate_rules(&d, reg, &plan, err, sizeof err),
                     CAS_EOPTION);
    assert_string_equal(err, "--rule tokns: unknown rule option \"tokns\"; closest: tokens");
    assert_null(plan.game);
    cas__session_desc_free(&d);
    cas__registry_free(reg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plan_with_values_and_defaults),
        cmocka_unit_test(test_bare_name_of_one_expansion),
        cmocka_unit_test(test_bare_name_of_an_expansion_left_out),
        cmocka_unit_test(test_option_errors),
        cmocka_unit_test(test_resolution_errors_point_at_their_line),
        cmocka_unit_test(test_player_limits),
        cmocka_unit_test(test_rule_when_no_option_is_declared),
        cmocka_unit_test(test_flags_errors_name_the_flag),
        cmocka_unit_test(test_rules_without_players),
        cmocka_unit_test(test_each_session_chooses_where_its_plugins_load),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
