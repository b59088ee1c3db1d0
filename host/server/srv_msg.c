/*
 * srv_msg.c — a finished JSON message of the server, shared by every
 * connection it is queued on (reference counted), and its compressed
 * frames, built once for every connection that can take the same bytes.
 * The text sits after the writer's room, where libwebsockets wants its
 * header.
 */
#include <libwebsockets.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"
#include "wsdeflate.h"

_Static_assert(CAS__JW_ROOM == LWS_PRE, "the JSON writer's room must be libwebsockets' LWS_PRE");

/* Messages are made on the pool's threads too. */
static uint64_t next_id(void)
{
    static uint64_t last;
    return __atomic_add_fetch(&last, 1, __ATOMIC_RELAXED);
}

struct cas__srv_msg *cas__srv_msg_take(struct cas__jw *w)
{
    struct cas__srv_msg *msg = w->b.failed || w->b.len == 0 ? NULL : calloc(1, sizeof *msg);
    if (msg) {
        msg->refs = 1;
        msg->id = next_id();
        msg->data = cas__buf_take_fit(&w->b, &msg->len); /* kept: histories, full states */
        msg->len -= CAS__JW_ROOM;
    }
    cas__jw_free(w);
    return msg;
}

void cas__srv_msg_unref(struct cas__srv_msg *msg)
{
    if (msg && --msg->refs == 0) {
        for (unsigned i = 0; i < msg->n_frames && i < CAS__SRV_FRAMES; i++)
            free(msg->frames[i].data);
        free(msg->data);
        free(msg);
    }
}

/* The biggest WebSocket frame header: 2 bytes, 8 of length. */
#define HEADER_MAX 10
_Static_assert(HEADER_MAX <= LWS_PRE, "a frame's header fits in libwebsockets' room");

/* The header of a whole compressed text frame of `payload` bytes,
 * written in the 2, 4 or 10 bytes before at: its start. */
static unsigned char *frame_head(unsigned char *at, size_t payload)
{
    size_t head = payload < 126 ? 2 : payload < 65536 ? 4 : 10;
    unsigned char *h = at - head;
    h[0] = 0x80 | 0x40 | 0x1; /* FIN, RSV1 (compressed), text */
    if (head == 2) {
        h[1] = (unsigned char)payload;
    } else if (head == 4) {
        h[1] = 126;
        h[2] = (unsigned char)(payload >> 8);
        h[3] = (unsigned char)payload;
    } else {
        h[1] = 127;
        for (int i = 0; i < 8; i++)
            h[2 + i] = (unsigned char)((uint64_t)payload >> (56 - 8 * i));
    }
    return h;
}

/* Of a connection's last two compressed messages prev[0] (the last) and
 * prev[1], those msg is compressed after, into used: the last alone, and
 * the one before too when the last is short (a pong, stored: shorter
 * than CAS__WSDEFLATE_MIN), so that an update after a browser's keep-alive
 * ping is still compressed after the update before.  Priming is hashing
 * every byte of the dictionary, and the message before last cost more
 * time than it saved bytes (docs/server.md, "permessage-deflate", The
 * dictionary: a quarter of the time a message for a tenth more bytes). */
static void dictionary(struct cas__srv_msg *const prev[2], const struct cas__srv_msg *used[2])
{
    used[0] = prev[0];
    used[1] = prev[0] && prev[0]->len < CAS__WSDEFLATE_MIN ? prev[1] : NULL;
}

/* The texts of used[1] then used[0], a dictionary. */
static struct cas__wsdeflate_dict dict_of(const struct cas__srv_msg *const used[2])
{
    return (struct cas__wsdeflate_dict){
        .older = used[1] ? used[1]->data + LWS_PRE : NULL, .older_len = used[1] ? used[1]->len : 0,
        .newer = used[0] ? used[0]->data + LWS_PRE : NULL, .newer_len = used[0] ? used[0]->len : 0};
}

/* Compressed after used (whose ids are after) into d's own buffer, then
 * copied into an allocation of the frame's size: one small malloc a frame,
 * not a buffer grown to the text's size and shrunk again (the loop's
 * malloc was a fifth of its time). */
static int build_frame(struct cas__srv_frame *f, struct cas__srv_msg *msg,
                       const struct cas__srv_msg *const used[2], const uint64_t after[2],
                       struct cas__wsdeflate *d)
{
    const struct cas__wsdeflate_dict dict = dict_of(used);
    const unsigned char *payload;
    size_t len;
    int rc = cas__wsdeflate_message(d, &dict, msg->data + LWS_PRE, msg->len, &payload, &len);
    if (rc != CAS_OK)
        return rc;
    unsigned char *data = malloc(LWS_PRE + HEADER_MAX + len); /* kept with msg */
    if (!data)
        return CAS_ENOMEM;
    memcpy(data + LWS_PRE + HEADER_MAX, payload, len);
    unsigned char *h = frame_head(data + LWS_PRE + HEADER_MAX, len);
    size_t head = (size_t)(data + LWS_PRE + HEADER_MAX - h);
    *f = (struct cas__srv_frame){.after = {after[0], after[1]},
                                 .len = head + len, .frame = h, .data = data};
    return CAS_OK;
}

const struct cas__srv_frame *cas__srv_msg_deflated(struct cas__srv_msg *msg,
                                                   struct cas__srv_msg *const prev[2],
                                                   struct cas__wsdeflate *d)
{
    const struct cas__srv_msg *used[2];
    dictionary(prev, used);
    uint64_t after[2] = {used[0] ? used[0]->id : 0, used[1] ? used[1]->id : 0};
    unsigned kept = msg->n_frames < CAS__SRV_FRAMES ? msg->n_frames : CAS__SRV_FRAMES;
    for (unsigned i = 0; i < kept; i++)
        if (msg->frames[i].after[0] == after[0] && msg->frames[i].after[1] == after[1])
            return &msg->frames[i];
    struct cas__srv_frame made, *slot = &msg->frames[msg->n_frames % CAS__SRV_FRAMES];
    if (build_frame(&made, msg, used, after, d) != CAS_OK)
        return NULL;
    if (msg->n_frames >= CAS__SRV_FRAMES)
        free(slot->data);
    *slot = made;
    msg->n_frames++;
    return slot;
}

/* out emptied, with room for libwebsockets and a frame's header. */
static int frame_start(struct cas__buf *out)
{
    cas__buf_reset(out);
    int rc = cas__buf_reserve(out, LWS_PRE + HEADER_MAX);
    if (rc == CAS_OK)
        cas__buf_setlen(out, LWS_PRE + HEADER_MAX);
    return rc;
}

/* The payload after frame_start, framed (RSV1 set): *frame, *len. */
static void frame_end(struct cas__buf *out, const unsigned char **frame, size_t *len)
{
    size_t payload = out->len - LWS_PRE - HEADER_MAX;
    unsigned char *at = (unsigned char *)out->data + LWS_PRE + HEADER_MAX;
    *frame = frame_head(at, payload);
    *len = (size_t)(at - *frame) + payload;
}

int cas__srv_msg_stored(struct cas__srv_msg *msg, struct cas__buf *out,
                        const unsigned char **frame, size_t *len)
{
    int rc = frame_start(out);
    if (rc == CAS_OK)
        rc = cas__wsdeflate_stored(msg->data + LWS_PRE, msg->len, out);
    if (rc == CAS_OK)
        frame_end(out, frame, len);
    return rc;
}

void cas__conn_send_jw(struct cas__conn *c, struct cas__jw *w)
{
    struct cas__srv_msg *msg = cas__srv_msg_take(w);
    if (msg) {
        c->send(c, msg);
        cas__srv_msg_unref(msg);
    }
}

void cas__conn_send_error(struct cas__conn *c, const char *id, const char *code,
                          const char *msg)
{
    struct cas__jw w;
    cas__jw_init(&w);
    cas__req_error(&w, id, code, msg);
    cas__conn_send_jw(c, &w);
}
