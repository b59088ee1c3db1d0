/*
 * floor.h — the transport's floor under castellan serve (host-internal: the
 * serve benchmark's "floor" measure and its test): one real game's
 * messages recorded as each seat received them, and a bare libwebsockets
 * server, set up as castellan serve's transport is, that answers the load
 * client's moves with those recorded messages and does nothing else
 * (docs/server.md, "The floor of a move").
 */
#ifndef CAS_HOST_FLOOR_H
#define CAS_HOST_FLOOR_H

#include <stddef.h>
#include <stdint.h>

/* One message as a seat received it (text, NUL-terminated). */
struct cas__floor_msg {
    char *text;
    size_t len;
    size_t step;               /* 0: sent when the seat joined; k: after the k-th move */
};

/* A recorded two-seat game: each seat's messages in order, by step. */
struct cas__floor_game {
    struct cas__floor_seat {
        struct cas__floor_msg *msgs;
        size_t n, cap;
    } seat[2];
    size_t moves;              /* moves played: steps 1..moves */
};

/* Append text[0..len) to what seat received at step (steps never go
 * back).  CAS_OK, CAS_EINVAL (a seat other than 0 or 1, or a step before
 * the seat's last), CAS_ENOMEM. */
int cas__floor_game_add(struct cas__floor_game *g, int seat, size_t step, const char *text,
                        size_t len);
/* The messages seat received at step: *first (an index into
 * g->seat[seat].msgs) and how many (0 when none). */
size_t cas__floor_batch(const struct cas__floor_game *g, int seat, size_t step, size_t *first);
void cas__floor_game_free(struct cas__floor_game *g); /* emptied; a zeroed one is fine */

/* Play one game of `game` (expansions a JSON array or NULL; seed as the
 * load client creates its games) against castellan serve on
 * 127.0.0.1:port, as the load client's seats play (the first legal action
 * of each state the seat decides in), to its end or max_moves moves,
 * recording every message each seat receives into *out (zeroed first;
 * the caller's to free).  A move's step ends when both seats have the
 * state after it.  CAS_OK; CAS_EIO with err when the server refused or
 * nothing came for 60 s. */
int cas__floor_record(int port, const char *game, const char *expansions, uint64_t seed,
                      size_t max_moves, struct cas__floor_game *out, char *err, size_t errlen);

/* The bare server: castellan serve's transport set-up (the listening
 * socket of listen.c on a libuv loop lent to libwebsockets, the same
 * context options, permessage-deflate negotiated the same way, each
 * connection's message compressed after its last message with igzip
 * level 0 through srv_msg.c and written at once when nothing waits), and instead
 * of the lobby, tables, pool and journal: a create answered with a game
 * id and seat tokens, a join with the recording's step 0 for that seat,
 * and each act with the next step's messages to both seats, each sent as
 * a message of its own (so compressed per recipient, as the server's
 * views are); with a journal, once the act is durable.  Games are played
 * in lockstep with the recording; an act past its end, or while the last
 * is being journaled, is not answered. */
struct cas__floor_server_opts {
    const struct cas__floor_game *game;  /* borrowed; outlives the server */
    const char *listen;        /* "127.0.0.1:0" */
    int plain;                 /* no permessage-deflate offered: text frames */
    unsigned max_games;        /* creates past this are answered with an error */
    /* A store (a SQLite file or PostgreSQL URL) to journal each act in
     * through the journal's writer thread (cas__saves_writer), as castellan
     * serve does, before the move's messages are sent; NULL: none.  Each
     * game created gets a row there. */
    const char *journal;
};

struct cas__floor_server;

/* Listen and set up (nothing is served before cas__floor_server_turn);
 * *port the port bound.  CAS_OK, or an error with err. */
int cas__floor_server_start(const struct cas__floor_server_opts *o, struct cas__floor_server **out,
                            int *port, char *err, size_t errlen);
/* One turn of its loop: wait (at most 100 ms) for events and serve them. */
void cas__floor_server_turn(struct cas__floor_server *s);
/* Moves answered, messages and bytes written to the sockets, and acts
 * journaled, since the start. */
struct cas__floor_counts {
    uint64_t moves, messages, bytes, journaled;
};
void cas__floor_server_counts(const struct cas__floor_server *s, struct cas__floor_counts *c);
/* Close every connection and free it (NULL is fine). */
void cas__floor_server_free(struct cas__floor_server *s);

#endif
