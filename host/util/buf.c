/*
 * buf.c — the growable byte buffer (buf.h): capacity doubles from a small
 * first block, one byte past cap always kept for the NUL, and a limit so
 * untrusted input fails with CAS_ENOSPC instead of growing without bound;
 * and the same doubling for arrays of any element.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"

#define FIRST_BLOCK 256

void cas__buf_init(struct cas__buf *b, size_t max)
{
    *b = (struct cas__buf){.max = max};
}

int cas__buf_reserve(struct cas__buf *b, size_t more)
{
    if (b->failed)
        return b->failed;
    if (more <= b->cap - b->len && b->data)
        return CAS_OK;
    size_t max = b->max ? b->max : SIZE_MAX / 2;
    if (more > max - b->len)
        return b->failed = CAS_ENOSPC;
    size_t need = b->len + more, cap = b->cap ? b->cap : FIRST_BLOCK;
    while (cap < need)
        cap *= 2;
    if (cap > max)
        cap = max;
    char *grown = realloc(b->data, cap + 1);
    if (!grown)
        return b->failed = CAS_ENOMEM;
    grown[b->len] = '\0';
    b->data = grown;
    b->cap = cap;
    return CAS_OK;
}

void cas__buf_setlen(struct cas__buf *b, size_t len)
{
    b->len = len;
    if (b->data)
        b->data[len] = '\0';
}

int cas__buf_add(struct cas__buf *b, const void *data, size_t n)
{
    int rc = cas__buf_reserve(b, n);
    if (rc != CAS_OK)
        return rc;
    if (n)
        memcpy(b->data + b->len, data, n);
    cas__buf_setlen(b, b->len + n);
    return CAS_OK;
}

int cas__buf_addstr(struct cas__buf *b, const char *text)
{
    return cas__buf_add(b, text, strlen(text));
}

int cas__buf_write(void *ctx, const char *data, size_t len)
{
    return cas__buf_add(ctx, data, len);
}

int cas__buf_addf(struct cas__buf *b, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    int rc = cas__buf_vaddf(b, fmt, args);
    va_end(args);
    return rc;
}

int cas__buf_vaddf(struct cas__buf *b, const char *fmt, va_list args)
{
    if (b->failed)
        return b->failed;
    va_list again;
    va_copy(again, args);
    /* Most pieces fit what is already there: format once, straight in. */
    size_t room = b->data ? b->cap - b->len + 1 : 0;
    int n = vsnprintf(room ? b->data + b->len : NULL, room, fmt, args);
    if (n >= 0 && (size_t)n >= room && cas__buf_reserve(b, (size_t)n) == CAS_OK)
        vsnprintf(b->data + b->len, (size_t)n + 1, fmt, again);
    va_end(again);
    if (n < 0 || (size_t)n > b->cap - b->len) {
        cas__buf_setlen(b, b->len); /* undo a cut-off piece */
        return n < 0 ? CAS_EINVAL : b->failed;
    }
    b->len += (size_t)n;
    return CAS_OK;
}

void cas__buf_reset(struct cas__buf *b)
{
    b->failed = CAS_OK;
    cas__buf_setlen(b, 0);
}

char *cas__buf_take(struct cas__buf *b, size_t *len)
{
    char *data = b->failed ? NULL : b->data;
    if (len)
        *len = data ? b->len : 0;
    if (data)
        b->data = NULL;
    cas__buf_free(b);
    return data;
}

char *cas__buf_take_fit(struct cas__buf *b, size_t *len)
{
    size_t slack = b->cap - b->len, held = b->len;
    char *data = cas__buf_take(b, len);
    if (data && slack > held / 8) {
        char *fit = realloc(data, held + 1);
        data = fit ? fit : data; /* a shrink that fails leaves it as it was */
    }
    return data;
}

void cas__buf_free(struct cas__buf *b)
{
    free(b->data);
    cas__buf_init(b, b->max);
}

int cas__grow(void **items, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap && *items)
        return CAS_OK;
    if (size == 0 || need > SIZE_MAX / 2 / size)
        return CAS_ENOMEM;
    size_t grown = *cap ? *cap * 2 : 64;
    while (grown < need)
        grown *= 2;
    void *bigger = realloc(*items, grown * size);
    if (!bigger)
        return CAS_ENOMEM;
    *items = bigger;
    *cap = grown;
    return CAS_OK;
}
