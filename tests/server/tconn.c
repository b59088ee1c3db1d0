/*
 * tconn.c — the in-process server tests' collecting connection (tconn.h).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <poll.h>
#include <unistd.h>

#include <cmocka.h>
#include <libwebsockets.h>

#include "tconn.h"
#include "wsclient.h"

static void collect(struct cas__conn *c, struct cas__srv_msg *msg)
{
    struct tconn *t = (struct tconn *)c;
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 16;
        t->msgs = realloc(t->msgs, t->cap * sizeof *t->msgs);
        t->sent = realloc(t->sent, t->cap * sizeof *t->sent);
        assert_non_null(t->msgs);
        assert_non_null(t->sent);
    }
    t->sent[t->n] = msg;
    msg->refs++; /* held: no other message can take its address meanwhile */
    t->msgs[t->n] = strndup(msg->data + LWS_PRE, msg->len);
    assert_non_null(t->msgs[t->n++]);
}

void tconn_init(struct tconn *t)
{
    memset(t, 0, sizeof *t);
    t->base.send = collect;
    t->base.seat = -1;
}

void tconn_free(struct tconn *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->msgs[i]);
        cas__srv_msg_unref((struct cas__srv_msg *)t->sent[i]);
    }
    free(t->msgs);
    free(t->sent);
    t->msgs = NULL;
    t->sent = NULL;
    t->n = t->cap = 0;
}

void tconn_close(struct cas__lobby *l, struct tconn *t)
{
    cas__lobby_disconnect(l, &t->base);
    tconn_free(t);
}

const char *tconn_last(const struct tconn *t)
{
    assert_true(t->n > 0);
    return t->msgs[t->n - 1];
}

const char *tconn_last_state(const struct tconn *t)
{
    for (size_t i = t->n; i-- > 0;)
        if (strncmp(t->msgs[i], "{\"type\":\"state\"", 15) == 0 ||
            strncmp(t->msgs[i], "{\"type\":\"update\"", 16) == 0)
            return t->msgs[i];
    return NULL;
}

void tconn_sayf(struct cas__lobby *l, struct tconn *t, const char *fmt, ...)
{
    char text[2048], msg[512];
    struct cas__req req;
    const char *code;
    va_list args;
    va_start(args, fmt);
    vsnprintf(text, sizeof text, fmt, args);
    va_end(args);
    assert_int_equal(cas__req_decode(text, strlen(text), &req, &code, msg, sizeof msg), CAS_OK);
    cas__lobby_handle(l, &t->base, &req);
    cas__req_free(&req);
    cas__lobby_flush(l);
}

int tconn_play_first(struct cas__lobby *l, struct tconn *const seats[], size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct cas__botclient_view v;
        char act[4096];
        const char *m = seats[i] ? tconn_last_state(seats[i]) : NULL;
        if (!m)
            continue;
        assert_int_equal(cas__botclient_read(m, strlen(m), &v), CAS_OK);
        int acts = cas__botclient_act(&v, 0, act, sizeof act);
        cas__botclient_view_free(&v);
        if (acts) {
            tconn_sayf(l, seats[i], "%s", act);
            return (int)i;
        }
    }
    return -1;
}

static int wake_pipe[2] = {-1, -1}; /* none open: a wake is a failed write */

void tconn_wake_open(void)
{
    assert_int_equal(pipe(wake_pipe), 0);
}

void tconn_wake_close(void)
{
    close(wake_pipe[0]);
    close(wake_pipe[1]);
    wake_pipe[0] = wake_pipe[1] = -1;
}

void tconn_wake(void *ctx)
{
    (void)ctx;
    char byte = 1;
    ssize_t n = write(wake_pipe[1], &byte, 1); /* full: a wake is pending anyway */
    (void)n;
}

int tconn_await_wake(int wait_ms)
{
    struct pollfd p = {.fd = wake_pipe[0], .events = POLLIN};
    int woken = poll(&p, 1, wait_ms) > 0;
    if (woken) {
        char bytes[64];
        while (read(wake_pipe[0], bytes, sizeof bytes) == (ssize_t)sizeof bytes)
            ;
    }
    return woken;
}

static int64_t monotonic_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void tconn_await(int (*done)(void *ctx), void *ctx, int (*turn)(void *loop, int wait_ms),
                 void *loop, const char *what)
{
    for (int64_t give_up = monotonic_ms() + TCONN_GIVE_UP_MS; !done(ctx);) {
        if (monotonic_ms() > give_up)
            fail_msg("%s never came in %d s", what, TCONN_GIVE_UP_MS / 1000);
        turn(loop, 100);
    }
}

struct message_count {
    const struct tconn *c;
    size_t n;
};

static int has_more_messages(void *ctx)
{
    const struct message_count *m = ctx;
    return m->c->n > m->n;
}

void tconn_await_message(const struct tconn *c, size_t n, int (*turn)(void *loop, int wait_ms),
                         void *loop)
{
    struct message_count m = {c, n};
    tconn_await(has_more_messages, &m, turn, loop, "a message");
}

void tconn_fresh_db(const char *db)
{
    char side[600];
    unlink(db);
    snprintf(side, sizeof side, "%s-wal", db);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", db);
    unlink(side);
}

static int64_t still_clock(void *ctx)
{
    (void)ctx;
    return 1000;
}

static int64_t still_wall(void *ctx)
{
    (void)ctx;
    return 1796000000000;
}

static const struct cas__srv_clock still = {.now_ms = still_clock, .wall_ms = still_wall};

void tconn_world_open(struct tconn_world *w, const char *db)
{
    char err[1024];
    tconn_fresh_db(db);
    assert_int_equal(cas__saves_open(db, &w->store, err, sizeof err), CAS_OK);
    assert_int_equal(cas__lobby_open(&w->lobby, w->store, NULL, NULL, &still, NULL, err,
                                     sizeof err), CAS_OK);
}

/* The store call a test holds a thread in (tconn_hold_arm). */
static struct {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    const char *armed;
    int held, let_go;
    void (*guard)(const char *method); /* the server's hook: the loop's count */
} hold = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, 0, 0, NULL};

static void holding_hook(const char *method)
{
    hold.guard(method);
    pthread_mutex_lock(&hold.lock);
    if (hold.armed && strcmp(method, hold.armed) == 0) {
        hold.armed = NULL;
        hold.held = 1;
        pthread_cond_broadcast(&hold.changed);
        tconn_wake(NULL); /* a test's loop may be waiting for it (tconn_await) */
        while (!hold.let_go)
            pthread_cond_wait(&hold.changed, &hold.lock);
        hold.held = 0;
        hold.let_go = 0;
    }
    pthread_mutex_unlock(&hold.lock);
}

void tconn_hold_install(void)
{
    if (cas__saves_call_hook == holding_hook)
        return;
    hold.guard = cas__saves_call_hook;
    cas__saves_call_hook = holding_hook;
}

void tconn_hold_remove(void)
{
    if (cas__saves_call_hook == holding_hook)
        cas__saves_call_hook = hold.guard;
}

void tconn_hold_arm(const char *method)
{
    pthread_mutex_lock(&hold.lock);
    hold.armed = method;
    hold.let_go = 0;
    pthread_mutex_unlock(&hold.lock);
}

int tconn_hold_held(void)
{
    pthread_mutex_lock(&hold.lock);
    int held = hold.held;
    pthread_mutex_unlock(&hold.lock);
    return held;
}

void tconn_hold_let_go(void)
{
    pthread_mutex_lock(&hold.lock);
    hold.let_go = 1;
    pthread_cond_broadcast(&hold.changed);
    pthread_mutex_unlock(&hold.lock);
}
