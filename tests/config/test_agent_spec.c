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

static void test_options(void **unused)
{
    (void)unused;
    struct cas__agent_spec s = parse_ok("mcts");
    assert_int_equal(s.rollout, 0);
    assert_int_equal(s.parallel, 0);
    assert_int_equal(s.reward, 0);
    assert_int_equal(parse_ok("mcts+greedy").rollout, CAS__ROLLOUT_GREEDY);
    assert_int_equal(parse_ok("mcts-easy+random").rollout, CAS__ROLLOUT_RANDOM);
    s = parse_ok("mcts-hard+greedy");
    assert_int_equal(s.level, CAS__LEVEL_HARD);
    assert_int_equal(s.rollout, CAS__ROLLOUT_GREEDY);
    s = parse_ok("mcts@1000/2+tree+margin");
    assert_int_equal(s.iterations, 1000);
    assert_int_equal(s.threads, 2);
    assert_int_equal(s.parallel, CAS__PARALLEL_TREE);
    assert_int_equal(s.reward, CAS__REWARD_MARGIN);
    assert_int_equal(s.rollout, 0);
    s = parse_ok("mcts@500ms+win+root+random");
    assert_int_equal(s.millis, 500);
    assert_int_equal(s.reward, CAS__REWARD_WIN);
    assert_int_equal(s.parallel, CAS__PARALLEL_ROOT);
    assert_int_equal(s.rollout, CAS__ROLLOUT_RANDOM);
    assert_int_equal(parse_ok("mcts/3+greedy").threads, 3);
}

#define SYNTAX                                                                             \
    "human, random, greedy or "                                                            \
    "mcts[-easy|-medium|-hard][@N|@Nms][/THREADS][+random|+greedy][+root|+tree][+win|+margin]"

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
    static const char options[] =
        "is no option; the options are +random or +greedy (playouts), +root or +tree "
        "(parallel search), +win or +margin (reward), e.g. mcts-hard+greedy";
    snprintf(expected, sizeof expected, "test: agent \"mcts+gredy\" is not valid: +gredy %s",
             options);
    expect_error("mcts+gredy", expected);
    snprintf(expected, sizeof expected, "test: agent \"mcts-hard@10+\" is not valid: + %s",
             options);
    expect_error("mcts-hard@10+", expected);
    snprintf(expected, sizeof expected,
             "test: agent \"mcts+greedy+tree+\" is not valid: + %s", options);
    expect_error("mcts+greedy+tree+", expected);
    expect_error("mcts+greedy+random", "test: agent \"mcts+greedy+random\" is not valid: it "
                                       "sets the playouts twice; give one of +random and "
                                       "+greedy");
    expect_error("mcts+tree+tree", "test: agent \"mcts+tree+tree\" is not valid: it sets the "
                                   "parallel search twice; give one of +root and +tree");
    expect_error("mcts+margin+win", "test: agent \"mcts+margin+win\" is not valid: it sets "
                                    "the reward twice; give one of +win and +margin");
    expect_error("mcts@10+greedy/2", "test: agent \"mcts@10+greedy/2\" is not valid: +greedy/2 "
                                     "is no option; the options are +random or +greedy "
                                     "(playouts), +root or +tree (parallel search), +win or "
                                     "+margin (reward), e.g. mcts-hard+greedy");
    expect_error("greedy+tree",
                 "test: agent \"greedy+tree\" is not valid; use " SYNTAX " (closest: greedy)");
    expect_error("mcts/257", "test: agent \"mcts/257\" is not valid: /THREADS is a thread "
                             "count from 1 to 256, e.g. mcts@2000/2");
}

/* Where only a bot will do, an unknown name is refused with the bots'
 * forms, and the closest name is a bot's. */
static void test_bots_only(void **unused)
{
    (void)unused;
    struct cas__agent_spec spec;
    char err[512] = "";
    assert_int_equal(cas__agent_spec_parse_bot("humna", "--hint", &spec, err, sizeof err),
                     CAS_EPARSE);
    assert_string_equal(err, "--hint: agent \"humna\" is not valid; use random, greedy or "
                             "mcts[-easy|-medium|-hard][@N|@Nms][/THREADS][+random|+greedy]"
                             "[+root|+tree][+win|+margin]"); /* no bot is near */
    assert_int_equal(cas__agent_spec_parse_bot("human", "--hint", &spec, err, sizeof err),
                     CAS_OK);
    assert_string_equal(spec.kind, "human");
    assert_int_equal(cas__agent_spec_parse_bot("mcts@9/1+tree", "--hint", &spec, err,
                                               sizeof err), CAS_OK);
    assert_int_equal(spec.parallel, CAS__PARALLEL_TREE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_agents),
        cmocka_unit_test(test_levels_budgets_threads),
        cmocka_unit_test(test_options),
        cmocka_unit_test(test_bad_agents),
        cmocka_unit_test(test_bots_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
