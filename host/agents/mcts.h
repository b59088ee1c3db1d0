/*
 * mcts.h — Monte Carlo tree search over the plugin ABI (host-internal): the
 * engine of the mcts agent, of `castellan bench --only mcts` and of hints.
 *
 * UCT with chance nodes drawn by weight through the host's PRNG; for games
 * whose plugin provides determinize (hidden state), single-observer
 * information-set MCTS: every iteration searches a fresh determinization
 * of what the deciding player may see, and children are chosen among those
 * legal in it (UCB counted over availability).  Playouts are random or
 * greedy, and may stop early at the plugin's projected_returns; the reward
 * is the win, or mostly the win and partly the score margin.  Root
 * parallelization: each thread grows its own tree from its own sub-stream
 * of the player's PRNG stream and the root visits are summed; tree
 * parallelization: the threads grow one tree with virtual loss, taking
 * their descents and back-ups in a fixed order.  Either way a search is a
 * pure function of (seed, ply, player, state, thread count) under an
 * iteration budget.  Between decisions of a perfect-information game each
 * thread keeps the subtree of the new position (found by state hash).
 */
#ifndef CAS_HOST_MCTS_H
#define CAS_HOST_MCTS_H

#include <stddef.h>
#include <stdint.h>

#include "agent.h"
#include "agent_spec.h"

struct cas__mcts_params {
    uint64_t iterations;   /* per decision, all threads together (millis == 0) */
    uint64_t millis;       /* per decision, wall clock; 0: iteration budget */
    unsigned threads;      /* search threads, >= 1 */
    double exploration;    /* the UCB constant c (rewards are in [0, 1]) */
    enum cas__mcts_rollout rollout;
    /* Actions a playout takes before it is scored by the plugin's
     * projected_returns (when it has one); 0: playouts run to the end. */
    uint32_t rollout_limit;
    int reuse;             /* keep the subtree between decisions */
    enum cas__mcts_parallel parallel;
    enum cas__mcts_reward reward;
};

/* What the last search did. */
struct cas__mcts_stats {
    uint64_t iterations;   /* all threads */
    uint64_t reused;       /* root visits carried over from the previous decision */
    size_t nodes;          /* all threads' trees */
    double seconds;
    int determinized;      /* the game hides state: every iteration sampled it */
};

struct cas__mcts;

/* The parameters of a level (iterations, rollouts), for `threads`
 * threads (0: every core). */
void cas__mcts_level(enum cas__agent_level level, unsigned threads,
                     struct cas__mcts_params *out);

/* The parameters a validated agent spec of kind "mcts" stands for. */
void cas__mcts_from_spec(const struct cas__agent_spec *spec, struct cas__mcts_params *out);

/* Cores the machine has online (at least 1). */
unsigned cas__mcts_cores(void);

/* A search with these parameters (copied), no tree yet.  CAS_EINVAL for a
 * zero budget or thread count.  Caller owns *out (cas__mcts_free). */
int cas__mcts_new(const struct cas__mcts_params *params, struct cas__mcts **out);
void cas__mcts_free(struct cas__mcts *search); /* NULL is fine */

/* Search the decision d within the budget and put the most visited root
 * action (one of d->legal->items) into *out.  Reads d->state only through
 * determinize when the plugin provides it.  States live only during the
 * call (the tree keeps actions and hashes), so d->match may differ from
 * one call to the next.  Returns CAS_OK or the plugin's negative code. */
int cas__mcts_choose(struct cas__mcts *search, const struct cas__decision *d,
                     cas_action *out);

/* Figures of the last cas__mcts_choose. */
const struct cas__mcts_stats *cas__mcts_last(const struct cas__mcts *search);

/* The mcts agent with these parameters.  Caller owns *out
 * (cas__agent_free); CAS_EINVAL as cas__mcts_new. */
int cas__agent_mcts_new(const struct cas__mcts_params *params, struct cas__agent **out);

/* The last search of an mcts agent; NULL for any other agent. */
const struct cas__mcts_stats *cas__agent_mcts_stats(const struct cas__agent *agent);

#endif
