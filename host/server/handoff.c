/*
 * handoff.c — work castellan serve's threads hand each other: the loop, the
 * pools and the journal's writer.  Each hand-off costs a futex or a pipe
 * write, and for the loop a turn, so they are counted (the serve
 * benchmark prints them per move); and a person's move hands off less: the
 * job of the pool that submitted its action to the writer waits for the
 * answer, which the writer hands straight back to it, not through the
 * loop (offload.c, docs/server.md "The journal's writer").
 *
 * Who goes on with the answer is settled by one atomic word per table
 * (struct cas__hand): the job ending its run and the writer answering race
 * for it, and whichever comes second goes on.  The answer first, the job
 * goes on at once on its own thread; the job first, it parks (nobody runs
 * it) and the writer hands it back to the pool.
 */
#include <stdatomic.h>

#include "table.h"

static atomic_uint_fast64_t counts[CAS__HANDOFF_KINDS];

void cas__handoff_count(enum cas__handoff what)
{
    atomic_fetch_add_explicit(&counts[what], 1, memory_order_relaxed);
}

void cas__handoffs_read(struct cas__handoffs *out)
{
    out->pool_runs = atomic_load_explicit(&counts[CAS__HANDOFF_POOL_RUN], memory_order_relaxed);
    out->wakes = atomic_load_explicit(&counts[CAS__HANDOFF_WAKE], memory_order_relaxed);
    out->wake_turns = atomic_load_explicit(&counts[CAS__HANDOFF_WAKE_TURN], memory_order_relaxed);
    out->handed_back =
        atomic_load_explicit(&counts[CAS__HANDOFF_HANDED_BACK], memory_order_relaxed);
}

/* The word's values besides an answer (an entry's address: never these). */
enum { NONE, WAITING, PARKED, RELEASED };

void cas__hand_wait(struct cas__hand *h)
{
    atomic_store_explicit(&h->state, WAITING, memory_order_relaxed);
}

int cas__hand_end(struct cas__hand *h, int may_park, struct cas__saves_entry **answer)
{
    uintptr_t s = atomic_load_explicit(&h->state, memory_order_acquire);
    *answer = NULL;
    while (s == WAITING) {
        uintptr_t to = may_park ? PARKED : RELEASED;
        if (atomic_compare_exchange_weak_explicit(&h->state, &s, to, memory_order_acq_rel,
                                                  memory_order_acquire))
            return may_park;
    }
    /* RELEASED: an earlier job of the table went without its answer,
     * which the loop gets; this one waited for nothing. */
    if (s == NONE || s == RELEASED)
        return 0;
    /* The answer came: the job has it, and the word is free again. */
    atomic_store_explicit(&h->state, NONE, memory_order_relaxed);
    *answer = (struct cas__saves_entry *)s;
    return 0;
}

enum cas__hand_answer cas__hand_answer(struct cas__hand *h, struct cas__saves_entry *e)
{
    uintptr_t s = WAITING;
    if (atomic_compare_exchange_strong_explicit(&h->state, &s, (uintptr_t)e,
                                                memory_order_acq_rel, memory_order_acquire))
        return CAS__HAND_TAKEN;
    if (s == PARKED) {
        atomic_store_explicit(&h->state, (uintptr_t)e, memory_order_release);
        return CAS__HAND_RESUME;
    }
    atomic_store_explicit(&h->state, NONE, memory_order_relaxed); /* RELEASED */
    return CAS__HAND_LOOP;
}

int cas__hand_parked(struct cas__hand *h)
{
    return atomic_load_explicit(&h->state, memory_order_acquire) == PARKED;
}
