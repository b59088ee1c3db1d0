/*
 * test_manifest.c — every manifest refusal the scan reports before any
 * plugin code runs: the exact line, with file:line, the bad value and the
 * fix; plus shadowing and expansions of unknown games.
 */
#include <stdio.h>

#include "loader_fixtures.h"

/* The one plugin "fix" of fixture folder dir is refused with
 * "<its manifest path><rest>". */
static void expect_manifest_refusal(const char *dir, const char *rest)
{
    struct cas__registry *reg = scan_fixtures(dir);
    assert_int_equal(cas__registry_count(reg), 1);
    assert_refusal(fixture(reg, "fix"), "%s/%s/fix/fix.ini%s", fixture_base(), dir, rest);
    cas__registry_free(reg);
}

static void test_abi_major_differs(void **state)
{
    (void)state;
    expect_manifest_refusal("abi-major",
                            ":5: plugin ABI 2.0 has another major version than the host's "
                            "1.5; rebuild the plugin against this castellan's plugin.h "
                            "(ABI 1.x)");
}

static void test_abi_minor_newer(void **state)
{
    (void)state;
    expect_manifest_refusal("abi-minor", ":5: plugin ABI 1.7 is newer than the host's 1.5; "
                                         "upgrade castellan, or rebuild the plugin against "
                                         "ABI 1.5");
}

static void test_missing_keys(void **state)
{
    (void)state;
    expect_manifest_refusal("missing-key", ": missing key version in [plugin]; add version "
                                           "= <MAJOR.MINOR.PATCH, e.g. 1.0.0>");
    expect_manifest_refusal("missing-players",
                            ": missing key max_players in [plugin]; add max_players = <an "
                            "integer from 1 to 64>");
    expect_manifest_refusal("missing-extends",
                            ": missing key extends in [expansion]; add extends = <the id of "
                            "the game it extends>");
}

static void test_malformed_values(void **state)
{
    (void)state;
    expect_manifest_refusal("bad-kind",
                            ":3: kind = \"gmae\" is not valid; use game or expansion");
    expect_manifest_refusal("bad-version", ":4: version = \"1.0\" is not valid; use "
                                           "MAJOR.MINOR.PATCH, e.g. 1.0.0");
    expect_manifest_refusal("bad-players", ":7: min_players = \"two\" is not valid; use an "
                                           "integer from 1 to 64");
    expect_manifest_refusal("bad-list", ":9: requires = \"exp-a,,exp-b\" is not valid; use "
                                        "comma-separated plugin ids");
    expect_manifest_refusal("id-folder",
                            ":2: id = \"fixother\" differs from its folder name \"fix\"; a "
                            "plugin lives in DIR/ID/ID.ini, rename one to match");
    expect_manifest_refusal("min-max", ":7: min_players = 5 is more than max_players = 4; "
                                       "lower min_players or raise max_players");
}

static void test_unknown_and_misplaced_keys(void **state)
{
    (void)state;
    expect_manifest_refusal("unknown-key", ":7: unknown key \"min_player\" in [plugin]; did "
                                           "you mean min_players?");
    expect_manifest_refusal("unknown-section",
                            ":9: unknown section [plugins]; use [plugin] or [expansion]");
    expect_manifest_refusal("duplicate-key",
                            ":9: duplicate key \"kind\" (first set at line 3); keep one");
    expect_manifest_refusal("before-section",
                            ":1: key \"id\" comes before any section; put it under [plugin] "
                            "or [expansion]");
    expect_manifest_refusal("game-expansion-keys",
                            ":10: [expansion] after in a game's manifest; remove it, or set "
                            "kind = expansion");
    expect_manifest_refusal("expansion-min", ":7: min_players is for games only; remove it "
                                             "(an expansion may raise max_players)");
    expect_manifest_refusal("long-line", ":6: line longer than 199 characters; shorten it");
    expect_manifest_refusal("syntax",
                            ":9: neither [section] nor key = value; fix the line's syntax");
}

static void test_oversized_manifest(void **state)
{
    (void)state;
    expect_manifest_refusal("oversized", ": not a manifest (larger than 65536 bytes or "
                                         "binary); replace it with a plugin's ID.ini");
}

static void test_missing_library(void **state)
{
    (void)state;
    struct cas__registry *reg = scan_fixtures("no-library");
    assert_refusal(fixture(reg, "fix"),
                   "%s/no-library/fix/fix.so: No such file or directory; build or install "
                   "the plugin so that fix.so sits beside fix.ini",
                   fixture_base());
    cas__registry_free(reg);
}

static void test_good_manifests_are_read(void **state)
{
    (void)state;
    struct cas__registry *reg = scan_fixtures("good");
    assert_int_equal(cas__registry_count(reg), 8);
    for (size_t i = 0; i < cas__registry_count(reg); i++)
        assert_null(cas__registry_at(reg, i)->refusal);
    struct cas__plugin_info *c = fixture(reg, "exp-c");
    /* exp-c is built for ABI 1.1: a plugin of an older minor loads. */
    assert_int_equal(c->kind, CAS_KIND_EXPANSION);
    assert_string_equal(c->version, "1.0.0");
    assert_string_equal(c->extends, "fixgame");
    assert_string_equal(c->description, "Loader test fixture.");
    assert_int_equal(c->max_players, 6);
    assert_int_equal(c->after.count, 1);
    assert_string_equal(c->after.items[0], "exp-a");
    assert_int_equal(c->abi_major, 1);
    assert_int_equal(c->abi_minor, 1);
    struct cas__plugin_info *g = fixture(reg, "fixgame");
    assert_int_equal(g->kind, CAS_KIND_GAME);
    assert_int_equal(g->min_players, 2);
    assert_int_equal(g->max_players, 4);
    char expected[4096];
    snprintf(expected, sizeof expected, "%s/good/fixgame/data", fixture_base());
    assert_string_equal(g->data_dir, expected);
    assert_null(g->dl); /* scanning never loads */
    cas__registry_free(reg);
}

static void test_first_id_on_the_path_wins(void **state)
{
    (void)state;
    struct cas__registry *reg = scan_fixtures("good:shadow");
    struct cas__plugin_info *winner = fixture(reg, "fixgame");
    assert_null(winner->refusal);
    assert_string_equal(winner->version, "1.0.0");
    struct cas__plugin_info *shadowed = cas__registry_at(reg, cas__registry_count(reg) - 1);
    assert_string_equal(shadowed->version, "2.0.0");
    assert_refusal(shadowed,
                   "%s/shadow/fixgame/fixgame.ini: shadowed by "
                   "%s/good/fixgame/fixgame.ini, found earlier on the plugin path; remove "
                   "one of them or reorder the path",
                   fixture_base(), fixture_base());
    cas__registry_free(reg);
}

static void test_expansion_of_unknown_game(void **state)
{
    (void)state;
    struct cas__registry *reg = scan_fixtures("good:orphan");
    assert_refusal(fixture(reg, "exp-orphan"),
                   "%s/orphan/exp-orphan/exp-orphan.ini: extends unknown game \"fixgam\"; "
                   "install that game or fix extends (closest game: fixgame)",
                   fixture_base());
    cas__registry_free(reg);
    reg = scan_fixtures("orphan");
    assert_refusal(fixture(reg, "exp-orphan"),
                   "%s/orphan/exp-orphan/exp-orphan.ini: extends unknown game \"fixgam\"; "
                   "install that game or fix extends (no game is installed)",
                   fixture_base());
    cas__registry_free(reg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_abi_major_differs),
        cmocka_unit_test(test_abi_minor_newer),
        cmocka_unit_test(test_missing_keys),
        cmocka_unit_test(test_malformed_values),
        cmocka_unit_test(test_unknown_and_misplaced_keys),
        cmocka_unit_test(test_oversized_manifest),
        cmocka_unit_test(test_missing_library),
        cmocka_unit_test(test_good_manifests_are_read),
        cmocka_unit_test(test_first_id_on_the_path_wins),
        cmocka_unit_test(test_expansion_of_unknown_game),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
