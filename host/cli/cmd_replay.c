/*
 * cmd_replay.c — `castellan replay ID [--step]`: show a saved game action
 * by action, as it was played, checking every hash on the way.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "results_json.h"
#include "revive.h"
#include "saves_cli.h"

static const char usage[] =
    "usage: castellan replay ID [--step] [--database FILE] [--plugin-path DIR[:DIR...]]\n"
    "       castellan replay ID --json [--ply N] [--database FILE] [--plugin-path DIR]\n"
    "\n"
    "Shows saved game ID action by action with the events it caused, then\n"
    "the final board and scores of a finished game.  --step waits for Enter\n"
    "after each action (q and Enter stops).  Every state hash is checked.\n"
    "--json writes it for programs instead (docs/results.schema.json): the\n"
    "players, every event and action, and the scores after ply N (default:\n"
    "the last).\n";

#define STOPPED 1 /* the viewer asked to stop: not an error */

static int wait_for_enter(void *ctx, struct cas__revived *r, size_t i)
{
    char line[64];
    (void)ctx;
    fprintf(stdout, "-- ply %zu of %zu; Enter: next, q: stop -- ", i + 1,
            r->saved->n_actions);
    fflush(stdout);
    if (!fgets(line, sizeof line, stdin) || line[0] == 'q')
        return STOPPED;
    return 0;
}

static void print_heading(const struct cas__saves_game *g)
{
    printf("Game %lld: %s %s", (long long)g->id, g->game.id, g->game.version);
    for (size_t i = 0; i < g->n_expansions; i++)
        printf(" + %s %s", g->expansions[i].id, g->expansions[i].version);
    printf(", seed %" PRIu64 ", %zu plies\n", g->seed, g->n_actions);
    for (size_t i = 0; i < g->n_players; i++)
        printf("  %s (%s)\n", g->players[i].name, g->players[i].agent);
}

static int show(struct cas__revived *r, int step)
{
    const struct cas__saves_game *g = r->saved;
    struct cas__session *s = &r->session;
    s->out = stdout;
    /* A finished game hides nothing any more; an unfinished one may still
     * be resumed, so its hands stay hidden. */
    s->viewer = g->status == CAS__SAVES_FINISHED ? CAS_VIEWER_OMNISCIENT
                                                : CAS_VIEWER_PUBLIC;
    print_heading(g);
    int rc = cas__revive_replay(r, g->n_actions, 0, step ? wait_for_enter : NULL, NULL);
    if (rc == STOPPED)
        return 0;
    if (rc) {
        fprintf(stderr, "castellan replay: %s\n", r->error);
        return 1;
    }
    if (cas__match_current(s->match, s->state) == CAS_ACTOR_TERMINAL)
        cas__session_report_end(s);
    else
        printf("Unfinished at ply %zu; continue with: castellan resume %lld\n",
               g->n_actions, (long long)g->id);
    return 0;
}

int cas__cmd_replay(int argc, char **argv)
{
    struct cas__saves_args a;
    struct cas__saves *s;
    struct cas__saves_game g;
    int64_t id;
    int status = cas__saves_args_load_game(&a, "replay", argc, argv,
                                           CAS__ARG_STEP | CAS__ARG_PLUGIN_PATH | CAS__ARG_JSON |
                                               CAS__ARG_PLY,
                                           CAS__STORE_READ, usage, &s, &id, &g);
    if (status >= 0)
        return status;
    if (a.json || a.ply) {
        cas__saves_close(s);
        status = cas__results_json_command(&a, &g, 1);
        cas__saves_game_free(&g);
        return status;
    }
    struct cas__revived r;
    char origin[64];
    status = 1;
    cas__saves_close(s); /* replaying only reads what is loaded */
    snprintf(origin, sizeof origin, "game %lld", (long long)id);
    if (cas__revive_open(&r, &g, origin, a.plugin_path, 0, NULL)) {
        fprintf(stderr, "castellan replay: %s\n", r.error);
        goto free_game;
    }
    status = show(&r, a.step);
    cas__revive_close(&r);
free_game:
    cas__saves_game_free(&g);
    return status;
}
