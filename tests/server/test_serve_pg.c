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
#include "serve_client.h"
#include "serve_process.h"

static int over_or_failed(void *ctx)
{
    const struct serve_client *c = ctx;
    return c->over || c->errors || c->failed; /* a stopped game sends nothing more */
}

static int stopped(void *ctx)
{
    const struct serve_client *c = ctx;
    return c->acts >= c->stop_after && c->states > c->acts;
}

static int refused(void *ctx)
{
    const struct serve_client *c = ctx;
    return c->errors > 0;
}

/* The server process (its PostgreSQL backend's pid) holding the claim on
 * game id in this test's database, or 0 for none: who plays the game.
 * Other tests on the cluster have games of the same ids. */
static long long holder(const char *url, int64_t id)
{
    char sql[320];
    snprintf(sql, sizeof sql, "SELECT coalesce(max(pid), 0) FROM pg_locks WHERE locktype ="
             " 'advisory' AND granted AND classid = 1128354636 AND objid = %lld AND"
             " objsubid = 2 AND database = (SELECT oid FROM pg_database WHERE datname ="
             " current_database())", (long long)id);
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
    assert_int_equal(cas__wsc_new(&serve_client_events, &w), CAS_OK);

    /* A bot game on b runs to its end, watched. */
    int64_t bots = serve_create(w, &b, "{\"type\":\"create\",\"game\":\"fixture\",\"seats\":["
                                "{\"agent\":\"greedy\"},{\"agent\":\"random\"}],\"practice\":true,\"seed\":\"9\"}",
                                NULL, NULL);
    struct serve_client watch = {.seat = -1};
    serve_connect(w, &b, &watch);
    serve_join(&watch, bots, -1);
    serve_run_until(w, over_or_failed, &watch);
    assert_int_equal(watch.errors, 0);

    /* On a: Ada against a bot, two of her moves; and a game nobody
     * follows, its first seat still open, a bot at the second. */
    struct serve_client ada = {.stop_after = 2};
    int64_t game = serve_create(w, &a, "{\"type\":\"create\",\"game\":\"fixture\",\"seats\":["
                                "{\"name\":\"Ada\",\"agent\":\"human\"},{\"agent\":\"greedy\"}],"
                                "\"practice\":true,\"seed\":\"4\"}", &ada, NULL);
    int64_t idle = serve_create(w, &a, "{\"type\":\"create\",\"game\":\"fixture\",\"seats\":["
                                "{\"agent\":\"open\"},{\"agent\":\"greedy\"}],\"practice\":true,\"seed\":\"6\"}",
                                NULL, NULL);
    serve_connect(w, &a, &ada);
    serve_join(&ada, game, 0);
    serve_run_until(w, stopped, &ada);
    assert_int_equal(ada.errors, 0);
    int64_t ply_before = ada.ply;
    /* a holds both, on one of its connections or two (its store thread
     * has its own). */
    long long a_backend = holder(url, game), a_idle_backend = holder(url, idle);
    assert_true(a_backend > 0);
    assert_true(a_idle_backend > 0);

    /* While a lives, b does not play a's game. */
    struct serve_client nosy = {.seat = -1};
    serve_connect(w, &b, &nosy);
    serve_join(&nosy, game, -1);
    serve_run_until(w, refused, &nosy);
    assert_string_equal(nosy.last_error, "not-found");

    /* a dies mid-game; Ada reconnects through b and plays to the end. */
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
    /* The server drops a's claims when it sees a's connections closed, on
     * its own time: wait for that (bounded), then b may take over. */
    char gone[128];
    snprintf(gone, sizeof gone, "SELECT count(*) FROM pg_stat_activity WHERE pid IN (%lld, "
             "%lld)", a_backend, a_idle_backend);
    for (int tries = 0; tries < 600 && cas_test_query_int(url, gone) > 0; tries++)
        usleep(100000);
    assert_int_equal(cas_test_query_int(url, gone), 0);
    serve_connect(w, &b, &ada);
    serve_join(&ada, game, 0);
    serve_run_until(w, over_or_failed, &ada);
    assert_int_equal(ada.errors, 0);
    assert_false(ada.failed);
    assert_true(ada.ply > ply_before);

    /* The game nobody follows is taken over by b's own look (once a
     * second), and both are b's now. */
    for (int tries = 0; tries < 600 && holder(url, idle) == 0; tries++)
        cas__wsc_service(w, 100);
    /* A holder that is none of a's connections is b's. */
    long long b_idle_backend = holder(url, idle), b_backend = holder(url, game);
    assert_true(b_idle_backend > 0 && b_backend > 0);
    assert_true(b_idle_backend != a_backend && b_idle_backend != a_idle_backend);
    assert_true(b_backend != a_backend && b_backend != a_idle_backend);

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
