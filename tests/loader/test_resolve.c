/*
 * test_resolve.c — combining a game with expansions: deterministic order
 * from after/before then id, cycles named, conflicts, requirements, wrong
 * games and unknown names answered with the closest one, player limits.
 */
#include <stdio.h>
#include <string.h>

#include "loader_fixtures.h"

struct resolved {
    struct cas__registry *reg;
    struct cas__plugin_info *game;
    struct cas__plugin_info *ordered[8];
    char err[1024];
    int rc;
};

static void resolve(struct resolved *r, const char *dirs, const char *game,
                    const char *const *ids, size_t n)
{
    memset(r, 0, sizeof *r);
    r->reg = scan_fixtures(dirs);
    r->rc = cas__registry_resolve(r->reg, game, ids, n, &r->game, r->ordered, r->err,
                                  sizeof r->err);
}

/* Resolving fails with `code` and exactly the text `expected`. */
static void expect_error(const char *dirs, const char *game, const char *const *ids,
                         size_t n, int code, const char *expected)
{
    struct resolved r;
    resolve(&r, dirs, game, ids, n);
    assert_int_equal(r.rc, code);
    assert_string_equal(r.err, expected);
    cas__registry_free(r.reg);
}

static void expect_order(const char *const *ids, size_t n, const char *expected)
{
    struct resolved r;
    resolve(&r, "good", "fixgame", ids, n);
    assert_int_equal(r.rc, CAS_OK);
    assert_string_equal(r.game->id, "fixgame");
    assert_non_null(r.game->desc);
    char got[256] = "";
    for (size_t i = 0; i < n; i++) {
        assert_non_null(r.ordered[i]->desc);
        strcat(got, i ? " " : "");
        strcat(got, r.ordered[i]->id);
    }
    assert_string_equal(got, expected);
    cas__registry_free(r.reg);
}

static void test_order_follows_constraints_then_ids(void **state)
{
    (void)state;
    /* exp-b before exp-a, exp-c after exp-a, whatever order they are named */
    expect_order((const char *[]){"exp-c", "exp-a", "exp-b"}, 3, "exp-b exp-a exp-c");
    expect_order((const char *[]){"exp-a", "exp-b", "exp-c"}, 3, "exp-b exp-a exp-c");
    expect_order((const char *[]){"exp-b", "exp-c", "exp-a"}, 3, "exp-b exp-a exp-c");
    /* unconstrained ones by id */
    expect_order((const char *[]){"exp-e", "exp-c", "exp-a"}, 3, "exp-a exp-c exp-e");
    expect_order((const char *[]){"exp-c"}, 1, "exp-c");
    expect_order(NULL, 0, "");
}

static void test_cycle_is_named(void **state)
{
    (void)state;
    const char *msg = "after/before form a cycle: exp-x -> exp-y -> exp-z -> exp-x (each "
                      "must come before the next); remove one of these constraints from "
                      "their manifests";
    expect_error("good:cycle", "fixgame", (const char *[]){"exp-z", "exp-y", "exp-x"}, 3,
                 CAS_ECONFLICT, msg);
    expect_error("good:cycle", "fixgame",
                 (const char *[]){"exp-a", "exp-x", "exp-y", "exp-z", "exp-b"}, 5,
                 CAS_ECONFLICT, msg);
}

static void test_conflicts_and_requirements(void **state)
{
    (void)state;
    char expected[4096];
    snprintf(expected, sizeof expected,
             "expansions \"exp-d\" and \"exp-a\" conflict (conflicts in "
             "%s/good/exp-d/exp-d.ini); drop one of them",
             fixture_base());
    expect_error("good", "fixgame", (const char *[]){"exp-a", "exp-d"}, 2, CAS_ECONFLICT,
                 expected);
    snprintf(expected, sizeof expected,
             "expansion \"exp-e\" requires \"exp-c\" (requires in %s/good/exp-e/exp-e.ini), "
             "which the session does not include; add exp-c to the expansions",
             fixture_base());
    expect_error("good", "fixgame", (const char *[]){"exp-e"}, 1, CAS_ECONFLICT, expected);
    expect_error("good", "fixgame", (const char *[]){"exp-a", "exp-a"}, 2, CAS_EINVAL,
                 "expansion \"exp-a\" is listed twice; list it once");
}

static void test_wrong_game_or_kind(void **state)
{
    (void)state;
    expect_error("good", "fixgame", (const char *[]){"exp-other"}, 1, CAS_ECONFLICT,
                 "expansion \"exp-other\" extends \"othergame\", not the session's game "
                 "\"fixgame\"; drop it, or play othergame");
    expect_error("good", "exp-a", NULL, 0, CAS_EINVAL,
                 "\"exp-a\" is an expansion, not a game; name the game it extends as the "
                 "game");
    expect_error("good", "fixgame", (const char *[]){"othergame"}, 1, CAS_EINVAL,
                 "\"othergame\" is a game, not an expansion; name it as the game instead");
}

static void test_unknown_names_get_the_closest(void **state)
{
    (void)state;
    expect_error("good", "fixgam", NULL, 0, CAS_ENOTFOUND,
                 "unknown game \"fixgam\"; closest: fixgame (castellan plugins lists them "
                 "all)");
    expect_error("good", "fixgame", (const char *[]){"exp-cc"}, 1, CAS_ENOTFOUND,
                 "unknown expansion \"exp-cc\"; closest: exp-c (castellan plugins lists "
                 "them all)");
    /* suggestions come from the session game's own expansions */
    expect_error("good", "othergame", (const char *[]){"exp-ot"}, 1, CAS_ENOTFOUND,
                 "unknown expansion \"exp-ot\"; closest: exp-other (castellan plugins lists "
                 "them all)");
    /* a far-fetched guess is no help */
    expect_error("good", "fixgame", (const char *[]){"foo"}, 1, CAS_ENOTFOUND,
                 "unknown expansion \"foo\" (castellan plugins lists them all)");
    expect_error("cycle", "fixgame", NULL, 0, CAS_ENOTFOUND,
                 "unknown game \"fixgame\"; none is installed (castellan plugins lists them "
                 "all)");
}

static void test_refused_game(void **state)
{
    (void)state;
    char expected[4096];
    snprintf(expected, sizeof expected,
             "game \"fix\" is refused: %s/so-abi-major/fix/fix.so: plugin ABI 2.1 has "
             "another major version than the host's 1.5; rebuild the plugin against this "
             "castellan's plugin.h (ABI 1.x)",
             fixture_base());
    expect_error("so-abi-major", "fix", NULL, 0, CAS_EMISMATCH, expected);
}

static void test_player_limits(void **state)
{
    (void)state;
    struct resolved r;
    int min, max;
    resolve(&r, "good", "fixgame", (const char *[]){"exp-a", "exp-c"}, 2);
    assert_int_equal(r.rc, CAS_OK);
    cas__registry_player_limits(r.game, r.ordered, 1, &min, &max);
    assert_int_equal(min, 2);
    assert_int_equal(max, 4); /* exp-a alone does not raise it */
    cas__registry_player_limits(r.game, r.ordered, 2, &min, &max);
    assert_int_equal(min, 2);
    assert_int_equal(max, 6);
    cas__registry_free(r.reg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_follows_constraints_then_ids),
        cmocka_unit_test(test_cycle_is_named),
        cmocka_unit_test(test_conflicts_and_requirements),
        cmocka_unit_test(test_wrong_game_or_kind),
        cmocka_unit_test(test_unknown_names_get_the_closest),
        cmocka_unit_test(test_refused_game),
        cmocka_unit_test(test_player_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
