/*
 * proxy.c — the host's side of a plugin worker: starting it, the exchange
 * of one call under its deadline, faults explained, and a game vtable whose
 * every function is a call, so the rest of the host drives a worker as it
 * drives a loaded plugin.  States live in the worker; the host holds
 * handles to them.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "loop_guard.h"
#include "worker.h"

/* The proxy game: one worker.  Calls from several threads (a parallel
 * search bot) take turns on its lock. */
struct cas_game {
    pid_t pid;
    int fd;               /* -1 once the worker is gone */
    pthread_mutex_t lock;
    char id[64];
    unsigned deadline_ms, cpu_seconds;
    const struct cas_host *host;
    const struct cas__fault_handler *handler;
    struct cas_game_vtable vt;
    int nplayers;
    char **labels;
    struct cas__wire_out out;
    struct cas__wire_in in; /* what the worker sent */
    struct cas__wire_msg reply;
    const struct cas_rng *rng; /* lent for determinize and bench_floor */
    char fault[512];
};

/* A proxy state: the worker's state of that handle, and whose decision
 * it is when known (states change only through the proxy, so the answer
 * holds until the next apply, copy or determinize). */
struct cas_state {
    cas_game *w;
    uint32_t handle;
    int current_known;
    int current;
};

/* ------------------------------------------------------------- faults */

static long long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* What happened to a worker that ended with status, in words. */
static void describe_end(const cas_game *w, int status, char *out, size_t cap)
{
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        if (sig == SIGSYS)
            snprintf(out, cap, "was stopped by its sandbox (signal %d: a forbidden system "
                     "call)", sig);
        else if (sig == SIGXCPU)
            snprintf(out, cap, "ran out of CPU time (signal %d, limit %u s)", sig,
                     w->cpu_seconds);
        else if (sig == SIGXFSZ)
            snprintf(out, cap, "tried to write a file (signal %d: a worker may write none)",
                     sig);
        else if (sig == SIGKILL)
            snprintf(out, cap, "was killed (signal %d)", sig);
        else
            snprintf(out, cap, "crashed (signal %d)", sig);
    } else if (WIFEXITED(status)) {
        snprintf(out, cap, "exited (status %d)", WEXITSTATUS(status));
    } else {
        snprintf(out, cap, "stopped");
    }
}

/* The worker is gone or must go: reap it (killing it first when it
 * hangs or lies), explain, tell the handler. */
static void fault(cas_game *w, unsigned op, const char *why, unsigned hung_ms)
{
    char how[256];
    int status = 0;
    if (why)
        kill(w->pid, SIGKILL);
    while (waitpid(w->pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (why)
        snprintf(how, sizeof how, "%s", why);
    else
        describe_end(w, status, how, sizeof how);
    close(w->fd);
    w->fd = -1;
    snprintf(w->fault, sizeof w->fault, "plugin %s %s in %s", w->id, how,
             cas__wire_op_name(op));
    w->host->set_error(w->host->ctx, w->fault);
    struct cas__worker_fault f = {
        .text = w->fault, .call = cas__wire_op_name(op),
        .signal = !why && WIFSIGNALED(status) ? WTERMSIG(status) : 0, .hung_ms = hung_ms,
    };
    if (w->handler && w->handler->fault) {
        w->handler->fault(w->handler->ctx, &f);
        return;
    }
    fflush(stdout);
    fprintf(stderr, "castellan: %s\n", w->fault);
    exit(1);
}

/* ----------------------------------------------------------- exchange */

/* Wait until fd is ready for `events` before the deadline; 1 ready, 0
 * timed out, -1 error. */
static int wait_ready(int fd, short events, long long deadline)
{
    for (;;) {
        long long left = deadline - now_ms();
        if (left <= 0)
            return 0;
        struct pollfd p = {.fd = fd, .events = events};
        int r = poll(&p, 1, left > 1000000 ? 1000000 : (int)left);
        if (r > 0)
            return 1;
        if (r < 0 && errno != EINTR)
            return -1;
    }
}

/* 1 sent, 0 timed out, -1 the worker is gone.  The socket's buffer
 * almost always has room: wait only when it has none. */
static int send_frame(cas_game *w, const uint8_t *buf, size_t n, long long deadline)
{
    while (n) {
        ssize_t sent = send(w->fd, buf, n, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            int ready = wait_ready(w->fd, POLLOUT, deadline);
            if (ready <= 0)
                return ready;
            continue;
        }
        if (sent < 0 && errno == EINTR)
            continue;
        if (sent <= 0)
            return -1;
        buf += sent;
        n -= (size_t)sent;
    }
    return 1;
}

/* At least `need` bytes buffered in w->in from in_start, reading as much as
 * the worker has sent each time.  1, 0 timed out, -1 the worker is gone or
 * memory ran out (*oom set). */
static int buffer(cas_game *w, size_t need, long long deadline, int *oom)
{
    struct cas__wire_in *in = &w->in;
    if (cas__wire_in_reserve(in, need) != CAS_OK) {
        *oom = 1;
        return -1;
    }
    while (in->end - in->start < need) {
        int ready = wait_ready(w->fd, POLLIN, deadline);
        if (ready <= 0)
            return ready;
        ssize_t got = read(w->fd, in->buf + in->end, in->cap - in->end);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return -1;
        in->end += (size_t)got;
    }
    return 1;
}

/* One frame from the worker, decoded into w->reply (whose views point
 * into w->in until the next frame).  NULL after a fault (already
 * reported). */
static const struct cas__wire_msg *next_frame(cas_game *w, unsigned op, long long deadline)
{
    char why[256], timeout[64];
    int oom = 0;
    snprintf(timeout, sizeof timeout, "hung (no answer within %u ms)", w->deadline_ms);
    int got = buffer(w, 4, deadline, &oom);
    uint32_t len = got > 0 ? cas__wire_get_u32(w->in.buf + w->in.start) : 0;
    if (got > 0 && (len < 2 || len > CAS__WIRE_MAX_FRAME)) {
        snprintf(why, sizeof why, "broke the worker protocol (a frame of %u bytes)", len);
        fault(w, op, why, 0);
        return NULL;
    }
    if (got > 0)
        got = buffer(w, 4 + (size_t)len, deadline, &oom);
    if (oom) {
        fault(w, op, "could not be answered (out of memory)", 0);
        return NULL;
    }
    if (got <= 0) {
        fault(w, op, got == 0 ? timeout : NULL, got == 0 ? w->deadline_ms : 0);
        return NULL;
    }
    const uint8_t *body = w->in.buf + w->in.start + 4;
    w->in.start += 4 + (size_t)len;
    char reason[160];
    if (cas__wire_decode(body, len, &w->reply, reason, sizeof reason) != CAS_OK) {
        snprintf(why, sizeof why, "broke the worker protocol (%s)", reason);
        fault(w, op, why, 0);
        return NULL;
    }
    return &w->reply;
}

/* Answer the worker's question for a random number below n. */
static int answer(cas_game *w, uint64_t n, long long deadline)
{
    uint64_t value = w->rng->below(w->rng->ctx, n);
    struct cas__wire_out a = {0};
    cas__wire_begin(&a, CAS__WIRE_ANSWER, CAS__OP_RNG_BELOW);
    cas__wire_u64(&a, value);
    int sent = cas__wire_end(&a) == CAS_OK ? send_frame(w, cas__wire_frame(&a), a.b.len, deadline)
                                           : -1;
    cas__wire_out_free(&a);
    return sent;
}

/* Deliver the reply's error text and log lines through the match's
 * services. */
static void deliver_texts(cas_game *w, const struct cas__wire_msg *r)
{
    if (r->f[1].len)
        w->host->set_error(w->host->ctx, (const char *)r->f[1].data);
    const char *line = (const char *)r->f[2].data;
    while (*line) {
        size_t len = strcspn(line, "\n");
        char text[2048];
        if (line[0] >= '0' && line[0] <= '3' && len > 1 && len < sizeof text) {
            memcpy(text, line + 1, len - 1);
            text[len - 1] = '\0';
            w->host->log(w->host->ctx, (enum cas_log_level)(line[0] - '0'), text);
        }
        line += len + (line[len] == '\n');
    }
}

/* Send the call built in w->out (under w's lock) and wait for its reply,
 * answering questions for random numbers on the way.  The reply, or NULL
 * after a fault. */
static const struct cas__wire_msg *exchange_within(cas_game *w, unsigned op,
                                                   unsigned long long ms);

static const struct cas__wire_msg *exchange(cas_game *w, unsigned op)
{
    return exchange_within(w, op, w->deadline_ms);
}

/* exchange with a deadline of its own: a batch stands for many calls. */
static const struct cas__wire_msg *exchange_within(cas_game *w, unsigned op,
                                                   unsigned long long ms)
{
    if (w->fd < 0)
        return NULL;
    cas__loop_check("a call to a plugin's worker");
    long long deadline = now_ms() + (long long)(ms < (1ull << 40) ? ms : 1ull << 40);
    if (cas__wire_end(&w->out) != CAS_OK) {
        w->host->set_error(w->host->ctx, "the call is larger than the worker protocol allows");
        return NULL;
    }
    int sent = send_frame(w, cas__wire_frame(&w->out), w->out.b.len, deadline);
    if (sent <= 0) {
        char timeout[64];
        snprintf(timeout, sizeof timeout, "hung (no answer within %u ms)", w->deadline_ms);
        fault(w, op, sent == 0 ? timeout : NULL, sent == 0 ? w->deadline_ms : 0);
        return NULL;
    }
    for (;;) {
        const struct cas__wire_msg *m = next_frame(w, op, deadline);
        if (!m)
            return NULL;
        if (m->kind == CAS__WIRE_ASK && w->rng && m->f[0].n > 0) {
            if (answer(w, m->f[0].n, deadline) <= 0) {
                fault(w, op, NULL, 0);
                return NULL;
            }
            continue;
        }
        if (m->kind != CAS__WIRE_REPLY || m->op != op) {
            char why[128];
            snprintf(why, sizeof why, "broke the worker protocol (a %s message for %s)",
                     m->kind == CAS__WIRE_ASK ? "question" : "reply",
                     cas__wire_op_name(m->op));
            fault(w, op, why, 0);
            return NULL;
        }
        deliver_texts(w, m);
        return m;
    }
}

/* The reply's own fields start after rc, error and log. */
#define RC(r) ((int)(int64_t)(r)->f[0].n)
#define FIELD(r, i) (&(r)->f[3 + (i)])

/* Begin a call of op on w, taking its lock. */
static void begin(cas_game *w, unsigned op)
{
    pthread_mutex_lock(&w->lock);
    cas__wire_begin(&w->out, CAS__WIRE_CALL, op);
}

static void end(cas_game *w)
{
    pthread_mutex_unlock(&w->lock);
}

/* ------------------------------------------------------------ states */

/* A proxy for handle h of w; NULL (the worker's state freed) when memory
 * runs out. */
static int wrap(cas_game *w, uint64_t h, cas_state **out)
{
    cas_state *s = h && h <= UINT32_MAX ? malloc(sizeof *s) : NULL;
    *out = s;
    if (!s)
        return h ? CAS_ENOMEM : CAS_ECORRUPT;
    s->w = w;
    s->handle = (uint32_t)h;
    s->current_known = 0;
    return CAS_OK;
}

/* A call answered with a new state's handle. */
static int new_state(cas_game *w, unsigned op, cas_state **out)
{
    const struct cas__wire_msg *r = exchange(w, op);
    int rc = !r ? CAS_EIO : RC(r);
    if (rc == CAS_OK)
        rc = wrap(w, FIELD(r, 0)->n, out);
    else
        *out = NULL;
    end(w);
    return rc;
}

static int proxy_state_new(const cas_game *game, cas_state **out)
{
    cas_game *w = (cas_game *)game;
    begin(w, CAS__OP_STATE_NEW);
    return new_state(w, CAS__OP_STATE_NEW, out);
}

static void proxy_state_free(cas_state *s)
{
    if (!s)
        return;
    begin(s->w, CAS__OP_STATE_FREE);
    cas__wire_u32(&s->w->out, s->handle);
    if (s->w->fd >= 0)
        exchange(s->w, CAS__OP_STATE_FREE);
    end(s->w);
    free(s);
}

static int proxy_state_clone(const cas_state *s, cas_state **out)
{
    begin(s->w, CAS__OP_STATE_CLONE);
    cas__wire_u32(&s->w->out, s->handle);
    int rc = new_state(s->w, CAS__OP_STATE_CLONE, out);
    if (rc == CAS_OK) {
        (*out)->current_known = s->current_known;
        (*out)->current = s->current;
    }
    return rc;
}

/* A call whose reply is its rc alone. */
static int rc_only(cas_game *w, unsigned op)
{
    const struct cas__wire_msg *r = exchange(w, op);
    int rc = r ? RC(r) : CAS_EIO;
    end(w);
    return rc;
}

static int proxy_state_copy(cas_state *dst, const cas_state *src)
{
    begin(dst->w, CAS__OP_STATE_COPY);
    cas__wire_u32(&dst->w->out, dst->handle);
    cas__wire_u32(&dst->w->out, src->handle);
    int rc = rc_only(dst->w, CAS__OP_STATE_COPY);
    dst->current_known = rc == CAS_OK && src->current_known;
    dst->current = src->current;
    return rc;
}

/* A call on one state answered with one number; fallback after a fault. */
static uint64_t number(const cas_state *s, unsigned op, uint64_t fallback)
{
    begin(s->w, op);
    cas__wire_u32(&s->w->out, s->handle);
    const struct cas__wire_msg *r = exchange(s->w, op);
    uint64_t n = r && RC(r) == CAS_OK ? FIELD(r, 0)->n : fallback;
    end(s->w);
    return n;
}

static int proxy_current(const cas_state *s)
{
    if (s->current_known)
        return s->current;
    uint64_t fallback = (uint64_t)(int64_t)CAS_ACTOR_TERMINAL;
    int current = (int)(int64_t)number(s, CAS__OP_CURRENT, fallback);
    if (s->w->fd >= 0) { /* an answer, not the fallback of a fault */
        cas_state *known = (cas_state *)s; /* the cache, not the state, changes */
        known->current = current;
        known->current_known = 1;
    }
    return current;
}

static uint64_t proxy_hash(const cas_state *s)
{
    return number(s, CAS__OP_HASH, 0);
}

static uint64_t proxy_chance_total(const cas_state *s)
{
    return number(s, CAS__OP_CHANCE_TOTAL, 0);
}

/* ------------------------------------------------------------ lists */

/* Send op for s and take the list in its reply, under s's worker's lock,
 * which the caller releases (end) after copying: the field when it fits in
 * cap items, else NULL with *rc CAS_ENOSPC (and *count the size needed) or
 * the failure. */
static const struct cas__wire_field *list_reply(const cas_state *s, unsigned op, size_t cap,
                                                size_t *count, int *rc)
{
    begin(s->w, op);
    cas__wire_u32(&s->w->out, s->handle);
    const struct cas__wire_msg *r = exchange(s->w, op);
    *rc = r ? RC(r) : CAS_EIO;
    *count = *rc == CAS_OK ? (size_t)FIELD(r, 0)->n : 0;
    if (*rc == CAS_OK && *count > cap)
        *rc = CAS_ENOSPC;
    return *rc == CAS_OK ? FIELD(r, 0) : NULL;
}

static int proxy_legal_actions(const cas_state *s, cas_action *buf, size_t cap, size_t *count)
{
    int rc;
    const struct cas__wire_field *list = list_reply(s, CAS__OP_LEGAL, cap, count, &rc);
    for (size_t i = 0; list && i < *count; i++)
        buf[i] = cas__wire_get_u64(list->data + 8 * i);
    end(s->w);
    return rc;
}

static int proxy_chance_outcomes(const cas_state *s, struct cas_outcome *buf, size_t cap,
                                 size_t *count)
{
    int rc;
    const struct cas__wire_field *list = list_reply(s, CAS__OP_OUTCOMES, cap, count, &rc);
    for (size_t i = 0; list && i < *count; i++)
        buf[i] = (struct cas_outcome){cas__wire_get_u64(list->data + 16 * i),
                                      cas__wire_get_u64(list->data + 16 * i + 8)};
    end(s->w);
    return rc;
}

/* ------------------------------------------------------------ actions */

static int proxy_apply(cas_state *s, cas_action action, const struct cas_event_sink *events)
{
    begin(s->w, CAS__OP_APPLY);
    cas__wire_u32(&s->w->out, s->handle);
    cas__wire_u64(&s->w->out, action);
    const struct cas__wire_msg *r = exchange(s->w, CAS__OP_APPLY);
    int rc = r ? RC(r) : CAS_EIO;
    s->current_known = rc == CAS_OK;
    s->current = r ? (int)(int64_t)FIELD(r, 1)->n : CAS_ACTOR_TERMINAL;
    if (r && events) {
        const uint8_t *cursor = FIELD(r, 0)->data;
        for (uint64_t i = 0; i < FIELD(r, 0)->n; i++) {
            struct cas_event e;
            cas__wire_event_next(&cursor, &e);
            events->emit(events->ctx, &e);
        }
    }
    end(s->w);
    return rc;
}

static int proxy_action_text(const cas_state *s, cas_action action, char *buf, size_t cap)
{
    begin(s->w, CAS__OP_ACTION_TEXT);
    cas__wire_u32(&s->w->out, s->handle);
    cas__wire_u64(&s->w->out, action);
    const struct cas__wire_msg *r = exchange(s->w, CAS__OP_ACTION_TEXT);
    int rc = r ? RC(r) : CAS_EIO;
    if (rc >= 0) {
        size_t len = FIELD(r, 0)->len;
        if (len >= cap)
            rc = CAS_ENOSPC;
        else {
            memcpy(buf, FIELD(r, 0)->data, len + 1);
            rc = (int)len;
        }
    }
    end(s->w);
    return rc;
}

static int proxy_parse_action(const cas_state *s, const char *text, cas_action *out)
{
    begin(s->w, CAS__OP_PARSE_ACTION);
    cas__wire_u32(&s->w->out, s->handle);
    cas__wire_str(&s->w->out, text);
    const struct cas__wire_msg *r = exchange(s->w, CAS__OP_PARSE_ACTION);
    int rc = r ? RC(r) : CAS_EIO;
    if (rc == CAS_OK)
        *out = FIELD(r, 0)->n;
    end(s->w);
    return rc;
}

/* returns and projected_returns: exactly n scores. */
static int scores(const cas_state *s, unsigned op, int64_t *out, size_t n)
{
    begin(s->w, op);
    cas__wire_u32(&s->w->out, s->handle);
    cas__wire_u32(&s->w->out, n > UINT32_MAX ? UINT32_MAX : (uint32_t)n);
    const struct cas__wire_msg *r = exchange(s->w, op);
    int rc = r ? RC(r) : CAS_EIO;
    if (rc == CAS_OK && FIELD(r, 0)->n != n)
        rc = CAS_ECORRUPT;
    for (size_t i = 0; rc == CAS_OK && i < n; i++)
        out[i] = (int64_t)cas__wire_get_u64(FIELD(r, 0)->data + 8 * i);
    end(s->w);
    return rc;
}

static int proxy_returns(const cas_state *s, int64_t *out, size_t n)
{
    return scores(s, CAS__OP_RETURNS, out, n);
}

static int proxy_projected(const cas_state *s, int64_t *out, size_t n)
{
    return scores(s, CAS__OP_PROJECTED, out, n);
}

/* --------------------------------------------------------- serialize */

static int proxy_serialize(const cas_state *s, enum cas_serial_purpose purpose, uint8_t *buf,
                           size_t cap, size_t *len)
{
    begin(s->w, CAS__OP_SERIALIZE);
    cas__wire_u32(&s->w->out, s->handle);
    cas__wire_u32(&s->w->out, (uint32_t)purpose);
    const struct cas__wire_msg *r = exchange(s->w, CAS__OP_SERIALIZE);
    int rc = r ? RC(r) : CAS_EIO;
    *len = 0;
    if (rc == CAS_OK) {
        *len = FIELD(r, 0)->len;
        if (*len > cap)
            rc = CAS_ENOSPC;
        else if (*len)
            memcpy(buf, FIELD(r, 0)->data, *len);
    }
    end(s->w);
    return rc;
}

static int proxy_deserialize(const cas_game *game, const uint8_t *buf, size_t len,
                             cas_state **out)
{
    cas_game *w = (cas_game *)game;
    begin(w, CAS__OP_DESERIALIZE);
    cas__wire_bytes(&w->out, buf, len);
    return new_state(w, CAS__OP_DESERIALIZE, out);
}

/* ------------------------------------------------------------ texts */

/* A reply's text handed to the caller's writer. */
static int write_text(cas_game *w, unsigned op, const struct cas_writer *out)
{
    const struct cas__wire_msg *r = exchange(w, op);
    int rc = r ? RC(r) : CAS_EIO;
    if (rc == CAS_OK && FIELD(r, 0)->len)
        rc = out->write(out->ctx, (const char *)FIELD(r, 0)->data, FIELD(r, 0)->len);
    end(w);
    return rc;
}

static int proxy_render(const cas_state *s, int viewer, enum cas_render_format format,
                        const struct cas_writer *out)
{
    begin(s->w, CAS__OP_RENDER);
    cas__wire_u32(&s->w->out, s->handle);
    cas__wire_i32(&s->w->out, viewer);
    cas__wire_i32(&s->w->out, (int32_t)format);
    return write_text(s->w, CAS__OP_RENDER, out);
}

static int proxy_render_choices(const cas_state *s, int viewer, enum cas_render_format format,
                                const cas_action *actions, size_t n,
                                const struct cas_writer *out)
{
    begin(s->w, CAS__OP_RENDER_CHOICES);
    cas__wire_u32(&s->w->out, s->handle);
    cas__wire_i32(&s->w->out, viewer);
    cas__wire_i32(&s->w->out, (int32_t)format);
    cas__wire_u64s(&s->w->out, actions, n);
    return write_text(s->w, CAS__OP_RENDER_CHOICES, out);
}

static int proxy_notation_help(const cas_game *game, const struct cas_writer *out)
{
    cas_game *w = (cas_game *)game;
    begin(w, CAS__OP_NOTATION_HELP);
    return write_text(w, CAS__OP_NOTATION_HELP, out);
}

static const char *proxy_player_label(const cas_game *game, int player)
{
    return player >= 0 && player < game->nplayers ? game->labels[player] : NULL;
}

/* ------------------------------------------------------------ chance */

static int proxy_determinize(const cas_state *s, int viewer, const struct cas_rng *rng,
                             cas_state *out)
{
    begin(s->w, CAS__OP_DETERMINIZE);
    cas__wire_u32(&s->w->out, s->handle);
    cas__wire_i32(&s->w->out, viewer);
    cas__wire_u32(&s->w->out, out->handle);
    s->w->rng = rng;
    out->current_known = 0;
    int rc = rc_only(s->w, CAS__OP_DETERMINIZE);
    s->w->rng = NULL;
    return rc;
}

static int proxy_chance_pick(const cas_state *s, uint64_t ticket, cas_action *out)
{
    begin(s->w, CAS__OP_CHANCE_PICK);
    cas__wire_u32(&s->w->out, s->handle);
    cas__wire_u64(&s->w->out, ticket);
    const struct cas__wire_msg *r = exchange(s->w, CAS__OP_CHANCE_PICK);
    int rc = r ? RC(r) : CAS_EIO;
    if (rc == CAS_OK)
        *out = FIELD(r, 0)->n;
    end(s->w);
    return rc;
}

static int proxy_bench_floor(const cas_game *game, struct cas_floor_run *run)
{
    cas_game *w = (cas_game *)game;
    begin(w, CAS__OP_BENCH_FLOOR);
    cas__wire_i32(&w->out, run->games);
    w->rng = run->rng;
    const struct cas__wire_msg *r = exchange(w, CAS__OP_BENCH_FLOOR);
    w->rng = NULL;
    int rc = r ? RC(r) : CAS_EIO;
    if (rc == CAS_OK) {
        run->steps = FIELD(r, 0)->n;
        run->checksum = FIELD(r, 1)->n;
    }
    end(w);
    return rc;
}

int cas__worker_playouts(const cas_game *game, uint64_t seed, int games, uint64_t *plies,
                         uint64_t *checksum)
{
    cas_game *w = (cas_game *)game;
    begin(w, CAS__OP_PLAYOUTS);
    cas__wire_u64(&w->out, seed);
    cas__wire_i32(&w->out, games);
    const struct cas__wire_msg *r =
        exchange_within(w, CAS__OP_PLAYOUTS, (unsigned long long)w->deadline_ms * (games + 1u));
    int rc = r ? RC(r) : CAS_EIO;
    *plies = r ? FIELD(r, 0)->n : 0;
    *checksum = r ? FIELD(r, 1)->n : 0;
    end(w);
    return rc;
}

int cas__worker_decide(const cas_state *s, const char *bot, int player, uint64_t seed,
                       uint32_t ply, cas_action *out)
{
    begin(s->w, CAS__OP_DECIDE);
    cas__wire_u32(&s->w->out, s->handle);
    cas__wire_str(&s->w->out, bot);
    cas__wire_i32(&s->w->out, player);
    cas__wire_u64(&s->w->out, seed);
    cas__wire_u32(&s->w->out, ply);
    const struct cas__wire_msg *r = exchange_within(
        s->w, CAS__OP_DECIDE, (unsigned long long)s->w->deadline_ms * CAS__DECIDE_DEADLINES);
    int rc = r ? RC(r) : CAS_EIO;
    if (rc == CAS_OK)
        *out = FIELD(r, 0)->n;
    end(s->w);
    return rc;
}

const struct cas__elsewhere cas__worker_elsewhere = {.decide = cas__worker_decide};

int cas__worker_is_proxy(const struct cas_game_vtable *vt)
{
    return vt->apply == proxy_apply;
}

double cas__worker_cpu_seconds(const cas_game *w)
{
    clockid_t clock;
    struct timespec t;
    if (w->fd < 0 || clock_getcpuclockid(w->pid, &clock) != 0 || clock_gettime(clock, &t) != 0)
        return -1;
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* ------------------------------------------------------------ the game */

static void free_labels(cas_game *w)
{
    for (int p = 0; w->labels && p < w->nplayers; p++)
        free(w->labels[p]);
    free(w->labels);
}

static void proxy_game_free(cas_game *w)
{
    if (!w)
        return;
    if (w->fd >= 0) {
        cas__wire_begin(&w->out, CAS__WIRE_CALL, CAS__OP_QUIT);
        if (cas__wire_end(&w->out) == CAS_OK)
            send_frame(w, cas__wire_frame(&w->out), w->out.b.len, now_ms() + w->deadline_ms);
        close(w->fd);
        while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR)
            ;
    }
    pthread_mutex_destroy(&w->lock);
    free_labels(w);
    cas__wire_out_free(&w->out);
    free(w->in.buf);
    free(w);
}

/* The proxy vtable: the plugin's, each function a call; the optional
 * ones only where the plugin has them. */
static void fill_vtable(cas_game *w, const struct cas_game_vtable *real)
{
#define HAS(field) (CAS_HAS_FIELD(real, struct cas_game_vtable, field) && real->field)
    w->vt = (struct cas_game_vtable){
        .struct_size = sizeof w->vt,
        .game_free = proxy_game_free,
        .state_new = proxy_state_new,
        .state_free = proxy_state_free,
        .state_clone = proxy_state_clone,
        .state_copy = proxy_state_copy,
        .current = proxy_current,
        .legal_actions = proxy_legal_actions,
        .chance_outcomes = proxy_chance_outcomes,
        .apply = proxy_apply,
        .action_text = proxy_action_text,
        .parse_action = proxy_parse_action,
        .returns = proxy_returns,
        .serialize = proxy_serialize,
        .deserialize = proxy_deserialize,
        .state_encoding = real->state_encoding,
        .hash = proxy_hash,
        .render = proxy_render,
        .player_label = proxy_player_label,
        .determinize = HAS(determinize) ? proxy_determinize : NULL,
        .projected_returns = HAS(projected_returns) ? proxy_projected : NULL,
        .render_choices = HAS(render_choices) ? proxy_render_choices : NULL,
        .notation_help = HAS(notation_help) ? proxy_notation_help : NULL,
        .chance_total = HAS(chance_total) ? proxy_chance_total : NULL,
        .chance_pick = HAS(chance_pick) ? proxy_chance_pick : NULL,
        .bench_floor = HAS(bench_floor) ? proxy_bench_floor : NULL,
    };
#undef HAS
}

/* The hello's labels, one a line, exactly nplayers of them. */
static int take_labels(cas_game *w, const struct cas__wire_field *f)
{
    const char *p = (const char *)f->data;
    w->labels = calloc((size_t)w->nplayers, sizeof *w->labels);
    if (!w->labels)
        return CAS_ENOMEM;
    for (int i = 0; i < w->nplayers; i++) {
        const char *nl = strchr(p, '\n');
        if (!nl)
            return CAS_ECORRUPT;
        if (!(w->labels[i] = strndup(p, (size_t)(nl - p))))
            return CAS_ENOMEM;
        p = nl + 1;
    }
    return *p ? CAS_ECORRUPT : CAS_OK;
}

static void fault_at_start(void *ctx, const struct cas__worker_fault *f)
{
    (void)ctx;
    (void)f; /* hello() reports it in err */
}

/* Wait for the worker's hello: game_new's result and the labels.  A
 * worker that dies creating the game is the caller's error, not a fault. */
static int hello(cas_game *w, size_t *bad_option, char *err, size_t errlen)
{
    const struct cas__fault_handler quiet = {.fault = fault_at_start};
    const struct cas__fault_handler *handler = w->handler;
    pthread_mutex_lock(&w->lock);
    w->handler = &quiet;
    const struct cas__wire_msg *r = next_frame(w, CAS__OP_HELLO, now_ms() + w->deadline_ms);
    w->handler = handler;
    int rc = CAS_EIO;
    if (!r)
        snprintf(err, errlen, "%s", w->fault);
    else if (r->kind != CAS__WIRE_REPLY || r->op != CAS__OP_HELLO ||
             FIELD(r, 0)->n != CAS__WIRE_VERSION)
        snprintf(err, errlen, "plugin %s: its worker does not speak protocol version %u",
                 w->id, CAS__WIRE_VERSION);
    else {
        deliver_texts(w, r);
        *bad_option = (size_t)FIELD(r, 1)->n;
        rc = RC(r);
        if (rc == CAS_OK && (rc = take_labels(w, FIELD(r, 2))) != CAS_OK)
            snprintf(err, errlen, "plugin %s: its worker named the seats wrongly", w->id);
    }
    pthread_mutex_unlock(&w->lock);
    return rc;
}

int cas__worker_start(const struct cas_plugin *plugin, const char *data_dir,
                      const struct cas_game_params *params, const struct cas__isolation *iso,
                      const struct cas_host *host, const struct cas__fault_handler *handler,
                      const struct cas_game_vtable **vt, cas_game **game,
                      size_t *bad_option, char *err, size_t errlen)
{
    cas_game *w = calloc(1, sizeof *w);
    *game = NULL;
    *vt = NULL;
    err[0] = '\0';
    if (!w) {
        snprintf(err, errlen, "out of memory");
        return CAS_ENOMEM;
    }
    snprintf(w->id, sizeof w->id, "%s", plugin->id);
    w->deadline_ms = iso->deadline_ms ? iso->deadline_ms : CAS__DEFAULT_DEADLINE_MS;
    w->cpu_seconds = iso->cpu_seconds ? iso->cpu_seconds : CAS__DEFAULT_CPU_SECONDS;
    w->host = host;
    w->handler = handler;
    w->nplayers = params->nplayers;
    w->fd = -1;
    pthread_mutex_init(&w->lock, NULL);
    fill_vtable(w, plugin->game);
    struct cas__setup setup = {0};
    int fds[CAS__SPAWN_MAX_FDS];
    size_t n_fds = 0;
    char why[1024];
    int rc = cas__fresh_game_setup(&setup, fds, CAS__SPAWN_MAX_FDS, &n_fds, plugin, data_dir,
                                   params, iso, why, sizeof why);
    if (rc == CAS_OK && cas__spawn(CAS__SPAWN_GAME, &setup, fds, n_fds, &w->pid, &w->fd, why,
                                   sizeof why) != 0)
        rc = CAS_EIO;
    cas__setup_free(&setup);
    if (rc != CAS_OK) {
        snprintf(err, errlen, "cannot start a worker for %s: %s", plugin->id, why);
        goto free_worker;
    }
    rc = hello(w, bad_option, err, errlen);
    if (rc != CAS_OK) {
        proxy_game_free(w);
        return rc;
    }
    *game = w;
    *vt = &w->vt;
    return CAS_OK;

free_worker:
    proxy_game_free(w);
    return CAS_EIO;
}
