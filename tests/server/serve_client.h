/*
 * serve_client.h — a test's player of `castellan serve` over WebSocket:
 * one connection and what it saw, playing by the scripted browser
 * (host/clients/botclient.c); creating, joining and reading the invite
 * tokens of a game.  For the end-to-end tests, the PostgreSQL serve test
 * and the two-server benchmark.
 */
#ifndef CAS_TEST_SERVE_CLIENT_H
#define CAS_TEST_SERVE_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "serve_process.h"
#include "wsclient.h"

/* One connection of the test and what it saw.  Zeroed, then the fields
 * the test sets (seat, stop_after); the connection is the test's to free. */
struct serve_client {
    struct cas__wsc_conn *conn;
    int seat;                 /* -1: creator or watcher */
    char token[64];
    int64_t game;
    int states, over, errors, acts, stop_after; /* stop_after: acts, 0 = never */
    int not_played;           /* moves refused with nothing played: played again */
    int kept;                 /* moves refused as kept until the store is back */
    int passive;              /* never acts: another tab of its seat, for a test's sends */
    int64_t ply, acted_ply;   /* acted_ply: the last ply acted at, +1 */
    int64_t first_ply;        /* of the first state seen */
    int decides;              /* the last state asks this seat to decide */
    int failed;               /* a state said the game stopped on a fault */
    char last_error[64];
    char last_message[1024];  /* the last error message, whole */
    char created[4096];       /* the created message, for the creator */
};

/* The events of a client context whose connections' user pointer is a
 * struct serve_client: a seat acts once per ply until stop_after, and
 * again at a ply whose move was refused with nothing played (the store
 * away), as the page lets its player do. */
extern const struct cas__wsc_events serve_client_events;

/* A done for serve_run_until: client ctx made its stop_after acts and
 * was then shown its next decision (not only a state after its last act,
 * while another seat's move may still be on its way to the store). */
int serve_stopped_at_decision(void *ctx);
/* Service w until done(ctx), or fail the test after a bound of turns that
 * only a hang reaches. */
void serve_run_until(struct cas__wsc *w, int (*done)(void *), void *ctx);
/* Connect c to the server of p (the test fails if it cannot). */
void serve_connect(struct cas__wsc *w, const struct serve_process *p, struct serve_client *c);
/* Join game as seat (with c->token), or watch it with seat -1. */
void serve_join(struct serve_client *c, int64_t game, int seat);
/* Copy the token of seat from a created message into out[0..cap): 1, or 0
 * (out empty) when the message names no such seat. */
int serve_token_of(const char *created, int seat, char *out, size_t cap);
/* Create a game on p from the create message msg and return its id; seat
 * 0's token goes to a's and seat 1's to b's, where they are not NULL. */
int64_t serve_create(struct cas__wsc *w, const struct serve_process *p, const char *msg,
                     struct serve_client *a, struct serve_client *b);

#endif
