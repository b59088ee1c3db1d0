/*
 * agent_spec.h — the text that names a player's agent, as config files and
 * --players give it: "human", "random", "greedy", or a search bot
 * "mcts[-LEVEL][@BUDGET][/THREADS]" (mcts-hard, mcts@2000, mcts@500ms,
 * mcts-easy/1).  Parsed here so that config can refuse a bad one with a
 * precise message and the host builds exactly what was validated.
 */
#ifndef CAS_CONFIG_AGENT_SPEC_H
#define CAS_CONFIG_AGENT_SPEC_H

#include <stddef.h>
#include <stdint.h>

enum cas__agent_level {
    CAS__LEVEL_EASY = 1,
    CAS__LEVEL_MEDIUM = 2, /* what "mcts" alone means */
    CAS__LEVEL_HARD = 3
};

/* Bounds of a budget, so that a typo cannot ask for a week per move. */
#define CAS__MCTS_MAX_ITERATIONS 100000000ull
#define CAS__MCTS_MAX_MILLIS 3600000ull
#define CAS__MCTS_MAX_THREADS 256u

struct cas__agent_spec {
    char kind[8];                /* "human", "random", "greedy" or "mcts" */
    enum cas__agent_level level; /* mcts only */
    uint64_t iterations;         /* mcts: per move; 0 = the level's */
    uint64_t millis;             /* mcts: per move, instead of iterations; 0 = none */
    unsigned threads;            /* mcts: 0 = every core of the machine */
};

/* Parse `text` into *out.  On CAS_EPARSE err holds "WHERE: agent "TEXT" ...;
 * fix" naming the closest valid agent; *out is then unspecified. */
int cas__agent_spec_parse(const char *text, const char *where, struct cas__agent_spec *out,
                          char *err, size_t errlen);

#endif
