/*
 * cmd_migrate.c — `castellan saves migrate FROM TO`: copy every game from
 * one save store to another, SQLite file or PostgreSQL URL, either way.
 *
 * Each game keeps its id, so `castellan resume ID` goes on naming the same
 * game.  Every copy is read back from TO and compared with the original as
 * its full record (header, players, scores, every action with its state
 * hash), the clocks of timed actions, what `castellan serve` keeps of it
 * (time control, seats' tokens), the registered players who took its seats
 * and its last-played time: a copy that differs stops the migration.
 * The registered players are copied first, each under its own number with
 * its key's hash, so their sign-in links keep working.
 * A game already in TO under the same id is skipped when it is the same
 * game (a migration run again after an interruption), and refused before
 * anything is copied when it is another.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "saves_cli.h"

#include "cli.h"

static const char migrate_usage[] =
    "usage: castellan saves migrate FROM TO\n"
    "\n"
    "Copies every game of the save store FROM into the store TO, each under\n"
    "its own id, oldest first.  Either may be a SQLite file or a PostgreSQL\n"
    "URL (postgresql://USER@HOST/DATABASE); TO is created if it does not\n"
    "exist.  Every copy is read back and compared with the original, action\n"
    "for action and hash for hash, and a line per game says so.  A game\n"
    "already in TO under the same id is skipped if it is the same game and\n"
    "refused, before anything is copied, if it is another: migrating again\n"
    "after an interruption finishes the job.  The registered players\n"
    "(castellan players) are copied too, with their keys' hashes: their\n"
    "sign-in links keep working.  FROM is only read.\n";

/* A game's full record, its actions' clocks, what serve keeps of it (NULL:
 * nothing) and its last-played time as text; caller frees. */
static char *fingerprint(const struct cas__saves_game *g, const struct cas__saves_served *v,
                         size_t *len)
{
    char *text = NULL;
    FILE *out = open_memstream(&text, len);
    if (!out)
        return NULL;
    int rc = cas__record_write(g, out, 1);
    for (size_t i = 0; i < g->n_players; i++)
        if (g->players[i].registered)
            fprintf(out, "Registered: %zu %s\n", i, g->players[i].registered);
    for (size_t i = 0; i < g->n_actions; i++)
        if (g->actions[i].has_clock)
            fprintf(out, "Clock: %zu %lld\n", i, (long long)g->actions[i].clock_ms);
    if (v) {
        fprintf(out, "Served: %lld+%lld flagged %d forfeit %d practice %d nonce %s days %d "
                "first %lld\n", (long long)v->base_ms, (long long)v->increment_ms, v->flagged,
                v->forfeit, v->practice, v->seed_nonce ? v->seed_nonce : "-", v->days_per_move,
                (long long)v->first_deadline);
        for (size_t i = 0; i < v->n_seats; i++)
            fprintf(out, "Seat: %zu %s %d %s\n", i, v->seats[i].token, v->seats[i].open,
                    v->seats[i].bot ? v->seats[i].bot : "-");
    }
    fprintf(out, "Updated: %s\n", g->updated_at ? g->updated_at : "");
    if (fclose(out) != 0 || rc != CAS_OK) {
        free(text);
        return NULL;
    }
    return text;
}

/* FNV-1a of the fingerprint, to print. */
static uint64_t digest(const char *text, size_t len)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)text[i]) * 0x100000001b3u;
    return h;
}

/* A game with what serve keeps of it (served.game 0: nothing). */
struct whole_game {
    struct cas__saves_game g;
    struct cas__saves_served served;
};

static void whole_free(struct whole_game *w)
{
    cas__saves_game_free(&w->g);
    cas__saves_served_free(&w->served);
}

/* Load game id whole from s; as cas__saves_game_load. */
static int whole_load(struct cas__saves *s, int64_t id, struct whole_game *w)
{
    memset(w, 0, sizeof *w);
    int rc = cas__saves_game_load(s, id, 1, &w->g);
    if (rc)
        return rc;
    rc = cas__saves_served_load(s, id, &w->served);
    if (rc == CAS_ENOTFOUND) {
        memset(&w->served, 0, sizeof w->served);
        return CAS_OK;
    }
    if (rc)
        cas__saves_game_free(&w->g);
    return rc;
}

/* 1 when a and b are the same game, 0 when not, -1 on OOM. */
static int same_game(const struct whole_game *a, const struct whole_game *b, uint64_t *hash)
{
    size_t la, lb;
    char *ta = fingerprint(&a->g, a->served.game ? &a->served : NULL, &la);
    char *tb = fingerprint(&b->g, b->served.game ? &b->served : NULL, &lb);
    int same = ta && tb ? la == lb && memcmp(ta, tb, la) == 0 : -1;
    if (ta)
        *hash = digest(ta, la);
    free(ta);
    free(tb);
    return same;
}

struct migration {
    const char *cmd;
    struct cas__saves *from, *to;
    int64_t *ids;        /* FROM's games, oldest first */
    size_t n;
    unsigned char *skip; /* already in TO, the same */
};

static int fail(const struct migration *m, struct cas__saves *s)
{
    fprintf(stderr, "%s: %s\n", m->cmd, cas__saves_errmsg(s));
    return 1;
}

/* Look at every game's id in TO before copying anything. */
static int check_targets(struct migration *m, size_t *present)
{
    *present = 0;
    for (size_t i = 0; i < m->n; i++) {
        struct whole_game there, here;
        uint64_t hash = 0;
        int rc = whole_load(m->to, m->ids[i], &there);
        if (rc == CAS_ENOTFOUND)
            continue;
        if (rc)
            return fail(m, m->to);
        if (whole_load(m->from, m->ids[i], &here)) {
            whole_free(&there);
            return fail(m, m->from);
        }
        int same = same_game(&here, &there, &hash);
        whole_free(&here);
        whole_free(&there);
        if (same < 0) {
            fprintf(stderr, "%s: out of memory\n", m->cmd);
            return 1;
        }
        if (!same) {
            fprintf(stderr, "%s: %s already holds another game with id %lld; nothing "
                    "was copied: migrate into a new store, or delete that game there "
                    "(castellan saves delete %lld --database %s)\n", m->cmd,
                    cas__saves_path(m->to), (long long)m->ids[i], (long long)m->ids[i],
                    cas__saves_path(m->to));
            return 1;
        }
        m->skip[i] = 1;
        (*present)++;
    }
    return 0;
}

/* What serve keeps of game w into `to`, flag fall (or forfeit) included. */
static int copy_served(struct cas__saves *to, const struct whole_game *w)
{
    int rc = cas__saves_served_insert(to, &w->served);
    if (rc == CAS_OK && w->served.flagged >= 0)
        rc = cas__saves_served_flag(to, w->served.game, w->served.flagged,
                                    w->served.forfeit);
    return rc;
}

/* The registered players of FROM into TO, before the games that name them. */
static int copy_players(struct migration *m)
{
    struct cas__saves_registered *r;
    size_t n;
    if (cas__saves_registered_list(m->from, &r, &n))
        return fail(m, m->from);
    int status = 0;
    for (size_t i = 0; i < n && !status; i++)
        if (cas__saves_registered_copy(m->to, &r[i]))
            status = fail(m, m->to);
    if (!status && n)
        printf("%zu registered player%s copied and checked; their sign-in links keep "
               "working\n", n, n == 1 ? "" : "s");
    cas__saves_registered_list_free(r, n);
    return status;
}

/* Which registered player took each seat of w, as in FROM (the players
 * keep their numbers and names in TO). */
static int copy_seat_players(struct cas__saves *to, const struct whole_game *w)
{
    for (size_t i = 0; i < w->g.n_players; i++) {
        struct cas__saves_registered r;
        if (!w->g.players[i].registered)
            continue;
        int rc = cas__saves_registered_find(to, w->g.players[i].registered, &r);
        if (rc == CAS_OK)
            rc = cas__saves_seat_register(to, w->g.id, (int)i, r.id);
        cas__saves_registered_free(&r);
        if (rc)
            return rc;
    }
    return CAS_OK;
}

/* Copy game i, read it back and compare; prints its line. */
static int copy_one(struct migration *m, size_t i)
{
    struct whole_game w, back;
    uint64_t hash = 0;
    int64_t id = m->ids[i];
    if (whole_load(m->from, id, &w))
        return fail(m, m->from);
    int status = 0;
    if (cas__saves_game_copy(m->to, &w.g) || (w.served.game && copy_served(m->to, &w)) ||
        copy_seat_players(m->to, &w)) {
        status = fail(m, m->to);
        goto free_game;
    }
    if (whole_load(m->to, id, &back)) {
        status = fail(m, m->to);
        goto free_game;
    }
    int same = same_game(&w, &back, &hash);
    whole_free(&back);
    if (same != 1) {
        fprintf(stderr, "%s: game %lld %s; the copy stays in %s for a look: remove it "
                "with castellan saves delete %lld\n", m->cmd, (long long)id,
                same < 0 ? "could not be compared (out of memory)"
                         : "reads back differently from the original",
                cas__saves_path(m->to), (long long)id);
        status = 1;
        goto free_game;
    }
    printf("[%zu/%zu] game %lld: %zu actions copied and checked (record %016" PRIx64
           ")\n", i + 1, m->n, (long long)id, w.g.n_actions, hash);
free_game:
    whole_free(&w);
    return status;
}

static int migrate_all(struct migration *m)
{
    size_t present, copied = 0;
    int status = cas__saves_game_ids(m->from, NULL, &m->ids, &m->n) ? fail(m, m->from) : 0;
    for (size_t i = 0; !status && i < m->n / 2; i++) { /* newest first: turn round */
        int64_t t = m->ids[i];
        m->ids[i] = m->ids[m->n - 1 - i];
        m->ids[m->n - 1 - i] = t;
    }
    if (!status && !(m->skip = calloc(m->n ? m->n : 1, 1))) {
        fprintf(stderr, "%s: out of memory\n", m->cmd);
        status = 1;
    }
    if (status || (status = check_targets(m, &present)) || (status = copy_players(m)))
        return status;
    printf("%zu games in %s; %zu of them already in %s\n", m->n, cas__saves_path(m->from),
           present, cas__saves_path(m->to));
    for (size_t i = 0; i < m->n && !status; i++) {
        if (m->skip[i]) {
            printf("[%zu/%zu] game %lld: already there, the same\n", i + 1, m->n,
                   (long long)m->ids[i]);
            continue;
        }
        if (!(status = copy_one(m, i)))
            copied++;
    }
    if (!status)
        printf("%zu games copied into %s and checked\n", copied, cas__saves_path(m->to));
    return status;
}

int cas__cmd_saves_migrate(int argc, char **argv)
{
    struct migration m = {.cmd = "castellan saves migrate"};
    const char *positional[3];
    size_t n = 0;
    int done;
    char err[1024];
    int status = cas__cli_parse("saves migrate", argc, argv, NULL, 0, positional, 3, &n,
                                migrate_usage, &done);
    if (status || done)
        return status;
    if (n != 2) {
        fprintf(stderr, "%s: name two stores, FROM and TO\n%s", m.cmd, migrate_usage);
        return 2;
    }
    if (strcmp(positional[0], positional[1]) == 0) {
        fprintf(stderr, "%s: FROM and TO are the same store (%s); name another TO\n",
                m.cmd, positional[0]);
        return 2;
    }
    if (cas__saves_open_read(positional[0], &m.from, err, sizeof err) ||
        cas__saves_open(positional[1], &m.to, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", m.cmd, err);
        status = 1;
    } else {
        status = migrate_all(&m);
    }
    free(m.ids);
    free(m.skip);
    cas__saves_close(m.from);
    cas__saves_close(m.to);
    return status;
}
