/*
 * jsonw.h — a JSON writer with careful escaping (host-internal): the
 * server's messages and the replay page's data are written with it.
 */
#ifndef CAS_HOST_JSONW_H
#define CAS_HOST_JSONW_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <castellan/plugin.h>

#include "buf.h"

/* Bytes kept free before the text, so a transport can put its header
 * there (libwebsockets' LWS_PRE; the server checks they agree). */
#define CAS__JW_ROOM 16

/* JSON being written: CAS__JW_ROOM bytes of room before the text.  A
 * failed allocation sets b.failed and makes every later call a no-op. */
struct cas__jw {
    struct cas__buf b; /* CAS__JW_ROOM bytes (once written), then the text */
};

void cas__jw_init(struct cas__jw *w);
/* As cas__jw_init, with room for `room` bytes of text at once: one
 * allocation, not a string of growing copies, for a message whose size is
 * roughly known.  Failing, it fails the writer (as a write would). */
void cas__jw_init_room(struct cas__jw *w, size_t room);
void cas__jw_free(struct cas__jw *w);
/* Bytes of text written so far; cut drops what came after the first len. */
size_t cas__jw_len(const struct cas__jw *w);
void cas__jw_cut(struct cas__jw *w, size_t len);
/* Append text as it is (the caller's JSON).  Inline, so a literal's
 * length is counted by the compiler: messages are written in many small
 * pieces. */
void cas__jw_rawn(struct cas__jw *w, const char *text, size_t n);
static inline void cas__jw_raw(struct cas__jw *w, const char *text)
{
    cas__jw_rawn(w, text, strlen(text));
}
void cas__jw_printf(struct cas__jw *w, const char *fmt, ...) CAS_PRINTF(2, 3);
/* Append a decimal integer (what "%" PRId64 / "%" PRIu64 write, without
 * printf's cost: the fields of every message). */
void cas__jw_int(struct cas__jw *w, int64_t v);
void cas__jw_uint(struct cas__jw *w, uint64_t v);
/* Append true or false. */
static inline void cas__jw_bool(struct cas__jw *w, int b)
{
    if (b)
        cas__jw_rawn(w, "true", 4);
    else
        cas__jw_rawn(w, "false", 5);
}
/* Append a JSON string of text[0..n) ("null" for NULL): quotes, backslash
 * and control characters escaped, bytes that are not UTF-8 replaced by
 * U+FFFD, and "</" written "<\/" so a page may embed it. */
void cas__jw_strn(struct cas__jw *w, const char *text, size_t n);
void cas__jw_str(struct cas__jw *w, const char *text);
/* The text written so far (NUL-terminated; "" after a failure). */
const char *cas__jw_text(const struct cas__jw *w);

#endif
