/*
 * floor_server.c — the bare server of the serve benchmark's floor: castellan
 * serve's transport with nothing behind it.  It listens and accepts as
 * listen.c and http.c do, on the same libuv loop lent to libwebsockets,
 * with the same context options and permessage-deflate negotiated by the
 * same code (wsoffer.c), and sends each message as http.c does (compressed
 * after the connection's last message by srv_msg.c and wsdeflate.c, a short one
 * in a stored block, written at once when nothing waits, else queued in
 * sendq.c's queues).  Behind it
 * there is no lobby, no game and no pool: a move is answered with a
 * recorded game's next messages (floor_record.c), so what the server's CPU
 * per move costs here is the floor under castellan serve's.  Asked to, it
 * journals each act first through the journal's writer, as serve does.
 * It is a bench fixture: loopback only, bounded in games and message size.
 */
#define _GNU_SOURCE /* accept4 */
#include <libwebsockets.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include "floor.h"
#include "server.h"
#include "wsdeflate.h"
#include "wsoffer.h"

#define MAX_MESSAGE 4096       /* what a client sends: creates, joins, acts */
#define MAX_QUEUED 1024        /* messages queued on one connection */
#define TICK_MS 100            /* the loop's timer, as castellan serve's clock */

struct game {
    struct conn *seat[2];
    size_t step;               /* the recording's step last sent */
    int64_t row;               /* with a journal: its game in the store */
    int writing;               /* with a journal: an act is being journaled */
};

struct conn {
    struct lws *wsi;
    struct cas__floor_server *s;
    int is_ws, closing;
    int deflate, takeover;     /* as http.c: permessage-deflate, frames ours */
    struct cas__sendq q;
    struct cas__srv_msg *last[2]; /* the last two sent compressed, newest first */
    struct cas__buf rx;
    struct game *game;
    int seat;
};

struct cas__floor_server {
    struct cas__floor_server_opts o;
    struct lws_context *ctx;
    struct uv_loop_s *uv;      /* NULL: lws's poll loop */
    struct lws_vhost *vhost;
    int listen_fd, listen_owned;
    struct cas__wsdeflate *deflate;
    struct cas__buf stored_frame;
    struct cas__sendq_budget sendq;
    lws_sorted_usec_list_t tick;
    struct game *games;
    size_t n_games;
    struct cas__floor_counts counts;
    struct cas__saves *store;  /* with a journal: creates' rows */
    struct cas__saves_writer *writer; /* ... and the acts, on its thread */
};

/* -------------------------------------------------------- sending */

static int write_msg(struct conn *c, struct cas__srv_msg *msg)
{
    static struct cas__srv_msg *const none[2];
    const unsigned char *frame = NULL;
    size_t len = 0;
    if (!c->deflate) {
        int failed = lws_write(c->wsi, (unsigned char *)msg->data + LWS_PRE, msg->len,
                               LWS_WRITE_TEXT) < (int)msg->len;
        c->s->counts.bytes += msg->len + (msg->len < 126 ? 2 : msg->len < 65536 ? 4 : 10);
        c->s->counts.messages++;
        cas__srv_msg_unref(msg);
        return failed;
    }
    if (msg->len < CAS__WSDEFLATE_MIN) {
        if (cas__srv_msg_stored(msg, &c->s->stored_frame, &frame, &len) != CAS_OK)
            frame = NULL;
    } else {
        const struct cas__srv_frame *f =
            cas__srv_msg_deflated(msg, c->takeover ? c->last : none, c->s->deflate);
        frame = f ? f->frame : NULL;
        len = f ? f->len : 0;
    }
    int failed = !frame || lws_write(c->wsi, (unsigned char *)frame, len, LWS_WRITE_RAW) < (int)len;
    c->s->counts.bytes += len;
    c->s->counts.messages++;
    cas__srv_msg_unref(c->last[1]);
    c->last[1] = c->last[0];
    c->last[0] = msg;
    return failed;
}

/* Written at once when nothing waits, as http.c's queue_send. */
static void send_text(struct conn *c, const char *text, size_t len)
{
    struct cas__jw w;
    if (!c || c->closing)
        return;
    cas__jw_init(&w);
    cas__jw_rawn(&w, text, len);
    struct cas__srv_msg *msg = cas__srv_msg_take(&w);
    if (!msg) {
        c->closing = 1;
    } else if (!c->q.count && !lws_partial_buffered(c->wsi)) {
        if (!(c->closing = write_msg(c, msg)))
            return;
    } else if (cas__sendq_push(&c->s->sendq, &c->q, msg) == 0) {
        cas__srv_msg_unref(msg);
    } else {
        cas__srv_msg_unref(msg);
        c->closing = 1;
    }
    lws_callback_on_writable(c->wsi);
}

static int write_next(struct conn *c)
{
    if (c->closing)
        return -1;
    struct cas__srv_msg *msg = cas__sendq_pop(&c->s->sendq, &c->q);
    if (msg && write_msg(c, msg))
        return -1;
    if (c->q.count)
        lws_callback_on_writable(c->wsi);
    return 0;
}

static void queue_dropped(struct cas__sendq *q, void *ctx)
{
    struct conn *c = lws_container_of(q, struct conn, q);
    (void)ctx;
    c->closing = 1;
    lws_callback_on_writable(c->wsi);
}

/* The recording's messages of step to seat, each a message of its own. */
static void send_step(struct cas__floor_server *s, struct game *g, int seat, size_t step)
{
    size_t first, n = cas__floor_batch(s->o.game, seat, step, &first);
    for (size_t i = 0; i < n; i++) {
        const struct cas__floor_msg *m = &s->o.game->seat[seat].msgs[first + i];
        send_text(g->seat[seat], m->text, m->len);
    }
}

/* ------------------------------------------------------- receiving */

static int64_t int_after(const char *m, const char *key, int64_t def)
{
    const char *at = strstr(m, key);
    return at ? strtoll(at + strlen(key), NULL, 10) : def;
}

static void send_error(struct conn *c, const char *code)
{
    char text[128];
    int n = snprintf(text, sizeof text, "{\"type\":\"error\",\"code\":\"%s\"}", code);
    send_text(c, text, (size_t)n);
}

/* The game's row in the journal's store (on the loop: creating is not
 * what the floor measures). */
static int64_t insert_row(struct cas__floor_server *s)
{
    struct cas__saves_player players[2] = {{.name = "a", .agent = "human"},
                                           {.name = "b", .agent = "human"}};
    struct cas__saves_game g = {.castellan_version = "floor", .game = {.id = "floor",
                                .version = "1"}, .players = players, .n_players = 2,
                                .status = CAS__SAVES_PLAYING};
    return cas__saves_game_insert(s->store, &g) == CAS_OK ? g.id : 0;
}

static void create(struct conn *c)
{
    struct cas__floor_server *s = c->s;
    char text[256];
    int64_t row = s->store ? insert_row(s) : 0;
    if (s->n_games >= s->o.max_games || (s->store && !row)) {
        send_error(c, s->store && !row ? "store" : "full");
        return;
    }
    s->games[s->n_games].row = row;
    size_t id = ++s->n_games;
    int n = snprintf(text, sizeof text, "{\"type\":\"created\",\"game\":\"%zu\",\"seats\":["
                     "{\"seat\":0,\"token\":\"%016zx\"},{\"seat\":1,\"token\":\"%016zx\"}]}",
                     id, 2 * id, 2 * id + 1);
    send_text(c, text, (size_t)n);
}

static void join(struct conn *c, const char *text)
{
    struct cas__floor_server *s = c->s;
    int64_t id = int_after(text, "\"game\":\"", 0), seat = int_after(text, "\"seat\":", -1);
    if (c->game || id < 1 || (uint64_t)id > s->n_games || seat < 0 || seat > 1 ||
        s->games[id - 1].seat[seat]) {
        send_error(c, "bad-join");
        return;
    }
    struct game *g = &s->games[id - 1];
    c->game = g;
    c->seat = (int)seat;
    g->seat[seat] = c;
    send_step(s, g, (int)seat, 0);
}

/* The next step's messages to both seats: the move acknowledged. */
static void answer(struct cas__floor_server *s, struct game *g)
{
    g->step++;
    s->counts.moves++;
    for (int seat = 0; seat < 2; seat++)
        if (g->seat[seat])
            send_step(s, g, seat, g->step);
}

/* The act's action text (its "action" string as sent) journaled as the
 * game's next ply, answered once durable (journaled()). */
static void journal(struct cas__floor_server *s, struct game *g, int seat, const char *text)
{
    const char *at = strstr(text, "\"action\":\"");
    char action[512];
    snprintf(action, sizeof action, "%.*s", at ? (int)strcspn(at + 10, "\"") : 0,
             at ? at + 10 : "");
    struct cas__saves_entry *e =
        cas__saves_entry_new(g->row, (uint32_t)g->step, seat, action, 0, -1, g);
    if (!e)
        return;
    g->writing = 1;
    cas__saves_writer_submit(s->writer, e);
}

/* The writer woke the loop: answer the acts now durable. */
static void journaled(struct cas__floor_server *s)
{
    for (struct cas__saves_entry *e = cas__saves_writer_done(s->writer, 0), *next; e; e = next) {
        struct game *g = e->owner;
        next = e->next;
        g->writing = 0;
        if (e->rc == CAS_OK) {
            s->counts.journaled++;
            answer(s, g);
        }
        cas__saves_entry_free(e);
    }
}

static void act(struct conn *c, const char *text)
{
    struct game *g = c->game;
    if (!g || g->writing || g->step >= c->s->o.game->moves)
        return;
    if (c->s->writer)
        journal(c->s, g, c->seat, text);
    else
        answer(c->s, g);
}

static void handle(struct conn *c, const char *text)
{
    if (strncmp(text, "{\"type\":\"act\"", 13) == 0)
        act(c, text);
    else if (strncmp(text, "{\"type\":\"join\"", 14) == 0)
        join(c, text);
    else if (strncmp(text, "{\"type\":\"create\"", 16) == 0)
        create(c);
    else
        send_error(c, "unknown");
}

static int receive(struct conn *c, const char *in, size_t len)
{
    if (cas__buf_add(&c->rx, in, len) != CAS_OK)
        return -1; /* over MAX_MESSAGE: not a client of this bench */
    if (!lws_is_final_fragment(c->wsi) || lws_remaining_packet_payload(c->wsi))
        return 0;
    if (cas__buf_add(&c->rx, "", 1) != CAS_OK)
        return -1;
    handle(c, c->rx.data);
    cas__buf_reset(&c->rx);
    return 0;
}

/* ----------------------------------------------------- connections */

static void closed(struct conn *c)
{
    if (c->game)
        c->game->seat[c->seat] = NULL;
    c->game = NULL;
    cas__sendq_detach(&c->s->sendq, &c->q);
    cas__srv_msg_unref(c->last[0]);
    cas__srv_msg_unref(c->last[1]);
    c->last[0] = c->last[1] = NULL;
    cas__buf_free(&c->rx);
    c->is_ws = 0;
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
    struct conn *c = user;
    struct cas__floor_server *s = lws_context_user(lws_get_context(wsi));
    switch (reason) {
    case LWS_CALLBACK_HTTP:
        return -1; /* no pages here */
    case LWS_CALLBACK_ESTABLISHED:
        if (!c || !s)
            return -1;
        c->wsi = wsi;
        c->s = s;
        c->deflate = cas__ws_deflate_ours(wsi);
        c->takeover = c->deflate && cas__ws_takeover_allowed(wsi);
        c->is_ws = 1;
        cas__sendq_attach(&s->sendq, &c->q);
        cas__buf_init(&c->rx, MAX_MESSAGE);
        return 0;
    case LWS_CALLBACK_RECEIVE:
        return c && c->is_ws ? receive(c, in, len) : -1;
    case LWS_CALLBACK_SERVER_WRITEABLE:
        return c && c->is_ws ? write_next(c) : -1;
    case LWS_CALLBACK_CLOSED:
        if (c && c->is_ws)
            closed(c);
        return 0;
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
        if (s && s->writer)
            journaled(s);
        return 0;
    default:
        return 0;
    }
}

/* The listening socket is readable: as http.c's accept_waiting (no Nagle,
 * each connection adopted by lws), without its limits. */
static int listener(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
    struct cas__floor_server *s = lws_context_user(lws_get_context(wsi));
    (void)user, (void)in, (void)len;
    if (reason != LWS_CALLBACK_RAW_RX_FILE || !s)
        return 0;
    for (int i = 0; i < 64; i++) {
        int fd = accept4(s->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return 0;
        int on = 1;
        if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on) != 0)
            (void)0; /* not TCP: nothing to turn off */
        lws_adopt_desc_t desc = {.vh = s->vhost, .type = LWS_ADOPT_SOCKET | LWS_ADOPT_HTTP,
                                 .fd.sockfd = fd};
        lws_adopt_descriptor_vhost_via_info(&desc); /* closes fd when it fails */
    }
    return 0;
}

static const struct lws_protocols protocols[] = {
    {"castellan.v1", callback, sizeof(struct conn), 16384, 0, NULL, 0},
    {"castellan-listen", listener, 0, 0, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

static void wake(void *ctx)
{
    struct cas__floor_server *s = ctx;
    lws_cancel_service(s->ctx);
}

/* The journal's store and its writer thread, as serve_run.c opens them. */
static int open_journal(struct cas__floor_server *s, char *err, size_t errlen)
{
    int rc = cas__saves_open(s->o.journal, &s->store, err, errlen);
    if (rc == CAS_OK)
        rc = cas__saves_writer_open(s->o.journal, wake, s, &s->writer, err, errlen);
    if (rc == CAS_OK && (rc = cas__saves_writer_start(s->writer)) != CAS_OK)
        snprintf(err, errlen, "cannot start the journal's writer thread");
    return rc;
}

static void tick(lws_sorted_usec_list_t *sul)
{
    struct cas__floor_server *s = lws_container_of(sul, struct cas__floor_server, tick);
    lws_sul_schedule(s->ctx, 0, &s->tick, tick, TICK_MS * LWS_US_PER_MS);
}

int cas__floor_server_start(const struct cas__floor_server_opts *o, struct cas__floor_server **out,
                            int *port, char *err, size_t errlen)
{
    struct lws_context_creation_info info;
    void *loops[1];
    *out = NULL;
    struct cas__floor_server *s = calloc(1, sizeof *s);
    if (!s || !(s->games = calloc(o->max_games ? o->max_games : 1, sizeof *s->games)) ||
        !(s->deflate = cas__wsdeflate_new())) {
        snprintf(err, errlen, "out of memory");
        cas__floor_server_free(s);
        return CAS_ENOMEM;
    }
    s->o = *o;
    s->listen_fd = -1;
    cas__sendq_budget_init(&s->sendq, SIZE_MAX, SIZE_MAX, MAX_QUEUED, queue_dropped, s);
    int rc = cas__listen_open(o->listen, &s->listen_fd, port, err, errlen);
    if (rc != CAS_OK)
        goto fail;
    s->listen_owned = 1;
    lws_set_log_level(0, NULL);
    memset(&info, 0, sizeof info);
    info.port = CONTEXT_PORT_NO_LISTEN_SERVER;
    info.protocols = protocols;
    info.extensions = o->plain ? NULL : cas__ws_extensions;
    info.user = s;
    info.fd_limit_per_thread = 2 * o->max_games + 2 * CAS__FDS_BESIDES_CONNECTIONS;
    info.options = LWS_SERVER_OPTION_VALIDATE_UTF8 | LWS_SERVER_OPTION_EXPLICIT_VHOSTS;
    if ((loops[0] = s->uv = cas__evloop_new())) {
        info.options |= LWS_SERVER_OPTION_LIBUV;
        info.foreign_loops = loops;
        info.pcontext = &s->ctx;
    }
    rc = CAS_EIO;
    if (!(s->ctx = lws_create_context(&info))) {
        snprintf(err, errlen, "cannot start libwebsockets%s",
                 s->uv ? " on libuv (is libwebsockets-evlib-uv installed?)" : "");
        goto fail;
    }
    info.options &= ~(uint64_t)LWS_SERVER_OPTION_LIBUV;
    info.foreign_loops = NULL;
    info.pcontext = NULL;
    lws_adopt_desc_t desc = {.type = LWS_ADOPT_RAW_FILE_DESC, .fd.filefd = s->listen_fd,
                             .vh_prot_name = "castellan-listen"};
    if (!(s->vhost = desc.vh = lws_create_vhost(s->ctx, &info)) ||
        !lws_adopt_descriptor_vhost_via_info(&desc)) {
        snprintf(err, errlen, "cannot serve on %s", o->listen);
        goto fail;
    }
    s->listen_owned = 0;
    if (o->journal && (rc = open_journal(s, err, errlen)) != CAS_OK)
        goto fail;
    lws_sul_schedule(s->ctx, 0, &s->tick, tick, TICK_MS * LWS_US_PER_MS);
    *out = s;
    return CAS_OK;
fail:
    cas__floor_server_free(s);
    return rc;
}

void cas__floor_server_turn(struct cas__floor_server *s)
{
    if (s->uv)
        cas__evloop_turn(s->uv);
    else
        lws_service(s->ctx, TICK_MS);
}

void cas__floor_server_counts(const struct cas__floor_server *s, struct cas__floor_counts *c)
{
    *c = s->counts;
}

void cas__floor_server_free(struct cas__floor_server *s)
{
    if (!s)
        return;
    /* What is queued is journaled; the answers nobody takes are freed. */
    cas__saves_writer_stop(s->writer);
    cas__saves_close(s->store);
    cas__evloop_destroy(&s->ctx, s->uv);
    if (s->listen_owned)
        close(s->listen_fd);
    cas__wsdeflate_free(s->deflate);
    cas__buf_free(&s->stored_frame);
    free(s->games);
    free(s);
}
