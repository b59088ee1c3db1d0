/*
 * store_job.c — the store's calls off castellan serve's event loop.  The
 * journal has its writer thread (journal_writer.c); every other call the
 * server makes while it serves (a game's inserts and loads, a seat's
 * claim, a sign-in, the recent games, a replay's journal, the readiness
 * check) is a job of a second writer, the store's thread: its own
 * connection, its jobs run one at a time in the order given, and each
 * answer comes back to the loop as the journal's do.  Meanwhile whoever
 * waits for it is frozen (a table held, a request waiting in order).
 *
 * Without a store thread (the in-process tests) a job runs in the loop's
 * place, unmarked, as a pool job without a pool does; the loop's guard
 * (loop_guard.h) counts every store call the loop's own code makes, and
 * the tests assert there is none.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loop_guard.h"
#include "table.h"

/* On the store's thread: the job's run on its connection. */
static int run_on(struct cas__saves *s, void *owner)
{
    struct cas__store_job *job = owner;
    return job->run(s, job);
}

static void answer(struct cas__lobby *l, struct cas__store_job *job, int rc, const char *err)
{
    job->rc = rc;
    snprintf(job->err, sizeof job->err, "%s", rc && err ? err : "");
    job->done(l, job);
}

void cas__store_submit(struct cas__lobby *l, struct cas__store_job *job)
{
    struct cas__saves_entry *e = l->store_thread ? cas__saves_call_new(run_on, job) : NULL;
    if (e) {
        l->store_jobs++;
        cas__saves_writer_submit(l->store_thread, e);
        return;
    }
    if (l->store_thread) {
        answer(l, job, CAS_ENOMEM, "out of memory");
        return;
    }
    int loop = cas__loop_suspend(); /* in a job's place: the loop waits, as without a pool */
    int rc = job->run(l->store, job);
    cas__loop_resume(loop);
    answer(l, job, rc, rc ? cas__saves_errmsg(l->store) : NULL);
}

static void take_answers(struct cas__lobby *l, int wait)
{
    struct cas__saves_entry *done = cas__saves_writer_done(l->store_thread, wait);
    while (done) {
        struct cas__saves_entry *next = done->next;
        l->store_jobs--;
        answer(l, done->owner, done->rc, done->err);
        cas__saves_entry_free(done);
        done = next;
    }
}

void cas__store_deliver(struct cas__lobby *l)
{
    if (l->store_thread)
        take_answers(l, 0);
}

void cas__store_stop(struct cas__lobby *l)
{
    if (!l->store_thread)
        return;
    l->store_stopping = 1;
    while (l->store_jobs)
        take_answers(l, 1);
    cas__saves_writer_stop(l->store_thread);
    l->store_thread = NULL;
}

/* ---------------------------------------------- calls nobody waits for */

/* A claim let go, a game row deleted: what the loop only asks for. */
struct quiet_job {
    struct cas__store_job base;
    int64_t game;
    int (*call)(struct cas__saves *s, int64_t id);
};

static int run_quiet(struct cas__saves *s, struct cas__store_job *base)
{
    struct quiet_job *job = (struct quiet_job *)base;
    return job->call(s, job->game);
}

static void quiet_done(struct cas__lobby *l, struct cas__store_job *base)
{
    (void)l;
    free(base);
}

void cas__store_quietly(struct cas__lobby *l, int (*call)(struct cas__saves *s, int64_t id),
                        int64_t game)
{
    struct quiet_job *job = calloc(1, sizeof *job);
    if (!job)
        return; /* a claim goes with the connection, a row stays to be restored */
    job->base.run = run_quiet;
    job->base.done = quiet_done;
    job->game = game;
    job->call = call;
    cas__store_submit(l, &job->base);
}

/* ---------------------------------------------------- the readiness */

static int run_ready(struct cas__saves *s, struct cas__store_job *job)
{
    (void)job;
    return cas__saves_ready(s);
}

static void ready_done(struct cas__lobby *l, struct cas__store_job *job)
{
    (void)job;
    l->asking_ready = 0;
    if (job->rc == CAS_OK || job->rc == CAS_EUNAVAILABLE)
        l->store_up = job->rc == CAS_OK;
}

void cas__store_ask_ready(struct cas__lobby *l)
{
    if (l->asking_ready || l->store_stopping)
        return;
    l->asking_ready = 1;
    l->ready_job = (struct cas__store_job){.run = run_ready, .done = ready_done};
    cas__store_submit(l, &l->ready_job);
}
