/*
 * agent_ops.h — an agent as the session sees it (host-internal): the
 * method table a player's decisions are asked through.  The kinds of
 * agents (human, the bots) live in the room above (host/agents/) and fill
 * it; the session asks through it and names no kind.
 */
#ifndef CAS_HOST_AGENT_OPS_H
#define CAS_HOST_AGENT_OPS_H

#include <stdint.h>

#include "match.h"

/* Everything an agent is told about one decision.  All borrowed. */
struct cas__decision {
    struct cas__match *match;
    const cas_state *state;          /* the agent must not change it */
    int player;                      /* the actor, 0-based */
    const char *player_name;
    uint64_t seed;                   /* session seed: bots draw from */
    uint32_t ply;                    /* (seed, ply, CAS__STREAM_PLAYER(player)) */
    const struct cas__actions *legal;/* the legal actions, already listed
                                        (none for a draws_unlisted agent) */
    /* Fields below were added with undo and hints; zero means none. */
    /* How many of this player's own decisions may be taken back now: those
     * since the last new information (a chance outcome or another player's
     * decision).  Only a human ever asks (CAS__AGENT_UNDO). */
    unsigned undoable;
    char *const *player_names;       /* every seat's name, or NULL */
};

/* What a human's choose() returns to take back their last decision
 * (positive: not an error, not a choice).  Bots never return it. */
#define CAS__AGENT_UNDO 1

struct cas__agent;

struct cas__agent_ops {
    const char *kind;
    /* Pick one of d->legal->items into *out.  CAS_ECONFLICT means the
     * player quit; other negative codes are failures. */
    int (*choose)(struct cas__agent *agent, const struct cas__decision *d,
                  cas_action *out);
    void (*free)(struct cas__agent *agent);
    /* Why the agent would play `action` in d, in one line into buf (for a
     * human's `hint`).  NULL when the agent cannot say; CAS_OK or a
     * negative code. */
    int (*explain)(struct cas__agent *agent, const struct cas__decision *d,
                   cas_action action, char *buf, size_t cap);
    /* 1 for an agent that may return CAS__AGENT_UNDO (a human): only its
     * decisions are kept to be taken back.  Bots leave it 0. */
    int takes_back;
    /* 1 for an agent that needs no listing when the plugin draws a random
     * action itself (random_action, ABI 1.2): the random bot.  d->legal is
     * then empty. */
    int draws_unlisted;
};

/* Each agent type embeds this as its first member. */
struct cas__agent {
    const struct cas__agent_ops *ops;
    /* The spec cas__agent_new made it from ("" for others): a bot playing
     * a game in a worker decides there, by this spec (batch.c). */
    char spec[64];
};

/* Makes the agent of a spec ("greedy", "mcts-hard@2000/2"), as
 * cas__agent_new (host/agents/agent.h) does: how a room below the agents
 * creates one it is told to (a revived game's players).  CAS_ENOTFOUND for
 * an unknown kind; the caller owns *out and frees it through its ops. */
typedef int (*cas__agent_maker)(const char *spec, struct cas__agent **out);

/* A bot's choice for a game that runs elsewhere (in a worker) is made
 * there, through the table the match carries, as one message: its search
 * runs next to the plugin at in-process speed (docs/isolation.md, "Cost").
 * A human decides here. */
static inline int cas__agent_choose(struct cas__agent *agent,
                                    const struct cas__decision *d, cas_action *out)
{
    const struct cas__elsewhere *there = d->match->elsewhere;
    if (there && agent->spec[0] && !agent->ops->takes_back)
        return there->decide(d->state, agent->spec, d->player, d->seed, d->ply, out);
    return agent->ops->choose(agent, d, out);
}

#endif
