/*
 * marks.c — reading and checking the click-to-play marks of a decision
 * picture (marks.h).  A small scan of start tags is enough: plugins write
 * well-formed SVG (the picture tests parse it with libxml2), and the marks
 * are plain attributes whose values hold digits, spaces and escaped text.
 */
#include "buf.h"
#include "marks.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <castellan/plugin.h>

#define MAX_STEPS 16

struct element {
    int step;
    size_t first, count; /* its indices: idx[first .. first + count) */
};

struct marks {
    struct element *el;
    size_t nel, elcap;
    size_t *idx;
    size_t nidx, idxcap;
    size_t n;
    char *why;
    size_t cap;
};

static int fail(struct marks *m, const char *what, size_t element)
{
    snprintf(m->why, m->cap, "marked element %zu: %s", element + 1, what);
    return CAS_EPARSE;
}

/* The value of attribute `name` inside tag[0..len), or NULL; *vlen its
 * length. */
static const char *attribute(const char *tag, size_t len, const char *name, size_t *vlen)
{
    size_t nl = strlen(name);
    for (size_t i = 0; i + nl + 2 < len; i++) {
        if ((tag[i] != ' ' && tag[i] != '\n' && tag[i] != '\t') ||
            memcmp(tag + i + 1, name, nl) != 0 || tag[i + 1 + nl] != '=' ||
            tag[i + 2 + nl] != '"')
            continue;
        const char *v = tag + i + 3 + nl, *end = memchr(v, '"', (size_t)(tag + len - v));
        if (!end)
            return NULL;
        *vlen = (size_t)(end - v);
        return v;
    }
    return NULL;
}

/* One start tag: its marks, if any, become an element. */
static int read_tag(struct marks *m, const char *tag, size_t len)
{
    size_t clen = 0, slen = 0;
    const char *choices = attribute(tag, len, "data-cas-choices", &clen);
    const char *step = attribute(tag, len, "data-cas-step", &slen);
    if (!choices && !step)
        return CAS_OK;
    size_t e = m->nel;
    if (!choices || !step)
        return fail(m, "data-cas-choices and data-cas-step go together", e);
    int s = 0;
    for (size_t i = 0; i < slen; i++) {
        if ((step[i] < '0' || step[i] > '9' || s > MAX_STEPS))
            return fail(m, "data-cas-step is not a step from 1 to 16", e);
        s = s * 10 + (step[i] - '0');
    }
    if (s < 1 || s > MAX_STEPS)
        return fail(m, "data-cas-step is not a step from 1 to 16", e);
    if (cas__grow((void **)&m->el, &m->elcap, e + 1, sizeof *m->el) != CAS_OK)
        return CAS_ENOMEM;
    struct element *el = &m->el[e];
    *el = (struct element){.step = s, .first = m->nidx, .count = 0};
    for (size_t i = 0; i < clen;) {
        size_t v = 0, digits = 0;
        while (i < clen && choices[i] >= '0' && choices[i] <= '9' && digits < 12) {
            v = v * 10 + (size_t)(choices[i++] - '0');
            digits++;
        }
        if (!digits || (i < clen && (choices[i] != ' ' || i + 1 == clen)))
            return fail(m, "data-cas-choices is not indices separated by single spaces", e);
        i += i < clen;
        if (v >= m->n)
            return fail(m, "an index in data-cas-choices is past the last action", e);
        if (el->count && m->idx[m->nidx - 1] >= v)
            return fail(m, "data-cas-choices is not strictly ascending", e);
        if (cas__grow((void **)&m->idx, &m->idxcap, m->nidx + 1, sizeof *m->idx) != CAS_OK)
            return CAS_ENOMEM;
        m->idx[m->nidx++] = v;
        el->count++;
    }
    if (!el->count)
        return fail(m, "data-cas-choices names no action", e);
    m->nel++;
    return CAS_OK;
}

static int scan(struct marks *m, const char *svg, size_t len)
{
    for (size_t i = 0; i < len;) {
        const char *lt = memchr(svg + i, '<', len - i);
        if (!lt)
            break;
        size_t at = (size_t)(lt - svg);
        const char *close = ">";
        if (len - at >= 9 && memcmp(lt, "<![CDATA[", 9) == 0)
            close = "]]>";
        else if (len - at >= 4 && memcmp(lt, "<!--", 4) == 0)
            close = "-->";
        size_t cl = strlen(close), end = at + 1;
        while (end + cl <= len && memcmp(svg + end, close, cl) != 0)
            end++;
        if (end + cl > len)
            break;
        if (cl == 1) {
            int rc = read_tag(m, lt, end - at);
            if (rc != CAS_OK)
                return rc;
        }
        i = end + cl;
    }
    return CAS_OK;
}

static int contains(const struct marks *m, const struct element *e, size_t a)
{
    const size_t *lo = m->idx + e->first;
    size_t n = e->count;
    while (n) {
        size_t half = n / 2;
        if (lo[half] == a)
            return 1;
        if (lo[half] < a) {
            lo += half + 1;
            n -= half + 1;
        } else {
            n = half;
        }
    }
    return 0;
}

/* Can clicks on elements of steps after `after`, starting from candidates
 * `cand` (a bit set of `words` words, holding a), narrow to a alone?
 * scratch holds a bit set per step below. */
static int narrows(const struct marks *m, size_t a, int after, const uint64_t *cand,
                   uint64_t *scratch, size_t words)
{
    for (size_t e = 0; e < m->nel; e++) {
        const struct element *el = &m->el[e];
        if (el->step <= after || !contains(m, el, a))
            continue;
        memset(scratch, 0, words * sizeof *scratch);
        size_t left = 0;
        for (size_t i = 0; i < el->count; i++) {
            size_t v = m->idx[el->first + i];
            if (cand[v / 64] >> (v % 64) & 1u) {
                scratch[v / 64] |= (uint64_t)1 << (v % 64);
                left++;
            }
        }
        if (left == 1 || narrows(m, a, el->step, scratch, scratch + words, words))
            return 1;
    }
    return 0;
}

int cas__marks_verify(const char *svg, size_t len, size_t n, struct cas__marks_report *r,
                      unsigned char *each, char *why, size_t cap)
{
    struct marks m = {.n = n, .why = why, .cap = cap};
    memset(r, 0, sizeof *r);
    r->unreachable = (size_t)-1;
    if (cap)
        why[0] = '\0';
    int rc = scan(&m, svg, len);
    size_t words = (n + 63) / 64;
    uint64_t *sets = NULL;
    unsigned char *named = NULL;
    if (rc != CAS_OK)
        goto free_marks;
    r->elements = m.nel;
    rc = CAS_ENOMEM;
    sets = calloc((MAX_STEPS + 1) * (words ? words : 1), sizeof *sets);
    named = calloc(n ? n : 1, 1);
    if (!sets || !named)
        goto free_marks;
    for (size_t i = 0; i < m.nidx; i++)
        named[m.idx[i]] = 1;
    for (size_t a = 0; a < n; a++) /* at first every action is a candidate */
        sets[a / 64] |= (uint64_t)1 << (a % 64);
    for (size_t a = 0; a < n; a++) {
        int reach = 0;
        if (named[a]) {
            r->marked++;
            reach = n == 1 || narrows(&m, a, 0, sets, sets + words, words);
            r->reachable += reach;
            if (!reach && r->unreachable == (size_t)-1)
                r->unreachable = a;
        }
        if (each)
            each[a] = !named[a] ? CAS__MARK_NONE
                      : reach   ? CAS__MARK_REACHABLE
                                : CAS__MARK_UNREACHABLE;
    }
    rc = CAS_OK;
free_marks:
    free(named);
    free(sets);
    free(m.el);
    free(m.idx);
    return rc;
}
