/*
 * create.c — creating and adopting the games the server hosts: a create
 * request (a preset, or a game with its expansions, rules, seats and seed)
 * or play --web's description checked against the plugins, inserted into
 * the store with the seats' tokens and the committed seed, and opened as
 * a restarted server opens it (cas__table_restore); a game of the terminal
 * adopted the same way.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prng.h"
#include "session_fields.h"
#include "table.h"

static int is_preset_name(const char *name)
{
    if (!name[0] || strlen(name) > 64)
        return 0;
    for (const char *p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' || *p == '_'))
            return 0;
    return 1;
}

/* The session the create request describes, into desc. */
static int describe(struct cas__lobby *l, const struct cas__req *req,
                    struct cas__session_desc *desc, const char **code, char *msg,
                    size_t msglen)
{
    char err[768];
    int rc = CAS_OK;
    memset(desc, 0, sizeof *desc);
    desc->journal = 1;
    if (req->preset) {
        char path[4096];
        if (req->game_id)
            return cas__srv_refuse(code, "bad-config", msg, msglen, "give either \"preset\" or "
                                   "\"game\", not both");
        if (!is_preset_name(req->preset) || !l->preset_dir)
            return cas__srv_refuse(code, "bad-config", msg, msglen, "there is no preset \"%.64s\"; "
                                   "the lobby lists the presets", req->preset);
        snprintf(path, sizeof path, "%s/%s.ini", l->preset_dir, req->preset);
        if (cas__session_desc_load(path, desc, err, sizeof err) != CAS_OK)
            return cas__srv_refuse(code, "bad-config", msg, msglen, "preset \"%s\": %s",
                                   req->preset, err);
    } else if ((rc = cas__desc_set_game(desc, "create: game", req->game_id, err, sizeof err))) {
        goto bad;
    }
    if (req->n_expansions) {
        char list[CAS__REQ_MAX_LIST * 66] = "";
        for (size_t i = 0; i < req->n_expansions; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? "," : "",
                     req->expansions[i]);
        if ((rc = cas__desc_set_expansions(desc, "create: expansions", list, err, sizeof err)))
            goto bad;
    }
    for (size_t i = 0; i < req->n_rules; i++)
        if ((rc = cas__desc_add_rule(desc, "create: rules", req->rules[i][0], req->rules[i][1],
                                     0, err, sizeof err)))
            goto bad;
    if (req->n_seats) {
        for (size_t i = 0; i < desc->n_players; i++) {
            free(desc->players[i].name);
            free(desc->players[i].agent);
        }
        desc->n_players = 0;
    }
    for (size_t i = 0; i < req->n_seats; i++) {
        const struct cas__req_seat *s = &req->seats[i];
        const char *agent = strcmp(s->agent, "open") == 0 ? "human" : s->agent;
        if ((rc = cas__desc_add_player(desc, 0, err, sizeof err)) ||
            (s->name && (rc = cas__desc_set_player_name(&desc->players[i], "create: seats",
                                                        s->name, err, sizeof err))) ||
            (rc = cas__desc_set_player_agent(&desc->players[i], "create: seats", agent, err,
                                             sizeof err)))
            goto bad;
    }
    if ((req->seed && (rc = cas__desc_set_seed(desc, "create: seed", req->seed, err,
                                               sizeof err))) ||
        (rc = cas__desc_default_names(desc, err, sizeof err)))
        goto bad;
    return CAS_OK;
bad:
    cas__session_desc_free(desc);
    return cas__srv_refuse(code, rc == CAS_ENOMEM ? "internal" : "bad-config", msg, msglen,
                           "%s", err);
}

/* The server commits to the seed of a game it hosts: a fresh secret kept
 * beside it, whose hash with the seed players see from the start. */
static int commit_seed(struct cas__saves_served *served)
{
    char nonce[2 * CAS__SEED_NONCE_BYTES + 1];
    int rc = cas__random_hex(nonce, CAS__SEED_NONCE_BYTES);
    if (rc == CAS_OK && !(served->seed_nonce = strdup(nonce)))
        rc = CAS_ENOMEM;
    return rc;
}

/* Insert the described game and the server's record of it; the seats'
 * clear tokens into *invites. */
static int insert_game(struct cas__lobby *l, const struct cas__table_params *params,
                       const struct cas__session_desc *desc,
                       const struct cas__session_plan *plan, int64_t *id,
                       struct cas__invites *invites, char *msg, size_t msglen)
{
    struct cas__saves_game header;
    struct cas__saves_served served = {0};
    struct cas__journal j;
    uint64_t seed = desc->seed_given ? desc->seed : cas__prng_fresh_seed();
    int rc = cas__journal_describe(desc, plan->game, plan->expansions, plan->n_expansions,
                                   seed, &header);
    if (rc) {
        snprintf(msg, msglen, "out of memory");
        return rc;
    }
    if ((rc = cas__journal_start(&j, l->store, &header)))
        goto store_failed;
    /* Claimed before its served row makes it a game another server on the
     * same database could take over; cas__table_create hands it on. */
    if ((rc = cas__saves_game_claim(l->store, j.game))) {
        cas__saves_game_delete(l->store, j.game);
        goto store_failed;
    }
    rc = cas__invites_mint(invites, desc->n_players, &served);
    served.game = j.game;
    served.base_ms = params->has_clock ? params->base_ms : 0;
    served.increment_ms = params->has_clock ? params->increment_ms : 0;
    served.days_per_move = params->has_clock ? 0 : params->days_per_move;
    served.practice = params->practice;
    for (size_t i = 0; rc == CAS_OK && i < desc->n_players; i++)
        served.seats[i].open = i < CAS__REQ_MAX_SEATS && params->open[i];
    if (rc == CAS_OK && !params->practice)
        rc = commit_seed(&served);
    if (rc == CAS_OK)
        rc = cas__saves_served_insert(l->store, &served);
    cas__saves_served_free(&served);
    if (rc) {
        cas__invites_free(invites);
        cas__saves_game_delete(l->store, j.game);
        cas__saves_game_release(l->store, j.game);
        goto store_failed;
    }
    *id = j.game;
    cas__saves_game_free(&header);
    return CAS_OK;
store_failed:
    snprintf(msg, msglen, "%s", rc == CAS_EIO && !cas__saves_errmsg(l->store)[0]
                                    ? "the kernel gave no random bytes for a token"
                                    : cas__saves_errmsg(l->store));
    cas__saves_game_free(&header);
    return rc;
}

/* cas__table_create_desc, the table read from the store only. */
static int create_stored(struct cas__lobby *l, const struct cas__session_desc *desc,
                         const struct cas__table_params *params, struct cas__table **out,
                         struct cas__invites *invites, const char **code, char *msg,
                         size_t msglen)
{
    struct cas__session_plan plan;
    struct cas__table_params chosen = *params;
    char err[1024];
    int64_t id;
    *out = NULL;
    memset(invites, 0, sizeof *invites);
    if (!chosen.has_clock && !chosen.days_per_move)
        chosen.days_per_move = desc->days_per_move; /* the preset's days-per-move = */
    if (desc->seed_given && !params->practice)
        return cas__srv_refuse(code, "bad-config", msg, msglen,
                               "a seed is chosen (\"seed\", or the preset's seed =), which "
                               "only a practice game may do: add \"practice\":true (the game "
                               "is shown as practice to everyone), or leave the seed out and "
                               "the server draws one and commits to it");
    int rc = cas__session_desc_validate(desc, l->reg, &plan, err, sizeof err);
    if (rc)
        return cas__srv_refuse(code, rc == CAS_ENOMEM ? "internal" : "bad-config", msg,
                               msglen, "%s", err);
    rc = insert_game(l, &chosen, desc, &plan, &id, invites, msg, msglen);
    cas__session_plan_free(&plan);
    if (rc) {
        *code = rc == CAS_EUNAVAILABLE ? "unavailable" : "internal";
        return rc;
    }
    if ((rc = cas__table_restore(l, id, out, msg, msglen))) {
        *code = "internal";
        cas__invites_free(invites);
        cas__saves_game_delete(l->store, id);
    }
    cas__saves_game_release(l->store, id); /* insert_game's: the table holds its own */
    return rc;
}

int cas__table_create_desc(struct cas__lobby *l, const struct cas__session_desc *desc,
                           const struct cas__table_params *params, struct cas__table **out,
                           struct cas__invites *invites, const char **code, char *msg,
                           size_t msglen)
{
    int rc = create_stored(l, desc, params, out, invites, code, msg, msglen);
    if (rc == CAS_OK && (rc = cas__table_open(*out, msg, msglen)) != CAS_OK) {
        *code = "internal";
        cas__invites_free(invites);
        cas__saves_game_delete(l->store, (*out)->id);
        cas__table_free(*out);
        *out = NULL;
    }
    return rc;
}

int cas__table_adopt(struct cas__lobby *l, int64_t id, struct cas__table **out,
                     struct cas__invites *invites, const char **code, char *msg,
                     size_t msglen)
{
    struct cas__saves_game g;
    struct cas__saves_served served = {0};
    *out = NULL;
    memset(invites, 0, sizeof *invites);
    if (cas__lobby_find(l, id))
        return cas__srv_refuse(code, "bad-config", msg, msglen, "game %lld is hosted already; join "
                               "it", (long long)id);
    /* A game of the terminal is the user's: a stranger learns no more from
     * this refusal than from one for a game that does not exist. */
    if (!cas__lobby_may_show(l, id, NULL) || cas__saves_game_load(l->store, id, 0, &g) != CAS_OK)
        return cas__srv_refuse(code, "not-found", msg, msglen,
                               "there is no game %lld to host here (a game started at the "
                               "terminal is hosted only when castellan serve runs with "
                               "--host-saved)", (long long)id);
    int finished = g.status == CAS__SAVES_FINISHED;
    size_t n = g.n_players;
    cas__saves_game_free(&g);
    if (finished)
        return cas__srv_refuse(code, "over", msg, msglen, "game %lld is finished; its replay is "
                               "/game/%lld/replay.html once hosted", (long long)id, (long long)id);
    int rc = cas__invites_mint(invites, n, &served);
    served.game = id;
    if (rc == CAS_OK)
        rc = commit_seed(&served);
    if (rc == CAS_OK && (rc = cas__saves_served_insert(l->store, &served)) != CAS_OK)
        cas__srv_refuse(code, "bad-config", msg, msglen, "game %lld cannot be hosted: %s",
                        (long long)id, cas__saves_errmsg(l->store));
    cas__saves_served_free(&served);
    if (rc == CAS_OK && (rc = cas__table_restore(l, id, out, msg, msglen)) != CAS_OK)
        *code = "internal";
    if (rc)
        cas__invites_free(invites);
    return rc;
}

int cas__table_create(struct cas__lobby *l, const struct cas__req *req,
                      struct cas__table **out, struct cas__invites *invites,
                      const char **code, char *msg, size_t msglen)
{
    struct cas__session_desc desc;
    struct cas__table_params params = {.has_clock = req->has_clock, .base_ms = req->base_ms,
                                       .increment_ms = req->increment_ms,
                                       .days_per_move = req->days_per_move,
                                       .practice = req->practice};
    *out = NULL;
    memset(invites, 0, sizeof *invites);
    if (req->resume)
        return cas__table_adopt(l, req->resume, out, invites, code, msg, msglen);
    if (describe(l, req, &desc, code, msg, msglen))
        return CAS_EINVAL;
    for (size_t i = 0; i < req->n_seats; i++)
        params.open[i] = strcmp(req->seats[i].agent, "open") == 0;
    int rc = create_stored(l, &desc, &params, out, invites, code, msg, msglen);
    cas__session_desc_free(&desc);
    return rc;
}
