/*
 * cmd_check.c — `castellan check PLUGIN`: the conformance checks (check.c)
 * on a game and its expansions as found on the plugin search path.
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cli.h"
#include "commands.h"
#include "target.h"

static const char usage[] =
    "usage: castellan check PLUGIN [--expansions a,b] [--rule NAME=VALUE ...]\n"
    "                       [--games N] [--seed S] [--players N]\n"
    "                       [--plugin-path DIR[:DIR...]]\n"
    "\n"
    "Plays N random games (default 20) of the game plugin PLUGIN with the\n"
    "given expansions and checks at every step what the plugin ABI promises:\n"
    "legal actions non-empty, sorted and unique until the end; action text\n"
    "round-trips; clone, copy and serialize/deserialize keep the hash and the\n"
    "bytes; chance outcomes match the legal actions; renders succeed for every\n"
    "viewer; the same seed gives the same game; two interleaved games do not\n"
    "disturb each other.  Game i uses seed S+i (default S = 1) and cycles\n"
    "through the allowed player counts unless --players is given.  Options are\n"
    "at their defaults but for each --rule, given as to castellan play: NAME or\n"
    "EXPANSION.NAME, checked the same way.\n"
    "\n"
    "Exit status: 0 when every property held, 1 when one broke (the property,\n"
    "seed, ply and action are printed) or the plugins refuse the request (an\n"
    "unknown plugin, a bad rule value), 2 for bad usage.\n";

#ifndef __SANITIZE_ADDRESS__
/* The run in progress, for the crash handler. */
static const struct cas__check_report *running;

/* Append v in decimal to line[*len]; async-signal-safe. */
static void put_number(char *line, size_t *len, uint64_t v)
{
    char digits[20];
    size_t n = 0;
    do
        digits[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    while (n > 0)
        line[(*len)++] = digits[--n];
}

static void put_text(char *line, size_t *len, const char *text)
{
    size_t n = strlen(text);
    memcpy(line + *len, text, n);
    *len += n;
}

/* A plugin that crashes the process is still a failed check: say where,
 * then die of the same signal.  Only async-signal-safe calls. */
static void report_crash(int sig)
{
    char line[4096];
    size_t len = 0;
    put_text(line, &len, "\n");
    put_text(line, &len, running->plugin);
    put_text(line, &len, ": FAILED crash (signal ");
    put_number(line, &len, (uint64_t)sig);
    put_text(line, &len, ")\n  game with seed ");
    put_number(line, &len, running->seed);
    put_text(line, &len, ", ");
    put_number(line, &len, (uint64_t)running->nplayers);
    put_text(line, &len, " players, at or after ply ");
    put_number(line, &len, running->ply);
    put_text(line, &len, "\n  reproduce: castellan check ");
    put_text(line, &len, running->plugin);
    if (running->expansions[0]) {
        put_text(line, &len, " --expansions ");
        put_text(line, &len, running->expansions);
    }
    put_text(line, &len, running->rule_flags);
    put_text(line, &len, running->path_flag);
    put_text(line, &len, " --seed ");
    put_number(line, &len, running->seed);
    put_text(line, &len, " --games 1 --players ");
    put_number(line, &len, (uint64_t)running->nplayers);
    put_text(line, &len, "\n");
    if (write(STDERR_FILENO, line, len) < 0)
        line[0] = '\0';
    signal(sig, SIG_DFL);
    raise(sig);
}

static void catch_crashes(const struct cas__check_report *report)
{
    static const int signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
    running = report;
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++)
        signal(signals[i], report_crash);
}
#else
/* Sanitizer builds keep their own, more detailed crash reports. */
static void catch_crashes(const struct cas__check_report *report)
{
    (void)report;
}
#endif

/* Flags as given; NULL when absent. */
struct check_args {
    const char *plugin, *expansions, *games, *seed, *players, *plugin_path;
    struct cas__strlist rules;
};

/* Check the target the flags describe; the exit status. */
static int check(const struct check_args *a)
{
    uint64_t games = 20, seed = 1, players = 0;
    int status;
    if ((a->games && (status = cas__cli_number("check", "--games", a->games, 1, 1000000,
                                               &games))) ||
        (a->seed && (status = cas__cli_number("check", "--seed", a->seed, 0, UINT64_MAX,
                                              &seed))) ||
        (a->players && (status = cas__cli_number("check", "--players", a->players, 1, 64,
                                                 &players))))
        return status;

    struct cas__target t;
    char err[1024];
    struct cas__target_request req = {
        .plugin_path = a->plugin_path, .game = a->plugin, .game_flag = "PLUGIN",
        .expansions = a->expansions, .rules = (const char *const *)a->rules.items,
        .n_rules = a->rules.count,
    };
    int rc = cas__target_open(&t, &req, err, sizeof err);
    if (rc != CAS_OK) {
        fprintf(stderr, "castellan check: %s\n", err);
        return rc == CAS_EPARSE ? 2 : 1;
    }
    if (players && cas__target_check_players(&t, (int)players, err, sizeof err)) {
        fprintf(stderr, "castellan check: %s\n", err);
        cas__target_close(&t);
        return 2;
    }
    struct cas__check_target target = cas__target_check(&t);
    if (players)
        target.min_players = target.max_players = (int)players;
    struct cas__check_options opt = {
        .games = (int)games, .seed = seed, .progress = stderr,
        .plugin_path = a->plugin_path,
    };
    struct cas__check_report report;
    catch_crashes(&report);
    cas__check_run(&target, &opt, &report);
    cas__check_print(&report, report.failed ? stderr : stdout);
    cas__target_close(&t);
    return report.failed ? 1 : 0;
}

int cas__cmd_check(int argc, char **argv)
{
    struct check_args a = {0};
    const struct cas__flag flags[] = {
        {"--expansions", &a.expansions, NULL, NULL}, {"--rule", NULL, NULL, &a.rules},
        {"--games", &a.games, NULL, NULL}, {"--seed", &a.seed, NULL, NULL},
        {"--players", &a.players, NULL, NULL}, {"--plugin-path", &a.plugin_path, NULL, NULL},
    };
    size_t n_positional;
    int done;
    int status = cas__cli_parse("check", argc, argv, flags, sizeof flags / sizeof flags[0],
                                &a.plugin, 1, &n_positional, usage, &done);
    if (status == 0 && !done && !a.plugin) {
        fprintf(stderr, "castellan check: which plugin? (castellan plugins lists them)\n%s",
                usage);
        status = 2;
    } else if (status == 0 && !done) {
        status = check(&a);
    }
    cas__strlist_free(&a.rules);
    return status;
}
