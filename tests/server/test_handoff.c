/*
 * test_handoff.c — the hand-back of a journal write to the job of the pool
 * that waits for it (host/server/handoff.c) and the pool's parked jobs
 * (host/server/bots.c, cas__bots_resume).  The job ending its run and the
 * writer answering race for one word: each order is played here in turn,
 * on one thread, so which came first is the test's choice, never the
 * machine's.  Then a pool: a job that parks runs again once resumed and
 * is delivered once; a pool stopped with a job parked waits for it and
 * discards it (nothing leaks under ASan).  The hand-offs are counted.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "table.h"

static struct cas__saves_entry *entry(void)
{
    struct cas__saves_entry *e = cas__saves_entry_new(1, 0, 0, "pass", 0, -1, NULL);
    assert_non_null(e);
    return e;
}

/* The answer first: the job, still running, finds it as its run ends and
 * goes on with it; the word is free again. */
static void test_the_answer_before_the_job_parks(void **unused)
{
    (void)unused;
    struct cas__hand h = {0};
    struct cas__saves_entry *e = entry(), *got = NULL;
    cas__hand_wait(&h);
    assert_int_equal(cas__hand_answer(&h, e), CAS__HAND_TAKEN);
    assert_false(cas__hand_parked(&h));
    assert_int_equal(cas__hand_end(&h, 1, &got), 0);
    assert_ptr_equal(got, e);
    assert_int_equal(cas__hand_end(&h, 1, &got), 0); /* nothing waits any more */
    assert_null(got);
    cas__saves_entry_free(e);
}

/* The job first: it parks; the answer says to hand it back, and the job,
 * run again, finds the answer. */
static void test_the_answer_after_the_job_parks(void **unused)
{
    (void)unused;
    struct cas__hand h = {0};
    struct cas__saves_entry *e = entry(), *got = e;
    cas__hand_wait(&h);
    assert_int_equal(cas__hand_end(&h, 1, &got), 1);
    assert_null(got);
    assert_true(cas__hand_parked(&h));
    assert_int_equal(cas__hand_answer(&h, e), CAS__HAND_RESUME);
    assert_false(cas__hand_parked(&h));
    assert_int_equal(cas__hand_end(&h, 1, &got), 0);
    assert_ptr_equal(got, e);
    cas__saves_entry_free(e);
}

/* A job that may not park (its table stopped) leaves without the answer,
 * which goes to the loop; an answer that comes while such a job still
 * runs is the job's all the same. */
static void test_a_job_that_may_not_park(void **unused)
{
    (void)unused;
    struct cas__hand h = {0};
    struct cas__saves_entry *e = entry(), *got = e;
    cas__hand_wait(&h);
    assert_int_equal(cas__hand_end(&h, 0, &got), 0);
    assert_null(got);
    assert_int_equal(cas__hand_answer(&h, e), CAS__HAND_LOOP);
    assert_int_equal(cas__hand_end(&h, 1, &got), 0); /* the word is free again */
    assert_null(got);

    cas__hand_wait(&h);
    assert_int_equal(cas__hand_answer(&h, e), CAS__HAND_TAKEN);
    assert_int_equal(cas__hand_end(&h, 0, &got), 0);
    assert_ptr_equal(got, e);
    cas__saves_entry_free(e);
}

/* A job that went without its answer leaves the word RELEASED until the
 * writer answers; a later job of the same table (a seat's request, a
 * sleep) that ends its run meanwhile waited for nothing: no answer, the
 * word untouched, and the answer still goes to the loop. */
static void test_a_later_job_before_a_released_answer(void **unused)
{
    (void)unused;
    struct cas__hand h = {0};
    struct cas__saves_entry *e = entry(), *got = e;
    cas__hand_wait(&h);
    assert_int_equal(cas__hand_end(&h, 0, &got), 0);
    assert_null(got);
    got = e;
    assert_int_equal(cas__hand_end(&h, 1, &got), 0); /* the later job */
    assert_null(got);
    assert_false(cas__hand_parked(&h));
    assert_int_equal(cas__hand_answer(&h, e), CAS__HAND_LOOP);
    cas__saves_entry_free(e);
}

/* ------------------------------------------------------------ a pool */

/* A job that parks on its first run and tells the test so; the test
 * resumes it. */
struct pjob {
    struct cas__bot_job base;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int runs, parked, delivered, discarded;
};

static int run(struct cas__bot_job *base)
{
    struct pjob *j = (struct pjob *)base;
    pthread_mutex_lock(&j->lock);
    int first = j->runs++ == 0;
    j->parked = first;
    pthread_cond_broadcast(&j->changed);
    pthread_mutex_unlock(&j->lock);
    /* Nothing of j is touched past this: a parked job is the test's. */
    return first ? CAS__JOB_PARKED : CAS__JOB_DONE;
}

static void deliver(struct cas__bot_job *base)
{
    ((struct pjob *)base)->delivered++;
}

static void discard(struct cas__bot_job *base)
{
    ((struct pjob *)base)->discarded++;
}

static void pjob_init(struct pjob *j)
{
    *j = (struct pjob){.base = {.run = run, .deliver = deliver, .discard = discard,
                                .search = 1}};
    pthread_mutex_init(&j->lock, NULL);
    pthread_cond_init(&j->changed, NULL);
}

static void await_parked(struct pjob *j)
{
    pthread_mutex_lock(&j->lock);
    while (!j->parked)
        pthread_cond_wait(&j->changed, &j->lock);
    pthread_mutex_unlock(&j->lock);
}

static void await_runs(struct pjob *j, int runs)
{
    pthread_mutex_lock(&j->lock);
    while (j->runs < runs)
        pthread_cond_wait(&j->changed, &j->lock);
    pthread_mutex_unlock(&j->lock);
}

static void pjob_destroy(struct pjob *j)
{
    pthread_cond_destroy(&j->changed);
    pthread_mutex_destroy(&j->lock);
}

static struct cas__bots *new_pool(void)
{
    struct cas__bots *b;
    assert_int_equal(cas__bots_new(1, NULL, NULL, &b), CAS_OK);
    return b;
}

/* Parked, a job is not delivered; resumed, it runs again and is delivered
 * once.  A search that parked comes back as a quick job (the pool's one
 * thread would not run a search with a search running). */
static void test_a_parked_job_runs_again_once_resumed(void **unused)
{
    (void)unused;
    struct pjob j;
    struct cas__handoffs before, after;
    pjob_init(&j);
    cas__handoffs_read(&before);
    struct cas__bots *b = new_pool();
    cas__bots_push(b, &j.base);
    await_parked(&j);
    cas__bots_deliver(b);
    assert_int_equal(j.delivered, 0);
    j.base.search = 0;
    cas__bots_resume(b, &j.base);
    await_runs(&j, 2);
    /* Done once the thread put it on the done list: deliver until then. */
    while (!j.delivered)
        cas__bots_deliver(b);
    assert_int_equal(j.delivered, 1);
    cas__bots_free(b);
    assert_int_equal(j.discarded, 0);
    cas__handoffs_read(&after);
    assert_int_equal(after.pool_runs - before.pool_runs, 2);
    pjob_destroy(&j);
}

/* A thread that frees the pool (the run stopping). */
static void *free_pool(void *arg)
{
    cas__bots_free(arg);
    return NULL;
}

/* The pool stops with a job parked: it waits for the job to come back,
 * runs it and discards it, so nothing leaks and nothing waits for a pool
 * that is gone (the journal's writer is stopped after the pools). */
static void test_a_pool_stopped_with_a_parked_job(void **unused)
{
    (void)unused;
    struct pjob j;
    pthread_t stopper;
    pjob_init(&j);
    struct cas__bots *b = new_pool();
    cas__bots_push(b, &j.base);
    await_parked(&j);
    assert_int_equal(pthread_create(&stopper, NULL, free_pool, b), 0);
    j.base.search = 0;
    cas__bots_resume(b, &j.base);
    assert_int_equal(pthread_join(stopper, NULL), 0);
    assert_int_equal(j.runs, 2);
    assert_int_equal(j.delivered, 0);
    assert_int_equal(j.discarded, 1);
    pjob_destroy(&j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_answer_before_the_job_parks),
        cmocka_unit_test(test_the_answer_after_the_job_parks),
        cmocka_unit_test(test_a_job_that_may_not_park),
        cmocka_unit_test(test_a_later_job_before_a_released_answer),
        cmocka_unit_test(test_a_parked_job_runs_again_once_resumed),
        cmocka_unit_test(test_a_pool_stopped_with_a_parked_job),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
