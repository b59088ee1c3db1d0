/*
 * tournament.h — strength, measured (host-internal): N seeded games of one
 * match between two agents, seats alternated, and the statistics of the
 * first agent's results.
 */
#ifndef CAS_HOST_TOURNAMENT_H
#define CAS_HOST_TOURNAMENT_H

#include <stdint.h>

#include "match.h"

/* A's results over the games played so far. */
struct cas__tournament_result {
    int games;
    int wins, draws, losses;           /* A's return above, equal to, below B's */
    double diff_sum, diff_squares;     /* of A's return minus B's */
    double a_sum, b_sum;               /* of the returns */
    uint64_t a_decisions;              /* decisions A took */
    double a_seconds;                  /* time A spent on them */
};

struct cas__tournament {
    struct cas__match *match;          /* a 2-player match; borrowed */
    const char *agent_a, *agent_b;     /* agent specs (config/agent_spec.h), not human */
    int games;
    /* Game i is seeded seed + i / 2; A takes the first seat in even games
     * and the second in odd ones, so each seed is played from both seats. */
    uint64_t seed;
    /* Called after each game when not NULL. */
    void (*progress)(void *ctx, const struct cas__tournament_result *so_far, int total);
    void *ctx;
};

/* Play the games into *r.  On failure err says which game, seed and what
 * failed; *r holds the games finished before it. */
int cas__tournament_run(const struct cas__tournament *t, struct cas__tournament_result *r,
                        char *err, size_t errlen);

/* A's win rate, a draw counting half. */
double cas__tournament_rate(const struct cas__tournament_result *r);

/* The Wilson score interval of a proportion p observed over n trials, for
 * the normal quantile z (1.96: 95%), into [*low, *high].  n > 0. */
void cas__wilson(double p, double n, double z, double *low, double *high);

#endif
