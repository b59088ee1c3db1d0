/*
 * test_wsdeflate.c — the server's permessage-deflate messages
 * (host/server/wsdeflate.c) read back in sequence by one standard
 * inflater, as a browser keeps one per connection: messages compressed
 * after the one before them and short messages in stored blocks, mixed;
 * long and incompressible messages after a dictionary longer than the
 * window; the same bytes for the same texts whatever was compressed
 * between, and one frame read by receivers whose windows differ but end
 * with the same message (what lets watchers share frames).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <zlib.h>

#include "wsdeflate.h"

#define N_TEXTS 6

/* d's compression of text appended to out (the frame's payload). */
static int compress_after_two(struct cas__wsdeflate *d, const char *older, size_t older_len,
                              const char *newer, size_t newer_len, const char *text, size_t len,
                              struct cas__buf *out)
{
    const struct cas__wsdeflate_dict dict = {.older = older, .older_len = older_len,
                                             .newer = newer, .newer_len = newer_len};
    const unsigned char *bytes;
    size_t n;
    int rc = cas__wsdeflate_message(d, &dict, text, len, &bytes, &n);
    return rc == CAS_OK ? cas__buf_add(out, bytes, n) : rc;
}

/* ... after prev[0..prev_len) alone (NULL: nothing). */
static int compress_into(struct cas__wsdeflate *d, const char *prev, size_t prev_len,
                         const char *text, size_t len, struct cas__buf *out)
{
    return compress_after_two(d, NULL, 0, prev, prev_len, text, len, out);
}

/* Update-like texts of a few KB that repeat much of one another. */
static void make_texts(char texts[N_TEXTS][8192], size_t len[N_TEXTS])
{
    for (int i = 0; i < N_TEXTS; i++) {
        struct cas__buf b = {0};
        cas__buf_addf(&b, "{\"type\":\"update\",\"seq\":%d,\"svg_changes\":[", i);
        for (int k = 0; k < 60; k++)
            cas__buf_addf(&b, "%s{\"key\":\"t%d\",\"svg\":\"<use href='#k%d' x='%d' y='%d'/>\"}",
                          k ? "," : "", k + i, (k * 7 + i) % 23, k * 64, (k * i) % 640);
        cas__buf_addstr(&b, "]}");
        assert_true(b.len < 8192);
        memcpy(texts[i], b.data, b.len);
        len[i] = b.len;
        cas__buf_free(&b);
    }
}

/* A receiver's inflater (context takeover, 32 KiB window). */
struct receiver {
    z_stream z;
};

static void receiver_open(struct receiver *r)
{
    memset(r, 0, sizeof *r);
    assert_int_equal(inflateInit2(&r->z, -15), Z_OK);
}

/* Inflate one message's payload; it must give text[0..len). */
static void receive(struct receiver *r, const struct cas__buf *payload, const char *text,
                    size_t len)
{
    static unsigned char in[1 << 20], out[1 << 20];
    assert_true(payload->len + 4 <= sizeof in);
    memcpy(in, payload->data, payload->len);
    memcpy(in + payload->len, "\0\0\377\377", 4);
    r->z.next_in = in;
    r->z.avail_in = (uInt)payload->len + 4;
    r->z.next_out = out;
    r->z.avail_out = sizeof out;
    int rc = inflate(&r->z, Z_SYNC_FLUSH);
    assert_true(rc == Z_OK || rc == Z_BUF_ERROR);
    assert_int_equal(r->z.avail_in, 0);
    assert_int_equal(sizeof out - r->z.avail_out, len);
    assert_memory_equal(out, text, len);
}

/* A stored block: the text after 5 bytes, inflated as it is, and then
 * the next message in the same window. */
static void test_a_stored_message_inflates_as_it_is(void **state)
{
    (void)state;
    const char *text = "{\"type\":\"pong\",\"id\":\"7\"}";
    struct cas__buf out = {0};
    struct receiver r;
    receiver_open(&r);
    assert_int_equal(cas__wsdeflate_stored(text, strlen(text), &out), CAS_OK);
    assert_int_equal(out.len, strlen(text) + 6);
    receive(&r, &out, text, strlen(text));
    receive(&r, &out, text, strlen(text)); /* and again, in the same window */
    inflateEnd(&r.z);
    cas__buf_free(&out);
}

/* As the server sends them (host/server/http.c, srv_msg.c): short
 * messages stored, the others compressed after the message before them
 * and, when that one is short, the one before it too; one inflater reads
 * them all in order, and the compressed ones refer back into the ones
 * before (they come out smaller than alone). */
static void test_stored_and_compressed_inflate_in_sequence(void **state)
{
    (void)state;
    static char texts[N_TEXTS][8192];
    size_t len[N_TEXTS];
    make_texts(texts, len);
    const char *pong = "{\"type\":\"pong\"}";
    /* big, short, big, big, short, big, big */
    const char *seq[] = {texts[0], pong, texts[1], texts[2], pong, texts[3], texts[4]};
    size_t seq_len[] = {len[0], strlen(pong), len[1], len[2], strlen(pong), len[3], len[4]};
    struct cas__wsdeflate *d = cas__wsdeflate_new();
    struct receiver r;
    receiver_open(&r);
    struct cas__buf out = {0}, alone = {0};
    size_t shared = 0, by_itself = 0;
    for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++) {
        const char *prev = i > 0 ? seq[i - 1] : NULL;
        size_t prev_len = i > 0 ? seq_len[i - 1] : 0;
        int two = i > 1 && prev_len < CAS__WSDEFLATE_MIN;
        cas__buf_reset(&out);
        if (seq_len[i] < CAS__WSDEFLATE_MIN) {
            assert_int_equal(cas__wsdeflate_stored(seq[i], seq_len[i], &out), CAS_OK);
        } else {
            assert_int_equal(compress_after_two(d, two ? seq[i - 2] : NULL,
                                                two ? seq_len[i - 2] : 0, prev, prev_len,
                                                seq[i], seq_len[i], &out),
                             CAS_OK);
            cas__buf_reset(&alone);
            assert_int_equal(compress_into(d, NULL, 0, seq[i], seq_len[i], &alone), CAS_OK);
            if (i > 0) {
                shared += out.len;
                by_itself += alone.len;
            }
        }
        receive(&r, &out, seq[i], seq_len[i]);
    }
    assert_true(shared < by_itself);
    inflateEnd(&r.z);
    cas__buf_free(&out);
    cas__buf_free(&alone);
    cas__wsdeflate_free(d);
}

/* n bytes that do not compress (a fixed linear congruential sequence). */
static void fill_noise(char *at, size_t n, uint32_t seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        at[i] = (char)(seed >> 24);
    }
}

/* A previous message of 40 KB, more than the receiver's 32 KiB window,
 * after one of 30 KB, then a message that repeats the older one's end and
 * (20 KB in) the previous one's start, both out of the window, so not
 * referable, and (5 KB in) the previous one's end, and is otherwise noise,
 * longer than a stored block: the receiver, which inflated the two earlier
 * messages, reads it back, so every distance stays within its window;
 * noise is not made much bigger, and the previous message's end is found
 * (the message comes out smaller than alone).  Then a stored pong, and the
 * same message after the two joined (that message and the pong): read
 * back as well. */
static void test_long_and_incompressible_after_a_long_dictionary(void **state)
{
    (void)state;
    enum { OLDER = 30000, PREV = 40000, LONG = 200000, END = 8000 };
    static char older[OLDER], prev[PREV], text[LONG];
    fill_noise(older, OLDER, 1);
    fill_noise(prev, PREV, 2);
    fill_noise(text, LONG, 3);
    memcpy(text, older + OLDER - 4000, 4000);
    memcpy(text + 5000, prev + PREV - END, END);
    memcpy(text + 20000, prev, 4000);
    struct cas__wsdeflate *d = cas__wsdeflate_new();
    assert_non_null(d);
    struct receiver r;
    receiver_open(&r);
    struct cas__buf out = {0}, alone = {0};
    assert_int_equal(compress_into(d, NULL, 0, older, OLDER, &out), CAS_OK);
    receive(&r, &out, older, OLDER);
    cas__buf_reset(&out);
    assert_int_equal(compress_into(d, older, OLDER, prev, PREV, &out), CAS_OK);
    receive(&r, &out, prev, PREV);
    cas__buf_reset(&out);
    assert_int_equal(compress_into(d, prev, PREV, text, LONG, &out), CAS_OK);
    assert_int_equal(compress_into(d, NULL, 0, text, LONG, &alone), CAS_OK);
    assert_true(out.len < LONG + LONG / 8);
    assert_true(out.len + END / 2 < alone.len);
    receive(&r, &out, text, LONG);
    const char *pong = "{\"type\":\"pong\"}";
    cas__buf_reset(&out);
    assert_int_equal(cas__wsdeflate_stored(pong, strlen(pong), &out), CAS_OK);
    receive(&r, &out, pong, strlen(pong));
    cas__buf_reset(&out);
    assert_int_equal(compress_after_two(d, text, LONG, pong, strlen(pong), text, LONG, &out),
                     CAS_OK);
    receive(&r, &out, text, LONG);
    inflateEnd(&r.z);
    cas__buf_free(&out);
    cas__buf_free(&alone);
    cas__wsdeflate_free(d);
}

/* The bytes are a function of the previous message and the text:
 * compressed again after other messages (another previous message, none,
 * noise), the same message after the same previous one is the same bytes,
 * which is what lets watchers of one view share a frame
 * (host/server/srv_msg.c). */
static void test_the_same_texts_give_the_same_bytes(void **state)
{
    (void)state;
    static char texts[N_TEXTS][8192], noise[20000];
    size_t len[N_TEXTS];
    make_texts(texts, len);
    fill_noise(noise, sizeof noise, 4);
    struct cas__wsdeflate *d = cas__wsdeflate_new();
    assert_non_null(d);
    struct cas__buf first = {0}, between = {0}, again = {0};
    assert_int_equal(compress_into(d, texts[1], len[1], texts[2], len[2], &first), CAS_OK);
    assert_int_equal(compress_into(d, noise, sizeof noise, texts[4], len[4], &between), CAS_OK);
    assert_int_equal(compress_into(d, NULL, 0, noise, sizeof noise, &between), CAS_OK);
    assert_int_equal(compress_into(d, texts[1], len[1], texts[2], len[2], &again), CAS_OK);
    assert_int_equal(again.len, first.len);
    assert_memory_equal(again.data, first.data, first.len);
    cas__buf_free(&first);
    cas__buf_free(&between);
    cas__buf_free(&again);
    cas__wsdeflate_free(d);
}

/* One frame, compressed after a message, is read by every receiver whose
 * window ends with that message, whatever came before it: one that
 * inflated an update first, one that inflated noise and a stored pong
 * first, one that inflated only that message.  So the connections of a
 * view share frames as soon as their last message is the same. */
static void test_one_frame_serves_every_window_ending_with_the_same_message(void **state)
{
    (void)state;
    static char texts[N_TEXTS][8192], noise[30000];
    size_t len[N_TEXTS];
    make_texts(texts, len);
    fill_noise(noise, sizeof noise, 5);
    const char *pong = "{\"type\":\"pong\"}";
    struct cas__wsdeflate *d = cas__wsdeflate_new();
    assert_non_null(d);
    struct receiver a, b, c;
    receiver_open(&a);
    receiver_open(&b);
    receiver_open(&c);
    struct cas__buf out = {0};
    assert_int_equal(compress_into(d, NULL, 0, texts[0], len[0], &out), CAS_OK);
    receive(&a, &out, texts[0], len[0]);
    cas__buf_reset(&out);
    assert_int_equal(compress_into(d, texts[0], len[0], texts[1], len[1], &out), CAS_OK);
    receive(&a, &out, texts[1], len[1]);
    cas__buf_reset(&out);
    assert_int_equal(compress_into(d, NULL, 0, noise, sizeof noise, &out), CAS_OK);
    receive(&b, &out, noise, sizeof noise);
    cas__buf_reset(&out);
    assert_int_equal(cas__wsdeflate_stored(pong, strlen(pong), &out), CAS_OK);
    receive(&b, &out, pong, strlen(pong));
    cas__buf_reset(&out);
    assert_int_equal(compress_into(d, pong, strlen(pong), texts[1], len[1], &out), CAS_OK);
    receive(&b, &out, texts[1], len[1]);
    cas__buf_reset(&out);
    assert_int_equal(compress_into(d, NULL, 0, texts[1], len[1], &out), CAS_OK);
    receive(&c, &out, texts[1], len[1]);
    cas__buf_reset(&out);
    assert_int_equal(compress_into(d, texts[1], len[1], texts[2], len[2], &out), CAS_OK);
    receive(&a, &out, texts[2], len[2]);
    receive(&b, &out, texts[2], len[2]);
    receive(&c, &out, texts[2], len[2]);
    inflateEnd(&a.z);
    inflateEnd(&b.z);
    inflateEnd(&c.z);
    cas__buf_free(&out);
    cas__wsdeflate_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_long_and_incompressible_after_a_long_dictionary),
        cmocka_unit_test(test_the_same_texts_give_the_same_bytes),
        cmocka_unit_test(test_one_frame_serves_every_window_ending_with_the_same_message),
        cmocka_unit_test(test_a_stored_message_inflates_as_it_is),
        cmocka_unit_test(test_stored_and_compressed_inflate_in_sequence),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
