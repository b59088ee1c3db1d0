/*
 * floor_record.c — one real game's messages as each seat received them,
 * for the bare server of floor_server.c to replay: played against castellan
 * serve by two seats that act as the load client's do (loadgen.c), every
 * message kept with the step (the move) it answered.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "floor.h"
#include "server.h"
#include "wsclient.h"

int cas__floor_game_add(struct cas__floor_game *g, int seat, size_t step, const char *text,
                        size_t len)
{
    if (seat < 0 || seat > 1)
        return CAS_EINVAL;
    struct cas__floor_seat *s = &g->seat[seat];
    if (s->n && s->msgs[s->n - 1].step > step)
        return CAS_EINVAL;
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 256;
        struct cas__floor_msg *more = realloc(s->msgs, cap * sizeof *more);
        if (!more)
            return CAS_ENOMEM;
        s->msgs = more;
        s->cap = cap;
    }
    char *copy = malloc(len + 1);
    if (!copy)
        return CAS_ENOMEM;
    memcpy(copy, text, len);
    copy[len] = '\0';
    s->msgs[s->n++] = (struct cas__floor_msg){.text = copy, .len = len, .step = step};
    return CAS_OK;
}

size_t cas__floor_batch(const struct cas__floor_game *g, int seat, size_t step, size_t *first)
{
    const struct cas__floor_seat *s = &g->seat[seat];
    size_t lo = 0, hi = s->n;
    while (lo < hi) { /* the first message of this step or later */
        size_t mid = lo + (hi - lo) / 2;
        if (s->msgs[mid].step < step)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t end = lo;
    while (end < s->n && s->msgs[end].step == step)
        end++;
    *first = lo;
    return end - lo;
}

void cas__floor_game_free(struct cas__floor_game *g)
{
    for (int i = 0; i < 2; i++) {
        for (size_t k = 0; k < g->seat[i].n; k++)
            free(g->seat[i].msgs[k].text);
        free(g->seat[i].msgs);
    }
    memset(g, 0, sizeof *g);
}

/* ------------------------------------------------------------ recording */

struct rec_seat {
    struct recorder *r;
    struct cas__wsc_conn *conn;
    int index;                 /* 0, 1; -1 the creator */
    char token[64];
    int64_t ply;               /* of the last state or update, -1 none */
    int over;
    char *last;                /* the last state or update (owned) */
};

struct recorder {
    struct cas__floor_game *g;
    struct rec_seat creator, seat[2];
    int64_t game;              /* 0 until created */
    size_t step;
    int64_t acted_on;          /* the ply the last act answered */
    int failed;
    char *err;
    size_t errlen;
};

static int64_t int_after(const char *m, const char *key, int64_t def)
{
    const char *at = strstr(m, key);
    return at ? strtoll(at + strlen(key), NULL, 10) : def;
}

static void fail(struct recorder *r, const char *what, const char *text)
{
    if (!r->failed)
        snprintf(r->err, r->errlen, "%s: %.200s", what, text);
    r->failed = 1;
}

/* The creator's answer; anything after it is not the recording's. */
static void on_created(struct recorder *r, const char *text)
{
    if (r->game)
        return;
    if (strncmp(text, "{\"type\":\"created\"", 17) != 0) {
        fail(r, "the server did not create the game", text);
        return;
    }
    r->game = int_after(text, "\"game\":\"", 0);
    for (int i = 0; i < 2; i++) {
        char key[40];
        snprintf(key, sizeof key, "{\"seat\":%d,\"token\":\"", i);
        const char *at = strstr(text, key);
        if (!at || sscanf(at + strlen(key), "%63[0-9a-f]", r->seat[i].token) != 1)
            fail(r, "a created game without its seat's token", text);
    }
}

static void on_message(struct cas__wsc_conn *c, void *user, const char *text, size_t len)
{
    struct rec_seat *s = user;
    struct recorder *r = s->r;
    (void)c;
    if (s->index < 0) {
        on_created(r, text);
        return;
    }
    if (cas__floor_game_add(r->g, s->index, r->step, text, len) != CAS_OK)
        fail(r, "out of memory", "");
    if (strstr(text, "\"type\":\"error\"")) {
        fail(r, "the server answered with an error", text);
    } else if (strncmp(text, "{\"type\":\"state\"", 15) == 0 ||
               strncmp(text, "{\"type\":\"update\"", 16) == 0) {
        s->ply = int_after(text, "\"ply\":", -1);
        s->over |= strstr(text, "\"over\":true") != NULL;
        free(s->last);
        if (!(s->last = strdup(text)))
            fail(r, "out of memory", "");
    }
}

static void on_closed(struct cas__wsc_conn *c, void *user)
{
    struct rec_seat *s = user;
    (void)c;
    fail(s->r, "the server closed a connection", "");
}

static const struct cas__wsc_events events = {.message = on_message, .closed = on_closed};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Service w until done(r) or a failure, at most 60 s; CAS_OK when done. */
static int wait_for(struct cas__wsc *w, struct recorder *r, int (*done)(const struct recorder *))
{
    for (double until = now_s() + 60; !r->failed && !done(r);) {
        if (now_s() > until) {
            fail(r, "nothing came for 60 s", "");
            break;
        }
        cas__wsc_service(w, 10);
    }
    return r->failed ? CAS_EIO : CAS_OK;
}

static int created(const struct recorder *r)
{
    return r->game != 0;
}

/* Both seats hold a state in which both are connected: the news of each
 * join has come, whichever of the two the server took first (castellan
 * serve tells the seat that joined first in an update of its own, which
 * belongs to step 0 however the joins and the first act race). */
static int both_joined(const struct recorder *r)
{
    for (int i = 0; i < 2; i++)
        if (!r->seat[i].last || strstr(r->seat[i].last, "\"connected\":false"))
            return 0;
    return 1;
}

/* The move's step ends when both seats hold the state after it (a ply
 * past the one the act answered), or the game is over for both. */
static int both_moved(const struct recorder *r)
{
    for (int i = 0; i < 2; i++)
        if (r->seat[i].ply <= r->acted_on && !r->seat[i].over)
            return 0;
    return 1;
}

/* The act of the seat that decides now, as the load client makes it (its
 * first legal action), into out; the seat, or -1 when none decides. */
static int next_act(const struct recorder *r, char *out, size_t cap)
{
    for (int i = 0; i < 2; i++) {
        const struct rec_seat *s = &r->seat[i];
        if (s->over || int_after(s->last, "\"actor\":", -1) != i)
            continue;
        const char *a = strstr(s->last, "\"actions\":[\"");
        if (!a)
            continue;
        a += 12;
        size_t n = strcspn(a, "\"\\");
        if (a[n] != '"' || n + 100 > cap)
            continue;
        snprintf(out, cap, "{\"type\":\"act\",\"game\":\"%lld\",\"ply\":%lld,\"action\":\"%.*s\"}",
                 (long long)r->game, (long long)s->ply, (int)n, a);
        return i;
    }
    return -1;
}

int cas__floor_record(int port, const char *game, const char *expansions, uint64_t seed,
                      size_t max_moves, struct cas__floor_game *out, char *err, size_t errlen)
{
    struct recorder r = {.g = out, .err = err, .errlen = errlen};
    struct cas__wsc *w = NULL;
    char msg[1024];
    memset(out, 0, sizeof *out);
    r.creator = (struct rec_seat){.r = &r, .index = -1};
    for (int i = 0; i < 2; i++)
        r.seat[i] = (struct rec_seat){.r = &r, .index = i, .ply = -1};
    int rc = cas__wsc_new(&events, &w);
    if (rc != CAS_OK) {
        snprintf(err, errlen, "out of memory");
        return rc;
    }
    if ((rc = cas__wsc_connect(w, "127.0.0.1", port, &r.creator, &r.creator.conn)) != CAS_OK) {
        snprintf(err, errlen, "cannot connect to 127.0.0.1:%d", port);
        goto close;
    }
    snprintf(msg, sizeof msg, "{\"type\":\"create\",\"game\":\"%s\",\"practice\":true,"
             "\"seed\":\"%" PRIu64 "\",\"expansions\":%.600s,\"seats\":[{\"agent\":\"human\"},"
             "{\"agent\":\"human\"}]}", game, seed, expansions ? expansions : "[]");
    cas__wsc_send(r.creator.conn, msg);
    if ((rc = wait_for(w, &r, created)) != CAS_OK)
        goto close;
    for (int i = 0; i < 2 && rc == CAS_OK; i++) {
        rc = cas__wsc_connect(w, "127.0.0.1", port, &r.seat[i], &r.seat[i].conn);
        snprintf(msg, sizeof msg, "{\"type\":\"join\",\"game\":\"%lld\",\"seat\":%d,"
                 "\"token\":\"%s\"}", (long long)r.game, i, r.seat[i].token);
        if (rc == CAS_OK)
            cas__wsc_send(r.seat[i].conn, msg);
    }
    if (rc != CAS_OK || (rc = wait_for(w, &r, both_joined)) != CAS_OK)
        goto close;
    for (int seat; r.step < max_moves && (seat = next_act(&r, msg, sizeof msg)) >= 0;) {
        r.acted_on = r.seat[seat].ply;
        r.step++;
        cas__wsc_send(r.seat[seat].conn, msg);
        if ((rc = wait_for(w, &r, both_moved)) != CAS_OK)
            goto close;
    }
    out->moves = r.step;
close:
    cas__wsc_free(w);
    cas__wsc_conn_free(r.creator.conn);
    for (int i = 0; i < 2; i++) {
        cas__wsc_conn_free(r.seat[i].conn);
        free(r.seat[i].last);
    }
    if (rc != CAS_OK)
        cas__floor_game_free(out);
    return rc;
}
