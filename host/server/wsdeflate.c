/*
 * wsdeflate.c — permessage-deflate for the server's outgoing messages
 * (wsdeflate.h).  Each message is compressed with a fresh raw deflate
 * stream primed with its dictionary, the connection's last message (or
 * last two), rather than by a stream kept per connection (as
 * libwebsockets does): the output is then a function of the texts, and
 * forty watchers of one view, whose last messages are the same, are sent
 * the same bytes, compressed once.  The receiver's window (32 KiB of
 * everything it inflated, in order) ends with those messages, so every
 * distance the compressor uses is one the receiver can follow.
 *
 * The compressor is ISA-L's igzip at its level 0 with deflate's fixed
 * Huffman codes (RFC 1951 3.2.6): a quarter of zlib's level 1 time and
 * instructions per message, for about an eighth more bytes
 * (docs/server.md, "permessage-deflate").  zlib still inflates what
 * clients send (libwebsockets does that).
 */
#include <isa-l/igzip_lib.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wsdeflate.h"

struct cas__wsdeflate {
    struct isal_zstream z;
    unsigned char window[CAS__WSDEFLATE_WINDOW]; /* the dictionary, its two parts joined */
    struct cas__buf made; /* the last message compressed: kept, so no allocation a message */
};

struct cas__wsdeflate *cas__wsdeflate_new(void)
{
    struct cas__wsdeflate *d = malloc(sizeof *d);
    if (d) {
        isal_deflate_init(&d->z);
        cas__buf_init(&d->made, 0);
    }
    return d;
}

void cas__wsdeflate_free(struct cas__wsdeflate *d)
{
    if (d) {
        cas__buf_free(&d->made);
        free(d);
    }
}

/* The tail of at most CAS__WSDEFLATE_WINDOW bytes of dict's older +
 * newer: *at, its length.  A newer alone is read where it is; two parts
 * are joined in window. */
static size_t join(unsigned char window[CAS__WSDEFLATE_WINDOW],
                   const struct cas__wsdeflate_dict *dict, const unsigned char **at)
{
    size_t newer = dict->newer_len < CAS__WSDEFLATE_WINDOW ? dict->newer_len
                                                           : CAS__WSDEFLATE_WINDOW;
    size_t older = dict->older_len < CAS__WSDEFLATE_WINDOW - newer
                       ? dict->older_len
                       : CAS__WSDEFLATE_WINDOW - newer;
    if (!older) {
        *at = newer ? (const unsigned char *)dict->newer + dict->newer_len - newer : NULL;
        return newer;
    }
    memcpy(window, dict->older + dict->older_len - older, older);
    if (newer)
        memcpy(window + older, dict->newer + dict->newer_len - newer, newer);
    *at = window;
    return older + newer;
}

/* z reset to a new raw deflate stream (level 0, fixed codes, synced at
 * the end of its input) and primed with dict (its parts joined in window
 * when there are two). */
static int reset_after(struct isal_zstream *z, unsigned char window[CAS__WSDEFLATE_WINDOW],
                       const struct cas__wsdeflate_dict *dict)
{
    const unsigned char *at;
    size_t dict_len = join(window, dict, &at);
    isal_deflate_reset(z);
    z->level = 0;
    z->flush = SYNC_FLUSH;
    z->end_of_stream = 0;
    z->gzip_flag = IGZIP_DEFLATE;
    z->hist_bits = 0; /* the default, 15: the receiver's window */
    if (isal_deflate_set_hufftables(z, NULL, IGZIP_HUFFTABLE_STATIC) != COMP_OK)
        return CAS_EIO;
    /* igzip only copies the dictionary, though it takes it as not const. */
    if (dict_len && isal_deflate_set_dict(z, (uint8_t *)at, (uint32_t)dict_len) != COMP_OK)
        return CAS_EIO;
    return CAS_OK;
}

/* The most output room given the compressor at once. */
#define OUT_STEP ((size_t)1 << 30)

/* text[0..len) through z, synced, appended to out without its final
 * 00 00 ff ff. */
static int deflate_into(struct isal_zstream *z, const char *text, size_t len,
                        struct cas__buf *out)
{
    size_t start = out->len;
    z->next_in = (uint8_t *)text;
    z->avail_in = (uint32_t)len;
    do {
        /* Fixed codes take at most 9 bits a literal; the rest is the
         * blocks' headers and the flush.  Less room only costs a turn (and
         * avail_out is 32 bits). */
        size_t room = (size_t)z->avail_in + z->avail_in / 8 + 64;
        if (room > OUT_STEP)
            room = OUT_STEP;
        int rc = cas__buf_reserve(out, room);
        if (rc != CAS_OK)
            return rc;
        z->next_out = (uint8_t *)out->data + out->len;
        z->avail_out = (uint32_t)room;
        if (isal_deflate(z) != COMP_OK)
            return CAS_EIO;
        cas__buf_setlen(out, out->len + (room - z->avail_out));
    } while (z->avail_out == 0 || z->avail_in);
    /* A sync flush ends in an empty stored block, 00 00 ff ff: the
     * receiver puts it back (RFC 7692 7.2.1). */
    if (out->len - start < 4 || memcmp(out->data + out->len - 4, "\0\0\xff\xff", 4) != 0)
        return CAS_EIO;
    cas__buf_setlen(out, out->len - 4);
    return CAS_OK;
}

int cas__wsdeflate_message(struct cas__wsdeflate *d, const struct cas__wsdeflate_dict *dict,
                           const char *text, size_t len, const unsigned char **bytes,
                           size_t *n)
{
    *bytes = NULL;
    *n = 0;
    if (len > UINT32_MAX)
        return CAS_EINVAL;
    cas__buf_reset(&d->made);
    int rc = reset_after(&d->z, d->window, dict);
    if (rc == CAS_OK)
        rc = deflate_into(&d->z, text, len, &d->made);
    if (rc == CAS_OK) {
        *bytes = (const unsigned char *)d->made.data;
        *n = d->made.len;
    }
    return rc;
}

int cas__wsdeflate_stored(const char *text, size_t len, struct cas__buf *out)
{
    /* BFINAL 0, BTYPE 00 (stored), padded to the byte; LEN and its
     * complement, little-endian; the text.  Then the sync flush's empty
     * stored block: its header byte, and 00 00 ff ff, which the receiver
     * puts back (as zlib's level 0 writes it). */
    const unsigned char head[5] = {0, (unsigned char)len, (unsigned char)(len >> 8),
                                   (unsigned char)~len, (unsigned char)(~len >> 8)};
    if (len > 0xffff)
        return CAS_EINVAL;
    cas__buf_add(out, head, sizeof head);
    cas__buf_add(out, text, len);
    return cas__buf_add(out, "", 1);
}
