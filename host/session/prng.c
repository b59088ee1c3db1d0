/*
 * prng.c — SplitMix64 keyed by (seed, ply, stream); unbiased bounded and
 * weighted draws for chance nodes and bots.
 */
#include "prng.h"

#include <time.h>
#include <unistd.h>

#define GOLDEN_GAMMA 0x9e3779b97f4a7c15ull

/* The SplitMix64 output function (Steele, Lea, Flood 2014). */
static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void cas__prng_init(struct cas__prng *r, uint64_t seed, uint32_t ply, uint32_t stream)
{
    /* Two rounds so that neighbouring (ply, stream) pairs land far apart. */
    uint64_t position = ((uint64_t)ply << 32) | stream;
    r->key = mix64(mix64(seed + GOLDEN_GAMMA) ^ (position * GOLDEN_GAMMA + 1));
    r->counter = 0;
}

void cas__prng_fork(struct cas__prng *r, uint64_t branch)
{
    r->key = mix64(r->key ^ mix64(branch * GOLDEN_GAMMA + GOLDEN_GAMMA));
    r->counter = 0;
}

uint64_t cas__prng_next(struct cas__prng *r)
{
    r->counter++;
    return mix64(r->key + r->counter * GOLDEN_GAMMA);
}

uint64_t cas__prng_below(struct cas__prng *r, uint64_t n)
{
    /* Values below 2^64 mod n would make the low residues more likely.
     * That threshold is below n, so a draw of n or more (all but n in 2^64)
     * passes without the division that works it out. */
    uint64_t x = cas__prng_next(r);
    if (x < n) {
        uint64_t threshold = (0 - n) % n;
        while (x < threshold)
            x = cas__prng_next(r);
    }
    return x % n;
}

static uint64_t rng_below(void *ctx, uint64_t n)
{
    return cas__prng_below(ctx, n);
}

struct cas_rng cas__prng_rng(struct cas__prng *r)
{
    return (struct cas_rng){.struct_size = sizeof(struct cas_rng), .ctx = r, .below = rng_below};
}

int cas__prng_pick_weighted(struct cas__prng *r, const struct cas_outcome *outcomes,
                            size_t n, size_t *index)
{
    uint64_t total = 0;
    int bad = n == 0;
    /* no early exit: bots call this at every chance node, and the refusal
     * (a zero weight, a total past 2^64) is for plugins with a bug */
    for (size_t i = 0; i < n; i++) {
        bad |= outcomes[i].weight == 0;
        bad |= __builtin_add_overflow(total, outcomes[i].weight, &total);
    }
    if (bad)
        return CAS_EINVAL;
    uint64_t ticket = cas__prng_below(r, total);
    for (size_t i = 0; i < n; i++) {
        if (ticket < outcomes[i].weight) {
            *index = i;
            return CAS_OK;
        }
        ticket -= outcomes[i].weight;
    }
    return CAS_EINVAL; /* unreachable: ticket < total */
}

uint64_t cas__prng_fresh_seed(void)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    uint64_t entropy = ((uint64_t)now.tv_sec << 20) ^ (uint64_t)now.tv_nsec;
    return mix64(entropy ^ ((uint64_t)getpid() << 40)) % 1000000000000ull;
}
