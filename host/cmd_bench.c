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
#include "target.h"
#include "text.h"

#define DEFAULT_GAME "carcassonne"

static void print_usage(FILE *out)
{
    fprintf(out,
            "usage: castellan bench [--game ID] [--expansions a,b] [--players N]\n"
            "                       [--games N] [--seed S] [--only SECTION]\n"
            "                       [--plugin-path DIR[:DIR...]]\n"
            "\n"
            "Measures the game ID (default %s) with every option at its default,\n"
            "for N players (default the fewest it allows), over N random games\n"
            "(default 1000) from seed S (default 1).  Sections:\n",
            DEFAULT_GAME);
    for (const struct cas__bench_section *s = cas__bench_sections; s->name; s++)
        fprintf(out, "  %-16s %s\n", s->name, s->what);
}

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
    fprintf(stderr, "castellan bench: no section \"%s\"; did you mean \"%s\"?\n", only,
            cas__closest(only, names, n));
    return 2;
}

static int measure(const struct cas__target *t, int nplayers, uint64_t games, uint64_t seed,
                   const char *only)
{
    struct cas__match m;
    char err[1024];
    if (cas__target_match(t, &m, nplayers, err, sizeof err) != CAS_OK) {
        fprintf(stderr, "castellan bench: %s\n", err);
        return 1;
    }
    printf("castellan bench: %s", t->game->id);
    for (size_t i = 0; i < t->n_expansions; i++)
        printf("%s%s", i ? ", " : " + ", t->expansions[i]->id);
    printf(", %d players, %" PRIu64 " games, seed %" PRIu64 "\n", nplayers, games, seed);
    struct cas__bench b = {.match = &m, .games = (int)games, .seed = seed, .out = stdout};
    int rc = cas__bench_run(&b, only);
    cas__match_close(&m);
    return rc == CAS_OK ? 0 : 1;
}

int cas__cmd_bench(int argc, char **argv)
{
    const char *game = DEFAULT_GAME, *expansions = NULL, *players_text = NULL;
    const char *games_text = NULL, *seed_text = NULL, *only = NULL, *plugin_path = NULL;
    const struct cas__flag flags[] = {
        {"--game", &game, NULL, NULL}, {"--expansions", &expansions, NULL, NULL},
        {"--players", &players_text, NULL, NULL}, {"--games", &games_text, NULL, NULL},
        {"--seed", &seed_text, NULL, NULL}, {"--only", &only, NULL, NULL},
        {"--plugin-path", &plugin_path, NULL, NULL},
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
    if (status || done)
        return status;
    uint64_t games = 1000, seed = 1, players = 0;
    if ((games_text && (status = cas__cli_number("bench", "--games", games_text, 1,
                                                 100000000, &games))) ||
        (seed_text && (status = cas__cli_number("bench", "--seed", seed_text, 0, UINT64_MAX,
                                                &seed))) ||
        (players_text && (status = cas__cli_number("bench", "--players", players_text, 1, 64,
                                                   &players))) ||
        (only && (status = check_section(only))))
        return status;

    struct cas__target t;
    char err[1024];
    if (cas__target_open(&t, plugin_path, game, expansions, err, sizeof err) != CAS_OK) {
        fprintf(stderr, "castellan bench: %s\n", err);
        return 1;
    }
    status = measure(&t, players ? (int)players : t.min_players, games, seed, only);
    cas__target_close(&t);
    return status;
}
