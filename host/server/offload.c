/*
 * offload.c — a table's plugin calls run on the pool, never on the loop:
 * a seat's act, preview, undo, hint, autopass or leaver choice, a bot's decision
 * and the move it makes, chance and forced passes after them, the clock's
 * flag, and every message built for the viewers (pictures, legal actions,
 * state and text views) are one job of the pool (bots.c) for the table.
 * A worker-isolated plugin may take seconds per call: its jobs go to a
 * pool of their own, so they never hold a thread the games in process
 * need.
 *
 * While a job has it the table is held: the loop touches nothing of it but
 * its struct cas__hold.  A request that comes for a held table (or from a
 * connection with requests waiting already) waits in the table's inbox, in
 * order, bounded; once the job is delivered the loop sends what it built
 * (cas__table_send), hands the pool the bot's decision it prepared, or
 * frees the table and handles what waited.  The loop only moves bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loop_guard.h"
#include "table.h"

struct cas__table_job {
    struct cas__bot_job base;
    enum cas__op op;
    struct cas__conn *conn;        /* who asked (the answer's), NULL once closed */
    enum cas__req_type type;
    int seat;
    int64_t ply;
    char *text;                    /* act's or preview's action, leaver's choice; owned */
    int on;
    char id[80];
    int rc;
    const char *code;
    char msg[1024];
    struct cas__jw answer;         /* a hint or a preview */
    struct cas__agent *agent;      /* OP_BOT: who decides */
    struct cas__invites invites;   /* OP_OPEN: the creator's, owned */
    enum cas__opened how;          /* OP_OPEN */
    char *help_key;                /* the notation help to build, its key; owned */
    char *help;                    /* what was built; owned */
    size_t help_len;
    struct cas__bots *pool;        /* where it runs; NULL: inline, in the loop's place */
    int parked;                    /* it waits for its journal write (handoff.c) */
};

/* A game not open yet may start a worker that takes seconds: it opens on
 * the isolated games' pool, whatever it turns out to be. */
static struct cas__bots *pool_of(const struct cas__table *t)
{
    const struct cas__lobby *l = t->lobby;
    return (t->opening || t->r.match.isolated) && l->isolated_pool ? l->isolated_pool : l->bots;
}

/* ------------------------------------------------------- on the pool */

static void do_seat(struct cas__table_job *j)
{
    struct cas__table *t = j->base.table;
    j->code = "internal";
    switch (j->type) {
    case CAS__REQ_ACT:
        j->rc = cas__table_act(t, j->seat, j->ply, j->text, &j->code, j->msg, sizeof j->msg);
        break;
    case CAS__REQ_UNDO:
        j->rc = cas__table_undo(t, j->seat, &j->code, j->msg, sizeof j->msg);
        break;
    case CAS__REQ_AUTOPASS:
        cas__table_set_autopass(t, j->seat, j->on);
        j->rc = CAS_OK;
        break;
    case CAS__REQ_LEAVER:
        j->rc = cas__table_leaver(t, j->seat, j->text, &j->code, j->msg, sizeof j->msg);
        break;
    case CAS__REQ_PREVIEW:
        j->rc = cas__table_preview(t, j->seat, j->ply, j->text, &j->answer, j->id, &j->code,
                                   j->msg, sizeof j->msg);
        break;
    default:
        j->rc = cas__table_hint(t, j->seat, &j->answer, j->id, &j->code, j->msg,
                                sizeof j->msg);
        break;
    }
}

/* The job's own work; 0 when t stopped or could not open (nothing more
 * may be done with it). */
static int do_job(struct cas__table_job *j, struct cas__table *t)
{
    /* A sleeping table wakes for any job but the one that puts it to sleep
     * with nothing owed; one that cannot wake is stopped, and no job may
     * read its state. */
    int wake = j->op != CAS__OP_SLEEP || t->owes_update || t->owes_full;
    if (wake && cas__table_wake(t) != CAS_OK) {
        /* Nothing can be built for it: its viewers are told it stopped
         * (cas__table_tell_stopped), a seat's request is refused. */
        t->owes_update = t->owes_full = 0;
        j->rc = CAS_EINVAL;
        j->code = "internal";
        snprintf(j->msg, sizeof j->msg, "game %lld stopped: %s", (long long)t->id, t->failure);
        return 0;
    }
    switch (j->op) {
    case CAS__OP_OPEN:
        if (cas__table_open(t, j->msg, sizeof j->msg) != CAS_OK)
            return 0; /* t->opening stays: its delivery lets it go */
        cas__table_advance(t);
        /* A deadline that passed while the server was away falls now,
         * before anyone may move. */
        cas__table_check_clock(t, t->lobby->clock.now_ms(t->lobby->clock.ctx));
        break;
    case CAS__OP_SEAT:
        do_seat(j);
        break;
    case CAS__OP_BOT: {
        cas_action action = 0;
        int rc = cas__agent_choose(j->agent, &t->hold.bot, &action);
        cas__table_bot_done(t, rc, action);
        break;
    }
    case CAS__OP_ADVANCE:
        cas__table_advance(t);
        break;
    case CAS__OP_TICK:
        cas__table_retry_store(t);
        cas__table_check_clock(t, t->lobby->clock.now_ms(t->lobby->clock.ctx));
        break;
    case CAS__OP_FLUSH:
    case CAS__OP_SLEEP:
        break;
    }
    if (j->help_key) /* the table's first job: a plugin call, not the loop's */
        cas__help_build(t, &j->help, &j->help_len);
    return 1;
}

/* The answers to the actions the job submitted and waits for (an action
 * played, then maybe a forced pass after it), applied here as they come;
 * 1 when the job parks until the next comes (the writer hands it back:
 * cas__offload_handed_back).  A table that stopped does not wait: its
 * answer goes to the loop. */
static int take_answers(struct cas__table_job *j, struct cas__table *t)
{
    for (;;) {
        struct cas__saves_entry *answer;
        int may_park = !t->failure[0];
        /* Set before the job may be handed to another thread. */
        j->parked = may_park;
        t->hold.running = !may_park;
        if (cas__hand_end(&t->hold.hand, may_park, &answer))
            return 1;
        j->parked = 0;
        t->hold.running = 1;
        if (!answer)
            return 0;
        cas__journal_answered(answer, cas__table_written_in_job);
    }
}

static int run_job(struct cas__bot_job *base)
{
    struct cas__table_job *j = (struct cas__table_job *)base;
    struct cas__table *t = base->table;
    t->hold.running = 1;
    /* Handed back (j->parked), it goes on with its answers. */
    if (!j->parked && !do_job(j, t)) {
        t->hold.running = 0;
        return CAS__JOB_DONE;
    }
    if (take_answers(j, t))
        return CAS__JOB_PARKED;
    if (!t->over && !t->failure[0] && !cas__table_asleep(t))
        cas__table_actor(t); /* what the loop reads of whose turn it is */
    cas__table_build(t);
    cas__table_sleep(t);
    t->owes_sleep = 0; /* whether or not it could: the next leave asks again */
    t->hold.running = 0;
    return CAS__JOB_DONE;
}

/* On the pool, or in the loop's place when there is none. */
static int run(struct cas__bot_job *base)
{
    int loop = cas__loop_suspend();
    int rc = run_job(base);
    cas__loop_resume(loop);
    return rc;
}

int cas__offload_waits(struct cas__table *t)
{
    struct cas__table_job *j = t->hold.job;
    /* An opening's delivery is the lobby's news of the game: not delayed. */
    if (!t->hold.running || !j || !j->pool || j->op == CAS__OP_OPEN)
        return 0;
    cas__hand_wait(&t->hold.hand);
    return 1;
}

int cas__offload_handed_back(struct cas__saves_entry *e)
{
    struct cas__table *t = e->owner;
    switch (cas__hand_answer(&t->hold.hand, e)) {
    case CAS__HAND_TAKEN: /* e is the job's now: neither is touched here */
        cas__handoff_count(CAS__HANDOFF_HANDED_BACK);
        return 1;
    case CAS__HAND_RESUME: {
        struct cas__table_job *j = t->hold.job;
        j->base.search = 0; /* what is left of a bot's move is no search */
        cas__handoff_count(CAS__HANDOFF_HANDED_BACK);
        cas__bots_resume(j->pool, &j->base);
        return 1;
    }
    case CAS__HAND_LOOP:
        break;
    }
    return 0;
}

/* ------------------------------------------------------- on the loop */

static void job_free(struct cas__table_job *j)
{
    cas__jw_free(&j->answer);
    cas__invites_free(&j->invites);
    free(j->text);
    free(j->help_key);
    free(j->help);
    free(j);
}

static void discard(struct cas__bot_job *base)
{
    struct cas__table_job *j = (struct cas__table_job *)base;
    base->table->hold.job = NULL;
    base->table->hold.held = 0;
    job_free(j);
}

static void drain(struct cas__table *t, int64_t gone);
static void submit(struct cas__table *t, struct cas__table_job *j);
static void ask_pool(struct cas__table *t);

/* The table's lobby entry while it is held, as it is now that it is
 * free: its ply and whose turn, and the entry itself only when more than
 * those changed since the feed listed it or it was last written here
 * (most jobs write none, listed or not: with nobody following the lobby
 * nothing is ever listed). */
static void note_listing(struct cas__table *t)
{
    t->hold.ply = t->r.session.ply;
    t->hold.to_move = cas__lobby_to_move(t);
    t->hold.listing_kept = cas__feed_listed_as_is(t);
    if (t->hold.listing_kept || (t->hold.listing && !t->hold.listing_stale &&
                                 !t->days_per_move))
        return;
    struct cas__jw w;
    cas__jw_init(&w);
    cas__lobby_write_entry(t, &w);
    free(t->hold.listing);
    t->hold.listing = w.b.failed ? NULL : strdup(cas__jw_text(&w));
    t->hold.listing_stale = 0;
    cas__jw_free(&w);
}

/* The bot to move decides on the pool (its decision prepared by the last
 * job: t->hold.bot), and moves there. */
static void ask_pool(struct cas__table *t)
{
    struct cas__table_job *bot = calloc(1, sizeof *bot);
    if (!bot) {
        t->busy = 0;
        cas__table_fail(t, "out of memory for a bot's decision");
        cas__table_changed(t);
        return;
    }
    bot->op = CAS__OP_BOT;
    bot->agent = t->seats[t->hold.bot.player].brain;
    bot->base.search = strcmp(bot->agent->ops->kind, "mcts") == 0;
    submit(t, bot);
}

/* The journal writer's answer that came while the job had t. */
static void apply_written(struct cas__table *t)
{
    if (!t->hold.written)
        return;
    char *why = t->hold.written_why;
    t->hold.written = 0;
    t->hold.written_why = NULL;
    cas__table_written(t, t->hold.written_saved, t->hold.written_rc, why); /* may hold t again */
    free(why);
}

/* t could not be opened: the creator hears why, t leaves the lobby, and
 * what waited for it is handled without it. */
static void not_opened(struct cas__table *t, struct cas__table_job *j)
{
    if (j->conn)
        cas__conn_send_error(j->conn, j->id, "internal", j->msg);
    cas__lobby_not_opened(t, j->how, j->msg);
    job_free(j);
    t->hold.held = 0;
    drain(t, 0);
    cas__offload_retire(t);
}

static void deliver_job(struct cas__bot_job *base)
{
    struct cas__table_job *j = (struct cas__table_job *)base;
    struct cas__table *t = base->table;
    struct cas__lobby *l = t->lobby;
    int flushed = j->op == CAS__OP_FLUSH || j->op == CAS__OP_SLEEP; /* changed nothing seen */
    t->hold.job = NULL;
    if (j->conn)
        j->conn->working = NULL;
    if (j->op == CAS__OP_OPEN && t->opening) {
        not_opened(t, j);
        return;
    }
    if (j->op == CAS__OP_OPEN) {
        cas__lobby_news(t); /* listed from now on */
        if (j->conn)
            cas__lobby_created(t, j->conn, j->id, &j->invites);
    }
    if (j->conn && j->rc != CAS_OK)
        cas__conn_send_error(j->conn, j->id, j->code, j->msg);
    else if (j->conn && cas__jw_len(&j->answer))
        cas__conn_send_jw(j->conn, &j->answer);
    if (t->hold.news) {
        t->hold.news = 0;
        cas__lobby_news(t);
    }
    cas__feed_moved(l, t); /* free again: its ply and turn as they are now */
    cas__table_tell_stopped(t);
    cas__table_send(t);
    if (j->help_key) {
        cas__help_keep(t, j->help_key, j->help, j->help_len);
        j->help_key = j->help = NULL;
    }
    job_free(j);
    t->hold.held = 0;
    if (t->over && !t->counted_over)
        cas__lobby_queue(l, t); /* the flush counts it finished */
    apply_written(t);
    drain(t, 0);
    if (!t->hold.held && t->busy && !t->writing) /* busy, not writing: a bot decides */
        ask_pool(t);
    if (!flushed)
        cas__tick_soon(l, t); /* the clock tick places it again */
}

static void deliver(struct cas__bot_job *base)
{
    cas__loop_enter();
    deliver_job(base);
    cas__loop_leave();
}

/* Hand j to t's pool (or, without one, do it here and now). */
static void submit(struct cas__table *t, struct cas__table_job *j)
{
    struct cas__bots *pool = pool_of(t);
    if (t->opening) { /* no views yet, nor a listing: the lobby lists it once open */
        free(t->hold.listing);
        t->hold.listing = NULL;
        t->hold.listing_kept = 0;
    } else {
        if (!t->hold.held)
            note_listing(t);
        cas__table_plan(t);
    }
    j->help_key = cas__help_wanted(t);
    cas__jw_init(&j->answer);
    j->base.table = t;
    j->pool = pool;
    j->base.run = run;
    j->base.deliver = deliver;
    j->base.discard = discard;
    t->hold.held = 1;
    t->hold.job = j;
    if (!pool) {
        run(&j->base);
        deliver(&j->base);
        return;
    }
    cas__bots_push(pool, &j->base);
}

int cas__table_held(const struct cas__table *t)
{
    return t->hold.held;
}

void cas__offload(struct cas__table *t, enum cas__op op)
{
    struct cas__table_job *j = calloc(1, sizeof *j);
    if (!j) {
        cas__table_fail(t, "out of memory");
        return;
    }
    j->op = op;
    submit(t, j);
}

int cas__offload_defer(struct cas__table *t, enum cas__op op)
{
    if (t->hold.running)
        return 0;
    if (!t->hold.held)
        cas__offload(t, op);
    return 1;
}

void cas__offload_open(struct cas__table *t, struct cas__conn *c, const char *id,
                       struct cas__invites *invites, enum cas__opened how)
{
    struct cas__table_job *j = calloc(1, sizeof *j);
    if (!j) {
        cas__table_fail(t, "out of memory");
        if (invites)
            cas__invites_free(invites);
        if (c)
            cas__conn_send_error(c, id, "internal", "out of memory");
        cas__lobby_not_opened(t, how, "out of memory");
        cas__table_free(t);
        return;
    }
    j->op = CAS__OP_OPEN;
    j->how = how;
    j->conn = c;
    if (c)
        c->working = t;
    snprintf(j->id, sizeof j->id, "%s", id);
    if (invites) {
        j->invites = *invites;
        memset(invites, 0, sizeof *invites);
    }
    submit(t, j);
}

void cas__offload_seat(struct cas__table *t, struct cas__conn *c, const struct cas__req *req)
{
    struct cas__table_job *j = calloc(1, sizeof *j);
    const char *text =
        req->type == CAS__REQ_ACT || req->type == CAS__REQ_PREVIEW ? req->action : req->choice;
    if (!j || (text && !(j->text = strdup(text)))) {
        free(j);
        cas__conn_send_error(c, req->id, "internal", "out of memory");
        return;
    }
    j->op = CAS__OP_SEAT;
    j->conn = c;
    c->working = t;
    j->type = req->type;
    j->seat = c->seat;
    j->ply = req->ply;
    j->on = req->on;
    memcpy(j->id, req->id, sizeof j->id);
    submit(t, j);
}

/* ------------------------------------------------ a table that goes */

/* Its match closed on the pool (a worker told to quit, the plugin's
 * game_free), the rest freed on the loop once delivered. */
static int run_close(struct cas__bot_job *job)
{
    int loop = cas__loop_suspend();
    struct cas__table *t = job->table;
    t->r.match.on_fault = (struct cas__fault_handler){0}; /* nobody is told any more */
    cas__revive_close(&t->r);
    cas__loop_resume(loop);
    return CAS__JOB_DONE;
}

static void free_closed(struct cas__bot_job *job)
{
    cas__table_free(job->table);
    free(job);
}

static void deliver_close(struct cas__bot_job *job)
{
    cas__loop_enter();
    free_closed(job);
    cas__loop_leave();
}

void cas__offload_retire(struct cas__table *t)
{
    struct cas__bots *pool = pool_of(t);
    cas__lobby_unqueue(t->lobby, t); /* nothing of it is flushed, listed or ticked any more */
    cas__feed_forget(t->lobby, t);
    cas__tick_forget(t->lobby, t);
    struct cas__bot_job *job = calloc(1, sizeof *job);
    if (!job) { /* closed here: rather the loop waits than the worker lingers */
        run_close(&(struct cas__bot_job){.table = t});
        cas__table_free(t);
        return;
    }
    *job = (struct cas__bot_job){.table = t, .run = run_close, .deliver = deliver_close,
                                 .discard = free_closed};
    if (!pool) {
        run_close(job);
        deliver_close(job);
        return;
    }
    cas__bots_push(pool, job);
}

/* --------------------------------------------- held by a store job */

void cas__offload_hold(struct cas__table *t, struct cas__conn *c)
{
    if (!t->opening && !t->hold.held)
        note_listing(t);
    t->hold.held = 1;
    t->hold.asker = c;
    if (c)
        c->working = t;
}

/* The store job's hold ends: its asker may go on. */
static void unhold(struct cas__table *t)
{
    if (t->hold.asker && t->hold.asker->working == t)
        t->hold.asker->working = NULL;
    t->hold.asker = NULL;
    t->hold.held = 0;
}

void cas__offload_release(struct cas__table *t)
{
    unhold(t);
    apply_written(t);
    drain(t, 0);
    if (!t->hold.held && t->busy && !t->writing)
        ask_pool(t);
    cas__tick_soon(t->lobby, t);
}

void cas__offload_drop(struct cas__table *t, int64_t gone)
{
    unhold(t);
    drain(t, gone);
    cas__table_free(t);
}

/* ------------------------------------------------- waiting requests */

/* The newest of c's requests that wait (pushed at the head of its list). */
static struct cas__waiting *latest_of(struct cas__conn *c)
{
    return c->waiting;
}

int cas__offload_targets(enum cas__req_type type)
{
    return type == CAS__REQ_JOIN || type == CAS__REQ_CLAIM || type == CAS__REQ_ACT ||
           type == CAS__REQ_UNDO || type == CAS__REQ_HINT || type == CAS__REQ_AUTOPASS ||
           type == CAS__REQ_LEAVER || type == CAS__REQ_PREVIEW;
}

/* The held table req must wait for, or NULL: the one working on c's
 * last request or the one c's earlier requests wait for (a connection's
 * answers keep the order of its requests), c's own when req leaves it,
 * the one req is for. */
static struct cas__table *waits_for(struct cas__lobby *l, struct cas__conn *c,
                                    const struct cas__req *req)
{
    if (latest_of(c) && latest_of(c)->table->hold.held)
        return latest_of(c)->table;
    if (c->working && c->working->hold.held)
        return c->working;
    if ((req->type == CAS__REQ_JOIN || req->type == CAS__REQ_LEAVE) && c->table &&
        c->table->hold.held)
        return c->table;
    if (!cas__offload_targets(req->type))
        return NULL;
    struct cas__table *t = cas__lobby_find(l, req->game);
    return t && t->hold.held ? t : NULL;
}

static void enqueue(struct cas__table *t, struct cas__waiting *w)
{
    w->table = t;
    w->next = NULL;
    if (!t->hold.inbox)
        t->hold.inbox_tail = &t->hold.inbox;
    *t->hold.inbox_tail = w;
    t->hold.inbox_tail = &w->next;
    t->hold.n_waiting++;
    t->hold.waiting_bytes += w->bytes;
    t->lobby->waiting_bytes += w->bytes;
}

int cas__offload_wait(struct cas__lobby *l, struct cas__conn *c, struct cas__req *req)
{
    struct cas__table *t = waits_for(l, c, req);
    if (!t)
        return 0;
    size_t bytes = sizeof(struct cas__waiting) + 4 * req->bytes; /* its parsed tree too */
    struct cas__waiting *w = NULL;
    if (t->hold.n_waiting >= CAS__WAITING_PER_TABLE ||
        t->hold.waiting_bytes + bytes > CAS__WAITING_BYTES ||
        l->waiting_bytes + bytes > CAS__WAITING_BYTES_ALL || !(w = calloc(1, sizeof *w))) {
        char msg[200];
        snprintf(msg, sizeof msg, "game %lld is busy and too many requests wait for it; "
                 "send this one again after the next update", (long long)t->id);
        cas__conn_send_error(c, req->id, "busy", msg);
        return 1;
    }
    w->req = *req;
    req->root = NULL; /* the waiting request owns the parsed message now */
    w->conn = c;
    w->bytes = bytes;
    w->next_of_conn = c->waiting;
    c->waiting = w;
    enqueue(t, w);
    return 1;
}

static void unlink_from_conn(struct cas__waiting *w)
{
    if (!w->conn)
        return;
    for (struct cas__waiting **p = &w->conn->waiting; *p; p = &(*p)->next_of_conn)
        if (*p == w) {
            *p = w->next_of_conn;
            break;
        }
}

/* What waited for t, handled in order while t stays free; game gone (0:
 * none) is not brought back for them. */
static void drain(struct cas__table *t, int64_t gone)
{
    struct cas__lobby *l = t->lobby;
    while (!t->hold.held && t->hold.inbox) {
        struct cas__waiting *w = t->hold.inbox;
        t->hold.inbox = w->next;
        t->hold.n_waiting--;
        t->hold.waiting_bytes -= w->bytes;
        l->waiting_bytes -= w->bytes;
        unlink_from_conn(w);
        if (w->left)
            cas__lobby_settle_leave(t, w->left_seat);
        else if (w->conn)
            cas__lobby_handle_waited(l, w->conn, &w->req, gone);
        cas__req_free(&w->req);
        free(w);
    }
}

void cas__offload_forget(struct cas__lobby *l, struct cas__conn *c)
{
    for (struct cas__waiting *w = c->waiting; w; w = w->next_of_conn)
        w->conn = NULL;
    c->waiting = NULL;
    if (c->working && c->working->hold.asker == c)
        c->working->hold.asker = NULL;
    if (c->working && c->working->hold.job && c->working->hold.job->conn == c)
        c->working->hold.job->conn = NULL;
    c->working = NULL;
    struct cas__table *t = c->table;
    if (!t || !t->hold.held)
        return;
    for (struct cas__conn **p = &t->viewers; *p; p = &(*p)->next_viewer)
        if (*p == c) {
            *p = c->next_viewer;
            break;
        }
    /* Its seat's count settles once the table is free. */
    struct cas__waiting *w = calloc(1, sizeof *w);
    if (w) {
        w->left = 1;
        w->left_seat = c->seat;
        enqueue(t, w);
    }
    (void)l;
    c->table = NULL;
    c->seat = -1;
    c->next_viewer = NULL;
}

void cas__hold_free(struct cas__table *t)
{
    while (t->hold.inbox) {
        struct cas__waiting *w = t->hold.inbox;
        t->hold.inbox = w->next;
        t->lobby->waiting_bytes -= w->bytes;
        unlink_from_conn(w);
        cas__req_free(&w->req);
        free(w);
    }
    free(t->hold.listing);
    free(t->hold.written_why);
}
