/*
 * bots.c — the pool that keeps slow work off the event loop: a few
 * threads take jobs from a queue (a bot's decision, a table's plugin
 * calls: offload.c), and each finished job goes back to the loop thread
 * (woken through the transport) to be delivered there.  A table with a
 * job in the pool is left alone by the loop meanwhile, so the game is only
 * ever touched by one thread at a time; a job may take seconds (mcts-hard,
 * a slow plugin in a worker) without stalling any other game: quick jobs
 * go first and searches never hold every thread (server.h,
 * cas__bot_queue).
 */
#define _GNU_SOURCE /* pthread_setname_np */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"

/* Work a pool thread hands to the loop thread and waits for. */
struct loop_call {
    void (*fn)(void *arg);
    void *arg;
    int done;
    struct loop_call *next;
};

struct cas__bots {
    pthread_mutex_t lock;
    pthread_cond_t work;
    pthread_cond_t called;         /* a loop call is done */
    struct cas__bot_queue queue;
    struct cas__bot_job *done;
    struct loop_call *calls;       /* waiting for the loop */
    int stopping;
    int parked;                    /* jobs parked (cas__bots_resume brings them back) */
    int loop_gone;                 /* the loop waits in cas__bots_free: calls run here */
    int woken;                     /* the loop was woken and has not delivered since */
    void (*wake)(void *ctx);
    void *ctx;
    unsigned n_threads;
    pthread_t *threads;
};

void cas__bot_queue_init(struct cas__bot_queue *q, unsigned threads)
{
    *q = (struct cas__bot_queue){.max_searching = threads > 1 ? threads - 1 : 1};
    q->quick_tail = &q->quick;
    q->searches_tail = &q->searches;
}

void cas__bot_queue_push(struct cas__bot_queue *q, struct cas__bot_job *job)
{
    struct cas__bot_job ***tail = job->search ? &q->searches_tail : &q->quick_tail;
    job->next = NULL;
    **tail = job;
    *tail = &job->next;
}

/* The first job of a list, taken off it. */
static struct cas__bot_job *take(struct cas__bot_job **head, struct cas__bot_job ***tail)
{
    struct cas__bot_job *job = *head;
    if (job && !(*head = job->next))
        *tail = head;
    return job;
}

struct cas__bot_job *cas__bot_queue_next(struct cas__bot_queue *q)
{
    if (q->quick)
        return take(&q->quick, &q->quick_tail);
    if (!q->searches || q->searching >= q->max_searching)
        return NULL;
    q->searching++;
    return take(&q->searches, &q->searches_tail);
}

void cas__bot_queue_done(struct cas__bot_queue *q, const struct cas__bot_job *job)
{
    if (job->search)
        q->searching--;
}

/* Whether the loop is to be woken: once until it delivers (each wake is
 * a turn of the loop, which looks at every socket).  Under the pool's
 * lock; the caller wakes it (b->wake) after letting the lock go, so the
 * loop, woken, does not wait for the lock behind the wake's write. */
static int must_wake(struct cas__bots *b)
{
    if (!b->wake || b->woken)
        return 0;
    b->woken = 1;
    return 1;
}

/* The pool the calling thread belongs to; NULL on the loop thread. */
static _Thread_local struct cas__bots *own_pool;

void cas__on_loop(void (*fn)(void *arg), void *arg)
{
    struct cas__bots *b = own_pool;
    if (!b) {
        fn(arg);
        return;
    }
    struct loop_call call = {.fn = fn, .arg = arg};
    pthread_mutex_lock(&b->lock);
    if (!b->loop_gone) {
        call.next = b->calls;
        b->calls = &call;
        if (must_wake(b))
            b->wake(b->ctx); /* under the lock: rare, and it waits anyway */
        while (!call.done && !b->loop_gone)
            pthread_cond_wait(&b->called, &b->lock);
    }
    if (!call.done) { /* the loop is stopping and waits for the threads */
        for (struct loop_call **p = &b->calls; *p; p = &(*p)->next)
            if (*p == &call) {
                *p = call.next;
                break;
            }
        fn(arg); /* under the pool's lock: one at a time, as on the loop */
    }
    pthread_mutex_unlock(&b->lock);
}

/* Run the calls the pool's threads wait for (on the loop thread), taken
 * off b->calls under the lock. */
static void serve_calls(struct cas__bots *b, struct loop_call *calls)
{
    if (!calls)
        return;
    for (struct loop_call *c = calls; c; c = c->next)
        c->fn(c->arg);
    pthread_mutex_lock(&b->lock);
    for (struct loop_call *c = calls, *next; c; c = next) {
        next = c->next; /* c lives on its thread's stack until done is seen */
        c->done = 1;
    }
    pthread_cond_broadcast(&b->called);
    pthread_mutex_unlock(&b->lock);
}

static void *run(void *arg)
{
    struct cas__bots *b = arg;
    own_pool = b;
    /* Named, so that its CPU can be told from the loop's (the serve
     * benchmark splits a move's CPU by thread). */
    pthread_setname_np(pthread_self(), "cas-pool");
    pthread_mutex_lock(&b->lock);
    for (;;) {
        struct cas__bot_job *job;
        /* Stopping, the threads stay while a parked job may come back. */
        while (!(job = cas__bot_queue_next(&b->queue)) && !(b->stopping && !b->parked))
            pthread_cond_wait(&b->work, &b->lock);
        if (!job)
            break;
        pthread_mutex_unlock(&b->lock);
        /* A parked job is another thread's from its run's return (it may
         * be run again, delivered and freed before this thread locks):
         * what the pool needs of it is read before. */
        const struct cas__bot_job ran = {.search = job->search};
        cas__handoff_count(CAS__HANDOFF_POOL_RUN);
        int parked = job->run(job) == CAS__JOB_PARKED;
        pthread_mutex_lock(&b->lock);
        cas__bot_queue_done(&b->queue, &ran);
        /* A search may start now; this thread takes the next job itself,
         * so another is woken only for a search that waits (waking every
         * idle thread at every job cost each a futex round trip and the
         * lock). */
        if (ran.search && b->queue.searches)
            pthread_cond_signal(&b->work);
        if (parked) {
            if (++b->parked == 0 && b->stopping) /* it came back first */
                pthread_cond_broadcast(&b->work);
            continue;
        }
        job->next = b->done;
        b->done = job;
        if (must_wake(b)) {
            pthread_mutex_unlock(&b->lock);
            b->wake(b->ctx);
            pthread_mutex_lock(&b->lock);
        }
    }
    pthread_mutex_unlock(&b->lock);
    return NULL;
}

int cas__bots_new(unsigned n, void (*wake)(void *ctx), void *ctx, struct cas__bots **out)
{
    struct cas__bots *b = calloc(1, sizeof *b);
    *out = NULL;
    if (!b || !(b->threads = calloc(n ? n : 1, sizeof *b->threads))) {
        free(b);
        return CAS_ENOMEM;
    }
    pthread_mutex_init(&b->lock, NULL);
    pthread_cond_init(&b->work, NULL);
    pthread_cond_init(&b->called, NULL);
    cas__bot_queue_init(&b->queue, n ? n : 1);
    b->wake = wake;
    b->ctx = ctx;
    for (; b->n_threads < (n ? n : 1); b->n_threads++)
        if (pthread_create(&b->threads[b->n_threads], NULL, run, b) != 0)
            break;
    if (b->n_threads == 0) {
        cas__bots_free(b);
        return CAS_ENOMEM;
    }
    *out = b;
    return CAS_OK;
}

void cas__bots_free(struct cas__bots *b)
{
    if (!b)
        return;
    pthread_mutex_lock(&b->lock);
    struct loop_call *calls = b->calls;
    b->calls = NULL;
    pthread_mutex_unlock(&b->lock);
    serve_calls(b, calls);
    pthread_mutex_lock(&b->lock);
    b->stopping = 1;
    b->loop_gone = 1;
    pthread_cond_broadcast(&b->work);
    pthread_cond_broadcast(&b->called);
    pthread_mutex_unlock(&b->lock);
    for (unsigned i = 0; i < b->n_threads; i++)
        pthread_join(b->threads[i], NULL);
    for (struct cas__bot_job *j = b->done, *next; j; j = next) {
        next = j->next;
        j->discard(j);
    }
    pthread_cond_destroy(&b->called);
    pthread_cond_destroy(&b->work);
    pthread_mutex_destroy(&b->lock);
    free(b->threads);
    free(b);
}

void cas__bots_push(struct cas__bots *b, struct cas__bot_job *job)
{
    pthread_mutex_lock(&b->lock);
    cas__bot_queue_push(&b->queue, job);
    pthread_cond_signal(&b->work); /* one thread takes it, if any may */
    pthread_mutex_unlock(&b->lock);
}

void cas__bots_resume(struct cas__bots *b, struct cas__bot_job *job)
{
    pthread_mutex_lock(&b->lock);
    /* Below 0 for a moment when it comes back before the thread that ran
     * it counted it parked. */
    b->parked--;
    cas__bot_queue_push(&b->queue, job);
    pthread_cond_signal(&b->work);
    if (b->stopping && !b->parked)
        pthread_cond_broadcast(&b->work);
    pthread_mutex_unlock(&b->lock);
}

void cas__bots_deliver(struct cas__bots *b)
{
    for (int round = 0;; round++) {
        /* One turn of the lock for both lists: each turn the loop takes
         * it is one a finishing thread may wait for. */
        pthread_mutex_lock(&b->lock);
        int pending = b->calls || b->done;
        if (!pending || round == CAS__BOTS_DELIVER_ROUNDS) {
            /* Until now a thread that finished left the loop to this
             * look (b->woken); from now on it wakes the loop. */
            b->woken = pending;
            pthread_mutex_unlock(&b->lock);
            if (pending && b->wake)
                b->wake(b->ctx);
            return;
        }
        struct loop_call *calls = b->calls;
        b->calls = NULL;
        struct cas__bot_job *done = b->done;
        b->done = NULL;
        pthread_mutex_unlock(&b->lock);
        serve_calls(b, calls);
        while (done) {
            struct cas__bot_job *next = done->next;
            done->deliver(done);
            done = next;
        }
    }
}
