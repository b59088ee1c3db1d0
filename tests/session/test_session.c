/*
 * test_session.c — the session loop driven with the fixture game: chance
 * draws, the out-of-turn block, what each viewer is shown, determinism by
 * seed, journal hooks, and replay with hash checks.
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

#define MAX_PLIES 512

/* What the journal hook saw. */
struct journal {
    uint32_t n;
    int actor[MAX_PLIES];
    char text[MAX_PLIES][32];
    uint64_t hash[MAX_PLIES];
    int stop_at; /* fail the hook at this ply, or -1 */
};

static int record_action(void *ctx, uint32_t ply, int actor, const char *text,
                         uint64_t hash_after, char *err, size_t errlen)
{
    struct journal *j = ctx;
    assert_int_equal(ply, j->n);
    assert_true(j->n < MAX_PLIES);
    if ((int)ply == j->stop_at) {
        snprintf(err, errlen, "the disk is full");
        return CAS_EIO;
    }
    j->actor[j->n] = actor;
    snprintf(j->text[j->n], sizeof j->text[j->n], "%s", text);
    j->hash[j->n++] = hash_after;
    return CAS_OK;
}

/* One game of the fixture with bots of `kind` everywhere; its output goes
 * into *output (caller frees) when output is not NULL. */
struct game_run {
    struct cas__match match;
    struct cas__agent *agents[4];
    struct cas__session session;
    struct journal journal;
    char *output;
    size_t output_len;
    FILE *out;
};

static void start_game(struct game_run *r, int nplayers, const char *kind, uint64_t seed,
                       int viewer)
{
    static const char *const options[] = {"cards=12", NULL};
    memset(r, 0, sizeof *r);
    r->journal.stop_at = -1;
    cas_test_match_open(&r->match, cas_plugin_entry(), nplayers, options);
    for (int p = 0; p < nplayers; p++)
        assert_int_equal(cas__agent_new(kind, &r->agents[p]), CAS_OK);
    assert_int_equal(cas__session_init(&r->session, &r->match, seed, r->agents, NULL), CAS_OK);
    r->session.hooks = (struct cas__session_hooks){.ctx = &r->journal, .on_action = record_action};
    r->out = open_memstream(&r->output, &r->output_len);
    assert_non_null(r->out);
    r->session.out = r->out;
    r->session.viewer = viewer;
}

static void finish_game(struct game_run *r)
{
    fclose(r->out);
    r->out = NULL;
}

static void close_game(struct game_run *r)
{
    if (r->out)
        fclose(r->out);
    cas__session_free(&r->session);
    for (int p = 0; p < 4; p++)
        cas__agent_free(r->agents[p]);
    cas__match_close(&r->match);
    free(r->output);
}

static void play_game(struct game_run *r, int nplayers, const char *kind, uint64_t seed,
                      int viewer)
{
    start_game(r, nplayers, kind, seed, viewer);
    int rc = cas__session_run(&r->session);
    if (rc != CAS_OK)
        fail_msg("session failed (%d): %s", rc, r->session.error);
    finish_game(r);
}

static void test_game_runs_to_the_end(void **unused)
{
    (void)unused;
    struct game_run r;
    play_game(&r, 3, "random", 7, CAS_VIEWER_PUBLIC);
    assert_int_equal(r.match.vt->current(r.session.state), CAS_ACTOR_TERMINAL);
    assert_int_equal(r.session.ply, r.journal.n);
    assert_true(r.journal.n > 24); /* 24 cards dealt or drawn, then played */
    assert_int_equal(cas__session_step(&r.session), CAS_ETERMINAL);
    assert_non_null(strstr(r.output, "fixture, 3 players, seed 7\n"));
    assert_non_null(strstr(r.output, "Game over after"));
    assert_non_null(strstr(r.output, "Scores:"));
    assert_non_null(strstr(r.output, "winner"));
    close_game(&r);
}

/* Whether `output` tells the card `label` drew ("Red draws a 7"). */
static int shows_private_draw(const char *output, const char *label)
{
    char prefix[32];
    size_t len = (size_t)snprintf(prefix, sizeof prefix, "%s draws a ", label);
    for (const char *at = strstr(output, prefix); at; at = strstr(at + 1, prefix))
        if (at[len] >= '0' && at[len] <= '9')
            return 1;
    return 0;
}

/* Chance outcomes are drawn by the host and never printed as moves; a
 * public log shows no private event. */
static void test_public_output_hides_private_events(void **unused)
{
    (void)unused;
    struct game_run r;
    play_game(&r, 2, "random", 11, CAS_VIEWER_PUBLIC);
    int draws = 0;
    for (uint32_t i = 0; i < r.journal.n; i++)
        draws += r.journal.actor[i] == CAS_ACTOR_CHANCE;
    assert_int_equal(draws, 24);
    assert_null(strstr(r.output, ": draw "));
    assert_false(shows_private_draw(r.output, "Red"));
    assert_false(shows_private_draw(r.output, "Blue"));
    assert_non_null(strstr(r.output, "Red draws a card"));
    close_game(&r);
}

/* A player's own screen shows their draws and nobody else's. */
static void test_player_output_shows_own_draws_only(void **unused)
{
    (void)unused;
    struct game_run r;
    play_game(&r, 2, "random", 11, 1);
    assert_true(shows_private_draw(r.output, "Blue"));
    assert_false(shows_private_draw(r.output, "Red"));
    close_game(&r);
}

static int is_block_decision(const char *text)
{
    return strncmp(text, "block ", 6) == 0 || strcmp(text, "pass") == 0;
}

/* The block decision is asked of the player before the one who climbed,
 * out of turn, and printed as that player's move. */
static void test_out_of_turn_block_is_asked(void **unused)
{
    (void)unused;
    int seen = 0;
    for (uint64_t seed = 1; seed <= 5; seed++) {
        struct game_run r;
        play_game(&r, 3, "random", seed, CAS_VIEWER_PUBLIC);
        for (uint32_t i = 1; i < r.journal.n; i++) {
            if (!is_block_decision(r.journal.text[i]))
                continue;
            assert_true(strncmp(r.journal.text[i - 1], "play ", 5) == 0);
            assert_int_equal(r.journal.actor[i], (r.journal.actor[i - 1] + 2) % 3);
            seen++;
        }
        close_game(&r);
    }
    assert_true(seen > 0);
}

static void assert_same_journal(const struct journal *a, const struct journal *b)
{
    assert_int_equal(a->n, b->n);
    for (uint32_t i = 0; i < a->n; i++) {
        assert_string_equal(a->text[i], b->text[i]);
        assert_int_equal(a->hash[i], b->hash[i]);
    }
}

static void test_same_seed_same_game(void **unused)
{
    (void)unused;
    static const char *const kinds[] = {"random", "greedy"};
    for (int k = 0; k < 2; k++) {
        struct game_run a, b, c;
        play_game(&a, 3, kinds[k], 42, CAS_VIEWER_PUBLIC);
        play_game(&b, 3, kinds[k], 42, CAS_VIEWER_PUBLIC);
        play_game(&c, 3, kinds[k], 43, CAS_VIEWER_PUBLIC);
        assert_same_journal(&a.journal, &b.journal);
        assert_string_equal(a.output, b.output);
        assert_true(a.journal.n != c.journal.n ||
                    memcmp(a.journal.hash, c.journal.hash, a.journal.n * sizeof a.journal.hash[0]));
        close_game(&a);
        close_game(&b);
        close_game(&c);
    }
}

/* A game replays from its journal with every hash checked; a wrong hash
 * or a wrong action is reported. */
static void test_replay_checks_hashes(void **unused)
{
    (void)unused;
    struct game_run r, again;
    play_game(&r, 2, "random", 5, CAS_VIEWER_PUBLIC);
    start_game(&again, 2, "random", 5, CAS_VIEWER_PUBLIC);
    again.session.out = NULL;
    for (uint32_t i = 0; i < r.journal.n; i++)
        assert_int_equal(cas__session_replay(&again.session, r.journal.text[i],
                                             r.journal.hash[i], 1), CAS_OK);
    assert_int_equal(again.session.hash, r.session.hash);
    assert_int_equal(again.journal.n, 0); /* replays are not journaled again */
    close_game(&again);

    start_game(&again, 2, "random", 5, CAS_VIEWER_PUBLIC);
    assert_int_equal(cas__session_replay(&again.session, r.journal.text[0],
                                         r.journal.hash[0] ^ 1, 1), CAS_EMISMATCH);
    assert_non_null(strstr(again.session.error, "diverged"));
    assert_int_equal(cas__session_replay(&again.session, "play 99", 0, 0), CAS_EPARSE);
    assert_non_null(strstr(again.session.error, "play 99"));
    assert_int_equal(cas__session_replay(&again.session, r.journal.text[1], 0, 0), CAS_OK);
    close_game(&again);
    close_game(&r);
}

/* Resuming at ply N continues exactly as the uninterrupted game. */
static void test_resume_continues_the_same_game(void **unused)
{
    (void)unused;
    struct game_run whole, resumed;
    play_game(&whole, 3, "greedy", 9, CAS_VIEWER_PUBLIC);
    start_game(&resumed, 3, "greedy", 9, CAS_VIEWER_PUBLIC);
    uint32_t half = whole.journal.n / 2;
    for (uint32_t i = 0; i < half; i++)
        assert_int_equal(cas__session_replay(&resumed.session, whole.journal.text[i],
                                             whole.journal.hash[i], 1), CAS_OK);
    resumed.journal = whole.journal;
    resumed.journal.n = half;
    assert_int_equal(cas__session_run(&resumed.session), CAS_OK);
    finish_game(&resumed);
    assert_same_journal(&whole.journal, &resumed.journal);
    assert_non_null(strstr(resumed.output, "resuming at ply"));
    close_game(&resumed);
    close_game(&whole);
}

/* A hook that fails stops the session with its code. */
static void test_failing_hook_stops_the_session(void **unused)
{
    (void)unused;
    struct game_run r;
    start_game(&r, 2, "random", 3, CAS_VIEWER_PUBLIC);
    r.journal.stop_at = 4;
    assert_int_equal(cas__session_run(&r.session), CAS_EIO);
    assert_int_equal(r.session.ply, 5);
    assert_string_equal(r.session.error, "action 4 \"draw 3\" could not be saved: the "
                                         "disk is full");
    assert_false(r.session.quit);
    close_game(&r);
}

static void test_missing_agent_is_an_error(void **unused)
{
    (void)unused;
    struct game_run r;
    start_game(&r, 2, "random", 3, CAS_VIEWER_PUBLIC);
    r.session.agents = NULL;
    int rc;
    while ((rc = cas__session_step(&r.session)) == CAS_OK)
        ;
    assert_int_equal(rc, CAS_EINVAL);
    assert_non_null(strstr(r.session.error, "nobody plays seat 0"));
    close_game(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_game_runs_to_the_end),
        cmocka_unit_test(test_public_output_hides_private_events),
        cmocka_unit_test(test_player_output_shows_own_draws_only),
        cmocka_unit_test(test_out_of_turn_block_is_asked),
        cmocka_unit_test(test_same_seed_same_game),
        cmocka_unit_test(test_replay_checks_hashes),
        cmocka_unit_test(test_resume_continues_the_same_game),
        cmocka_unit_test(test_failing_hook_stops_the_session),
        cmocka_unit_test(test_missing_agent_is_an_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
