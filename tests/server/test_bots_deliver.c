/*
 * test_bots_deliver.c — how castellan serve's pool hands finished jobs to
 * the loop (host/server/bots.c, cas__bots_deliver): a job that finishes
 * while the loop is delivering is delivered in the same turn and does not
 * wake the loop again; past CAS__BOTS_DELIVER_ROUNDS rounds the loop is
 * woken, so its sockets get their turn; a job that finishes once the loop
 * is done delivering wakes it.  The test is the loop: it counts the wakes
 * and calls cas__bots_deliver itself.  One pool thread, held in "gate"
 * jobs that tell when they start, so what is finished at each step is
 * known from events, never from time.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "table.h"

#define MAX_JOBS 32

struct world;

/* A chain job delivers by queuing the next one (chain - 1) and a new
 * gate; a gate holds the pool's thread from its start until released. */
struct tjob {
    struct cas__bot_job base;
    struct world *w;
    int gate, chain, started, released;
};

struct world {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int wakes, delivered_chain, delivered_gates;
    struct cas__bots *pool;
    struct tjob *gate;          /* the gate holding the thread now */
    struct tjob jobs[MAX_JOBS];
    int n_jobs;
};

static void wake(void *ctx)
{
    struct world *w = ctx;
    pthread_mutex_lock(&w->lock);
    w->wakes++;
    pthread_cond_broadcast(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

static int wakes(struct world *w)
{
    pthread_mutex_lock(&w->lock);
    int n = w->wakes;
    pthread_mutex_unlock(&w->lock);
    return n;
}

static void wait_for_wakes(struct world *w, int n)
{
    pthread_mutex_lock(&w->lock);
    while (w->wakes < n)
        pthread_cond_wait(&w->cond, &w->lock);
    pthread_mutex_unlock(&w->lock);
}

static int run(struct cas__bot_job *base)
{
    struct tjob *j = (struct tjob *)base;
    if (!j->gate)
        return CAS__JOB_DONE;
    pthread_mutex_lock(&j->w->lock);
    j->started = 1;
    pthread_cond_broadcast(&j->w->cond);
    while (!j->released)
        pthread_cond_wait(&j->w->cond, &j->w->lock);
    pthread_mutex_unlock(&j->w->lock);
    return CAS__JOB_DONE;
}

static void release(struct tjob *gate)
{
    pthread_mutex_lock(&gate->w->lock);
    gate->released = 1;
    pthread_cond_broadcast(&gate->w->cond);
    pthread_mutex_unlock(&gate->w->lock);
}

static void wait_started(struct tjob *gate)
{
    pthread_mutex_lock(&gate->w->lock);
    while (!gate->started)
        pthread_cond_wait(&gate->w->cond, &gate->w->lock);
    pthread_mutex_unlock(&gate->w->lock);
}

static void deliver(struct cas__bot_job *base);

static void discard(struct cas__bot_job *base)
{
    (void)base; /* the world owns every job */
}

static struct tjob *new_job(struct world *w, int gate, int chain)
{
    assert_true(w->n_jobs < MAX_JOBS);
    struct tjob *j = &w->jobs[w->n_jobs++];
    *j = (struct tjob){.base = {.run = run, .deliver = deliver, .discard = discard},
                       .w = w, .gate = gate, .chain = chain};
    return j;
}

/* The next chain job and a new gate queued behind it, the old gate let
 * go: once the new gate has started, the old gate and the next chain job
 * are both finished (one thread takes the jobs in order). */
static void queue_next(struct world *w, int chain)
{
    struct tjob *next = new_job(w, 0, chain), *gate = new_job(w, 1, 0), *old = w->gate;
    cas__bots_push(w->pool, &next->base);
    cas__bots_push(w->pool, &gate->base);
    w->gate = gate;
    if (old)
        release(old);
    wait_started(gate);
}

static void deliver(struct cas__bot_job *base)
{
    struct tjob *j = (struct tjob *)base;
    if (j->gate) {
        j->w->delivered_gates++;
        return;
    }
    j->w->delivered_chain++;
    if (j->chain > 0)
        queue_next(j->w, j->chain - 1);
}

/* A chain of `chain` more jobs, its first one finished and the loop woken
 * for it (the thread held in a gate behind it). */
static void start(struct world *w, int chain)
{
    *w = (struct world){0};
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->cond, NULL);
    assert_int_equal(cas__bots_new(1, wake, w, &w->pool), CAS_OK);
    queue_next(w, chain);
    assert_int_equal(wakes(w), 1);
}

/* Let the last gate go; it wakes the loop, which delivers it. */
static void finish(struct world *w, int gates)
{
    int before = wakes(w);
    release(w->gate);
    wait_for_wakes(w, before + 1);
    cas__bots_deliver(w->pool);
    assert_int_equal(w->delivered_gates, gates);
    cas__bots_free(w->pool);
    pthread_cond_destroy(&w->cond);
    pthread_mutex_destroy(&w->lock);
}

static void test_what_finishes_meanwhile_goes_in_the_same_turn(void **unused)
{
    (void)unused;
    static struct world w;
    start(&w, 1);
    /* Round one delivers the first job, which queues a second one that
     * finishes meanwhile (with the first gate); round two delivers them;
     * no wake for either. */
    cas__bots_deliver(w.pool);
    assert_int_equal(w.delivered_chain, 2);
    assert_int_equal(w.delivered_gates, 1);
    assert_int_equal(wakes(&w), 1);
    /* The loop is no longer delivering: the last gate wakes it. */
    finish(&w, 2);
}

static void test_the_loop_wakes_itself_after_its_rounds(void **unused)
{
    (void)unused;
    static struct world w;
    const int chain = CAS__BOTS_DELIVER_ROUNDS + 2;
    start(&w, chain);
    /* A job finishes in every round: after its rounds the loop stops
     * delivering and is woken for what is left. */
    cas__bots_deliver(w.pool);
    assert_int_equal(w.delivered_chain, CAS__BOTS_DELIVER_ROUNDS);
    assert_int_equal(wakes(&w), 2);
    /* Its next turn delivers the rest of the chain. */
    cas__bots_deliver(w.pool);
    assert_int_equal(w.delivered_chain, chain + 1);
    assert_int_equal(wakes(&w), 2);
    finish(&w, chain + 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_what_finishes_meanwhile_goes_in_the_same_turn),
        cmocka_unit_test(test_the_loop_wakes_itself_after_its_rounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
