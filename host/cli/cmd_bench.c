/*
 * cmd_bench.c — `castellan bench`: the speed figures of one game (with its
 * expansions) from the sections in bench.c.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cli.h"
#include "commands.h"
#include "saves.h"
#include "server.h"
#include "target.h"
#include "term.h"
#include "text.h"
#include "worker.h"
#include "wsclient.h"

#define DEFAULT_GAME "carcassonne"

static void print_usage(FILE *out)
{
    fprintf(out,
            "usage: castellan bench [--game ID] [--expansions a,b] [--rule NAME=VALUE ...]\n"
            "                       [--players N] [--games N] [--seed S] [--only SECTION]\n"
            "                       [--rounds N] [--marginal] [--floor] [--isolated]\n"
            "                       [--in-process] [--hosted N]\n"
            "                       [--plugin-path DIR[:DIR...]] [--database URL]\n"
            "\n"
            "Measures the game ID (default %s) for N players (default the fewest\n"
            "it allows), over N random games (default 1000) from seed S (default 1).\n"
            "Options are at their defaults but for each --rule, given as to castellan\n"
            "play: NAME or EXPANSION.NAME, checked the same way (a bad one: exit 1,\n"
            "a malformed flag: exit 2).  With expansions, the playouts are also run\n"
            "on the game alone, with the game's own rules, and compared.  --rounds N\n"
            "(default 1, at most %d) times those playouts N times, in turn, and\n"
            "prints the medians, with the range of the ratio per action: a shared\n"
            "machine moves single runs.  --marginal also times the session without\n"
            "each of its expansions, in turn with it and the game alone (N rounds),\n"
            "and prints what each expansion adds to the cost per action, as a share\n"
            "of the game alone's.  --floor also times the game's bare reference loop\n"
            "(same tile data and rules options) and prints the playouts' games/s as\n"
            "a ratio to it, in wall-clock and in CPU time.  --isolated also times,\n"
            "in process and in a worker process (docs/isolation.md), the playouts\n"
            "(one batch), a search bot's decision (one message) and check of a\n"
            "tenth of the games, and prints each ratio against its target.  A plugin\n"
            "from outside castellan's own folders is never loaded into castellan,\n"
            "and every section runs in a worker, unless --in-process says to load\n"
            "it.  The saves section journals into a SQLite file of its own and, with\n"
            "--database postgresql://..., into that PostgreSQL database as well (it\n"
            "deletes the games it made there).  In the serve section, --rounds N\n"
            "runs the 100-game measure N times; the environment's\n"
            "CASTELLAN_SERVE_MEASURES=load,saturation,100,watchers,idle,hosted,lobby,floor\n"
            "picks\n"
            "its measures, and CASTELLAN_SERVE_PROBE=tests/server/latency_probe.mjs\n"
            "runs an independent client (node, ws) beside the 100-game measure and\n"
            "prints both clients' latency (docs/server.md, Benchmark).  Its\n"
            "hosted measure (alone: --only serve-hosted) plays the --games games\n"
            "again with idle games hosted beside them, to N/8, N/2 and --hosted N\n"
            "games in all (default 8000), and prints each line's CPU per move\n"
            "against the first; its lobby measure (last; also after hosted in\n"
            "--only serve-hosted) plays them beside N/8 and N games hosted, one\n"
            "more created a second, and prints the bytes a second sent to a\n"
            "subscriber of the lobby's changes and to one of whole lists.  Its\n"
            "floor measure, run only when CASTELLAN_SERVE_MEASURES names it, records\n"
            "one seeded game from castellan serve and plays the --games games against\n"
            "castellan serve, then against a bare server (serve's transport alone)\n"
            "answering each move with the recorded messages, compressed and plain:\n"
            "the floor under a move's server CPU (docs/server.md, \"The floor of a\n"
            "move\").  Run under valgrind --tool=callgrind, the server's\n"
            "counts cover each measure's play alone (dumped as part \"play\"); hosted,\n"
            "lobby and floor then play 30 moves a game.\n"
            "Sections:\n",
            DEFAULT_GAME, CAS__BENCH_MAX_ROUNDS);
    for (const struct cas__bench_section *s = cas__bench_sections; s->name; s++)
        fprintf(out, "  %-16s %s\n", s->name, s->what);
}

/* Flags as given; NULL when absent. */
struct bench_args {
    const char *game, *expansions, *players, *games, *seed, *only, *plugin_path, *rounds;
    const char *database, *hosted;
    int floor, isolated, marginal, in_process;
    struct cas__strlist rules;
};

/* --only must name a section. */
static int check_section(const char *only)
{
    const char *names[32];
    size_t n = 0;
    for (const struct cas__bench_section *s = cas__bench_sections; s->name && n < 32; s++) {
        if (strcmp(s->name, only) == 0)
            return 0;
        names[n++] = s->name;
    }
    const char *closest = cas__closest(only, names, n);
    fprintf(stderr, "castellan bench: no section \"%s\"%s%s%s (castellan bench --help lists "
            "them)\n", only, closest ? "; did you mean \"" : "", closest ? closest : "",
            closest ? "\"?" : "");
    return 2;
}

/* "castellan bench: game + a, b, N players, G games, seed S, rules x=1 y=2" */
static void print_header(const struct cas__target *t, int nplayers, uint64_t games,
                         uint64_t seed)
{
    printf("castellan bench: %s", t->plan.game->id);
    for (size_t i = 0; i < t->plan.n_expansions; i++)
        printf("%s%s", i ? ", " : " + ", t->plan.expansions[i]->id);
    printf(", %d players, %" PRIu64 " games, seed %" PRIu64, nplayers, games, seed);
    for (size_t i = 0; i < t->rules.count; i++)
        printf("%s%s", i ? " " : ", rules ", t->rules.items[i]);
    printf("\n");
}

/* The session without each of its expansions, for the marginal section:
 * a match (or why it could not open) and the refs it was given, each. */
struct without_set {
    struct cas__bench_without *entries;
    struct cas__match *matches;
    struct cas_expansion_ref *refs; /* n - 1 a match */
    char (*errors)[1024];
    size_t n;
};

/* Open every match of w for t; CAS_ENOMEM (w empty) when out of memory.
 * A match that does not open is an entry with its error. */
static int open_without(const struct cas__target *t, int nplayers, struct without_set *w)
{
    size_t n = t->plan.n_expansions;
    *w = (struct without_set){
        .entries = calloc(n, sizeof *w->entries), .matches = calloc(n, sizeof *w->matches),
        .refs = calloc(n * n, sizeof *w->refs), .errors = calloc(n, sizeof *w->errors), .n = n};
    if (!w->entries || !w->matches || !w->refs || !w->errors) {
        free(w->entries), free(w->matches), free(w->refs), free(w->errors);
        *w = (struct without_set){0};
        return CAS_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        int rc = cas__target_match_without(t, i, w->refs + i * n, &w->matches[i], nplayers,
                                           w->errors[i], sizeof w->errors[i]);
        w->entries[i] = (struct cas__bench_without){
            .id = t->plan.expansions[i]->id, .match = rc == CAS_OK ? &w->matches[i] : NULL,
            .error = w->errors[i]};
    }
    return CAS_OK;
}

static void close_without(struct without_set *w)
{
    for (size_t i = 0; i < w->n; i++)
        if (w->entries[i].match)
            cas__match_close(w->entries[i].match);
    free(w->entries);
    free(w->matches);
    free(w->refs);
    free(w->errors);
}

/* Run the sections on a match of t, and on one of its game alone for the
 * comparison when there are expansions (and with --marginal, on the
 * session without each expansion). */
static int measure(const struct cas__target *t, int nplayers, uint64_t games, uint64_t seed,
                   int rounds, size_t hosted, const struct bench_args *a)
{
    struct cas__match m, alone, isolated;
    struct without_set without = {0};
    char err[1024], alone_err[1024], isolated_err[1024];
    int marginal = a->marginal || (a->only && strcmp(a->only, "marginal") == 0);
    if (cas__target_match(t, &m, nplayers, err, sizeof err) != CAS_OK) {
        fprintf(stderr, "castellan bench: %s\n", err);
        return 1;
    }
    struct cas__bench b = {.match = &m, .games = (int)games, .rounds = rounds, .seed = seed,
                           .out = stdout, .width = cas__term_width(stdout),
                           .progress = stderr, .floor = a->floor,
                           .isolated_requested = a->isolated, .marginal_requested = marginal,
                           .game_has_expansions =
                               cas__registry_has_expansion_of(t->reg, t->plan.game->id),
                           .pg_url = a->database, .serve = cas__bench_serve,
                           .serve_hosted = cas__bench_serve_hosted, .hosted = hosted,
                           .club = cas__bench_club};
    struct cas__check_target check = cas__target_check(t);
    if (a->isolated) {
        b.check = &check;
        struct cas__target in_worker = *t; /* read only: the same plugins and options */
        in_worker.plan.isolation.mode = CAS__ISOLATE_WORKER;
        int rc = cas__target_match(&in_worker, &isolated, nplayers, isolated_err,
                                   sizeof isolated_err);
        b.isolated = rc == CAS_OK ? &isolated : NULL;
        b.isolated_error = rc == CAS_OK ? NULL : isolated_err;
    }
    if (t->plan.n_expansions > 0) {
        int rc = cas__target_match_alone(t, &alone, nplayers, alone_err, sizeof alone_err);
        b.alone = rc == CAS_OK ? &alone : NULL;
        b.alone_error = rc == CAS_OK ? NULL : alone_err;
    }
    int rc = CAS_OK;
    if (marginal && t->plan.n_expansions > 0 && (rc = open_without(t, nplayers, &without)))
        fprintf(stderr, "castellan bench: out of memory\n");
    b.without = without.entries;
    b.n_without = without.n;
    if (rc == CAS_OK) {
        print_header(t, nplayers, games, seed);
        rc = cas__bench_run(&b, a->only);
    }
    close_without(&without);
    if (b.isolated)
        cas__match_close(b.isolated);
    if (b.alone)
        cas__match_close(b.alone);
    cas__match_close(&m);
    return rc == CAS_OK ? 0 : 1;
}

/* Measure what the flags describe; the exit status. */
static int bench(const struct bench_args *a)
{
    uint64_t games = 1000, seed = 1, players = 0, rounds = 1, hosted = 8000;
    int status;
    if ((a->games && (status = cas__cli_number("bench", "--games", a->games, 1, 100000000,
                                               &games))) ||
        (a->seed && (status = cas__cli_number("bench", "--seed", a->seed, 0, UINT64_MAX,
                                              &seed))) ||
        (a->players && (status = cas__cli_number("bench", "--players", a->players, 1, 64,
                                                 &players))) ||
        (a->rounds && (status = cas__cli_number("bench", "--rounds", a->rounds, 1,
                                                CAS__BENCH_MAX_ROUNDS, &rounds))) ||
        (a->hosted && (status = cas__cli_number("bench", "--hosted", a->hosted, 1, 1000000,
                                                &hosted))) ||
        (a->only && (status = check_section(a->only))))
        return status;
    const char *measures = getenv("CASTELLAN_SERVE_MEASURES");
    char why[512];
    if (measures && cas__bench_serve_check_measures(measures, why, sizeof why) != CAS_OK) {
        fprintf(stderr, "castellan bench: %s\n", why);
        return 2;
    }
    if (a->database && !cas__saves_is_url(a->database)) {
        fprintf(stderr, "castellan bench: --database %s is not a PostgreSQL URL; write "
                "postgresql://[USER@][HOST]/DATABASE (SQLite is measured in a file of "
                "its own)\n", a->database);
        return 2;
    }

    struct cas__target t;
    char err[1024];
    struct cas__target_request req = {
        .plugin_path = a->plugin_path, .game = a->game ? a->game : DEFAULT_GAME,
        .game_flag = "--game", .expansions = a->expansions,
        .rules = (const char *const *)a->rules.items, .n_rules = a->rules.count,
        /* Bundled plugins in process, the fast path bots get; the isolation
         * section adds a worker of its own.  A plugin from elsewhere is
         * never loaded into castellan (docs/isolation.md). */
        .isolation = {.mode = a->in_process ? CAS__ISOLATE_IN_PROCESS : CAS__ISOLATE_AUTO},
    };
    int rc = cas__target_open(&t, &req, err, sizeof err);
    if (rc != CAS_OK) {
        fprintf(stderr, "castellan bench: %s\n", err);
        return rc == CAS_EPARSE ? 2 : 1;
    }
    if (players && cas__target_check_players(&t, (int)players, err, sizeof err)) {
        fprintf(stderr, "castellan bench: %s\n", err);
        status = 2;
    } else {
        status = measure(&t, players ? (int)players : t.min_players, games, seed, (int)rounds,
                         (size_t)hosted, a);
    }
    cas__target_close(&t);
    return status;
}

int cas__cmd_bench(int argc, char **argv)
{
    struct bench_args a = {0};
    const struct cas__flag flags[] = {
        {"--game", &a.game, NULL, NULL}, {"--expansions", &a.expansions, NULL, NULL},
        {"--rule", NULL, NULL, &a.rules}, {"--players", &a.players, NULL, NULL},
        {"--games", &a.games, NULL, NULL}, {"--seed", &a.seed, NULL, NULL},
        {"--only", &a.only, NULL, NULL}, {"--plugin-path", &a.plugin_path, NULL, NULL},
        {"--rounds", &a.rounds, NULL, NULL}, {"--marginal", NULL, &a.marginal, NULL},
        {"--floor", NULL, &a.floor, NULL}, {"--isolated", NULL, &a.isolated, NULL},
        {"--in-process", NULL, &a.in_process, NULL},
        {"--database", &a.database, NULL, NULL}, {"--hosted", &a.hosted, NULL, NULL},
    };
    char *usage_text = NULL;
    size_t usage_len = 0, n_positional;
    FILE *usage = open_memstream(&usage_text, &usage_len);
    if (!usage)
        return 1;
    print_usage(usage);
    fclose(usage);
    int done;
    int status = cas__cli_parse("bench", argc, argv, flags, sizeof flags / sizeof flags[0],
                                NULL, 0, &n_positional, usage_text, &done);
    free(usage_text);
    if (status == 0 && !done)
        status = bench(&a);
    cas__strlist_free(&a.rules);
    return status;
}
