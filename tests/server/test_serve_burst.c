/*
 * test_serve_burst.c — requests that reach `castellan serve` in one TCP
 * segment are all answered, in order, with nothing more from the client:
 * libwebsockets hands over one message per connection per service pass
 * and keeps what it read past it (host/clients/wsclient.c), so the rest
 * must be handed over by the server's loop itself, not left for the next
 * socket event.  On the libuv loop and on libwebsockets' poll loop.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sys/socket.h>
#include <unistd.h>

#include "serve_process.h"

#define PINGS 8
#define SILENT 2 /* leaves before each ping: (1 + 2) * 8 well under the
                  * default burst of 40 messages */

static void pings_in_one_segment_all_answered(const char *loop)
{
    struct serve_process p;
    unsigned char burst[PINGS * 128];
    char msg[64], want[64];
    size_t len = 0;
    if (loop)
        setenv("CASTELLAN_SERVE_EVENT_LOOP", loop, 1);
    serve_forget("burst");
    serve_start(&p, "burst", NULL);
    unsetenv("CASTELLAN_SERVE_EVENT_LOOP");
    int fd = serve_open_websocket(&p);
    for (int i = 1; i <= PINGS; i++) {
        snprintf(msg, sizeof msg, "{\"type\":\"ping\",\"id\":%d}", i);
        /* Before each, frames that get no answer: an unsolicited pong
         * (RFC 6455 5.5.3) and leaves with no game to leave, so no reply's
         * write wakes the loop for the next message. */
        len += serve_client_frame(burst + len, 0xA, "beat");
        for (int j = 0; j < SILENT; j++)
            len += serve_client_frame(burst + len, 0x1, "{\"type\":\"leave\"}");
        len += serve_client_frame(burst + len, 0x1, msg);
    }
    /* One write; after it the client only reads. */
    assert_int_equal(send(fd, burst, len, MSG_NOSIGNAL), (ssize_t)len);
    for (int i = 1; i <= PINGS; i++) {
        serve_next_text(fd, msg, sizeof msg);
        snprintf(want, sizeof want, "{\"type\":\"pong\",\"id\":%d}", i);
        assert_string_equal(msg, want);
    }
    close(fd);
    assert_int_equal(serve_stop(&p), 0);
}

static void test_burst_answered_on_libuv(void **state)
{
    (void)state;
    pings_in_one_segment_all_answered(NULL);
}

static void test_burst_answered_on_poll(void **state)
{
    (void)state;
    pings_in_one_segment_all_answered("poll");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_burst_answered_on_libuv),
        cmocka_unit_test(test_burst_answered_on_poll),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
