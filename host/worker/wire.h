/*
 * wire.h — the protocol between the host and a plugin worker
 * (host-internal; docs/isolation.md describes it for readers).
 *
 * A frame is a little-endian u32 body length (1..CAS__WIRE_MAX_FRAME) and
 * the body: u8 kind, u8 op, then the op's fields in the order its
 * signature gives.  Field codes: 'i' i32, 'u' u32, 'q' u64, 'z' a C string
 * (u32 length counting its NUL, the bytes, the NUL; no NUL inside), 's'
 * bytes (u32 length, the bytes), 'a' u64 array (u32 count, 8 bytes each),
 * 'o' chance outcomes (u32 count, u64 action and u64 weight each), 'e'
 * events (u32 count, each: u8 kind, i32 player, i32 visible_to, i64
 * points, i32 final, u8 has_category, z text, z category, z subject).
 * Every reply starts with i32 rc, z error (the plugin's set_error text or
 * ""), z log (its log lines, each "warning: text\n"), then the op's fields.
 *
 * The decoder checks everything a peer could get wrong: frame and field
 * lengths against what is left, counts against the bytes that hold them,
 * strings for their NUL, kinds and ops against the tables, and that the
 * body ends where the last field does.  It never trusts a length before
 * checking it, so any byte string is either a message or an error.
 */
#ifndef CAS_HOST_WIRE_H
#define CAS_HOST_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include <castellan/plugin.h>

#include "buf.h"

/* Version 1; the worker says which it speaks in its hello. */
#define CAS__WIRE_VERSION 1u
/* The largest body accepted, a bound on what a peer makes the other
 * allocate (a render of the largest board is far below it). */
#define CAS__WIRE_MAX_FRAME (16u << 20)
#define CAS__WIRE_MAX_FIELDS 6

enum cas__wire_kind {
    CAS__WIRE_CALL = 1,     /* host -> worker: run a vtable function */
    CAS__WIRE_REPLY = 2,    /* worker -> host: its result */
    CAS__WIRE_ASK = 3,      /* worker -> host, during a call: a random number */
    CAS__WIRE_ANSWER = 4    /* host -> worker: the number */
};

/* The calls; each is a vtable function but HELLO (the worker's first reply,
 * after game_new) and QUIT (the worker exits, no reply). */
enum cas__wire_op {
    CAS__OP_HELLO = 1, CAS__OP_QUIT, CAS__OP_STATE_NEW, CAS__OP_STATE_FREE,
    CAS__OP_STATE_CLONE, CAS__OP_STATE_COPY, CAS__OP_CURRENT, CAS__OP_LEGAL,
    CAS__OP_OUTCOMES, CAS__OP_APPLY, CAS__OP_ACTION_TEXT, CAS__OP_PARSE_ACTION,
    CAS__OP_RETURNS, CAS__OP_SERIALIZE, CAS__OP_DESERIALIZE, CAS__OP_HASH,
    CAS__OP_RENDER, CAS__OP_DETERMINIZE, CAS__OP_PROJECTED, CAS__OP_RENDER_CHOICES,
    CAS__OP_NOTATION_HELP, CAS__OP_CHANCE_TOTAL, CAS__OP_CHANCE_PICK,
    CAS__OP_BENCH_FLOOR, CAS__OP_RNG_BELOW,
    /* Batches: host code the worker runs next to the plugin, one message
     * for many calls (docs/isolation.md, "Cost"). */
    CAS__OP_PLAYOUTS, CAS__OP_DECIDE,
    CAS__OP_COUNT
};

/* One decoded field: numbers in n, the rest as a view into the frame. */
struct cas__wire_field {
    uint64_t n;          /* 'i' (sign-extended), 'u', 'q'; the count of 'a', 'o', 'e' */
    const uint8_t *data; /* 'z' (NUL-terminated), 's', 'a', 'o', 'e': first byte */
    size_t len;          /* bytes at data ('z': without the NUL) */
};

/* A decoded body.  Views point into the buffer decoded, which must
 * outlive them. */
struct cas__wire_msg {
    enum cas__wire_kind kind;
    enum cas__wire_op op;
    size_t n_fields;
    struct cas__wire_field f[CAS__WIRE_MAX_FIELDS + 3]; /* a reply's rc, error, log first */
};

/* The op's name for messages ("apply"), "?" for none. */
const char *cas__wire_op_name(unsigned op);

/* The field codes of op's message of `kind`, or NULL when that kind has
 * no such op (a reply's common rc, error and log not included). */
const char *cas__wire_signature(enum cas__wire_kind kind, unsigned op);

/* Decode one body buf[0..len) into out.  CAS_OK, or CAS_ECORRUPT with the
 * reason in why[0..cap) for anything malformed.  Never reads outside buf. */
int cas__wire_decode(const uint8_t *buf, size_t len, struct cas__wire_msg *out, char *why,
                     size_t cap);

/* An event of a decoded 'e' field: the i-th is read with
 * cas__wire_event_next from the cursor, which starts at field.data.  The
 * strings point into the frame.  Only call it field.n times on a field
 * cas__wire_decode accepted. */
void cas__wire_event_next(const uint8_t **cursor, struct cas_event *out);

/* A frame being built in b (the frame, length first; at most
 * CAS__WIRE_MAX_FRAME after it): CAS_ENOMEM or CAS_ENOSPC in b.failed
 * sticks until the next begin.  `wanted` counts every byte written, those
 * a failure kept out too: the size the frame would have had. */
struct cas__wire_out {
    struct cas__buf b;
    size_t wanted;
};

/* The frame's bytes (b.len of them). */
static inline const uint8_t *cas__wire_frame(const struct cas__wire_out *w)
{
    return (const uint8_t *)w->b.data;
}

/* Start a frame of kind and op in w (reusing its memory). */
void cas__wire_begin(struct cas__wire_out *w, enum cas__wire_kind kind, unsigned op);
void cas__wire_i32(struct cas__wire_out *w, int32_t v);
void cas__wire_u32(struct cas__wire_out *w, uint32_t v);
void cas__wire_u64(struct cas__wire_out *w, uint64_t v);
void cas__wire_str(struct cas__wire_out *w, const char *text); /* 'z'; NULL as "" */
/* Bytes as they are: fields encoded elsewhere. */
void cas__wire_raw(struct cas__wire_out *w, const void *data, size_t len);
/* part failed: w fails the same, its size grown by part's past `skip`. */
void cas__wire_raw_failed(struct cas__wire_out *w, const struct cas__wire_out *part,
                          size_t skip);
void cas__wire_bytes(struct cas__wire_out *w, const void *data, size_t len);   /* 's' */
void cas__wire_u64s(struct cas__wire_out *w, const uint64_t *v, size_t n);       /* 'a' */
void cas__wire_outcomes(struct cas__wire_out *w, const struct cas_outcome *o, size_t n);
/* 'e': start a list (a count to be patched), then add each event. */
size_t cas__wire_events_begin(struct cas__wire_out *w);
void cas__wire_event(struct cas__wire_out *w, size_t list, const struct cas_event *e);
/* Write the body length in front.  CAS_OK, or CAS_ENOMEM / CAS_ENOSPC
 * (beyond CAS__WIRE_MAX_FRAME) for a frame that must not be sent. */
int cas__wire_end(struct cas__wire_out *w);
void cas__wire_out_free(struct cas__wire_out *w);

/* Bytes received and not yet taken: buf[start..end). */
struct cas__wire_in {
    uint8_t *buf; /* owned */
    size_t cap, start, end;
};

/* Room for `need` bytes from in->start: what is left moved to the front
 * when it would not fit, the buffer grown when it is smaller.  CAS_OK or
 * CAS_ENOMEM (in unchanged).  Views into the buffer do not survive it. */
int cas__wire_in_reserve(struct cas__wire_in *in, size_t need);

/* Little-endian u32 at p. */
uint32_t cas__wire_get_u32(const uint8_t *p);
uint64_t cas__wire_get_u64(const uint8_t *p);

#endif
