/*
 * wsdeflate.c — permessage-deflate for the server's outgoing messages
 * (wsdeflate.h).  Each message is compressed with a fresh raw deflate
 * stream primed with its dictionary, the connection's previous two
 * messages, rather than by a stream kept per connection (as
 * libwebsockets does): the output is then a function of the texts, and
 * forty watchers of one view, whose last messages are the same, are sent
 * the same bytes, compressed once.  The receiver's window (32 KiB of
 * everything it inflated, in order) ends with those messages, so every
 * distance the compressor uses is one the receiver can follow.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "wsdeflate.h"

struct cas__wsdeflate {
    z_stream z;
    char window[CAS__WSDEFLATE_WINDOW]; /* the dictionary, its two parts joined */
};

struct cas__wsdeflate *cas__wsdeflate_new(void)
{
    struct cas__wsdeflate *d = calloc(1, sizeof *d);
    if (d && deflateInit2(&d->z, 1, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        free(d);
        d = NULL;
    }
    return d;
}

void cas__wsdeflate_free(struct cas__wsdeflate *d)
{
    if (d) {
        deflateEnd(&d->z);
        free(d);
    }
}

/* The tail of at most CAS__WSDEFLATE_WINDOW bytes of dict's older +
 * newer, joined in window: its length. */
static size_t join(char window[CAS__WSDEFLATE_WINDOW], const struct cas__wsdeflate_dict *dict)
{
    size_t newer = dict->newer_len < CAS__WSDEFLATE_WINDOW ? dict->newer_len
                                                           : CAS__WSDEFLATE_WINDOW;
    size_t older = dict->older_len < CAS__WSDEFLATE_WINDOW - newer
                       ? dict->older_len
                       : CAS__WSDEFLATE_WINDOW - newer;
    if (older)
        memcpy(window, dict->older + dict->older_len - older, older);
    if (newer)
        memcpy(window + older, dict->newer + dict->newer_len - newer, newer);
    return older + newer;
}

/* z reset and primed with dict (joined in window). */
static int reset_after(z_stream *z, char window[CAS__WSDEFLATE_WINDOW],
                       const struct cas__wsdeflate_dict *dict)
{
    size_t dict_len = join(window, dict);
    if (deflateReset(z) != Z_OK)
        return CAS_EIO;
    if (dict_len && deflateSetDictionary(z, (const Bytef *)window, (uInt)dict_len) != Z_OK)
        return CAS_EIO;
    return CAS_OK;
}

/* text[0..len) through z, synced, appended to out without its final
 * 00 00 ff ff. */
static int deflate_into(z_stream *z, const char *text, size_t len, struct cas__buf *out)
{
    size_t start = out->len;
    z->next_in = (Bytef *)text;
    z->avail_in = (uInt)len;
    do {
        size_t room = deflateBound(z, z->avail_in) + 16;
        int rc = cas__buf_reserve(out, room);
        if (rc != CAS_OK)
            return rc;
        z->next_out = (Bytef *)out->data + out->len;
        z->avail_out = (uInt)room;
        if (deflate(z, Z_SYNC_FLUSH) == Z_STREAM_ERROR)
            return CAS_EIO;
        cas__buf_setlen(out, out->len + (room - z->avail_out));
    } while (z->avail_out == 0);
    /* A sync flush ends in an empty stored block, 00 00 ff ff: the
     * receiver puts it back (RFC 7692 7.2.1). */
    if (out->len - start < 4)
        return CAS_EIO;
    cas__buf_setlen(out, out->len - 4);
    return CAS_OK;
}

int cas__wsdeflate_compress(struct cas__wsdeflate *d, const struct cas__wsdeflate_dict *dict,
                            const char *text, size_t len, struct cas__buf *out)
{
    int rc = reset_after(&d->z, d->window, dict);
    return rc == CAS_OK ? deflate_into(&d->z, text, len, out) : rc;
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
