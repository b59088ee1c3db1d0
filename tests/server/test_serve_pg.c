/*
 * test_serve_pg.c — two `castellan serve` processes on one PostgreSQL
 * database (the `pg` test cluster): each hosts its own games; a bot game
 * runs to its end on one; a game is refused by the server that does not
 * hold it while the other lives; the holder is SIGKILLed mid-game, and the
 * other takes its games over: the player reconnects through it and plays
 * to the end, and a game nobody follows is taken over by the other's own
 * look for games whose server is gone.  The journal holds each game once,
 * whole.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "json.h"
#include "saves.h"
#include "saves_fixture.h"
#include "serve_process.h"
#include "wsclient.h"

struct client {
    struct cas__wsc_conn *conn;
    int seat;
    char token[64];
    int64_t game;
    int states, over, errors, acts, stop_after;
    int64_t ply, acted_ply;
    char last_error[64];
    char created[4096];
};

static void on_message(struct cas__wsc_conn *conn, void *user, const char *text, size_t len)
{
    struct client *c = user;
    struct cas__botclient_view v;
    char act[8192];
    assert_int_equal(cas__botclient_read(text, len, &v), CAS_OK);
    if (strcmp(v.type, "created") == 0) {
        snprintf(c->created, sizeof c->created, "%s", text);
        c->game = v.game;
    } else if (strcmp(v.type, "error") == 0) {
        c->errors++;
        snprintf(c->last_error, sizeof c->last_error, "%s", v.code);
    } else if (strcmp(v.type, "state") == 0) {
        c->states++;
        c->over = v.over;
        c->ply = v.ply;
        if (c->seat >= 0 && (!c->stop_after || c->acts < c->stop_after) &&
            c->acted_ply != v.ply + 1 &&
            cas__botclient_act(&v, (uint64_t)v.ply * 7 + 3, act, sizeof act)) {
            cas__wsc_send(conn, act);
            c->acts++;
            c->acted_ply = v.ply + 1;
        }
    }
    cas__botclient_view_free(&v);
}

static const struct cas__wsc_events events = {.message = on_message};

static void run_until(struct cas__wsc *w, int (*done)(void *), void *ctx)
{
    for (int i = 0; i < 200000 && !done(ctx); i++)
        cas__wsc_service(w, 50);
    assert_true(done(ctx));
}

static int created_or_failed(void *ctx)
{
    const struct client *c = ctx;
    return c->game != 0 || c->errors;
}

static int over_or_failed(void *ctx)
{
    const struct client *c = ctx;
    return c->over || c->errors;
}

static int stopped(void *ctx)
{
    const struct client *c = ctx;
    return c->acts >= c->stop_after && c->states > c->acts;
}

static int refused(void *ctx)
{
    const struct client *c = ctx;
    return c->errors > 0;
}

static void connect_to(struct cas__wsc *w, const struct serve_process *p, struct client *c)
{
    assert_int_equal(cas__wsc_connect(w, "127.0.0.1", p->port, c, &c->conn), CAS_OK);
}

static void join(struct client *c, int64_t game, int seat)
{
    char msg[256];
    c->seat = seat;
    c->game = game;
    if (seat >= 0)
        snprintf(msg, sizeof msg, "{\"type\":\"join\",\"game\":\"%lld\",\"seat\":%d,"
                 "\"token\":\"%s\"}", (long long)game, seat, c->token);
    else
        snprintf(msg, sizeof msg, "{\"type\":\"join\",\"game\":\"%lld\"}", (long long)game);
    cas__wsc_send(c->conn, msg);
}

/* Create a game on p from `msg`; its id, and seat 0's token into token. */
static int64_t create(struct cas__wsc *w, const struct serve_process *p, const char *msg,
                      char *token, size_t cap)
{
    struct client creator = {.seat = -1};
    connect_to(w, p, &creator);
    cas__wsc_send(creator.conn, msg);
    run_until(w, created_or_failed, &creator);
    assert_int_equal(creator.errors, 0);
    const char *at = strstr(creator.created, "{\"seat\":0,\"token\":\"");
    if (token && at) {
        at += strlen("{\"seat\":0,\"token\":\"");
        snprintf(token, cap, "%.*s", (int)strcspn(at, "\""), at);
    }
    cas__wsc_close(creator.conn);
    for (int i = 0; i < 100 && cas__wsc_is_open(creator.conn); i++)
        cas__wsc_service(w, 10);
    cas__wsc_conn_free(creator.conn);
    return creator.game;
}

/* The server process (its PostgreSQL backend's pid) holding the claim on
 * game id, or 0 for none: who plays the game. */
static long long holder(const char *url, int64_t id)
{
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT coalesce(max(pid), 0) FROM pg_locks WHERE locktype ="
             " 'advisory' AND granted AND classid = 1128354636 AND objid = %lld AND"
             " objsubid = 2", (long long)id);
    return cas_test_query_int(url, sql);
}

static void test_two_servers_share_one_database(void **state)
{
    (void)state;
    CAS_TEST_NEED_PG();
    char url[512];
    struct serve_process a, b;
    struct cas__wsc *w;
    cas_test_pg_database(url, sizeof url);
    const char *const extra[] = {"--database", url, NULL};
    serve_start(&a, "pg-serve-a", extra);
    serve_start(&b, "pg-serve-b", extra);
    assert_int_equal(cas__wsc_new(&events, &w), CAS_OK);

    /* A bot game on b runs to its end, watched. */
    int64_t bots = create(w, &b, "{\"type\":\"create\",\"game\":\"fixture\",\"seats\":["
                          "{\"agent\":\"greedy\"},{\"agent\":\"random\"}],\"seed\":\"9\"}",
                          NULL, 0);
    struct client watch = {.seat = -1};
    connect_to(w, &b, &watch);
    join(&watch, bots, -1);
    run_until(w, over_or_failed, &watch);
    assert_int_equal(watch.errors, 0);

    /* On a: Ada against a bot, two of her moves; and a game nobody
     * follows, its first seat still open, a bot at the second. */
    struct client ada = {.stop_after = 2};
    int64_t game = create(w, &a, "{\"type\":\"create\",\"game\":\"fixture\",\"seats\":["
                          "{\"name\":\"Ada\",\"agent\":\"human\"},{\"agent\":\"greedy\"}],"
                          "\"seed\":\"4\"}", ada.token, sizeof ada.token);
    int64_t idle = create(w, &a, "{\"type\":\"create\",\"game\":\"fixture\",\"seats\":["
                          "{\"agent\":\"open\"},{\"agent\":\"greedy\"}],\"seed\":\"6\"}",
                          NULL, 0);
    connect_to(w, &a, &ada);
    join(&ada, game, 0);
    run_until(w, stopped, &ada);
    assert_int_equal(ada.errors, 0);
    int64_t ply_before = ada.ply;
    assert_true(holder(url, game) > 0);
    assert_int_equal(holder(url, idle), holder(url, game));

    /* While a lives, b does not play a's game. */
    struct client nosy = {.seat = -1};
    connect_to(w, &b, &nosy);
    join(&nosy, game, -1);
    run_until(w, refused, &nosy);
    assert_string_equal(nosy.last_error, "not-found");

    /* a dies mid-game; Ada reconnects through b and plays to the end. */
    long long a_backend = holder(url, game);
    assert_true(a_backend > 0);
    kill(a.pid, SIGKILL);
    int status;
    assert_int_equal(waitpid(a.pid, &status, 0), a.pid);
    for (int i = 0; i < 600 && cas__wsc_is_open(ada.conn); i++)
        cas__wsc_service(w, 50);
    assert_false(cas__wsc_is_open(ada.conn));
    cas__wsc_conn_free(ada.conn);
    ada.conn = NULL;
    ada.stop_after = 0;
    ada.states = 0;
    ada.acted_ply = 0; /* an act a never journaled is lost with it */
    /* The server drops a's claims when it sees a's connection closed, on
     * its own time: wait for that (bounded), then b may take over. */
    char gone[128];
    snprintf(gone, sizeof gone, "SELECT count(*) FROM pg_stat_activity WHERE pid = %lld",
             a_backend);
    for (int tries = 0; tries < 600 && cas_test_query_int(url, gone) > 0; tries++)
        usleep(100000);
    assert_int_equal(cas_test_query_int(url, gone), 0);
    connect_to(w, &b, &ada);
    join(&ada, game, 0);
    run_until(w, over_or_failed, &ada);
    assert_int_equal(ada.errors, 0);
    assert_true(ada.ply > ply_before);

    /* The game nobody follows is taken over by b's own look (once a
     * second), and both are b's now. */
    for (int tries = 0; tries < 600 && holder(url, idle) == 0; tries++)
        cas__wsc_service(w, 100);
    assert_true(holder(url, idle) > 0);
    assert_int_equal(holder(url, idle), holder(url, game));

    cas__wsc_free(w);
    cas__wsc_conn_free(ada.conn);
    cas__wsc_conn_free(watch.conn);
    cas__wsc_conn_free(nosy.conn);
    assert_int_equal(serve_stop(&b), 0);

    struct cas__saves *s = cas_test_open(url);
    struct cas__saves_game g;
    assert_int_equal(cas__saves_integrity_check(s), CAS_OK);
    assert_int_equal(cas__saves_game_load(s, bots, 1, &g), CAS_OK);
    assert_int_equal(g.status, CAS__SAVES_FINISHED);
    cas__saves_game_free(&g);
    assert_int_equal(cas__saves_game_load(s, game, 1, &g), CAS_OK);
    assert_int_equal(g.status, CAS__SAVES_FINISHED);
    assert_int_equal(g.n_actions, (size_t)ada.ply);
    assert_string_equal(g.players[0].name, "Ada");
    cas__saves_game_free(&g);
    assert_int_equal(cas__saves_game_load(s, idle, 1, &g), CAS_OK);
    assert_int_equal(g.status, CAS__SAVES_PLAYING);
    cas__saves_game_free(&g);
    cas__saves_close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_servers_share_one_database),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
