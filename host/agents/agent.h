/*
 * agent.h — who makes a player's decisions (host-internal): a human at the
 * terminal or a bot.  Agents see only the plugin ABI through the match, so
 * every agent plays every game.
 */
#ifndef CAS_HOST_AGENT_H
#define CAS_HOST_AGENT_H

#include <stdint.h>
#include <stdio.h>

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

/* Create an agent from its spec as config validated it ("human", "random",
 * "greedy", "mcts-hard@2000/2": config/agent_spec.h); a human plays on
 * stdin/stdout, in colour when stdout is a terminal.  CAS_ENOTFOUND for an
 * unknown kind.  Caller owns *out (cas__agent_free). */
int cas__agent_new(const char *kind, struct cas__agent **out);

int cas__agent_random_new(struct cas__agent **out);
int cas__agent_greedy_new(struct cas__agent **out);
/* A human reading lines from `in` and writing the board, the choices and
 * prompts to `out` in `format` (TEXT or ANSI).  The streams are borrowed. */
int cas__agent_human_new(FILE *in, FILE *out, enum cas_render_format format,
                         struct cas__agent **out_agent);

void cas__agent_free(struct cas__agent *agent); /* NULL is fine */

/* The agent kind a human's `hint` asks (default "greedy"): any kind
 * cas__agent_new knows but "human".  CAS_ENOTFOUND for another kind,
 * CAS_EINVAL when `human` is not a human agent. */
int cas__agent_human_set_hint(struct cas__agent *human, const char *kind);
#define CAS__AGENT_DEFAULT_HINT "greedy"

/* The action random play takes in `state` at (seed, ply): a chance outcome
 * drawn by weight on the chance stream, or one of the player's legal
 * actions, uniformly, on that player's stream: by the plugin's
 * random_action (ABI 1.2) where it has one, else from list.  This is what a session's
 * chance and its random bot do, and what the checker plays.  At a chance
 * node a plugin with chance_total and chance_pick (ABI 1.1) is asked for
 * the outcome of the drawn ticket, unless m->generic_chance is set; else
 * list receives the outcomes and the ticket walks their weights (the same
 * outcome either way).  Elsewhere list must hold the legal actions of
 * state, unless cas__match_draws_actions(m).  Returns CAS_OK or the
 * plugin's negative code. */
int cas__random_action(struct cas__match *m, const cas_state *state,
                       struct cas__actions *list, uint64_t seed, uint32_t ply,
                       cas_action *out);

/* List the legal actions of `state` (not terminal; at a chance node its
 * outcomes only; nothing where the plugin draws actions itself) into list,
 * take the random action of (seed, ply) and apply it without events: one
 * step of a random playout. */
int cas__random_step(struct cas__match *m, cas_state *state, struct cas__actions *list,
                     uint64_t seed, uint32_t ply);

/* The longest playout: a game still going after this many actions is an
 * error (CAS_EINVAL). */
#define CAS__PLAYOUT_MAX_PLIES 1000000u

/* Play from start to the end in work (overwritten) as random bots play a
 * session seeded `seed`; *plies grows by the actions taken (playout.c). */
int cas__playout(struct cas__match *m, const cas_state *start, cas_state *work,
                 struct cas__actions *list, uint64_t seed, uint64_t *plies);

/* `games` playouts from the first state, game i seeded seed + i: their
 * actions in *plies and a digest of their final states in *checksum. */
int cas__playouts(struct cas__match *m, uint64_t seed, int games, uint64_t *plies,
                  uint64_t *checksum);

/* For agents that keep no state of their own (the bots): a bare struct
 * cas__agent with these ops, and its free function. */
int cas__agent_plain_new(const struct cas__agent_ops *ops, struct cas__agent **out);
void cas__agent_plain_free(struct cas__agent *agent);

/* A bot's choice for a game in a worker is made in the worker, as one
 * message: its search runs next to the plugin at in-process speed
 * (docs/isolation.md, "Cost").  A human decides here. */
static inline int cas__agent_choose(struct cas__agent *agent,
                                    const struct cas__decision *d, cas_action *out)
{
    if (d->match->isolated && agent->spec[0] && !agent->ops->takes_back)
        return cas__worker_decide(d->state, agent->spec, d->player, d->seed, d->ply, out);
    return agent->ops->choose(agent, d, out);
}

#endif
