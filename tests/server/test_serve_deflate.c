/*
 * test_serve_deflate.c — what `castellan serve` sends compressed
 * (permessage-deflate done by the server, host/server/wsdeflate.c and
 * srv_msg.c), read off the socket by watchers that speak WebSocket
 * themselves: watchers of one view are sent the very same frames; a
 * watcher that asked for server_no_context_takeover gets messages that
 * inflate alone; one that offered no compression gets plain text; one
 * with odd window parameters is served or refused, never fed what it
 * cannot inflate; and every one of them reads the same texts.
 */
#define _GNU_SOURCE /* strcasestr */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <zlib.h>

#include "buf.h"
#include "serve_client.h"
#include "serve_process.h"
#include "wsdeflate.h"

#define MAX_FRAMES 512

/* A watcher on a socket of its own: the frames it was sent, as they came
 * (first byte, payload), and their texts inflated. */
struct watcher {
    int fd;
    const char *offer;          /* Sec-WebSocket-Extensions, NULL: none */
    int upgraded, deflate, takeover;
    z_stream z;
    unsigned char first[MAX_FRAMES];
    struct cas__buf payload[MAX_FRAMES], text[MAX_FRAMES];
    size_t n;
    int over;
};

/* Upgrade w's socket, offering w->offer; note what the server took. */
static void watch(struct watcher *w, const struct serve_process *p)
{
    char req[1024], answer[2048];
    size_t got = 0;
    snprintf(req, sizeof req, "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
             "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
             "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: castellan.v1\r\n"
             "Origin: http://127.0.0.1\r\n%s%s%s\r\n", w->offer ? "Sec-WebSocket-Extensions: " : "",
             w->offer ? w->offer : "", w->offer ? "\r\n" : "");
    w->fd = serve_connect_tcp(p);
    struct timeval bound = {.tv_sec = 300};
    setsockopt(w->fd, SOL_SOCKET, SO_RCVTIMEO, &bound, sizeof bound);
    assert_int_equal(send(w->fd, req, strlen(req), MSG_NOSIGNAL), (ssize_t)strlen(req));
    /* Byte by byte up to the blank line: no frame comes before a join. */
    while (got + 1 < sizeof answer && (got < 4 || memcmp(answer + got - 4, "\r\n\r\n", 4))) {
        ssize_t n = recv(w->fd, answer + got, 1, 0);
        if (n <= 0)
            break;
        got++;
    }
    answer[got] = '\0';
    w->upgraded = strncmp(answer, "HTTP/1.1 101 ", 13) == 0;
    const char *ext = strcasestr(answer, "\r\nSec-WebSocket-Extensions:");
    w->deflate = w->upgraded && ext && strstr(ext, "permessage-deflate");
    w->takeover = w->deflate && !strstr(ext, "server_no_context_takeover");
    assert_int_equal(inflateInit2(&w->z, -15), Z_OK);
}

/* A text frame from the client: masked, uncompressed. */
static void say(const struct watcher *w, const char *text)
{
    unsigned char frame[512];
    size_t len = serve_client_frame(frame, 0x1, text);
    assert_int_equal(send(w->fd, frame, len, MSG_NOSIGNAL), (ssize_t)len);
}

/* Read the next frame; inflate it as w's offer says it must inflate. */
static void next_frame(struct watcher *w)
{
    unsigned char h[2], ext[8];
    assert_true(w->n < MAX_FRAMES);
    serve_read_exactly(w->fd, h, 2);
    uint64_t len = h[1] & 0x7f;
    assert_int_equal(h[1] & 0x80, 0); /* a server never masks */
    if (len >= 126) {
        size_t more = len == 126 ? 2 : 8;
        serve_read_exactly(w->fd, ext, more);
        len = 0;
        for (size_t i = 0; i < more; i++)
            len = len << 8 | ext[i];
    }
    struct cas__buf *payload = &w->payload[w->n], *text = &w->text[w->n];
    assert_int_equal(cas__buf_reserve(payload, (size_t)len + 4), CAS_OK);
    serve_read_exactly(w->fd, payload->data, (size_t)len);
    cas__buf_setlen(payload, (size_t)len);
    w->first[w->n++] = h[0];
    if (!(h[0] & 0x80))
        fail_msg("a fragment (first byte 0x%02x, %llu bytes) to the watcher offering %s", h[0], (unsigned long long)len, w->offer ? w->offer : "nothing");
    if (!(h[0] & 0x40)) {
        cas__buf_add(text, payload->data, payload->len);
        return;
    }
    assert_true(w->deflate);
    if (!w->takeover)
        assert_int_equal(inflateReset(&w->z), Z_OK); /* the message alone */
    memcpy(payload->data + len, "\0\0\377\377", 4);
    w->z.next_in = (unsigned char *)payload->data;
    w->z.avail_in = (uInt)len + 4;
    do {
        assert_int_equal(cas__buf_reserve(text, 4096), CAS_OK);
        w->z.next_out = (unsigned char *)text->data + text->len;
        w->z.avail_out = 4096;
        int rc = inflate(&w->z, Z_SYNC_FLUSH);
        assert_true(rc == Z_OK || rc == Z_BUF_ERROR);
        cas__buf_setlen(text, text->len + (4096 - w->z.avail_out));
    } while (w->z.avail_in || w->z.avail_out == 0);
    cas__buf_add(text, "", 1);
    text->len--;
}

static int is_update(const struct watcher *w, size_t i)
{
    return strncmp(w->text[i].data, "{\"type\":\"update\"", 16) == 0;
}

static void read_until_over(struct watcher *w)
{
    while (!w->over) {
        next_frame(w);
        const char *text = w->text[w->n - 1].data;
        assert_non_null(text);
        assert_int_equal(strncmp(text, "{\"type\":", 8), 0);
        assert_null(strstr(text, "\"type\":\"error\""));
        w->over = strstr(text, "\"over\":true") != NULL;
    }
}

static void watcher_free(struct watcher *w)
{
    for (size_t i = 0; i < w->n; i++) {
        cas__buf_free(&w->payload[i]);
        cas__buf_free(&w->text[i]);
    }
    inflateEnd(&w->z);
    if (w->fd >= 0)
        close(w->fd);
}

/* The index of w's first update. */
static size_t first_update(const struct watcher *w)
{
    for (size_t i = 0; i < w->n; i++)
        if (is_update(w, i))
            return i;
    fail_msg("no update");
    return 0;
}

static int seats_over(void *ctx)
{
    struct serve_client **s = ctx;
    return s[0]->errors || s[1]->errors || (s[0]->over && s[1]->over);
}

enum { SAME_A, SAME_B, ALONE, PLAIN, ODD, WATCHERS };

static void test_watchers_share_frames_each_as_offered(void **state)
{
    (void)state;
    static struct watcher ws[WATCHERS];
    const char *offers[WATCHERS] = {
        [SAME_A] = "permessage-deflate; client_max_window_bits",
        [SAME_B] = "permessage-deflate; client_max_window_bits",
        [ALONE] = "permessage-deflate; server_no_context_takeover; client_max_window_bits",
        [PLAIN] = NULL,
        [ODD] = "permessage-deflate; server_max_window_bits=8; client_max_window_bits=8, "
                "permessage-deflate; server_max_window_bits=99",
    };
    struct serve_process p;
    struct cas__wsc *w;
    struct serve_client a = {0}, b = {0};
    serve_forget("deflate-watch");
    serve_start(&p, "deflate-watch", NULL);
    assert_int_equal(cas__wsc_new(&serve_client_events, &w), CAS_OK);
    int64_t id = serve_create(w, &p, "{\"type\":\"create\",\"game\":\"fixture\",\"seats\":["
                              "{\"name\":\"Ada\",\"agent\":\"human\"},{\"name\":\"Bob\","
                              "\"agent\":\"human\"}],\"practice\":true,\"seed\":\"5\"}", &a, &b);
    char join[128];
    snprintf(join, sizeof join, "{\"type\":\"join\",\"game\":\"%lld\"}", (long long)id);
    /* Every watcher has its full state before the first move. */
    for (int i = 0; i < WATCHERS; i++) {
        ws[i] = (struct watcher){.fd = -1, .offer = offers[i]};
        watch(&ws[i], &p);
        if (!ws[i].upgraded) {
            assert_int_equal(i, ODD); /* only the odd offer may be refused */
            continue;
        }
        say(&ws[i], join);
        do
            next_frame(&ws[i]);
        while (strncmp(ws[i].text[ws[i].n - 1].data, "{\"type\":\"state\"", 15) != 0);
    }
    /* SAME_B's window differs from SAME_A's by a pong: a compressor per
     * connection would never send them the same bytes again, one that
     * compresses after the last message (and the one before when that is
     * short, as a pong is) does from the second update. */
    say(&ws[SAME_B], "{\"type\":\"ping\"}");
    next_frame(&ws[SAME_B]);
    assert_non_null(strstr(ws[SAME_B].text[ws[SAME_B].n - 1].data, "pong"));
    /* A message that short is not worth compressing: it comes in a
     * stored block (RFC 1951 3.2.4), its text as it is after 5 bytes,
     * then the sync flush's last byte. */
    const struct cas__buf *pong = &ws[SAME_B].payload[ws[SAME_B].n - 1],
                          *pong_text = &ws[SAME_B].text[ws[SAME_B].n - 1];
    assert_true(pong_text->len < CAS__WSDEFLATE_MIN);
    assert_int_equal(pong->len, pong_text->len + 6);
    assert_int_equal((unsigned char)pong->data[0], 0);
    assert_memory_equal(pong->data + 5, pong_text->data, pong_text->len);
    assert_true(ws[SAME_A].deflate && ws[SAME_A].takeover);
    assert_true(ws[ALONE].deflate && !ws[ALONE].takeover);
    assert_false(ws[PLAIN].deflate);

    struct serve_client *seats[2] = {&a, &b};
    serve_connect(w, &p, &a);
    serve_connect(w, &p, &b);
    serve_join(&a, id, 0);
    serve_join(&b, id, 1);
    serve_run_until(w, seats_over, seats);
    assert_int_equal(a.errors + b.errors, 0);
    for (int i = 0; i < WATCHERS; i++)
        if (ws[i].upgraded)
            read_until_over(&ws[i]);

    /* The same texts for all, in order, from the first update on. */
    size_t from[WATCHERS], updates = 0;
    for (int i = 0; i < WATCHERS; i++)
        from[i] = ws[i].upgraded ? first_update(&ws[i]) : 0;
    for (int i = 0; i < WATCHERS; i++) {
        if (!ws[i].upgraded)
            continue;
        assert_int_equal(ws[i].n - from[i], ws[SAME_A].n - from[SAME_A]);
        for (size_t k = 0; k < ws[i].n - from[i]; k++)
            assert_string_equal(ws[i].text[from[i] + k].data,
                                ws[SAME_A].text[from[SAME_A] + k].data);
    }
    /* Compressed when compression was taken, plain when not. */
    for (int i = 0; i < WATCHERS; i++)
        for (size_t k = 0; k < ws[i].n; k++)
            assert_int_equal(ws[i].first[k], ws[i].deflate ? 0xc1 : 0x81);
    /* Two watchers after the same message are sent the same bytes: past
     * the first update (compressed after a state for one, a pong for the
     * other) every frame is byte for byte the other's. */
    for (size_t k = 1; k < ws[SAME_A].n - from[SAME_A]; k++, updates++) {
        const struct cas__buf *x = &ws[SAME_A].payload[from[SAME_A] + k],
                              *y = &ws[SAME_B].payload[from[SAME_B] + k];
        assert_int_equal(x->len, y->len);
        assert_memory_equal(x->data, y->data, x->len);
    }
    assert_true(updates >= 3);
    /* Context takeover pays: the updates after the first are smaller
     * than the same updates compressed alone. */
    size_t shared = 0, alone = 0;
    for (size_t k = 1; k < ws[SAME_A].n - from[SAME_A]; k++) {
        shared += ws[SAME_A].payload[from[SAME_A] + k].len;
        alone += ws[ALONE].payload[from[ALONE] + k].len;
    }
    assert_true(shared < alone);
    /* SAME_B's first update came after its pong, and is compressed after
     * the state before the pong too: it refers back into the state, and is
     * much smaller than alone (after the pong alone it would be about as
     * big). */
    assert_true(2 * ws[SAME_B].payload[from[SAME_B]].len < ws[ALONE].payload[from[ALONE]].len);

    for (int i = 0; i < WATCHERS; i++)
        watcher_free(&ws[i]);
    char body[64];
    assert_int_equal(serve_http_get(&p, "/healthz", body, sizeof body), 200);
    cas__wsc_free(w);
    cas__wsc_conn_free(a.conn);
    cas__wsc_conn_free(b.conn);
    assert_int_equal(serve_stop(&p), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_watchers_share_frames_each_as_offered),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
