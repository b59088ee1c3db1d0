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
#define _GNU_SOURCE /* accept4 */
#include <libwebsockets.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "club.h"
#include "loop_guard.h"
#include "picture.h"
#include "replay_cache.h"
#include "replay_html.h"
#include "signin.h"
#include "table.h"
#include "wsdeflate.h"
#include "wsoffer.h"

#define MAX_QUEUED_MESSAGES 1024
/* Seconds a client has for its request's headers, then to take each part
 * of an answer (libwebsockets' timeout; none while the server works on
 * the answer: answer_later). */
#define HTTP_ANSWER_SECS 5

struct cas__httpd {
    struct lws_context *ctx;      /* NULLed by lws when it is freed (pcontext) */
    struct uv_loop_s *uv;         /* the loop lws runs on; NULL: lws's poll loop */
    struct cas__lobby *lobby;
    struct cas__serve_options opts;
    int www_fd;                   /* the folder www, open: files are found under it */
    struct cas__allowed_hosts allowed;
    struct lws_vhost *vhost;
    int listen_fd;                /* the listening socket */
    int listen_fd_owned;          /* ours to close: lws has not adopted it */
    int reserve_fd;               /* given up to accept and shed at EMFILE */
    unsigned max_sockets;         /* max-connections, as the file limit allows */
    unsigned n_sockets;           /* connections accepted and not yet closed */
    unsigned long refused;        /* connections shed: over max, or no fd */
    unsigned n_conns;             /* of them, WebSockets */
    struct cas__sendq_budget sendq; /* every WebSocket's send queue */
    lws_sorted_usec_list_t clock_timer;
    struct cas__replays *replays; /* replay pages, built off the loop */
    struct cas__wsdeflate *deflate; /* compresses every message sent */
    struct cas__buf stored_frame; /* a short message's frame, being written */
};

/* One connection: an HTTP request or a WebSocket (libwebsockets zeroes
 * it and hands it to every callback of the connection). */
struct conn {
    struct cas__conn base;        /* first: lobby and tables see this */
    struct lws *wsi;
    struct cas__httpd *h;
    int is_ws, closing;
    struct cas__sendq q;          /* in h->sendq */
    int deflate;                  /* permessage-deflate: frames are ours */
    int takeover;                 /* ... with context takeover (RFC 7692) */
    struct cas__srv_msg *last[2]; /* the last two sent compressed, newest first */
    struct cas__buf rx;           /* the message being received, up to
                                     max-message-bytes (then failed) */
    size_t rx_bytes;              /* its bytes so far, kept or not */
    double tokens;                /* rate limit bucket */
    int64_t refilled_at;
    char *body;                   /* HTTP: a dynamic answer being sent (owned, */
    size_t body_len, body_sent;   /* ... or the bytes of body_page) */
    struct cas__replay_page *body_page; /* a reference while its bytes are sent */
    int close_after;              /* a refused request: no keep-alive */
    int gzip_ok;                  /* the request accepts gzip */
    struct replay_load *loading;  /* its replay's journal being read */
    struct signin_check *signing; /* its sign-in key being checked, or answered */
    int waits_replay;             /* for a replay page being built */
    unsigned refusal_status;      /* a refusal to send when writeable */
    const char *refusal;          /* (static text) */
    int replay_done;              /* built (or failed): replay is to be sent */
    struct cas__replay_page *replay; /* built: to be sent when writeable */
};

static int64_t now(const struct cas__httpd *h)
{
    return h->lobby->clock.now_ms(h->lobby->clock.ctx);
}

/* -------------------------------------------------------- sending */

static int write_deflated(struct conn *c, struct cas__srv_msg *msg);

/* A compressed connection with nothing queued and nothing left over in
 * libwebsockets is written to at once: asking for the socket's turn
 * first (lws_callback_on_writable) costs two epoll_ctl calls and a turn
 * of the loop per message, as much as the send itself.  A write the
 * socket takes in part leaves the rest buffered in libwebsockets, which
 * asks for the turn itself; what comes meanwhile is queued (and counted
 * against the queues' caps), so at most one message waits outside them. */
static void queue_send(struct cas__conn *base, struct cas__srv_msg *msg)
{
    struct conn *c = (struct conn *)base;
    if (c->closing)
        return;
    if (c->deflate && !c->q.count && !lws_partial_buffered(c->wsi)) {
        msg->refs++;
        if (write_deflated(c, msg)) {
            c->closing = 1;
            lws_callback_on_writable(c->wsi);
        }
        return;
    }
    if (cas__sendq_push(&c->h->sendq, &c->q, msg) == 0)
        lws_callback_on_writable(c->wsi);
}

/* The budget dropped q (its client too far behind, or the server's memory
 * for queues spent on the clients furthest behind): close it. */
static void queue_dropped(struct cas__sendq *q, void *ctx)
{
    struct conn *c = lws_container_of(q, struct conn, q);
    (void)ctx;
    c->closing = 1;
    lws_callback_on_writable(c->wsi);
}

/* msg as a frame (RSV1 set) for c: when msg is short
 * (CAS__WSDEFLATE_MIN), in a stored block; else compressed after c's last
 * message (and the one before when that one is short: srv_msg.c), the same
 * bytes as every other connection of its view after the same messages.
 * NULL when memory ran out or igzip failed. */
static const unsigned char *deflated_frame(struct conn *c, struct cas__srv_msg *msg, size_t *len)
{
    static struct cas__srv_msg *const none[2];
    const unsigned char *frame;
    if (msg->len < CAS__WSDEFLATE_MIN)
        return cas__srv_msg_stored(msg, &c->h->stored_frame, &frame, len) == CAS_OK ? frame
                                                                                  : NULL;
    const struct cas__srv_frame *f = cas__srv_msg_deflated(msg, c->takeover ? c->last : none,
                                                           c->h->deflate);
    *len = f ? f->len : 0;
    return f ? f->frame : NULL;
}

/* msg as a frame compressed for c (deflated_frame), written raw: the
 * server never has libwebsockets' own deflate send, which keeps the
 * window of the client's inflater exactly the messages written here.
 * Takes the reference to msg. */
static int write_deflated(struct conn *c, struct cas__srv_msg *msg)
{
    size_t len = 0;
    const unsigned char *frame = deflated_frame(c, msg, &len);
    int failed = !frame || lws_write(c->wsi, (unsigned char *)frame, len, LWS_WRITE_RAW) < (int)len;
    cas__srv_msg_unref(c->last[1]);
    c->last[1] = c->last[0];
    c->last[0] = msg;
    return failed;
}

static int write_next(struct conn *c)
{
    if (c->closing)
        return -1;
    if (!c->q.count)
        return 0;
    struct cas__srv_msg *msg = cas__sendq_pop(&c->h->sendq, &c->q);
    int failed;
    if (c->deflate) {
        failed = write_deflated(c, msg);
    } else {
        failed = lws_write(c->wsi, (unsigned char *)msg->data + LWS_PRE, msg->len,
                           LWS_WRITE_TEXT) < (int)msg->len;
        cas__srv_msg_unref(msg);
    }
    if (failed)
        return -1;
    if (c->q.count)
        lws_callback_on_writable(c->wsi);
    return 0;
}

/* ------------------------------------------------------- receiving */

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
        cas__conn_send_error(&c->base, NULL, "rate-limited", why);
        return;
    }
    if (cas__req_decode(text, len, &req, &code, msg, sizeof msg) != CAS_OK) {
        cas__conn_send_error(&c->base, req.id, code, msg);
        return;
    }
    cas__lobby_handle(c->h->lobby, &c->base, &req);
    cas__req_free(&req);
}

/* A message too long is answered "too-large" and dropped; one that goes
 * on past PAST_READING times the limit is not read further: the
 * connection is closed (1009).  So a compressed message (permessage-
 * deflate) can make the server inflate at most that much, whatever it
 * would inflate to. */
#define PAST_READING 4

static int receive(struct conn *c, const char *in, size_t len)
{
    size_t max = c->h->opts.limits.max_message;
    c->rx_bytes += len;
    if (c->rx_bytes > PAST_READING * max) {
        lws_close_reason(c->wsi, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE,
                         (unsigned char *)"message too large", 17);
        return -1;
    }
    /* Past max the buffer fails (CAS_ENOSPC) and keeps nothing more. */
    if (cas__buf_add(&c->rx, in, len) == CAS_ENOMEM)
        return -1;
    if (!lws_is_final_fragment(c->wsi) || lws_remaining_packet_payload(c->wsi))
        return 0;
    if (c->rx.failed) {
        char why[128];
        snprintf(why, sizeof why, "a message may be at most %zu bytes; it was dropped", max);
        cas__conn_send_error(&c->base, NULL, "too-large", why);
    } else {
        handle_message(c, c->rx.data, c->rx.len);
    }
    c->rx_bytes = 0;
    /* Keep a small buffer; give a big one back. */
    if (c->rx.cap > 64 * 1024)
        cas__buf_free(&c->rx);
    else
        cas__buf_reset(&c->rx);
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
static int send_body(struct conn *c, unsigned status, const char *mime, char *body, size_t len);

#define MAX_FILE_BYTES (16u << 20)

/* Open rel (safe_relative) under the folder dirfd one part at a time,
 * never following a symbolic link: a link planted in --www cannot lead
 * out of it.  A descriptor of a regular file, or -1. */
static int open_beneath(int dirfd, const char *rel)
{
    char part[256];
    int at = dup(dirfd);
    while (at >= 0) {
        size_t n = strcspn(rel, "/");
        if (n >= sizeof part) {
            close(at);
            return -1;
        }
        memcpy(part, rel, n);
        part[n] = '\0';
        int last = rel[n] == '\0';
        int next = openat(at, part, O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK |
                                        (last ? O_RDONLY : O_DIRECTORY | O_PATH));
        close(at);
        at = next;
        if (last)
            break;
        rel += n + 1;
    }
    struct stat st;
    if (at >= 0 && (fstat(at, &st) || !S_ISREG(st.st_mode))) {
        close(at);
        at = -1;
    }
    return at;
}

static int serve_file(struct conn *c, const char *rel)
{
    struct cas__httpd *h = c->h;
    struct stat st;
    if (h->www_fd < 0)
        return send_text(c, HTTP_STATUS_NOT_FOUND, "the browser client's files are not "
                         "installed; start castellan serve with --www DIR\n");
    int fd = open_beneath(h->www_fd, rel);
    if (fd < 0)
        return send_text(c, HTTP_STATUS_NOT_FOUND, "not found\n");
    char *body = NULL;
    size_t got = 0;
    if (!fstat(fd, &st) && st.st_size <= MAX_FILE_BYTES &&
        (body = malloc((size_t)st.st_size + 1))) {
        ssize_t n;
        while (got < (size_t)st.st_size &&
               (n = read(fd, body + got, (size_t)st.st_size - got)) > 0)
            got += (size_t)n;
    }
    close(fd);
    if (!body || got != (size_t)st.st_size) {
        free(body);
        return send_text(c, HTTP_STATUS_INTERNAL_SERVER_ERROR, "the file cannot be read\n");
    }
    return send_body(c, HTTP_STATUS_OK, mime_of(rel), body, got);
}

/* A request whose answer comes off the loop (its journal read, its replay
 * built, its sign-in key checked): libwebsockets gave the request
 * HTTP_ANSWER_SECS from its headers to be answered, and would close the
 * connection when the server's own work outlasts that (a long replay on a
 * busy machine), so the client waits without a clock until the answer is
 * ready.  What waits is bounded by the server's own queues, and each
 * connection counts against max-connections. */
static void answer_later(struct conn *c)
{
    lws_set_timeout(c->wsi, NO_PENDING_TIMEOUT, 0);
}

/* The answer being sent is done with (sent, or the connection closed). */
static void drop_body(struct conn *c)
{
    if (c->body_page)
        cas__replay_page_unref(c->body_page);
    else
        free(c->body);
    c->body = NULL;
    c->body_page = NULL;
}

/* Answer with body in content encoding `encoding` (NULL: none) and,
 * unless NULL, the Set-Cookie header cookie.  body is taken (freed when
 * sent), or is page's bytes when page is given (a reference taken). */
static int send_answer_of(struct conn *c, unsigned status, const char *mime,
                          const char *encoding, const char *cookie, char *body, size_t len,
                          struct cas__replay_page *page)
{
    unsigned char buf[LWS_PRE + 1024], *start = buf + LWS_PRE, *p = start,
                  *end = buf + sizeof buf - 1;
    drop_body(c);
    if (page)
        page->refs++;
    c->body_page = page;
    c->body = body;
    c->body_len = len;
    c->body_sent = 0;
    /* The security headers come with the status line (vhost_headers). */
    if (lws_add_http_common_headers(c->wsi, status, mime, len, &p, end) ||
        (encoding &&
         (lws_add_http_header_by_token(c->wsi, WSI_TOKEN_HTTP_CONTENT_ENCODING,
                                       (const unsigned char *)encoding, (int)strlen(encoding),
                                       &p, end) ||
          lws_add_http_header_by_name(c->wsi, (const unsigned char *)"vary:",
                                      (const unsigned char *)"Accept-Encoding", 15, &p, end))) ||
        (cookie && lws_add_http_header_by_name(c->wsi, (const unsigned char *)"set-cookie:",
                                               (const unsigned char *)cookie,
                                               (int)strlen(cookie), &p, end)) ||
        lws_finalize_write_http_header(c->wsi, start, &p, end))
        return -1;
    /* The client has HTTP_ANSWER_SECS to take the answer (again, if it
     * waited for it: answer_later), more with each part it takes. */
    lws_set_timeout(c->wsi, PENDING_TIMEOUT_HTTP_CONTENT, HTTP_ANSWER_SECS);
    lws_callback_on_writable(c->wsi);
    return 0;
}

static int send_answer(struct conn *c, unsigned status, const char *mime, const char *encoding,
                       const char *cookie, char *body, size_t len)
{
    return send_answer_of(c, status, mime, encoding, cookie, body, len, NULL);
}

static int send_encoded(struct conn *c, unsigned status, const char *mime, const char *encoding,
                        char *body, size_t len)
{
    return send_answer(c, status, mime, encoding, NULL, body, len);
}

static int send_body(struct conn *c, unsigned status, const char *mime, char *body, size_t len)
{
    return send_encoded(c, status, mime, NULL, body, len);
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
        lws_set_timeout(c->wsi, PENDING_TIMEOUT_HTTP_CONTENT, HTTP_ANSWER_SECS);
        lws_callback_on_writable(c->wsi);
        return 0;
    }
    drop_body(c);
    return c->close_after || lws_http_transaction_completed(c->wsi) ? -1 : 0;
}

/* A built replay page to c: gzip-compressed when c takes it.  Its bytes
 * are sent from the page itself, not a copy: c holds a reference until
 * they are sent (drop_body), so the cache may let the page go meanwhile.
 * A page is never written once built, and its count is the loop's only. */
static int send_replay(struct conn *c, struct cas__replay_page *page)
{
    return send_answer_of(c, HTTP_STATUS_OK, "text/html; charset=utf-8",
                          c->gzip_ok ? "gzip" : NULL, NULL, c->gzip_ok ? page->gz : page->html,
                          c->gzip_ok ? page->gz_len : page->html_len, page);
}

/* The page the builder thread finished for c (NULL: it failed), sent when
 * c is writeable (replay_writeable). */
static void replay_ready(void *waiter, struct cas__replay_page *page)
{
    struct conn *c = waiter;
    c->waits_replay = 0;
    c->replay_done = 1;
    c->replay = page;
    lws_callback_on_writable(c->wsi);
}

/* Refuse c's request when it is writeable (an answer that came off the
 * loop). */
static void refuse_later(struct conn *c, unsigned status, const char *text)
{
    c->refusal_status = status;
    c->refusal = text;
    lws_callback_on_writable(c->wsi);
}

static int replay_writeable(struct conn *c)
{
    struct cas__replay_page *page = c->replay;
    c->replay = NULL;
    c->replay_done = 0;
    int rc = page ? send_replay(c, page)
                  : send_text(c, HTTP_STATUS_INTERNAL_SERVER_ERROR, "the replay cannot be made\n");
    cas__replay_page_unref(page);
    return rc;
}

static int accepts_gzip(struct lws *wsi)
{
    char accept[256];
    int n = lws_hdr_copy(wsi, accept, sizeof accept, WSI_TOKEN_HTTP_ACCEPT_ENCODING);
    return n > 0 && strstr(accept, "gzip") != NULL;
}

/* A replay's journal, read on the store's thread (store_job.c) for c
 * (NULL once c closed). */
struct replay_load {
    struct cas__store_job base;
    struct conn *c;
    const struct cas__lobby *lobby;
    int64_t id;
    int shown, practice;
    struct cas__saves_game g;
};

static int read_replay(struct cas__saves *s, struct cas__store_job *base)
{
    struct replay_load *job = (struct replay_load *)base;
    job->shown = cas__lobby_may_show(job->lobby, s, job->id, &job->practice);
    return job->shown ? cas__saves_game_load(s, job->id, 1, &job->g) : CAS_ENOTFOUND;
}

/* The journal read for c: built off the loop (replay_ready), or refused.
 * 1 when the builder took it.  Requests that came together each read the
 * journal; the first read back queues the build and the others wait for
 * it (or take the page kept meanwhile): one build, not one each. */
static int build_read(struct cas__lobby *l, struct conn *c, struct replay_load *job)
{
    struct cas__replay_page *page = NULL;
    switch (cas__replays_get(c->h->replays, job->id, c, &page)) {
    case CAS__REPLAY_READY:
        replay_ready(c, page);
        return 0;
    case CAS__REPLAY_WAITING:
        c->waits_replay = 1;
        return 0;
    case CAS__REPLAY_MISSING:
        break;
    }
    struct cas__table *t = cas__lobby_find(l, job->id);
    if (job->g.status != CAS__SAVES_FINISHED && !(t && !t->hold.held && t->over)) {
        refuse_later(c, HTTP_STATUS_NOT_FOUND, "the game is still being played; its replay "
                     "is shown when it is over\n");
        return 0;
    }
    if (cas__replays_build(c->h->replays, job->id, &job->g, l->reg, &l->isolation,
                           job->practice, c))
        refuse_later(c, HTTP_STATUS_SERVICE_UNAVAILABLE, "the replay cannot be made now; "
                     "ask again\n");
    else
        c->waits_replay = 1;
    return 1;
}

static void replay_read(struct cas__lobby *l, struct cas__store_job *base)
{
    struct replay_load *job = (struct replay_load *)base;
    struct conn *c = job->c;
    int answer = c && !l->store_stopping;
    if (c)
        c->loading = NULL;
    if (base->rc != CAS_OK && answer)
        refuse_later(c, HTTP_STATUS_NOT_FOUND, "no such game\n");
    else if (base->rc == CAS_OK && !(answer && build_read(l, c, job)))
        cas__saves_game_free(&job->g);
    free(job);
}

/* The replay page of finished game id, public view: from the cache, or
 * its journal read on the store's thread, built off the loop and sent
 * when done (replay_ready). */
static int serve_replay(struct conn *c, int64_t id)
{
    struct cas__lobby *l = c->h->lobby;
    struct cas__replay_page *page = NULL;
    c->gzip_ok = accepts_gzip(c->wsi);
    switch (cas__replays_get(c->h->replays, id, c, &page)) {
    case CAS__REPLAY_READY: {
        int rc = send_replay(c, page);
        cas__replay_page_unref(page);
        return rc;
    }
    case CAS__REPLAY_WAITING:
        c->waits_replay = 1;
        answer_later(c);
        return 0;
    case CAS__REPLAY_MISSING:
        break;
    }
    struct replay_load *job = calloc(1, sizeof *job);
    if (!job)
        return send_text(c, HTTP_STATUS_SERVICE_UNAVAILABLE, "out of memory; ask again\n");
    job->base.run = read_replay;
    job->base.done = replay_read;
    job->c = c;
    job->lobby = l;
    job->id = id;
    c->loading = job;
    answer_later(c);
    cas__store_submit(l, &job->base);
    return 0;
}

/* The notation help of hosted game id's plugins, as text: what each kind
 * of action means, for the table's help panel.  Nothing of the game's
 * state is in it: it was built off the loop by the table's first job and
 * is shared by the games of the same plugins and options (notation.c), so
 * a table a job holds answers too. */
static int serve_help(struct conn *c, int64_t id)
{
    struct cas__table *t = cas__lobby_find(c->h->lobby, id);
    size_t len = 0;
    if (!t)
        return send_text(c, HTTP_STATUS_NOT_FOUND, "no such game on this server\n");
    if (!cas__help_ready(t)) /* only before its first job is delivered */
        return send_text(c, HTTP_STATUS_SERVICE_UNAVAILABLE, "the game is opening; ask again\n");
    char *text = cas__help_copy(t, &len);
    if (!text)
        return send_text(c, HTTP_STATUS_NOT_FOUND, "this game has no notation help\n");
    return send_body(c, HTTP_STATUS_OK, "text/plain; charset=utf-8", text, len);
}

static const char *header(struct lws *wsi, enum lws_token_indexes t, char *buf, size_t cap);

/* The answer to GET /signin (have: a key was sent, who: as it was
 * checked) or /signout: the key kept in an HttpOnly cookie and the
 * player's name; a refused key forgets any cookie kept before. */
static int answer_signin(struct conn *c, const struct cas__signin_answer *who, int have,
                         int signout, const char *key)
{
    char cookie[256];
    int secure = c->h->opts.cert != NULL;
    if (cas__signin_set_cookie(cookie, sizeof cookie, who->player ? key : NULL, secure))
        return -1;
    struct cas__jw w;
    cas__jw_init(&w);
    unsigned status = HTTP_STATUS_OK;
    if (who->player) {
        cas__jw_raw(&w, "{\"player\":");
        cas__jw_str(&w, who->name);
    } else {
        status = signout ? HTTP_STATUS_OK : HTTP_STATUS_FORBIDDEN;
        cas__jw_raw(&w, "{\"player\":null,\"error\":");
        cas__jw_str(&w, signout ? "signed out"
                        : have ? who->refused
                               : "send the key as \"Authorization: Bearer KEY\"; open "
                                 "your sign-in link to sign in");
    }
    cas__jw_raw(&w, "}");
    char *body = w.b.failed ? NULL : strdup(cas__jw_text(&w));
    cas__jw_free(&w);
    int rc = body ? send_answer(c, status, "application/json", NULL, cookie, body, strlen(body)) : -1;
    OPENSSL_cleanse(cookie, sizeof cookie);
    return rc;
}

/* A key of GET /signin checked on the store's thread (store_job.c) for c
 * (NULL once c closed); answered when c is writeable. */
struct signin_check {
    struct cas__store_job base;
    struct conn *c;
    char key[CAS__PLAYER_KEY_MAX];
    struct cas__signin_answer who;
    int checked;
};

static void signin_check_free(struct signin_check *job)
{
    OPENSSL_cleanse(job->key, sizeof job->key);
    free(job);
}

static int check_signin(struct cas__saves *s, struct cas__store_job *base)
{
    struct signin_check *job = (struct signin_check *)base;
    cas__signin_now(s, job->key, &job->who);
    return CAS_OK;
}

static void signin_checked(struct cas__lobby *l, struct cas__store_job *base)
{
    struct signin_check *job = (struct signin_check *)base;
    if (!job->c || l->store_stopping) {
        if (job->c)
            job->c->signing = NULL;
        signin_check_free(job);
        return;
    }
    job->checked = 1;
    lws_callback_on_writable(job->c->wsi);
}

static int signin_writeable(struct conn *c)
{
    struct signin_check *job = c->signing;
    c->signing = NULL;
    int rc = answer_signin(c, &job->who, 1, 0, job->key);
    signin_check_free(job);
    return rc;
}

/* GET /signin with "Authorization: Bearer KEY" (checked off the loop),
 * GET /signout.  signin.c. */
static int serve_signin(struct conn *c, int signout)
{
    char header_text[256];
    struct cas__signin_answer nobody = {0};
    struct signin_check *job = calloc(1, sizeof *job);
    int have = job && !signout &&
               cas__signin_bearer(header(c->wsi, WSI_TOKEN_HTTP_AUTHORIZATION, header_text,
                                         sizeof header_text), job->key);
    OPENSSL_cleanse(header_text, sizeof header_text);
    if (!job && !signout)
        return send_text(c, HTTP_STATUS_SERVICE_UNAVAILABLE, "out of memory; ask again\n");
    if (!have) {
        free(job);
        return answer_signin(c, &nobody, 0, signout, NULL);
    }
    job->base.run = check_signin;
    job->base.done = signin_checked;
    job->c = c;
    c->signing = job;
    answer_later(c);
    cas__store_submit(c->h->lobby, &job->base);
    return 0;
}

/* The club's pages (club.c), from its latest snapshot: nothing is read
 * from the store here. */
static int serve_club(struct conn *c, const char *path)
{
    struct cas__club_answer a;
    struct cas__club *club = c->h->lobby->club;
    if (!club)
        return send_text(c, HTTP_STATUS_NOT_FOUND, "not found\n");
    if (cas__club_page(club, path, &a) != CAS_OK)
        return -1;
    return send_body(c, a.status, a.mime, a.body, a.len);
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
    if (strcmp(uri, CAS__REPLAY_SCRIPT) == 0) {
        char *script = strdup(cas__replay_html_script());
        return script ? send_body(c, HTTP_STATUS_OK, "text/javascript; charset=utf-8", script,
                                  strlen(script))
                      : -1;
    }
    if (strcmp(uri, "/healthz") == 0)
        return send_text(c, HTTP_STATUS_OK, "ok\n");
    if (strcmp(uri, "/signin") == 0 || strcmp(uri, "/signout") == 0)
        return serve_signin(c, uri[5] == 'o');
    if (strcmp(uri, "/") == 0)
        return serve_file(c, "index.html");
    if (strcmp(uri, "/club") == 0 || strncmp(uri, "/club/", 6) == 0)
        return serve_club(c, uri + 5);
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

/* ----------------------------------------------------------- access */

/* Header t of the request into buf[0..cap): buf, or NULL when absent
 * (or longer than cap: no Host or Origin of ours is). */
static const char *header(struct lws *wsi, enum lws_token_indexes t, char *buf, size_t cap)
{
    if (lws_hdr_total_length(wsi, t) <= 0 || lws_hdr_copy(wsi, buf, (int)cap, t) <= 0)
        return NULL;
    return buf;
}

/* A WebSocket opened with the cookie of a sign-in acts for its player. */
static void sign_in_by_cookie(struct conn *c)
{
    char cookies[4096], key[CAS__PLAYER_KEY_MAX];
    if (cas__signin_cookie_key(header(c->wsi, WSI_TOKEN_HTTP_COOKIE, cookies, sizeof cookies),
                               key))
        cas__signin_conn(c->h->lobby, &c->base, key);
    OPENSSL_cleanse(cookies, sizeof cookies);
    OPENSSL_cleanse(key, sizeof key);
}

/* Whether the request on wsi is one this server answers: its Host one of
 * its names (DNS rebinding) and, from a browser, its Origin this server's
 * (a WebSocket opened by another site's page in the visitor's browser). */
static int request_allowed(struct cas__httpd *h, struct lws *wsi)
{
    char host[256], origin[512];
    const char *hv = header(wsi, WSI_TOKEN_HOST, host, sizeof host);
    int has_origin = lws_hdr_total_length(wsi, WSI_TOKEN_ORIGIN) > 0;
    const char *ov = header(wsi, WSI_TOKEN_ORIGIN, origin, sizeof origin);
    return cas__host_allowed(&h->allowed, hv) &&
           (!has_origin || (ov && cas__origin_allowed(&h->allowed, ov, hv)));
}

/* ---------------------------------------------------------- callback */

static void clock_tick(lws_sorted_usec_list_t *sul)
{
    struct cas__httpd *h = lws_container_of(sul, struct cas__httpd, clock_timer);
    cas__lobby_check_clocks(h->lobby);
    cas__lobby_adopt_orphans(h->lobby);
    lws_sul_schedule(h->ctx, 0, &h->clock_timer, clock_tick, 100 * LWS_US_PER_MS);
}

/* Every callback of a connection may come before lws bound the
 * connection's data (a connection closed before its request was complete,
 * or refused before its protocol was chosen): user is then NULL, and a
 * case that needs the connection's data checks it first. */
static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
    struct conn *c = user;
    struct cas__httpd *h = lws_context_user(lws_get_context(wsi));
    char uri[256];
    switch (reason) {
    case LWS_CALLBACK_WSI_DESTROY:
        if (h && lws_get_opaque_user_data(wsi) == h)
            h->n_sockets--;
        return 0;
    case LWS_CALLBACK_HTTP:
        if (!c || !h)
            return -1;
        c->wsi = wsi;
        c->h = h;
        /* Every page is read with GET; nothing else is served (nor its
         * body waited for: the connection closes after the answer). */
        c->close_after = 1;
        if (lws_hdr_total_length(wsi, WSI_TOKEN_GET_URI) <= 0)
            return send_text(c, HTTP_STATUS_METHOD_NOT_ALLOWED, "only GET is served\n");
        if (!request_allowed(h, wsi))
            return send_text(c, HTTP_STATUS_FORBIDDEN, "this server does not answer to that "
                             "host or for pages of that origin (allowed-hosts, "
                             "docs/server.md)\n");
        c->close_after = 0;
        return route(c, (const char *)in);
    case LWS_CALLBACK_HTTP_WRITEABLE:
        if (c && c->signing && c->signing->checked)
            return signin_writeable(c);
        if (c && c->refusal) {
            const char *text = c->refusal;
            c->refusal = NULL;
            return send_text(c, c->refusal_status, text);
        }
        if (c && c->replay_done)
            return replay_writeable(c);
        return c && c->body ? body_writeable(c) : 0;
    case LWS_CALLBACK_HTTP_FILE_COMPLETION:
        return lws_http_transaction_completed(wsi) ? -1 : 0;
    case LWS_CALLBACK_CLOSED_HTTP:
        if (c) {
            drop_body(c);
            if (c->loading)
                c->loading->c = NULL;
            c->loading = NULL;
            if (c->signing && c->signing->checked)
                signin_check_free(c->signing);
            else if (c->signing)
                c->signing->c = NULL;
            c->signing = NULL;
            if (c->waits_replay && h && h->replays)
                cas__replays_forget(h->replays, c);
            c->waits_replay = 0;
            cas__replay_page_unref(c->replay);
            c->replay = NULL;
        }
        return 0;
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
        return !h || lws_hdr_copy(wsi, uri, sizeof uri, WSI_TOKEN_GET_URI) <= 0 ||
               strcmp(uri, "/ws") != 0 || !request_allowed(h, wsi);
    case LWS_CALLBACK_ESTABLISHED:
        if (!c || !h)
            return -1;
        c->deflate = cas__ws_deflate_ours(wsi);
        c->takeover = c->deflate && cas__ws_takeover_allowed(wsi);
        c->wsi = wsi;
        c->h = h;
        c->is_ws = 1;
        c->base.send = queue_send;
        cas__sendq_attach(&h->sendq, &c->q);
        c->base.seat = -1;
        c->tokens = h->opts.limits.burst;
        c->refilled_at = now(h);
        cas__buf_init(&c->rx, h->opts.limits.max_message);
        h->n_conns++;
        sign_in_by_cookie(c);
        return 0;
    case LWS_CALLBACK_RECEIVE:
        return c && c->is_ws ? receive(c, in, len) : -1;
    case LWS_CALLBACK_SERVER_WRITEABLE:
        return c && c->is_ws ? write_next(c) : -1;
    case LWS_CALLBACK_CLOSED:
        if (c && c->is_ws) {
            cas__lobby_disconnect(h->lobby, &c->base);
            cas__sendq_detach(&h->sendq, &c->q);
            cas__srv_msg_unref(c->last[0]);
            cas__srv_msg_unref(c->last[1]);
            c->last[0] = c->last[1] = NULL;
            cas__buf_free(&c->rx);
            h->n_conns--;
            c->is_ws = 0;
        }
        return 0;
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
        cas__handoff_count(CAS__HANDOFF_WAKE_TURN);
        if (h && h->replays)
            cas__replays_deliver(h->replays);
        if (h && h->lobby->bots) {
            cas__bots_deliver(h->lobby->bots);
            if (h->lobby->isolated_pool)
                cas__bots_deliver(h->lobby->isolated_pool);
        }
        if (h)
            cas__journal_deliver(h->lobby);
        return 0;
    default:
        return 0;
    }
}

/* ---------------------------------------------------------- accepting */

static void refuse(struct cas__httpd *h, int fd)
{
    static const char busy[] = "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n"
                               "Connection: close\r\nRetry-After: 5\r\n"
                               "Content-Security-Policy: " CAS__SERVE_CSP "\r\n"
                               "X-Content-Type-Options: nosniff\r\nX-Frame-Options: DENY\r\n"
                               "Referrer-Policy: no-referrer\r\n\r\n";
    /* Plain HTTP gets a word; a TLS handshake would not read it. */
    if (!h->opts.cert && send(fd, busy, sizeof busy - 1, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
        (void)0; /* the client is gone or not reading: closing is all that is left */
    close(fd);
    h->refused++;
}

/* Out of file descriptors: free the reserve to take the waiting connection
 * off the backlog and close it, or the listening socket stays readable
 * and the loop spins on it. */
static void shed_one(struct cas__httpd *h)
{
    if (h->reserve_fd < 0)
        return;
    close(h->reserve_fd);
    int fd = accept4(h->listen_fd, NULL, NULL, SOCK_CLOEXEC);
    if (fd >= 0)
        refuse(h, fd);
    h->reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
}

/* The listening socket is readable: take each waiting connection (a
 * bounded batch, so the loop goes on to the others) and hand it to lws,
 * or shed it when the server has max-connections already. */
static int accept_waiting(struct cas__httpd *h)
{
    for (int i = 0; i < 64; i++) {
        int fd = accept4(h->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EMFILE || errno == ENFILE)
                shed_one(h);
            return 0;
        }
        if (h->n_sockets >= h->max_sockets) {
            refuse(h, fd);
            continue;
        }
        /* No Nagle: a message written while the one before is not yet
         * acknowledged would wait for the client's delayed ACK (up to
         * 40 ms).  libwebsockets sets this only on sockets it accepts. */
        int on = 1;
        if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on) != 0)
            (void)0; /* not TCP (never here): nothing to turn off */
        lws_adopt_desc_t desc = {
            .vh = h->vhost,
            .type = LWS_ADOPT_SOCKET | LWS_ADOPT_HTTP | (h->opts.cert ? LWS_ADOPT_ALLOW_SSL : 0),
            .fd.sockfd = fd,
            .opaque = h, /* marks a connection counted in n_sockets */
        };
        /* lws closes fd when adoption fails, running the destroy callback
         * (which counts the connection back) only if it got that far: at
         * once on poll; on libuv later, from the handle's close callback,
         * so not counted back here (only an allocation failure before the
         * connection exists, which never calls it, then leaks a count). */
        unsigned counted = ++h->n_sockets;
        if (!lws_adopt_descriptor_vhost_via_info(&desc) && !h->uv && h->n_sockets == counted)
            h->n_sockets--;
    }
    return 0;
}

static int listener(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
    struct cas__httpd *h = lws_context_user(lws_get_context(wsi));
    (void)user, (void)in, (void)len;
    if (reason == LWS_CALLBACK_RAW_RX_FILE && h)
        return accept_waiting(h);
    return 0;
}

/* Everything a connection's callback does is the loop's (loop_guard.h). */
static int loop_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user,
                         void *in, size_t len)
{
    cas__loop_enter();
    int rc = callback(wsi, reason, user, in, len);
    cas__loop_leave();
    return rc;
}

static const struct lws_protocols protocols[] = {
    {"castellan.v1", loop_callback, sizeof(struct conn), 16384, 0, NULL, 0},
    {"castellan-listen", listener, 0, 0, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

static void wake(void *ctx)
{
    cas__httpd_wake(ctx);
}

/* Sent with every HTTP answer, lws's own errors included: the table's
 * strict CSP (no inline script, nothing from elsewhere, never framed),
 * no sniffing, no referrer, no opener, no powerful features. */
static const struct lws_protocol_vhost_options vhost_headers[] = {
    {&vhost_headers[1], NULL, "content-security-policy:", CAS__SERVE_CSP},
    {&vhost_headers[2], NULL, "x-content-type-options:", "nosniff"},
    {&vhost_headers[3], NULL, "referrer-policy:", "no-referrer"},
    {&vhost_headers[4], NULL, "x-frame-options:", "DENY"},
    {&vhost_headers[5], NULL, "cross-origin-opener-policy:", "same-origin"},
    {&vhost_headers[6], NULL, "cross-origin-resource-policy:", "same-origin"},
    {NULL, NULL, "permissions-policy:", "camera=(), microphone=(), geolocation=(), usb=()"},
};

/* The listening socket h->listen_fd into lws's loop, as a descriptor whose
 * readiness calls listener(); lws owns (and closes) it from then on. */
static int adopt_listener(struct cas__httpd *h)
{
    lws_adopt_desc_t desc = {.vh = h->vhost, .type = LWS_ADOPT_RAW_FILE_DESC,
                             .fd.filefd = h->listen_fd, .vh_prot_name = "castellan-listen"};
    if (!lws_adopt_descriptor_vhost_via_info(&desc))
        return CAS_EIO;
    h->listen_fd_owned = 0;
    return CAS_OK;
}

/* The lws context on a libuv loop of ours (epoll: idle connections cost
 * nothing per turn); when libwebsockets cannot load its libuv plugin
 * (package libwebsockets-evlib-uv), on its own poll() loop, with a warning. */
static struct lws_context *create_context(struct cas__httpd *h,
                                          struct lws_context_creation_info *info)
{
    void *loops[1];
    if ((loops[0] = h->uv = cas__evloop_new())) {
        info->options |= LWS_SERVER_OPTION_LIBUV;
        info->foreign_loops = loops;
        info->pcontext = &h->ctx;
        struct lws_context *ctx = lws_create_context(info);
        info->options &= ~(uint64_t)LWS_SERVER_OPTION_LIBUV;
        info->foreign_loops = NULL;
        info->pcontext = NULL;
        if (ctx)
            return ctx;
        cas__evloop_free(h->uv);
        h->uv = NULL;
        if (!h->opts.quiet)
            fprintf(stderr, "castellan serve: warning: libwebsockets cannot load its libuv "
                    "event library (install libwebsockets-evlib-uv); serving on its poll() "
                    "loop, whose cost per turn grows with every open connection\n");
    }
    return lws_create_context(info);
}

int cas__httpd_start(struct cas__lobby *l, const struct cas__serve_options *opts,
                     struct cas__httpd **out, int *port, char *err, size_t errlen)
{
    struct lws_context_creation_info info;
    *out = NULL;
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
    cas__sendq_budget_init(&h->sendq, opts->limits.max_send, opts->limits.max_queue,
                           MAX_QUEUED_MESSAGES, queue_dropped, h);
    h->listen_fd = h->reserve_fd = h->www_fd = -1;
    if (!(h->deflate = cas__wsdeflate_new())) {
        free(h);
        snprintf(err, errlen, "out of memory");
        return CAS_ENOMEM;
    }
    h->max_sockets = opts->limits.max_connections
                         ? opts->limits.max_connections
                         : cas__fd_limit_connections(CAS__DEFAULT_MAX_CONNECTIONS);
    int rc = CAS_ENOTFOUND;
    if (opts->www && (h->www_fd = open(opts->www, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) {
        snprintf(err, errlen, "the client's files: %s: %s; give --www DIR", opts->www,
                 strerror(errno));
        goto fail;
    }
    if ((rc = cas__allowed_hosts_parse(opts->allowed_hosts, &h->allowed, err, errlen)))
        goto fail;
    rc = CAS_ENOTFOUND;
    if ((rc = cas__fd_limit_check(h->max_sockets, err, errlen)) ||
        (rc = cas__listen_open(opts->listen, &h->listen_fd, port, err, errlen)))
        goto fail;
    h->listen_fd_owned = 1;
    h->reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    lws_set_log_level(getenv("CAS_SERVE_DEBUG") ? LLL_ERR | LLL_WARN | LLL_NOTICE | LLL_INFO
                                                : opts->quiet ? 0 : LLL_ERR, NULL);
    memset(&info, 0, sizeof info);
    /* The vhost is made apart (EXPLICIT_VHOSTS), so a failed context is the
     * event library's failure, and a bad certificate fails the vhost. */
    /* lws listens nowhere: listen.c made the socket, accept_waiting adopts
     * each connection (TLS still set up for them). */
    info.port = CONTEXT_PORT_NO_LISTEN_SERVER;
    info.protocols = protocols;
    info.extensions = cas__ws_extensions;
    info.user = h;
    info.headers = vhost_headers;
    info.fd_limit_per_thread = h->max_sockets + CAS__FDS_BESIDES_CONNECTIONS;
    info.timeout_secs = HTTP_ANSWER_SECS;
    info.options = LWS_SERVER_OPTION_VALIDATE_UTF8 | LWS_SERVER_OPTION_EXPLICIT_VHOSTS;
    if (opts->cert) {
        info.options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
        info.ssl_cert_filepath = opts->cert;
        info.ssl_private_key_filepath = opts->key;
    }
    rc = CAS_EIO;
    if (!(h->ctx = create_context(h, &info))) {
        snprintf(err, errlen, "cannot start libwebsockets");
        goto fail;
    }
    if (!(h->vhost = lws_create_vhost(h->ctx, &info)) || adopt_listener(h)) {
        snprintf(err, errlen, "cannot serve on %s%s", opts->listen,
                 opts->cert ? " with that certificate and key (readable PEM files?)" : "");
        goto fail;
    }
    if (l->limits.bot_threads && !l->bots &&
        (cas__bots_new(l->limits.bot_threads, wake, h, &l->bots) != CAS_OK ||
         cas__bots_new(CAS__ISOLATED_THREADS, wake, h, &l->isolated_pool) != CAS_OK)) {
        snprintf(err, errlen, "cannot start the pool's threads");
        rc = CAS_ENOMEM;
        goto fail;
    }
    if (cas__replays_new(wake, h, replay_ready, &h->replays) != CAS_OK) {
        snprintf(err, errlen, "cannot start the replay pages' thread");
        rc = CAS_ENOMEM;
        goto fail;
    }
    lws_sul_schedule(h->ctx, 0, &h->clock_timer, clock_tick, 100 * LWS_US_PER_MS);
    *out = h;
    return CAS_OK;
fail:
    cas__httpd_free(h);
    return rc;
}

int cas__httpd_service(struct cas__httpd *h, int timeout_ms)
{
    if (!h->uv)
        return lws_service(h->ctx, timeout_ms);
    cas__evloop_turn(h->uv);
    return 0;
}

const char *cas__httpd_event_loop(const struct cas__httpd *h)
{
    return h->uv ? "libuv" : "poll";
}

size_t cas__httpd_queued(const struct cas__httpd *h)
{
    return h->sendq.total_msgs;
}

unsigned cas__httpd_sockets(const struct cas__httpd *h)
{
    return h->n_conns;
}

void cas__httpd_wake(void *h)
{
    cas__handoff_count(CAS__HANDOFF_WAKE);
    lws_cancel_service(((struct cas__httpd *)h)->ctx);
}

void cas__httpd_stop_jobs(struct cas__httpd *h)
{
    if (!h)
        return;
    cas__bots_free(h->lobby->isolated_pool);
    h->lobby->isolated_pool = NULL;
    cas__bots_free(h->lobby->bots);
    h->lobby->bots = NULL;
}

void cas__httpd_free(struct cas__httpd *h)
{
    if (!h)
        return;
    /* The games' jobs end first: a table is never freed while held. */
    cas__httpd_stop_jobs(h);
    cas__replays_free(h->replays);
    h->replays = NULL;
    cas__evloop_destroy(&h->ctx, h->uv);
    if (h->listen_fd_owned)
        close(h->listen_fd);
    if (h->reserve_fd >= 0)
        close(h->reserve_fd);
    if (h->www_fd >= 0)
        close(h->www_fd);
    cas__allowed_hosts_free(&h->allowed);
    cas__wsdeflate_free(h->deflate);
    cas__buf_free(&h->stored_frame);
    free(h);
}
