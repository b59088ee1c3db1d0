/*
 * textbuf.c — a NUL-terminated text that grows as a cas_writer writes to
 * it: what a plugin renders or converts, kept whole in memory.
 */
#include "text.h"

#include <stdlib.h>
#include <string.h>

int cas__textbuf_write(void *ctx, const char *data, size_t len)
{
    struct cas__textbuf *b = ctx;
    if (b->len + len + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 16384;
        while (cap < b->len + len + 1)
            cap *= 2;
        char *bigger = realloc(b->data, cap);
        if (!bigger)
            return CAS_ENOMEM;
        b->data = bigger;
        b->cap = cap;
    }
    memcpy(b->data + b->len, data, len);
    b->len += len;
    b->data[b->len] = '\0';
    return CAS_OK;
}
