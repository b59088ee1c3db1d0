/*
 * correspondence.c — correspondence games (docs/server.md,
 * "Correspondence"): N days per move, as on Lichess.  A seat's turn
 * begins when it decides after another seat did (chance's draws between
 * do not count), and runs
 * out N days later at an absolute time (Unix ms) journaled with each
 * action, so a server restarted any number of times, or down for days,
 * keeps it: a deadline that passed meanwhile falls when the game is back.
 * A flag fall ends the game as a Fischer clock's does.  The notify hook
 * hears when a person's turn begins and when the game ends.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "table.h"

int64_t cas__srv_wall(const struct cas__lobby *l)
{
    const struct cas__srv_clock *c = &l->clock;
    if (c->wall_ms)
        return c->wall_ms(c->ctx);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t cas__corr_wall(const struct cas__table *t)
{
    return cas__srv_wall(t->lobby);
}

static int64_t allowance(const struct cas__table *t)
{
    return t->days_per_move * CAS__DAY_MS;
}

/* "2026-12-07T10:00:00Z" for Unix ms. */
static void iso_time(int64_t ms, char out[32])
{
    time_t secs = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&secs, &tm);
    strftime(out, 32, CAS__SAVES_TIME_FORMAT, &tm);
}

/* {"event":EVENT,"game":..,"title":..,"seat":..,"player":..,"label":..,
 *  "days_per_move":..,"deadline":..,"deadline_ms":..,"link":.. without
 * the closing brace. */
static void write_notice(struct cas__table *t, const char *event, int seat, struct cas__jw *w)
{
    char when[32];
    cas__jw_printf(w, "{\"event\":\"%s\",\"game\":\"%lld\",\"title\":", event,
                   (long long)t->id);
    cas__jw_str(w, t->r.match.title);
    cas__jw_printf(w, ",\"seat\":%d,\"player\":", seat);
    cas__jw_str(w, t->r.names[seat]);
    cas__jw_raw(w, ",\"label\":");
    cas__jw_str(w, cas__table_label(t, seat));
    cas__jw_printf(w, ",\"days_per_move\":%d,\"deadline\":", t->days_per_move);
    if (t->deadline && !t->over) {
        iso_time(t->deadline, when);
        cas__jw_printf(w, "\"%s\",\"deadline_ms\":%" PRId64, when, t->deadline);
    } else {
        cas__jw_raw(w, "null,\"deadline_ms\":null");
    }
    cas__jw_printf(w, ",\"link\":\"/game/%lld\"", (long long)t->id);
}

/* Whose decision it is: in a job (the writer's answer handed back to it)
 * the plugin's; on the loop (a join, the writer's answer) as the last job
 * saw it, no plugin call there. */
static int deciding(struct cas__table *t)
{
    return t->hold.running ? cas__table_actor(t) : t->hold.actor;
}

/* The deciding seat's turn began: tell the hook when a person decides. */
static void notify_turn(struct cas__table *t)
{
    int actor = deciding(t);
    struct cas__jw w;
    if (!t->lobby->notify || actor < 0 || actor >= t->nplayers || t->seats[actor].bot)
        return;
    cas__jw_init(&w);
    write_notice(t, "turn", actor, &w);
    cas__jw_raw(&w, "}\n");
    cas__notify_post(t->lobby->notify, &w);
}

void cas__corr_game_over(struct cas__table *t)
{
    if (!t->days_per_move || !t->lobby->notify)
        return;
    for (int i = 0; i < t->nplayers; i++) {
        struct cas__jw w;
        if (t->seats[i].bot)
            continue;
        cas__jw_init(&w);
        write_notice(t, "over", i, &w);
        cas__jw_raw(&w, ",\"result\":");
        cas__table_write_result(t, &w);
        cas__jw_raw(&w, "}\n");
        cas__notify_post(t->lobby->notify, &w);
    }
}

/* Whether actor's action, just applied, hands the decision to another
 * seat than the last that decided: that seat's turn begins.  Chance's
 * draws in between do not (a seat that draws and goes on keeps its turn). */
static int turn_begins(struct cas__table *t, int actor)
{
    int next = deciding(t), last = actor >= 0 ? actor : t->corr_last_seat;
    return next >= 0 && next < t->nplayers && next != last;
}

int64_t cas__corr_deadline_after(struct cas__table *t, int actor)
{
    if (!t->days_per_move || !t->deadline)
        return -1;
    return turn_begins(t, actor) ? cas__corr_wall(t) + allowance(t) : t->deadline;
}

void cas__corr_saved(struct cas__table *t, int actor, int64_t deadline)
{
    int begins = turn_begins(t, actor);
    if (actor >= 0)
        t->corr_last_seat = actor;
    if (deadline < 0)
        return;
    t->deadline = deadline;
    if (begins)
        notify_turn(t);
}

/* The first deadline, stored on the store's thread. */
struct start_job {
    struct cas__store_job base;
    int64_t game, deadline;
};

static int store_start(struct cas__saves *s, struct cas__store_job *base)
{
    struct start_job *job = (struct start_job *)base;
    return cas__saves_served_start(s, job->game, job->deadline);
}

static void start_stored(struct cas__lobby *l, struct cas__store_job *base)
{
    struct start_job *job = (struct start_job *)base;
    if (base->rc != CAS_OK && !l->store_stopping)
        fprintf(stderr, "castellan serve: game %lld: its clock's start was not stored (%s); "
                "after a restart it waits for every player again\n", (long long)job->game,
                base->err);
    free(job);
}

void cas__corr_start(struct cas__table *t)
{
    t->deadline = cas__corr_wall(t) + allowance(t);
    struct start_job *job = calloc(1, sizeof *job);
    if (job) {
        *job = (struct start_job){.base = {.run = store_start, .done = start_stored},
                                  .game = t->id, .deadline = t->deadline};
        cas__store_submit(t->lobby, &job->base);
    } else {
        fprintf(stderr, "castellan serve: game %lld: its clock's start was not stored (out "
                "of memory); after a restart it waits for every player again\n",
                (long long)t->id);
    }
    cas__table_changed(t);
    cas__lobby_news(t);
    notify_turn(t);
}

void cas__corr_restore(struct cas__table *t, const struct cas__saves_game *saved)
{
    const struct cas__saves_action *last = saved->n_actions
                                               ? &saved->actions[saved->n_actions - 1]
                                               : NULL;
    if (t->deadline && last && last->has_clock && last->clock_ms > 0)
        t->deadline = last->clock_ms;
    t->corr_last_seat = -1;
    for (size_t i = saved->n_actions; i-- > 0 && t->corr_last_seat < 0;)
        t->corr_last_seat = saved->actions[i].actor;
}

int cas__corr_expired(struct cas__table *t, int64_t now)
{
    int actor = t->hold.actor; /* the loop asks (clock ticks): no plugin call */
    if (!t->deadline || actor < 0 || actor >= t->nplayers || now < t->deadline)
        return -1;
    return actor;
}

int64_t cas__corr_left(struct cas__table *t, int seat, int64_t now)
{
    if (!t->deadline || t->over || seat != t->hold.actor) /* as last asked */
        return allowance(t);
    return t->deadline > now ? t->deadline - now : 0;
}

void cas__corr_write_clock(struct cas__table *t, struct cas__jw *w, int full)
{
    cas__jw_printf(w, ",\"clock\":{\"days_per_move\":%d", t->days_per_move);
    if (full)
        cas__jw_printf(w, ",\"running\":%s", t->deadline && !t->over ? "true" : "false");
    if (t->deadline && !t->over)
        cas__jw_printf(w, ",\"deadline_ms\":%" PRId64 "}", t->deadline);
    else
        cas__jw_raw(w, ",\"deadline_ms\":null}");
}
