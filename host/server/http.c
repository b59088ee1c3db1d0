/*
 * http.c — the transport of castellan serve on libwebsockets: one event
 * loop serving the client's files and a few dynamic pages over HTTP, and
 * the protocol's WebSocket (path /ws, subprotocol castellan.v1).  Each
 * connection has its own send queue, capped: a client that does not read
 * is dropped and never holds up another.  Incoming messages are bounded in
 * size and rate (a token bucket) before they are decoded.
 *
 * libwebsockets, not civetweb: one thread serves thousands of idle
 * connections (civetweb spends a thread on each), which is what a server
 * of many slow turn-based games needs (docs/server.md, "Why libwebsockets").
 */
#include <libwebsockets.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "picture.h"
#include "replay_html.h"
#include "server.h"
#include "wsclient.h"

#define MAX_QUEUED_MESSAGES 1024

struct cas__httpd {
    struct lws_context *ctx;
    struct cas__lobby *lobby;
    struct cas__serve_options opts;
    char www[PATH_MAX];
    unsigned n_conns;
    size_t queued;                /* messages in every connection's queue */
    lws_sorted_usec_list_t clock_timer;
};

/* One connection: an HTTP request or a WebSocket (libwebsockets zeroes
 * it and hands it to every callback of the connection). */
struct conn {
    struct cas__conn base;        /* first: lobby and tables see this */
    struct lws *wsi;
    struct cas__httpd *h;
    int is_ws, closing;
    struct cas__srv_msg **queue;  /* ring of queued messages */
    size_t head, count, cap, queued_bytes;
    char *rx;                     /* the message being received */
    size_t rx_len, rx_cap;
    int rx_too_large;
    double tokens;                /* rate limit bucket */
    int64_t refilled_at;
    char *body;                   /* HTTP: a dynamic answer being sent */
    size_t body_len, body_sent;
};

static int64_t now(const struct cas__httpd *h)
{
    return h->lobby->clock.now_ms(h->lobby->clock.ctx);
}

/* -------------------------------------------------------- sending */

static void queue_send(struct cas__conn *base, struct cas__srv_msg *msg)
{
    struct conn *c = (struct conn *)base;
    if (c->closing)
        return;
    if (c->count == MAX_QUEUED_MESSAGES ||
        c->queued_bytes + msg->len > c->h->opts.limits.max_queue) {
        /* A client this far behind is gone or hostile: drop it. */
        c->closing = 1;
        lws_callback_on_writable(c->wsi);
        return;
    }
    if (c->count == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 8;
        struct cas__srv_msg **q = malloc(cap * sizeof *q);
        if (!q) {
            c->closing = 1;
            lws_callback_on_writable(c->wsi);
            return;
        }
        for (size_t i = 0; i < c->count; i++)
            q[i] = c->queue[(c->head + i) % c->cap];
        free(c->queue);
        c->queue = q;
        c->head = 0;
        c->cap = cap;
    }
    msg->refs++;
    c->h->queued++;
    c->queue[(c->head + c->count++) % c->cap] = msg;
    c->queued_bytes += msg->len;
    lws_callback_on_writable(c->wsi);
}

static struct cas__srv_msg *dequeue(struct conn *c)
{
    struct cas__srv_msg *msg = c->queue[c->head];
    c->head = (c->head + 1) % c->cap;
    c->count--;
    c->h->queued--;
    c->queued_bytes -= msg->len;
    return msg;
}

static void drop_queue(struct conn *c)
{
    while (c->count)
        cas__srv_msg_unref(dequeue(c));
    free(c->queue);
    c->queue = NULL;
    c->cap = 0;
}

static int write_next(struct conn *c)
{
    if (c->closing)
        return -1;
    if (!c->count)
        return 0;
    struct cas__srv_msg *msg = dequeue(c);
    int n = lws_write(c->wsi, (unsigned char *)msg->data + LWS_PRE, msg->len, LWS_WRITE_TEXT);
    int failed = n < (int)msg->len;
    cas__srv_msg_unref(msg);
    if (failed)
        return -1;
    if (c->count)
        lws_callback_on_writable(c->wsi);
    return 0;
}

/* ------------------------------------------------------- receiving */

static void send_error(struct conn *c, const char *id, const char *code, const char *msg)
{
    struct cas__jw w;
    cas__jw_init(&w);
    cas__req_error(&w, id, code, msg);
    cas__conn_send_jw(&c->base, &w);
}

/* Take one token of the bucket: 0, or -1 when the client is too fast. */
static int rate_ok(struct conn *c)
{
    const struct cas__srv_limits *l = &c->h->opts.limits;
    int64_t t = now(c->h);
    c->tokens += (double)(t - c->refilled_at) * l->rate / 1000.0;
    if (c->tokens > l->burst)
        c->tokens = l->burst;
    c->refilled_at = t;
    if (c->tokens < 1)
        return -1;
    c->tokens -= 1;
    return 0;
}

static void handle_message(struct conn *c, const char *text, size_t len)
{
    struct cas__req req;
    const char *code;
    char msg[512];
    if (rate_ok(c)) {
        char why[160];
        snprintf(why, sizeof why, "more than %g messages a second (bursts of %g); the "
                 "message was dropped, send it again a little later",
                 c->h->opts.limits.rate, c->h->opts.limits.burst);
        send_error(c, NULL, "rate-limited", why);
        return;
    }
    if (cas__req_decode(text, len, &req, &code, msg, sizeof msg) != CAS_OK) {
        send_error(c, req.id, code, msg);
        return;
    }
    cas__lobby_handle(c->h->lobby, &c->base, &req);
    cas__req_free(&req);
    cas__lobby_flush(c->h->lobby);
}

static int receive(struct conn *c, const char *in, size_t len)
{
    size_t max = c->h->opts.limits.max_message;
    if (!c->rx_too_large && c->rx_len + len > max) {
        c->rx_too_large = 1;
        free(c->rx);
        c->rx = NULL;
        c->rx_len = c->rx_cap = 0;
    }
    if (!c->rx_too_large && cas__append(&c->rx, &c->rx_len, &c->rx_cap, in, len))
        return -1;
    if (!lws_is_final_fragment(c->wsi) || lws_remaining_packet_payload(c->wsi))
        return 0;
    if (c->rx_too_large) {
        char why[128];
        snprintf(why, sizeof why, "a message may be at most %zu bytes; it was dropped", max);
        send_error(c, NULL, "too-large", why);
        c->rx_too_large = 0;
    } else {
        handle_message(c, c->rx, c->rx_len);
    }
    c->rx_len = 0;
    /* Keep a small buffer; give a big one back. */
    if (c->rx_cap > 64 * 1024) {
        free(c->rx);
        c->rx = NULL;
        c->rx_cap = 0;
    }
    return 0;
}

/* ------------------------------------------------------------ HTTP */

static const char *mime_of(const char *path)
{
    static const char *const types[][2] = {
        {".html", "text/html; charset=utf-8"}, {".js", "text/javascript; charset=utf-8"},
        {".mjs", "text/javascript; charset=utf-8"}, {".css", "text/css; charset=utf-8"},
        {".svg", "image/svg+xml"}, {".png", "image/png"}, {".json", "application/json"},
        {".ico", "image/x-icon"}, {".woff2", "font/woff2"}, {".txt", "text/plain; charset=utf-8"},
    };
    const char *dot = strrchr(path, '.');
    for (size_t i = 0; dot && i < sizeof types / sizeof types[0]; i++)
        if (strcmp(dot, types[i][0]) == 0)
            return types[i][1];
    return "application/octet-stream";
}

/* A path under /static/ that names a file inside www: plain characters,
 * no "..", no empty parts. */
static int safe_relative(const char *rel)
{
    if (!rel[0] || rel[0] == '/' || strstr(rel, "..") || strstr(rel, "//"))
        return 0;
    for (const char *p = rel; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '.' || *p == '-' || *p == '_' || *p == '/'))
            return 0;
    return 1;
}

static int send_text(struct conn *c, unsigned status, const char *text);

static int serve_file(struct conn *c, const char *rel)
{
    char path[PATH_MAX + 256];
    struct lws *wsi = c->wsi;
    struct cas__httpd *h = c->h;
    if (!h->www[0])
        return send_text(c, HTTP_STATUS_NOT_FOUND, "the browser client's files are not "
                         "installed; start castellan serve with --www DIR\n");
    snprintf(path, sizeof path, "%s/%s", h->www, rel);
    int n = lws_serve_http_file(wsi, path, mime_of(path),
                                "X-Content-Type-Options: nosniff\r\n"
                                "Referrer-Policy: no-referrer\r\n", 0);
    if (n < 0 || (n > 0 && lws_http_transaction_completed(wsi)))
        return -1;
    return 0;
}

/* Answer with body (taken: freed when sent). */
static int send_body(struct conn *c, unsigned status, const char *mime, char *body, size_t len)
{
    unsigned char buf[LWS_PRE + 1024], *start = buf + LWS_PRE, *p = start,
                  *end = buf + sizeof buf - 1;
    c->body = body;
    c->body_len = len;
    c->body_sent = 0;
    if (lws_add_http_common_headers(c->wsi, status, mime, len, &p, end) ||
        lws_add_http_header_by_name(c->wsi, (const unsigned char *)"x-content-type-options:",
                                    (const unsigned char *)"nosniff", 7, &p, end) ||
        lws_finalize_write_http_header(c->wsi, start, &p, end))
        return -1;
    lws_callback_on_writable(c->wsi);
    return 0;
}

static int send_text(struct conn *c, unsigned status, const char *text)
{
    char *body = strdup(text);
    return body ? send_body(c, status, "text/plain; charset=utf-8", body, strlen(body)) : -1;
}

static int body_writeable(struct conn *c)
{
    unsigned char buf[LWS_PRE + 16384];
    size_t n = c->body_len - c->body_sent;
    if (n > sizeof buf - LWS_PRE)
        n = sizeof buf - LWS_PRE;
    int last = c->body_sent + n == c->body_len;
    memcpy(buf + LWS_PRE, c->body + c->body_sent, n);
    if (lws_write(c->wsi, buf + LWS_PRE, n, last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP) <
        (int)n)
        return -1;
    c->body_sent += n;
    if (!last) {
        lws_callback_on_writable(c->wsi);
        return 0;
    }
    free(c->body);
    c->body = NULL;
    return lws_http_transaction_completed(c->wsi) ? -1 : 0;
}

/* The replay page of finished game id, public view. */
static int serve_replay(struct conn *c, int64_t id)
{
    struct cas__lobby *l = c->h->lobby;
    struct cas__saves_game g;
    struct cas__revived r;
    char err[1024], origin[32], title[400];
    char *buf = NULL;
    size_t len = 0;
    int practice;
    if (!cas__lobby_may_show(l, id, &practice) ||
        cas__saves_game_load(l->store, id, 1, &g) != CAS_OK)
        return send_text(c, HTTP_STATUS_NOT_FOUND, "no such game\n");
    struct cas__table *t = cas__lobby_find(l, id);
    if (g.status != CAS__SAVES_FINISHED && !(t && t->over)) {
        cas__saves_game_free(&g);
        return send_text(c, HTTP_STATUS_NOT_FOUND, "the game is still being played; its "
                         "replay is shown when it is over\n");
    }
    snprintf(origin, sizeof origin, "game %lld", (long long)id);
    int rc = cas__revive_open_in(&r, &g, origin, l->reg, 0, &l->isolation);
    FILE *out = rc ? NULL : open_memstream(&buf, &len);
    if (out) {
        snprintf(title, sizeof title, "castellan: %s, game %lld%s", r.match.title,
                 (long long)id, practice ? " (practice game: its seed was chosen)" : "");
        rc = cas__replay_html_write(&r, CAS_VIEWER_PUBLIC, title, out, err, sizeof err);
        fclose(out);
    }
    if (!rc)
        cas__revive_close(&r);
    cas__saves_game_free(&g);
    if (rc || !out) {
        free(buf);
        return send_text(c, HTTP_STATUS_INTERNAL_SERVER_ERROR, "the replay cannot be made\n");
    }
    return send_body(c, HTTP_STATUS_OK, "text/html; charset=utf-8", buf, len);
}

/* The notation help of hosted game id's plugins, as text: what each kind
 * of action means, for the table's help panel.  Nothing of the game's
 * state is in it. */
static int serve_help(struct conn *c, int64_t id)
{
    struct cas__table *t = cas__lobby_find(c->h->lobby, id);
    char *buf = NULL;
    size_t len = 0;
    if (t && t->busy) /* a bot thinks with the match: nothing else may touch it */
        return send_text(c, HTTP_STATUS_SERVICE_UNAVAILABLE, "a bot is deciding; ask again\n");
    FILE *out = t ? open_memstream(&buf, &len) : NULL;
    if (!out)
        return send_text(c, HTTP_STATUS_NOT_FOUND, "no such game on this server\n");
    int rc = cas__match_notation_help(&t->r.match, out);
    if (fclose(out) != 0 || rc != CAS_OK || len == 0) {
        free(buf);
        return send_text(c, HTTP_STATUS_NOT_FOUND, "this game has no notation help\n");
    }
    return send_body(c, HTTP_STATUS_OK, "text/plain; charset=utf-8", buf, len);
}

static int64_t game_in_path(const char *p, const char **rest)
{
    char *end;
    if (*p < '1' || *p > '9')
        return 0;
    long long id = strtoll(p, &end, 10);
    *rest = end;
    return id > 0 ? id : 0;
}

static int route(struct conn *c, const char *uri)
{
    const char *rest;
    int64_t id;
    if (strcmp(uri, "/healthz") == 0)
        return send_text(c, HTTP_STATUS_OK, "ok\n");
    if (strcmp(uri, "/") == 0)
        return serve_file(c, "index.html");
    if (strncmp(uri, "/static/", 8) == 0 && safe_relative(uri + 8))
        return serve_file(c, uri + 8);
    if (strncmp(uri, "/game/", 6) == 0 && (id = game_in_path(uri + 6, &rest))) {
        if (!*rest || strcmp(rest, "/") == 0)
            return serve_file(c, "index.html");
        if (strcmp(rest, "/replay.html") == 0)
            return serve_replay(c, id);
        if (strcmp(rest, "/help.txt") == 0)
            return serve_help(c, id);
    }
    return send_text(c, HTTP_STATUS_NOT_FOUND, "not found\n");
}

/* ---------------------------------------------------------- callback */

static void clock_tick(lws_sorted_usec_list_t *sul)
{
    struct cas__httpd *h = lws_container_of(sul, struct cas__httpd, clock_timer);
    cas__lobby_check_clocks(h->lobby);
    cas__lobby_adopt_orphans(h->lobby);
    cas__lobby_flush(h->lobby);
    lws_sul_schedule(h->ctx, 0, &h->clock_timer, clock_tick, 100 * LWS_US_PER_MS);
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
    struct conn *c = user;
    struct cas__httpd *h = lws_context_user(lws_get_context(wsi));
    char uri[256];
    switch (reason) {
    case LWS_CALLBACK_HTTP:
        c->wsi = wsi;
        c->h = h;
        return route(c, (const char *)in);
    case LWS_CALLBACK_HTTP_WRITEABLE:
        return c->body ? body_writeable(c) : 0;
    case LWS_CALLBACK_HTTP_FILE_COMPLETION:
        return lws_http_transaction_completed(wsi) ? -1 : 0;
    case LWS_CALLBACK_CLOSED_HTTP:
        free(c->body);
        c->body = NULL;
        return 0;
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
        if (lws_hdr_copy(wsi, uri, sizeof uri, WSI_TOKEN_GET_URI) <= 0 ||
            strcmp(uri, "/ws") != 0)
            return 1;
        return h->n_conns >= h->opts.limits.max_connections;
    case LWS_CALLBACK_ESTABLISHED:
        c->wsi = wsi;
        c->h = h;
        c->is_ws = 1;
        c->base.send = queue_send;
        c->base.seat = -1;
        c->tokens = h->opts.limits.burst;
        c->refilled_at = now(h);
        h->n_conns++;
        return 0;
    case LWS_CALLBACK_RECEIVE:
        return receive(c, in, len);
    case LWS_CALLBACK_SERVER_WRITEABLE:
        return write_next(c);
    case LWS_CALLBACK_CLOSED:
        if (c->is_ws) {
            cas__lobby_disconnect(h->lobby, &c->base);
            cas__lobby_flush(h->lobby);
            drop_queue(c);
            free(c->rx);
            c->rx = NULL;
            h->n_conns--;
            c->is_ws = 0;
        }
        return 0;
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
        if (h && h->lobby->bots) {
            cas__bots_deliver(h->lobby->bots);
            cas__lobby_flush(h->lobby);
        }
        return 0;
    default:
        return 0;
    }
}

static const struct lws_protocols protocols[] = {
    {"castellan.v1", callback, sizeof(struct conn), 16384, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

/* "ADDR:PORT" or "[ADDR6]:PORT" into addr and *port. */
static int parse_listen(const char *listen, char *addr, size_t cap, int *port,
                        char *err, size_t errlen)
{
    const char *colon = strrchr(listen, ':');
    const char *host = listen, *host_end = colon;
    char *end;
    if (colon && listen[0] == '[') {
        host = listen + 1;
        host_end = colon > listen && colon[-1] == ']' ? colon - 1 : NULL;
    }
    long p = colon ? strtol(colon + 1, &end, 10) : -1;
    if (!colon || !host_end || host_end == host || (size_t)(host_end - host) >= cap ||
        !colon[1] || *end || p < 0 || p > 65535) {
        snprintf(err, errlen, "--listen %s: give ADDRESS:PORT, e.g. 127.0.0.1:8080, "
                 "0.0.0.0:8080 or [::1]:8080 (port 0: any free port)", listen);
        return CAS_EINVAL;
    }
    memcpy(addr, host, (size_t)(host_end - host));
    addr[host_end - host] = '\0';
    *port = (int)p;
    return CAS_OK;
}

static void wake(void *ctx)
{
    cas__httpd_wake(ctx);
}

int cas__httpd_start(struct cas__lobby *l, const struct cas__serve_options *opts,
                     struct cas__httpd **out, int *port, char *err, size_t errlen)
{
    struct lws_context_creation_info info;
    char addr[128];
    int want;
    *out = NULL;
    if (parse_listen(opts->listen, addr, sizeof addr, &want, err, errlen))
        return CAS_EINVAL;
    if ((opts->cert != NULL) != (opts->key != NULL)) {
        snprintf(err, errlen, "TLS needs both --cert FILE and --key FILE");
        return CAS_EINVAL;
    }
    struct cas__httpd *h = calloc(1, sizeof *h);
    if (!h) {
        snprintf(err, errlen, "out of memory");
        return CAS_ENOMEM;
    }
    h->lobby = l;
    h->opts = *opts;
    if (opts->www && !realpath(opts->www, h->www)) {
        snprintf(err, errlen, "the client's files: %s: %s; give --www DIR", opts->www,
                 strerror(errno));
        free(h);
        return CAS_ENOTFOUND;
    }
    lws_set_log_level(getenv("CAS_SERVE_DEBUG") ? LLL_ERR | LLL_WARN | LLL_NOTICE | LLL_INFO
                                                : opts->quiet ? 0 : LLL_ERR, NULL);
    memset(&info, 0, sizeof info);
    info.port = want;
    info.iface = addr;
    info.protocols = protocols;
    info.user = h;
    info.options = LWS_SERVER_OPTION_VALIDATE_UTF8;
    if (opts->cert) {
        info.options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
        info.ssl_cert_filepath = opts->cert;
        info.ssl_private_key_filepath = opts->key;
    }
    h->ctx = lws_create_context(&info);
    if (!h->ctx) {
        snprintf(err, errlen, "cannot listen on %s%s (is the address this machine's and the "
                 "port free?)", opts->listen, opts->cert ? " with that certificate and key" : "");
        free(h);
        return CAS_EIO;
    }
    if (l->limits.bot_threads && !l->bots &&
        cas__bots_new(l->limits.bot_threads, wake, h, &l->bots) != CAS_OK) {
        snprintf(err, errlen, "cannot start the bots' threads");
        cas__httpd_free(h);
        return CAS_ENOMEM;
    }
    struct lws_vhost *vh = lws_get_vhost_by_name(h->ctx, "default");
    *port = vh ? lws_get_vhost_listen_port(vh) : want;
    lws_sul_schedule(h->ctx, 0, &h->clock_timer, clock_tick, 100 * LWS_US_PER_MS);
    *out = h;
    return CAS_OK;
}

int cas__httpd_service(struct cas__httpd *h, int timeout_ms)
{
    return lws_service(h->ctx, timeout_ms);
}

size_t cas__httpd_queued(const struct cas__httpd *h)
{
    return h->queued;
}

unsigned cas__httpd_sockets(const struct cas__httpd *h)
{
    return h->n_conns;
}

void cas__httpd_wake(void *h)
{
    lws_cancel_service(((struct cas__httpd *)h)->ctx);
}

void cas__httpd_free(struct cas__httpd *h)
{
    if (!h)
        return;
    if (h->lobby->bots) {
        cas__bots_free(h->lobby->bots);
        h->lobby->bots = NULL;
    }
    lws_context_destroy(h->ctx);
    free(h);
}
