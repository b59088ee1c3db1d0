/*
 * test_offload.c — a table's plugin calls run on the pool, not on the
 * loop (host/server/offload.c): a worker-isolated game whose render is
 * slow stalls only itself.  The test is the loop: it handles the
 * requests, waits for the pools' wake and delivers their jobs, as
 * castellan serve's loop does.  No timing: the slow render (rogue-slow-
 * render, tests/worker/rogue.c) waits until the test releases it, and
 * shows it is waiting through its /proc status; the other game plays its
 * moves while it is known to wait, and the slow game's own requests wait
 * for it in order.  With the journal's writer, a move's update waits for
 * its action to be durable, on the pool as on the loop.  Opening a game
 * is a job too: a worker that is slow to start (rogue-slow-start) stalls
 * only the game it opens.  A table that stops right after its move went
 * to the writer (rogue-seat-late) serves its seats' requests meanwhile.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cmocka.h>

#include "saves.h"
#include "loop_guard.h"
#include "table.h"
#include "tconn.h"
#include "wsclient.h"

/* ---------------------------------------------------------- the loop */

struct world {
    struct cas__saves *store;
    struct cas__lobby lobby;
};

/* What a turn of the loop delivers. */
enum { JOBS = 1, WRITES = 2 };

/* One turn of the loop: wait for a wake (at most wait_ms), then deliver
 * what the pools finished and (what) the journal writer's answers, and
 * send what is owed.  1 when woken. */
static int turn_of(struct world *w, int wait_ms, int what)
{
    int woken = tconn_await_wake(wait_ms);
    if (what & JOBS) {
        cas__bots_deliver(w->lobby.bots);
        cas__bots_deliver(w->lobby.isolated_pool);
    }
    if (what & WRITES)
        cas__journal_deliver(&w->lobby);
    cas__lobby_flush(&w->lobby);
    return woken;
}

static int turn(void *w, int wait_ms)
{
    return turn_of(w, wait_ms, JOBS | WRITES);
}

/* -------------------------------------------------------- connections */

/* Turn the loop until c has more than n messages. */
static void await_message(struct world *w, const struct tconn *c, size_t n)
{
    tconn_await_message(c, n, turn, w);
}

/* The last state or update c got, read. */
static void last_view(const struct tconn *c, struct cas__botclient_view *v)
{
    for (size_t i = c->n; i-- > 0;) {
        assert_int_equal(cas__botclient_read(c->msgs[i], strlen(c->msgs[i]), v), CAS_OK);
        if (v->state)
            return;
        cas__botclient_view_free(v);
    }
    fail_msg("no state came");
}

/* Create a practice game of `game` for two people; its id and tokens. */
static int64_t create(struct world *w, const char *game, char tokens[2][64])
{
    struct tconn c;
    tconn_init(&c);
    tconn_sayf(&w->lobby, &c, "{\"type\":\"create\",\"game\":\"%s\",\"practice\":true,\"seed\":\"5\","
         "\"seats\":[{\"agent\":\"human\"},{\"agent\":\"human\"}]}", game);
    await_message(w, &c, 0); /* once its match is open, in a job */
    assert_int_equal(c.n, 1);
    const char *at = strstr(c.msgs[0], "\"game\":\"");
    if (!at)
        fail_msg("create failed: %s", c.msgs[0]);
    int64_t id = strtoll(at + 8, NULL, 10);
    for (int i = 0; i < 2; i++) {
        char key[48];
        snprintf(key, sizeof key, "{\"seat\":%d,\"token\":\"", i);
        at = strstr(c.msgs[0], key);
        assert_non_null(at);
        sscanf(at + strlen(key), "%63[^\"]", tokens[i]);
    }
    tconn_close(&w->lobby, &c);
    return id;
}

/* The seat of the two that decides in its last state: 0 or 1. */
static int decider(const struct tconn seats[2])
{
    for (int i = 0; i < 2; i++) {
        struct cas__botclient_view v;
        last_view(&seats[i], &v);
        int decides = v.actor == v.you && v.n_actions > 0;
        cas__botclient_view_free(&v);
        if (decides)
            return i;
    }
    fail_msg("no seat decides");
    return -1;
}

/* The deciding seat plays its first legal action. */
static void act(struct world *w, struct tconn seats[2])
{
    struct cas__botclient_view v;
    char text[4096];
    int i = decider(seats);
    last_view(&seats[i], &v);
    assert_int_equal(cas__botclient_act(&v, 0, text, sizeof text), 1);
    cas__botclient_view_free(&v);
    tconn_sayf(&w->lobby, &seats[i], "%s", text);
}

/* ------------------------------------------------- the slow worker */

/* The number after `key` ("PPid:", "SigBlk:") in /proc/PID/status, read
 * in base 10 or 16; -1 when the process or the line is not there. */
static long long status_field(int pid, const char *key, int base)
{
    char path[64], line[512];
    long long value = -1;
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    FILE *f = fopen(path, "r");
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, key, strlen(key)) == 0) {
            value = strtoll(line + strlen(key), NULL, base);
            break;
        }
    if (f)
        fclose(f);
    return value;
}

/* The one child process of this test (the slow game's worker), or 0. */
static pid_t child_pid(void)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    pid_t found = 0;
    assert_non_null(d);
    while ((e = readdir(d))) {
        int pid = atoi(e->d_name);
        if (pid > 0 && status_field(pid, "PPid:", 10) == getpid()) {
            assert_int_equal(found, 0);
            found = pid;
        }
    }
    closedir(d);
    return found;
}

static pid_t worker_pid(void)
{
    pid_t found = child_pid();
    assert_true(found > 0);
    return found;
}

/* Whether the worker waits in its slow render: it blocks SIGUSR2 then. */
static int rendering(pid_t pid)
{
    long long blocked = status_field((int)pid, "SigBlk:", 16);
    assert_true(blocked >= 0);
    return (blocked >> (SIGUSR2 - 1)) & 1;
}

/* tconn_await's conditions: the worker *pid waits in its render; the one
 * child is there (its pid into *pid) and waits in its slow start. */
static int worker_rendering(void *pid)
{
    return rendering(*(pid_t *)pid);
}

static int child_waiting(void *pid)
{
    pid_t *p = pid;
    return (*p = child_pid()) && rendering(*p);
}

/* ------------------------------------------------------------ the test */

static void open_world(struct world *w)
{
    char err[1024];
    const char *db = "offload.db";
    unlink(db);
    /* A call may take as long as the test holds the slow render (which
     * lets go by itself after 200 s, within this deadline). */
    struct cas__isolation iso = {.mode = CAS__ISOLATE_AUTO, .deadline_ms = 2 * TCONN_GIVE_UP_MS};
    assert_int_equal(cas__saves_open(db, &w->store, err, sizeof err), CAS_OK);
    assert_int_equal(cas__lobby_open(&w->lobby, w->store, ROGUE_PLUGIN_DIR, &iso, NULL, NULL,
                                     err, sizeof err), CAS_OK);
    tconn_wake_open();
    assert_int_equal(cas__bots_new(2, tconn_wake, NULL, &w->lobby.bots), CAS_OK);
    assert_int_equal(cas__bots_new(2, tconn_wake, NULL, &w->lobby.isolated_pool), CAS_OK);
}

static void close_world(struct world *w)
{
    /* The loop's code made no plugin call of its own (loop_guard.h). */
    assert_int_equal(cas__loop_slow_calls(), 0);
    assert_int_equal(cas__loop_store_calls(), 0);
    /* The pools first, as the run stops them: a job may wait for the
     * writer's answer. */
    cas__bots_free(w->lobby.isolated_pool);
    cas__bots_free(w->lobby.bots);
    w->lobby.isolated_pool = w->lobby.bots = NULL;
    cas__saves_writer_stop(w->lobby.writer);
    w->lobby.writer = NULL;
    tconn_hold_remove();
    cas__lobby_close(&w->lobby);
    cas__saves_close(w->store);
    tconn_wake_close();
}

/* Create a game of `game` and join both its seats. */
static int64_t host(struct world *w, const char *game, struct tconn seats[2])
{
    char tokens[2][64];
    int64_t id = create(w, game, tokens);
    for (int i = 0; i < 2; i++) {
        tconn_init(&seats[i]);
        tconn_sayf(&w->lobby, &seats[i], "{\"type\":\"join\",\"game\":\"%lld\",\"seat\":%d,\"token\":\"%s\"}",
             (long long)id, i, tokens[i]);
        await_message(w, &seats[i], 0);
    }
    return id;
}

/* Issue 42, item 4: the slow game's render is known to be in progress
 * while the other game plays MOVES moves, each answered; the slow game's
 * update comes once the render is let go. */
#define MOVES 6

static void test_a_slow_render_stalls_only_its_game(void **unused)
{
    (void)unused;
    struct world w;
    struct tconn fast[2], slow[2];
    open_world(&w);
    int64_t fast_id = host(&w, "fixture", fast), slow_id = host(&w, "rogue-slow-render", slow);
    assert_false(cas__lobby_find(&w.lobby, fast_id)->r.match.isolated);
    assert_true(cas__lobby_find(&w.lobby, slow_id)->r.match.isolated);
    pid_t worker = worker_pid();
    assert_false(rendering(worker));

    /* Armed, the slow game's next render waits: its decider acts. */
    assert_int_equal(kill(worker, SIGUSR2), 0);
    size_t slow_seen[2] = {slow[0].n, slow[1].n};
    struct cas__botclient_view v0;
    last_view(&slow[0], &v0);
    int64_t slow_ply = v0.ply;
    cas__botclient_view_free(&v0);
    int mover = decider(slow);
    act(&w, slow);
    tconn_await(worker_rendering, &worker, turn, &w, "the slow render");

    /* The other game goes on meanwhile, move after move. */
    for (int k = 0; k < MOVES; k++) {
        size_t seen[2] = {fast[0].n, fast[1].n};
        struct cas__botclient_view before, after;
        last_view(&fast[0], &before);
        act(&w, fast);
        await_message(&w, &fast[0], seen[0]);
        await_message(&w, &fast[1], seen[1]);
        last_view(&fast[0], &after);
        assert_true(after.ply > before.ply);
        cas__botclient_view_free(&before);
        cas__botclient_view_free(&after);
    }
    /* Requests for the held game wait, in order: the mover's ping behind
     * its move, a watcher's join; one that joins and closes meanwhile is
     * let go; the lobby answers at once, listing the game as it was. */
    struct tconn watcher, gone, lobby;
    char listed[48];
    tconn_init(&watcher);
    tconn_init(&gone);
    tconn_init(&lobby);
    tconn_sayf(&w.lobby, &slow[mover], "{\"type\":\"ping\"}");
    tconn_sayf(&w.lobby, &watcher, "{\"type\":\"join\",\"game\":\"%lld\"}", (long long)slow_id);
    tconn_sayf(&w.lobby, &gone, "{\"type\":\"join\",\"game\":\"%lld\"}", (long long)slow_id);
    tconn_close(&w.lobby, &gone);
    tconn_sayf(&w.lobby, &lobby, "{\"type\":\"lobby\"}");
    assert_int_equal(lobby.n, 1);
    snprintf(listed, sizeof listed, "{\"game\":\"%lld\"", (long long)slow_id);
    assert_non_null(strstr(lobby.msgs[0], listed));
    assert_int_equal(watcher.n, 0);

    assert_true(rendering(worker));
    for (int i = 0; i < 2; i++)
        assert_int_equal(slow[i].n, slow_seen[i]); /* nothing of the move yet */

    /* Let go, the slow game's move reaches both its seats, the mover's
     * pong after it, and the watcher its state. */
    assert_int_equal(kill(worker, SIGUSR1), 0);
    for (int i = 0; i < 2; i++) {
        await_message(&w, &slow[i], slow_seen[i]);
        struct cas__botclient_view v;
        assert_int_equal(cas__botclient_read(slow[i].msgs[slow_seen[i]],
                                             strlen(slow[i].msgs[slow_seen[i]]), &v), CAS_OK);
        assert_string_equal(v.type, "update");
        assert_true(v.ply > slow_ply);
        cas__botclient_view_free(&v);
    }
    await_message(&w, &slow[mover], slow_seen[mover] + 1);
    assert_non_null(strstr(slow[mover].msgs[slow_seen[mover] + 1], "\"type\":\"pong\""));
    await_message(&w, &watcher, 0);
    assert_non_null(strstr(watcher.msgs[0], "\"type\":\"state\""));
    tconn_close(&w.lobby, &watcher);
    tconn_close(&w.lobby, &lobby);
    for (int i = 0; i < 2; i++) {
        tconn_close(&w.lobby, &fast[i]);
        tconn_close(&w.lobby, &slow[i]);
    }
    close_world(&w);
}

/* Issue 42, item 4: opening a game is a job.  A worker-isolated game
 * whose worker is slow to start (its game_new waits until let go) is
 * known to be starting while another game plays MOVES moves and the
 * lobby answers; the creator's own later request waits behind its
 * create; let go, the creator gets the game, then its answer, and the
 * game is hosted in a worker. */
static void test_a_slow_worker_start_stalls_only_its_game(void **unused)
{
    (void)unused;
    struct world w;
    struct tconn fast[2], creator, lobby;
    open_world(&w);
    host(&w, "fixture", fast);
    tconn_init(&creator);
    tconn_init(&lobby);
    tconn_sayf(&w.lobby, &creator, "{\"type\":\"create\",\"game\":\"rogue-slow-start\","
               "\"practice\":true,\"seed\":\"5\",\"seats\":[{\"agent\":\"human\"},"
               "{\"agent\":\"human\"}]}");
    tconn_sayf(&w.lobby, &creator, "{\"type\":\"ping\"}");
    pid_t worker = 0;
    tconn_await(child_waiting, &worker, turn, &w, "the slow worker's start");

    for (int k = 0; k < MOVES; k++) {
        size_t seen[2] = {fast[0].n, fast[1].n};
        act(&w, fast);
        await_message(&w, &fast[0], seen[0]);
        await_message(&w, &fast[1], seen[1]);
    }
    tconn_sayf(&w.lobby, &lobby, "{\"type\":\"lobby\"}");
    assert_int_equal(lobby.n, 1);
    assert_true(rendering(worker)); /* still starting */
    assert_int_equal(creator.n, 0);

    assert_int_equal(kill(worker, SIGUSR1), 0);
    await_message(&w, &creator, 0);
    assert_non_null(strstr(creator.msgs[0], "\"type\":\"created\""));
    await_message(&w, &creator, 1);
    assert_non_null(strstr(creator.msgs[1], "\"type\":\"pong\""));
    const char *at = strstr(creator.msgs[0], "\"game\":\"");
    assert_non_null(at);
    struct cas__table *t = cas__lobby_find(&w.lobby, strtoll(at + 8, NULL, 10));
    assert_non_null(t);
    assert_true(t->r.match.isolated);
    /* Listed once open, not before: the lobby's follower hears of it. */
    char listed[48];
    snprintf(listed, sizeof listed, "{\"game\":\"%lld\"", (long long)t->id);
    assert_null(strstr(lobby.msgs[0], listed));
    await_message(&w, &lobby, 1);
    assert_non_null(strstr(lobby.msgs[lobby.n - 1], listed));
    tconn_close(&w.lobby, &lobby);
    tconn_close(&w.lobby, &creator);
    for (int i = 0; i < 2; i++)
        tconn_close(&w.lobby, &fast[i]);
    close_world(&w);
}

/* The last message of c says the move at its ply was played. */
static void assert_played(const struct tconn *c)
{
    assert_true(c->n > 0);
    assert_non_null(strstr(c->msgs[c->n - 1], "\"played\":[{\"ply\":"));
}

/* The world with the journal's writer started, its batches' store calls
 * holdable (tconn_hold_arm). */
static void open_world_writing(struct world *w)
{
    char err[1024];
    open_world(w);
    tconn_hold_install();
    assert_int_equal(cas__saves_writer_open("offload.db", tconn_wake, NULL, &w->lobby.writer,
                                            err, sizeof err), CAS_OK);
    assert_int_equal(cas__saves_writer_start(w->lobby.writer), CAS_OK);
}

/* Turn the loop until t's job parked, waiting for its write, and the
 * writer is held in that write's batch. */
static void await_parked(struct world *w, struct cas__table *t)
{
    for (int waited = 0; !cas__hand_parked(&t->hold.hand) || !tconn_hold_held(); waited += 10)
        if (!turn(w, 10) && waited > TCONN_GIVE_UP_MS)
            fail_msg("the move's job never parked");
}

static struct cas__handoffs handoffs_now(void)
{
    struct cas__handoffs h;
    cas__handoffs_read(&h);
    return h;
}

/* A seat's move parked in its job (the writer held in its batch): the
 * table held, and nobody told of the move, flushed or not. */
static void move_parked(struct world *w, struct cas__table *t, struct tconn seats[2],
                        size_t seen[2])
{
    seen[0] = seats[0].n;
    seen[1] = seats[1].n;
    tconn_hold_arm("append_batch");
    act(w, seats);
    await_parked(w, t);
    assert_true(t->hold.held);
    cas__lobby_flush(&w->lobby);
    assert_int_equal(seats[0].n, seen[0]);
    assert_int_equal(seats[1].n, seen[1]);
}

/* The journal's writer and the pool together (issue 42 item 4): a seat's
 * move's job hands its action to the writer and keeps the table until the
 * answer; the writer hands the answer straight back to it (no turn of the
 * loop between), and the job goes on with the game and builds the
 * update: two runs of the pool for the move, nobody told before the
 * action is durable.  (The answer that comes before the job's run ends:
 * test_handoff.) */
static void test_a_move_waits_for_its_write_in_its_job(void **unused)
{
    (void)unused;
    struct world w;
    struct tconn seats[2];
    size_t seen[2];
    open_world_writing(&w);
    int64_t id = host(&w, "fixture", seats);
    struct cas__table *t = cas__lobby_find(&w.lobby, id);

    int mover = decider(seats);
    struct cas__handoffs before = handoffs_now();
    move_parked(&w, t, seats, seen);
    tconn_hold_let_go();
    await_message(&w, &seats[1 - mover], seen[1 - mover]);
    assert_played(&seats[1 - mover]);
    assert_false(t->hold.held);
    assert_int_equal(t->j.saved, t->r.session.ply);
    struct cas__handoffs after = handoffs_now();
    assert_int_equal(after.handed_back - before.handed_back, 1);
    assert_int_equal(after.pool_runs - before.pool_runs, 2);
    for (int i = 0; i < 2; i++)
        tconn_close(&w.lobby, &seats[i]);
    close_world(&w);
}

/* A write that fails comes back to the job too: the job leaves it to the
 * loop, as ever, so the move is kept (not acknowledged: the other seat
 * hears nothing) and the mover is told; once the store takes writes again
 * the clock's tick saves it and the game goes on. */
static void test_a_failed_write_keeps_the_move_and_tells_the_seat(void **unused)
{
    (void)unused;
    struct world w;
    struct tconn seats[2];
    struct rlimit saved, tiny;
    size_t seen[2];
    open_world_writing(&w);
    int64_t id = host(&w, "fixture", seats);
    struct cas__table *t = cas__lobby_find(&w.lobby, id);
    uint32_t ply = t->r.session.ply;

    int mover = decider(seats);
    move_parked(&w, t, seats, seen);
    /* Every write fails now (a file size limit below any). */
    signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &saved), 0);
    tiny = saved;
    tiny.rlim_cur = 1;
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &tiny), 0);
    tconn_hold_let_go();
    await_message(&w, &seats[mover], seen[mover]);
    assert_non_null(strstr(tconn_last(&seats[mover]), "\"code\":\"unavailable\""));
    assert_non_null(strstr(tconn_last(&seats[mover]), "this move is kept"));
    assert_int_equal(seats[1 - mover].n, seen[1 - mover]);
    assert_non_null(t->unsaved.text);
    assert_false(t->writing);
    assert_int_equal(t->j.saved, ply);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &saved), 0);

    for (int waited = 0; seats[1 - mover].n == seen[1 - mover]; waited += 100) {
        cas__lobby_check_clocks(&w.lobby);
        if (!turn(&w, 100) && waited > TCONN_GIVE_UP_MS)
            fail_msg("the kept move was never saved");
    }
    assert_played(&seats[1 - mover]);
    assert_null(t->unsaved.text);
    assert_int_equal(t->j.saved, t->r.session.ply);
    for (int i = 0; i < 2; i++)
        tconn_close(&w.lobby, &seats[i]);
    close_world(&w);
}

/* A thread that stops the pools (the run stopping). */
static void *stop_pools(void *arg)
{
    struct world *w = arg;
    cas__bots_free(w->lobby.isolated_pool);
    cas__bots_free(w->lobby.bots);
    return NULL;
}

/* The server stops while a move's job waits for its write: the pools wait
 * for the answer, the job goes on with it and is discarded (nobody is
 * served any more), and nothing is lost: the move is durable, the table
 * free to be closed, nothing leaks. */
static void test_pools_stopped_with_a_parked_move(void **unused)
{
    (void)unused;
    struct world w;
    struct tconn seats[2];
    size_t seen[2];
    pthread_t stopper;
    open_world_writing(&w);
    int64_t id = host(&w, "fixture", seats);
    struct cas__table *t = cas__lobby_find(&w.lobby, id);

    move_parked(&w, t, seats, seen);
    assert_int_equal(pthread_create(&stopper, NULL, stop_pools, &w), 0);
    tconn_hold_let_go();
    assert_int_equal(pthread_join(stopper, NULL), 0);
    w.lobby.isolated_pool = w.lobby.bots = NULL;
    assert_false(t->hold.held);
    assert_false(t->writing);
    assert_int_equal(t->j.saved, t->r.session.ply);
    struct cas__saves_game g;
    assert_int_equal(cas__saves_game_load(w.store, id, 0, &g), CAS_OK);
    assert_int_equal(g.n_actions, t->r.session.ply);
    cas__saves_game_free(&g);
    for (int i = 0; i < 2; i++)
        tconn_close(&w.lobby, &seats[i]);
    close_world(&w);
}

/* tconn_await's condition: the writer is held in a batch, and the table's
 * move either parked in its job or was delivered without waiting. */
struct held_move {
    struct cas__table *t;
};

static int move_held(void *ctx)
{
    struct cas__table *t = ((struct held_move *)ctx)->t;
    return tconn_hold_held() && (cas__hand_parked(&t->hold.hand) || !t->hold.held);
}

/* A plugin that breaks the ABI right after an action (rogue-seat-late
 * names seat -5 from its 7th apply, the first move) stops its table after that action went to
 * the writer: the job may not park, and leaves the answer to the loop.
 * Another job of the table while the write is in flight (the seat's
 * request again) waits for nothing and takes no answer; the answer, when
 * it comes, goes to the loop and finds the table stopped. */
static void test_a_table_stopped_after_its_action_went_to_the_writer(void **unused)
{
    (void)unused;
    struct world w;
    struct tconn seats[2];
    char text[4096];
    int mover = -1;
    open_world_writing(&w);
    int64_t id = host(&w, "rogue-seat-late", seats);
    struct held_move held = {cas__lobby_find(&w.lobby, id)};
    struct cas__table *t = held.t;
    for (int moves = 0;; moves++) {
        struct cas__botclient_view v;
        assert_true(moves < 12);
        mover = decider(seats);
        last_view(&seats[mover], &v);
        assert_int_equal(cas__botclient_act(&v, 0, text, sizeof text), 1);
        cas__botclient_view_free(&v);
        size_t seen = seats[1 - mover].n;
        tconn_hold_arm("append_batch");
        tconn_sayf(&w.lobby, &seats[mover], "%s", text);
        tconn_await(move_held, &held, turn, &w, "the move held in the writer");
        if (!cas__hand_parked(&t->hold.hand))
            break; /* delivered while its write is held: the table stopped */
        tconn_hold_let_go();
        await_message(&w, &seats[1 - mover], seen);
    }
    assert_non_null(strstr(t->failure, "plugin rogue-seat-late broke the ABI (seat -5"));
    assert_true(t->writing);
    size_t told = seats[mover].n;
    tconn_sayf(&w.lobby, &seats[mover], "%s", text);
    await_message(&w, &seats[mover], told);
    assert_non_null(strstr(tconn_last(&seats[mover]), "stopped"));
    tconn_hold_let_go();
    for (int waited = 0; t->writing || t->hold.held; waited += 10)
        if (!turn(&w, 10) && waited > TCONN_GIVE_UP_MS)
            fail_msg("the stopped table's write never came back");
    assert_non_null(strstr(t->failure, "plugin rogue-seat-late broke the ABI (seat -5"));
    for (int i = 0; i < 2; i++)
        tconn_close(&w.lobby, &seats[i]);
    close_world(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_slow_render_stalls_only_its_game),
        cmocka_unit_test(test_a_move_waits_for_its_write_in_its_job),
        cmocka_unit_test(test_a_failed_write_keeps_the_move_and_tells_the_seat),
        cmocka_unit_test(test_pools_stopped_with_a_parked_move),
        cmocka_unit_test(test_a_table_stopped_after_its_action_went_to_the_writer),
        cmocka_unit_test(test_a_slow_worker_start_stalls_only_its_game),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
