/*
 * clock.c — a hosted game's time and absence: the clocks start once every
 * human seat has joined, a flag that falls ends the game with its seat
 * ranked last, and a seat gone past the grace at its turn may be claimed
 * or given to a bot by the others (docs/server.md, "Clocks").  A
 * correspondence game's deadlines are correspondence.c's; its flag falls
 * here as any other, and no grace applies to it.
 */
#include <stdlib.h>
#include <string.h>

#include "table.h"

void cas__table_seat_joined(struct cas__table *t, int seat)
{
    if (seat < 0 || seat >= t->nplayers)
        return;
    t->seats[seat].joined = 1;
    int waits = t->days_per_move ? !t->deadline && !t->over : t->has_clock && !t->clock_running;
    if (!waits)
        return;
    for (int i = 0; i < t->nplayers; i++)
        if (!t->seats[i].bot && (t->seats[i].open || !t->seats[i].joined))
            return;
    /* Every human seat is here: the turn due now starts its clock. */
    if (t->days_per_move) {
        cas__corr_start(t);
        return;
    }
    t->clock_running = 1;
    t->turn_started = cas__table_now(t);
    cas__table_changed(t);
}

/* The game ends with `seat` ranked last, the others by their projected
 * scores: its flag fell, or it left and the others claimed the game
 * (forfeit; docs/server.md).  The store keeps which. */
static void end_ranked_last(struct cas__table *t, int seat, int forfeit)
{
    char why[512];
    t->flagged = seat;
    t->forfeit = forfeit;
    t->over = 1;
    cas__table_changed(t);
    size_t n = (size_t)t->nplayers;
    int64_t *scores = calloc(n, sizeof *scores);
    if (!scores) {
        cas__table_fail(t, "out of memory");
        return;
    }
    cas__match_projected(&t->r.match, t->r.session.state, scores);
    if (t->lobby->writer) { /* shown once durable: cas__table_written */
        if (cas__journal_keep(t, CAS__WRITE_RESULT, 0, seat, "result", scores, forfeit, why,
                              sizeof why) != CAS_OK)
            cas__table_fail(t, why);
    } else if (cas__table_store_finish(t, seat, forfeit, scores, why, sizeof why) != CAS_OK) {
        cas__table_fail(t, why);
    } else {
        cas__corr_game_over(t);
        t->hold.news = 1;
    }
    free(scores);
}

void cas__table_check_clock(struct cas__table *t, int64_t now)
{
    /* A seat's grace running out is news: the others get a state. */
    int gone = cas__table_gone(t, now);
    if (gone + 1 != t->leaver_shown) {
        t->leaver_shown = gone + 1;
        cas__table_changed(t);
    }
    int timed = t->days_per_move ? t->deadline != 0 : t->has_clock && t->clock_running;
    if (!timed || t->over || t->busy || t->failure[0])
        return;
    /* Nobody may move while the store is away: nobody's time runs. */
    if (t->unsaved.text || cas__table_store_ready(t) != CAS_OK) {
        if (!t->away_since)
            t->away_since = now;
        return;
    }
    if (t->away_since) {
        t->turn_started += now - t->away_since;
        t->away_since = 0;
    }
    if (t->days_per_move) {
        int late = cas__corr_expired(t, cas__corr_wall(t));
        if (late >= 0 && !cas__offload_defer(t, CAS__OP_TICK))
            end_ranked_last(t, late, 0);
        return;
    }
    int actor = t->hold.actor;
    if (actor < 0 || actor >= t->nplayers ||
        cas__table_turn_elapsed(t, now) < t->seats[actor].clock_ms ||
        cas__offload_defer(t, CAS__OP_TICK)) /* the scores it ends with are the plugin's */
        return;
    t->seats[actor].clock_ms = 0; /* the flag fell */
    end_ranked_last(t, actor, 0);
}

/* ------------------------------------------------------------ leavers */

void cas__table_seat_left(struct cas__table *t, int seat)
{
    if (seat >= 0 && seat < t->nplayers && t->seats[seat].connected == 0) {
        t->seats[seat].left_at = cas__table_now(t);
        cas__table_changed(t);
    }
}

/* The seat to move if it has left: a person's seat that joined once,
 * has no connection now and has been gone the grace; else -1. */
int cas__table_gone(struct cas__table *t, int64_t now)
{
    int actor = t->hold.actor; /* the loop asks too: no plugin call */
    /* A correspondence player is expected to be away: no grace applies. */
    if (t->over || t->days_per_move || actor < 0 || actor >= t->nplayers)
        return -1;
    const struct cas__seat *s = &t->seats[actor];
    return !s->bot && s->joined && !s->connected && now - s->left_at >= CAS__LEAVER_GRACE_MS
               ? actor
               : -1;
}

int cas__table_leaver(struct cas__table *t, int seat, const char *choice, const char **code,
                      char *msg, size_t msglen)
{
    int gone = cas__table_gone(t, cas__table_now(t));
    if (seat < 0 || seat >= t->nplayers || t->seats[seat].bot)
        return cas__srv_refuse(code, "not-your-turn", msg, msglen, "only a player of game %lld may "
                               "decide about a seat that left", (long long)t->id);
    if (gone < 0 || gone == seat || t->busy || t->unsaved.text)
        return cas__srv_refuse(code, "not-your-turn", msg, msglen, "no seat of game %lld has left "
                               "for %d s at its turn; wait for the state that offers it",
                               (long long)t->id, CAS__LEAVER_GRACE_MS / 1000);
    if (strcmp(choice, "claim") == 0) {
        end_ranked_last(t, gone, 1);
        return CAS_OK;
    }
    /* A bot plays the seat from now on, across restarts too: the store
     * says so first (with the journal's writer: the table frozen until it
     * is durable, kept if it fails), or nothing changes. */
    char why[512];
    if (t->lobby->writer) {
        if (cas__journal_keep(t, CAS__WRITE_BOT, 0, gone, CAS__LEAVER_BOT, NULL, 0, why,
                              sizeof why) != CAS_OK)
            return cas__srv_refuse(code, "internal", msg, msglen, "%s", why);
    } else if (cas__table_store_bot(t, gone, CAS__LEAVER_BOT, why, sizeof why) != CAS_OK)
        return cas__srv_refuse(code, "unavailable", msg, msglen, "game %lld: the seat cannot "
                               "be given to a bot now (%s); try again", (long long)t->id, why);
    if (cas__table_give_to_bot(t, gone, CAS__LEAVER_BOT) != CAS_OK) {
        cas__table_fail(t, "out of memory for the leaver's bot");
        return cas__srv_refuse(code, "internal", msg, msglen, "out of memory");
    }
    t->hold.news = !t->lobby->writer; /* else once durable */
    cas__table_advance(t);
    return CAS_OK;
}
