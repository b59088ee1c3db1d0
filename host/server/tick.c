/*
 * tick.c — which tables the clock tick looks at.  The tick (every 100 ms)
 * used to walk every table; now a table is looked at only when something
 * in it may fall due: a chess clock's flag (server clock), a
 * correspondence deadline (wall clock), a seat's leaver grace ending; every
 * tick while the store is in trouble for it or a bot or the journal has
 * its turn; and once after any change to it (the soon list), which places
 * it again.  An idle game, or a game without a clock between moves, costs
 * the tick nothing.  The due times are kept in two binary min-heaps (one
 * per clock), as a game server's timers are: the tick takes what is due,
 * examines it exactly as before (cas__table_retry_store, then
 * cas__table_check_clock) and places it by what falls due next.  While the
 * store is away every table with a running clock is examined each tick,
 * as before, so each freezes its time at once.
 */
#include <stdint.h>
#include <stdlib.h>

#include "loop_guard.h"
#include "table.h"

enum { MONO, WALL };

#define NOT_DUE INT64_MAX
#define NEXT_TICK INT64_MIN

/* ------------------------------------------------------------ heaps */

/* Room for one more in a; -1 when memory ran out. */
static int room(struct cas__tables *a)
{
    if (a->n < a->cap)
        return 0;
    size_t cap = a->cap ? 2 * a->cap : 64;
    struct cas__table **more = realloc(a->at, cap * sizeof *more);
    if (!more)
        return -1;
    a->at = more;
    a->cap = cap;
    return 0;
}

static void put(struct cas__tables *h, int which, size_t i, struct cas__table *t)
{
    h->at[i] = t;
    t->tick_slot[which] = i + 1;
}

static void sift_up(struct cas__tables *h, int which, size_t i)
{
    struct cas__table *t = h->at[i];
    while (i > 0) {
        size_t up = (i - 1) / 2;
        if (h->at[up]->tick_at[which] <= t->tick_at[which])
            break;
        put(h, which, i, h->at[up]);
        i = up;
    }
    put(h, which, i, t);
}

static void sift_down(struct cas__tables *h, int which, size_t i)
{
    struct cas__table *t = h->at[i];
    for (;;) {
        size_t kid = 2 * i + 1;
        if (kid >= h->n)
            break;
        if (kid + 1 < h->n && h->at[kid + 1]->tick_at[which] < h->at[kid]->tick_at[which])
            kid++;
        if (t->tick_at[which] <= h->at[kid]->tick_at[which])
            break;
        put(h, which, i, h->at[kid]);
        i = kid;
    }
    put(h, which, i, t);
}

static void heap_remove(struct cas__tables *h, int which, struct cas__table *t)
{
    size_t i = t->tick_slot[which];
    if (!i--)
        return;
    t->tick_slot[which] = 0;
    struct cas__table *last = h->at[--h->n];
    if (i == h->n)
        return;
    put(h, which, i, last);
    sift_down(h, which, i);
    sift_up(h, which, last->tick_slot[which] - 1);
}

/* t due at `at` on heap `which` (NOT_DUE: off it).  -1 when memory ran
 * out: the caller looks at t every tick instead. */
static int heap_set(struct cas__tables *h, int which, struct cas__table *t, int64_t at)
{
    if (at == NOT_DUE) {
        heap_remove(h, which, t);
        return 0;
    }
    if (!t->tick_slot[which]) {
        if (room(h))
            return -1;
        t->tick_at[which] = at;
        put(h, which, h->n++, t);
        sift_up(h, which, h->n - 1);
        return 0;
    }
    int64_t was = t->tick_at[which];
    t->tick_at[which] = at;
    if (at < was)
        sift_up(h, which, t->tick_slot[which] - 1);
    else
        sift_down(h, which, t->tick_slot[which] - 1);
    return 0;
}

/* ------------------------------------------------------- the soon list */

void cas__tick_soon(struct cas__lobby *l, struct cas__table *t)
{
    struct cas__tables *s = &l->tick_soon;
    if (t->soon_slot)
        return;
    if (room(s)) { /* out of memory: the next tick looks at every table */
        l->tick_lost = 1;
        return;
    }
    s->at[s->n++] = t;
    t->soon_slot = s->n;
}

void cas__tick_forget(struct cas__lobby *l, struct cas__table *t)
{
    if (t->soon_slot)
        l->tick_soon.at[t->soon_slot - 1] = NULL;
    t->soon_slot = 0;
    for (size_t i = 0; t->tick_seen == l->tick_count && i < l->tick_batch.n; i++)
        if (l->tick_batch.at[i] == t)
            l->tick_batch.at[i] = NULL;
    heap_remove(&l->tick_heap[MONO], MONO, t);
    heap_remove(&l->tick_heap[WALL], WALL, t);
}

void cas__tick_free(struct cas__lobby *l)
{
    free(l->tick_heap[MONO].at);
    free(l->tick_heap[WALL].at);
    free(l->tick_soon.at);
    free(l->tick_batch.at);
}

/* ------------------------------------------------------------ due times */

/* When t may next have something to do at a tick: *mono on the server's
 * clock, *wall on the wall clock (NOT_DUE: nothing), or *mono NEXT_TICK.
 * It mirrors cas__table_retry_store and cas__table_check_clock: whatever
 * they would do at a later tick with nothing else changed is due then. */
static void next_due(struct cas__table *t, int64_t now, int64_t *mono, int64_t *wall)
{
    *mono = *wall = NOT_DUE;
    if (t->hold.held) /* examined after the job: its delivery puts t on the soon list */
        return;
    if (t->refused_away || t->unsaved.text || t->result_unsaved || t->away_since ||
        t->leaver_shown != cas__table_gone(t, now) + 1) {
        *mono = NEXT_TICK;
        return;
    }
    int actor = t->hold.actor, deciding = actor >= 0 && actor < t->nplayers;
    if (!t->over && !t->days_per_move && deciding) {
        const struct cas__seat *s = &t->seats[actor];
        if (!s->bot && s->joined && !s->connected && now - s->left_at < CAS__LEAVER_GRACE_MS)
            *mono = s->left_at + CAS__LEAVER_GRACE_MS;
    }
    int timed = t->days_per_move ? t->deadline != 0 : t->has_clock && t->clock_running;
    if (!timed || t->over || t->failure[0] || !deciding)
        return;
    if (t->busy) {
        *mono = NEXT_TICK;
        return;
    }
    if (t->days_per_move) {
        *wall = t->deadline;
    } else {
        int64_t flag = t->turn_started + t->seats[actor].clock_ms;
        if (flag < *mono)
            *mono = flag;
    }
}

static void place(struct cas__lobby *l, struct cas__table *t, int64_t now)
{
    int64_t mono, wall;
    next_due(t, now, &mono, &wall);
    if (mono == NEXT_TICK) {
        heap_remove(&l->tick_heap[MONO], MONO, t);
        heap_remove(&l->tick_heap[WALL], WALL, t);
        cas__tick_soon(l, t);
        return;
    }
    if (heap_set(&l->tick_heap[MONO], MONO, t, mono) ||
        heap_set(&l->tick_heap[WALL], WALL, t, wall))
        cas__tick_soon(l, t);
}

/* ------------------------------------------------------------ the tick */

/* t into this tick's batch, once. */
static void take(struct cas__lobby *l, struct cas__table *t)
{
    struct cas__tables *b = &l->tick_batch;
    if (t->tick_seen == l->tick_count)
        return;
    if (room(b)) {
        l->tick_lost = 1; /* not examined now: every table is, next tick */
        return;
    }
    t->tick_seen = l->tick_count;
    b->at[b->n++] = t;
}

static void check_clocks(struct cas__lobby *l)
{
    int64_t now = l->clock.now_ms(l->clock.ctx), wall = cas__srv_wall(l);
    struct cas__tables *soon = &l->tick_soon, *batch = &l->tick_batch;
    cas__store_ask_ready(l); /* store_up as the store last answered */
    l->tick_count++;
    batch->n = 0;
    /* What changed since the last tick, then what fell due. */
    for (size_t i = 0; i < soon->n; i++)
        if (soon->at[i]) {
            soon->at[i]->soon_slot = 0;
            take(l, soon->at[i]);
        }
    soon->n = 0;
    if (l->tick_lost) { /* memory ran out: every table, as the walk did */
        l->tick_lost = 0;
        for (struct cas__table *t = l->tables; t; t = t->next)
            take(l, t);
    }
    struct cas__tables *mono = &l->tick_heap[MONO], *walls = &l->tick_heap[WALL];
    if (!l->store_up) { /* every running clock stops at once */
        for (size_t i = 0; i < mono->n; i++)
            take(l, mono->at[i]);
        for (size_t i = 0; i < walls->n; i++)
            take(l, walls->at[i]);
    }
    while (mono->n && mono->at[0]->tick_at[MONO] <= now) {
        take(l, mono->at[0]);
        heap_remove(mono, MONO, mono->at[0]);
    }
    while (walls->n && walls->at[0]->tick_at[WALL] <= wall) {
        take(l, walls->at[0]);
        heap_remove(walls, WALL, walls->at[0]);
    }
    /* Examined as the walk over every table examined each; a table is
     * freed only by the flush, never here. */
    for (size_t i = 0; i < batch->n; i++) {
        struct cas__table *t = batch->at[i];
        if (!t)
            continue;
        l->tick_examined++;
        if (!t->hold.held) {
            cas__table_retry_store(t);
            if (!t->hold.held)
                cas__table_check_clock(t, now);
        }
    }
    for (size_t i = 0; i < batch->n; i++)
        if (batch->at[i])
            place(l, batch->at[i], now);
    batch->n = 0;
}

void cas__lobby_check_clocks(struct cas__lobby *l)
{
    cas__loop_enter();
    check_clocks(l);
    cas__loop_leave();
}
