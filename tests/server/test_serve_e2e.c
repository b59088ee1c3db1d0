/*
 * test_serve_e2e.c — `castellan serve` run for real on 127.0.0.1 port 0
 * and played over WebSocket: two seats play a whole fixture game while a
 * third connection watches; a game against a bot; a game interrupted by a
 * server restart and finished after it with the same invite tokens; the
 * HTTP pages; a replay page sent to many at once out of the cache; a stop
 * while pages and their requests are still open.  Every game must end
 * journaled in the store.
 */
#define _GNU_SOURCE /* memmem */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "json.h"
#include "saves.h"
#include "serve_client.h"
#include "serve_process.h"

struct pair {
    struct serve_client *a, *b, *watch;
};

static int both_over(void *ctx)
{
    struct pair *p = ctx;
    if (p->a->errors || (p->b && p->b->errors) || (p->watch && p->watch->errors))
        return 1;
    return p->a->over && (!p->b || p->b->over) && (!p->watch || p->watch->over);
}

static int both_stopped(void *ctx)
{
    struct pair *p = ctx;
    return p->a->acts >= p->a->stop_after && p->b->acts >= p->b->stop_after &&
           p->a->states > p->a->acts;
}

/* Connect pr's seats 0 and 1 and its watcher to game id, join, and
 * service them until done(pr). */
static void seat_and_watch(struct cas__wsc *w, const struct serve_process *p, int64_t id,
                           struct pair *pr, int (*done)(void *))
{
    struct serve_client *c[3] = {pr->a, pr->b, pr->watch};
    for (int i = 0; i < 3; i++)
        serve_connect(w, p, c[i]);
    for (int i = 0; i < 3; i++)
        serve_join(c[i], id, i < 2 ? i : -1);
    serve_run_until(w, done, pr);
}

static void load_game(const char *db, int64_t id, struct cas__saves_game *g)
{
    struct cas__saves *s;
    char err[512];
    assert_int_equal(cas__saves_open(db, &s, err, sizeof err), CAS_OK);
    assert_int_equal(cas__saves_game_load(s, id, 1, g), CAS_OK);
    cas__saves_close(s);
}

/* A fixture game of Ada and Bob (with seed), made on the server of p and
 * played to its end by a and b while watch watches: its id. */
static int64_t play_a_whole_game(struct cas__wsc *w, const struct serve_process *p,
                                 const char *seed, struct serve_client *a,
                                 struct serve_client *b, struct serve_client *watch)
{
    char create[256];
    snprintf(create, sizeof create, "{\"type\":\"create\",\"game\":\"fixture\",\"seats\":["
             "{\"name\":\"Ada\",\"agent\":\"human\"},{\"name\":\"Bob\",\"agent\":"
             "\"human\"}],\"practice\":true,\"seed\":\"%s\"}", seed);
    int64_t id = serve_create(w, p, create, a, b);
    assert_true(id > 0);
    struct pair pr = {a, b, watch};
    seat_and_watch(w, p, id, &pr, both_over);
    assert_int_equal(a->errors + b->errors + watch->errors, 0);
    assert_true(a->acts > 0 && b->acts > 0);
    return id;
}

static void test_two_seats_and_a_watcher(void **state)
{
    (void)state;
    struct serve_process p;
    struct cas__wsc *w;
    struct serve_client a = {0}, b = {0}, watch = {.seat = -1};
    char body[4096], path[128];
    serve_forget("e2e-play");
    serve_start(&p, "e2e-play", NULL);
    assert_int_equal(cas__wsc_new(&serve_client_events, &w), CAS_OK);
    int64_t id = play_a_whole_game(w, &p, "11", &a, &b, &watch);

    assert_int_equal(serve_http_get(&p, "/healthz", body, sizeof body), 200);
    assert_string_equal(body, "ok\n");
    snprintf(path, sizeof path, "/game/%lld", (long long)id);
    assert_int_equal(serve_http_get(&p, path, body, sizeof body), 200);
    assert_non_null(strstr(body, "<title>castellan</title>"));
    snprintf(path, sizeof path, "/game/%lld/replay.html", (long long)id);
    static char page[1 << 20];
    char req[256];
    snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
             "\r\n", path);
    assert_int_equal(serve_http(&p, req, page, sizeof page), 200);
    assert_non_null(strstr(page, "<html"));
    /* Under the table's CSP: its script from the server, none inline. */
    assert_non_null(strstr(page, "\r\ncontent-security-policy: default-src 'self'; "
                                 "script-src 'self';"));
    assert_non_null(strstr(page, "<script src=\"/replay.js\"></script>\n</body>"));
    assert_null(strstr(page, "<script>"));
    assert_null(strstr(page, "<script nonce"));
    assert_int_equal(serve_http_get(&p, "/replay.js", body, sizeof body), 200);
    assert_non_null(strstr(body, "function sanitizeSvg(text)"));
    assert_int_equal(serve_http_get(&p, "/static/../s.db", body, sizeof body), 404);
    assert_int_equal(serve_http_get(&p, "/nothing", body, sizeof body), 404);

    cas__wsc_free(w);
    cas__wsc_conn_free(a.conn);
    cas__wsc_conn_free(b.conn);
    cas__wsc_conn_free(watch.conn);
    assert_int_equal(serve_stop(&p), 0);

    struct cas__saves_game g;
    load_game(p.db, id, &g);
    assert_int_equal(g.status, CAS__SAVES_FINISHED);
    assert_int_equal(g.n_actions, (size_t)a.ply);
    assert_string_equal(g.players[0].name, "Ada");
    assert_string_equal(g.players[1].agent, "human");
    cas__saves_game_free(&g);
}

/* One HTTP answer read from fd (its body by its content-length): the
 * status; the body (malloc'd) and its length. */
static int read_answer(int fd, char **body, size_t *len)
{
    size_t cap = 1 << 16, got = 0, want = 0, head = 0;
    char *buf = malloc(cap);
    assert_non_null(buf);
    for (;;) {
        if (!head) {
            char *end = memmem(buf, got, "\r\n\r\n", 4);
            if (end) {
                head = (size_t)(end + 4 - buf);
                buf[head - 1] = '\0';
                const char *cl = strstr(buf, "\r\ncontent-length: ");
                assert_non_null(cl);
                want = head + strtoul(cl + 18, NULL, 10);
            }
        }
        if (head && got >= want)
            break;
        if (got == cap) {
            cap *= 2;
            assert_non_null(buf = realloc(buf, cap));
        }
        ssize_t n = read(fd, buf + got, cap - got);
        assert_true(n > 0);
        got += (size_t)n;
    }
    assert_int_equal(got, want); /* nothing after it: one answer a request */
    int status = 0;
    sscanf(buf, "HTTP/1.%*d %d", &status);
    *len = want - head;
    *body = malloc(*len + 1);
    assert_non_null(*body);
    memcpy(*body, buf + head, *len);
    (*body)[*len] = '\0';
    free(buf);
    return status;
}

/* gz (gzip) inflated: what it holds (malloc'd), its length. */
static char *gunzip(const char *gz, size_t len, size_t *out_len)
{
    z_stream z = {0};
    size_t cap = 1 << 22;
    char *out = malloc(cap);
    assert_non_null(out);
    assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
    z.next_in = (Bytef *)gz;
    z.avail_in = (uInt)len;
    z.next_out = (Bytef *)out;
    z.avail_out = (uInt)cap;
    assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
    *out_len = z.total_out;
    inflateEnd(&z);
    return out;
}

/* A finished game's replay page is sent out of the cache itself: six
 * connections ask at once while it is built (half of them for gzip), six
 * more once it is kept, each reading only after all have asked; every
 * answer is the same page (the gzip one inflates to the plain one), and a
 * connection that goes on after it (keep-alive) is answered as ever.  The
 * server stops cleanly (the ASan build checks the page is let go once,
 * when the last connection is done with it). */
static void test_replay_pages_are_sent_from_the_cache(void **state)
{
    (void)state;
    struct serve_process p;
    struct cas__wsc *w;
    struct serve_client a = {0}, b = {0}, watch = {.seat = -1};
    serve_forget("e2e-replay");
    serve_start(&p, "e2e-replay", NULL);
    assert_int_equal(cas__wsc_new(&serve_client_events, &w), CAS_OK);
    int64_t id = play_a_whole_game(w, &p, "3", &a, &b, &watch);
    char *plain = NULL, *gz = NULL;
    size_t plain_len = 0, gz_len = 0;
    for (int round = 0; round < 2; round++) {
        int fds[6];
        for (int i = 0; i < 6; i++) {
            char req[256];
            int n = snprintf(req, sizeof req, "GET /game/%lld/replay.html HTTP/1.1\r\nHost: "
                             "127.0.0.1\r\n%s\r\n", (long long)id,
                             i % 2 ? "Accept-Encoding: gzip\r\n" : "");
            fds[i] = serve_connect_tcp(&p);
            assert_int_equal(write(fds[i], req, (size_t)n), n);
        }
        for (int i = 0; i < 6; i++) {
            char *body;
            size_t len;
            assert_int_equal(read_answer(fds[i], &body, &len), 200);
            char **keep = i % 2 ? &gz : &plain;
            size_t *keep_len = i % 2 ? &gz_len : &plain_len;
            if (!*keep) {
                *keep = body;
                *keep_len = len;
            } else {
                assert_int_equal(len, *keep_len);
                assert_memory_equal(body, *keep, len);
                free(body);
            }
            /* The same connection goes on: its next answer is its own. */
            static const char health[] = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
            assert_int_equal(write(fds[i], health, strlen(health)), (ssize_t)strlen(health));
            assert_int_equal(read_answer(fds[i], &body, &len), 200);
            assert_string_equal(body, "ok\n");
            free(body);
            close(fds[i]);
        }
    }
    assert_non_null(strstr(plain, "<html"));
    assert_true(gz_len > 2 && (unsigned char)gz[0] == 0x1f && (unsigned char)gz[1] == 0x8b);
    size_t inflated_len;
    char *inflated = gunzip(gz, gz_len, &inflated_len);
    assert_int_equal(inflated_len, plain_len);
    assert_memory_equal(inflated, plain, plain_len);
    free(inflated);
    free(plain);
    free(gz);
    cas__wsc_free(w);
    cas__wsc_conn_free(a.conn);
    cas__wsc_conn_free(b.conn);
    cas__wsc_conn_free(watch.conn);
    assert_int_equal(serve_stop(&p), 0);
}

/* Whether the server of p said it runs on the event loop named loop. */
static int runs_on(const struct serve_process *p, const char *loop)
{
    char path[700], line[1024], want[64];
    int found = 0;
    snprintf(path, sizeof path, "%s/serve.log", p->dir);
    snprintf(want, sizeof want, "the event loop is %s\n", loop);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    while (!found && fgets(line, sizeof line, f))
        found = strstr(line, want) != NULL;
    fclose(f);
    return found;
}

/* A whole game of a client against a greedy bot (its moves come back from
 * the bots' threads, which wake the loop) on a server of its own
 * (e2e-bot) running on the event loop named loop, checked; its id. */
static int64_t play_against_a_bot(const char *loop)
{
    struct serve_process p;
    struct cas__wsc *w;
    struct serve_client a = {0};
    serve_forget("e2e-bot");
    serve_start(&p, "e2e-bot", NULL);
    if (!runs_on(&p, loop))
        fail_msg("the server does not say it runs on %s (see e2e-bot/serve.log)", loop);
    assert_int_equal(cas__wsc_new(&serve_client_events, &w), CAS_OK);
    int64_t id = serve_create(w, &p, "{\"type\":\"create\",\"game\":\"fixture\",\"seats\":["
                              "{\"agent\":\"human\"},{\"agent\":\"greedy\"}],\"practice\":true,\"seed\":\"5\"}",
                              &a, NULL);
    serve_connect(w, &p, &a);
    serve_join(&a, id, 0);
    struct pair pr = {&a, NULL, NULL};
    serve_run_until(w, both_over, &pr);
    assert_int_equal(a.errors, 0);
    cas__wsc_free(w);
    cas__wsc_conn_free(a.conn);
    assert_int_equal(serve_stop(&p), 0);
    struct cas__saves_game g;
    load_game(p.db, id, &g);
    assert_int_equal(g.status, CAS__SAVES_FINISHED);
    assert_string_equal(g.players[1].agent, "greedy");
    int bot_moves = 0;
    for (size_t i = 0; i < g.n_actions; i++)
        bot_moves += g.actions[i].actor == 1;
    assert_true(bot_moves > 0);
    cas__saves_game_free(&g);
    return id;
}

/* On libuv (what CI installs), and on libwebsockets' poll loop, the
 * fallback when libuv's plugin cannot be loaded, forced here. */
static void test_against_a_bot(void **state)
{
    (void)state;
    assert_true(play_against_a_bot("libuv") > 0);
    setenv("CASTELLAN_SERVE_EVENT_LOOP", "poll", 1);
    int64_t id = play_against_a_bot("poll");
    unsetenv("CASTELLAN_SERVE_EVENT_LOOP");
    assert_true(id > 0);
}

/* A stored copy of game id of the store db, as `castellan play` would
 * store it (not served); its id. */
static int64_t terminal_copy(const char *db, int64_t id)
{
    struct cas__saves *s;
    struct cas__saves_game g;
    char err[512];
    load_game(db, id, &g);
    g.id = 0;
    assert_int_equal(cas__saves_open(db, &s, err, sizeof err), CAS_OK);
    assert_int_equal(cas__saves_game_insert(s, &g), CAS_OK);
    int64_t copy = g.id;
    cas__saves_close(s);
    cas__saves_game_free(&g);
    return copy;
}

/* A finished game replays at /game/ID/replay.html when the server made
 * it; one of the terminal only with serve --host-saved naming it (or
 * all). */
static void test_terminal_games_need_host_saved(void **state)
{
    (void)state;
    struct serve_process p;
    char body[4096], path[128], spec[32];
    int64_t served = play_against_a_bot("libuv");
    int64_t copy = terminal_copy("e2e-bot/s.db", served);
    serve_start(&p, "e2e-bot", NULL);
    snprintf(path, sizeof path, "/game/%lld/replay.html", (long long)served);
    assert_int_equal(serve_http_get(&p, path, body, sizeof body), 200);
    snprintf(path, sizeof path, "/game/%lld/replay.html", (long long)copy);
    assert_int_equal(serve_http_get(&p, path, body, sizeof body), 404);
    assert_int_equal(serve_stop(&p), 0);

    snprintf(spec, sizeof spec, "%lld", (long long)copy);
    serve_start(&p, "e2e-bot", (const char *const[]){"--host-saved", spec, NULL});
    assert_int_equal(serve_http_get(&p, path, body, sizeof body), 200);
    assert_non_null(strstr(body, "<html"));
    assert_int_equal(serve_stop(&p), 0);
}

static void test_restart_resumes(void **state)
{
    (void)state;
    struct serve_process p;
    struct cas__wsc *w;
    struct serve_client a = {.stop_after = 2}, b = {.stop_after = 2};
    serve_forget("e2e-restart");
    serve_start(&p, "e2e-restart", NULL);
    assert_int_equal(cas__wsc_new(&serve_client_events, &w), CAS_OK);
    int64_t id = serve_create(w, &p, "{\"type\":\"create\",\"game\":\"fixture\",\"seats\":["
                              "{\"agent\":\"human\"},{\"agent\":\"human\"}],\"practice\":true,\"seed\":\"3\"}", &a, &b);
    serve_connect(w, &p, &a);
    serve_connect(w, &p, &b);
    serve_join(&a, id, 0);
    serve_join(&b, id, 1);
    struct pair pr = {&a, &b, NULL};
    serve_run_until(w, both_stopped, &pr);
    int64_t ply_before = a.ply > b.ply ? a.ply : b.ply;
    cas__wsc_free(w);
    cas__wsc_conn_free(a.conn);
    cas__wsc_conn_free(b.conn);
    assert_int_equal(serve_stop(&p), 0);

    /* The same store: the game comes back and the same tokens act. */
    serve_start(&p, "e2e-restart", NULL);
    assert_int_equal(cas__wsc_new(&serve_client_events, &w), CAS_OK);
    a.stop_after = b.stop_after = 0;
    a.states = b.states = 0;
    a.acted_ply = b.acted_ply = 0; /* an act sent as the server stopped is lost */
    serve_connect(w, &p, &a);
    serve_connect(w, &p, &b);
    serve_join(&a, id, 0);
    serve_join(&b, id, 1);
    serve_run_until(w, both_over, &pr);
    assert_int_equal(a.errors + b.errors, 0);
    assert_true(a.ply > ply_before);
    cas__wsc_free(w);
    cas__wsc_conn_free(a.conn);
    cas__wsc_conn_free(b.conn);
    assert_int_equal(serve_stop(&p), 0);
    struct cas__saves_game g;
    load_game(p.db, id, &g);
    assert_int_equal(g.status, CAS__SAVES_FINISHED);
    cas__saves_game_free(&g);
}

/* Replies of one connection, counted by kind. */
struct counts {
    int pongs, too_large, rate_limited, other, closed;
};

static void count_message(struct cas__wsc_conn *conn, void *user, const char *text, size_t len)
{
    struct counts *c = user;
    (void)conn;
    (void)len;
    if (strstr(text, "\"type\":\"pong\""))
        c->pongs++;
    else if (strstr(text, "\"code\":\"too-large\""))
        c->too_large++;
    else if (strstr(text, "\"code\":\"rate-limited\""))
        c->rate_limited++;
    else
        c->other++;
}

static void count_closed(struct cas__wsc_conn *conn, void *user)
{
    struct counts *c = user;
    (void)conn;
    c->closed++;
}

static const struct cas__wsc_events counting = {.message = count_message,
                                                .closed = count_closed};

static int was_closed(void *ctx)
{
    return ((const struct counts *)ctx)->closed > 0;
}

static int one_pong(void *ctx)
{
    return ((const struct counts *)ctx)->pongs > 0;
}

/* Every message answered, or the connection closed (a failure). */
static int all_answered(void *ctx)
{
    const struct counts *c = ctx;
    return c->pongs + c->too_large + c->rate_limited + c->other >= 101 || c->closed;
}

/* A message over the size limit and a burst over the rate limit are each
 * answered with their error, and the connection goes on; a compressed
 * message that would inflate far past the limit closes its connection
 * only. */
static void test_limits(void **state)
{
    (void)state;
    struct serve_process p;
    struct cas__wsc *w;
    struct cas__wsc_conn *conn;
    struct counts c = {0};
    serve_forget("e2e-limits");
    serve_start(&p, "e2e-limits", NULL);
    assert_int_equal(cas__wsc_new(&counting, &w), CAS_OK);
    assert_int_equal(cas__wsc_connect(w, "127.0.0.1", p.port, &c, &conn), CAS_OK);
    size_t big = 70 * 1024;
    char *huge = malloc(big + 32);
    assert_non_null(huge);
    strcpy(huge, "{\"type\":\"ping\",\"pad\":\"");
    memset(huge + strlen(huge), 'x', big);
    strcpy(huge + big, "\"}");
    cas__wsc_send(conn, huge);
    free(huge);
    /* Compressed with references far back (8 KiB of text twice): the
     * server inflates with the client's whole window. */
    char far[2 * 8192 + 64] = "{\"type\":\"ping\",\"pad\":\"";
    size_t at = strlen(far);
    for (size_t i = 0; i < 8192; i++)
        far[at + i] = far[at + 8192 + i] = (char)('a' + (i * 7919u + i / 13) % 26);
    strcpy(far + at + 2 * 8192, "\"}");
    cas__wsc_send(conn, far);
    for (int i = 0; i < 99; i++)
        cas__wsc_send(conn, "{\"type\":\"ping\"}");
    serve_run_until(w, all_answered, &c);
    /* Compressed both ways (permessage-deflate), limits as without. */
    assert_true(cas__wsc_deflate(conn));
    assert_int_equal(c.too_large, 1);
    /* The bucket holds 40; 100 at once overflow it whatever the timing. */
    assert_true(c.pongs >= 40 && c.pongs < 100);
    assert_int_equal(c.pongs + c.rate_limited, 100);
    assert_int_equal(c.other, 0);
    assert_int_equal(c.closed, 0);

    /* An inflate bomb: 2 MiB of one letter, a few KiB compressed.
     * The server inflates four times the message limit at most and closes
     * that connection; it serves the next one as before. */
    size_t bomb = 2u << 20;
    char *text = malloc(bomb + 1);
    assert_non_null(text);
    memset(text, 'x', bomb);
    memcpy(text, "{\"type\":\"ping\",\"pad\":\"", 22);
    text[bomb] = '\0';
    struct counts b = {0};
    struct cas__wsc_conn *bomber, *after;
    assert_int_equal(cas__wsc_connect(w, "127.0.0.1", p.port, &b, &bomber), CAS_OK);
    cas__wsc_send(bomber, text);
    free(text);
    serve_run_until(w, was_closed, &b);
    assert_int_equal(b.pongs, 0);
    struct counts a = {0};
    assert_int_equal(cas__wsc_connect(w, "127.0.0.1", p.port, &a, &after), CAS_OK);
    cas__wsc_send(after, "{\"type\":\"ping\"}");
    serve_run_until(w, one_pong, &a);
    cas__wsc_free(w);
    cas__wsc_conn_free(conn);
    cas__wsc_conn_free(bomber);
    cas__wsc_conn_free(after);
    assert_int_equal(serve_stop(&p), 0);
}

/* castellan play --web: the link it prints plays the game in the browser's
 * place, and the command ends by itself when the game is over. */
static void test_play_web(void **state)
{
    (void)state;
    const char *build = getenv("CASTELLAN_BUILD_DIR");
    char exe[600], out[64] = "e2e-web/out.txt", line[1024], db[64] = "e2e-web/castellan/saves.db";
    struct serve_process p = {.port = 0};
    struct cas__wsc *w;
    struct serve_client a = {0};
    int64_t id = 0;
    snprintf(exe, sizeof exe, "%s/host/castellan", build);
    mkdir("e2e-web", 0700);
    for (const char *const *x = (const char *const[]){"", "-wal", "-shm", NULL}; *x; x++) {
        char side[128];
        snprintf(side, sizeof side, "%s%s", db, *x);
        unlink(side);
    }
    int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    p.pid = fork();
    if (p.pid == 0) {
        dup2(fd, 1);
        dup2(fd, 2);
        char data[600];
        assert_non_null(getcwd(data, sizeof data - 16));
        strcat(data, "/e2e-web"); /* XDG wants an absolute path */
        setenv("XDG_DATA_HOME", data, 1);
        unsetenv("DISPLAY");
        unsetenv("WAYLAND_DISPLAY");
        execl(exe, exe, "play", "--web", "--game", "fixture", "--players", "Ada:human,greedy",
              "--seed", "8", (char *)NULL);
        _exit(127);
    }
    close(fd);
    /* Wait for the link (printed once; the bound only ends a dead run). */
    for (int tries = 0; !id && tries < 6000; tries++) {
        FILE *f = fopen(out, "r");
        while (f && fgets(line, sizeof line, f)) {
            const char *at = strstr(line, "http://127.0.0.1:");
            long long game;
            if (at && strstr(at, "#seat=0&token=") &&
                sscanf(at, "http://127.0.0.1:%d/game/%lld#seat=0&token=%63s", &p.port, &game,
                       a.token) == 3)
                id = game;
        }
        if (f)
            fclose(f);
        if (!id)
            usleep(10000);
    }
    assert_true(id > 0);
    /* On loopback only, as the link says. */
    struct serve_listener l[4];
    assert_int_equal(serve_listening(p.pid, l, 4), 1);
    assert_string_equal(l[0].addr, "127.0.0.1");
    assert_int_equal(l[0].port, p.port);
    assert_int_equal(cas__wsc_new(&serve_client_events, &w), CAS_OK);
    serve_connect(w, &p, &a);
    serve_join(&a, id, 0);
    struct pair pr = {&a, NULL, NULL};
    serve_run_until(w, both_over, &pr);
    assert_int_equal(a.errors, 0);
    /* The page has the result and closes: with no page left open, play
     * --web stops at once rather than after its grace time. */
    cas__wsc_free(w);
    cas__wsc_conn_free(a.conn);
    int status;
    assert_int_equal(waitpid(p.pid, &status, 0), p.pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    struct cas__saves_game g;
    load_game(db, id, &g);
    assert_int_equal(g.status, CAS__SAVES_FINISHED);
    cas__saves_game_free(&g);
}

struct acts_goal {
    struct serve_client *a, *b;
    int goal;
};

/* The two seats acted goal times together (whoever's turn it was). */
static int acted_enough(void *ctx)
{
    const struct acts_goal *g = ctx;
    return g->a->errors || g->b->errors || g->a->acts + g->b->acts >= g->goal;
}

/* A leg of a correspondence game's play on a server started afresh on the
 * same store: `acts` more decisions (0: to the end). */
static void corr_leg(struct serve_process *p, const char *const *extra, int64_t *id,
                     struct serve_client *a, struct serve_client *b, int acts)
{
    struct cas__wsc *w;
    serve_start(p, "e2e-corr", extra);
    assert_int_equal(cas__wsc_new(&serve_client_events, &w), CAS_OK);
    if (!*id)
        *id = serve_create(w, p, "{\"type\":\"create\",\"game\":\"fixture\",\"seats\":["
                           "{\"name\":\"Ada\",\"agent\":\"human\"},{\"name\":\"Bob\","
                           "\"agent\":\"human\"}],\"clock\":{\"days_per_move\":3},"
                           "\"practice\":true,\"seed\":\"3\"}", a, b);
    a->states = b->states = 0;
    a->acted_ply = b->acted_ply = 0; /* an act sent as the server stopped is lost */
    serve_connect(w, p, a);
    serve_connect(w, p, b);
    serve_join(a, *id, 0);
    serve_join(b, *id, 1);
    struct pair pr = {a, b, NULL};
    struct acts_goal goal = {a, b, a->acts + b->acts + acts};
    if (acts)
        serve_run_until(w, acted_enough, &goal);
    else
        serve_run_until(w, both_over, &pr);
    assert_int_equal(a->errors + b->errors, 0);
    cas__wsc_free(w);
    cas__wsc_conn_free(a->conn);
    cas__wsc_conn_free(b->conn);
    assert_int_equal(serve_stop(p), 0); /* the notices queued are run first */
}

/* A correspondence game on `castellan serve --config` with a
 * notify-command, stopped and started twice mid-game: it goes on to its
 * end, every action from the clock's start journaled with its deadline,
 * and the command heard each turn and the end (docs/server.md,
 * "Correspondence"). */
static void test_correspondence_with_notices(void **state)
{
    (void)state;
    struct serve_process p;
    struct serve_client a = {0}, b = {0};
    char cwd[512], out[700], ini[700], line[4096];
    int64_t id = 0;
    assert_non_null(getcwd(cwd, sizeof cwd));
    snprintf(out, sizeof out, "%s/e2e-corr-notices.json", cwd);
    snprintf(ini, sizeof ini, "%s/e2e-corr.ini", cwd);
    unlink(out);
    FILE *f = fopen(ini, "w");
    assert_non_null(f);
    fprintf(f, "[server]\nnotify-command = %s %s\n", NOTICE_SCRIPT, out);
    fclose(f);
    const char *const extra[] = {"--config", ini, NULL};
    serve_forget("e2e-corr");
    corr_leg(&p, extra, &id, &a, &b, 2);
    corr_leg(&p, extra, &id, &a, &b, 2);
    corr_leg(&p, extra, &id, &a, &b, 0);

    struct cas__saves_game g;
    load_game(p.db, id, &g);
    assert_int_equal(g.status, CAS__SAVES_FINISHED);
    /* Chance's draws before both seats joined carry none; from the
     * clock's start every action carries the deadline after it. */
    int64_t last = 0;
    size_t i = 0;
    while (i < g.n_actions && !g.actions[i].has_clock)
        assert_int_equal(g.actions[i++].actor, -1);
    assert_true(i < g.n_actions);
    for (; i < g.n_actions; i++) {
        assert_true(g.actions[i].has_clock);
        assert_true(g.actions[i].clock_ms >= last); /* deadlines only move on */
        last = g.actions[i].clock_ms;
    }
    cas__saves_game_free(&g);

    /* Every notice is one JSON object of this game; turns, then the end
     * once per seat. */
    size_t turns = 0, overs = 0;
    char last_seat = 0;
    f = fopen(out, "r");
    assert_non_null(f);
    while (fgets(line, sizeof line, f)) {
        struct cas_json *notice;
        size_t at, off;
        char game[48];
        assert_int_equal(cas__json_parse(line, strlen(line), &notice, &at, &off), CAS_OK);
        snprintf(game, sizeof game, "\"game\":\"%lld\"", (long long)id);
        assert_non_null(strstr(line, game));
        if (strstr(line, "{\"event\":\"turn\"")) {
            assert_int_equal(overs, 0);
            assert_non_null(strstr(line, "\"deadline_ms\":1"));
            /* A turn passes to the other seat: chance between two decisions
             * of one seat does not begin a turn of its own. */
            const char *seat = strstr(line, "\"seat\":");
            assert_non_null(seat);
            assert_int_not_equal(seat[7], last_seat);
            last_seat = seat[7];
            turns++;
        } else {
            assert_non_null(strstr(line, "{\"event\":\"over\""));
            assert_non_null(strstr(line, "\"reason\":\"end\""));
            overs++;
        }
        cas__json_free(notice);
    }
    fclose(f);
    assert_true(turns >= 4);
    assert_int_equal(overs, 2);
    unlink(out);
    unlink(ini);
}

static int all_have_a_state(void *ctx)
{
    struct pair *p = ctx;
    return p->a->errors || p->b->errors || p->watch->errors ||
           (p->a->states && p->b->states && p->watch->states);
}

/* SIGTERM while a table's seats and a watcher are connected and pages'
 * requests are unanswered or half read (help text, scripts, a request cut
 * in the middle), as when a browser closes and the server stops at once:
 * the server exits 0 (and, in the sanitizer build, without a report).
 * Several rounds, each with its requests at another stage. */
static void test_stop_with_requests_in_flight(void **state)
{
    (void)state;
    for (int round = 0; round < 4; round++) {
        struct serve_process p;
        struct cas__wsc *w;
        struct serve_client a = {0}, b = {0}, watch = {.seat = -1};
        char req[256];
        serve_forget("e2e-stop");
        serve_start(&p, "e2e-stop", NULL);
        assert_int_equal(cas__wsc_new(&serve_client_events, &w), CAS_OK);
        int64_t id = serve_create(w, &p, "{\"type\":\"create\",\"game\":\"carcassonne\","
                                  "\"seats\":[{\"agent\":\"human\"},{\"agent\":\"human\"}]}",
                                  &a, &b);
        struct pair pr = {&a, &b, &watch};
        seat_and_watch(w, &p, id, &pr, all_have_a_state);
        assert_int_equal(a.errors + b.errors + watch.errors, 0);
        const char *paths[] = {"/game/%lld/help.txt", "/static/app.js", "/replay.js",
                               "/game/%lld/replay.html", "/"};
        int fds[12];
        for (int i = 0; i < 12; i++) {
            char path[64];
            snprintf(path, sizeof path, paths[i % 5], (long long)id);
            int cut = (i + round) % 3 == 0; /* the request stops in its headers */
            snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n%s", path,
                     cut ? "Accept: */" : "\r\n");
            fds[i] = serve_connect_tcp(&p);
            assert_int_equal(write(fds[i], req, strlen(req)), (ssize_t)strlen(req));
        }
        /* Some answers are read in part (what has come), the rest not at
         * all. */
        for (int i = round % 2; i < 12; i += 2) {
            char some[512];
            (void)recv(fds[i], some, sizeof some, MSG_DONTWAIT);
        }
        assert_int_equal(serve_stop(&p), 0);
        for (int i = 0; i < 12; i++)
            close(fds[i]);
        cas__wsc_free(w);
        cas__wsc_conn_free(a.conn);
        cas__wsc_conn_free(b.conn);
        cas__wsc_conn_free(watch.conn);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_seats_and_a_watcher),
        cmocka_unit_test(test_replay_pages_are_sent_from_the_cache),
        cmocka_unit_test(test_against_a_bot),
        cmocka_unit_test(test_terminal_games_need_host_saved),
        cmocka_unit_test(test_restart_resumes),
        cmocka_unit_test(test_correspondence_with_notices),
        cmocka_unit_test(test_play_web),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_stop_with_requests_in_flight),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
