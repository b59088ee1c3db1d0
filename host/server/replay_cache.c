/*
 * replay_cache.c — replay pages off the event loop.  Building a page
 * replays a whole game through its plugin and renders every ply (a long
 * five-expansion game: a few hundred milliseconds), which would stall every
 * game of the server if the loop did it.  The loop loads the game and opens
 * its plugins (as it does to host a game), then hands both to one builder
 * thread; the thread replays, renders, writes the page and gzips it, and
 * wakes the loop, which keeps the page and answers every connection that
 * waited for it.  One thread: a crowd asking for many replays at once gets
 * them one after the other, and never more than one core.
 *
 * A finished game's replay never changes, so a page is kept until the
 * cache needs room (the least recently asked goes first), and every later
 * request is sent its bytes (a reference to the page, not a copy).  Only a game the store has as finished: one
 * that just ended may still have its last actions on their way to the
 * store, and its page is built for who asked and not kept.
 */
#include "replay_cache.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "replay_html.h"
#include "revive.h"
#include "saves.h"

/* One page being built, and who waits for it. */
struct job {
    struct job *next;
    int64_t id;
    struct cas__saves_game g;
    struct cas__revived r;        /* opened on g */
    char origin[32], title[400];
    void **waiters;               /* the loop's only */
    size_t n_waiters, cap_waiters;
    int keep;                     /* the store has it finished: the page is final */
    int taken, done;              /* under the lock */
    struct cas__replay_page *page;/* when done: NULL if it failed */
};

struct kept {
    int64_t id;
    struct cas__replay_page *page;
    uint64_t used;                /* when last asked, by the cache's clock */
};

struct cas__replays {
    pthread_mutex_t lock;
    pthread_cond_t more;
    pthread_t thread;
    int stop;
    struct job *jobs;             /* under the lock: in the order asked */
    size_t n_jobs;
    void (*wake)(void *);
    void *ctx;
    cas__replay_ready ready;
    struct kept kept[CAS__REPLAYS_KEPT]; /* the loop's only */
    size_t n_kept, kept_bytes;
    uint64_t clock;
};

void cas__replay_page_unref(struct cas__replay_page *page)
{
    if (page && --page->refs == 0) {
        free(page->html);
        free(page->gz);
        free(page);
    }
}

/* html[0..len) gzip-compressed into page; 0, or -1 out of memory. */
static int compress_page(struct cas__replay_page *page)
{
    z_stream z = {0};
    if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16 /* gzip */, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return -1;
    size_t cap = deflateBound(&z, (uLong)page->html_len);
    page->gz = malloc(cap);
    int rc = -1;
    if (page->gz) {
        z.next_in = (Bytef *)page->html;
        z.avail_in = (uInt)page->html_len;
        z.next_out = (Bytef *)page->gz;
        z.avail_out = (uInt)cap;
        if (deflate(&z, Z_FINISH) == Z_STREAM_END) {
            page->gz_len = z.total_out;
            rc = 0;
        }
    }
    deflateEnd(&z);
    return rc;
}

/* On the builder thread: j's page, or NULL. */
static struct cas__replay_page *build(struct job *j)
{
    struct cas__replay_page *page = calloc(1, sizeof *page);
    char err[1024];
    FILE *out = page ? open_memstream(&page->html, &page->html_len) : NULL;
    if (!out) {
        free(page);
        return NULL;
    }
    int rc = cas__replay_html_write(&j->r, CAS_VIEWER_PUBLIC, j->title, CAS__REPLAY_SCRIPT, out,
                                    err, sizeof err);
    if (fclose(out) != 0 || rc != CAS_OK || compress_page(page)) {
        page->refs = 1;
        cas__replay_page_unref(page);
        return NULL;
    }
    page->refs = 1; /* the job's, handed to the cache */
    return page;
}

static void *builder(void *arg)
{
    struct cas__replays *rp = arg;
    pthread_mutex_lock(&rp->lock);
    while (!rp->stop) {
        struct job *j = rp->jobs;
        while (j && j->taken)
            j = j->next;
        if (!j) {
            pthread_cond_wait(&rp->more, &rp->lock);
            continue;
        }
        j->taken = 1;
        pthread_mutex_unlock(&rp->lock);
        struct cas__replay_page *page = build(j);
        pthread_mutex_lock(&rp->lock);
        j->page = page;
        j->done = 1;
        rp->wake(rp->ctx);
    }
    pthread_mutex_unlock(&rp->lock);
    return NULL;
}

int cas__replays_new(void (*wake)(void *), void *ctx, cas__replay_ready ready,
                     struct cas__replays **out)
{
    struct cas__replays *rp = calloc(1, sizeof *rp);
    if (!rp)
        return CAS_ENOMEM;
    rp->wake = wake;
    rp->ctx = ctx;
    rp->ready = ready;
    pthread_mutex_init(&rp->lock, NULL);
    pthread_cond_init(&rp->more, NULL);
    if (pthread_create(&rp->thread, NULL, builder, rp) != 0) {
        pthread_cond_destroy(&rp->more);
        pthread_mutex_destroy(&rp->lock);
        free(rp);
        return CAS_ENOMEM;
    }
    *out = rp;
    return CAS_OK;
}

static void job_free(struct job *j)
{
    cas__revive_close(&j->r);
    cas__saves_game_free(&j->g);
    cas__replay_page_unref(j->page);
    free(j->waiters);
    free(j);
}

void cas__replays_free(struct cas__replays *rp)
{
    if (!rp)
        return;
    pthread_mutex_lock(&rp->lock);
    rp->stop = 1;
    pthread_cond_signal(&rp->more);
    pthread_mutex_unlock(&rp->lock);
    pthread_join(rp->thread, NULL);
    while (rp->jobs) {
        struct job *j = rp->jobs;
        rp->jobs = j->next;
        job_free(j);
    }
    for (size_t i = 0; i < rp->n_kept; i++)
        cas__replay_page_unref(rp->kept[i].page);
    pthread_cond_destroy(&rp->more);
    pthread_mutex_destroy(&rp->lock);
    free(rp);
}

static int add_waiter(struct job *j, void *waiter)
{
    if (j->n_waiters == j->cap_waiters) {
        size_t cap = j->cap_waiters ? 2 * j->cap_waiters : 4;
        void **more = realloc(j->waiters, cap * sizeof *more);
        if (!more)
            return -1;
        j->waiters = more;
        j->cap_waiters = cap;
    }
    j->waiters[j->n_waiters++] = waiter;
    return 0;
}

enum cas__replay_state cas__replays_get(struct cas__replays *rp, int64_t id, void *waiter,
                                        struct cas__replay_page **page)
{
    for (size_t i = 0; i < rp->n_kept; i++)
        if (rp->kept[i].id == id) {
            rp->kept[i].used = ++rp->clock;
            *page = rp->kept[i].page;
            (*page)->refs++;
            return CAS__REPLAY_READY;
        }
    enum cas__replay_state state = CAS__REPLAY_MISSING;
    pthread_mutex_lock(&rp->lock);
    for (struct job *j = rp->jobs; j; j = j->next)
        if (j->id == id && add_waiter(j, waiter) == 0) {
            state = CAS__REPLAY_WAITING;
            break;
        }
    pthread_mutex_unlock(&rp->lock);
    return state;
}

int cas__replays_build(struct cas__replays *rp, int64_t id, struct cas__saves_game *g,
                       struct cas__registry *reg, const struct cas__isolation *isolation,
                       int practice, void *waiter)
{
    pthread_mutex_lock(&rp->lock);
    int full = rp->n_jobs >= CAS__REPLAYS_QUEUED;
    pthread_mutex_unlock(&rp->lock);
    struct job *j = full ? NULL : calloc(1, sizeof *j);
    if (!j || add_waiter(j, waiter)) {
        cas__saves_game_free(g);
        free(j);
        return -1;
    }
    j->id = id;
    j->keep = g->status == CAS__SAVES_FINISHED;
    j->g = *g; /* r points at j's g, so it is opened there */
    snprintf(j->origin, sizeof j->origin, "game %lld", (long long)id);
    if (cas__revive_open_in(&j->r, &j->g, j->origin, reg, 0, isolation) != CAS_OK) {
        cas__saves_game_free(&j->g);
        free(j->waiters);
        free(j);
        return -1;
    }
    snprintf(j->title, sizeof j->title, "castellan: %s, game %lld%s", j->r.match.title,
             (long long)id, practice ? " (practice game: its seed was chosen)" : "");
    pthread_mutex_lock(&rp->lock);
    struct job **end = &rp->jobs;
    while (*end)
        end = &(*end)->next;
    *end = j;
    rp->n_jobs++;
    pthread_cond_signal(&rp->more);
    pthread_mutex_unlock(&rp->lock);
    return 0;
}

void cas__replays_forget(struct cas__replays *rp, void *waiter)
{
    pthread_mutex_lock(&rp->lock);
    for (struct job *j = rp->jobs; j; j = j->next)
        for (size_t i = 0; i < j->n_waiters; i++)
            if (j->waiters[i] == waiter)
                j->waiters[i--] = j->waiters[--j->n_waiters];
    pthread_mutex_unlock(&rp->lock);
}

/* Keep page for game id, making room: the least recently asked go. */
static void keep(struct cas__replays *rp, int64_t id, struct cas__replay_page *page)
{
    size_t bytes = page->html_len + page->gz_len;
    if (bytes > CAS__REPLAYS_KEPT_BYTES)
        return;
    while (rp->n_kept && (rp->n_kept == CAS__REPLAYS_KEPT ||
                          rp->kept_bytes + bytes > CAS__REPLAYS_KEPT_BYTES)) {
        size_t oldest = 0;
        for (size_t i = 1; i < rp->n_kept; i++)
            if (rp->kept[i].used < rp->kept[oldest].used)
                oldest = i;
        struct cas__replay_page *gone = rp->kept[oldest].page;
        rp->kept_bytes -= gone->html_len + gone->gz_len;
        cas__replay_page_unref(gone);
        rp->kept[oldest] = rp->kept[--rp->n_kept];
    }
    page->refs++;
    rp->kept[rp->n_kept++] = (struct kept){.id = id, .page = page, .used = ++rp->clock};
    rp->kept_bytes += bytes;
}

void cas__replays_deliver(struct cas__replays *rp)
{
    struct job *done = NULL, **from;
    pthread_mutex_lock(&rp->lock);
    for (from = &rp->jobs; *from;) {
        struct job *j = *from;
        if (!j->done) {
            from = &j->next;
            continue;
        }
        *from = j->next;
        rp->n_jobs--;
        j->next = done;
        done = j;
    }
    pthread_mutex_unlock(&rp->lock);
    while (done) {
        struct job *j = done;
        done = j->next;
        if (j->page && j->keep)
            keep(rp, j->id, j->page);
        for (size_t i = 0; i < j->n_waiters; i++) {
            if (j->page)
                j->page->refs++;
            rp->ready(j->waiters[i], j->page);
        }
        job_free(j);
    }
}
