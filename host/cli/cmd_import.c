/*
 * cmd_import.c — `castellan import FILE`: store a plain-text game record.
 * The record is validated completely before the store is even opened: its
 * plugins must be installed, every action legal and every hash equal, its
 * result the replay's.  Then, if the store passes PRAGMA integrity_check,
 * it is written in one transaction, so a bad record changes nothing.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "revive.h"
#include "saves_cli.h"

static const char usage[] =
    "usage: castellan import FILE [--database FILE] [--plugin-path DIR[:DIR...]]\n"
    "\n"
    "Replays the game record FILE (\"-\" for standard input; the format is in\n"
    "docs/saves.md) with the installed plugins, checking that every action\n"
    "is legal and every state hash the record gives equal (a record may give\n"
    "none, as one written by hand or by another program), then saves it as a\n"
    "new game with every hash.  Nothing is saved if anything is wrong.  Import\n"
    "never plays on: an unfinished game is saved where the record stops, and\n"
    "can be continued with `castellan resume ID`.\n";

/* The replayed outcome must agree with what the record claims; adopt the
 * replay's status and scores. */
static int settle_result(struct cas__revived *r, struct cas__saves_game *g,
                         const char *file)
{
    struct cas__session *s = &r->session;
    int over = s->match->vt->current(s->state) == CAS_ACTOR_TERMINAL;
    if (!over && g->status == CAS__SAVES_FINISHED) {
        fprintf(stderr, "castellan import: %s: says 'Status: finished', but the "
                "game is not over after its last action (ply %zu); remove the "
                "Status and Result lines to import it unfinished\n", file,
                g->n_actions);
        return 1;
    }
    if (!over)
        return 0;
    int64_t *scores = calloc(g->n_players, sizeof *scores);
    if (!scores || s->match->vt->returns(s->state, scores, g->n_players)) {
        free(scores);
        fprintf(stderr, "castellan import: %s: cannot read the final scores\n", file);
        return 1;
    }
    int status = 0;
    for (size_t i = 0; i < g->n_players && !status; i++) {
        if (g->players[i].has_score && g->players[i].score != scores[i]) {
            fprintf(stderr, "castellan import: %s: 'Result' gives %s %" PRId64
                    " points, the replay %" PRId64 "\n", file, g->players[i].name,
                    g->players[i].score, scores[i]);
            status = 1;
        }
        g->players[i].has_score = 1;
        g->players[i].score = scores[i];
    }
    g->status = CAS__SAVES_FINISHED;
    free(scores);
    return status;
}

/* After action i is replayed: its hash, where the record gave none, is the
 * one the game computed, so the stored journal checks every action. */
static int take_hash(void *ctx, struct cas__revived *r, size_t i)
{
    struct cas__saves_game *g = ctx;
    if (g->actions[i].hashless) {
        g->actions[i].hash = r->session.hash;
        g->actions[i].hashless = 0;
    }
    return CAS_OK;
}

/* Parse and replay the record; 0 when it may be stored. */
static int validate(const struct cas__saves_args *a, struct cas__saves_game *g)
{
    char err[1024];
    struct cas__revived r;
    const char *file = a->positional[0];
    if (cas__record_read_file(file, g, err, sizeof err)) {
        fprintf(stderr, "castellan import: %s\n", err);
        return 1;
    }
    if (cas__revive_open(&r, g, file, a->plugin_path, 0)) {
        fprintf(stderr, "castellan import: %s\n", r.error);
        return 1;
    }
    int status = 0;
    if (cas__revive_replay(&r, g->n_actions, 0, take_hash, g)) {
        fprintf(stderr, "castellan import: %s\n", r.error);
        status = 1;
    } else {
        status = settle_result(&r, g, file);
    }
    cas__revive_close(&r);
    return status;
}

int cas__cmd_import(int argc, char **argv)
{
    struct cas__saves_args a;
    struct cas__saves_game g;
    int status = cas__saves_args_parse(&a, "import", argc, argv,
                                       CAS__ARG_PLUGIN_PATH, 1, 1, usage);
    if (status >= 0)
        return status;
    status = validate(&a, &g);
    if (status)
        goto free_game;
    struct cas__saves *s = cas__saves_args_open(&a, 1);
    if (!s) {
        status = 1;
        goto free_game;
    }
    /* A store that is already damaged gets nothing more written into it. */
    if (cas__saves_integrity_check(s) || cas__saves_game_insert(s, &g))
        status = cas__saves_args_fail(&a, s);
    else
        printf("Imported %s as game %lld (%zu plies, %s).\n", a.positional[0],
               (long long)g.id, g.n_actions,
               g.status == CAS__SAVES_FINISHED ? "finished" : "unfinished");
    cas__saves_close(s);
free_game:
    cas__saves_game_free(&g);
    return status;
}
