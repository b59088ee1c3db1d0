/*
 * bench_saves.c — the save figures of `castellan bench`: how many actions
 * per second a bot game journals (each committed in its own transaction),
 * and how long resuming a finished-length game takes (open the store, load
 * the journal, load the plugins, replay and check every hash): in a SQLite
 * file of its own and, with --database URL, in that PostgreSQL database in
 * the same run, on the same games (the bench deletes the games it made).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "bench.h"
#include "journal.h"
#include "revive.h"

/* A line continues, wrapped, under its text after "saves: ". */
static CAS_PRINTF(2, 3) void saves_line(struct cas__bench *b, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    cas__bench_vprint(b, (int)strlen("saves: "), fmt, args);
    va_end(args);
}

/* A new game of `game_id` between random bots (the cheapest players, so
 * the figure is the journal's), seeded, with no actions yet. */
static int bot_game(const char *game_id, const char *version, int nplayers,
                    uint64_t seed, struct cas__saves_game *g)
{
    memset(g, 0, sizeof *g);
    g->seed = seed;
    g->players = calloc((size_t)nplayers, sizeof *g->players);
    if (!g->players || !(g->game.id = strdup(game_id)) ||
        !(g->game.version = strdup(version)) || !(g->castellan_version = strdup("bench")))
        return CAS_ENOMEM;
    for (int i = 0; i < nplayers; i++, g->n_players++) {
        char name[16];
        snprintf(name, sizeof name, "Bot %d", i + 1);
        if (!(g->players[i].name = strdup(name)) ||
            !(g->players[i].agent = strdup("random")))
            return CAS_ENOMEM;
    }
    return CAS_OK;
}

/* Play one journaled bot game with seed `seed` on r's match into s:
 * g is its header (re-inserted as a new game).  *actions gets its length
 * and *id its row. */
static int journaled_game(struct cas__saves *s, struct cas__revived *r,
                          struct cas__saves_game *g, uint64_t seed, size_t *actions,
                          int64_t *id, FILE *out)
{
    struct cas__journal j;
    g->seed = seed;
    cas__session_free(&r->session);
    int rc = cas__session_init(&r->session, &r->match, seed, r->agents, r->names);
    if (rc == CAS_OK && (rc = cas__journal_start(&j, s, g)))
        fprintf(out, "saves: %s\n", cas__saves_errmsg(s));
    if (rc)
        return rc;
    cas__journal_attach(&j, &r->session);
    rc = cas__session_run(&r->session);
    if (rc == CAS_OK)
        rc = cas__journal_end(&j, &r->session);
    if (rc)
        fprintf(out, "saves: %s %s\n", r->session.error, cas__saves_errmsg(s));
    *actions = r->session.ply;
    *id = j.game;
    return rc;
}

/* Open the store, load game id, bring its plugins back and replay it with
 * every hash checked: what `castellan resume` does before play goes on. */
static int resume_once(const char *db, int64_t id)
{
    char err[1024];
    struct cas__saves *s;
    struct cas__saves_game g;
    struct cas__revived r;
    int rc = cas__saves_open(db, &s, err, sizeof err);
    if (rc)
        return rc;
    if ((rc = cas__saves_game_load(s, id, 1, &g)))
        goto close_store;
    if ((rc = cas__revive_open(&r, &g, "bench", NULL, cas__agent_new, NULL)))
        goto free_game;
    rc = cas__revive_replay(&r, g.n_actions, 0, NULL, NULL);
    cas__revive_close(&r);
free_game:
    cas__saves_game_free(&g);
close_store:
    cas__saves_close(s);
    return rc;
}

/* Journal bot games for about a second (at least one, at most b->games)
 * into the store at db; *id and *length get the last game's. */
static int bench_journal(struct cas__bench *b, const char *label, const char *db,
                         int64_t *id, size_t *length, int64_t *first)
{
    char err[1024];
    struct cas__saves *s;
    size_t total = 0;
    int rc = cas__saves_open(db, &s, err, sizeof err);
    if (rc) {
        saves_line(b, "saves: %s%s\n", label, err);
        return rc;
    }
    const struct cas_plugin *p = b->match->plugin;
    struct cas__saves_game g;
    struct cas__revived r;
    rc = bot_game(p->id, p->version, b->match->nplayers, b->seed, &g);
    if (rc || (rc = cas__revive_open(&r, &g, "bench", NULL, cas__agent_new, NULL))) {
        saves_line(b, "saves: %s\n", rc == CAS_ENOMEM ? "out of memory" : r.error);
        goto free_game;
    }
    double start = cas__bench_now(), elapsed = 0;
    for (int game = 0; !rc && game < b->games && (game == 0 || elapsed < 1.0); game++) {
        rc = journaled_game(s, &r, &g, b->seed + (uint64_t)game, length, id, b->out);
        if (game == 0)
            *first = *id;
        total += *length;
        elapsed = cas__bench_now() - start;
    }
    cas__revive_close(&r);
free_game:
    cas__saves_game_free(&g);
    cas__saves_close(s);
    if (rc == CAS_OK)
        saves_line(b, "saves: %s%.0f journaled actions/s (%zu actions of random games, "
                "each committed in its own transaction, in %.2f s)\n", label,
                (double)total / elapsed, total, elapsed);
    return rc;
}

/* The journal and resume figures of the store at db, lines headed by
 * label ("" for SQLite, whose lines stay as they always were). */
static int bench_store(struct cas__bench *b, const char *label, const char *db,
                       int64_t *first, int64_t *last)
{
    size_t length = 0;
    int rc = bench_journal(b, label, db, last, &length, first);
    double best = 1e9;
    for (int i = 0; i < 5 && rc == CAS_OK; i++) {
        double t = cas__bench_now();
        rc = resume_once(db, *last);
        t = cas__bench_now() - t;
        best = t < best ? t : best;
    }
    if (rc == CAS_OK)
        saves_line(b, "saves: %s%.2f ms to resume a finished %zu-action game (open "
                "the store, load the journal and the plugins, replay, check every "
                "hash; best of 5)\n", label, best * 1e3, length);
    else
        saves_line(b, "saves: %sfailed (%d)\n", label, rc);
    return rc;
}

/* Delete the games first..last the bench made in the database at url. */
static void remove_bench_games(const char *url, int64_t first, int64_t last)
{
    char err[1024];
    struct cas__saves *s;
    if (first <= 0 || cas__saves_open(url, &s, err, sizeof err))
        return;
    for (int64_t id = first; id <= last; id++) {
        struct cas__saves_game g;
        if (cas__saves_game_load(s, id, 0, &g) == CAS_OK &&
            strcmp(g.castellan_version, "bench") == 0)
            cas__saves_game_delete(s, id);
        cas__saves_game_free(&g);
    }
    cas__saves_close(s);
}

int cas__bench_saves(struct cas__bench *b)
{
    char dir[512], db[600];
    int64_t first = 0, last = 0;
    if (cas__bench_scratch(NULL, "bench.db", dir, db)) {
        saves_line(b, "saves: cannot create a temporary folder\n");
        return CAS_EIO;
    }
    int rc = bench_store(b, "", db, &first, &last);
    cas__bench_scratch_remove(dir, db);
    if (!b->pg_url) {
        saves_line(b, "saves: PostgreSQL: not measured; --database postgresql://... "
                   "names a database to measure beside SQLite\n");
        return rc;
    }
    first = last = 0;
    int pg = bench_store(b, "PostgreSQL: ", b->pg_url, &first, &last);
    remove_bench_games(b->pg_url, first, last);
    return rc ? rc : pg;
}
