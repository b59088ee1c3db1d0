/*
 * castellan/outbuf.h — a buffered writer for renders.
 *
 * A render writes hundreds of small pieces (cells, SVG elements, JSON
 * members); handing each to the host's cas_writer would dominate a checker
 * that renders every viewer at every step.  struct cas_outbuf gathers them
 * in a fixed buffer on the plugin's stack and passes them on in large
 * writes.  Header-only: nothing of it crosses the plugin boundary, so it is
 * not part of the ABI and may change with the headers.
 *
 * Use: `struct cas_outbuf ob = CAS_OUTBUF_INIT(out);`, write with the
 * functions below, then `return cas_out_finish(&ob);`.  After the first
 * failed write every later one is skipped and finish returns that error.
 */
#ifndef CASTELLAN_OUTBUF_H
#define CASTELLAN_OUTBUF_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "plugin.h"

#define CAS_OUTBUF_SIZE 8192

struct cas_outbuf {
    const struct cas_writer *out; /* borrowed; must outlive the buffer */
    int rc;                       /* CAS_OK, or the first write's error */
    size_t n;                     /* bytes waiting in buf */
    char buf[CAS_OUTBUF_SIZE];
};

#define CAS_OUTBUF_INIT(writer) { .out = (writer), .rc = CAS_OK, .n = 0 }

/* The same as `*b = CAS_OUTBUF_INIT(out)`, without clearing the buffer
 * (an initialiser zeroes all of it): for a render called at every move. */
static inline void cas_out_init(struct cas_outbuf *b, const struct cas_writer *out)
{
    b->out = out;
    b->rc = CAS_OK;
    b->n = 0;
}

/* Pass what is waiting to the writer. */
static inline void cas_out_flush(struct cas_outbuf *b)
{
    if (b->rc == CAS_OK && b->n)
        b->rc = b->out->write(b->out->ctx, b->buf, b->n);
    b->n = 0;
}

/* Flush, and the error of any write so far (CAS_OK when all went out). */
static inline int cas_out_finish(struct cas_outbuf *b)
{
    cas_out_flush(b);
    return b->rc;
}

/* len bytes of data, of any length. */
static inline void cas_outn(struct cas_outbuf *b, const char *data, size_t len)
{
    if (b->n + len > sizeof b->buf)
        cas_out_flush(b);
    if (len > sizeof b->buf) {
        if (b->rc == CAS_OK)
            b->rc = b->out->write(b->out->ctx, data, len);
        return;
    }
    memcpy(b->buf + b->n, data, len);
    b->n += len;
}

/* A NUL-terminated text, of any length. */
static inline void cas_outs(struct cas_outbuf *b, const char *text)
{
    cas_outn(b, text, strlen(text));
}

/* A decimal integer. */
static inline void cas_outi(struct cas_outbuf *b, long long v)
{
    char digits[24], *at = digits + sizeof digits;
    unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    do
        *--at = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0)
        *--at = '-';
    cas_outn(b, at, (size_t)(digits + sizeof digits - at));
}

/* A decimal unsigned integer. */
static inline void cas_outu(struct cas_outbuf *b, unsigned long long u)
{
    char digits[24], *at = digits + sizeof digits;
    do
        *--at = (char)('0' + u % 10);
    while (u /= 10);
    cas_outn(b, at, (size_t)(digits + sizeof digits - at));
}

/* Whether every conversion of fmt is one cas_out_plain writes itself:
 * %d %u %s %c %% and %zu, with no flags, width or precision. */
static inline int cas_out_is_plain(const char *fmt)
{
    for (const char *p = strchr(fmt, '%'); p; p = strchr(p + 2, '%')) {
        if (p[1] == 'z' && p[2] == 'u')
            p++;
        else if (!p[1] || !strchr("dusc%", p[1]))
            return 0;
    }
    return 1;
}

/* fmt (plain: cas_out_is_plain) with its arguments, piece by piece: what
 * vsnprintf writes, without its cost per call (renders format thousands
 * of small pieces). */
static inline void cas_out_plain(struct cas_outbuf *b, const char *fmt, va_list args)
{
    for (;;) {
        const char *pct = strchr(fmt, '%');
        size_t run = pct ? (size_t)(pct - fmt) : strlen(fmt);
        if (run)
            cas_outn(b, fmt, run);
        if (!pct)
            return;
        const char *text;
        char c;
        switch (pct[1]) {
        case 'd': cas_outi(b, va_arg(args, int)); break;
        case 'u': cas_outu(b, va_arg(args, unsigned)); break;
        case 'z': cas_outu(b, va_arg(args, size_t)); pct++; break;
        case 'c':
            c = (char)va_arg(args, int);
            cas_outn(b, &c, 1);
            break;
        case 's':
            text = va_arg(args, const char *);
            cas_outs(b, text ? text : "(null)");
            break;
        default: cas_outn(b, "%", 1); break;
        }
        fmt = pct + 2;
    }
}

/* printf into the buffer.  The plain conversions (cas_out_is_plain) are
 * written directly, at any length; any other format goes through
 * vsnprintf, and one such call's text is cut at CAS_OUTBUF_SIZE - 1 bytes
 * (use cas_outn for longer text). */
static inline CAS_PRINTF(2, 3) void cas_outf(struct cas_outbuf *b, const char *fmt, ...)
{
    va_list args, again;
    va_start(args, fmt);
    if (cas_out_is_plain(fmt)) {
        cas_out_plain(b, fmt, args);
        va_end(args);
        return;
    }
    va_copy(again, args);
    size_t room = sizeof b->buf - b->n;
    int len = vsnprintf(b->buf + b->n, room, fmt, args);
    if (len >= 0 && (size_t)len >= room) {
        cas_out_flush(b);
        len = vsnprintf(b->buf, sizeof b->buf, fmt, again);
        if (len >= 0 && (size_t)len >= sizeof b->buf)
            len = (int)sizeof b->buf - 1;
    }
    if (len > 0)
        b->n += (size_t)len;
    va_end(again);
    va_end(args);
}

#endif
