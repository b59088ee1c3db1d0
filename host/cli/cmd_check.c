/*
 * cmd_check.c — `castellan check PLUGIN`: the conformance checks (check.c)
 * on a game and its expansions as found on the plugin search path.
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cli.h"
#include "commands.h"
#include "target.h"
#include "worker.h"

static const char usage[] =
    "usage: castellan check PLUGIN [--expansions a,b] [--rule NAME=VALUE ...]\n"
    "                       [--games N] [--seed S] [--players N]\n"
    "                       [--plugin-path DIR[:DIR...]]\n"
    "                       [--isolated | --in-process] [--plugin-deadline MS]\n"
    "\n"
    "Plays N random games (default 20) of the game plugin PLUGIN with the\n"
    "given expansions and checks at every step what the plugin ABI promises:\n"
    "legal actions non-empty, sorted and unique until the end; action text\n"
    "round-trips; clone, copy and serialize/deserialize keep the hash and the\n"
    "bytes; chance outcomes match the legal actions; renders succeed for every\n"
    "viewer, and a picture drawn relative to the last (render_since) is the\n"
    "whole one once filled in; the same seed gives the same game; two\n"
    "interleaved games do not disturb each other.  Game i uses seed S+i\n"
    "(default S = 1) and cycles through the allowed player counts unless\n"
    "--players is given.  Options are at their defaults but for each --rule,\n"
    "given as to castellan play: NAME or EXPANSION.NAME, checked the same way.\n"
    "\n"
    "Exit status: 0 when every property held, 1 when one broke (the property,\n"
    "seed, ply and action are printed) or the plugins refuse the request (an\n"
    "unknown plugin, a bad rule value), 2 for bad usage.\n"
    "\n" CAS__CLI_ISOLATION_HELP;

/* The run in progress, for the crash handlers. */
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

/* A plugin that brought the process (or its worker) down is still a
 * failed check: say what, where, and how to reproduce it, on stderr.
 * Only async-signal-safe calls; failure is at most a few hundred bytes. */
static void print_crash(const char *failure)
{
    char line[4096];
    size_t len = 0;
    put_text(line, &len, "\n");
    put_text(line, &len, running->plugin);
    put_text(line, &len, ": FAILED ");
    put_text(line, &len, failure);
    put_text(line, &len, "\n  game with seed ");
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
}

/* A worker that failed: the same report, then exit 1 (a property broke). */
static void report_worker_fault(void *ctx, const struct cas__worker_fault *f)
{
    char failure[640];
    (void)ctx;
    if (f->signal)
        snprintf(failure, sizeof failure, "crash (signal %d) in %s", f->signal, f->call);
    else if (f->hung_ms)
        snprintf(failure, sizeof failure, "hang (no answer within %u ms) in %s", f->hung_ms,
                 f->call);
    else
        snprintf(failure, sizeof failure, "%s (%s)",
                 strstr(f->text, "broke the ABI") ? "abi" : "worker", f->text);
    fflush(stdout);
    print_crash(failure);
    exit(1);
}

#ifndef __SANITIZE_ADDRESS__
/* Die of the same signal after the report. */
static void report_crash(int sig)
{
    char failure[64];
    size_t len = 0;
    put_text(failure, &len, "crash (signal ");
    put_number(failure, &len, (uint64_t)sig);
    put_text(failure, &len, ")");
    failure[len] = '\0';
    print_crash(failure);
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
    running = report;
}
#endif

/* Flags as given; NULL when absent. */
struct check_args {
    const char *plugin, *expansions, *games, *seed, *players, *plugin_path, *deadline;
    struct cas__strlist rules;
    int isolated, in_process;
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
    struct cas__isolation isolation;
    if ((status = cas__cli_isolation("check", a->isolated, a->in_process, a->deadline,
                                     &isolation)))
        return status;

    struct cas__target t;
    char err[1024];
    struct cas__target_request req = {
        .plugin_path = a->plugin_path, .game = a->plugin, .game_flag = "PLUGIN",
        .expansions = a->expansions, .rules = (const char *const *)a->rules.items,
        .n_rules = a->rules.count, .isolation = isolation,
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
    const struct cas__fault_handler on_fault = {.fault = report_worker_fault};
    struct cas__check_target target = cas__target_check(&t);
    target.on_fault = &on_fault;
    if (players)
        target.min_players = target.max_players = (int)players;
    struct cas__check_options opt = {
        .games = (int)games, .seed = seed, .progress = stderr,
        .plugin_path = a->plugin_path,
    };
    struct cas__check_report report;
    if (t.plan.isolation.mode == CAS__ISOLATE_WORKER) {
        /* The whole check in one worker, at in-process speed. */
        char fault[700];
        if (cas__worker_check(&target, &opt, t.plan.isolation.deadline_ms, &report, fault,
                              sizeof fault) != CAS_OK) {
            running = &report;
            fflush(stdout);
            print_crash(fault);
            cas__target_close(&t);
            return 1;
        }
    } else {
        catch_crashes(&report);
        cas__check_run(&target, &opt, &report);
    }
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
        {"--isolated", NULL, &a.isolated, NULL}, {"--in-process", NULL, &a.in_process, NULL},
        {"--plugin-deadline", &a.deadline, NULL, NULL},
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
