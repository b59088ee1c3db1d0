/*
 * agent.h — who makes a player's decisions (host-internal): a human at the
 * terminal or a bot, each filling the table the session asks through
 * (host/session/agent_ops.h).  Agents see only the plugin ABI through the
 * match, so every agent plays every game.
 */
#ifndef CAS_HOST_AGENT_H
#define CAS_HOST_AGENT_H

#include <stdint.h>
#include <stdio.h>

#include "agent_ops.h"
#include "random_play.h"

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

/* The host code a game's worker runs next to its plugin (batch.c): bench's
 * playouts and a bot's decision.  The program hands it to the worker room
 * (cas__worker_use_batches) before it starts any worker. */
extern const struct cas__worker_batches cas__agent_batches;

/* For agents that keep no state of their own (the bots): a bare struct
 * cas__agent with these ops, and its free function. */
int cas__agent_plain_new(const struct cas__agent_ops *ops, struct cas__agent **out);
void cas__agent_plain_free(struct cas__agent *agent);

#endif
