/*
 * table.c — one game hosted by the server: the session (host/session) in
 * which every seat's agent is a proxy handing over the decision the server
 * received (a remote player's act, a bot's search finished on a thread),
 * the journal committing each action with the actor's clock, the seats and
 * their tokens, the event log, and the state message built for each viewer
 * through the plugin's own viewer filter.
 *
 * A game is always brought up from the store, new or not: a new game is
 * inserted first and then opened exactly as a restarted server reopens an
 * unfinished one (host/session/revive.c), so both paths are one.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "prng.h"
#include "server.h"
#include "session_fields.h"

static CAS_PRINTF(5, 6) int refuse(const char **code, const char *what, char *msg,
                                   size_t msglen, const char *fmt, ...)
{
    va_list args;
    *code = what;
    va_start(args, fmt);
    vsnprintf(msg, msglen, fmt, args);
    va_end(args);
    return CAS_EINVAL;
}

/* ------------------------------------------------------------ the store */

/* A table's call to the store, made on the loop thread, which owns the
 * store: a job on the pool waits for it (cas__on_loop).  err receives the
 * store's message when it fails. */
struct store_call {
    struct cas__table *t;
    int (*fn)(struct store_call *call);
    uint32_t ply;
    int actor;
    const char *text;
    uint64_t hash;
    int64_t clock_ms;
    const int64_t *scores;
    int rc;
    char err[512];
};

static void store_call_run(void *arg)
{
    struct store_call *call = arg;
    call->rc = call->fn(call);
    if (call->rc != CAS_OK)
        snprintf(call->err, sizeof call->err, "%s", cas__saves_errmsg(call->t->lobby->store));
}

static int on_store(struct cas__table *t, struct store_call *call)
{
    call->t = t;
    cas__on_loop(store_call_run, call);
    return call->rc;
}

static int store_append(struct store_call *c)
{
    return cas__saves_append_timed(c->t->lobby->store, c->t->id, c->ply, c->actor, c->text,
                                   c->hash, c->clock_ms);
}

static int store_take_back(struct store_call *c)
{
    return cas__saves_take_back(c->t->lobby->store, c->t->id, c->ply);
}

static int store_ready(struct store_call *c)
{
    return cas__saves_ready(c->t->lobby->store);
}

static int store_finish(struct store_call *c)
{
    return cas__saves_finish(c->t->lobby->store, c->t->id, c->scores, (size_t)c->t->nplayers);
}

/* The game ended with seat c->actor ranked last (a flag, a leaver). */
static int store_flag(struct store_call *c)
{
    int rc = cas__saves_served_flag(c->t->lobby->store, c->t->id, c->actor);
    return rc == CAS_OK ? store_finish(c) : rc;
}

/* Whether the store takes writes now. */
static int store_is_ready(struct cas__table *t)
{
    struct store_call call = {.fn = store_ready};
    return on_store(t, &call) == CAS_OK;
}

/* ------------------------------------------------------- proxy agents */

struct proxy {
    struct cas__agent base;
    struct cas__table *table;
};

/* The decision the server received, or an undo it was asked for. */
static int proxy_choose(struct cas__agent *agent, const struct cas__decision *d,
                        cas_action *out)
{
    struct cas__table *t = ((struct proxy *)agent)->table;
    (void)d;
    if (t->pending_undo)
        return CAS__AGENT_UNDO;
    *out = t->pending;
    return CAS_OK;
}

static void proxy_free(struct cas__agent *agent)
{
    free(agent);
}

/* A remote person may take back (strict undo, docs/sessions.md); a bot not. */
static const struct cas__agent_ops remote_ops = {
    .kind = "remote", .choose = proxy_choose, .free = proxy_free, .takes_back = 1};
static const struct cas__agent_ops bot_ops = {
    .kind = "bot", .choose = proxy_choose, .free = proxy_free, .takes_back = 0};

/* ------------------------------------------------------------- hooks */

static int64_t now_ms(const struct cas__table *t)
{
    return t->lobby->clock.now_ms(t->lobby->clock.ctx);
}

/* The time the actor's clock has run this turn: none before every human
 * seat has joined. */
int64_t cas__table_turn_elapsed(const struct cas__table *t, int64_t now)
{
    return t->clock_running ? now - t->turn_started : 0;
}

/* The clock the deciding seat keeps after this decision, or -1. */
static int64_t clock_after(struct cas__table *t, int actor)
{
    if (!t->has_clock || actor < 0)
        return -1;
    if (!t->clock_running) /* a bot's move before the players came: no time, no bonus */
        return t->seats[actor].clock_ms;
    int64_t left = t->seats[actor].clock_ms - cas__table_turn_elapsed(t, now_ms(t));
    return (left < 0 ? 0 : left) + t->increment_ms;
}

/* A seat's action goes out with the next update as the game's notation;
 * chance's draws do not (what a draw shows, the events and the picture
 * tell each viewer as it may see it).  Best effort, as the event log. */
static void note_played(struct cas__table *t, uint32_t ply, int actor, const char *text)
{
    if (t->n_played == t->cap_played) {
        size_t cap = t->cap_played ? t->cap_played * 2 : 4;
        struct cas__played *more = realloc(t->played, cap * sizeof *more);
        if (!more)
            return;
        t->played = more;
        t->cap_played = cap;
    }
    char *copy = strdup(text);
    if (copy)
        t->played[t->n_played++] = (struct cas__played){.ply = ply, .player = actor,
                                                         .text = copy};
}

static void forget_played(struct cas__table *t)
{
    for (size_t i = 0; i < t->n_played; i++)
        free(t->played[i].text);
    t->n_played = 0;
}

static int on_action(void *ctx, uint32_t ply, int actor, const char *text,
                     uint64_t hash_after, char *err, size_t errlen)
{
    struct cas__table *t = ctx;
    int64_t clock = clock_after(t, actor);
    struct store_call call = {.fn = store_append, .ply = ply, .actor = actor, .text = text,
                              .hash = hash_after, .clock_ms = clock};
    int rc = on_store(t, &call);
    if (rc == CAS_EUNAVAILABLE && (t->unsaved.text = strdup(text))) {
        /* The game waits with the action until the store is back. */
        t->unsaved.ply = ply;
        t->unsaved.actor = actor;
        t->unsaved.hash = hash_after;
        t->unsaved.clock_ms = clock;
        return CAS_OK;
    }
    if (rc != CAS_OK) {
        snprintf(err, errlen, "%s", call.err);
        return rc;
    }
    t->j.saved = ply + 1;
    if (actor >= 0)
        note_played(t, ply, actor, text);
    if (clock >= 0)
        t->seats[actor].clock_ms = clock;
    t->turn_started = now_ms(t);
    return CAS_OK;
}

static int on_undo(void *ctx, uint32_t from_ply)
{
    struct cas__table *t = ctx;
    struct store_call call = {.fn = store_take_back, .ply = from_ply};
    int rc = on_store(t, &call);
    t->store_away = rc == CAS_EUNAVAILABLE;
    if (rc != CAS_OK)
        return rc;
    t->j.saved = from_ply;
    forget_played(t);
    while (t->n_events && t->events[t->n_events - 1].ply >= from_ply)
        free(t->events[--t->n_events].text);
    t->events_reset++;
    return CAS_OK;
}

static void on_event(void *ctx, const struct cas_event *event)
{
    struct cas__table *t = ctx;
    if (!event->text)
        return;
    if (t->n_events == t->cap_events) {
        size_t cap = t->cap_events ? t->cap_events * 2 : 16;
        struct cas__srv_event *events = realloc(t->events, cap * sizeof *events);
        if (!events)
            return; /* the log is a courtesy; the journal is the truth */
        t->events = events;
        t->cap_events = cap;
    }
    char *text = strdup(event->text);
    if (!text)
        return;
    t->events[t->n_events++] = (struct cas__srv_event){
        .ply = t->r.session.ply, .player = t->applying_actor,
        .visible_to = event->visible_to, .text = text};
}

/* A worker process of this game failed: the table stops, the server goes
 * on (the store holds every action the worker accepted). */
static void on_fault(void *ctx, const struct cas__worker_fault *fault)
{
    struct cas__table *t = ctx;
    snprintf(t->failure, sizeof t->failure, "%.400s; the game is saved up to ply %" PRIu32
             " (castellan resume %lld)", fault->text, t->j.saved, (long long)t->id);
    t->dirty = 1;
}

/* ----------------------------------------------------- opening a table */

/* Checked as play checks it: a seat out of range is the plugin breaking
 * the ABI, which stops the table (on_fault) and reads as the end. */
int cas__table_actor(struct cas__table *t)
{
    return t->hold.actor = cas__match_current(&t->r.match, t->r.session.state);
}

static int make_proxies(struct cas__table *t)
{
    t->views = calloc((size_t)t->nplayers + 1, sizeof *t->views);
    if (!t->views)
        return CAS_ENOMEM;
    t->proxies = calloc((size_t)t->nplayers, sizeof *t->proxies);
    if (!t->proxies)
        return CAS_ENOMEM;
    for (int i = 0; i < t->nplayers; i++) {
        struct proxy *p = calloc(1, sizeof *p);
        if (!p)
            return CAS_ENOMEM;
        p->base.ops = t->seats[i].bot ? &bot_ops : &remote_ops;
        p->table = t;
        t->proxies[i] = &p->base;
    }
    return CAS_OK;
}

/* Seats from the saved players and the server's own record of them. */
static int make_seats(struct cas__table *t, const struct cas__saves_served *served,
                      char *msg, size_t msglen)
{
    t->seats = calloc((size_t)t->nplayers, sizeof *t->seats);
    if (!t->seats)
        return CAS_ENOMEM;
    for (int i = 0; i < t->nplayers; i++) {
        struct cas__seat *s = &t->seats[i];
        const char *agent = t->saved.players[i].agent;
        if (!(s->agent = strdup(agent)))
            return CAS_ENOMEM;
        s->clock_ms = t->base_ms;
        s->bot = strcmp(agent, "human") != 0;
        if (s->bot) {
            int rc = cas__agent_new(agent, &s->brain);
            if (rc) {
                snprintf(msg, msglen, "game %lld: cannot create the %s bot of seat %d",
                         (long long)t->id, agent, i);
                return rc;
            }
        } else if ((size_t)i < served->n_seats) {
            snprintf(s->token_hash, sizeof s->token_hash, "%s", served->seats[i].token);
            s->open = served->seats[i].open;
        }
    }
    return CAS_OK;
}

/* Each seat's clock as the journal last recorded it. */
static void restore_clocks(struct cas__table *t)
{
    for (size_t i = 0; i < t->saved.n_actions; i++) {
        const struct cas__saves_action *a = &t->saved.actions[i];
        if (a->has_clock && a->actor >= 0 && a->actor < t->nplayers)
            t->seats[a->actor].clock_ms = a->clock_ms;
    }
    t->turn_started = now_ms(t);
    /* A game a person has moved in keeps its clocks running across a
     * restart (the time the server was away is not counted); one nobody
     * has moved in yet waits again for every human seat. */
    for (size_t i = 0; i < t->saved.n_actions; i++) {
        const struct cas__saves_action *a = &t->saved.actions[i];
        if (a->has_clock && a->actor >= 0 && a->actor < t->nplayers &&
            !t->seats[a->actor].bot)
            t->clock_running = 1;
    }
}

/* After journal action i was replayed: the events coming are the next's. */
static int replayed(void *ctx, struct cas__revived *r, size_t i)
{
    struct cas__table *t = ctx;
    if (i + 1 < r->saved->n_actions)
        t->applying_actor = r->saved->actions[i + 1].actor;
    return CAS_OK;
}

static int open_saved(struct cas__table *t, char *msg, size_t msglen)
{
    struct cas__lobby *l = t->lobby;
    struct cas__saves_served served;
    int rc = cas__saves_game_load(l->store, t->id, 1, &t->saved);
    if (rc) {
        snprintf(msg, msglen, "%s", cas__saves_errmsg(l->store));
        return rc;
    }
    if ((rc = cas__saves_served_load(l->store, t->id, &served))) {
        snprintf(msg, msglen, "%s", cas__saves_errmsg(l->store));
        return rc;
    }
    t->has_clock = served.base_ms > 0;
    t->base_ms = served.base_ms;
    t->increment_ms = served.increment_ms;
    t->flagged = served.flagged;
    t->practice = served.practice;
    if (served.seed_nonce) {
        snprintf(t->seed_reveal, sizeof t->seed_reveal, "%" PRIu64 ":%s", t->saved.seed,
                 served.seed_nonce);
        rc = cas__sha256_hex(t->seed_reveal, t->seed_commitment);
    }
    t->nplayers = (int)t->saved.n_players;
    if (rc == CAS_OK)
        rc = make_seats(t, &served, msg, msglen);
    cas__saves_served_free(&served);
    if (rc)
        return rc;
    snprintf(t->origin, sizeof t->origin, "game %lld", (long long)t->id);
    if ((rc = cas__revive_open_in(&t->r, &t->saved, t->origin, l->reg, 0, &l->isolation))) {
        snprintf(msg, msglen, "%s", t->r.error);
        return rc;
    }
    t->r.match.on_fault = (struct cas__fault_handler){.fault = on_fault, .ctx = t};
    if ((rc = make_proxies(t)))
        return rc;
    struct cas__session *s = &t->r.session;
    s->agents = t->proxies;
    s->hooks = (struct cas__session_hooks){
        .ctx = t, .on_action = on_action, .on_undo = on_undo, .on_event = on_event};
    t->applying_actor = t->saved.n_actions ? t->saved.actions[0].actor : -1;
    if ((rc = cas__revive_replay(&t->r, t->saved.n_actions, 0, replayed, t))) {
        snprintf(msg, msglen, "%s", t->r.error);
        return rc;
    }
    t->j = (struct cas__journal){.store = l->store, .game = t->id,
                                 .saved = (uint32_t)t->saved.n_actions};
    restore_clocks(t);
    t->over = t->flagged >= 0 || t->saved.status == CAS__SAVES_FINISHED;
    /* The session holds the game now; the loaded journal would only take
     * a long game's worth of memory for as long as it is hosted. */
    for (size_t i = 0; i < t->saved.n_actions; i++)
        free(t->saved.actions[i].text);
    free(t->saved.actions);
    t->saved.actions = NULL;
    t->saved.n_actions = 0;
    return CAS_OK;
}

void cas__table_free(struct cas__table *t)
{
    if (!t)
        return;
    if (t->claimed)
        cas__saves_game_release(t->lobby->store, t->id);
    cas__revive_close(&t->r);
    for (int i = 0; t->proxies && i < t->nplayers; i++)
        cas__agent_free(t->proxies[i]);
    free(t->proxies);
    for (int i = 0; t->seats && i < t->nplayers; i++) {
        free(t->seats[i].agent);
        cas__agent_free(t->seats[i].brain);
    }
    free(t->seats);
    for (int i = 0; t->views && i <= t->nplayers; i++)
        cas__view_release(&t->views[i]);
    free(t->views);
    forget_played(t);
    free(t->played);
    for (size_t i = 0; i < t->n_events; i++)
        free(t->events[i].text);
    free(t->events);
    cas__actions_free(&t->bot_legal);
    cas__agent_free(t->hint);
    cas__saves_game_free(&t->saved);
    free(t->unsaved.text);
    cas__hold_free(t);
    free(t);
}

/* Message numbers start at the wall clock's microseconds, so those of a
 * restarted server follow every number the last one sent: a client's
 * "since" from before never passes for one of the new numbers. */
static uint64_t first_seq(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

int cas__table_restore(struct cas__lobby *l, int64_t id, struct cas__table **out,
                       char *msg, size_t msglen)
{
    struct cas__table *t = calloc(1, sizeof *t);
    *out = NULL;
    if (!t) {
        snprintf(msg, msglen, "out of memory");
        return CAS_ENOMEM;
    }
    t->lobby = l;
    t->id = id;
    t->flagged = -1;
    t->seq = first_seq();
    int rc = cas__saves_game_claim(l->store, id);
    t->claimed = rc == CAS_OK;
    if (rc == CAS_OK)
        rc = open_saved(t, msg, msglen);
    else
        snprintf(msg, msglen, "%s", cas__saves_errmsg(l->store));
    if (rc) {
        if (rc == CAS_ENOMEM && !msg[0])
            snprintf(msg, msglen, "out of memory");
        cas__table_free(t);
        return rc;
    }
    cas__table_actor(t);
    *out = t;
    return CAS_OK;
}

/* ----------------------------------------------------- creating a game */

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
            return refuse(code, "bad-config", msg, msglen, "give either \"preset\" or "
                          "\"game\", not both");
        if (!is_preset_name(req->preset) || !l->preset_dir)
            return refuse(code, "bad-config", msg, msglen, "there is no preset \"%.64s\"; "
                          "the lobby lists the presets", req->preset);
        snprintf(path, sizeof path, "%s/%s.ini", l->preset_dir, req->preset);
        if (cas__session_desc_load(path, desc, err, sizeof err) != CAS_OK)
            return refuse(code, "bad-config", msg, msglen, "preset \"%s\": %s", req->preset,
                          err);
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
    return refuse(code, rc == CAS_ENOMEM ? "internal" : "bad-config", msg, msglen, "%s", err);
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

int cas__table_create_desc(struct cas__lobby *l, const struct cas__session_desc *desc,
                           const struct cas__table_params *params, struct cas__table **out,
                           struct cas__invites *invites, const char **code, char *msg,
                           size_t msglen)
{
    struct cas__session_plan plan;
    char err[1024];
    int64_t id;
    *out = NULL;
    memset(invites, 0, sizeof *invites);
    if (desc->seed_given && !params->practice)
        return refuse(code, "bad-config", msg, msglen, "a seed is chosen (\"seed\", or the "
                      "preset's seed =), which only a practice game may do: add "
                      "\"practice\":true (the game is shown as practice to everyone), or "
                      "leave the seed out and the server draws one and commits to it");
    int rc = cas__session_desc_validate(desc, l->reg, &plan, err, sizeof err);
    if (rc)
        return refuse(code, rc == CAS_ENOMEM ? "internal" : "bad-config", msg, msglen, "%s",
                      err);
    rc = insert_game(l, params, desc, &plan, &id, invites, msg, msglen);
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

int cas__table_adopt(struct cas__lobby *l, int64_t id, struct cas__table **out,
                     struct cas__invites *invites, const char **code, char *msg,
                     size_t msglen)
{
    struct cas__saves_game g;
    struct cas__saves_served served = {0};
    *out = NULL;
    memset(invites, 0, sizeof *invites);
    if (cas__lobby_find(l, id))
        return refuse(code, "bad-config", msg, msglen, "game %lld is hosted already; join "
                      "it", (long long)id);
    /* A game of the terminal is the user's: a stranger learns no more from
     * this refusal than from one for a game that does not exist. */
    if (!cas__lobby_may_show(l, id, NULL) || cas__saves_game_load(l->store, id, 0, &g) != CAS_OK)
        return refuse(code, "not-found", msg, msglen, "there is no game %lld to host here "
                      "(a game started at the terminal is hosted only when castellan serve "
                      "runs with --host-saved)", (long long)id);
    int finished = g.status == CAS__SAVES_FINISHED;
    size_t n = g.n_players;
    cas__saves_game_free(&g);
    if (finished)
        return refuse(code, "over", msg, msglen, "game %lld is finished; its replay is "
                      "/game/%lld/replay.html once hosted", (long long)id, (long long)id);
    int rc = cas__invites_mint(invites, n, &served);
    served.game = id;
    if (rc == CAS_OK)
        rc = commit_seed(&served);
    if (rc == CAS_OK && (rc = cas__saves_served_insert(l->store, &served)) != CAS_OK)
        refuse(code, "bad-config", msg, msglen, "game %lld cannot be hosted: %s", (long long)id,
               cas__saves_errmsg(l->store));
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
                                       .practice = req->practice};
    *out = NULL;
    memset(invites, 0, sizeof *invites);
    if (req->resume)
        return cas__table_adopt(l, req->resume, out, invites, code, msg, msglen);
    if (describe(l, req, &desc, code, msg, msglen))
        return CAS_EINVAL;
    for (size_t i = 0; i < req->n_seats; i++)
        params.open[i] = strcmp(req->seats[i].agent, "open") == 0;
    int rc = cas__table_create_desc(l, &desc, &params, out, invites, code, msg, msglen);
    cas__session_desc_free(&desc);
    return rc;
}

/* ------------------------------------------------------- playing on */

static void fail_table(struct cas__table *t, const char *why)
{
    if (!t->failure[0])
        snprintf(t->failure, sizeof t->failure, "%.400s; the game is saved up to ply %" PRIu32
                 " (castellan resume %lld)", why, t->j.saved, (long long)t->id);
}

/* The game ended by its rules: journal the result (again, when the
 * store was away: it waits for it). */
static void finish(struct cas__table *t)
{
    struct cas__match *m = &t->r.match;
    struct store_call call = {.fn = store_finish};
    int rc = CAS_OK;
    t->over = 1;
    /* An action that was not saved leaves the store as it is. */
    if (t->j.saved == t->r.session.ply) {
        int64_t *scores = calloc((size_t)t->nplayers, sizeof *scores);
        rc = scores ? m->vt->returns(t->r.session.state, scores, (size_t)t->nplayers)
                    : CAS_ENOMEM;
        call.scores = scores;
        if (rc == CAS_OK)
            rc = on_store(t, &call);
        else
            snprintf(call.err, sizeof call.err, "%s", cas__match_reason(m, rc));
        free(scores);
    }
    t->result_unsaved = rc == CAS_EUNAVAILABLE;
    if (rc != CAS_OK && !t->result_unsaved)
        fail_table(t, call.err);
    t->hold.news = 1;
}

/* One decision of the session with t->pending as the actor's choice; a
 * take-back the store was away for stops nothing (it changed nothing). */
static int step(struct cas__table *t, int actor)
{
    t->applying_actor = actor;
    t->store_away = 0;
    int rc = cas__session_step(&t->r.session);
    if (rc != CAS_OK && !t->store_away)
        fail_table(t, t->r.session.error);
    if (!t->failure[0])
        cas__table_actor(t);
    return rc;
}

/* The refusal of a move while the store is away (or an action waits for
 * it); kept: the refused move is the one that waits, saved on its return. */
static int refuse_unavailable(struct cas__table *t, int kept, const char **code, char *msg,
                              size_t msglen)
{
    struct store_call call = {.fn = store_ready};
    if (on_store(t, &call) == CAS_OK) /* back already: it said why it was away */
        snprintf(call.err, sizeof call.err, "it was unavailable a moment ago");
    return refuse(code, "unavailable", msg, msglen, "game %lld waits for its database, "
                  "which is unavailable for now: %s; the game goes on by itself when it is "
                  "back (%.500s)", (long long)t->id,
                  kept ? "this move is kept and saved then, and the next state shows it"
                       : "nothing was played; play again then",
                  call.err);
}

void cas__table_retry_store(struct cas__table *t)
{
    if (t->refused_away && !t->unsaved.text && store_is_ready(t)) {
        t->refused_away = 0;
        t->dirty = 1;
    }
    if (t->failure[0] || (!t->unsaved.text && !t->result_unsaved) ||
        cas__offload_defer(t, CAS__OP_TICK))
        return;
    if (t->unsaved.text) {
        struct store_call call = {.fn = store_append, .ply = t->unsaved.ply,
                                  .actor = t->unsaved.actor, .text = t->unsaved.text,
                                  .hash = t->unsaved.hash, .clock_ms = t->unsaved.clock_ms};
        int rc = on_store(t, &call);
        if (rc == CAS_EUNAVAILABLE)
            return;
        free(t->unsaved.text);
        t->unsaved.text = NULL;
        if (rc != CAS_OK) {
            fail_table(t, call.err);
            return;
        }
        t->j.saved = t->unsaved.ply + 1;
        if (t->unsaved.clock_ms >= 0)
            t->seats[t->unsaved.actor].clock_ms = t->unsaved.clock_ms;
        t->turn_started = now_ms(t); /* the next turn starts now: no time was away */
        t->away_since = 0;
    }
    if (t->result_unsaved)
        finish(t);
    cas__table_advance(t);
}

/* Submit the current bot's decision to the pool, or decide it here. */
static int ask_bot(struct cas__table *t, int actor)
{
    struct cas__session *s = &t->r.session;
    int rc = cas__match_legal(&t->r.match, s->state, &t->bot_legal);
    if (rc == CAS_OK && t->bot_legal.count == 0)
        rc = CAS_EINVAL;
    if (rc) {
        fail_table(t, "the game lists no legal action for its bot");
        return rc;
    }
    struct cas__decision d = {
        .match = &t->r.match, .state = s->state, .player = actor,
        .player_name = t->r.names[actor], .seed = s->seed, .ply = s->ply,
        .legal = &t->bot_legal, .player_names = t->r.names,
    };
    if (t->lobby->bots) { /* decided on the pool once this job is delivered */
        t->busy = 1;
        t->hold.bot = d;
        return CAS_OK;
    }
    rc = cas__agent_choose(t->seats[actor].brain, &d, &t->pending);
    if (rc != CAS_OK) {
        fail_table(t, "the bot failed");
        return rc;
    }
    return step(t, actor);
}

/* A person's decision whose only legal action is "pass": 1 with it in
 * t->pending when the seat lets the server play it. */
static int forced_pass(struct cas__table *t, int actor)
{
    struct cas__session *s = &t->r.session;
    char text[8];
    if (t->seats[actor].manual_pass || cas__match_legal(&t->r.match, s->state, &s->scratch) ||
        s->scratch.count != 1 ||
        cas__match_action_text(&t->r.match, s->state, s->scratch.items[0], text, sizeof text) < 0 ||
        strcmp(text, "pass") != 0)
        return 0;
    t->pending = s->scratch.items[0];
    return 1;
}

/* Logs the pass the server played for a seat (every viewer sees it). */
static void log_forced_pass(struct cas__table *t, int actor)
{
    char text[200];
    snprintf(text, sizeof text, "%s passes: nothing else to do (played for them)",
             cas__match_label(&t->r.match, actor));
    struct cas_event e = {.struct_size = sizeof e, .player = actor,
                          .visible_to = CAS_VIEWER_PUBLIC, .text = text};
    t->applying_actor = actor;
    on_event(t, &e);
}

void cas__table_advance(struct cas__table *t)
{
    t->dirty = 1;
    while (!t->over && !t->busy && !t->failure[0] && !t->unsaved.text) {
        int actor = cas__table_actor(t);
        if (t->failure[0]) /* the plugin broke its promise: not an end */
            return;
        if (actor == CAS_ACTOR_TERMINAL) {
            finish(t);
        } else if (actor == CAS_ACTOR_CHANCE) {
            if (step(t, -1))
                return;
        } else if (actor >= 0 && actor < t->nplayers && t->seats[actor].bot) {
            if (ask_bot(t, actor))
                return;
        } else if (actor >= 0 && actor < t->nplayers && forced_pass(t, actor)) {
            log_forced_pass(t, actor);
            if (step(t, actor))
                return;
        } else {
            return;
        }
    }
}

void cas__table_set_autopass(struct cas__table *t, int seat, int on)
{
    if (seat < 0 || seat >= t->nplayers)
        return;
    t->seats[seat].manual_pass = !on;
    if (on && !t->busy && !t->over && cas__table_actor(t) == seat)
        cas__table_advance(t);
}

void cas__table_bot_done(struct cas__table *t, int rc, cas_action action)
{
    t->busy = 0;
    t->dirty = 1;
    if (rc != CAS_OK) {
        fail_table(t, "the bot failed");
        return;
    }
    cas__table_check_clock(t, now_ms(t));
    if (t->over)
        return;
    t->pending = action;
    int actor = cas__table_actor(t);
    if (!t->failure[0] && step(t, actor) == CAS_OK)
        cas__table_advance(t);
}

/* Common refusals of a seat's request. */
static int seat_may_act(struct cas__table *t, int seat, const char **code, char *msg,
                        size_t msglen)
{
    if (t->failure[0])
        return refuse(code, "internal", msg, msglen, "game %lld stopped: %s",
                      (long long)t->id, t->failure);
    if (t->over)
        return refuse(code, "over", msg, msglen, "game %lld is over", (long long)t->id);
    if (t->unsaved.text || !store_is_ready(t)) {
        t->refused_away = 1;
        return refuse_unavailable(t, 0, code, msg, msglen);
    }
    int actor = cas__table_actor(t);
    if (t->busy || actor != seat)
        return refuse(code, "not-your-turn", msg, msglen, "it is not seat %d's decision "
                      "in game %lld; wait for the next state", seat, (long long)t->id);
    return CAS_OK;
}

int cas__table_act(struct cas__table *t, int seat, int64_t ply, const char *text,
                   const char **code, char *msg, size_t msglen)
{
    struct cas__session *s = &t->r.session;
    struct cas__match *m = &t->r.match;
    cas_action action;
    if (seat_may_act(t, seat, code, msg, msglen))
        return CAS_EINVAL;
    if (ply != (int64_t)s->ply)
        return refuse(code, "stale", msg, msglen, "the action was chosen at ply %" PRId64
                      " but game %lld is at ply %" PRIu32 "; choose again from the latest "
                      "state", ply, (long long)t->id, s->ply);
    m->error[0] = '\0';
    int rc = m->vt->parse_action(s->state, text, &action);
    if (rc == CAS_OK && (rc = cas__match_legal(m, s->state, &s->scratch)) == CAS_OK) {
        size_t i = 0;
        while (i < s->scratch.count && s->scratch.items[i] != action)
            i++;
        rc = i < s->scratch.count ? CAS_OK : CAS_EILLEGAL;
    }
    if (rc != CAS_OK)
        return refuse(code, "illegal", msg, msglen, "\"%.200s\" is not a legal action now%s%.300s; "
                      "play one of the state's \"actions\"", text, m->error[0] ? ": " : "",
                      m->error);
    t->pending = action;
    if (step(t, seat) != CAS_OK)
        return refuse(code, "internal", msg, msglen, "%s", t->failure);
    if (t->unsaved.text)
        return refuse_unavailable(t, 1, code, msg, msglen);
    cas__table_advance(t);
    return CAS_OK;
}

/* The seat's own decisions since the last new information, if it decides. */
int cas__table_can_undo(struct cas__table *t, int seat)
{
    const struct cas__session *s = &t->r.session;
    return seat >= 0 && !t->over && !t->busy && !t->failure[0] &&
           cas__table_actor(t) == seat && s->undo.actor == seat && s->undo.count > 0;
}

int cas__table_undo(struct cas__table *t, int seat, const char **code, char *msg,
                    size_t msglen)
{
    if (seat_may_act(t, seat, code, msg, msglen))
        return CAS_EINVAL;
    if (!cas__table_can_undo(t, seat))
        return refuse(code, "cannot-undo", msg, msglen, "seat %d has nothing to take back: "
                      "undo takes back only your own decisions since the last draw or "
                      "another player's decision", seat);
    t->pending_undo = 1;
    int rc = step(t, seat);
    t->pending_undo = 0;
    if (rc != CAS_OK && t->store_away)
        return refuse_unavailable(t, 0, code, msg, msglen);
    if (rc != CAS_OK)
        return refuse(code, "internal", msg, msglen, "%s", t->failure);
    t->dirty = 1;
    return CAS_OK;
}

int cas__table_hint(struct cas__table *t, int seat, struct cas__jw *w, const char *id,
                    const char **code, char *msg, size_t msglen)
{
    struct cas__session *s = &t->r.session;
    struct cas__match *m = &t->r.match;
    char text[512], why[512] = "";
    cas_action action;
    if (seat_may_act(t, seat, code, msg, msglen))
        return CAS_EINVAL;
    if (!t->hint && cas__agent_new(CAS__AGENT_DEFAULT_HINT, &t->hint) != CAS_OK) {
        t->hint = NULL;
        return refuse(code, "internal", msg, msglen, "out of memory");
    }
    int rc = cas__match_legal(m, s->state, &s->scratch);
    struct cas__decision d = {
        .match = m, .state = s->state, .player = seat, .player_name = t->r.names[seat],
        .seed = s->seed, .ply = s->ply, .legal = &s->scratch, .player_names = t->r.names,
    };
    if (rc == CAS_OK && s->scratch.count)
        rc = cas__agent_choose(t->hint, &d, &action);
    if (rc != CAS_OK || !s->scratch.count)
        return refuse(code, "internal", msg, msglen, "the hint bot failed: %s",
                      cas__match_reason(m, rc));
    cas__match_action_text(m, s->state, action, text, sizeof text);
    if (t->hint->ops->explain)
        t->hint->ops->explain(t->hint, &d, action, why, sizeof why);
    cas__jw_raw(w, "{\"type\":\"hint\"");
    if (id && id[0])
        cas__jw_printf(w, ",\"id\":%s", id);
    cas__jw_printf(w, ",\"game\":\"%lld\",\"action\":", (long long)t->id);
    cas__jw_str(w, text);
    cas__jw_raw(w, ",\"text\":");
    cas__jw_str(w, why);
    cas__jw_raw(w, "}");
    return CAS_OK;
}

int cas__table_token_ok(const struct cas__table *t, int seat, const char *token)
{
    if (seat < 0 || seat >= t->nplayers || t->seats[seat].bot)
        return 0;
    return cas__token_matches(t->seats[seat].token_hash, token);
}

/* ------------------------------------------------------------ clocks */

void cas__table_seat_joined(struct cas__table *t, int seat)
{
    if (seat < 0 || seat >= t->nplayers)
        return;
    t->seats[seat].joined = 1;
    if (!t->has_clock || t->clock_running)
        return;
    for (int i = 0; i < t->nplayers; i++)
        if (!t->seats[i].bot && (t->seats[i].open || !t->seats[i].joined))
            return;
    /* Every human seat is here: the turn due now starts its clock. */
    t->clock_running = 1;
    t->turn_started = now_ms(t);
    t->dirty = 1;
}

/* The game ends with `seat` ranked last, the others by their projected
 * scores: its flag fell, or it left and the others claimed the game
 * (docs/server.md).  The store keeps it as a flag. */
static void end_ranked_last(struct cas__table *t, int seat)
{
    t->flagged = seat;
    t->over = 1;
    t->dirty = 1;
    t->hold.news = 1;
    size_t n = (size_t)t->nplayers;
    int64_t *scores = calloc(n, sizeof *scores);
    if (!scores) {
        fail_table(t, "out of memory");
        return;
    }
    cas__match_projected(&t->r.match, t->r.session.state, scores);
    struct store_call call = {.fn = store_flag, .actor = seat, .scores = scores};
    if (on_store(t, &call) != CAS_OK)
        fail_table(t, call.err);
    free(scores);
}

void cas__table_check_clock(struct cas__table *t, int64_t now)
{
    /* A seat's grace running out is news: the others get a state. */
    int gone = cas__table_gone(t, now);
    if (gone + 1 != t->leaver_shown) {
        t->leaver_shown = gone + 1;
        t->dirty = 1;
    }
    if (!t->has_clock || !t->clock_running || t->over || t->busy || t->failure[0])
        return;
    /* Nobody may move while the store is away: nobody's time runs. */
    if (t->unsaved.text || !store_is_ready(t)) {
        if (!t->away_since)
            t->away_since = now;
        return;
    }
    if (t->away_since) {
        t->turn_started += now - t->away_since;
        t->away_since = 0;
    }
    int actor = t->hold.actor;
    if (actor < 0 || actor >= t->nplayers ||
        cas__table_turn_elapsed(t, now) < t->seats[actor].clock_ms ||
        cas__offload_defer(t, CAS__OP_TICK)) /* the scores it ends with are the plugin's */
        return;
    t->seats[actor].clock_ms = 0; /* the flag fell */
    end_ranked_last(t, actor);
}

/* ------------------------------------------------------------ leavers */

void cas__table_seat_left(struct cas__table *t, int seat)
{
    if (seat >= 0 && seat < t->nplayers && t->seats[seat].connected == 0) {
        t->seats[seat].left_at = now_ms(t);
        t->dirty = 1;
    }
}

/* The seat to move if it has left: a person's seat that joined once,
 * has no connection now and has been gone the grace; else -1. */
int cas__table_gone(struct cas__table *t, int64_t now)
{
    int actor = t->hold.actor; /* the loop asks too: no plugin call */
    if (t->over || actor < 0 || actor >= t->nplayers)
        return -1;
    const struct cas__seat *s = &t->seats[actor];
    return !s->bot && s->joined && !s->connected && now - s->left_at >= CAS__LEAVER_GRACE_MS
               ? actor
               : -1;
}

int cas__table_leaver(struct cas__table *t, int seat, const char *choice, const char **code,
                      char *msg, size_t msglen)
{
    int gone = cas__table_gone(t, now_ms(t));
    if (seat < 0 || seat >= t->nplayers || t->seats[seat].bot)
        return refuse(code, "not-your-turn", msg, msglen, "only a player of game %lld may "
                      "decide about a seat that left", (long long)t->id);
    if (gone < 0 || gone == seat || t->busy)
        return refuse(code, "not-your-turn", msg, msglen, "no seat of game %lld has left "
                      "for %d s at its turn; wait for the state that offers it",
                      (long long)t->id, CAS__LEAVER_GRACE_MS / 1000);
    if (strcmp(choice, "claim") == 0) {
        end_ranked_last(t, gone);
        t->forfeit = 1;
        return CAS_OK;
    }
    /* A bot plays the seat from now on, while this server hosts the game. */
    struct cas__seat *s = &t->seats[gone];
    struct cas__agent *brain;
    if (cas__agent_new(CAS__LEAVER_BOT, &brain) != CAS_OK)
        return refuse(code, "internal", msg, msglen, "out of memory");
    char *agent = strdup(CAS__LEAVER_BOT);
    if (!agent) {
        cas__agent_free(brain);
        return refuse(code, "internal", msg, msglen, "out of memory");
    }
    free(s->agent);
    s->agent = agent;
    s->brain = brain;
    s->bot = 1;
    t->proxies[gone]->ops = &bot_ops;
    t->hold.news = 1;
    cas__table_advance(t);
    return CAS_OK;
}
