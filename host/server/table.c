/*
 * table.c — one game hosted by the server: the session (host/session) in
 * which every seat's agent is a proxy handing over the decision the server
 * received (a remote player's act, a bot's search finished on a thread),
 * the journal committing each action with the actor's clock, the seats and
 * their tokens and the event log.  Creating a game is create.c's, playing
 * it play.c's, its clocks clock.c's, its messages message.c's.
 *
 * A game is always brought up from the store, new or not: a new game is
 * inserted first and then opened exactly as a restarted server reopens an
 * unfinished one (host/session/revive.c), so both paths are one.  Opening
 * is two steps: what the store holds (cas__table_load, on the store's
 * thread in castellan serve), then the match (the plugin loaded, a worker started, the journal
 * replayed: cas__table_open, a job of the pool in castellan serve).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "loop_guard.h"
#include "table.h"

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
    int forfeit;
    int rc;
    char err[512];
};

static void store_call_run(void *arg)
{
    struct store_call *call = arg;
    call->rc = call->fn(call);
    if (call->rc == CAS_OK || call->rc == CAS_EUNAVAILABLE)
        call->t->lobby->store_up = call->rc == CAS_OK;
    if (call->rc != CAS_OK)
        snprintf(call->err, sizeof call->err, "%s", cas__saves_errmsg(call->t->lobby->store));
}

/* Make call on the loop; its code, and why it failed into err. */
static int on_store(struct cas__table *t, struct store_call *call, char *err, size_t errlen)
{
    call->t = t;
    cas__on_loop(store_call_run, call);
    if (call->rc != CAS_OK && err)
        snprintf(err, errlen, "%s", call->err);
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

static int store_finish(struct store_call *c)
{
    return cas__saves_finish(c->t->lobby->store, c->t->id, c->scores, (size_t)c->t->nplayers);
}

static int store_flag(struct store_call *c)
{
    int rc = cas__saves_served_flag(c->t->lobby->store, c->t->id, c->actor, c->forfeit);
    return rc == CAS_OK ? store_finish(c) : rc;
}

static int store_bot(struct store_call *c)
{
    return cas__saves_served_bot(c->t->lobby->store, c->t->id, c->actor, c->text);
}

int cas__table_store_append(struct cas__table *t, uint32_t ply, int actor, const char *text,
                            uint64_t hash, int64_t clock_ms, char *err, size_t errlen)
{
    struct store_call call = {.fn = store_append, .ply = ply, .actor = actor, .text = text,
                              .hash = hash, .clock_ms = clock_ms};
    return on_store(t, &call, err, errlen);
}

int cas__table_store_ready(struct cas__table *t)
{
    return t->lobby->store_up ? CAS_OK : CAS_EUNAVAILABLE;
}

int cas__table_store_finish(struct cas__table *t, int flagged, int forfeit,
                            const int64_t *scores, char *err, size_t errlen)
{
    struct store_call call = {.fn = flagged >= 0 ? store_flag : store_finish,
                              .actor = flagged, .forfeit = forfeit, .scores = scores};
    return on_store(t, &call, err, errlen);
}

int cas__table_store_bot(struct cas__table *t, int seat, const char *spec, char *err,
                         size_t errlen)
{
    struct store_call call = {.fn = store_bot, .actor = seat, .text = spec};
    return on_store(t, &call, err, errlen);
}

/* ------------------------------------------------------------- hooks */

/* A job's table is queued by the loop when the job is delivered: the
 * lobby's list is the loop's. */
void cas__table_changed(struct cas__table *t)
{
    t->owes_update = 1;
    if (!t->hold.running)
        cas__lobby_queue(t->lobby, t);
}

void cas__table_owe_full(struct cas__table *t)
{
    t->owes_full = 1;
    if (!t->hold.running)
        cas__lobby_queue(t->lobby, t);
}

int64_t cas__table_now(const struct cas__table *t)
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
    int64_t left = t->seats[actor].clock_ms - cas__table_turn_elapsed(t, cas__table_now(t));
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

void cas__table_took_clock(struct cas__table *t, int actor, int64_t clock)
{
    if (t->days_per_move)
        cas__corr_saved(t, actor, clock);
    else if (clock >= 0)
        t->seats[actor].clock_ms = clock;
    t->turn_started = cas__table_now(t); /* the next turn starts now: no time was away */
}

void cas__table_action_saved(struct cas__table *t)
{
    t->j.saved = t->unsaved.ply + 1;
    if (t->unsaved.actor >= 0)
        note_played(t, t->unsaved.ply, t->unsaved.actor, t->unsaved.text);
    cas__table_took_clock(t, t->unsaved.actor, t->unsaved.clock_ms);
    t->away_since = 0;
    if (!t->unsaved.n_more) {
        cas__journal_forget(t);
        return;
    }
    /* The next action journaled with it waits in its place. */
    struct cas__unsaved_action next = t->unsaved.more[0];
    memmove(t->unsaved.more, t->unsaved.more + 1, --t->unsaved.n_more * sizeof next);
    free(t->unsaved.text);
    t->unsaved.text = next.text;
    t->unsaved.ply = next.ply;
    t->unsaved.actor = next.actor;
    t->unsaved.hash = next.hash;
    t->unsaved.clock_ms = next.clock_ms;
}

/* The action just applied waits in t->unsaved until it is durable: on the
 * journal's writer thread (the table is frozen until it comes back,
 * journal_writer.c; handed over once the next decision is known, with
 * chance's draws right after it), or committed here when the lobby has no
 * writer.  A store that is away keeps it waiting (cas__table_retry_store). */
static int on_action(void *ctx, uint32_t ply, int actor, const char *text,
                     uint64_t hash_after, char *err, size_t errlen)
{
    struct cas__table *t = ctx;
    int64_t clock = t->days_per_move ? cas__corr_deadline_after(t, actor) : clock_after(t, actor);
    int rc = cas__journal_add(t, ply, actor, text, hash_after, clock, err, errlen);
    if (rc != CAS_OK || t->lobby->writer) /* submitted by step (play.c) */
        return rc;
    rc = cas__table_store_append(t, ply, actor, text, hash_after, clock, err, errlen);
    if (rc == CAS_OK) {
        cas__table_action_saved(t);
    } else if (rc != CAS_EUNAVAILABLE) {
        cas__journal_forget(t);
        return rc;
    }
    return CAS_OK;
}

/* A take-back leaves the journal first: on the journal's writer (the
 * table frozen until it is durable, t->j.saved moved then), else here. */
static int on_undo(void *ctx, uint32_t from_ply)
{
    struct cas__table *t = ctx;
    char err[256];
    int rc;
    if (t->lobby->writer) {
        rc = cas__journal_keep(t, CAS__WRITE_TAKE_BACK, from_ply, t->applying_actor,
                               "take back", NULL, 0, err, sizeof err);
    } else {
        struct store_call call = {.fn = store_take_back, .ply = from_ply};
        rc = on_store(t, &call, NULL, 0);
        t->store_away = rc == CAS_EUNAVAILABLE;
        if (rc == CAS_OK)
            t->j.saved = from_ply;
    }
    if (rc != CAS_OK)
        return rc;
    forget_played(t);
    while (t->n_events && t->events[t->n_events - 1].ply >= from_ply)
        free(t->events[--t->n_events].text);
    t->events_reset++;
    return CAS_OK;
}

void cas__table_add_event(struct cas__table *t, const struct cas_event *event)
{
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
    int scored = event->kind == CAS_EVENT_SCORE;
    const char *category = scored && CAS_HAS_FIELD(event, struct cas_event, final)
                               ? event->category
                               : NULL;
    size_t len = strlen(event->text) + 1, more = category ? strlen(category) + 1 : 0;
    char *text = malloc(len + more);
    if (!text)
        return;
    memcpy(text, event->text, len);
    if (category)
        memcpy(text + len, category, more);
    t->events[t->n_events++] = (struct cas__srv_event){
        .ply = t->r.session.ply, .player = t->applying_actor,
        .visible_to = event->visible_to, .text = text,
        .scorer = scored ? event->player : -1, .points = scored ? event->points : 0,
        .category = category ? text + len : NULL, .final = category && event->final};
}

static void on_event(void *ctx, const struct cas_event *event)
{
    cas__table_add_event(ctx, event);
}

/* A worker process of this game failed: the table stops, the server goes
 * on (the store holds every action the worker accepted). */
static void on_fault(void *ctx, const struct cas__worker_fault *fault)
{
    struct cas__table *t = ctx;
    cas__table_fail(t, fault->text);
    cas__table_changed(t);
}

/* ----------------------------------------------------- opening a table */

/* Checked as play checks it: a seat out of range is the plugin breaking
 * the ABI, which stops the table (on_fault) and reads as the end.  A
 * sleeping table's is the one asked last before it slept (its state has
 * not changed since). */
int cas__table_actor(struct cas__table *t)
{
    if (cas__table_asleep(t))
        return t->hold.actor;
    cas__loop_check("a plugin call (whose turn)");
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
        /* A bot that took the seat of a player who left keeps it. */
        const char *bot = (size_t)i < served->n_seats ? served->seats[i].bot : NULL;
        const char *agent = bot ? bot : t->saved.players[i].agent;
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
    t->turn_started = cas__table_now(t);
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

/* What store s holds of the game: its journal, the server's record and
 * the seats. */
static int open_stored(struct cas__table *t, struct cas__saves *s, char *msg, size_t msglen)
{
    struct cas__saves_served served;
    int rc = cas__saves_game_load(s, t->id, 1, &t->saved);
    if (rc) {
        snprintf(msg, msglen, "%s", cas__saves_errmsg(s));
        return rc;
    }
    if ((rc = cas__saves_served_load(s, t->id, &served))) {
        snprintf(msg, msglen, "%s", cas__saves_errmsg(s));
        return rc;
    }
    t->has_clock = served.base_ms > 0;
    t->days_per_move = served.days_per_move;
    t->deadline = served.first_deadline;
    if (t->days_per_move < 0 || t->days_per_move > CAS__MAX_DAYS_PER_MOVE || t->deadline < 0) {
        snprintf(msg, msglen, "game %lld is damaged: %d days per move (1 to %d, or 0 for "
                 "none), first deadline %lld", (long long)t->id, t->days_per_move,
                 CAS__MAX_DAYS_PER_MOVE, (long long)t->deadline);
        cas__saves_served_free(&served);
        return CAS_ECORRUPT;
    }
    t->base_ms = served.base_ms;
    t->increment_ms = served.increment_ms;
    t->flagged = served.flagged;
    t->forfeit = served.forfeit;
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
    return CAS_OK;
}

int cas__table_open(struct cas__table *t, char *msg, size_t msglen)
{
    struct cas__lobby *l = t->lobby;
    int rc;
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
    if (t->days_per_move)
        cas__corr_restore(t, &t->saved);
    else
        restore_clocks(t);
    t->over = t->flagged >= 0 || t->saved.status == CAS__SAVES_FINISHED;
    /* The session holds the game now; the loaded journal would only take
     * a long game's worth of memory for as long as it is hosted. */
    for (size_t i = 0; i < t->saved.n_actions; i++)
        free(t->saved.actions[i].text);
    free(t->saved.actions);
    t->saved.actions = NULL;
    t->saved.n_actions = 0;
    if (!(t->labels = calloc((size_t)t->nplayers, sizeof *t->labels)))
        return CAS_ENOMEM;
    for (int i = 0; i < t->nplayers; i++)
        if (!(t->labels[i] = strdup(cas__match_label(&t->r.match, i))))
            return CAS_ENOMEM;
    t->opening = 0;
    cas__table_actor(t);
    return CAS_OK;
}

const char *cas__table_label(const struct cas__table *t, int seat)
{
    return t->labels && seat >= 0 && seat < t->nplayers ? t->labels[seat] : "?";
}

void cas__table_free(struct cas__table *t)
{
    if (!t)
        return;
    cas__lobby_unqueue(t->lobby, t);
    cas__feed_forget(t->lobby, t);
    cas__tick_forget(t->lobby, t);
    if (t->claimed)
        cas__store_quietly(t->lobby, cas__saves_game_release, t->id);
    cas__table_sleep_free(t);
    cas__revive_close(&t->r);
    for (int i = 0; t->proxies && i < t->nplayers; i++)
        cas__agent_free(t->proxies[i]);
    free(t->proxies);
    for (int i = 0; t->seats && i < t->nplayers; i++) {
        free(t->seats[i].agent);
        cas__agent_free(t->seats[i].brain);
    }
    free(t->seats);
    for (int i = 0; t->labels && i < t->nplayers; i++)
        free(t->labels[i]);
    free(t->labels);
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
    cas__journal_forget(t);
    free(t->unsaved.why);
    cas__hold_free(t);
    cas__help_release(t);
    cas__table_fail_free(t);
    free(t);
}

/* Message numbers start at the wall clock's microseconds, so those of a
 * restarted server follow every number the last one sent: a client's
 * "since" from before never passes for one of the new numbers. */
uint64_t cas__srv_first_seq(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

struct cas__table *cas__table_shell(struct cas__lobby *l)
{
    struct cas__table *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->lobby = l;
    t->flagged = -1;
    t->failure = cas__table_fine;
    t->seq = cas__srv_first_seq();
    t->opening = 1;
    return t;
}

int cas__table_load(struct cas__table *t, struct cas__saves *s, int64_t id, char *msg,
                    size_t msglen)
{
    t->id = id;
    int rc = cas__saves_game_claim(s, id);
    t->claimed = rc == CAS_OK;
    if (rc == CAS_OK)
        rc = open_stored(t, s, msg, msglen);
    else
        snprintf(msg, msglen, "%s", cas__saves_errmsg(s));
    if (rc == CAS_ENOMEM && !msg[0])
        snprintf(msg, msglen, "out of memory");
    return rc;
}

int cas__table_restore(struct cas__lobby *l, int64_t id, struct cas__table **out,
                       char *msg, size_t msglen)
{
    struct cas__table *t = cas__table_shell(l);
    *out = NULL;
    if (!t) {
        snprintf(msg, msglen, "out of memory");
        return CAS_ENOMEM;
    }
    int rc = cas__table_load(t, l->store, id, msg, msglen);
    if (rc) {
        cas__table_free(t);
        return rc;
    }
    *out = t;
    return CAS_OK;
}

int cas__table_give_to_bot(struct cas__table *t, int seat, const char *spec)
{
    struct cas__seat *s = &t->seats[seat];
    struct cas__agent *brain;
    if (cas__agent_new(spec, &brain) != CAS_OK)
        return CAS_ENOMEM;
    char *agent = strdup(spec);
    if (!agent) {
        cas__agent_free(brain);
        return CAS_ENOMEM;
    }
    free(s->agent);
    s->agent = agent;
    s->brain = brain;
    s->bot = 1;
    t->proxies[seat]->ops = &bot_ops;
    return CAS_OK;
}

int64_t cas__table_id(const struct cas__table *t)
{
    return t->id;
}

const char *cas__table_title(const struct cas__table *t)
{
    return t->r.match.title;
}

int cas__table_players(const struct cas__table *t)
{
    return t->nplayers;
}

const char *cas__table_seat_name(const struct cas__table *t, int seat)
{
    return t->r.names[seat];
}

int cas__table_seat_is_bot(const struct cas__table *t, int seat)
{
    return t->seats[seat].bot;
}

int cas__table_over(const struct cas__table *t)
{
    return t->over;
}

const char *cas__table_failure(const struct cas__table *t)
{
    return t->failure[0] ? t->failure : NULL;
}

int cas__table_token_ok(const struct cas__table *t, int seat, const char *token)
{
    if (seat < 0 || seat >= t->nplayers || t->seats[seat].bot)
        return 0;
    return cas__token_matches(t->seats[seat].token_hash, token);
}
