/*
 * play.c — playing a hosted game: a seat's act, undo or hint checked and
 * applied through the session, then the table advanced (chance draws,
 * bots asked on the pool or inline, forced passes played for the seats
 * that let the server), and an action or result the store was away for
 * saved once it is back.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"

char cas__table_fine[1];

/* The reason of a table that stopped when no memory was left to say it. */
static char reason_lost[] = "the server ran out of memory";

void cas__table_fail(struct cas__table *t, const char *why)
{
    static const char form[] = "%.400s; the game is saved up to ply %" PRIu32
                               " (castellan resume %lld)";
    if (t->failure[0])
        return;
    int len = snprintf(NULL, 0, form, why, t->j.saved, (long long)t->id);
    char *text = len > 0 ? malloc((size_t)len + 1) : NULL;
    if (text)
        snprintf(text, (size_t)len + 1, form, why, t->j.saved, (long long)t->id);
    t->failure = text ? text : reason_lost;
}

void cas__table_fail_free(struct cas__table *t)
{
    if (t->failure != cas__table_fine && t->failure != reason_lost)
        free(t->failure);
    t->failure = cas__table_fine;
}

/* The game ended by its rules: journal the result (again, when the
 * store was away: it waits for it). */
static void finish(struct cas__table *t)
{
    struct cas__match *m = &t->r.match;
    char why[512] = "";
    int rc = CAS_OK;
    t->over = 1;
    /* An action that was not saved leaves the store as it is. */
    if (t->j.saved == t->r.session.ply) {
        int64_t *scores = calloc((size_t)t->nplayers, sizeof *scores);
        rc = scores ? m->vt->returns(t->r.session.state, scores, (size_t)t->nplayers)
                    : CAS_ENOMEM;
        if (rc == CAS_OK && t->lobby->writer) { /* shown once durable: cas__table_written */
            rc = cas__journal_keep(t, CAS__WRITE_RESULT, 0, -1, "result", scores, 0, why,
                                   sizeof why);
            free(scores);
            if (rc != CAS_OK)
                cas__table_fail(t, why);
            return;
        }
        if (rc == CAS_OK)
            rc = cas__table_store_finish(t, -1, 0, scores, why, sizeof why);
        else
            snprintf(why, sizeof why, "%s", cas__match_reason(m, rc));
        free(scores);
    }
    t->result_unsaved = rc == CAS_EUNAVAILABLE;
    if (rc != CAS_OK && !t->result_unsaved)
        cas__table_fail(t, why);
    if (rc == CAS_OK)
        cas__corr_game_over(t);
    t->hold.news = 1;
}

/* With the journal's writer, the action just applied waits for chance's
 * draw when that is the next decision, to be journaled with it
 * (cas__journal_joins: cas__table_advance draws at once); else it goes to
 * the writer now, the table busy until it is durable. */
static int journal_unless_chance_follows(struct cas__table *t)
{
    if (!t->lobby->writer || !t->unsaved.text || t->writing)
        return CAS_OK;
    if (!t->failure[0] && t->hold.actor == CAS_ACTOR_CHANCE && cas__journal_joins(t))
        return CAS_OK;
    char err[256];
    int rc = cas__journal_submit(t, err, sizeof err);
    if (rc != CAS_OK)
        cas__table_fail(t, err);
    return rc;
}

/* One decision of the session with t->pending as the actor's choice; a
 * take-back the store was away for stops nothing (it changed nothing). */
static int step(struct cas__table *t, int actor)
{
    t->applying_actor = actor;
    t->store_away = 0;
    int rc = cas__session_step(&t->r.session);
    if (rc != CAS_OK && !t->store_away)
        cas__table_fail(t, t->r.session.error);
    if (!t->failure[0])
        cas__table_actor(t);
    int journaled = journal_unless_chance_follows(t);
    return rc != CAS_OK ? rc : journaled;
}

/* The refusal of a move while the store is away (or an action waits for
 * it); kept: the refused move is the one that waits, saved on its return. */
static int refuse_unavailable(struct cas__table *t, int kept, const char **code, char *msg,
                              size_t msglen)
{
    const char *why = "it was unavailable a moment ago";
    return cas__srv_refuse(code, "unavailable", msg, msglen,
                           "game %lld waits for its database, which is unavailable for now: "
                           "%s; the game goes on by itself when it is back (%.500s)",
                           (long long)t->id,
                           kept ? "this move is kept and saved then, and the next state shows it"
                                : "nothing was played; play again then",
                           t->unsaved.text && t->unsaved.why ? t->unsaved.why : why);
}

void cas__table_retry_store(struct cas__table *t)
{
    if (t->refused_away && !t->unsaved.text && cas__table_store_ready(t) == CAS_OK) {
        t->refused_away = 0;
        cas__table_changed(t);
    }
    if (t->failure[0] || t->writing || (!t->unsaved.text && !t->result_unsaved))
        return;
    if (t->unsaved.text && t->lobby->writer) { /* no plugin call: on the loop or in a job */
        char err[256];
        if (cas__journal_submit(t, err, sizeof err) != CAS_OK)
            cas__table_fail(t, err);
        return; /* the writer's answer goes on with the game */
    }
    if (cas__offload_defer(t, CAS__OP_TICK))
        return;
    if (t->unsaved.text) {
        char why[512];
        int rc = cas__table_store_append(t, t->unsaved.ply, t->unsaved.actor, t->unsaved.text,
                                         t->unsaved.hash, t->unsaved.clock_ms, why,
                                         sizeof why);
        if (rc == CAS_EUNAVAILABLE)
            return;
        if (rc != CAS_OK) {
            cas__journal_forget(t);
            cas__table_fail(t, why);
            return;
        }
        cas__table_action_saved(t);
    }
    if (t->result_unsaved)
        finish(t);
    cas__table_advance(t);
}

/* The seat whose move waits for the store is told so on each of its
 * connections (its act was answered before the write failed). */
static void tell_kept(struct cas__table *t)
{
    const char *code;
    char msg[1024];
    refuse_unavailable(t, 1, &code, msg, sizeof msg);
    for (struct cas__conn *c = t->viewers; c; c = c->next_viewer) {
        if (c->seat != t->unsaved.actor)
            continue;
        cas__conn_send_error(c, "", code, msg);
    }
}

/* What waited in t->unsaved is durable: the bookkeeping of its kind. */
static void saved(struct cas__table *t)
{
    switch (t->unsaved.kind) {
    case CAS__WRITE_APPEND:
        cas__table_action_saved(t);
        return;
    case CAS__WRITE_TAKE_BACK:
        t->j.saved = t->unsaved.ply;
        break;
    case CAS__WRITE_RESULT:
        cas__corr_game_over(t);
        t->hold.news = 1;
        break;
    case CAS__WRITE_BOT:
        t->hold.news = 1;
        break;
    case CAS__WRITE_CALL: /* the store thread's, never a table's write */
        break;
    }
    cas__journal_forget(t);
}

/* The writer's answer while a job has the table: its delivery applies it
 * (offload.c). */
static void keep_for_delivery(struct cas__table *t, size_t n_saved, int rc, const char *why)
{
    t->hold.written = 1;
    t->hold.written_saved = n_saved;
    t->hold.written_rc = rc;
    free(t->hold.written_why);
    t->hold.written_why = why ? strdup(why) : NULL;
}

/* The writer answered: t plays again, and its first n_saved writes are
 * durable. */
static void answered(struct cas__table *t, size_t n_saved)
{
    t->busy = 0;
    t->writing = 0;
    cas__table_changed(t);
    free(t->unsaved.why);
    t->unsaved.why = NULL;
    while (n_saved--)
        saved(t);
}

void cas__table_written_in_job(struct cas__table *t, size_t n_saved, int rc, const char *why)
{
    if (rc != CAS_OK) {
        keep_for_delivery(t, n_saved, rc, why);
        return;
    }
    answered(t, n_saved);
    cas__table_advance(t);
}

void cas__table_written(struct cas__table *t, size_t n_saved, int rc, const char *why)
{
    if (t->hold.held) {
        keep_for_delivery(t, n_saved, rc, why);
        return;
    }
    int first_failure = !t->unsaved.why;
    answered(t, n_saved);
    if (rc == CAS_OK) {
        cas__offload(t, CAS__OP_ADVANCE); /* plugin calls: a job (inline without a pool) */
    } else if (rc == CAS_ECONFLICT || rc == CAS_ENOTFOUND) {
        /* Another castellan saved that ply (or the game is gone): it is
         * not this server's game any more. */
        cas__journal_forget(t);
        cas__table_fail(t, why ? why : "the journal refused the action");
    } else {
        /* As when the store is away: the write waits, unacknowledged, and
         * is submitted again on a later tick (cas__table_retry_store).  A
         * seat whose own move or take-back it is hears so. */
        t->unsaved.why = strdup(why ? why : "the journal failed");
        if (first_failure && t->unsaved.actor >= 0 &&
            (t->unsaved.kind == CAS__WRITE_APPEND || t->unsaved.kind == CAS__WRITE_TAKE_BACK))
            tell_kept(t);
    }
}

/* Prepare the current bot's decision for the pool, or decide it here. */
static int ask_bot(struct cas__table *t, int actor)
{
    struct cas__session *s = &t->r.session;
    int rc = cas__match_legal(&t->r.match, s->state, &t->bot_legal);
    if (rc == CAS_OK && t->bot_legal.count == 0)
        rc = CAS_EINVAL;
    if (rc) {
        cas__table_fail(t, "the game lists no legal action for its bot");
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
        cas__table_fail(t, "the bot failed");
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
    cas__table_add_event(t, &e);
}

void cas__table_advance(struct cas__table *t)
{
    cas__table_changed(t);
    /* What waits unsubmitted is followed by chance's draw (step). */
    while (!t->over && !t->busy && !t->failure[0] &&
           (!t->unsaved.text || cas__journal_joins(t))) {
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
    cas__table_changed(t);
    if (rc != CAS_OK) {
        cas__table_fail(t, "the bot failed");
        return;
    }
    cas__table_check_clock(t, cas__table_now(t));
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
        return cas__srv_refuse(code, "internal", msg, msglen, "game %lld stopped: %s",
                               (long long)t->id, t->failure);
    if (t->over)
        return cas__srv_refuse(code, "over", msg, msglen, "game %lld is over", (long long)t->id);
    /* A save that failed before (unsaved.why) and is being tried again
     * waits for the store as one not tried yet: the same refusal, whenever
     * the move comes. */
    if (t->unsaved.why || (!t->writing && (t->unsaved.text ||
                                           cas__table_store_ready(t) != CAS_OK))) {
        t->refused_away = 1;
        return refuse_unavailable(t, 0, code, msg, msglen);
    }
    if (t->writing)
        return cas__srv_refuse(code, "not-your-turn", msg, msglen, "game %lld is saving the "
                               "last move; wait for the next state", (long long)t->id);
    int actor = cas__table_actor(t);
    if (t->busy || actor != seat)
        return cas__srv_refuse(code, "not-your-turn", msg, msglen, "it is not seat %d's decision "
                               "in game %lld; wait for the next state", seat, (long long)t->id);
    return CAS_OK;
}

int cas__table_legal_action(struct cas__table *t, int seat, int64_t ply, const char *text,
                            cas_action *out, const char **code, char *msg, size_t msglen)
{
    struct cas__session *s = &t->r.session;
    struct cas__match *m = &t->r.match;
    cas_action action;
    if (seat_may_act(t, seat, code, msg, msglen))
        return CAS_EINVAL;
    if (ply != (int64_t)s->ply)
        return cas__srv_refuse(code, "stale", msg, msglen, "the action was chosen at ply %" PRId64
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
        return cas__srv_refuse(code, "illegal", msg, msglen,
                               "\"%.200s\" is not a legal action now%s%.300s; play one of the "
                               "state's \"actions\"", text, m->error[0] ? ": " : "", m->error);
    *out = action;
    return CAS_OK;
}

int cas__table_act(struct cas__table *t, int seat, int64_t ply, const char *text,
                   const char **code, char *msg, size_t msglen)
{
    cas_action action = 0;
    if (cas__table_legal_action(t, seat, ply, text, &action, code, msg, msglen))
        return CAS_EINVAL;
    t->pending = action;
    if (step(t, seat) != CAS_OK)
        return cas__srv_refuse(code, "internal", msg, msglen, "%s", t->failure);
    if (t->unsaved.text && !t->lobby->writer) /* the store is away: it waits */
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
        return cas__srv_refuse(code, "cannot-undo", msg, msglen,
                               "seat %d has nothing to take back: undo takes back only your "
                               "own decisions since the last draw or another player's decision",
                               seat);
    t->pending_undo = 1;
    int rc = step(t, seat);
    t->pending_undo = 0;
    cas__table_views_rewound(t);
    if (rc != CAS_OK && t->store_away)
        return refuse_unavailable(t, 0, code, msg, msglen);
    if (rc != CAS_OK)
        return cas__srv_refuse(code, "internal", msg, msglen, "%s", t->failure);
    cas__table_changed(t);
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
        return cas__srv_refuse(code, "internal", msg, msglen, "out of memory");
    }
    int rc = cas__match_legal(m, s->state, &s->scratch);
    struct cas__decision d = {
        .match = m, .state = s->state, .player = seat, .player_name = t->r.names[seat],
        .seed = s->seed, .ply = s->ply, .legal = &s->scratch, .player_names = t->r.names,
    };
    if (rc == CAS_OK && s->scratch.count)
        rc = cas__agent_choose(t->hint, &d, &action);
    if (rc != CAS_OK || !s->scratch.count)
        return cas__srv_refuse(code, "internal", msg, msglen, "the hint bot failed: %s",
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
