/*
 * test_wsdeflate.c — the server's permessage-deflate messages
 * (host/server/wsdeflate.c) read back in sequence by one standard
 * inflater, as a browser keeps one per connection: messages compressed
 * after the two before them and short messages in stored blocks, mixed;
 * long and incompressible messages after a dictionary longer than the
 * window; and the same bytes for the same texts whatever was compressed
 * between (what lets watchers share frames).
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
static int compress_into(struct cas__wsdeflate *d, const struct cas__wsdeflate_dict *dict,
                         const char *text, size_t len, struct cas__buf *out)
{
    const unsigned char *bytes;
    size_t n;
    int rc = cas__wsdeflate_message(d, dict, text, len, &bytes, &n);
    return rc == CAS_OK ? cas__buf_add(out, bytes, n) : rc;
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

static struct cas__wsdeflate_dict dict_of(const char *older, size_t older_len, const char *newer,
                                          size_t newer_len)
{
    return (struct cas__wsdeflate_dict){.older = older, .older_len = older_len,
                                        .newer = newer, .newer_len = newer_len};
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

/* As the server sends them (host/server/http.c): short messages stored,
 * the others compressed after the two messages before them, stored or
 * not; one inflater reads them all in order, and the compressed ones
 * refer back into the ones before (they come out smaller than alone). */
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
        const struct cas__wsdeflate_dict dict =
            dict_of(i > 1 ? seq[i - 2] : NULL, i > 1 ? seq_len[i - 2] : 0,
                    i > 0 ? seq[i - 1] : NULL, i > 0 ? seq_len[i - 1] : 0);
        const struct cas__wsdeflate_dict none = {0};
        cas__buf_reset(&out);
        if (seq_len[i] < CAS__WSDEFLATE_MIN) {
            assert_int_equal(cas__wsdeflate_stored(seq[i], seq_len[i], &out), CAS_OK);
        } else {
            assert_int_equal(compress_into(d, &dict, seq[i], seq_len[i], &out),
                             CAS_OK);
            cas__buf_reset(&alone);
            assert_int_equal(compress_into(d, &none, seq[i], seq_len[i], &alone),
                             CAS_OK);
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

/* A dictionary of 40 KB, more than the receiver's 32 KiB window, then a
 * message that repeats the dictionary's start (out of the window, so not
 * referable) and its end, and is otherwise noise, longer than a stored
 * block: the receiver, which inflated the two earlier messages, reads it
 * back; every distance stays within its window. */
static void test_long_and_incompressible_after_a_long_dictionary(void **state)
{
    (void)state;
    enum { OLDER = 30000, NEWER = 10000, LONG = 200000 };
    static char older[OLDER], newer[NEWER], text[LONG];
    fill_noise(older, OLDER, 1);
    fill_noise(newer, NEWER, 2);
    fill_noise(text, LONG, 3);
    memcpy(text, older, 4000);
    memcpy(text + 5000, newer + NEWER - 4000, 4000);
    memcpy(text + LONG - 8000, older + OLDER - 8000, 8000);
    struct cas__wsdeflate *d = cas__wsdeflate_new();
    assert_non_null(d);
    struct receiver r;
    receiver_open(&r);
    struct cas__buf out = {0};
    const struct cas__wsdeflate_dict none = {0},
                                     first = dict_of(NULL, 0, older, OLDER),
                                     both = dict_of(older, OLDER, newer, NEWER);
    assert_int_equal(compress_into(d, &none, older, OLDER, &out), CAS_OK);
    receive(&r, &out, older, OLDER);
    cas__buf_reset(&out);
    assert_int_equal(compress_into(d, &first, newer, NEWER, &out), CAS_OK);
    receive(&r, &out, newer, NEWER);
    cas__buf_reset(&out);
    assert_int_equal(compress_into(d, &both, text, LONG, &out), CAS_OK);
    /* Noise is not made much bigger, and the repeated end of the newer
     * message is found. */
    assert_true(out.len < LONG + LONG / 8);
    receive(&r, &out, text, LONG);
    inflateEnd(&r.z);
    cas__buf_free(&out);
    cas__wsdeflate_free(d);
}

/* The bytes are a function of the dictionary and the text: compressed
 * again after other messages (another dictionary, none, noise), the same
 * message after the same two is the same bytes, which is what lets
 * watchers of one view share a frame (host/server/srv_msg.c). */
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
    const struct cas__wsdeflate_dict dict = dict_of(texts[0], len[0], texts[1], len[1]),
                                     other = dict_of(texts[3], len[3], noise, sizeof noise),
                                     none = {0};
    assert_int_equal(compress_into(d, &dict, texts[2], len[2], &first), CAS_OK);
    assert_int_equal(compress_into(d, &other, texts[4], len[4], &between), CAS_OK);
    assert_int_equal(compress_into(d, &none, noise, sizeof noise, &between), CAS_OK);
    assert_int_equal(compress_into(d, &dict, texts[2], len[2], &again), CAS_OK);
    assert_int_equal(again.len, first.len);
    assert_memory_equal(again.data, first.data, first.len);
    cas__buf_free(&first);
    cas__buf_free(&between);
    cas__buf_free(&again);
    cas__wsdeflate_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_long_and_incompressible_after_a_long_dictionary),
        cmocka_unit_test(test_the_same_texts_give_the_same_bytes),
        cmocka_unit_test(test_a_stored_message_inflates_as_it_is),
        cmocka_unit_test(test_stored_and_compressed_inflate_in_sequence),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
