/*
 * test_mcts.c — the mcts agent: legal actions only in every game plugin
 * (out-of-turn and hidden-information decisions included), no peeking at
 * hidden state (a test game whose secret would decide the choice if it
 * leaked), iteration budgets kept exactly, the same choices for the same
 * seed and thread count (root and tree parallelization), chance by ticket
 * and by listing alike, the margin reward, tree reuse, and the spec names.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "agent.h"
#include "match_support.h"
#include "mcts.h"
#include "prng.h"
#include "session.h"
#include "target.h"

/* ------------------------------------------------ the secret game */

/* "Secret": chance deals a number 0..3 that only seat 1 may see; seat 0
 * then guesses it and scores 1 when right.  An agent that read the number
 * would always guess it; one that only sees seat 0's view cannot do better
 * than any fixed guess, and must guess the same whatever the number. */
#define SECRETS 4

struct cas_game {
    const struct cas_host *host;
};

struct cas_state {
    const cas_game *game;
    int dealt;  /* 0 before the deal */
    int secret; /* 0..SECRETS-1 once dealt */
    int guess;  /* -1 until seat 0 guesses */
};

static int secret_game_new(const struct cas_host *host, const struct cas_game_params *params,
                           cas_game **out, size_t *bad)
{
    (void)params;
    (void)bad;
    *out = calloc(1, sizeof **out);
    if (!*out)
        return CAS_ENOMEM;
    (*out)->host = host;
    return CAS_OK;
}

static void secret_game_free(cas_game *g) { free(g); }

static int secret_state_new(const cas_game *g, cas_state **out)
{
    *out = calloc(1, sizeof **out);
    if (!*out)
        return CAS_ENOMEM;
    **out = (cas_state){.game = g, .guess = -1};
    return CAS_OK;
}

static void secret_state_free(cas_state *s) { free(s); }

static int secret_state_copy(cas_state *dst, const cas_state *src)
{
    *dst = *src;
    return CAS_OK;
}

static int secret_state_clone(const cas_state *s, cas_state **out)
{
    *out = malloc(sizeof **out);
    if (!*out)
        return CAS_ENOMEM;
    **out = *s;
    return CAS_OK;
}

static int secret_current(const cas_state *s)
{
    return !s->dealt ? CAS_ACTOR_CHANCE : s->guess < 0 ? 0 : CAS_ACTOR_TERMINAL;
}

static int secret_legal(const cas_state *s, cas_action *buf, size_t cap, size_t *count)
{
    *count = secret_current(s) == CAS_ACTOR_TERMINAL ? 0 : SECRETS;
    if (*count > cap)
        return CAS_ENOSPC;
    for (size_t i = 0; i < *count; i++)
        buf[i] = i;
    return CAS_OK;
}

static int secret_outcomes(const cas_state *s, struct cas_outcome *buf, size_t cap,
                           size_t *count)
{
    if (s->dealt)
        return CAS_EINVAL;
    *count = SECRETS;
    if (cap < SECRETS)
        return CAS_ENOSPC;
    for (int i = 0; i < SECRETS; i++)
        buf[i] = (struct cas_outcome){(cas_action)i, 1};
    return CAS_OK;
}

static int secret_apply(cas_state *s, cas_action a, const struct cas_event_sink *events)
{
    (void)events;
    if (a >= SECRETS || secret_current(s) == CAS_ACTOR_TERMINAL)
        return CAS_EILLEGAL;
    if (!s->dealt) {
        s->dealt = 1;
        s->secret = (int)a;
    } else {
        s->guess = (int)a;
    }
    return CAS_OK;
}

static int secret_text(const cas_state *s, cas_action a, char *buf, size_t cap)
{
    return snprintf(buf, cap, "%s %d", s->dealt ? "guess" : "deal", (int)a);
}

static int secret_parse(const cas_state *s, const char *text, cas_action *out)
{
    int v;
    if (sscanf(text, s->dealt ? "guess %d" : "deal %d", &v) != 1 || v < 0 || v >= SECRETS)
        return CAS_EPARSE;
    *out = (cas_action)v;
    return CAS_OK;
}

static int secret_returns(const cas_state *s, int64_t *scores, size_t n)
{
    if (n < 2)
        return CAS_EINVAL;
    scores[0] = s->guess == s->secret;
    scores[1] = 0;
    return CAS_OK;
}

static int secret_serialize(const cas_state *s, enum cas_serial_purpose p, uint8_t *buf,
                            size_t cap, size_t *len)
{
    (void)p;
    *len = 4;
    if (cap < 4)
        return CAS_ENOSPC;
    buf[0] = 1;
    buf[1] = (uint8_t)s->dealt;
    buf[2] = (uint8_t)s->secret;
    buf[3] = (uint8_t)(s->guess + 1);
    return CAS_OK;
}

static int secret_deserialize(const cas_game *g, const uint8_t *buf, size_t len,
                              cas_state **out)
{
    if (len != 4 || buf[0] != 1)
        return CAS_ECORRUPT;
    int rc = secret_state_new(g, out);
    if (rc == CAS_OK)
        **out = (cas_state){.game = g, .dealt = buf[1], .secret = buf[2], .guess = buf[3] - 1};
    return rc;
}

static uint64_t secret_hash(const cas_state *s)
{
    return (uint64_t)s->dealt * 1000003u + (uint64_t)s->secret * 1009u + (uint64_t)s->guess;
}

static int secret_render(const cas_state *s, int viewer, enum cas_render_format f,
                         const struct cas_writer *out)
{
    (void)f;
    if (viewer == 1 || viewer == CAS_VIEWER_OMNISCIENT)
        return cas_writef(out, "secret %d\n", s->secret);
    return cas_writef(out, "secret hidden\n");
}

static const char *secret_label(const cas_game *g, int p)
{
    (void)g;
    return p == 0 ? "Guesser" : "Keeper";
}

/* Seat 0 does not see the number: any of them, uniformly. */
static int secret_determinize(const cas_state *s, int viewer, const struct cas_rng *rng,
                              cas_state *out)
{
    *out = *s;
    if (viewer != 1 && s->dealt)
        out->secret = (int)rng->below(rng->ctx, SECRETS);
    return CAS_OK;
}

static struct cas_game_vtable secret_vtable = {
    .struct_size = sizeof(struct cas_game_vtable),
    .game_new = secret_game_new, .game_free = secret_game_free,
    .state_new = secret_state_new, .state_free = secret_state_free,
    .state_clone = secret_state_clone, .state_copy = secret_state_copy,
    .current = secret_current, .legal_actions = secret_legal,
    .chance_outcomes = secret_outcomes, .apply = secret_apply,
    .action_text = secret_text, .parse_action = secret_parse,
    .returns = secret_returns, .serialize = secret_serialize,
    .deserialize = secret_deserialize, .hash = secret_hash, .render = secret_render,
    .player_label = secret_label, .determinize = secret_determinize,
};

static const struct cas_plugin secret_plugin = {
    .struct_size = sizeof(struct cas_plugin), .abi_major = CAS_ABI_MAJOR,
    .abi_minor = CAS_ABI_MINOR, .fingerprint = CAS_BUILD_FINGERPRINT, .id = "secret",
    .version = "1.0.0", .kind = CAS_KIND_GAME, .min_players = 2, .max_players = 2,
    .game = &secret_vtable,
};

/* "Margins": the secret game with the secret out in the open and guess g
 * ending the game at fixed scores: 0 and 1 both win (by 1 and by 25), 2 and
 * 3 lose.  A win-only reward cannot tell 0 from 1; a margin reward must
 * take 1. */
static const int64_t margin_scores[SECRETS][2] = {{10, 9}, {30, 5}, {5, 6}, {9, 10}};

static int margin_returns(const cas_state *s, int64_t *scores, size_t n)
{
    if (n < 2)
        return CAS_EINVAL;
    scores[0] = s->guess < 0 ? 0 : margin_scores[s->guess][0];
    scores[1] = s->guess < 0 ? 0 : margin_scores[s->guess][1];
    return CAS_OK;
}

/* ------------------------------------------------------- helpers */

static struct cas__mcts_params params_of(uint64_t iterations, unsigned threads)
{
    struct cas__mcts_params p;
    cas__mcts_level(CAS__LEVEL_MEDIUM, threads, &p);
    p.iterations = iterations;
    return p;
}

static struct cas__mcts_params tree_params_of(uint64_t iterations, unsigned threads)
{
    struct cas__mcts_params p = params_of(iterations, threads);
    p.parallel = CAS__PARALLEL_TREE;
    return p;
}

/* What a fresh search with p picks in `state` at (seed, ply). */
static cas_action search_once(struct cas__match *m, const cas_state *state,
                              const struct cas__mcts_params *p, uint64_t seed, uint32_t ply,
                              struct cas__mcts_stats *stats)
{
    struct cas__actions legal = {0};
    struct cas__mcts *search;
    cas_action choice = 0;
    assert_int_equal(cas__match_legal(m, state, &legal), CAS_OK);
    assert_int_equal(cas__mcts_new(p, &search), CAS_OK);
    struct cas__decision d = {
        .match = m, .state = state, .player = m->vt->current(state), .player_name = "T",
        .seed = seed, .ply = ply, .legal = &legal,
    };
    assert_int_equal(cas__mcts_choose(search, &d, &choice), CAS_OK);
    if (stats)
        *stats = *cas__mcts_last(search);
    cas__mcts_free(search);
    cas__actions_free(&legal);
    return choice;
}

/* The secret game dealt `secret`, at seat 0's guess. */
static cas_state *dealt(struct cas__match *m, int secret)
{
    cas_state *s;
    assert_int_equal(m->vt->state_new(m->game, &s), CAS_OK);
    assert_int_equal(m->vt->apply(s, (cas_action)secret, NULL), CAS_OK);
    return s;
}

/* ----------------------------------------------------- no peeking */

static void test_the_secret_does_not_change_the_choice(void **unused)
{
    (void)unused;
    struct cas__match m;
    cas_test_match_open(&m, &secret_plugin, 2, NULL);
    cas_state *states[SECRETS];
    for (int v = 0; v < SECRETS; v++)
        states[v] = dealt(&m, v);
    for (unsigned threads = 1; threads <= 2; threads++) {
        struct cas__mcts_params p = params_of(200, threads);
        int differs_from_first = 0;
        for (uint64_t seed = 1; seed <= 12; seed++) {
            cas_action first = search_once(&m, states[0], &p, seed, 1, NULL);
            for (int v = 1; v < SECRETS; v++)
                assert_int_equal(search_once(&m, states[v], &p, seed, 1, NULL), first);
            differs_from_first += first != search_once(&m, states[0], &p, 1, 1, NULL);
        }
        /* the guess does follow the seed: the test is not vacuous */
        assert_true(differs_from_first > 0);
    }
    for (int v = 0; v < SECRETS; v++)
        m.vt->state_free(states[v]);
    cas__match_close(&m);
}

/* The control: without determinize the agent searches the real state, and
 * then it always guesses right.  This is what the test above would catch. */
static void test_without_determinize_the_secret_leaks(void **unused)
{
    (void)unused;
    struct cas__match m;
    cas_test_match_open(&m, &secret_plugin, 2, NULL);
    secret_vtable.determinize = NULL;
    struct cas__mcts_params p = params_of(200, 1);
    for (int v = 0; v < SECRETS; v++) {
        cas_state *s = dealt(&m, v);
        assert_int_equal(search_once(&m, s, &p, 7, 1, NULL), (cas_action)v);
        m.vt->state_free(s);
    }
    secret_vtable.determinize = secret_determinize;
    cas__match_close(&m);
}

/* ------------------------------------------------ every game plugin */

struct game_case {
    const char *game, *expansions;
    struct cas__mcts_params params;
};

/* An mcts agent whose every choice is checked: one of the listed legal
 * actions, after exactly the budgeted iterations. */
struct checked {
    struct cas__agent base;
    struct cas__agent *bot;
    uint64_t iterations, reused;
};

static int checked_choose(struct cas__agent *agent, const struct cas__decision *d,
                          cas_action *out)
{
    struct checked *c = (struct checked *)agent;
    int rc = cas__agent_choose(c->bot, d, out);
    assert_int_equal(rc, CAS_OK);
    int found = 0;
    for (size_t i = 0; i < d->legal->count; i++)
        found |= d->legal->items[i] == *out;
    assert_true(found);
    const struct cas__mcts_stats *st = cas__agent_mcts_stats(c->bot);
    assert_int_equal(st->iterations, c->iterations);
    c->reused += st->reused;
    return rc;
}

static const struct cas__agent_ops checked_ops = {.kind = "checked", .choose = checked_choose};

/* One game of `c` between an mcts agent in seat 0 (fresh, so its tree is
 * reused along this game only) and random.  Returns the final hash;
 * *reused sums the root visits carried over from decision to decision. */
static uint64_t play_one(struct cas__match *m, const struct game_case *c, uint64_t seed,
                         uint64_t *reused)
{
    struct checked bot = {.base.ops = &checked_ops, .iterations = c->params.iterations};
    struct cas__agent *random;
    struct cas__session s;
    assert_int_equal(cas__agent_mcts_new(&c->params, &bot.bot), CAS_OK);
    assert_int_equal(cas__agent_new("random", &random), CAS_OK);
    struct cas__agent *seats[2] = {&bot.base, random};
    assert_int_equal(cas__session_init(&s, m, seed, seats, NULL), CAS_OK);
    if (cas__session_run(&s) != CAS_OK)
        fail_msg("%s: %s", c->game, s.error);
    uint64_t hash = s.hash;
    *reused = bot.reused;
    cas__session_free(&s);
    cas__agent_free(bot.bot);
    cas__agent_free(random);
    return hash;
}

static void open_game(struct cas__target *t, struct cas__match *m, const struct game_case *c)
{
    char err[1024];
    struct cas__target_request req = {
        .plugin_path = PLUGIN_DIR, .game = c->game, .game_flag = "--game",
        .expansions = c->expansions,
    };
    if (cas__target_open(t, &req, err, sizeof err) != CAS_OK ||
        cas__target_match(t, m, 2, err, sizeof err) != CAS_OK)
        fail_msg("%s: %s", c->game, err);
}

static void test_legal_and_reproducible_in_every_game(void **unused)
{
    (void)unused;
    struct game_case cases[] = {
        {"fixture", NULL, params_of(60, 1)},
        {"fixture", NULL, params_of(60, 2)},
        {"castles-cards", NULL, params_of(20, 2)},
        {"carcassonne", NULL, params_of(30, 1)},
        {"carcassonne", "inns-cathedrals,traders-builders", params_of(30, 2)},
        {"fixture", NULL, tree_params_of(60, 2)},
        {"castles-cards", NULL, tree_params_of(20, 3)},
        {"carcassonne", "inns-cathedrals,traders-builders", tree_params_of(31, 2)},
    };
    cases[1].params.rollout = CAS__ROLLOUT_GREEDY;
    cases[2].params.rollout_limit = 0;
    cases[3].params.rollout_limit = 0; /* random playouts to the end */
    cases[4].params.reward = CAS__REWARD_WIN;
    cases[6].params.rollout_limit = 0;
    cases[7].params.rollout = CAS__ROLLOUT_GREEDY;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct cas__target t;
        struct cas__match m;
        uint64_t reused, again_reused;
        open_game(&t, &m, &cases[i]);
        uint64_t hash = play_one(&m, &cases[i], 5 + i, &reused);
        assert_int_equal(play_one(&m, &cases[i], 5 + i, &again_reused), hash);
        assert_int_equal(again_reused, reused);
        /* perfect information (Carcassonne): the next position's subtree is
         * kept; hidden state (the others): never */
        if (strcmp(cases[i].game, "carcassonne") == 0)
            assert_true(reused > 0);
        else
            assert_int_equal(reused, 0);
        cas__match_close(&m);
        cas__target_close(&t);
    }
}

/* ---------------------------------------------- budgets and seeds */

static void test_iteration_budget_is_exact(void **unused)
{
    (void)unused;
    struct cas__match m;
    cas_test_match_open(&m, &secret_plugin, 2, NULL);
    cas_state *s = dealt(&m, 2);
    for (unsigned threads = 1; threads <= 3; threads++) {
        struct cas__mcts_stats st;
        struct cas__mcts_params p = params_of(1001, threads);
        search_once(&m, s, &p, 3, 1, &st);
        assert_int_equal(st.iterations, 1001);
        assert_true(st.determinized);
        /* every iteration adds at most one node to one tree */
        assert_true(st.nodes <= 1001 + threads);
        p = tree_params_of(1001, threads);
        search_once(&m, s, &p, 3, 1, &st);
        assert_int_equal(st.iterations, 1001);
        assert_true(st.nodes <= 1001 + 1); /* one shared tree */
    }
    m.vt->state_free(s);
    cas__match_close(&m);
}

/* A time budget ends the search on the clock; what is asserted holds
 * however fast the machine is: a legal choice from whole iterations. */
static void test_time_budget_ends(void **unused)
{
    (void)unused;
    struct cas__match m;
    struct cas__mcts_stats st;
    cas_test_match_open(&m, &secret_plugin, 2, NULL);
    cas_state *s = dealt(&m, 0);
    struct cas__mcts_params p = params_of(0, 2);
    p.millis = 1;
    assert_true(search_once(&m, s, &p, 5, 1, &st) < SECRETS);
    assert_true(st.iterations >= 2); /* each thread checks the clock after some */
    p.parallel = CAS__PARALLEL_TREE;
    assert_true(search_once(&m, s, &p, 5, 1, &st) < SECRETS);
    assert_true(st.iterations >= 2); /* worker 0 ends a round, never the first */
    p.iterations = 0;
    p.millis = 0;
    struct cas__mcts *search;
    assert_int_equal(cas__mcts_new(&p, &search), CAS_EINVAL);
    m.vt->state_free(s);
    cas__match_close(&m);
}

/* Carcassonne's first decision of seed 9 into *s (the ply in *ply). */
static cas_state *first_decision(struct cas__match *m, uint32_t *ply)
{
    struct cas__actions list = {0};
    cas_state *s;
    assert_int_equal(m->vt->state_new(m->game, &s), CAS_OK);
    *ply = 0;
    while (m->vt->current(s) == CAS_ACTOR_CHANCE)
        assert_int_equal(cas__random_step(m, s, &list, 9, (*ply)++), CAS_OK);
    cas__actions_free(&list);
    return s;
}

/* The same choice, from the same tree, for the same seed and thread count:
 * root parallelization grows a tree per thread from its own sub-stream;
 * tree parallelization shares one tree between threads that take turns in
 * a fixed order. */
static void test_same_seed_same_search(void **unused)
{
    (void)unused;
    static const enum cas__mcts_parallel modes[] = {CAS__PARALLEL_ROOT, CAS__PARALLEL_TREE};
    struct game_case c = {"carcassonne", NULL, params_of(300, 2)};
    struct cas__target t;
    struct cas__match m;
    uint32_t ply;
    open_game(&t, &m, &c);
    cas_state *s = first_decision(&m, &ply);
    for (size_t mode = 0; mode < sizeof modes / sizeof modes[0]; mode++)
        for (unsigned threads = 2; threads <= 3; threads++) {
            c.params.parallel = modes[mode];
            c.params.threads = threads;
            for (uint64_t seed = 1; seed <= 3; seed++) {
                struct cas__mcts_stats first, again;
                cas_action a = search_once(&m, s, &c.params, seed, ply, &first);
                for (int run = 0; run < 3; run++) {
                    assert_int_equal(search_once(&m, s, &c.params, seed, ply, &again), a);
                    assert_int_equal(again.nodes, first.nodes);
                    assert_int_equal(again.iterations, 300);
                }
            }
        }
    m.vt->state_free(s);
    cas__match_close(&m);
    cas__target_close(&t);
}

/* Carcassonne picks chance outcomes from a ticket; listing them and walking
 * the weights with the same ticket must give the same outcomes, so the
 * same searches and games, both ways. */
static void test_chance_by_ticket_as_by_listing(void **unused)
{
    (void)unused;
    struct game_case cases[] = {
        {"carcassonne", NULL, params_of(40, 1)},
        {"carcassonne", "inns-cathedrals,traders-builders", tree_params_of(40, 2)},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct cas__target t;
        struct cas__match m;
        uint64_t reused[2], hash[2];
        size_t nodes[2];
        uint32_t ply;
        open_game(&t, &m, &cases[i]);
        cas_state *s = first_decision(&m, &ply);
        for (int generic = 0; generic <= 1; generic++) {
            struct cas__mcts_stats st;
            m.generic_chance = generic;
            assert_int_equal(cas__match_picks_chance(&m), !generic);
            hash[generic] = search_once(&m, s, &cases[i].params, 3, ply, &st);
            nodes[generic] = st.nodes;
            hash[generic] = hash[generic] * 1000003u + play_one(&m, &cases[i], 11, &reused[generic]);
        }
        assert_int_equal(hash[0], hash[1]);
        assert_int_equal(nodes[0], nodes[1]);
        assert_int_equal(reused[0], reused[1]);
        m.vt->state_free(s);
        cas__match_close(&m);
        cas__target_close(&t);
    }
}

/* A win by 25 and a win by 1 are the same to a win-only reward; +margin
 * takes the bigger one, and neither reward ever takes a loss. */
static void test_margin_reward_prefers_the_bigger_win(void **unused)
{
    (void)unused;
    struct cas_game_vtable margin_vtable = secret_vtable;
    struct cas_plugin margin_plugin = secret_plugin;
    margin_vtable.returns = margin_returns;
    margin_vtable.determinize = NULL;
    margin_plugin.game = &margin_vtable;
    struct cas__match m;
    cas_test_match_open(&m, &margin_plugin, 2, NULL);
    cas_state *s = dealt(&m, 0);
    int took_the_small_win = 0;
    for (unsigned threads = 1; threads <= 2; threads++)
        for (uint64_t seed = 1; seed <= 8; seed++) {
            struct cas__mcts_params p = params_of(200, threads);
            p.reward = CAS__REWARD_MARGIN;
            assert_int_equal(search_once(&m, s, &p, seed, 1, NULL), 1);
            p.reward = CAS__REWARD_WIN;
            cas_action a = search_once(&m, s, &p, seed, 1, NULL);
            assert_true(a == 0 || a == 1);
            took_the_small_win += a == 0;
        }
    /* the win-only bot does not find the big win by itself: the margin
     * test above is not vacuous */
    assert_true(took_the_small_win > 0);
    m.vt->state_free(s);
    cas__match_close(&m);
}

/* -------------------------------------------------------- specs */

static void test_specs_make_searches(void **unused)
{
    (void)unused;
    static const char *const good[] = {"mcts", "mcts-easy", "mcts-hard", "mcts@2000",
                                       "mcts@500ms", "mcts-medium@30/2", "mcts/1",
                                       "mcts-hard+greedy", "mcts@30/2+tree+margin"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        struct cas__agent *a;
        assert_int_equal(cas__agent_new(good[i], &a), CAS_OK);
        assert_string_equal(a->ops->kind, "mcts");
        cas__agent_free(a);
    }
    struct cas__agent *a;
    assert_int_equal(cas__agent_new("mcts-expert", &a), CAS_ENOTFOUND);
    assert_int_equal(cas__agent_new("mcts@0", &a), CAS_ENOTFOUND);

    struct cas__agent_spec spec;
    struct cas__mcts_params p;
    char err[512];
    assert_int_equal(cas__agent_spec_parse("mcts-hard@500ms/3", "x", &spec, err, sizeof err),
                     CAS_OK);
    cas__mcts_from_spec(&spec, &p);
    assert_int_equal(p.millis, 500);
    assert_int_equal(p.iterations, 0);
    assert_int_equal(p.threads, 3);
    assert_int_equal(p.rollout, CAS__ROLLOUT_RANDOM);
    assert_int_equal(p.parallel, CAS__PARALLEL_ROOT);
    assert_int_equal(cas__agent_spec_parse("mcts-easy+greedy+tree+win", "x", &spec, err,
                                           sizeof err), CAS_OK);
    cas__mcts_from_spec(&spec, &p);
    assert_int_equal(p.iterations, 200);
    assert_int_equal(p.rollout, CAS__ROLLOUT_GREEDY);
    assert_int_equal(p.parallel, CAS__PARALLEL_TREE);
    assert_int_equal(p.reward, CAS__REWARD_WIN);
    struct cas__mcts_params easy, medium, hard;
    cas__mcts_level(CAS__LEVEL_EASY, 1, &easy);
    cas__mcts_level(CAS__LEVEL_MEDIUM, 1, &medium);
    cas__mcts_level(CAS__LEVEL_HARD, 1, &hard);
    assert_true(easy.iterations < medium.iterations && medium.iterations < hard.iterations);
    assert_int_equal(cas__agent_spec_parse("mcts", "x", &spec, err, sizeof err), CAS_OK);
    assert_int_equal(spec.level, CAS__LEVEL_MEDIUM);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_secret_does_not_change_the_choice),
        cmocka_unit_test(test_without_determinize_the_secret_leaks),
        cmocka_unit_test(test_legal_and_reproducible_in_every_game),
        cmocka_unit_test(test_iteration_budget_is_exact),
        cmocka_unit_test(test_time_budget_ends),
        cmocka_unit_test(test_same_seed_same_search),
        cmocka_unit_test(test_chance_by_ticket_as_by_listing),
        cmocka_unit_test(test_margin_reward_prefers_the_bigger_win),
        cmocka_unit_test(test_specs_make_searches),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
