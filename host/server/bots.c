/*
 * bots.c — bots decide off the event loop: a few threads take decisions
 * from a queue, and each result goes back to the loop thread (woken
 * through the transport) to be applied there.  A table whose bot is
 * thinking is marked busy and left alone by the loop meanwhile, so the
 * game is only ever touched by one thread at a time; the search itself
 * may take seconds (mcts-hard) without stalling any other game.
 */
#include <pthread.h>
#include <stdlib.h>

#include "server.h"

struct job {
    struct cas__table *table;
    struct cas__agent *agent;
    struct cas__decision d;
    int rc;
    cas_action action;
    struct job *next;
};

struct cas__bots {
    pthread_mutex_t lock;
    pthread_cond_t work;
    struct job *todo, **todo_tail, *done;
    int stopping;
    void (*wake)(void *ctx);
    void *ctx;
    unsigned n_threads;
    pthread_t *threads;
};

static void *run(void *arg)
{
    struct cas__bots *b = arg;
    pthread_mutex_lock(&b->lock);
    for (;;) {
        while (!b->todo && !b->stopping)
            pthread_cond_wait(&b->work, &b->lock);
        struct job *job = b->todo;
        if (!job)
            break;
        b->todo = job->next;
        if (!b->todo)
            b->todo_tail = &b->todo;
        pthread_mutex_unlock(&b->lock);
        job->rc = cas__agent_choose(job->agent, &job->d, &job->action);
        pthread_mutex_lock(&b->lock);
        job->next = b->done;
        b->done = job;
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
    b->todo_tail = &b->todo;
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
    for (struct job *j = b->done, *next; j; j = next) {
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
    struct job *job = calloc(1, sizeof *job);
    if (!job)
        return CAS_ENOMEM;
    job->table = t;
    job->agent = agent;
    job->d = *d;
    pthread_mutex_lock(&b->lock);
    *b->todo_tail = job;
    b->todo_tail = &job->next;
    pthread_cond_signal(&b->work);
    pthread_mutex_unlock(&b->lock);
    return CAS_OK;
}

void cas__bots_deliver(struct cas__bots *b)
{
    pthread_mutex_lock(&b->lock);
    struct job *done = b->done;
    b->done = NULL;
    pthread_mutex_unlock(&b->lock);
    while (done) {
        struct job *next = done->next;
        cas__table_bot_done(done->table, done->rc, done->action);
        free(done);
        done = next;
    }
}
