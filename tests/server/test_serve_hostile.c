/*
 * test_serve_hostile.c — `castellan serve` run for real on loopback against
 * what a stranger's connection may do: listen on exactly the address asked
 * (checked on the listening socket itself), and stay up and answering after
 * connections that close before a complete request (connect and close, %00
 * in the path, a bad method, an oversized header, half a request, a
 * reload of a page mid WebSocket, plain HTTP on the TLS port).
 */
#include <setjmp.h>
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
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "serve_process.h"

/* A connection to the server of p; the test fails if it cannot be made. */
static int connect_to(const struct serve_process *p)
{
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)p->port)};
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
    assert_int_equal(connect(fd, (struct sockaddr *)&addr, sizeof addr), 0);
    return fd;
}

/* Wait until the server holds no socket but its listening one (it has
 * seen every connection of the test close), failing if it died.  The
 * bound only ends a test whose server hangs. */
static void settle(const struct serve_process *p)
{
    int status;
    for (int tries = 0; tries < 3000; tries++) {
        if (waitpid(p->pid, &status, WNOHANG) == p->pid)
            fail_msg("the server died (%s %d)", WIFSIGNALED(status) ? "signal" : "status",
                     WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
        if (serve_sockets(p->pid) == 1)
            return;
        usleep(10000);
    }
    fail_msg("the server still holds %zu sockets", serve_sockets(p->pid));
}

static void assert_answers(const struct serve_process *p)
{
    char body[64];
    settle(p);
    assert_int_equal(serve_http_get(p, "/healthz", body, sizeof body), 200);
    assert_string_equal(body, "ok\n");
}

/* ---------------------------------------------------- listening socket */

static int ipv6_loopback_usable(void)
{
    struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT};
    int fd = socket(AF_INET6, SOCK_STREAM, 0);
    int ok = fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0;
    if (fd >= 0)
        close(fd);
    return ok;
}

static void assert_listens_only_on(const char *listen, const char *addr)
{
    struct serve_process p;
    struct serve_listener l[4];
    serve_forget("hostile-listen");
    serve_start(&p, "hostile-listen", (const char *const[]){"--listen", listen, NULL});
    size_t n = serve_listening(p.pid, l, 4);
    assert_int_equal(n, 1);
    assert_string_equal(l[0].addr, addr);
    assert_int_equal(l[0].port, p.port);
    assert_int_equal(serve_stop(&p), 0);
}

static void test_listens_on_exactly_the_address_asked(void **state)
{
    (void)state;
    assert_listens_only_on("127.0.0.1:0", "127.0.0.1");
    assert_listens_only_on("0.0.0.0:0", "0.0.0.0");
    if (ipv6_loopback_usable()) {
        assert_listens_only_on("[::1]:0", "::1");
        assert_listens_only_on("[::]:0", "::");
    }
}

static void test_listen_that_is_not_an_address(void **state)
{
    (void)state;
    const char *build = getenv("CASTELLAN_BUILD_DIR");
    char cmd[1024], out[1024] = "";
    snprintf(cmd, sizeof cmd, "%s/host/castellan serve --listen localhost:0 --database "
             "hostile-name.db 2>&1", build);
    FILE *f = popen(cmd, "r");
    assert_non_null(f);
    size_t len = fread(out, 1, sizeof out - 1, f);
    out[len] = '\0';
    assert_int_equal(WEXITSTATUS(pclose(f)), 1);
    assert_non_null(strstr(out, "localhost is not a numeric IPv4 or IPv6 address"));
}

/* ------------------------------------------------------ hostile inputs */

/* Send text (len bytes) on a fresh connection and close it without
 * reading the answer. */
static void send_and_close(const struct serve_process *p, const char *text, size_t len)
{
    int fd = connect_to(p);
    size_t sent = 0;
    while (sent < len) {
        ssize_t n = send(fd, text + sent, len - sent, MSG_NOSIGNAL);
        if (n <= 0)
            break; /* the server may close an oversized request early */
        sent += (size_t)n;
    }
    close(fd);
}

static const char upgrade[] = "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                              "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                              "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: castellan.v1\r\n"
                              "Origin: http://127.0.0.1\r\n\r\n";

/* A page reloaded: its WebSocket (upgraded, the answer read) is dropped
 * without a close frame, as the browser's TCP connection ends. */
static void reload(const struct serve_process *p)
{
    char buf[1024];
    int fd = connect_to(p);
    assert_int_equal(send(fd, upgrade, sizeof upgrade - 1, MSG_NOSIGNAL),
                     (ssize_t)(sizeof upgrade - 1));
    ssize_t n = recv(fd, buf, sizeof buf - 1, 0);
    assert_true(n > 12);
    buf[n] = '\0';
    assert_non_null(strstr(buf, " 101 "));
    close(fd);
}

static void test_connections_closed_early(void **state)
{
    (void)state;
    static const char *const requests[] = {
        "",                                                       /* connect and close */
        "GET /%00 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
        "GET /static/a%00b.js HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
        "BREW / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n",                 /* half a request */
        "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",             /* the answer unread */
        "GET /game/1/replay.html HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
        "\x16\x03\x01\x00\x05hello",                              /* TLS on the plain port */
        "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n", /* half an upgrade */
    };
    struct serve_process p;
    serve_forget("hostile-early");
    serve_start(&p, "hostile-early", NULL);
    assert_answers(&p);
    for (size_t i = 0; i < sizeof requests / sizeof requests[0]; i++) {
        send_and_close(&p, requests[i], strlen(requests[i]));
        assert_answers(&p);
    }
    /* A header far beyond what the server reads. */
    size_t big = 256 * 1024;
    char *huge = malloc(big);
    assert_non_null(huge);
    int head = snprintf(huge, big, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ");
    memset(huge + head, 'a', big - (size_t)head - 4);
    memcpy(huge + big - 4, "\r\n\r\n", 4);
    send_and_close(&p, huge, big);
    free(huge);
    assert_answers(&p);
    for (int i = 0; i < 3; i++) {
        reload(&p);
        assert_answers(&p);
    }
    assert_int_equal(serve_stop(&p), 0);
}

/* GET /healthz over TLS with openssl s_client: the body, or "" */
static void tls_healthz(const struct serve_process *p, char *out, size_t cap)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "printf 'GET /healthz HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\n"
             "Connection: close\\r\\n\\r\\n' | openssl s_client -quiet -connect "
             "127.0.0.1:%d 2>/dev/null", p->port);
    FILE *f = popen(cmd, "r");
    assert_non_null(f);
    size_t len = fread(out, 1, cap - 1, f);
    out[len] = '\0';
    pclose(f);
}

static void test_plain_http_on_the_tls_port(void **state)
{
    (void)state;
    struct serve_process p;
    char out[4096];
    mkdir("hostile-tls", 0700);
    assert_int_equal(system("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 "
                            "-nodes -keyout hostile-tls/k.pem -out hostile-tls/c.pem -days 2 "
                            "-subj /CN=127.0.0.1 >/dev/null 2>&1"), 0);
    serve_forget("hostile-tls");
    serve_start(&p, "hostile-tls", (const char *const[]){"--cert", "hostile-tls/c.pem",
                                                         "--key", "hostile-tls/k.pem", NULL});
    tls_healthz(&p, out, sizeof out);
    assert_non_null(strstr(out, "\r\n\r\nok\n"));
    for (int i = 0; i < 3; i++) {
        static const char plain[] = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
        send_and_close(&p, plain, sizeof plain - 1);
        send_and_close(&p, "", 0);
        settle(&p);
        tls_healthz(&p, out, sizeof out);
        assert_non_null(strstr(out, "\r\n\r\nok\n"));
    }
    assert_int_equal(serve_stop(&p), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_listens_on_exactly_the_address_asked),
        cmocka_unit_test(test_listen_that_is_not_an_address),
        cmocka_unit_test(test_connections_closed_early),
        cmocka_unit_test(test_plain_http_on_the_tls_port),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
