/*
 * cmd_ratings.c — `castellan ratings`: every player's Weng-Lin rating per
 * pool, recomputed from the finished games in the store (docs/ratings.md).
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "ratings.h"
#include "saves_cli.h"
#include "text.h"

static const char usage[] =
    "usage: castellan ratings [--by game|mix] [--pool NAME] [--since DATE]\n"
    "                         [--database FILE]\n"
    "\n"
    "Rates every player from the finished games in the store (Weng-Lin, the\n"
    "Bayesian rating behind OpenSkill: docs/ratings.md), recomputed from\n"
    "scratch in the order the games were finished, so the same store always\n"
    "gives the same table.  A human is known by name; a bot by its agent, so\n"
    "every game mcts-hard played counts for one \"mcts-hard (bot)\".\n"
    "\n"
    "  --by game     one pool per game, whatever its expansions (default)\n"
    "  --by mix      one pool per game and exact list of expansions\n"
    "  --pool NAME   only that pool (\"carcassonne\", with --by mix\n"
    "                \"carcassonne+inns-cathedrals\")\n"
    "  --since DATE  only games last played at or after DATE (2026-12-01,\n"
    "                or 2026-12-01 18:00:00)\n"
    "\n"
    "RATING is mu - 3 sigma: it starts at 0 and grows as a player's games\n"
    "make the estimate surer.\n";

/* YYYY-MM-DD, optionally followed by a space or T and HH:MM[:SS]. */
static int valid_since(const char *s)
{
    static const char shape[] = "dddd-dd-dd";
    size_t len = strlen(s);
    if (len < 10)
        return 0;
    for (size_t i = 0; i < 10; i++)
        if (shape[i] == 'd' ? !(s[i] >= '0' && s[i] <= '9') : s[i] != shape[i])
            return 0;
    if (len == 10)
        return 1;
    if ((s[10] != ' ' && s[10] != 'T') || (len != 16 && len != 19))
        return 0;
    static const char time_shape[] = "dd:dd:dd";
    for (size_t i = 11; i < len; i++)
        if (time_shape[i - 11] == 'd' ? !(s[i] >= '0' && s[i] <= '9') : s[i] != ':')
            return 0;
    return 1;
}

/* Parse argv into a and q; --since is copied into since_buf[20] with a T
 * for the space, as the store writes its times (2026-12-01T18:00:00). */
static int parse(int argc, char **argv, struct cas__saves_args *a,
                 struct cas__ratings_query *q, char *since_buf)
{
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i];
        if (strcmp(opt, "--help") == 0 || strcmp(opt, "-h") == 0) {
            fputs(usage, stdout);
            return 0;
        }
        if (strcmp(opt, "--by") && strcmp(opt, "--pool") && strcmp(opt, "--since") &&
            strcmp(opt, "--database")) {
            fprintf(stderr, "castellan ratings: unknown argument '%s'\n%s", opt, usage);
            return 2;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "castellan ratings: %s needs a value\n%s", opt, usage);
            return 2;
        }
        const char *value = argv[++i];
        if (strcmp(opt, "--database") == 0) {
            a->database = value;
        } else if (strcmp(opt, "--pool") == 0) {
            q->pool = value;
        } else if (strcmp(opt, "--since") == 0) {
            if (!valid_since(value)) {
                fprintf(stderr, "castellan ratings: --since '%s' is not a date: write "
                        "YYYY-MM-DD, optionally with HH:MM[:SS] (2026-12-01 18:00)\n", value);
                return 2;
            }
            snprintf(since_buf, 20, "%s", value);
            if (since_buf[10] == ' ')
                since_buf[10] = 'T';
            q->since = since_buf;
        } else if (strcmp(value, "game") == 0 || strcmp(value, "mix") == 0) {
            q->by = value[0] == 'g' ? CAS__POOL_GAME : CAS__POOL_MIX;
        } else {
            fprintf(stderr, "castellan ratings: --by '%s': write game (one pool per "
                    "game) or mix (one per game and expansions)\n", value);
            return 2;
        }
    }
    return -1;
}

static void print_pool(struct cas__rating_pool *p)
{
    printf("%s: %zu game%s, %zu player%s\n", p->name, p->games, p->games == 1 ? "" : "s",
           p->n_players, p->n_players == 1 ? "" : "s");
    printf("  %4s  %7s  %6s  %5s  %5s  %-19s  %s\n", "RANK", "RATING", "MU", "SIGMA",
           "GAMES", "LAST PLAYED", "PLAYER");
    for (size_t i = 0; i < p->n_players; i++) {
        struct cas__rated_player *r = &p->players[i];
        cas__text_printable(r->name); /* stored names may hold control characters */
        printf("  %4zu  %7.2f  %6.2f  %5.2f  %5zu  %-19.19s  %s%s\n", i + 1, r->shown,
               r->rating.mu, r->rating.sigma, r->games, r->last_played, r->name,
               r->bot ? " (bot)" : "");
    }
}

int cas__cmd_ratings(int argc, char **argv)
{
    struct cas__saves_args a = {.cmd = "castellan ratings"};
    struct cas__ratings_query q = {.by = CAS__POOL_GAME};
    cas__rating_model_default(&q.model);
    char since[20];
    int status = parse(argc, argv, &a, &q, since);
    if (status >= 0)
        return status;
    struct cas__saves *s = cas__saves_args_open(&a, CAS__STORE_READ);
    if (!s)
        return 1;
    struct cas__rating_pool *pools;
    size_t n;
    if (cas__ratings_recompute(s, &q, &pools, &n)) {
        status = cas__saves_args_fail(&a, s);
        cas__saves_close(s);
        return status;
    }
    if (n == 0)
        printf("no finished game of two players or more%s%s%s in %s\n",
               q.pool ? " in pool " : "", q.pool ? q.pool : "",
               q.since ? " since then" : "", cas__saves_path(s));
    for (size_t i = 0; i < n; i++) {
        if (i)
            putchar('\n');
        print_pool(&pools[i]);
    }
    cas__rating_pools_free(pools, n);
    cas__saves_close(s);
    return 0;
}
