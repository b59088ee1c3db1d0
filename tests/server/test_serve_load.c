/*
 * test_serve_load.c — a bounded load test on loopback: castellan serve
 * with 50 concurrent fixture games, two scripted WebSocket players each
 * (host/clients/loadgen.c) answering every state at once, until every game
 * is over (at most 20,000 moves or 120 s: it stops by itself).  No error,
 * no dropped connection, every act answered, and every game finished in
 * the store with every move journaled.  The load client runs on libuv
 * (epoll), and again on libwebsockets' poll loop, its fallback.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "saves.h"
#include "serve_process.h"
#include "wsclient.h"

#define GAMES 50

/* games played to the end by the load client on its loop ("libuv", or
 * "poll" asked for once the server runs), against a server in dir. */
static void play_to_the_end(const char *dir, size_t games, const char *loop)
{
    struct serve_process p;
    struct cas__loadgen_result r;
    /* The creator makes 50 games at once: above a browser's rate limit. */
    FILE *f = fopen("load.ini", "w");
    assert_non_null(f);
    fputs("[server]\nrate = 10000\nburst = 10000\nmax-games = 60\n", f);
    fclose(f);
    const char *const extra[] = {"--config", "load.ini", NULL};
    serve_forget(dir);
    serve_start(&p, dir, extra);
    struct cas__loadgen_params params = {
        .port = p.port, .game = "fixture", .seed = 17, .games = games, .think_ms = 0,
        .max_moves = 20000, .max_seconds = 120,
    };
    if (!strcmp(loop, "poll"))
        setenv("CASTELLAN_SERVE_EVENT_LOOP", "poll", 1); /* the client's, not the server's */
    int rc = cas__loadgen_run(&params, &r);
    unsetenv("CASTELLAN_SERVE_EVENT_LOOP");
    assert_int_equal(rc, CAS_OK);
    assert_int_equal(serve_stop(&p), 0);
    if (r.errors)
        fail_msg("%llu errors, the first: %s", (unsigned long long)r.errors, r.first_error);
    assert_string_equal(r.client_loop, loop);
    assert_int_equal(r.closed, 0);
    assert_int_equal(r.games_over, games);
    assert_int_equal(r.answered, r.moves);

    struct cas__saves *s;
    int64_t *ids;
    size_t n, actions = 0;
    char err[512];
    assert_int_equal(cas__saves_open(p.db, &s, err, sizeof err), CAS_OK);
    assert_int_equal(cas__saves_game_ids(s, NULL, &ids, &n), CAS_OK);
    assert_int_equal(n, games);
    for (size_t i = 0; i < n; i++) {
        struct cas__saves_game g;
        assert_int_equal(cas__saves_game_load(s, ids[i], 1, &g), CAS_OK);
        assert_int_equal(g.status, CAS__SAVES_FINISHED);
        for (size_t k = 0; k < g.n_actions; k++)
            actions += g.actions[k].actor >= 0;
        cas__saves_game_free(&g);
    }
    /* Every move the players sent is a journaled decision. */
    assert_int_equal(actions, r.moves);
    free(ids);
    cas__saves_close(s);
}

static void test_fifty_games_at_once(void **state)
{
    (void)state;
    play_to_the_end("load", GAMES, "libuv");
}

static void test_the_client_on_poll_plays_them_too(void **state)
{
    (void)state;
    play_to_the_end("load-poll", 10, "poll");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fifty_games_at_once),
        cmocka_unit_test(test_the_client_on_poll_plays_them_too),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
