/*
 * bots.c — bots decide off the event loop: a few threads take decisions
 * from a queue, and each result goes back to the loop thread (woken
 * through the transport) to be applied there.  A table whose bot is
 * thinking is marked busy and left alone by the loop meanwhile, so the
 * game is only ever touched by one thread at a time; the search itself
 * may take seconds (mcts-hard) without stalling any other game: quick
 * decisions go first and searches never hold every thread (server.h,
 * cas__bot_queue).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"

struct cas__bots {
    pthread_mutex_t lock;
    pthread_cond_t work;
    struct cas__bot_queue queue;
    struct cas__bot_job *done;
    int stopping;
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

static void *run(void *arg)
{
    struct cas__bots *b = arg;
    pthread_mutex_lock(&b->lock);
    for (;;) {
        struct cas__bot_job *job;
        while (!(job = cas__bot_queue_next(&b->queue)) && !b->stopping)
            pthread_cond_wait(&b->work, &b->lock);
        if (!job)
            break;
        pthread_mutex_unlock(&b->lock);
        job->rc = cas__agent_choose(job->agent, &job->d, &job->action);
        pthread_mutex_lock(&b->lock);
        cas__bot_queue_done(&b->queue, job);
        job->next = b->done;
        b->done = job;
        pthread_cond_broadcast(&b->work); /* a search may start now */
        if (b->wake)
            b->wake(b->ctx);
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
    b->stopping = 1;
    pthread_cond_broadcast(&b->work);
    pthread_mutex_unlock(&b->lock);
    for (unsigned i = 0; i < b->n_threads; i++)
        pthread_join(b->threads[i], NULL);
    for (struct cas__bot_job *j = b->done, *next; j; j = next) {
        next = j->next;
        free(j);
    }
    pthread_cond_destroy(&b->work);
    pthread_mutex_destroy(&b->lock);
    free(b->threads);
    free(b);
}

int cas__bots_submit(struct cas__bots *b, struct cas__table *t, struct cas__agent *agent,
                     const struct cas__decision *d)
{
    struct cas__bot_job *job = calloc(1, sizeof *job);
    if (!job)
        return CAS_ENOMEM;
    job->table = t;
    job->agent = agent;
    job->d = *d;
    job->search = strcmp(agent->ops->kind, "mcts") == 0;
    pthread_mutex_lock(&b->lock);
    cas__bot_queue_push(&b->queue, job);
    pthread_cond_broadcast(&b->work);
    pthread_mutex_unlock(&b->lock);
    return CAS_OK;
}

void cas__bots_deliver(struct cas__bots *b)
{
    pthread_mutex_lock(&b->lock);
    struct cas__bot_job *done = b->done;
    b->done = NULL;
    pthread_mutex_unlock(&b->lock);
    while (done) {
        struct cas__bot_job *next = done->next;
        cas__table_bot_done(done->table, done->rc, done->action);
        free(done);
        done = next;
    }
}
