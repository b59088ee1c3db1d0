/*
 * wsclient.c — a WebSocket client of castellan.v1 on libwebsockets, for
 * the server's end-to-end and load tests and for `castellan bench --only
 * serve`: many connections on one thread, each with its queue of messages
 * to send and a callback for every message received.  It runs on a libuv
 * loop of its own lent to libwebsockets, as the server does (evloop.c):
 * epoll, so a turn costs what is ready, not every open connection, and
 * the load client takes little of the cores it shares with the server.
 */
#include <libwebsockets.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <uv.h>

#include "buf.h"
#include "server.h"
#include "wsclient.h"

struct pending {
    size_t len;
    struct pending *next;
    unsigned char data[]; /* LWS_PRE bytes, then the text */
};

struct cas__wsc_conn {
    struct cas__wsc *client;
    struct lws *wsi;
    void *user;
    int open, closed;
    int deflate;           /* the server took permessage-deflate */
    struct pending *out, **out_tail;
    struct cas__buf rx;    /* the message being received */
};

struct cas__wsc {
    struct lws_context *ctx;
    const struct cas__wsc_events *events;
    struct uv_loop_s *uv;      /* the loop lws runs on; NULL: lws's poll loop */
    /* On libuv: a timer set to the caller's timeout on each turn, so
     * cas__wsc_service returns when the caller wants it back (a load
     * client's next act is due). */
    uv_timer_t wake;
    /* Just before each wait of the loop (libuv's prepare phase): whether
     * the wake is still pending then, counted in wakes. */
    uv_prepare_t before_wait;
    int in_turn, waiting;      /* in a bounded turn; its wait has begun */
    struct cas__wsc_wakes wakes;
    /* On poll: libwebsockets 4.1 ignores lws_service's timeout and waits
     * in poll until its next scheduled event; this tick is that event. */
    lws_sorted_usec_list_t tick;
};

static void tick(lws_sorted_usec_list_t *sul)
{
    struct cas__wsc *w = lws_container_of(sul, struct cas__wsc, tick);
    lws_sul_schedule(w->ctx, 0, &w->tick, tick, 20 * LWS_US_PER_MS);
}

static void drop_pending(struct cas__wsc_conn *c)
{
    while (c->out) {
        struct pending *p = c->out;
        c->out = p->next;
        free(p);
    }
    c->out_tail = &c->out;
}

static int on_receive(struct cas__wsc_conn *c, const char *in, size_t len)
{
    if (cas__buf_add(&c->rx, in, len) != CAS_OK)
        return -1;
    if (!lws_is_final_fragment(c->wsi) || lws_remaining_packet_payload(c->wsi))
        return 0;
    /* Taken first: the handler may close and free c. */
    size_t n;
    char *text = cas__buf_take(&c->rx, &n);
    if (text && c->client->events->message)
        c->client->events->message(c, c->user, text, n);
    free(text);
    return 0;
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
    struct cas__wsc_conn *c = lws_get_opaque_user_data(wsi);
    (void)user;
    switch (reason) {
    case LWS_CALLBACK_CLIENT_FILTER_PRE_ESTABLISH: {
        /* the server's answer to the upgrade, headers still at hand */
        char ext[128] = "";
        if (c && lws_hdr_copy(wsi, ext, sizeof ext, WSI_TOKEN_EXTENSIONS) > 0)
            c->deflate = strstr(ext, "permessage-deflate") != NULL;
        return 0;
    }
    case LWS_CALLBACK_CLIENT_ESTABLISHED:
        c->open = 1;
        if (c->client->events->open)
            c->client->events->open(c, c->user);
        if (c->out)
            lws_callback_on_writable(wsi);
        return 0;
    case LWS_CALLBACK_CLIENT_RECEIVE:
        return on_receive(c, in, len);
    case LWS_CALLBACK_CLIENT_WRITEABLE:
        if (c->out) {
            struct pending *p = c->out;
            c->out = p->next;
            if (!c->out)
                c->out_tail = &c->out;
            int n = lws_write(wsi, p->data + LWS_PRE, p->len, LWS_WRITE_TEXT);
            free(p);
            if (n < 0)
                return -1;
            if (c->out)
                lws_callback_on_writable(wsi);
        }
        return 0;
    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
    case LWS_CALLBACK_CLIENT_CLOSED:
        if (c && !c->closed) {
            c->closed = 1;
            c->wsi = NULL;
            if (c->client->events->closed)
                c->client->events->closed(c, c->user);
        }
        return 0;
    default:
        return 0;
    }
}

/* Offered as a browser offers it, so the server compresses for the tests
 * and the benchmark as it does for a page. */
static const struct lws_extension extensions[] = {
    {"permessage-deflate", lws_extension_callback_pm_deflate,
     "permessage-deflate; client_max_window_bits"},
    {NULL, NULL, NULL},
};

static const struct lws_protocols protocols[] = {
    {"castellan.v1", callback, 0, 65536, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

/* As many connections as the process may open files: the soft limit is
 * raised to the hard one (the benchmark opens two per game, 16,000 for
 * 8,000 games); libwebsockets refuses connections past the count it is
 * given. */
static unsigned fd_limit(void)
{
    struct rlimit r;
    if (getrlimit(RLIMIT_NOFILE, &r) != 0)
        return 4096;
    if (r.rlim_cur < r.rlim_max) {
        rlim_t soft = r.rlim_cur;
        r.rlim_cur = r.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &r) != 0)
            r.rlim_cur = soft;
    }
    return r.rlim_cur == RLIM_INFINITY || r.rlim_cur > 1u << 16 ? 1u << 16
                                                                  : (unsigned)r.rlim_cur;
}

/* The loop is about to wait: in a turn its caller bounded, the wake must
 * be pending, or the wait lasts until libwebsockets' next timer. */
static void about_to_wait(uv_prepare_t *prepare)
{
    struct cas__wsc *w = prepare->data;
    if (!w->in_turn || w->waiting)
        return;
    w->waiting = 1;
    if (!uv_is_active((uv_handle_t *)&w->wake) && uv_backend_timeout(w->uv) != 0)
        w->wakes.unwoken_waits++;
}

/* The lws context on a libuv loop of the client's own, made as the
 * server's is (evloop.c: CASTELLAN_SERVE_EVENT_LOOP=poll puts both on
 * libwebsockets' poll loop, as tests/server/test_serve_e2e does); when
 * libwebsockets cannot load its libuv plugin (package
 * libwebsockets-evlib-uv), on its own poll loop, with a warning. */
static struct lws_context *create_context(struct cas__wsc *w,
                                          struct lws_context_creation_info *info)
{
    void *loops[1];
    if ((loops[0] = w->uv = cas__evloop_new())) {
        info->options |= LWS_SERVER_OPTION_LIBUV;
        info->foreign_loops = loops;
        info->pcontext = &w->ctx;
        struct lws_context *ctx = lws_create_context(info);
        info->options &= ~(uint64_t)LWS_SERVER_OPTION_LIBUV;
        info->foreign_loops = NULL;
        info->pcontext = NULL;
        if (ctx) {
            /* cannot fail: they only fill the handles */
            uv_timer_init(w->uv, &w->wake);
            w->wake.data = w;
            uv_prepare_init(w->uv, &w->before_wait);
            w->before_wait.data = w;
            uv_prepare_start(&w->before_wait, about_to_wait);
            uv_unref((uv_handle_t *)&w->before_wait);
            return ctx;
        }
        cas__evloop_free(w->uv);
        w->uv = NULL;
        fprintf(stderr, "castellan: warning: the WebSocket client cannot run libwebsockets on "
                "libuv (install libwebsockets-evlib-uv); it runs on libwebsockets' poll loop, "
                "whose cost per turn grows with every open connection\n");
    }
    struct lws_context *ctx = lws_create_context(info);
    if (ctx)
        lws_sul_schedule(ctx, 0, &w->tick, tick, 20 * LWS_US_PER_MS);
    return ctx;
}

int cas__wsc_new(const struct cas__wsc_events *events, struct cas__wsc **out)
{
    struct lws_context_creation_info info;
    struct cas__wsc *w = calloc(1, sizeof *w);
    *out = NULL;
    if (!w)
        return CAS_ENOMEM;
    memset(&info, 0, sizeof info);
    info.port = CONTEXT_PORT_NO_LISTEN;
    info.protocols = protocols;
    info.extensions = extensions;
    info.fd_limit_per_thread = fd_limit();
    lws_set_log_level(getenv("CAS_WSC_DEBUG") ? LLL_ERR | LLL_WARN | LLL_NOTICE | LLL_INFO | LLL_CLIENT : LLL_ERR, NULL);
    w->events = events;
    if (!(w->ctx = create_context(w, &info))) {
        free(w);
        return CAS_EIO;
    }
    *out = w;
    return CAS_OK;
}

const char *cas__wsc_event_loop(const struct cas__wsc *w)
{
    return w->uv ? "libuv" : "poll";
}

void cas__wsc_free(struct cas__wsc *w)
{
    if (!w)
        return;
    if (w->uv) {
        uv_close((uv_handle_t *)&w->wake, NULL);
        uv_close((uv_handle_t *)&w->before_wait, NULL);
    }
    cas__evloop_destroy(&w->ctx, w->uv);
    free(w);
}

int cas__wsc_connect(struct cas__wsc *w, const char *address, int port, void *user,
                     struct cas__wsc_conn **out)
{
    struct lws_client_connect_info ci;
    struct cas__wsc_conn *c = calloc(1, sizeof *c);
    *out = NULL;
    if (!c)
        return CAS_ENOMEM;
    c->client = w;
    c->user = user;
    c->out_tail = &c->out;
    memset(&ci, 0, sizeof ci);
    ci.context = w->ctx;
    ci.address = address;
    ci.port = port;
    ci.path = "/ws";
    ci.host = address;
    ci.origin = address;
    ci.protocol = "castellan.v1";
    ci.opaque_user_data = c;
    ci.pwsi = &c->wsi;
    if (!lws_client_connect_via_info(&ci)) {
        free(c);
        return CAS_EIO;
    }
    *out = c;
    return CAS_OK;
}

int cas__wsc_send(struct cas__wsc_conn *c, const char *text)
{
    size_t len = strlen(text);
    struct pending *p = malloc(sizeof *p + LWS_PRE + len);
    if (!p)
        return CAS_ENOMEM;
    p->len = len;
    p->next = NULL;
    memcpy(p->data + LWS_PRE, text, len);
    *c->out_tail = p;
    c->out_tail = &p->next;
    if (c->open && c->wsi)
        lws_callback_on_writable(c->wsi);
    return CAS_OK;
}

int64_t cas__wsc_bytes_read(const struct cas__wsc_conn *c)
{
    return c->wsi && !c->closed ? cas__tcp_bytes_read(lws_get_socket_fd(c->wsi)) : -1;
}

int cas__wsc_deflate(const struct cas__wsc_conn *c)
{
    return c->deflate;
}

int cas__wsc_is_open(const struct cas__wsc_conn *c)
{
    return c->open && !c->closed;
}

void cas__wsc_close(struct cas__wsc_conn *c)
{
    if (c->wsi && !c->closed) {
        lws_set_timeout(c->wsi, PENDING_TIMEOUT_CLOSE_SEND, LWS_TO_KILL_ASYNC);
        return;
    }
}

void cas__wsc_conn_free(struct cas__wsc_conn *c)
{
    if (!c)
        return;
    drop_pending(c);
    cas__buf_free(&c->rx);
    free(c);
}

int cas__wsc_service(struct cas__wsc *w, int timeout_ms)
{
    return cas__wsc_service_us(w, (int64_t)timeout_ms * 1000);
}

static void woken(uv_timer_t *timer)
{
    struct cas__wsc *w = timer->data;
    w->wakes.before_wait += !w->waiting;
}

void cas__wsc_wakes(const struct cas__wsc *w, struct cas__wsc_wakes *out)
{
    *out = w->wakes;
}

int cas__wsc_service_us(struct cas__wsc *w, int64_t timeout_us)
{
    if (!w->uv) {
        lws_sul_schedule(w->ctx, 0, &w->tick, tick, timeout_us > 0 ? timeout_us : 1);
        return lws_service(w->ctx, 0);
    }
    /* libuv's timers count whole milliseconds: rounded up, so the turn
     * never ends before the caller's time.  The timer repeats until the
     * turn is over: a turn runs the timers that are due before it waits,
     * so a one-shot timer due by then fired first and the wait that
     * followed was bounded only by libwebsockets' next timer (~30 s): the
     * acts due stalled until a socket's event, which a quiet server (the
     * floor's bare one) never sends. */
    uint64_t ms = timeout_us > 0 ? (uint64_t)(timeout_us + 999) / 1000 : 0;
    if (ms) {
        uv_timer_start(&w->wake, woken, ms, ms);
        w->in_turn = 1;
        w->waiting = 0;
        uv_run(w->uv, UV_RUN_ONCE);
        w->in_turn = 0;
        uv_timer_stop(&w->wake);
    } else {
        uv_run(w->uv, UV_RUN_NOWAIT);
    }
    /* libwebsockets hands over one message per connection per pass and
     * keeps what it read past it; on poll, lws_service's next call passes
     * over those first, and on libuv its idle handle does on the next
     * turn, started only by a socket's event.  So the messages already
     * read are handed over here, before the caller looks (a step of a
     * recorded game must not depend on the loop): a turn for the idle
     * handle, and while some are left, lws_cancel_service's event to
     * start it again. */
    for (int pass = 0; pass < 16 && !lws_service_adjust_timeout(w->ctx, 1, 0); pass++) {
        if (pass)
            lws_cancel_service(w->ctx);
        uv_run(w->uv, UV_RUN_NOWAIT);
    }
    return 0;
}
