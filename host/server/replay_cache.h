/*
 * replay_cache.h — the served replay pages (host-internal): built on a
 * thread of their own, never on the event loop, and kept per game (a
 * finished game's replay never changes), a bounded number and size.
 */
#ifndef CAS_HOST_REPLAY_CACHE_H
#define CAS_HOST_REPLAY_CACHE_H

#include <stddef.h>
#include <stdint.h>

struct cas__isolation;
struct cas__registry;
struct cas__saves_game;

/* Where a served replay page finds its script (cas__replay_html_script):
 * the page's CSP, the table's, runs no inline script. */
#define CAS__REPLAY_SCRIPT "/replay.js"

/* A built page: the HTML and the same gzip-compressed (what a browser is
 * sent).  Shared: whoever holds one drops it with cas__replay_page_unref. */
struct cas__replay_page {
    int refs;             /* only touched on the loop */
    char *html, *gz;
    size_t html_len, gz_len;
};

void cas__replay_page_unref(struct cas__replay_page *page); /* NULL is fine */

struct cas__replays;

/* Called on the loop for each connection that waited for a page: page (a
 * reference the callee takes), or NULL when the page could not be made. */
typedef void (*cas__replay_ready)(void *waiter, struct cas__replay_page *page);

/* Bounds: pages kept, their bytes in all, builds waiting for the thread. */
#define CAS__REPLAYS_KEPT 16
#define CAS__REPLAYS_KEPT_BYTES (64u << 20)
#define CAS__REPLAYS_QUEUED 32

/* Start the builder thread; wake(ctx) is called from it when a page is
 * done, to make the loop call cas__replays_deliver.  *out is the caller's,
 * freed with cas__replays_free.  CAS_OK or CAS_ENOMEM. */
int cas__replays_new(void (*wake)(void *), void *ctx, cas__replay_ready ready,
                     struct cas__replays **out);
/* Stop the thread (a build under way is finished first) and free every
 * page and waiting build; no waiter is called.  NULL is fine. */
void cas__replays_free(struct cas__replays *rp);

enum cas__replay_state {
    CAS__REPLAY_READY,    /* *page set: a reference for the caller */
    CAS__REPLAY_WAITING,  /* a build of it is under way: waiter will hear */
    CAS__REPLAY_MISSING,  /* neither: the caller opens it and builds */
};
/* Game id's page, or waiter added to its build. */
enum cas__replay_state cas__replays_get(struct cas__replays *rp, int64_t id, void *waiter,
                                        struct cas__replay_page **page);
/* Build game id's page, public view (its title says whether it was a
 * practice game, its seed chosen): g's plugins are opened here (from reg,
 * isolated as asked), g is taken (freed in every case), the replay and
 * rendering run on the thread, and waiter hears when it is done.  The page
 * is kept only when the store has g finished.  -1 when
 * CAS__REPLAYS_QUEUED builds wait already, the game cannot be opened or
 * memory ran out. */
int cas__replays_build(struct cas__replays *rp, int64_t id, struct cas__saves_game *g,
                       struct cas__registry *reg, const struct cas__isolation *isolation,
                       int practice, void *waiter);
/* waiter is gone (its connection closed): it hears nothing. */
void cas__replays_forget(struct cas__replays *rp, void *waiter);
/* On the loop: keep the pages built since the last call and tell their
 * waiters. */
void cas__replays_deliver(struct cas__replays *rp);

#endif
