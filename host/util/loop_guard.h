/*
 * loop_guard.h — a cheap check that castellan serve's event loop makes no
 * slow call: the loop's code marks itself while it runs (a thread-local
 * depth), a job of the pool run in its place (no pool: tests) unmarks it,
 * and the plugin calls and the store's calls count each call made while
 * marked.  The server
 * tests assert the count stays 0 (docs/server.md, "How it works").
 */
#ifndef CAS_HOST_UTIL_LOOP_GUARD_H
#define CAS_HOST_UTIL_LOOP_GUARD_H

/* The loop's code starts / ends on this thread (they nest). */
void cas__loop_enter(void);
void cas__loop_leave(void);
/* A job runs here, in the loop's place: unmarked until resumed with what
 * suspend returned. */
int cas__loop_suspend(void);
void cas__loop_resume(int depth);
/* A slow call (what: for the one message on stderr) is made now: counted
 * when the loop's code runs. */
void cas__loop_check(const char *what);
/* How many slow calls the loop's code made in this process. */
unsigned long cas__loop_slow_calls(void);
/* A store call (method: its name) is made now: counted apart, when the
 * loop's code runs (the server sets it as cas__saves_call_hook). */
void cas__loop_check_store(const char *method);
/* How many store calls the loop's code made in this process. */
unsigned long cas__loop_store_calls(void);

#endif
