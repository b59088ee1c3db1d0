/*
 * cmd_resume.c — `castellan resume ID`: continue an unfinished saved game
 * exactly where it stopped.  The journal is replayed with every hash
 * checked; a difference stops the resume and is explained (ply, hashes,
 * saved and installed versions) unless --force says to continue from there
 * with the installed plugins, whose hashes then replace the saved ones.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "cli.h"
#include "commands.h"
#include "journal.h"
#include "revive.h"
#include "saves_cli.h"
#include "term.h"
#include "watch.h"

static const char usage[] =
    "usage: castellan resume ID [--force] [--database FILE] [--plugin-path DIR[:DIR...]]\n"
    "                           [--watch FILE.svg]\n"
    "                           [--isolated | --in-process] [--plugin-deadline MS]\n"
    "\n"
    "Continues unfinished saved game ID (see `castellan saves list`) where\n"
    "it stopped: the journal is replayed and every state hash checked, then\n"
    "the players (humans and bots, as saved) go on, every action journaled.\n"
    "\n"
    "If a hash differs (a plugin changed since the game was saved), resume\n"
    "stops and names the ply and both versions.  --force continues from that\n"
    "ply with the installed plugins and records their hashes.\n"
    "\n"
    "--watch FILE.svg keeps FILE a picture of the board, rewritten whole after\n"
    "every action and undo, as with `castellan play`.\n"
    "\n" CAS__CLI_ISOLATION_HELP;

/* Whose private events the terminal may show: the one human, if exactly
 * one player is human; otherwise only public ones. */
static int terminal_viewer(const struct cas__saves_game *g)
{
    int viewer = CAS_VIEWER_PUBLIC;
    for (size_t i = 0; i < g->n_players; i++) {
        if (strcmp(g->players[i].agent, "human") != 0)
            continue;
        if (viewer != CAS_VIEWER_PUBLIC)
            return CAS_VIEWER_PUBLIC;
        viewer = (int)i;
    }
    return viewer;
}

/* Record the installed versions and their hashes from the first mismatch. */
static int record_forced(struct cas__saves *s, struct cas__revived *r)
{
    const struct cas__session_plan *p = &r->plan;
    struct cas__saves_game versions = {0};
    versions.game.version = p->game->version;
    versions.n_expansions = p->n_expansions;
    versions.expansions = calloc(p->n_expansions + 1, sizeof *versions.expansions);
    if (!versions.expansions)
        return CAS_ENOMEM;
    for (size_t i = 0; i < p->n_expansions; i++)
        versions.expansions[i].version = p->expansions[i]->version;
    int rc = cas__saves_rebase(s, r->saved->id, r->first_mismatch, r->new_hashes,
                               r->mismatches, &versions);
    free(versions.expansions); /* the strings are the plugins' */
    char installed[256];
    cas__revive_versions(r, 0, installed, sizeof installed);
    if (rc == CAS_OK)
        fprintf(stderr, "castellan resume: continuing with %s; the hashes from ply "
                "%" PRIu32 " on were re-recorded\n", installed, r->first_mismatch);
    return rc;
}

static int explain_divergence(const struct cas__revived *r, int64_t id)
{
    cas__term_message(stderr, "castellan resume: %s", r->error);
    if (r->version_changed)
        fprintf(stderr, "To continue from there with the installed plugins: "
                "castellan resume %lld --force\n", (long long)id);
    else
        fprintf(stderr, "That is a bug in the plugin or in castellan; please report "
                "it with the record from: castellan export %lld\n", (long long)id);
    return 1;
}

/* Play on from where the journal ends, journaling, until the game is over
 * or stopped; returns the exit status. */
/* A fault of the plugin's worker, replaying or playing on. */
struct resume_fault {
    const struct cas__session *session;
    const struct cas__journal *journal;
};

static void resume_fault(void *ctx, const struct cas__worker_fault *what)
{
    const struct resume_fault *f = ctx;
    cas__journal_fault_exit("resume", what->text, f->session, f->journal);
}

static int play_on(const struct cas__saves_args *a, struct cas__saves *s,
                   struct cas__revived *r, struct cas__journal *j)
{
    struct cas__session *session = &r->session;
    cas__journal_attach(j, session);
    session->out = stdout;
    session->viewer = terminal_viewer(r->saved);
    session->format = cas__term_format(stdout);
    struct cas__watch watch;
    if (a->watch)
        cas__watch_attach(&watch, session, "resume", a->watch);
    int rc = cas__session_run(session);
    int end = cas__journal_end(j, session);
    if (end)
        return cas__saves_args_fail(a, s);
    if (rc == CAS_OK) {
        cas__session_report_end(session);
        fprintf(stderr, "Game %lld is finished and saved.\n", (long long)j->game);
        return 0;
    }
    if (session->quit) { /* everything so far is saved */
        fprintf(stderr, "Game %lld is saved at ply %" PRIu32 "; continue with: "
                "castellan resume %lld\n", (long long)j->game, j->saved,
                (long long)j->game);
        return 0;
    }
    fprintf(stderr, "castellan resume: %s\nThe game is saved up to ply %" PRIu32
            "; continue with: castellan resume %lld\n", session->error,
            j->saved, (long long)j->game);
    return 1;
}

int cas__cmd_resume(int argc, char **argv)
{
    struct cas__saves_args a;
    struct cas__saves *s;
    struct cas__saves_game g;
    int64_t id;
    int status = cas__saves_args_load_game(&a, "resume", argc, argv,
                                           CAS__ARG_FORCE | CAS__ARG_PLUGIN_PATH |
                                               CAS__ARG_ISOLATION | CAS__ARG_WATCH,
                                           CAS__STORE_WRITE, usage,
                                           &s, &id, &g);
    if (status >= 0)
        return status;
    struct cas__revived r;
    char origin[64];
    status = 1;
    if (g.status == CAS__SAVES_FINISHED) {
        fprintf(stderr, "castellan resume: game %lld is finished (%zu plies); "
                "`castellan replay %lld` shows it\n", (long long)id, g.n_actions,
                (long long)id);
        goto free_game;
    }
    snprintf(origin, sizeof origin, "game %lld", (long long)id);
    if (cas__revive_open(&r, &g, origin, a.plugin_path, cas__agent_new, &a.isolation)) {
        cas__term_message(stderr, "castellan resume: %s", r.error);
        goto free_game;
    }
    struct cas__journal j = {.store = s, .game = id, .saved = (uint32_t)g.n_actions};
    struct resume_fault fault = {.session = &r.session, .journal = &j};
    r.match.on_fault = (struct cas__fault_handler){.fault = resume_fault, .ctx = &fault};
    int rc = cas__revive_replay(&r, g.n_actions, a.force, NULL, NULL);
    if (rc == CAS_EMISMATCH) {
        explain_divergence(&r, id);
        goto close_game;
    }
    if (rc) {
        cas__term_message(stderr, "castellan resume: %s", r.error);
        goto close_game;
    }
    if (r.mismatches && record_forced(s, &r)) {
        cas__saves_args_fail(&a, s);
        goto close_game;
    }
    status = play_on(&a, s, &r, &j);
close_game:
    cas__revive_close(&r);
free_game:
    cas__saves_game_free(&g);
    cas__saves_close(s);
    return status;
}
