/*
 * test_session_flags.c — sessions from --game/--expansions/--players/--seed/
 * --rule: the SPEC forms, the equivalent session file they journal as, and
 * every error naming its flag.
 */
#include <stdio.h>
#include <string.h>

#include "session_files.h"

static int from_flags(const struct cas__session_flags *flags, struct cas__session_desc *d,
                      char *err, size_t errlen)
{
    return cas__session_desc_from_flags(flags, d, err, errlen);
}

static void expect_flags_error(const struct cas__session_flags *flags, const char *expected)
{
    struct cas__session_desc d;
    char err[1024];
    assert_true(from_flags(flags, &d, err, sizeof err) < 0);
    assert_string_equal(err, expected);
    assert_null(d.game);
    assert_null(d.text);
}

static void test_spec_forms_and_text(void **state)
{
    (void)state;
    const char *rules[] = {"farmers=off", "exp-a.tokens=3"};
    struct cas__session_flags flags = {
        .game = "fixgame",
        .expansions = "exp-c,exp-a",
        .players = "Ada:human,Bot:greedy,random",
        .seed = "42",
        .rules = rules,
        .n_rules = 2,
    };
    struct cas__session_desc d;
    char err[1024];
    assert_int_equal(from_flags(&flags, &d, err, sizeof err), CAS_OK);
    assert_null(d.path);
    assert_string_equal(d.game, "fixgame");
    assert_int_equal(d.n_expansions, 2);
    assert_true(d.seed_given);
    assert_true(d.seed == 42);
    assert_int_equal(d.n_players, 3);
    assert_string_equal(d.players[0].name, "Ada");
    assert_string_equal(d.players[0].agent, "human");
    assert_string_equal(d.players[1].name, "Bot");
    assert_string_equal(d.players[1].agent, "greedy");
    assert_string_equal(d.players[2].name, "Player 3");
    assert_string_equal(d.players[2].agent, "random");
    assert_int_equal(d.rules[1].line, 0);
    const char *text = "[session]\n"
                       "game = fixgame\n"
                       "expansions = exp-c, exp-a\n"
                       "seed = 42\n"
                       "[rules]\n"
                       "farmers = off\n"
                       "exp-a.tokens = 3\n"
                       "[player.1]\nname = Ada\nagent = human\n"
                       "[player.2]\nname = Bot\nagent = greedy\n"
                       "[player.3]\nname = Player 3\nagent = random\n";
    assert_string_equal(d.text, text);
    /* the text reads back as the same session */
    struct session_file f;
    session_file_load(&f, d.text);
    assert_int_equal(f.rc, CAS_OK);
    assert_string_equal(f.desc.players[2].name, "Player 3");
    assert_string_equal(f.desc.rules[1].key, "exp-a.tokens");
    assert_true(f.desc.seed == 42);
    session_file_done(&f);
    cas__session_desc_free(&d);
}

static void test_minimal_flags(void **state)
{
    (void)state;
    struct cas__session_flags flags = {.game = "fixgame", .players = "greedy,greedy"};
    struct cas__session_desc d;
    char err[1024];
    assert_int_equal(from_flags(&flags, &d, err, sizeof err), CAS_OK);
    assert_false(d.seed_given);
    assert_int_equal(d.n_expansions, 0);
    assert_string_equal(d.text, "[session]\ngame = fixgame\n"
                                "[player.1]\nname = Player 1\nagent = greedy\n"
                                "[player.2]\nname = Player 2\nagent = greedy\n");
    cas__session_desc_free(&d);
}

/* check and bench describe a session without seats: they choose the
 * player count themselves. */
static void test_no_players(void **state)
{
    (void)state;
    const char *rules[] = {"bonus=7"};
    struct cas__session_flags flags = {.game = "fixgame", .rules = rules, .n_rules = 1};
    struct cas__session_desc d;
    char err[1024];
    assert_int_equal(from_flags(&flags, &d, err, sizeof err), CAS_OK);
    assert_int_equal(d.n_players, 0);
    assert_string_equal(d.text, "[session]\ngame = fixgame\n[rules]\nbonus = 7\n");
    cas__session_desc_free(&d);
}

static void test_flag_errors(void **state)
{
    (void)state;
    expect_flags_error(&(struct cas__session_flags){.players = "human"},
                       "--game: missing; give --game ID (`castellan plugins` lists the "
                       "games)");
    expect_flags_error(&(struct cas__session_flags){.game = "fixgame",
                                                    .players = "human,gredy"},
                       "--players: agent \"gredy\" is not valid; use human, random, greedy or "
                      "mcts[-easy|-medium|-hard][@N|@Nms][/THREADS]"
                      "[+random|+greedy][+root|+tree][+win|+margin] "
                       "(closest: greedy)");
    expect_flags_error(&(struct cas__session_flags){.game = "fixgame", .players = "Ada:humn"},
                       "--players: agent \"humn\" is not valid; use human, random, greedy or "
                      "mcts[-easy|-medium|-hard][@N|@Nms][/THREADS]"
                      "[+random|+greedy][+root|+tree][+win|+margin] "
                       "(closest: human)");
    expect_flags_error(&(struct cas__session_flags){.game = "fixgame", .players = ":human"},
                       "--players: player name \"\" is not valid; use 1 to 32 printable "
                       "characters without ',' or ':'");
    expect_flags_error(&(struct cas__session_flags){.game = "fixgame",
                                                    .players = "human,,greedy"},
                       "--players: empty player in \"human,,greedy\"; separate players with "
                       "single commas, e.g. human,greedy");
    expect_flags_error(&(struct cas__session_flags){.game = "fixgame", .players = " "},
                       "--players: no players; give AGENT or NAME:AGENT for each, e.g. "
                       "Ada:human,greedy");
    expect_flags_error(&(struct cas__session_flags){.game = "Fix", .players = "human"},
                       "--game: game \"Fix\" is not a plugin id; use the id `castellan "
                       "plugins` lists, e.g. carcassonne");
    expect_flags_error(&(struct cas__session_flags){.game = "fixgame", .expansions = "a,a",
                                                    .players = "human"},
                       "--expansions: expansion \"a\" is listed twice; list it once");
    expect_flags_error(&(struct cas__session_flags){.game = "fixgame", .seed = "x",
                                                    .players = "human"},
                       "--seed: seed \"x\" is not valid; use a decimal integer from 0 to "
                       "18446744073709551615, or leave seed out for a random one");
    const char *no_value[] = {"farmers"};
    expect_flags_error(&(struct cas__session_flags){.game = "fixgame", .players = "human",
                                                    .rules = no_value, .n_rules = 1},
                       "--rule farmers: no value; write --rule NAME=VALUE, e.g. --rule "
                       "farmers=on");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spec_forms_and_text),
        cmocka_unit_test(test_minimal_flags),
        cmocka_unit_test(test_no_players),
        cmocka_unit_test(test_flag_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
