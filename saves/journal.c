/*
 * journal.c — writing games into the store, on either backend: a game's
 * header with its players, each action in its own transaction as it
 * happens, the final scores, take-backs, the re-hashing a forced resume
 * needs and the claims of castellans sharing a store; which games a
 * connection's group commits marked as played this second.  What is checked
 * before a store is asked is checked here, once; the backends write
 * (sqlite_journal.c, pg_journal.c).
 */
#include <stdlib.h>
#include <string.h>

#include "saves_int.h"

#define TOUCHED_SLOTS 1024

struct cas__saves_touched {
    int64_t game[TOUCHED_SLOTS];
    int64_t second[TOUCHED_SLOTS];
};

int cas__saves_touched_before(struct cas__saves_touched **t, int64_t game, int64_t second)
{
    size_t slot = (size_t)(((uint64_t)game * UINT64_C(0x9E3779B97F4A7C15)) >> 54) % TOUCHED_SLOTS;
    if (*t && (*t)->game[slot] == game && (*t)->second[slot] == second)
        return 1;
    if (*t || (*t = calloc(1, sizeof **t))) {
        (*t)->game[slot] = game;
        (*t)->second[slot] = second;
    }
    return 0;
}

void cas__saves_touched_forget(struct cas__saves_touched **t)
{
    free(*t);
    *t = NULL;
}

const char *cas__saves_expansion_field(const void *items, size_t i, int which)
{
    const struct cas__saves_plugin_ref *e = items;
    return which ? e[i].version : e[i].id;
}

const char *cas__saves_option_field(const void *items, size_t i, int which)
{
    const struct cas__saves_option *o = items;
    return which ? o[i].value : o[i].key;
}

const char *cas__saves_player_field(const void *items, size_t i, int which)
{
    const struct cas__saves_player *p = items;
    return which ? p[i].agent : p[i].name;
}

static int check_plies(struct cas__saves *s, const struct cas__saves_game *g)
{
    for (size_t i = 0; i < g->n_actions; i++)
        if (g->actions[i].ply != i)
            return cas__saves_fail(s, CAS_EINVAL, "action %zu is numbered ply "
                                   "%u; plies must count from 0 without gaps",
                                   i, g->actions[i].ply);
    if (!g->game.id || !g->game.version)
        return cas__saves_fail(s, CAS_EINVAL, "a game needs an id and a version");
    return CAS_OK;
}

static int game_put(struct cas__saves *s, struct cas__saves_game *g, int keep_id)
{
    int rc = check_plies(s, g);
    return rc ? rc : CAS__SAVES_METHOD(s, game_put)(s, g, keep_id);
}

int cas__saves_game_insert(struct cas__saves *s, struct cas__saves_game *g)
{
    return game_put(s, g, 0);
}

int cas__saves_game_copy(struct cas__saves *s, struct cas__saves_game *g)
{
    return game_put(s, g, 1);
}

int cas__saves_append(struct cas__saves *s, int64_t id, uint32_t ply, int actor,
                      const char *text, uint64_t hash)
{
    return cas__saves_append_timed(s, id, ply, actor, text, hash, -1);
}

int cas__saves_append_timed(struct cas__saves *s, int64_t id, uint32_t ply, int actor,
                            const char *text, uint64_t hash, int64_t clock_ms)
{
    int rc = CAS__SAVES_METHOD(s, append)(s, id, ply, actor, text, hash, clock_ms);
    s->journal_commits += rc == CAS_OK;
    return rc;
}

struct cas__saves_entry *cas__saves_entry_new(int64_t game, uint32_t ply, int actor,
                                              const char *text, uint64_t hash,
                                              int64_t clock_ms, void *owner)
{
    struct cas__saves_entry *e = calloc(1, sizeof *e);
    if (!e || !(e->text = strdup(text))) {
        free(e);
        return NULL;
    }
    e->game = game;
    e->ply = ply;
    e->actor = actor;
    e->hash = hash;
    e->clock_ms = clock_ms;
    e->owner = owner;
    return e;
}

struct cas__saves_entry *cas__saves_call_new(int (*call)(struct cas__saves *s, void *owner),
                                             void *owner)
{
    struct cas__saves_entry *e = cas__saves_entry_new(0, 0, -1, "", 0, -1, owner);
    if (e) {
        e->kind = CAS__WRITE_CALL;
        e->call = call;
    }
    return e;
}

void cas__saves_entry_free(struct cas__saves_entry *e)
{
    if (!e)
        return;
    cas__saves_entry_free(e->more);
    free(e->text);
    free(e->scores);
    free(e->err);
    free(e);
}

static int write_result(struct cas__saves *s, const struct cas__saves_entry *e)
{
    int rc = e->actor >= 0 ? cas__saves_served_flag(s, e->game, e->actor, e->forfeit) : CAS_OK;
    return rc == CAS_OK ? cas__saves_finish(s, e->game, e->scores, e->n_scores) : rc;
}

int cas__saves_write_entry(struct cas__saves *s, struct cas__saves_entry *e)
{
    switch (e->kind) {
    case CAS__WRITE_TAKE_BACK:
        e->rc = cas__saves_take_back(s, e->game, e->ply);
        break;
    case CAS__WRITE_RESULT:
        e->rc = write_result(s, e);
        break;
    case CAS__WRITE_BOT:
        e->rc = cas__saves_served_bot(s, e->game, e->actor, e->text);
        break;
    case CAS__WRITE_CALL:
        s->err[0] = '\0';
        e->rc = e->call(s, e->owner);
        break;
    default:
        e->rc = cas__saves_append_timed(s, e->game, e->ply, e->actor, e->text, e->hash,
                                        e->clock_ms);
        break;
    }
    free(e->err);
    e->err = e->rc ? strdup(cas__saves_errmsg(s)) : NULL;
    return e->rc;
}

void cas__saves_entries_free(struct cas__saves_entry *list)
{
    while (list) {
        struct cas__saves_entry *next = list->next;
        cas__saves_entry_free(list);
        list = next;
    }
}

/* Link the actions journaled with each entry of list (more) into it by
 * next, after their entry, so a backend's batch sees one list. */
static void spread(struct cas__saves_entry *list)
{
    for (struct cas__saves_entry *e = list, *after; e; e = after) {
        after = e->next;
        for (struct cas__saves_entry *a = e; a->more; a = a->more)
            a->next = a->more;
        struct cas__saves_entry *last = e;
        while (last->more)
            last = last->more;
        last->next = after;
    }
}

/* Undo spread: list's entries linked by next again, their actions apart. */
static void gather(struct cas__saves_entry *list)
{
    for (struct cas__saves_entry *e = list; e; e = e->next) {
        struct cas__saves_entry *last = e;
        while (last->more) {
            last->next = NULL;
            last = last->more;
        }
        e->next = last->next;
        if (last != e)
            last->next = NULL;
    }
}

int cas__saves_append_batch(struct cas__saves *s, struct cas__saves_entry *list)
{
    if (!list)
        return CAS_OK;
    spread(list);
    int rc = CAS__SAVES_METHOD(s, append_batch)(s, list);
    for (struct cas__saves_entry *e = list; e; e = e->next)
        e->rc = rc;
    gather(list);
    s->journal_commits += rc == CAS_OK;
    return rc;
}

uint64_t cas__saves_journal_commits(const struct cas__saves *s)
{
    return s->journal_commits;
}

int cas__saves_take_back(struct cas__saves *s, int64_t id, uint32_t from_ply)
{
    return CAS__SAVES_METHOD(s, take_back)(s, id, from_ply);
}

int cas__saves_finish(struct cas__saves *s, int64_t id, const int64_t *scores, size_t n)
{
    return CAS__SAVES_METHOD(s, finish)(s, id, scores, n);
}

int cas__saves_touch(struct cas__saves *s, int64_t id)
{
    return CAS__SAVES_METHOD(s, touch)(s, id);
}

int cas__saves_rebase(struct cas__saves *s, int64_t id, uint32_t from_ply,
                      const uint64_t *hashes, size_t n,
                      const struct cas__saves_game *versions)
{
    return CAS__SAVES_METHOD(s, rebase)(s, id, from_ply, hashes, n, versions);
}

int cas__saves_game_claim(struct cas__saves *s, int64_t id)
{
    return s->claims ? cas__saves_claim_through(s, id, 1) : CAS__SAVES_METHOD(s, claim)(s, id, 1);
}

int cas__saves_game_release(struct cas__saves *s, int64_t id)
{
    return s->claims ? cas__saves_claim_through(s, id, 0) : CAS__SAVES_METHOD(s, claim)(s, id, 0);
}

int cas__saves_shared(const struct cas__saves *s)
{
    return s->methods->shared;
}
