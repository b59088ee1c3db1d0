/*
 * buf.h — a growable byte buffer (host-internal), the one the host's
 * rooms build messages, frames and collected text in.  Modelled on git's
 * strbuf: add bytes or formatted text, reserve room to write into
 * directly, take the bytes, free.  A buffer may be given a limit, so that
 * what a peer sends or makes us write cannot grow it without bound.
 *
 * Failure is sticky: the first failed growth (CAS_ENOMEM, or CAS_ENOSPC
 * past the limit) is kept in `failed` and every later addition is a
 * no-op returning it, so a writer may add many pieces and check once.
 */
#ifndef CAS_HOST_BUF_H
#define CAS_HOST_BUF_H

#include <castellan/plugin.h>
#include <stdarg.h>
#include <stddef.h>

struct cas__buf {
    char *data;   /* owned; NULL until the first addition or reserve,
                     then NUL-terminated at data[len] (not counted) */
    size_t len;   /* bytes held */
    size_t cap;   /* bytes data can hold before it grows (the NUL aside) */
    size_t max;   /* most bytes it may hold; 0 for no limit */
    int failed;   /* CAS_OK, or the first error */
};

/* An empty buffer that may hold at most `max` bytes (0: no limit, for
 * what only the host writes).  Allocates nothing; a zeroed struct
 * cas__buf is the same as one initialised with no limit. */
void cas__buf_init(struct cas__buf *b, size_t max);

/* Room for `more` bytes past len (and the NUL), so the caller may write
 * into data + len and then cas__buf_setlen.  CAS_OK, or the sticky error:
 * CAS_ENOSPC when len + more would pass max, CAS_ENOMEM.  data may move. */
int cas__buf_reserve(struct cas__buf *b, size_t more);

/* Set len to `len` (at most cap, after a reserve) and terminate it. */
void cas__buf_setlen(struct cas__buf *b, size_t len);

/* Append data[0..n); CAS_OK or the sticky error (nothing added). */
int cas__buf_add(struct cas__buf *b, const void *data, size_t n);
int cas__buf_addstr(struct cas__buf *b, const char *text);

/* A struct cas_writer's write (plugin.h) into the struct cas__buf given
 * as its ctx: what a plugin renders, collected. */
int cas__buf_write(void *ctx, const char *data, size_t len);

/* Append printf-formatted text; CAS_OK or the sticky error (nothing added;
 * a format error is CAS_EINVAL). */
int cas__buf_addf(struct cas__buf *b, const char *fmt, ...) CAS_PRINTF(2, 3);
int cas__buf_vaddf(struct cas__buf *b, const char *fmt, va_list args) CAS_PRINTF(2, 0);

/* Empty it for reuse: len 0, no failure, the memory and limit kept. */
void cas__buf_reset(struct cas__buf *b);

/* The bytes, NUL-terminated, handed to the caller (free() them), *len set
 * when len is not NULL; b is left empty and reusable.  NULL (and b freed)
 * when b failed or nothing was ever added. */
char *cas__buf_take(struct cas__buf *b, size_t *len);

/* cas__buf_take, the bytes' allocation shrunk to what they hold when more
 * than an eighth of it is free (growth doubles it): for bytes that are
 * kept, such as a message a view holds for resuming. */
char *cas__buf_take_fit(struct cas__buf *b, size_t *len);

/* Free the bytes; b is left empty with its limit, reusable. */
void cas__buf_free(struct cas__buf *b);

/* An array of elements of `size` bytes at *items (owned by the caller,
 * NULL for none yet) grown to hold at least `need` of them: *cap (in
 * elements) doubled from 64 until it does.  CAS_OK, or CAS_ENOMEM with
 * *items and *cap untouched. */
int cas__grow(void **items, size_t *cap, size_t need, size_t size);

#endif
