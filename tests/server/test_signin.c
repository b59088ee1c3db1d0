/*
 * test_signin.c — registered players on a real castellan serve: the
 * sign-in answer keeps the key in an HttpOnly, SameSite=Strict cookie and
 * names the player; a WebSocket opened with that cookie is the player,
 * takes an open seat as themselves and the journal records who; a bad or
 * revoked key is refused with a clear message (and the socket goes on as
 * a guest); a guest may not take a registered player's name; the key
 * appears in no answer body and not in the server's log.
 */
#define _GNU_SOURCE /* strcasestr */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "player_key.h"
#include "saves_fixture.h"
#include "serve_process.h"

/* ------------------------------------------- a WebSocket, by hand */

/* A WebSocket on fd opened with the Cookie header cookie (NULL: none):
 * the handshake is written here and its answer read. */
static int ws_open(const struct serve_process *p, const char *cookie)
{
    char req[1024], answer[2048] = "";
    int fd = serve_connect_tcp(p);
    snprintf(req, sizeof req,
             "GET /ws HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\n"
             "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
             "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: castellan.v1\r\n"
             "%s%s%s\r\n",
             p->port, cookie ? "Cookie: " : "", cookie ? cookie : "", cookie ? "\r\n" : "");
    assert_int_equal(write(fd, req, strlen(req)), (ssize_t)strlen(req));
    size_t got = 0;
    while (!strstr(answer, "\r\n\r\n") || got == 0) {
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        assert_int_equal(poll(&pfd, 1, 30000), 1); /* only a hung server waits */
        ssize_t n = read(fd, answer + got, 1); /* byte by byte: no frame is eaten */
        assert_true(n == 1);
        got++;
        answer[got] = '\0';
        assert_true(got < sizeof answer - 1);
    }
    if (strncmp(answer, "HTTP/1.1 101", 12) != 0)
        fail_msg("no WebSocket: %s", answer);
    return fd;
}

/* Send text as one masked frame (mask 0: the bytes as they are). */
static void ws_send(int fd, const char *text)
{
    unsigned char frame[4096];
    size_t len = strlen(text), at = 0;
    assert_true(len < 65536 && len + 8 < sizeof frame);
    frame[at++] = 0x81;
    if (len < 126) {
        frame[at++] = (unsigned char)(0x80 | len);
    } else {
        frame[at++] = 0x80 | 126;
        frame[at++] = (unsigned char)(len >> 8);
        frame[at++] = (unsigned char)len;
    }
    memset(frame + at, 0, 4);
    at += 4;
    memcpy(frame + at, text, len);
    assert_int_equal(write(fd, frame, at + len), (ssize_t)(at + len));
}

static void read_all(int fd, unsigned char *buf, size_t n)
{
    for (size_t got = 0; got < n;) {
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        assert_int_equal(poll(&pfd, 1, 30000), 1);
        ssize_t r = read(fd, buf + got, n - got);
        assert_true(r > 0);
        got += (size_t)r;
    }
}

/* The next text message whose text holds `words` (earlier ones are
 * skipped), into a new string the caller frees. */
static char *ws_until(int fd, const char *words)
{
    for (int frames = 0; frames < 1000; frames++) {
        unsigned char head[2], ext[8];
        read_all(fd, head, 2);
        uint64_t len = head[1] & 0x7F;
        if (len == 126) {
            read_all(fd, ext, 2);
            len = (uint64_t)ext[0] << 8 | ext[1];
        } else if (len == 127) {
            read_all(fd, ext, 8);
            len = 0;
            for (int i = 0; i < 8; i++)
                len = len << 8 | ext[i];
        }
        assert_true(len < (64u << 20));
        char *text = malloc(len + 1);
        assert_non_null(text);
        read_all(fd, (unsigned char *)text, len);
        text[len] = '\0';
        if ((head[0] & 0x0F) == 1 && strstr(text, words))
            return text;
        free(text);
    }
    fail_msg("no message with %s", words);
    return NULL;
}

/* ------------------------------------------------------------ tests */

/* A fresh server in dir with players Ada and Bob registered; their keys. */
static void start_with_players(struct serve_process *p, const char *dir,
                               char ada[CAS__PLAYER_KEY_MAX], char bob[CAS__PLAYER_KEY_MAX])
{
    char db[600], err[1024];
    struct cas__saves *s;
    serve_forget(dir);
    mkdir(dir, 0700);
    snprintf(db, sizeof db, "%s/s.db", dir);
    assert_int_equal(cas__saves_open(db, &s, err, sizeof err), CAS_OK);
    assert_int_equal(cas__player_key_issue(s, "Ada", 0, ada), CAS_OK);
    assert_int_equal(cas__player_key_issue(s, "Bob", 0, bob), CAS_OK);
    cas__saves_close(s);
    serve_start(p, dir, NULL);
}

static int signin(const struct serve_process *p, const char *key, char *response, size_t cap)
{
    char req[512];
    snprintf(req, sizeof req, "GET /signin HTTP/1.1\r\nHost: 127.0.0.1\r\n"
             "Authorization: Bearer %s\r\nConnection: close\r\n\r\n", key);
    return serve_http(p, req, response, cap);
}

static const char *body_of(const char *response)
{
    const char *at = strstr(response, "\r\n\r\n");
    assert_non_null(at);
    return at + 4;
}

static void test_sign_in_sets_an_http_only_cookie(void **state)
{
    (void)state;
    struct serve_process p;
    char ada[CAS__PLAYER_KEY_MAX], bob[CAS__PLAYER_KEY_MAX], response[8192];
    start_with_players(&p, "signin-cookie", ada, bob);
    assert_int_equal(signin(&p, ada, response, sizeof response), 200);
    char expect[256];
    snprintf(expect, sizeof expect, "set-cookie: castellan_player=%s; Path=/; Max-Age=", ada);
    if (!strcasestr(response, expect))
        fail_msg("no cookie %s in %s", expect, response);
    assert_non_null(strstr(response, "; HttpOnly; SameSite=Strict"));
    assert_null(strstr(response, "Secure")); /* no TLS here */
    assert_string_equal(body_of(response), "{\"player\":\"Ada\"}");

    /* A wrong secret, a malformed key, no key: refused, any cookie forgotten. */
    char wrong[CAS__PLAYER_KEY_MAX];
    snprintf(wrong, sizeof wrong, "%s", ada);
    wrong[strlen(wrong) - 1] = wrong[strlen(wrong) - 1] == 'a' ? 'b' : 'a';
    assert_int_equal(signin(&p, wrong, response, sizeof response), 403);
    assert_non_null(strstr(body_of(response), "no longer works"));
    assert_non_null(strcasestr(response, "set-cookie: castellan_player=; Path=/; Max-Age=0"));
    assert_null(strstr(response, wrong));
    assert_int_equal(signin(&p, "1.zz", response, sizeof response), 403);
    assert_non_null(strstr(body_of(response), "\"player\":null"));
    assert_int_equal(serve_http(&p, "GET /signin HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                "Connection: close\r\n\r\n", response, sizeof response), 403);
    assert_non_null(strstr(body_of(response), "Authorization: Bearer KEY"));
    assert_int_equal(serve_http(&p, "GET /signout HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                "Connection: close\r\n\r\n", response, sizeof response), 200);
    assert_non_null(strcasestr(response, "set-cookie: castellan_player=; Path=/; Max-Age=0"));
    assert_int_equal(serve_stop(&p), 0);
}

/* Seat `seat` of game id in the store of p as (name, registered name). */
static void assert_seat(const struct serve_process *p, int64_t id, int seat, const char *name,
                        const char *registered)
{
    struct cas__saves *s;
    struct cas__saves_game g;
    char err[1024];
    assert_int_equal(cas__saves_open_read(p->db, &s, err, sizeof err), CAS_OK);
    assert_int_equal(cas__saves_game_load(s, id, 0, &g), CAS_OK);
    cas_test_assert_player(&g.players[seat], name, registered);
    cas__saves_game_free(&g);
    cas__saves_close(s);
}

static int64_t created_game(int fd)
{
    char *m = ws_until(fd, "\"type\":\"created\"");
    const char *at = strstr(m, "\"game\":\"");
    assert_non_null(at);
    int64_t id = strtoll(at + 8, NULL, 10);
    free(m);
    return id;
}

static void test_a_player_takes_a_seat_as_themselves(void **state)
{
    (void)state;
    struct serve_process p;
    char ada[CAS__PLAYER_KEY_MAX], bob[CAS__PLAYER_KEY_MAX], cookie[256], text[512];
    start_with_players(&p, "signin-seat", ada, bob);
    /* Ada's browser: other cookies beside hers are no matter. */
    snprintf(cookie, sizeof cookie, "theme=dark; castellan_player=%s; x=1", ada);
    int a = ws_open(&p, cookie);
    ws_send(a, "{\"type\":\"hello\"}");
    char *m = ws_until(a, "\"type\":\"hello\"");
    assert_non_null(strstr(m, "\"player\":\"Ada\""));
    assert_null(strstr(m, strchr(ada, '.') + 1));
    free(m);

    /* A game with two open seats; Ada claims one as herself, whatever
     * name the claim asks for. */
    ws_send(a, "{\"type\":\"create\",\"game\":\"fixture\",\"seats\":[{\"agent\":\"open\"},"
               "{\"agent\":\"open\"}]}");
    int64_t id = created_game(a);
    snprintf(text, sizeof text, "{\"type\":\"claim\",\"game\":\"%lld\",\"seat\":0,"
             "\"name\":\"Someone\"}", (long long)id);
    ws_send(a, text);
    m = ws_until(a, "\"type\":\"claimed\"");
    free(m);
    assert_seat(&p, id, 0, "Ada", "Ada");

    /* A guest may not call themselves Bob, nor bob. */
    int g = ws_open(&p, NULL);
    ws_send(g, "{\"type\":\"hello\"}");
    m = ws_until(g, "\"type\":\"hello\"");
    assert_non_null(strstr(m, "\"player\":null"));
    assert_null(strstr(m, "signin_error"));
    free(m);
    snprintf(text, sizeof text, "{\"type\":\"claim\",\"game\":\"%lld\",\"seat\":1,"
             "\"name\":\"bob\"}", (long long)id);
    ws_send(g, text);
    m = ws_until(g, "\"type\":\"error\"");
    assert_non_null(strstr(m, "\"code\":\"name-taken\""));
    assert_non_null(strstr(m, "\\\"Bob\\\" is the name of a registered player"));
    free(m);
    /* Nor name a person's seat so at creation; a bot may be called
     * anything, and Ada may name a seat after herself. */
    ws_send(g, "{\"type\":\"create\",\"game\":\"fixture\",\"seats\":[{\"agent\":\"human\","
               "\"name\":\"ADA\"},{\"agent\":\"greedy\"}]}");
    m = ws_until(g, "\"type\":\"error\"");
    assert_non_null(strstr(m, "\"code\":\"name-taken\""));
    free(m);
    ws_send(g, "{\"type\":\"create\",\"game\":\"fixture\",\"seats\":[{\"agent\":\"human\"},"
               "{\"agent\":\"greedy\",\"name\":\"Ada\"}]}");
    free(ws_until(g, "\"type\":\"created\""));
    ws_send(a, "{\"type\":\"create\",\"game\":\"fixture\",\"seats\":[{\"agent\":\"human\","
               "\"name\":\"Ada\"},{\"agent\":\"greedy\"}]}");
    free(ws_until(a, "\"type\":\"created\""));
    /* As Carol the guest takes it: no player is recorded. */
    snprintf(text, sizeof text, "{\"type\":\"claim\",\"game\":\"%lld\",\"seat\":1,"
             "\"name\":\"Carol\"}", (long long)id);
    ws_send(g, text);
    free(ws_until(g, "\"type\":\"claimed\""));
    assert_seat(&p, id, 1, "Carol", NULL);
    close(a);
    close(g);
    assert_int_equal(serve_stop(&p), 0);

    /* The key is in no line the server logged. */
    char log[700], line[4096];
    snprintf(log, sizeof log, "%s/serve.log", p.dir);
    FILE *f = fopen(log, "r");
    assert_non_null(f);
    while (fgets(line, sizeof line, f))
        assert_null(strstr(line, strchr(ada, '.') + 1));
    fclose(f);
}

static void test_a_revoked_key_is_refused(void **state)
{
    (void)state;
    struct serve_process p;
    char ada[CAS__PLAYER_KEY_MAX], bob[CAS__PLAYER_KEY_MAX], fresh[CAS__PLAYER_KEY_MAX];
    char cookie[256], err[1024], response[8192];
    start_with_players(&p, "signin-revoked", ada, bob);
    /* The owner gives Bob a new key while the server runs (players link). */
    struct cas__saves *s;
    assert_int_equal(cas__saves_open(p.db, &s, err, sizeof err), CAS_OK);
    assert_int_equal(cas__player_key_issue(s, "bob", 1, fresh), CAS_OK);
    cas__saves_close(s);

    snprintf(cookie, sizeof cookie, "castellan_player=%s", bob);
    int b = ws_open(&p, cookie);
    ws_send(b, "{\"type\":\"hello\"}");
    char *m = ws_until(b, "\"type\":\"hello\"");
    assert_non_null(strstr(m, "\"player\":null"));
    assert_non_null(strstr(m, "\"signin_error\":\"this sign-in key no longer works"));
    free(m);
    /* The socket goes on as a guest: the lobby answers. */
    ws_send(b, "{\"type\":\"lobby\"}");
    free(ws_until(b, "\"type\":\"lobby\""));
    close(b);
    assert_int_equal(signin(&p, bob, response, sizeof response), 403);
    assert_int_equal(signin(&p, fresh, response, sizeof response), 200);
    assert_string_equal(body_of(response), "{\"player\":\"Bob\"}");
    /* A cookie of another shape is no key at all. */
    int g = ws_open(&p, "castellan_player=<script>");
    ws_send(g, "{\"type\":\"hello\"}");
    m = ws_until(g, "\"type\":\"hello\"");
    assert_non_null(strstr(m, "\"player\":null"));
    free(m);
    close(g);
    assert_int_equal(serve_stop(&p), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sign_in_sets_an_http_only_cookie),
        cmocka_unit_test(test_a_player_takes_a_seat_as_themselves),
        cmocka_unit_test(test_a_revoked_key_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
