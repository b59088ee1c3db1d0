/*
 * prng.h — the host's counter-based random numbers (host-internal).
 *
 * Every random number is a pure function of (seed, ply, stream, counter):
 * a SplitMix64 sequence whose starting point is the SplitMix64 mix of the
 * seed, the ply and the stream.  Nothing is carried from one ply to the
 * next, so a game resumed at ply N draws exactly what an uninterrupted game
 * with the same seed would draw there.  Stream 0 is chance; stream 1 + p
 * belongs to player p's bot.
 */
#ifndef CAS_HOST_PRNG_H
#define CAS_HOST_PRNG_H

#include <stddef.h>
#include <stdint.h>

#include <castellan/plugin.h>

#define CAS__STREAM_CHANCE 0u
#define CAS__STREAM_PLAYER(p) (1u + (uint32_t)(p))

struct cas__prng {
    uint64_t key;     /* mixed (seed, ply, stream) */
    uint64_t counter; /* draws taken so far */
};

/* Position the generator at (seed, ply, stream), counter 0. */
void cas__prng_init(struct cas__prng *r, uint64_t seed, uint32_t ply, uint32_t stream);

/* Re-key r for its sub-stream `branch`, counter 0: independent generators
 * from one (seed, ply, stream), e.g. one per search thread. */
void cas__prng_fork(struct cas__prng *r, uint64_t branch);

/* The next 64 uniformly distributed bits. */
uint64_t cas__prng_next(struct cas__prng *r);

/* Uniform in [0, n) without modulo bias (rejection); n must be > 0. */
uint64_t cas__prng_below(struct cas__prng *r, uint64_t n);

/* r as the plugin ABI's random numbers (below: cas__prng_below), for the
 * plugin calls that draw from the host (random_action, bench_floor). */
struct cas_rng cas__prng_rng(struct cas__prng *r);

/* Index of an outcome drawn with probability weight / total weight.
 * CAS_EINVAL if n is 0, a weight is 0 or the total overflows 64 bits. */
int cas__prng_pick_weighted(struct cas__prng *r, const struct cas_outcome *outcomes,
                            size_t n, size_t *index);

/* A seed for a session that gave none: from the clock and the process, so
 * two games started in the same second still differ.  Recorded by callers. */
uint64_t cas__prng_fresh_seed(void);

#endif
