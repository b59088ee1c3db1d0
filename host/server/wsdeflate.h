/*
 * wsdeflate.h — permessage-deflate (RFC 7692) for the server's outgoing
 * messages, done by castellan and not by libwebsockets so that a message
 * is compressed once for every connection that can take the same bytes
 * (host-internal: the server, and the load client that counts the bytes
 * on the wire as the server makes them).
 */
#ifndef CAS_HOST_WSDEFLATE_H
#define CAS_HOST_WSDEFLATE_H

#include <stddef.h>

#include "buf.h"

/* The receiver's window (RFC 7692's default server_max_window_bits, 15),
 * so the most of a dictionary a message may refer back into. */
#define CAS__WSDEFLATE_WINDOW 32768

/* A message shorter than this is sent in a stored block
 * (cas__wsdeflate_stored): a compressed message (RSV1) that takes its
 * place in the receiver's window, but not compressed.  Primed with the
 * two messages before it, a 32-byte message cost about 440,000
 * instructions to compress with zlib and saved 6 bytes, a 128-byte one
 * saved 25 (callgrind, after two Carcassonne updates); with igzip it was
 * still about 61,000 (hashing 7.5 KB of dictionary) to save about 12, and
 * a dictionary of one update is still several KB to hash; stored, it
 * costs a copy and 6 bytes.  Not sent uncompressed
 * (RSV1 clear), which RFC 7692 allows: libwebsockets 4.1's client, which
 * castellan's own clients use, loops on an uncompressed message in a
 * permessage-deflate connection. */
#define CAS__WSDEFLATE_MIN 256

struct cas__wsdeflate;

/* A compressor (one igzip stream and room to join a dictionary's two
 * parts, about 115 KB), reused for every message; NULL when memory ran
 * out.  Owned by the caller: cas__wsdeflate_free. */
struct cas__wsdeflate *cas__wsdeflate_new(void);
void cas__wsdeflate_free(struct cas__wsdeflate *d); /* NULL is fine */

/* The dictionary a message is compressed after: the end of the receiver's
 * window, its last compressed message (newer) and, when the caller wants
 * it too, the one before (older).  Either may be NULL/0. */
struct cas__wsdeflate_dict {
    const char *older, *newer;
    size_t older_len, newer_len;
};

/* text[0..len) compressed as one permessage-deflate message (igzip level
 * 0, fixed codes, raw deflate, synced, its final 00 00 ff ff removed as
 * RFC 7692 says) into d's own buffer, which it keeps from message to
 * message (no allocation a message once it is big enough): *bytes, *n
 * bytes, valid until d's next call (NULL, 0 on failure).  It is for a
 * receiver whose inflater has just inflated dict's older then newer
 * message — of which only the last CAS__WSDEFLATE_WINDOW bytes are used —
 * or, with an empty dict, for one that has inflated nothing the message
 * may refer to (a new connection, or no context takeover).  The output
 * depends on dict and text alone, so the same bytes serve every connection
 * whose window ends with the same dictionary.  Priming is hashing every
 * byte of the dictionary, so which messages it holds is the caller's
 * trade of time for bytes (srv_msg.c: the last message, and the one
 * before only when the last is short).  CAS_OK, CAS_ENOMEM, CAS_EINVAL
 * (len of 4 GiB or more) or CAS_EIO when the compressor fails. */
int cas__wsdeflate_message(struct cas__wsdeflate *d, const struct cas__wsdeflate_dict *dict,
                           const char *text, size_t len, const unsigned char **bytes,
                           size_t *n);

/* Append to out text[0..len) (len < 65536) as one permessage-deflate
 * message in a stored block, uncompressed: 5 bytes of header, text, and
 * the header byte of the sync flush's empty block (RFC 7692 7.2.1).
 * CAS_OK, CAS_EINVAL (too long) or CAS_ENOMEM (out's sticky error). */
int cas__wsdeflate_stored(const char *text, size_t len, struct cas__buf *out);

#endif
