/*
 * test_session_file.c — reading session files: a complete file, the
 * presets, and every error path with its exact "FILE:LINE: ..." message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session_files.h"

#define PLAYERS "[player.1]\nagent = human\n[player.2]\nagent = greedy\n"

static void test_complete_file(void **state)
{
    (void)state;
    setenv("HOME", "/home/ada", 1);
    const char *text = "; a comment\n"
                       "[session]\n"
                       "game = carcassonne\n"
                       "expansions = inns-cathedrals , traders-builders\n"
                       "seed = 20261129 ; inline comment\n"
                       "isolation = worker\n"
                       "plugin-deadline-ms = 250\n"
                       "days-per-move = 3\n"
                       "[rules]\n"
                       "farmers = on\n"
                       "traders-builders.pigs = off\n"
                       "[player.1]\n"
                       "name = Ada\n"
                       "agent = human\n"
                       "[player.2]\n"
                       "agent = greedy\n"
                       "[saves]\n"
                       "database = ~/saves.db\n"
                       "campaign = tuesday-league\n"
                       "journal = off\n";
    struct session_file f;
    session_file_load(&f, text);
    assert_int_equal(f.rc, CAS_OK);
    struct cas__session_desc *d = &f.desc;
    assert_string_equal(d->path, f.path);
    assert_string_equal(d->text, text);
    assert_string_equal(d->game, "carcassonne");
    assert_int_equal(d->game_line, 3);
    assert_int_equal(d->expansions_line, 4);
    assert_int_equal(d->n_expansions, 2);
    assert_string_equal(d->expansions[0], "inns-cathedrals");
    assert_string_equal(d->expansions[1], "traders-builders");
    assert_true(d->seed_given);
    assert_true(d->seed == 20261129u);
    assert_int_equal(d->n_rules, 2);
    assert_string_equal(d->rules[1].key, "traders-builders.pigs");
    assert_string_equal(d->rules[1].value, "off");
    assert_int_equal(d->rules[1].line, 11);
    assert_int_equal(d->n_players, 2);
    assert_string_equal(d->players[0].name, "Ada");
    assert_string_equal(d->players[0].agent, "human");
    assert_int_equal(d->players[0].line, 12);
    assert_string_equal(d->players[1].name, "Player 2");
    assert_string_equal(d->players[1].agent, "greedy");
    assert_string_equal(d->database, "/home/ada/saves.db");
    assert_string_equal(d->campaign, "tuesday-league");
    assert_int_equal(d->journal, 0);
    assert_int_equal(d->isolation, 1);
    assert_int_equal(d->deadline_ms, 250);
    assert_int_equal(d->days_per_move, 3);
    assert_int_equal(d->last_line, 20);
    session_file_done(&f);
}

static void test_defaults(void **state)
{
    (void)state;
    struct session_file f;
    session_file_load(&f, "[session]\ngame = fixture\n" PLAYERS);
    assert_int_equal(f.rc, CAS_OK);
    assert_false(f.desc.seed_given);
    assert_int_equal(f.desc.n_expansions, 0);
    assert_int_equal(f.desc.n_rules, 0);
    assert_null(f.desc.database);
    assert_null(f.desc.campaign);
    assert_int_equal(f.desc.journal, 1);
    assert_int_equal(f.desc.isolation, 0);
    assert_int_equal(f.desc.deadline_ms, 0);
    session_file_done(&f);
}

static void test_presets_parse(void **state)
{
    (void)state;
    const char *src = getenv("CASTELLAN_SOURCE_DIR");
    char path[2048], err[2048];
    struct cas__session_desc d;
    snprintf(path, sizeof path, "%s/config/presets/default.ini", src);
    assert_int_equal(cas__session_desc_load(path, &d, err, sizeof err), CAS_OK);
    assert_string_equal(d.game, "carcassonne");
    assert_int_equal(d.n_players, 4);
    assert_string_equal(d.players[0].agent, "greedy");
    assert_string_equal(d.players[1].agent, "random");
    assert_string_equal(d.players[2].agent, "greedy");
    assert_string_equal(d.players[3].agent, "random");
    assert_string_equal(d.rules[0].key, "farmers");
    assert_string_equal(d.rules[0].value, "on");
    cas__session_desc_free(&d);
    snprintf(path, sizeof path, "%s/config/presets/fixture.ini", src);
    assert_int_equal(cas__session_desc_load(path, &d, err, sizeof err), CAS_OK);
    assert_string_equal(d.game, "fixture");
    assert_int_equal(d.n_players, 2);
    assert_string_equal(d.players[0].agent, "random");
    assert_string_equal(d.players[1].agent, "random");
    cas__session_desc_free(&d);
}

static void test_unreadable_file(void **state)
{
    (void)state;
    char err[256];
    struct cas__session_desc d;
    assert_int_equal(cas__session_desc_load("/nonexistent/x.ini", &d, err, sizeof err),
                     CAS_EIO);
    assert_string_equal(err, "/nonexistent/x.ini: cannot be read: No such file or directory; "
                             "check the path");
}

static void test_binary_file(void **state)
{
    (void)state;
    char path[1024], err[2048], expected[2048];
    snprintf(path, sizeof path, "%s/tests/binary-session.ini", getenv("CASTELLAN_BUILD_DIR"));
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fwrite("[session]\0game = x\n", 1, 20, f);
    fclose(f);
    struct cas__session_desc d;
    assert_int_equal(cas__session_desc_load(path, &d, err, sizeof err), CAS_EINVAL);
    snprintf(expected, sizeof expected,
             "%s: not a session file (binary, or larger than 1 MiB); give an INI file like "
             "config/presets/default.ini",
             path);
    assert_string_equal(err, expected);
    remove(path);
}

static void test_sections(void **state)
{
    (void)state;
    expect_file_error("[sesion]\ngame = x\n",
                      "1: unknown section [sesion]; use [session], [rules], [player.N] or "
                      "[saves] (closest: [session])");
    expect_file_error("[session]\ngame = x\n[plyer.1]\nagent = human\n",
                      "3: unknown section [plyer.1]; use [session], [rules], [player.N] or "
                      "[saves] (closest: [player.1])");
    expect_file_error("[session]\ngame = x\n[player.01]\nagent = human\n",
                      "3: section [player.01] has no valid player number; use [player.1] "
                      "(players are numbered 1 to 64)");
    expect_file_error("[session]\ngame = x\n[player.1]\nagent = human\n[player.3]\n",
                      "5: [player.3] is out of order; number players 1, 2, 3... in order "
                      "without gaps (expected [player.2] here)");
    expect_file_error("[session]\ngame = x\n[player.2]\nagent = human\n[player.1]\n",
                      "3: [player.2] is out of order; number players 1, 2, 3... in order "
                      "without gaps (expected [player.1] here)");
    expect_file_error("[session]\ngame = x\n" PLAYERS "[session]\nseed = 1\n",
                      "7: section [session] appears again (first at line 1); merge the two");
    expect_file_error("game = x\n[session]\n",
                      "1: key \"game\" comes before any section; put it under [session]");
}

/* A header is read where inih reads one: after a UTF-8 byte order mark and
 * any leading white space inih skips (\v, \f and \r too), but not on an
 * indented line after a key, which continues that key's value. */
static void test_headers_where_inih_sees_them(void **state)
{
    (void)state;
    static const char *const lead[] = {"\v", "\f", "\r", " \t", "\xEF\xBB\xBF"};
    for (size_t i = 0; i < sizeof lead / sizeof lead[0]; i++) {
        char text[256];
        struct session_file f;
        snprintf(text, sizeof text, "%s[player.1]\nagent = human\n", lead[i]);
        session_file_load(&f, text);
        assert_int_equal(f.rc, CAS_EPARSE); /* no [session]: but player.1 was seen */
        assert_non_null(strstr(f.err, "no [session] section"));
        session_file_done(&f);
        if (i == 4)
            break; /* a byte order mark starts a file only */
        snprintf(text, sizeof text, "[session]\ngame = x\n[player.1]\nname = Ada\n"
                 "agent = human\n[rules]\n%s[player.2]\nagent = greedy\n", lead[i]);
        session_file_load(&f, text);
        assert_int_equal(f.rc, CAS_OK);
        assert_int_equal(f.desc.n_players, 2);
        assert_string_equal(f.desc.players[0].name, "Ada");
        assert_string_equal(f.desc.players[0].agent, "human");
        assert_int_equal(f.desc.players[1].line, 7);
        assert_string_equal(f.desc.players[1].agent, "greedy");
        session_file_done(&f);
    }
    expect_file_error("[session]\ngame = x\n[player.1]\nagent = human\n\v[player.2]\n"
                      "agent = greedy\n",
                      "5: duplicate key \"agent\" in [player.1] (first at line 4); keep one");
}

static void test_keys(void **state)
{
    (void)state;
    expect_file_error("[session]\ngme = x\n",
                      "2: unknown key \"gme\" in [session]; use game, expansions, seed, "
                      "isolation, plugin-deadline-ms or days-per-move (closest: game)");
    expect_file_error("[session]\ngame = x\n[player.1]\nagnet = human\n",
                      "4: unknown key \"agnet\" in [player.1]; use name or agent (closest: "
                      "agent)");
    expect_file_error("[session]\ngame = x\n" PLAYERS "[saves]\njurnal = on\n",
                      "8: unknown key \"jurnal\" in [saves]; use database, url, campaign "
                      "or journal (closest: journal)");
    expect_file_error("[session]\ngame = x\ngame = y\n",
                      "3: duplicate key \"game\" in [session] (first at line 2); keep one");
    expect_file_error("[session]\ngame = x\n[rules]\nfarmers = on\nfarmers = off\n",
                      "5: duplicate key \"farmers\" in [rules] (first at line 4); keep one");
    expect_file_error("[session]\ngame = x\n[rules]\nFarmers = on\n",
                      "4: rule \"Farmers\" is not an option name; write NAME or "
                      "EXPANSION-ID.NAME in lower case, e.g. farmers");
    /* option names start with a letter, as the loader requires of them */
    expect_file_error("[session]\ngame = x\n[rules]\nexp-a.2x = on\n",
                      "4: rule \"exp-a.2x\" is not an option name; write NAME or "
                      "EXPANSION-ID.NAME in lower case, e.g. farmers");
    char long_line[512];
    snprintf(long_line, sizeof long_line, "[session]\ngame = x\n[player.1]\nname = %0250d\n",
             0);
    expect_file_error(long_line, "4: line longer than 199 characters; shorten it");
    expect_file_error("[session]\ngame = x\nplayers 2\n",
                      "3: neither [section] nor key = value; fix the line's syntax");
}

static void test_values(void **state)
{
    (void)state;
    expect_file_error("[session]\ngame = Carcassonne\n",
                      "2: game \"Carcassonne\" is not a plugin id; use the id `castellan "
                      "plugins` lists, e.g. carcassonne");
    expect_file_error("[session]\ngame = x\nexpansions = a,,b\n",
                      "3: expansions \"a,,b\" has an empty item; separate ids with single "
                      "commas");
    expect_file_error("[session]\ngame = x\nexpansions = a, Inns\n",
                      "3: expansion \"Inns\" is not a plugin id; use the ids `castellan "
                      "plugins` lists");
    expect_file_error("[session]\ngame = x\nexpansions = a, b, a\n",
                      "3: expansion \"a\" is listed twice; list it once");
    const char *seed_fix = "is not valid; use a decimal integer from 0 to "
                           "18446744073709551615, or leave seed out for a random one";
    char expected[512];
    snprintf(expected, sizeof expected, "3: seed \"12x\" %s", seed_fix);
    expect_file_error("[session]\ngame = x\nseed = 12x\n", expected);
    snprintf(expected, sizeof expected, "3: seed \"-1\" %s", seed_fix);
    expect_file_error("[session]\ngame = x\nseed = -1\n", expected);
    snprintf(expected, sizeof expected, "3: seed \"18446744073709551616\" %s", seed_fix);
    expect_file_error("[session]\ngame = x\nseed = 18446744073709551616\n", expected);
    expect_file_error("[session]\ngame = x\n[player.1]\nagent = gredy\n",
                      "4: agent \"gredy\" is not valid; use human, random, greedy or "
                      "mcts[-easy|-medium|-hard][@N|@Nms][/THREADS]"
                      "[+random|+greedy][+root|+tree][+win|+margin] "
                      "(closest: greedy)");
    expect_file_error("[session]\ngame = x\n[player.1]\nname = "
                      "A name far longer than thirty-two characters\n",
                      "4: player name \"A name far longer than thirty-two characters\" is "
                      "not valid; use 1 to 32 printable characters without ',' or ':'");
    expect_file_error("[session]\ngame = x\nisolation = workr\n",
                      "3: isolation = \"workr\" is not valid; use auto, worker or in-process "
                      "(closest: worker)");
    expect_file_error("[session]\ngame = x\nplugin-deadline-ms = 0\n",
                      "3: plugin-deadline-ms = \"0\" is not valid; give the milliseconds one "
                      "plugin call may take, 1 to 3600000 (default 5000)");
    expect_file_error("[session]\ngame = x\ndays-per-move = 15\n",
                      "3: days-per-move = \"15\" is not valid; give the days each move of a "
                      "correspondence game may take, 1 to 14");
    expect_file_error("[session]\ngame = x\nplugin-deadline-ms = 5s\n",
                      "3: plugin-deadline-ms = \"5s\" is not valid; give the milliseconds one "
                      "plugin call may take, 1 to 3600000 (default 5000)");
    expect_file_error("[session]\ngame = x\n" PLAYERS "[saves]\njournal = offf\n",
                      "8: journal = \"offf\" is not valid; use on or off (closest: off)");
    expect_file_error("[session]\ngame = x\n" PLAYERS "[saves]\ncampaign = "
                      "a-campaign-name-that-goes-on-and-on-for-far-more-than-sixty-four-chars\n",
                      "8: campaign \"a-campaign-name-that-goes-on-and-on-for-far-more-than-"
                      "sixty-four-chars\" is not valid; use 1 to 64 characters, or leave it "
                      "out");
    unsetenv("HOME");
    expect_file_error("[session]\ngame = x\n" PLAYERS "[saves]\ndatabase = ~/saves.db\n",
                      "8: database \"~/saves.db\" starts with ~ but HOME is not set; write "
                      "the full path");
    setenv("HOME", "/home/ada", 1);
    expect_file_error("[session]\ngame = x\n" PLAYERS "[saves]\ndatabase =\n",
                      "8: database is empty; give a file path, or leave it out for the "
                      "default");
    expect_file_error("[session]\ngame = x\n" PLAYERS "[saves]\nurl = mysql://h/db\n",
                      "8: url = \"mysql://h/db\" is not a PostgreSQL URL; write "
                      "postgresql://[USER[:PASSWORD]@][HOST][:PORT]/DATABASE");
    expect_file_error("[session]\ngame = x\n" PLAYERS "[saves]\ndatabase = postgres://h/a b\n",
                      "8: database = \"postgres://h/a b\" holds a space or control character "
                      "at position 15; percent-encode it (%20)");
    expect_file_error("[session]\ngame = x\n" PLAYERS "[saves]\ndatabase = a.db\n"
                      "url = postgresql:///castellan\n",
                      "9: url names the store a second time (database at line 8); keep one: "
                      "database (a file or a URL) or url");
}

/* A URL names a PostgreSQL store as it is: no ~ expansion, under either key. */
static void test_saves_url_names_a_postgresql_store(void **state)
{
    (void)state;
    static const char *const files[] = {
        "[session]\ngame = x\n" PLAYERS "[saves]\nurl = postgresql://ada@db.club/castellan\n",
        "[session]\ngame = x\n" PLAYERS "[saves]\ndatabase = postgresql://ada@db.club/castellan\n",
    };
    for (size_t i = 0; i < 2; i++) {
        struct session_file f;
        session_file_load(&f, files[i]);
        assert_int_equal(f.rc, CAS_OK);
        assert_string_equal(f.desc.database, "postgresql://ada@db.club/castellan");
        session_file_done(&f);
    }
}

#define FORMS                                                                              \
    "[-easy|-medium|-hard][@N|@Nms][/THREADS][+random|+greedy][+root|+tree][+win|+margin]"

static void test_missing_parts(void **state)
{
    (void)state;
    expect_file_error("[session]\nseed = 1\n" PLAYERS,
                      "1: [session] has no game; add game = ID (`castellan plugins` lists "
                      "the games)");
    expect_file_error("[rules]\nfarmers = on\n" PLAYERS,
                      "1: no [session] section; add [session] with game = ID");
    expect_file_error("[session]\ngame = x\n[rules]\nfarmers = on\n",
                      "4: no players; add [player.1] with agent = human, random, greedy or "
                      "mcts" FORMS);
    expect_file_error("[session]\ngame = x\n[player.1]\nagent = human\n[player.2]\nname = "
                      "Bo\n",
                      "5: [player.2] has no agent; add agent = human, random, greedy or "
                      "mcts" FORMS);
}

static void test_first_problem_wins(void **state)
{
    (void)state;
    expect_file_error("[session]\ngame = x\nbroken line\n[player.1]\nagent = gredy\n",
                      "3: neither [section] nor key = value; fix the line's syntax");
    expect_file_error("[session]\ngame = x\n[player.1]\nagent = gredy\nbroken line\n",
                      "4: agent \"gredy\" is not valid; use human, random, greedy or "
                      "mcts[-easy|-medium|-hard][@N|@Nms][/THREADS]"
                      "[+random|+greedy][+root|+tree][+win|+margin] "
                      "(closest: greedy)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_complete_file),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_presets_parse),
        cmocka_unit_test(test_unreadable_file),
        cmocka_unit_test(test_binary_file),
        cmocka_unit_test(test_sections),
        cmocka_unit_test(test_headers_where_inih_sees_them),
        cmocka_unit_test(test_keys),
        cmocka_unit_test(test_saves_url_names_a_postgresql_store),
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_missing_parts),
        cmocka_unit_test(test_first_problem_wins),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
