/*
 * test_floor.c — the serve benchmark's floor (host/clients/floor_record.c,
 * floor_server.c): a game recorded from castellan serve is replayed by the
 * bare server byte for byte, each move answered with that move's recorded
 * messages to both seats, compressed or plain; and the load client plays
 * whole games against it, with each act journaled before its answer when
 * asked; and every message that reaches it in one TCP segment is handed
 * over by its own loop; and the load client's turns end when it asks,
 * though its loop's clock is stale.  Servers on 127.0.0.1 port 0; no
 * timing.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "floor.h"
#include "saves.h"
#include "serve_process.h"
#include "server.h"
#include "tconn.h"
#include "wsclient.h"

static void test_floor_batches_keep_each_step_in_order(void **state)
{
    (void)state;
    struct cas__floor_game g = {0};
    size_t first;
    assert_int_equal(cas__floor_game_add(&g, 0, 0, "a", 1), CAS_OK);
    assert_int_equal(cas__floor_game_add(&g, 1, 0, "b", 1), CAS_OK);
    assert_int_equal(cas__floor_game_add(&g, 0, 2, "cc", 2), CAS_OK);
    assert_int_equal(cas__floor_game_add(&g, 0, 2, "d", 1), CAS_OK);
    assert_int_equal(cas__floor_game_add(&g, 0, 1, "late", 4), CAS_EINVAL);
    assert_int_equal(cas__floor_game_add(&g, 2, 3, "no seat", 7), CAS_EINVAL);
    assert_int_equal(cas__floor_batch(&g, 0, 0, &first), 1);
    assert_string_equal(g.seat[0].msgs[first].text, "a");
    assert_int_equal(cas__floor_batch(&g, 0, 1, &first), 0);
    assert_int_equal(cas__floor_batch(&g, 0, 2, &first), 2);
    assert_string_equal(g.seat[0].msgs[first].text, "cc");
    assert_int_equal(g.seat[0].msgs[first].len, 2);
    assert_string_equal(g.seat[0].msgs[first + 1].text, "d");
    assert_int_equal(cas__floor_batch(&g, 1, 0, &first), 1);
    assert_string_equal(g.seat[1].msgs[first].text, "b");
    assert_int_equal(cas__floor_batch(&g, 1, 2, &first), 0);
    cas__floor_game_free(&g);
    assert_int_equal(g.seat[0].n, 0);
}

/* The bare server, served on a thread of its own until stopped. */
struct bare {
    struct cas__floor_server *srv;
    int port, stop;
    pthread_t thread;
};

static void *serve(void *arg)
{
    struct bare *b = arg;
    while (!__atomic_load_n(&b->stop, __ATOMIC_ACQUIRE))
        cas__floor_server_turn(b->srv); /* its 100 ms timer bounds each turn */
    return NULL;
}

static void bare_start(struct bare *b, const struct cas__floor_game *g, int plain,
                       const char *journal)
{
    const struct cas__floor_server_opts o = {.game = g, .listen = "127.0.0.1:0", .plain = plain,
                                             .max_games = 8, .journal = journal};
    char err[256];
    memset(b, 0, sizeof *b);
    if (cas__floor_server_start(&o, &b->srv, &b->port, err, sizeof err) != CAS_OK)
        fail_msg("the bare server did not start: %s", err);
    assert_int_equal(pthread_create(&b->thread, NULL, serve, b), 0);
}

static void bare_stop(struct bare *b, struct cas__floor_counts *counts)
{
    __atomic_store_n(&b->stop, 1, __ATOMIC_RELEASE);
    pthread_join(b->thread, NULL);
    cas__floor_server_counts(b->srv, counts);
    cas__floor_server_free(b->srv);
}

/* Every message of a and b the same, seat by seat and step by step. */
static void assert_same_game(const struct cas__floor_game *a, const struct cas__floor_game *b)
{
    assert_int_equal(a->moves, b->moves);
    for (int seat = 0; seat < 2; seat++) {
        assert_int_equal(a->seat[seat].n, b->seat[seat].n);
        for (size_t i = 0; i < a->seat[seat].n; i++) {
            const struct cas__floor_msg *x = &a->seat[seat].msgs[i], *y = &b->seat[seat].msgs[i];
            assert_int_equal(x->step, y->step);
            assert_int_equal(x->len, y->len);
            assert_memory_equal(x->text, y->text, x->len);
        }
    }
}

static size_t messages_of(const struct cas__floor_game *g)
{
    return g->seat[0].n + g->seat[1].n;
}

/* The game recorded again from a bare server replaying real (plain: not
 * compressed) is real, message for message; the server's counts. */
static void replays_the_same(const struct cas__floor_game *real, int plain,
                             struct cas__floor_counts *counts)
{
    struct bare b;
    struct cas__floor_game again;
    char err[320];
    bare_start(&b, real, plain, NULL);
    int rc = cas__floor_record(b.port, "fixture", NULL, 5, SIZE_MAX, &again, err, sizeof err);
    bare_stop(&b, counts);
    if (rc != CAS_OK)
        fail_msg("recording from the bare server%s: %s", plain ? ", plain" : "", err);
    assert_same_game(real, &again);
    assert_int_equal(counts->moves, real->moves);
    assert_int_equal(counts->messages, messages_of(real) + 1); /* and "created" */
    cas__floor_game_free(&again);
}

static void test_floor_server_replays_a_recorded_game_and_journals_each_act(void **state)
{
    (void)state;
    struct serve_process p;
    struct cas__floor_game real;
    struct cas__floor_counts deflated, plain;
    struct bare b;
    char err[320];
    size_t first;
    serve_forget("floor");
    serve_start(&p, "floor", NULL);
    int rc = cas__floor_record(p.port, "fixture", NULL, 5, SIZE_MAX, &real, err, sizeof err);
    assert_int_equal(serve_stop(&p), 0);
    if (rc != CAS_OK)
        fail_msg("recording from castellan serve: %s", err);
    /* A whole game: each seat was sent its state at its join, and
     * something after every move; the last is the end. */
    assert_true(real.moves > 2);
    for (int seat = 0; seat < 2; seat++) {
        assert_true(cas__floor_batch(&real, seat, 0, &first) >= 1);
        assert_memory_equal(real.seat[seat].msgs[first].text, "{\"type\":\"state\"", 15);
        for (size_t step = 1; step <= real.moves; step++)
            assert_true(cas__floor_batch(&real, seat, step, &first) >= 1);
        const struct cas__floor_seat *s = &real.seat[seat];
        assert_non_null(strstr(s->msgs[s->n - 1].text, "\"over\":true"));
    }

    /* The bare server, played the same way, sends each seat exactly what
     * castellan serve sent it, move for move: compressed, and plain in
     * more bytes. */
    replays_the_same(&real, 0, &deflated);
    replays_the_same(&real, 1, &plain);
    assert_true(plain.bytes > deflated.bytes);

    /* The load client plays the games against it, as against serve;
     * with a journal, every act is in the store before its answer.  The
     * run stops at its move bound, one act short of the three games'
     * end, so one game goes on and two are over; it then reads every
     * answer to the acts it sent, the other seat's last update too (when
     * it stopped at its last act sent, that update could still be on its
     * way, then counted neither as over nor in the bytes read). */
    struct cas__loadgen_result r;
    struct cas__floor_counts journaled;
    const size_t acts = 3 * real.moves - 1;
    struct cas__loadgen_params params = {.game = "fixture", .seed = 5, .games = 3,
                                         .max_moves = acts, .max_seconds = 120, .wire = 1};
    char db[700];
    snprintf(db, sizeof db, "%s/journal.db", p.dir);
    tconn_fresh_db(db);
    bare_start(&b, &real, 0, db);
    params.port = b.port;
    rc = cas__loadgen_run(&params, &r);
    bare_stop(&b, &journaled);
    assert_int_equal(rc, CAS_OK);
    if (r.errors)
        fail_msg("%llu errors, the first: %s", (unsigned long long)r.errors, r.first_error);
    assert_int_equal(r.games_over, 2);
    assert_int_equal(r.moves, acts);
    assert_int_equal(r.answered, acts);
    assert_int_equal(journaled.moves, acts);
    assert_int_equal(journaled.journaled, acts);
    assert_true(r.updates > 0);
    /* Its count of the bytes on the wire is the server's, to the byte:
     * every frame written (the creates' answers too) was read. */
    assert_int_equal(r.bytes_read, journaled.bytes);
    assert_true(r.wire_median > 0 && r.wire_median < r.raw_median);

    struct cas__saves *store;
    int64_t *ids;
    size_t n, stored = 0;
    assert_int_equal(cas__saves_open(db, &store, err, sizeof err), CAS_OK);
    assert_int_equal(cas__saves_game_ids(store, NULL, &ids, &n), CAS_OK);
    assert_int_equal(n, 3);
    for (size_t i = 0; i < n; i++) {
        struct cas__saves_game g;
        assert_int_equal(cas__saves_game_load(store, ids[i], 1, &g), CAS_OK);
        assert_true(g.n_actions == real.moves || g.n_actions == real.moves - 1);
        assert_int_equal(g.actions[0].ply, 0);
        stored += g.n_actions;
        cas__saves_game_free(&g);
    }
    assert_int_equal(stored, acts);
    free(ids);
    cas__saves_close(store);
    cas__floor_game_free(&real);
}

/* Creates that reach the bare server in one segment, each behind acts
 * that get no answer (no game joined), are all answered with nothing more
 * from the client: libwebsockets hands over one message per connection
 * per pass and keeps the rest, so the server's loop must hand them over
 * itself, not leave them for another socket's event (under the load
 * measure moves stalled for it).  As test_serve_burst does for serve. */
static void test_floor_server_answers_every_message_of_one_segment(void **state)
{
    (void)state;
    enum { CREATES = 6, SILENT = 2 };
    struct cas__floor_game g = {0};
    struct cas__floor_counts counts;
    struct serve_process p = {0};
    struct bare b;
    unsigned char burst[CREATES * (SILENT + 1) * 128];
    char text[128], want[32];
    size_t len = 0;
    bare_start(&b, &g, 1, NULL);
    p.port = b.port;
    int fd = serve_open_websocket(&p);
    for (int i = 0; i < CREATES; i++) {
        for (int j = 0; j < SILENT; j++)
            len += serve_client_frame(burst + len, 0x1, "{\"type\":\"act\",\"ply\":0}");
        len += serve_client_frame(burst + len, 0x1, "{\"type\":\"create\"}");
    }
    assert_int_equal(send(fd, burst, len, MSG_NOSIGNAL), (ssize_t)len);
    for (int i = 1; i <= CREATES; i++) {
        serve_next_text(fd, text, sizeof text);
        snprintf(want, sizeof want, "\"game\":\"%d\"", i);
        assert_memory_equal(text, "{\"type\":\"created\"", 17);
        assert_non_null(strstr(text, want));
    }
    close(fd);
    bare_stop(&b, &counts);
    assert_int_equal(counts.messages, CREATES);
    assert_int_equal(counts.moves, 0);
}

static void note_open(struct cas__wsc_conn *c, void *user)
{
    (void)c;
    *(int *)user = 1;
}

/* The load client's turn given a timeout ends by its wake though the
 * loop's clock is stale when the turn begins (the caller did other work
 * since the last turn; libuv reads its clock once a turn): the wake is
 * due by then and fires before the wait, and must still bound the wait.
 * With a wake that did not repeat, that wait lasted until libwebsockets'
 * next timer (~30 s) against a quiet server, and acts due sat unsent (the
 * floor measure's stall).  The bare server with no game is quiet.  No
 * timing: the client counts the waits it began with no wake pending. */
static void test_load_client_wakes_though_its_clock_is_stale(void **state)
{
    (void)state;
    enum { TURNS = 20 };
    struct cas__floor_game g = {0};
    struct cas__floor_counts counts;
    struct cas__wsc_events events = {.open = note_open};
    struct cas__wsc_wakes wakes;
    struct cas__wsc *w;
    struct cas__wsc_conn *c;
    struct bare b;
    int open = 0;
    bare_start(&b, &g, 1, NULL);
    assert_int_equal(cas__wsc_new(&events, &w), CAS_OK);
    if (strcmp(cas__wsc_event_loop(w), "libuv") != 0) {
        cas__wsc_free(w);
        bare_stop(&b, &counts);
        skip(); /* the wake is libuv's */
    }
    assert_int_equal(cas__wsc_connect(w, "127.0.0.1", b.port, &open, &c), CAS_OK);
    for (int turns = 0; !open && turns < 6000; turns++) /* 60 s at most */
        cas__wsc_service(w, 10);
    assert_true(open);
    cas__wsc_wakes(w, &wakes);
    uint64_t before = wakes.before_wait;
    for (int i = 0; i < TURNS; i++) {
        /* Longer than the turn's timeout, so its wake is due at once. */
        const struct timespec busy = {0, 5 * 1000 * 1000};
        nanosleep(&busy, NULL);
        cas__wsc_service_us(w, 1000);
        cas__wsc_wakes(w, &wakes);
        assert_int_equal(wakes.unwoken_waits, 0);
    }
    /* Every turn met the case: its wake fired before it waited. */
    assert_int_equal(wakes.before_wait - before, TURNS);
    cas__wsc_free(w);
    cas__wsc_conn_free(c);
    bare_stop(&b, &counts);
    assert_int_equal(counts.messages, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_floor_batches_keep_each_step_in_order),
        cmocka_unit_test(test_floor_server_replays_a_recorded_game_and_journals_each_act),
        cmocka_unit_test(test_floor_server_answers_every_message_of_one_segment),
        cmocka_unit_test(test_load_client_wakes_though_its_clock_is_stale),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
