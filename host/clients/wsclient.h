/*
 * wsclient.h — a WebSocket client of castellan serve (host-internal):
 * the tests' and the benchmark's way to talk castellan.v1 to a server.
 */
#ifndef CAS_HOST_WSCLIENT_H
#define CAS_HOST_WSCLIENT_H

#include <stddef.h>
#include <stdint.h>

#include <castellan/plugin.h>

struct cas__wsc;
struct cas__wsc_conn;

/* What the client tells its user, on the thread that services it. */
struct cas__wsc_events {
    void (*open)(struct cas__wsc_conn *c, void *user);
    /* text[0..len) is one whole message, NUL-terminated, valid until return. */
    void (*message)(struct cas__wsc_conn *c, void *user, const char *text, size_t len);
    /* The connection failed or closed; c stays the caller's to free. */
    void (*closed)(struct cas__wsc_conn *c, void *user);
};

/* A client context; events are borrowed and must outlive it. */
int cas__wsc_new(const struct cas__wsc_events *events, struct cas__wsc **out);
/* "libuv" (epoll: what the client runs on) or "poll" (libwebsockets' own
 * loop: CASTELLAN_SERVE_EVENT_LOOP=poll, or libuv's plugin missing). */
const char *cas__wsc_event_loop(const struct cas__wsc *w);
/* Close every connection and free the context (connections are still the
 * caller's to free afterwards with cas__wsc_conn_free). */
void cas__wsc_free(struct cas__wsc *w);

/* Open ws://address:port/ws with subprotocol castellan.v1.  *out is the
 * caller's (cas__wsc_conn_free, after it closed or after cas__wsc_free). */
int cas__wsc_connect(struct cas__wsc *w, const char *address, int port, void *user,
                     struct cas__wsc_conn **out);
/* The bytes c has read from its socket so far (the server's answer to
 * the upgrade, then its frames as they came: compressed, headers
 * included; the kernel's count less what waits unread), or -1 when
 * unknown or closed. */
int64_t cas__wsc_bytes_read(const struct cas__wsc_conn *c);
/* What a connected TCP socket fd has read so far: the kernel's count of
 * the bytes it received, less those waiting unread; -1 when unknown
 * (tcp_read.c). */
int64_t cas__tcp_bytes_read(int fd);
/* Queue text (copied) to be sent once open, in order. */
int cas__wsc_send(struct cas__wsc_conn *c, const char *text);
int cas__wsc_is_open(const struct cas__wsc_conn *c);
/* Whether the server took permessage-deflate (known once open). */
int cas__wsc_deflate(const struct cas__wsc_conn *c);
/* Ask the connection to close; `closed` follows. */
void cas__wsc_close(struct cas__wsc_conn *c);
void cas__wsc_conn_free(struct cas__wsc_conn *c);
/* Run the client's loop once: what is ready, or a wait of at most
 * timeout_ms (timeout_us) for something to be. */
int cas__wsc_service(struct cas__wsc *w, int timeout_ms);
int cas__wsc_service_us(struct cas__wsc *w, int64_t timeout_us);
/* How the turns with a timeout were woken, on libuv (0 on poll): wakes
 * that fired before the turn's wait began (the caller's time had passed
 * by the time the loop ran: its clock is read once a turn), and waits that
 * began with no wake pending, each bounded only by libwebsockets' next
 * timer (~30 s) or a socket's event: 0 unless the wake is broken, as it
 * was when it did not repeat (tests/server/test_floor.c). */
struct cas__wsc_wakes {
    uint64_t before_wait, unwoken_waits;
};
void cas__wsc_wakes(const struct cas__wsc *w, struct cas__wsc_wakes *out);

/* ---- a scripted player (botclient.c) ---- */

/* The fields of a server message a scripted player looks at. */
struct cas__botclient_view {
    char type[16];          /* "state", "update", "created", "error", ... */
    char code[32];          /* an error's code */
    int64_t game, ply;
    int you, actor;         /* -1: none / not a seat */
    int state;              /* a state or an update: the game as it is now */
    int over, can_undo;
    size_t n_actions;
    struct cas_json *root;  /* owned: the whole message */
};

/* Parse message text[0..len) into *out (free with
 * cas__botclient_view_free).  CAS_EPARSE when it is not JSON. */
int cas__botclient_read(const char *text, size_t len, struct cas__botclient_view *out);
void cas__botclient_view_free(struct cas__botclient_view *v);
/* The i-th legal action's text of a state, or NULL. */
const char *cas__botclient_action(const struct cas__botclient_view *v, size_t i);
/* When v is a state or update in which this connection decides: the act message for
 * legal action number pick % n into out[0..cap) and 1; else 0. */
int cas__botclient_act(const struct cas__botclient_view *v, uint64_t pick, char *out, size_t cap);

/* ---- many scripted players (loadgen.c) ---- */

struct cas__loadgen_params {
    int port;                  /* a castellan serve on 127.0.0.1 */
    const char *game;          /* the game plugin of every game */
    const char *expansions;    /* its expansions as a JSON array, or NULL */
    uint64_t seed;
    size_t games;              /* concurrent games, 2 connections each */
    size_t hosted;             /* more games created, never joined: idle beside them */
    unsigned think_ms;         /* from a state to the act it answers */
    uint64_t max_moves;        /* stop after this many acts ... */
    double max_seconds;        /* ... or this long, whichever first */
    unsigned watchers;         /* connections watching each game */
    unsigned idle;             /* connections that open and say nothing */
    int wire;                  /* measure each update's bytes compressed */
    /* During the play: a subscriber of the lobby's changes and one of its
     * whole lists, and one more game created a second (the lobby's news). */
    int lobby;
    void (*created)(void *ctx);/* every game exists, nobody joined yet */
    void (*joined)(void *ctx); /* every connection is open and joined */
    void (*played)(void *ctx); /* the play is over, no connection closed yet */
    void *ctx;
};

struct cas__loadgen_result {
    uint64_t moves;            /* acts sent */
    uint64_t answered;         /* acts whose next state arrived */
    uint64_t states, errors, closed, games_over;
    size_t created;            /* games created (games + hosted when all were) */
    int creator_closed;        /* the server closed the creator's connection */
    double seconds;            /* from the first join to the end */
    double p50_ms, p99_ms;     /* act sent -> next state arrived */
    /* The load client's own CPU seconds over the same span (this process,
     * getrusage): what it takes from the cores it shares with the server. */
    double client_user, client_sys;
    const char *client_loop;   /* its event loop: "libuv" or "poll" (cas__wsc_event_loop) */
    /* With wire: the bytes each recipient's update took on the wire (what
     * its socket read for it: the frame as the server sent it,
     * permessage-deflate and header included; cas__wsc_bytes_read), over
     * every update to a seat or a watcher; and raw.  And every byte all
     * connections read once open (the server's frames, all of them). */
    uint64_t updates;
    double wire_median, wire_max, raw_median;
    uint64_t bytes_read;
    /* With lobby: what the subscriber of changes [0] and the one of whole
     * lists [1] received during the play (after its first list), raw and
     * on the wire, and its first list. */
    struct cas__loadgen_lobby {
        uint64_t raw, wire, messages;
        size_t first_raw, first_wire;
    } lobby[2];
    char first_error[320];
};

/* Run the load described by p.  CAS_OK, or CAS_EIO when the games could not
 * be created in time (r->first_error may say why). */
int cas__loadgen_run(const struct cas__loadgen_params *p, struct cas__loadgen_result *r);

/* ---- the serve benchmark (bench_serve.c) ---- */

/* `castellan bench --only serve`: castellan serve under --games
 * concurrent games over WebSocket: moves per second, latency, memory per
 * idle game.  The bench command hands it to the bench sections (struct
 * cas__bench, serve). */
struct cas__bench;
int cas__bench_serve(struct cas__bench *b);
/* `castellan bench --only serve-hosted`: the cost of a move with up to
 * --hosted games hosted (the last measure of cas__bench_serve, alone). */
int cas__bench_serve_hosted(struct cas__bench *b);
/* CAS_OK when every comma-separated name of list (the value of
 * CASTELLAN_SERVE_MEASURES) is a measure of cas__bench_serve; else
 * CAS_EINVAL with what is wrong and the names there are in err. */
int cas__bench_serve_check_measures(const char *list, char *err, size_t errlen);

/* The club's pages on the store at database (the ratings section's
 * history): the snapshot made on the club's thread, and a page of each
 * kind rendered as the loop renders it (bench_club.c). */
int cas__bench_club(struct cas__bench *b, const char *database);

#endif
