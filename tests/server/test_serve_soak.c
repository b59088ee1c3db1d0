/*
 * test_serve_soak.c — `castellan serve` under everything at once, bounded
 * by counts and ending by itself: games against a bot played a few moves a
 * round, pages reloading (watchers that join and drop), raw garbage and
 * half-open connections, a plugin whose worker crashes mid-game, and the
 * server killed with SIGKILL at the end of every round and started again on
 * the same store.  It must never crash on its own, lose no acknowledged
 * move (every game comes back at least where its player last saw it) and
 * finish every game.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "saves.h"
#include "serve_client.h"
#include "serve_process.h"

#define GAMES 5
#define ROUNDS 5           /* each ended by kill -9 */
#define MOVES_PER_ROUND 1  /* per game: a fixture game lasts 6 or more */
#define HALF_OPEN 16       /* connections left mid-request each round */
#define RELOADS 2          /* per game and round */

static const char dir[] = "soak";

struct game {
    int64_t id;
    char token[64];
    int64_t acked;         /* the ply its player last saw: journaled */
    int over;              /* seen over: a finished game is not hosted again */
};

/* Garbage sent and dropped, and connections left half way through a
 * request (their descriptors into half_open, closed by the caller). */
static void garbage(const struct serve_process *p, int half_open[HALF_OPEN])
{
    static const char *const junk[] = {
        "", "GET /%00 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", "BREW / HTTP/1.1\r\n\r\n",
        "\x16\x03\x01\x00\x05hello", "GET /ws HTTP/1.1\r\nUpgrade: websocket\r\n",
        "\x81\xff\xff\xff\xff\xff\xff\xff\xff\xff", "GET / HTTP/1.1\r\nHost: evil.example\r\n\r\n",
    };
    for (size_t i = 0; i < sizeof junk / sizeof junk[0]; i++) {
        int fd = serve_connect_tcp(p);
        (void)!send(fd, junk[i], strlen(junk[i]), MSG_NOSIGNAL);
        close(fd);
    }
    for (int i = 0; i < HALF_OPEN; i++) {
        half_open[i] = serve_connect_tcp(p);
        (void)!send(half_open[i], "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-", 36, MSG_NOSIGNAL);
    }
}

struct round {
    struct serve_client *players, *watchers, *rogue;
    const struct game *games;
    int final;
};

static int round_done(void *ctx)
{
    struct round *r = ctx;
    for (int g = 0; g < GAMES; g++) {
        const struct serve_client *c = &r->players[g];
        if (r->games[g].over)
            continue;
        if (c->errors)
            return 1;
        if (!c->over && (r->final || c->acts < c->stop_after || c->states <= c->acts))
            return 0;
    }
    for (int i = 0; i < GAMES * RELOADS; i++)
        if (!r->games[i / RELOADS].over && !r->watchers[i].states)
            return 0;
    /* The rogue plugin's worker crashes at its 6th move: its game stops
     * with a failure, which may come at any time. */
    return r->rogue->errors || r->rogue->over || r->rogue->failed;
}

/* The server died by our SIGKILL, not before. */
static void kill_server(struct serve_process *p)
{
    int status;
    assert_int_equal(waitpid(p->pid, &status, WNOHANG), 0); /* still up */
    assert_int_equal(serve_kill(p, &status), 0);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

static void test_soak(void **state)
{
    (void)state;
    const char *build = getenv("CASTELLAN_BUILD_DIR");
    char plugins[700], created[4096];
    struct serve_process p;
    struct cas__wsc *w;
    struct game games[GAMES] = {{0}};
    int half_open[HALF_OPEN];
    snprintf(plugins, sizeof plugins, "%s/tests/plugins/worker", build);
    const char *const args[] = {"--plugin-path", plugins, "--plugin-deadline", "2000", NULL};
    serve_forget(dir);
    for (int round = 0; round <= ROUNDS; round++) {
        int final = round == ROUNDS;
        serve_start(&p, dir, args);
        assert_int_equal(cas__wsc_new(&serve_client_events, &w), CAS_OK);
        if (round == 0)
            for (int g = 0; g < GAMES; g++) {
                struct serve_client a = {0};
                snprintf(created, sizeof created, "{\"type\":\"create\",\"game\":\"fixture\","
                         "\"seats\":[{\"agent\":\"human\"},{\"agent\":\"greedy\"}],"
                         "\"seed\":\"%d\",\"practice\":true}", 100 + g);
                games[g].id = serve_create(w, &p, created, &a, NULL);
                memcpy(games[g].token, a.token, sizeof a.token);
            }
        garbage(&p, half_open);
        struct serve_client players[GAMES] = {{0}}, watchers[GAMES * RELOADS] = {{0}};
        struct serve_client rogue = {0};
        int64_t rogue_id = serve_create(w, &p, "{\"type\":\"create\",\"game\":\"rogue-crash\","
                                        "\"seats\":[{\"agent\":\"human\"},{\"agent\":"
                                        "\"greedy\"}]}", &rogue, NULL);
        serve_connect(w, &p, &rogue);
        serve_join(&rogue, rogue_id, 0);
        for (int g = 0; g < GAMES; g++) {
            struct serve_client *c = &players[g];
            if (games[g].over)
                continue;
            memcpy(c->token, games[g].token, sizeof c->token);
            c->stop_after = final ? 0 : MOVES_PER_ROUND;
            serve_connect(w, &p, c);
            serve_join(c, games[g].id, 0);
            for (int k = 0; k < RELOADS; k++) {
                struct serve_client *v = &watchers[g * RELOADS + k];
                v->seat = -1;
                serve_connect(w, &p, v);
                serve_join(v, games[g].id, -1);
            }
        }
        struct round r = {players, watchers, &rogue, games, final};
        serve_run_until(w, round_done, &r);
        assert_true(rogue.failed);
        for (int g = 0; g < GAMES; g++) {
            if (games[g].over)
                continue;
            assert_int_equal(players[g].errors, 0);
            /* The first state after the restart showed every move the
             * player had seen acknowledged before the kill. */
            if (players[g].first_ply < games[g].acked)
                fail_msg("game %lld came back at ply %lld; its player had seen ply %lld",
                         (long long)games[g].id, (long long)players[g].first_ply,
                         (long long)games[g].acked);
            games[g].acked = players[g].ply;
            games[g].over = players[g].over;
            if (final)
                assert_true(players[g].over);
        }
        int live = 0;
        for (int g = 0; g < GAMES; g++)
            live += !games[g].over;
        /* The first kill strikes games in play (later ones may find a
         * short game over already). */
        assert_true(round > 0 || live > 0);
        /* Pages reloading (in the next round's connections): every one
         * goes at once, as a browser's do. */
        cas__wsc_free(w);
        for (int i = 0; i < GAMES * RELOADS; i++)
            cas__wsc_conn_free(watchers[i].conn);
        for (int g = 0; g < GAMES; g++)
            cas__wsc_conn_free(players[g].conn);
        cas__wsc_conn_free(rogue.conn);
        if (final)
            assert_int_equal(serve_stop(&p), 0);
        else
            kill_server(&p);
        for (int i = 0; i < HALF_OPEN; i++)
            close(half_open[i]);
    }
    struct cas__saves *s;
    char err[512];
    assert_int_equal(cas__saves_open(p.db, &s, err, sizeof err), CAS_OK);
    for (int g = 0; g < GAMES; g++) {
        struct cas__saves_game sg;
        assert_int_equal(cas__saves_game_load(s, games[g].id, 1, &sg), CAS_OK);
        assert_int_equal(sg.status, CAS__SAVES_FINISHED);
        assert_int_equal((int64_t)sg.n_actions, games[g].acked);
        cas__saves_game_free(&sg);
    }
    cas__saves_close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_soak),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
