/*
 * tconn.h — a connection of the in-process server tests: it only collects
 * what the lobby and the tables send it (each message's text, and which
 * shared message it was, held so no other message takes its address);
 * and the wake of a test that turns the loop itself.
 */
#ifndef CAS_TEST_TCONN_H
#define CAS_TEST_TCONN_H

#include <stddef.h>

#include "saves.h"
#include "server.h"

struct tconn {
    struct cas__conn base;
    char **msgs;
    const struct cas__srv_msg **sent; /* which shared message each was */
    size_t n, cap;
};

/* An empty connection that follows nothing. */
void tconn_init(struct tconn *t);
/* Let go of what t collected (t stays usable, empty). */
void tconn_free(struct tconn *t);
/* Done with t: it leaves lobby l (and any table), its messages go. */
void tconn_close(struct cas__lobby *l, struct tconn *t);

/* The last message t received (t must have one); t keeps it. */
const char *tconn_last(const struct tconn *t);
/* The last state or update t received, or NULL; t keeps it. */
const char *tconn_last_state(const struct tconn *t);

/* Handle one message of t on lobby l (formatted; it must decode), then
 * send what is owed, as a turn of the loop ends. */
void tconn_sayf(struct cas__lobby *l, struct tconn *t, const char *fmt, ...) CAS_PRINTF(3, 4);

/* Of the n seats (NULL: not connected), the first whose last state says it
 * decides plays that state's first legal action on lobby l, as tconn_sayf;
 * that seat's index, or -1 when none decides. */
int tconn_play_first(struct cas__lobby *l, struct tconn *const seats[], size_t n);

/* The wake of a test that is the loop: the pools and writers it starts are
 * given tconn_wake (it writes a byte to a pipe opened by tconn_wake_open,
 * closed by tconn_wake_close); tconn_await_wake waits for one at most
 * wait_ms and takes every byte: 1 when woken. */
void tconn_wake_open(void);
void tconn_wake_close(void);
void tconn_wake(void *ctx);
int tconn_await_wake(int wait_ms);

/* Longer than any wait of a working server, on any machine: past it a
 * test fails rather than hangs (it measures nothing). */
#define TCONN_GIVE_UP_MS 120000

/* Turn a test's loop until done(ctx): turn(loop, wait_ms) is one turn of
 * it, which waits at most wait_ms for a wake, so a condition that comes
 * with a wake is seen at once, one nothing wakes the loop for (another
 * process's state) within 100 ms.  Fails the test, saying `what` never
 * came, when it did not in TCONN_GIVE_UP_MS by the clock (never a count of
 * turns: a turn a wake ends early takes no time). */
void tconn_await(int (*done)(void *ctx), void *ctx, int (*turn)(void *loop, int wait_ms),
                 void *loop, const char *what);

/* tconn_await until c has more than n messages. */
void tconn_await_message(const struct tconn *c, size_t n, int (*turn)(void *loop, int wait_ms),
                         void *loop);

/* Remove the SQLite file db and the -wal and -shm beside it: a run killed
 * mid-test leaves a WAL that would make the next run's fresh file read
 * "malformed". */
void tconn_fresh_db(const char *db);

/* A store on a fresh SQLite file db and a lobby on it whose clocks stand
 * still (1 s; a wall time in 2026): the world of a test that needs no time
 * to pass.  The test closes the lobby, then the store. */
struct tconn_world {
    struct cas__saves *store;
    struct cas__lobby lobby;
};
void tconn_world_open(struct tconn_world *w, const char *db);

/* A store call held (any thread's): tconn_hold_install sets the store's
 * call hook (cas__saves_call_hook, after the lobby set its own, which it
 * still calls), tconn_hold_remove puts the lobby's back (if it was set);
 * once armed, the next call of method `method` waits in the hook
 * (tconn_hold_held says so) until tconn_hold_let_go. */
void tconn_hold_install(void);
void tconn_hold_remove(void);
void tconn_hold_arm(const char *method);
int tconn_hold_held(void);
void tconn_hold_let_go(void);

#endif
