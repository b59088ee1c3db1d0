/*
 * test_serve_pg.c — two `castellan serve` processes on one PostgreSQL
 * database (the `pg` test cluster): each hosts its own games; a bot game
 * runs to its end on one; a game is refused by the server that does not
 * hold it while the other lives; the holder is SIGKILLed mid-game, and the
 * other takes its games over: the player reconnects through it and plays
 * to the end, and a game nobody follows is taken over by the other's own
 * look for games whose server is gone.  The journal holds each game once,
 * whole.  A save the killed server's database backend received but had
 * not run yet is waited for: the game is not taken over before it is
 * committed or dropped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <libpq-fe.h>
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

static int refused(void *ctx)
{
    const struct serve_client *c = ctx;
    return c->errors > 0;
}

/* One integer from sql, polled until it is `want` (bounded only against a
 * stuck server: a minute): the value it had last. */
static long long query_until(const char *url, const char *sql, long long want)
{
    long long v = cas_test_query_int(url, sql);
    for (int tries = 0; tries < 600 && v != want; tries++) {
        usleep(100000);
        v = cas_test_query_int(url, sql);
    }
    return v;
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
    serve_run_until(w, serve_stopped_at_decision, &ada);
    assert_int_equal(ada.errors, 0);
    int64_t ply_before = ada.ply;
    /* a holds both, on its journal's connection (the one that appends). */
    long long a_backend = cas_test_claim_holder(url, game);
    long long a_idle_backend = cas_test_claim_holder(url, idle);
    assert_true(a_backend > 0);
    assert_int_equal(a_idle_backend, a_backend);

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
    assert_int_equal(query_until(url, gone, 0), 0);
    serve_connect(w, &b, &ada);
    serve_join(&ada, game, 0);
    serve_run_until(w, over_or_failed, &ada);
    assert_int_equal(ada.errors, 0);
    assert_false(ada.failed);
    assert_true(ada.ply > ply_before);

    /* The game nobody follows is taken over by b's own look (once a
     * second), and both are b's now. */
    for (int tries = 0; tries < 600 && cas_test_claim_holder(url, idle) == 0; tries++)
        cas__wsc_service(w, 100);
    /* A holder that is none of a's connections is b's. */
    long long b_idle_backend = cas_test_claim_holder(url, idle);
    long long b_backend = cas_test_claim_holder(url, game);
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
    cas_test_load_finished(s, game, (size_t)ada.ply, &g);
    assert_string_equal(g.players[0].name, "Ada");
    cas__saves_game_free(&g);
    assert_int_equal(cas__saves_game_load(s, idle, 1, &g), CAS_OK);
    assert_int_equal(g.status, CAS__SAVES_PLAYING);
    cas__saves_game_free(&g);
    cas__saves_close(s);
}

static int refused_or_shown(void *ctx)
{
    const struct serve_client *c = ctx;
    return c->errors > 0 || c->states > 0;
}

/* a is SIGKILLed while its database backend holds Ada's move, received
 * and not run: the test's lock on the actions table keeps the append from
 * starting, as a busy server would.  The database runs what it was sent
 * and lets go of the dead client's claims as each backend ends; the claim
 * must be the last to go, after that append, or b takes the game over a
 * ply short and its own save of that ply collides with a's late one (the
 * game stops: "another castellan saved it first").  So while the append
 * waits, the game is a's still (held by the backend that appends), b
 * refuses Ada; once it is committed, b takes it over with her move in. */
static void test_a_takeover_waits_for_a_save_received_not_run(void **state)
{
    (void)state;
    CAS_TEST_NEED_PG();
    char url[512], sql[512];
    struct serve_process a, b;
    struct cas__wsc *w;
    cas_test_pg_database(url, sizeof url);
    /* The test's own connection, which will hold the lock.  The append
     * waits as long as the test needs, not castellan's 30 s at most. */
    PGconn *lock = PQconnectdb(url);
    assert_int_equal(PQstatus(lock), CONNECTION_OK);
    PGresult *r = PQexec(lock, "DO $$BEGIN EXECUTE format('ALTER DATABASE %I SET"
                         " statement_timeout = ''10min''', current_database()); END$$");
    assert_int_equal(PQresultStatus(r), PGRES_COMMAND_OK);
    PQclear(r);
    const char *const extra[] = {"--database", url, NULL};
    serve_start(&a, "pg-late-a", extra);
    assert_int_equal(cas__wsc_new(&serve_client_events, &w), CAS_OK);
    struct serve_client ada = {.stop_after = 2};
    int64_t game = serve_create(w, &a, "{\"type\":\"create\",\"game\":\"fixture\",\"seats\":["
                                "{\"name\":\"Ada\",\"agent\":\"human\"},{\"agent\":\"greedy\"}],"
                                "\"practice\":true,\"seed\":\"4\"}", &ada, NULL);
    serve_connect(w, &a, &ada);
    serve_join(&ada, game, 0);
    serve_run_until(w, serve_stopped_at_decision, &ada);
    assert_int_equal(ada.errors, 0);

    /* Her third move reaches a's journal writer, whose append waits. */
    r = PQexec(lock, "BEGIN; LOCK TABLE actions IN SHARE MODE");
    assert_int_equal(PQresultStatus(r), PGRES_COMMAND_OK);
    PQclear(r);
    ada.stop_after = 3;
    serve_join(&ada, game, 0);
    const char *waiting = "SELECT coalesce(max(pid), 0) FROM pg_stat_activity WHERE datname"
                          " = current_database() AND wait_event_type = 'Lock'";
    long long appender = 0;
    for (int tries = 0; tries < 600 && !(appender = cas_test_query_int(url, waiting)); tries++)
        cas__wsc_service(w, 100);
    assert_true(appender > 0);
    int64_t late_ply = ada.acted_ply - 1;
    assert_int_equal(cas_test_query_int(url, "SELECT count(*) FROM actions"), late_ply);

    /* a dies; each of its backends but the appender sees it gone. */
    int status;
    assert_int_equal(serve_kill(&a, &status), 0);
    for (int i = 0; i < 600 && cas__wsc_is_open(ada.conn); i++)
        cas__wsc_service(w, 50);
    cas__wsc_conn_free(ada.conn);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM pg_stat_activity WHERE datname ="
             " current_database() AND backend_type = 'client backend' AND pid NOT IN"
             " (pg_backend_pid(), %d, %lld)", PQbackendPID(lock), appender);
    assert_int_equal(query_until(url, sql, 0), 0);
    /* The claim is the appender's: it goes when that backend ends. */
    assert_int_equal(cas_test_claim_holder(url, game), appender);

    /* b refuses Ada while the game is a's. */
    serve_start(&b, "pg-late-b", extra);
    ada.errors = ada.states = 0;
    serve_connect(w, &b, &ada);
    serve_join(&ada, game, 0);
    serve_run_until(w, refused_or_shown, &ada);
    assert_int_equal(ada.states, 0);
    assert_string_equal(ada.last_error, "not-found");

    /* The append runs, the appender ends: b takes the game over with her
     * move in, and she plays to the end. */
    r = PQexec(lock, "COMMIT");
    assert_int_equal(PQresultStatus(r), PGRES_COMMAND_OK);
    PQclear(r);
    PQfinish(lock);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM pg_stat_activity WHERE pid = %lld",
             appender);
    assert_int_equal(query_until(url, sql, 0), 0);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM actions WHERE game = %lld AND ply = %lld"
             " AND actor = 0", (long long)game, (long long)late_ply);
    assert_int_equal(cas_test_query_int(url, sql), 1);
    ada.errors = 0;
    ada.stop_after = 0;
    ada.acted_ply = 0;
    serve_join(&ada, game, 0);
    serve_run_until(w, over_or_failed, &ada);
    assert_int_equal(ada.errors, 0);
    assert_false(ada.failed);
    assert_true(ada.ply > late_ply);

    cas__wsc_free(w);
    cas__wsc_conn_free(ada.conn);
    assert_int_equal(serve_stop(&b), 0);
    struct cas__saves *s = cas_test_open(url);
    struct cas__saves_game g;
    assert_int_equal(cas__saves_integrity_check(s), CAS_OK);
    cas_test_load_finished(s, game, (size_t)ada.ply, &g);
    cas__saves_game_free(&g);
    cas__saves_close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_servers_share_one_database),
        cmocka_unit_test(test_a_takeover_waits_for_a_save_received_not_run),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
