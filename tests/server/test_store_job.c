/*
 * test_store_job.c — castellan serve's store calls on the store's thread
 * (host/server/store_job.c), in process, on SQLite and (as
 * test_store_job_pg) PostgreSQL: a store that takes its time stalls only
 * who waits for it.  The test is the loop: it handles the requests and
 * delivers the writers' answers when they wake it.  No timing: the
 * store's thread is held inside the one call the test names (a create's
 * insert, a seat's claim, the recent games' query) until the test lets it
 * go, and the test knows it is held there; meanwhile another game plays
 * and the lobby answers, the asker's later requests wait in order, and
 * the loop's guard (loop_guard.h) counts no store call of its own.
 */
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "saves_fixture.h"
#include "loop_guard.h"
#include "table.h"
#include "tconn.h"
#include "wsclient.h"

#define MOVES 6

/* ---------------------------------------------------------- the loop */

struct world {
    char where[512];
    struct cas__saves *store;
    struct cas__lobby lobby;
};

/* A lobby with the journal's writer and the store's thread, as serve. */
static void world_open(struct world *w, void **state)
{
    char err[1024];
    cas_test_store_where(state, "jobs.db", w->where, sizeof w->where);
    w->store = cas_test_open(w->where);
    assert_int_equal(cas__lobby_open(&w->lobby, w->store, NULL, NULL, NULL, NULL, err,
                                     sizeof err), CAS_OK);
    tconn_hold_install();
    tconn_wake_open();
    assert_int_equal(cas__saves_writer_open(w->where, tconn_wake, NULL, &w->lobby.writer, err,
                                            sizeof err), CAS_OK);
    assert_int_equal(cas__saves_writer_start(w->lobby.writer), CAS_OK);
    assert_int_equal(cas__saves_writer_open(w->where, tconn_wake, NULL, &w->lobby.store_thread, err,
                                            sizeof err), CAS_OK);
    assert_int_equal(cas__saves_writer_start(w->lobby.store_thread), CAS_OK);
}

static void world_close(struct world *w)
{
    /* The loop's code made no plugin call and no store call of its own. */
    assert_int_equal(cas__loop_slow_calls(), 0);
    assert_int_equal(cas__loop_store_calls(), 0);
    cas__store_stop(&w->lobby);
    cas__saves_writer_stop(w->lobby.writer);
    w->lobby.writer = NULL;
    tconn_hold_remove();
    cas__lobby_close(&w->lobby);
    cas__saves_close(w->store);
    tconn_wake_close();
}

/* One turn of the loop: wait for a wake (at most wait_ms), deliver the
 * writers' answers, send what is owed.  1 when woken. */
static int turn(void *loop, int wait_ms)
{
    struct world *w = loop;
    int woken = tconn_await_wake(wait_ms);
    cas__journal_deliver(&w->lobby);
    cas__lobby_flush(&w->lobby);
    return woken;
}

/* Turn the loop until c has more than n messages. */
static void await_message(struct world *w, const struct tconn *c, size_t n)
{
    tconn_await_message(c, n, turn, w);
}

static int held_now(void *unused)
{
    (void)unused;
    return tconn_hold_held();
}

/* Turn the loop until the store's thread is held in the armed call (the
 * hook wakes the loop when it is). */
static void await_held(struct world *w)
{
    tconn_await(held_now, NULL, turn, w, "the store's thread in the armed call");
}

/* ------------------------------------------------------------ games */

/* The game c's create request made (its first message), and the token of
 * seat `seat` into token (NULL: not wanted). */
static int64_t created(const struct tconn *c, int seat, char token[64])
{
    const char *at = strstr(c->msgs[0], "\"game\":\"");
    if (!at || !strstr(c->msgs[0], "\"type\":\"created\""))
        fail_msg("create failed: %s", c->msgs[0]);
    int64_t id = strtoll(at + 8, NULL, 10);
    if (token) {
        char key[48];
        snprintf(key, sizeof key, "{\"seat\":%d,\"token\":\"", seat);
        assert_non_null(at = strstr(c->msgs[0], key));
        sscanf(at + strlen(key), "%63[^\"]", token);
    }
    return id;
}

static const char two_people[] =
    "{\"type\":\"create\",\"game\":\"fixture\",\"practice\":true,\"seed\":\"5\","
    "\"seats\":[{\"agent\":\"human\"},{\"agent\":\"human\"}]}";

/* A fixture game for two people, both seated. */
static int64_t seated(struct world *w, struct tconn seats[2])
{
    struct tconn c;
    char tokens[2][64];
    tconn_init(&c);
    tconn_sayf(&w->lobby, &c, "%s", two_people);
    await_message(w, &c, 0);
    int64_t id = created(&c, 0, tokens[0]);
    created(&c, 1, tokens[1]);
    tconn_free(&c);
    for (int i = 0; i < 2; i++) {
        tconn_init(&seats[i]);
        tconn_sayf(&w->lobby, &seats[i], "{\"type\":\"join\",\"game\":\"%lld\",\"seat\":%d,"
                   "\"token\":\"%s\"}", (long long)id, i, tokens[i]);
        await_message(w, &seats[i], 0);
    }
    return id;
}

/* The deciding seat of game id plays its first legal action, and both
 * seats see the move (durable: through the journal's writer). */
static void play_a_move(struct world *w, int64_t id, struct tconn seats[2])
{
    struct cas__table *t = cas__lobby_find(&w->lobby, id);
    int actor = t->hold.actor;
    assert_true(actor == 0 || actor == 1);
    size_t seen[2] = {seats[0].n, seats[1].n};
    struct cas__botclient_view v;
    char text[1024];
    const char *m = seats[actor].msgs[seats[actor].n - 1];
    assert_int_equal(cas__botclient_read(m, strlen(m), &v), CAS_OK);
    assert_true(cas__botclient_act(&v, 0, text, sizeof text));
    cas__botclient_view_free(&v);
    tconn_sayf(&w->lobby, &seats[actor], "%s", text);
    for (int i = 0; i < 2; i++) {
        await_message(w, &seats[i], seen[i]);
        assert_non_null(strstr(seats[i].msgs[seats[i].n - 1], "\"played\":[{\"ply\":"));
    }
}

/* While the store's thread is held: another game plays MOVES moves, and
 * the lobby answers at once. */
static void others_go_on(struct world *w, int64_t id, struct tconn seats[2])
{
    struct tconn lobby;
    for (int k = 0; k < MOVES; k++)
        play_a_move(w, id, seats);
    tconn_init(&lobby);
    tconn_sayf(&w->lobby, &lobby, "{\"type\":\"lobby\"}");
    assert_int_equal(lobby.n, 1);
    assert_non_null(strstr(lobby.msgs[0], "\"type\":\"lobby\""));
    tconn_close(&w->lobby, &lobby);
    assert_true(tconn_hold_held());
}

/* ------------------------------------------------------------ tests */

/* Issue 42 item 4: a create's insert waits on the store's thread; the
 * creator's ping waits behind it; let go, "created" then "pong". */
static void test_a_slow_insert_stalls_only_its_creator(void **state)
{
    struct world w;
    struct tconn other[2], creator;
    world_open(&w, state);
    int64_t other_id = seated(&w, other);
    size_t tables = w.lobby.n_tables;
    tconn_hold_arm("game_put");
    tconn_init(&creator);
    tconn_sayf(&w.lobby, &creator, "%s", two_people);
    tconn_sayf(&w.lobby, &creator, "{\"type\":\"ping\"}");
    await_held(&w);
    others_go_on(&w, other_id, other);
    assert_int_equal(creator.n, 0);
    assert_int_equal(w.lobby.n_tables, tables); /* not a game yet */

    tconn_hold_let_go();
    await_message(&w, &creator, 0);
    int64_t id = created(&creator, 0, NULL);
    await_message(&w, &creator, 1);
    assert_non_null(strstr(creator.msgs[1], "\"type\":\"pong\""));
    assert_non_null(cas__lobby_find(&w.lobby, id));
    tconn_close(&w.lobby, &creator);
    for (int i = 0; i < 2; i++) {
        tconn_close(&w.lobby, &other[i]);
    }
    world_close(&w);
}

/* A seat's claim waits on the store's thread, its game held: a watcher's
 * join waits for it, and a second claim of the same seat, in order after
 * it, finds it taken. */
static void test_a_slow_claim_holds_only_its_game(void **state)
{
    struct world w;
    struct tconn other[2], maker, claimer, rival, watcher;
    world_open(&w, state);
    int64_t other_id = seated(&w, other);
    tconn_init(&maker);
    tconn_sayf(&w.lobby, &maker, "{\"type\":\"create\",\"game\":\"fixture\",\"practice\":true,"
               "\"seed\":\"5\",\"seats\":[{\"agent\":\"human\"},{\"agent\":\"open\"}]}");
    await_message(&w, &maker, 0);
    int64_t id = created(&maker, 0, NULL);
    char claim[160];
    snprintf(claim, sizeof claim, "{\"type\":\"claim\",\"game\":\"%lld\",\"seat\":1,"
             "\"name\":\"Cleo\"}", (long long)id);
    tconn_hold_arm("served_claim");
    tconn_init(&claimer);
    tconn_init(&rival);
    tconn_init(&watcher);
    tconn_sayf(&w.lobby, &claimer, "%s", claim);
    tconn_sayf(&w.lobby, &claimer, "{\"type\":\"ping\"}");
    tconn_sayf(&w.lobby, &rival, "%s", claim);
    tconn_sayf(&w.lobby, &watcher, "{\"type\":\"join\",\"game\":\"%lld\"}", (long long)id);
    await_held(&w);
    others_go_on(&w, other_id, other);
    assert_true(cas__table_held(cas__lobby_find(&w.lobby, id)));
    assert_int_equal(claimer.n, 0);
    assert_int_equal(rival.n, 0);
    assert_int_equal(watcher.n, 0);

    tconn_hold_let_go();
    await_message(&w, &claimer, 0);
    assert_non_null(strstr(claimer.msgs[0], "\"type\":\"claimed\""));
    await_message(&w, &claimer, 1);
    assert_non_null(strstr(claimer.msgs[1], "\"type\":\"pong\""));
    await_message(&w, &rival, 0);
    assert_non_null(strstr(rival.msgs[0], "\"code\":\"not-open\""));
    await_message(&w, &watcher, 0);
    assert_non_null(strstr(watcher.msgs[0], "\"type\":\"state\""));
    assert_non_null(strstr(watcher.msgs[0], "Cleo"));
    struct tconn *all[] = {&maker, &claimer, &rival, &watcher, &other[0], &other[1]};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
        tconn_close(&w.lobby, all[i]);
    }
    world_close(&w);
}

/* Whether the last lobby list the follower (a struct tconn) got names a
 * finished game. */
static int lists_a_finished_game(void *follower)
{
    const struct tconn *c = follower;
    return strstr(c->msgs[c->n - 1], "\"finished\":[{") != NULL;
}

/* The recent games are read on the store's thread once a game ends: the
 * lobby answers meanwhile with the list as it was, and sends it again to
 * its followers once read. */
static void test_the_recent_games_are_read_off_the_loop(void **state)
{
    struct world w;
    struct tconn other[2], follower, maker;
    world_open(&w, state);
    int64_t other_id = seated(&w, other);
    tconn_init(&follower);
    tconn_sayf(&w.lobby, &follower, "{\"type\":\"lobby\"}");
    await_message(&w, &follower, 0);
    turn(&w, 0);
    assert_non_null(strstr(follower.msgs[follower.n - 1], "\"finished\":[]"));
    tconn_hold_arm("rows"); /* the recent games' query (cas__saves_served_recent) */
    tconn_init(&maker);
    tconn_sayf(&w.lobby, &maker, "{\"type\":\"create\",\"game\":\"fixture\",\"seats\":["
               "{\"agent\":\"random\"},{\"agent\":\"random\"}]}");
    await_held(&w); /* the bots' game ended, its result durable: the list is read */
    others_go_on(&w, other_id, other);
    /* The lists sent meanwhile (a new game, moves) have none finished. */
    assert_non_null(strstr(follower.msgs[follower.n - 1], "\"finished\":[]"));

    tconn_hold_let_go();
    tconn_await(lists_a_finished_game, &follower, turn, &w, "the recent games");
    struct tconn *all[] = {&maker, &follower, &other[0], &other[1]};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
        tconn_close(&w.lobby, all[i]);
    }
    world_close(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        CAS_TEST_IN_DIR(test_a_slow_insert_stalls_only_its_creator),
        CAS_TEST_IN_DIR(test_a_slow_claim_holds_only_its_game),
        CAS_TEST_IN_DIR(test_the_recent_games_are_read_off_the_loop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
