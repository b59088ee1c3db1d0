/*
 * test_sleep.c — a game nobody follows sleeps (host/server/sleep.c), in
 * process, without timing: the trigger is the last follower leaving (and
 * a game nobody has joined yet), driven here by the test's connections.
 * Two Carcassonne games are played alike, move for move; the one whose
 * last follower leaves sleeps (its states as bytes, its views' pictures
 * and messages gone), the other is kept awake by a watcher.  Whoever
 * comes back to the sleeping one gets exactly the bytes the awake one
 * sends: the full state, a seat's resume (which falls back to the full
 * state, its history gone, as docs/server.md allows), the undo of a
 * decision taken before the sleep, and every update after.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "loop_guard.h"
#include "saves.h"
#include "table.h"
#include "tconn.h"
#include "wsclient.h"

static void world_close(struct tconn_world *w)
{
    assert_int_equal(cas__loop_slow_calls(), 0); /* the loop's code made no plugin call */
    cas__lobby_close(&w->lobby);
    cas__saves_close(w->store);
}

static int64_t seq_of(const char *msg)
{
    const char *at = strstr(msg, "\"seq\":");
    assert_non_null(at);
    return strtoll(at + 6, NULL, 10);
}

/* One game of two people, both seats joined, and a watcher. */
struct game {
    int64_t id;
    uint64_t seq0;       /* its first message number (from the wall clock's µs) */
    struct cas__table *t;
    struct tconn seats[2], watcher;
    char tokens[2][64];
};

static void create(struct tconn_world *w, struct game *g)
{
    struct tconn c;
    tconn_init(&c);
    tconn_sayf(&w->lobby, &c, "{\"type\":\"create\",\"game\":\"carcassonne\",\"seed\":\"5\","
               "\"practice\":true,\"seats\":[{\"name\":\"Ada\",\"agent\":\"human\"},"
               "{\"name\":\"Bob\",\"agent\":\"human\"}]}");
    const char *at = strstr(tconn_last(&c), "\"game\":\"");
    if (!at || strncmp(tconn_last(&c), "{\"type\":\"created\"", 17) != 0)
        fail_msg("create failed: %s", tconn_last(&c));
    g->id = strtoll(at + 8, NULL, 10);
    for (int i = 0; i < 2; i++) {
        char key[48];
        snprintf(key, sizeof key, "{\"seat\":%d,\"token\":\"", i);
        at = strstr(tconn_last(&c), key);
        assert_non_null(at);
        sscanf(at + strlen(key), "%63[^\"]", g->tokens[i]);
    }
    tconn_close(&w->lobby, &c);
    g->t = cas__lobby_find(&w->lobby, g->id);
    assert_non_null(g->t);
    g->seq0 = g->t->seq;
}

static void join_seat(struct tconn_world *w, struct game *g, struct tconn *c, int seat,
                      int64_t since)
{
    tconn_init(c);
    if (since >= 0)
        tconn_sayf(&w->lobby, c, "{\"type\":\"join\",\"game\":\"%lld\",\"seat\":%d,\"token\":"
                   "\"%s\",\"since\":%lld}", (long long)g->id, seat, g->tokens[seat],
                   (long long)since);
    else
        tconn_sayf(&w->lobby, c, "{\"type\":\"join\",\"game\":\"%lld\",\"seat\":%d,\"token\":"
                   "\"%s\"}", (long long)g->id, seat, g->tokens[seat]);
}

static void watch(struct tconn_world *w, struct game *g, struct tconn *c)
{
    tconn_init(c);
    tconn_sayf(&w->lobby, c, "{\"type\":\"join\",\"game\":\"%lld\"}", (long long)g->id);
}

/* c goes, and the loop's turn ends (its flush). */
static void leave(struct tconn_world *w, struct tconn *c)
{
    tconn_close(&w->lobby, c);
    cas__lobby_flush(&w->lobby);
}

/* The deciding seat (of those in seats, NULL: not connected) plays its
 * first legal action; the seat, or -1 when none decides. */
static int play_first(struct tconn_world *w, struct tconn *seats[2])
{
    return tconn_play_first(&w->lobby, seats, 2);
}

/* msg of game g with its number written as "G" and its message numbers
 * counted from its first, so two games' messages compare (caller frees). */
static char *plain(const char *msg, const struct game *g)
{
    char game[48];
    snprintf(game, sizeof game, "\"game\":\"%lld\"", (long long)g->id);
    size_t lg = strlen(game);
    char *out = malloc(strlen(msg) + 1), *o = out;
    assert_non_null(out);
    for (const char *p = msg; *p;) {
        if (strncmp(p, game, lg) == 0) {
            o += sprintf(o, "\"game\":\"G\"");
            p += lg;
        } else if (strncmp(p, "\"seq\":", 6) == 0) {
            char *end;
            uint64_t seq = strtoull(p + 6, &end, 10);
            assert_true(seq >= g->seq0);
            o += sprintf(o, "\"seq\":%llu", (unsigned long long)(seq - g->seq0));
            p = end;
        } else {
            *o++ = *p++;
        }
    }
    *o = '\0';
    return out;
}

/* Connections a (of game ga) and b (of gb) got the same messages from
 * index from on, but for the game's number. */
static void same_since(const struct tconn *a, const struct game *ga, const struct tconn *b,
                       const struct game *gb, size_t from_a, size_t from_b)
{
    assert_int_equal(a->n - from_a, b->n - from_b);
    for (size_t i = 0; i < a->n - from_a; i++) {
        char *x = plain(a->msgs[from_a + i], ga), *y = plain(b->msgs[from_b + i], gb);
        assert_string_equal(x, y);
        free(x);
        free(y);
    }
}

static int all_released(const struct cas__table *t)
{
    for (int i = 0; i <= t->nplayers; i++)
        if (t->views[i].pic.store || t->views[i].full || t->views[i].text ||
            t->views[i].n_history || t->views[i].seq)
            return 0;
    return 1;
}

static void test_a_game_nobody_follows_sleeps_and_wakes_the_same(void **state)
{
    (void)state;
    struct tconn_world w;
    struct game g[2]; /* g[0] sleeps, g[1] is kept awake */
    tconn_world_open(&w, "sleep_same.db");
    for (int k = 0; k < 2; k++) {
        create(&w, &g[k]);
        assert_true(cas__table_asleep(g[k].t)); /* nobody has joined */
        for (int i = 0; i < 2; i++)
            join_seat(&w, &g[k], &g[k].seats[i], i, -1);
        watch(&w, &g[k], &g[k].watcher);
        assert_false(cas__table_asleep(g[k].t));
    }
    /* Both played alike, up to a decision that may be taken back (a
     * placement, its figure to come): the state before it is kept. */
    for (int moves = 0; moves < 6 || g[0].t->r.session.undo.count == 0; moves++) {
        for (int k = 0; k < 2; k++) {
            struct tconn *seats[2] = {&g[k].seats[0], &g[k].seats[1]};
            assert_true(play_first(&w, seats) >= 0);
        }
        assert_true(moves < 40);
    }
    int undoer = g[0].t->r.session.undo.actor;
    assert_true(undoer == 0 || undoer == 1);
    assert_int_equal(g[1].t->r.session.undo.count, g[0].t->r.session.undo.count);
    /* The last message each watcher holds, before the seats leave. */
    int64_t held[2] = {seq_of(tconn_last_state(&g[0].watcher)), seq_of(tconn_last_state(&g[1].watcher))};
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < 2; i++)
            leave(&w, &g[k].seats[i]);
    assert_false(cas__table_asleep(g[0].t)); /* its watcher follows it still */
    leave(&w, &g[0].watcher);
    assert_true(cas__table_asleep(g[0].t));
    assert_null(g[0].t->r.session.state);
    assert_true(all_released(g[0].t));
    assert_false(cas__table_asleep(g[1].t));

    /* The watcher resumes after the last message it held: the awake game
     * sends the updates since (the seats leaving), the one that slept the
     * full state (its history is gone), the very bytes a fresh watcher
     * gets from the awake one. */
    struct tconn back[2], seat[2], fresh;
    for (int k = 0; k < 2; k++) {
        tconn_init(&back[k]);
        tconn_sayf(&w.lobby, &back[k], "{\"type\":\"join\",\"game\":\"%lld\",\"since\":%lld}",
                   (long long)g[k].id, (long long)held[k]);
    }
    assert_false(cas__table_asleep(g[0].t));
    assert_int_equal(back[0].n, 1);
    assert_int_equal(strncmp(back[0].msgs[0], "{\"type\":\"state\"", 15), 0);
    assert_int_equal(back[1].n, 2);
    for (size_t i = 0; i < back[1].n; i++)
        assert_int_equal(strncmp(back[1].msgs[i], "{\"type\":\"update\"", 16), 0);
    watch(&w, &g[1], &fresh);
    same_since(&back[0], &g[0], &fresh, &g[1], 0, 0);
    leave(&w, &fresh);
    assert_true(g[0].t->r.match.vt->hash(g[0].t->r.session.state) ==
                g[1].t->r.match.vt->hash(g[1].t->r.session.state));

    /* The seat that may take its decision back comes back: the same full
     * state, and the watchers the same update. */
    size_t from_back[2] = {back[0].n, back[1].n};
    for (int k = 0; k < 2; k++)
        join_seat(&w, &g[k], &seat[k], undoer, -1);
    assert_int_equal(seat[0].n, 1);
    same_since(&seat[0], &g[0], &seat[1], &g[1], 0, 0);
    same_since(&back[0], &g[0], &back[1], &g[1], from_back[0], from_back[1]);

    /* The decision kept before the sleep is taken back alike, and the
     * game goes on alike. */
    size_t from[2] = {seat[0].n, seat[1].n};
    from_back[0] = back[0].n;
    from_back[1] = back[1].n;
    for (int k = 0; k < 2; k++)
        tconn_sayf(&w.lobby, &seat[k], "{\"type\":\"undo\",\"game\":\"%lld\"}",
                   (long long)g[k].id);
    assert_true(seat[0].n > from[0]);
    same_since(&seat[0], &g[0], &seat[1], &g[1], from[0], from[1]);
    same_since(&back[0], &g[0], &back[1], &g[1], from_back[0], from_back[1]);
    from[0] = seat[0].n;
    from[1] = seat[1].n;
    for (int k = 0; k < 2; k++) {
        struct tconn *seats[2] = {undoer == 0 ? &seat[k] : NULL, undoer == 1 ? &seat[k] : NULL};
        assert_int_equal(play_first(&w, seats), undoer);
    }
    same_since(&seat[0], &g[0], &seat[1], &g[1], from[0], from[1]);
    same_since(&back[0], &g[0], &back[1], &g[1], from_back[0], from_back[1]);
    assert_true(g[0].t->r.match.vt->hash(g[0].t->r.session.state) ==
                g[1].t->r.match.vt->hash(g[1].t->r.session.state));
    leave(&w, &g[1].watcher);
    for (int k = 0; k < 2; k++) {
        leave(&w, &seat[k]);
        leave(&w, &back[k]);
        assert_true(cas__table_asleep(g[k].t)); /* nobody follows either now */
    }
    world_close(&w);
}

/* A game someone follows stays awake, whoever leaves first (its views
 * keep no full state of an earlier message); the last one to leave puts
 * it to sleep; coming back wakes it, and its moves are played and
 * journaled as ever. */
static void test_who_keeps_a_game_awake(void **state)
{
    (void)state;
    struct tconn_world w;
    struct game g;
    tconn_world_open(&w, "sleep_awake.db");
    create(&w, &g);
    assert_true(cas__table_asleep(g.t));
    join_seat(&w, &g, &g.seats[0], 0, -1);
    assert_false(cas__table_asleep(g.t));
    assert_non_null(g.t->r.session.state);
    /* A seat that follows it: awake across moves. */
    join_seat(&w, &g, &g.seats[1], 1, -1);
    struct tconn *seats[2] = {&g.seats[0], &g.seats[1]};
    for (int i = 0; i < 4; i++) {
        assert_true(play_first(&w, seats) >= 0);
        assert_false(cas__table_asleep(g.t));
        /* A followed view keeps its picture and history, but no full
         * state older than the last message (it is never sent again). */
        for (int v = 0; v < 2; v++) {
            assert_non_null(g.t->views[v].pic.store);
            assert_true(g.t->views[v].n_history > 0);
            assert_true(!g.t->views[v].full || g.t->views[v].full_seq == g.t->seq);
        }
    }
    leave(&w, &g.seats[1]);
    assert_false(cas__table_asleep(g.t));
    leave(&w, &g.seats[0]);
    assert_true(cas__table_asleep(g.t));
    /* Woken and slept again, with nothing lost: the seat that comes back
     * plays on. */
    join_seat(&w, &g, &g.seats[0], 0, -1);
    join_seat(&w, &g, &g.seats[1], 1, -1);
    uint32_t ply = g.t->r.session.ply;
    assert_true(play_first(&w, seats) >= 0);
    assert_int_equal(g.t->r.session.ply, ply + 1);
    assert_int_equal(g.t->j.saved, ply + 1);
    leave(&w, &g.seats[0]);
    leave(&w, &g.seats[1]);
    assert_true(cas__table_asleep(g.t));
    world_close(&w);
}

/* Whether m is a "stopped" message of game g that says why. */
static int says_stopped(const char *m, const struct game *g)
{
    char head[96];
    snprintf(head, sizeof head, "{\"type\":\"stopped\",\"game\":\"%lld\",\"failure\":\"",
             (long long)g->id);
    return strncmp(m, head, strlen(head)) == 0 &&
           strstr(m, "did not come back whole from its serialized bytes") &&
           strstr(m, "castellan resume");
}

/* A game whose serialized state is corrupt (injected here) cannot wake:
 * it is stopped, and whoever comes to it is told so in a message of its
 * own — a seat, a seat that resumes, a watcher — where nothing else could
 * be built; a seat's move is refused with the same words.  Nothing reads
 * the state it does not have, and it stays asleep. */
static void test_a_game_that_cannot_wake_tells_its_viewers(void **state)
{
    (void)state;
    struct tconn_world w;
    struct game g;
    tconn_world_open(&w, "sleep_corrupt.db");
    create(&w, &g);
    join_seat(&w, &g, &g.seats[0], 0, -1);
    join_seat(&w, &g, &g.seats[1], 1, -1);
    struct tconn *seats[2] = {&g.seats[0], &g.seats[1]};
    for (int i = 0; i < 2; i++)
        assert_true(play_first(&w, seats) >= 0);
    int64_t held = seq_of(tconn_last_state(&g.seats[0]));
    uint32_t ply = g.t->r.session.ply;
    leave(&w, &g.seats[0]);
    leave(&w, &g.seats[1]);
    assert_true(cas__table_asleep(g.t));
    /* The session state's bytes cut short. */
    assert_true(g.t->sleep->n >= 1 && g.t->sleep->bytes[0].len > 1);
    g.t->sleep->bytes[0].len = 1;

    struct tconn back, watcher, seat;
    join_seat(&w, &g, &seat, 1, -1);
    assert_int_equal(seat.n, 1);
    assert_true(says_stopped(seat.msgs[0], &g));
    assert_non_null(cas__table_failure(g.t));
    assert_true(cas__table_asleep(g.t));
    assert_null(g.t->r.session.state);
    join_seat(&w, &g, &back, 0, held);
    assert_int_equal(back.n, 1);
    assert_true(says_stopped(back.msgs[0], &g));
    watch(&w, &g, &watcher);
    assert_int_equal(watcher.n, 1);
    assert_true(says_stopped(watcher.msgs[0], &g));
    /* Those told are not told again when another comes. */
    assert_int_equal(seat.n, 1);
    assert_int_equal(back.n, 1);
    /* A move, or anything a seat asks, is refused: the game stopped. */
    tconn_sayf(&w.lobby, &seat, "{\"type\":\"act\",\"game\":\"%lld\",\"ply\":%u,"
               "\"action\":\"pass\"}", (long long)g.id, (unsigned)ply);
    assert_int_equal(seat.n, 2);
    assert_non_null(strstr(tconn_last(&seat), "{\"type\":\"error\""));
    assert_non_null(strstr(tconn_last(&seat), "\"code\":\"internal\""));
    assert_non_null(strstr(tconn_last(&seat), "stopped: the game's state did not come back whole"));
    assert_int_equal(g.t->r.session.ply, ply);
    tconn_sayf(&w.lobby, &back, "{\"type\":\"hint\",\"game\":\"%lld\"}", (long long)g.id);
    assert_int_equal(back.n, 2);
    assert_non_null(strstr(tconn_last(&back), "\"code\":\"internal\""));
    assert_non_null(strstr(tconn_last(&back), "stopped: "));
    assert_true(cas__table_asleep(g.t));
    leave(&w, &seat);
    leave(&w, &back);
    leave(&w, &watcher);
    world_close(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_game_nobody_follows_sleeps_and_wakes_the_same),
        cmocka_unit_test(test_who_keeps_a_game_awake),
        cmocka_unit_test(test_a_game_that_cannot_wake_tells_its_viewers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
