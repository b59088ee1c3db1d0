/*
 * writer.c — the journal's writer: a thread with a store connection of its
 * own that journals the actions an event loop hands it, so the loop never
 * waits for a disk flush or a database round trip.  What queues up while
 * it commits goes into its next transaction together (group commit): the
 * more games play at once, the more actions each commit carries, and a
 * lone action is committed at once, without waiting for company.  A
 * game's take-backs, results and bots taking a seat go the same way, in
 * the same order, each in a transaction of its own; so does any other work
 * a caller hands it (CAS__WRITE_CALL): castellan serve runs a second
 * writer for the store's other calls, so its loop makes none.
 *
 * The loop submits entries and takes back the written ones (woken by the
 * callback it gave); an entry is durable when it comes back with CAS_OK.
 * A batch the store refuses as a whole is journaled again one entry at a
 * time, so each entry gets its own answer (a duplicate ply of one game
 * fails that game alone); a database that is away fails them all with
 * CAS_EUNAVAILABLE, and the loop submits them again later.
 *
 * The writer's connection may also hold other stores' claims on games
 * (cas__saves_writer_hold_claims): a claim and the appends of its game
 * then end together, with the one database session, in the order the
 * database ran them.  Its batches and those claims take turns under a
 * lock.
 */
#define _GNU_SOURCE /* pthread_setname_np */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "saves_int.h"

/* Most actions one transaction carries: a bound on the time a batch holds
 * the store's write lock and on a pipeline's size. */
#define BATCH_MAX 256

/* The writer's connection as the stores whose claims it holds see it. */
struct cas__saves_claims {
    pthread_mutex_t turn;           /* one user of the connection at a time */
    struct cas__saves *store;       /* the writer's; NULL once it stopped */
    int refs;                       /* under turn */
};

struct cas__saves_writer {
    struct cas__saves *store;       /* the writer's own connection */
    struct cas__saves_claims *claims;
    pthread_mutex_t lock;
    pthread_cond_t changed;         /* work queued, work done, or stopping */
    struct cas__saves_entry *queue, **queue_tail;
    struct cas__saves_entry *done, **done_tail;
    uint64_t commits;               /* the store's, as of the last batch */
    int stopping, started;
    pthread_t thread;
    void (*wake)(void *ctx);
    void *ctx;
};

int cas__saves_claim_through(struct cas__saves *s, int64_t id, int claim)
{
    struct cas__saves_claims *c = s->claims;
    pthread_mutex_lock(&c->turn);
    struct cas__saves *holder = c->store ? c->store : s;
    int rc = CAS__SAVES_METHOD(holder, claim)(holder, id, claim);
    if (rc && holder != s)
        snprintf(s->err, sizeof s->err, "%s", holder->err);
    pthread_mutex_unlock(&c->turn);
    return rc;
}

/* The turn is held for no round trip while the connection is up: ready
 * reads only what the server sent unasked (a connection it closed), so a
 * batch never waits for this check. */
int cas__saves_claims_ready(struct cas__saves *s)
{
    struct cas__saves_claims *c = s->claims;
    int rc = CAS_OK;
    pthread_mutex_lock(&c->turn);
    if (c->store && (rc = CAS__SAVES_METHOD(c->store, ready)(c->store))) /* made again: claims too */
        snprintf(s->err, sizeof s->err, "%s", c->store->err);
    pthread_mutex_unlock(&c->turn);
    return rc;
}

void cas__saves_claims_drop(struct cas__saves_claims *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&c->turn);
    int last = --c->refs == 0;
    pthread_mutex_unlock(&c->turn);
    if (!last)
        return;
    pthread_mutex_destroy(&c->turn);
    free(c);
}

void cas__saves_writer_hold_claims(struct cas__saves_writer *w, struct cas__saves *s)
{
    if (!cas__saves_shared(s) || s->claims)
        return;
    pthread_mutex_lock(&w->claims->turn);
    w->claims->refs++;
    pthread_mutex_unlock(&w->claims->turn);
    s->claims = w->claims;
}

void cas__saves_writer_hold_claims_of(struct cas__saves_writer *w,
                                      struct cas__saves_writer *of)
{
    cas__saves_writer_hold_claims(w, of->store);
}

int cas__saves_writer_open(const char *where, void (*wake)(void *ctx), void *ctx,
                           struct cas__saves_writer **out, char *err, size_t errlen)
{
    struct cas__saves_writer *w = calloc(1, sizeof *w);
    *out = NULL;
    if (!w || !(w->claims = calloc(1, sizeof *w->claims))) {
        free(w);
        snprintf(err, errlen, "%s: out of memory", where);
        return CAS_ENOMEM;
    }
    int rc = cas__saves_open(where, &w->store, err, errlen);
    if (rc) {
        free(w->claims);
        free(w);
        return rc;
    }
    pthread_mutex_init(&w->claims->turn, NULL);
    w->claims->store = w->store;
    w->claims->refs = 1;
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->changed, NULL);
    w->queue_tail = &w->queue;
    w->done_tail = &w->done;
    w->wake = wake;
    w->ctx = ctx;
    *out = w;
    return CAS_OK;
}

/* The first entries of the queue, at most BATCH_MAX, cut off it; the lock
 * is held. */
static struct cas__saves_entry *take_batch(struct cas__saves_writer *w)
{
    struct cas__saves_entry *first = w->queue, **end = &w->queue;
    for (size_t n = 0; *end && n < BATCH_MAX; n++)
        end = &(*end)->next;
    w->queue = *end;
    if (!w->queue)
        w->queue_tail = &w->queue;
    *end = NULL;
    return first;
}

/* Each entry's answer, on its own (after its batch was refused); the
 * actions journaled with an entry in order after it, none after one that
 * failed (they keep its answer). */
static void write_each(struct cas__saves *s, struct cas__saves_entry *list)
{
    for (struct cas__saves_entry *e = list; e; e = e->next) {
        struct cas__saves_entry *failed = NULL;
        for (struct cas__saves_entry *a = e; a; a = a->more) {
            if (!failed) {
                failed = cas__saves_write_entry(s, a) ? a : NULL;
                continue;
            }
            a->rc = failed->rc;
            free(a->err);
            a->err = failed->err ? strdup(failed->err) : NULL;
        }
    }
}

/* Actions of one batch: one transaction, else each on its own. */
static void write_actions(struct cas__saves *s, struct cas__saves_entry *list)
{
    int rc = cas__saves_append_batch(s, list);
    /* A connection that died while idle (a database restarted) is learned
     * of by its first use: once more, on a new one. */
    if (rc == CAS_EUNAVAILABLE)
        rc = cas__saves_append_batch(s, list);
    if (rc == CAS_OK)
        return;
    if (rc != CAS_EUNAVAILABLE) {
        write_each(s, list);
        return;
    }
    /* Each rc is set already (cas__saves_append_batch): the words too. */
    for (struct cas__saves_entry *e = list; e; e = e->next)
        for (struct cas__saves_entry *a = e; a; a = a->more) {
            free(a->err);
            a->err = strdup(cas__saves_errmsg(s));
        }
}

/* A take-back, result or bot: on its own, once more on a new connection
 * as an action.  A call once: it may be several steps, and knows which
 * of them may be tried again. */
static void write_other(struct cas__saves *s, struct cas__saves_entry *e)
{
    if (cas__saves_write_entry(s, e) == CAS_EUNAVAILABLE && e->kind != CAS__WRITE_CALL)
        cas__saves_write_entry(s, e);
}

/* The batch in submit order: each run of actions in one transaction, the
 * other writes between them on their own (so a take-back never overtakes
 * the action it takes back). */
static void write_batch(struct cas__saves *s, struct cas__saves_entry *list)
{
    while (list) {
        struct cas__saves_entry *last = list;
        if (list->kind != CAS__WRITE_APPEND) {
            list = list->next;
            last->next = NULL;
            write_other(s, last);
            last->next = list;
            continue;
        }
        while (last->next && last->next->kind == CAS__WRITE_APPEND)
            last = last->next;
        struct cas__saves_entry *rest = last->next;
        last->next = NULL;
        write_actions(s, list);
        last->next = rest;
        list = rest;
    }
}

/* The written entries whose submitter takes them itself (e->written),
 * taken off the list; what is left goes on the done list. */
static struct cas__saves_entry *hand_back(struct cas__saves_entry *list)
{
    for (struct cas__saves_entry **p = &list; *p;) {
        struct cas__saves_entry *e = *p, *next = e->next;
        if (e->written && e->written(e)) { /* e is not touched again */
            *p = next;
            continue;
        }
        p = &e->next;
    }
    return list;
}

static void *run(void *arg)
{
    struct cas__saves_writer *w = arg;
    pthread_setname_np(pthread_self(), "cas-journal"); /* its CPU told apart */
    pthread_mutex_lock(&w->lock);
    for (;;) {
        while (!w->queue && !w->stopping)
            pthread_cond_wait(&w->changed, &w->lock);
        if (!w->queue)
            break; /* stopping, and everything queued is written */
        struct cas__saves_entry *batch = take_batch(w), *last = batch;
        pthread_mutex_unlock(&w->lock);
        pthread_mutex_lock(&w->claims->turn);
        write_batch(w->store, batch);
        uint64_t commits = cas__saves_journal_commits(w->store);
        pthread_mutex_unlock(&w->claims->turn);
        batch = last = hand_back(batch);
        pthread_mutex_lock(&w->lock);
        w->commits = commits;
        if (batch) {
            while (last->next)
                last = last->next;
            *w->done_tail = batch;
            w->done_tail = &last->next;
        }
        pthread_cond_broadcast(&w->changed);
        if (batch && w->wake)
            w->wake(w->ctx);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

int cas__saves_writer_start(struct cas__saves_writer *w)
{
    if (pthread_create(&w->thread, NULL, run, w) != 0)
        return CAS_ENOMEM;
    w->started = 1;
    return CAS_OK;
}

void cas__saves_writer_submit(struct cas__saves_writer *w, struct cas__saves_entry *e)
{
    e->next = NULL;
    pthread_mutex_lock(&w->lock);
    *w->queue_tail = e;
    w->queue_tail = &e->next;
    pthread_cond_broadcast(&w->changed);
    pthread_mutex_unlock(&w->lock);
}

struct cas__saves_entry *cas__saves_writer_done(struct cas__saves_writer *w, int wait)
{
    pthread_mutex_lock(&w->lock);
    while (wait && !w->done)
        pthread_cond_wait(&w->changed, &w->lock);
    struct cas__saves_entry *done = w->done;
    w->done = NULL;
    w->done_tail = &w->done;
    pthread_mutex_unlock(&w->lock);
    return done;
}

uint64_t cas__saves_writer_commits(struct cas__saves_writer *w)
{
    pthread_mutex_lock(&w->lock);
    uint64_t commits = w->commits;
    pthread_mutex_unlock(&w->lock);
    return commits;
}

void cas__saves_writer_stop(struct cas__saves_writer *w)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->lock);
    w->stopping = 1;
    pthread_cond_broadcast(&w->changed);
    pthread_mutex_unlock(&w->lock);
    if (w->started)
        pthread_join(w->thread, NULL);
    pthread_mutex_lock(&w->claims->turn);
    if (!w->started)
        write_batch(w->store, w->queue); /* never started: journal them here */
    cas__saves_close(w->store); /* the claims it held go with it */
    w->claims->store = NULL;
    pthread_mutex_unlock(&w->claims->turn);
    if (!w->started)
        w->queue = hand_back(w->queue);
    cas__saves_entries_free(w->queue);
    cas__saves_entries_free(w->done);
    pthread_cond_destroy(&w->changed);
    pthread_mutex_destroy(&w->lock);
    cas__saves_claims_drop(w->claims);
    free(w);
}
