/*
 * cmd_tournament.c — `castellan tournament`: two agents play N seeded
 * games of one game (tournament.c); the first agent's win rate with its
 * Wilson interval and the mean score difference.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent_spec.h"
#include "cli.h"
#include "commands.h"
#include "target.h"
#include "tournament.h"

static const char usage[] =
    "usage: castellan tournament --agents A,B [--game ID] [--expansions a,b]\n"
    "                            [--rule NAME=VALUE ...] [--games N] [--seed S]\n"
    "                            [--plugin-path DIR[:DIR...]]\n"
    "\n"
    "Plays N games (default 100) of the game ID (default carcassonne) between\n"
    "the agents A and B, two players, and prints A's wins, draws and losses, its\n"
    "win rate (a draw counts half) with a 95% Wilson interval, and the mean\n"
    "difference of A's score minus B's with its 95% interval.  Game i is seeded\n"
    "S + i/2 (default S = 1) and A sits first in even games and second in odd\n"
    "ones, so each seed is played from both seats.  Agents are given as to\n"
    "castellan play (random, greedy, mcts-hard, mcts@1000/1, ...), not human;\n"
    "give search bots an iteration budget and a thread count (mcts@1000/1) for a\n"
    "result that repeats.  Rules are checked as castellan play checks them.\n"
    "Progress goes to stderr: after every game on a terminal, every 10 games\n"
    "otherwise.\n";

struct tournament_args {
    const char *agents, *game, *expansions, *games, *seed, *plugin_path;
    struct cas__strlist rules;
};

/* "A,B" into two validated bot specs; an exit status. */
static int split_agents(const char *text, char *a, char *b, size_t cap)
{
    const char *comma = text ? strchr(text, ',') : NULL;
    char err[512];
    struct cas__agent_spec spec;
    if (!comma || strchr(comma + 1, ',') || (size_t)(comma - text) >= cap ||
        strlen(comma + 1) >= cap) {
        fprintf(stderr, "castellan tournament: --agents takes two agents, A,B (e.g. "
                        "--agents mcts@1000/1,greedy)\n");
        return 2;
    }
    snprintf(a, cap, "%.*s", (int)(comma - text), text);
    snprintf(b, cap, "%s", comma + 1);
    for (const char *agent = a; agent; agent = agent == a ? b : NULL) {
        if (cas__agent_spec_parse_bot(agent, "--agents", &spec, err, sizeof err) != CAS_OK) {
            fprintf(stderr, "castellan tournament: %s\n", err);
            return 2;
        }
        if (strcmp(spec.kind, "human") == 0) {
            fprintf(stderr, "castellan tournament: --agents: human cannot play a "
                            "tournament; use " CAS__BOT_SYNTAX "\n");
            return 2;
        }
    }
    return 0;
}

/* On a terminal one line rewritten after each game; elsewhere (a log of a
 * long run) a line every PROGRESS_EVERY games, so a stopped run still says
 * how far it got. */
#define PROGRESS_EVERY 10

static void show_progress(void *ctx, const struct cas__tournament_result *r, int total)
{
    int tty = *(const int *)ctx;
    if (!tty && r->games % PROGRESS_EVERY != 0 && r->games != total)
        return;
    fprintf(stderr, "%s  game %d/%d: %d wins, %d draws, %d losses, score difference %+.0f%s",
            tty ? "\r" : "", r->games, total, r->wins, r->draws, r->losses, r->diff_sum,
            tty && r->games < total ? "" : "\n");
}

static void report(const struct cas__tournament *t, const struct cas__tournament_result *r)
{
    double n = r->games, rate = cas__tournament_rate(r), low, high;
    cas__wilson(rate, n, 1.96, &low, &high);
    double mean = r->diff_sum / n;
    double var = n > 1 ? (r->diff_squares - n * mean * mean) / (n - 1) : 0;
    double half = n > 1 ? 1.96 * sqrt(var > 0 ? var : 0) / sqrt(n) : 0;
    printf("  %s vs %s\n", t->agent_a, t->agent_b);
    printf("  %s: %d wins, %d draws, %d losses of %d games\n", t->agent_a, r->wins, r->draws,
           r->losses, r->games);
    printf("  win rate %.1f%% (95%% Wilson interval %.1f%% to %.1f%%; a draw counts half)\n",
           100 * rate, 100 * low, 100 * high);
    printf("  score difference %+.1f on average (95%% interval %+.1f to %+.1f); mean scores "
           "%.1f to %.1f\n",
           mean, mean - half, mean + half, r->a_sum / n, r->b_sum / n);
    printf("  %s: %.1f ms a decision over %llu decisions\n", t->agent_a,
           r->a_decisions ? 1000 * r->a_seconds / (double)r->a_decisions : 0.0,
           (unsigned long long)r->a_decisions);
}

static int run(const struct tournament_args *a)
{
    char agent_a[128], agent_b[128], err[1024];
    uint64_t games = 100, seed = 1;
    int status = split_agents(a->agents, agent_a, agent_b, sizeof agent_a);
    if (status == 0 && a->games)
        status = cas__cli_number("tournament", "--games", a->games, 1, 1000000, &games);
    if (status == 0 && a->seed)
        status = cas__cli_number("tournament", "--seed", a->seed, 0, UINT64_MAX / 2, &seed);
    if (status)
        return status;
    struct cas__target target;
    struct cas__target_request req = {
        .plugin_path = a->plugin_path, .game = a->game ? a->game : "carcassonne",
        .game_flag = "--game", .expansions = a->expansions,
        .rules = (const char *const *)a->rules.items, .n_rules = a->rules.count,
    };
    int rc = cas__target_open(&target, &req, err, sizeof err);
    if (rc != CAS_OK) {
        fprintf(stderr, "castellan tournament: %s\n", err);
        return rc == CAS_EPARSE ? 2 : 1;
    }
    struct cas__match m;
    if (cas__target_check_players(&target, 2, err, sizeof err) != CAS_OK) {
        fprintf(stderr, "castellan tournament: %s\n", err);
        cas__target_close(&target);
        return 2;
    }
    if (cas__target_match(&target, &m, 2, err, sizeof err) != CAS_OK) {
        fprintf(stderr, "castellan tournament: %s\n", err);
        cas__target_close(&target);
        return 1;
    }
    int tty = isatty(STDERR_FILENO);
    struct cas__tournament t = {
        .match = &m, .agent_a = agent_a, .agent_b = agent_b, .games = (int)games,
        .seed = seed, .progress = show_progress, .ctx = &tty,
    };
    struct cas__tournament_result r;
    printf("castellan tournament: %s, 2 players, %d games from seed %llu, seats "
           "alternated\n",
           m.title, t.games, (unsigned long long)seed);
    fflush(stdout);
    rc = cas__tournament_run(&t, &r, err, sizeof err);
    if (rc != CAS_OK)
        fprintf(stderr, "castellan tournament: %s\n", err);
    else
        report(&t, &r);
    cas__match_close(&m);
    cas__target_close(&target);
    return rc == CAS_OK ? 0 : 1;
}

int cas__cmd_tournament(int argc, char **argv)
{
    struct tournament_args a = {0};
    const struct cas__flag flags[] = {
        {"--agents", &a.agents, NULL, NULL}, {"--game", &a.game, NULL, NULL},
        {"--expansions", &a.expansions, NULL, NULL}, {"--rule", NULL, NULL, &a.rules},
        {"--games", &a.games, NULL, NULL}, {"--seed", &a.seed, NULL, NULL},
        {"--plugin-path", &a.plugin_path, NULL, NULL},
    };
    size_t n_positional;
    int done;
    int status = cas__cli_parse("tournament", argc, argv, flags, sizeof flags / sizeof flags[0],
                                NULL, 0, &n_positional, usage, &done);
    if (status == 0 && !done)
        status = run(&a);
    cas__strlist_free(&a.rules);
    return status;
}
