/*
 * journal.c — journaling a session into the save store: the action hook
 * and the bookkeeping at the start and end of a game.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "journal.h"
#include "registry.h"
#include "session_plan.h"

#ifndef CASTELLAN_VERSION
#error "CASTELLAN_VERSION must be defined by the build"
#endif

static char *dup_or_null(const char *text)
{
    return text ? strdup(text) : NULL;
}

static int describe_ref(struct cas__saves_plugin_ref *ref,
                        const struct cas__plugin_info *info)
{
    ref->id = strdup(info->id);
    ref->version = strdup(info->version);
    return ref->id && ref->version ? CAS_OK : CAS_ENOMEM;
}

static int describe_players(const struct cas__session_desc *desc,
                            struct cas__saves_game *g)
{
    g->players = calloc(desc->n_players ? desc->n_players : 1, sizeof *g->players);
    if (!g->players)
        return CAS_ENOMEM;
    for (size_t i = 0; i < desc->n_players; i++, g->n_players++) {
        g->players[i].name = strdup(desc->players[i].name);
        g->players[i].agent = strdup(desc->players[i].agent);
        if (!g->players[i].name || !g->players[i].agent)
            return CAS_ENOMEM;
    }
    return CAS_OK;
}

static int describe_rules(const struct cas__session_desc *desc,
                          struct cas__saves_game *g)
{
    g->options = calloc(desc->n_rules ? desc->n_rules : 1, sizeof *g->options);
    if (!g->options)
        return CAS_ENOMEM;
    for (size_t i = 0; i < desc->n_rules; i++, g->n_options++) {
        g->options[i].key = strdup(desc->rules[i].key);
        g->options[i].value = strdup(desc->rules[i].value);
        if (!g->options[i].key || !g->options[i].value)
            return CAS_ENOMEM;
    }
    return CAS_OK;
}

int cas__journal_describe(const struct cas__session_desc *desc,
                          const struct cas__plugin_info *game,
                          struct cas__plugin_info *const *expansions, size_t n,
                          uint64_t seed, struct cas__saves_game *out)
{
    struct cas__saves_game *g = out;
    memset(g, 0, sizeof *g);
    g->seed = seed;
    g->status = CAS__SAVES_PLAYING;
    g->expansions = calloc(n ? n : 1, sizeof *g->expansions);
    int rc = CAS_ENOMEM;
    if (!g->expansions || !(g->castellan_version = strdup(CASTELLAN_VERSION)) ||
        (desc->campaign && !(g->campaign = strdup(desc->campaign))) ||
        (desc->text && !(g->config_text = dup_or_null(desc->text))))
        goto fail;
    if ((rc = describe_ref(&g->game, game)))
        goto fail;
    for (size_t i = 0; i < n; i++, g->n_expansions++)
        if ((rc = describe_ref(&g->expansions[i], expansions[i])))
            goto fail;
    if ((rc = describe_players(desc, g)) || (rc = describe_rules(desc, g)))
        goto fail;
    return CAS_OK;
fail:
    cas__saves_game_free(g);
    return rc;
}

int cas__journal_start(struct cas__journal *j, struct cas__saves *store,
                       struct cas__saves_game *header)
{
    j->store = store;
    j->game = 0;
    j->saved = 0;
    int rc = cas__saves_game_insert(store, header);
    if (rc == CAS_OK) {
        j->game = header->id;
        j->saved = (uint32_t)header->n_actions;
    }
    return rc;
}

static int journal_action(void *ctx, uint32_t ply, int actor, const char *text,
                          uint64_t hash_after, char *err, size_t errlen)
{
    struct cas__journal *j = ctx;
    int rc = cas__saves_append(j->store, j->game, ply, actor, text, hash_after);
    if (rc == CAS_OK)
        j->saved = ply + 1;
    else
        snprintf(err, errlen, "%s", cas__saves_errmsg(j->store));
    return rc;
}

static int journal_undo(void *ctx, uint32_t from_ply)
{
    struct cas__journal *j = ctx;
    return cas__saves_take_back(j->store, j->game, from_ply);
}

void cas__journal_attach(struct cas__journal *j, struct cas__session *s)
{
    s->hooks.ctx = j;
    s->hooks.on_action = journal_action;
    s->hooks.on_undo = journal_undo;
}

int cas__journal_end(struct cas__journal *j, struct cas__session *s)
{
    struct cas__match *m = s->match;
    if (j->saved != s->ply)
        return CAS_OK; /* an action was not saved: the store keeps what it has */
    if (cas__match_current(m, s->state) != CAS_ACTOR_TERMINAL)
        return cas__saves_touch(j->store, j->game);
    size_t n = (size_t)m->nplayers;
    int64_t *scores = calloc(n, sizeof *scores);
    if (!scores)
        return cas__saves_explain(j->store, CAS_ENOMEM, "out of memory");
    int rc = m->vt->returns(s->state, scores, n);
    if (rc != CAS_OK)
        cas__saves_explain(j->store, rc, cas__match_reason(m, rc));
    else
        rc = cas__saves_finish(j->store, j->game, scores, n);
    free(scores);
    return rc;
}

/* ------------------------------------------------- castellan play */

static int open_play_store(struct cas__play_journal *pj,
                           const struct cas__session_desc *desc)
{
    char err[1024];
    char *fallback = NULL;
    const char *path = desc->database;
    if (!path && !(path = fallback = cas__saves_default_path())) {
        if (getenv("XDG_DATA_HOME") || getenv("HOME"))
            fprintf(stderr, "castellan play: cannot save the game: out of memory\n");
        else
            fprintf(stderr, "castellan play: cannot save the game: neither XDG_DATA_HOME "
                    "nor HOME is set; name a file in [saves] database, or play with "
                    "--no-save\n");
        return CAS_EIO;
    }
    int rc = cas__saves_open(path, &pj->store, err, sizeof err);
    if (rc)
        fprintf(stderr, "castellan play: cannot save the game: %s\n(play with "
                "--no-save to play without saving)\n", err);
    free(fallback);
    return rc;
}

int cas__play_journal_begin(struct cas__play_journal *pj,
                            const struct cas__session_desc *desc,
                            const struct cas__session_plan *plan,
                            struct cas__session *s, int no_save)
{
    struct cas__saves_game header;
    memset(pj, 0, sizeof *pj);
    if (no_save || !desc->journal)
        return CAS_OK;
    int rc = open_play_store(pj, desc);
    if (rc)
        return rc;
    rc = cas__journal_describe(desc, plan->game, plan->expansions, plan->n_expansions,
                               s->seed, &header);
    if (rc) /* it frees what it made */
        fprintf(stderr, "castellan play: cannot save the game: out of memory\n");
    if (rc == CAS_OK && (rc = cas__journal_start(&pj->j, pj->store, &header)))
        fprintf(stderr, "castellan play: cannot save the game: %s\n",
                cas__saves_errmsg(pj->store));
    cas__saves_game_free(&header);
    if (rc) {
        cas__saves_close(pj->store);
        pj->store = NULL;
        return rc;
    }
    cas__journal_attach(&pj->j, s);
    return CAS_OK;
}

int cas__play_journal_end(struct cas__play_journal *pj, struct cas__session *s, int rc)
{
    if (!pj->store)
        return CAS_OK;
    int end = cas__journal_end(&pj->j, s);
    if (end)
        fprintf(stderr, "castellan play: cannot save the result: %s\n",
                cas__saves_errmsg(pj->store));
    else if (rc != CAS_OK && s->out) /* stderr: stdout is the game's transcript */
        fprintf(stderr, "Game %lld is saved at ply %" PRIu32 "; continue with: "
                "castellan resume %lld\n", (long long)pj->j.game, pj->j.saved,
                (long long)pj->j.game);
    cas__saves_close(pj->store);
    pj->store = NULL;
    return end;
}

void cas__journal_fault_exit(const char *command, const char *what,
                             const struct cas__session *s, const struct cas__journal *j)
{
    uint32_t saved = j ? j->saved : s->ply;
    uint32_t ply = (s->ply < saved ? s->ply : saved) + 1;
    fflush(stdout);
    if (j)
        fprintf(stderr, "castellan %s: %s at ply %" PRIu32 "; the game is saved up to ply "
                "%" PRIu32 "; resume with: castellan resume %lld\n", command, what, ply,
                saved, (long long)j->game);
    else
        fprintf(stderr, "castellan %s: %s at ply %" PRIu32 "; the game was not saved\n",
                command, what, ply);
    exit(1);
}
