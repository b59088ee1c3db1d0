/*
 * shared.c — the process's table of shared read-only blocks (shared.h): a
 * list under one mutex (a process holds a few option sets, not thousands),
 * each block behind a header with its owner, key, size and references.
 * The bytes are compared, not only the key, so a key that misses an input
 * (a tile file edited between two games) costs sharing, never correctness.
 */
#include <pthread.h>
#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "shared.h"

struct block {
    struct block *next;
    const void *owner;
    char *key; /* owned */
    size_t size;
    size_t refs;
    alignas(max_align_t) unsigned char data[];
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct block *blocks;

static struct block *block_of(const void *data)
{
    return (struct block *)((const unsigned char *)data - offsetof(struct block, data));
}

const void *cas__shared_keep(const void *owner, const char *key, const void *data,
                             size_t size)
{
    const void *kept = NULL;
    pthread_mutex_lock(&lock);
    struct block *b = blocks;
    while (b && (b->owner != owner || strcmp(b->key, key) != 0))
        b = b->next;
    if (b) {
        if (b->size == size && memcmp(b->data, data, size) == 0) {
            b->refs++;
            kept = b->data;
        }
        goto unlock;
    }
    if (size > SIZE_MAX - sizeof *b || !(b = malloc(sizeof *b + size)))
        goto unlock;
    if (!(b->key = strdup(key))) {
        free(b);
        goto unlock;
    }
    b->owner = owner;
    b->size = size;
    b->refs = 1;
    memcpy(b->data, data, size);
    b->next = blocks;
    blocks = b;
    kept = b->data;
unlock:
    pthread_mutex_unlock(&lock);
    return kept;
}

void cas__shared_release(const void *data)
{
    if (!data)
        return;
    struct block *gone = block_of(data);
    pthread_mutex_lock(&lock);
    if (--gone->refs == 0) {
        struct block **at = &blocks;
        while (*at != gone)
            at = &(*at)->next;
        *at = gone->next;
    } else {
        gone = NULL;
    }
    pthread_mutex_unlock(&lock);
    if (gone) {
        free(gone->key);
        free(gone);
    }
}

size_t cas__shared_count(size_t *refs)
{
    size_t n = 0, held = 0;
    pthread_mutex_lock(&lock);
    for (const struct block *b = blocks; b; b = b->next) {
        n++;
        held += b->refs;
    }
    pthread_mutex_unlock(&lock);
    if (refs)
        *refs = held;
    return n;
}
