/*
 * test_srv_msg_deflate.c — a message's compressed frames
 * (host/server/srv_msg.c, cas__srv_msg_deflated): which earlier messages
 * a frame is compressed after, and which connections share it.  A frame
 * follows the connection's last message alone, so connections whose
 * windows differ before it share one frame, compressed once; after a
 * short (stored) message such as a pong, it follows the message before
 * that too, so an update after a keep-alive ping still refers back into
 * the update before.  Every frame is read back by a standard inflater
 * that inflated what that connection was sent.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <zlib.h>

#include "server.h"
#include "wsdeflate.h"

/* An update-like message of a few KB; seq changes some of it. */
static struct cas__srv_msg *update(int seq)
{
    struct cas__jw w;
    cas__jw_init(&w);
    cas__jw_printf(&w, "{\"type\":\"update\",\"seq\":%d,\"svg_changes\":[", seq);
    for (int k = 0; k < 60; k++)
        cas__jw_printf(&w, "%s{\"key\":\"t%d\",\"svg\":\"<use href='#k%d' x='%d' y='%d'/>\"}",
                       k ? "," : "", k + seq, (k * 7 + seq) % 23, k * 64, (k * seq) % 640);
    cas__jw_raw(&w, "]}");
    struct cas__srv_msg *msg = cas__srv_msg_take(&w);
    assert_non_null(msg);
    assert_true(msg->len >= CAS__WSDEFLATE_MIN);
    return msg;
}

static struct cas__srv_msg *text_msg(const char *text)
{
    struct cas__jw w;
    cas__jw_init(&w);
    cas__jw_raw(&w, text);
    struct cas__srv_msg *msg = cas__srv_msg_take(&w);
    assert_non_null(msg);
    return msg;
}

/* A connection's inflater (context takeover, 32 KiB window). */
struct receiver {
    z_stream z;
};

static void receiver_open(struct receiver *r)
{
    memset(r, 0, sizeof *r);
    assert_int_equal(inflateInit2(&r->z, -15), Z_OK);
}

/* Inflate a payload (without its 00 00 ff ff); it must give msg's text. */
static void inflate_payload(struct receiver *r, const unsigned char *payload, size_t len,
                            const struct cas__srv_msg *msg)
{
    static unsigned char in[1 << 16], out[1 << 16];
    assert_true(len + 4 <= sizeof in);
    memcpy(in, payload, len);
    memcpy(in + len, "\0\0\377\377", 4);
    r->z.next_in = in;
    r->z.avail_in = (uInt)len + 4;
    r->z.next_out = out;
    r->z.avail_out = sizeof out;
    int rc = inflate(&r->z, Z_SYNC_FLUSH);
    assert_true(rc == Z_OK || rc == Z_BUF_ERROR);
    assert_int_equal(r->z.avail_in, 0);
    assert_int_equal(sizeof out - r->z.avail_out, msg->len);
    assert_memory_equal(out, msg->data + CAS__JW_ROOM, msg->len);
}

/* A compressed frame's payload: after its 2 or 4 bytes of header (the
 * messages here are shorter than 64 KB), RSV1 set. */
static const unsigned char *payload_of(const struct cas__srv_frame *f, size_t *len)
{
    assert_int_equal(f->frame[0], 0x80 | 0x40 | 0x1);
    size_t head = (f->frame[1] & 0x7f) == 126 ? 4 : 2;
    assert_true(f->len > head);
    *len = f->len - head;
    return f->frame + head;
}

/* Send msg to a connection whose last two were prev[1] then prev[0], and
 * whose inflater is r: the frame, read back; prev moves on. */
static const struct cas__srv_frame *send_to(struct receiver *r, struct cas__srv_msg *prev[2],
                                            struct cas__srv_msg *msg, struct cas__wsdeflate *d)
{
    const struct cas__srv_frame *f = NULL;
    size_t len;
    if (msg->len < CAS__WSDEFLATE_MIN) {
        struct cas__buf out = {0};
        const unsigned char *frame;
        assert_int_equal(cas__srv_msg_stored(msg, &out, &frame, &len), CAS_OK);
        assert_int_equal(frame[1], len - 2);
        inflate_payload(r, frame + 2, len - 2, msg);
        cas__buf_free(&out);
    } else {
        f = cas__srv_msg_deflated(msg, prev, d);
        assert_non_null(f);
        const unsigned char *payload = payload_of(f, &len);
        inflate_payload(r, payload, len, msg);
    }
    prev[1] = prev[0];
    prev[0] = msg;
    return f;
}

/* Two connections whose windows end with the same update, after
 * different messages before it (another update; a full state), are sent
 * the same frame, compressed once; a connection without context takeover
 * gets one compressed alone. */
static void test_connections_after_the_same_message_share_a_frame(void **state)
{
    (void)state;
    struct cas__wsdeflate *d = cas__wsdeflate_new();
    assert_non_null(d);
    struct cas__srv_msg *u0 = update(0), *u1 = update(1), *u2 = update(2), *full = update(40);
    struct receiver a, b, alone;
    receiver_open(&a);
    receiver_open(&b);
    receiver_open(&alone);
    struct cas__srv_msg *pa[2] = {NULL, NULL}, *pb[2] = {NULL, NULL}, *none[2] = {NULL, NULL};
    send_to(&a, pa, u0, d);
    send_to(&a, pa, u1, d);
    send_to(&b, pb, full, d);
    send_to(&b, pb, u1, d);
    const struct cas__srv_frame *fa = send_to(&a, pa, u2, d);
    const struct cas__srv_frame *fb = send_to(&b, pb, u2, d);
    assert_ptr_equal(fa, fb);
    assert_int_equal(u2->n_frames, 1);
    assert_int_equal(fa->after[0], u1->id);
    assert_int_equal(fa->after[1], 0);
    /* u1 went to a after u0 and to b after full: two frames. */
    assert_int_equal(u1->n_frames, 2);
    const struct cas__srv_frame *lone = send_to(&alone, none, u2, d);
    assert_ptr_not_equal(lone, fa);
    assert_int_equal(lone->after[0], 0);
    assert_true(fa->len < lone->len); /* the previous update pays */
    inflateEnd(&a.z);
    inflateEnd(&b.z);
    inflateEnd(&alone.z);
    cas__srv_msg_unref(u0);
    cas__srv_msg_unref(u1);
    cas__srv_msg_unref(u2);
    cas__srv_msg_unref(full);
    cas__wsdeflate_free(d);
}

/* After a pong (stored, short), the next update is compressed after the
 * pong and the update before it: it refers back into that update, so it
 * is smaller than after the pong alone (what a connection that had only
 * the pong is sent), and a connection whose pong came after another
 * message gets a frame of its own. */
static void test_after_a_short_message_the_one_before_counts_too(void **state)
{
    (void)state;
    struct cas__wsdeflate *d = cas__wsdeflate_new();
    assert_non_null(d);
    struct cas__srv_msg *u1 = update(1), *u2 = update(2), *full = update(40),
                        *pong = text_msg("{\"type\":\"pong\"}");
    assert_true(pong->len < CAS__WSDEFLATE_MIN);
    struct receiver a, b, c;
    receiver_open(&a);
    receiver_open(&b);
    receiver_open(&c);
    struct cas__srv_msg *pa[2] = {NULL, NULL}, *pb[2] = {NULL, NULL}, *pc[2] = {NULL, NULL};
    send_to(&a, pa, u1, d);
    send_to(&a, pa, pong, d);
    send_to(&b, pb, full, d);
    send_to(&b, pb, pong, d);
    send_to(&c, pc, pong, d);
    const struct cas__srv_frame *fa = send_to(&a, pa, u2, d);
    assert_int_equal(fa->after[0], pong->id);
    assert_int_equal(fa->after[1], u1->id);
    const struct cas__srv_frame *fb = send_to(&b, pb, u2, d);
    assert_ptr_not_equal(fa, fb);
    assert_int_equal(fb->after[1], full->id);
    const struct cas__srv_frame *fc = send_to(&c, pc, u2, d);
    assert_int_equal(fc->after[1], 0);
    assert_int_equal(u2->n_frames, 3);
    assert_true(fa->len + fa->len / 4 < fc->len);
    inflateEnd(&a.z);
    inflateEnd(&b.z);
    inflateEnd(&c.z);
    cas__srv_msg_unref(u1);
    cas__srv_msg_unref(u2);
    cas__srv_msg_unref(full);
    cas__srv_msg_unref(pong);
    cas__wsdeflate_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_connections_after_the_same_message_share_a_frame),
        cmocka_unit_test(test_after_a_short_message_the_one_before_counts_too),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
