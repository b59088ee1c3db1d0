/*
 * test_agents.c — the agents on positions of the fixture game: greedy takes
 * the best immediate score and breaks ties by seed, random is uniform and
 * replays, a human is read from a stream (numbers, text, bad input, help,
 * list, quit, end of input).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "agent.h"
#include "match_support.h"
#include "session.h"

const struct cas_plugin *cas_plugin_entry(void);

/* A fixture game advanced through `record` (actions separated by '\n'). */
struct position {
    struct cas__match match;
    struct cas__session session;
    struct cas__actions legal;
};

static void set_up(struct position *p, const char *const *options, const char *record)
{
    char text[64];
    memset(p, 0, sizeof *p);
    cas_test_match_open(&p->match, cas_plugin_entry(), 2, options);
    assert_int_equal(cas__session_init(&p->session, &p->match, 1, NULL, NULL), CAS_OK);
    while (*record) {
        size_t len = strcspn(record, "\n");
        snprintf(text, sizeof text, "%.*s", (int)len, record);
        if (cas__session_replay(&p->session, text, 0, 0) != CAS_OK)
            fail_msg("%s", p->session.error);
        record += len + (record[len] == '\n');
    }
    assert_int_equal(cas__match_legal(&p->match, p->session.state, &p->legal), CAS_OK);
}

static void tear_down(struct position *p)
{
    cas__actions_free(&p->legal);
    cas__session_free(&p->session);
    cas__match_close(&p->match);
}

/* The text of what `agent` chooses in p with `seed`; CAS_OK expected. */
static void choose_text(struct position *p, struct cas__agent *agent, uint64_t seed,
                        char *text, size_t cap)
{
    cas_action action;
    struct cas__decision d = {
        .match = &p->match, .state = p->session.state,
        .player = p->match.vt->current(p->session.state), .player_name = "Tester",
        .seed = seed, .ply = p->session.ply, .legal = &p->legal,
    };
    assert_int_equal(cas__agent_choose(agent, &d, &action), CAS_OK);
    assert_int_equal(cas__match_action_text(&p->match, p->session.state, action, text, cap),
                     CAS_OK);
}

static const char *const no_blocks[] = {"cards=5", "hand=2", "blocks=off", NULL};
static const char *const with_blocks[] = {"cards=5", "hand=2", NULL};

static void test_greedy_takes_the_best_score(void **unused)
{
    (void)unused;
    struct position p;
    struct cas__agent *greedy;
    char text[32];
    assert_int_equal(cas__agent_new("greedy", &greedy), CAS_OK);
    set_up(&p, no_blocks, "draw 1\ndraw 5\ndraw 2\ndraw 3");
    for (uint64_t seed = 1; seed <= 16; seed++) {
        choose_text(&p, greedy, seed, text, sizeof text);
        assert_string_equal(text, "play 5"); /* +5 beats +1 */
    }
    tear_down(&p);
    cas__agent_free(greedy);
}

/* Blocking costs the climber 3 and gains 1: better than letting it pass. */
static void test_greedy_blocks_out_of_turn(void **unused)
{
    (void)unused;
    struct position p;
    struct cas__agent *greedy;
    char text[32];
    assert_int_equal(cas__agent_new("greedy", &greedy), CAS_OK);
    set_up(&p, with_blocks, "draw 1\ndraw 3\ndraw 2\ndraw 5\nplay 3");
    assert_int_equal(p.match.vt->current(p.session.state), 1);
    choose_text(&p, greedy, 1, text, sizeof text);
    assert_string_equal(text, "block 5");
    tear_down(&p);
    cas__agent_free(greedy);
}

/* Blue can only restart (0 points either way): the seed decides, the same
 * way every time. */
static void test_greedy_breaks_ties_by_seed(void **unused)
{
    (void)unused;
    struct position p;
    struct cas__agent *greedy;
    char first[32], again[32];
    int twos = 0, threes = 0;
    assert_int_equal(cas__agent_new("greedy", &greedy), CAS_OK);
    set_up(&p, no_blocks, "draw 1\ndraw 5\ndraw 2\ndraw 3\nplay 5\ndraw 4");
    assert_int_equal(p.match.vt->current(p.session.state), 1);
    for (uint64_t seed = 1; seed <= 32; seed++) {
        choose_text(&p, greedy, seed, first, sizeof first);
        choose_text(&p, greedy, seed, again, sizeof again);
        assert_string_equal(first, again);
        twos += strcmp(first, "play 2") == 0;
        threes += strcmp(first, "play 3") == 0;
    }
    assert_int_equal(twos + threes, 32);
    assert_true(twos > 4 && threes > 4);
    tear_down(&p);
    cas__agent_free(greedy);
}

static void test_random_is_uniform_and_replays(void **unused)
{
    (void)unused;
    struct position p;
    struct cas__agent *random;
    char first[32], again[32];
    int counts[2] = {0, 0};
    assert_int_equal(cas__agent_new("random", &random), CAS_OK);
    set_up(&p, no_blocks, "draw 1\ndraw 5\ndraw 2\ndraw 3");
    for (uint64_t seed = 1; seed <= 400; seed++) {
        choose_text(&p, random, seed, first, sizeof first);
        choose_text(&p, random, seed, again, sizeof again);
        assert_string_equal(first, again);
        counts[strcmp(first, "play 5") == 0]++;
    }
    assert_true(counts[0] > 150 && counts[1] > 150);
    tear_down(&p);
    cas__agent_free(random);
}

static void test_unknown_agent_kind(void **unused)
{
    (void)unused;
    struct cas__agent *agent = (struct cas__agent *)&agent;
    assert_int_equal(cas__agent_new("grumpy", &agent), CAS_ENOTFOUND);
    assert_null(agent);
}

/* Feed `input` to a human agent deciding for Red in the no-blocks
 * position; returns the agent's code, its choice in text and its output. */
static int human_says(const char *input, char *text, size_t cap, char **output)
{
    struct position p;
    struct cas__agent *human;
    size_t len = 0;
    cas_action action;
    FILE *in = fmemopen((void *)input, strlen(input), "r");
    FILE *out = open_memstream(output, &len);
    assert_non_null(in);
    assert_non_null(out);
    set_up(&p, no_blocks, "draw 1\ndraw 5\ndraw 2\ndraw 3");
    assert_int_equal(cas__agent_human_new(in, out, CAS_RENDER_TEXT, &human), CAS_OK);
    struct cas__decision d = {
        .match = &p.match, .state = p.session.state, .player = 0, .player_name = "Ada",
        .seed = 1, .ply = p.session.ply, .legal = &p.legal,
    };
    int rc = cas__agent_choose(human, &d, &action);
    text[0] = '\0';
    if (rc == CAS_OK)
        cas__match_action_text(&p.match, p.session.state, action, text, cap);
    cas__agent_free(human);
    tear_down(&p);
    fclose(in);
    fclose(out);
    return rc;
}

static void test_human_picks_by_number(void **unused)
{
    (void)unused;
    char text[32], *output;
    assert_int_equal(human_says("2\n", text, sizeof text, &output), CAS_OK);
    assert_string_equal(text, "play 5");
    assert_non_null(strstr(output, "hand: 1 5"));     /* own hand shown */
    assert_null(strstr(output, "hand: 2 3"));         /* Blue's is not */
    assert_non_null(strstr(output, "    1. play 1\n    2. play 5\n"));
    assert_non_null(strstr(output, "Ada> "));
    free(output);
}

static void test_human_picks_by_text(void **unused)
{
    (void)unused;
    char text[32], *output;
    assert_int_equal(human_says("   play 1  \n", text, sizeof text, &output), CAS_OK);
    assert_string_equal(text, "play 1");
    free(output);
}

static void test_human_bad_input_help_and_list(void **unused)
{
    (void)unused;
    char text[32], *output;
    assert_int_equal(human_says("bogus\n0\n99\n\nPlay 5\nhelp\nlist\nplay 5\n", text,
                                sizeof text, &output), CAS_OK);
    assert_string_equal(text, "play 5");
    assert_non_null(strstr(output, "\"bogus\" is not a legal action: "
                                   "\"bogus\" is not a Ladder action"));
    assert_non_null(strstr(output, "There is no action 0"));
    assert_non_null(strstr(output, "There is no action 99"));
    assert_non_null(strstr(output, "\"Play 5\" is not a legal action"));
    assert_non_null(strstr(output, "quit   stop the game"));
    /* list shows the position and the actions a second time */
    char *again = strstr(strstr(output, "2. play 5") + 1, "2. play 5");
    assert_non_null(again);
    free(output);
}

/* hint asks the greedy bot (+5 beats +1) and says why; score shows the
 * scores now and that the fixture projects none; undo with nothing to
 * take back says so and asks again; help explains every command. */
static void test_human_hint_score_and_undo(void **unused)
{
    (void)unused;
    char text[32], *output;
    setenv("COLUMNS", "80", 1); /* the width the reason is wrapped to */
    assert_int_equal(human_says("hint\nscore\nundo\nhelp\n1\n", text, sizeof text, &output),
                     CAS_OK);
    assert_string_equal(text, "play 1");
    assert_non_null(strstr(output, "The greedy bot would play 2. play 5\n"
                                   "  because it leaves you +5 against the best opponent "
                                   "after your move (+0 now;\n    the best other choice, "
                                   "+1)\n"));
    assert_non_null(strstr(output, "Scores:\n  now                    Red 0, Blue 0\n"));
    assert_non_null(strstr(output, "(fixture defines no projected final score)"));
    assert_non_null(strstr(output, "Nothing to take back: a draw or another player's decision came after yours."));
    assert_non_null(strstr(output, "  hint   ask the greedy bot"));
    assert_non_null(strstr(output, "fixture has no notation help"));
    free(output);
}

static void test_human_quits(void **unused)
{
    (void)unused;
    char text[32], *output;
    assert_int_equal(human_says("quit\n", text, sizeof text, &output), CAS_ECONFLICT);
    free(output);
    assert_int_equal(human_says("", text, sizeof text, &output), CAS_ECONFLICT);
    free(output);
    assert_int_equal(human_says("play 3\n", text, sizeof text, &output), CAS_ECONFLICT);
    assert_non_null(strstr(output, "\"play 3\" is not a legal action: \"play 3\" is not legal now"));
    free(output);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_greedy_takes_the_best_score),
        cmocka_unit_test(test_greedy_blocks_out_of_turn),
        cmocka_unit_test(test_greedy_breaks_ties_by_seed),
        cmocka_unit_test(test_random_is_uniform_and_replays),
        cmocka_unit_test(test_unknown_agent_kind),
        cmocka_unit_test(test_human_picks_by_number),
        cmocka_unit_test(test_human_picks_by_text),
        cmocka_unit_test(test_human_bad_input_help_and_list),
        cmocka_unit_test(test_human_hint_score_and_undo),
        cmocka_unit_test(test_human_quits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
