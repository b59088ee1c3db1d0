/*
 * agent_spec.h — the text that names a player's agent, as config files and
 * --players give it: "human", "random", "greedy", or a search bot
 * "mcts[-LEVEL][@BUDGET][/THREADS][+OPTION...]" (mcts-hard, mcts@2000,
 * mcts@500ms, mcts-easy/1, mcts-hard+greedy, mcts@1000/2+tree+win).  Parsed here so that config can refuse a bad one with a
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

/* The +OPTION words of a search bot, one of each group at most; 0 in a
 * spec means the group was not given (the level's or the default). */
enum cas__mcts_rollout {
    CAS__ROLLOUT_RANDOM = 1, /* +random: uniform over the legal actions */
    CAS__ROLLOUT_GREEDY = 2  /* +greedy: best immediate own score minus the best other's */
};
enum cas__mcts_parallel {
    CAS__PARALLEL_ROOT = 1, /* +root: a tree per thread, root visits summed */
    CAS__PARALLEL_TREE = 2  /* +tree: one shared tree, virtual loss, threads in turn */
};
enum cas__mcts_reward {
    CAS__REWARD_WIN = 1,    /* +win: 1 a win, 1/k a first place shared by k, 0 a loss */
    CAS__REWARD_MARGIN = 2  /* +margin: mostly the win, partly the score margin */
};

/* The bots' syntax, for messages that name every form. */
#define CAS__BOT_SYNTAX                                                                    \
    "random, greedy or "                                                                   \
    "mcts[-easy|-medium|-hard][@N|@Nms][/THREADS][+random|+greedy][+root|+tree][+win|+margin]"

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
    enum cas__mcts_rollout rollout;   /* mcts: 0 = the level's */
    enum cas__mcts_parallel parallel; /* mcts: 0 = the default */
    enum cas__mcts_reward reward;     /* mcts: 0 = the default */
};

/* Parse `text` into *out.  On CAS_EPARSE err holds "WHERE: agent "TEXT" ...;
 * fix" naming the closest valid agent; *out is then unspecified. */
int cas__agent_spec_parse(const char *text, const char *where, struct cas__agent_spec *out,
                          char *err, size_t errlen);

/* The same where only a bot will do (a hint, a tournament): an unknown name
 * is refused with the bots' forms.  "human" still parses, for the caller
 * to refuse in its own words. */
int cas__agent_spec_parse_bot(const char *text, const char *where,
                              struct cas__agent_spec *out, char *err, size_t errlen);

#endif
