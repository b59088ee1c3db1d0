/*
 * test_server.c — castellan serve's lobby and tables in process, with
 * connections that only collect what they are sent and a clock the test
 * moves: the protocol's decoder (every error path), the JSON writer's
 * escaping, create/list/claim/join, who may act (tokens, turns, stale and
 * illegal actions), that a seat's secrets never reach another viewer,
 * strict undo, resuming after a dropped connection and after a restart,
 * Fischer clocks down to a flag fall, and correspondence games (days per
 * move) across restarts and downtime, with the notify-command hook.
 */
#define _GNU_SOURCE /* memmem */
#include <setjmp.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <libwebsockets.h>
#include <sqlite3.h>

#include "json.h"
#include "picture_patch.h"
#include "saves.h"
#include "loop_guard.h"
#include "table.h"
#include "tconn.h"
#include "wsclient.h"

/* ------------------------------------------------------------ helpers */

static int is_state(const char *m)
{
    return strncmp(m, "{\"type\":\"state\"", 15) == 0 ||
           strncmp(m, "{\"type\":\"update\"", 16) == 0;
}

/* c's last full state, or NULL. */
static const char *last_full(const struct tconn *c)
{
    for (size_t i = c->n; i-- > 0;)
        if (strncmp(c->msgs[i], "{\"type\":\"state\"", 15) == 0)
            return c->msgs[i];
    return NULL;
}

/* Whether message m shows Red's hand: a line of the text view that starts
 * with Red's label and lists "hand:" before the line ends. */
static int shows_red_hand(const char *m)
{
    for (const char *at = strstr(m, "Red "); at; at = strstr(at + 1, "Red ")) {
        const char *hand = strstr(at, "hand:"), *eol = strstr(at, "\\n");
        if (hand && (!eol || hand < eol))
            return 1;
    }
    return 0;
}

/* Whether m tells which card Red drew ("Red draws a 7"; the public event
 * is "Red draws a card"). */
static int shows_red_draw(const char *m)
{
    for (const char *at = strstr(m, "Red draws a "); at; at = strstr(at + 1, "Red draws a "))
        if (at[12] >= '0' && at[12] <= '9')
            return 1;
    return 0;
}

static int64_t fake_now;

static int64_t fake_clock(void *ctx)
{
    (void)ctx;
    return fake_now;
}

/* The time of day (Unix ms) for correspondence deadlines: moved by days
 * where the monotonic clock moves by seconds. */
static int64_t fake_wall_now = 1796000000000;

static int64_t fake_wall(void *ctx)
{
    (void)ctx;
    return fake_wall_now;
}

static const struct cas__srv_clock clock_of_test = {.now_ms = fake_clock,
                                                    .wall_ms = fake_wall};

struct world {
    char db[512];
    struct cas__saves *store;
    struct cas__lobby lobby;
};

static void world_open_on(struct world *w, const char *name, int fresh, const char *path);

static void world_open(struct world *w, const char *name, int fresh)
{
    world_open_on(w, name, fresh, NULL);
}

/* A lobby whose plugins are looked for in path first (NULL: the default
 * search path). */
static void world_open_on(struct world *w, const char *name, int fresh, const char *path)
{
    char err[1024];
    snprintf(w->db, sizeof w->db, "%s.db", name);
    if (fresh)
        tconn_fresh_db(w->db);
    assert_int_equal(cas__saves_open(w->db, &w->store, err, sizeof err), CAS_OK);
    assert_int_equal(cas__lobby_open(&w->lobby, w->store, path, NULL, &clock_of_test, NULL,
                                     err, sizeof err), CAS_OK);
    assert_int_equal(cas__lobby_restore_all(&w->lobby, err, sizeof err), CAS_OK);
}

static void world_close(struct world *w)
{
    cas__lobby_close(&w->lobby);
    /* The loop's code made no plugin call of its own (loop_guard.h). */
    assert_int_equal(cas__loop_slow_calls(), 0);
    assert_int_equal(cas__loop_store_calls(), 0);
    cas__saves_close(w->store);
}

/* Decode and handle one message from c, as within a turn of the loop:
 * what the tables owe waits for the next flush. */
static void handle(struct world *w, struct tconn *c, const char *text)
{
    struct cas__req req;
    const char *code;
    char msg[512];
    if (cas__req_decode(text, strlen(text), &req, &code, msg, sizeof msg) != CAS_OK) {
        struct cas__jw jw;
        cas__jw_init(&jw);
        cas__req_error(&jw, req.id, code, msg);
        cas__conn_send_jw(&c->base, &jw);
        return;
    }
    cas__lobby_handle(&w->lobby, &c->base, &req);
    cas__req_free(&req);
}

/* Handle one message from c, then send what is owed (the loop's turn
 * ends). */
static void say(struct world *w, struct tconn *c, const char *text)
{
    handle(w, c, text);
    cas__lobby_flush(&w->lobby);
}

static void sayf(struct world *w, struct tconn *c, const char *fmt, ...) CAS_PRINTF(3, 4);
static void sayf(struct world *w, struct tconn *c, const char *fmt, ...)
{
    char text[2048];
    va_list args;
    va_start(args, fmt);
    vsnprintf(text, sizeof text, fmt, args);
    va_end(args);
    say(w, c, text);
}

/* The error code of c's last message, "" when it is no error. */
static const char *error_code(const struct tconn *c)
{
    static char code[64];
    const char *at = strstr(tconn_last(c), "\"code\":\"");
    code[0] = '\0';
    if (strncmp(tconn_last(c), "{\"type\":\"error\"", 15) == 0 && at)
        sscanf(at + 8, "%63[^\"]", code);
    return code;
}

/* Create a game; its id and the tokens of its seats. */
static int64_t create(struct world *w, const char *msg, char tokens[][64], size_t n)
{
    struct tconn c;
    struct cas__botclient_view v;
    tconn_init(&c);
    say(w, &c, msg);
    assert_int_equal(cas__botclient_read(tconn_last(&c), strlen(tconn_last(&c)), &v), CAS_OK);
    if (strcmp(v.type, "created") != 0)
        fail_msg("create failed: %s", tconn_last(&c));
    int64_t id = v.game;
    cas__botclient_view_free(&v);
    for (size_t i = 0; i < n; i++) {
        char key[48];
        snprintf(key, sizeof key, "{\"seat\":%zu,\"token\":\"", i);
        const char *at = strstr(tconn_last(&c), key);
        assert_non_null(at);
        sscanf(at + strlen(key), "%63[^\"]", tokens[i]);
    }
    tconn_free(&c);
    return id;
}

/* Join game id as seat (-1: watch) with the text view when text. */
static void join_as(struct world *w, struct tconn *c, int64_t id, int seat, const char *token,
                    int text)
{
    if (seat >= 0)
        sayf(w, c, "{\"type\":\"join\",\"game\":\"%lld\",\"seat\":%d,\"token\":\"%s\","
             "\"text\":%s}", (long long)id, seat, token, text ? "true" : "false");
    else
        sayf(w, c, "{\"type\":\"join\",\"game\":%lld,\"text\":%s}", (long long)id,
             text ? "true" : "false");
}

static void join(struct world *w, struct tconn *c, int64_t id, int seat, const char *token)
{
    join_as(w, c, id, seat, token, 0);
}

/* Let whichever of the seats decides play the first legal action it was
 * sent, once; 1 when someone acted. */
static int play_one(struct world *w, int64_t id, struct tconn *seats, size_t n)
{
    struct tconn *each[2];
    assert_true(n <= 2);
    (void)id;
    for (size_t i = 0; i < n; i++)
        each[i] = &seats[i];
    return tconn_play_first(&w->lobby, each, n) >= 0;
}

static struct cas__table *table(struct world *w, int64_t id)
{
    struct cas__table *t = cas__lobby_find(&w->lobby, id);
    assert_non_null(t);
    return t;
}

static const char two_humans[] =
    "{\"type\":\"create\",\"game\":\"fixture\",\"practice\":true,\"seed\":\"9\",\"seats\":["
    "{\"name\":\"Ada\",\"agent\":\"human\"},{\"name\":\"Bob\",\"agent\":\"human\"}]}";

/* The act of whichever seat decides, into act; that seat's index. */
static size_t act_of_decider(struct tconn seats[2], char *act, size_t cap)
{
    for (size_t i = 0; i < 2; i++) {
        struct cas__botclient_view v;
        const char *m = tconn_last_state(&seats[i]);
        if (!m)
            continue;
        assert_int_equal(cas__botclient_read(m, strlen(m), &v), CAS_OK);
        int acts = cas__botclient_act(&v, 0, act, cap);
        cas__botclient_view_free(&v);
        if (acts)
            return i;
    }
    fail_msg("no seat decides");
    return 0;
}

/* ------------------------------------------------------------ protocol */

static void expect_refused(const char *text, const char *code, const char *words)
{
    struct cas__req req;
    const char *got;
    char msg[512];
    assert_int_not_equal(cas__req_decode(text, strlen(text), &req, &got, msg, sizeof msg),
                         CAS_OK);
    assert_string_equal(got, code);
    if (!strstr(msg, words))
        fail_msg("decoding %s: \"%s\" does not say \"%s\"", text, msg, words);
}

static void test_decoder_refuses_every_bad_message(void **state)
{
    (void)state;
    expect_refused("", "bad-message", "not one JSON object");
    expect_refused("[1,2]", "bad-message", "not one JSON object");
    expect_refused("{\"type\":\"ping\"} x", "bad-message", "not one JSON object");
    expect_refused("{}", "bad-message", "no \"type\"");
    expect_refused("{\"type\":7}", "bad-message", "no \"type\"");
    expect_refused("{\"type\":\"dance\"}", "unknown-type", "\"dance\"");
    expect_refused("{\"type\":\"ping\",\"id\":{}}", "bad-message", "\"id\"");
    expect_refused("{\"type\":\"ping\",\"id\":\"0123456789012345678901234567890123456789"
                   "01234567890123456789012345\"}", "bad-message", "\"id\"");
    expect_refused("{\"type\":\"join\"}", "bad-message", "needs \"game\"");
    expect_refused("{\"type\":\"join\",\"game\":\"x1\"}", "bad-message", "\"game\"");
    expect_refused("{\"type\":\"join\",\"game\":\"-3\"}", "bad-message", "\"game\"");
    expect_refused("{\"type\":\"join\",\"game\":0}", "bad-message", "\"game\"");
    expect_refused("{\"type\":\"join\",\"game\":1.5}", "bad-message", "\"game\"");
    expect_refused("{\"type\":\"join\",\"game\":1,\"seat\":0}", "bad-message", "\"token\"");
    expect_refused("{\"type\":\"join\",\"game\":1,\"seat\":99,\"token\":\"a\"}", "bad-message",
                   "\"seat\"");
    expect_refused("{\"type\":\"join\",\"game\":1,\"seat\":0,\"token\":5}", "bad-message",
                   "\"token\" must be a string");
    expect_refused("{\"type\":\"act\",\"game\":1,\"action\":\"x\"}", "bad-message", "\"ply\"");
    expect_refused("{\"type\":\"create\",\"preset\":\"default\",\"clock\":{\"days_per_move\":0}}",
                   "bad-message", "clock.days_per_move");
    expect_refused("{\"type\":\"create\",\"preset\":\"default\",\"clock\":{\"days_per_move\":15}}",
                   "bad-message", "clock.days_per_move");
    expect_refused("{\"type\":\"create\",\"preset\":\"default\",\"clock\":{\"days_per_move\":2,"
                   "\"base_ms\":60000}}", "bad-message", "choose one");
    expect_refused("{\"type\":\"act\",\"game\":1,\"ply\":-1,\"action\":\"x\"}", "bad-message",
                   "\"ply\"");
    expect_refused("{\"type\":\"act\",\"game\":1,\"ply\":1,\"action\":\"a\\u0000b\"}",
                   "bad-message", "NUL");
    expect_refused("{\"type\":\"undo\"}", "bad-message", "\"game\"");
    expect_refused("{\"type\":\"preview\",\"game\":1,\"ply\":2}", "bad-message",
                   "\"action\"");
    expect_refused("{\"type\":\"lobby\",\"deltas\":\"yes\"}", "bad-message", "\"deltas\"");
    expect_refused("{\"type\":\"lobby\",\"deltas\":true,\"since\":-2}", "bad-message",
                   "\"since\"");
    expect_refused("{\"type\":\"lobby\",\"deltas\":true,\"since\":\"7\"}", "bad-message",
                   "\"since\"");
    expect_refused("{\"type\":\"hint\",\"game\":true}", "bad-message", "\"game\"");
    expect_refused("{\"type\":\"claim\",\"game\":1}", "bad-message", "\"seat\"");
    expect_refused("{\"type\":\"claim\",\"game\":1,\"seat\":0,\"name\":\"a,b\"}", "bad-message",
                   "comma");
    expect_refused("{\"type\":\"create\"}", "bad-message", "\"preset\"");
    expect_refused("{\"type\":\"create\",\"game\":\"fixture\"}", "bad-message", "\"seats\"");
    expect_refused("{\"type\":\"create\",\"game\":\"fixture\",\"seats\":[]}", "bad-message",
                   "\"seats\"");
    expect_refused("{\"type\":\"create\",\"game\":\"fixture\",\"seats\":[1]}", "bad-message",
                   "seat 0");
    expect_refused("{\"type\":\"create\",\"game\":\"fixture\",\"seats\":[{\"name\":\"\"}]}",
                   "bad-message", "empty");
    expect_refused("{\"type\":\"create\",\"preset\":\"default\",\"expansions\":\"x\"}",
                   "bad-message", "\"expansions\"");
    expect_refused("{\"type\":\"create\",\"preset\":\"default\",\"rules\":[]}", "bad-message",
                   "\"rules\"");
    expect_refused("{\"type\":\"create\",\"preset\":\"default\",\"rules\":{\"a\":{}}}",
                   "bad-message", "rule \"a\"");
    expect_refused("{\"type\":\"create\",\"preset\":\"default\",\"clock\":5}", "bad-message",
                   "\"clock\"");
    expect_refused("{\"type\":\"create\",\"preset\":\"default\",\"clock\":{\"base_ms\":10}}",
                   "bad-message", "clock.base_ms");
    expect_refused("{\"type\":\"create\",\"preset\":\"default\",\"clock\":{\"base_ms\":60000,"
                   "\"increment_ms\":-1}}", "bad-message", "clock.increment_ms");

    struct cas__req req;
    const char *code;
    char msg[256];
    const char ok[] = "{\"type\":\"act\",\"id\":\"q\\\"1\",\"game\":\"12\",\"ply\":3,"
                      "\"action\":\"play 4\",\"future\":[1]}";
    assert_int_equal(cas__req_decode(ok, strlen(ok), &req, &code, msg, sizeof msg), CAS_OK);
    assert_int_equal(req.type, CAS__REQ_ACT);
    assert_int_equal(req.game, 12);
    assert_int_equal(req.ply, 3);
    assert_string_equal(req.action, "play 4");
    assert_string_equal(req.id, "\"q\\\"1\"");
    cas__req_free(&req);
}

static void test_writer_escapes_strings(void **state)
{
    (void)state;
    struct cas__jw w;
    cas__jw_init(&w);
    cas__jw_str(&w, "a\"b\\c\n\x01</script>\xff\xc3\xa9");
    assert_string_equal(cas__jw_text(&w),
                        "\"a\\\"b\\\\c\\n\\u0001<\\/script>\\ufffd\xc3\xa9\"");
    cas__jw_free(&w);
}

static void test_writer_writes_integers_as_printf_does(void **state)
{
    (void)state;
    const int64_t values[] = {0, 7, -1, 10, -10, 123456789, INT64_MAX, INT64_MIN};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        char want[32];
        snprintf(want, sizeof want, "%" PRId64, values[i]);
        struct cas__jw w;
        cas__jw_init(&w);
        cas__jw_int(&w, values[i]);
        assert_string_equal(cas__jw_text(&w), want);
        cas__jw_free(&w);
    }
    const uint64_t unsigned_values[] = {0, 9, 10, 4294967295u, (uint64_t)INT64_MAX + 1,
                                        UINT64_MAX};
    for (size_t i = 0; i < sizeof unsigned_values / sizeof unsigned_values[0]; i++) {
        char want[32];
        snprintf(want, sizeof want, "x%" PRIu64, unsigned_values[i]);
        struct cas__jw w;
        cas__jw_init(&w);
        cas__jw_raw(&w, "x");
        cas__jw_uint(&w, unsigned_values[i]);
        assert_string_equal(cas__jw_text(&w), want);
        cas__jw_free(&w);
    }
}

static void test_writer_writes_booleans(void **state)
{
    (void)state;
    struct cas__jw w;
    cas__jw_init(&w);
    cas__jw_bool(&w, 1);
    cas__jw_raw(&w, ",");
    cas__jw_bool(&w, 0);
    cas__jw_raw(&w, ",");
    cas__jw_bool(&w, -3);
    assert_string_equal(cas__jw_text(&w), "true,false,true");
    cas__jw_free(&w);
}

/* ASCII byte c as a JSON string carries it, after byte prev. */
static void escaped_ascii(char *out, unsigned char c, unsigned char prev)
{
    if (c == '"' || c == '\\')
        sprintf(out, "\\%c", c);
    else if (c == '\n')
        strcpy(out, "\\n");
    else if (c < 0x20 || c == 0x7F)
        sprintf(out, "\\u%04x", c);
    else if (c == '/' && prev == '<')
        strcpy(out, "\\/");
    else
        sprintf(out, "%c", c);
}

/* text[0..n) written as a JSON string is want (its opening quote and
 * escaped bytes) with the closing quote. */
static void expect_escaped(const char *text, size_t n, char *want)
{
    strcat(want, "\"");
    struct cas__jw w;
    cas__jw_init(&w);
    cas__jw_strn(&w, text, n);
    assert_string_equal(cas__jw_text(&w), want);
    cas__jw_free(&w);
}

/* The writer copies plain bytes a word at a time: each byte that needs an
 * escape, or UTF-8, at each place in and across a word, alone or after
 * '<', is written as one at a time would be. */
static void test_writer_escapes_each_byte_wherever_it_falls(void **state)
{
    (void)state;
    const char *utf8[] = {"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x8f\xb0"};
    for (size_t at = 0; at < 20; at++) {
        for (int c = 0; c < 0x80 + 4; c++) {
            char text[32], want[64], one[16];
            memset(text, 'x', sizeof text);
            if (at > 0 && (c + at) % 2)
                text[at - 1] = '<';
            size_t n = 24;
            if (c < 0x80) {
                text[at] = (char)(c ? c : 'x');
            } else if (c < 0x83) {
                memcpy(text + at, utf8[c - 0x80], strlen(utf8[c - 0x80]));
            } else {
                text[at] = (char)0xff;
            }
            strcpy(want, "\"");
            for (size_t i = 0; i < n; i++) {
                unsigned char b = (unsigned char)text[i];
                if (b >= 0x80 && c >= 0x80 && c < 0x83 && i == at) {
                    strcat(want, utf8[c - 0x80]);
                    i += strlen(utf8[c - 0x80]) - 1;
                    continue;
                }
                if (b == 0xff) {
                    strcat(want, "\\ufffd");
                    continue;
                }
                escaped_ascii(one, b, i ? (unsigned char)text[i - 1] : 0);
                strcat(want, one);
            }
            expect_escaped(text, n, want);
        }
    }
}

/* Text as dense with escapes as a picture's (quotes, slashes, "</"), and
 * denser, with control bytes, DEL, UTF-8 and bad bytes among them, at
 * every length up to 100: written as one byte at a time would be. */
static void test_writer_escapes_dense_text(void **state)
{
    (void)state;
    static const char *const pieces[] = {"x", "\"", "\\", "/", "<", "</", "\n", "\x01",
                                         "\x7f", "\xc3\xa9", "\xff", "=", " "};
    const size_t kinds = sizeof pieces / sizeof *pieces;
    uint64_t r = 12345;
    for (int round = 0; round < 3000; round++) {
        char text[256], want[2048], one[16];
        size_t n = 0, limit = (size_t)round % 101;
        strcpy(want, "\"");
        while (n < limit) {
            r = r * 6364136223846793005u + 1442695040888963407u;
            /* mostly plain and quotes, as a picture is */
            size_t k = (r >> 33) % 4 ? ((r >> 40) % 2 ? 0 : 1 + (r >> 45) % 4) : (r >> 50) % kinds;
            const char *piece = pieces[k];
            for (const char *c = piece; *c; c++) {
                unsigned char b = (unsigned char)*c;
                if (b == 0xc3) {
                    strcat(want, "\xc3\xa9");
                } else if (b == 0xa9) {
                    /* written with its lead byte */
                } else if (b == 0xff) {
                    strcat(want, "\\ufffd");
                } else {
                    escaped_ascii(one, b, n ? (unsigned char)text[n - 1] : 0);
                    strcat(want, one);
                }
                text[n++] = (char)b;
            }
        }
        expect_escaped(text, n, want);
    }
}

/* ------------------------------------------------------- lobby, seats */

static void test_create_list_claim_join(void **state)
{
    (void)state;
    struct world w;
    struct tconn lobby, bob, carol;
    char tokens[2][64];
    world_open(&w, "lobby", 1);
    tconn_init(&lobby);
    tconn_init(&bob);
    tconn_init(&carol);
    say(&w, &lobby, "{\"type\":\"lobby\",\"id\":1}");
    assert_non_null(strstr(tconn_last(&lobby), "\"presets\":["));
    assert_non_null(strstr(tconn_last(&lobby), "{\"id\":\"fixture\""));
    assert_non_null(strstr(tconn_last(&lobby), "\"id\":1"));

    int64_t id = create(&w, "{\"type\":\"create\",\"game\":\"fixture\",\"seats\":["
                        "{\"name\":\"Ada\",\"agent\":\"human\"},{\"agent\":\"open\"}]}",
                        tokens, 2);
    /* The lobby heard of it, with the open seat. */
    assert_non_null(strstr(tconn_last(&lobby), "\"status\":\"open\""));
    size_t lists = lobby.n;
    sayf(&w, &bob, "{\"type\":\"claim\",\"game\":\"%lld\",\"seat\":0}", (long long)id);
    assert_string_equal(error_code(&bob), "not-open");
    sayf(&w, &bob, "{\"type\":\"claim\",\"game\":\"%lld\",\"seat\":5}", (long long)id);
    assert_string_equal(error_code(&bob), "not-found");
    sayf(&w, &bob, "{\"type\":\"claim\",\"game\":\"999\",\"seat\":1}");
    assert_string_equal(error_code(&bob), "not-found");
    sayf(&w, &bob, "{\"type\":\"claim\",\"game\":\"%lld\",\"seat\":1,\"name\":\"Bob\"}",
         (long long)id);
    assert_non_null(strstr(tconn_last(&bob), "\"type\":\"claimed\""));
    char claimed[64];
    assert_int_equal(sscanf(strstr(tconn_last(&bob), "\"token\":\"") + 9, "%63[0-9a-f]", claimed), 1);
    assert_string_not_equal(claimed, tokens[1]);
    snprintf(tokens[1], sizeof tokens[1], "%s", claimed);
    sayf(&w, &carol, "{\"type\":\"claim\",\"game\":\"%lld\",\"seat\":1}", (long long)id);
    assert_string_equal(error_code(&carol), "not-open");
    /* The list goes at most once a second, with whatever changed. */
    assert_int_equal(lobby.n, lists);
    fake_now += CAS__LOBBY_EVERY_MS;
    cas__lobby_flush(&w.lobby);
    assert_int_equal(lobby.n, lists + 1);
    assert_non_null(strstr(tconn_last(&lobby), "\"status\":\"running\""));
    assert_non_null(strstr(tconn_last(&lobby), "\"name\":\"Bob\""));

    /* A wrong token joins nothing; the right one acts for the seat. */
    join(&w, &carol, id, 1, tokens[0]);
    assert_string_equal(error_code(&carol), "bad-token");
    join(&w, &carol, id, 1, "");
    assert_string_equal(error_code(&carol), "bad-token");
    join(&w, &bob, id, 1, tokens[1]);
    assert_non_null(strstr(tconn_last(&bob), "\"type\":\"state\""));
    assert_non_null(strstr(tconn_last(&bob), "\"you\":1"));
    /* The claim is in the store: a restart keeps the name and the seat. */
    struct cas__saves_game g;
    assert_int_equal(cas__saves_game_load(w.store, id, 0, &g), CAS_OK);
    assert_string_equal(g.players[1].name, "Bob");
    cas__saves_game_free(&g);
    tconn_free(&lobby);
    tconn_free(&bob);
    tconn_free(&carol);
    cas__lobby_disconnect(&w.lobby, &lobby.base);
    cas__lobby_disconnect(&w.lobby, &bob.base);
    world_close(&w);
}

/* Both seats of game id join with their tokens, and watch watches if it
 * is not NULL; each connection starts empty. */
static void seat_both_text(struct world *w, int64_t id, char tokens[2][64],
                           struct tconn seats[2], struct tconn *watch, int text)
{
    for (int i = 0; i < 2; i++) {
        tconn_init(&seats[i]);
        join_as(w, &seats[i], id, i, tokens[i], text);
    }
    if (watch) {
        tconn_init(watch);
        join_as(w, watch, id, -1, NULL, text);
    }
}

static void seat_both(struct world *w, int64_t id, char tokens[2][64], struct tconn seats[2],
                      struct tconn *watch)
{
    seat_both_text(w, id, tokens, seats, watch, 0);
}

static void test_only_the_seat_acts(void **state)
{
    (void)state;
    struct world w;
    struct tconn seats[2], watch;
    char tokens[2][64];
    world_open(&w, "trust", 1);
    int64_t id = create(&w, two_humans, tokens, 2);
    seat_both(&w, id, tokens, seats, &watch);
    struct cas__table *t = table(&w, id);
    int actor = cas__table_actor(t);
    assert_true(actor == 0 || actor == 1);
    struct tconn *mover = &seats[actor], *other = &seats[1 - actor];
    uint32_t ply = t->r.session.ply;

    /* A watcher, the other seat, a stale ply, an illegal action: refused,
     * and nothing changes. */
    sayf(&w, &watch, "{\"type\":\"act\",\"game\":%lld,\"ply\":%u,\"action\":\"pass\"}",
         (long long)id, ply);
    assert_string_equal(error_code(&watch), "bad-token");
    sayf(&w, other, "{\"type\":\"act\",\"game\":%lld,\"ply\":%u,\"action\":\"pass\",\"id\":7}",
         (long long)id, ply);
    assert_string_equal(error_code(other), "not-your-turn");
    assert_non_null(strstr(tconn_last(other), "\"id\":7"));
    sayf(&w, mover, "{\"type\":\"act\",\"game\":%lld,\"ply\":%u,\"action\":\"pass\"}",
         (long long)id, ply + 5);
    assert_string_equal(error_code(mover), "stale");
    sayf(&w, mover, "{\"type\":\"act\",\"game\":%lld,\"ply\":%u,\"action\":\"fly away\"}",
         (long long)id, ply);
    assert_string_equal(error_code(mover), "illegal");
    sayf(&w, mover, "{\"type\":\"undo\",\"game\":%lld}", (long long)id);
    assert_string_equal(error_code(mover), "cannot-undo");
    assert_int_equal(t->r.session.ply, ply);
    struct cas__saves_game g;
    assert_int_equal(cas__saves_game_load(w.store, id, 0, &g), CAS_OK);
    assert_int_equal(g.n_actions, ply);
    cas__saves_game_free(&g);

    /* A hint names one of the legal actions. */
    sayf(&w, mover, "{\"type\":\"hint\",\"game\":%lld,\"id\":\"h\"}", (long long)id);
    assert_non_null(strstr(tconn_last(mover), "{\"type\":\"hint\",\"id\":\"h\""));

    /* The mover's legal action goes through and everyone hears of it. */
    size_t before = watch.n;
    assert_true(play_one(&w, id, seats, 2));
    assert_true(t->r.session.ply > ply);
    assert_true(watch.n > before);
    for (int i = 0; i < 2; i++)
        tconn_free(&seats[i]);
    tconn_free(&watch);
    world_close(&w);
}

/* Seat 0's private events ("Red draws a N") and hand ("Red ... hand:")
 * reach seat 0 and nobody else, in any message, over a whole game. */
static void test_secrets_stay_with_their_seat(void **state)
{
    (void)state;
    struct world w;
    struct tconn seats[2], watch;
    char tokens[2][64];
    world_open(&w, "secret", 1);
    int64_t id = create(&w, two_humans, tokens, 2);
    seat_both_text(&w, id, tokens, seats, &watch, 1);
    for (int i = 0; i < 500 && !table(&w, id)->over; i++)
        assert_true(play_one(&w, id, seats, 2));
    assert_true(table(&w, id)->over);
    int seen_by_owner = 0;
    for (size_t i = 0; i < seats[0].n; i++)
        seen_by_owner += shows_red_draw(seats[0].msgs[i]);
    assert_true(seen_by_owner > 0);
    const struct tconn *others[] = {&seats[1], &watch};
    for (size_t k = 0; k < 2; k++)
        for (size_t i = 0; i < others[k]->n; i++) {
            const char *m = others[k]->msgs[i];
            if (shows_red_draw(m) || shows_red_hand(m))
                fail_msg("a secret of seat 0 reached viewer %zu: %s", k, m);
        }
    /* Seat 0's own view shows its hand (the check above can see one); the
     * watcher's shows nobody's. */
    int red_saw_hand = 0;
    for (size_t i = 0; i < seats[0].n; i++)
        red_saw_hand |= shows_red_hand(seats[0].msgs[i]);
    assert_true(red_saw_hand);
    for (size_t i = 0; i < watch.n; i++)
        assert_null(strstr(watch.msgs[i], "hand:"));
    for (int i = 0; i < 2; i++)
        tconn_free(&seats[i]);
    tconn_free(&watch);
    world_close(&w);
}

/* ------------------------------------------------- secrets at rest */

/* Whether the file at path holds text's bytes anywhere. */
static int file_holds(const char *path, const char *text)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    char *bytes = NULL;
    size_t len = 0, cap = 0, got;
    do {
        if (len == cap) {
            cap = cap ? cap * 2 : 65536;
            bytes = realloc(bytes, cap);
            assert_non_null(bytes);
        }
        got = fread(bytes + len, 1, cap - len, f);
        len += got;
    } while (got);
    fclose(f);
    int found = memmem(bytes, len, text, strlen(text)) != NULL;
    free(bytes);
    return found;
}

/* Run sql on the SQLite store at path with a plain connection. */
static void sql_on(const char *path, const char *sql)
{
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
}

/* The store keeps a seat token's SHA-256 only: no file of it holds the
 * token.  A store of schema 3 (tokens in clear) is hashed by the
 * migration, and the invite links handed out before it still work. */
static void test_tokens_are_kept_as_hashes(void **state)
{
    (void)state;
    struct world w;
    struct tconn seats[2];
    struct cas__saves_served sv;
    char tokens[2][64], hash[CAS__HASH_LEN + 1], sql[512], side[600];
    world_open(&w, "hashed", 1);
    int64_t id = create(&w, two_humans, tokens, 2);
    assert_int_equal(cas__saves_served_load(w.store, id, &sv), CAS_OK);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(strlen(tokens[i]), CAS__TOKEN_LEN);
        assert_int_equal(cas__sha256_hex(tokens[i], hash), CAS_OK);
        assert_string_equal(sv.seats[i].token, hash);
        assert_true(cas__table_token_ok(table(&w, id), i, tokens[i]));
        assert_false(cas__table_token_ok(table(&w, id), i, hash));
    }
    cas__saves_served_free(&sv);
    world_close(&w);
    snprintf(side, sizeof side, "%s-wal", w.db);
    for (int i = 0; i < 2; i++)
        assert_false(file_holds(w.db, tokens[i]) || file_holds(side, tokens[i]));

    /* As an older castellan left it: the tokens in clear, schema 3. */
    for (int i = 0; i < 2; i++) {
        snprintf(sql, sizeof sql, "UPDATE served_seats SET token = '%s' WHERE game = %lld "
                 "AND seat = %d;", tokens[i], (long long)id, i);
        sql_on(w.db, sql);
    }
    sql_on(w.db, "DROP INDEX players_by_registered;"
                 "ALTER TABLE players DROP COLUMN registered;"
                 "DROP TABLE registered_players;"
                 "DROP INDEX games_finished;"
                 "ALTER TABLE served_games DROP COLUMN forfeit;"
                 "ALTER TABLE served_seats DROP COLUMN bot;"
                 "ALTER TABLE served_games DROP COLUMN practice;"
                 "ALTER TABLE served_games DROP COLUMN seed_nonce;"
                 "ALTER TABLE served_games DROP COLUMN days_per_move;"
                 "ALTER TABLE served_games DROP COLUMN first_deadline;"
                 "PRAGMA user_version = 3;");
    world_open(&w, "hashed", 0);
    assert_int_equal(cas__saves_schema_version(w.store), CAS__SAVES_SCHEMA_VERSION);
    seat_both(&w, id, tokens, seats, NULL);
    for (int i = 0; i < 2; i++) {
        assert_string_equal(error_code(&seats[i]), "");
        char you[16];
        snprintf(you, sizeof you, "\"you\":%d", i);
        assert_non_null(strstr(tconn_last(&seats[i]), you));
        tconn_free(&seats[i]);
    }
    world_close(&w);
    for (int i = 0; i < 2; i++)
        assert_false(file_holds(w.db, tokens[i]) || file_holds(side, tokens[i]));
}

/* Claiming an open seat mints a token of its own: the creator's token
 * for that seat stops working, on a connection that joined with it, for a
 * new join, and after a restart. */
static void test_a_claim_revokes_the_creators_token(void **state)
{
    (void)state;
    struct world w;
    struct tconn creator, bob;
    char tokens[2][64], claimed[64];
    world_open(&w, "revoke", 1);
    int64_t id = create(&w, "{\"type\":\"create\",\"game\":\"fixture\",\"seats\":["
                        "{\"agent\":\"human\"},{\"agent\":\"open\"}]}", tokens, 2);
    tconn_init(&creator);
    tconn_init(&bob);
    join(&w, &creator, id, 1, tokens[1]);
    assert_non_null(strstr(tconn_last(&creator), "\"you\":1"));
    assert_int_equal(table(&w, id)->seats[1].connected, 1);
    sayf(&w, &bob, "{\"type\":\"claim\",\"game\":\"%lld\",\"seat\":1,\"name\":\"Bob\"}",
         (long long)id);
    assert_int_equal(sscanf(strstr(tconn_last(&bob), "\"token\":\"") + 9, "%63[0-9a-f]", claimed),
                     1);
    assert_string_not_equal(claimed, tokens[1]);
    /* The creator's connection watches now. */
    assert_non_null(strstr(tconn_last_state(&creator), "\"you\":null"));
    assert_int_equal(table(&w, id)->seats[1].connected, 0);
    sayf(&w, &creator, "{\"type\":\"undo\",\"game\":%lld}", (long long)id);
    assert_string_equal(error_code(&creator), "bad-token");
    join(&w, &creator, id, 1, tokens[1]);
    assert_string_equal(error_code(&creator), "bad-token");
    join(&w, &bob, id, 1, claimed);
    assert_non_null(strstr(tconn_last(&bob), "\"you\":1"));
    tconn_free(&creator);
    tconn_free(&bob);
    world_close(&w);

    world_open(&w, "revoke", 0);
    tconn_init(&creator);
    tconn_init(&bob);
    join(&w, &creator, id, 1, tokens[1]);
    assert_string_equal(error_code(&creator), "bad-token");
    join(&w, &bob, id, 1, claimed);
    assert_non_null(strstr(tconn_last(&bob), "\"you\":1"));
    tconn_free(&creator);
    tconn_free(&bob);
    world_close(&w);
}

/* ------------------------------------------------------- fair draws */

/* The string field key of message m into out ("" when null or absent). */
static void field_of(const char *m, const char *key, char *out, size_t cap)
{
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\":\"", key);
    const char *at = strstr(m, pattern);
    out[0] = '\0';
    if (at) {
        at += strlen(pattern);
        size_t n = strcspn(at, "\"");
        snprintf(out, cap, "%.*s", (int)(n < cap ? n : cap - 1), at);
    }
}

/* A served game's seed is the server's: its commitment is published from
 * the start, the seed only at the end, and then the seed with its secret
 * hashes to the commitment.  The creator may choose a seed only for a
 * practice game, marked so in the lobby, the state and the store. */
static void test_seeds_are_committed_and_revealed(void **state)
{
    (void)state;
    struct world w;
    struct tconn seats[2], watch, c;
    struct cas__saves_served sv;
    struct cas__saves_game g;
    char tokens[2][64], commitment[80], again[80], seed[32], reveal[128], hash[80];
    world_open(&w, "draws", 1);
    int64_t id = create(&w, "{\"type\":\"create\",\"game\":\"fixture\",\"seats\":["
                        "{\"agent\":\"human\"},{\"agent\":\"human\"}]}", tokens, 2);
    seat_both(&w, id, tokens, seats, &watch);
    assert_int_equal(cas__saves_game_load(w.store, id, 0, &g), CAS_OK);
    char stored[32];
    snprintf(stored, sizeof stored, "%" PRIu64, g.seed);
    cas__saves_game_free(&g);
    field_of(tconn_last_state(&watch), "seed_commitment", commitment, sizeof commitment);
    assert_int_equal(strlen(commitment), CAS__HASH_LEN);
    assert_non_null(strstr(tconn_last_state(&watch), "\"practice\":false"));
    assert_non_null(strstr(tconn_last_state(&watch), "\"seed\":null"));
    assert_non_null(strstr(tconn_last_state(&watch), "\"seed_reveal\":null"));
    for (int i = 0; i < 6; i++)
        assert_true(play_one(&w, id, seats, 2));

    /* A restart keeps the commitment. */
    for (int i = 0; i < 2; i++)
        tconn_free(&seats[i]);
    tconn_free(&watch);
    world_close(&w);
    world_open(&w, "draws", 0);
    seat_both(&w, id, tokens, seats, &watch);
    field_of(tconn_last_state(&watch), "seed_commitment", again, sizeof again);
    assert_string_equal(again, commitment);
    for (int i = 0; i < 500 && !table(&w, id)->over; i++) {
        const struct tconn *all[] = {&seats[0], &seats[1], &watch};
        for (size_t k = 0; k < 3; k++)
            if (strstr(tconn_last_state(all[k]), "\"seed\":\""))
                fail_msg("the seed was shown before the end: %s", tconn_last_state(all[k]));
        assert_true(play_one(&w, id, seats, 2));
    }
    assert_true(table(&w, id)->over);
    field_of(tconn_last_state(&watch), "seed", seed, sizeof seed);
    field_of(tconn_last_state(&watch), "seed_reveal", reveal, sizeof reveal);
    field_of(tconn_last_state(&watch), "seed_commitment", again, sizeof again);
    assert_string_equal(seed, stored);
    assert_string_equal(again, commitment);
    assert_int_equal(strncmp(reveal, seed, strlen(seed)), 0);
    assert_int_equal(reveal[strlen(seed)], ':');
    assert_int_equal(strlen(reveal + strlen(seed) + 1), 32);
    assert_int_equal(cas__sha256_hex(reveal, hash), CAS_OK);
    assert_string_equal(hash, commitment);
    for (int i = 0; i < 2; i++)
        tconn_free(&seats[i]);
    tconn_free(&watch);

    /* A chosen seed: only for a practice game, shown as such. */
    tconn_init(&c);
    say(&w, &c, "{\"type\":\"lobby\"}");
    say(&w, &c, "{\"type\":\"create\",\"game\":\"fixture\",\"seed\":\"9\",\"seats\":["
                "{\"agent\":\"human\"},{\"agent\":\"human\"}]}");
    assert_string_equal(error_code(&c), "bad-config");
    assert_non_null(strstr(tconn_last(&c), "practice"));
    say(&w, &c, "{\"type\":\"create\",\"preset\":\"fixture\"}");
    assert_string_equal(error_code(&c), "bad-config");
    say(&w, &c, "{\"type\":\"create\",\"game\":\"fixture\",\"seed\":\"9\","
                "\"practice\":\"yes\",\"seats\":[{\"agent\":\"human\"}]}");
    assert_string_equal(error_code(&c), "bad-message");
    /* Well-formed, but a description that fails half built (its game
     * already set): refused with the field named, nothing hosted. */
    say(&w, &c, "{\"type\":\"create\",\"game\":\"fixture\",\"practice\":true,"
                "\"seed\":\"-1\",\"seats\":[{\"agent\":\"human\"},{\"agent\":\"human\"}]}");
    assert_string_equal(error_code(&c), "bad-config");
    assert_non_null(strstr(tconn_last(&c), "seed \\\"-1\\\" is not valid"));
    say(&w, &c, "{\"type\":\"create\",\"game\":\"fixture\",\"rules\":{\"Bad Key\":\"1\"},"
                "\"seats\":[{\"agent\":\"human\"},{\"agent\":\"human\"}]}");
    assert_string_equal(error_code(&c), "bad-config");
    assert_non_null(strstr(tconn_last(&c), "is not an option name"));
    assert_int_equal(w.lobby.n_tables, 1);
    int64_t practice = create(&w, two_humans, tokens, 2);
    assert_non_null(strstr(tconn_last(&c), "\"practice\":true"));
    seat_both(&w, practice, tokens, seats, NULL);
    assert_non_null(strstr(last_full(&seats[0]), "\"practice\":true"));
    assert_non_null(strstr(last_full(&seats[0]), "\"seed\":\"9\""));
    assert_non_null(strstr(last_full(&seats[0]), "\"seed_commitment\":null"));
    assert_int_equal(cas__saves_served_load(w.store, practice, &sv), CAS_OK);
    assert_int_equal(sv.practice, 1);
    assert_null(sv.seed_nonce);
    cas__saves_served_free(&sv);
    assert_int_equal(cas__saves_served_load(w.store, id, &sv), CAS_OK);
    assert_int_equal(sv.practice, 0);
    assert_non_null(sv.seed_nonce);
    cas__saves_served_free(&sv);
    for (int i = 0; i < 2; i++)
        tconn_free(&seats[i]);
    tconn_free(&c);
    cas__lobby_disconnect(&w.lobby, &c.base);
    world_close(&w);
}

/* ------------------------------------------- undo, reconnect, restart */

static void test_undo_reconnect_and_restart(void **state)
{
    (void)state;
    struct world w;
    struct tconn seats[2];
    char tokens[2][64];
    world_open(&w, "resume", 1);
    int64_t id = create(&w, "{\"type\":\"create\",\"game\":\"carcassonne\",\"practice\":true,\"seed\":\"4\","
                        "\"seats\":[{\"agent\":\"human\"},{\"agent\":\"human\"}]}", tokens, 2);
    seat_both(&w, id, tokens, seats, NULL);
    struct cas__table *t = table(&w, id);
    int actor = cas__table_actor(t);
    uint32_t ply = t->r.session.ply;
    /* Place the tile: the same seat decides its figure next and may take
     * the placement back; the journal forgets it. */
    assert_true(play_one(&w, id, seats, 2));
    assert_int_equal(cas__table_actor(t), actor);
    assert_non_null(strstr(tconn_last(&seats[actor]), "\"can_undo\":true"));
    assert_non_null(strstr(tconn_last(&seats[1 - actor]), "\"can_undo\":false"));
    sayf(&w, &seats[1 - actor], "{\"type\":\"undo\",\"game\":%lld}", (long long)id);
    assert_string_equal(error_code(&seats[1 - actor]), "not-your-turn");
    sayf(&w, &seats[actor], "{\"type\":\"undo\",\"game\":%lld}", (long long)id);
    assert_int_equal(t->r.session.ply, ply);
    assert_non_null(strstr(tconn_last(&seats[actor]), "\"events_reset\":true"));
    struct cas__saves_game g;
    assert_int_equal(cas__saves_game_load(w.store, id, 0, &g), CAS_OK);
    assert_int_equal(g.n_actions, ply);
    cas__saves_game_free(&g);

    /* Play on a little, drop a connection, come back: a full state. */
    for (int i = 0; i < 6; i++)
        assert_true(play_one(&w, id, seats, 2));
    cas__lobby_disconnect(&w.lobby, &seats[1].base);
    assert_int_equal(t->seats[1].connected, 0);
    tconn_free(&seats[1]);
    tconn_init(&seats[1]);
    join(&w, &seats[1], id, 1, tokens[1]);
    assert_non_null(strstr(tconn_last(&seats[1]), "\"you\":1"));
    assert_int_equal(t->seats[1].connected, 1);
    uint32_t at = t->r.session.ply;
    uint64_t hash = t->r.session.hash;

    /* Restart in process: the game comes back at the same ply and state,
     * the same tokens act. */
    tconn_free(&seats[0]);
    tconn_free(&seats[1]);
    world_close(&w);
    world_open(&w, "resume", 0);
    t = table(&w, id);
    assert_int_equal(t->r.session.ply, at);
    assert_true(t->r.session.hash == hash);
    seat_both(&w, id, tokens, seats, NULL);
    assert_true(play_one(&w, id, seats, 2));
    assert_true(t->r.session.ply > at);
    tconn_free(&seats[0]);
    tconn_free(&seats[1]);
    world_close(&w);
}

/* A copy of served game `served` stored as `castellan play` would store
 * it (not served); its id. */
static int64_t terminal_copy(struct world *w, int64_t served)
{
    struct cas__saves_game g;
    assert_int_equal(cas__saves_game_load(w->store, served, 1, &g), CAS_OK);
    g.id = 0;
    assert_int_equal(cas__saves_game_insert(w->store, &g), CAS_OK);
    int64_t id = g.id;
    cas__saves_game_free(&g);
    return id;
}

/* A game started at the terminal (in the store, not served) is hosted on
 * request, with a token per human seat, only when the user lets the
 * server host it (serve --host-saved: that game, or all); then it plays
 * on. */
static void test_adopts_a_terminal_game(void **state)
{
    (void)state;
    struct world w;
    struct tconn c, seats[2];
    char tokens[2][64];
    world_open(&w, "adopt", 1);
    int64_t served = create(&w, two_humans, tokens, 2);
    int64_t id = terminal_copy(&w, served), other = terminal_copy(&w, served);
    struct cas__saves_game g;
    tconn_init(&c);
    sayf(&w, &c, "{\"type\":\"create\",\"resume\":\"%lld\"}", (long long)served);
    assert_string_equal(error_code(&c), "bad-config");
    sayf(&w, &c, "{\"type\":\"create\",\"resume\":\"999\"}");
    assert_string_equal(error_code(&c), "not-found");
    /* Not let: refused as if it did not exist, and nothing is stored. */
    sayf(&w, &c, "{\"type\":\"create\",\"resume\":%lld}", (long long)id);
    assert_string_equal(error_code(&c), "not-found");
    assert_non_null(strstr(tconn_last(&c), "--host-saved"));
    assert_false(cas__lobby_may_show(&w.lobby, w.store, id, NULL));
    assert_true(cas__lobby_may_show(&w.lobby, w.store, served, NULL));
    struct cas__saves_served sv;
    assert_int_equal(cas__saves_served_load(w.store, id, &sv), CAS_ENOTFOUND);
    /* --host-saved OTHER lets that one, not this one; then this one too. */
    struct cas__host_saved let;
    char err[256];
    assert_int_equal(cas__host_saved_parse("12x", &let, err, sizeof err), CAS_EINVAL);
    assert_non_null(strstr(err, "--host-saved 12x"));
    assert_int_equal(cas__host_saved_parse(",", &let, err, sizeof err), CAS_EINVAL);
    char spec[64];
    snprintf(spec, sizeof spec, "%lld", (long long)other);
    assert_int_equal(cas__host_saved_parse(spec, &let, err, sizeof err), CAS_OK);
    w.lobby.host_saved = &let;
    assert_true(cas__lobby_may_show(&w.lobby, w.store, other, NULL));
    sayf(&w, &c, "{\"type\":\"create\",\"resume\":%lld}", (long long)id);
    assert_string_equal(error_code(&c), "not-found");
    free(let.ids);
    snprintf(spec, sizeof spec, "%lld,%lld", (long long)other, (long long)id);
    assert_int_equal(cas__host_saved_parse(spec, &let, err, sizeof err), CAS_OK);
    assert_int_equal(let.n, 2);
    sayf(&w, &c, "{\"type\":\"create\",\"resume\":%lld}", (long long)id);
    assert_non_null(strstr(tconn_last(&c), "\"type\":\"created\""));
    for (int i = 0; i < 2; i++) {
        char key[48];
        snprintf(key, sizeof key, "{\"seat\":%d,\"token\":\"", i);
        assert_non_null(strstr(tconn_last(&c), key));
        sscanf(strstr(tconn_last(&c), key) + strlen(key), "%63[^\"]", tokens[i]);
        tconn_init(&seats[i]);
        join(&w, &seats[i], id, i, tokens[i]);
    }
    assert_true(play_one(&w, id, seats, 2));
    assert_int_equal(cas__saves_game_load(w.store, id, 0, &g), CAS_OK);
    assert_true(g.n_actions > 0);
    cas__saves_game_free(&g);
    free(let.ids);
    /* "all" lets every one. */
    assert_int_equal(cas__host_saved_parse("all", &let, err, sizeof err), CAS_OK);
    assert_true(cas__lobby_may_show(&w.lobby, w.store, terminal_copy(&w, served), NULL));
    tconn_free(&c);
    for (int i = 0; i < 2; i++)
        tconn_free(&seats[i]);
    world_close(&w);
}


/* ------------------------------------------------ updates and sharing */

static const struct cas_json *field(const struct cas_json *obj, const char *key)
{
    for (size_t i = 0; obj && obj->type == CAS_JSON_OBJECT && i < obj->n; i++)
        if (strcmp(obj->items[i].key, key) == 0)
            return &obj->items[i];
    return NULL;
}

/* What a page holds of a game: the picture as it follows the messages. */
struct follower {
    char *svg;
    int64_t seq;
    size_t seen, full_bytes, update_bytes, updates, changes;
};

/* Follow c's messages not yet followed as the page does: a state replaces
 * the picture, an update continues it (its number the next) with the
 * whole picture or the changes. */
static void follow(struct follower *f, const struct tconn *c)
{
    for (; f->seen < c->n; f->seen++) {
        const char *m = c->msgs[f->seen];
        struct cas__botclient_view v;
        if (!is_state(m))
            continue;
        assert_int_equal(cas__botclient_read(m, strlen(m), &v), CAS_OK);
        const struct cas_json *seq = field(v.root, "seq"), *svg = field(v.root, "svg"),
                              *changes = field(v.root, "svg_changes");
        assert_non_null(seq);
        int64_t n = strtoll(seq->text, NULL, 10);
        if (strcmp(v.type, "update") == 0) {
            if (n != f->seq + 1)
                fail_msg("update %lld follows %lld", (long long)n, (long long)f->seq);
            f->update_bytes += strlen(m);
            f->updates++;
        } else {
            f->full_bytes = strlen(m);
        }
        f->seq = n;
        if (svg) {
            free(f->svg);
            f->svg = svg->type == CAS_JSON_STRING ? strdup(svg->text) : NULL;
        } else {
            assert_non_null(changes);
            f->svg = picture_patch(f->svg, changes);
            assert_non_null(f->svg);
            f->changes++;
        }
        cas__botclient_view_free(&v);
    }
}

/* The picture of the full state c was sent last. */
static char *full_picture(const struct tconn *c)
{
    struct follower f = {0};
    const char *m = tconn_last_state(c);
    assert_non_null(m);
    assert_int_equal(strncmp(m, "{\"type\":\"state\"", 15), 0);
    follow(&f, c);
    return f.svg;
}

/* A Carcassonne game followed by its seats and a watcher through its
 * updates: at every ply the picture each holds is, element by element,
 * the one a connection joining then is sent whole; and the updates are a
 * small part of what the full states weigh. */
static void test_updates_rebuild_the_picture(void **state)
{
    (void)state;
    struct world w;
    struct tconn seats[2], watch;
    struct follower f[3] = {{0}};
    char tokens[2][64];
    world_open(&w, "updates", 1);
    int64_t id = create(&w, "{\"type\":\"create\",\"game\":\"carcassonne\",\"seed\":\"11\",\"practice\":true,"
                        "\"expansions\":[\"inns-cathedrals\",\"traders-builders\"],"
                        "\"seats\":[{\"agent\":\"human\"},{\"agent\":\"human\"}]}", tokens, 2);
    seat_both(&w, id, tokens, seats, &watch);
    struct tconn *all[3] = {&seats[0], &seats[1], &watch};
    for (int move = 0; move < 40; move++) {
        assert_true(play_one(&w, id, seats, 2));
        for (int k = 0; k < 3; k++) {
            struct tconn late;
            follow(&f[k], all[k]);
            tconn_init(&late);
            join(&w, &late, id, k < 2 ? k : -1, k < 2 ? tokens[k] : NULL);
            char *whole = full_picture(&late);
            if (!picture_same(f[k].svg, whole))
                fail_msg("viewer %d at move %d holds\n%s\nbut a join is sent\n%s", k, move,
                         f[k].svg, whole);
            free(whole);
            tconn_close(&w.lobby, &late);
        }
    }
    for (int k = 0; k < 3; k++) {
        /* Carcassonne keys its picture: every update carried changes. */
        assert_int_equal(f[k].changes, f[k].updates);
        assert_true(f[k].updates >= 20);
        if (f[k].update_bytes / f[k].updates * 3 > f[k].full_bytes)
            fail_msg("viewer %d: updates of %zu bytes on average, the full state %zu", k,
                     f[k].update_bytes / f[k].updates, f[k].full_bytes);
        free(f[k].svg);
        tconn_free(all[k]);
    }
    world_close(&w);
}

/* Each view's picture as the server holds it (drawn relative to its last
 * where the plugin can, ABI 1.4) is byte for byte the whole picture the
 * plugin renders of the table's state for that viewer, and so is what its
 * followers rebuild from the updates; `stamped` says whether the pictures
 * were drawn through render_since (they carry a stamp). */
static void expect_whole_pictures(struct cas__table *t, struct follower *f,
                                  struct tconn *const *all, int stamped)
{
    for (int k = 0; k < 3; k++) {
        int seat = k < 2 ? k : -1;
        struct cas__view *v = cas__table_view(t, seat);
        struct cas__actions legal = {0};
        int decides = seat >= 0 && cas__table_actor(t) == seat;
        size_t len = 0;
        char *whole = NULL;
        if (decides) {
            assert_int_equal(cas__match_legal(&t->r.match, t->r.session.state, &legal), CAS_OK);
            whole = cas__table_render(t, t->r.session.state, seat, CAS_RENDER_SVG_ACTIONS,
                                      &legal, 0, &len);
        }
        if (!whole)
            whole = cas__table_render(t, t->r.session.state, seat < 0 ? CAS_VIEWER_PUBLIC : seat,
                                      CAS_RENDER_SVG, NULL, 0, &len);
        assert_non_null(whole);
        const char *held = cas__picture_svg(&v->pic);
        if (v->pic.len != len || memcmp(held, whole, len) != 0)
            fail_msg("view %d holds\n%s\nbut the whole picture is\n%s", seat, held, whole);
        assert_true(stamped ? v->pic.stamp_len > 0 : v->pic.stamp == NULL);
        follow(&f[k], all[k]);
        assert_true(picture_same(f[k].svg, whole));
        free(whole);
        cas__actions_free(&legal);
    }
}

/* Carcassonne draws each view's next picture relative to its last (ABI
 * 1.4 render_since): what the server holds and sends is the whole
 * picture, also after a move taken back; a plugin without the entry (a
 * vtable of ABI 1.3) gets whole pictures drawn and sends the same. */
static void test_relative_pictures_are_whole_pictures(void **state)
{
    (void)state;
    struct world w;
    struct tconn seats[2], watch;
    struct follower f[3] = {{0}};
    char tokens[2][64];
    world_open(&w, "relative", 1);
    int64_t id = create(&w, "{\"type\":\"create\",\"game\":\"carcassonne\",\"seed\":\"5\",\"practice\":true,"
                        "\"expansions\":[\"inns-cathedrals\",\"abbey-mayor\"],"
                        "\"seats\":[{\"agent\":\"human\"},{\"agent\":\"human\"}]}", tokens, 2);
    seat_both(&w, id, tokens, seats, &watch);
    struct tconn *all[3] = {&seats[0], &seats[1], &watch};
    struct cas__table *t = table(&w, id);
    int undone = 0;
    for (int move = 0; move < 30; move++) {
        uint32_t ply = t->r.session.ply;
        assert_true(play_one(&w, id, seats, 2));
        expect_whole_pictures(t, f, all, 1);
        int actor = cas__table_actor(t); /* a placement's player deploys next */
        if (move % 3 != 2 && actor >= 0 && cas__table_can_undo(t, actor)) {
            sayf(&w, &seats[actor], "{\"type\":\"undo\",\"game\":%lld}", (long long)id);
            assert_int_equal(t->r.session.ply, ply);
            expect_whole_pictures(t, f, all, 1);
            undone++;
        }
    }
    assert_true(undone >= 3);
    /* the same plugin as one built for ABI 1.3: no render_since */
    struct cas_game_vtable old = *t->r.match.vt;
    old.struct_size = offsetof(struct cas_game_vtable, render_since);
    const struct cas_game_vtable *own = t->r.match.vt;
    t->r.match.vt = &old;
    for (int move = 0; move < 6; move++) {
        assert_true(play_one(&w, id, seats, 2));
        expect_whole_pictures(t, f, all, 0);
    }
    t->r.match.vt = own;
    for (int k = 0; k < 3; k++) {
        free(f[k].svg);
        tconn_free(all[k]);
    }
    world_close(&w);
}

/* Forty watchers cost one message per update between them, and joining
 * at one ply one full state: every one is sent the same shared message.
 * Nobody asked for the text view, so it is sent to no one. */
static void test_watchers_share_one_message(void **state)
{
    (void)state;
    struct world w;
    struct tconn seats[2], watchers[40];
    char tokens[2][64];
    world_open(&w, "share", 1);
    int64_t id = create(&w, two_humans, tokens, 2);
    seat_both(&w, id, tokens, seats, NULL);
    for (int i = 0; i < 40; i++) {
        tconn_init(&watchers[i]);
        join(&w, &watchers[i], id, -1, NULL);
    }
    assert_true(play_one(&w, id, seats, 2));
    assert_true(play_one(&w, id, seats, 2));
    for (int i = 0; i < 40; i++) {
        assert_int_equal(watchers[i].n, watchers[0].n);
        for (size_t k = 0; k < watchers[i].n; k++) {
            struct cas__botclient_view v;
            const char *m = watchers[i].msgs[k];
            assert_ptr_equal(watchers[i].sent[k], watchers[0].sent[k]);
            assert_int_equal(cas__botclient_read(m, strlen(m), &v), CAS_OK);
            assert_true(v.state);
            assert_null(field(v.root, "text"));
            cas__botclient_view_free(&v);
        }
    }
    /* The watchers' messages are not the seats'. */
    assert_ptr_not_equal(watchers[0].sent[watchers[0].n - 1], seats[0].sent[seats[0].n - 1]);
    for (int i = 0; i < 40; i++) {
        tconn_close(&w.lobby, &watchers[i]);
    }
    for (int i = 0; i < 2; i++)
        tconn_free(&seats[i]);
    world_close(&w);
}

/* A table that changes queues itself once, in the order tables changed;
 * the flush sends only what the changed tables owe (one update however
 * often a table changed), and a reply never overtakes an update owed
 * before its request.  A move's job builds its own update (offload.c):
 * what it changed goes out when the job is done. */
static void test_changed_tables_are_flushed_once(void **state)
{
    (void)state;
    struct world w;
    struct tconn seats_a[2], seats_b[2], watch_a, watch_b;
    char tokens_a[2][64], tokens_b[2][64], act[4096];
    world_open(&w, "changed", 1);
    int64_t a = create(&w, two_humans, tokens_a, 2), b = create(&w, two_humans, tokens_b, 2);
    seat_both(&w, a, tokens_a, seats_a, &watch_a);
    seat_both(&w, b, tokens_b, seats_b, &watch_b);
    struct cas__table *ta = table(&w, a), *tb = table(&w, b);
    assert_null(w.lobby.changed);
    size_t seen_a = watch_a.n, seen_b = watch_b.n;

    /* A move: one update, from its job (at once here: no pool). */
    size_t who = act_of_decider(seats_a, act, sizeof act);
    handle(&w, &seats_a[who], act);
    assert_int_equal(watch_a.n, ++seen_a);
    assert_null(w.lobby.changed);
    /* Two more changes of the same table: queued once. */
    cas__table_changed(ta);
    cas__table_owe_full(ta);
    assert_ptr_equal(w.lobby.changed, ta);
    assert_ptr_equal(w.lobby.changed_last, ta);
    assert_null(ta->next_changed);
    assert_int_equal(watch_a.n, seen_a); /* nothing sent before the flush */
    cas__lobby_flush(&w.lobby);
    assert_int_equal(watch_a.n, seen_a + 1);
    assert_non_null(strstr(tconn_last(&watch_a), "\"type\":\"update\""));
    assert_int_equal(watch_b.n, seen_b); /* b did not change: nothing */
    assert_null(w.lobby.changed);
    assert_false(ta->queued);

    /* In the order they changed. */
    cas__table_changed(tb);
    cas__table_changed(ta);
    assert_ptr_equal(w.lobby.changed, tb);
    assert_ptr_equal(tb->next_changed, ta);
    assert_ptr_equal(w.lobby.changed_last, ta);
    cas__lobby_flush(&w.lobby);
    assert_int_equal(watch_a.n, seen_a + 2);
    assert_int_equal(watch_b.n, seen_b + 1);

    /* A move and a ping in the same turn: the mover gets the update of its
     * move before the pong. */
    who = act_of_decider(seats_b, act, sizeof act);
    size_t before = seats_b[who].n;
    handle(&w, &seats_b[who], act);
    handle(&w, &seats_b[who], "{\"type\":\"ping\"}");
    assert_int_equal(seats_b[who].n, before + 2);
    assert_non_null(strstr(seats_b[who].msgs[before], "\"type\":\"update\""));
    assert_non_null(strstr(tconn_last(&seats_b[who]), "\"type\":\"pong\""));
    cas__lobby_flush(&w.lobby);

    for (int i = 0; i < 2; i++) {
        tconn_free(&seats_a[i]);
        tconn_free(&seats_b[i]);
    }
    tconn_free(&watch_a);
    tconn_free(&watch_b);
    world_close(&w);
}

/* A connection that dropped comes back with the last number it holds: the
 * updates it missed, from the history, and no full state; from a number
 * the history no longer holds, the full state.  The text view comes to the
 * connection that asks for it, after each state and update. */
static void test_resume_from_the_history(void **state)
{
    (void)state;
    struct world w;
    struct tconn seat, watch, back;
    char tokens[1][64];
    struct follower f = {0};
    world_open(&w, "history", 1);
    int64_t id = create(&w, "{\"type\":\"create\",\"game\":\"carcassonne\",\"seed\":\"5\",\"practice\":true,"
                        "\"seats\":[{\"agent\":\"human\"},{\"agent\":\"random\"}]}", tokens, 1);
    tconn_init(&seat);
    tconn_init(&watch);
    join(&w, &seat, id, 0, tokens[0]);
    join_as(&w, &watch, id, -1, NULL, 1);
    assert_non_null(strstr(tconn_last(&watch), "\"type\":\"text\""));
    follow(&f, &watch);
    int64_t held = f.seq;
    cas__lobby_disconnect(&w.lobby, &watch.base);
    for (int i = 0; i < 3; i++)
        assert_true(play_one(&w, id, &seat, 1));
    tconn_init(&back);
    sayf(&w, &back, "{\"type\":\"join\",\"game\":%lld,\"since\":%lld}", (long long)id,
         (long long)held);
    assert_true(back.n >= 3);
    for (size_t i = 0; i < back.n; i++)
        assert_int_equal(strncmp(back.msgs[i], "{\"type\":\"update\"", 16), 0);
    free(f.svg);
    memset(&f, 0, sizeof f);
    follow(&f, &watch); /* the picture held when it dropped */
    f.seen = 0;
    follow(&f, &back);
    struct tconn late;
    tconn_init(&late);
    join(&w, &late, id, -1, NULL);
    char *whole = full_picture(&late);
    assert_true(picture_same(f.svg, whole));
    free(whole);
    free(f.svg);
    /* Resuming from a number long gone: the full state. */
    tconn_close(&w.lobby, &back);
    tconn_init(&back);
    sayf(&w, &back, "{\"type\":\"join\",\"game\":%lld,\"since\":%lld}", (long long)id,
         (long long)(held - 100));
    assert_int_equal(back.n, 1);
    assert_int_equal(strncmp(back.msgs[0], "{\"type\":\"state\"", 15), 0);
    assert_null(strstr(back.msgs[0], "\"text\":"));
    cas__lobby_disconnect(&w.lobby, &back.base);
    cas__lobby_disconnect(&w.lobby, &late.base);
    tconn_free(&back);
    tconn_free(&late);
    tconn_free(&watch);
    tconn_free(&seat);
    world_close(&w);
}

/* The array named key of message m, as text ("" when it has none; no
 * text in it holds a ']'). */
static char *array_of(const char *m, const char *key)
{
    char name[64];
    snprintf(name, sizeof name, ",\"%s\":[", key);
    const char *at = strstr(m, name);
    const char *end = at ? strchr(at, ']') : NULL;
    if (!at || !end)
        return strdup("");
    return strndup(at, (size_t)(end + 1 - at));
}

/* A seat's page that dropped comes back with the last number it holds:
 * its own join changes what every viewer sees (the seat is connected
 * again), and it still resumes from its view's history: exactly the
 * updates numbered after the one it held, those a watcher that never left
 * was sent (the same numbers, the same moves), no full state; and the
 * picture it rebuilds is the one a fresh join of the seat is sent. */
static void test_a_seat_resumes_from_the_history(void **state)
{
    (void)state;
    struct world w;
    struct tconn seats[2], watch, back, late;
    char tokens[2][64];
    struct follower f = {0}, fresh = {0};
    world_open(&w, "seat_history", 1);
    int64_t id = create(&w, "{\"type\":\"create\",\"game\":\"carcassonne\",\"seed\":\"5\","
                        "\"practice\":true,\"seats\":[{\"agent\":\"human\"},"
                        "{\"agent\":\"human\"}]}", tokens, 2);
    seat_both(&w, id, tokens, seats, &watch);
    struct cas__table *t = table(&w, id);
    /* Play until seat 0 has just finished its turn: seat 1 decides. */
    for (int moves = 0; moves < 4 || cas__table_actor(t) != 1; moves++) {
        assert_true(moves < 40);
        assert_true(play_one(&w, id, seats, 2));
    }
    follow(&f, &seats[0]);
    int64_t held = f.seq;
    size_t watched = watch.n;
    cas__lobby_disconnect(&w.lobby, &seats[0].base);
    cas__lobby_flush(&w.lobby);
    /* Seat 1 plays its whole turn while seat 0 is away. */
    for (int moves = 0; cas__table_actor(t) != 0; moves++) {
        assert_true(moves < 10);
        assert_true(play_one(&w, id, &seats[1], 1));
    }
    tconn_init(&back);
    sayf(&w, &back, "{\"type\":\"join\",\"game\":\"%lld\",\"seat\":0,\"token\":\"%s\","
         "\"since\":%lld}", (long long)id, tokens[0], (long long)held);
    /* What it missed: the seat leaving, seat 1's moves and its own return,
     * as the watcher was sent them. */
    assert_int_equal((int64_t)t->seq - held, (int64_t)back.n);
    assert_true(back.n >= 4);
    assert_int_equal(watch.n - watched, back.n);
    for (size_t i = 0; i < back.n; i++) {
        const char *m = back.msgs[i], *seen = watch.msgs[watched + i];
        assert_int_equal(strncmp(m, "{\"type\":\"update\"", 16), 0);
        struct cas__botclient_view a, b;
        assert_int_equal(cas__botclient_read(m, strlen(m), &a), CAS_OK);
        assert_int_equal(cas__botclient_read(seen, strlen(seen), &b), CAS_OK);
        assert_int_equal(strtoll(field(a.root, "seq")->text, NULL, 10), held + 1 + (int64_t)i);
        assert_string_equal(field(a.root, "seq")->text, field(b.root, "seq")->text);
        cas__botclient_view_free(&a);
        cas__botclient_view_free(&b);
        char *pa = array_of(m, "played"), *pb = array_of(seen, "played");
        assert_string_equal(pa, pb);
        free(pa);
        free(pb);
    }
    assert_non_null(strstr(tconn_last(&back), "\"connected\":true"));
    /* It decides now: the actions and the picture a fresh join is sent
     * (which makes one more update, for every viewer). */
    tconn_init(&late);
    join(&w, &late, id, 0, tokens[0]);
    follow(&fresh, &late);
    f.seen = 0;
    follow(&f, &back);
    assert_int_equal(f.seq, fresh.seq);
    assert_true(picture_same(f.svg, fresh.svg));
    char *acts = array_of(tconn_last(&back), "actions"), *want = array_of(last_full(&late), "actions");
    assert_true(strlen(acts) > strlen(",\"actions\":[]"));
    assert_string_equal(acts, want);
    free(acts);
    free(want);
    free(f.svg);
    free(fresh.svg);
    cas__lobby_disconnect(&w.lobby, &late.base);
    cas__lobby_disconnect(&w.lobby, &back.base);
    tconn_free(&late);
    tconn_free(&back);
    tconn_free(&watch);
    for (int i = 0; i < 2; i++)
        tconn_free(&seats[i]);
    world_close(&w);
}

/* A table that runs keeps no reason (every idle game would carry it): its
 * failure is the shared "" until it stops; then the reason, cut at 400
 * bytes, with where the journal stands, allocated to fit; the first
 * reason stays. */
static void test_a_stopped_tables_reason_is_its_first(void **state)
{
    (void)state;
    struct world w;
    char tokens[2][64], why[600], want[200];
    world_open(&w, "reason", 1);
    int64_t id = create(&w, two_humans, tokens, 2);
    struct cas__table *t = table(&w, id);
    assert_ptr_equal(t->failure, cas__table_fine);
    assert_null(cas__table_failure(t));
    memset(why, 'x', sizeof why - 1);
    why[sizeof why - 1] = '\0';
    cas__table_fail(t, why);
    cas__table_fail(t, "a second reason");
    const char *said = cas__table_failure(t);
    assert_non_null(said);
    snprintf(want, sizeof want, "; the game is saved up to ply %" PRIu32
             " (castellan resume %lld)", t->j.saved, (long long)id);
    assert_int_equal(strlen(said), 400 + strlen(want));
    assert_int_equal(strspn(said, "x"), 400);
    assert_string_equal(said + 400, want);
    world_close(&w);
}

/* ------------------------------------------------------ notation help */

/* The notation help is built by a table's first job (the plugin is
 * called off the loop) and shared by games of the same plugins, options
 * and players: the loop only copies it out. */
static void test_notation_help_is_built_once_and_shared(void **state)
{
    (void)state;
    struct world w;
    char tokens[2][64];
    static const char carc[] =
        "{\"type\":\"create\",\"game\":\"carcassonne\",\"seats\":[{\"agent\":\"human\"},"
        "{\"agent\":\"human\"}]}";
    world_open(&w, "help", 1);
    struct cas__table *a = table(&w, create(&w, carc, tokens, 2));
    struct cas__table *b = table(&w, create(&w, carc, tokens, 2));
    struct cas__table *f = table(&w, create(&w, two_humans, tokens, 2));
    assert_true(cas__help_ready(a) && cas__help_ready(b) && cas__help_ready(f));
    assert_ptr_equal(a->help, b->help);
    size_t len = 0;
    char *text = cas__help_copy(a, &len), *direct = NULL;
    size_t direct_len = 0;
    assert_non_null(text);
    FILE *out = open_memstream(&direct, &direct_len);
    assert_int_equal(cas__match_notation_help(&a->r.match, out), CAS_OK);
    fclose(out);
    assert_int_equal(len, direct_len);
    assert_memory_equal(text, direct, len);
    free(text);
    free(direct);
    assert_null(cas__help_copy(f, &len)); /* the fixture has none */
    world_close(&w);
}

/* -------------------------------------------------------------- clocks */

static void test_clocks_and_the_flag(void **state)
{
    (void)state;
    struct world w;
    struct tconn seats[2], watch;
    char tokens[2][64];
    fake_now = 1000000;
    world_open(&w, "clock", 1);
    int64_t id = create(&w, "{\"type\":\"create\",\"game\":\"fixture\",\"practice\":true,\"seed\":\"2\","
                        "\"clock\":{\"base_ms\":60000,\"increment_ms\":2000},\"seats\":["
                        "{\"agent\":\"human\"},{\"agent\":\"human\"}]}", tokens, 2);
    seat_both(&w, id, tokens, seats, &watch);
    struct cas__table *t = table(&w, id);
    int actor = cas__table_actor(t);
    /* 15 s to decide: 60 - 15 + 2 = 47 s left, journaled with the action. */
    fake_now += 15000;
    uint32_t ply = t->r.session.ply;
    assert_true(play_one(&w, id, seats, 2));
    assert_int_equal(t->seats[actor].clock_ms, 47000);
    struct cas__saves_game g;
    assert_int_equal(cas__saves_game_load(w.store, id, 1, &g), CAS_OK);
    assert_true(g.actions[ply].has_clock);
    assert_int_equal(g.actions[ply].clock_ms, 47000);
    assert_int_equal(g.actions[ply].actor, actor);
    cas__saves_game_free(&g);
    assert_non_null(strstr(tconn_last(&watch), "\"clock_ms\":47000"));

    /* Nothing falls before the time is up; then the actor's flag falls. */
    int next = cas__table_actor(t);
    int64_t left = t->seats[next].clock_ms;
    fake_now += left - 1;
    cas__lobby_check_clocks(&w.lobby);
    assert_false(t->over);
    fake_now += 1;
    cas__lobby_check_clocks(&w.lobby);
    cas__lobby_flush(&w.lobby);
    assert_true(t->over);
    assert_int_equal(t->flagged, next);
    char expect[64];
    snprintf(expect, sizeof expect, "\"reason\":\"flag\",\"flagged\":%d", next);
    assert_non_null(strstr(tconn_last(&watch), expect));
    snprintf(expect, sizeof expect, "\"winners\":[%d]", 1 - next);
    assert_non_null(strstr(tconn_last(&watch), expect));
    sayf(&w, &seats[next], "{\"type\":\"act\",\"game\":%lld,\"ply\":%u,\"action\":\"pass\"}",
         (long long)id, t->r.session.ply);
    assert_string_equal(error_code(&seats[next]), "over");
    assert_int_equal(cas__saves_game_load(w.store, id, 0, &g), CAS_OK);
    assert_int_equal(g.status, CAS__SAVES_FINISHED);
    cas__saves_game_free(&g);
    struct cas__saves_served sv;
    assert_int_equal(cas__saves_served_load(w.store, id, &sv), CAS_OK);
    assert_int_equal(sv.flagged, next);
    cas__saves_served_free(&sv);
    for (int i = 0; i < 2; i++)
        tconn_free(&seats[i]);
    tconn_free(&watch);
    world_close(&w);
}

/* ------------------------------------------------------------ resources */

static const char two_bots[] =
    "{\"type\":\"create\",\"game\":\"fixture\",\"seats\":[{\"agent\":\"random\"},"
    "{\"agent\":\"random\"}]}";

/* Only live games count against max-games; a finished game leaves memory
 * once keep_finished newer ones finished (its journal stays in the store);
 * every table is found by its id among hundreds. */
static void test_finished_games_leave_memory(void **state)
{
    (void)state;
    struct world w;
    struct cas__srv_limits limits;
    struct tconn c, watcher;
    char err[1024], tokens[2][64];
    cas__srv_limits_default(&limits);
    limits.max_games = 2;
    limits.keep_finished = 1;
    snprintf(w.db, sizeof w.db, "finished.db");
    unlink(w.db);
    assert_int_equal(cas__saves_open(w.db, &w.store, err, sizeof err), CAS_OK);
    assert_int_equal(cas__lobby_open(&w.lobby, w.store, NULL, NULL, &clock_of_test, &limits,
                                     err, sizeof err), CAS_OK);
    tconn_init(&c);
    tconn_init(&watcher);
    /* Two live games fill the server. */
    int64_t live = create(&w, two_humans, tokens, 2);
    int64_t first = create(&w, two_bots, tokens, 0); /* bots finish it at once */
    assert_true(table(&w, first)->over);
    join(&w, &watcher, first, -1, NULL);
    assert_non_null(strstr(tconn_last(&watcher), "\"over\":true"));
    /* Finished games leave room: many more come and go. */
    int64_t ids[300];
    for (int i = 0; i < 300; i++) {
        ids[i] = create(&w, two_bots, tokens, 0);
        assert_true(table(&w, ids[i])->over);
        /* The live one, the last finished and the one being made. */
        assert_true(w.lobby.n_tables <= 3);
    }
    assert_int_equal(w.lobby.n_finished, 1);
    assert_non_null(cas__lobby_find(&w.lobby, live));
    assert_null(cas__lobby_find(&w.lobby, first));
    /* Each left the lobby's list where it was: the list is whole both ways. */
    size_t listed = 0;
    for (struct cas__table *t = w.lobby.tables, *before = NULL; t; before = t, t = t->next) {
        assert_ptr_equal(t->prev, before);
        listed++;
    }
    assert_int_equal(listed, w.lobby.n_tables);
    assert_int_equal(table(&w, ids[299])->id, ids[299]);
    /* Its watcher follows nothing now, and a join is told where the
     * replay is; the store has it whole. */
    assert_null(watcher.base.table);
    join(&w, &watcher, first, -1, NULL);
    assert_string_equal(error_code(&watcher), "not-found");
    assert_non_null(strstr(tconn_last(&watcher), "/replay.html"));
    struct cas__saves_game g;
    assert_int_equal(cas__saves_game_load(w.store, first, 1, &g), CAS_OK);
    assert_int_equal(g.status, CAS__SAVES_FINISHED);
    cas__saves_game_free(&g);
    /* Two live games are still the most. */
    create(&w, two_humans, tokens, 2);
    say(&w, &c, two_humans);
    assert_string_equal(error_code(&c), "full");
    /* Many live tables, each found by its id. */
    world_close(&w);
    limits.max_games = 1000;
    assert_int_equal(cas__saves_open(w.db, &w.store, err, sizeof err), CAS_OK);
    assert_int_equal(cas__lobby_open(&w.lobby, w.store, NULL, NULL, &clock_of_test, &limits,
                                     err, sizeof err), CAS_OK);
    for (int i = 0; i < 300; i++)
        ids[i] = create(&w, two_humans, tokens, 2);
    for (int i = 0; i < 300; i++)
        assert_int_equal(table(&w, ids[i])->id, ids[i]);
    assert_null(cas__lobby_find(&w.lobby, ids[299] + 1));
    tconn_free(&c);
    tconn_free(&watcher);
    world_close(&w);
}

/* Score events carry what scored (protocol 2's "score": the scorer, the
 * points, the plugin's category and whether in the final scoring), so a
 * client sums points by category without reading the events' text. */
static void test_score_events_say_what_scored(void **state)
{
    (void)state;
    struct world w;
    struct tconn watcher;
    char tokens[1][64];
    world_open(&w, "scores", 1);
    int64_t id = create(&w, "{\"type\":\"create\",\"game\":\"carcassonne\",\"seed\":\"5\","
                        "\"practice\":true,\"seats\":[{\"agent\":\"random\"},"
                        "{\"agent\":\"random\"}]}", tokens, 0);
    assert_true(table(&w, id)->over); /* the bots played it through */
    tconn_init(&watcher);
    join(&w, &watcher, id, -1, NULL);
    const char *m = tconn_last_state(&watcher);
    assert_non_null(m);
    size_t scores = 0, finals = 0;
    for (const char *at = strstr(m, ",\"score\":{"); at; at = strstr(at + 1, ",\"score\":{")) {
        int player, n = 0;
        long long points;
        char category[32], final[8];
        if (sscanf(at, ",\"score\":{\"player\":%d,\"points\":%lld,\"category\":\"%31[a-z-]\","
                   "\"final\":%7[a-z]}%n", &player, &points, category, final, &n) != 4 || !n)
            fail_msg("a score event without its category: %.160s", at);
        assert_true(player == 0 || player == 1);
        assert_true(points >= 0);
        scores++;
        finals += strcmp(final, "true") == 0;
    }
    print_message("%zu score events, %zu in the final scoring\n", scores, finals);
    assert_true(finals > 0);
    assert_true(scores > finals);
    /* Other events have none: a placement says no score. */
    assert_null(strstr(m, "\"text\":\"Red places a tile\",\"score\""));
    tconn_free(&watcher);
    world_close(&w);
}

/* No clock runs before every human seat has joined: time spent waiting
 * for the second player costs nobody anything, and no flag falls; then
 * the turn due starts its clock (docs/server.md, "Clocks"). */
static void test_clock_waits_for_every_seat(void **state)
{
    (void)state;
    struct world w;
    struct tconn seats[2];
    char tokens[2][64];
    fake_now = 5000000;
    world_open(&w, "clock-wait", 1);
    int64_t id = create(&w, "{\"type\":\"create\",\"game\":\"fixture\",\"seed\":\"2\","
                        "\"practice\":true,"
                        "\"clock\":{\"base_ms\":60000,\"increment_ms\":2000},\"seats\":["
                        "{\"agent\":\"human\"},{\"agent\":\"human\"}]}", tokens, 2);
    struct cas__table *t = table(&w, id);
    tconn_init(&seats[0]);
    join(&w, &seats[0], id, 0, tokens[0]);
    fake_now += 600000; /* ten minutes with one seat at the table */
    cas__lobby_check_clocks(&w.lobby);
    cas__lobby_flush(&w.lobby);
    assert_false(t->over);
    assert_false(t->clock_running);
    assert_non_null(strstr(tconn_last(&seats[0]), "\"running\":false"));
    assert_non_null(strstr(tconn_last(&seats[0]), "\"clock_ms\":60000}"));
    assert_null(strstr(tconn_last(&seats[0]), "\"clock_ms\":0"));
    tconn_init(&seats[1]);
    join(&w, &seats[1], id, 1, tokens[1]);
    assert_true(t->clock_running);
    cas__lobby_flush(&w.lobby);
    assert_non_null(strstr(tconn_last(&seats[0]), "\"running\":true"));
    /* From now on it runs: 15 s to decide leave 60 - 15 + 2 = 47 s. */
    int actor = cas__table_actor(t);
    fake_now += 15000;
    assert_true(play_one(&w, id, seats, 2));
    assert_int_equal(t->seats[actor].clock_ms, 47000);
    /* A seat that does not move (gone or not) keeps its clock running,
     * down to its flag. */
    int next = cas__table_actor(t);
    fake_now += t->seats[next].clock_ms;
    cas__lobby_check_clocks(&w.lobby);
    assert_true(t->over);
    assert_int_equal(t->flagged, next);
    for (int i = 0; i < 2; i++)
        tconn_free(&seats[i]);
    world_close(&w);
}

/* Plays game id to its end; returns how many states offered a seat
 * nothing but "pass". */
static int play_out(struct world *w, int64_t id, struct tconn seats[2])
{
    struct cas__table *t = table(w, id);
    int only_pass = 0;
    for (int guard = 0; !t->over && guard < 1000; guard++) {
        for (int i = 0; i < 2; i++) {
            const char *m = tconn_last_state(&seats[i]);
            only_pass += m && strstr(m, "\"actions\":[\"pass\"]") != NULL;
        }
        assert_true(play_one(w, id, seats, 2));
    }
    assert_true(t->over);
    return only_pass;
}

static size_t passes_played_for(const struct cas__table *t)
{
    size_t n = 0;
    for (size_t i = 0; i < t->n_events; i++)
        n += strstr(t->events[i].text, "passes: nothing else to do (played for them)") != NULL;
    return n;
}

/* A seat whose only legal action is "pass" is passed for, and the log
 * says so; a seat that turns that off clicks its passes itself.  In
 * Carcassonne, played by the first legal action (a figure whenever one
 * may go), the figures run out and each turn's deploy is a forced pass. */
static const char carcassonne_humans[] =
    "{\"type\":\"create\",\"game\":\"carcassonne\",\"seed\":\"5\",\"practice\":true,"
    "\"seats\":["
    "{\"name\":\"Ada\",\"agent\":\"human\"},{\"name\":\"Bob\",\"agent\":\"human\"}]}";

static void test_forced_pass(void **state)
{
    (void)state;
    struct world w;
    struct tconn seats[2];
    char tokens[2][64];
    world_open(&w, "autopass", 1);
    int64_t id = create(&w, carcassonne_humans, tokens, 2);
    seat_both(&w, id, tokens, seats, NULL);
    assert_int_equal(play_out(&w, id, seats), 0);
    size_t played = passes_played_for(table(&w, id));
    assert_true(played > 0);
    for (int i = 0; i < 2; i++)
        tconn_free(&seats[i]);

    id = create(&w, carcassonne_humans, tokens, 2);
    seat_both(&w, id, tokens, seats, NULL);
    for (int i = 0; i < 2; i++) {
        sayf(&w, &seats[i], "{\"type\":\"autopass\",\"game\":%lld,\"on\":false}",
             (long long)id);
        assert_string_equal(error_code(&seats[i]), "");
    }
    int clicked = play_out(&w, id, seats);
    assert_true(clicked > 0);
    assert_int_equal(passes_played_for(table(&w, id)), 0);
    print_message("forced passes: %zu played by the server, %d clicked with autopass off\n",
                  played, clicked);
    sayf(&w, &seats[0], "{\"type\":\"autopass\",\"game\":%lld,\"on\":1}", (long long)id);
    assert_string_equal(error_code(&seats[0]), "bad-message");
    for (int i = 0; i < 2; i++)
        tconn_free(&seats[i]);
    world_close(&w);
}

/* After a restart: the bot still plays the seat it took (the leaver's
 * link no longer does), and a game claimed from a leaver stays over with
 * reason "left", among the lobby's recent games. */
static void check_leaver_after_restart(struct world *w, int64_t id, int gone, int claim,
                                       char tokens[][64])
{
    world_close(w);
    world_open(w, "leaver", 0);
    struct cas__table *t = cas__lobby_find(&w->lobby, id);
    if (!claim) {
        assert_non_null(t);
        assert_true(t->seats[gone].bot);
        assert_string_equal(t->seats[gone].agent, CAS__LEAVER_BOT);
        assert_false(cas__table_token_ok(t, gone, tokens[gone]));
        assert_true(cas__table_token_ok(t, 1 - gone, tokens[1 - gone]));
        assert_false(t->over);
        return;
    }
    assert_null(t); /* over: not hosted again */
    struct tconn lobby;
    char expect[128];
    tconn_init(&lobby);
    say(w, &lobby, "{\"type\":\"lobby\"}");
    const char *finished = strstr(tconn_last(&lobby), "\"finished\":[");
    assert_non_null(finished);
    snprintf(expect, sizeof expect, "{\"game\":\"%lld\",", (long long)id);
    const char *game = strstr(finished, expect);
    assert_non_null(game);
    snprintf(expect, sizeof expect, "\"reason\":\"left\",\"flagged\":%d,", gone);
    assert_ptr_equal(strstr(game, "\"reason\""), strstr(game, expect));
    snprintf(expect, sizeof expect, "\"replay\":\"/game/%lld/replay.html\"", (long long)id);
    assert_non_null(strstr(game, expect));
    tconn_free(&lobby);
}

/* A seat gone at its turn: before the grace nobody may act for it; after
 * it the others are told, and may give the seat to a bot (which plays on)
 * or claim the game (the leaver ranked last, reason "left"); both are
 * journaled. */
static void test_leaver(void **state)
{
    (void)state;
    struct world w;
    struct tconn seats[2];
    char tokens[2][64];
    fake_now = 9000000;
    world_open(&w, "leaver", 1);
    for (int claim = 0; claim < 2; claim++) {
        int64_t id = create(&w, two_humans, tokens, 2);
        seat_both(&w, id, tokens, seats, NULL);
        struct cas__table *t = table(&w, id);
        int gone = cas__table_actor(t), stays = 1 - gone;
        cas__lobby_disconnect(&w.lobby, &seats[gone].base);
        const char *choice = claim ? "claim" : "bot";
        fake_now += CAS__LEAVER_GRACE_MS - 1;
        cas__lobby_check_clocks(&w.lobby);
        cas__lobby_flush(&w.lobby);
        assert_non_null(strstr(tconn_last_state(&seats[stays]), "\"leaver\":null"));
        sayf(&w, &seats[stays], "{\"type\":\"leaver\",\"game\":%lld,\"choice\":\"%s\"}",
             (long long)id, choice);
        assert_string_equal(error_code(&seats[stays]), "not-your-turn");
        fake_now += 1;
        cas__lobby_check_clocks(&w.lobby);
        cas__lobby_flush(&w.lobby);
        char expect[64];
        snprintf(expect, sizeof expect, "\"leaver\":{\"seat\":%d}", gone);
        assert_non_null(strstr(tconn_last_state(&seats[stays]), expect));
        uint32_t ply = t->r.session.ply;
        sayf(&w, &seats[stays], "{\"type\":\"leaver\",\"game\":%lld,\"choice\":\"%s\"}",
             (long long)id, choice);
        assert_string_equal(error_code(&seats[stays]), "");
        cas__lobby_flush(&w.lobby);
        if (claim) {
            assert_true(t->over);
            assert_int_equal(t->flagged, gone);
            snprintf(expect, sizeof expect, "\"reason\":\"left\",\"flagged\":%d", gone);
            assert_non_null(strstr(tconn_last_state(&seats[stays]), expect));
        } else {
            assert_true(t->seats[gone].bot);
            assert_true(t->r.session.ply > ply); /* the bot played the seat's turn */
            assert_false(t->over);
        }
        for (int i = 0; i < 2; i++)
            tconn_free(&seats[i]);
        check_leaver_after_restart(&w, id, gone, claim, tokens);
    }
    world_close(&w);
}

/* Issue 41, item 8: a plugin that names seat -5 as the one to decide (at
 * its 6th apply, rogue-seat) is refused as play refuses it: the table
 * stops with the reason and where the game is saved, which every viewer
 * is told, the game is not over, and it is hosted again after a restart
 * (where the plugin, still lying, stops it again). */
static void test_plugin_lying_about_the_seat(void **state)
{
    (void)state;
    struct world w;
    struct tconn watcher, creator;
    world_open_on(&w, "lying-seat", 1, ROGUE_PLUGIN_DIR);
    tconn_init(&creator);
    say(&w, &creator, "{\"type\":\"create\",\"game\":\"rogue-seat\",\"seed\":\"3\",\"practice\":true,\"seats\":["
                      "{\"agent\":\"random\"},{\"agent\":\"random\"}]}");
    const char *created = strstr(tconn_last(&creator), "\"game\":\"");
    assert_non_null(created);
    int64_t id = strtoll(created + 8, NULL, 10);
    struct cas__table *t = table(&w, id);
    assert_non_null(strstr(t->failure, "plugin rogue-seat broke the ABI (seat -5, where the "
                                       "seats are 0..1, -1 chance and -2 the end) in current; "
                                       "the game is saved up to ply "));
    assert_false(t->over);
    tconn_init(&watcher);
    join(&w, &watcher, id, -1, NULL);
    assert_non_null(strstr(tconn_last_state(&watcher), ",\"over\":false,"));
    assert_non_null(strstr(tconn_last_state(&watcher), ",\"failure\":\"plugin rogue-seat broke the "
                                                 "ABI (seat -5"));
    struct cas__saves_game g;
    assert_int_equal(cas__saves_game_load(w.store, id, 1, &g), CAS_OK);
    assert_int_equal(g.status, CAS__SAVES_PLAYING);
    size_t saved = g.n_actions;
    assert_true(saved >= 5);
    cas__saves_game_free(&g);
    tconn_free(&watcher);
    tconn_free(&creator);
    cas__lobby_disconnect(&w.lobby, &watcher.base);
    cas__lobby_disconnect(&w.lobby, &creator.base);
    world_close(&w);

    world_open_on(&w, "lying-seat", 0, ROGUE_PLUGIN_DIR);
    t = table(&w, id);
    assert_false(t->over);
    assert_int_equal(cas__saves_game_load(w.store, id, 1, &g), CAS_OK);
    assert_int_equal(g.status, CAS__SAVES_PLAYING);
    assert_int_equal(g.n_actions, saved);
    cas__saves_game_free(&g);
    world_close(&w);
}

/* ------------------------------------------------------ correspondence */

static const char corr_game[] =
    "{\"type\":\"create\",\"game\":\"fixture\",\"practice\":true,\"seed\":\"2\","
    "\"clock\":{\"days_per_move\":2},\"seats\":[{\"name\":\"Ada \\\"$(rm -rf /)\\\"\","
    "\"agent\":\"human\"},{\"name\":\"Bob\",\"agent\":\"human\"}]}";

/* The deadline journaled with the last action of game id. */
static int64_t journaled_deadline(struct world *w, int64_t id)
{
    struct cas__saves_game g;
    assert_int_equal(cas__saves_game_load(w->store, id, 1, &g), CAS_OK);
    assert_true(g.n_actions > 0);
    assert_true(g.actions[g.n_actions - 1].has_clock);
    int64_t deadline = g.actions[g.n_actions - 1].clock_ms;
    cas__saves_game_free(&g);
    return deadline;
}

/* A game of N days per move: its deadline starts once both seats joined,
 * is journaled with each action, is the same after two restarts, no
 * leaver grace applies, and a deadline that passed while the server was
 * down falls when it starts (docs/server.md, "Correspondence"). */
static void test_correspondence_survives_restarts(void **state)
{
    (void)state;
    struct world w;
    struct tconn seats[2], watch;
    char tokens[2][64], expect[128];
    fake_now = 1000;
    fake_wall_now = 1796000000000;
    world_open(&w, "corr", 1);
    int64_t id = create(&w, corr_game, tokens, 2);
    struct cas__table *t = table(&w, id);
    tconn_init(&seats[0]);
    join(&w, &seats[0], id, 0, tokens[0]);
    assert_non_null(strstr(tconn_last(&seats[0]), "\"clock\":{\"days_per_move\":2,\"running\":false,"
                                            "\"deadline_ms\":null}"));
    /* A day passes before Bob opens the game: it costs nobody anything. */
    fake_wall_now += CAS__DAY_MS;
    tconn_init(&seats[1]);
    join(&w, &seats[1], id, 1, tokens[1]);
    int64_t first = fake_wall_now + 2 * CAS__DAY_MS;
    assert_int_equal(t->deadline, first);
    snprintf(expect, sizeof expect, "\"running\":true,\"deadline_ms\":%" PRId64 "}", first);
    assert_non_null(strstr(tconn_last(&seats[1]), expect));
    struct cas__saves_served sv;
    assert_int_equal(cas__saves_served_load(w.store, id, &sv), CAS_OK);
    assert_int_equal(sv.days_per_move, 2);
    assert_int_equal(sv.first_deadline, first);
    cas__saves_served_free(&sv);

    /* The first mover takes a day and a half; the other gets two days from
     * then, journaled with the action. */
    int actor = cas__table_actor(t);
    fake_wall_now += CAS__DAY_MS + CAS__DAY_MS / 2;
    assert_true(play_one(&w, id, seats, 2));
    while (cas__table_actor(t) == actor && !t->over)
        assert_true(play_one(&w, id, seats, 2)); /* the rest of its turn, same deadline */
    int next = cas__table_actor(t);
    int64_t deadline = fake_wall_now + 2 * CAS__DAY_MS;
    assert_int_equal(t->deadline, deadline);
    assert_int_equal(journaled_deadline(&w, id), deadline);
    tconn_free(&seats[0]);
    tconn_free(&seats[1]);
    /* Gone for hours: a correspondence player is expected to be away. */
    fake_now += 10 * 3600 * 1000;
    cas__lobby_check_clocks(&w.lobby);
    assert_int_equal(cas__table_gone(t, fake_now), -1);
    assert_false(t->over);

    /* Two restarts, a day apart: the same deadline, the time left counted
     * from it. */
    for (int restart = 0; restart < 2; restart++) {
        world_close(&w);
        fake_wall_now += CAS__DAY_MS / 2;
        world_open(&w, "corr", 0);
        t = table(&w, id);
        assert_false(t->over);
        assert_int_equal(t->deadline, deadline);
        assert_int_equal(cas__table_actor(t), next);
    }
    tconn_init(&watch);
    join(&w, &watch, id, -1, NULL);
    snprintf(expect, sizeof expect, "\"seat\":%d,", next);
    const char *seat_at = strstr(tconn_last(&watch), expect);
    assert_non_null(seat_at);
    snprintf(expect, sizeof expect, "\"clock_ms\":%" PRId64 "}", CAS__DAY_MS);
    assert_non_null(strstr(seat_at, expect));
    tconn_free(&watch);
    /* A moment before the deadline nothing falls. */
    fake_wall_now = deadline - 1;
    cas__lobby_check_clocks(&w.lobby);
    assert_false(t->over);

    /* The server is down past the deadline: the flag falls at the start. */
    world_close(&w);
    fake_wall_now = deadline + 3 * CAS__DAY_MS;
    world_open(&w, "corr", 0);
    t = table(&w, id); /* brought back to show the result */
    assert_true(t->over);
    assert_int_equal(t->flagged, next);
    assert_int_equal(cas__saves_served_load(w.store, id, &sv), CAS_OK);
    assert_int_equal(sv.flagged, next);
    cas__saves_served_free(&sv);
    struct cas__saves_game g;
    assert_int_equal(cas__saves_game_load(w.store, id, 0, &g), CAS_OK);
    assert_int_equal(g.status, CAS__SAVES_FINISHED);
    cas__saves_game_free(&g);
    world_close(&w);
}

/* A store whose correspondence control is out of bounds (a crafted or
 * damaged file) does not bring the game back. */
static void test_correspondence_damaged_store(void **state)
{
    (void)state;
    struct world w;
    char tokens[2][64], sql[160];
    world_open(&w, "corr-damaged", 1);
    int64_t id = create(&w, corr_game, tokens, 2);
    world_close(&w);
    snprintf(sql, sizeof sql, "UPDATE served_games SET days_per_move = -3 WHERE game = %lld;",
             (long long)id);
    sql_on(w.db, sql);
    world_open(&w, "corr-damaged", 0);
    assert_null(cas__lobby_find(&w.lobby, id));
    world_close(&w);
}

/* One member of a notice by name: its text (string or number), or NULL
 * for null or none. */
static const char *notice_field(const struct cas_json *notice, const char *key)
{
    for (size_t i = 0; i < notice->n; i++)
        if (strcmp(notice->items[i].key, key) == 0)
            return notice->items[i].text;
    return NULL;
}

/* The notices the recording command got, one JSON object a line. */
static size_t read_notices(const char *path, struct cas_json **out, size_t max)
{
    char line[4096];
    size_t n = 0, at, off;
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    while (fgets(line, sizeof line, f)) {
        assert_true(n < max);
        assert_int_equal(cas__json_parse(line, strlen(line), &out[n], &at, &off), CAS_OK);
        n++;
    }
    fclose(f);
    return n;
}

static void expect_notice(const struct cas_json *notice, const char *event, int64_t id,
                          int seat, const char *player)
{
    char text[64];
    assert_string_equal(notice_field(notice, "event"), event);
    snprintf(text, sizeof text, "%lld", (long long)id);
    assert_string_equal(notice_field(notice, "game"), text);
    snprintf(text, sizeof text, "%d", seat);
    assert_string_equal(notice_field(notice, "seat"), text);
    assert_string_equal(notice_field(notice, "player"), player);
    snprintf(text, sizeof text, "/game/%lld", (long long)id);
    assert_string_equal(notice_field(notice, "link"), text);
    assert_string_equal(notice_field(notice, "days_per_move"), "2");
}

/* How many tables the next clock tick examines. */
static uint64_t examined_by_a_tick(struct world *w)
{
    uint64_t before = w->lobby.tick_examined;
    cas__lobby_check_clocks(&w->lobby);
    cas__lobby_flush(&w->lobby);
    return w->lobby.tick_examined - before;
}

/* The clock tick looks only at what may fall due: among 200 idle games it
 * examines none; a running clock when its flag falls, a correspondence
 * deadline when it passes (on the wall clock), a leaver when the grace
 * ends, and a table once after it changed.  Counted, not timed. */
static void test_the_tick_looks_only_at_what_is_due(void **state)
{
    (void)state;
    struct world w;
    struct tconn blitz[2], corr[2], left[2];
    char tokens[2][64];
    fake_now = 3000000;
    fake_wall_now = 1796000000000;
    world_open(&w, "tick", 1);
    for (int i = 0; i < 200; i++)
        create(&w, two_humans, tokens, 2);
    int64_t blitz_id = create(&w, "{\"type\":\"create\",\"game\":\"fixture\",\"practice\":true,"
                              "\"seed\":\"2\",\"clock\":{\"base_ms\":60000,\"increment_ms\":0},"
                              "\"seats\":[{\"agent\":\"human\"},{\"agent\":\"human\"}]}", tokens, 2);
    seat_both(&w, blitz_id, tokens, blitz, NULL);
    int64_t corr_id = create(&w, corr_game, tokens, 2);
    seat_both(&w, corr_id, tokens, corr, NULL);
    int64_t left_id = create(&w, two_humans, tokens, 2);
    seat_both(&w, left_id, tokens, left, NULL);
    /* The first tick looks at every table made since the last: once. */
    assert_int_equal(examined_by_a_tick(&w), 203);
    for (int i = 0; i < 5; i++) {
        fake_now += 100;
        assert_int_equal(examined_by_a_tick(&w), 0);
    }

    /* The flag: nothing until it falls, then that table alone. */
    struct cas__table *t = table(&w, blitz_id);
    int actor = cas__table_actor(t);
    fake_now = t->turn_started + t->seats[actor].clock_ms - 1;
    assert_int_equal(examined_by_a_tick(&w), 0);
    assert_false(t->over);
    fake_now += 1;
    assert_int_equal(examined_by_a_tick(&w), 1);
    assert_true(t->over);
    assert_int_equal(t->flagged, actor);
    assert_int_equal(examined_by_a_tick(&w), 1); /* it changed: once more, then never */
    assert_int_equal(examined_by_a_tick(&w), 0);

    /* A leaver: the tick after the seat went, then at the grace's end. */
    t = table(&w, left_id);
    int gone = cas__table_actor(t);
    cas__lobby_disconnect(&w.lobby, &left[gone].base);
    assert_int_equal(examined_by_a_tick(&w), 1);
    fake_now += CAS__LEAVER_GRACE_MS - 1;
    assert_int_equal(examined_by_a_tick(&w), 0);
    assert_int_equal(cas__table_gone(t, fake_now), -1);
    fake_now += 1;
    assert_int_equal(examined_by_a_tick(&w), 1);
    char expect[64];
    snprintf(expect, sizeof expect, "\"leaver\":{\"seat\":%d}", gone);
    assert_non_null(strstr(tconn_last_state(&left[1 - gone]), expect));
    assert_int_equal(examined_by_a_tick(&w), 1);
    assert_int_equal(examined_by_a_tick(&w), 0);

    /* A correspondence deadline is on the wall clock: hours of the
     * server's clock pass unexamined; the day it passes, it falls. */
    t = table(&w, corr_id);
    fake_now += 10 * 3600 * 1000;
    assert_int_equal(examined_by_a_tick(&w), 0);
    fake_wall_now = t->deadline - 1;
    assert_int_equal(examined_by_a_tick(&w), 0);
    assert_false(t->over);
    fake_wall_now += 1;
    assert_int_equal(examined_by_a_tick(&w), 1);
    assert_true(t->over);
    for (int i = 0; i < 2; i++) {
        tconn_free(&blitz[i]);
        tconn_free(&corr[i]);
        tconn_free(&left[i]);
    }
    world_close(&w);
}

/* The notify-command gets a JSON notice on stdin when a person's turn
 * begins and, per seat, when the game ends; the player's name (which
 * holds quotes and a shell's $(...)) goes only into the JSON. */
static void test_notify_command_hears_turns_and_the_end(void **state)
{
    (void)state;
    struct world w;
    struct tconn seats[2];
    struct cas_json *notices[16];
    char tokens[2][64], err[512], command[1024], out[] = "notices-XXXXXX";
    const char *names[2] = {"Ada \"$(rm -rf /)\"", "Bob"};
    int fd = mkstemp(out);
    assert_true(fd >= 0);
    close(fd);
    fake_now = 1000;
    fake_wall_now = 1796000000000;
    snprintf(command, sizeof command, "%s %s", NOTICE_SCRIPT, out);
    world_open(&w, "corr-notify", 1);
    assert_int_equal(cas__notify_new(command, 0, &w.lobby.notify, err, sizeof err), CAS_OK);
    int64_t id = create(&w, corr_game, tokens, 2);
    struct cas__table *t = table(&w, id);
    seat_both(&w, id, tokens, seats, NULL);
    int first = cas__table_actor(t);
    int64_t deadline = t->deadline;
    while (cas__table_actor(t) == first)
        assert_true(play_one(&w, id, seats, 2));
    int second = cas__table_actor(t);
    fake_wall_now = t->deadline; /* the second seat lets its time run out */
    cas__lobby_check_clocks(&w.lobby);
    assert_true(t->over);
    cas__notify_drain(w.lobby.notify);

    size_t n = read_notices(out, notices, 16);
    assert_int_equal(n, 4);
    expect_notice(notices[0], "turn", id, first, names[first]);
    char when[32];
    snprintf(when, sizeof when, "%" PRId64, deadline);
    assert_string_equal(notice_field(notices[0], "deadline_ms"), when);
    assert_string_equal(notice_field(notices[0], "deadline"), "2026-12-02T00:53:20Z");
    expect_notice(notices[1], "turn", id, second, names[second]);
    for (int i = 0; i < 2; i++) {
        expect_notice(notices[2 + i], "over", id, i, names[i]);
        assert_null(notice_field(notices[2 + i], "deadline"));
        const struct cas_json *result = NULL;
        for (size_t k = 0; k < notices[2 + i]->n; k++)
            if (strcmp(notices[2 + i]->items[k].key, "result") == 0)
                result = &notices[2 + i]->items[k];
        assert_non_null(result);
        assert_string_equal(notice_field(result, "reason"), "flag");
        snprintf(when, sizeof when, "%d", second);
        assert_string_equal(notice_field(result, "flagged"), when);
    }
    for (size_t i = 0; i < n; i++)
        cas__json_free(notices[i]);
    for (int i = 0; i < 2; i++)
        tconn_free(&seats[i]);
    cas__notify_free(w.lobby.notify);
    world_close(&w);
    unlink(out);
}

/* A notify-command is checked before the server starts: an absolute path
 * to an executable, no shell. */
static void test_notify_command_is_checked(void **state)
{
    (void)state;
    struct cas__notify *n;
    char err[512];
    assert_int_equal(cas__notify_new("record_notice.sh /tmp/x", 0, &n, err, sizeof err),
                     CAS_EINVAL);
    assert_non_null(strstr(err, "absolute path"));
    assert_int_equal(cas__notify_new("/nonexistent/notify", 0, &n, err, sizeof err), CAS_EINVAL);
    assert_non_null(strstr(err, "not an executable file"));
    assert_int_equal(cas__notify_new("", 0, &n, err, sizeof err), CAS_EINVAL);
    assert_int_equal(cas__notify_new("/bin/true\x01", 0, &n, err, sizeof err), CAS_EINVAL);
    assert_non_null(strstr(err, "control character"));
    assert_int_equal(cas__notify_new("/bin/true a b", 0, &n, err, sizeof err), CAS_OK);
    cas__notify_free(n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decoder_refuses_every_bad_message),
        cmocka_unit_test(test_writer_escapes_strings),
        cmocka_unit_test(test_writer_escapes_each_byte_wherever_it_falls),
        cmocka_unit_test(test_writer_escapes_dense_text),
        cmocka_unit_test(test_writer_writes_integers_as_printf_does),
        cmocka_unit_test(test_writer_writes_booleans),
        cmocka_unit_test(test_create_list_claim_join),
        cmocka_unit_test(test_only_the_seat_acts),
        cmocka_unit_test(test_secrets_stay_with_their_seat),
        cmocka_unit_test(test_undo_reconnect_and_restart),
        cmocka_unit_test(test_clocks_and_the_flag),
        cmocka_unit_test(test_clock_waits_for_every_seat),
        cmocka_unit_test(test_correspondence_survives_restarts),
        cmocka_unit_test(test_correspondence_damaged_store),
        cmocka_unit_test(test_notify_command_hears_turns_and_the_end),
        cmocka_unit_test(test_notify_command_is_checked),
        cmocka_unit_test(test_forced_pass),
        cmocka_unit_test(test_leaver),
        cmocka_unit_test(test_the_tick_looks_only_at_what_is_due),
        cmocka_unit_test(test_score_events_say_what_scored),
        cmocka_unit_test(test_adopts_a_terminal_game),
        cmocka_unit_test(test_updates_rebuild_the_picture),
        cmocka_unit_test(test_relative_pictures_are_whole_pictures),
        cmocka_unit_test(test_watchers_share_one_message),
        cmocka_unit_test(test_changed_tables_are_flushed_once),
        cmocka_unit_test(test_resume_from_the_history),
        cmocka_unit_test(test_a_seat_resumes_from_the_history),
        cmocka_unit_test(test_a_stopped_tables_reason_is_its_first),
        cmocka_unit_test(test_notation_help_is_built_once_and_shared),
        cmocka_unit_test(test_finished_games_leave_memory),
        cmocka_unit_test(test_tokens_are_kept_as_hashes),
        cmocka_unit_test(test_a_claim_revokes_the_creators_token),
        cmocka_unit_test(test_seeds_are_committed_and_revealed),
        cmocka_unit_test(test_plugin_lying_about_the_seat),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
