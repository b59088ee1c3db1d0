/*
 * cmd_saves.c — the save commands that need no plugin: `castellan saves
 * list | show ID | delete ID`, `castellan export ID` and `castellan campaign
 * list | show NAME`.  They only read the store (delete removes one game);
 * `saves show --json` replays the game with its plugins to tell the scores.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "ratings.h"
#include "results_json.h"
#include "saves_cli.h"
#include "text.h"

static const char saves_usage[] =
    "usage: castellan saves list [--campaign NAME] [--player NAME] [--database FILE]\n"
    "       castellan saves show ID [--json [--ply N]] [--database FILE]\n"
    "       castellan saves delete ID [--database FILE]\n"
    "       castellan saves migrate FROM TO   (castellan saves migrate --help)\n"
    "\n"
    "Lists, shows or deletes the games saved in the database: by default\n"
    "$XDG_DATA_HOME/castellan/saves.db, where `castellan play` journals\n"
    "every game.  Resume an unfinished game with `castellan resume ID`.\n"
    "list --player NAME lists only the games NAME played: a registered player\n"
    "(castellan players) by their name now, in any case, a guest by the name\n"
    "of their seat, a bot by its agent (mcts-hard), as castellan ratings\n"
    "knows them.\n"
    "show --json gives the players, every event and the scores after ply N\n"
    "(default: the last) for programs (docs/results.schema.json), replaying\n"
    "the game with the installed plugins (--plugin-path DIR to add some).\n";

static const char export_usage[] =
    "usage: castellan export ID [-o FILE] [--no-hashes] [--database FILE]\n"
    "       castellan export ID --html -o FILE.html [--viewer P] [--database FILE]\n"
    "                        [--plugin-path DIR[:DIR...]]\n"
    "\n"
    "Writes saved game ID as a plain-text game record (docs/saves.md) to\n"
    "FILE or standard output (no -o, or -o -).  `castellan import FILE` replays it into a\n"
    "store anywhere; attach it to a bug report.  --no-hashes leaves out the\n"
    "state hash of every action, as a record written by hand or by another\n"
    "program would (import then checks every action's legality only).\n"
    "\n"
    "With --html it writes one self-contained page instead (docs/pictures.md):\n"
    "the board of every ply, its action and events, the scores over time, and\n"
    "buttons, a slider and the arrow keys to step through the game.  P is who\n"
    "looks, as for `castellan render`.\n";

static const char campaign_usage[] =
    "usage: castellan campaign list [--database FILE]\n"
    "       castellan campaign show NAME [--database FILE]\n"
    "\n"
    "Campaigns group games ([saves] campaign = NAME in a session config).\n"
    "`show` prints the standings (finished games, wins, points per player)\n"
    "and the unfinished game to resume.\n";

static void print_players(const struct cas__saves_game *g, FILE *out)
{
    for (size_t i = 0; i < g->n_players; i++)
        fprintf(out, "%s%s (%s)", i ? ", " : "", g->players[i].name,
                g->players[i].agent);
}

static void print_combination(const struct cas__saves_game *g, FILE *out)
{
    fprintf(out, "%s %s", g->game.id, g->game.version);
    for (size_t i = 0; i < g->n_expansions; i++)
        fprintf(out, " + %s %s", g->expansions[i].id, g->expansions[i].version);
}

/* Whether `player` sat at g, known as the ratings know players. */
static int played(const struct cas__saves_game *g, const char *player)
{
    for (size_t i = 0; i < g->n_players; i++)
        if (strcmp(cas__rating_identity(&g->players[i]), player) == 0)
            return 1;
    return 0;
}

static int list_games(const struct cas__saves_args *a, struct cas__saves *s,
                      const char *campaign)
{
    int64_t *ids;
    size_t n;
    struct cas__saves_registered who = {0};
    const char *player = a->player;
    /* A registered player is found whatever the case of the name given. */
    if (player && cas__saves_registered_find(s, player, &who) == CAS_OK)
        player = who.name;
    if (cas__saves_game_ids(s, campaign, &ids, &n)) {
        cas__saves_registered_free(&who);
        return cas__saves_args_fail(a, s);
    }
    int status = 0;
    size_t shown = 0;
    if (n == 0)
        printf("no saved games in %s\n", cas__saves_path(s));
    else
        printf("%5s  %-8s %6s  %-20s  %s\n", "ID", "STATUS", "PLIES",
               "LAST PLAYED", "GAME / PLAYERS / CAMPAIGN");
    for (size_t i = 0; i < n; i++) {
        struct cas__saves_game g;
        if (cas__saves_game_load(s, ids[i], 0, &g)) {
            status = cas__saves_args_fail(a, s);
            break;
        }
        if (player && !played(&g, player)) {
            cas__saves_game_free(&g);
            continue;
        }
        cas__saves_game_printable(&g);
        shown++;
        printf("%5lld  %-8s %6zu  %-20s  ", (long long)g.id,
               g.status == CAS__SAVES_FINISHED ? "finished" : "playing",
               g.n_actions, g.updated_at);
        print_combination(&g, stdout);
        fputs(" / ", stdout);
        print_players(&g, stdout);
        if (g.campaign)
            printf(" / %s", g.campaign);
        fputc('\n', stdout);
        cas__saves_game_free(&g);
    }
    if (n && !shown && status == 0)
        printf("no saved game of %s in %s\n", a->player, cas__saves_path(s));
    cas__saves_registered_free(&who);
    free(ids);
    return status;
}

static void show_game(const struct cas__saves_game *g, FILE *out)
{
    fprintf(out, "Game %lld: ", (long long)g->id);
    print_combination(g, out);
    fprintf(out, "\nStatus:   %s after %zu plies\n",
            g->status == CAS__SAVES_FINISHED ? "finished" : "unfinished",
            g->n_actions);
    fprintf(out, "Started:  %s with castellan %s\n", g->created_at,
            g->castellan_version);
    fprintf(out, "Played:   %s\n", g->updated_at);
    fprintf(out, "Seed:     %llu\n", (unsigned long long)g->seed);
    if (g->campaign)
        fprintf(out, "Campaign: %s\n", g->campaign);
    for (size_t i = 0; i < g->n_options; i++)
        fprintf(out, "Option:   %s = %s\n", g->options[i].key, g->options[i].value);
    for (size_t i = 0; i < g->n_players; i++) {
        fprintf(out, "Player %zu: %s (%s)", i + 1, g->players[i].name,
                g->players[i].agent);
        if (g->players[i].has_score)
            fprintf(out, ", %lld points", (long long)g->players[i].score);
        fputc('\n', out);
    }
    if (g->status != CAS__SAVES_FINISHED)
        fprintf(out, "Continue with: castellan resume %lld\n", (long long)g->id);
}

static int saves_show_or_delete(const struct cas__saves_args *a,
                                struct cas__saves *s, const char *sub)
{
    int64_t id;
    struct cas__saves_game g;
    if (a->n_positional != 2) {
        fprintf(stderr, "%s: %s needs a game id\n%s", a->cmd, sub, saves_usage);
        return 2;
    }
    if (cas__saves_args_game_id(a, a->positional[1], &id))
        return 2;
    if (strcmp(sub, "delete") == 0) {
        if (cas__saves_game_delete(s, id))
            return cas__saves_args_fail(a, s);
        printf("deleted game %lld\n", (long long)id);
        return 0;
    }
    if (cas__saves_game_load(s, id, a->json || a->ply, &g))
        return cas__saves_args_fail(a, s);
    cas__saves_game_printable(&g);
    if (a->json || a->ply) {
        int status = cas__results_json_command(a, &g, 0);
        cas__saves_game_free(&g);
        return status;
    }
    show_game(&g, stdout);
    cas__saves_game_free(&g);
    return 0;
}

int cas__cmd_saves(int argc, char **argv)
{
    struct cas__saves_args a;
    if (argc > 1 && strcmp(argv[1], "migrate") == 0)
        return cas__cmd_saves_migrate(argc - 1, argv + 1);
    int status = cas__saves_args_parse(&a, "saves", argc, argv,
                                       CAS__ARG_CAMPAIGN | CAS__ARG_JSON | CAS__ARG_PLY |
                                           CAS__ARG_PLUGIN_PATH | CAS__ARG_PLAYER,
                                       1, 2, saves_usage);
    if (status >= 0)
        return status;
    const char *sub = a.positional[0];
    if (strcmp(sub, "list") != 0 && strcmp(sub, "show") != 0 &&
        strcmp(sub, "delete") != 0) {
        fprintf(stderr, "castellan saves: unknown subcommand \"%s\" (list, show, "
                "delete or migrate)\n%s", sub, saves_usage);
        return 2;
    }
    struct cas__saves *s = cas__saves_args_open(&a, strcmp(sub, "delete") == 0 ?
                                                CAS__STORE_WRITE : CAS__STORE_READ);
    if (!s)
        return 1;
    status = strcmp(sub, "list") == 0 ? list_games(&a, s, a.campaign)
                                      : saves_show_or_delete(&a, s, sub);
    cas__saves_close(s);
    return status;
}

int cas__cmd_export(int argc, char **argv)
{
    struct cas__saves_args a;
    struct cas__saves *s;
    struct cas__saves_game g;
    int64_t id;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--html") == 0)
            return cas__cmd_export_html(argc, argv, export_usage);
    int status = cas__saves_args_load_game(&a, "export", argc, argv,
                                           CAS__ARG_OUTPUT | CAS__ARG_NO_HASHES,
                                           CAS__STORE_READ, export_usage, &s, &id, &g);
    if (status >= 0)
        return status;
    FILE *out = cas__saves_args_output_open(&a);
    status = 1;
    if (!out)
        goto free_game;
    int rc = cas__record_write(&g, out, !a.no_hashes);
    if (rc == CAS_EINVAL)
        fprintf(stderr, "castellan export: an action of game %lld has a line break in its "
                "text; it cannot be written as a record\n", (long long)id);
    status = cas__saves_args_output_close(&a, out, rc == CAS_OK ? 0 : 1);
free_game:
    cas__saves_game_free(&g);
    cas__saves_close(s);
    return status;
}

static int campaign_list(const struct cas__saves_args *a, struct cas__saves *s)
{
    struct cas__saves_campaign *c;
    size_t n;
    if (cas__saves_campaigns(s, &c, &n))
        return cas__saves_args_fail(a, s);
    if (n == 0)
        printf("no campaigns in %s; name one with [saves] campaign = NAME\n",
               cas__saves_path(s));
    else
        printf("%-24s %6s %9s  %-20s  %s\n", "CAMPAIGN", "GAMES", "FINISHED",
               "LAST PLAYED", "TO RESUME");
    for (size_t i = 0; i < n; i++) {
        printf("%-24s %6zu %9zu  %-20s  ", c[i].name, c[i].games, c[i].finished,
               c[i].last_played);
        if (c[i].unfinished)
            printf("castellan resume %lld\n", (long long)c[i].unfinished);
        else
            printf("-\n");
    }
    cas__saves_campaigns_free(c, n);
    return 0;
}

static int campaign_show(const struct cas__saves_args *a, struct cas__saves *s,
                         const char *name)
{
    struct cas__saves_campaign sum;
    struct cas__saves_standing *st;
    size_t n;
    if (cas__saves_campaign_standings(s, name, &sum, &st, &n))
        return cas__saves_args_fail(a, s);
    printf("Campaign %s: %zu games, %zu finished, last played %s\n\n",
           cas__text_printable(sum.name), sum.games, sum.finished, sum.last_played);
    printf("%-4s %-24s %6s %5s %8s\n", "", "PLAYER", "GAMES", "WINS", "POINTS");
    for (size_t i = 0; i < n; i++)
        printf("%-4zu %-24s %6zu %5zu %8lld\n", i + 1, cas__text_printable(st[i].player),
               st[i].games, st[i].wins, (long long)st[i].points);
    if (n == 0)
        printf("     (no finished games yet)\n");
    if (sum.unfinished)
        printf("\nUnfinished: game %lld; continue with: castellan resume %lld\n",
               (long long)sum.unfinished, (long long)sum.unfinished);
    cas__saves_standings_free(st, n);
    free(sum.name);
    free(sum.last_played);
    return 0;
}

int cas__cmd_campaign(int argc, char **argv)
{
    struct cas__saves_args a;
    int status = cas__saves_args_parse(&a, "campaign", argc, argv, 0, 1, 2,
                                       campaign_usage);
    if (status >= 0)
        return status;
    const char *sub = a.positional[0];
    int is_list = strcmp(sub, "list") == 0, is_show = strcmp(sub, "show") == 0;
    if ((!is_list && !is_show) || (is_list && a.n_positional != 1) ||
        (is_show && a.n_positional != 2)) {
        fprintf(stderr, "castellan campaign: expected `list` or `show NAME`\n%s",
                campaign_usage);
        return 2;
    }
    struct cas__saves *s = cas__saves_args_open(&a, CAS__STORE_READ);
    if (!s)
        return 1;
    status = is_list ? campaign_list(&a, s) : campaign_show(&a, s, a.positional[1]);
    cas__saves_close(s);
    return status;
}
