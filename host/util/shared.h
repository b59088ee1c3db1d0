/*
 * shared.h — read-only data kept once per process (host-internal): the
 * table behind the plugin ABI's share/unshare (docs/abi.md "Shared data").
 * A block is kept under an owner (the plugin's descriptor) and a key, with
 * a count of the games holding it; the last release frees it.  Safe to
 * call from any thread.
 */
#ifndef CAS_HOST_SHARED_H
#define CAS_HOST_SHARED_H

#include <stddef.h>

/* The block kept under (owner, key) when its bytes equal data[0..size),
 * else, when no block is kept under that key, a new copy of them; either
 * way with one more reference, which the caller gives back with
 * cas__shared_release.  NULL when a block under that key holds other bytes
 * (the caller keeps its own data) or memory ran out.  The copy is aligned
 * for any type. */
const void *cas__shared_keep(const void *owner, const char *key, const void *data,
                             size_t size);

/* Give back one reference to a block cas__shared_keep returned; the last
 * frees it.  NULL is fine. */
void cas__shared_release(const void *block);

/* For tests: how many blocks are kept, and (when refs is not NULL) the
 * references they hold together. */
size_t cas__shared_count(size_t *refs);

#endif
