/*
 * serve.c — the worker's side: the host services it lends the plugin, the
 * table of states by handle, and one function per call that checks its
 * arguments, runs the vtable function and builds the reply.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "buf.h"
#include "confine.h"
#include "worker.h"

static void worker_log(void *ctx, enum cas_log_level level, const char *message)
{
    struct cas__worker_side *ws = ctx;
    size_t len = strlen(ws->log);
    if (level > CAS_LOG_DEBUG || !message)
        return;
    snprintf(ws->log + len, sizeof ws->log - len, "%d%.*s\n", (int)level,
             (int)strcspn(message, "\n"), message);
}

static void worker_set_error(void *ctx, const char *message)
{
    struct cas__worker_side *ws = ctx;
    snprintf(ws->error, sizeof ws->error, "%s", message ? message : "");
}

static void *worker_alloc(void *ctx, size_t size)
{
    (void)ctx;
    return malloc(size ? size : 1);
}

static void *worker_realloc(void *ctx, void *block, size_t size)
{
    (void)ctx;
    return realloc(block, size ? size : 1);
}

static void worker_release(void *ctx, void *block)
{
    (void)ctx;
    free(block);
}

struct cas_host cas__worker_services(struct cas__worker_side *ws, const char *data_dir)
{
    return (struct cas_host){
        .struct_size = sizeof(struct cas_host),
        .abi_major = CAS_ABI_MAJOR,
        .abi_minor = CAS_ABI_MINOR,
        .ctx = ws,
        .log = worker_log,
        .set_error = worker_set_error,
        .alloc = worker_alloc,
        .realloc = worker_realloc,
        .release = worker_release,
        .data_dir = data_dir,
    };
}

/* ------------------------------------------------------------ handles */

cas_state *cas__worker_state(struct cas__worker_side *ws, uint64_t h)
{
    if (h == 0 || h > ws->n_states || !ws->states[h - 1]) {
        snprintf(ws->error, sizeof ws->error, "worker: no state has handle %llu",
                 (unsigned long long)h);
        return NULL;
    }
    return ws->states[h - 1];
}

/* A handle for s, which the table then owns; 0 when memory runs out (s is
 * freed). */
static uint32_t keep(struct cas__worker_side *ws, cas_state *s)
{
    for (size_t i = 0; i < ws->n_states; i++)
        if (!ws->states[i]) {
            ws->states[i] = s;
            return (uint32_t)i + 1;
        }
    if (ws->n_states == ws->cap_states) {
        size_t cap = ws->cap_states ? 2 * ws->cap_states : 64;
        cas_state **grown = cap < UINT32_MAX ? realloc(ws->states, cap * sizeof *grown) : NULL;
        if (!grown) {
            ws->vt->state_free(s);
            return 0;
        }
        ws->states = grown;
        ws->cap_states = cap;
    }
    ws->states[ws->n_states++] = s;
    return (uint32_t)ws->n_states;
}

void cas__worker_side_free(struct cas__worker_side *ws)
{
    for (size_t i = 0; i < ws->n_states; i++)
        if (ws->states[i])
            ws->vt->state_free(ws->states[i]);
    free(ws->states);
    cas__wire_out_free(&ws->ask);
    if (ws->batches)
        ws->batches->free(ws);
    ws->states = NULL;
    ws->n_states = ws->cap_states = 0;
}

static cas_state *state_of(struct cas__worker_side *ws, uint64_t h)
{
    return cas__worker_state(ws, h);
}

/* ------------------------------------------------------------- helpers */

/* The ABI 1.1 function `field`, or NULL when the plugin lacks it. */
#define OPTIONAL_FN(ws, field) \
    (CAS_HAS_FIELD((ws)->vt, struct cas_game_vtable, field) ? (ws)->vt->field : NULL)

/* Events of one apply, straight into the reply being built. */
struct event_list {
    struct cas__wire_out *reply;
    size_t at;
};

static void collect_event(void *ctx, const struct cas_event *event)
{
    struct event_list *l = ctx;
    cas__wire_event(l->reply, l->at, event);
}

/* A random number from the host (determinize, bench_floor): ask, read
 * the answer, check it.  A broken exchange ends the worker: the host is
 * gone or lies. */
static uint64_t ask_below(void *ctx, uint64_t n)
{
    struct cas__worker_side *ws = ctx;
    if (ws->fd < 0 || n == 0)
        return 0;
    cas__wire_begin(&ws->ask, CAS__WIRE_ASK, CAS__OP_RNG_BELOW);
    cas__wire_u64(&ws->ask, n);
    if (cas__wire_end(&ws->ask) != CAS_OK ||
        write(ws->fd, ws->ask.b.data, ws->ask.b.len) != (ssize_t)ws->ask.b.len)
        _exit(4);
    size_t want = 4 + 2 + 8, got = 0;
    while (got < want) {
        ssize_t r = read(ws->fd, ws->answer + got, want - got);
        if (r <= 0)
            _exit(4);
        got += (size_t)r;
    }
    struct cas__wire_msg msg;
    char why[128];
    if (cas__wire_get_u32(ws->answer) != want - 4 ||
        cas__wire_decode(ws->answer + 4, want - 4, &msg, why, sizeof why) != CAS_OK ||
        msg.kind != CAS__WIRE_ANSWER || msg.f[0].n >= n)
        _exit(4);
    return msg.f[0].n;
}

/* ------------------------------------------------------------ dispatch */

/* Each call's part of the reply after rc, error and log; returns rc.  f
 * are the call's fields, already checked in shape by the decoder.  Every
 * field of the reply is written whatever rc is: the host's decoder takes
 * nothing less. */
typedef int (*call_fn)(struct cas__worker_side *ws, const struct cas__wire_field *f,
                       struct cas__wire_out *out);

static int call_state_new(struct cas__worker_side *ws, const struct cas__wire_field *f,
                          struct cas__wire_out *out)
{
    (void)f;
    cas_state *s = NULL;
    int rc = ws->vt->state_new(ws->game, &s);
    uint32_t h = rc == CAS_OK && s ? keep(ws, s) : 0;
    cas__wire_u32(out, h);
    return rc != CAS_OK ? rc : h ? CAS_OK : CAS_ENOMEM;
}

static int call_state_free(struct cas__worker_side *ws, const struct cas__wire_field *f,
                           struct cas__wire_out *out)
{
    (void)out;
    cas_state *s = state_of(ws, f[0].n);
    if (!s)
        return CAS_EINVAL;
    ws->vt->state_free(s);
    ws->states[f[0].n - 1] = NULL;
    return CAS_OK;
}

static int call_state_clone(struct cas__worker_side *ws, const struct cas__wire_field *f,
                            struct cas__wire_out *out)
{
    cas_state *s = state_of(ws, f[0].n), *copy = NULL;
    int rc = s ? ws->vt->state_clone(s, &copy) : CAS_EINVAL;
    uint32_t h = rc == CAS_OK && copy ? keep(ws, copy) : 0;
    cas__wire_u32(out, h);
    return rc != CAS_OK ? rc : h ? CAS_OK : CAS_ENOMEM;
}

static int call_state_copy(struct cas__worker_side *ws, const struct cas__wire_field *f,
                           struct cas__wire_out *out)
{
    (void)out;
    cas_state *dst = state_of(ws, f[0].n), *src = dst ? state_of(ws, f[1].n) : NULL;
    if (!src)
        return CAS_EINVAL;
    return dst == src ? CAS_OK : ws->vt->state_copy(dst, src);
}

static int call_current(struct cas__worker_side *ws, const struct cas__wire_field *f,
                        struct cas__wire_out *out)
{
    cas_state *s = state_of(ws, f[0].n);
    cas__wire_i32(out, s ? ws->vt->current(s) : CAS_ACTOR_TERMINAL);
    return s ? CAS_OK : CAS_EINVAL;
}

/* legal_actions or chance_outcomes of s into buf[0..cap). */
typedef int (*list_fn)(const struct cas_game_vtable *vt, const cas_state *s, void *buf,
                       size_t cap, size_t *count);

static int list_legal(const struct cas_game_vtable *vt, const cas_state *s, void *buf,
                      size_t cap, size_t *count)
{
    return vt->legal_actions(s, buf, cap, count);
}

static int list_outcomes(const struct cas_game_vtable *vt, const cas_state *s, void *buf,
                         size_t cap, size_t *count)
{
    return vt->chance_outcomes(s, buf, cap, count);
}

/* The whole list fn gives for state h, grown until it fits, into *items
 * (the caller frees it) and *count; the plugin's code, or CAS_EINVAL for
 * a bad handle or a plugin whose CAS_ENOSPC asks for no more room. */
static int whole_list(struct cas__worker_side *ws, uint64_t h, list_fn fn, size_t size,
                      void **items, size_t *count)
{
    cas_state *s = state_of(ws, h);
    size_t cap = 64;
    int rc = s ? CAS_ENOSPC : CAS_EINVAL;
    *items = NULL;
    *count = 0;
    while (rc == CAS_ENOSPC) {
        void *grown = realloc(*items, cap * size);
        if (!grown)
            return CAS_ENOMEM;
        *items = grown;
        rc = fn(ws->vt, s, *items, cap, count);
        if (rc == CAS_ENOSPC && (*count <= cap || *count > CAS__WIRE_MAX_FRAME / size))
            rc = CAS_EINVAL;
        cap = *count;
    }
    if (rc != CAS_OK)
        *count = 0;
    return rc;
}

static int call_legal(struct cas__worker_side *ws, const struct cas__wire_field *f,
                      struct cas__wire_out *out)
{
    void *items;
    size_t count;
    int rc = whole_list(ws, f[0].n, list_legal, sizeof(cas_action), &items, &count);
    cas__wire_u64s(out, items, count);
    free(items);
    return rc;
}

static int call_outcomes(struct cas__worker_side *ws, const struct cas__wire_field *f,
                         struct cas__wire_out *out)
{
    void *items;
    size_t count;
    int rc = whole_list(ws, f[0].n, list_outcomes, sizeof(struct cas_outcome), &items, &count);
    cas__wire_outcomes(out, items, count);
    free(items);
    return rc;
}

static int call_apply(struct cas__worker_side *ws, const struct cas__wire_field *f,
                      struct cas__wire_out *out)
{
    struct event_list list = {.reply = out, .at = cas__wire_events_begin(out)};
    struct cas_event_sink sink = {.struct_size = sizeof sink, .ctx = &list,
                                  .emit = collect_event};
    cas_state *s = state_of(ws, f[0].n);
    int rc = s ? ws->vt->apply(s, f[1].n, &sink) : CAS_EINVAL;
    /* Who acts next, asked by every caller of apply: one round trip less. */
    cas__wire_i32(out, rc == CAS_OK ? ws->vt->current(s) : CAS_ACTOR_TERMINAL);
    return rc;
}

static int call_action_text(struct cas__worker_side *ws, const struct cas__wire_field *f,
                            struct cas__wire_out *out)
{
    char text[4096] = "";
    cas_state *s = state_of(ws, f[0].n);
    int len = s ? ws->vt->action_text(s, f[1].n, text, sizeof text) : CAS_EINVAL;
    if (len >= 0 && (size_t)len >= sizeof text)
        len = CAS_ENOSPC;
    cas__wire_str(out, len >= 0 ? text : "");
    return len;
}

static int call_parse_action(struct cas__worker_side *ws, const struct cas__wire_field *f,
                             struct cas__wire_out *out)
{
    cas_action action = 0;
    cas_state *s = state_of(ws, f[0].n);
    int rc = s ? ws->vt->parse_action(s, (const char *)f[1].data, &action) : CAS_EINVAL;
    cas__wire_u64(out, rc == CAS_OK ? action : 0);
    return rc;
}

/* returns and projected_returns: scores for the n players asked. */
static int scores_reply(struct cas__worker_side *ws, const struct cas__wire_field *f,
                        struct cas__wire_out *out,
                        int (*fn)(const cas_state *, int64_t *, size_t))
{
    int64_t scores[64];
    uint64_t wire[64];
    cas_state *s = state_of(ws, f[0].n);
    size_t n = (size_t)f[1].n;
    int rc = !s ? CAS_EINVAL : !fn ? CAS_ENOTFOUND : n > 64 ? CAS_EINVAL : fn(s, scores, n);
    for (size_t i = 0; rc == CAS_OK && i < n; i++)
        wire[i] = (uint64_t)scores[i];
    cas__wire_u64s(out, wire, rc == CAS_OK ? n : 0);
    return rc;
}

static int call_returns(struct cas__worker_side *ws, const struct cas__wire_field *f,
                        struct cas__wire_out *out)
{
    return scores_reply(ws, f, out, ws->vt->returns);
}

static int call_projected(struct cas__worker_side *ws, const struct cas__wire_field *f,
                          struct cas__wire_out *out)
{
    return scores_reply(ws, f, out, OPTIONAL_FN(ws, projected_returns));
}

static int call_serialize(struct cas__worker_side *ws, const struct cas__wire_field *f,
                          struct cas__wire_out *out)
{
    cas_state *s = state_of(ws, f[0].n);
    struct cas__buf buf = {.max = CAS__WIRE_MAX_FRAME / 2};
    size_t len = 4096;
    int rc = s ? CAS_ENOSPC : CAS_EINVAL;
    while (rc == CAS_ENOSPC && len > buf.cap) {
        if ((rc = cas__buf_reserve(&buf, len)) != CAS_OK)
            break;
        rc = ws->vt->serialize(s, (enum cas_serial_purpose)f[1].n, (uint8_t *)buf.data, buf.cap,
                               &len);
    }
    if (rc == CAS_OK && len > buf.cap)
        rc = CAS_EINVAL; /* the plugin wrote past the room it had */
    cas__wire_bytes(out, buf.data, rc == CAS_OK ? len : 0);
    cas__buf_free(&buf);
    return rc;
}

static int call_deserialize(struct cas__worker_side *ws, const struct cas__wire_field *f,
                            struct cas__wire_out *out)
{
    cas_state *s = NULL;
    int rc = ws->vt->deserialize(ws->game, f[0].data, f[0].len, &s);
    uint32_t h = rc == CAS_OK && s ? keep(ws, s) : 0;
    cas__wire_u32(out, h);
    return rc != CAS_OK ? rc : h ? CAS_OK : CAS_ENOMEM;
}

static int call_hash(struct cas__worker_side *ws, const struct cas__wire_field *f,
                     struct cas__wire_out *out)
{
    cas_state *s = state_of(ws, f[0].n);
    cas__wire_u64(out, s ? ws->vt->hash(s) : 0);
    return s ? CAS_OK : CAS_EINVAL;
}

/* A text reply from a rendering function; rc is the plugin's. */
static int text_reply(struct cas__wire_out *out, struct cas__buf *t, int rc)
{
    cas__wire_bytes(out, t->data, rc == CAS_OK ? t->len : 0);
    cas__buf_free(t);
    return rc;
}

static int call_render(struct cas__worker_side *ws, const struct cas__wire_field *f,
                       struct cas__wire_out *out)
{
    struct cas__buf t = {.max = CAS__WIRE_MAX_FRAME}; /* a text the plugin writes */
    struct cas_writer w = {.struct_size = sizeof w, .ctx = &t, .write = cas__buf_write};
    cas_state *s = state_of(ws, f[0].n);
    int rc = s ? ws->vt->render(s, (int)f[1].n, (enum cas_render_format)f[2].n, &w)
               : CAS_EINVAL;
    return text_reply(out, &t, rc);
}

static int call_render_choices(struct cas__worker_side *ws, const struct cas__wire_field *f,
                               struct cas__wire_out *out)
{
    struct cas__buf t = {.max = CAS__WIRE_MAX_FRAME}; /* a text the plugin writes */
    struct cas_writer w = {.struct_size = sizeof w, .ctx = &t, .write = cas__buf_write};
    cas_state *s = state_of(ws, f[0].n);
    int rc = !s ? CAS_EINVAL : !OPTIONAL_FN(ws, render_choices) ? CAS_ENOTFOUND : CAS_OK;
    cas_action *actions = rc ? NULL : malloc(f[3].n ? f[3].n * sizeof *actions : 1);
    if (!rc && !actions)
        rc = CAS_ENOMEM;
    for (size_t i = 0; !rc && i < f[3].n; i++)
        actions[i] = cas__wire_get_u64(f[3].data + 8 * i);
    if (!rc)
        rc = ws->vt->render_choices(s, (int)f[1].n, (enum cas_render_format)f[2].n, actions,
                                    (size_t)f[3].n, &w);
    free(actions);
    return text_reply(out, &t, rc);
}

static int call_notation_help(struct cas__worker_side *ws, const struct cas__wire_field *f,
                              struct cas__wire_out *out)
{
    (void)f;
    struct cas__buf t = {.max = CAS__WIRE_MAX_FRAME}; /* a text the plugin writes */
    struct cas_writer w = {.struct_size = sizeof w, .ctx = &t, .write = cas__buf_write};
    int rc = OPTIONAL_FN(ws, notation_help) ? ws->vt->notation_help(ws->game, &w)
                                            : CAS_ENOTFOUND;
    return text_reply(out, &t, rc);
}

static int call_determinize(struct cas__worker_side *ws, const struct cas__wire_field *f,
                            struct cas__wire_out *out)
{
    (void)out;
    struct cas_rng rng = {.struct_size = sizeof rng, .ctx = ws, .below = ask_below};
    cas_state *s = state_of(ws, f[0].n), *into = s ? state_of(ws, f[2].n) : NULL;
    if (!into)
        return CAS_EINVAL;
    if (!OPTIONAL_FN(ws, determinize))
        return CAS_ENOTFOUND;
    if (into == s)
        return CAS_EINVAL;
    return ws->vt->determinize(s, (int)f[1].n, &rng, into);
}

static int call_chance_total(struct cas__worker_side *ws, const struct cas__wire_field *f,
                             struct cas__wire_out *out)
{
    cas_state *s = state_of(ws, f[0].n);
    int has = OPTIONAL_FN(ws, chance_total) != NULL;
    cas__wire_u64(out, s && has ? ws->vt->chance_total(s) : 0);
    return !s ? CAS_EINVAL : has ? CAS_OK : CAS_ENOTFOUND;
}

static int call_chance_pick(struct cas__worker_side *ws, const struct cas__wire_field *f,
                            struct cas__wire_out *out)
{
    cas_action action = 0;
    cas_state *s = state_of(ws, f[0].n);
    int rc = !s ? CAS_EINVAL : !OPTIONAL_FN(ws, chance_pick) ? CAS_ENOTFOUND
                                                             : ws->vt->chance_pick(s, f[1].n,
                                                                                   &action);
    cas__wire_u64(out, rc == CAS_OK ? action : 0);
    return rc;
}

static int call_bench_floor(struct cas__worker_side *ws, const struct cas__wire_field *f,
                            struct cas__wire_out *out)
{
    struct cas_rng rng = {.struct_size = sizeof rng, .ctx = ws, .below = ask_below};
    struct cas_floor_run run = {.struct_size = sizeof run, .games = (int)f[0].n, .rng = &rng};
    int rc = OPTIONAL_FN(ws, bench_floor) ? ws->vt->bench_floor(ws->game, &run)
                                          : CAS_ENOTFOUND;
    cas__wire_u64(out, run.steps);
    cas__wire_u64(out, run.checksum);
    return rc;
}

static int call_playouts(struct cas__worker_side *ws, const struct cas__wire_field *f,
                         struct cas__wire_out *out)
{
    if (ws->batches)
        return ws->batches->playouts(ws, f, out);
    cas__wire_u64(out, 0);
    cas__wire_u64(out, 0);
    return CAS_EINVAL;
}

static int call_decide(struct cas__worker_side *ws, const struct cas__wire_field *f,
                       struct cas__wire_out *out)
{
    if (ws->batches)
        return ws->batches->decide(ws, f, out);
    cas__wire_u64(out, 0);
    return CAS_EINVAL;
}

static const call_fn calls[CAS__OP_COUNT] = {
    [CAS__OP_STATE_NEW] = call_state_new,
    [CAS__OP_STATE_FREE] = call_state_free,
    [CAS__OP_STATE_CLONE] = call_state_clone,
    [CAS__OP_STATE_COPY] = call_state_copy,
    [CAS__OP_CURRENT] = call_current,
    [CAS__OP_LEGAL] = call_legal,
    [CAS__OP_OUTCOMES] = call_outcomes,
    [CAS__OP_APPLY] = call_apply,
    [CAS__OP_ACTION_TEXT] = call_action_text,
    [CAS__OP_PARSE_ACTION] = call_parse_action,
    [CAS__OP_RETURNS] = call_returns,
    [CAS__OP_SERIALIZE] = call_serialize,
    [CAS__OP_DESERIALIZE] = call_deserialize,
    [CAS__OP_HASH] = call_hash,
    [CAS__OP_RENDER] = call_render,
    [CAS__OP_DETERMINIZE] = call_determinize,
    [CAS__OP_PROJECTED] = call_projected,
    [CAS__OP_RENDER_CHOICES] = call_render_choices,
    [CAS__OP_NOTATION_HELP] = call_notation_help,
    [CAS__OP_CHANCE_TOTAL] = call_chance_total,
    [CAS__OP_CHANCE_PICK] = call_chance_pick,
    [CAS__OP_BENCH_FLOOR] = call_bench_floor,
    [CAS__OP_PLAYOUTS] = call_playouts,
    [CAS__OP_DECIDE] = call_decide,
};

/* The reply's rc, error and log are written once the call has run; its
 * own fields go in their place first, so they are moved behind. */
void cas__worker_dispatch(struct cas__worker_side *ws, const struct cas__wire_msg *msg,
                          struct cas__wire_out *reply)
{
    struct cas__wire_out body = {0};
    ws->error[0] = ws->log[0] = '\0';
    call_fn fn = msg->kind == CAS__WIRE_CALL && msg->op < CAS__OP_COUNT ? calls[msg->op]
                                                                        : NULL;
    cas__wire_begin(&body, CAS__WIRE_REPLY, msg->op);
    int rc = CAS_EINVAL;
    if (fn)
        rc = fn(ws, msg->f, &body);
    else
        snprintf(ws->error, sizeof ws->error, "worker: %s is not a call",
                 cas__wire_op_name(msg->op));
    cas__wire_begin(reply, CAS__WIRE_REPLY, msg->op);
    cas__wire_i32(reply, rc);
    cas__wire_str(reply, ws->error);
    cas__wire_str(reply, ws->log);
    if (body.b.failed)
        cas__wire_raw_failed(reply, &body, 6);
    else
        cas__wire_raw(reply, cas__wire_frame(&body) + 6, body.b.len - 6);
    cas__wire_out_free(&body);
}

/* ------------------------------------------------------------ the child */

/* At least `need` bytes of what the host sent buffered from in->start; 0
 * when its input ends first or memory runs out. */
static int buffered(int fd, struct cas__wire_in *in, size_t need)
{
    if (cas__wire_in_reserve(in, need) != CAS_OK)
        return 0;
    while (in->end - in->start < need) {
        ssize_t got = read(fd, in->buf + in->end, in->cap - in->end);
        if (got <= 0)
            return 0;
        in->end += (size_t)got;
    }
    return 1;
}

/* The first reply: game_new's result, the protocol version and the seat
 * labels, one a line. */
static void send_hello(struct cas__worker_side *ws, int rc, size_t bad_option,
                       struct cas__wire_out *out)
{
    char labels[4096] = "";
    size_t len = 0;
    for (int p = 0; rc == CAS_OK && p < ws->nplayers && len < sizeof labels; p++) {
        const char *label = ws->vt->player_label(ws->game, p);
        len += (size_t)snprintf(labels + len, sizeof labels - len, "%.*s\n",
                                (int)strcspn(label ? label : "?", "\n"), label ? label : "?");
    }
    cas__wire_begin(out, CAS__WIRE_REPLY, CAS__OP_HELLO);
    cas__wire_i32(out, rc);
    cas__wire_str(out, ws->error);
    cas__wire_str(out, ws->log);
    cas__wire_u32(out, CAS__WIRE_VERSION);
    cas__wire_u64(out, bad_option);
    cas__wire_str(out, labels);
    if (cas__wire_end(out) != CAS_OK)
        _exit(1);
    cas__confine_write_all(ws->fd, out->b.data, out->b.len);
}

/* The op's own reply fields, each empty or zero: the shape the host's
 * decoder expects of any reply to op, error or not. */
static void empty_fields(struct cas__wire_out *out, enum cas__wire_op op)
{
    for (const char *code = cas__wire_signature(CAS__WIRE_REPLY, op); code && *code; code++)
        switch (*code) {
        case 'i':
            cas__wire_i32(out, op == CAS__OP_APPLY ? CAS_ACTOR_TERMINAL : 0);
            break;
        case 'u':
            cas__wire_u32(out, 0);
            break;
        case 'q':
            cas__wire_u64(out, 0);
            break;
        case 'z':
            cas__wire_str(out, "");
            break;
        default: /* s, a, o, e: a length or count of 0 */
            cas__wire_u32(out, 0);
            break;
        }
}

/* A reply too large to send (or that ran out of memory) as an error reply
 * of the right shape, saying so (issue 32, D9: not a protocol break). */
static void send_reply(struct cas__worker_side *ws, enum cas__wire_op op,
                       struct cas__wire_out *out)
{
    size_t len = out->wanted;
    int rc = cas__wire_end(out);
    if (rc != CAS_OK) {
        char why[160];
        if (rc == CAS_ENOSPC)
            snprintf(why, sizeof why, "worker: the reply to %s is %zu bytes, more than the "
                     "protocol's %u MiB", cas__wire_op_name(op), len - 4,
                     (unsigned)(CAS__WIRE_MAX_FRAME >> 20));
        else
            snprintf(why, sizeof why, "worker: no memory for the reply to %s",
                     cas__wire_op_name(op));
        cas__wire_begin(out, CAS__WIRE_REPLY, op);
        cas__wire_i32(out, rc == CAS_ENOSPC ? CAS_EINVAL : rc);
        cas__wire_str(out, why);
        cas__wire_str(out, "");
        empty_fields(out, op);
        if (cas__wire_end(out) != CAS_OK)
            _exit(1);
    }
    cas__confine_write_all(ws->fd, out->b.data, out->b.len);
}

static const struct cas__worker_batches *registered_batches;

void cas__worker_use_batches(const struct cas__worker_batches *batches)
{
    registered_batches = batches;
}

void cas__worker_serve(int fd, const struct cas_plugin *plugin, const char *data_dir,
                       const struct cas_game_params *params, const char *load_error)
{
    struct cas__worker_side ws = {.vt = plugin ? plugin->game : NULL,
                                  .nplayers = params->nplayers, .fd = fd,
                                  .batches = registered_batches};
    struct cas__wire_out out = {0};
    size_t bad_option = SIZE_MAX;
    int rc = CAS_OK;
    struct cas_host host = cas__worker_services(&ws, data_dir);
    if (load_error || !ws.vt) {
        snprintf(ws.error, sizeof ws.error, "%s", load_error ? load_error : "no game");
        rc = CAS_EMISMATCH;
    }
    if (rc == CAS_OK)
        rc = ws.vt->game_new(&host, params, &ws.game, &bad_option);
    if (rc == CAS_OK && ws.batches)
        rc = ws.batches->begin(&ws, plugin);
    /* What game_new opened (its data files) is closed before the second
     * filter: nothing but the socket stays reachable. */
    cas__confine_close_others(&fd, 1);
    int sealed = rc == CAS_OK ? cas__confine_seal(fd) : 0;
    if (sealed) {
        snprintf(ws.error, sizeof ws.error, "the worker's seccomp filter cannot be installed "
                 "(error %d); play with --in-process", -sealed);
        rc = CAS_EIO;
    }
    send_hello(&ws, rc, bad_option, &out);
    if (rc != CAS_OK)
        _exit(0);
    struct cas__wire_in in = {0};
    for (;;) {
        if (!buffered(fd, &in, 4))
            _exit(0); /* the host is gone, or said QUIT by closing */
        uint32_t len = cas__wire_get_u32(in.buf + in.start);
        if (len < 2 || len > CAS__WIRE_MAX_FRAME || !buffered(fd, &in, 4 + (size_t)len))
            _exit(3);
        const uint8_t *body = in.buf + in.start + 4;
        in.start += 4 + (size_t)len;
        struct cas__wire_msg msg;
        char why[160];
        if (cas__wire_decode(body, len, &msg, why, sizeof why) != CAS_OK ||
            msg.kind != CAS__WIRE_CALL)
            _exit(3);
        if (msg.op == CAS__OP_QUIT)
            _exit(0);
        cas__worker_dispatch(&ws, &msg, &out);
        send_reply(&ws, msg.op, &out);
    }
}
