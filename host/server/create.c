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
#include "signin.h"
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
static int insert_game(struct cas__saves *s, const struct cas__table_params *params,
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
    if ((rc = cas__journal_start(&j, s, &header)))
        goto store_failed;
    /* Claimed before its served row makes it a game another server on the
     * same database could take over; cas__table_create hands it on. */
    if ((rc = cas__saves_game_claim(s, j.game))) {
        cas__saves_game_delete(s, j.game);
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
        rc = cas__saves_served_insert(s, &served);
    cas__saves_served_free(&served);
    if (rc) {
        cas__invites_free(invites);
        cas__saves_game_delete(s, j.game);
        cas__saves_game_release(s, j.game);
        goto store_failed;
    }
    *id = j.game;
    cas__saves_game_free(&header);
    return CAS_OK;
store_failed:
    snprintf(msg, msglen, "%s", rc == CAS_EIO && !cas__saves_errmsg(s)[0]
                                    ? "the kernel gave no random bytes for a token"
                                    : cas__saves_errmsg(s));
    cas__saves_game_free(&header);
    return rc;
}

/* The game desc and params describe, checked against l's plugins into
 * *plan (caller frees); params takes the preset's days per move. */
static int choose(struct cas__lobby *l, const struct cas__session_desc *desc,
                  struct cas__table_params *params, struct cas__session_plan *plan,
                  const char **code, char *msg, size_t msglen)
{
    char err[1024];
    if (!params->has_clock && !params->days_per_move)
        params->days_per_move = desc->days_per_move; /* the preset's days-per-move = */
    if (desc->seed_given && !params->practice)
        return cas__srv_refuse(code, "bad-config", msg, msglen,
                               "a seed is chosen (\"seed\", or the preset's seed =), which "
                               "only a practice game may do: add \"practice\":true (the game "
                               "is shown as practice to everyone), or leave the seed out and "
                               "the server draws one and commits to it");
    int rc = cas__session_desc_validate(desc, l->reg, plan, err, sizeof err);
    if (rc)
        return cas__srv_refuse(code, rc == CAS_ENOMEM ? "internal" : "bad-config", msg,
                               msglen, "%s", err);
    return CAS_OK;
}

/* cas__table_create_desc, the table read from the store only. */
static int create_stored(struct cas__lobby *l, const struct cas__session_desc *desc,
                         const struct cas__table_params *params, struct cas__table **out,
                         struct cas__invites *invites, const char **code, char *msg,
                         size_t msglen)
{
    struct cas__session_plan plan;
    struct cas__table_params chosen = *params;
    int64_t id;
    *out = NULL;
    memset(invites, 0, sizeof *invites);
    int rc = choose(l, desc, &chosen, &plan, code, msg, msglen);
    if (rc)
        return rc;
    rc = insert_game(l->store, &chosen, desc, &plan, &id, invites, msg, msglen);
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

/* ------------------------------------------- off the loop (serve) */

/* A game to bring up from the store on its thread: a create request's
 * (inserted first), a resume request's (adopted first) or a restored one;
 * the table is the shell the loop holds meanwhile. */
struct open_job {
    struct cas__store_job base;
    struct cas__table *t;
    enum cas__opened how;
    char id[80];                      /* the request's */
    int64_t game;                     /* adopted or restored */
    struct cas__session_desc desc;    /* created: owned */
    struct cas__session_plan plan;    /* created: owned */
    struct cas__table_params params;
    int64_t player;                   /* the asker (0: a guest): whose names are free */
    unsigned char check_name[CAS__REQ_MAX_SEATS]; /* a person's seat named by the request */
    struct cas__invites invites;
    const char *code;
    char msg[1024];
};

static int refuse_names(struct cas__saves *s, struct open_job *job)
{
    for (size_t i = 0; i < job->desc.n_players && i < CAS__REQ_MAX_SEATS; i++)
        if (job->check_name[i] &&
            cas__signin_name_free(s, job->player, job->desc.players[i].name, job->msg,
                                  sizeof job->msg)) {
            job->code = "name-taken";
            return CAS_ECONFLICT;
        }
    return CAS_OK;
}

static int run_create(struct cas__saves *s, struct open_job *job)
{
    int64_t id;
    int rc = refuse_names(s, job);
    if (rc)
        return rc;
    if ((rc = insert_game(s, &job->params, &job->desc, &job->plan, &id, &job->invites,
                          job->msg, sizeof job->msg))) {
        job->code = rc == CAS_EUNAVAILABLE ? "unavailable" : "internal";
        return rc;
    }
    if ((rc = cas__table_load(job->t, s, id, job->msg, sizeof job->msg))) {
        cas__invites_free(&job->invites);
        cas__saves_game_delete(s, id);
    }
    cas__saves_game_release(s, id); /* insert_game's: the table holds its own */
    return rc;
}

static int run_adopt(struct cas__saves *s, struct open_job *job)
{
    struct cas__saves_game g;
    struct cas__saves_served served = {0};
    int64_t id = job->game;
    /* A game of the terminal is the user's: a stranger learns no more from
     * this refusal than from one for a game that does not exist. */
    if (!cas__lobby_may_show(job->t->lobby, s, id, NULL) ||
        cas__saves_game_load(s, id, 0, &g) != CAS_OK)
        return cas__srv_refuse(&job->code, "not-found", job->msg, sizeof job->msg,
                               "there is no game %lld to host here (a game started at the "
                               "terminal is hosted only when castellan serve runs with "
                               "--host-saved)", (long long)id);
    int finished = g.status == CAS__SAVES_FINISHED;
    size_t n = g.n_players;
    cas__saves_game_free(&g);
    if (finished)
        return cas__srv_refuse(&job->code, "over", job->msg, sizeof job->msg, "game %lld is "
                               "finished; its replay is /game/%lld/replay.html once hosted",
                               (long long)id, (long long)id);
    int rc = cas__invites_mint(&job->invites, n, &served);
    served.game = id;
    if (rc == CAS_OK)
        rc = commit_seed(&served);
    if (rc == CAS_OK && (rc = cas__saves_served_insert(s, &served)) != CAS_OK)
        cas__srv_refuse(&job->code, "bad-config", job->msg, sizeof job->msg, "game %lld "
                        "cannot be hosted: %s", (long long)id, cas__saves_errmsg(s));
    cas__saves_served_free(&served);
    if (rc == CAS_OK && (rc = cas__table_load(job->t, s, id, job->msg, sizeof job->msg)))
        job->code = "internal";
    if (rc)
        cas__invites_free(&job->invites);
    return rc;
}

static int run_open(struct cas__saves *s, struct cas__store_job *base)
{
    struct open_job *job = (struct open_job *)base;
    job->code = "internal";
    switch (job->how) {
    case CAS__OPENED_CREATED:
        return run_create(s, job);
    case CAS__OPENED_ADOPTED:
        return run_adopt(s, job);
    default:
        return cas__table_load(job->t, s, job->game, job->msg, sizeof job->msg);
    }
}

/* desc and plan are a create's, and zeroed (freeing nothing) until
 * describe and choose fill them, or after either failed. */
static void job_free(struct open_job *job)
{
    cas__session_plan_free(&job->plan);
    cas__session_desc_free(&job->desc);
    cas__invites_free(&job->invites);
    free(job);
}

/* (loop) Read: the match opens in a job of the pool, the asker answered
 * once it is open; else the asker hears why and the shell goes. */
static void open_done(struct cas__lobby *l, struct cas__store_job *base)
{
    struct open_job *job = (struct open_job *)base;
    struct cas__table *t = job->t;
    struct cas__conn *c = t->hold.asker;
    int rc = base->rc;
    if (job->how == CAS__OPENED_CREATED)
        l->n_creating--;
    if (rc == CAS_OK && !l->store_stopping) {
        t->hold.asker = NULL;
        if (job->how == CAS__OPENED_CREATED) /* an adopted or restored one is linked */
            cas__lobby_link(l, t);
        cas__offload_open(t, c, job->id, &job->invites, job->how);
        job_free(job);
        return;
    }
    if (rc == CAS_OK && job->how == CAS__OPENED_CREATED) /* the server stops */
        cas__store_quietly(l, cas__saves_game_delete, t->id);
    if (job->how != CAS__OPENED_CREATED)
        cas__lobby_unlink(l, t);
    if (!l->store_stopping) {
        if (!job->msg[0])
            snprintf(job->msg, sizeof job->msg, "%s", base->err[0] ? base->err : "out of memory");
        if (c)
            cas__conn_send_error(c, job->id, job->code ? job->code : "internal",
                                 job->msg);
        if (job->how == CAS__OPENED_RESTORED && rc != CAS_ECONFLICT && rc != CAS_ENOTFOUND)
            cas__lobby_give_up(l, job->game, job->msg);
    }
    cas__offload_drop(t, job->how == CAS__OPENED_RESTORED ? job->game : 0);
    job_free(job);
}

/* Hand job (its shell t) to the store's thread for c (NULL: none); a
 * game of known id is found (held: its requests wait) meanwhile. */
static void open_off_loop(struct cas__lobby *l, struct cas__conn *c, struct open_job *job)
{
    job->base.run = run_open;
    job->base.done = open_done;
    if (job->how != CAS__OPENED_CREATED) {
        job->t->id = job->game;
        cas__lobby_link(l, job->t);
    } else {
        l->n_creating++; /* counted against max-games already */
    }
    cas__offload_hold(job->t, c);
    cas__store_submit(l, &job->base);
}

static struct open_job *open_job_new(struct cas__lobby *l, enum cas__opened how)
{
    struct open_job *job = calloc(1, sizeof *job);
    if (job && !(job->t = cas__table_shell(l))) {
        free(job);
        return NULL;
    }
    if (job)
        job->how = how;
    return job;
}

void cas__table_bring_back(struct cas__lobby *l, int64_t id)
{
    struct open_job *job = open_job_new(l, CAS__OPENED_RESTORED);
    if (!job) {
        cas__lobby_give_up(l, id, "out of memory");
        return;
    }
    job->game = id;
    open_off_loop(l, NULL, job);
}

void cas__table_create(struct cas__lobby *l, struct cas__conn *c, const struct cas__req *req)
{
    const char *code = "internal";
    char msg[1024] = "";
    struct open_job *job = open_job_new(l, req->resume ? CAS__OPENED_ADOPTED
                                                       : CAS__OPENED_CREATED);
    if (!job) {
        cas__conn_send_error(c, req->id, "internal", "out of memory");
        return;
    }
    snprintf(job->id, sizeof job->id, "%s", req->id);
    job->player = c->player;
    if (req->resume) {
        job->game = req->resume;
        if (cas__lobby_find(l, req->resume)) {
            cas__srv_refuse(&code, "bad-config", msg, sizeof msg, "game %lld is hosted "
                            "already; join it", (long long)req->resume);
            goto refused;
        }
        open_off_loop(l, c, job);
        return;
    }
    job->params = (struct cas__table_params){.has_clock = req->has_clock,
                                             .base_ms = req->base_ms,
                                             .increment_ms = req->increment_ms,
                                             .days_per_move = req->days_per_move,
                                             .practice = req->practice};
    if (describe(l, req, &job->desc, &code, msg, sizeof msg))
        goto refused;
    for (size_t i = 0; i < req->n_seats; i++) {
        const struct cas__req_seat *seat = &req->seats[i];
        job->params.open[i] = strcmp(seat->agent, "open") == 0;
        /* A person's seat may not pass for a registered player (a bot is
         * known by its agent, whatever its name). */
        job->check_name[i] = seat->name && (strcmp(seat->agent, "human") == 0 ||
                                            job->params.open[i]);
    }
    if (choose(l, &job->desc, &job->params, &job->plan, &code, msg, sizeof msg))
        goto refused;
    open_off_loop(l, c, job);
    return;
refused:
    cas__conn_send_error(c, req->id, code, msg);
    cas__table_free(job->t);
    job_free(job);
}
