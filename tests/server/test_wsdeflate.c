/*
 * test_wsdeflate.c — the server's permessage-deflate messages
 * (host/server/wsdeflate.c) read back in sequence by one standard
 * inflater, as a browser keeps one per connection: messages compressed
 * after the two before them and short messages in stored blocks, mixed.
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
    static unsigned char in[65536], out[65536];
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
            assert_int_equal(cas__wsdeflate_compress(d, &dict, seq[i], seq_len[i], &out),
                             CAS_OK);
            cas__buf_reset(&alone);
            assert_int_equal(cas__wsdeflate_compress(d, &none, seq[i], seq_len[i], &alone),
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_stored_message_inflates_as_it_is),
        cmocka_unit_test(test_stored_and_compressed_inflate_in_sequence),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
