/*
 * test_serve_hostile.c — `castellan serve` run for real on loopback against
 * what a stranger's connection may do: listen on exactly the address asked
 * (checked on the listening socket itself), and stay up and answering after
 * connections that close before a complete request (connect and close, %00
 * in the path, a bad method, an oversized header, half a request, a
 * reload of a page mid WebSocket, plain HTTP on the TLS port); the
 * security headers on every answer; --www never left through a link; the
 * Host and Origin checks (DNS rebinding, another site's page).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cmocka.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "serve_process.h"

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
    int fd = serve_connect_tcp(p);
    size_t sent = 0;
    while (sent < len) {
        ssize_t n = send(fd, text + sent, len - sent, MSG_NOSIGNAL);
        if (n <= 0)
            break; /* the server may close an oversized request early */
        sent += (size_t)n;
    }
    close(fd);
}

/* A page reloaded: its WebSocket (upgraded, the answer read) is dropped
 * without a close frame, as the browser's TCP connection ends. */
static void reload(const struct serve_process *p)
{
    close(serve_open_websocket(p));
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


/* ------------------------------------------------- headers, files, hosts */

static char answer[1 << 16];

/* The status of request (Connection: close is added) with its answer in
 * `answer`. */
static int ask(const struct serve_process *p, const char *method_path, const char *headers)
{
    char req[2048];
    snprintf(req, sizeof req, "%s HTTP/1.1\r\n%sConnection: close\r\n\r\n", method_path,
             headers);
    return serve_http(p, req, answer, sizeof answer);
}

/* The value of header name (lowercase, with its colon) in `answer`'s head,
 * or NULL. */
static const char *header_of(const char *name, char *value, size_t cap)
{
    const char *end = strstr(answer, "\r\n\r\n");
    for (const char *line = strstr(answer, "\r\n"); line && line < end;
         line = strstr(line + 2, "\r\n")) {
        if (strncasecmp(line + 2, name, strlen(name)) == 0) {
            const char *v = line + 2 + strlen(name);
            v += strspn(v, " ");
            snprintf(value, cap, "%.*s", (int)strcspn(v, "\r"), v);
            return value;
        }
    }
    return NULL;
}

static void expect_security_headers(const char *what)
{
    char v[1024];
    if (!header_of("content-security-policy:", v, sizeof v) ||
        !strstr(v, "script-src 'self'") || !strstr(v, "frame-ancestors 'none'") ||
        strstr(v, "unsafe-eval"))
        fail_msg("%s: no strict Content-Security-Policy:\n%s", what, answer);
    if (!header_of("x-content-type-options:", v, sizeof v) || strcmp(v, "nosniff"))
        fail_msg("%s: no X-Content-Type-Options: nosniff:\n%s", what, answer);
    if (!header_of("x-frame-options:", v, sizeof v) || strcmp(v, "DENY"))
        fail_msg("%s: no X-Frame-Options: DENY:\n%s", what, answer);
    if (!header_of("referrer-policy:", v, sizeof v) || strcmp(v, "no-referrer"))
        fail_msg("%s: no Referrer-Policy: no-referrer:\n%s", what, answer);
}

static void test_security_headers_on_every_answer(void **state)
{
    (void)state;
    static const struct {
        const char *request;
        int status;
    } cases[] = {
        {"GET /", 200}, {"GET /static/index.html", 200}, {"GET /healthz", 200},
        {"GET /game/12", 200}, {"GET /replay.js", 200}, {"GET /static/none.js", 404},
        {"GET /nothing", 404}, {"GET /game/99/replay.html", 404}, {"POST /", 405},
        {"DELETE /healthz", 405},
    };
    struct serve_process p;
    serve_forget("hostile-headers");
    serve_start(&p, "hostile-headers", NULL);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(ask(&p, cases[i].request, "Host: 127.0.0.1\r\n"), cases[i].status);
        expect_security_headers(cases[i].request);
    }
    /* An answer libwebsockets makes itself: a path it cannot decode. */
    assert_int_equal(ask(&p, "GET /%zz", "Host: 127.0.0.1\r\n"), 403);
    expect_security_headers("a request lws refuses");
    assert_answers(&p);
    assert_int_equal(serve_stop(&p), 0);
}

static void test_www_follows_no_link(void **state)
{
    (void)state;
    struct serve_process p;
    char path[700], target[700];
    serve_forget("hostile-www");
    serve_start(&p, "hostile-www", NULL);
    /* A secret beside the folder, and links in it to the secret and to a
     * folder outside. */
    snprintf(path, sizeof path, "%s/secret.txt", p.dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("the secret\n", f);
    fclose(f);
    mkdir("hostile-www/www/sub", 0700);
    f = fopen("hostile-www/www/sub/fine.txt", "w");
    assert_non_null(f);
    fputs("fine\n", f);
    fclose(f);
    assert_non_null(realpath(path, target));
    unlink("hostile-www/www/link.txt");
    unlink("hostile-www/www/outside");
    unlink("hostile-www/www/sub/up.txt");
    assert_int_equal(symlink(target, "hostile-www/www/link.txt"), 0);
    assert_int_equal(symlink("..", "hostile-www/www/outside"), 0);
    assert_int_equal(symlink("../../secret.txt", "hostile-www/www/sub/up.txt"), 0);
    char body[256];
    assert_int_equal(serve_http_get(&p, "/static/sub/fine.txt", body, sizeof body), 200);
    assert_string_equal(body, "fine\n");
    static const char *const refused[] = {"/static/link.txt", "/static/outside/secret.txt",
                                          "/static/sub/up.txt", "/static/sub",
                                          "/static/../secret.txt"};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        assert_int_equal(serve_http_get(&p, refused[i], body, sizeof body), 404);
        assert_null(strstr(body, "secret"));
    }
    assert_int_equal(serve_stop(&p), 0);
}

/* Whether a WebSocket upgrade with these headers is accepted. */
static int upgraded(const struct serve_process *p, const char *headers)
{
    char req[2048];
    snprintf(req, sizeof req, "GET /ws HTTP/1.1\r\n%sUpgrade: websocket\r\n"
             "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
             "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: castellan.v1\r\n\r\n",
             headers);
    int fd = serve_connect_tcp(p);
    assert_int_equal(send(fd, req, strlen(req), MSG_NOSIGNAL), (ssize_t)strlen(req));
    ssize_t n = recv(fd, answer, sizeof answer - 1, 0);
    close(fd);
    answer[n > 0 ? n : 0] = '\0';
    return strncmp(answer, "HTTP/1.1 101 ", 13) == 0;
}

static void test_host_and_origin(void **state)
{
    (void)state;
    struct serve_process p;
    char own[128], hdr[512];
    serve_forget("hostile-origin");
    serve_start(&p, "hostile-origin", (const char *const[]){"--allow-host",
                                                            "games.example.org", NULL});
    snprintf(own, sizeof own, "127.0.0.1:%d", p.port);
    /* Hosts: IP addresses, localhost and the names given; not another name
     * (a DNS rebinding), nor none. */
    static const char *const hosts_ok[] = {"127.0.0.1", "localhost:1", "[::1]:80",
                                           "GAMES.example.org", "10.1.2.3:8080"};
    for (size_t i = 0; i < sizeof hosts_ok / sizeof hosts_ok[0]; i++) {
        snprintf(hdr, sizeof hdr, "Host: %s\r\n", hosts_ok[i]);
        assert_int_equal(ask(&p, "GET /healthz", hdr), 200);
    }
    static const char *const hosts_bad[] = {"rebind.example.net", "games.example.org.evil",
                                            "127.0.0.1.nip.io", "[::1", ""};
    for (size_t i = 0; i < sizeof hosts_bad / sizeof hosts_bad[0]; i++) {
        snprintf(hdr, sizeof hdr, "Host: %s\r\n", hosts_bad[i]);
        assert_int_equal(ask(&p, "GET /healthz", hdr), 403);
        expect_security_headers("a refused host");
    }
    assert_int_equal(ask(&p, "GET /healthz", ""), 403);
    /* The WebSocket: its own pages, a non-browser (no Origin), the name
     * given; not another site's page, a file, nor a rebound name. */
    snprintf(hdr, sizeof hdr, "Host: %s\r\nOrigin: http://%s\r\n", own, own);
    assert_true(upgraded(&p, hdr));
    snprintf(hdr, sizeof hdr, "Host: %s\r\n", own);
    assert_true(upgraded(&p, hdr));
    snprintf(hdr, sizeof hdr, "Host: %s\r\nOrigin: https://games.example.org\r\n", own);
    assert_true(upgraded(&p, hdr));
    static const char *const origins_bad[] = {"http://evil.example.net", "null",
                                              "http://localhost:3000", "file://",
                                              "http://127.0.0.1:1"};
    for (size_t i = 0; i < sizeof origins_bad / sizeof origins_bad[0]; i++) {
        snprintf(hdr, sizeof hdr, "Host: %s\r\nOrigin: %s\r\n", own, origins_bad[i]);
        if (upgraded(&p, hdr))
            fail_msg("a WebSocket from a page of %s was accepted", origins_bad[i]);
    }
    snprintf(hdr, sizeof hdr, "Host: rebind.example.net:%d\r\nOrigin: "
             "http://rebind.example.net:%d\r\n", p.port, p.port);
    assert_false(upgraded(&p, hdr));
    assert_answers(&p);
    assert_int_equal(serve_stop(&p), 0);
}

/* ------------------------------------------------------------ resources */

static void write_config(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* Every TCP connection counts against max-connections, an HTTP request's
 * as a WebSocket's: past it a connection is answered 503 and closed. */
static void test_connections_counted(void **state)
{
    (void)state;
    struct serve_process p;
    int ws[3];
    mkdir("hostile-count", 0700);
    write_config("hostile-count/s.ini", "[server]\nmax-connections = 3\n");
    serve_forget("hostile-count");
    serve_start(&p, "hostile-count", (const char *const[]){"--config", "hostile-count/s.ini",
                                                           NULL});
    for (int i = 0; i < 3; i++)
        ws[i] = serve_open_websocket(&p);
    assert_int_equal(ask(&p, "GET /healthz", "Host: 127.0.0.1\r\n"), 503);
    expect_security_headers("a connection past max-connections");
    assert_int_equal(ask(&p, "GET /healthz", "Host: 127.0.0.1\r\n"), 503);
    close(ws[0]);
    /* Once the server has seen it close (3 sockets: the listener, 2). */
    for (int tries = 0; serve_sockets(p.pid) != 3 && tries < 3000; tries++)
        usleep(10000);
    assert_int_equal(ask(&p, "GET /healthz", "Host: 127.0.0.1\r\n"), 200);
    close(ws[1]);
    close(ws[2]);
    assert_answers(&p);
    assert_int_equal(serve_stop(&p), 0);
}

/* The output and exit status of a shell command. */
static int shell(const char *cmd, char *out, size_t cap)
{
    FILE *f = popen(cmd, "r");
    assert_non_null(f);
    size_t len = fread(out, 1, cap - 1, f);
    out[len] = '\0';
    int status = pclose(f);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* The open-file limit is checked at start: raised when the hard limit
 * allows, else the server refuses with the number it needs. */
static void test_file_limit(void **state)
{
    (void)state;
    const char *build = getenv("CASTELLAN_BUILD_DIR");
    char cmd[2048], out[2048];
    mkdir("hostile-files", 0700);
    write_config("hostile-files/s.ini", "[server]\nmax-connections = 1000\n");
    snprintf(cmd, sizeof cmd, "ulimit -n 200 && exec %s/host/castellan serve --listen "
             "127.0.0.1:0 --database hostile-files/s.db --config hostile-files/s.ini 2>&1",
             build);
    assert_int_equal(shell(cmd, out, sizeof out), 1);
    if (!strstr(out, "max-connections 1000 needs 1064 open files") ||
        !strstr(out, "at most 200"))
        fail_msg("no precise refusal:\n%s", out);
    /* A soft limit below, a hard one above: raised, and the server runs. */
    struct serve_process p;
    struct rlimit was, low;
    char path[64], row[256];
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &was), 0);
    if (was.rlim_max != RLIM_INFINITY && was.rlim_max < 1064)
        skip();
    low = was;
    low.rlim_cur = 100;
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
    serve_forget("hostile-files");
    serve_start(&p, "hostile-files", (const char *const[]){"--config", "hostile-files/s.ini",
                                                           NULL});
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &was), 0);
    snprintf(path, sizeof path, "/proc/%d/limits", (int)p.pid);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    unsigned long soft = 0;
    while (fgets(row, sizeof row, f))
        if (sscanf(row, "Max open files %lu", &soft) == 1)
            break;
    fclose(f);
    assert_true(soft >= 1064);
    assert_answers(&p);
    assert_int_equal(serve_stop(&p), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_listens_on_exactly_the_address_asked),
        cmocka_unit_test(test_listen_that_is_not_an_address),
        cmocka_unit_test(test_connections_closed_early),
        cmocka_unit_test(test_plain_http_on_the_tls_port),
        cmocka_unit_test(test_security_headers_on_every_answer),
        cmocka_unit_test(test_www_follows_no_link),
        cmocka_unit_test(test_host_and_origin),
        cmocka_unit_test(test_connections_counted),
        cmocka_unit_test(test_file_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
