/*
 * bench_saves.c — the save figures of `castellan bench`: how many actions
 * per second a bot game journals (each committed in its own transaction),
 * and how long resuming a finished-length game takes (open the store, load
 * the journal, load the plugins, replay and check every hash).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "journal.h"
#include "revive.h"

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* A new game of `game_id` between bots, seeded, with no actions yet. */
static int bot_game(const char *game_id, int nplayers, uint64_t seed,
                    struct cas__saves_game *g)
{
    static const char *const agents[] = {"random", "greedy"};
    memset(g, 0, sizeof *g);
    g->seed = seed;
    g->players = calloc((size_t)nplayers, sizeof *g->players);
    if (!g->players || !(g->game.id = strdup(game_id)) ||
        !(g->game.version = strdup("?")) || !(g->castellan_version = strdup("bench")))
        return CAS_ENOMEM;
    for (int i = 0; i < nplayers; i++, g->n_players++) {
        char name[16];
        snprintf(name, sizeof name, "Bot %d", i + 1);
        if (!(g->players[i].name = strdup(name)) ||
            !(g->players[i].agent = strdup(agents[i % 2])))
            return CAS_ENOMEM;
    }
    return CAS_OK;
}

/* Play one journaled bot game into s; *actions gets its length. */
static int journaled_game(struct cas__saves *s, const char *game_id,
                          const char *plugin_path, uint64_t seed, size_t *actions,
                          int64_t *id, FILE *err)
{
    struct cas__saves_game g;
    struct cas__revived r;
    struct cas__journal j;
    int rc = bot_game(game_id, 2, seed, &g);
    if (rc || (rc = cas__revive_open(&r, &g, "bench", plugin_path, 1))) {
        fprintf(err, "bench: %s\n", rc == CAS_ENOMEM ? "out of memory" : r.error);
        goto free_game;
    }
    free(g.game.version); /* journal the installed version */
    if (!(g.game.version = strdup(r.plan.game->version)) ||
        (rc = cas__journal_start(&j, s, &g))) {
        fprintf(err, "bench: %s\n", cas__saves_errmsg(s));
        goto close_game;
    }
    cas__journal_attach(&j, &r.session);
    rc = cas__session_run(&r.session);
    if (rc == CAS_OK)
        rc = cas__journal_end(&j, &r.session);
    if (rc)
        fprintf(err, "bench: %s %s\n", r.session.error, cas__saves_errmsg(s));
    *actions = r.session.ply;
    *id = j.game;
close_game:
    cas__revive_close(&r);
free_game:
    cas__saves_game_free(&g);
    return rc;
}

/* Open the store, load game id, bring its plugins back and replay it with
 * every hash checked: what `castellan resume` does before play goes on. */
static int resume_once(const char *db, int64_t id, const char *plugin_path)
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
    if ((rc = cas__revive_open(&r, &g, "bench", plugin_path, 1)))
        goto free_game;
    rc = cas__revive_replay(&r, g.n_actions, 0, NULL, NULL);
    cas__revive_close(&r);
free_game:
    cas__saves_game_free(&g);
close_store:
    cas__saves_close(s);
    return rc;
}

int cas__bench_saves(const char *game_id, const char *plugin_path, double seconds,
                     FILE *out)
{
    char dir[] = "/tmp/castellan-bench-XXXXXX", db[64], err[1024];
    struct cas__saves *s;
    size_t total = 0, actions = 0;
    int64_t id = 0;
    if (!mkdtemp(dir))
        return fprintf(out, "saves: cannot create a temporary folder\n"), CAS_EIO;
    snprintf(db, sizeof db, "%s/bench.db", dir);
    int rc = cas__saves_open(db, &s, err, sizeof err);
    if (rc) {
        fprintf(out, "saves: %s\n", err);
        goto remove_dir;
    }
    double start = now_seconds(), elapsed = 0;
    for (uint64_t seed = 1; !rc && (elapsed < seconds || seed == 1); seed++) {
        rc = journaled_game(s, game_id, plugin_path, seed, &actions, &id, out);
        total += actions;
        elapsed = now_seconds() - start;
    }
    cas__saves_close(s);
    if (rc)
        goto remove_files;
    fprintf(out, "saves: %s journaled %.0f actions/s (%zu actions, each its own "
            "transaction, in %.2f s)\n", game_id, (double)total / elapsed, total,
            elapsed);
    double best = 1e9;
    for (int i = 0; i < 5 && !rc; i++) {
        double t = now_seconds();
        rc = resume_once(db, id, plugin_path);
        t = now_seconds() - t;
        best = t < best ? t : best;
    }
    if (rc)
        fprintf(out, "saves: resume failed (%d)\n", rc);
    else
        fprintf(out, "saves: %s resume of a finished %zu-action game: %.2f ms "
                "(open, load, replay, check every hash; best of 5)\n", game_id,
                actions, best * 1e3);
remove_files:
    unlink(db);
    for (size_t i = 0; i < 2; i++) {
        char side[80];
        snprintf(side, sizeof side, "%s%s", db, i ? "-shm" : "-wal");
        unlink(side);
    }
remove_dir:
    rmdir(dir);
    return rc;
}
