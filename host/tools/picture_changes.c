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

/* p at '<' of a start tag: past the element's end tag, or NULL. */
static const char *element_end(const char *p, const char *end)
{
    int depth = 0, empty;
    while (p && p < end) {
        if (*p != '<') {
            p = first_of(p, end, '<', '<', '<');
            if (p == end)
                return NULL;
            continue;
        }
        if (p + 1 < end && (p[1] == '!' || p[1] == '?')) {
            p = skip_other(p, end);
        } else if (p + 1 < end && p[1] == '/') {
            const char *gt = memchr(p, '>', (size_t)(end - p));
            if (!gt)
                return NULL;
            p = gt + 1;
            if (--depth == 0)
                return p;
        } else {
            p = tag_end(p, end, &empty);
            if (p && !empty)
                depth++;
            else if (p && depth == 0)
                return p;
        }
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

static int is_space(char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

static int add_part(struct cas__picture *pic, size_t *cap, const char *key, size_t key_len,
                    size_t at, size_t len, long was)
{
    if (pic->n == *cap &&
        cas__grow((void **)&pic->parts, cap, pic->n + 1, sizeof *pic->parts) != CAS_OK)
        return -1;
    pic->parts[pic->n++] = (struct cas__pic_part){
        .key = (size_t)(key - pic->svg), .key_len = key_len, .at = at, .len = len, .was = was};
    return 0;
}

static long find_in(const struct cas__picture *old, const struct cas__picture *new, size_t i);
static long find_key(const struct cas__picture *pic, const char *key, size_t len);

#define SAME_OPEN "<g " KEY_ATTR
#define SAME_CLOSE "\" data-cas-same=\"\"/>"

/* p at '<' of a placeholder (docs/abi.md "ABI 1.4: pictures relative to
 * the last"): the part of prev it stands for added to pic, marked same,
 * and its end; else NULL (*bad set when it is one but names no part of
 * prev). */
static const char *placeholder(struct cas__picture *pic, size_t *cap,
                               const struct cas__picture *prev, size_t expect, const char *p,
                               const char *end, int *bad)
{
    if (!starts(p, end, SAME_OPEN))
        return NULL;
    const char *key = p + sizeof SAME_OPEN - 1;
    const char *q = first_of(key, end, '"', '"', '"');
    if (q == end || q == key || !starts(q, end, SAME_CLOSE))
        return NULL;
    size_t key_len = (size_t)(q - key);
    long o = -1;
    if (prev && expect < prev->n && prev->parts[expect].key_len == key_len &&
        memcmp(prev->svg + prev->parts[expect].key, key, key_len) == 0)
        o = (long)expect;
    else if (prev)
        o = find_key(prev, key, key_len);
    const char *next = q + sizeof SAME_CLOSE - 1;
    if (o < 0 || add_part(pic, cap, key, key_len, (size_t)(p - pic->svg), (size_t)(next - p), o)) {
        *bad = 1;
        return NULL;
    }
    pic->parts[pic->n - 1].same = 1;
    return next;
}

/* The element at p when it is prev's part `at`, byte for byte: its end,
 * found without scanning (the scan of the same bytes ends at the same
 * place and reads the same key), with the part added to pic; else NULL. */
static const char *same_as(struct cas__picture *pic, size_t *cap, const struct cas__picture *prev,
                           size_t at, const char *p, const char *end)
{
    if (!prev || at >= prev->n)
        return NULL;
    const struct cas__pic_part *q = &prev->parts[at];
    if ((size_t)(end - p) < q->len || memcmp(p, prev->svg + q->at, q->len) != 0)
        return NULL;
    const char *key = p + (q->key - q->at);
    if (add_part(pic, cap, key, q->key_len, (size_t)(p - pic->svg), q->len, (long)at))
        return NULL;
    return p + q->len;
}

/* Cut pic->svg; 0 when every top-level element is keyed.  With prev (the
 * picture before, keyed), each element is first taken as the one that
 * followed the last element matched in prev: most of a picture is what it
 * was, and a comparison costs a fraction of a scan.  With `since`,
 * placeholders stand for prev's elements (cas__picture_take_since). */
static int cut(struct cas__picture *pic, const struct cas__picture *prev, int since)
{
    const char *p = pic->svg, *end = pic->svg + pic->len;
    size_t cap = 0;
    int empty;
    /* about as many parts as prev: room for them at once, not grown */
    if (prev && prev->keyed &&
        cas__grow((void **)&pic->parts, &cap, prev->n + prev->n / 8 + 8, sizeof *pic->parts))
        return -1;
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
    pic->root_at = (size_t)(p - pic->svg);
    if (!(p = tag_end(p, end, &empty)) || empty)
        return -1;
    pic->root_len = (size_t)(p - pic->svg) - pic->root_at;
    size_t expect = 0; /* prev's part the next element is likely to be */
    if (prev && !prev->keyed)
        prev = NULL;
    for (;;) {
        while (p < end && is_space(*p))
            p++;
        if (p >= end || *p != '<')
            return -1;
        if (starts(p, end, "</svg"))
            return 0;
        if (p[1] == '!' || p[1] == '?') {
            if (!(p = skip_other(p, end)))
                return -1;
            continue;
        }
        int bad = 0;
        const char *next = since ? placeholder(pic, &cap, prev, expect, p, end, &bad) : NULL;
        if (bad)
            return -1;
        if (next) {
            expect = (size_t)pic->parts[pic->n - 1].was + 1;
            p = next;
            continue;
        }
        next = same_as(pic, &cap, prev, expect, p, end);
        if (next) {
            expect++;
            p = next;
            continue;
        }
        const char *stop = tag_end(p, end, &empty), *key;
        size_t key_len;
        if (!stop || !key_of(p, stop, &key, &key_len) || !(next = element_end(p, end)))
            return -1;
        if (add_part(pic, &cap, key, key_len, (size_t)(p - pic->svg), (size_t)(next - p), -1))
            return -1;
        if (prev) { /* changed or new: go on after its place in prev, if it had one */
            long o = find_in(prev, pic, pic->n - 1);
            pic->parts[pic->n - 1].was = o;
            if (o >= 0)
                expect = (size_t)o + 1;
        }
        p = next;
    }
}

/* Keys are unique, or the picture is not keyed.  Sorted indices into
 * pic->sorted make both the check and the diff's lookups O(n log n). */
static int key_cmp(size_t a, size_t b, const struct cas__picture *pa,
                   const struct cas__picture *pb)
{
    const struct cas__pic_part *x = &pa->parts[a], *y = &pb->parts[b];
    return bytes_cmp(pa->svg + x->key, x->key_len, pb->svg + y->key, y->key_len);
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

/* pic's parts in prev's key order, for the parts cut as one of prev's
 * (`was`: each hint was checked against its key when it was set, so
 * these are in order already, prev's keys being unique), then the others
 * sorted and merged in: a picture that is mostly its predecessor is
 * indexed in about n comparisons, not n log n.  0; or -1 when a key is
 * there twice (the merge meets every key of one side equal to a key of
 * the other), or memory ran out, with pic->sorted in no particular
 * order. */
static int sort_after(struct cas__picture *pic, const struct cas__picture *prev)
{
    size_t *now = malloc((prev->n + pic->n) * sizeof *now), *tail = now + prev->n, k = 0, t = 0;
    if (!now)
        return -1;
    for (size_t j = 0; j < prev->n; j++)
        now[j] = SIZE_MAX;
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
    qsort_r(tail, t, sizeof *tail, sort_cmp, pic);
    int rc = strictly_sorted(pic, tail, t) ? 0 : -1;
    /* merge sorted[0..k) and tail[0..t) from the back, in place */
    for (size_t i = k + t; rc == 0 && t > 0;) {
        int c = k > 0 ? key_cmp(pic->sorted[k - 1], tail[t - 1], pic, pic) : -1;
        if (c == 0)
            rc = -1;
        else if (c > 0)
            pic->sorted[--i] = pic->sorted[--k];
        else
            pic->sorted[--i] = tail[--t];
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

void cas__picture_take(struct cas__picture *pic, char *svg, size_t len)
{
    cas__picture_take_after(pic, svg, len, NULL);
}

static void unkey(struct cas__picture *pic)
{
    free(pic->parts);
    free(pic->sorted);
    pic->parts = NULL;
    pic->sorted = NULL;
    pic->n = 0;
    pic->keyed = 0;
}

void cas__picture_take_after(struct cas__picture *pic, char *svg, size_t len,
                             const struct cas__picture *prev)
{
    memset(pic, 0, sizeof *pic);
    pic->svg = svg;
    pic->len = len;
    if (!svg)
        return;
    if (prev && !prev->keyed)
        prev = NULL;
    pic->after = prev ? prev->svg : NULL;
    pic->keyed = cut(pic, prev, 0) == 0 && index_keys(pic, prev) == 0;
    if (!pic->keyed)
        unkey(pic);
}

/* pic (cut with placeholders) with each placeholder replaced by the part
 * of prev it stands for: one new buffer, the parts moved with their
 * bytes.  -1 when two placeholders stand for one part (so the picture is
 * never larger than the plugin's text and prev together) or memory ran
 * out. */
static int fill_placeholders(struct cas__picture *pic, const struct cas__picture *prev)
{
    unsigned char *taken = calloc(prev->n + 1, 1);
    size_t len = pic->len;
    for (size_t i = 0; taken && i < pic->n; i++) {
        size_t o = (size_t)pic->parts[i].was;
        if (!pic->parts[i].same)
            continue;
        if (taken[o]) {
            free(taken);
            return -1;
        }
        taken[o] = 1;
        len += prev->parts[o].len - pic->parts[i].len;
    }
    char *svg = taken ? malloc(len + 1) : NULL;
    free(taken);
    if (!svg)
        return -1;
    size_t from = 0, to = 0; /* copied up to, in pic->svg and in svg */
    for (size_t i = 0; i < pic->n; i++) {
        struct cas__pic_part *p = &pic->parts[i];
        size_t gap = p->at - from;
        memcpy(svg + to, pic->svg + from, gap);
        to += gap;
        from = p->at + p->len;
        if (p->same) {
            const struct cas__pic_part *q = &prev->parts[p->was];
            memcpy(svg + to, prev->svg + q->at, q->len);
            p->key = to + (q->key - q->at);
            p->len = q->len;
        } else {
            memcpy(svg + to, pic->svg + p->at, p->len);
            p->key = to + (p->key - p->at);
        }
        p->at = to;
        to += p->len;
    }
    memcpy(svg + to, pic->svg + from, pic->len - from);
    svg[len] = '\0';
    free(pic->svg);
    pic->svg = svg;
    pic->len = len;
    return 0;
}

int cas__picture_take_since(struct cas__picture *pic, char *svg, size_t len,
                            const struct cas__picture *prev)
{
    memset(pic, 0, sizeof *pic);
    pic->svg = svg;
    pic->len = len;
    if (svg && prev && prev->keyed && cut(pic, prev, 1) == 0 &&
        fill_placeholders(pic, prev) == 0 && index_keys(pic, prev) == 0) {
        pic->keyed = 1;
        pic->after = prev->svg;
        return 0;
    }
    cas__picture_free(pic);
    return -1;
}

int cas__picture_stamp(struct cas__picture *pic, const unsigned char *stamp, size_t len)
{
    free(pic->stamp);
    pic->stamp = NULL;
    pic->stamp_len = 0;
    if (!len)
        return 0;
    if (!(pic->stamp = malloc(len)))
        return -1;
    memcpy(pic->stamp, stamp, len);
    pic->stamp_len = len;
    return 0;
}

void cas__picture_free(struct cas__picture *pic)
{
    free(pic->svg);
    unkey(pic);
    free(pic->stamp);
    memset(pic, 0, sizeof *pic);
}

/* The index of pic's part keyed key[0..len), or -1. */
static long find_key(const struct cas__picture *pic, const char *key, size_t len)
{
    size_t lo = 0, hi = pic->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const struct cas__pic_part *x = &pic->parts[pic->sorted[mid]];
        int c = bytes_cmp(pic->svg + x->key, x->key_len, key, len);
        if (c == 0)
            return (long)pic->sorted[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* The index in old of new's part i, or -1. */
static long find_in(const struct cas__picture *old, const struct cas__picture *new, size_t i)
{
    return find_key(old, new->svg + new->parts[i].key, new->parts[i].key_len);
}

static void write_key(struct cas__jw *w, const struct cas__picture *pic, size_t i)
{
    cas__jw_strn(w, pic->svg + pic->parts[i].key, pic->parts[i].key_len);
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
    int first = 1;
    long last_kept = -1;
    cas__jw_raw(w, "{");
    if (old->root_len != new->root_len ||
        memcmp(old->svg + old->root_at, new->svg + new->root_at, new->root_len)) {
        cas__jw_raw(w, "\"root\":");
        cas__jw_strn(w, new->svg + new->root_at, new->root_len);
        cas__jw_raw(w, ",");
    }
    cas__jw_raw(w, "\"put\":[");
    int after_old = new->after && new->after == old->svg; /* new was cut after old */
    for (size_t i = 0; i < new->n; i++) {
        const struct cas__pic_part *p = &new->parts[i];
        long o = p->was;
        /* Cut after old, the hint is exact (checked against its key then,
         * -1: no such key in old); else it may be about another picture. */
        if (!after_old && (o < 0 || (size_t)o >= old->n || key_cmp((size_t)o, i, old, new) != 0))
            o = find_in(old, new, i);
        /* Kept where it was, in the same order and the same bytes: nothing
         * to send.  Moved or changed: sent again after its predecessor. */
        if (o >= 0) {
            kept[o] = 1;
            const struct cas__pic_part *q = &old->parts[o];
            int same = p->same && after_old;
            if (o > last_kept && q->len == p->len &&
                (same || memcmp(old->svg + q->at, new->svg + p->at, p->len) == 0)) {
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
        cas__jw_strn(w, new->svg + p->at, p->len);
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
