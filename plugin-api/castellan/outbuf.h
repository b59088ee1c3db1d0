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
#include <stdint.h>
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

/* A NUL-terminated text as the inside of a JSON string (the caller writes
 * the quotes): '"' and '\\' escaped, control characters and DEL as \u00XX;
 * other bytes as they are.  For names that come from data files (tile
 * files refuse such ids, docs/carcassonne-tiles.md; a render escapes what
 * it writes all the same). */
static inline void cas_out_json_text(struct cas_outbuf *b, const char *text)
{
    static const char hex[] = "0123456789abcdef";
    for (;;) {
        size_t plain = 0;
        unsigned char ch;
        while ((ch = (unsigned char)text[plain]) >= 0x20 && ch != '"' && ch != '\\' &&
               ch != 0x7F)
            plain++;
        cas_outn(b, text, plain);
        if (ch == '\0')
            return;
        char escaped[6] = {'\\', (char)ch, '0', '0', hex[ch >> 4], hex[ch & 15]};
        if (ch == '"' || ch == '\\')
            cas_outn(b, escaped, 2);
        else {
            escaped[1] = 'u';
            cas_outn(b, escaped, 6);
        }
        text += plain + 1;
    }
}

/* Room for n more bytes at the buffer's end (n at most CAS_OUTBUF_SIZE),
 * what waits flushed first when they do not fit. */
static inline char *cas_out_room(struct cas_outbuf *b, size_t n)
{
    if (b->n + n > sizeof b->buf)
        cas_out_flush(b);
    return b->buf + b->n;
}

/* u's decimal digits written at `at` (room for 10); how many: two at a
 * time, in 32-bit arithmetic (what a picture's numbers need). */
static inline size_t cas_out_digits32(char *at, uint32_t u)
{
    static const char pairs[] = "00010203040506070809101112131415161718192021222324"
                                "25262728293031323334353637383940414243444546474849"
                                "50515253545556575859606162636465666768697071727374"
                                "75767778798081828384858687888990919293949596979899";
    size_t len = u < 10 ? 1 : u < 100 ? 2 : u < 1000 ? 3 : u < 10000 ? 4 : 5;
    for (uint32_t rest = u / 100000; rest; rest /= 10)
        len++;
    char *end = at + len;
    for (; u >= 100; u /= 100) {
        end -= 2;
        memcpy(end, pairs + 2 * (u % 100), 2);
    }
    if (u >= 10)
        memcpy(end - 2, pairs + 2 * u, 2);
    else
        end[-1] = (char)('0' + u);
    return len;
}

/* u's decimal digits written at `at` (room for 20); how many. */
static inline size_t cas_out_digits(char *at, unsigned long long u)
{
    if (u <= UINT32_MAX)
        return cas_out_digits32(at, (uint32_t)u);
    size_t len = 1;
    for (unsigned long long rest = u; rest >= 10; rest /= 10)
        len++;
    char *end = at + len;
    do
        *--end = (char)('0' + u % 10);
    while (u /= 10);
    return len;
}

/* v's decimal digits, after a '-' when it is negative, written at `at`
 * (room for 20); how many. */
static inline size_t cas_out_sdigits(char *at, long long v)
{
    if (v >= 0)
        return cas_out_digits(at, (unsigned long long)v);
    *at = '-';
    return 1 + cas_out_digits(at + 1, 0ull - (unsigned long long)v);
}

/* A decimal unsigned integer. */
static inline void cas_outu(struct cas_outbuf *b, unsigned long long u)
{
    char *at = cas_out_room(b, 20);
    b->n += cas_out_digits(at, u);
}

/* A decimal integer. */
static inline void cas_outi(struct cas_outbuf *b, long long v)
{
    char *at = cas_out_room(b, 20);
    b->n += cas_out_sdigits(at, v);
}

/* The rest of a format through vsnprintf: one call's text cut at
 * CAS_OUTBUF_SIZE - 1 bytes. */
static inline void cas_out_vprintf(struct cas_outbuf *b, const char *fmt, va_list args)
{
    va_list again;
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
}

/* At most `precision` bytes of text (all of it when negative), as %.*s
 * writes it: glibc's "(null)" for NULL when the precision leaves room. */
static inline void cas_out_upto(struct cas_outbuf *b, const char *text, int precision)
{
    if (!text)
        text = precision < 0 || precision >= 6 ? "(null)" : "";
    if (precision < 0) {
        cas_outs(b, text);
        return;
    }
    const char *nul = (const char *)memchr(text, '\0', (size_t)precision);
    cas_outn(b, text, nul ? (size_t)(nul - text) : (size_t)precision);
}

/* Whether the conversion after a '%' at c is %Ns or %-Ns (a string in a
 * field of N bytes, N < 4096): its width, and where its 's' is. */
static inline int cas_out_width(const char *c, size_t *width, const char **end)
{
    const char *at = c + (*c == '-');
    if (*at < '1' || *at > '9')
        return 0;
    *width = 0;
    while (*at >= '0' && *at <= '9' && *width < 4096)
        *width = *width * 10 + (size_t)(*at++ - '0');
    *end = at;
    return *at == 's';
}

/* text in a field of `width` bytes: spaces before it, or after it when
 * `left`, as printf pads %Ns and %-Ns. */
static inline void cas_out_padded(struct cas_outbuf *b, const char *text, size_t width, int left)
{
    static const char spaces[] = "                                ";
    size_t len = strlen(text), pad = width > len ? width - len : 0;
    if (left)
        cas_outn(b, text, len);
    for (size_t n; pad; pad -= n) {
        n = pad < sizeof spaces - 1 ? pad : sizeof spaces - 1;
        cas_outn(b, spaces, n);
    }
    if (!left)
        cas_outn(b, text, len);
}

/* printf into the buffer, in one pass over fmt: its text, and the
 * conversions %d %u (also with l, ll; %zu) %s %Ns %-Ns %.*s %c %% written here,
 * byte for byte what vsnprintf writes, at any length; at any other
 * conversion the rest of fmt goes through vsnprintf, and that part's text
 * is cut at CAS_OUTBUF_SIZE - 1 bytes (use cas_outn for longer text).
 * Renders format thousands of small pieces: no printf per piece. */
static inline CAS_PRINTF(2, 3) void cas_outf(struct cas_outbuf *b, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    for (;;) {
        const char *pct = strchr(fmt, '%'); /* faster than strcspn for one byte */
        if (!pct) {
            cas_outs(b, fmt);
            break;
        }
        if (pct > fmt)
            cas_outn(b, fmt, (size_t)(pct - fmt));
        fmt = pct;
        const char *c = fmt + 1, *text, *end;
        int longs = 0, precision;
        size_t width;
        char ch;
        if (*c == 'z' && c[1] == 'u') {
            cas_outu(b, va_arg(args, size_t));
            fmt = c + 2;
            continue;
        }
        while (*c == 'l' && longs < 2) {
            c++;
            longs++;
        }
        switch (*c) {
        case 'd':
            cas_outi(b, longs == 0   ? va_arg(args, int)
                        : longs == 1 ? va_arg(args, long)
                                     : va_arg(args, long long));
            break;
        case 'u':
            cas_outu(b, longs == 0   ? va_arg(args, unsigned)
                        : longs == 1 ? va_arg(args, unsigned long)
                                     : va_arg(args, unsigned long long));
            break;
        case 's':
            if (longs)
                goto other;
            text = va_arg(args, const char *);
            cas_outs(b, text ? text : "(null)");
            break;
        case 'c':
            if (longs)
                goto other;
            ch = (char)va_arg(args, int);
            cas_outn(b, &ch, 1);
            break;
        case '%':
            if (longs)
                goto other;
            cas_outn(b, "%", 1);
            break;
        case '-':
        case '1': case '2': case '3': case '4': case '5': case '6': case '7': case '8':
        case '9':
            if (longs || !cas_out_width(c, &width, &end))
                goto other;
            text = va_arg(args, const char *);
            cas_out_padded(b, text ? text : "(null)", width, *c == '-');
            c = end;
            break;
        case '.':
            if (longs || c[1] != '*' || c[2] != 's')
                goto other;
            precision = va_arg(args, int);
            cas_out_upto(b, va_arg(args, const char *), precision);
            c += 2;
            break;
        default:
            goto other;
        }
        fmt = c + 1;
    }
    va_end(args);
    return;
other:
    cas_out_vprintf(b, fmt, args);
    va_end(args);
}

#endif
