/*
 * jsonw.c — writing JSON: util's growable buffer with room for a
 * transport's header before the text (the server's messages go to
 * libwebsockets as they are), and strings escaped so that nothing a plugin
 * or a player wrote can break out of its quotes or out of a page's
 * <script>.
 */
#include "jsonw.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <castellan/outbuf.h> /* cas_out_digits, cas_out_sdigits */
#ifdef __SSE2__
#include <emmintrin.h>
#endif

void cas__jw_init(struct cas__jw *w)
{
    cas__buf_init(&w->b, 0);
}

static int grow(struct cas__jw *w, size_t n);

void cas__jw_init_room(struct cas__jw *w, size_t room)
{
    cas__jw_init(w);
    grow(w, room);
}

void cas__jw_free(struct cas__jw *w)
{
    cas__buf_free(&w->b);
}

size_t cas__jw_len(const struct cas__jw *w)
{
    return w->b.len ? w->b.len - CAS__JW_ROOM : 0;
}

void cas__jw_cut(struct cas__jw *w, size_t len)
{
    if (w->b.data && !w->b.failed && len < cas__jw_len(w))
        cas__buf_setlen(&w->b, CAS__JW_ROOM + len);
}

/* reserve's way when the room is not there yet (or w failed). */
static int grow(struct cas__jw *w, size_t n)
{
    if (w->b.len == 0 && cas__buf_reserve(&w->b, CAS__JW_ROOM + n) == CAS_OK)
        cas__buf_setlen(&w->b, CAS__JW_ROOM);
    return cas__buf_reserve(&w->b, n) == CAS_OK ? 0 : -1;
}

/* Room for n more bytes of text, behind the CAS__JW_ROOM bytes on the
 * first write; 0, or -1 after w failed.  Inline where the room is there
 * already: a message's strings are many and most are short. */
static inline int reserve(struct cas__jw *w, size_t n)
{
    const struct cas__buf *b = &w->b;
    if (b->len && !b->failed && n <= b->cap - b->len)
        return 0;
    return grow(w, n);
}

void cas__jw_rawn(struct cas__jw *w, const char *text, size_t n)
{
    struct cas__buf *b = &w->b;
    if (b->len && !b->failed && n <= b->cap - b->len) { /* most writes: room already */
        memcpy(b->data + b->len, text, n);
        b->len += n;
        b->data[b->len] = '\0';
        return;
    }
    if (reserve(w, n) == 0)
        cas__buf_add(b, text, n);
}

void cas__jw_printf(struct cas__jw *w, const char *fmt, ...)
{
    if (reserve(w, 0))
        return;
    va_list args;
    va_start(args, fmt);
    if (cas__buf_vaddf(&w->b, fmt, args) == CAS_EINVAL)
        w->b.failed = CAS_EINVAL; /* a format error spoils the message */
    va_end(args);
}

void cas__jw_int(struct cas__jw *w, int64_t v)
{
    char digits[20];
    cas__jw_rawn(w, digits, cas_out_sdigits(digits, v));
}

void cas__jw_uint(struct cas__jw *w, uint64_t v)
{
    char digits[20];
    cas__jw_rawn(w, digits, cas_out_digits(digits, v));
}

/* The length of the valid UTF-8 sequence at s[0..n) (n > 0), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    size_t len;
    uint32_t cp;
    if (s[0] < 0x80)
        return 1;
    if (s[0] >= 0xC2 && s[0] <= 0xDF) {
        len = 2;
        cp = s[0] & 0x1F;
    } else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
        len = 3;
        cp = s[0] & 0x0F;
    } else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
        len = 4;
        cp = s[0] & 0x07;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3F);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
        (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
        return 0;
    return len;
}

/* What each byte needs in a JSON string (a lookup, as most of a picture is
 * printable ASCII carried as it is): O other (control, DEL, UTF-8: checked
 * one by one), P plain, Q escaped with a backslash ('"', '\\'), S '/'
 * (escaped after '<', so no "</script>" closes a page's script). */
enum { O, P, Q, S };
static const unsigned char byte_kind[256] = {
    O, O, O, O, O, O, O, O, O, O, O, O, O, O, O, O,
    O, O, O, O, O, O, O, O, O, O, O, O, O, O, O, O,
    P, P, Q, P, P, P, P, P, P, P, P, P, P, P, P, S,
    P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P,
    P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P,
    P, P, P, P, P, P, P, P, P, P, P, P, Q, P, P, P,
    P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P,
    P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, O,
    O, O, O, O, O, O, O, O, O, O, O, O, O, O, O, O,
    O, O, O, O, O, O, O, O, O, O, O, O, O, O, O, O,
    O, O, O, O, O, O, O, O, O, O, O, O, O, O, O, O,
    O, O, O, O, O, O, O, O, O, O, O, O, O, O, O, O,
    O, O, O, O, O, O, O, O, O, O, O, O, O, O, O, O,
    O, O, O, O, O, O, O, O, O, O, O, O, O, O, O, O,
    O, O, O, O, O, O, O, O, O, O, O, O, O, O, O, O,
    O, O, O, O, O, O, O, O, O, O, O, O, O, O, O, O,
};

/* Copy the plain bytes at s[i..n) to out, sixteen at a time where the
 * processor has SSE2 (a block holds a byte to escape when any byte is
 * below 0x20 or non-ASCII, both below 0x20 as signed bytes, DEL, '"',
 * '\\' or '/'); the index of the first byte that is not plain, out moved
 * past the copy.  Quotes, backslashes and slashes, which a picture holds
 * every few bytes, are written here too, each hit of a block in turn
 * (the rest of the block stored again after its escape).  The last bytes
 * (fewer than 32: a block and what a hit reloads past it) are taken from
 * a copy padded to 32, so a short string (a key, a name) is one block
 * too, not a loop over its bytes.  Writing 16 bytes at a time fits: 6 are
 * reserved per input byte and 16 more. */
static size_t copy_plain(const unsigned char *s, size_t i, size_t n, char **out)
{
    char *o = *out;
#ifdef __SSE2__
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'),
                  slash = _mm_set1_epi8('/'), space = _mm_set1_epi8(' '),
                  del = _mm_set1_epi8(0x7F);
    unsigned char last[32];
    while (i < n) {
        const unsigned char *b = s + i; /* the block: 16 bytes readable past any hit */
        size_t m = n - i < 16 ? n - i : 16;
        if (n - i < 32) {
            memset(last, 0, sizeof last);
            memcpy(last, s + i, n - i);
            b = last;
        }
        unsigned valid = m == 16 ? 0xFFFFu : (1u << m) - 1;
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)b);
        _mm_storeu_si128((__m128i *)(void *)o, v); /* bytes past a stop are written over */
        __m128i other = _mm_or_si128(_mm_cmplt_epi8(v, space), _mm_cmpeq_epi8(v, del));
        __m128i stop = _mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
            _mm_or_si128(_mm_cmpeq_epi8(v, slash), other));
        unsigned mask = (unsigned)_mm_movemask_epi8(stop) & valid;
        if (!mask) {
            o += m;
            i += m;
            continue;
        }
        unsigned first_other = (unsigned)_mm_movemask_epi8(other) & valid;
        first_other &= -first_other;
        /* the escapes before the first other byte (control, DEL, UTF-8) */
        unsigned hits = first_other ? mask & (first_other - 1) : mask;
        size_t done = 0; /* bytes of the block written; the next ones at o */
        while (hits) {
            size_t k = (size_t)__builtin_ctz(hits);
            hits &= hits - 1;
            o += k - done;
            unsigned char ch = b[k];
            if (ch != '/' || (i + k > 0 && s[i + k - 1] == '<'))
                *o++ = '\\';
            *o++ = (char)ch;
            done = k + 1;
            _mm_storeu_si128((__m128i *)(void *)o,
                             _mm_loadu_si128((const __m128i *)(const void *)(b + done)));
        }
        if (first_other) {
            size_t k = (size_t)__builtin_ctz(first_other);
            *out = o + (k - done);
            return i + k;
        }
        o += m - done;
        i += m;
    }
#endif
    while (i < n && byte_kind[s[i]] == P)
        *o++ = (char)s[i++];
    *out = o;
    return i;
}

void cas__jw_strn(struct cas__jw *w, const char *text, size_t n)
{
    if (!text) {
        cas__jw_raw(w, "null");
        return;
    }
    /* Worst case 6 bytes per input byte, reserved once, and the 16 a
     * block's store may pass its end by. */
    if (reserve(w, n * 6 + 2 + 16))
        return;
    char *out = w->b.data + w->b.len;
    const unsigned char *s = (const unsigned char *)text;
    *out++ = '"';
    for (size_t i = 0; (i = copy_plain(s, i, n, &out)) < n;) {
        unsigned char ch = s[i];
        size_t len;
        if (byte_kind[ch] == Q) {
            *out++ = '\\';
            *out++ = (char)ch;
            i++;
        } else if (byte_kind[ch] == S) {
            if (i > 0 && s[i - 1] == '<')
                *out++ = '\\';
            *out++ = '/';
            i++;
        } else if (ch == '\n') {
            *out++ = '\\';
            *out++ = 'n';
            i++;
        } else if (ch < 0x20 || ch == 0x7F) {
            out += sprintf(out, "\\u%04x", ch);
            i++;
        } else if ((len = utf8_len(s + i, n - i)) == 0) {
            out += sprintf(out, "\\ufffd");
            i++;
        } else {
            memcpy(out, s + i, len);
            out += len;
            i += len;
        }
    }
    *out++ = '"';
    *out = '\0';
    w->b.len = (size_t)(out - w->b.data);
}

void cas__jw_str(struct cas__jw *w, const char *text)
{
    cas__jw_strn(w, text, text ? strlen(text) : 0);
}

const char *cas__jw_text(const struct cas__jw *w)
{
    return w->b.failed || w->b.len == 0 ? "" : w->b.data + CAS__JW_ROOM;
}
