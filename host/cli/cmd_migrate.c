/*
 * cmd_migrate.c — `castellan saves migrate FROM TO`: copy every game from
 * one save store to another, SQLite file or PostgreSQL URL, either way.
 *
 * Each game keeps its id, so `castellan resume ID` goes on naming the same
 * game.  Every copy is read back from TO and compared with the original as
 * its full record (header, players, scores, every action with its state
 * hash) and its last-played time: a copy that differs stops the migration.
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
    "after an interruption finishes the job.  FROM is only read.\n";

/* A game's full record and last-played time as text; caller frees. */
static char *fingerprint(const struct cas__saves_game *g, size_t *len)
{
    char *text = NULL;
    FILE *out = open_memstream(&text, len);
    if (!out)
        return NULL;
    int rc = cas__record_write(g, out, 1);
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

/* 1 when a and b are the same game, 0 when not, -1 on OOM. */
static int same_game(const struct cas__saves_game *a, const struct cas__saves_game *b,
                     uint64_t *hash)
{
    size_t la, lb;
    char *ta = fingerprint(a, &la), *tb = fingerprint(b, &lb);
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
        struct cas__saves_game there, here;
        uint64_t hash = 0;
        int rc = cas__saves_game_load(m->to, m->ids[i], 1, &there);
        if (rc == CAS_ENOTFOUND)
            continue;
        if (rc)
            return fail(m, m->to);
        if (cas__saves_game_load(m->from, m->ids[i], 1, &here)) {
            cas__saves_game_free(&there);
            return fail(m, m->from);
        }
        int same = same_game(&here, &there, &hash);
        cas__saves_game_free(&here);
        cas__saves_game_free(&there);
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

/* Copy game i, read it back and compare; prints its line. */
static int copy_one(struct migration *m, size_t i)
{
    struct cas__saves_game g, back;
    uint64_t hash = 0;
    int64_t id = m->ids[i];
    if (cas__saves_game_load(m->from, id, 1, &g))
        return fail(m, m->from);
    int status = 0;
    if (cas__saves_game_copy(m->to, &g)) {
        status = fail(m, m->to);
        goto free_game;
    }
    if (cas__saves_game_load(m->to, id, 1, &back)) {
        status = fail(m, m->to);
        goto free_game;
    }
    int same = same_game(&g, &back, &hash);
    cas__saves_game_free(&back);
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
           ")\n", i + 1, m->n, (long long)id, g.n_actions, hash);
free_game:
    cas__saves_game_free(&g);
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
    if (status || (status = check_targets(m, &present)))
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
