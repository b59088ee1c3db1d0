/*
 * picture_changes.c — a plugin's SVG picture cut into its keyed top-level
 * elements (docs/abi.md "Keyed pictures"), and the changes from one
 * picture to the next as the protocol sends them and a replay page holds
 * them (docs/server.md "Picture changes"): the root's start tag when it
 * changed, the keys gone, and each element added or changed with the key
 * it follows.  A picture that keys nothing, or breaks the convention
 * anywhere, is sent whole.
 *
 * The cutting is a small scanner, not an XML parser: it finds where each
 * top-level element starts and ends (quoted attribute values, comments,
 * CDATA and processing instructions skipped) and reads its data-cas-key.
 * The client parses what it receives with the browser's own parser and
 * sanitizes it as it does a whole picture.
 *
 * Pictures keep their text in stores (below): a picture drawn relative
 * to the last is placed beside the last one's kept elements, which it
 * refers to where they are, and its whole text is put together only when
 * asked for.
 */
#define _GNU_SOURCE /* qsort_r, memmem */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "picture_changes.h"

#define KEY_ATTR "data-cas-key=\""

static int starts(const char *p, const char *end, const char *word)
{
    size_t n = strlen(word);
    return (size_t)(end - p) >= n && memcmp(p, word, n) == 0;
}

/* Past the next occurrence of word in [p, end), or NULL. */
static const char *past(const char *p, const char *end, const char *word)
{
    size_t n = strlen(word);
    const char *at = memmem(p, (size_t)(end - p), word, n);
    return at ? at + n : NULL;
}

/* The first of the bytes a, b and c in [p, end), or end: sixteen at a
 * time where the processor has SSE2 (a changed element is scanned here,
 * once for its tags' bytes and once for each attribute value). */
static const char *first_of(const char *p, const char *end, char a, char b, char c)
{
#ifdef __SSE2__
    const __m128i va = _mm_set1_epi8(a), vb = _mm_set1_epi8(b), vc = _mm_set1_epi8(c);
    for (; end - p >= 16; p += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
        __m128i hit = _mm_or_si128(_mm_cmpeq_epi8(v, va),
                                   _mm_or_si128(_mm_cmpeq_epi8(v, vb), _mm_cmpeq_epi8(v, vc)));
        unsigned mask = (unsigned)_mm_movemask_epi8(hit);
        if (mask)
            return p + __builtin_ctz(mask);
    }
#endif
    while (p < end && *p != a && *p != b && *p != c)
        p++;
    return p;
}

/* Whether a[0..n) and b[0..n) agree in their first and last w bytes (w at
 * most 8 and n), as two words each. */
static inline __attribute__((always_inline)) int ends_same(const char *a, const char *b,
                                                           size_t n, size_t w)
{
    uint64_t a0 = 0, a1 = 0, b0 = 0, b1 = 0;
    memcpy(&a0, a, w);
    memcpy(&b0, b, w);
    memcpy(&a1, a + n - w, w);
    memcpy(&b1, b + n - w, w);
    return ((a0 ^ b0) | (a1 ^ b1)) == 0;
}

/* Whether a[0..n) and b[0..n) are the same bytes: without a call for the
 * short runs a placeholder is compared in (its open and close, a key, the
 * gap before it), two overlapping loads for each; memcmp past 32. */
static inline __attribute__((always_inline)) int same_bytes(const char *a, const char *b,
                                                            size_t n)
{
    if (n > 32)
        return memcmp(a, b, n) == 0;
#ifdef __SSE2__
    if (n >= 16) {
        __m128i x = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)a),
                                   _mm_loadu_si128((const __m128i *)(const void *)b));
        __m128i y = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(a + n - 16)),
                                   _mm_loadu_si128((const __m128i *)(const void *)(b + n - 16)));
        return _mm_movemask_epi8(_mm_and_si128(x, y)) == 0xFFFF;
    }
#endif
    if (n >= 8)
        return ends_same(a, b, n, 8) && (n <= 16 || memcmp(a + 8, b + 8, n - 16) == 0);
    if (n >= 4)
        return ends_same(a, b, n, 4);
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return 0;
    return 1;
}

/* p at '<' of a start tag: past its '>' (quoted values skipped whole);
 * *empty says whether it closed itself ("/>").  NULL when it does not
 * end. */
static const char *tag_end(const char *p, const char *end, int *empty)
{
    for (p++;; p++) {
        p = first_of(p, end, '"', '\'', '>');
        if (p == end)
            return NULL;
        if (*p == '>') {
            *empty = p[-1] == '/';
            return p + 1;
        }
        p = first_of(p + 1, end, *p, *p, *p);
        if (p == end)
            return NULL;
    }
}

/* p at '<' of markup that is no element (comment, CDATA, PI, doctype):
 * past it, or NULL. */
static const char *skip_other(const char *p, const char *end)
{
    if (starts(p, end, "<!--"))
        return past(p + 4, end, "-->");
    if (starts(p, end, "<![CDATA["))
        return past(p + 9, end, "]]>");
    if (starts(p, end, "<?"))
        return past(p + 2, end, "?>");
    if (starts(p, end, "<!")) {
        int empty;
        return tag_end(p, end, &empty);
    }
    return NULL;
}

/* Which of the 16 bytes at p (bit i: p[i]) are markup a scan of elements
 * stops at: '<', '>' and quotes. */
static unsigned markup_bits(const char *p, const char *end)
{
#ifdef __SSE2__
    if (end - p >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
        __m128i hit = _mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('<')), _mm_cmpeq_epi8(v, _mm_set1_epi8('>'))),
            _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
                         _mm_cmpeq_epi8(v, _mm_set1_epi8('\''))));
        return (unsigned)_mm_movemask_epi8(hit);
    }
#endif
    unsigned bits = 0;
    for (int i = 0; i < 16 && p + i < end; i++)
        if (p[i] == '<' || p[i] == '>' || p[i] == '"' || p[i] == '\'')
            bits |= 1u << i;
    return bits;
}

/* p at '<' of a start tag: past the element's end tag, or NULL; *stop
 * past its start tag.  One pass over the markup bytes of each 16 (quoted
 * values skipped whole, in a tag; comments, CDATA and processing
 * instructions skipped in text), as a small state machine. */
static const char *element_end(const char *p, const char *end, const char **stop)
{
    enum { TEXT, TAG, QUOTED } state = TAG;
    char quote = 0;
    int depth = 0;
    const char *base = p + 1;
    while (base < end) {
        unsigned bits = markup_bits(base, end);
        const char *next = base + 16; /* where the next block starts */
        while (bits) {
            const char *q = base + __builtin_ctz(bits);
            bits &= bits - 1;
            if (state == QUOTED) {
                if (*q == quote)
                    state = TAG;
            } else if (state == TAG) {
                if (*q == '"' || *q == '\'') {
                    state = QUOTED;
                    quote = *q;
                } else if (*q == '>') { /* ('<' in a tag is nothing) */
                    if (!depth && !*stop)
                        *stop = q + 1;
                    if (q[-1] != '/')
                        depth++;
                    else if (!depth)
                        return q + 1;
                    state = TEXT;
                }
            } else if (*q == '<') {
                if (q + 1 < end && (q[1] == '!' || q[1] == '?')) {
                    next = skip_other(q, end);
                } else if (q + 1 < end && q[1] == '/') {
                    next = memchr(q, '>', (size_t)(end - q));
                    if (next && --depth == 0)
                        return next + 1;
                    next = next ? next + 1 : NULL;
                } else {
                    state = TAG;
                    continue;
                }
                if (!next)
                    return NULL;
                break; /* on from past it */
            }
        }
        base = next;
    }
    return NULL;
}

/* The data-cas-key of the start tag [p, tag_stop): *key and *len, or 0. */
static int key_of(const char *p, const char *tag_stop, const char **key, size_t *len)
{
    const char *at = NULL;
    /* at each space, as a tag is short (memmem's setup costs more) */
    for (const char *sp = p; !at && (sp = first_of(sp, tag_stop, ' ', ' ', ' ')) != tag_stop; sp++)
        if (starts(sp, tag_stop, " " KEY_ATTR))
            at = sp + sizeof KEY_ATTR;
    if (!at)
        return 0;
    const char *q = first_of(at, tag_stop, '"', '"', '"');
    if (q == tag_stop || q == at)
        return 0;
    *key = at;
    *len = (size_t)(q - at);
    return 1;
}

/* Keys' order: bytes, then length (a prefix first). */
static int bytes_cmp(const char *a, size_t a_len, const char *b, size_t b_len)
{
    int c = memcmp(a, b, a_len < b_len ? a_len : b_len);
    return c ? c : (a_len > b_len) - (a_len < b_len);
}

/* A part's key8 for key[0..len). */
static uint64_t key_word(const char *key, size_t len)
{
    uint64_t w = 0;
    memcpy(&w, key, len < 8 ? len : 8);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    w = __builtin_bswap64(w);
#endif
    return w;
}

/* bytes_cmp of two keys given with their key8 as well: the words decide
 * unless they are equal (zero padding sorts a key before any it is a
 * prefix of, as bytes_cmp does); then the lengths, when either key ends
 * within them, else the bytes past them. */
static inline int keys_cmp(uint64_t a8, const char *a, size_t a_len, uint64_t b8, const char *b,
                           size_t b_len)
{
    if (a8 != b8)
        return a8 < b8 ? -1 : 1;
    if (a_len <= 8 || b_len <= 8)
        return (a_len > b_len) - (a_len < b_len);
    return bytes_cmp(a + 8, a_len - 8, b + 8, b_len - 8);
}

static int is_space(char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/* Room for `more` parts: 0, or -1 when memory ran out. */
static int part_room(struct cas__picture *pic, size_t *cap, size_t more)
{
    return cas__grow((void **)&pic->parts, cap, pic->n + more, sizeof *pic->parts) == CAS_OK
               ? 0
               : -1;
}

/* A part added to pic (key8 its key's, see keys_cmp): inline, as every
 * element of every picture is one. */
static inline int add_part(struct cas__picture *pic, size_t *cap, size_t key, size_t key_len,
                           uint64_t key8, size_t at, size_t len, size_t gap, long was)
{
    if (pic->n == *cap && part_room(pic, cap, 1))
        return -1;
    pic->parts[pic->n++] = (struct cas__pic_part){
        .key = key, .key_len = key_len, .key8 = key8, .at = at, .len = len, .gap = gap,
        .was = was};
    return 0;
}

static long find_key(const struct cas__picture *pic, const char *key, size_t len);

#define SAME_OPEN "<g " KEY_ATTR
#define SAME_MID "\" " CAS_SAME_ATTR "=\""
#define SAME_CLOSE SAME_MID "\"/>"

/* What a cut sees: the text it cuts, the picture before (keyed, or NULL)
 * and its bytes, and the element of it the next one is likely to be; and
 * what it found. */
struct cutting {
    const char *base, *end;
    const struct cas__picture *prev;
    const char *prev_base;
    size_t expect;
    size_t kept;      /* parts placeholders stood for: at most prev's */
    int odd_gaps;     /* a placeholder's gap is not its element's gap in prev */
    int bad;          /* a placeholder that does not fit */
    const char *why;  /* why the picture does not cut, for the caller */
};

/* q at the quote that ends a placeholder's key: past the placeholder,
 * with *count the elements it stands for (1, or a run's N: ABI 1.5); NULL
 * when it is no placeholder's end. */
static const char *same_end(const char *q, const char *end, size_t *count)
{
    const size_t mid = sizeof SAME_MID - 1, close = sizeof SAME_CLOSE - 1;
    if ((size_t)(end - q) >= close && same_bytes(q, SAME_CLOSE, close)) {
        *count = 1;
        return q + close;
    }
    if ((size_t)(end - q) < mid + 4 || !same_bytes(q, SAME_MID, mid) || q[mid] < '1' ||
        q[mid] > '9')
        return NULL;
    size_t n = 0;
    const char *d = q + mid;
    for (; d < end && *d >= '0' && *d <= '9'; d++)
        if ((n = n * 10 + (size_t)(*d - '0')) > CAS_SAME_RUN_MAX)
            return NULL;
    if ((size_t)(end - d) < 3 || d[0] != '"' || d[1] != '/' || d[2] != '>')
        return NULL;
    *count = n;
    return d + 3;
}

/* p at '<' of a placeholder (docs/abi.md "ABI 1.4: pictures relative to
 * the last"), gap bytes after the element before: the part of prev it
 * stands for added to pic, marked same (at and len its own text's until
 * the picture is placed), and its end; else NULL (c->why set when it is one
 * but names no part of prev).  A run's (ABI 1.5) parts after its first are
 * prev's next ones, each with the gap it has there. */
static const char *placeholder(struct cas__picture *pic, size_t *cap, struct cutting *c,
                               const char *p, size_t gap)
{
    const size_t open = sizeof SAME_OPEN - 1, close = sizeof SAME_CLOSE - 1;
    const struct cas__picture *prev = c->prev;
    const char *end = c->end, *key = p + open, *q = NULL, *next = NULL;
    size_t count = 0;
    if ((size_t)(end - p) < open + close || !same_bytes(p, SAME_OPEN, open))
        return NULL;
    long o = -1;
    /* Most often the element after the last one kept: its key and the
     * placeholder's close compared in place (a key holds no quote, so the
     * scan below would end at the same quote). */
    if (c->expect < prev->n) {
        const struct cas__pic_part *e = &prev->parts[c->expect];
        if ((size_t)(end - key) >= e->key_len + close &&
            same_bytes(key, c->prev_base + e->key, e->key_len) &&
            (next = same_end(key + e->key_len, end, &count))) {
            o = (long)c->expect;
            q = key + e->key_len;
        }
    }
    if (o < 0) {
        q = first_of(key, end, '"', '"', '"');
        if (q == end || q == key || !(next = same_end(q, end, &count)))
            return NULL;
        if ((o = find_key(prev, key, (size_t)(q - key))) < 0) {
            c->why = "a placeholder names no element of the last picture";
            c->bad = 1;
            return NULL;
        }
    }
    if (count > prev->n - (size_t)o) {
        c->why = "a run of placeholders passes the last picture's end";
        c->bad = 1;
        return NULL;
    }
    /* more than the last picture has means one stood for twice: refused
     * before its parts are made (a run is a few bytes for many parts) */
    if (count > prev->n - c->kept) {
        c->why = "placeholders stand for more elements than the last picture has";
        c->bad = 1;
        return NULL;
    }
    c->kept += count;
    if ((pic->n + count > *cap && part_room(pic, cap, count)) ||
        add_part(pic, cap, (size_t)(key - c->base), (size_t)(q - key), prev->parts[o].key8,
                 (size_t)(p - c->base), (size_t)(next - p), gap, o)) {
        c->why = "memory ran out";
        c->bad = 1;
        return NULL;
    }
    pic->parts[pic->n - 1].same = 1;
    /* its element keeps its bytes and the gap before them, when that gap
     * is the one written here */
    const struct cas__pic_part *was = &prev->parts[o];
    if (was->gap != gap || !same_bytes(c->prev_base + was->at - gap, p - gap, gap))
        c->odd_gaps = 1;
    /* the rest of a run: prev's, gaps and all (placed from prev) */
    for (size_t k = 1; k < count; k++) {
        const struct cas__pic_part *r = &prev->parts[(size_t)o + k];
        pic->parts[pic->n++] = (struct cas__pic_part){
            .key_len = r->key_len, .key8 = r->key8, .at = (size_t)(next - c->base),
            .gap = r->gap, .was = o + (long)k, .same = 1, .gap_kept = 1};
    }
    return next;
}

/* The element at p when it is prev's part `expect`, byte for byte: its
 * end, found without scanning (the scan of the same bytes ends at the same
 * place and reads the same key), with the part added to pic (same when
 * the gap before it is too); else NULL. */
static const char *same_as(struct cas__picture *pic, size_t *cap, struct cutting *c,
                           const char *p, size_t gap)
{
    if (!c->prev || c->expect >= c->prev->n)
        return NULL;
    const struct cas__pic_part *q = &c->prev->parts[c->expect];
    if ((size_t)(c->end - p) < q->len || memcmp(p, c->prev_base + q->at, q->len) != 0)
        return NULL;
    size_t at = (size_t)(p - c->base);
    if (add_part(pic, cap, at + (q->key - q->at), q->key_len, q->key8, at, q->len, gap,
                 (long)c->expect))
        return NULL;
    /* with the same text before it, it is prev's where prev has it (and
     * a picture drawn relative to prev keeps it there) */
    pic->parts[pic->n - 1].same =
        q->gap == gap && same_bytes(c->prev_base + q->at - gap, p - gap, gap);
    return p + q->len;
}

/* Cut the text c->base[from..) (a store's bytes for a whole picture, the
 * drawn text for a relative one: pic's offsets are into it); 0 when every
 * top-level element is keyed, else -1 with c->why.  With c->prev (the picture
 * before, keyed), each element is first taken as the one that followed
 * the last element matched in prev: most of a picture is what it was, and
 * a comparison costs a fraction of a scan.  With `since`, placeholders
 * stand for prev's elements (take_relative). */
static int cut(struct cas__picture *pic, struct cutting *c, int since, size_t from)
{
    const char *base = c->base, *p = base + from, *end = c->end;
    size_t cap = 0;
    int empty;
    c->why = "it is not an <svg> element";
    if (end - base > (ptrdiff_t)UINT32_MAX) { /* offsets past 32 bits: kept whole */
        c->why = "it is too large";
        return -1;
    }
    /* about as many parts as prev: room for them at once, not grown */
    if (c->prev && cas__grow((void **)&pic->parts, &cap, c->prev->n + c->prev->n / 8 + 8,
                             sizeof *pic->parts)) {
        c->why = "memory ran out";
        return -1;
    }
    pic->head_at = from;
    /* The prologue: declarations and comments, then the root start tag. */
    for (;;) {
        while (p < end && is_space(*p))
            p++;
        if (p >= end || *p != '<')
            return -1;
        if (p[1] != '!' && p[1] != '?')
            break;
        if (!(p = skip_other(p, end)))
            return -1;
    }
    if (!starts(p, end, "<svg"))
        return -1;
    pic->root_at = (uint32_t)(p - base);
    if (!(p = tag_end(p, end, &empty)) || empty)
        return -1;
    pic->root_len = (uint32_t)(p - base - pic->root_at);
    const char *last = p; /* the end of the element (or root tag) before */
    c->why = "text or an unfinished element among its elements";
    for (;;) {
        while (p < end && is_space(*p))
            p++;
        if (p + 1 >= end || *p != '<')
            return -1;
        if (p[1] == '/' && starts(p, end, "</svg")) {
            pic->tail_at = (uint32_t)(last - base);
            pic->tail_len = (uint32_t)(end - last);
            return 0;
        }
        if (p[1] == '!' || p[1] == '?') {
            if (!(p = skip_other(p, end)))
                return -1;
            continue;
        }
        size_t gap = (size_t)(p - last);
        const char *next = since ? placeholder(pic, &cap, c, p, gap) : NULL;
        if (next) {
            c->expect = (size_t)pic->parts[pic->n - 1].was + 1;
            p = last = next;
            continue;
        }
        if (c->bad) /* a placeholder for nothing, or no memory */
            return -1;
        if ((next = same_as(pic, &cap, c, p, gap))) {
            c->expect++;
            p = last = next;
            continue;
        }
        const char *stop = NULL, *key;
        size_t key_len;
        if (!(next = element_end(p, end, &stop)))
            return -1;
        if (!key_of(p, stop, &key, &key_len)) {
            c->why = "a top-level element has no data-cas-key";
            return -1;
        }
        if (add_part(pic, &cap, (size_t)(key - base), key_len, key_word(key, key_len),
                     (size_t)(p - base), (size_t)(next - p), gap, -1)) {
            c->why = "memory ran out";
            return -1;
        }
        if (c->prev) { /* changed or new: go on after its place in prev, if it had one */
            /* most often drawn where prev had it */
            const struct cas__pic_part *e =
                c->expect < c->prev->n ? &c->prev->parts[c->expect] : NULL;
            long o = e && e->key_len == key_len && same_bytes(c->prev_base + e->key, key, key_len)
                         ? (long)c->expect
                         : find_key(c->prev, key, key_len);
            pic->parts[pic->n - 1].was = o;
            if (o >= 0)
                c->expect = (size_t)o + 1;
        }
        p = last = next;
    }
}

/* Keys are unique, or the picture is not keyed.  Sorted indices into
 * pic->sorted make both the check and the diff's lookups O(n log n). */
static inline int key_cmp(size_t a, size_t b, const struct cas__picture *pa,
                   const struct cas__picture *pb)
{
    const struct cas__pic_part *x = &pa->parts[a], *y = &pb->parts[b];
    const char *ba = cas__picture_bytes(pa), *bb = cas__picture_bytes(pb);
    return keys_cmp(x->key8, ba + x->key, x->key_len, y->key8, bb + y->key, y->key_len);
}

static int sort_cmp(const void *a, const void *b, void *pic)
{
    return key_cmp(*(const size_t *)a, *(const size_t *)b, pic, pic);
}

/* Whether pic->sorted[0..n) is in strictly increasing key order. */
static int strictly_sorted(const struct cas__picture *pic, const size_t *sorted, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (key_cmp(sorted[i - 1], sorted[i], pic, pic) >= 0)
            return 0;
    return 1;
}

/* items[0..n) in key order: by insertion when they are few (the keys a
 * picture adds to its predecessor's), else qsort. */
static void sort_few(struct cas__picture *pic, size_t *items, size_t n)
{
    if (n > 16) {
        qsort_r(items, n, sizeof *items, sort_cmp, pic);
        return;
    }
    for (size_t i = 1; i < n; i++) {
        size_t x = items[i], j = i;
        for (; j > 0 && key_cmp(items[j - 1], x, pic, pic) > 0; j--)
            items[j] = items[j - 1];
        items[j] = x;
    }
}

/* The first of sorted[0..k) whose key is not below part x's: *equal says
 * whether it is x's key. */
static size_t lower_bound(const struct cas__picture *pic, const size_t *sorted, size_t k,
                          size_t x, int *equal)
{
    size_t lo = 0, hi = k;
    *equal = 0;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = key_cmp(sorted[mid], x, pic, pic);
        if (c < 0) {
            lo = mid + 1;
        } else {
            *equal |= c == 0;
            hi = mid;
        }
    }
    return lo;
}

/* pic's parts in prev's key order, for the parts cut as one of prev's
 * (`was`: each hint was checked against its key when it was set, so
 * these are in order already, prev's keys being unique), then the others
 * (the keys prev lacks: few) sorted and each put in its place found by
 * bisection: a picture that is mostly its predecessor is indexed in about
 * n steps without comparing keys, not n log n comparisons.  0; or -1 when
 * a key is there twice (a part of the rest whose key one of the first
 * has, or two of the rest), or memory ran out, with pic->sorted in no
 * particular order. */
static int sort_after(struct cas__picture *pic, const struct cas__picture *prev)
{
    size_t *now = malloc((prev->n + pic->n) * sizeof *now), *tail = now + prev->n, k = 0, t = 0;
    if (!now)
        return -1;
    memset(now, 0xff, prev->n * sizeof *now); /* SIZE_MAX: none */
    for (size_t i = 0; i < pic->n; i++) {
        long o = pic->parts[i].was;
        if (o >= 0 && (size_t)o < prev->n && now[o] == SIZE_MAX)
            now[o] = i;
        else
            tail[t++] = i;
    }
    for (size_t j = 0; j < prev->n; j++)
        if (now[prev->sorted[j]] != SIZE_MAX)
            pic->sorted[k++] = now[prev->sorted[j]];
    sort_few(pic, tail, t);
    int rc = strictly_sorted(pic, tail, t) ? 0 : -1;
    /* from the last of the rest down, each after the first that are below
     * it, the ones above moved up to make room */
    while (rc == 0 && t > 0) {
        int equal;
        size_t at = lower_bound(pic, pic->sorted, k, tail[t - 1], &equal);
        if (equal) {
            rc = -1;
            break;
        }
        memmove(pic->sorted + at + t, pic->sorted + at, (k - at) * sizeof *pic->sorted);
        pic->sorted[at + t - 1] = tail[t - 1];
        k = at;
        t--;
    }
    free(now);
    return rc;
}

/* pic->sorted: its parts' indices in key order, from prev's order when pic
 * was cut after prev (keyed).  -1 when a key is there twice or memory ran
 * out. */
static int index_keys(struct cas__picture *pic, const struct cas__picture *prev)
{
    if (!pic->n)
        return -1;
    if (!(pic->sorted = malloc(pic->n * sizeof *pic->sorted)))
        return -1;
    if (prev && prev->keyed && sort_after(pic, prev) == 0)
        return 0;
    /* no order to start from, or a key is twice */
    for (size_t i = 0; i < pic->n; i++)
        pic->sorted[i] = i;
    qsort_r(pic->sorted, pic->n, sizeof *pic->sorted, sort_cmp, pic);
    return strictly_sorted(pic, pic->sorted, pic->n) ? 0 : -1;
}

/* ------------------------------------------------------------ stores */

/* Room a picture's store keeps for the elements the next pictures draw
 * (a relative picture's drawn elements go there; when they do not fit,
 * the picture moves to a store of its own with this much room again). */
#define DRAWN_ROOM(len) ((len) / 4 + 2048)

struct cas__pic_store {
    size_t refs;
    char *bytes;     /* a NUL after len */
    size_t len, cap; /* cap: what bytes holds before it grows, the NUL aside */
};

/* A store of bytes[0..len) (malloc'd with room for cap and a NUL; NULL: a
 * new one of cap), one reference; NULL when memory ran out (bytes freed). */
static struct cas__pic_store *store_new(char *bytes, size_t len, size_t cap)
{
    struct cas__pic_store *s = malloc(sizeof *s);
    if (s && !bytes)
        bytes = malloc(cap + 1);
    if (!s || !bytes) {
        free(s);
        free(bytes);
        return NULL;
    }
    *s = (struct cas__pic_store){.refs = 1, .bytes = bytes, .len = len, .cap = cap};
    bytes[len] = '\0';
    return s;
}

static void store_unref(struct cas__pic_store *s)
{
    if (s && --s->refs == 0) {
        free(s->bytes);
        free(s);
    }
}

/* Room for `more` bytes past len: CAS_OK or CAS_ENOMEM.  bytes may move,
 * offsets into it stay. */
static int store_reserve(struct cas__pic_store *s, size_t more)
{
    if (s->cap - s->len >= more)
        return CAS_OK;
    /* by a quarter (and 4 KB): a store is kept, and most of it is read
     * only, so it is not doubled */
    size_t cap = s->len + more;
    if (cap < s->cap + s->cap / 4 + 4096)
        cap = s->cap + s->cap / 4 + 4096;
    char *bytes = realloc(s->bytes, cap + 1);
    if (!bytes)
        return CAS_ENOMEM;
    s->bytes = bytes;
    s->cap = cap;
    return CAS_OK;
}

/* A struct cas_writer's write onto the end of the store given as ctx. */
static int store_write(void *ctx, const char *data, size_t len)
{
    struct cas__pic_store *s = ctx;
    if (store_reserve(s, len) != CAS_OK)
        return CAS_ENOMEM;
    memcpy(s->bytes + s->len, data, len);
    s->len += len;
    s->bytes[s->len] = '\0';
    return CAS_OK;
}

/* The store's room past its bytes given back but `room` (growth leaves up
 * to a quarter and 4 KB): for a picture kept as it is. */
static void store_fit(struct cas__pic_store *s, size_t room)
{
    if (s->cap - s->len <= room + room / 2)
        return;
    char *bytes = realloc(s->bytes, s->len + room + 1);
    if (bytes) {
        s->bytes = bytes;
        s->cap = s->len + room;
    }
}

/* Let go of what was written from `len` on. */
static void store_cut(struct cas__pic_store *s, size_t len)
{
    s->len = len;
    s->bytes[len] = '\0';
}

const char *cas__picture_bytes(const struct cas__picture *pic)
{
    return pic->store ? pic->store->bytes : NULL;
}

/* pic's text copied into a new store with room for `room` more bytes, in
 * order (each run of its pieces that lies in order copied at once), its
 * offsets moved with it; -1 when memory ran out (pic unchanged). */
static int flatten(struct cas__picture *pic, size_t room)
{
    struct cas__pic_store *s = store_new(NULL, 0, pic->len + room);
    if (!s)
        return -1;
    const char *from = pic->store->bytes;
    size_t run_at = pic->head_at, run_len = cas__picture_head_len(pic), to = run_len;
    pic->root_at -= (uint32_t)pic->head_at;
    pic->head_at = 0;
    for (size_t i = 0; i < pic->n; i++) {
        struct cas__pic_part *p = &pic->parts[i];
        size_t span_at = p->at - p->gap, span = p->gap + p->len, at = to + p->gap;
        if (span_at != run_at + run_len) {
            memcpy(s->bytes + s->len, from + run_at, run_len);
            s->len += run_len;
            run_at = span_at;
            run_len = 0;
        }
        run_len += span;
        p->key = at + (p->key - p->at);
        p->at = at;
        to += span;
    }
    if (pic->tail_at != run_at + run_len) {
        memcpy(s->bytes + s->len, from + run_at, run_len);
        s->len += run_len;
        run_at = pic->tail_at;
        run_len = 0;
    }
    run_len += pic->tail_len;
    memcpy(s->bytes + s->len, from + run_at, run_len);
    s->len += run_len;
    s->bytes[s->len] = '\0';
    pic->tail_at = (uint32_t)to;
    store_unref(pic->store);
    pic->store = s;
    pic->flat = 1;
    return 0;
}

const char *cas__picture_svg(struct cas__picture *pic)
{
    if (!pic->store)
        return NULL;
    /* in one piece, and at the end of its store (where the NUL is); else
     * moved, with room for the next pictures' drawn elements */
    if (!(pic->flat && pic->head_at + pic->len == pic->store->len) &&
        flatten(pic, DRAWN_ROOM(pic->len)))
        return NULL;
    return pic->store->bytes + pic->head_at;
}

/* ---------------------------------------------------------- pictures */

static void unkey(struct cas__picture *pic)
{
    free(pic->parts);
    free(pic->sorted);
    pic->parts = NULL;
    pic->sorted = NULL;
    pic->n = 0;
    pic->keyed = 0;
}

/* pic, a store's whole bytes from `from` on (drawn whole), cut knowing
 * prev; kept whole when it is not keyed. */
static void take_whole(struct cas__picture *pic, size_t from, const struct cas__picture *prev)
{
    struct cas__pic_store *s = pic->store;
    if (prev && !prev->keyed)
        prev = NULL;
    struct cutting c = {.base = s->bytes, .end = s->bytes + s->len, .prev = prev,
                        .prev_base = cas__picture_bytes(prev ? prev : pic)};
    pic->after = prev ? prev->parts : NULL;
    pic->flat = 1;
    pic->len = s->len - from;
    pic->keyed = cut(pic, &c, 0, from) == 0 && index_keys(pic, prev) == 0;
    if (!pic->keyed) {
        unkey(pic);
        pic->head_at = from;
        pic->root_at = pic->root_len = pic->tail_at = pic->tail_len = 0;
    }
}

void cas__picture_take(struct cas__picture *pic, char *svg, size_t len)
{
    cas__picture_take_after(pic, svg, len, NULL);
}

void cas__picture_take_after(struct cas__picture *pic, char *svg, size_t len,
                             const struct cas__picture *prev)
{
    memset(pic, 0, sizeof *pic);
    if (svg && !(pic->store = store_new(svg, len, len)))
        return;
    if (svg)
        take_whole(pic, 0, prev);
}

/* Bytes copied into a store, a run at a time: pieces that lie one after
 * the other where they come from are copied together. */
struct run {
    char *to;          /* where the run goes */
    const char *from;  /* where it comes from */
    size_t len;
};

static inline void flush(struct run *r)
{
    memcpy(r->to, r->from, r->len);
    r->to += r->len;
    r->len = 0;
}

static inline void copy(struct run *r, const char *from, size_t len)
{
    if (r->len && from != r->from + r->len)
        flush(r);
    if (!r->len)
        r->from = from;
    r->len += len;
}

/* pic, cut with placeholders from text (its offsets the text's), placed:
 * each placeholder's part prev's element.  Its head, drawn elements and
 * tail are added to prev's store, so the kept elements stay where they
 * are (with the gap before them, which is the same); or, when a gap is
 * not (odd_gaps), the store has no room left or holds half the picture
 * again of what earlier pictures let go of, the whole text is copied into
 * a store of its own with room (the others keep theirs until they go).
 * -1 when memory ran out or the text is too large (pic's store NULL). */
static int place(struct cas__picture *pic, const struct cas__picture *prev, const char *text,
                 int odd_gaps)
{
    struct cas__pic_store *s = prev->store;
    size_t head = cas__picture_head_len(pic), drawn = head + pic->tail_len, len = drawn;
    for (size_t i = 0; i < pic->n; i++) {
        const struct cas__pic_part *p = &pic->parts[i];
        size_t span = p->gap + (p->same ? prev->parts[p->was].len : p->len);
        len += span;
        drawn += p->same ? 0 : span;
    }
    int own = odd_gaps || s->cap - s->len < drawn || s->len + drawn > len + len / 2 + 4096;
    if (len > UINT32_MAX / 2 || (own && !(s = store_new(NULL, 0, len + DRAWN_ROOM(len)))))
        return -1;
    if (!own)
        s->refs++;
    struct run r = {.to = s->bytes + s->len};
    size_t tail_from = pic->tail_at;
    copy(&r, text + pic->head_at, head);
    pic->root_at = (uint32_t)(s->len + (pic->root_at - pic->head_at));
    pic->head_at = s->len;
    for (size_t i = 0; i < pic->n; i++) {
        struct cas__pic_part *p = &pic->parts[i];
        const struct cas__pic_part *q = p->same ? &prev->parts[p->was] : p;
        if (p->same && !own) { /* where prev has it, with its gap */
            p->key = q->key;
            p->at = q->at;
            p->len = q->len;
            continue;
        }
        /* the gap before it as written; a kept element's, when it is the
         * same, with it (most often a run of elements kept together), and
         * always within a run placeholder (ABI 1.5), which wrote none */
        const char *from = p->same ? prev->store->bytes : text;
        if (!p->same || (odd_gaps && !p->gap_kept))
            copy(&r, text + p->at - p->gap, p->gap);
        else
            copy(&r, from + q->at - p->gap, p->gap);
        size_t at = (size_t)(r.to + r.len - s->bytes);
        copy(&r, from + q->at, q->len);
        p->key = at + (q->key - q->at);
        p->len = q->len;
        p->at = at;
    }
    pic->tail_at = (uint32_t)(r.to + r.len - s->bytes);
    copy(&r, text + tail_from, pic->tail_len);
    flush(&r);
    s->len = (size_t)(r.to - s->bytes);
    s->bytes[s->len] = '\0';
    pic->store = s;
    pic->len = len;
    pic->flat = (unsigned char)own;
    return 0;
}

/* pic: text[0..len), drawn relative to prev (keyed), cut and placed;
 * NULL, or why it does not fit (pic empty). */
static const char *take_relative(struct cas__picture *pic, const struct cas__picture *prev,
                                 const char *text, size_t len)
{
    memset(pic, 0, sizeof *pic);
    if (!prev->keyed)
        return "the last picture is not keyed";
    struct cutting c = {.base = text, .end = text + len, .prev = prev,
                        .prev_base = prev->store->bytes};
    size_t from = prev->store->len;
    const char *why = NULL;
    if (cut(pic, &c, 1, 0) != 0)
        why = c.why;
    else if (place(pic, prev, text, c.odd_gaps) != 0)
        why = "memory ran out";
    else if (index_keys(pic, prev) != 0)
        why = "an element is there twice";
    if (why) {
        if (pic->store == prev->store) /* let go of what it added */
            store_cut(prev->store, from);
        cas__picture_free(pic);
        return why;
    }
    pic->keyed = 1;
    pic->after = prev->parts;
    return NULL;
}

int cas__picture_draw(struct cas__picture *pic, const struct cas__picture *prev,
                      cas__picture_drawer draw, void *ctx, const char **unfit)
{
    unsigned char stamp[CAS_RENDER_STAMP_MIN];
    size_t stamp_len = 0;
    int rc;
    memset(pic, 0, sizeof *pic);
    if (unfit)
        *unfit = NULL;
    if (prev && prev->store && prev->stamp_len) {
        /* drawn apart, then placed beside prev's kept elements */
        struct cas__buf text;
        cas__buf_init(&text, 0);
        struct cas_writer out = {.struct_size = sizeof out, .ctx = &text, .write = cas__buf_write};
        rc = cas__buf_reserve(&text, prev->len / 2);
        if (rc == CAS_OK)
            rc = draw(ctx, prev->stamp, prev->stamp_len, stamp, &stamp_len, &out);
        const char *why = rc == CAS_OK ? take_relative(pic, prev, text.data, text.len) : NULL;
        cas__buf_free(&text);
        if (rc != CAS_OK)
            return rc;
        if (!why)
            goto stamp;
        if (unfit)
            *unfit = why;
        stamp_len = 0;
    }
    /* whole, in a store of its own, with room for what the next draw */
    size_t room = prev ? prev->len + prev->len / 4 : 0;
    if (!(pic->store = store_new(NULL, 0, room)))
        return CAS_ENOMEM;
    struct cas_writer out = {.struct_size = sizeof out, .ctx = pic->store, .write = store_write};
    rc = draw(ctx, NULL, 0, stamp, &stamp_len, &out);
    if (rc == CAS_OK && pic->store->len == 0)
        rc = CAS_EINVAL;
    if (rc != CAS_OK) {
        cas__picture_free(pic);
        return rc;
    }
    store_fit(pic->store, DRAWN_ROOM(pic->store->len));
    take_whole(pic, 0, prev);
stamp:
    cas__picture_stamp(pic, stamp, stamp_len); /* none: the next is drawn whole */
    return CAS_OK;
}

int cas__picture_stamp(struct cas__picture *pic, const unsigned char *stamp, size_t len)
{
    free(pic->stamp);
    pic->stamp = NULL;
    pic->stamp_len = 0;
    if (!len)
        return 0;
    if (len > UINT32_MAX || !(pic->stamp = malloc(len)))
        return -1;
    memcpy(pic->stamp, stamp, len);
    pic->stamp_len = (uint32_t)len;
    return 0;
}

void cas__picture_free(struct cas__picture *pic)
{
    store_unref(pic->store);
    unkey(pic);
    free(pic->stamp);
    memset(pic, 0, sizeof *pic);
}

/* The index of pic's part keyed key[0..len), or -1. */
static long find_key(const struct cas__picture *pic, const char *key, size_t len)
{
    const char *b = cas__picture_bytes(pic);
    uint64_t key8 = key_word(key, len);
    size_t lo = 0, hi = pic->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const struct cas__pic_part *x = &pic->parts[pic->sorted[mid]];
        int c = keys_cmp(x->key8, b + x->key, x->key_len, key8, key, len);
        if (c == 0)
            return (long)pic->sorted[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

static void write_key(struct cas__jw *w, const struct cas__picture *pic, size_t i)
{
    cas__jw_strn(w, cas__picture_bytes(pic) + pic->parts[i].key, pic->parts[i].key_len);
}

int cas__picture_diff(const struct cas__picture *old, const struct cas__picture *new,
                      struct cas__jw *w)
{
    static const struct cas__picture empty = {.keyed = 1};
    if (!old)
        old = &empty;
    if (!old->keyed || !new->keyed)
        return -1;
    unsigned char *kept = calloc(old->n + 1, 1);
    if (!kept)
        return -1;
    const char *ob = cas__picture_bytes(old), *nb = cas__picture_bytes(new);
    int first = 1;
    long last_kept = -1;
    cas__jw_raw(w, "{");
    if (old->root_len != new->root_len ||
        memcmp(ob + old->root_at, nb + new->root_at, new->root_len)) {
        cas__jw_raw(w, "\"root\":");
        cas__jw_strn(w, nb + new->root_at, new->root_len);
        cas__jw_raw(w, ",");
    }
    cas__jw_raw(w, "\"put\":[");
    int after_old = new->after && new->after == old->parts; /* new was cut after old */
    for (size_t i = 0; i < new->n; i++) {
        const struct cas__pic_part *p = &new->parts[i];
        long o = p->was;
        /* Cut after old, the hint is exact (checked against its key then,
         * -1: no such key in old); else it may be about another picture. */
        if (!after_old && (o < 0 || (size_t)o >= old->n || key_cmp((size_t)o, i, old, new) != 0))
            o = find_key(old, nb + p->key, p->key_len);
        /* Kept where it was, in the same order and the same bytes: nothing
         * to send.  Moved or changed: sent again after its predecessor. */
        if (o >= 0) {
            kept[o] = 1;
            const struct cas__pic_part *q = &old->parts[o];
            int same = p->same && after_old;
            if (o > last_kept && q->len == p->len &&
                (same || memcmp(ob + q->at, nb + p->at, p->len) == 0)) {
                last_kept = o;
                continue;
            }
        }
        cas__jw_raw(w, first ? "[" : ",[");
        write_key(w, new, i);
        cas__jw_raw(w, ",");
        if (i)
            write_key(w, new, i - 1);
        else
            cas__jw_raw(w, "null");
        cas__jw_raw(w, ",");
        cas__jw_strn(w, nb + p->at, p->len);
        cas__jw_raw(w, "]");
        first = 0;
    }
    cas__jw_raw(w, "],\"remove\":[");
    first = 1;
    for (size_t o = 0; o < old->n; o++)
        if (!kept[o]) {
            if (!first)
                cas__jw_raw(w, ",");
            write_key(w, old, o);
            first = 0;
        }
    cas__jw_raw(w, "]}");
    free(kept);
    return 0;
}
