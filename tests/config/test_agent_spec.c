/*
 * test_agent_spec.c — agent names as config files and --players give them:
 * the plain bots, the mcts levels, budgets and thread counts, and the exact
 * message for each kind of bad one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include <castellan/plugin.h>

#include "agent_spec.h"

static struct cas__agent_spec parse_ok(const char *text)
{
    struct cas__agent_spec spec;
    char err[512] = "";
    if (cas__agent_spec_parse(text, "test", &spec, err, sizeof err) != CAS_OK)
        fail_msg("%s refused: %s", text, err);
    return spec;
}

static void expect_error(const char *text, const char *expected)
{
    struct cas__agent_spec spec;
    char err[512] = "";
    assert_int_equal(cas__agent_spec_parse(text, "test", &spec, err, sizeof err), CAS_EPARSE);
    assert_string_equal(err, expected);
}

static void test_plain_agents(void **unused)
{
    (void)unused;
    assert_string_equal(parse_ok("human").kind, "human");
    assert_string_equal(parse_ok("random").kind, "random");
    assert_string_equal(parse_ok("greedy").kind, "greedy");
}

static void test_levels_budgets_threads(void **unused)
{
    (void)unused;
    struct cas__agent_spec s = parse_ok("mcts");
    assert_string_equal(s.kind, "mcts");
    assert_int_equal(s.level, CAS__LEVEL_MEDIUM);
    assert_int_equal(s.iterations, 0);
    assert_int_equal(s.millis, 0);
    assert_int_equal(s.threads, 0);
    assert_int_equal(parse_ok("mcts-easy").level, CAS__LEVEL_EASY);
    assert_int_equal(parse_ok("mcts-medium").level, CAS__LEVEL_MEDIUM);
    assert_int_equal(parse_ok("mcts-hard").level, CAS__LEVEL_HARD);
    assert_int_equal(parse_ok("mcts@2000").iterations, 2000);
    s = parse_ok("mcts@500ms");
    assert_int_equal(s.millis, 500);
    assert_int_equal(s.iterations, 0);
    s = parse_ok("mcts-hard@100000000/256");
    assert_int_equal(s.level, CAS__LEVEL_HARD);
    assert_int_equal(s.iterations, 100000000);
    assert_int_equal(s.threads, 256);
    assert_int_equal(parse_ok("mcts-easy/2").threads, 2);
}

#define SYNTAX "human, random, greedy or mcts[-easy|-medium|-hard][@N|@Nms][/THREADS]"

static void test_bad_agents(void **unused)
{
    (void)unused;
    expect_error("gredy", "test: agent \"gredy\" is not valid; use " SYNTAX " (closest: greedy)");
    expect_error("mcts-hrad",
                 "test: agent \"mcts-hrad\" is not valid; use " SYNTAX " (closest: mcts-hard)");
    expect_error("mctsx", "test: agent \"mctsx\" is not valid; use " SYNTAX " (closest: mcts)");
    static const char budget[] =
        "is not valid: a budget is @N iterations (1 to 100000000) or @Nms milliseconds "
        "(1 to 3600000), e.g. mcts@2000 or mcts@500ms";
    char expected[512];
    static const char *const bad_budgets[] = {"mcts@", "mcts@0", "mcts@ms", "mcts@12s",
                                              "mcts@100000001", "mcts@3600001ms", "mcts@-5"};
    for (size_t i = 0; i < sizeof bad_budgets / sizeof bad_budgets[0]; i++) {
        snprintf(expected, sizeof expected, "test: agent \"%s\" %s", bad_budgets[i], budget);
        expect_error(bad_budgets[i], expected);
    }
    expect_error("mcts@10/0", "test: agent \"mcts@10/0\" is not valid: /THREADS is a thread "
                              "count from 1 to 256, e.g. mcts@2000/2");
    expect_error("mcts/257", "test: agent \"mcts/257\" is not valid: /THREADS is a thread "
                             "count from 1 to 256, e.g. mcts@2000/2");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_agents),
        cmocka_unit_test(test_levels_budgets_threads),
        cmocka_unit_test(test_bad_agents),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
