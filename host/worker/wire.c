/*
 * wire.c — encoding and validating the frames host and plugin worker
 * exchange (the format is in wire.h).  The decoder is the one place a
 * frame from the other side is read, and what the fuzz target drives.
 */
#include "wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct op_info {
    const char *name;
    const char *call;  /* fields of the call, NULL: no such call */
    const char *reply; /* fields of the reply after rc, error, log; NULL: none */
};

static const struct op_info ops[CAS__OP_COUNT] = {
    [CAS__OP_HELLO] = {"game_new", NULL, "uqz"},
    [CAS__OP_QUIT] = {"game_free", "", NULL},
    [CAS__OP_STATE_NEW] = {"state_new", "", "u"},
    [CAS__OP_STATE_FREE] = {"state_free", "u", ""},
    [CAS__OP_STATE_CLONE] = {"state_clone", "u", "u"},
    [CAS__OP_STATE_COPY] = {"state_copy", "uu", ""},
    [CAS__OP_CURRENT] = {"current", "u", "i"},
    [CAS__OP_LEGAL] = {"legal_actions", "u", "a"},
    [CAS__OP_OUTCOMES] = {"chance_outcomes", "u", "o"},
    [CAS__OP_APPLY] = {"apply", "uq", "ei"}, /* events, then current() after */
    [CAS__OP_ACTION_TEXT] = {"action_text", "uq", "z"},
    [CAS__OP_PARSE_ACTION] = {"parse_action", "uz", "q"},
    [CAS__OP_RETURNS] = {"returns", "uu", "a"},
    [CAS__OP_SERIALIZE] = {"serialize", "uu", "s"},
    [CAS__OP_DESERIALIZE] = {"deserialize", "s", "u"},
    [CAS__OP_HASH] = {"hash", "u", "q"},
    [CAS__OP_RENDER] = {"render", "uii", "s"},
    [CAS__OP_DETERMINIZE] = {"determinize", "uiu", ""},
    [CAS__OP_PROJECTED] = {"projected_returns", "uu", "a"},
    [CAS__OP_RENDER_CHOICES] = {"render_choices", "uiia", "s"},
    [CAS__OP_NOTATION_HELP] = {"notation_help", "", "s"},
    [CAS__OP_CHANCE_TOTAL] = {"chance_total", "u", "q"},
    [CAS__OP_CHANCE_PICK] = {"chance_pick", "uq", "q"},
    [CAS__OP_BENCH_FLOOR] = {"bench_floor", "i", "qq"},
    [CAS__OP_PLAYOUTS] = {"playouts", "qi", "qq"},
    [CAS__OP_DECIDE] = {"decide", "uziqu", "q"},
    [CAS__OP_RNG_BELOW] = {"rng below", NULL, NULL},
};

/* Every reply's common fields. */
#define REPLY_PREFIX "izz"

/* The fixed part of one event: kind, player, visible_to, points, final,
 * has_category. */
#define EVENT_FIXED (1 + 4 + 4 + 8 + 4 + 1)

const char *cas__wire_op_name(unsigned op)
{
    return op > 0 && op < CAS__OP_COUNT ? ops[op].name : "?";
}

const char *cas__wire_signature(enum cas__wire_kind kind, unsigned op)
{
    if (op == 0 || op >= CAS__OP_COUNT)
        return NULL;
    switch (kind) {
    case CAS__WIRE_CALL:
        return ops[op].call;
    case CAS__WIRE_REPLY:
        return ops[op].reply;
    case CAS__WIRE_ASK:
    case CAS__WIRE_ANSWER:
        return op == CAS__OP_RNG_BELOW ? "q" : NULL;
    }
    return NULL;
}

uint32_t cas__wire_get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint64_t cas__wire_get_u64(const uint8_t *p)
{
    return (uint64_t)cas__wire_get_u32(p) | (uint64_t)cas__wire_get_u32(p + 4) << 32;
}

/* A reader over one body that fails, once, with a reason. */
struct reader {
    const uint8_t *p, *end;
    char *why;
    size_t cap;
    int failed;
};

static int fail(struct reader *r, const char *fmt, size_t a, size_t b)
{
    if (!r->failed)
        snprintf(r->why, r->cap, fmt, a, b);
    r->failed = 1;
    return CAS_ECORRUPT;
}

static size_t left(const struct reader *r)
{
    return (size_t)(r->end - r->p);
}

static int need(struct reader *r, size_t n, const char *what)
{
    if (n <= left(r))
        return CAS_OK;
    char fmt[96];
    snprintf(fmt, sizeof fmt, "%s needs %%zu bytes, %%zu left", what);
    return fail(r, fmt, n, left(r));
}

static int read_u32(struct reader *r, uint32_t *out, const char *what)
{
    if (need(r, 4, what))
        return CAS_ECORRUPT;
    *out = cas__wire_get_u32(r->p);
    r->p += 4;
    return CAS_OK;
}

/* A 'z' string: a length that counts its NUL, no NUL before it. */
static int read_str(struct reader *r, struct cas__wire_field *f, const char *what)
{
    uint32_t len;
    if (read_u32(r, &len, what) || need(r, len, what))
        return CAS_ECORRUPT;
    if (len == 0)
        return fail(r, "a string of length %zu has no NUL (field %zu)", 0, 0);
    if (memchr(r->p, '\0', len) != r->p + len - 1)
        return fail(r, "a string of %zu bytes is not NUL-terminated at its end (%zu)", len,
                    len - 1);
    f->data = r->p;
    f->len = len - 1;
    r->p += len;
    return CAS_OK;
}

/* A counted array of `size`-byte items; the count is checked against the
 * bytes left before anything is multiplied by it. */
static int read_array(struct reader *r, struct cas__wire_field *f, size_t size,
                      const char *what)
{
    uint32_t count;
    if (read_u32(r, &count, what))
        return CAS_ECORRUPT;
    if (count > left(r) / size)
        return fail(r, "a count of %zu items does not fit in the %zu bytes left", count,
                    left(r));
    f->n = count;
    f->data = r->p;
    f->len = (size_t)count * size;
    r->p += f->len;
    return CAS_OK;
}

static int read_events(struct reader *r, struct cas__wire_field *f)
{
    uint32_t count;
    if (read_u32(r, &count, "an event count"))
        return CAS_ECORRUPT;
    if (count > left(r) / (EVENT_FIXED + 12))
        return fail(r, "%zu events cannot fit in the %zu bytes left", count, left(r));
    f->n = count;
    f->data = r->p;
    for (uint32_t i = 0; i < count; i++) {
        if (need(r, EVENT_FIXED, "an event"))
            return CAS_ECORRUPT;
        uint8_t kind = r->p[0], has_category = r->p[EVENT_FIXED - 1];
        if (kind < CAS_EVENT_SCORE || kind > CAS_EVENT_END)
            return fail(r, "event %zu has kind %zu, not 1..3", i, kind);
        if (has_category > 1)
            return fail(r, "event %zu has has_category %zu, not 0 or 1", i, has_category);
        r->p += EVENT_FIXED;
        struct cas__wire_field text;
        for (int s = 0; s < 3; s++)
            if (read_str(r, &text, "an event's text"))
                return CAS_ECORRUPT;
    }
    f->len = (size_t)(r->p - f->data);
    return CAS_OK;
}

static int read_field(struct reader *r, char code, struct cas__wire_field *f)
{
    memset(f, 0, sizeof *f);
    uint32_t u;
    switch (code) {
    case 'i':
        if (read_u32(r, &u, "an i32"))
            return CAS_ECORRUPT;
        f->n = (uint64_t)(int64_t)(int32_t)u;
        return CAS_OK;
    case 'u':
        if (read_u32(r, &u, "a u32"))
            return CAS_ECORRUPT;
        f->n = u;
        return CAS_OK;
    case 'q':
        if (need(r, 8, "a u64"))
            return CAS_ECORRUPT;
        f->n = cas__wire_get_u64(r->p);
        r->p += 8;
        return CAS_OK;
    case 'z':
        return read_str(r, f, "a string");
    case 's':
        if (read_array(r, f, 1, "a byte string"))
            return CAS_ECORRUPT;
        f->n = 0;
        return CAS_OK;
    case 'a':
        return read_array(r, f, 8, "a u64 array");
    case 'o':
        return read_array(r, f, 16, "an outcome array");
    case 'e':
        return read_events(r, f);
    }
    return fail(r, "field code %zu is unknown (%zu)", (size_t)(unsigned char)code, 0);
}

int cas__wire_decode(const uint8_t *buf, size_t len, struct cas__wire_msg *out, char *why,
                     size_t cap)
{
    struct reader r = {.p = buf, .end = buf + len, .why = why, .cap = cap};
    memset(out, 0, sizeof *out);
    if (len < 2 || len > CAS__WIRE_MAX_FRAME)
        return fail(&r, "a body of %zu bytes is outside 2..%zu", len, CAS__WIRE_MAX_FRAME);
    unsigned kind = buf[0], op = buf[1];
    if (kind < CAS__WIRE_CALL || kind > CAS__WIRE_ANSWER)
        return fail(&r, "message kind %zu is not 1..%zu", kind, CAS__WIRE_ANSWER);
    const char *sig = cas__wire_signature(kind, op);
    if (!sig)
        return fail(&r, "op %zu does not exist for message kind %zu", op, kind);
    r.p += 2;
    out->kind = kind;
    out->op = op;
    char fields[CAS__WIRE_MAX_FIELDS + 4];
    snprintf(fields, sizeof fields, "%s%s", kind == CAS__WIRE_REPLY ? REPLY_PREFIX : "", sig);
    for (const char *c = fields; *c; c++)
        if (read_field(&r, *c, &out->f[out->n_fields++]))
            return CAS_ECORRUPT;
    if (r.p != r.end)
        return fail(&r, "%zu bytes follow the last field of a %zu-byte body", left(&r), len);
    return CAS_OK;
}

void cas__wire_event_next(const uint8_t **cursor, struct cas_event *out)
{
    const uint8_t *p = *cursor;
    *out = (struct cas_event){
        .struct_size = sizeof *out,
        .kind = (enum cas_event_kind)p[0],
        .player = (int)(int32_t)cas__wire_get_u32(p + 1),
        .visible_to = (int)(int32_t)cas__wire_get_u32(p + 5),
        .points = (int64_t)cas__wire_get_u64(p + 9),
        .final = (int)(int32_t)cas__wire_get_u32(p + 17),
    };
    int has_category = p[21];
    p += EVENT_FIXED;
    const char *texts[3];
    for (int i = 0; i < 3; i++) {
        uint32_t len = cas__wire_get_u32(p);
        texts[i] = (const char *)p + 4;
        p += 4 + len;
    }
    out->text = texts[0];
    out->category = has_category ? texts[1] : NULL;
    out->subject = has_category ? texts[2] : NULL;
    *cursor = p;
}

/* ------------------------------------------------------------ encoding */

static void put(struct cas__wire_out *w, const void *data, size_t n)
{
    w->wanted += n;
    cas__buf_add(&w->b, data, n);
}

/* A field that cannot fit: the frame fails, its size still counted. */
static void too_large(struct cas__wire_out *w, size_t size)
{
    w->wanted += size;
    if (!w->b.failed)
        w->b.failed = CAS_ENOSPC;
}

static void le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

void cas__wire_begin(struct cas__wire_out *w, enum cas__wire_kind kind, unsigned op)
{
    uint8_t head[6] = {0, 0, 0, 0, (uint8_t)kind, (uint8_t)op};
    w->wanted = 0;
    w->b.max = 4 + CAS__WIRE_MAX_FRAME;
    cas__buf_reset(&w->b);
    put(w, head, sizeof head);
}

void cas__wire_u32(struct cas__wire_out *w, uint32_t v)
{
    uint8_t b[4];
    le32(b, v);
    put(w, b, 4);
}

void cas__wire_i32(struct cas__wire_out *w, int32_t v)
{
    cas__wire_u32(w, (uint32_t)v);
}

void cas__wire_u64(struct cas__wire_out *w, uint64_t v)
{
    cas__wire_u32(w, (uint32_t)v);
    cas__wire_u32(w, (uint32_t)(v >> 32));
}

void cas__wire_str(struct cas__wire_out *w, const char *text)
{
    size_t len = text ? strlen(text) : 0;
    if (len >= CAS__WIRE_MAX_FRAME) {
        too_large(w, 4 + len + 1);
        return;
    }
    cas__wire_u32(w, (uint32_t)len + 1);
    put(w, text ? text : "", len + 1);
}

void cas__wire_raw(struct cas__wire_out *w, const void *data, size_t len)
{
    if (len)
        put(w, data, len);
}

void cas__wire_raw_failed(struct cas__wire_out *w, const struct cas__wire_out *part,
                          size_t skip)
{
    w->wanted += part->wanted - skip;
    w->b.failed = part->b.failed;
}

void cas__wire_bytes(struct cas__wire_out *w, const void *data, size_t len)
{
    if (len >= CAS__WIRE_MAX_FRAME) {
        too_large(w, 4 + len);
        return;
    }
    cas__wire_u32(w, (uint32_t)len);
    if (len)
        put(w, data, len);
}

void cas__wire_u64s(struct cas__wire_out *w, const uint64_t *v, size_t n)
{
    if (n >= CAS__WIRE_MAX_FRAME / 8) {
        too_large(w, 4 + 8 * n);
        return;
    }
    cas__wire_u32(w, (uint32_t)n);
    for (size_t i = 0; i < n; i++)
        cas__wire_u64(w, v[i]);
}

void cas__wire_outcomes(struct cas__wire_out *w, const struct cas_outcome *o, size_t n)
{
    if (n >= CAS__WIRE_MAX_FRAME / 16) {
        too_large(w, 4 + 16 * n);
        return;
    }
    cas__wire_u32(w, (uint32_t)n);
    for (size_t i = 0; i < n; i++) {
        cas__wire_u64(w, o[i].action);
        cas__wire_u64(w, o[i].weight);
    }
}

size_t cas__wire_events_begin(struct cas__wire_out *w)
{
    size_t at = w->b.len;
    cas__wire_u32(w, 0);
    return at;
}

void cas__wire_event(struct cas__wire_out *w, size_t list, const struct cas_event *e)
{
    int has_category = CAS_HAS_FIELD(e, struct cas_event, final) && e->category;
    uint8_t kind = (uint8_t)e->kind, flag = (uint8_t)has_category;
    put(w, &kind, 1);
    cas__wire_i32(w, e->player);
    cas__wire_i32(w, e->visible_to);
    cas__wire_u64(w, (uint64_t)e->points);
    cas__wire_i32(w, has_category ? e->final : 0);
    put(w, &flag, 1);
    cas__wire_str(w, e->text);
    cas__wire_str(w, has_category ? e->category : NULL);
    cas__wire_str(w, has_category ? e->subject : NULL);
    uint8_t *count = (uint8_t *)w->b.data + list;
    if (!w->b.failed)
        le32(count, cas__wire_get_u32(count) + 1);
}

int cas__wire_end(struct cas__wire_out *w)
{
    if (w->b.failed)
        return w->b.failed;
    le32((uint8_t *)w->b.data, (uint32_t)(w->b.len - 4));
    return CAS_OK;
}

int cas__wire_in_reserve(struct cas__wire_in *in, size_t need)
{
    if (in->start == in->end)
        in->start = in->end = 0;
    if (in->start > 0 && in->start + need > in->cap) {
        memmove(in->buf, in->buf + in->start, in->end - in->start);
        in->end -= in->start;
        in->start = 0;
    }
    if (need <= in->cap)
        return CAS_OK;
    size_t cap = in->cap ? in->cap : 4096;
    while (cap < need)
        cap *= 2;
    uint8_t *grown = realloc(in->buf, cap);
    if (!grown)
        return CAS_ENOMEM;
    in->buf = grown;
    in->cap = cap;
    return CAS_OK;
}

void cas__wire_out_free(struct cas__wire_out *w)
{
    cas__buf_free(&w->b);
    memset(w, 0, sizeof *w);
}
